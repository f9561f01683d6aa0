//! ROSA's level-1 GC in the event loop (Cho et al., rosa-pcm-hybrid.txt §2; the choice of what
//! moves is `ftl/level1.rs`, a block or units at a time). An invocation first moves the cold PCM
//! units out to flash (GC jobs on their PCM pools that copy to the flash and erase nothing: PCM
//! takes a page back as its unit leaves), then the hot flash units into PCM (a GC job on each
//! hot block's pool that copies to PCM, and erases a whole block it emptied). It starts when a flash pool's free blocks fall under
//! `free_threshold` (§2: "when block usage reach at a threshold"), when none has run for
//! `interval_ns` while the host is busy (§2: "if a L1 GC is not triggered for a certain time
//! interval, it is autonomously triggered", even with no write at all), and back to back from
//! the statistics window's boundary until it finds nothing to move (§3: "then, we trigger several
//! Level 1 GCs"); and while the units it has moved into PCM stay within `budget_share` of the
//! raw capacity (Fig. 1's migration share).

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::config::{share_of_blocks, Config, Level1GcConfig};
use crate::flash::PlaneId;
use crate::ftl::level1::{self, Level1Choice, Level1Move, Level1Plan};
use crate::ftl::Ftl;
use crate::sim::event::Event;
use crate::sim::gc_job::{CopiesTo, GcJob, Owner};
use crate::sim::Simulation;
use crate::stats::DeviceStats;

use super::{Technique, TechniqueId};

pub(in crate::sim) struct Level1 {
    /// What an invocation moves (`ftl.level1_gc.granularity`).
    choice: Box<dyn Level1Choice>,
    /// Under this many free blocks a flash pool asks for level 1.
    free_threshold_blocks: u32,
    interval_ns: u64,
    /// Units level 1 may still move into PCM.
    budget_units: u64,
    /// The PCM region and the flash region cold units go to.
    pub pcm_region: usize,
    pub flash_region: usize,
    /// The invocation running, if any.
    running: Option<Invocation>,
    /// Per PCM plane, the room level 1's evictions made there and its promotions have not
    /// used: the only PCM room it takes (`Level1Choice::plan`).
    made_room: HashMap<PlaneId, u64>,
    /// When the last invocation started (or the run began).
    last_started_ns: u64,
    /// Whether a timer event is queued.
    timer_queued: bool,
    /// From the window's boundary on, invocations run back to back while one helps.
    forced: bool,
    /// Whether the window's boundary has been reached (its forced invocations started).
    boundary_reached: bool,
    /// While the boundary's invocations run, since when arrivals are held, and the flows
    /// held with the time each request arrived.
    hold_since: Option<u64>,
    held: Vec<(u32, u64)>,
    stats: Level1Stats,
    /// What the invocations forced at the boundary did (before the measured part).
    at_boundary: Option<Level1Stats>,
}

impl Level1Stats {
    fn to_json(&self) -> Value {
        json!({
            "invocations": self.invocations,
            "by_timer": self.by_timer,
            "busy_ns": self.busy_ns,
            "units_to_pcm": self.units_to_pcm,
            "units_to_flash": self.units_to_flash,
        })
    }
}

#[derive(Default)]
struct Level1Stats {
    invocations: u64,
    busy_ns: u64,
    units_to_pcm: u64,
    units_to_flash: u64,
    by_timer: u64,
}

struct Invocation {
    started_ns: u64,
    /// The hot units each PCM plane takes: taken from `made_room` as the hot jobs start.
    pcm_need: Vec<(PlaneId, u64)>,
    /// Cold PCM moves not yet started, and eviction jobs running.
    cold_left: Vec<Level1Move>,
    evicting: u32,
    /// Once the evictions are over, hot flash moves not yet started, and the pools of the hot
    /// jobs running.
    hot_left: Vec<Level1Move>,
    promoting: Vec<usize>,
    /// Whether the hot moves have taken their PCM room.
    promoted: bool,
}

impl Invocation {
    fn new(started_ns: u64, plan: Level1Plan) -> Invocation {
        Invocation {
            started_ns,
            pcm_need: plan.pcm_need,
            cold_left: plan.cold,
            evicting: 0,
            hot_left: plan.hot,
            promoting: Vec::new(),
            promoted: false,
        }
    }

    /// Whether the evictions are over: the hot moves' turn.
    fn evicted(&self) -> bool {
        self.cold_left.is_empty() && self.evicting == 0
    }
}

impl Technique for Level1 {
    fn new(config: &Config, ftl: &Ftl) -> Option<Level1> {
        let Level1GcConfig::ReadIntensity {
            free_threshold,
            interval_ns,
            budget_share,
            granularity,
        } = config.ftl.level1_gc
        else {
            return None;
        };
        let g = &ftl.geometry;
        let flash = &g.regions[0];
        // ROSA §2: the hot reads go to the medium rewritten in place (PCM), which no GC cleans.
        let pcm_region = g
            .regions
            .iter()
            .position(|r| r.medium.rewrites_in_place())?;
        let raw_units = g.physical_units();
        Some(Level1 {
            choice: level1::build(granularity),
            free_threshold_blocks: share_of_blocks(free_threshold, flash.blocks_per_plane),
            interval_ns,
            budget_units: (budget_share * raw_units as f64).floor() as u64,
            pcm_region,
            flash_region: 0,
            running: None,
            made_room: HashMap::new(),
            last_started_ns: 0,
            timer_queued: false,
            forced: false,
            boundary_reached: false,
            hold_since: None,
            held: Vec::new(),
            stats: Level1Stats::default(),
            at_boundary: None,
        })
    }

    fn section(&self) -> &'static str {
        "level1_gc"
    }

    fn summary(&self) -> Value {
        let mut v = self.stats.to_json();
        if let Some(b) = &self.at_boundary {
            v["at_boundary"] = b.to_json();
        }
        v
    }

    /// What the invocations forced at the boundary did is kept apart, and level 1's figures
    /// start over.
    fn reset_stats(&mut self) {
        self.at_boundary = Some(std::mem::take(&mut self.stats));
    }

    fn on_timer(sim: &mut Simulation, _id: u32) {
        sim.on_level1_timer();
    }

    /// Units moved by a level-1 job into `region`. (Level 1 counts its invocations, each of
    /// several jobs, and their time as they start and end, not its jobs.)
    fn job_copied(&mut self, _stats: &mut DeviceStats, region: usize, units: u64) {
        match region == self.pcm_region {
            true => {
                self.stats.units_to_pcm += units;
                self.budget_units = self.budget_units.saturating_sub(units);
            }
            false => self.stats.units_to_flash += units,
        }
    }

    /// Its own jobs carry an invocation on; a conventional one may have freed the hot block's
    /// pool.
    fn after_job(sim: &mut Simulation, pool: usize, owner: Owner) {
        sim.level1_job_ended(pool, owner == Owner::Technique(TechniqueId::Level1));
    }
}

impl Simulation {
    /// A flash pool's free blocks fell (a program took one): level 1 runs if they are under its
    /// threshold.
    #[inline]
    pub(in crate::sim) fn level1_on_usage(&mut self, pool: usize) {
        let Some(l1) = &self.techniques.level1 else {
            return;
        };
        let p = &self.dev.ftl.pools[pool];
        if p.region == l1.flash_region
            && (p.free.len() as u32) < l1.free_threshold_blocks
            && l1.running.is_none()
        {
            self.start_level1();
        }
    }

    /// A host request arrived, and its flow's next one comes at `next_ns` (if known): the
    /// timer. Level 1 runs if none has for its interval (with or without writes: §2's read-only
    /// stretch); and if the host will be quiet past the interval, a timer event is queued to
    /// run it in the quiet, before the next arrival (never after the input's last one, so that
    /// the timer does not make a run longer).
    #[inline]
    pub(in crate::sim) fn level1_on_arrival(&mut self, next_ns: Option<u64>) {
        let Some(l1) = &mut self.techniques.level1 else {
            return;
        };
        let due = l1.last_started_ns + l1.interval_ns;
        if self.dev.now >= due {
            self.level1_by_timer();
            return;
        }
        if !l1.timer_queued && next_ns.is_some_and(|t| t > due) {
            l1.timer_queued = true;
            self.dev.events.push(due, TechniqueId::Level1.timer(0));
        }
    }

    /// The timer's event: in a quiet stretch of the host, level 1 runs if none has for its
    /// interval.
    fn on_level1_timer(&mut self) {
        let Some(l1) = &mut self.techniques.level1 else {
            return;
        };
        l1.timer_queued = false;
        if self.dev.now >= l1.last_started_ns + l1.interval_ns {
            self.level1_by_timer();
        }
    }

    fn level1_by_timer(&mut self) {
        let Some(l1) = &mut self.techniques.level1 else {
            return;
        };
        if l1.running.is_some() || l1.hold_since.is_some() {
            return;
        }
        // (A timer that finds nothing to move waits a whole interval again.)
        l1.last_started_ns = self.dev.now;
        if self.start_level1() {
            if let Some(l1) = &mut self.techniques.level1 {
                l1.stats.by_timer += 1;
            }
        }
    }

    /// An arrival of `flow`: held (true) while the invocations forced at the statistics
    /// window's boundary run. The first measured request's arrival starts them, before the
    /// boundary is crossed, and everything arriving is held until they have moved what helps
    /// (§3: the first half warms up, "then, we trigger several Level 1 GCs", "finally, we run
    /// the second half"); the rest of the input then arrives that much later.
    #[inline]
    pub(in crate::sim) fn level1_holds_arrival(&mut self, flow: u32) -> bool {
        let at_boundary = self.at_statistics_boundary();
        let Some(l1) = &mut self.techniques.level1 else {
            return false;
        };
        if l1.hold_since.is_some() {
            l1.held.push((flow, self.dev.now));
            return true;
        }
        if l1.boundary_reached || !at_boundary {
            return false;
        }
        l1.boundary_reached = true;
        l1.forced = true;
        if l1.running.is_some() || self.start_level1() {
            let l1 = self.techniques.level1.as_mut().expect("on");
            l1.hold_since = Some(self.dev.now);
            l1.held.push((flow, self.dev.now));
            return true;
        }
        false
    }

    /// The forced invocations found nothing more to move: held arrivals come now, each as
    /// much later as the hold lasted, and so does the rest of the input.
    fn release_held_arrivals(&mut self) {
        let Some(l1) = &mut self.techniques.level1 else {
            return;
        };
        let Some(since) = l1.hold_since.take() else {
            return;
        };
        let shift = self.dev.now - since;
        self.host.arrival_shift_ns += shift;
        for (flow, at) in std::mem::take(&mut l1.held) {
            self.dev.events.push(at + shift, Event::Arrival { flow });
        }
    }

    /// Start an invocation if a move helps and the budget allows; whether one started.
    fn start_level1(&mut self) -> bool {
        let Some(l1) = &self.techniques.level1 else {
            return false;
        };
        let pcm = (self.dev.ftl.geometry.regions.iter())
            .find(|r| r.medium.rewrites_in_place())
            .map_or(0, |r| r.dies.index);
        let stripe = self.dev.policies.gc.stripe(pcm);
        let made_room = |plane| l1.made_room.get(&plane).copied().unwrap_or(0);
        let to = |lpn: u32| stripe.plane(lpn as u64);
        let Some(plan) = (l1.choice).plan(&self.dev.ftl, l1.budget_units, &to, &made_room) else {
            if let Some(l1) = &mut self.techniques.level1 {
                l1.forced = false;
            }
            self.release_held_arrivals();
            return false;
        };
        let now = self.dev.now;
        let l1 = self.techniques.level1.as_mut().expect("checked");
        l1.stats.invocations += 1;
        l1.last_started_ns = now;
        l1.running = Some(Invocation::new(now, plan));
        self.advance_level1();
        true
    }

    /// Move the invocation on: start the cold moves' jobs on pools that are free, then, once
    /// they are all done, the hot moves' (each on its pool once it is free, if it may still be
    /// made); once every hot job is over, or none could be made, the invocation ends. One job
    /// at a time, the state read afresh for each: a job may end as it starts (nothing of its
    /// block left to move) and move the invocation on itself, or start a conventional GC on a
    /// pool a later move waits for.
    pub(in crate::sim) fn advance_level1(&mut self) {
        loop {
            let Some(l1) = &mut self.techniques.level1 else {
                return;
            };
            let Some(inv) = &mut l1.running else { return };
            let (ftl, jobs) = (&self.dev.ftl, &self.gc.jobs);
            let (pool, m, to) = if !inv.evicted() {
                let Some((pool, m)) = take_on_free_pool(ftl, jobs, &mut inv.cold_left) else {
                    return;
                };
                inv.evicting += 1;
                let plane = ftl.geometry.plane_of_block(m.block);
                *l1.made_room.entry(plane).or_default() += ftl.units_leaving(&m);
                (pool, m, CopiesTo::Region(l1.flash_region))
            } else {
                let hot = loop {
                    match take_on_free_pool(ftl, jobs, &mut inv.hot_left) {
                        // Cleaned, or written to, while the cold units moved: not made.
                        Some((_, m)) if !ftl.level1_move_settled(&m) => continue,
                        taken => break taken,
                    }
                };
                let Some((pool, m)) = hot else {
                    if inv.hot_left.is_empty() && inv.promoting.is_empty() {
                        // Nothing left to make: the invocation ends with the room it made, and
                        // the next one chooses again.
                        self.finish_level1();
                    }
                    return;
                };
                if !inv.promoted {
                    inv.promoted = true;
                    for &(plane, units) in &inv.pcm_need {
                        let room = l1.made_room.entry(plane).or_default();
                        *room = room.saturating_sub(units);
                    }
                }
                inv.promoting.push(pool);
                (pool, m, CopiesTo::Region(l1.pcm_region))
            };
            self.start_gc_move(
                pool,
                m.block,
                Owner::Technique(TechniqueId::Level1),
                to,
                m.units,
            );
        }
    }

    /// The running invocation is over; forced ones follow each other.
    fn finish_level1(&mut self) {
        let now = self.dev.now;
        let Some(l1) = &mut self.techniques.level1 else {
            return;
        };
        if let Some(inv) = l1.running.take() {
            l1.stats.busy_ns += now - inv.started_ns;
        }
        if l1.forced {
            self.start_level1();
        }
    }

    /// A GC job ended on `pool`: if it was one of level 1's, the invocation goes on (and, once
    /// its hot jobs are over, ends; forced ones follow each other).
    fn level1_job_ended(&mut self, pool: usize, level1: bool) {
        let Some(l1) = &mut self.techniques.level1 else {
            return;
        };
        let Some(inv) = &mut l1.running else { return };
        if !level1 {
            // A conventional job may have freed a pool a move waits for.
            if !inv.cold_left.is_empty() || (inv.evicted() && !inv.hot_left.is_empty()) {
                self.advance_level1();
            }
            return;
        }
        match inv.promoting.iter().position(|&p| p == pool) {
            Some(i) => {
                inv.promoting.swap_remove(i);
                if inv.hot_left.is_empty() && inv.promoting.is_empty() {
                    return self.finish_level1();
                }
            }
            None => inv.evicting -= 1,
        }
        self.advance_level1();
    }
}

/// The first of `moves` whose pool no job is cleaning, taken out with its pool (the others
/// wait for their pools' jobs to end).
fn take_on_free_pool(
    ftl: &Ftl,
    jobs: &[GcJob],
    moves: &mut Vec<Level1Move>,
) -> Option<(usize, Level1Move)> {
    let i = (moves.iter()).position(|m| !jobs[ftl.pool_of_block(m.block)].running)?;
    let m = moves.swap_remove(i);
    Some((ftl.pool_of_block(m.block), m))
}
