//! Physical address arithmetic. Every resource has a dense integer id:
//! die = (channel · ways + way) · dies + die, plane = die · planes + plane,
//! block = plane · blocks_per_plane + block, page = block · max_pages_per_block + page,
//! slot = page · slots_per_page + slot (a slot holds one mapping unit).
//!
//! PCM devices (ROSA), when the device has them, are dies numbered after every flash die
//! (die = flash dies + channel · PCM dies + die) with the flash dies' planes, pages and page
//! size. Every plane numbers its flash blocks first, then PCM's, so that a block's region is
//! still a lookup by its index in the plane: a flash plane's PCM block ids, and a PCM plane's
//! flash block ids, name nothing (no region lists them).

use strength_reduce::{StrengthReducedU32, StrengthReducedU64};

use super::medium::Medium;
use crate::nand::{CellMode, ProgramOrder};

pub type DieId = u32;
pub type PlaneId = u32;
pub type BlockId = u32;
pub type PageId = u32;
pub type SlotId = u32;

/// What a geometry is built from, in the flash model's own terms (`device::geometry` reads them
/// from a validated config).
#[derive(Clone, Debug)]
pub struct GeometryParams {
    pub channels: u32,
    pub ways_per_channel: u32,
    pub dies_per_way: u32,
    pub planes_per_die: u32,
    /// Flash blocks per plane (PCM's are numbered after them).
    pub blocks_per_plane: u32,
    /// Pages per block in the dies' native cell mode.
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub codeword_bytes: u32,
    /// The mapping unit.
    pub unit_bytes: u32,
    /// Slots a page holds (None: one per mapping unit of an uncompressed page).
    pub slots_per_page: Option<u32>,
    /// The dies' native cell mode.
    pub cell_mode: CellMode,
    pub program_order: ProgramOrder,
    /// The regions of flash blocks, in block order from the first of each plane, tiling it.
    pub regions: Vec<RegionParams>,
    /// PCM devices on every channel, if the device has them: their blocks are one region.
    pub pcm: Option<PcmParams>,
}

/// A region of flash blocks in every plane.
#[derive(Clone, Debug)]
pub struct RegionParams {
    pub name: String,
    pub cell_mode: CellMode,
    pub blocks_per_plane: u32,
    /// Programs a page may take between erases.
    pub nop: u8,
}

/// The PCM devices beside the flash dies (their planes and pages are the flash dies').
#[derive(Clone, Debug)]
pub struct PcmParams {
    /// The name of the region their blocks form.
    pub region: String,
    pub dies_per_channel: u32,
    pub blocks_per_plane: u32,
}

/// A group of blocks in every plane of one set of dies, of one medium.
#[derive(Clone, Debug)]
pub struct Region {
    pub name: String,
    pub medium: Medium,
    /// The dies the region's blocks are on.
    pub dies: DieSet,
    /// First block (within a plane) of the region and its block count per plane.
    pub first_block: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    /// Page type (0 = LSB/SLC, 1 = CSB or MLC MSB, 2 = MSB) of each page index, from the program order.
    pub page_types: Vec<u8>,
    /// The wordlines of a block under the program order: which pages share one.
    pub wordlines: Wordlines,
    /// Programs a page may take between erases (partial programming when above 1).
    pub nop: u8,
}

/// Die sets a device has at most: the flash dies, and those of one medium beside them.
pub const MAX_DIE_SETS: usize = 2;

/// Dies of one medium, with their planes (the flash dies, or the PCM devices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DieSet {
    /// Index of the set: 0 the flash dies, 1 those of the medium beside them.
    pub index: usize,
    /// What the set's dies are (the flash set's: its native cell mode); what their operations
    /// cost in energy ([`Medium::energy`]).
    pub medium: Medium,
    pub first_plane: PlaneId,
    pub channels: u32,
    pub ways: u32,
    pub dies_per_way: u32,
    pub planes_per_die: u32,
}

impl DieSet {
    pub fn planes(&self) -> u32 {
        self.channels * self.ways * self.dies_per_way * self.planes_per_die
    }
    /// The set's planes as dense plane ids.
    pub fn plane_ids(&self) -> std::ops::Range<PlaneId> {
        self.first_plane..self.first_plane + self.planes()
    }
}

/// What a command on one page needs to know of its address, decoded with three divisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageAddr {
    pub block: BlockId,
    pub page_in_block: u32,
    pub die: DieId,
    pub plane_in_die: u32,
    pub region: usize,
    /// Page type (0 = LSB/SLC, 1 = CSB or MLC MSB, 2 = MSB).
    pub page_type: u8,
}

/// `Default`: an empty device, the placeholder a device snapshot's FTL holds until the config's
/// geometry is put back (`sim/snapshot.rs`).
#[derive(Clone, Debug, Default)]
pub struct Geometry {
    pub channels: u32,
    pub ways: u32,
    pub dies_per_way: u32,
    pub planes_per_die: u32,
    /// Block ids per plane: the flash blocks of a plane, then PCM's (if any).
    pub blocks_per_plane: u32,
    /// The flash dies, and PCM's (if the device has PCM).
    pub die_sets: Vec<DieSet>,
    /// The first die of the second die set (`DieId::MAX` with one): every die from it on is
    /// that set's (a device has at most [`MAX_DIE_SETS`]).
    second_set_first_die: DieId,
    /// Whether some region's medium rewrites its slots in place.
    in_place_anywhere: bool,
    /// Pages per block in the native cell mode (the largest any region has).
    pub max_pages_per_block: u32,
    pub page_bytes: u32,
    pub codeword_bytes: u32,
    pub unit_bytes: u32,
    /// Mapping units a page holds uncompressed.
    pub units_per_page: u32,
    /// Slots (mapping-unit places) per page; ≥ `units_per_page` when data reduction packs more.
    pub slots_per_page: u32,
    pub regions: Vec<Region>,
    /// Region of each block index within a plane.
    pub region_of_block: Vec<u8>,
    /// The divisors of address decoding as multiply-and-shift: every host unit and flash command
    /// decodes several addresses, and a hardware division takes tens of cycles.
    div: Divisors,
}

#[derive(Clone, Copy, Debug)]
struct Divisors {
    planes_per_die: StrengthReducedU32,
    blocks_per_plane: StrengthReducedU32,
    pages_per_block: StrengthReducedU32,
    slots_per_page: StrengthReducedU32,
    slots_per_block: StrengthReducedU32,
    /// Mapping-unit size: host byte addresses become units (every request).
    unit_bytes: StrengthReducedU64,
}

impl Default for Divisors {
    fn default() -> Divisors {
        Divisors::new(1, 1, 1, 1, 1)
    }
}

impl Divisors {
    fn new(
        planes_per_die: u32,
        blocks_per_plane: u32,
        pages_per_block: u32,
        slots: u32,
        unit_bytes: u32,
    ) -> Self {
        Divisors {
            unit_bytes: StrengthReducedU64::new(unit_bytes as u64),
            planes_per_die: StrengthReducedU32::new(planes_per_die),
            blocks_per_plane: StrengthReducedU32::new(blocks_per_plane),
            pages_per_block: StrengthReducedU32::new(pages_per_block),
            slots_per_page: StrengthReducedU32::new(slots),
            slots_per_block: StrengthReducedU32::new(pages_per_block * slots),
        }
    }
}

impl Geometry {
    /// Build from parameters that have passed the config's validation.
    pub fn new(g: &GeometryParams) -> Geometry {
        let unit_bytes = g.unit_bytes;
        let page_bytes = g.page_bytes;
        let units_per_page = page_bytes / unit_bytes.max(1);
        let slots_per_page = g.slots_per_page.unwrap_or(units_per_page);
        let flash = DieSet {
            index: 0,
            medium: Medium::Flash(g.cell_mode),
            first_plane: 0,
            channels: g.channels,
            ways: g.ways_per_channel,
            dies_per_way: g.dies_per_way,
            planes_per_die: g.planes_per_die,
        };
        let mut die_sets = vec![flash];
        if let Some(pcm) = &g.pcm {
            die_sets.push(DieSet {
                index: 1,
                medium: Medium::Pcm,
                first_plane: flash.planes(),
                ways: 1,
                dies_per_way: pcm.dies_per_channel,
                ..flash
            });
        }
        let native_bits = g.cell_mode.bits_per_cell();
        let wordlines = g.pages_per_block / native_bits;
        let mut regions = Vec::new();
        let mut first = 0;
        for r in &g.regions {
            let types = page_types(r.cell_mode, wordlines, g.program_order);
            regions.push(Region {
                name: r.name.clone(),
                medium: Medium::Flash(r.cell_mode),
                dies: flash,
                first_block: first,
                blocks_per_plane: r.blocks_per_plane,
                pages_per_block: wordlines * r.cell_mode.bits_per_cell(),
                wordlines: Wordlines::new(&types),
                page_types: types,
                nop: r.nop,
            });
            first += r.blocks_per_plane;
        }
        let pcm_blocks = g.pcm.as_ref().map_or(0, |p| p.blocks_per_plane);
        if let Some(pcm) = &g.pcm {
            // One page type, written whole or in place: no partial programs.
            regions.push(Region {
                name: pcm.region.clone(),
                medium: Medium::Pcm,
                dies: die_sets[1],
                first_block: g.blocks_per_plane,
                blocks_per_plane: pcm_blocks,
                pages_per_block: g.pages_per_block,
                page_types: vec![0; g.pages_per_block as usize],
                wordlines: Wordlines::new(&vec![0; g.pages_per_block as usize]),
                nop: 1,
            });
        }
        let blocks_per_plane = g.blocks_per_plane + pcm_blocks;
        let mut region_of_block = vec![0u8; blocks_per_plane as usize];
        for (i, r) in regions.iter().enumerate() {
            for b in r.first_block..(r.first_block + r.blocks_per_plane).min(blocks_per_plane) {
                region_of_block[b as usize] = i as u8;
            }
        }
        Geometry {
            div: Divisors::new(
                g.planes_per_die,
                blocks_per_plane,
                g.pages_per_block,
                slots_per_page,
                unit_bytes,
            ),
            channels: g.channels,
            ways: g.ways_per_channel,
            dies_per_way: g.dies_per_way,
            planes_per_die: g.planes_per_die,
            blocks_per_plane,
            second_set_first_die: die_sets
                .get(1)
                .map_or(DieId::MAX, |s| s.first_plane / s.planes_per_die),
            in_place_anywhere: regions.iter().any(|r| r.medium.rewrites_in_place()),
            die_sets,
            max_pages_per_block: g.pages_per_block,
            page_bytes,
            codeword_bytes: g.codeword_bytes,
            unit_bytes,
            units_per_page,
            slots_per_page,
            regions,
            region_of_block,
        }
    }

    /// The set of dies `die` is one of (its medium: [`DieSet::medium`]).
    #[inline]
    pub fn die_set_of(&self, die: DieId) -> usize {
        usize::from(die >= self.second_set_first_die)
    }

    /// Whether some region's medium rewrites its slots in place (only then may a unit's slot
    /// be one).
    #[inline]
    pub fn rewrites_in_place_anywhere(&self) -> bool {
        self.in_place_anywhere
    }

    /// Dies of every medium.
    pub fn dies(&self) -> u32 {
        self.planes() / self.planes_per_die
    }
    pub fn planes(&self) -> u32 {
        self.die_sets.iter().map(DieSet::planes).sum()
    }
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    pub fn slots_per_block(&self) -> u32 {
        self.max_pages_per_block * self.slots_per_page
    }
    pub fn total_slots(&self) -> u64 {
        self.blocks() as u64 * self.slots_per_block() as u64
    }
    /// Mapping units the device can store with no data reduction (all regions, all planes).
    /// The regions' names, in order (the config resolves names to these indices).
    pub fn region_names(&self) -> Vec<&str> {
        self.regions.iter().map(|r| r.name.as_str()).collect()
    }

    pub fn physical_units(&self) -> u64 {
        self.regions
            .iter()
            .map(|r| r.blocks_per_plane as u64 * r.pages_per_block as u64 * r.dies.planes() as u64)
            .sum::<u64>()
            * self.units_per_page as u64
    }

    /// Raw capacity of every block of every medium, as many pages each as the native mode has.
    pub fn physical_bytes(&self) -> u64 {
        self.regions
            .iter()
            .map(|r| r.blocks_per_plane as u64 * r.dies.planes() as u64)
            .sum::<u64>()
            * self.max_pages_per_block as u64
            * self.page_bytes as u64
    }

    /// Region `r`'s share of the raw capacity (pages of every region alike).
    pub fn capacity_share(&self, r: usize) -> f64 {
        let pages = |r: &Region| {
            r.blocks_per_plane as f64 * r.pages_per_block as f64 * r.dies.planes() as f64
        };
        pages(&self.regions[r]) / self.regions.iter().map(pages).sum::<f64>()
    }

    /// The channel a die is on (each medium's dies are numbered channel by channel).
    pub fn channel_of_die(&self, die: DieId) -> u32 {
        let set = self
            .die_sets
            .iter()
            .rfind(|s| s.first_plane / s.planes_per_die <= die)
            .expect("the flash dies start at 0");
        (die - set.first_plane / set.planes_per_die) / (set.ways * set.dies_per_way)
    }
    pub fn die_of_plane(&self, plane: PlaneId) -> DieId {
        plane / self.div.planes_per_die
    }
    /// The die a block is on, and its plane's index within the die.
    pub fn die_and_plane(&self, block: BlockId) -> (DieId, u32) {
        let plane = self.plane_of_block(block);
        StrengthReducedU32::div_rem(plane, self.div.planes_per_die)
    }
    pub fn plane_of_block(&self, block: BlockId) -> PlaneId {
        block / self.div.blocks_per_plane
    }
    pub fn block_in_plane(&self, block: BlockId) -> u32 {
        block % self.div.blocks_per_plane
    }
    pub fn block_id(&self, plane: PlaneId, index: u32) -> BlockId {
        plane * self.blocks_per_plane + index
    }
    pub fn region_of(&self, block: BlockId) -> usize {
        self.region_of_block[self.block_in_plane(block) as usize] as usize
    }
    /// A block's plane and region, with one division (every overwrite asks for its old
    /// block's pool).
    pub fn plane_and_region(&self, block: BlockId) -> (PlaneId, usize) {
        let (plane, index) = StrengthReducedU32::div_rem(block, self.div.blocks_per_plane);
        (plane, self.region_of_block[index as usize] as usize)
    }
    pub fn page_id(&self, block: BlockId, page: u32) -> PageId {
        block * self.max_pages_per_block + page
    }
    pub fn block_of_page(&self, page: PageId) -> BlockId {
        page / self.div.pages_per_block
    }
    pub fn page_in_block(&self, page: PageId) -> u32 {
        page % self.div.pages_per_block
    }
    /// The mapping unit holding host byte `byte`, and the byte's offset in it.
    pub fn unit_of_byte(&self, byte: u64) -> (u64, u64) {
        StrengthReducedU64::div_rem(byte, self.div.unit_bytes)
    }
    /// A page's block and index within it, with one division.
    pub fn block_and_index(&self, page: PageId) -> (BlockId, u32) {
        StrengthReducedU32::div_rem(page, self.div.pages_per_block)
    }
    pub fn slot_id(&self, page: PageId, slot: u32) -> SlotId {
        page * self.slots_per_page + slot
    }
    pub fn page_of_slot(&self, slot: SlotId) -> PageId {
        slot / self.div.slots_per_page
    }
    /// Index of a slot within its page.
    pub fn slot_in_page(&self, slot: SlotId) -> u32 {
        slot % self.div.slots_per_page
    }
    /// Bitmap of every slot index of a page (slots per page are at most 64).
    pub fn all_slots(&self) -> u64 {
        u64::MAX >> (64 - self.slots_per_page)
    }
    pub fn block_of_slot(&self, slot: SlotId) -> BlockId {
        slot / self.div.slots_per_block
    }
    /// Decode a page's address (the same results as the single-purpose functions above).
    pub fn page_addr(&self, page: PageId) -> PageAddr {
        let (block, page_in_block) = StrengthReducedU32::div_rem(page, self.div.pages_per_block);
        let (plane, block_in_plane) = StrengthReducedU32::div_rem(block, self.div.blocks_per_plane);
        let region = self.region_of_block[block_in_plane as usize] as usize;
        let (die, plane_in_die) = StrengthReducedU32::div_rem(plane, self.div.planes_per_die);
        PageAddr {
            block,
            page_in_block,
            die,
            plane_in_die,
            region,
            page_type: self.regions[region].page_types[page_in_block as usize],
        }
    }
    /// Page type index of a page (0 = LSB).
    pub fn page_type(&self, page: PageId) -> u8 {
        let block = self.block_of_page(page);
        self.regions[self.region_of(block)].page_types[self.page_in_block(page) as usize]
    }
}

/// The type of each page index of a block, in program order (techniques.md §0.3).
pub fn page_types(mode: CellMode, wordlines: u32, order: ProgramOrder) -> Vec<u8> {
    let bits = mode.bits_per_cell();
    let pages = wordlines * bits;
    if bits == 1 {
        return vec![0; pages as usize];
    }
    match order {
        ProgramOrder::OneShot => (0..pages).map(|p| (p % bits) as u8).collect(),
        ProgramOrder::Shadow => {
            // Step k programs level j of wordline k − j, for every level whose wordline exists:
            // TLC L0 | L1 C0 | L2 C1 M0 | L3 C2 M1 | … | C(n−1) M(n−2) | M(n−1).
            let mut types = Vec::with_capacity(pages as usize);
            for k in 0..(wordlines + bits - 1) {
                for level in 0..bits {
                    if k >= level && k - level < wordlines {
                        types.push(level as u8);
                    }
                }
            }
            types
        }
        ProgramOrder::Simplessd => (0..pages)
            .map(|p| match p {
                0..=5 => 0,
                6 | 7 => 1,
                _ => (((p - 8) >> 1) % bits) as u8,
            })
            .collect(),
    }
}

/// The wordlines of a block: the pages whose bits one row of cells holds (LSB, CSB, MSB of TLC),
/// as the program order lays them out. The `n`-th page of a level in program order is on
/// wordline `n` (one-shot: L0 C0 M0 L1 …; shadow: step k programs L(k), C(k − 1), M(k − 2);
/// the SimpleSSD order's pairs of pages per level, two strings of one wordline, count as two
/// wordlines). A wordline lacks a level where the order gives that level fewer pages (the
/// SimpleSSD formula on a short block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wordlines {
    /// Wordline of each page index.
    of_page: Vec<u32>,
    /// Each page index's place in wordline order (wordline by wordline, LSB first).
    rank: Vec<u32>,
    /// Page index of each (wordline, level), `levels` per wordline; `u32::MAX` where absent.
    pages: Vec<u32>,
    levels: u32,
}

impl Wordlines {
    /// From the page types of a block in program order.
    pub fn new(page_types: &[u8]) -> Wordlines {
        let levels = page_types.iter().max().map_or(1, |&t| t as u32 + 1);
        let mut next = vec![0u32; levels as usize];
        let mut of_page = Vec::with_capacity(page_types.len());
        for &t in page_types {
            of_page.push(next[t as usize]);
            next[t as usize] += 1;
        }
        let count = next.iter().copied().max().unwrap_or(0);
        let mut pages = vec![u32::MAX; (count * levels) as usize];
        for (p, (&wl, &t)) in of_page.iter().zip(page_types).enumerate() {
            pages[(wl * levels + t as u32) as usize] = p as u32;
        }
        let mut rank = vec![0; page_types.len()];
        for (r, &p) in pages.iter().filter(|&&p| p != u32::MAX).enumerate() {
            rank[p as usize] = r as u32;
        }
        Wordlines {
            of_page,
            rank,
            pages,
            levels,
        }
    }

    /// The wordline page index `page_in_block` is on.
    pub fn of_page(&self, page_in_block: u32) -> u32 {
        self.of_page[page_in_block as usize]
    }

    /// Page index `page_in_block`'s place in wordline order: the pages of earlier wordlines,
    /// then those of its own wordline at lower levels, come before it.
    pub fn rank(&self, page_in_block: u32) -> u32 {
        self.rank[page_in_block as usize]
    }

    /// The page indices on wordline `wordline`, by level (LSB first), those the block has.
    pub fn pages(&self, wordline: u32) -> impl Iterator<Item = u32> + '_ {
        let l = self.levels as usize;
        let start = wordline as usize * l;
        self.pages[start..start + l]
            .iter()
            .copied()
            .filter(|&p| p != u32::MAX)
    }

    /// How many pages wordline `wordline` holds.
    pub fn page_count(&self, wordline: u32) -> u32 {
        self.pages(wordline).count() as u32
    }

    /// Pages a wordline holds at most: the bits of the cells (1 in SLC mode and on PCM).
    pub fn levels(&self) -> u32 {
        self.levels
    }
}

/// Static striping: the plane of the `k`-th page of a write stream, its parallelism levels taken
/// in `order` (a permutation of "CWDP"), the first letter varying fastest (MQSim's arithmetic).
#[derive(Clone, Debug)]
pub struct StripeOrder {
    /// (radix, multiplier into the dense plane id) for each letter, fastest first.
    levels: [(u32, u32); 4],
    /// The first plane of the dies striped over.
    first_plane: PlaneId,
}

impl StripeOrder {
    /// Over the planes of `g` (a set of dies); `order` must be a permutation of C, W, D, P
    /// (checked by config validation).
    pub fn new(order: &str, g: &DieSet) -> Option<StripeOrder> {
        let mut levels = [(0, 0); 4];
        let mut seen = [false; 4];
        if order.len() != 4 {
            return None;
        }
        for (i, c) in order.chars().enumerate() {
            let (slot, radix, mult) = match c.to_ascii_uppercase() {
                'C' => (0, g.channels, g.ways * g.dies_per_way * g.planes_per_die),
                'W' => (1, g.ways, g.dies_per_way * g.planes_per_die),
                'D' => (2, g.dies_per_way, g.planes_per_die),
                'P' => (3, g.planes_per_die, 1),
                _ => return None,
            };
            if seen[slot] {
                return None;
            }
            seen[slot] = true;
            levels[i] = (radix, mult);
        }
        Some(StripeOrder {
            levels,
            first_plane: g.first_plane,
        })
    }

    /// An odometer over the same sequence: `next()` yields `plane(0)`, `plane(1)`, … without
    /// divisions (it is called for every page written).
    pub fn cursor(&self) -> StripeCursor {
        StripeCursor {
            levels: self.levels,
            digits: [0; 4],
            plane: self.first_plane,
        }
    }

    pub fn plane(&self, k: u64) -> PlaneId {
        let mut rest = k;
        let mut plane = self.first_plane as u64;
        for &(radix, mult) in &self.levels {
            plane += (rest % radix as u64) * mult as u64;
            rest /= radix as u64;
        }
        plane as PlaneId
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct StripeCursor {
    levels: [(u32, u32); 4],
    digits: [u32; 4],
    plane: u32,
}

impl StripeCursor {
    /// Whether this cursor (decoded from a device snapshot) is one of `other`'s order: the same
    /// levels, each digit below its radix, at the plane its digits give.
    pub fn fits(&self, other: &StripeCursor) -> bool {
        let offset = |c: &StripeCursor| {
            (c.levels.iter().zip(&c.digits)).fold(0u64, |sum, (&(_, mult), &d)| {
                sum + u64::from(d) * u64::from(mult)
            })
        };
        self.levels == other.levels
            && (self.digits.iter().zip(&self.levels)).all(|(&d, &(radix, _))| d < radix.max(1))
            && u64::from(self.plane) + offset(other) == u64::from(other.plane) + offset(self)
    }

    pub fn next_plane(&mut self) -> PlaneId {
        let current = self.plane;
        for (i, &(radix, mult)) in self.levels.iter().enumerate() {
            self.digits[i] += 1;
            self.plane += mult;
            if self.digits[i] < radix {
                break;
            }
            self.plane -= radix * mult;
            self.digits[i] = 0;
        }
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_addr_agrees_with_the_single_purpose_decoders() {
        // Two regions (SLC then TLC) so the region lookup is exercised too.
        let g = crate::test_support::geometry(&[
            r#"geometry.regions=[{name="slc", cell_mode="slc", blocks_per_plane=16}, {name="main", cell_mode="tlc", blocks_per_plane=0}]"#,
            "timing.slc={tr_ns=20000, tprog_ns=200000, tbers_ns=2000000}",
            "ftl.overprovisioning_ratio=0.95",
        ]);
        for page in 0..g.blocks() * g.max_pages_per_block {
            let block = g.block_of_page(page);
            if g.page_in_block(page) >= g.regions[g.region_of(block)].pages_per_block {
                continue;
            }
            let (die, plane_in_die) = g.die_and_plane(block);
            let want = PageAddr {
                block,
                page_in_block: g.page_in_block(page),
                die,
                plane_in_die,
                region: g.region_of(block),
                page_type: g.page_type(page),
            };
            assert_eq!(g.page_addr(page), want, "page {page}");
            assert_eq!(g.block_and_index(page), (block, g.page_in_block(page)));
            assert_eq!(
                g.plane_and_region(block),
                (g.plane_of_block(block), g.region_of(block))
            );
        }
    }

    #[test]
    fn shadow_order_matches_the_textbook_sequence() {
        // L0 L1 C0 L2 C1 M0 L3 C2 M1 C3 M2 M3 for 4 wordlines.
        let t = page_types(CellMode::Tlc, 4, ProgramOrder::Shadow);
        assert_eq!(t, vec![0, 0, 1, 0, 1, 2, 0, 1, 2, 1, 2, 2]);
        let m = page_types(CellMode::Mlc, 3, ProgramOrder::Shadow);
        assert_eq!(m, vec![0, 0, 1, 0, 1, 1]);
    }

    #[test]
    fn wordlines_follow_the_program_order() {
        // Shadow, 4 wordlines: L0 L1 C0 L2 C1 M0 L3 C2 M1 C3 M2 M3 (page indices 0 … 11).
        let w = Wordlines::new(&page_types(CellMode::Tlc, 4, ProgramOrder::Shadow));
        let of: Vec<u32> = (0..12).map(|p| w.of_page(p)).collect();
        assert_eq!(of, vec![0, 1, 0, 2, 1, 0, 3, 2, 1, 3, 2, 3]);
        assert_eq!(w.pages(0).collect::<Vec<_>>(), vec![0, 2, 5], "L0 C0 M0");
        assert_eq!(w.pages(1).collect::<Vec<_>>(), vec![1, 4, 8]);
        assert_eq!(w.pages(3).collect::<Vec<_>>(), vec![6, 9, 11]);
        assert_eq!(w.levels(), 3);
        // Wordline order: L0 C0 M0 L1 C1 M1 …, the order a stream's pages are laid out in.
        let rank: Vec<u32> = (0..12).map(|p| w.rank(p)).collect();
        assert_eq!(rank, vec![0, 3, 1, 6, 4, 2, 9, 7, 5, 10, 8, 11]);
        // Every page's siblings are on its wordline, and every page on exactly one.
        for p in 0..12 {
            assert!(w.pages(w.of_page(p)).any(|q| q == p));
        }
        // One-shot: three pages in a row per wordline.
        let w = Wordlines::new(&page_types(CellMode::Tlc, 2, ProgramOrder::OneShot));
        assert_eq!(w.pages(1).collect::<Vec<_>>(), vec![3, 4, 5]);
        // MLC shadow: L0 L1 M0 L2 M1 M2.
        let w = Wordlines::new(&page_types(CellMode::Mlc, 3, ProgramOrder::Shadow));
        assert_eq!(w.pages(1).collect::<Vec<_>>(), vec![1, 4]);
        // SLC: a page a wordline. SimpleSSD on 2 wordlines: six LSB pages, no other level.
        let w = Wordlines::new(&page_types(CellMode::Slc, 5, ProgramOrder::Shadow));
        assert_eq!((w.levels(), w.page_count(4)), (1, 1));
        let w = Wordlines::new(&page_types(CellMode::Tlc, 2, ProgramOrder::Simplessd));
        assert_eq!((w.levels(), w.page_count(5)), (1, 1));
        let w = Wordlines::new(&page_types(CellMode::Tlc, 6, ProgramOrder::Simplessd));
        assert_eq!(w.pages(0).collect::<Vec<_>>(), vec![0, 6, 12]);
        // 18 pages: ten LSB, six CSB, two MSB.
        assert_eq!((w.page_count(5), w.page_count(9)), (2, 1));
    }

    #[test]
    fn one_shot_and_simplessd_orders() {
        assert_eq!(
            page_types(CellMode::Tlc, 2, ProgramOrder::OneShot),
            vec![0, 1, 2, 0, 1, 2]
        );
        let s = page_types(CellMode::Tlc, 6, ProgramOrder::Simplessd);
        assert_eq!(&s[..14], &[0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2]);
        assert_eq!(
            page_types(CellMode::Slc, 5, ProgramOrder::Shadow),
            vec![0; 5]
        );
    }

    fn dies(c: u32, w: u32, d: u32, p: u32) -> DieSet {
        DieSet {
            index: 0,
            medium: Medium::Flash(CellMode::Tlc),
            first_plane: 0,
            channels: c,
            ways: w,
            dies_per_way: d,
            planes_per_die: p,
        }
    }

    #[test]
    fn stripe_orders_follow_mqsim_arithmetic() {
        let g = dies(2, 3, 2, 2);
        let cwdp = StripeOrder::new("CWDP", &g).unwrap();
        // k = 0..: channel varies fastest.
        let planes: Vec<_> = (0..4).map(|k| cwdp.plane(k)).collect();
        // plane id = ((ch·W + way)·D + die)·P + pl; ch stride = 3·2·2 = 12.
        assert_eq!(planes, vec![0, 12, 4, 16]);
        let pcwd = StripeOrder::new("PCWD", &g).unwrap();
        assert_eq!(
            (0..3).map(|k| pcwd.plane(k)).collect::<Vec<_>>(),
            vec![0, 1, 12]
        );
        // Every order visits every plane exactly once per period.
        for order in ["CWDP", "PDWC", "WCPD", "DPCW"] {
            let s = StripeOrder::new(order, &g).unwrap();
            let mut seen: Vec<_> = (0..24).map(|k| s.plane(k)).collect();
            seen.sort();
            assert_eq!(seen, (0..24).collect::<Vec<_>>(), "{order}");
        }
        for order in ["CWDP", "PCWD", "DWPC"] {
            let s = StripeOrder::new(order, &g).unwrap();
            let mut c = s.cursor();
            for k in 0..100 {
                assert_eq!(c.next_plane(), s.plane(k), "{order} k={k}");
            }
        }
        assert!(StripeOrder::new("CWDD", &g).is_none());
        assert!(StripeOrder::new("CWD", &g).is_none());
    }
}
