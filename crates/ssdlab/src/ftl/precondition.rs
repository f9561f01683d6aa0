//! Preconditioning: bring the FTL to a filled (and optionally aged) state without simulating time,
//! through the same allocation, mapping and victim-selection code as the timed run, with GC
//! applied instantly. MQSim's `Perform_precondition` plays the same role.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::permutation::Permutation;

use super::allocation::PlaneAllocator;
use super::gc_victim::{Candidate, VictimPolicy};
use super::{table, Ftl, Writer, UNMAPPED};

/// Units generated at a time, and how far ahead of the write their mapping entry is prefetched
/// (about the number of cache misses a core keeps in flight).
const BATCH: usize = 256;
/// Units between two progress reports (a multiple of `BATCH`).
const PROGRESS_UNITS: u64 = 1 << 16;
const PREFETCH_DISTANCE: usize = 12;
/// How many pages ahead of its walk GC loads a victim's mapping entries.
const VICTIM_PREFETCH_PAGES: u32 = 4;
use crate::config::{FillPattern, PreconditionConfig};
use crate::error::Error;
use crate::flash::{PageId, Scheduler};

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct PreconditionReport {
    pub units_written: u64,
    pub gc_invocations: u64,
    pub gc_copied_units: u64,
}

pub struct Preconditioner<'a> {
    pub ftl: &'a mut Ftl,
    pub allocator: &'a mut dyn PlaneAllocator,
    pub victim: &'a mut dyn VictimPolicy,
    pub sched: &'a Scheduler,
    open: Vec<u32>,
    page_units: Vec<Option<(u32, u32)>>,
    candidates: Vec<Candidate>,
    pub report: PreconditionReport,
}

/// `l2p` marks left by `mark_trace_footprint` until preconditioning resolves them. Buffer entry
/// ids never come near these values.
const FIRST_TOUCH_READ: u32 = u32::MAX;
const FIRST_TOUCH_WRITE: u32 = u32::MAX - 1;

/// Mark, in the mapping table itself (no extra memory), whether a workload reads units
/// `first..=last` before writing them. Call for every request in arrival order, then
/// `Preconditioner::resolve_footprint` (after `run`) over the span they cover.
pub fn mark_footprint(ftl: &mut Ftl, first: u64, last: u64, is_read: bool) {
    for lpn in first..=last {
        let e = &mut ftl.l2p[lpn as usize];
        if *e == UNMAPPED {
            *e = if is_read {
                FIRST_TOUCH_READ
            } else {
                FIRST_TOUCH_WRITE
            };
        }
    }
}

impl<'a> Preconditioner<'a> {
    pub fn new(
        ftl: &'a mut Ftl,
        allocator: &'a mut dyn PlaneAllocator,
        victim: &'a mut dyn VictimPolicy,
        sched: &'a Scheduler,
    ) -> Self {
        Preconditioner {
            ftl,
            allocator,
            victim,
            sched,
            open: Vec::new(),
            page_units: Vec::new(),
            candidates: Vec::new(),
            report: PreconditionReport::default(),
        }
    }

    /// Fill, then overwrite at random (GC runs as needed). `progress(done, total)` is told the
    /// units written now and then.
    pub fn run(
        &mut self,
        cfg: &PreconditionConfig,
        seed: u64,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), Error> {
        let n = self.ftl.logical_units as u64;
        let fill = ((cfg.fill_fraction * n as f64).round() as u64).min(n);
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x7072_6563_6f6e_6421);
        // The filled units are perm(0..fill): sequential, or a seeded pseudo-random permutation.
        let perm = match cfg.pattern {
            FillPattern::Sequential => None,
            FillPattern::Random => Some(Permutation::new(n, rng.gen())),
        };
        let at = |i: u64| perm.as_ref().map_or(i, |p| p.at(i)) as u32;
        let overwrites = if fill > 0 {
            (cfg.overwrite_fraction * n as f64).round() as u64
        } else {
            0
        };
        // Units are written in batches whose mapping entries are prefetched first: the writes
        // land at random in a table far larger than the caches.
        let mut batch = Vec::with_capacity(BATCH);
        let mut i = 0;
        while i < fill + overwrites {
            batch.clear();
            while batch.len() < BATCH && i < fill + overwrites {
                let lpn = if i < fill {
                    at(i)
                } else {
                    at(rng.gen_range(0..fill))
                };
                if batch.len() < PREFETCH_DISTANCE {
                    table::prefetch(&self.ftl.l2p, lpn as usize);
                }
                batch.push(lpn);
                i += 1;
            }
            // The mapping entry of the unit D writes away (an overwrite touches only that and
            // its old block's count).
            for (j, &lpn) in batch.iter().enumerate() {
                if let Some(&ahead) = batch.get(j + PREFETCH_DISTANCE) {
                    table::prefetch(&self.ftl.l2p, ahead as usize);
                }
                self.write(lpn)?;
            }
            if i % PROGRESS_UNITS < BATCH as u64 {
                progress(i, fill + overwrites);
            }
        }
        self.flush()
    }

    /// After `run`: write, in address order, the units of `first..=last` that `mark_footprint`
    /// marked as read first, and clear the marks. Call `flush` after the last range.
    /// `progress(done, total)` is told how far through the range it is now and then.
    pub fn resolve_footprint(
        &mut self,
        first: u64,
        last: u64,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), Error> {
        for lpn in first..=last {
            if (lpn - first).is_multiple_of(PROGRESS_UNITS) {
                progress(lpn - first, last - first + 1);
            }
            match self.ftl.l2p[lpn as usize] {
                FIRST_TOUCH_READ => self.write(lpn as u32)?,
                FIRST_TOUCH_WRITE => self.ftl.l2p[lpn as usize] = UNMAPPED,
                _ => {}
            }
        }
        Ok(())
    }

    /// Write one unit (state only).
    pub fn write(&mut self, lpn: u32) -> Result<(), Error> {
        if self.ftl.l2p[lpn as usize] >= FIRST_TOUCH_WRITE {
            self.ftl.l2p[lpn as usize] = UNMAPPED;
        }
        if let Some(pos) = self.open.iter().position(|&x| x == lpn) {
            self.open.remove(pos);
        }
        self.open.push(lpn);
        self.report.units_written += 1;
        if self.open.len() as u32 == self.ftl.geometry.units_per_page {
            self.flush()?;
        }
        Ok(())
    }

    /// Place the open page (padded if partial).
    pub fn flush(&mut self) -> Result<(), Error> {
        if self.open.is_empty() {
            return Ok(());
        }
        let ftl = &*self.ftl;
        let plane = self.allocator.next_plane(self.sched, &|p| {
            ftl.has_room(ftl.pool_index(p, 0), Writer::Host { stream: 0 })
        });
        let pool = self.ftl.pool_index(plane, 0);
        let writer = Writer::Host { stream: 0 };
        while !self.ftl.has_room(pool, writer) {
            if !self.gc(pool)? {
                return Err(Error::Simulation(format!(
                    "preconditioning: plane {plane} is full of valid data; the data does not fit \
                     (lower precondition.fill_fraction or raise ftl.overprovisioning_ratio)"
                )));
            }
        }
        let page = self.take_page(pool, writer)?;
        self.page_units.clear();
        for &lpn in &self.open {
            self.ftl.unmap(lpn);
            let unit_bytes = self.ftl.geometry.unit_bytes;
            let v = self
                .ftl
                .oracle
                .as_mut()
                .map_or(0, |o| o.write(lpn, 0, unit_bytes));
            self.page_units.push(Some((lpn, v)));
        }
        self.open.clear();
        self.ftl.fill_page(page, self.page_units.iter().copied());
        self.ftl.complete_program(page);
        while self.ftl.pools[pool].needs_gc() {
            if !self.gc(pool)? {
                break;
            }
        }
        Ok(())
    }

    fn take_page(&mut self, pool: usize, writer: Writer) -> Result<PageId, Error> {
        self.ftl.alloc_page(pool, writer, 0).ok_or_else(|| {
            Error::Simulation(format!(
                "preconditioning: plane {} has no free block left; the data does not fit \
                 (lower precondition.fill_fraction or raise ftl.overprovisioning_ratio)",
                self.ftl.pools[pool].plane
            ))
        })
    }

    /// One instant GC of `pool`; returns false if it could not reclaim any space.
    fn gc(&mut self, pool: usize) -> Result<bool, Error> {
        self.ftl.victim_candidates(pool, &mut self.candidates);
        // Only blocks that free space are worth cleaning.
        self.candidates.retain(|c| c.valid_units < c.capacity_units);
        if self.candidates.is_empty() {
            return Ok(false);
        }
        let pick = self.candidates[self.victim.choose(&self.candidates, 0)];
        self.report.gc_invocations += 1;
        let g = &self.ftl.geometry;
        let block = pick.block;
        let pages = self.ftl.blocks[block as usize].write_ptr;
        let mut moving = Vec::with_capacity(pick.valid_units as usize);
        for p in 0..pages {
            // A slot is valid if its unit still maps to it: load the mapping entries of the
            // units a few pages ahead (the victim's reverse map itself is read in order).
            if p + VICTIM_PREFETCH_PAGES < pages {
                self.ftl
                    .prefetch_mappings(g.page_id(block, p + VICTIM_PREFETCH_PAGES));
            }
            let page = g.page_id(block, p);
            for (slot, lpn) in self.ftl.units_in_slots(page, self.ftl.valid_slots(page)) {
                let v = self
                    .ftl
                    .oracle
                    .as_ref()
                    .map_or(0, |o| o.slot_version[slot as usize]);
                moving.push((lpn, v, slot));
            }
        }
        self.ftl.blocks[block as usize].state = super::BlockState::Victim;
        for chunk in moving.chunks(self.ftl.geometry.units_per_page as usize) {
            let page = self.take_page(pool, Writer::Gc)?;
            for &(lpn, _, slot) in chunk {
                self.ftl.invalidate_slot(slot, lpn);
            }
            self.ftl
                .fill_page(page, chunk.iter().map(|&(lpn, v, _)| Some((lpn, v))));
            self.ftl.complete_program(page);
        }
        self.report.gc_copied_units += moving.len() as u64;
        self.ftl.erase(block);
        Ok(true)
    }
}
