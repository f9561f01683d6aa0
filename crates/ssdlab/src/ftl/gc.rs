//! Garbage collection's rules, one code for both clocks: the timed run (`sim/gc.rs`, whose jobs
//! read, program and erase through the flash scheduler) and preconditioning (`precondition.rs`,
//! which applies each clean at once) ask here which block a pool cleans, where each copy goes and
//! as whom it takes its page, how copies fill a page, and when GC is stuck.

use crate::config::{AllocationConfig, Config};
use crate::flash::{BlockId, Geometry, StripeOrder};

use super::gc_victim::{self, keep_worth_cleaning, Candidate, VictimPolicy};
use super::page_units::PageUnits;
use super::{Ftl, UnitCopy, Writer};

/// The block a pool's GC cleans next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clean {
    /// The victim, with what the policy saw of it.
    pub victim: Candidate,
    /// The victim's copies go to the region's other planes with room (its own plane's valid
    /// data fills it): [`GcRules::copy_destination`].
    pub spills: bool,
}

/// GC's choices: the victim policy, and the order copies to other dies are striped in.
pub struct GcRules {
    pub victim: Box<dyn VictimPolicy>,
    /// Per set of dies, the order copies from other dies are striped in by address: the static
    /// allocation's order, else CWDP.
    copy_stripes: Vec<StripeOrder>,
    /// Scratch (the event loop allocates nothing per clean).
    candidates: Vec<Candidate>,
}

impl GcRules {
    pub fn new(config: &Config, g: &Geometry) -> GcRules {
        let order = match &config.ftl.allocation {
            AllocationConfig::Static { order } => order.as_str(),
            AllocationConfig::Dynamic => "CWDP",
        };
        GcRules {
            victim: gc_victim::build(
                &config.ftl.gc_victim,
                config.seed,
                config.geometry.blocks_per_plane,
            ),
            copy_stripes: (g.die_sets.iter())
                .map(|s| StripeOrder::new(order, s).expect("validated order"))
                .collect(),
            candidates: Vec::new(),
        }
    }

    /// The order units moved onto the set of dies `dies` are striped in by address.
    pub fn stripe(&self, dies: usize) -> &StripeOrder {
        &self.copy_stripes[dies]
    }

    /// The block `pool`'s GC cleans next, or None if it holds nothing worth cleaning. `evicts`:
    /// the migration policy sends the pool's data to another region; `may_spill`: the clean may
    /// send its copies to the region's other planes.
    ///
    /// Cleaning a block with no invalid unit gains nothing (unless its data leaves the region):
    /// the policy is offered only blocks that free space. Where units are shaped, blocks that
    /// look wholly valid by their pages' slack may still gain by repacking
    /// ([`Ftl::worth_repacking`]). And a plane whose valid data, as packed, fills it (writes and
    /// GC copies drift between planes: a static stripe puts a rewrite on another plane than its
    /// old copy, and level 1 and migration move units plane by plane) gains nothing by cleaning
    /// within itself: its victim's copies go to the region's planes with room instead, as a
    /// controller balances its planes; only then, so that a plane with room cleans as it always
    /// has.
    pub fn choose_victim(
        &mut self,
        ftl: &Ftl,
        pool: usize,
        evicts: bool,
        may_spill: bool,
        now: u64,
    ) -> Option<Clean> {
        let candidates = &mut self.candidates;
        ftl.victim_candidates(pool, candidates);
        keep_worth_cleaning(candidates, evicts);
        if candidates.is_empty() && ftl.keeps_shapes() {
            ftl.victim_candidates(pool, candidates);
            candidates.retain(|c| ftl.worth_repacking(c.block));
        }
        let full = candidates.is_empty() || ftl.pools[pool].cleaned_without_gain();
        let spills = full && may_spill && !evicts && ftl.region_has_room_beside(pool);
        if candidates.is_empty() && spills {
            ftl.victim_candidates(pool, candidates);
        }
        if candidates.is_empty() {
            return None;
        }
        let victim = candidates[self.victim.choose(candidates, now)];
        Some(Clean { victim, spills })
    }

    /// Static wear levelling's victim in `pool`, if its erase-count spread exceeds `threshold`:
    /// the least-erased full block, so that its (cold) data moves and the block rejoins the pool.
    pub fn wear_leveling_victim(
        &mut self,
        ftl: &Ftl,
        pool: usize,
        threshold: u32,
    ) -> Option<BlockId> {
        let (lo, hi) = ftl.erase_spread(pool);
        if hi - lo <= threshold {
            return None;
        }
        ftl.victim_candidates(pool, &mut self.candidates);
        let coldest = (self.candidates.iter()).min_by_key(|c| (c.erase_count, c.block))?;
        (coldest.erase_count + threshold < hi).then_some(coldest.block)
    }

    /// The pool a copy to `region`, of unit `lpn` (a page's first), from `pool`'s victim goes
    /// to: the pool of its own plane, or, for a region on other dies (flash to PCM and back),
    /// the plane the unit's address stripes to over those dies (the stripe's `lpn`-th plane),
    /// or the next with room (else the copies wait for it as any do). Striping by address keeps
    /// a request's units, which the flash holds on different channels, apart: taken in the order
    /// they are moved, the units of one block (a block's worth of pages, a whole number of
    /// stripes) would land on the channels their neighbours did. With no PCM page free at all,
    /// copies to PCM stay in flash, as the conventional GC's would. A clean that `spills` sends
    /// its copies likewise to the region's other planes with room.
    #[inline]
    pub fn copy_destination(
        &self,
        ftl: &Ftl,
        pool: usize,
        region: usize,
        lpn: u32,
        spills: bool,
    ) -> usize {
        let plane = ftl.pools[pool].plane;
        let dies = ftl.geometry.regions[region].dies;
        // (The common case, every copy of a clean that keeps to its plane, inlined where GC
        // asks: the rest is kept out of line.)
        if dies.plane_ids().contains(&plane) && !spills {
            return ftl.pool_index(plane, region);
        }
        self.copy_destination_elsewhere(ftl, pool, region, lpn, spills)
    }

    /// [`GcRules::copy_destination`] for a region on other dies, or a clean that spills.
    #[inline(never)]
    fn copy_destination_elsewhere(
        &self,
        ftl: &Ftl,
        pool: usize,
        region: usize,
        lpn: u32,
        spills: bool,
    ) -> usize {
        let plane = ftl.pools[pool].plane;
        let dies = ftl.geometry.regions[region].dies;
        let writer = Writer::Host { stream: 0 };
        let stripe = &self.copy_stripes[dies.index];
        let n = dies.planes() as u64;
        let room_at = (0..n)
            .map(|k| stripe.plane(lpn as u64 + k))
            .find(|&p| match spills {
                true => p != plane && ftl.takes_spill(ftl.pool_index(p, region)),
                false => ftl.has_room(ftl.pool_index(p, region), writer),
            });
        if spills && room_at.is_none() {
            // The other planes filled meanwhile: the copies stay (and may gain nothing).
            return pool;
        }
        match room_at {
            Some(p) => ftl.pool_index(p, region),
            None if ftl.pools[ftl.pool_index(dies.first_plane, region)].rewrites_in_place() => pool,
            None => ftl.pool_index(stripe.plane(lpn as u64), region),
        }
    }
}

/// As whom a copy from `pool`'s victim takes its page in `dest`: within the pool, GC's own
/// block; data evicted into another pool enters it as its host writes do, so it may not take
/// the blocks kept for that pool's own GC, and waits for that GC when it must.
pub fn copy_writer(pool: usize, dest: usize) -> Writer {
    match dest == pool {
        true => Writer::Gc,
        false => Writer::Host { stream: 0 },
    }
}

impl Ftl {
    /// Whether another plane of `pool`'s region can take a page of a victim's copies
    /// ([`Ftl::takes_spill`]; a flash region: PCM is never cleaned).
    pub fn region_has_room_beside(&self, pool: usize) -> bool {
        let p = &self.pools[pool];
        if p.rewrites_in_place() {
            return false;
        }
        (self.geometry.regions[p.region].dies.plane_ids())
            .any(|plane| plane != p.plane && self.takes_spill(self.pool_index(plane, p.region)))
    }

    /// Whether `pool` can take a page of a spilling victim's copies and keep no more valid
    /// data than its share of the room (`Pool::settled_room`): its GC then stays sure to gain,
    /// so it never spills back (two full planes spilled into each other for ever: option-space
    /// seed 1333). A plane over its share never takes a spill, so each moves data from a plane
    /// over its share to one under it, and spilling ends; and as the data fits the region
    /// (validation), while a plane is over its share another is under. (Free blocks above the
    /// GC threshold do not say it: where host writes reach every plane, GC holds each at its
    /// threshold, and a plane filled by dynamic allocation found none to spill into: seed
    /// 54040.)
    pub fn takes_spill(&self, pool: usize) -> bool {
        let p = &self.pools[pool];
        p.valid_space + self.space_per_page as u64 <= p.settled_room
            && self.has_room(pool, Writer::Host { stream: 0 })
    }

    /// Take the copies at the head of `copies` that one page of `lane` holds, in the order they
    /// were read, into `units`, each stored as [`Ftl::copy_shape`] says, leaving its old slot
    /// (counted invalid now, `moved(lpn, slot)` told). Where time passed since the copies were
    /// read (`rewrites`), one the host rewrote (or trimmed) meanwhile is not copied, its place
    /// in the page left empty. None if the copies do not fill a page and `force` is not set
    /// (more may come); else how many copies at the head were taken (`units` may be empty),
    /// which the caller removes. (It keeps its list: preconditioning reads a whole victim at
    /// once, and removing each page's copies from the head of a list of the block would move
    /// the rest every time.)
    pub fn take_copies(
        &mut self,
        copies: &[UnitCopy],
        lane: usize,
        force: bool,
        rewrites: bool,
        units: &mut PageUnits,
        mut moved: impl FnMut(u32, u32),
    ) -> Option<usize> {
        // (Too few copies to fill a page: nothing to program yet, without packing them.)
        if !force && !self.copies_may_fill_page(lane, copies.len()) {
            return None;
        }
        let (n, full) = self.page_prefix(lane, copies.iter().map(|c| c.shape.len));
        if n == 0 || (!full && !force) {
            return None;
        }
        units.clear();
        for (i, c) in copies[..n].iter().enumerate() {
            if rewrites && !self.maps_to(c.lpn, c.slot) {
                continue;
            }
            let version = (self.oracle.as_ref()).map_or(0, |o| o.slot_version[c.slot as usize]);
            self.invalidate_slot(c.slot, c.lpn);
            moved(c.lpn, c.slot);
            let ftl = &*self;
            units.push(c.lpn, version, || ftl.copy_shape(i, c));
        }
        Some(n)
    }

    /// A clean of `pool` that programmed `copy_pages` pages of copies is over: why GC is stuck,
    /// if it is ([`Ftl::gc_finished`]), `remedy` saying what to change.
    pub fn gc_gained(&mut self, pool: usize, copy_pages: u32, remedy: &str) -> Result<(), String> {
        if self.gc_finished(pool, copy_pages) {
            return Ok(());
        }
        Err(format!(
            "GC on plane {} cleaned every block in turn without freeing a page: the valid data, \
             as packed, fills the plane ({remedy})",
            self.pools[pool].plane
        ))
    }
}

impl Ftl {
    /// Move the copy `c` into a slot of its own of `dest` (PCM: `in_place.rs`; the caller checked
    /// [`Ftl::has_room_for_units`]), as [`Ftl::take_copies`] moves copies into a page: None if
    /// the host rewrote or trimmed the unit since it was read; else the page written and the
    /// bytes programmed.
    pub fn take_copy_alone(
        &mut self,
        c: UnitCopy,
        dest: usize,
        now: u64,
        mut moved: impl FnMut(u32, u32),
    ) -> Option<(super::PageId, u64)> {
        if !self.maps_to(c.lpn, c.slot) {
            return None;
        }
        let version = (self.oracle.as_ref()).map_or(0, |o| o.slot_version[c.slot as usize]);
        self.invalidate_slot(c.slot, c.lpn);
        moved(c.lpn, c.slot);
        let slot = self.alloc_slot(dest, now);
        let bytes = self.fill_slot(slot, c.lpn, version);
        Some((self.geometry.page_of_slot(slot), bytes))
    }
}
