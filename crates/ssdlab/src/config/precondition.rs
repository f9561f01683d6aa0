//! `[precondition]`: the state written before the first event.

use serde::{Deserialize, Serialize};

use super::checks::closed_fraction;
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
        }
    }
}

impl PreconditionConfig {
    /// The fill is a share of the capacity; overwrites may go round it any number of times.
    pub(super) fn validate(&self) -> Result<(), Error> {
        closed_fraction("precondition.fill_fraction", self.fill_fraction)?;
        if !(self.overwrite_fraction.is_finite() && self.overwrite_fraction >= 0.0) {
            return Err(Error::config(
                "precondition.overwrite_fraction",
                format!("must be ≥ 0 (got {})", self.overwrite_fraction),
            ));
        }
        Ok(())
    }
}
