//! Preconditioning: bring the FTL to a filled (and optionally aged) state without simulating time,
//! through the same allocation, mapping and victim-selection code as the timed run, with GC
//! applied instantly. MQSim's `Perform_precondition` plays the same role.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::allocation::PlaneAllocator;
use super::gc_victim::{Candidate, VictimPolicy};
use super::{Ftl, Location, Writer};
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
    candidates: Vec<Candidate>,
    pub report: PreconditionReport,
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
            candidates: Vec::new(),
            report: PreconditionReport::default(),
        }
    }

    /// Fill, overwrite, then write the trace's read-before-write footprint (`footprint`, sorted).
    pub fn run(
        &mut self,
        cfg: &PreconditionConfig,
        seed: u64,
        footprint: &[u32],
    ) -> Result<(), Error> {
        let n = self.ftl.logical_units as u64;
        let fill = ((cfg.fill_fraction * n as f64).round() as u64).min(n);
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x7072_6563_6f6e_6421);
        match cfg.pattern {
            FillPattern::Sequential => {
                for lpn in 0..fill {
                    self.write(lpn as u32)?;
                }
            }
            FillPattern::Random => {
                let mut perm = Permutation::new(n, rng.gen());
                for _ in 0..fill {
                    self.write(perm.next_index() as u32)?;
                }
            }
        }
        let overwrites = (cfg.overwrite_fraction * n as f64).round() as u64;
        if overwrites > 0 && fill > 0 {
            for _ in 0..overwrites {
                // Uniform over the filled units: draw until a mapped one comes up.
                let lpn = loop {
                    let lpn = rng.gen_range(0..n) as u32;
                    if self.ftl.lookup(lpn) != Location::Unmapped || self.open.contains(&lpn) {
                        break lpn;
                    }
                };
                self.write(lpn)?;
            }
        }
        for &lpn in footprint {
            if self.ftl.lookup(lpn) == Location::Unmapped && !self.open.contains(&lpn) {
                self.write(lpn)?;
            }
        }
        self.flush()
    }

    /// Write one unit (state only).
    pub fn write(&mut self, lpn: u32) -> Result<(), Error> {
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
        let units = std::mem::take(&mut self.open);
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
        let mut versioned = Vec::with_capacity(units.len());
        for lpn in units {
            self.ftl.unmap(lpn);
            let v = self.ftl.oracle.as_mut().map_or(0, |o| o.bump(lpn));
            versioned.push(Some((lpn, v)));
        }
        self.ftl.fill_page(page, versioned);
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
        if self.candidates.is_empty() {
            return Ok(false);
        }
        let pick = self.candidates[self.victim.choose(&self.candidates, 0)];
        let capacity = pick.capacity_units;
        if pick.valid_units >= capacity {
            return Ok(false);
        }
        self.report.gc_invocations += 1;
        let g = &self.ftl.geometry;
        let block = pick.block;
        let pages = self.ftl.blocks[block as usize].write_ptr;
        let mut moving = Vec::with_capacity(pick.valid_units as usize);
        for p in 0..pages {
            let page = g.page_id(block, p);
            for s in 0..g.slots_per_page {
                let slot = g.slot_id(page, s);
                if self.ftl.slot_is_valid(slot) {
                    let v = self
                        .ftl
                        .oracle
                        .as_ref()
                        .map_or(0, |o| o.slot_version[slot as usize]);
                    moving.push((self.ftl.p2l[slot as usize], v));
                }
            }
        }
        self.ftl.blocks[block as usize].state = super::BlockState::Victim;
        for chunk in moving.chunks(self.ftl.geometry.units_per_page as usize) {
            let page = self.take_page(pool, Writer::Gc)?;
            for &(lpn, _) in chunk {
                self.ftl.unmap(lpn);
            }
            self.ftl.fill_page(page, chunk.iter().map(|&u| Some(u)));
            self.ftl.complete_program(page);
        }
        self.report.gc_copied_units += moving.len() as u64;
        self.ftl.erase(block);
        Ok(true)
    }
}

/// A pseudo-random permutation of `0..n` in O(1) memory: a full-period LCG modulo the next power
/// of two (Hull–Dobell: multiplier ≡ 1 mod 4, odd increment), skipping values ≥ n.
struct Permutation {
    n: u64,
    mask: u64,
    state: u64,
    increment: u64,
}

impl Permutation {
    fn new(n: u64, seed: u64) -> Permutation {
        let m = n.max(1).next_power_of_two();
        Permutation {
            n,
            mask: m - 1,
            state: seed & (m - 1),
            increment: (seed >> 17) | 1,
        }
    }

    fn next_index(&mut self) -> u64 {
        loop {
            self.state = (self
                .state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(self.increment))
                & self.mask;
            if self.state < self.n {
                return self.state;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_visits_every_index_once() {
        for n in [1u64, 2, 7, 100, 1000, 4097] {
            let mut p = Permutation::new(n, 12345);
            let mut seen: Vec<u64> = (0..n).map(|_| p.next_index()).collect();
            seen.sort();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
        }
    }
}
