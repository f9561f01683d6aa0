//! Partial programming: a page of a region whose `nop` is above 1 may be programmed again after
//! its first program, each program writing some of its still-erased subpages, at most `nop`
//! programs between erases (an SLC datasheet's "number of partial programs", typically 4). A
//! subpage is a run of whole codewords, each with its ECC, so it is written by one program: the
//! mapping unit when units are stored as written (IPU's 4 KiB subpages of a 16 KiB page), the
//! partial unit (`ftl.reduction.partial_unit_kib`) when they are shaped. Nothing requires the
//! bytes of a subpage to be one unit as written: compressed units are packed into a program's
//! subpages from the first erased one, as into a fresh page from its start. The FTL remembers,
//! for every page programmed in part, which subpages are still erased, its next free slot (a
//! mapping entry of the page), how many programs it has had and which slots a program is still
//! writing; a policy ([`PartialProgram`]) names the page a sealed page of few units goes into.

use super::page_units::PageUnits;
use super::shape::UnitShape;
use super::{BlockState, Ftl};
use crate::config::PartialProgramConfig;
use crate::flash::{BlockId, PageId};

/// A page programmed in part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PartialPage {
    /// Subpages still erased (programmable): always the page's last ones.
    pub erased: u64,
    /// The first slot no program has written (units stored as written: the first erased
    /// subpage's).
    pub next_slot: u8,
    /// Programs since the erase.
    pub programs: u8,
    /// Slots a later program is still writing: their units are read from controller memory.
    pub in_flight: u64,
}

/// The slots and bytes one program of a page in part wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialWrite {
    pub slots: u64,
    pub bytes: u64,
}

impl Ftl {
    /// Subpages of `bytes` from a page's start (or from a subpage boundary).
    pub fn subpages_of(&self, bytes: u32) -> u32 {
        bytes.div_ceil(self.partial_bytes)
    }

    /// The bytes the live `units` of a sealed page take in a later program of a page in part,
    /// from a subpage boundary: the end of the last one as packed, or a unit each.
    pub fn live_bytes(&self, units: &PageUnits) -> u32 {
        match self.keeps_shapes() {
            true => (units.live_shaped())
                .map(|(_, _, s)| s.offset + s.len)
                .max()
                .unwrap_or(0),
            false => units.live().count() as u32 * self.geometry.unit_bytes,
        }
    }

    /// `page`, just filled (by `fill_page`) with `units`, is in a region whose pages take
    /// partial programs: remember the subpages left erased (counted as padding, invalid, until
    /// written) and return the bytes the program writes (the page's, when none is left).
    pub fn note_first_program(&mut self, page: PageId, units: &PageUnits) -> u32 {
        let used = units.len() as u32;
        let bytes = match self.keeps_shapes() {
            true => units.packed_end(),
            false => used * self.geometry.unit_bytes,
        };
        let g = &self.geometry;
        let block = g.block_of_page(page);
        let subpages = g.page_bytes / self.partial_bytes;
        let written = self.subpages_of(bytes);
        if g.regions[g.region_of(block)].nop < 2 || used >= g.slots_per_page || written >= subpages
        {
            return g.page_bytes;
        }
        let erased = mask_of(subpages) & !mask_of(written);
        let space = self.erased_space_of(erased);
        if let Some(slack) = self.page_slack.get_mut(page as usize) {
            // Shaped units: the erased bytes are not the packing's slack, which counts as valid
            // while a unit of the page is.
            if slack.live_units > 0 {
                slack.slack_bytes -= space as u16;
                let pool = self.pool_of_block(block);
                self.valid_space[block as usize] -= space;
                self.pools[pool].valid_space -= space as u64;
                self.pools[pool].invalid_space += space as u64;
            }
        }
        self.erased_space[block as usize] += space;
        self.partial_pages.insert(
            page,
            PartialPage {
                erased,
                next_slot: used as u8,
                programs: 1,
                in_flight: 0,
            },
        );
        written * self.partial_bytes
    }

    /// Erased subpages `mask`, in [`Ftl::space_per_page`] measure: a slot each when units are
    /// stored as written (a subpage is a unit), their bytes when shaped.
    fn erased_space_of(&self, mask: u64) -> u32 {
        match self.keeps_shapes() {
            true => mask.count_ones() * self.partial_bytes,
            false => mask.count_ones(),
        }
    }

    /// Can `page` take `slots` more units, `bytes` of them from a subpage boundary, in one more
    /// program?
    ///
    /// Not once its block is a GC (or wear-levelling) victim: the job has fixed which pages it
    /// reads, and may already have read this one, so a unit programmed into it now would be left
    /// behind in a block about to be erased.
    pub fn partial_room(&self, page: PageId, slots: u32, bytes: u32) -> bool {
        let g = &self.geometry;
        let block = g.block_of_page(page);
        let nop = g.regions[g.region_of(block)].nop;
        self.blocks[block as usize].state != BlockState::Victim
            && self.partial_pages.get(&page).is_some_and(|p| {
                p.programs < nop
                    && p.erased.count_ones() >= self.subpages_of(bytes)
                    && p.next_slot as u32 + slots <= g.slots_per_page
            })
    }

    /// Program the live `units` (each unit's old copy already unmapped; shaped: offsets as
    /// packed from a page's start) into `page`'s next slots and first erased subpages, which
    /// [`Ftl::partial_room`] said can take them; returns the slots, whose reads wait for
    /// [`Ftl::complete_partial`], and the bytes programmed.
    pub fn fill_erased_slots(&mut self, page: PageId, units: &PageUnits) -> PartialWrite {
        let g = &self.geometry;
        let block = g.block_of_page(page);
        let pool = self.pool_of_block(block);
        let shaped = self.keeps_shapes();
        let p = *self
            .partial_pages
            .get(&page)
            .expect("a page programmed in part");
        let base = p.erased.trailing_zeros() * self.partial_bytes;
        let written = p.erased
            & mask_of(p.erased.trailing_zeros() + self.subpages_of(self.live_bytes(units)));
        let live = units.live_shaped();
        let mut slots = 0;
        let mut valid = 0;
        let mut n = 0;
        for (lpn, version, shape) in live {
            let index = p.next_slot as u32 + n;
            n += 1;
            let slot = self.geometry.slot_id(page, index);
            slots |= 1 << index;
            self.p2l.set(&self.geometry, slot, lpn);
            self.l2p[lpn as usize] = slot + 1;
            if shaped {
                let shape = UnitShape {
                    offset: base + shape.offset,
                    ..shape
                };
                self.shapes[lpn as usize] = shape.pack();
                valid += shape.len;
            } else {
                valid += 1;
            }
            if let Some(o) = &mut self.oracle {
                o.slot_version[slot as usize] = version;
            }
            self.reads_join(lpn, block);
        }
        let space = self.erased_space_of(written);
        if let Some(slack) = self.page_slack.get_mut(page as usize) {
            // The subpages' bytes the units leave unused are the page's slack while a unit of
            // it is valid (a page whose units had all left counted its old slack invalid then).
            if slack.live_units == 0 {
                slack.slack_bytes = 0;
            }
            slack.slack_bytes += (space - valid) as u16;
            slack.live_units += n as u8;
            valid = space;
        }
        let p = self.partial_pages.get_mut(&page).expect("checked above");
        p.erased &= !written;
        p.next_slot += n as u8;
        p.programs += 1;
        p.in_flight |= slots;
        // The subpages were counted as padding (invalid) when the page was first filled.
        self.erased_space[block as usize] -= space;
        self.valid_space[block as usize] += valid;
        self.pools[pool].valid_space += valid as u64;
        self.pools[pool].invalid_space -= valid as u64;
        PartialWrite {
            slots,
            bytes: (written.count_ones() * self.partial_bytes) as u64,
        }
    }

    /// The program of slots `mask` of `page` completed.
    pub fn complete_partial(&mut self, page: PageId, mask: u64) {
        let g = &self.geometry;
        let nop = g.regions[g.region_of(g.block_of_page(page))].nop;
        if let Some(p) = self.partial_pages.get_mut(&page) {
            p.in_flight &= !mask;
            // A page that can take no more programs is no longer tracked once written.
            if p.in_flight == 0 && (p.erased == 0 || p.programs >= nop) {
                self.partial_pages.remove(&page);
            }
        }
    }

    /// Is a later program of `slot`'s page still writing it?
    pub(super) fn slot_in_flight(&self, slot: u32) -> bool {
        let g = &self.geometry;
        self.partial_pages
            .get(&g.page_of_slot(slot))
            .is_some_and(|p| p.in_flight & (1 << g.slot_in_page(slot)) != 0)
    }

    /// `page`'s partial-program state, if it has been programmed in part.
    pub fn partial_page(&self, page: PageId) -> Option<PartialPage> {
        self.partial_pages.get(&page).copied()
    }

    /// Forget the pages of an erased block.
    pub(super) fn forget_partial_pages(&mut self, block: BlockId) {
        if let Some(n) = self.erased_space.get_mut(block as usize) {
            *n = 0;
        }
        if self.partial_pages.is_empty() {
            return;
        }
        let g = &self.geometry;
        for i in 0..g.max_pages_per_block {
            self.partial_pages.remove(&g.page_id(block, i));
        }
    }
}

/// The mask of the first `n` slots (or subpages).
fn mask_of(n: u32) -> u64 {
    match n {
        0 => 0,
        n => u64::MAX >> (64 - n),
    }
}

/// Which page a sealed page of fewer units than slots goes into.
pub trait PartialProgram: Send {
    /// A page already programmed in part that `units` units of open page `key`, taking
    /// `bytes` as packed, go into, or None for a fresh page.
    fn target(&mut self, ftl: &Ftl, key: usize, units: u32, bytes: u32) -> Option<PageId>;
    /// Open page `key`'s units went into fresh `page`.
    fn first_program(&mut self, ftl: &Ftl, key: usize, page: PageId);
    /// The page a host update of `lpn`, whose current copy is in `old_slot`, is programmed into
    /// at once (bypassing the write buffer), or None to buffer it as any write; `updates` counts
    /// the unit's updates, this one included, and `bytes` what it stores.
    fn update_in_place(
        &mut self,
        _ftl: &Ftl,
        _old_slot: u32,
        _updates: u8,
        _bytes: u32,
    ) -> Option<PageId> {
        None
    }
    /// Does the policy need the FTL to count each unit's updates?
    fn counts_updates(&self) -> bool {
        false
    }
    /// MGA's subpage merging: the most physical pages a logical page may be spread over
    /// before a write merges it back into one (None: no merging).
    fn merge_threshold_pages(&self) -> Option<u32> {
        None
    }
}

/// MGA's sharing (Feng et al., DATE 2017): a writer fills the erased slots of the last page it
/// programmed in part, so units of different logical pages share a physical page.
pub struct Share {
    /// Per open-page key, the last page it programmed in part and its block's erase count then
    /// (the page is stale once its block has been erased).
    last: Vec<Option<(PageId, u32)>>,
    merge_threshold_pages: Option<u32>,
}

impl PartialProgram for Share {
    fn target(&mut self, ftl: &Ftl, key: usize, units: u32, bytes: u32) -> Option<PageId> {
        let (page, erases) = self.last[key]?;
        let block = ftl.geometry.block_of_page(page);
        (ftl.blocks[block as usize].erase_count == erases && ftl.partial_room(page, units, bytes))
            .then_some(page)
    }
    fn first_program(&mut self, ftl: &Ftl, key: usize, page: PageId) {
        let block = ftl.geometry.block_of_page(page);
        self.last[key] = ftl
            .partial_page(page)
            .map(|_| (page, ftl.blocks[block as usize].erase_count));
    }
    fn merge_threshold_pages(&self) -> Option<u32> {
        self.merge_threshold_pages
    }
}

/// IPU's intra-page update (Li et al., ICPP 2021, Design 1/3): an update of a unit whose old
/// copy sits in a page with erased subpages enough and programs left is programmed into that same page,
/// next to its old version, provided the old copy is itself an update (it lies in a Monitor or
/// Hot block: techniques.md §3.2, "level(P.block) >= MONITOR"); other writes share pages as
/// [`Share`] does.
pub struct IntraPageUpdate {
    share: Share,
}

impl PartialProgram for IntraPageUpdate {
    fn target(&mut self, ftl: &Ftl, key: usize, units: u32, bytes: u32) -> Option<PageId> {
        self.share.target(ftl, key, units, bytes)
    }
    fn first_program(&mut self, ftl: &Ftl, key: usize, page: PageId) {
        self.share.first_program(ftl, key, page)
    }
    fn update_in_place(
        &mut self,
        ftl: &Ftl,
        old_slot: u32,
        updates: u8,
        bytes: u32,
    ) -> Option<PageId> {
        let page = ftl.geometry.page_of_slot(old_slot);
        (updates >= 2 && ftl.partial_room(page, 1, bytes)).then_some(page)
    }
    fn counts_updates(&self) -> bool {
        true
    }
}

/// The policy `config` names, for `keys` open pages; None when pages are programmed whole.
pub fn build(config: &PartialProgramConfig, keys: usize) -> Option<Box<dyn PartialProgram>> {
    let share = |merge: u32| Share {
        last: vec![None; keys],
        merge_threshold_pages: (merge > 0).then_some(merge),
    };
    match config {
        PartialProgramConfig::None => None,
        PartialProgramConfig::Share {
            merge_threshold_pages,
        } => Some(Box::new(share(*merge_threshold_pages))),
        PartialProgramConfig::IntraPageUpdate => {
            Some(Box::new(IntraPageUpdate { share: share(0) }))
        }
    }
}
