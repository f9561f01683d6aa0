//! Garbage collection and static wear levelling, per pool (one region of one plane). A job reads
//! every page of the victim that holds valid units, a few at a time (`ftl.gc_copy_window_pages`),
//! through the read policy so that only the wanted codewords move when the policy allows; it
//! programs the still-valid units into the pool's GC block (or another region's, if the migration
//! policy says so), and erases the victim once every copy is programmed. Reads, programs and the
//! erase take die and bus time like host commands.

use crate::flash::{FlashOp, OpKind, OpSource};
use crate::ftl::gc_victim::keep_worth_cleaning;
use crate::ftl::{BlockState, CopyTo, Writer};

use super::{ProgramRecord, Simulation};

/// How many pages ahead of its reads a GC job loads the victim's reverse map, and the mapping
/// entries of the units it names (a slot is valid if its unit still maps to it, so those are
/// what tells which units to copy).
///
/// Short on purpose. Every plane runs its own job, and in a steady state most run at once
/// (about 70 of 128 on average in the steady benchmark), taking turns: between two reads of one
/// job the engine handles hundreds of other events. A page further ahead in the job is thousands
/// of events ahead in time, and the lines loaded for it have left the cache before they are used.
/// One page ahead (and the reverse map, 16 slots to a line, four) gave the steady benchmark
/// about 3% (docs/performance.md, "Memory access").
const P2L_LOOKAHEAD_PAGES: u32 = 4;
const L2P_LOOKAHEAD_PAGES: u32 = 1;

impl Simulation {
    /// Start background (or foreground, when host pages are stalled) GC on `pool` if needed.
    pub(super) fn maybe_start_gc(&mut self, pool: usize) {
        self.level1_on_usage(pool);
        if self.gc[pool].running {
            return;
        }
        if !self.ftl.pools[pool].needs_gc() && self.stalled_pages[pool].is_empty() {
            return;
        }
        self.ftl.victim_candidates(pool, &mut self.candidates);
        // Cleaning a block with no invalid unit gains nothing (unless its data leaves the
        // region): offer the policy only blocks that free space. If there are none the pool
        // waits (`park_gc`) until a completing program of its own or a rewrite of its data
        // elsewhere gives it some; if none ever comes the data does not fit, and the run reports
        // what is stuck.
        let evicts = self.migration.target(self.ftl.pools[pool].region).is_some();
        keep_worth_cleaning(&mut self.candidates, evicts);
        if self.candidates.is_empty() && self.ftl.keeps_shapes() {
            // Blocks that look wholly valid by their pages' slack may still gain by repacking.
            self.ftl.victim_candidates(pool, &mut self.candidates);
            let ftl = &self.ftl;
            self.candidates.retain(|c| ftl.worth_repacking(c.block));
        }
        // A plane whose valid data, as packed, fills it (writes and GC copies drift between
        // planes: a static stripe puts a rewrite on another plane than its old copy, and level
        // 1 and migration move units plane by plane) gains nothing by cleaning within itself:
        // its victim's copies go to the region's planes with room instead, as a controller
        // balances its planes. Only then, so that a plane with room cleans as it always has.
        let full = self.candidates.is_empty() || self.ftl.pools[pool].cleaned_without_gain();
        let spills = full && !evicts && self.region_has_room_beside(pool);
        if self.candidates.is_empty() && spills {
            self.ftl.victim_candidates(pool, &mut self.candidates);
        }
        if self.candidates.is_empty() {
            self.park_gc(pool);
            return;
        }
        let pick = self.candidates[self.victim.choose(&self.candidates, self.now)];
        self.start_gc(pool, pick.block, OpSource::Gc);
        self.gc[pool].spills = spills;
    }

    /// `pool` needs GC but holds nothing worth cleaning: note its invalid space, so that it is
    /// asked again ([`Simulation::retry_parked_gc`]) once the host overwrites units of it. A
    /// pool under its GC threshold takes no host page (its host block full, its last free
    /// blocks kept for GC), so no program of its own would ask; and the rewrites, placed on
    /// planes with room, may leave every block of it stale while it keeps its blocks from the
    /// host for good.
    fn park_gc(&mut self, pool: usize) {
        let invalid = self.ftl.pools[pool].invalid_space;
        match self.gc_parked.iter_mut().find(|(p, _)| *p == pool) {
            Some(parked) => parked.1 = invalid,
            None => self.gc_parked.push((pool, invalid)),
        }
    }

    /// Ask again of each parked pool whose invalid space has grown since it was parked (a
    /// program completed: its units may have been rewrites of the pool's). Asking may park it
    /// again.
    pub(super) fn retry_parked_gc(&mut self) {
        let mut i = 0;
        while i < self.gc_parked.len() {
            let (pool, invalid) = self.gc_parked[i];
            if self.ftl.pools[pool].invalid_space == invalid {
                i += 1;
                continue;
            }
            self.gc_parked.swap_remove(i);
            self.maybe_start_gc(pool);
        }
    }

    /// Whether another plane of `pool`'s region can take a page of a victim's copies
    /// ([`Simulation::takes_spill`]; a flash region: PCM is never cleaned).
    fn region_has_room_beside(&self, pool: usize) -> bool {
        let p = &self.ftl.pools[pool];
        if p.in_place {
            return false;
        }
        (self.ftl.geometry.regions[p.region].dies.plane_ids())
            .any(|plane| plane != p.plane && self.takes_spill(self.ftl.pool_index(plane, p.region)))
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
    pub(super) fn takes_spill(&self, pool: usize) -> bool {
        let p = &self.ftl.pools[pool];
        p.valid_space + self.ftl.space_per_page as u64 <= p.settled_room
            && self
                .ftl
                .has_room(pool, crate::ftl::Writer::Host { stream: 0 })
    }

    /// Static wear levelling: when the pool's erase-count spread exceeds the threshold, clean the
    /// least-erased full block so that its (cold) data moves and the block rejoins the pool.
    fn maybe_wear_level(&mut self, pool: usize) {
        let wl = &self.config.ftl.wear_leveling;
        if !wl.enabled || self.gc[pool].running {
            return;
        }
        let threshold = wl.threshold_erases;
        let (lo, hi) = self.ftl.erase_spread(pool);
        if hi - lo <= threshold {
            return;
        }
        self.ftl.victim_candidates(pool, &mut self.candidates);
        let coldest = self
            .candidates
            .iter()
            .min_by_key(|c| (c.erase_count, c.block))
            .copied();
        if let Some(c) = coldest {
            if c.erase_count + threshold < hi {
                self.start_gc(pool, c.block, OpSource::Wl);
            }
        }
    }

    pub(super) fn start_gc(&mut self, pool: usize, victim: u32, source: OpSource) {
        self.start_gc_job(pool, victim, source, None, false);
    }

    /// Start a job cleaning `victim` of `pool` whose copies go to `to_region` (else where the
    /// migration policy sends them); a `level1` job is level-1 GC's, counted apart.
    pub(super) fn start_gc_job(
        &mut self,
        pool: usize,
        victim: u32,
        source: OpSource,
        to_region: Option<usize>,
        level1: bool,
    ) {
        self.ftl.verify_block(victim);
        // A full flash block is erased once empty; PCM is never erased, and a block still
        // being written (level 1 may empty one) goes on being written.
        let erases = !self.ftl.pools[pool].in_place
            && self.ftl.blocks[victim as usize].state == BlockState::Full;
        self.gc[pool].erases = erases;
        self.ftl.blocks[victim as usize].state = BlockState::Victim;
        match source {
            OpSource::Wl => self.device.wl_invocations += 1,
            _ if level1 => {}
            _ => self.device.gc_invocations += 1,
        }
        let job = &mut self.gc[pool];
        job.to_region = to_region;
        job.spills = false;
        job.level1 = level1;
        job.running = true;
        job.victim = victim;
        job.source = source;
        job.started_ns = self.now;
        job.next_page = 0;
        // (Of a block still being written, the pages programmed: later ones are not read.)
        job.end_page =
            (self.ftl.blocks[victim as usize].write_ptr).min(self.ftl.programmed[victim as usize]);
        job.reads_outstanding = 0;
        job.programs_outstanding = 0;
        job.copy_pages = 0;
        job.blocked_on = None;
        job.erase_issued = false;
        self.advance_gc(pool);
    }

    /// Move a GC job on: read more of the victim while its window allows; once the whole victim
    /// is read, program the copies left over (a partial page); erase once everything is
    /// programmed. Called when the job starts and whenever one of its reads or programs ends.
    pub(super) fn advance_gc(&mut self, pool: usize) {
        self.issue_gc_reads(pool);
        let j = &self.gc[pool];
        if j.reads_outstanding == 0
            && j.next_page == j.end_page
            && j.programs_outstanding < self.gc_window()
        {
            self.flush_gc_copies(pool, true);
        }
        self.maybe_finish_gc(pool);
    }

    /// `ftl.gc_copy_window_pages`, with 0 meaning no limit.
    fn gc_window(&self) -> u32 {
        match self.config.ftl.gc_copy_window_pages {
            0 => u32::MAX,
            w => w,
        }
    }

    /// Read the victim's next pages that hold valid units while the job has fewer than
    /// `ftl.gc_copy_window_pages` pages in flight (reads and copy programs). Validity is checked
    /// when a page's turn comes, so units the host overwrote in the meantime are not read at all.
    fn issue_gc_reads(&mut self, pool: usize) {
        let window = self.gc_window();
        let (victim, source) = (self.gc[pool].victim, self.gc[pool].source);
        while self.gc[pool].reads_outstanding + self.gc[pool].programs_outstanding < window
            && self.gc[pool].next_page < self.gc[pool].end_page
        {
            let g = &self.ftl.geometry;
            let (next, end) = (self.gc[pool].next_page, self.gc[pool].end_page);
            let page = g.page_id(victim, next);
            self.gc[pool].next_page += 1;
            // Victims are cold: load the reverse map of pages ahead (GC reads them in order),
            // and, once it has arrived, the mapping entries of the units it names (from all
            // over the logical space), which say which are valid and which the copies rewrite.
            if next + P2L_LOOKAHEAD_PAGES < end {
                (self.ftl.p2l).prefetch(g, g.page_id(victim, next + P2L_LOOKAHEAD_PAGES));
            }
            if next + L2P_LOOKAHEAD_PAGES < end {
                self.ftl
                    .prefetch_mappings(g.page_id(victim, next + L2P_LOOKAHEAD_PAGES));
            }
            let slots = self.ftl.valid_slots(page);
            if slots != 0 {
                // Only the valid units' codewords are wanted (spread.txt §IV: GC reads with the
                // block's valid page bitmap), which a subpage or DMA read can exploit.
                let codewords = self.ftl.codewords_of_slots(page, slots);
                self.read_page(page, codewords, source, pool as u32);
                self.gc[pool].reads_outstanding += 1;
            }
        }
    }

    /// A victim page's data is in controller memory: queue its still-valid units for copying.
    pub(super) fn on_gc_read_done(&mut self, job: usize) {
        let Some((_, page)) = self.gc[job].decoding.pop_front() else {
            return;
        };
        let g = &self.ftl.geometry;
        let region = g.region_of(g.block_of_page(page));
        let slots = self.ftl.valid_slots(page);
        let evicts = self.migration.target(region).is_some();
        let to = match (self.gc[job].to_region, evicts) {
            (Some(r), _) => CopyTo::Region(r),
            (None, true) => CopyTo::Migration,
            (None, false) => CopyTo::Own,
        };
        for (slot, lpn) in self.ftl.units_in_slots(page, slots) {
            let (list, copy) = self.ftl.gc_copy(
                lpn,
                slot,
                region,
                to,
                self.migration.as_mut(),
                self.reduction.as_ref(),
            );
            self.gc[job].copies[list].push(copy);
        }
        self.gc[job].reads_outstanding -= 1;
        // Full pages of copies go first, so they count in the window before more is read.
        self.flush_gc_copies(job, false);
        self.advance_gc(job);
    }

    /// Program full pages of copied units (and, after the last read, the remainder).
    fn flush_gc_copies(&mut self, job: usize, force: bool) {
        let plane = self.ftl.pools[job].plane;
        let lanes = self.ftl.buffer.lanes();
        for list in 0..self.gc[job].copies.len() {
            let (region, lane) = (list / lanes, list % lanes);
            loop {
                if self.gc[job].copies[list].is_empty() {
                    break;
                }
                // (A region on other dies takes each page on a plane of its own.)
                let first = self.gc[job].copies[list][0].lpn;
                let dest_pool = self.copy_destination(job, region, first);
                // Data evicted into another region enters it as its host writes do: it may not
                // take the blocks kept for that region's own GC, and waits for that GC when it
                // must.
                let writer = match dest_pool == job {
                    true => Writer::Gc,
                    false => Writer::Host { stream: 0 },
                };
                if dest_pool != job
                    && !self.gc[job].copies[list].is_empty()
                    && !self.ftl.has_room(dest_pool, writer)
                {
                    self.gc[job].blocked_on = Some(dest_pool);
                    self.maybe_start_gc(dest_pool);
                    return;
                }
                if self.ftl.stores_units_alone(dest_pool) {
                    // (What PCM has no room for goes where `copy_destination` sends it next.)
                    self.copy_units_alone(job, list, dest_pool);
                    continue;
                }
                // (Too few copies to fill a page: nothing to program yet, without packing them;
                // GC asks after every read.)
                let waiting = self.gc[job].copies[list].len();
                if !force && !self.ftl.copies_may_fill_page(lane, waiting) {
                    break;
                }
                // As many copies as one page of their lane takes, in the order they were read.
                let lens = self.gc[job].copies[list].iter().map(|c| c.shape.len);
                let (n, full) = self.ftl.page_prefix(lane, lens);
                if n == 0 || (!full && !force) {
                    break;
                }
                // Each copy: remapped by fill_page below (its old slot counted invalid now), or,
                // if the host rewrote (or trimmed) it since it was read, not copied: its place
                // in the page stays empty.
                let mut units = std::mem::take(&mut self.scratch_units);
                units.clear();
                let ftl = &mut self.ftl;
                #[cfg(test)]
                let mut moved = Vec::new();
                for (i, c) in self.gc[job].copies[list].drain(..n).enumerate() {
                    if !ftl.maps_to(c.lpn, c.slot) {
                        continue;
                    }
                    let version = ftl
                        .oracle
                        .as_ref()
                        .map_or(0, |o| o.slot_version[c.slot as usize]);
                    ftl.invalidate_slot(c.slot, c.lpn);
                    if let Some(m) = &mut self.mapping {
                        m.moved(c.lpn);
                    }
                    units.push(c.lpn, version, || ftl.copy_shape(i, &c));
                    #[cfg(test)]
                    moved.push((c.lpn, c.slot));
                }
                if units.is_empty() {
                    self.scratch_units = units;
                    continue;
                }
                let Some(page) = self.ftl.alloc_page(dest_pool, writer, self.now) else {
                    self.fatal = Some(crate::error::Error::Simulation(format!(
                        "GC on plane {plane} found no free block to copy into: the data does not \
                         fit (raise ftl.overprovisioning_ratio or ftl.gc_reserved_blocks)"
                    )));
                    return;
                };
                self.gc[job].copy_pages += u32::from(dest_pool == job);
                self.count_copies(job, dest_pool, units.len() as u64);
                self.ftl.fill_page(page, &units);
                self.scratch_units = units;
                #[cfg(test)]
                if self.planted_gc_remap_bug {
                    // The bug the oracle must catch: moved units keep pointing at the victim.
                    for (lpn, slot) in moved {
                        self.ftl.l2p[lpn as usize] = slot + 1;
                    }
                }
                let bytes = self.ftl.geometry.page_bytes as u64;
                self.program_copies(job, page, bytes);
                if dest_pool != job {
                    self.maybe_start_gc(dest_pool);
                }
            }
        }
    }

    /// Program job `job`'s copies of list `list` into PCM `dest`, each alone into a slot of its
    /// own (`ftl/pcm.rs`), while it has room.
    fn copy_units_alone(&mut self, job: usize, list: usize, dest: usize) {
        while let Some(&c) = self.gc[job].copies[list].first() {
            if !self.ftl.has_room_for_units(dest, 1) {
                return;
            }
            self.gc[job].copies[list].remove(0);
            // (Rewritten or trimmed by the host since it was read: not copied.)
            if !self.ftl.maps_to(c.lpn, c.slot) {
                continue;
            }
            let version = (self.ftl.oracle.as_ref()).map_or(0, |o| o.slot_version[c.slot as usize]);
            self.ftl.invalidate_slot(c.slot, c.lpn);
            if let Some(m) = &mut self.mapping {
                m.moved(c.lpn);
            }
            let slot = self.ftl.alloc_slot(dest, self.now);
            let bytes = self.ftl.fill_slot(slot, c.lpn, version);
            self.count_copies(job, dest, 1);
            self.program_copies(job, self.ftl.geometry.page_of_slot(slot), bytes);
        }
    }

    /// Count `n` units job `job` copied into `dest`: level 1's moves, wear levelling's or GC's.
    fn count_copies(&mut self, job: usize, dest: usize, n: u64) {
        match (self.gc[job].source, &mut self.level1) {
            (_, Some(l1)) if self.gc[job].level1 => l1.count_moved(self.ftl.pools[dest].region, n),
            (OpSource::Wl, _) => self.device.wl_copied_units += n,
            _ => self.device.gc_copied_units += n,
        }
    }

    /// Issue the program of job `job`'s copies filled into `page`, moving `bytes`.
    fn program_copies(&mut self, job: usize, page: u32, bytes: u64) {
        let source = self.gc[job].source;
        let owner = self.new_program(ProgramRecord {
            page,
            units: 0,
            waiters: Vec::new(),
            source,
            pool: job,
            partial_slots: 0,
        });
        let op = self.program_op_bytes(page, source, owner, bytes);
        self.submit(op);
        self.gc[job].programs_outstanding += 1;
    }

    /// Erase the victim once every valid unit has been read, copied and programmed.
    fn maybe_finish_gc(&mut self, job: usize) {
        let j = &self.gc[job];
        if !j.running
            || j.erase_issued
            || j.reads_outstanding > 0
            || j.next_page < j.end_page
            || j.programs_outstanding > 0
            || j.copies.iter().any(|c| !c.is_empty())
        {
            return;
        }
        let victim = j.victim;
        let source = j.source;
        self.gc[job].erase_issued = true;
        let g = &self.ftl.geometry;
        let region = g.region_of(victim);
        if !self.gc[job].erases {
            // PCM (its pages were taken back as their units left), or a block still being
            // written that level 1 emptied of its read-hot units: it stays as it is.
            let info = &mut self.ftl.blocks[victim as usize];
            info.state = match info.write_ptr == self.ftl.pools[job].pages_per_block {
                true => BlockState::Full,
                false => BlockState::Open,
            };
            return self.end_gc_job(job);
        }
        let (die, plane_in_die) = g.die_and_plane(victim);
        let op = FlashOp {
            kind: OpKind::Erase,
            source,
            die,
            plane_in_die,
            page_in_block: 0,
            target: victim,
            codewords: 0,
            array_ns: self.timing.region(region).tbers_ns,
            transfer_ns: 0,
            owner: job as u32,
        };
        self.submit(op);
    }

    pub(super) fn on_erase_done(&mut self, block: u32) {
        let pool = self.ftl.pool_of_block(block);
        self.ftl.erase(block);
        if let Some(m) = &mut self.errors {
            m.wear.erased(&self.ftl.geometry, block);
        }
        self.end_gc_job(pool);
    }

    /// Most victims GC may erase with no host request completing: every block once, and enough
    /// for each pool to climb back to its threshold gaining a page a victim. (Past the input's
    /// end GC runs on until every pool is at its threshold.)
    fn gc_erase_limit(&self) -> u64 {
        let climb: u64 = (self.ftl.pools.iter())
            .map(|p| (p.gc_threshold_blocks as u64 + 1) * p.pages_per_block as u64)
            .sum();
        self.ftl.blocks.len() as u64 + climb
    }

    /// GC erased more victims than [`Simulation::gc_erase_limit`] with no host request
    /// completing: what it frees goes to its own work. With the mapping table on flash, that is
    /// the translation pages its moves write back.
    #[cold]
    fn gc_without_progress(&mut self) {
        let erases = self.gc_erases_without_progress;
        self.fatal = Some(match &self.mapping {
            Some(m) => crate::error::Error::config(
                "ftl.mapping_cache.capacity_kib",
                format!(
                    "GC erased {erases} victims with no host request completing, never \
                     climbing back to its threshold: the entries its copies change, pushed out \
                     of a cached mapping table of {} entries, write back as many translation \
                     pages as the victims free (raise capacity_kib, or choose a GC victim policy \
                     that finds emptier blocks)",
                    m.cache.capacity()
                ),
            ),
            None => crate::error::Error::Simulation(format!(
                "GC erased {erases} victims with no host request completing, never climbing \
                 back to its threshold: it frees nothing the host can use"
            )),
        });
    }

    /// A job's victim is clean (erased, or PCM's, left): the pool may take pages again, and
    /// whatever waited for it goes on.
    fn end_gc_job(&mut self, pool: usize) {
        let job = &mut self.gc[pool];
        job.running = false;
        let level1 = job.level1;
        if !level1 {
            self.device.gc_busy_ns += self.now - job.started_ns;
        }
        // Wear levelling moves cold, full blocks on purpose, and level 1 read-hot ones; only
        // the conventional GC is meant to free pages.
        if job.source != OpSource::Wl && !level1 && !self.ftl.gc_finished(pool, job.copy_pages) {
            self.fatal = Some(crate::error::Error::Simulation(format!(
                "GC on plane {} cleaned every block in turn without freeing a page: the valid \
                 data, as packed, fills the plane (raise ftl.overprovisioning_ratio, or lower \
                 precondition.fill_fraction or the working set)",
                self.ftl.pools[pool].plane
            )));
            return;
        }
        if job.source != OpSource::Wl && !level1 {
            self.gc_erases_without_progress += 1;
            if self.gc_erases_without_progress > self.gc_erase_limit() {
                return self.gc_without_progress();
            }
        }
        // Host pages held for lack of room go first.
        while let Some(front) = self.stalled_pages[pool].front() {
            let (_, writer) = self.key_destination(front.key);
            if !self.ftl.has_room(pool, writer) {
                break;
            }
            if let Some(sealed) = self.stalled_pages[pool].pop_front() {
                self.program_sealed(pool, sealed);
            }
        }
        // GC jobs elsewhere that were waiting for room here to evict into go on.
        for other in 0..self.gc.len() {
            if self.gc[other].blocked_on == Some(pool) {
                self.gc[other].blocked_on = None;
                self.advance_gc(other);
            }
        }
        self.level1_job_ended(pool, level1);
        self.maybe_start_gc(pool);
        self.maybe_wear_level(pool);
    }

    /// The pool GC job `job`'s copies to `region`, the first of them of unit `lpn`, go to:
    /// the pool of its own plane, or, for a region on other dies (flash to PCM and back), the
    /// plane the unit's address stripes to over those dies (the allocation order's `lpn`-th
    /// plane), or the next with room (else the copies wait for it as any do). Striping by
    /// address keeps a request's units, which the flash holds on different channels, apart:
    /// taken in the order they are moved, the units of one block (a block's worth of pages, a
    /// whole number of stripes) would land on the channels their neighbours did. With no PCM
    /// page free at all, level 1's copies to PCM stay in flash, as the conventional GC's would.
    /// A job that spills (its plane is full) sends its copies likewise to the region's other
    /// planes with room.
    fn copy_destination(&mut self, job: usize, region: usize, lpn: u32) -> usize {
        let plane = self.ftl.pools[job].plane;
        let g = &self.ftl.geometry;
        let dies = g.regions[region].dies;
        let spills = self.gc[job].spills;
        if dies.plane_ids().contains(&plane) && !spills {
            return self.ftl.pool_index(plane, region);
        }
        let ftl = &self.ftl;
        let writer = crate::ftl::Writer::Host { stream: 0 };
        let room = |p| ftl.has_room(ftl.pool_index(p, region), writer);
        let stripe = &self.copy_stripes[dies.index];
        let n = dies.planes() as u64;
        let room_at = (0..n)
            .map(|k| stripe.plane(lpn as u64 + k))
            .find(|&p| match spills {
                true => p != plane && self.takes_spill(ftl.pool_index(p, region)),
                false => room(p),
            });
        if spills && room_at.is_none() {
            // The other planes filled meanwhile: the copies stay (and may gain nothing).
            return job;
        }
        match room_at {
            Some(p) => ftl.pool_index(p, region),
            None if ftl.pools[ftl.pool_index(dies.first_plane, region)].in_place => job,
            None => ftl.pool_index(stripe.plane(lpn as u64), region),
        }
    }
}
