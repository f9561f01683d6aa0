//! The integrity oracle (`--verify`): every written unit carries a version, and the oracle keeps,
//! apart from the FTL, which 512-byte sectors of each unit hold bytes the host wrote and has not
//! trimmed. Every host read and a final sweep check that the mapping leads to the last version
//! written — or, for a unit the FTL dropped, that none of the sectors read held written bytes —
//! and the structural invariants are recounted from the raw mapping at GC and at the end.
//!
//! Sectors, not units, because a host request need not cover whole units: a trim of part of a
//! unit must not lose the unit's other bytes, and only a per-sector record can tell a unit rightly
//! unmapped (all its sectors trimmed) from one wrongly dropped.

use super::shape::UnitKind;
use super::{table, BlockState, Ftl, Location};

/// Violations kept verbatim for the report; further ones are only counted.
const KEPT_MESSAGES: usize = 20;

/// The host's unit of addressing: what the oracle tracks written bytes by.
pub const SECTOR_BYTES: u32 = 512;

#[derive(serde::Serialize, serde::Deserialize)]
pub struct Oracle {
    /// Last version written of each logical unit (0 = never written). A trim does not reset it:
    /// a unit only partly trimmed stays mapped and still reads as this version.
    #[serde(with = "crate::ftl::table::bulk")]
    pub versions: Vec<u32>,
    /// One bit per sector of the logical space: the sector holds bytes the host wrote and did not
    /// trim since.
    #[serde(with = "crate::ftl::table::bulk")]
    written: Vec<u64>,
    sectors_per_unit: u32,
    /// Version stored in each flash slot.
    #[serde(with = "crate::ftl::table::bulk")]
    pub slot_version: Vec<u32>,
    /// Version of each unit last written as all zero (which has no slot).
    pub zero_versions: std::collections::HashMap<u32, u32>,
    /// Units checked on host reads.
    pub checked_reads: u64,
    /// Units checked by the final sweep.
    pub swept_units: u64,
    pub violations: u64,
    pub messages: Vec<String>,
}

impl Oracle {
    pub fn new(logical_units: u32, total_slots: u64, unit_bytes: u32) -> Oracle {
        let sectors_per_unit = unit_bytes.div_ceil(SECTOR_BYTES);
        let sectors = logical_units as u64 * sectors_per_unit as u64;
        Oracle {
            versions: table::zeroed_u32(logical_units as usize),
            written: vec![0; sectors.div_ceil(64) as usize],
            sectors_per_unit,
            slot_version: table::zeroed_u32(total_slots as usize),
            zero_versions: std::collections::HashMap::new(),
            checked_reads: 0,
            swept_units: 0,
            violations: 0,
            messages: Vec::new(),
        }
    }

    /// A new version of `lpn` is being written, the host's bytes `[lo, hi)` of the unit among
    /// them (the rest are the previous version's, merged in by the controller). Every sector the
    /// bytes touch now holds written bytes.
    pub fn write(&mut self, lpn: u32, lo: u32, hi: u32) -> u32 {
        let first = lo / SECTOR_BYTES;
        let end = hi.div_ceil(SECTOR_BYTES);
        self.set_sectors(lpn, first, end, true);
        let v = &mut self.versions[lpn as usize];
        *v = v.wrapping_add(1).max(1);
        *v
    }

    /// The host trimmed bytes `[lo, hi)` of `lpn`: the sectors wholly inside no longer hold
    /// written bytes (a sector trimmed in part keeps the rest of its bytes).
    pub fn trim(&mut self, lpn: u32, lo: u32, hi: u32) {
        let first = lo.div_ceil(SECTOR_BYTES);
        let end = hi / SECTOR_BYTES;
        if first < end {
            self.set_sectors(lpn, first, end, false);
        }
    }

    fn set_sectors(&mut self, lpn: u32, first: u32, end: u32, on: bool) {
        let base = lpn as u64 * self.sectors_per_unit as u64;
        for s in base + first as u64..base + end as u64 {
            let (word, bit) = ((s / 64) as usize, s % 64);
            if on {
                self.written[word] |= 1 << bit;
            } else {
                self.written[word] &= !(1 << bit);
            }
        }
    }

    /// The first sector of `lpn` within bytes `[lo, hi)` that holds written bytes, if any.
    fn written_sector(&self, lpn: u32, lo: u32, hi: u32) -> Option<u32> {
        let base = lpn as u64 * self.sectors_per_unit as u64;
        (lo / SECTOR_BYTES..hi.div_ceil(SECTOR_BYTES)).find(|&i| {
            let s = base + i as u64;
            self.written[(s / 64) as usize] >> (s % 64) & 1 == 1
        })
    }

    /// Whether this oracle, decoded from a device snapshot, has the tables of `fresh`'s device
    /// (of the same config). `Err` says which does not.
    pub fn check_loaded(&self, fresh: &Oracle) -> Result<(), String> {
        let sizes = |o: &Oracle| {
            let units = (o.versions.len(), o.written.len(), o.sectors_per_unit);
            (units, o.slot_version.len())
        };
        match sizes(self) == sizes(fresh) {
            true => Ok(()),
            false => Err("the integrity oracle's tables are not of the device's sizes".into()),
        }
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
            Location::Zero => o.zero_versions.get(&lpn).copied().unwrap_or(0),
            Location::Flash(slot) => o.slot_version[slot as usize],
        }
    }

    /// Check a read of bytes `[lo, hi)` of `lpn`: it finds the unit's last written version, or
    /// finds the unit unmapped while none of those bytes' sectors holds written bytes.
    pub fn verify_read(&mut self, lpn: u32, lo: u32, hi: u32) {
        let found = self.stored_version(lpn);
        let Some(o) = &mut self.oracle else { return };
        o.checked_reads += 1;
        let expected = o.versions[lpn as usize];
        if found == expected {
            return;
        }
        let lost = o.written_sector(lpn, lo, hi);
        match (found, lost) {
            (0, None) => {}
            (0, Some(sector)) => o.violation(format!(
                "read of unit {lpn} found it unmapped, but its sector {sector} holds bytes written \
                 as version {expected} and never trimmed"
            )),
            _ => o.violation(format!(
                "read of unit {lpn} found version {found}, last written {expected}"
            )),
        }
    }

    /// The space the valid units of `page` take, recounted from the mapping (with the page's
    /// packing slack while any is valid).
    fn valid_space_of_page(&self, page: u32) -> u32 {
        let valid = self.valid_slots(page);
        let units: u32 = self
            .units_in_slots(page, valid)
            .map(|(slot, lpn)| self.space_of(lpn, slot))
            .sum();
        match valid {
            0 => 0,
            _ => units + self.slack_of_page(page),
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
            .map(|page| self.valid_space_of_page(g.page_id(block, page)))
            .sum::<u32>();
        let counted = self.valid_space[block as usize];
        if valid != counted {
            let msg = format!(
                "block {block}: valid space counter {counted} but its valid slots take {valid}"
            );
            if let Some(o) = &mut self.oracle {
                o.violation(msg);
            }
        }
        if self.counts_reads() {
            let reads: u64 = (0..info.write_ptr)
                .flat_map(|page| {
                    let page = g.page_id(block, page);
                    self.units_in_slots(page, self.valid_slots(page))
                })
                .filter(|&(slot, lpn)| self.shape(lpn, slot).kind != UnitKind::Split)
                .map(|(_, lpn)| self.reads_of(lpn) as u64)
                .sum();
            let counted = self.block_reads(block);
            if reads != counted {
                let msg = format!(
                    "block {block}: read count {counted} but its valid units were read {reads} times"
                );
                if let Some(o) = &mut self.oracle {
                    o.violation(msg);
                }
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
        let unit_bytes = self.geometry.unit_bytes;
        for lpn in 0..self.logical_units {
            self.verify_read(lpn, 0, unit_bytes);
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
        let spp = self.space_per_page as u64;
        for pi in 0..self.pools.len() {
            let p = &self.pools[pi];
            let g = &self.geometry;
            let r = &g.regions[p.region];
            let (mut free, mut valid, mut written) = (0u64, 0u64, 0u64);
            let blocks = match r.dies.plane_ids().contains(&p.plane) {
                true => r.blocks_per_plane,
                false => 0,
            };
            // (PCM pages its units have left count as invalid until they are taken again.)
            for i in r.first_block..r.first_block + blocks {
                let b = g.block_id(p.plane, i);
                let info = &self.blocks[b as usize];
                free += (p.pages_per_block - info.write_ptr) as u64 * spp;
                written += info.write_ptr as u64 * spp;
                for page in 0..info.write_ptr {
                    valid += self.valid_space_of_page(g.page_id(b, page)) as u64;
                }
            }
            let invalid = written - valid;
            let problems = [
                (valid != p.valid_space, "valid units"),
                (invalid != p.invalid_space, "invalid slots"),
                (
                    free + valid + invalid != p.total_space,
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
                        p.plane, p.region, p.valid_space, p.invalid_space, p.total_space
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
