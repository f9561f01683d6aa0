//! A GC job: one pool's move of a victim's valid units elsewhere. Who the job works for
//! ([`Owner`]) and where its copies go ([`CopiesTo`]) are values: what a kind of job counts and
//! what its end means live here, so a new kind of background move (read reclaim, a bad block's
//! retirement) changes no line of the GC (`gc.rs`): a technique's move is owned by the
//! technique, which counts its jobs (`Owner::Technique`, `technique/`); another kind adds a
//! variant and its arms here.

use std::collections::VecDeque;

use crate::flash::OpSource;
use crate::ftl::UnitCopy;

use super::technique::TechniqueId;
use super::Simulation;

/// Whom a job works for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Owner {
    /// The conventional GC: room for writes.
    Room,
    /// Static wear levelling: a cold, least-erased block's data moves so the block rejoins the
    /// pool.
    WearLeveling,
    /// A technique's background move (`technique/`): ROSA's level 1 moving read-hot data into
    /// PCM and cold data out of it, idle GC making room early while the host has nothing in
    /// flight. What its jobs count is the technique's (`Technique::job_started`, …).
    Technique(TechniqueId),
}

impl Owner {
    /// Whom the job's flash operations are counted for.
    pub(super) fn source(self) -> OpSource {
        match self {
            Owner::Room | Owner::Technique(_) => OpSource::Gc,
            Owner::WearLeveling => OpSource::Wl,
        }
    }

    /// Whether the job is meant to free pages: GC's stuck rules hold it to gaining some, and
    /// its victims count towards the erases made with no host request completing. (Wear
    /// levelling moves cold, full blocks on purpose, and a technique what it chose for its own
    /// ends: level 1 read-hot blocks; idle GC, under a threshold above the foreground GC's,
    /// blocks that free less than the foreground GC's, which the stuck rules would take for GC
    /// going nowhere, while no host request is in flight, which the erases counted with no
    /// request completing would take for GC working for itself.)
    pub(super) fn frees_room(self) -> bool {
        self == Owner::Room
    }
}

/// Where a job's copies go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CopiesTo {
    /// Where GC's rules send them (`ftl/gc.rs`): the pool's own plane (or the migration
    /// policy's region), or, if `spills`, the region's other planes with room.
    Rules { spills: bool },
    /// Every copy to this region (level 1).
    Region(usize),
}

/// Progress of a job on one pool.
pub(super) struct GcJob {
    pub running: bool,
    pub owner: Owner,
    pub copies_to: CopiesTo,
    pub victim: u32,
    pub started_ns: u64,
    /// Next page of the victim to consider reading, and the end of its written pages.
    pub next_page: u32,
    pub end_page: u32,
    pub reads_outstanding: u32,
    /// Pages read and being decoded (when each is decoded, and the page), soonest first.
    pub decoding: VecDeque<(u64, u32)>,
    pub programs_outstanding: u32,
    /// Pages programmed with copies in the job's own pool so far.
    pub copy_pages: u32,
    /// The pool whose lack of room holds the job's copies to another region, until its GC
    /// erases a block.
    pub blocked_on: Option<usize>,
    pub erase_issued: bool,
    /// Whether the victim is erased once empty (a full flash block: PCM is never erased, and
    /// a block still being written, which level 1 may empty, goes on being written).
    pub erases: bool,
    /// The units the job moves, in address order (level 1 moving units, not blocks); None:
    /// every unit the victim holds valid.
    pub only: Option<Vec<u32>>,
    /// Valid units read out of the victim and waiting to be programmed, by destination region
    /// and write-buffer lane (`region · lanes + lane`).
    pub copies: Vec<Vec<UnitCopy>>,
}

impl GcJob {
    /// An idle job, its copies kept in `lists` lists.
    pub(super) fn new(lists: usize) -> GcJob {
        GcJob {
            running: false,
            owner: Owner::Room,
            copies_to: CopiesTo::Rules { spills: false },
            victim: 0,
            started_ns: 0,
            next_page: 0,
            end_page: 0,
            reads_outstanding: 0,
            decoding: VecDeque::new(),
            programs_outstanding: 0,
            copy_pages: 0,
            blocked_on: None,
            erase_issued: false,
            erases: true,
            only: None,
            copies: vec![Vec::new(); lists],
        }
    }

    /// Whether the copies go to the region's other planes with room.
    pub(super) fn spills(&self) -> bool {
        self.copies_to == CopiesTo::Rules { spills: true }
    }
}

impl Simulation {
    /// A job of `owner` started: counted as its owner counts them.
    pub(super) fn count_job(&mut self, owner: Owner) {
        match owner {
            Owner::Room => self.dev.stats.gc_invocations += 1,
            Owner::WearLeveling => self.dev.stats.wl_invocations += 1,
            Owner::Technique(t) => {
                if let Some(part) = self.techniques.part_mut(t) {
                    part.job_started(&mut self.dev.stats);
                }
            }
        }
    }

    /// A job of `owner` copied `n` units into `region`.
    pub(super) fn count_job_copies(&mut self, owner: Owner, region: usize, n: u64) {
        match owner {
            Owner::Room => self.dev.stats.gc_copied_units += n,
            Owner::WearLeveling => self.dev.stats.wl_copied_units += n,
            Owner::Technique(t) => {
                if let Some(part) = self.techniques.part_mut(t) {
                    part.job_copied(&mut self.dev.stats, region, n);
                }
            }
        }
    }

    /// A job of `owner` on `pool`, started at `started_ns`, is over: its time is counted, and
    /// the background work it belongs to (or waits on it) goes on.
    pub(super) fn job_ended(&mut self, pool: usize, owner: Owner, started_ns: u64) {
        let ns = self.dev.now - started_ns;
        match owner {
            Owner::Room | Owner::WearLeveling => self.dev.stats.gc_busy_ns += ns,
            Owner::Technique(t) => {
                if let Some(part) = self.techniques.part_mut(t) {
                    part.job_ended(&mut self.dev.stats, ns);
                }
            }
        }
        self.techniques_after_job(pool, owner);
    }
}
