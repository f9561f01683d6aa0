//! `[precondition]`: the state written before the first event.

use serde::{Deserialize, Serialize};

use super::checks::closed_fraction;
use super::generator::{validate_size, SizeDist};
use crate::error::Error;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FillPattern {
    #[default]
    Sequential,
    Random,
}

/// State-only preconditioning before the first event (no simulated time passes).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreconditionConfig {
    /// Fraction of the logical capacity written before the run.
    #[serde(default)]
    pub fill_fraction: f64,
    #[serde(default)]
    pub pattern: FillPattern,
    /// Random overwrites of already filled units after the fill, as a fraction of the logical
    /// capacity; GC runs (state-only) as needed, so 1.0–2.0 reaches steady state.
    #[serde(default)]
    pub overwrite_fraction: f64,
    /// Also write every unit the trace reads before writing it, so reads hit flash (MQSim does the
    /// same from the trace's footprint), in address order.
    #[serde(default = "super::default_true")]
    pub trace_footprint: bool,
    /// The size of the host writes the preconditioning stands for, which only PR-SSD's split
    /// decision looks at (§4.3.1: a page written by a request larger than the channels can read
    /// in parallel is not split). 0: one mapping unit, each unit written alone. Absent from a
    /// config echo at 0, so that runs without it read as before it existed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub write_request_kib: u64,
    /// Or the sizes of those host writes, a distribution as a generator's `write_size` (a
    /// workload's own mix): each size drawn covers as many units, written one after another,
    /// so a size's share of the units is its share of the bytes. The fill and the overwrites
    /// draw from one seeded stream, the trace footprint from another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_size: Option<SizeDist>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        PreconditionConfig {
            fill_fraction: 0.0,
            pattern: FillPattern::Sequential,
            overwrite_fraction: 0.0,
            trace_footprint: true,
            write_request_kib: 0,
            write_size: None,
        }
    }
}

impl PreconditionConfig {
    /// The fill is a share of the capacity; overwrites may go round it any number of times.
    pub(super) fn validate(&self) -> Result<(), Error> {
        closed_fraction("precondition.fill_fraction", self.fill_fraction)?;
        if let Some(d) = &self.write_size {
            if self.write_request_kib > 0 {
                return Err(Error::config(
                    "precondition.write_size",
                    "is set with precondition.write_request_kib: the writes preconditioning \
                     stands for have one size or a distribution of them, not both",
                ));
            }
            validate_size(d, "precondition.write_size", u64::MAX)?;
        }
        if !(self.overwrite_fraction.is_finite() && self.overwrite_fraction >= 0.0) {
            return Err(Error::config(
                "precondition.overwrite_fraction",
                format!("must be ≥ 0 (got {})", self.overwrite_fraction),
            ));
        }
        Ok(())
    }
}
