//! The space of a medium that rewrites its slots in place (`flash::Slots::InPlace`: PCM), a
//! unit at a time. PCM is written a byte at a time, in place, and never erased (ROSA, Cho et
//! al., §2: "PCM supports in-place updates"), so a slot a unit has left is taken again by the
//! next unit that goes there, whatever the other slots of its page hold: there is no GC to
//! gather a page's stale units, and none is needed. Each unit goes there on its own,
//! one program of its bytes (as a rewrite in place already is), into a slot of the pool that a
//! unit has left, else the next slot of the pool's open page, else a new page. A slot holds one
//! unit as written, at its unit's place in the page (slot i: bytes `i · unit ..`): compressing a
//! unit would not let a slot hold two, and a rewrite of any size keeps its place.

use super::shape::UnitShape;
use super::{Ftl, Writer};
use crate::flash::SlotId;

impl Ftl {
    /// The region written in place of the open page `lpn` waits in, if it is buffered on its
    /// way there (a write of a buffered unit goes where its buffered copy was going, as one of
    /// a unit in place is rewritten there: placement alone would take the rewrite for one of a
    /// unit moved out). `streams`: the write streams per region.
    pub fn buffered_for_in_place(&self, lpn: u32, streams: usize) -> Option<usize> {
        let super::Location::Buffered(e) = self.lookup(lpn) else {
            return None;
        };
        let key = self.buffer.entry(e).open_key;
        let region = (key != u32::MAX).then(|| self.buffer.destination(key as usize, streams).0)?;
        (self.geometry.regions[region].medium.rewrites_in_place()).then_some(region)
    }

    /// The units block `block`, written in place, holds (its valid space is their bytes when units are shaped:
    /// each slot holds its unit as written).
    pub fn units_in_place(&self, block: crate::flash::BlockId) -> u64 {
        let space = self.valid_space[block as usize] as u64;
        match self.keeps_shapes() {
            true => space / self.geometry.unit_bytes as u64,
            false => space,
        }
    }

    /// Is `pool` written in place, a unit at a time?
    #[inline]
    pub fn stores_units_alone(&self, pool: usize) -> bool {
        self.pools[pool].rewrites_in_place()
    }

    /// Units an uncompressed page holds: the slots of a page written in place that take a unit.
    fn in_place_units_per_page(&self) -> u32 {
        self.geometry.units_per_page
    }

    /// Can `pool`, written in place, take `units` more units without waiting?
    pub fn has_room_for_units(&self, pool: usize, units: u32) -> bool {
        let p = &self.pools[pool];
        let per_page = self.in_place_units_per_page() as u64;
        let open = p.open_slots.map_or(0, |(_, next)| per_page - next as u64);
        let active = p.host_active[0].map_or(0, |b| {
            (p.pages_per_block - self.blocks[b as usize].write_ptr) as u64 * per_page
        });
        let fresh = p.free.len() as u64 * p.pages_per_block as u64 * per_page;
        p.free_slots.len() as u64 + open + active + fresh >= units as u64
    }

    /// Take a slot of PCM `pool` for one unit ([`Ftl::has_room_for_units`] said there is one).
    pub fn alloc_slot(&mut self, pool: usize, now: u64) -> SlotId {
        let per_page = self.in_place_units_per_page();
        let g = &self.geometry;
        let slot = match (
            self.pools[pool].free_slots.pop(),
            self.pools[pool].open_slots,
        ) {
            (Some(slot), _) => slot,
            (None, Some((page, next))) if next < per_page => {
                self.pools[pool].open_slots = Some((page, next + 1));
                g.slot_id(page, next)
            }
            (None, _) => {
                let page = (self.alloc_page(pool, Writer::Host { stream: 0 }, now))
                    .expect("PCM has room (has_room_for_units)");
                // The page is padding, counted invalid, until its slots are taken; the reverse
                // map keeps an entry for each.
                self.pools[pool].invalid_space += self.space_per_page as u64;
                self.p2l.fill(&self.geometry, page, &[], true);
                self.pools[pool].open_slots = Some((page, 1));
                self.geometry.slot_id(page, 0)
            }
        };
        let block = self.geometry.block_of_slot(slot);
        self.blocks[block as usize].last_write_ns = now;
        slot
    }

    /// Store version `version` of `lpn` in `slot` of PCM, just taken (its old copy already
    /// unmapped): as written, at its place in the page. The unit is read from controller memory
    /// until the program the caller issues completes ([`Ftl::complete_program`]). Returns the
    /// bytes to program.
    pub fn fill_slot(&mut self, slot: SlotId, lpn: u32, version: u32) -> u64 {
        let g = &self.geometry;
        let (page, block) = (g.page_of_slot(slot), g.block_of_slot(slot));
        let pool = self.pool_of_block(block);
        let unit_bytes = g.unit_bytes;
        self.p2l.set(&self.geometry, slot, lpn);
        self.l2p[lpn as usize] = slot + 1;
        let space = match self.keeps_shapes() {
            true => {
                let offset = self.geometry.slot_in_page(slot) * unit_bytes;
                self.shapes[lpn as usize] = UnitShape {
                    offset,
                    ..UnitShape::raw(unit_bytes)
                }
                .pack();
                // (No packing slack: the page's other bytes are other units' places.)
                let slack = &mut self.page_slack[page as usize];
                if slack.live_units == 0 {
                    slack.slack_bytes = 0;
                }
                slack.live_units += 1;
                unit_bytes
            }
            false => 1,
        };
        if let Some(o) = &mut self.oracle {
            o.slot_version[slot as usize] = version;
        }
        self.reads_join(lpn, block);
        self.valid_space[block as usize] += space;
        self.pools[pool].valid_space += space as u64;
        self.pools[pool].invalid_space -= space as u64;
        *self.in_place_programs.entry(page).or_default() += 1;
        unit_bytes as u64
    }
}
