//! How often the host has read each unit, and per block the sum over the units it holds valid
//! (ROSA, rosa-pcm-hybrid.txt §2: level-1 GC "checks the read count of candidate victim blocks
//! (i.e. sum of read counts in all of the valid pages)"). Kept only when a policy asks
//! ([`Ftl::keep_read_counts`]): the host read path then pays one increment per unit read from
//! the flash, and every unit that moves carries its count from its old block's sum to its new
//! one's, so a block's sum is always that of its valid units.
//!
//! A unit split across channels (PR-SSD's split FTL) counts in no block's sum: level 1 cannot
//! move it into PCM (its parts stay on their channels, `GcRules::copy_destination`), so its reads
//! would make each block holding a part hot for ever, and level 1 would move the parts from
//! block to block without end.

use super::Ftl;
use crate::flash::{BlockId, SlotId};

#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct ReadCounts {
    /// Per unit, host reads since the run began (saturating).
    pub per_unit: Vec<u32>,
    /// Per block, the reads of the units it holds valid.
    pub per_block: Vec<u64>,
}

impl Ftl {
    /// Count host reads from now on.
    pub fn keep_read_counts(&mut self) {
        self.read_counts = ReadCounts {
            per_unit: vec![0; self.logical_units as usize],
            per_block: vec![0; self.geometry.blocks() as usize],
        };
    }

    pub fn counts_reads(&self) -> bool {
        !self.read_counts.per_unit.is_empty()
    }

    /// The host read `lpn`, stored in `slot`.
    #[inline]
    pub fn count_read(&mut self, lpn: u32, slot: SlotId) {
        let c = &mut self.read_counts;
        if c.per_unit.is_empty() {
            return;
        }
        let n = &mut c.per_unit[lpn as usize];
        if *n < u32::MAX {
            *n += 1;
            if self.split_parts.is_empty() || !self.split_parts.contains_key(&lpn) {
                c.per_block[self.geometry.block_of_slot(slot) as usize] += 1;
            }
        }
    }

    /// Host reads of `lpn`.
    pub fn reads_of(&self, lpn: u32) -> u32 {
        self.read_counts
            .per_unit
            .get(lpn as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Host reads of the units `block` holds valid.
    pub fn block_reads(&self, block: BlockId) -> u64 {
        self.read_counts
            .per_block
            .get(block as usize)
            .copied()
            .unwrap_or(0)
    }

    /// `lpn` left `block` (overwritten, trimmed or moved): its reads leave the block's sum.
    pub(super) fn reads_leave(&mut self, lpn: u32, block: BlockId) {
        if let Some(n) = self.read_counts.per_unit.get(lpn as usize) {
            self.read_counts.per_block[block as usize] -= *n as u64;
        }
    }

    /// `lpn` was stored in `block`: its reads join the block's sum.
    pub(super) fn reads_join(&mut self, lpn: u32, block: BlockId) {
        if let Some(n) = self.read_counts.per_unit.get(lpn as usize) {
            self.read_counts.per_block[block as usize] += *n as u64;
        }
    }
}
