//! What one level-1 GC moves (ROSA, Cho et al., rosa-pcm-hybrid.txt §2): "the SSD controller
//! checks the read count of candidate victim blocks (i.e. sum of read counts in all of the
//! valid pages) in both devices. The valid pages in a set of hot blocks in NAND flash devices
//! migrate to PCM devices; the same number of cold PCM pages migrate to free NAND blocks in
//! return." Here one invocation takes one hot flash block (the candidate whose valid units the
//! host read most) and, if PCM lacks room for its units, the coldest PCM blocks (fewest reads
//! of their valid units) whose units make the room, moved out first. A swap is made only where
//! it helps: every cold block chosen was read less than the hot one. Level 1 uses only PCM room
//! it made itself ("the same number of cold PCM pages migrate ... in return"): PCM's other free
//! pages belong to the units whose addresses fall to PCM and have not been written yet, which
//! a placement sends there on their first write and which would otherwise find PCM full and
//! wait for ever (PCM is never cleaned; the option-space harness, seed 6465). The event loop runs the
//! moves as GC jobs (`sim/technique/level1.rs`).

use std::collections::HashMap;

use super::{BlockState, Ftl};
use crate::flash::{BlockId, PlaneId};
use crate::ftl::shape::UnitKind;

/// One invocation's moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level1Plan {
    /// The flash block whose valid units go to PCM (then erased, as any GC victim, if it was
    /// full).
    pub hot: BlockId,
    /// Its valid units.
    pub hot_units: u64,
    /// Its erase count when chosen: the cold blocks move first, and if conventional GC or
    /// wear levelling cleans the hot block meanwhile, it holds other data by then.
    pub hot_erases: u32,
    /// Its pages written when chosen: an open hot block that host writes fill meanwhile holds
    /// more units than the budget and PCM's room were checked for (the option-space harness,
    /// seed 940 of issue 34's draws: 14 units moved of a plan of 12, past the budget).
    pub hot_pages: u32,
    /// PCM blocks whose valid units go to flash first, to make room.
    pub cold: Vec<BlockId>,
    /// The hot units each PCM plane takes.
    pub pcm_need: Vec<(PlaneId, u64)>,
}

impl Ftl {
    /// The plan of a level-1 GC that may move at most `budget_units` units into PCM, or None
    /// if no move helps (no flash block read more than PCM's coldest, or none fits the budget).
    /// `made_room` is the room earlier invocations made on a PCM plane and left unused: of a
    /// plane's free units, level 1 counts at most that much as its own.
    /// `pcm_plane` is the PCM plane a unit moved into PCM goes to (its stripe, so that a
    /// request's units stay on the channels apart they were on): the room is made there, plane
    /// by plane, from the coldest PCM blocks of each plane short of it. (Made anywhere, the
    /// moved units would take the next plane with room and share channels with their
    /// neighbours: reads of several units then queue on one channel.)
    pub fn level1_plan(
        &self,
        budget_units: u64,
        pcm_plane: impl Fn(u32) -> PlaneId,
        made_room: impl Fn(PlaneId) -> u64,
    ) -> Option<Level1Plan> {
        let g = &self.geometry;
        let mut hot: Option<(u64, BlockId)> = None;
        // Per PCM plane: its free units and its blocks, (reads, block).
        let mut pcm: HashMap<PlaneId, (u64, Vec<(u64, BlockId)>)> = HashMap::new();
        for p in &self.pools {
            let r = &g.regions[p.region];
            if !r.dies.plane_ids().contains(&p.plane) {
                continue;
            }
            let in_place = r.medium.rewrites_in_place();
            if in_place {
                // (Space is in bytes when units are shaped: PCM holds each unit as written.)
                let free = p.total_space - p.valid_space;
                pcm.entry(p.plane).or_default().0 += match self.keeps_shapes() {
                    true => free / g.unit_bytes as u64,
                    false => free,
                };
            }
            for i in r.first_block..r.first_block + r.blocks_per_plane {
                let b = g.block_id(p.plane, i);
                let info = &self.blocks[b as usize];
                // Blocks being cleaned stay, and blocks with programs in flight; a block still
                // being written may give up its units (it is not erased then: a read-only
                // stretch leaves the last blocks written open for ever). A PCM block counts as
                // programmed whole.
                let settled = match info.state {
                    BlockState::Full | BlockState::Open => {
                        self.programmed[b as usize] >= info.write_ptr
                    }
                    BlockState::Free | BlockState::Victim => false,
                };
                if !settled || self.valid_space[b as usize] == 0 {
                    continue;
                }
                let reads = self.block_reads(b);
                match in_place {
                    true => pcm.entry(p.plane).or_default().1.push((reads, b)),
                    false if reads > 0 => {
                        if hot.is_none_or(|(most, _)| reads > most) && self.split_parts_fit(b) {
                            hot = Some((reads, b));
                        }
                    }
                    false => {}
                }
            }
        }
        let (hot_reads, hot) = hot?;
        // Where the hot units go. (Counted, not taken from the block's valid space: that is
        // bytes when units are shaped.) A split unit's parts stay on the flash, on their
        // channels (`Ftl::copy_destination`): they need no room in PCM.
        let mut need: HashMap<PlaneId, u64> = HashMap::new();
        for i in 0..g.regions[g.region_of(hot)].pages_per_block {
            let page = g.page_id(hot, i);
            for (slot, lpn) in self.units_in_slots(page, self.valid_slots(page)) {
                if self.shape(lpn, slot).kind != UnitKind::Split {
                    *need.entry(pcm_plane(lpn)).or_default() += 1;
                }
            }
        }
        let hot_units: u64 = need.values().sum();
        if hot_units > budget_units {
            return None;
        }
        let mut plan = Level1Plan {
            hot,
            hot_units,
            hot_erases: self.blocks[hot as usize].erase_count,
            hot_pages: self.blocks[hot as usize].write_ptr,
            cold: Vec::new(),
            pcm_need: Vec::new(),
        };
        // Planes in order, each's coldest blocks first (ties: the lower block), only those read
        // less than the hot block.
        let mut planes: Vec<(PlaneId, u64)> = need.into_iter().collect();
        planes.sort_unstable();
        for &(plane, wanted) in &planes {
            let (free, mut blocks) = pcm.remove(&plane).unwrap_or_default();
            let mut room = free.min(made_room(plane));
            blocks.sort_unstable();
            for (reads, b) in blocks {
                if room >= wanted {
                    break;
                }
                if reads >= hot_reads {
                    return None;
                }
                room += self.units_in_place(b);
                plan.cold.push(b);
            }
            if room < wanted {
                return None;
            }
        }
        plan.pcm_need = planes;
        Some(plan)
    }
}

impl Ftl {
    /// Whether `plan`'s hot block may still be moved as chosen: not cleaned since, not written
    /// to since, not being cleaned, and every page written to it programmed. The cold blocks move first; meanwhile
    /// host writes may fill an open hot block, and a job started on a page still being
    /// programmed would not read it (GC reads programmed pages only) and then erase the block
    /// with the page's units valid in it (the option-space harness, seeds 4911 and 19507).
    pub fn level1_hot_settled(&self, plan: &Level1Plan) -> bool {
        let b = plan.hot as usize;
        let info = &self.blocks[b];
        info.erase_count == plan.hot_erases
            && info.write_ptr == plan.hot_pages
            && matches!(info.state, BlockState::Full | BlockState::Open)
            && self.programmed[b] >= info.write_ptr
            && self.valid_space[b] > 0
            && self.split_parts_fit(plan.hot)
    }

    /// Whether the split parts in flash block `block` are sure of room in its plane when level
    /// 1 moves the block: they stay on the flash, on their channels (`Ftl::copy_destination`),
    /// copied by the job as the conventional GC's copies are, and take at most the pages that
    /// hold them now. Sure room is what is left of the plane's GC block and the free blocks
    /// host writes leave it (they never take the last `gc_reserved_blocks`); while the job
    /// runs it is the plane's only GC. Without it the job would find no block to copy into on
    /// a full plane (the option-space harness, PR-SSD's split FTL beside PCM).
    fn split_parts_fit(&self, block: BlockId) -> bool {
        if self.split_parts.is_empty() {
            return true;
        }
        let g = &self.geometry;
        let p = &self.pools[self.pool_of_block(block)];
        let pages = (0..self.blocks[block as usize].write_ptr)
            .map(|i| g.page_id(block, i))
            .filter(|&page| {
                (self.units_in_slots(page, self.valid_slots(page)))
                    .any(|(slot, lpn)| self.shape(lpn, slot).kind == UnitKind::Split)
            })
            .count() as u32;
        let active_left = match p.gc_active {
            Some(a) if a != block => p.pages_per_block - self.blocks[a as usize].write_ptr,
            _ => 0,
        };
        let free = (p.free.len() as u32).min(p.host_reserved_blocks);
        pages <= active_left + free * p.pages_per_block
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::ftl::page_units::PageUnits;
    use crate::ftl::shape::UnitShape;
    use crate::ftl::{placement, reduction, Writer};

    /// A device of 2 flash planes and 2 PCM planes, 6 pages a block, pages of one unit.
    fn ftl() -> Ftl {
        let config = crate::test_support::small(&[
            "geometry.page_size_kib=4",
            "geometry.ways_per_channel=1",
            "geometry.planes_per_die=1",
            "geometry.pages_per_block=6",
            "geometry.blocks_per_plane=32",
            "geometry.pcm={capacity_share=0.2}",
            "timing.pcm={set=\"pcm1\"}",
            "ftl.placement={policy=\"oblivious\", run_units=1}",
            "ftl.overprovisioning_ratio=0.5",
        ]);
        fresh(&config)
    }

    fn fresh(config: &Config) -> Ftl {
        let g = crate::device::geometry(config);
        let r = reduction::build(config, &g).unwrap();
        let p = placement::build(&config.ftl.placement, &g).unwrap();
        let mut f = Ftl::new(config, g, false, p.streams(), r.as_ref());
        f.keep_read_counts();
        f
    }

    /// Fill a whole block of `pool` with units `first..` and read each `reads` times.
    fn block_of(f: &mut Ftl, pool: usize, first: u32, reads: u32) -> BlockId {
        let mut block = None;
        let pages = f.pools[pool].pages_per_block;
        for i in 0..pages {
            let lpn = first + i;
            // (PCM takes units alone: a page each here, of one unit.)
            let slot = match f.stores_units_alone(pool) {
                true => {
                    let slot = f.alloc_slot(pool, 0);
                    f.fill_slot(slot, lpn, 0);
                    slot
                }
                false => {
                    let page = f.alloc_page(pool, Writer::Gc, 0).unwrap();
                    let units: PageUnits =
                        [Some((lpn, 0, UnitShape::raw(4096)))].into_iter().collect();
                    f.fill_page(page, &units);
                    f.geometry.slot_id(page, 0)
                }
            };
            let page = f.geometry.page_of_slot(slot);
            f.complete_program(page);
            for _ in 0..reads {
                f.count_read(lpn, slot);
            }
            block = Some(f.geometry.block_of_page(page));
        }
        block.unwrap()
    }

    /// The pools of the region written in place (PCM), or of the flash.
    fn pools(f: &Ftl, in_place: bool) -> Vec<usize> {
        (0..f.pools.len())
            .filter(|&i| {
                let p = &f.pools[i];
                let r = &f.geometry.regions[p.region];
                r.medium.rewrites_in_place() == in_place && r.dies.plane_ids().contains(&p.plane)
            })
            .collect()
    }

    #[test]
    fn the_most_read_flash_block_swaps_with_the_least_read_pcm_blocks() {
        let mut f = ftl();
        let flash = pools(&f, false);
        let pcm = pools(&f, true);
        let warm = block_of(&mut f, flash[0], 0, 2);
        let hot = block_of(&mut f, flash[1], 10, 5);
        // Fill PCM whole: its blocks read 0, 1, 1, 3, … times a unit.
        let mut pcm_blocks = Vec::new();
        let mut lpn = 20;
        for (k, &pool) in pcm.iter().cycle().enumerate() {
            if !f.has_room(pool, Writer::Gc) {
                if pcm.iter().all(|&p| !f.has_room(p, Writer::Gc)) {
                    break;
                }
                continue;
            }
            pcm_blocks.push((block_of(&mut f, pool, lpn, [0, 1, 1, 3][k % 4]), k % 4));
            lpn += 6;
        }
        // The hot units go to the PCM planes in turn, by address: three to each.
        let planes: Vec<PlaneId> = pcm.iter().map(|&p| f.pools[p].plane).collect();
        let to = |lpn: u32| planes[lpn as usize % 2];
        let plan = f.level1_plan(u64::MAX, to, |_| 0).expect("a swap helps");
        assert_eq!(plan.hot, hot, "not the warm block {warm}");
        assert_eq!(plan.hot_units, 6);
        // Room on each plane its units go to: the least read block of each (the first of its
        // reads), though one block of 6 units would hold all six.
        let coldest = |plane| {
            let on = |b: &&(BlockId, usize)| f.geometry.plane_of_block(b.0) == plane;
            let mut of_plane: Vec<_> = pcm_blocks.iter().filter(on).collect();
            of_plane.sort_by_key(|(b, r)| (*r, *b));
            of_plane[0].0
        };
        assert_eq!(plan.cold, vec![coldest(planes[0]), coldest(planes[1])]);
        // All of them to one plane: its coldest block alone.
        let plan = f.level1_plan(u64::MAX, |_| planes[1], |_| 0).unwrap();
        assert_eq!(plan.cold, vec![coldest(planes[1])]);
        // Not past the budget.
        assert_eq!(f.level1_plan(5, to, |_| 0), None);
    }

    #[test]
    fn no_swap_when_pcm_holds_hotter_data() {
        let mut f = ftl();
        let flash = pools(&f, false);
        let pcm = pools(&f, true);
        block_of(&mut f, flash[0], 0, 1);
        let mut lpn = 20;
        while let Some(&pool) = pcm.iter().find(|&&p| f.has_room(p, Writer::Gc)) {
            block_of(&mut f, pool, lpn, 4);
            lpn += 6;
        }
        let to = |lpn: u32| f.pools[pcm[lpn as usize % 2]].plane;
        assert_eq!(f.level1_plan(u64::MAX, to, |_| 0), None);
        // PCM's free room is its unwritten addresses', not level 1's: an empty PCM takes nothing.
        let mut f = ftl();
        let hot = block_of(&mut f, flash[0], 0, 1);
        let plane = f.pools[pcm[0]].plane;
        assert_eq!(f.level1_plan(u64::MAX, |_| plane, |_| 0), None);
        // Room level 1 made earlier is its own: then nothing needs to leave PCM.
        let plan = f.level1_plan(u64::MAX, |_| plane, |_| 6).unwrap();
        assert_eq!((plan.hot, plan.cold), (hot, vec![]));
        assert_eq!(plan.pcm_need, vec![(plane, 6)]);
        // Only as much as is free of it.
        assert_eq!(f.level1_plan(u64::MAX, |_| plane, |_| 5), None);
    }
}
