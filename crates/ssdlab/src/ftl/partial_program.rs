//! Partial programming: a page of a region whose `nop` is above 1 may be programmed again after
//! its first program, each program filling some of its still-erased slots (subpages), at most
//! `nop` programs between erases (an SLC datasheet's "number of partial programs", typically 4).
//! The FTL remembers, for every page programmed in part, which slots are still erased, how many
//! programs it has had and which slots a program is still writing; a policy
//! ([`PartialProgram`]) names the page a sealed page of few units goes into.

use super::{BlockState, Ftl};
use crate::config::PartialProgramConfig;
use crate::flash::{BlockId, PageId};

/// A page programmed in part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartialPage {
    /// Slots still erased (programmable).
    pub erased: u64,
    /// Programs since the erase.
    pub programs: u8,
    /// Slots a later program is still writing: their units are read from controller memory.
    pub in_flight: u64,
}

impl Ftl {
    /// `page`, just filled (by `fill_page`) with units in its first `used` slots, is in a region
    /// whose pages take partial programs: remember the slots left erased.
    pub fn note_first_program(&mut self, page: PageId, used: u32) {
        let g = &self.geometry;
        if g.regions[g.region_of(g.block_of_page(page))].nop < 2 || used >= g.slots_per_page {
            return;
        }
        let erased = g.all_slots() & !mask_of(used);
        self.erased_slots[g.block_of_page(page) as usize] += erased.count_ones();
        self.partial_pages.insert(
            page,
            PartialPage {
                erased,
                programs: 1,
                in_flight: 0,
            },
        );
    }

    /// Can `page` take `units` more units in one more program?
    ///
    /// Not once its block is a GC (or wear-levelling) victim: the job has fixed which pages it
    /// reads, and may already have read this one, so a unit programmed into it now would be left
    /// behind in a block about to be erased.
    pub fn partial_room(&self, page: PageId, units: u32) -> bool {
        let g = &self.geometry;
        let block = g.block_of_page(page);
        let nop = g.regions[g.region_of(block)].nop;
        self.blocks[block as usize].state != BlockState::Victim
            && self
                .partial_pages
                .get(&page)
                .is_some_and(|p| p.programs < nop && p.erased.count_ones() >= units)
    }

    /// Program `units` (`(lpn, version)`, each unit's old copy already unmapped) into the first
    /// erased slots of `page`, which [`Ftl::partial_room`] said can take them; returns the slots,
    /// whose reads wait for [`Ftl::complete_partial`].
    pub fn fill_erased_slots(&mut self, page: PageId, units: &[(u32, u32)]) -> u64 {
        let g = &self.geometry;
        let block = g.block_of_page(page);
        let pool = self.pool_of_block(block);
        let p = self
            .partial_pages
            .get_mut(&page)
            .expect("a page programmed in part");
        let mut mask = 0;
        for &(lpn, version) in units {
            let i = p.erased.trailing_zeros();
            let slot = g.slot_id(page, i);
            mask |= 1 << i;
            p.erased &= !(1 << i);
            self.p2l.set(slot, lpn);
            self.l2p[lpn as usize] = slot + 1;
            if let Some(o) = &mut self.oracle {
                o.slot_version[slot as usize] = version;
            }
        }
        p.programs += 1;
        p.in_flight |= mask;
        for &(lpn, _) in units {
            self.reads_join(lpn, block);
        }
        // The slots were counted as padding (invalid) when the page was first filled.
        let n = units.len() as u32;
        self.erased_slots[block as usize] -= n;
        self.valid_space[block as usize] += n;
        self.pools[pool].valid_space += n as u64;
        self.pools[pool].invalid_space -= n as u64;
        mask
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
        if let Some(n) = self.erased_slots.get_mut(block as usize) {
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

/// The mask of the first `n` slots.
fn mask_of(n: u32) -> u64 {
    match n {
        0 => 0,
        n => u64::MAX >> (64 - n),
    }
}

/// Which page a sealed page of fewer units than slots goes into.
pub trait PartialProgram: Send {
    /// A page already programmed in part that `units` units of open page `key` go into, or
    /// None for a fresh page.
    fn target(&mut self, ftl: &Ftl, key: usize, units: u32) -> Option<PageId>;
    /// Open page `key`'s units went into fresh `page`.
    fn first_program(&mut self, ftl: &Ftl, key: usize, page: PageId);
    /// The page a host update of `lpn`, whose current copy is in `old_slot`, is programmed into
    /// at once (bypassing the write buffer), or None to buffer it as any write; `updates` counts
    /// the unit's updates, this one included.
    fn update_in_place(&mut self, _ftl: &Ftl, _old_slot: u32, _updates: u8) -> Option<PageId> {
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
    fn target(&mut self, ftl: &Ftl, key: usize, units: u32) -> Option<PageId> {
        let (page, erases) = self.last[key]?;
        let block = ftl.geometry.block_of_page(page);
        (ftl.blocks[block as usize].erase_count == erases && ftl.partial_room(page, units))
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
/// copy sits in a page with an erased slot and programs left is programmed into that same page,
/// next to its old version, provided the old copy is itself an update (it lies in a Monitor or
/// Hot block: techniques.md §3.2, "level(P.block) >= MONITOR"); other writes share pages as
/// [`Share`] does.
pub struct IntraPageUpdate {
    share: Share,
}

impl PartialProgram for IntraPageUpdate {
    fn target(&mut self, ftl: &Ftl, key: usize, units: u32) -> Option<PageId> {
        self.share.target(ftl, key, units)
    }
    fn first_program(&mut self, ftl: &Ftl, key: usize, page: PageId) {
        self.share.first_program(ftl, key, page)
    }
    fn update_in_place(&mut self, ftl: &Ftl, old_slot: u32, updates: u8) -> Option<PageId> {
        let page = ftl.geometry.page_of_slot(old_slot);
        (updates >= 2 && ftl.partial_room(page, 1)).then_some(page)
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
