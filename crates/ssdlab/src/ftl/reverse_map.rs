//! The reverse map: per flash slot, the unit last written there (the page's out-of-band area on
//! a real device). A slot is valid exactly when its unit still maps to it, so an overwrite never
//! touches this map; GC reads a victim's pages from it in order.
//!
//! Units stored as written fill every slot of a page, and a table of one entry per slot is the
//! smallest there is. Shaped units (compression) do not: a page takes up to
//! `ftl.max_units_per_page` of them, but a unit that fails to compress takes a page alone, so a
//! table sized for the fullest page held mostly padding (with PR-SSD's 12 units a page, 48 bytes
//! a page written where its units took 4 to 10), and a run's memory grew with the pages it
//! programmed to 1.6 GiB on the `pr-ssd` device. Shaped pages therefore keep only the units
//! they hold, block by block in the order the block's pages were filled (a block is written in
//! page order and erased whole), found through a count per page; and a written block whose
//! units are all stale drops them (nothing in it is read or copied again), so the map holds the
//! blocks that hold data: on a device much larger than what a run keeps valid, the logical data
//! bounds it, not the pages the run programmed.

use crate::flash::{BlockId, Geometry, PageId, SlotId};

use super::table;
use super::NO_LPN;

/// Pages per group whose units start at a stored index (a page's start is its group's plus the
/// counts of the pages before it in the group).
const GROUP_PAGES: u32 = 16;

#[derive(PartialEq, serde::Serialize, serde::Deserialize)]
pub enum ReverseMap {
    /// One entry per slot, slot-indexed (padding holds [`NO_LPN`]).
    Dense(#[serde(with = "crate::ftl::table::bulk")] Vec<u32>),
    Packed(Packed),
}

/// The units of the pages of each block, packed.
#[derive(PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Packed {
    /// Per block, the units of its filled pages, page after page (kept allocated when the block
    /// is erased: its next pages take the room again).
    units: Vec<Vec<u32>>,
    /// Per page, how many units it holds (0 until filled since its block's erase).
    #[serde(with = "crate::ftl::table::bulk")]
    counts: Vec<u8>,
    /// Per group of [`GROUP_PAGES`] pages of a block, where its first page's units start in
    /// the block's `units`.
    #[serde(with = "crate::ftl::table::bulk")]
    group_start: Vec<u32>,
    groups_per_block: u32,
}

impl ReverseMap {
    /// The reverse map of a fresh device: packed when units are `shaped`, dense otherwise.
    pub fn new(g: &Geometry, shaped: bool) -> ReverseMap {
        if !shaped {
            // Zeroed: costs memory only where touched.
            return ReverseMap::Dense(table::zeroed_u32(g.total_slots() as usize));
        }
        let groups_per_block = g.max_pages_per_block.div_ceil(GROUP_PAGES);
        ReverseMap::Packed(Packed {
            units: vec![Vec::new(); g.blocks() as usize],
            counts: table::zeroed_u8((g.blocks() * g.max_pages_per_block) as usize),
            group_start: table::zeroed_u32((g.blocks() * groups_per_block) as usize),
            groups_per_block,
        })
    }

    /// Record the units (`(lpn, version)`, `NO_LPN` for a dead entry) written into `page`'s
    /// first slots; its other slots hold nothing (`in_part`: until later programs of the page
    /// [`set`](Self::set) them). Pages of a block are filled in page order, once per erase.
    #[inline]
    pub fn fill(&mut self, g: &Geometry, page: PageId, units: &[(u32, u32)], in_part: bool) {
        match self {
            ReverseMap::Dense(p2l) => {
                let first = g.slot_id(page, 0) as usize;
                let slots = &mut p2l[first..first + g.slots_per_page as usize];
                let (written, padding) = slots.split_at_mut(units.len());
                for (slot, &(lpn, _)) in written.iter_mut().zip(units) {
                    *slot = lpn;
                }
                padding.fill(NO_LPN);
            }
            ReverseMap::Packed(p) => p.fill(g, page, units, in_part),
        }
    }

    /// Write `lpn` into `slot`, a slot a later program of a page programmed in part writes
    /// (filled `in_part`).
    pub fn set(&mut self, g: &Geometry, slot: SlotId, lpn: u32) {
        match self {
            ReverseMap::Dense(p2l) => p2l[slot as usize] = lpn,
            ReverseMap::Packed(p) => {
                let range = p.page_range(g, g.page_of_slot(slot));
                let (block, _) = g.block_and_index(g.page_of_slot(slot));
                p.units[block as usize][range][g.slot_in_page(slot) as usize] = lpn;
            }
        }
    }

    /// The units of `page`'s slots, from slot 0: every slot when units are stored as written,
    /// else the units its packing took.
    #[inline]
    pub fn page(&self, g: &Geometry, page: PageId) -> &[u32] {
        match self {
            ReverseMap::Dense(p2l) => {
                let first = g.slot_id(page, 0) as usize;
                &p2l[first..first + g.slots_per_page as usize]
            }
            ReverseMap::Packed(p) => p.page(g, page),
        }
    }

    /// The unit last written in `slot` (`NO_LPN` for padding).
    #[inline]
    pub fn unit(&self, g: &Geometry, slot: SlotId) -> u32 {
        match self {
            ReverseMap::Dense(p2l) => p2l[slot as usize],
            ReverseMap::Packed(p) => p
                .page(g, g.page_of_slot(slot))
                .get(g.slot_in_page(slot) as usize)
                .copied()
                .unwrap_or(NO_LPN),
        }
    }

    /// `block` was erased: its pages hold nothing.
    pub fn erase(&mut self, g: &Geometry, block: BlockId) {
        if let ReverseMap::Packed(p) = self {
            p.units[block as usize].clear();
            let first = g.page_id(block, 0) as usize;
            p.counts[first..first + g.max_pages_per_block as usize].fill(0);
        }
    }

    /// `block`, written whole, holds no valid unit (and takes no more until erased): its units
    /// need not be kept. (Packed maps only; a dense map's entries cost nothing to keep.)
    pub fn release(&mut self, g: &Geometry, block: BlockId) {
        if let ReverseMap::Packed(p) = self {
            p.units[block as usize] = Vec::new();
            let first = g.page_id(block, 0) as usize;
            p.counts[first..first + g.max_pages_per_block as usize].fill(0);
        }
    }

    /// Start loading `page`'s entries (GC and the write path read a block's map in order; a
    /// packed block's units are near each other already).
    #[inline(always)]
    pub fn prefetch(&self, g: &Geometry, page: PageId) {
        match self {
            ReverseMap::Dense(p2l) => table::prefetch(p2l, g.slot_id(page, 0) as usize),
            ReverseMap::Packed(p) => table::prefetch(&p.counts, page as usize),
        }
    }

    /// Whether this map, decoded from a device snapshot, fits `fresh`'s device `g` (of the same
    /// config): the same kind and table sizes, every unit below `logical_units` (or `NO_LPN`),
    /// every page's units within its block's. `Err` says what does not.
    pub fn check_loaded(
        &self,
        fresh: &ReverseMap,
        g: &Geometry,
        logical_units: u32,
    ) -> Result<(), String> {
        let unit = |&lpn: &u32| lpn < logical_units || lpn == NO_LPN;
        let fits = match (self, fresh) {
            (ReverseMap::Dense(p2l), ReverseMap::Dense(f)) => {
                p2l.len() == f.len() && p2l.iter().all(unit)
            }
            (ReverseMap::Packed(p), ReverseMap::Packed(f)) => {
                let sizes = |p: &Packed| {
                    let tables = (p.units.len(), p.counts.len(), p.group_start.len());
                    (tables, p.groups_per_block)
                };
                sizes(p) == sizes(f) && p.units.iter().flatten().all(unit) && p.pages_fit(g)
            }
            _ => false,
        };
        match fits {
            true => Ok(()),
            false => Err("its reverse map does not fit the device".into()),
        }
    }

    /// Bytes of unit entries the map holds (allocated), beside its fixed per-page and per-block
    /// tables: what grows with the pages programmed until every block has been written.
    pub fn unit_entry_bytes(&self) -> usize {
        match self {
            ReverseMap::Dense(p2l) => std::mem::size_of_val(p2l.as_slice()),
            ReverseMap::Packed(p) => p.units.iter().map(|u| u.capacity() * 4).sum(),
        }
    }
}

// (Out of line: the dense map's callers, on every device without shaped units, stay small
// enough to inline theirs.)
impl Packed {
    #[inline(never)]
    fn fill(&mut self, g: &Geometry, page: PageId, units: &[(u32, u32)], in_part: bool) {
        let (block, index) = g.block_and_index(page);
        let stored = &mut self.units[block as usize];
        let n = match in_part {
            true => g.slots_per_page as usize,
            false => units.len(),
        };
        debug_assert!(n <= g.slots_per_page as usize, "more units than slots");
        if index % GROUP_PAGES == 0 {
            self.group_start[(block * self.groups_per_block + index / GROUP_PAGES) as usize] =
                stored.len() as u32;
        }
        if stored.capacity() - stored.len() < n {
            // Room for the rest of the block at its density so far (its first pages tell how
            // well its data packs), growing by a quarter at least so that a block whose pages
            // fill up stays amortised.
            let filled = u64::from(index + 1);
            let after = (stored.len() + n) as u64;
            let pages = g.regions[g.region_of(block)].pages_per_block;
            let projected = after * u64::from(pages) / filled;
            let target = (projected as usize)
                .max(stored.capacity() + stored.capacity() / 4)
                .max(stored.len() + n);
            stored.reserve_exact(target - stored.len());
        }
        stored.extend(units.iter().map(|&(lpn, _)| lpn));
        stored.resize(stored.len() + n - units.len(), NO_LPN);
        // (A page holds at most 64 slots: validated.)
        self.counts[page as usize] = n as u8;
    }

    #[inline(never)]
    fn page(&self, g: &Geometry, page: PageId) -> &[u32] {
        let (block, _) = g.block_and_index(page);
        self.units[block as usize]
            .get(self.page_range(g, page))
            .unwrap_or_default()
    }

    /// Whether every page's count fits a page and every group's units lie within its block's.
    fn pages_fit(&self, g: &Geometry) -> bool {
        let pages = g.max_pages_per_block as usize;
        (self.counts.chunks(pages).zip(&self.units))
            .enumerate()
            .all(|(b, (counts, units))| {
                let starts = &self.group_start[b * self.groups_per_block as usize..];
                counts.iter().all(|&c| u32::from(c) <= g.slots_per_page)
                    && (counts.chunks(GROUP_PAGES as usize).zip(starts)).all(|(group, &start)| {
                        // (A group with no units filled since its erase keeps a stale start.)
                        let filled = group.iter().map(|&c| c as usize).sum::<usize>();
                        filled == 0 || start as usize + filled <= units.len()
                    })
            })
    }

    /// Where `page`'s units lie in its block's `units`.
    fn page_range(&self, g: &Geometry, page: PageId) -> std::ops::Range<usize> {
        let (block, index) = g.block_and_index(page);
        let in_group = index % GROUP_PAGES;
        let group = (block * self.groups_per_block + index / GROUP_PAGES) as usize;
        let counts = &self.counts[(page - in_group) as usize..=page as usize];
        let start = self.group_start[group] as usize
            + counts[..in_group as usize]
                .iter()
                .map(|&c| c as usize)
                .sum::<usize>();
        start..start + counts[in_group as usize] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::small;

    /// The small device with PR-SSD's mapping: 16 KiB units, up to 12 to a 16 KiB page.
    fn twelve_slots() -> Geometry {
        crate::device::geometry(&small(&[
            "ftl.mapping_unit_kib=16",
            "ftl.max_units_per_page=12",
            "ftl.reduction={policy=\"compress\", codec=\"dpc\"}",
        ]))
    }

    #[test]
    fn a_packed_page_answers_as_a_dense_one_for_the_units_it_took() {
        let g = twelve_slots();
        assert_eq!(g.slots_per_page, 12);
        let (mut dense, mut packed) = (ReverseMap::new(&g, false), ReverseMap::new(&g, true));
        // Two blocks, pages of 1 to 12 units (padding entries among them), groups crossed.
        let mut lpn = 0;
        for block in [3, 40] {
            for index in 0..g.max_pages_per_block {
                let n = (index * 7 + block) % 12 + 1;
                let units: Vec<(u32, u32)> = (0..n)
                    .map(|i| {
                        lpn += 1;
                        (if i == 1 { NO_LPN } else { lpn }, 0)
                    })
                    .collect();
                let page = g.page_id(block, index);
                dense.fill(&g, page, &units, false);
                packed.fill(&g, page, &units, false);
            }
        }
        for block in [3, 40] {
            for index in 0..g.max_pages_per_block {
                let page = g.page_id(block, index);
                let n = ((index * 7 + block) % 12 + 1) as usize;
                assert_eq!(
                    packed.page(&g, page),
                    &dense.page(&g, page)[..n],
                    "page {page}"
                );
                assert!(dense.page(&g, page)[n..].iter().all(|&u| u == NO_LPN));
                for i in 0..g.slots_per_page {
                    let slot = g.slot_id(page, i);
                    assert_eq!(packed.unit(&g, slot), dense.unit(&g, slot), "slot {slot}");
                }
            }
        }
        // A page never filled holds nothing.
        assert!(packed.page(&g, g.page_id(4, 0)).is_empty());
        assert_eq!(packed.unit(&g, g.slot_id(g.page_id(4, 0), 0)), NO_LPN);
    }

    #[test]
    fn a_packed_block_takes_memory_for_the_units_it_holds_and_gives_it_back() {
        let g = twelve_slots();
        let mut packed = ReverseMap::new(&g, true);
        // Units that fail to compress take a page each: one entry a page, not twelve.
        for index in 0..g.max_pages_per_block {
            packed.fill(&g, g.page_id(5, index), &[(index, 0)], false);
        }
        let held = packed.unit_entry_bytes();
        let one_a_page = g.max_pages_per_block as usize * 4;
        assert!(
            (one_a_page..=one_a_page * 5 / 4).contains(&held),
            "{held} bytes for {one_a_page} of units"
        );
        // Erased, it keeps its room for its next pages; released, it holds none.
        packed.erase(&g, 5);
        assert!(packed.page(&g, g.page_id(5, 0)).is_empty());
        assert_eq!(packed.unit_entry_bytes(), held);
        packed.fill(&g, g.page_id(5, 0), &[(7, 0), (8, 0)], false);
        assert_eq!(packed.page(&g, g.page_id(5, 0)), [7, 8]);
        packed.release(&g, 5);
        assert_eq!(packed.unit_entry_bytes(), 0);
        assert!(packed.page(&g, g.page_id(5, 0)).is_empty());
    }

    #[test]
    fn a_packed_page_filled_in_part_takes_later_units_in_its_next_slots() {
        let g = twelve_slots();
        let mut packed = ReverseMap::new(&g, true);
        packed.fill(&g, g.page_id(5, 0), &[(7, 0), (8, 0)], true);
        packed.fill(&g, g.page_id(5, 1), &[(9, 0)], false);
        let page = packed.page(&g, g.page_id(5, 0));
        assert_eq!((page.len(), &page[..3]), (12, &[7, 8, NO_LPN][..]));
        packed.set(&g, g.slot_id(g.page_id(5, 0), 2), 11);
        packed.set(&g, g.slot_id(g.page_id(5, 0), 3), 12);
        assert_eq!(
            packed.page(&g, g.page_id(5, 0))[..5],
            [7, 8, 11, 12, NO_LPN]
        );
        // The next page's units are where they were.
        assert_eq!(packed.page(&g, g.page_id(5, 1)), [9]);
        assert_eq!(packed.unit(&g, g.slot_id(g.page_id(5, 0), 3)), 12);
    }
}
