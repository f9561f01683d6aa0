//! The integrity oracle (`--verify`): every written unit carries a version; every host read and a
//! final sweep check that the mapping leads to the last version written, and the structural
//! invariants are recounted from the raw mapping at GC and at the end.

use super::{BlockState, Ftl, Location};

/// Violations kept verbatim for the report; further ones are only counted.
const KEPT_MESSAGES: usize = 20;

pub struct Oracle {
    /// Last version written of each logical unit (0 = never written or trimmed).
    pub versions: Vec<u32>,
    /// Version stored in each flash slot.
    pub slot_version: Vec<u32>,
    /// Units checked on host reads.
    pub checked_reads: u64,
    /// Units checked by the final sweep.
    pub swept_units: u64,
    pub violations: u64,
    pub messages: Vec<String>,
}

impl Oracle {
    /// A new version of `lpn` is being written.
    pub fn bump(&mut self, lpn: u32) -> u32 {
        let v = &mut self.versions[lpn as usize];
        *v = v.wrapping_add(1).max(1);
        *v
    }

    pub fn violation(&mut self, message: String) {
        self.violations += 1;
        if self.messages.len() < KEPT_MESSAGES {
            self.messages.push(message);
        }
    }
}

impl Ftl {
    /// The version a read of `lpn` would return now.
    pub fn stored_version(&self, lpn: u32) -> u32 {
        let Some(o) = &self.oracle else { return 0 };
        match self.lookup(lpn) {
            Location::Unmapped => 0,
            Location::Buffered(e) => self.buffer.entry(e).version,
            Location::Flash(slot) => o.slot_version[slot as usize],
        }
    }

    /// Check that a read of `lpn` finds its last written version.
    pub fn verify_read(&mut self, lpn: u32) {
        let found = self.stored_version(lpn);
        let Some(o) = &mut self.oracle else { return };
        o.checked_reads += 1;
        let expected = o.versions[lpn as usize];
        if found != expected {
            o.violation(format!(
                "read of unit {lpn} found version {found}, last written {expected}"
            ));
        }
    }

    /// Recount a block's valid slots (those whose unit maps back to them) and compare with its
    /// counter (else an invalidation was missed or counted twice).
    pub fn verify_block(&mut self, block: u32) {
        if self.oracle.is_none() {
            return;
        }
        let g = &self.geometry;
        let info = self.blocks[block as usize];
        let valid = (0..info.write_ptr)
            .map(|page| self.valid_slots(g.page_id(block, page)).count_ones())
            .sum::<u32>();
        let counted = self.valid_units[block as usize];
        if valid != counted {
            let msg = format!("block {block}: valid counter {counted} but {valid} slots are valid");
            if let Some(o) = &mut self.oracle {
                o.violation(msg);
            }
        }
    }

    /// End-of-run sweep: every unit reads its last version; l2p and p2l agree both ways (so no
    /// unit is mapped twice); per block valid counts match; per pool free + valid + invalid =
    /// total slots.
    pub fn verify_all(&mut self) {
        if self.oracle.is_none() {
            return;
        }
        let reads_before = self.oracle.as_ref().map_or(0, |o| o.checked_reads);
        for lpn in 0..self.logical_units {
            self.verify_read(lpn);
            if let Location::Flash(slot) = self.lookup(lpn) {
                if self.unit_in_slot(slot) != lpn {
                    let msg = format!(
                        "unit {lpn} maps to slot {slot}, whose reverse map says unit {} (a unit \
                         mapped twice, or to a slot it was never written to)",
                        self.unit_in_slot(slot),
                    );
                    if let Some(o) = &mut self.oracle {
                        o.violation(msg);
                    }
                }
            }
        }
        if let Some(o) = &mut self.oracle {
            o.swept_units = o.checked_reads - reads_before;
            o.checked_reads = reads_before;
        }
        for b in 0..self.geometry.blocks() {
            if self.blocks[b as usize].state != BlockState::Free {
                self.verify_block(b);
            }
        }
        let spp = self.geometry.slots_per_page as u64;
        for pi in 0..self.pools.len() {
            let p = &self.pools[pi];
            let g = &self.geometry;
            let r = &g.regions[p.region];
            let (mut free, mut valid, mut written) = (0u64, 0u64, 0u64);
            for i in r.first_block..r.first_block + r.blocks_per_plane {
                let b = g.block_id(p.plane, i);
                let info = &self.blocks[b as usize];
                free += (p.pages_per_block - info.write_ptr) as u64 * spp;
                written += info.write_ptr as u64 * spp;
                for page in 0..info.write_ptr {
                    valid += self.valid_slots(g.page_id(b, page)).count_ones() as u64;
                }
            }
            let invalid = written - valid;
            let problems = [
                (valid != p.valid_units, "valid units"),
                (invalid != p.invalid_slots, "invalid slots"),
                (
                    free + valid + invalid != p.total_slots,
                    "free + valid + invalid",
                ),
            ];
            let msgs: Vec<String> = problems
                .iter()
                .filter(|(bad, _)| *bad)
                .map(|(_, what)| {
                    format!(
                        "plane {} region {}: {what} inconsistent (counted free {free}, valid {valid}, \
                         invalid {invalid}; counters valid {}, invalid {}, total {})",
                        p.plane, p.region, p.valid_units, p.invalid_slots, p.total_slots
                    )
                })
                .collect();
            if let Some(o) = &mut self.oracle {
                for m in msgs {
                    o.violation(m);
                }
            }
        }
    }
}
