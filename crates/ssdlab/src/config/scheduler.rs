//! `[scheduler]`: how a die orders and combines its queued operations.

use serde::{Deserialize, Serialize};

use super::needs::{Device, Needs};
use crate::error::Error;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerConfig {
    /// Reads (host and GC) overtake queued programs and erases on a die.
    #[serde(default)]
    pub read_priority: bool,
    /// A die runs queued operations of one kind on different planes as one multi-plane command
    /// (same page index for reads and programs).
    #[serde(default)]
    pub multiplane: bool,
    /// A read of a page whose read command is still queued joins that command (the union of the
    /// wanted codewords, one sensing) instead of queuing its own (spread.txt §IV's mode selector;
    /// PR-SSD §4.2.3). `false` gives every request and GC page its own command.
    #[serde(default = "super::default_true")]
    pub merge_reads: bool,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            read_priority: false,
            multiplane: false,
            merge_reads: true,
        }
    }
}

/// Multi-plane commands join operations on the planes of one die.
impl Needs for SchedulerConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        if self.multiplane && d.geometry.planes_per_die < 2 {
            return Err(Error::config(
                "scheduler.multiplane",
                "joins operations on different planes of a die into one command, but a die has \
                 one plane (geometry.planes_per_die = 1)",
            ));
        }
        Ok(())
    }
}
