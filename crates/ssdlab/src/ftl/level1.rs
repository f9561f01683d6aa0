//! What one level-1 GC moves (ROSA, Cho et al., rosa-pcm-hybrid.txt), a policy
//! ([`Level1Choice`]) per `ftl.level1_gc.granularity`:
//! - [`HottestBlock`] (§2): "the SSD controller checks the read count of candidate victim blocks
//!   (i.e. sum of read counts in all of the valid pages) in both devices. The valid pages in a
//!   set of hot blocks in NAND flash devices migrate to PCM devices; the same number of cold PCM
//!   pages migrate to free NAND blocks in return." One invocation takes one hot flash block (the
//!   candidate whose valid units the host read most) and, if PCM lacks room for its units, the
//!   coldest PCM blocks (fewest reads of their valid units) whose units make the room, moved out
//!   first. A swap is made only where it helps: every cold block chosen was read less than the
//!   hot one.
//! - [`HottestUnits`] (§3): "top 20% of highest read count pages are migrated to PCM". One
//!   invocation takes the flash units the host read most (ROSA's pages are our 4 KiB units),
//!   wherever they lie, each in place of a PCM unit of its PCM plane read less than it, up to a
//!   flash block's worth (the paper's example move, §3: "192 valid pages"; it bounds the flash
//!   room an invocation's evictions take before GC can reclaim what the moved units left).
//!   Back to back, invocations converge on PCM holding the most-read units, within the budget.
//!
//! Either way level 1 uses only PCM room it made itself ("the same number of cold PCM pages
//! migrate ... in return"): PCM's other free pages belong to the units whose addresses fall to
//! PCM and have not been written yet, which a placement sends there on their first write and
//! which would otherwise find PCM full and wait for ever (PCM is never cleaned; the option-space
//! harness, seed 6465). The event loop runs the moves as GC jobs (`sim/technique/level1.rs`).

use std::collections::{BTreeMap, HashMap};

use super::{BlockState, Ftl, Location};
use crate::config::Level1Granularity;
use crate::flash::{BlockId, PlaneId};
use crate::ftl::shape::UnitKind;

/// What one block gives up in an invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level1Move {
    pub block: BlockId,
    /// The units that leave it, in address order; None: every unit it holds valid, and a full
    /// flash block is then erased, as any GC victim.
    pub units: Option<Vec<u32>>,
    /// Its erase count when chosen: the cold blocks move first, and if conventional GC or
    /// wear levelling cleans a whole hot block meanwhile, it holds other data by then.
    pub erases: u32,
    /// Its pages written when chosen: an open whole hot block that host writes fill meanwhile
    /// holds more units than the budget and PCM's room were checked for (the option-space
    /// harness, seed 940 of issue 34's draws: 14 units moved of a plan of 12, past the budget).
    pub pages: u32,
}

/// One invocation's moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level1Plan {
    /// Flash blocks whose units go to PCM.
    pub hot: Vec<Level1Move>,
    /// The units they give up.
    pub hot_units: u64,
    /// PCM blocks whose units go to flash first, to make room.
    pub cold: Vec<Level1Move>,
    /// The hot units each PCM plane takes.
    pub pcm_need: Vec<(PlaneId, u64)>,
}

/// What an invocation moves (`ftl.level1_gc.granularity`).
pub trait Level1Choice: Send {
    /// The plan of a level-1 GC that may move at most `budget_units` units into PCM, or None
    /// if no move helps (nothing on the flash read more than PCM's coldest, or nothing fits
    /// the budget). `made_room` is the room earlier invocations made on a PCM plane and left
    /// unused: of a plane's free units, level 1 counts at most that much as its own.
    /// `pcm_plane` is the PCM plane a unit moved into PCM goes to (its stripe, so that a
    /// request's units stay on the channels apart they were on): the room is made there, plane
    /// by plane, from the coldest PCM data of each plane short of it. (Made anywhere, the
    /// moved units would take the next plane with room and share channels with their
    /// neighbours: reads of several units then queue on one channel.)
    fn plan(
        &self,
        ftl: &Ftl,
        budget_units: u64,
        pcm_plane: &dyn Fn(u32) -> PlaneId,
        made_room: &dyn Fn(PlaneId) -> u64,
    ) -> Option<Level1Plan>;
}

/// §2's hot block, whole.
pub struct HottestBlock;

/// §3's most-read units, a flash block's worth an invocation.
pub struct HottestUnits;

pub fn build(granularity: Level1Granularity) -> Box<dyn Level1Choice> {
    match granularity {
        Level1Granularity::Block => Box::new(HottestBlock),
        Level1Granularity::Unit => Box::new(HottestUnits),
    }
}

impl Level1Move {
    fn whole(ftl: &Ftl, block: BlockId) -> Level1Move {
        let info = &ftl.blocks[block as usize];
        Level1Move {
            block,
            units: None,
            erases: info.erase_count,
            pages: info.write_ptr,
        }
    }

    fn of(ftl: &Ftl, block: BlockId, units: Vec<u32>) -> Level1Move {
        Level1Move {
            units: Some(units),
            ..Level1Move::whole(ftl, block)
        }
    }
}

impl Level1Choice for HottestBlock {
    fn plan(
        &self,
        ftl: &Ftl,
        budget_units: u64,
        pcm_plane: &dyn Fn(u32) -> PlaneId,
        made_room: &dyn Fn(PlaneId) -> u64,
    ) -> Option<Level1Plan> {
        let g = &ftl.geometry;
        let mut hot: Option<(u64, BlockId)> = None;
        // Per PCM plane: its free units and its blocks, (reads, block).
        let mut pcm: HashMap<PlaneId, (u64, Vec<(u64, BlockId)>)> = (ftl.pcm_free_units())
            .into_iter()
            .map(|(plane, free)| (plane, (free, Vec::new())))
            .collect();
        for p in &ftl.pools {
            let r = &g.regions[p.region];
            if !r.dies.plane_ids().contains(&p.plane) {
                continue;
            }
            let in_place = r.medium.rewrites_in_place();
            for i in r.first_block..r.first_block + r.blocks_per_plane {
                let b = g.block_id(p.plane, i);
                let info = &ftl.blocks[b as usize];
                // Blocks being cleaned stay, and blocks with programs in flight; a block still
                // being written may give up its units (it is not erased then: a read-only
                // stretch leaves the last blocks written open for ever). A PCM block counts as
                // programmed whole.
                let settled = match info.state {
                    BlockState::Full | BlockState::Open => {
                        ftl.programmed[b as usize] >= info.write_ptr
                    }
                    BlockState::Free | BlockState::Victim => false,
                };
                if !settled || ftl.valid_space[b as usize] == 0 {
                    continue;
                }
                let reads = ftl.block_reads(b);
                match in_place {
                    true => pcm.entry(p.plane).or_default().1.push((reads, b)),
                    false if reads > 0 => {
                        if hot.is_none_or(|(most, _)| reads > most) && ftl.split_parts_fit(b) {
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
            for (slot, lpn) in ftl.units_in_slots(page, ftl.valid_slots(page)) {
                if ftl.shape(lpn, slot).kind != UnitKind::Split {
                    *need.entry(pcm_plane(lpn)).or_default() += 1;
                }
            }
        }
        let hot_units: u64 = need.values().sum();
        if hot_units > budget_units {
            return None;
        }
        let mut plan = Level1Plan {
            hot: vec![Level1Move::whole(ftl, hot)],
            hot_units,
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
                room += ftl.units_in_place(b);
                plan.cold.push(Level1Move::whole(ftl, b));
            }
            if room < wanted {
                return None;
            }
        }
        plan.pcm_need = planes;
        Some(plan)
    }
}

impl Level1Choice for HottestUnits {
    /// The flash units read most, most first (ties: the lower address), each taken while its
    /// PCM plane has room level 1 made or a unit read less than it to give up (that plane's
    /// least read first), up to a flash block's worth and the budget. Only units whose programs
    /// are done move, on blocks not being cleaned, and no split unit (its parts stay on their
    /// channels, `Ftl::copy_destination`).
    fn plan(
        &self,
        ftl: &Ftl,
        budget_units: u64,
        pcm_plane: &dyn Fn(u32) -> PlaneId,
        made_room: &dyn Fn(PlaneId) -> u64,
    ) -> Option<Level1Plan> {
        let g = &ftl.geometry;
        let flash = &g.regions[0];
        let batch = budget_units.min(flash.pages_per_block as u64 * g.units_per_page as u64);
        // Keys that sort as wanted: flash units by reads down, PCM units by reads up, then by
        // address.
        let key = |reads: u32, lpn: u32| (reads as u64) << 32 | lpn as u64;
        let (mut hot, mut pcm): (Vec<u64>, HashMap<PlaneId, Vec<u64>>) = Default::default();
        for lpn in 0..ftl.logical_units {
            let Location::Flash(slot) = ftl.lookup(lpn) else {
                continue;
            };
            let block = g.block_of_slot(slot);
            let state = ftl.blocks[block as usize].state;
            if !matches!(state, BlockState::Full | BlockState::Open)
                || !ftl.unit_programmed(lpn, slot)
                || ftl.shape(lpn, slot).kind == UnitKind::Split
            {
                continue;
            }
            let reads = ftl.reads_of(lpn);
            match g.regions[g.region_of(block)].medium.rewrites_in_place() {
                true => {
                    let plane = g.plane_of_block(block);
                    pcm.entry(plane).or_default().push(key(reads, lpn));
                }
                false if reads > 0 => hot.push(key(u32::MAX - reads, lpn)),
                false => {}
            }
        }
        hot.sort_unstable();
        for units in pcm.values_mut() {
            units.sort_unstable();
        }
        let free = ftl.pcm_free_units();
        let mut room: HashMap<PlaneId, u64> = (free.iter())
            .map(|(&plane, &f)| (plane, f.min(made_room(plane))))
            .collect();
        let block_of = |lpn: u32| match ftl.lookup(lpn) {
            Location::Flash(slot) => g.block_of_slot(slot),
            _ => unreachable!("a unit chosen is stored"),
        };
        let mut evicted: HashMap<PlaneId, usize> = HashMap::new();
        let (mut hot_moves, mut cold_moves) = (BTreeMap::new(), BTreeMap::new());
        let mut need: BTreeMap<PlaneId, u64> = BTreeMap::new();
        let mut taken = 0;
        for k in hot {
            if taken == batch {
                break;
            }
            let (reads, lpn) = (u32::MAX - (k >> 32) as u32, k as u32);
            let plane = pcm_plane(lpn);
            let left = room.entry(plane).or_default();
            if *left > 0 {
                *left -= 1;
            } else {
                let next = evicted.entry(plane).or_default();
                let Some(&cold) = pcm.get(&plane).and_then(|units| units.get(*next)) else {
                    continue;
                };
                if (cold >> 32) as u32 >= reads {
                    continue;
                }
                *next += 1;
                let cold = cold as u32;
                let block = block_of(cold);
                cold_moves.entry(block).or_insert_with(Vec::new).push(cold);
            }
            let block = block_of(lpn);
            hot_moves.entry(block).or_insert_with(Vec::new).push(lpn);
            *need.entry(plane).or_default() += 1;
            taken += 1;
        }
        if taken == 0 {
            return None;
        }
        let moves = |of: BTreeMap<BlockId, Vec<u32>>| {
            (of.into_iter())
                .map(|(block, mut units)| {
                    units.sort_unstable();
                    Level1Move::of(ftl, block, units)
                })
                .collect()
        };
        Some(Level1Plan {
            hot: moves(hot_moves),
            hot_units: taken,
            cold: moves(cold_moves),
            pcm_need: need.into_iter().collect(),
        })
    }
}

impl Ftl {
    /// Per PCM plane, its free units.
    fn pcm_free_units(&self) -> HashMap<PlaneId, u64> {
        let g = &self.geometry;
        let mut free = HashMap::new();
        for p in &self.pools {
            let r = &g.regions[p.region];
            if r.medium.rewrites_in_place() && r.dies.plane_ids().contains(&p.plane) {
                // (Space is in bytes when units are shaped: PCM holds each unit as written.)
                let bytes_or_units = p.total_space - p.valid_space;
                *free.entry(p.plane).or_default() += match self.keeps_shapes() {
                    true => bytes_or_units / g.unit_bytes as u64,
                    false => bytes_or_units,
                };
            }
        }
        free
    }

    /// How many units `m` takes out of its block now: those of its units still valid there.
    pub fn units_leaving(&self, m: &Level1Move) -> u64 {
        let Some(units) = &m.units else {
            return self.units_in_place(m.block);
        };
        let g = &self.geometry;
        let here = |lpn: u32| match self.lookup(lpn) {
            Location::Flash(slot) => g.block_of_slot(slot) == m.block,
            _ => false,
        };
        units.iter().filter(|&&lpn| here(lpn)).count() as u64
    }

    /// Whether `m`, a hot block's move, may still be made as chosen: the block not cleaned
    /// since nor being cleaned, and holding valid data. The cold blocks move first, and
    /// meanwhile conventional GC may clean a hot block or host writes fill it. A whole block
    /// must also not have been written to since, and every page written to it must be
    /// programmed: a job started on a page still being programmed would not read it (GC reads
    /// programmed pages only) and then erase the block with the page's units valid in it (the
    /// option-space harness, seeds 4911 and 19507). (Chosen units move only if they are still
    /// valid there, on programmed pages, and the block is not erased.)
    pub fn level1_move_settled(&self, m: &Level1Move) -> bool {
        let b = m.block as usize;
        let info = &self.blocks[b];
        let unchanged = info.erase_count == m.erases
            && matches!(info.state, BlockState::Full | BlockState::Open)
            && self.valid_space[b] > 0;
        match m.units {
            Some(_) => unchanged,
            None => {
                unchanged
                    && info.write_ptr == m.pages
                    && self.programmed[b] >= info.write_ptr
                    && self.split_parts_fit(m.block)
            }
        }
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

    fn blocks(moves: &[Level1Move]) -> Vec<BlockId> {
        moves.iter().map(|m| m.block).collect()
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
        let plan = HottestBlock
            .plan(&f, u64::MAX, &to, &|_| 0)
            .expect("a swap helps");
        assert_eq!(blocks(&plan.hot), vec![hot], "not the warm block {warm}");
        assert_eq!(plan.hot_units, 6);
        // Room on each plane its units go to: the least read block of each (the first of its
        // reads), though one block of 6 units would hold all six.
        let coldest = |plane| {
            let on = |b: &&(BlockId, usize)| f.geometry.plane_of_block(b.0) == plane;
            let mut of_plane: Vec<_> = pcm_blocks.iter().filter(on).collect();
            of_plane.sort_by_key(|(b, r)| (*r, *b));
            of_plane[0].0
        };
        assert_eq!(
            blocks(&plan.cold),
            vec![coldest(planes[0]), coldest(planes[1])]
        );
        // All of them to one plane: its coldest block alone.
        let plan = HottestBlock
            .plan(&f, u64::MAX, &|_| planes[1], &|_| 0)
            .unwrap();
        assert_eq!(blocks(&plan.cold), vec![coldest(planes[1])]);
        // Not past the budget.
        assert_eq!(HottestBlock.plan(&f, 5, &to, &|_| 0), None);
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
        assert_eq!(HottestBlock.plan(&f, u64::MAX, &to, &|_| 0), None);
        // PCM's free room is its unwritten addresses', not level 1's: an empty PCM takes nothing.
        let mut f = ftl();
        let hot = block_of(&mut f, flash[0], 0, 1);
        let plane = f.pools[pcm[0]].plane;
        assert_eq!(HottestBlock.plan(&f, u64::MAX, &|_| plane, &|_| 0), None);
        // Room level 1 made earlier is its own: then nothing needs to leave PCM.
        let plan = HottestBlock.plan(&f, u64::MAX, &|_| plane, &|_| 6).unwrap();
        assert_eq!((blocks(&plan.hot), blocks(&plan.cold)), (vec![hot], vec![]));
        assert_eq!(plan.pcm_need, vec![(plane, 6)]);
        // Only as much as is free of it.
        assert_eq!(HottestBlock.plan(&f, u64::MAX, &|_| plane, &|_| 5), None);
    }

    #[test]
    fn unit_by_unit_the_most_read_flash_units_swap_with_colder_pcm_units_of_their_plane() {
        let mut f = ftl();
        let flash = pools(&f, false);
        let pcm = pools(&f, true);
        let a = block_of(&mut f, flash[0], 0, 0);
        let b = block_of(&mut f, flash[1], 10, 0);
        // Reads per unit: 0 ×9, 5 ×1 (block a); 11 ×8, 12 ×7 (block b).
        for (lpn, n) in [(0, 9), (5, 1), (11, 8), (12, 7)] {
            let Location::Flash(slot) = f.lookup(lpn) else {
                unreachable!()
            };
            for _ in 0..n {
                f.count_read(lpn, slot);
            }
        }
        // PCM full, every unit read twice.
        let mut lpn = 20;
        while let Some(&pool) = pcm.iter().find(|&&p| f.has_room(p, Writer::Gc)) {
            block_of(&mut f, pool, lpn, 2);
            lpn += 6;
        }
        let planes: Vec<PlaneId> = pcm.iter().map(|&p| f.pools[p].plane).collect();
        let to = |lpn: u32| planes[lpn as usize % 2];
        // Per PCM plane, its units in address order.
        let of_plane = |plane: PlaneId| -> Vec<u32> {
            (20..lpn)
                .filter(|&l| match f.lookup(l) {
                    Location::Flash(slot) => {
                        f.geometry.plane_of_block(f.geometry.block_of_slot(slot)) == plane
                    }
                    _ => false,
                })
                .collect()
        };
        let units = |moves: &[Level1Move]| -> Vec<u32> {
            let mut v: Vec<u32> = moves
                .iter()
                .flat_map(|m| m.units.clone().unwrap())
                .collect();
            v.sort_unstable();
            v
        };
        let plan = HottestUnits
            .plan(&f, u64::MAX, &to, &|_| 0)
            .expect("swaps help");
        // Unit 5 (read once) is colder than every PCM unit: it stays.
        assert_eq!(units(&plan.hot), vec![0, 11, 12]);
        assert_eq!(blocks(&plan.hot), vec![a, b]);
        assert_eq!(plan.hot_units, 3);
        // Units 0 and 12 go to plane 0, 11 to plane 1: the lowest addresses of equal reads give
        // up their room.
        let (p0, p1) = (of_plane(planes[0]), of_plane(planes[1]));
        let mut cold = vec![p0[0], p0[1], p1[0]];
        cold.sort_unstable();
        assert_eq!(units(&plan.cold), cold);
        assert_eq!(plan.pcm_need, vec![(planes[0], 2), (planes[1], 1)]);
        // Room level 1 made counts only as far as PCM has it free: full, it spares nothing.
        let again = HottestUnits.plan(&f, u64::MAX, &to, &|_| 1).unwrap();
        assert_eq!(units(&again.cold), units(&plan.cold));
        // The budget: the two most read.
        let plan = HottestUnits.plan(&f, 2, &to, &|_| 0).unwrap();
        assert_eq!(units(&plan.hot), vec![0, 11]);
        // A block's worth (6 units) at most, however many would help.
        for lpn in 0..6 {
            let Location::Flash(slot) = f.lookup(lpn) else {
                unreachable!()
            };
            for _ in 0..20 {
                f.count_read(lpn, slot);
            }
        }
        let plan = HottestUnits.plan(&f, u64::MAX, &to, &|_| 0).unwrap();
        assert_eq!(units(&plan.hot), vec![0, 1, 2, 3, 4, 5]);
        // Nothing hotter than PCM's coldest: no plan.
        let mut f = ftl();
        block_of(&mut f, flash[0], 0, 1);
        let mut lpn = 20;
        while let Some(&pool) = pcm.iter().find(|&&p| f.has_room(p, Writer::Gc)) {
            block_of(&mut f, pool, lpn, 1);
            lpn += 6;
        }
        assert_eq!(HottestUnits.plan(&f, u64::MAX, &to, &|_| 0), None);
        // An empty PCM's free room is its unwritten addresses'; room level 1 made is its own.
        let mut f = ftl();
        block_of(&mut f, flash[0], 0, 1);
        assert_eq!(HottestUnits.plan(&f, u64::MAX, &to, &|_| 0), None);
        let plan = HottestUnits.plan(&f, u64::MAX, &to, &|_| 2).unwrap();
        assert_eq!((units(&plan.hot), plan.cold), (vec![0, 1, 2, 3], vec![]));
    }
}
