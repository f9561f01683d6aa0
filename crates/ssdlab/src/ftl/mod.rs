//! The flash translation layer's state: page-level mapping at mapping-unit granularity, block
//! bookkeeping per plane and region, the write buffer, and the state transitions the timed engine
//! (and the untimed preconditioning) drive. Nothing here knows about time except as a number
//! passed in; decisions the papers vary are policies in the sibling modules.

pub mod admission;
pub mod allocation;
pub mod gc;
pub mod gc_victim;
pub mod host_streams;
pub mod in_place;
pub mod level1;
mod loaded;
pub mod mapping_cache;
pub mod migration;
pub mod page_units;
pub mod partial_program;
pub mod placement;
pub mod policies;
pub mod precondition;
pub mod read_ahead;
pub mod read_counts;
pub mod read_policy;
pub mod reduction;
pub mod reverse_map;
pub mod saved_state;
pub mod shape;
pub mod split;
pub mod split_map;
pub(crate) mod table;
pub mod two_level;
pub mod verify;
pub mod write_buffer;

use std::collections::{HashMap, VecDeque};

use foldhash::fast::FixedState;

use crate::codec::layout::PagePacker;
use crate::config::Config;
use crate::device::plane_data_room;
use crate::flash::{BlockId, Geometry, PageId, PlaneId, SlotId, Slots};
use gc_victim::Candidate;
use migration::Migration;
use page_units::PageUnits;
use reduction::DataReduction;
use reverse_map::ReverseMap;
use shape::{UnitKind, UnitShape};
use write_buffer::WriteBuffer;

/// `l2p` encoding: 0 = unmapped, `BUFFERED | entry` = in the write buffer, `ZERO_UNIT` = all zero
/// (mapped, nothing stored), else flash slot + 1.
pub const UNMAPPED: u32 = 0;
pub const BUFFERED: u32 = 1 << 31;
/// Buffer entry ids never come near it (nor near the preconditioning marks above it).
pub const ZERO_UNIT: u32 = u32::MAX - 2;
/// `p2l` value of a slot holding no unit (padding of a partly filled page), and the buffer's
/// mark of a dead entry. A unit number never reaches it (validation caps the slots below 2^31).
pub const NO_LPN: u32 = (1 << 31) - 1;

/// How many pages ahead of its writes an open block's reverse map is loaded.
const P2L_AHEAD_PAGES: u32 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    Unmapped,
    Buffered(u32),
    /// Written as all zero: only the mapping knows it (PR-SSD §4.2.1).
    Zero,
    Flash(SlotId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BlockState {
    Free,
    /// Being written (an active block of a host stream or of GC).
    Open,
    /// Every page allocated.
    Full,
    /// Chosen by GC or wear levelling; being cleaned.
    Victim,
}

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct BlockInfo {
    pub state: BlockState,
    /// Pages allocated (programs issued), in page order.
    pub write_ptr: u32,
    pub erase_count: u32,
    pub last_write_ns: u64,
}

/// Where GC sends the units of a victim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyTo {
    /// Its own region.
    Own,
    /// Where the migration policy says.
    Migration,
    /// This region.
    Region(usize),
}

/// A unit on its way to another page (GC, wear levelling): where it is and how it is stored.
#[derive(Clone, Copy, Debug)]
pub struct UnitCopy {
    pub lpn: u32,
    pub slot: SlotId,
    pub shape: UnitShape,
}

/// Who takes a page from a pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    Host { stream: usize },
    Gc,
}

/// The blocks of one region in one plane.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Pool {
    pub plane: PlaneId,
    pub region: usize,
    pub free: VecDeque<BlockId>,
    pub host_active: Vec<Option<BlockId>>,
    pub gc_active: Option<BlockId>,
    pub pages_per_block: u32,
    /// GC starts when `free.len()` falls under this.
    pub gc_threshold_blocks: u32,
    /// Cleans in a row that freed no page (see [`Ftl::gc_finished`]).
    gc_without_gain: u32,
    /// Slots written before whose unit has left, programmable again at once, where the medium
    /// rewrites its slots in place (empty where it appends; `in_place.rs`).
    pub free_slots: Vec<SlotId>,
    /// The page written in place whose slots are being taken, and its next slot.
    pub open_slots: Option<(PageId, u32)>,
    /// How the region's medium hands out its slots: appended and erased (NAND), or written in
    /// place, a unit at a time, taken again once their unit leaves (PCM).
    pub slots: Slots,
    /// Free blocks host writes leave to GC (`ftl.gc_reserved_blocks`; none where nothing is
    /// cleaned).
    pub host_reserved_blocks: u32,
    /// Space of the pool's blocks, in [`Ftl::space_per_page`] measure: holding valid units,
    /// written and holding none (stale data and padding), and all of it.
    pub valid_space: u64,
    pub invalid_space: u64,
    pub total_space: u64,
    /// The valid space the pool holds while its GC is sure to gain a page from some victim: its
    /// share of the room validation checks the data against (`device::plane_data_room`, its
    /// blocks less those GC keeps free or open, less one unit short of a page in each); 0
    /// where nothing is cleaned.
    pub settled_room: u64,
}

impl Pool {
    /// The last clean of the pool copied as many pages as it erased.
    pub fn cleaned_without_gain(&self) -> bool {
        self.gc_without_gain > 0
    }

    pub fn needs_gc(&self) -> bool {
        (self.free.len() as u32) < self.gc_threshold_blocks
    }

    /// Whether its slots are rewritten in place ([`Slots::InPlace`]).
    #[inline]
    pub fn rewrites_in_place(&self) -> bool {
        self.slots == Slots::InPlace
    }

    /// Whether its blocks are erased (and cleaned first).
    #[inline]
    pub fn erases(&self) -> bool {
        self.slots == Slots::AppendErase
    }
}

/// A page's packing slack and its count of valid units ([`Ftl`]'s `page_slack`).
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
struct PageSlack {
    slack_bytes: u16,
    live_units: u8,
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct Ftl {
    /// Not saved in a device snapshot: the config gives it (`sim/snapshot.rs`).
    #[serde(skip)]
    pub geometry: Geometry,
    /// Mapping units mapped: the host's logical capacity (`host_units`), then the translation
    /// pages of a mapping table kept on flash (`ftl.mapping_cache`).
    pub logical_units: u32,
    /// The host's logical capacity in mapping units.
    pub host_units: u32,
    #[serde(with = "crate::ftl::table::bulk")]
    pub l2p: Vec<u32>,
    /// Per slot, the unit last written there (the page's out-of-band area on a real device).
    /// A slot is valid exactly when its unit still maps to it (`slot_is_valid`). Validity is
    /// derived rather than stored, so an overwrite touches only the mapping entry it rewrites
    /// and its old block's count, not the reverse map of a slot anywhere on the device (a miss
    /// into a table the size of the device). GC, which reads a victim's reverse map in order
    /// anyway, checks the mapping instead, with prefetches ahead of its reads.
    pub p2l: ReverseMap,
    pub blocks: Vec<BlockInfo>,
    /// Per block, the pages whose program has completed. Programs of one block complete in order
    /// because they queue FIFO on one die; a page at or past this index is still in controller
    /// memory. Kept apart from `blocks` because every host read asks it: a dense `u32` per block
    /// stays in cache where the block records do not.
    #[serde(with = "crate::ftl::table::bulk")]
    pub programmed: Vec<u32>,
    /// Per block, the space its valid units take: one per unit stored as written, or its stored
    /// bytes when units are shaped (a compressed unit takes less of a page than a raw one, a
    /// split part a partial unit), so that GC compares blocks by what cleaning them costs. Kept
    /// apart from `blocks` for the same reason: every overwrite of a unit decrements the count
    /// of a block anywhere on the device, and a dense `u32` per block stays in cache.
    #[serde(with = "crate::ftl::table::bulk")]
    pub valid_space: Vec<u32>,
    /// The space a page offers: its slots, or its bytes when units are shaped.
    pub space_per_page: u32,
    /// Indexed by `plane · regions + region`.
    pub pools: Vec<Pool>,
    pub buffer: WriteBuffer,
    pub gc_reserved_blocks: u32,
    /// Where the next split buffer's channels start (`split_pages`): saved with the rest, so a
    /// run from a device snapshot splits where preconditioning left off, as a fresh one does.
    split_cursor: u32,
    /// Codeword bitmap of each slot index of an uncompressed page.
    slot_codewords: Vec<u64>,
    /// Per unit, its packed [`UnitShape`] while it is stored on flash or buffered; empty when
    /// the data-reduction policy stores every unit as written (slot i holds bytes
    /// `i · unit ..` of its page).
    #[serde(with = "crate::ftl::table::bulk")]
    shapes: Vec<u64>,
    /// Per page, when units are shaped: the bytes its packing left unused and how many of its
    /// units are still valid. The slack counts as valid space while any unit of the page is:
    /// only moving every unit of the page frees it. Counting it free made a block of fully
    /// valid, loosely packed pages (one 9 KiB unit a 16 KiB page) look a third empty, so greedy
    /// GC copied it for no gain, and with every logical page valid cleaned without end.
    page_slack: Vec<PageSlack>,
    /// The partial unit of zero bitmaps (`DataReduction::partial_unit_bytes`).
    partial_bytes: u32,
    /// One packer per write-buffer lane, for the pages GC and preconditioning fill with copies.
    copy_packers: Vec<PagePacker>,
    /// Where the copies of the last `page_prefix` go in their page.
    copy_offsets: Vec<u32>,
    /// Per lane, the fewest copies that can fill a page (`PagePacker::fewest_to_fill` of units
    /// of at most `unit_bytes`, as every stored unit is).
    copy_fill_units: Vec<usize>,
    /// The parts of split units (`split_map.rs`), by unit.
    split_parts: HashMap<u32, Vec<split_map::SplitPart>, FixedState>,
    /// Per unit, how many times the host has rewritten it since its first write (saturating),
    /// less the demotions GC gave it; empty unless a policy asks ([`Ftl::keep_update_counts`]).
    /// Cells, so that GC can demote a unit while it walks its victim's units.
    update_counts: Vec<std::cell::Cell<u8>>,
    /// Per block, the space (`valid_space`'s measure) its pages programmed in part left
    /// erased; empty unless a region takes partial programs.
    #[serde(with = "crate::ftl::table::bulk")]
    erased_space: Vec<u32>,
    /// Pages programmed in part (`partial_program.rs`); empty unless a region takes partial
    /// programs.
    partial_pages: HashMap<PageId, partial_program::PartialPage, FixedState>,
    /// Host reads per unit and per block, when a policy asks (`read_counts.rs`).
    read_counts: read_counts::ReadCounts,
    /// PCM pages with programs in flight, and how many: their units are read from controller
    /// memory until the last completes. (PCM pages are programmed out of order and again in
    /// place, so the in-order `programmed` count does not cover them: it counts a PCM block
    /// whole from its opening.)
    in_place_programs: HashMap<PageId, u32, FixedState>,
    /// Integrity oracle (`verify` runs only).
    pub oracle: Option<verify::Oracle>,
}

impl Pool {
    /// Every plane's pool of every region of a fresh device (in [`Ftl::pool_index`] order), each
    /// with open blocks for `streams` host streams; a page holds `space_per_page` of the space
    /// counted (bytes when units are shaped, slots when not: a raw unit's space is
    /// `unit_space`).
    fn all(
        config: &Config,
        g: &Geometry,
        streams: usize,
        space_per_page: u32,
        unit_space: u64,
    ) -> Vec<Pool> {
        let mut pools = Vec::with_capacity(g.planes() as usize * g.regions.len());
        for plane in 0..g.planes() {
            for (ri, r) in g.regions.iter().enumerate() {
                // A region's pool on a plane of other dies (flash on PCM, PCM on flash) has no
                // block: it is never given data, and never cleaned.
                let blocks = match r.dies.plane_ids().contains(&plane) {
                    true => r.blocks_per_plane,
                    false => 0,
                };
                let free: VecDeque<BlockId> = (r.first_block..r.first_block + blocks)
                    .map(|b| g.block_id(plane, b))
                    .collect();
                pools.push(Pool {
                    plane,
                    region: ri,
                    free,
                    host_active: vec![None; streams],
                    gc_active: None,
                    pages_per_block: r.pages_per_block,
                    // A medium that is never erased (PCM) leaves GC nothing to do.
                    gc_threshold_blocks: match r.medium.erases() && blocks > 0 {
                        true => config.ftl.gc_threshold_blocks(blocks),
                        false => 0,
                    },
                    gc_without_gain: 0,
                    free_slots: Vec::new(),
                    open_slots: None,
                    slots: r.medium.slots(),
                    host_reserved_blocks: match r.medium.erases() {
                        true => config.ftl.gc_reserved_blocks,
                        false => 0,
                    },
                    valid_space: 0,
                    invalid_space: 0,
                    total_space: blocks as u64 * r.pages_per_block as u64 * space_per_page as u64,
                    settled_room: match r.medium.erases() && blocks > 0 {
                        true => {
                            let kept = crate::device::kept_free_blocks(config, blocks);
                            let (room, slack) = plane_data_room(g.units_per_page, r, kept);
                            room.saturating_sub(slack) * unit_space
                        }
                        false => 0,
                    },
                });
            }
        }
        pools
    }
}

impl Ftl {
    /// The FTL of a fresh device whose written units `reduction` shapes, with open pages for
    /// `streams` write streams per region.
    pub fn new(
        config: &Config,
        geometry: Geometry,
        verify: bool,
        streams: usize,
        reduction: &dyn DataReduction,
    ) -> Ftl {
        let g = &geometry;
        let host_units = config.ftl.logical_units(g.physical_units());
        let logical_units = config.ftl.mapped_units(g.physical_units(), g.unit_bytes);
        let space_per_page = if reduction.keeps_shapes() {
            g.page_bytes
        } else {
            g.slots_per_page
        };
        // (A raw unit's space: the room below is counted in raw units.)
        let unit_space = match reduction.keeps_shapes() {
            true => g.unit_bytes as u64,
            false => 1,
        };
        let blocks = vec![
            BlockInfo {
                state: BlockState::Free,
                write_ptr: 0,
                erase_count: 0,
                last_write_ns: 0,
            };
            g.blocks() as usize
        ];
        let pools = Pool::all(config, g, streams, space_per_page, unit_space);
        let slot_codewords = (0..g.slots_per_page)
            .map(|i| codewords_of_bytes(g, i * g.unit_bytes, (i + 1) * g.unit_bytes))
            .collect();
        let oracle =
            verify.then(|| verify::Oracle::new(logical_units, g.total_slots(), g.unit_bytes));
        let mut buffer = WriteBuffer::new(config, g);
        buffer.open_streams(
            g.regions.len() * streams,
            reduction.lanes(),
            reduction.split_rows(),
            reduction.keeps_shapes(),
        );
        Ftl {
            // Zeroed tables cost memory only where touched: a fresh 512 GiB device is cheap.
            l2p: table::zeroed_u32(logical_units as usize),
            p2l: ReverseMap::new(g, reduction.keeps_shapes()),
            programmed: vec![0; blocks.len()],
            valid_space: vec![0; blocks.len()],
            space_per_page,
            blocks,
            pools,
            buffer,
            gc_reserved_blocks: config.ftl.gc_reserved_blocks,
            split_cursor: 0,
            slot_codewords,
            page_slack: match reduction.keeps_shapes() {
                true => {
                    vec![PageSlack::default(); g.blocks() as usize * g.max_pages_per_block as usize]
                }
                false => Vec::new(),
            },
            shapes: if reduction.keeps_shapes() {
                table::zeroed_u64(logical_units as usize)
            } else {
                Vec::new()
            },
            partial_bytes: reduction.partial_unit_bytes(),
            split_parts: HashMap::default(),
            partial_pages: HashMap::default(),
            in_place_programs: HashMap::default(),
            read_counts: read_counts::ReadCounts::default(),
            erased_space: match g.regions.iter().any(|r| r.nop > 1) {
                true => vec![0; g.blocks() as usize],
                false => Vec::new(),
            },
            update_counts: Vec::new(),
            copy_packers: reduction
                .lanes()
                .iter()
                .map(|l| l.packer(g.page_bytes))
                .collect(),
            copy_offsets: Vec::new(),
            copy_fill_units: reduction
                .lanes()
                .iter()
                .map(|l| l.packer(g.page_bytes).fewest_to_fill(g.unit_bytes))
                .collect(),
            oracle,
            logical_units,
            host_units,
            geometry,
        }
    }

    pub fn pool_index(&self, plane: PlaneId, region: usize) -> usize {
        plane as usize * self.geometry.regions.len() + region
    }

    pub fn pool_of_block(&self, block: BlockId) -> usize {
        let g = &self.geometry;
        let (plane, region) = g.plane_and_region(block);
        plane as usize * g.regions.len() + region
    }

    pub fn lookup(&self, lpn: u32) -> Location {
        match self.l2p[lpn as usize] {
            // (A slot, the common answer, first: one comparison.)
            v @ 1..BUFFERED => Location::Flash(v - 1),
            UNMAPPED => Location::Unmapped,
            ZERO_UNIT => Location::Zero,
            v => Location::Buffered(v & !BUFFERED),
        }
    }

    /// Whether units are shaped (`DataReduction::keeps_shapes`), or all stored as written.
    pub fn keeps_shapes(&self) -> bool {
        !self.shapes.is_empty()
    }

    /// How `lpn`, stored in `slot`, is stored: its shape, or (units stored as written) the
    /// slot's place in its page.
    pub fn shape(&self, lpn: u32, slot: SlotId) -> UnitShape {
        match self.shapes.get(lpn as usize) {
            Some(&v) => UnitShape::unpack(v),
            None => {
                let g = &self.geometry;
                UnitShape {
                    offset: g.slot_in_page(slot) * g.unit_bytes,
                    ..UnitShape::raw(g.unit_bytes)
                }
            }
        }
    }

    /// Whether `lpn`, stored on flash, is stored compressed.
    pub fn is_compressed(&self, lpn: u32) -> bool {
        self.shapes
            .get(lpn as usize)
            .is_some_and(|&v| UnitShape::unpack(v).kind == UnitKind::Compressed)
    }

    /// Record that version `version` of `lpn` was written as all zero: nothing is stored.
    pub fn map_zero(&mut self, lpn: u32, version: u32) {
        self.unmap(lpn);
        self.l2p[lpn as usize] = ZERO_UNIT;
        if let Some(o) = &mut self.oracle {
            o.zero_versions.insert(lpn, version);
        }
    }

    /// Whether `lpn` maps to write-buffer entry `e` (else it was overwritten or trimmed while
    /// buffered).
    pub fn holds_buffered(&self, lpn: u32, e: u32) -> bool {
        self.l2p[lpn as usize] == BUFFERED | e
    }

    /// Map `lpn` to write-buffer entry `e`.
    pub fn map_buffered(&mut self, lpn: u32, e: u32) {
        self.l2p[lpn as usize] = BUFFERED | e;
    }

    /// Whether `slot` holds the current copy of its unit: the unit written there still maps to
    /// it. Only written slots (below their block's write pointer) may be asked.
    pub fn slot_is_valid(&self, slot: SlotId) -> bool {
        self.maps_to(self.unit_in_slot(slot), slot)
    }

    /// Whether unit `lpn` (or `NO_LPN`) maps to `slot`: its mapping entry names the slot, or
    /// the slot holds one of its split parts.
    pub fn maps_to(&self, lpn: u32, slot: SlotId) -> bool {
        self.l2p.get(lpn as usize) == Some(&(slot + 1))
            || (!self.split_parts.is_empty() && self.is_split_part(lpn, slot))
    }

    /// The unit written in `slot` (valid or not; `NO_LPN` for padding, and for the slots of a
    /// block of shaped units once none of them is valid: `ReverseMap::release`).
    pub fn unit_in_slot(&self, slot: SlotId) -> u32 {
        self.p2l.unit(&self.geometry, slot)
    }

    /// Is the page's program complete (else its data is still in controller memory)?
    #[inline(always)]
    pub fn page_programmed(&self, page: PageId) -> bool {
        let (block, index) = self.geometry.block_and_index(page);
        index < self.programmed[block as usize]
    }

    /// Drop the current copy of `lpn` (overwrite or trim): a flash slot becomes invalid, a
    /// buffered entry dead.
    #[inline(always)]
    pub fn unmap(&mut self, lpn: u32) {
        self.unmap_from(lpn, self.lookup(lpn));
    }

    /// `unmap` of `lpn`, whose current copy is at `current` (its `lookup`, which a caller that
    /// has it need not repeat).
    #[inline(always)]
    pub fn unmap_from(&mut self, lpn: u32, current: Location) {
        match current {
            Location::Unmapped | Location::Zero => {}
            Location::Buffered(e) => self.buffer.kill(e),
            // (The split table is empty unless the split FTL is on: no lookup then.)
            Location::Flash(slot) => match self.split_parts.is_empty() {
                false => match self.split_parts.remove(&lpn) {
                    Some(parts) => {
                        for p in parts {
                            self.invalidate_slot(p.slot, lpn);
                        }
                    }
                    None => self.invalidate_slot(slot, lpn),
                },
                true => self.invalidate_slot(slot, lpn),
            },
        }
        self.l2p[lpn as usize] = UNMAPPED;
    }

    /// Unit `lpn`, which maps to `slot`, is about to map elsewhere (or nowhere): count the slot
    /// invalid. (Its validity follows from the mapping; only the counts change here.)
    #[inline]
    pub fn invalidate_slot(&mut self, slot: SlotId, lpn: u32) {
        let block = self.geometry.block_of_slot(slot);
        let pool = self.pool_of_block(block);
        // Under the oracle, also check the slot holds the unit (else the unit was mapped to a
        // slot written for another: a corrupted mapping). Other runs skip that load, a miss.
        let foreign = self.oracle.is_some() && self.unit_in_slot(slot) != lpn;
        let (space, split) = match self.keeps_shapes() {
            false => (1, false),
            true => {
                let shape = self.shape_in_slot(lpn, slot);
                (shape.len, shape.kind == UnitKind::Split)
            }
        };
        if foreign || self.valid_space[block as usize] < space {
            return self.corrupted_mapping(slot, lpn, block);
        }
        self.valid_space[block as usize] -= space;
        self.pools[pool].valid_space -= space as u64;
        self.pools[pool].invalid_space += space as u64;
        if !split {
            self.reads_leave(lpn, block);
        }
        if self.pools[pool].rewrites_in_place() {
            // PCM: the slot takes the next unit that goes there.
            self.pools[pool].free_slots.push(slot);
        }
        // The page's last valid unit takes the page's slack with it. (Pages have slack only
        // when units are shaped: no page lookup otherwise.)
        if self.page_slack.is_empty() {
            return;
        }
        if let Some(page) = self
            .page_slack
            .get_mut(self.geometry.page_of_slot(slot) as usize)
        {
            page.live_units -= 1;
            if page.live_units == 0 {
                let slack = page.slack_bytes as u32;
                self.valid_space[block as usize] -= slack;
                self.pools[pool].valid_space -= slack as u64;
                self.pools[pool].invalid_space += slack as u64;
                // A written block whose every unit is stale needs no reverse map: GC finds
                // nothing to copy in it either way. Dropping it keeps the map to the blocks
                // holding data, which the logical space bounds, however long the run.
                if self.valid_space[block as usize] == 0
                    && self.blocks[block as usize].state == BlockState::Full
                    && self
                        .erased_space
                        .get(block as usize)
                        .is_none_or(|&e| e == 0)
                    && !self.pools[pool].rewrites_in_place()
                {
                    self.p2l.release(&self.geometry, block);
                }
            }
        }
    }

    /// `lpn` maps to `slot`, which does not hold it (or whose block counts less valid space
    /// than the unit takes). Only a corrupted mapping gets here; the oracle reports it, other
    /// runs carry on.
    #[cold]
    fn corrupted_mapping(&mut self, slot: SlotId, lpn: u32, block: BlockId) {
        let msg = format!(
            "unit {lpn} maps to slot {slot} (block {block}), which holds unit {} in a block \
             counting {} of valid space",
            self.unit_in_slot(slot),
            self.valid_space[block as usize]
        );
        match &mut self.oracle {
            Some(o) => o.violation(msg),
            None => debug_assert!(false, "{msg}"),
        }
    }

    /// The space (`valid_space`'s measure) the copy of `lpn` in `slot` takes.
    pub fn space_of(&self, lpn: u32, slot: SlotId) -> u32 {
        if !self.keeps_shapes() {
            1
        } else {
            self.shape_in_slot(lpn, slot).len
        }
    }

    /// Count a finished clean of a block of `pool` that programmed `copy_pages` pages of copies.
    /// False once as many cleans in a row as the pool has blocks have each copied as many pages
    /// as they erased: the valid data, as packed, fills the pool, and GC would clean without end
    /// (greedy picks the block that frees the most, so no other victim would free more).
    pub fn gc_finished(&mut self, pool: usize, copy_pages: u32) -> bool {
        let p = &mut self.pools[pool];
        match copy_pages < p.pages_per_block {
            true => p.gc_without_gain = 0,
            false => p.gc_without_gain += 1,
        }
        p.gc_without_gain < self.geometry.regions[p.region].blocks_per_plane
    }

    /// Write streams the write buffer keeps apart in each region: the placement's, once per
    /// host stream slot (`sim/technique/host_streams.rs`).
    pub fn buffer_streams(&self) -> usize {
        self.buffer.open.len() / (self.geometry.regions.len() * self.buffer.lanes())
    }

    /// Count each unit's updates from now on (placement by heat, IPU's intra-page update).
    pub fn keep_update_counts(&mut self) {
        self.update_counts = vec![std::cell::Cell::new(0); self.logical_units as usize];
    }

    /// Whether units' updates are counted.
    pub fn counts_updates(&self) -> bool {
        !self.update_counts.is_empty()
    }

    /// `lpn`'s update count (0 when counts are not kept).
    pub fn update_count(&self, lpn: u32) -> u8 {
        self.update_counts
            .get(lpn as usize)
            .map_or(0, std::cell::Cell::get)
    }

    /// Set `lpn`'s update count (a GC demotion; nothing when counts are not kept).
    pub fn set_update_count(&self, lpn: u32, n: u8) {
        if let Some(c) = self.update_counts.get(lpn as usize) {
            c.set(n);
        }
    }

    /// A host write of `lpn` is about to replace its current copy (if any): count it and return
    /// the unit's updates, this one included (0 for a first write, or when counts are not kept).
    pub fn count_update(&mut self, lpn: u32) -> u8 {
        if self.update_counts.is_empty() {
            return 0;
        }
        let n = match self.lookup(lpn) {
            Location::Unmapped => 0,
            _ => self.update_count(lpn).saturating_add(1),
        };
        self.set_update_count(lpn, n);
        n
    }

    /// Whether GC would gain pages by packing `block`'s valid units anew, though their pages'
    /// slack makes the block look wholly valid (units shaped only). Pages sealed part full (at
    /// a write-buffer timeout) leave most of their bytes unused, and that slack counts as valid
    /// while any unit of the page is (`page_slack`), so a device of such blocks offers GC no
    /// victim and every write waits for ever (the option-space harness, seed 2791). Packed anew
    /// a page holds at least the units an uncompressed page does (a compressed unit is smaller
    /// than a raw one, raw units fill it exactly), and each lane's last page may be padded: the
    /// block gains if that many pages are fewer than it has.
    pub fn worth_repacking(&self, block: BlockId) -> bool {
        let g = &self.geometry;
        let pages = g.regions[g.region_of(block)].pages_per_block;
        let first = g.page_id(block, 0) as usize;
        let live: u32 = (self.page_slack.get(first..first + pages as usize))
            .map_or(0, |p| p.iter().map(|s| s.live_units as u32).sum());
        live.div_ceil(g.units_per_page) + (self.buffer.lanes() as u32) < pages
    }

    /// The bytes `page`'s packing left unused (0 unless units are shaped).
    pub fn slack_of_page(&self, page: PageId) -> u32 {
        self.page_slack
            .get(page as usize)
            .map_or(0, |p| p.slack_bytes as u32)
    }

    /// Can `pool` give `writer` a page without waiting for GC?
    pub fn has_room(&self, pool: usize, writer: Writer) -> bool {
        let p = &self.pools[pool];
        let active = match writer {
            Writer::Host { stream } => p.host_active[stream],
            Writer::Gc => p.gc_active,
        };
        if let Some(b) = active {
            if self.blocks[b as usize].write_ptr < p.pages_per_block {
                return true;
            }
        }
        if p.rewrites_in_place() {
            return self.has_room_for_units(pool, 1);
        }
        match writer {
            Writer::Host { .. } => p.free.len() as u32 > p.host_reserved_blocks,
            Writer::Gc => !p.free.is_empty(),
        }
    }

    /// Take the next page of `writer`'s active block in `pool`, opening a free block if needed.
    /// Host writers never take the last `gc_reserved_blocks` free blocks.
    pub fn alloc_page(&mut self, pool: usize, writer: Writer, now: u64) -> Option<PageId> {
        if !self.has_room(pool, writer) {
            return None;
        }
        let p = &mut self.pools[pool];
        let active = match writer {
            Writer::Host { stream } => &mut p.host_active[stream],
            Writer::Gc => &mut p.gc_active,
        };
        let block = match *active {
            Some(b) if self.blocks[b as usize].write_ptr < p.pages_per_block => b,
            _ => {
                let b = p.free.pop_front()?;
                self.blocks[b as usize].state = BlockState::Open;
                if p.slots == Slots::InPlace {
                    // Counted programmed whole: `in_place_programs` says which pages are in flight.
                    self.programmed[b as usize] = p.pages_per_block;
                }
                *active = Some(b);
                b
            }
        };
        let info = &mut self.blocks[block as usize];
        let page = self.geometry.page_id(block, info.write_ptr);
        // A block's reverse map is cold when it is opened (last written before its erase) and is
        // written a page at a time: load the next cache line's worth of pages ahead.
        if info.write_ptr + P2L_AHEAD_PAGES < p.pages_per_block {
            self.p2l.prefetch(&self.geometry, page + P2L_AHEAD_PAGES);
        }
        info.write_ptr += 1;
        info.last_write_ns = now;
        if info.write_ptr == p.pages_per_block {
            info.state = BlockState::Full;
        }
        Some(page)
    }

    /// Map `units` into consecutive slots of `page`, each stored as its shape says (its offset
    /// in the page given by the packing); every remaining slot is padding. The caller has
    /// already unmapped each unit's old copy.
    pub fn fill_page(&mut self, page: PageId, units: &PageUnits) {
        self.fill(page, units, false);
    }

    /// [`Ftl::fill_page`], in a region whose pages take partial programs: the subpages the
    /// units leave erased stay so for later programs (`partial_program.rs`). Returns the bytes
    /// the program writes.
    pub fn fill_page_in_part(&mut self, page: PageId, units: &PageUnits) -> u32 {
        self.fill(page, units, true);
        self.note_first_program(page, units)
    }

    /// Fill `page` with `units`; `in_part`: keep room in the reverse map for units later
    /// programs write into its other slots.
    fn fill(&mut self, page: PageId, units: &PageUnits, in_part: bool) {
        let block = self.geometry.block_of_page(page);
        let pool = self.pool_of_block(block);
        let mut valid = 0;
        let mut stored = 0u8;
        // Units stored as written (no shapes kept) take a slot each and are never split.
        let shaped = self.keeps_shapes();
        debug_assert!(
            !shaped || units.shapes.len() == units.len(),
            "shapes missing"
        );
        self.p2l.fill(&self.geometry, page, &units.units, in_part);
        for (i, &(lpn, version)) in units.units.iter().enumerate() {
            let slot = self.geometry.slot_id(page, i as u32);
            if lpn == NO_LPN {
                continue;
            }
            let mut split = false;
            if shaped {
                let shape = units.shapes[i];
                let part = match shape.kind {
                    UnitKind::Split => {
                        self.record_split_part(lpn, shape.row as usize, slot, shape.offset);
                        split = true;
                        shape.row
                    }
                    _ => 0,
                };
                // A split unit's entry names its first part.
                if part == 0 {
                    self.l2p[lpn as usize] = slot + 1;
                    self.shapes[lpn as usize] = shape.pack();
                }
                valid += shape.len;
            } else {
                self.l2p[lpn as usize] = slot + 1;
                valid += 1;
            }
            if let Some(o) = &mut self.oracle {
                o.slot_version[slot as usize] = version;
            }
            if !split {
                self.reads_join(lpn, block);
            }
            stored += 1;
        }
        if let Some(slack) = self.page_slack.get_mut(page as usize) {
            // Shaped units: the page's unused bytes count as valid while any unit is.
            *slack = PageSlack {
                slack_bytes: if stored > 0 {
                    self.space_per_page - valid
                } else {
                    0
                } as u16,
                live_units: stored,
            };
            valid += slack.slack_bytes as u32;
        }
        self.valid_space[block as usize] += valid;
        let p = &mut self.pools[pool];
        p.valid_space += valid as u64;
        p.invalid_space += (self.space_per_page - valid) as u64;
        debug_assert!(
            !p.rewrites_in_place(),
            "slots written in place take units alone (fill_slot)"
        );
    }

    /// Rewrite `lpn`, stored in `slot` of a page written in place (PCM), with version
    /// `version`: the mapping stays; the unit is read from controller memory until the program
    /// the caller issues completes ([`Ftl::complete_program`]).
    pub fn rewrite_in_place(&mut self, lpn: u32, slot: SlotId, version: u32) {
        debug_assert!(self.maps_to(lpn, slot));
        *self
            .in_place_programs
            .entry(self.geometry.page_of_slot(slot))
            .or_default() += 1;
        if let Some(o) = &mut self.oracle {
            o.slot_version[slot as usize] = version;
        }
    }

    /// Is `slot` on a page written in place (PCM)?
    pub fn rewritable_in_place(&self, slot: SlotId) -> bool {
        self.pools[self.pool_of_block(self.geometry.block_of_slot(slot))].rewrites_in_place()
    }

    /// A page's program completed.
    pub fn complete_program(&mut self, page: PageId) {
        if !self.in_place_programs.is_empty() {
            if let Some(n) = self.in_place_programs.get_mut(&page) {
                *n -= 1;
                if *n == 0 {
                    self.in_place_programs.remove(&page);
                }
                return;
            }
        }
        let block = self.geometry.block_of_page(page);
        let programmed = &mut self.programmed[block as usize];
        // NAND programs a block's pages in order; `programmed` counts on it.
        debug_assert_eq!(
            self.geometry.page_in_block(page),
            *programmed,
            "block {block} programmed out of order"
        );
        *programmed += 1;
    }

    /// How many units of the stored lengths `lens` (in order) one page of `lane` takes, and
    /// whether that page is then full (the next unit, if any, would not fit).
    /// [`Ftl::copy_shape`] gives how each is stored there (of shaped units).
    pub fn page_prefix(
        &mut self,
        lane: usize,
        lens: impl ExactSizeIterator<Item = u32>,
    ) -> (usize, bool) {
        if !self.keeps_shapes() {
            // Units stored as written are all alike: a page takes a slot's worth of them.
            let spp = self.geometry.slots_per_page as usize;
            return (lens.len().min(spp), lens.len() >= spp);
        }
        let packer = &mut self.copy_packers[lane];
        packer.clear();
        self.copy_offsets.clear();
        for len in lens {
            debug_assert!(
                len <= self.geometry.unit_bytes,
                "`copy_fill_units` counts on it"
            );
            match packer.push(len) {
                Ok(slot) => self.copy_offsets.push(slot.offset),
                Err(_) => return (self.copy_offsets.len(), true),
            }
        }
        (self.copy_offsets.len(), packer.is_full())
    }

    /// GC's copy of the valid unit `lpn` in `slot` of a block of `region`, and the list of
    /// copies it joins (`destination region · lanes + lane`). Copies keep their stored form,
    /// repacked with units of their lane (a compressed unit moves compressed: PR-SSD §4.2.3);
    /// with one lane, units are stored as written, all alike, and no shape is looked up. Only
    /// a region the migration policy evicts from sends units elsewhere (`CopyTo::Migration`,
    /// which may change their update counts), and a job may send every copy to one region
    /// (level-1 GC).
    pub fn gc_copy(
        &self,
        lpn: u32,
        slot: SlotId,
        region: usize,
        to: CopyTo,
        migration: &mut dyn Migration,
        reduction: &dyn DataReduction,
    ) -> (usize, UnitCopy) {
        let lanes = self.buffer.lanes();
        let (shape, lane) = if lanes == 1 {
            (UnitShape::raw(self.geometry.unit_bytes), 0)
        } else {
            let shape = self.shape_in_slot(lpn, slot);
            (shape, reduction.lane_of(shape))
        };
        let dest = match to {
            CopyTo::Region(to) => to,
            CopyTo::Migration => {
                let (dest, updates) = migration.destination(lpn, region, self.update_count(lpn));
                self.set_update_count(lpn, updates);
                dest
            }
            CopyTo::Own => region,
        };
        // A split unit's part moves with its own kind: a medium that stores units as written
        // (PCM, `in_place.rs`) takes whole units.
        let dest = match shape.kind == UnitKind::Split
            && !self.geometry.regions[dest].medium.stores_shaped_units()
        {
            true => region,
            false => dest,
        };
        (dest * lanes + lane, UnitCopy { lpn, slot, shape })
    }

    /// Whether `copies` copies of `lane` may fill a page (else they all fit with room to
    /// spare, and `page_prefix` need not pack them to know).
    pub fn copies_may_fill_page(&self, lane: usize, copies: usize) -> bool {
        copies >= self.copy_fill_units[lane]
    }

    /// How `copy`, the `i`-th copy of the last [`Ftl::page_prefix`] of shaped units, is stored
    /// in its new page: as before, at the offset the packing gave it.
    pub fn copy_shape(&self, i: usize, copy: &UnitCopy) -> UnitShape {
        UnitShape {
            offset: self.copy_offsets[i],
            ..copy.shape
        }
    }

    /// Erase a victim whose units have all moved; it returns to its pool's free list.
    pub fn erase(&mut self, block: BlockId) {
        let pool = self.pool_of_block(block);
        let info = &mut self.blocks[block as usize];
        debug_assert_eq!(self.valid_space[block as usize], 0);
        self.pools[pool].invalid_space -= info.write_ptr as u64 * self.space_per_page as u64;
        info.write_ptr = 0;
        self.programmed[block as usize] = 0;
        info.erase_count += 1;
        info.state = BlockState::Free;
        self.p2l.erase(&self.geometry, block);
        self.forget_partial_pages(block);
        // A writer's active block stays named after it fills (the next page takes a free one);
        // once erased it must no longer be, or the writer would go on in a block that is also
        // on the free list and soon another writer's.
        let p = &mut self.pools[pool];
        for active in p.host_active.iter_mut().chain([&mut p.gc_active]) {
            if *active == Some(block) {
                *active = None;
            }
        }
        p.free.push_back(block);
    }

    /// Full, completely programmed blocks of a pool: what GC may clean.
    pub fn victim_candidates(&self, pool: usize, out: &mut Vec<Candidate>) {
        out.clear();
        let p = &self.pools[pool];
        let g = &self.geometry;
        let r = &g.regions[p.region];
        // Units stored as written are counted against the units a page holds uncompressed.
        let per_page = if !self.keeps_shapes() {
            g.units_per_page
        } else {
            self.space_per_page
        };
        let cap = p.pages_per_block * per_page;
        for i in r.first_block..r.first_block + r.blocks_per_plane {
            let b = g.block_id(p.plane, i);
            let info = &self.blocks[b as usize];
            if info.state == BlockState::Full && self.programmed[b as usize] == p.pages_per_block {
                out.push(Candidate {
                    block: b,
                    valid_space: self.valid_space[b as usize],
                    capacity_space: cap,
                    erased_space: self.erased_space.get(b as usize).copied().unwrap_or(0),
                    last_write_ns: info.last_write_ns,
                    erase_count: info.erase_count,
                });
            }
        }
    }

    /// Bitmap of the slots of `page` holding valid units. (Inline: GC asks it of every victim
    /// page, twice.)
    #[inline(always)]
    pub fn valid_slots(&self, page: PageId) -> u64 {
        // Without a branch: about half the slots of a victim page are valid, at random, so a
        // branch per slot would be mispredicted every other time.
        let g = &self.geometry;
        let mut mask = 0;
        for (i, &lpn) in self.p2l.page(g, page).iter().enumerate() {
            mask |= (self.maps_to(lpn, g.slot_id(page, i as u32)) as u64) << i;
        }
        mask
    }

    /// (slot, unit) of each slot of `page` in the bitmap `slots` (as `valid_slots` gives).
    pub fn units_in_slots(
        &self,
        page: PageId,
        slots: u64,
    ) -> impl Iterator<Item = (SlotId, u32)> + '_ {
        let units = self.p2l.page(&self.geometry, page);
        let mut s = slots;
        std::iter::from_fn(move || {
            if s == 0 {
                return None;
            }
            let i = s.trailing_zeros();
            s &= s - 1;
            Some((
                self.geometry.slot_id(page, i),
                units.get(i as usize).copied().unwrap_or(NO_LPN),
            ))
        })
    }

    /// Start loading what the units written in `page` are looked up by ([`Ftl::prefetch_unit`]),
    /// their mapping entries saying which of its slots are valid (GC and preconditioning look
    /// a victim's pages ahead this way).
    pub fn prefetch_mappings(&self, page: PageId) {
        for &lpn in self.p2l.page(&self.geometry, page) {
            self.prefetch_unit(lpn);
        }
    }

    /// Start loading what a write or a copy of `lpn` reads: its mapping entry, and its update
    /// count where counts are kept (a placement reads it for a write, a migration for a copy).
    /// The tables are far larger than the caches, and the units come at random.
    pub fn prefetch_unit(&self, lpn: u32) {
        table::prefetch(&self.l2p, lpn as usize);
        table::prefetch(&self.update_counts, lpn as usize);
    }

    /// How the copy of `lpn` held in `slot` is stored: its shape, or for a split unit that
    /// part's (its offset, one partial unit long, `row` = its index among the parts).
    pub fn shape_in_slot(&self, lpn: u32, slot: SlotId) -> UnitShape {
        let s = self.shape(lpn, slot);
        if s.kind != UnitKind::Split {
            return s;
        }
        match self.split_part_index(lpn, slot) {
            Some(i) => UnitShape {
                offset: self.split_parts(lpn)[i].offset,
                row: i as u8,
                ..s
            },
            // A part being dropped (its unit's parts are already out of the table).
            None => s,
        }
    }

    /// Whether every page holding `lpn` (stored from `slot`) is programmed, so that a read
    /// goes to flash rather than to controller memory.
    /// (Inline: every host read asks it of every unit; pages programmed in part and split
    /// units take the slower path.)
    #[inline(always)]
    pub fn unit_programmed(&self, lpn: u32, slot: SlotId) -> bool {
        if self.partial_pages.is_empty()
            && self.split_parts.is_empty()
            && self.in_place_programs.is_empty()
        {
            return self.page_programmed(self.geometry.page_of_slot(slot));
        }
        self.unit_programmed_in_parts(lpn, slot)
    }

    /// `unit_programmed` when pages take partial programs or units are split.
    #[inline(never)]
    fn unit_programmed_in_parts(&self, lpn: u32, slot: SlotId) -> bool {
        let g = &self.geometry;
        if !self.partial_pages.is_empty() && self.slot_in_flight(slot) {
            return false;
        }
        if self.in_place_programs.contains_key(&g.page_of_slot(slot)) {
            return false;
        }
        match self.split_parts.get(&lpn) {
            Some(parts) => parts
                .iter()
                .all(|p| self.page_programmed(g.page_of_slot(p.slot))),
            None => self.page_programmed(g.page_of_slot(slot)),
        }
    }

    /// Call `f(page, codewords)` for each page a read of bytes `lo..hi` of `lpn`, stored from
    /// `slot`, needs, with the codewords holding those bytes (a compressed unit's whole extent;
    /// no call for bytes in zero partial units). A split unit's parts are asked page by page,
    /// in parallel on their channels (§4.3.2); returns how many of its parts share a page with
    /// another part asked (split conflicts: one read serves them, a full one, §4.3.2).
    #[inline(always)]
    pub fn read_pages(
        &self,
        lpn: u32,
        slot: SlotId,
        lo: u32,
        hi: u32,
        mut f: impl FnMut(PageId, u64),
    ) -> u32 {
        let g = &self.geometry;
        if !self.keeps_shapes() {
            // (Units stored as written, inline: every host read asks this of every unit.)
            let i = g.slot_in_page(slot);
            f(
                g.page_of_slot(slot),
                if lo == 0 && hi == g.unit_bytes {
                    self.slot_codewords[i as usize]
                } else {
                    codewords_of_bytes(g, i * g.unit_bytes + lo, i * g.unit_bytes + hi)
                },
            );
            return 0;
        }
        self.read_shaped_pages(lpn, slot, lo, hi, &mut f)
    }

    /// `read_pages` of a shaped unit.
    #[inline(never)]
    fn read_shaped_pages(
        &self,
        lpn: u32,
        slot: SlotId,
        lo: u32,
        hi: u32,
        f: &mut impl FnMut(PageId, u64),
    ) -> u32 {
        let g = &self.geometry;
        let page = g.page_of_slot(slot);
        let shape = self.shape(lpn, slot);
        if shape.kind != UnitKind::Split {
            let mut m = 0;
            shape.page_ranges(lo, hi, self.partial_bytes, |a, b| {
                m |= codewords_of_bytes(g, a, b)
            });
            if m != 0 {
                f(page, m);
            }
            return 0;
        }
        let p = self.partial_bytes;
        let parts = self.split_parts(lpn);
        let stored = !(shape.zero_bitmap as u32);
        let mut units = shape.stored_units_touched(lo, hi, p);
        let mut pages = [PageId::MAX; 16];
        let (mut asked, mut conflicts) = (0, 0);
        while units != 0 {
            let j = units.trailing_zeros();
            units &= units - 1;
            let part = parts[(stored & ((1 << j) - 1)).count_ones() as usize];
            let page = g.page_of_slot(part.slot);
            if pages[..asked].contains(&page) {
                conflicts += 1;
            } else {
                pages[asked] = page;
                asked += 1;
            }
            let (a, b) = (lo.max(j * p) - j * p, hi.min((j + 1) * p) - j * p);
            f(
                page,
                codewords_of_bytes(g, part.offset + a, part.offset + b),
            );
        }
        conflicts
    }

    /// Codewords holding the stored bytes of the units in `slots` (a bitmap of slot indices of
    /// `page`): what GC reads to copy them.
    pub fn codewords_of_slots(&self, page: PageId, slots: u64) -> u64 {
        let mut m = 0;
        let mut s = slots;
        let shaped = self.keeps_shapes();
        while s != 0 {
            let i = s.trailing_zeros();
            s &= s - 1;
            m |= if shaped {
                let slot = self.geometry.slot_id(page, i);
                let shape = self.shape_in_slot(self.unit_in_slot(slot), slot);
                codewords_of_bytes(&self.geometry, shape.offset, shape.offset + shape.len)
            } else {
                self.slot_codewords[i as usize]
            };
        }
        m
    }

    /// Erase-count spread of the pool's blocks: (min, max).
    pub fn erase_spread(&self, pool: usize) -> (u32, u32) {
        let p = &self.pools[pool];
        let g = &self.geometry;
        let r = &g.regions[p.region];
        let mut lo = u32::MAX;
        let mut hi = 0;
        for i in r.first_block..r.first_block + r.blocks_per_plane {
            let e = self.blocks[g.block_id(p.plane, i) as usize].erase_count;
            lo = lo.min(e);
            hi = hi.max(e);
        }
        (lo, hi)
    }
}

/// Codewords of a page holding its bytes `start..end` (`start < end`).
fn codewords_of_bytes(g: &Geometry, start: u32, end: u32) -> u64 {
    let cw = g.codeword_bytes;
    let first = (start / cw).min(64);
    let last = end.div_ceil(cw).min(64);
    (first..last).fold(0u64, |m, c| m | (1 << c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Validity follows the mapping: a slot is valid while its unit maps to it; a padding slot
    /// never is, and the counts follow.
    #[test]
    fn a_slot_is_valid_while_its_unit_maps_to_it() {
        let config = crate::test_support::small(&[]);
        let g = crate::device::geometry(&config);
        let reduction = reduction::build(&config, &g).unwrap();
        let mut ftl = Ftl::new(&config, g, false, 1, reduction.as_ref());
        let g = ftl.geometry.clone();
        let host = Writer::Host { stream: 0 };
        let page = ftl.alloc_page(0, host, 0).unwrap();
        let block = g.block_of_page(page);
        // Units 7 and 9, then padding.
        let unit = UnitShape::raw(g.unit_bytes);
        ftl.fill_page(
            page,
            &[Some((7, 0, unit)), Some((9, 0, unit))]
                .into_iter()
                .collect(),
        );
        let (s7, s9, pad) = (g.slot_id(page, 0), g.slot_id(page, 1), g.slot_id(page, 2));
        assert!(ftl.slot_is_valid(s7) && ftl.slot_is_valid(s9) && !ftl.slot_is_valid(pad));
        assert_eq!(ftl.valid_slots(page), 0b11);
        assert_eq!(ftl.valid_space[block as usize], 2);
        // Overwrite 7 (its new copy elsewhere), trim 9.
        ftl.unmap(7);
        let next = ftl.alloc_page(0, host, 0).unwrap();
        ftl.fill_page(next, &[Some((7, 0, unit))].into_iter().collect());
        ftl.unmap(9);
        assert_eq!(ftl.valid_slots(page), 0);
        assert!(ftl.slot_is_valid(g.slot_id(next, 0)));
        assert_eq!(
            ftl.valid_space[block as usize], 1,
            "7's new copy is in the same block"
        );
        assert_eq!(ftl.pools[0].valid_space, 1);
        // Trimming 7 leaves the block without a valid slot, though every slot still names its
        // unit in the reverse map.
        ftl.unmap(7);
        for p in 0..ftl.blocks[block as usize].write_ptr {
            assert_eq!(ftl.valid_slots(g.page_id(block, p)), 0);
        }
        assert_eq!(ftl.unit_in_slot(s7), 7);
        assert_eq!(ftl.valid_space[block as usize], 0);
        assert_eq!(ftl.pools[0].valid_space, 0);
    }

    /// A written block of shaped units keeps its reverse map while any unit in it is valid, and
    /// gives it up once none is (an open block keeps it: its next pages go on from it).
    #[test]
    fn a_full_block_of_stale_shaped_units_gives_up_its_reverse_map() {
        let config = crate::test_support::small(&[
            "ftl.mapping_unit_kib=16",
            "ftl.max_units_per_page=12",
            "ftl.reduction={policy=\"compress\", codec=\"dpc\"}",
        ]);
        let g = crate::device::geometry(&config);
        let reduction = reduction::build(&config, &g).unwrap();
        let mut ftl = Ftl::new(&config, g, false, 1, reduction.as_ref());
        let g = ftl.geometry.clone();
        let host = Writer::Host { stream: 0 };
        // A unit that failed to compress a page, the first block full and one page beyond.
        let pages = ftl.pools[0].pages_per_block + 1;
        let raw = UnitShape::raw(g.unit_bytes);
        let mut first = None;
        for lpn in 0..pages {
            let page = ftl.alloc_page(0, host, 0).unwrap();
            first.get_or_insert(page);
            ftl.fill_page(page, &[Some((lpn, 0, raw))].into_iter().collect());
        }
        let block = g.block_of_page(first.unwrap());
        assert_eq!(ftl.blocks[block as usize].state, BlockState::Full);
        let held = ftl.p2l.unit_entry_bytes();
        assert!(held >= pages as usize * 4, "{held}");
        // Every unit of the full block but its last stale: the map stays whole.
        for lpn in 0..pages - 2 {
            ftl.unmap(lpn);
        }
        assert_eq!(ftl.p2l.unit_entry_bytes(), held);
        let last = g.slot_id(g.page_id(block, pages - 2), 0);
        assert_eq!(ftl.unit_in_slot(last), pages - 2);
        // Its last: the block's units are dropped; the open block's stale unit is kept.
        ftl.unmap(pages - 2);
        ftl.unmap(pages - 1);
        let open = ftl.p2l.unit_entry_bytes();
        assert!(open > 0 && open < held, "{open} of {held}");
        assert_eq!(ftl.unit_in_slot(last), NO_LPN);
        for p in 0..pages - 1 {
            assert_eq!(ftl.valid_slots(g.page_id(block, p)), 0);
        }
        assert_eq!(ftl.valid_space[block as usize], 0);
    }

    /// GC is stuck once a pool's worth of cleans in a row has freed no page; one that frees a
    /// page starts the count again.
    #[test]
    fn cleans_that_free_no_page_a_pools_worth_of_times_in_a_row_are_stuck() {
        let config = crate::test_support::small(&[]);
        let g = crate::device::geometry(&config);
        let reduction = reduction::build(&config, &g).unwrap();
        let mut ftl = Ftl::new(&config, g, false, 1, reduction.as_ref());
        let pages = ftl.pools[0].pages_per_block;
        let blocks = ftl.geometry.regions[0].blocks_per_plane;
        for _ in 1..blocks {
            assert!(ftl.gc_finished(0, pages));
        }
        assert!(ftl.gc_finished(0, pages - 1), "a gain resets the count");
        for _ in 1..blocks {
            assert!(ftl.gc_finished(0, pages));
        }
        assert!(!ftl.gc_finished(0, pages));
    }

    proptest! {
        /// A codeword is wanted exactly when it overlaps the asked bytes of the slot.
        #[test]
        fn codewords_of_bytes_are_the_overlapping_codewords(
            i in 0u32..4,
            lo in 0u32..4096,
            len in 1u32..4096,
        ) {
            let g = crate::test_support::small_geometry();
            let hi = (lo + len).min(g.unit_bytes);
            prop_assume!(lo < hi);
            let (start, end) = (i * g.unit_bytes + lo, i * g.unit_bytes + hi);
            let m = codewords_of_bytes(&g, start, end);
            for c in 0..g.page_bytes / g.codeword_bytes {
                let (cs, ce) = (c * g.codeword_bytes, (c + 1) * g.codeword_bytes);
                prop_assert_eq!(m >> c & 1 == 1, cs < end && start < ce, "codeword {}", c);
            }
        }
    }
}
