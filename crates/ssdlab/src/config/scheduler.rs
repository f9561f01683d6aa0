//! `[scheduler]`: how a die orders and combines its queued operations.

use serde::{Deserialize, Serialize};

use super::tagged::tagged_table;

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
    /// Whether a read may interrupt the program or erase its die is running.
    #[serde(default)]
    pub suspension: SuspensionConfig,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            read_priority: false,
            multiplane: false,
            merge_reads: true,
            suspension: SuspensionConfig::None,
        }
    }
}

/// Program and erase suspension (Wu and He, FAST '12; MQSim's `CMD_Suspension_Support`): a read
/// queued at a die that is programming or erasing stops the operation, the die serves its
/// queued reads, and the operation resumes for the time it had left.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum SuspensionConfig {
    /// A running program or erase always runs to its end.
    #[default]
    None,
    /// Reads suspend programs, erases, or both.
    ForReads {
        /// From the suspend command until the die can sense (MQSim's `Suspend_Program_Time`);
        /// absent: programs are not suspended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        program_suspend_ns: Option<u64>,
        /// The same for erases (MQSim's `Suspend_Erase_Time`); absent: erases are not suspended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        erase_suspend_ns: Option<u64>,
        /// A program with less than this left runs to its end (MQSim's
        /// `Preferred_suspend_write_time_for_read`).
        #[serde(default)]
        program_min_remaining_ns: u64,
        /// The same for erases (MQSim's `Preferred_suspend_erase_time_for_read`).
        #[serde(default)]
        erase_min_remaining_ns: u64,
        /// Most times one operation may be suspended; absent: no limit (as MQSim, which holds
        /// one suspended command per die at a time and counts no more).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_per_operation: Option<u32>,
    },
}

tagged_table!("policy": SuspensionConfig);

impl SuspensionConfig {
    pub fn is_none(&self) -> bool {
        *self == SuspensionConfig::None
    }
}
