//! `[ftl.level1_gc]`: ROSA's level-1 GC (Cho et al., rosa-pcm-hybrid.txt §2), a second GC level
//! above the conventional one that moves read-hot flash data into PCM and as many cold PCM
//! units out to flash.

use serde::{Deserialize, Serialize};

use super::checks::{closed_fraction, fraction, positive};
use super::tagged::tagged_table;
use crate::error::Error;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum Level1GcConfig {
    /// One GC level: the conventional one (`ftl.gc_threshold`, `ftl.gc_victim`).
    #[default]
    None,
    /// Read-intensity-aware level-1 GC (§2): the flash block whose valid units the host read
    /// most moves into PCM, and as many of PCM's least-read units move out to flash first.
    ReadIntensity {
        /// Level 1 runs when a flash pool's free blocks fall under this share of its blocks
        /// (§2: "when block usage reach at a threshold"; ours 5%, the preset's C1, above the
        /// conventional GC's `ftl.gc_threshold`).
        #[serde(default = "default_free_threshold")]
        free_threshold: f64,
        /// And when none has run for this long (§2: "if a L1 GC is not triggered for a certain
        /// time interval, it is autonomously triggered"; the interval is ours).
        #[serde(default = "default_interval_ns")]
        interval_ns: u64,
        /// The share of the raw capacity level 1 may move into PCM over the run (§3's
        /// "migration" axis of Fig. 1: 0 to 20%).
        #[serde(default = "default_budget_share")]
        budget_share: f64,
        /// What one invocation moves (`ftl/level1.rs`).
        #[serde(default)]
        granularity: Level1Granularity,
    },
}

/// What one level-1 invocation moves into PCM: §2's words and §3's differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level1Granularity {
    /// §2: "the valid pages in a set of hot blocks in NAND flash devices migrate to PCM
    /// devices": the flash block whose valid units the host read most, whole, and then erased.
    #[default]
    Block,
    /// §3: "top 20% of highest read count pages are migrated to PCM": the units (ROSA's 4 KB
    /// pages) the host read most, wherever they are on the flash, a block's worth an invocation,
    /// each in place of a PCM unit read less (their blocks are not erased: GC reclaims them).
    Unit,
}

fn default_free_threshold() -> f64 {
    0.05
}

fn default_interval_ns() -> u64 {
    1_000_000_000
}

fn default_budget_share() -> f64 {
    0.2
}

tagged_table!("policy": Level1GcConfig);

impl Level1GcConfig {
    pub fn is_none(&self) -> bool {
        *self == Level1GcConfig::None
    }

    pub(super) fn validate(&self) -> Result<(), Error> {
        let Level1GcConfig::ReadIntensity {
            free_threshold,
            interval_ns,
            budget_share,
            ..
        } = *self
        else {
            return Ok(());
        };
        fraction("ftl.level1_gc.free_threshold", free_threshold, true)?;
        positive("ftl.level1_gc.interval_ns", interval_ns)?;
        closed_fraction("ftl.level1_gc.budget_share", budget_share)?;
        if budget_share == 0.0 {
            return Err(Error::config(
                "ftl.level1_gc.budget_share",
                "0 lets level 1 move nothing: that is one GC level (policy = \"none\")",
            ));
        }
        Ok(())
    }
}
