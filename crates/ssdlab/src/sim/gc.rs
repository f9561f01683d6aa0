//! Garbage collection and static wear levelling, per pool (one region of one plane). A job reads
//! every page of the victim that holds valid units, a few at a time (`ftl.gc_copy_window_pages`),
//! through the read policy so that only the wanted codewords move when the policy allows; it
//! programs the still-valid units into the pool's GC block (or another region's, if the migration
//! policy says so), and erases the victim once every copy is programmed. Reads, programs and the
//! erase take die and bus time like host commands.

use crate::flash::{FlashOp, OpKind};
use crate::ftl::gc::copy_writer;
use crate::ftl::{BlockState, CopyTo, Ftl};

use super::gc_job::{CopiesTo, GcJob, Owner};
use super::write::ProgramRecord;
use super::Simulation;

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

/// Garbage collection's own state: a job per pool, the pools parked with nothing worth
/// cleaning, and the count that stops GC going on for ever.
pub(super) struct Gc {
    /// One job per pool (idle until started).
    pub(super) jobs: Vec<GcJob>,
    /// Pools that needed GC but held nothing worth cleaning, with their invalid space then
    /// (`park_gc`): asked again once units of theirs are overwritten.
    pub(super) parked: Vec<(usize, u64)>,
    /// GC victims erased since a host request last completed (`end_gc_job`: GC that goes on
    /// for ever is stopped).
    pub(super) erases_without_progress: u64,
    /// Test-only fault injection (see `tests/mod.rs`).
    #[cfg(test)]
    pub(super) planted_remap_bug: bool,
}

impl Gc {
    pub(super) fn new(ftl: &Ftl) -> Gc {
        let lanes = ftl.geometry.regions.len() * ftl.buffer.lanes();
        Gc {
            jobs: (0..ftl.pools.len()).map(|_| GcJob::new(lanes)).collect(),
            parked: Vec::new(),
            erases_without_progress: 0,
            #[cfg(test)]
            planted_remap_bug: false,
        }
    }

    /// `pool` needs GC but holds nothing worth cleaning: note its invalid space now.
    fn park(&mut self, pool: usize, ftl: &Ftl) {
        let invalid = ftl.pools[pool].invalid_space;
        match self.parked.iter_mut().find(|(p, _)| *p == pool) {
            Some(parked) => parked.1 = invalid,
            None => self.parked.push((pool, invalid)),
        }
    }

    /// The next parked pool, from index `from` of the list on, whose invalid space has grown
    /// since it was parked, taken off the list (`from` is where to look on from next time).
    fn take_unparked(&mut self, ftl: &Ftl, from: &mut usize) -> Option<usize> {
        while let Some(&(pool, invalid)) = self.parked.get(*from) {
            if ftl.pools[pool].invalid_space != invalid {
                self.parked.swap_remove(*from);
                return Some(pool);
            }
            *from += 1;
        }
        None
    }

    /// A job for room erased its victim; whether GC has now erased more victims since a host
    /// request last completed than [`Gc::erase_limit`] allows.
    fn erased_without_progress(&mut self, ftl: &Ftl) -> bool {
        self.erases_without_progress += 1;
        self.erases_without_progress > Gc::erase_limit(ftl)
    }

    /// Most victims GC may erase with no host request completing: every block once, and enough
    /// for each pool to climb back to its threshold gaining a page a victim. (Past the input's
    /// end GC runs on until every pool is at its threshold.)
    fn erase_limit(ftl: &Ftl) -> u64 {
        let climb: u64 = (ftl.pools.iter())
            .map(|p| (p.gc_threshold_blocks as u64 + 1) * p.pages_per_block as u64)
            .sum();
        ftl.blocks.len() as u64 + climb
    }
}

impl Simulation {
    /// Start background (or foreground, when host pages are stalled) GC on `pool` if needed,
    /// on the victim GC's rules choose (`ftl/gc.rs`). If there is none the pool waits
    /// (`park_gc`) until a completing program of its own or a rewrite of its data elsewhere
    /// gives it some; if none ever comes the data does not fit, and the run reports what is
    /// stuck.
    pub(super) fn maybe_start_gc(&mut self, pool: usize) {
        self.level1_on_usage(pool);
        if self.gc.jobs[pool].running {
            return;
        }
        if !self.dev.ftl.pools[pool].needs_gc() && self.writes.stalled_pages[pool].is_empty() {
            return;
        }
        let evicts = self
            .dev
            .policies
            .migration
            .target(self.dev.ftl.pools[pool].region)
            .is_some();
        let Some(clean) =
            (self.dev.policies.gc).choose_victim(&self.dev.ftl, pool, evicts, true, self.dev.now)
        else {
            self.park_gc(pool);
            return;
        };
        let to = CopiesTo::Rules {
            spills: clean.spills,
        };
        self.start_gc_job(pool, clean.victim.block, Owner::Room, to);
    }

    /// `pool` needs GC but holds nothing worth cleaning: note its invalid space, so that it is
    /// asked again ([`Simulation::retry_parked_gc`]) once the host overwrites units of it. A
    /// pool under its GC threshold takes no host page (its host block full, its last free
    /// blocks kept for GC), so no program of its own would ask; and the rewrites, placed on
    /// planes with room, may leave every block of it stale while it keeps its blocks from the
    /// host for good.
    fn park_gc(&mut self, pool: usize) {
        self.gc.park(pool, &self.dev.ftl);
    }

    /// Ask again of each parked pool whose invalid space has grown since it was parked (a
    /// program completed: its units may have been rewrites of the pool's). Asking may park it
    /// again.
    pub(super) fn retry_parked_gc(&mut self) {
        let mut from = 0;
        while let Some(pool) = self.gc.take_unparked(&self.dev.ftl, &mut from) {
            self.maybe_start_gc(pool);
        }
    }

    /// Static wear levelling, when on: clean the pool's least-erased full block once its
    /// erase-count spread exceeds the threshold (`GcRules::wear_leveling_victim`).
    fn maybe_wear_level(&mut self, pool: usize) {
        let wl = &self.dev.config.ftl.wear_leveling;
        if !wl.enabled || self.gc.jobs[pool].running {
            return;
        }
        let threshold = wl.threshold_erases;
        if let Some(block) =
            (self.dev.policies.gc).wear_leveling_victim(&self.dev.ftl, pool, threshold)
        {
            let to = CopiesTo::Rules { spills: false };
            self.start_gc_job(pool, block, Owner::WearLeveling, to);
        }
    }

    /// Start a job of `owner` cleaning `victim` of `pool`, its copies going to `to`.
    pub(super) fn start_gc_job(&mut self, pool: usize, victim: u32, owner: Owner, to: CopiesTo) {
        self.start_gc_move(pool, victim, owner, to, None);
    }

    /// Start a job of `owner` moving the units `only` (in address order; None: every valid
    /// unit) out of `victim` of `pool`, its copies going to `to`. Only a job that moves every
    /// unit of a full block erases it.
    pub(super) fn start_gc_move(
        &mut self,
        pool: usize,
        victim: u32,
        owner: Owner,
        to: CopiesTo,
        only: Option<Vec<u32>>,
    ) {
        self.dev.ftl.verify_block(victim);
        let erases = self.dev.ftl.pools[pool].erases()
            && self.dev.ftl.blocks[victim as usize].state == BlockState::Full
            && only.is_none();
        self.gc.jobs[pool].erases = erases;
        self.gc.jobs[pool].only = only;
        self.dev.ftl.blocks[victim as usize].state = BlockState::Victim;
        self.count_job(owner);
        let job = &mut self.gc.jobs[pool];
        job.owner = owner;
        job.copies_to = to;
        job.running = true;
        job.victim = victim;
        job.started_ns = self.dev.now;
        job.next_page = 0;
        // (Of a block still being written, the pages programmed: later ones are not read.)
        job.end_page = (self.dev.ftl.blocks[victim as usize].write_ptr)
            .min(self.dev.ftl.programmed[victim as usize]);
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
        let j = &self.gc.jobs[pool];
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
        match self.dev.config.ftl.gc_copy_window_pages {
            0 => u32::MAX,
            w => w,
        }
    }

    /// Read the victim's next pages that hold valid units while the job has fewer than
    /// `ftl.gc_copy_window_pages` pages in flight (reads and copy programs). Validity is checked
    /// when a page's turn comes, so units the host overwrote in the meantime are not read at all.
    fn issue_gc_reads(&mut self, pool: usize) {
        let window = self.gc_window();
        let (victim, source) = (self.gc.jobs[pool].victim, self.gc.jobs[pool].owner.source());
        while self.gc.jobs[pool].reads_outstanding + self.gc.jobs[pool].programs_outstanding
            < window
            && self.gc.jobs[pool].next_page < self.gc.jobs[pool].end_page
        {
            let g = &self.dev.ftl.geometry;
            let (next, end) = (self.gc.jobs[pool].next_page, self.gc.jobs[pool].end_page);
            let page = g.page_id(victim, next);
            self.gc.jobs[pool].next_page += 1;
            // Victims are cold: load the reverse map of pages ahead (GC reads them in order),
            // and, once it has arrived, the mapping entries of the units it names (from all
            // over the logical space), which say which are valid and which the copies rewrite.
            if next + P2L_LOOKAHEAD_PAGES < end {
                (self.dev.ftl.p2l).prefetch(g, g.page_id(victim, next + P2L_LOOKAHEAD_PAGES));
            }
            if next + L2P_LOOKAHEAD_PAGES < end {
                self.dev
                    .ftl
                    .prefetch_mappings(g.page_id(victim, next + L2P_LOOKAHEAD_PAGES));
            }
            let slots = self.job_slots(pool, page);
            if slots != 0 {
                // Only the valid units' codewords are wanted (spread.txt §IV: GC reads with the
                // block's valid page bitmap), which a subpage or DMA read can exploit.
                let codewords = self.dev.ftl.codewords_of_slots(page, slots);
                self.read_page(page, codewords, source, pool as u32);
                self.gc.jobs[pool].reads_outstanding += 1;
            }
        }
    }

    /// The slots of `page` job `job` moves: its valid ones, of the units the job moves.
    fn job_slots(&self, job: usize, page: u32) -> u64 {
        let slots = self.dev.ftl.valid_slots(page);
        let Some(only) = &self.gc.jobs[job].only else {
            return slots;
        };
        let g = &self.dev.ftl.geometry;
        (self.dev.ftl.units_in_slots(page, slots))
            .filter(|(_, lpn)| only.binary_search(lpn).is_ok())
            .fold(0, |mask, (slot, _)| mask | 1 << g.slot_in_page(slot))
    }

    /// A victim page's data is in controller memory: queue its still-valid units for copying.
    pub(super) fn on_gc_read_done(&mut self, job: usize) {
        let Some((_, page)) = self.gc.jobs[job].decoding.pop_front() else {
            return;
        };
        let g = &self.dev.ftl.geometry;
        let region = g.region_of(g.block_of_page(page));
        let slots = self.job_slots(job, page);
        let evicts = self.dev.policies.migration.target(region).is_some();
        let to = match (self.gc.jobs[job].copies_to, evicts) {
            (CopiesTo::Region(r), _) => CopyTo::Region(r),
            (CopiesTo::Rules { .. }, true) => CopyTo::Migration,
            (CopiesTo::Rules { .. }, false) => CopyTo::Own,
        };
        for (slot, lpn) in self.dev.ftl.units_in_slots(page, slots) {
            let (list, copy) = self.dev.ftl.gc_copy(
                lpn,
                slot,
                region,
                to,
                self.dev.policies.migration.as_mut(),
                self.dev.policies.reduction.as_ref(),
            );
            self.gc.jobs[job].copies[list].push(copy);
        }
        self.gc.jobs[job].reads_outstanding -= 1;
        // Full pages of copies go first, so they count in the window before more is read.
        self.flush_gc_copies(job, false);
        self.advance_gc(job);
    }

    /// Program full pages of copied units (and, after the last read, the remainder).
    fn flush_gc_copies(&mut self, job: usize, force: bool) {
        let plane = self.dev.ftl.pools[job].plane;
        let lanes = self.dev.ftl.buffer.lanes();
        for list in 0..self.gc.jobs[job].copies.len() {
            let (region, lane) = (list / lanes, list % lanes);
            while let Some(first) = self.gc.jobs[job].copies[list].first() {
                // (A region on other dies takes each page on a plane of its own.)
                let spills = self.gc.jobs[job].spills();
                let dest = (self.dev.policies.gc).copy_destination(
                    &self.dev.ftl,
                    job,
                    region,
                    first.lpn,
                    spills,
                );
                let writer = copy_writer(job, dest);
                if dest != job && !self.dev.ftl.has_room(dest, writer) {
                    self.gc.jobs[job].blocked_on = Some(dest);
                    self.maybe_start_gc(dest);
                    return;
                }
                if self.dev.ftl.stores_units_alone(dest) {
                    // (What PCM has no room for goes where `copy_destination` sends it next.)
                    self.copy_units_alone(job, list, dest);
                    continue;
                }
                let mut units = std::mem::take(&mut self.writes.scratch_units);
                let mapping = &mut self.mapping;
                #[cfg(test)]
                let mut planted = Vec::new();
                let taken = self.dev.ftl.take_copies(
                    &self.gc.jobs[job].copies[list],
                    lane,
                    force,
                    true,
                    &mut units,
                    |lpn, _slot| {
                        if let Some(m) = mapping {
                            m.moved(lpn);
                        }
                        #[cfg(test)]
                        planted.push((lpn, _slot));
                    },
                );
                let Some(taken) = taken else {
                    self.writes.scratch_units = units;
                    break;
                };
                self.gc.jobs[job].copies[list].drain(..taken);
                if units.is_empty() {
                    self.writes.scratch_units = units;
                    continue;
                }
                let Some(page) = self.dev.ftl.alloc_page(dest, writer, self.dev.now) else {
                    self.dev.fatal = Some(crate::error::Error::Simulation(format!(
                        "GC on plane {plane} found no free block to copy into: the data does not \
                         fit (raise ftl.overprovisioning_ratio or ftl.gc_reserved_blocks)"
                    )));
                    return;
                };
                self.gc.jobs[job].copy_pages += u32::from(dest == job);
                self.count_copies(job, dest, units.len() as u64);
                self.dev.ftl.fill_page(page, &units);
                self.writes.scratch_units = units;
                #[cfg(test)]
                if self.gc.planted_remap_bug {
                    // The bug the oracle must catch: moved units keep pointing at the victim.
                    for (lpn, slot) in planted {
                        self.dev.ftl.l2p[lpn as usize] = slot + 1;
                    }
                }
                let bytes = self.dev.ftl.geometry.page_bytes as u64;
                self.program_copies(job, page, bytes);
                if dest != job {
                    self.maybe_start_gc(dest);
                }
            }
        }
    }

    /// Program job `job`'s copies of list `list` into PCM `dest`, each alone into a slot of its
    /// own (`ftl/in_place.rs`), while it has room.
    fn copy_units_alone(&mut self, job: usize, list: usize, dest: usize) {
        let mut taken = 0;
        while let Some(&c) = self.gc.jobs[job].copies[list].get(taken) {
            if !self.dev.ftl.has_room_for_units(dest, 1) {
                break;
            }
            taken += 1;
            let mapping = &mut self.mapping;
            let moved = |lpn, _| {
                if let Some(m) = mapping {
                    m.moved(lpn);
                }
            };
            // (Rewritten or trimmed by the host since it was read: not copied.)
            if let Some((page, bytes)) = self.dev.ftl.take_copy_alone(c, dest, self.dev.now, moved)
            {
                self.count_copies(job, dest, 1);
                self.program_copies(job, page, bytes);
            }
        }
        self.gc.jobs[job].copies[list].drain(..taken);
    }

    /// Count `n` units job `job` copied into `dest`, as its owner counts them.
    fn count_copies(&mut self, job: usize, dest: usize, n: u64) {
        self.count_job_copies(self.gc.jobs[job].owner, self.dev.ftl.pools[dest].region, n);
    }

    /// Issue the program of job `job`'s copies filled into `page`, moving `bytes`.
    fn program_copies(&mut self, job: usize, page: u32, bytes: u64) {
        let source = self.gc.jobs[job].owner.source();
        let owner = self.new_program(ProgramRecord {
            page,
            units: 0,
            waiters: Vec::new(),
            source,
            pool: job,
            partial_slots: 0,
        });
        let op = self.program_op_bytes(page, source, owner, bytes);
        self.dev.submit(op);
        self.gc.jobs[job].programs_outstanding += 1;
    }

    /// Erase the victim once every valid unit has been read, copied and programmed.
    fn maybe_finish_gc(&mut self, job: usize) {
        let j = &self.gc.jobs[job];
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
        let source = j.owner.source();
        self.gc.jobs[job].erase_issued = true;
        let g = &self.dev.ftl.geometry;
        let region = g.region_of(victim);
        if !self.gc.jobs[job].erases {
            // PCM (its pages were taken back as their units left), or a block still being
            // written that level 1 emptied of its read-hot units: it stays as it is.
            let info = &mut self.dev.ftl.blocks[victim as usize];
            info.state = match info.write_ptr == self.dev.ftl.pools[job].pages_per_block {
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
            array_ns: self.dev.timing.region(region).tbers_ns,
            transfer_ns: 0,
            owner: job as u32,
            issued_in: 0, // (stamped by `submit`)
        };
        self.dev.submit(op);
    }

    pub(super) fn on_erase_done(&mut self, block: u32) {
        let pool = self.dev.ftl.pool_of_block(block);
        self.dev.ftl.erase(block);
        if let Some(m) = &mut self.reads.errors {
            m.wear.erased(&self.dev.ftl.geometry, block);
        }
        self.end_gc_job(pool);
    }

    /// GC erased more victims than [`Gc::erase_limit`] with no host request
    /// completing: what it frees goes to its own work. With the mapping table on flash, that is
    /// the translation pages its moves write back.
    #[cold]
    fn gc_without_progress(&mut self) {
        let erases = self.gc.erases_without_progress;
        self.dev.fatal = Some(match &self.mapping {
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
        let job = &mut self.gc.jobs[pool];
        job.running = false;
        let (owner, started_ns) = (job.owner, job.started_ns);
        if owner.frees_room() {
            let remedy =
                "raise ftl.overprovisioning_ratio, or lower precondition.fill_fraction or \
                          the working set";
            if let Err(why) = self.dev.ftl.gc_gained(pool, job.copy_pages, remedy) {
                self.dev.fatal = Some(crate::error::Error::Simulation(why));
                return;
            }
        }
        if owner.frees_room() && self.gc.erased_without_progress(&self.dev.ftl) {
            return self.gc_without_progress();
        }
        // Host pages held for lack of room go first.
        while let Some(front) = self.writes.stalled_pages[pool].front() {
            let (_, writer) = self.key_destination(front.key);
            if !self.dev.ftl.has_room(pool, writer) {
                break;
            }
            if let Some(sealed) = self.writes.stalled_pages[pool].pop_front() {
                self.program_sealed(pool, sealed);
            }
        }
        // GC jobs elsewhere that were waiting for room here to evict into go on.
        for other in 0..self.gc.jobs.len() {
            if self.gc.jobs[other].blocked_on == Some(pool) {
                self.gc.jobs[other].blocked_on = None;
                self.advance_gc(other);
            }
        }
        self.job_ended(pool, owner, started_ns);
        self.maybe_start_gc(pool);
        self.maybe_wear_level(pool);
    }
}

/// GC's own state, on a small device without the event loop.
#[cfg(test)]
mod tests {
    use super::Gc;
    use crate::ftl::policies::Policies;
    use crate::test_support::small;

    #[test]
    fn a_parked_pool_is_asked_again_once_its_invalid_space_changes_and_only_once() {
        let (mut ftl, _) = Policies::build(&small(&[]), false).unwrap();
        let mut gc = Gc::new(&ftl);
        assert_eq!(gc.jobs.len(), ftl.pools.len());
        gc.park(1, &ftl);
        gc.park(1, &ftl);
        assert_eq!(gc.parked.len(), 1, "a pool is parked once");
        assert_eq!(gc.take_unparked(&ftl, &mut 0), None, "nothing changed");
        ftl.pools[1].invalid_space += 4096;
        assert_eq!(gc.take_unparked(&ftl, &mut 0), Some(1));
        assert!(gc.parked.is_empty());
        assert_eq!(gc.take_unparked(&ftl, &mut 0), None);
    }

    #[test]
    fn gc_erasing_without_a_host_request_completing_is_stopped_past_its_limit() {
        let (ftl, _) = Policies::build(&small(&[]), false).unwrap();
        let mut gc = Gc::new(&ftl);
        let limit = Gc::erase_limit(&ftl);
        assert!(limit > ftl.blocks.len() as u64);
        for _ in 0..limit {
            assert!(!gc.erased_without_progress(&ftl));
        }
        assert!(gc.erased_without_progress(&ftl));
    }
}
