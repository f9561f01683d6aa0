//! `[host]`: how flows replay unless they say otherwise.

use serde::{Deserialize, Serialize};

use super::checks::{positive, positive_real};
use crate::error::Error;
use crate::trace::OutOfRange;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplayMode {
    /// Requests arrive at their trace timestamps (scaled by `time_scale`).
    #[default]
    Open,
    /// `queue_depth` requests are kept outstanding; timestamps are ignored.
    Closed,
}

/// Defaults for flows that do not set their own.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    #[serde(default)]
    pub mode: ReplayMode,
    #[serde(default = "default_queue_depth")]
    pub queue_depth: u32,
    /// Inter-arrival times are multiplied by this (0.5 = twice as fast).
    #[serde(default = "default_time_scale")]
    pub time_scale: f64,
    #[serde(default)]
    pub out_of_range: OutOfRange,
}

fn default_queue_depth() -> u32 {
    32
}
fn default_time_scale() -> f64 {
    1.0
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            mode: ReplayMode::Open,
            queue_depth: default_queue_depth(),
            time_scale: default_time_scale(),
            out_of_range: OutOfRange::Error,
        }
    }
}

impl HostConfig {
    /// Closed-loop replay keeps at least one request outstanding. Open replay does not use the
    /// queue depth, so any value (0 too) is accepted there; a flow that replays closed at the
    /// host's depth is checked with the flows (`cross_checks.rs`).
    pub(super) fn validate(&self) -> Result<(), Error> {
        positive_real("host.time_scale", self.time_scale)?;
        if self.mode == ReplayMode::Closed {
            positive("host.queue_depth", self.queue_depth as u64)?;
        }
        Ok(())
    }
}
