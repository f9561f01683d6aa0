//! Idle-time GC (`ftl.idle_gc`, config/ftl.rs): background GC started early while the host has
//! nothing in flight, so that its next burst finds the free blocks the foreground GC would
//! otherwise make it wait for (Blackwell, Harris and Seltzer, USENIX '95: a log's cleaning
//! done in idle time costs the writer nothing). Every `interval_ns` a timer checks; when no
//! host request is in flight, each pool under `free_threshold` of its blocks free (above the
//! foreground GC's threshold) that no job is cleaning starts a job of its own
//! ([`Owner::Technique`], `gc_job.rs`) on the victim GC's rules choose, if cleaning it frees a
//! page at least. A job runs to its end as any GC job does, host requests arriving meanwhile
//! waiting behind its commands as they wait behind the foreground GC's.

use serde_json::{json, Value};

use crate::config::{share_of_blocks, Config, IdleGcConfig, ReplayMode};
use crate::ftl::Ftl;
use crate::sim::gc_job::{CopiesTo, Owner};
use crate::sim::Simulation;
use crate::stats::DeviceStats;

use super::{Technique, TechniqueId};

pub(in crate::sim) struct IdleGc {
    interval_ns: u64,
    /// Per pool, the free blocks under which idle GC cleans it (0: never, PCM's pools).
    threshold_blocks: Vec<u32>,
    /// The last arrival of the open-loop flows, scaled: no check is set after it, so that the
    /// timer never makes a run longer (a closed-loop flow's host is never idle).
    last_arrival_ns: u64,
    stats: IdleGcStats,
}

#[derive(Default)]
struct IdleGcStats {
    /// The timer's checks, and those that found no host request in flight.
    checks: u64,
    idle_checks: u64,
    /// Jobs started while the host was idle, the units they copied and the pages they
    /// programmed with them.
    jobs: u64,
    copied_units: u64,
    copy_programs: u64,
    /// Time its jobs ran.
    busy_ns: u64,
}

impl Technique for IdleGc {
    fn new(config: &Config, ftl: &Ftl) -> Option<IdleGc> {
        let IdleGcConfig::WhenIdle {
            interval_ns,
            free_threshold,
        } = config.ftl.idle_gc
        else {
            return None;
        };
        let threshold_blocks = (ftl.pools.iter())
            .map(|p| match p.erases() {
                false => 0,
                true => share_of_blocks(
                    free_threshold,
                    ftl.geometry.regions[p.region].blocks_per_plane,
                ),
            })
            .collect();
        Some(IdleGc {
            interval_ns,
            threshold_blocks,
            last_arrival_ns: 0,
            stats: IdleGcStats::default(),
        })
    }

    fn section(&self) -> &'static str {
        "idle_gc"
    }

    fn summary(&self) -> Value {
        let s = &self.stats;
        json!({
            "checks": s.checks,
            "idle_checks": s.idle_checks,
            "jobs": s.jobs,
            "copied_units": s.copied_units,
            "copy_programs": s.copy_programs,
            "busy_ns": s.busy_ns,
        })
    }

    /// Its figures start over at the statistics window's boundary (the device's GC counters,
    /// which its jobs count in too, do as well).
    fn reset_stats(&mut self) {
        self.stats = IdleGcStats::default();
    }

    fn start(sim: &mut Simulation) {
        sim.start_idle_gc();
    }

    fn on_timer(sim: &mut Simulation, _id: u32) {
        sim.on_idle_check();
    }

    /// Its jobs count in the device's GC counters, and in its own.
    fn job_started(&mut self, stats: &mut DeviceStats) {
        stats.gc_invocations += 1;
        self.stats.jobs += 1;
    }

    fn job_copied(&mut self, stats: &mut DeviceStats, _region: usize, units: u64) {
        stats.gc_copied_units += units;
        self.stats.copied_units += units;
        self.stats.copy_programs += 1;
    }

    fn job_ended(&mut self, stats: &mut DeviceStats, ns: u64) {
        stats.gc_busy_ns += ns;
        self.stats.busy_ns += ns;
    }
}

impl Simulation {
    /// The flows are lined up: find the open-loop flows' last arrival and set the first check.
    fn start_idle_gc(&mut self) {
        let Some(idle) = &mut self.techniques.idle_gc else {
            return;
        };
        for f in self.host.flows.iter_mut() {
            if f.mode != ReplayMode::Open {
                continue;
            }
            // (Scaled as the host front scales arrivals, `host.rs`.)
            let scale = f.time_scale;
            f.for_each_unit_range(1, |_, _, r| {
                let at = match scale == 1.0 {
                    true => r.arrival_ns,
                    false => (r.arrival_ns as f64 * scale).round() as u64,
                };
                idle.last_arrival_ns = idle.last_arrival_ns.max(at);
            });
        }
        let first = idle.interval_ns;
        self.set_idle_check(first);
    }

    /// Set the check at `at`, unless it would come after the input's last arrival (as the
    /// host front delays it: level 1's hold at the statistics window's boundary).
    fn set_idle_check(&mut self, at: u64) {
        let Some(idle) = &self.techniques.idle_gc else {
            return;
        };
        if at <= idle.last_arrival_ns + self.host.arrival_shift_ns {
            self.dev.events.push(at, TechniqueId::IdleGc.timer(0));
        }
    }

    /// The timer's check: the next is set; if the host has no request in flight, every pool
    /// under the idle threshold starts cleaning.
    fn on_idle_check(&mut self) {
        let Some(idle) = &mut self.techniques.idle_gc else {
            return;
        };
        idle.stats.checks += 1;
        let next = self.dev.now + idle.interval_ns;
        if !self.host.requests.is_empty() {
            return self.set_idle_check(next);
        }
        idle.stats.idle_checks += 1;
        for pool in 0..self.dev.ftl.pools.len() {
            self.maybe_start_idle_gc(pool);
        }
        self.set_idle_check(next);
    }

    /// Start an idle job on `pool` if it is under the idle threshold, no job cleans it, and
    /// the victim GC's rules choose frees a page at least: cleaning a block for less would
    /// spend an erase and the copies' programs on no room (its data moving out of the region,
    /// a cache's eviction, frees the whole block).
    fn maybe_start_idle_gc(&mut self, pool: usize) {
        let Some(idle) = &self.techniques.idle_gc else {
            return;
        };
        let p = &self.dev.ftl.pools[pool];
        if self.gc.jobs[pool].running || p.free.len() as u32 >= idle.threshold_blocks[pool] {
            return;
        }
        let evicts = self.dev.policies.migration.target(p.region).is_some();
        let Some(clean) =
            (self.dev.policies.gc).choose_victim(&self.dev.ftl, pool, evicts, false, self.dev.now)
        else {
            return;
        };
        if !evicts && !clean.victim.frees_a_page(p.pages_per_block) {
            return;
        }
        let owner = Owner::Technique(TechniqueId::IdleGc);
        let to = CopiesTo::Rules { spills: false };
        self.start_gc_job(pool, clean.victim.block, owner, to);
    }
}
