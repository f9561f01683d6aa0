//! The discrete-event engine. A `Simulation` is the parts of a controller, each owning its state
//! and the handlers of its events in its own file: the host front (`host.rs`: flows, requests,
//! the host interface), the write path (`write.rs`: buffer, admission, sealing, programs), the
//! read path (`read.rs`), garbage collection and wear levelling (`gc.rs`, its jobs in
//! `gc_job.rs`), the techniques' run-time parts (`technique/`), the mapping cache
//! (`mapping.rs`) and the data cache; what they share is `Shared` (`shared.rs`: config,
//! scheduler, FTL and policies, event queue, clock, counters). Time is an integer number of
//! nanoseconds; events are ordered by (time, sequence).

pub mod event;
// (In the unit tests too, so that the meter's test runs with the others, in one build.)
#[cfg(any(test, feature = "event-costs"))]
pub mod event_costs;
mod flow;
mod flow_checks;
mod gc;
mod gc_job;
mod host;
mod hot_tally;
mod mapping;
mod page_groups;
mod read;
mod shared;
pub mod snapshot;
mod split;
mod summary;
mod technique;
#[cfg(test)]
mod tests;
mod window;
mod write;

use crate::config::Config;
use crate::data_cache::DataCache;
use crate::device;
use crate::error::Error;
use crate::flash::{FlashOp, OpKind};
use crate::ftl::policies::Policies;
use crate::ftl::precondition::{PreconditionReport, Preconditioner};
use crate::ftl::Ftl;
use crate::stats::DeviceStats;
use crate::trace::Op;
use event::Event;

pub use flow::{Flow, VecSource};
pub use flow_checks::MAX_ARRIVAL_NS;
pub use host::{Column, RequestRecord};
pub use snapshot::SnapshotUse;

/// Options of one run that are not device configuration.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub verify: bool,
    pub request_log: bool,
    /// Where the preconditioned device is saved once and loaded from then on: a folder of
    /// snapshots by key, or one snapshot file (`snapshot.rs`).
    pub snapshot: Option<std::path::PathBuf>,
}

/// A simulated SSD and the run it serves, as the parts of a controller, in the order a request
/// meets them: the host front ([`host::Host`]), the write path ([`write::Writes`]), the read
/// path ([`read::Reads`]), garbage collection ([`gc::Gc`]), the techniques' run-time parts
/// ([`technique::Techniques`]), the mapping cache and the data cache. Each owns its state; what
/// they share (configuration, flash, FTL, event queue, clock, counters) is [`shared::Shared`].
pub struct Simulation {
    dev: shared::Shared,
    host: host::Host,
    writes: write::Writes,
    reads: read::Reads,
    gc: gc::Gc,
    techniques: technique::Techniques,
    /// The cached mapping table of a mapping table kept on flash, when it is (`mapping.rs`).
    mapping: Option<mapping::Mapping>,
    /// The DRAM in front of the FTL, when on (`data_cache.rs`).
    data_cache: Option<DataCache>,
    /// Which requests warm up, and the device at the boundary once crossed (`window.rs`).
    window: window::Window,
    /// What the run did beside its statistics.
    record: RunRecord,
    /// Where the event loop's time goes, while [`Simulation::run_metered`] runs.
    #[cfg(any(test, feature = "event-costs"))]
    costs: Option<event_costs::EventCosts>,
}

/// What a run did beside its statistics.
struct RunRecord {
    precondition: PreconditionReport,
    /// The device snapshot of `options.snapshot`, and what the run did with it.
    snapshot: Option<(std::path::PathBuf, SnapshotUse)>,
    /// Events handled so far (a measure of simulation work, reported by `ssdlab bench`).
    events_processed: u64,
}

/// What a run is doing, for progress reports (`Simulation::with_progress`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Writing the preconditioning fill and overwrites (counted in units).
    Precondition,
    /// Writing the units the flows read before writing them (counted in units of the span the
    /// flows touch).
    Footprint,
    /// Replaying the flows (counted in host requests).
    Replay,
}

impl Phase {
    /// What the phase counts, for a progress bar.
    pub fn counts(self) -> &'static str {
        match self {
            Phase::Precondition => "units preconditioned",
            Phase::Footprint => "units of the trace footprint",
            Phase::Replay => "requests",
        }
    }
}

impl Simulation {
    /// Build the device, precondition it, and line up the flows. `config` must be validated.
    pub fn new(config: Config, flows: Vec<Flow>, options: RunOptions) -> Result<Simulation, Error> {
        Simulation::with_progress(config, flows, options, &mut |_, _, _| {})
    }

    /// [`Simulation::new`], telling `progress(phase, done, total)` how preconditioning goes.
    pub fn with_progress(
        config: Config,
        mut flows: Vec<Flow>,
        options: RunOptions,
        progress: &mut dyn FnMut(Phase, u64, u64),
    ) -> Result<Simulation, Error> {
        let (mut ftl, mut policies) = Policies::build(&config, options.verify)?;
        let sched = device::scheduler(&config.scheduler, &ftl.geometry);
        let techniques = technique::Techniques::new(&config, &ftl);
        let warmup = check_run(&config, &ftl, &mut flows, &techniques)?;
        let streams = policies.streams;
        let mapping_keys =
            mapping::translation_keys(&config, &ftl, policies.reduction.as_ref(), streams);
        let mut pre = Preconditioner::new(&mut ftl, &mut policies, &sched, &config.precondition);
        let mut afresh = |pre: &mut Preconditioner| {
            precondition(pre, config.seed, mapping_keys.as_ref(), progress)
        };
        let snapshot = match options.snapshot.as_deref() {
            Some(at) => Some(
                snapshot::Snapshot::at(at, &config, options.verify)?
                    .load_or_precondition(&mut pre, &mut afresh)?,
            ),
            None => {
                afresh(&mut pre)?;
                None
            }
        };
        // Units the flows read before writing them are preconditioned too (MQSim does the
        // same), after the snapshot: the devices of one preconditioning under many traces share
        // it.
        if config.precondition.trace_footprint {
            precondition_footprint(&mut pre, &mut flows, config.seed, progress)?;
        }
        let precondition = pre.report;
        if techniques.level1.is_some() {
            ftl.keep_read_counts();
        }
        let mut sim = Simulation {
            host: host::Host::new(&config, flows, &options),
            writes: write::Writes::new(&ftl, &policies),
            reads: read::Reads::new(&config, &ftl),
            gc: gc::Gc::new(&ftl),
            techniques,
            mapping: mapping_keys.map(|keys| {
                let g = &ftl.geometry;
                let sizes = (config.ftl.mapping_cache)
                    .sizes(g.physical_units(), g.unit_bytes)
                    .expect("a mapping table on flash");
                mapping::Mapping::new(sizes, g.unit_bytes, ftl.host_units, keys)
            }),
            data_cache: DataCache::new(&config.data_cache, ftl.geometry.unit_bytes, ftl.host_units),
            window: window::Window::new(warmup),
            record: RunRecord {
                precondition,
                snapshot,
                events_processed: 0,
            },
            #[cfg(any(test, feature = "event-costs"))]
            costs: None,
            dev: shared::Shared::new(config, ftl, policies, sched),
        };
        // (Before the flows are primed: a technique may read them through from the start.)
        sim.start_techniques();
        for f in 0..sim.host.flows.len() {
            sim.prime_flow(f as u32);
        }
        Ok(sim)
    }

    /// The FTL: its mapping table, blocks and oracle, to look at.
    pub fn ftl(&self) -> &Ftl {
        &self.dev.ftl
    }

    /// The device's counters so far.
    pub fn stats(&self) -> &DeviceStats {
        &self.dev.stats
    }

    /// Events handled so far (a measure of simulation work, reported by `ssdlab bench`).
    pub fn events_processed(&self) -> u64 {
        self.record.events_processed
    }

    /// The request log, if the run keeps one (`RunOptions::request_log`), taken out.
    pub fn take_log(&mut self) -> Option<Vec<RequestRecord>> {
        self.host.log.take()
    }

    /// The snapshot the run used and what it did with it, taken out.
    pub fn take_snapshot(&mut self) -> Option<(std::path::PathBuf, SnapshotUse)> {
        self.record.snapshot.take()
    }

    pub fn now(&self) -> u64 {
        self.dev.now
    }

    /// Host requests completed so far (for progress reporting).
    pub fn processed_requests(&self) -> u64 {
        self.host.processed_requests
    }

    pub fn total_requests(&self) -> u64 {
        self.host.flows.iter().map(|f| f.source.len()).sum()
    }

    /// Run to completion.
    pub fn run(&mut self) -> Result<(), Error> {
        self.run_with_progress(u64::MAX, &mut |_| {})
    }

    /// Run to completion, charging the event loop's time to the kinds of work it does (see
    /// `event_costs.rs`). The results are those of [`Simulation::run`].
    #[cfg(any(test, feature = "event-costs"))]
    pub fn run_metered(&mut self) -> Result<event_costs::EventCosts, Error> {
        self.costs = Some(event_costs::EventCosts::default());
        let result = self.run();
        let costs = self.costs.take().unwrap_or_default();
        result.map(|()| costs)
    }

    /// Run to completion, calling `progress` every `every` processed events.
    pub fn run_with_progress(
        &mut self,
        every: u64,
        progress: &mut dyn FnMut(&Simulation),
    ) -> Result<(), Error> {
        self.maybe_final_flush();
        let mut next_progress = self.record.events_processed.saturating_add(every);
        loop {
            let event = match self.dev.events.pop_at(self.dev.now) {
                Some(event) => event,
                None => {
                    // Dies start once the current instant is over (see
                    // `Scheduler::start_pending`).
                    self.start_dies();
                    #[cfg(any(test, feature = "event-costs"))]
                    self.charge(event_costs::Work::StartDies);
                    let Some((time, event)) = self.dev.events.pop() else {
                        break;
                    };
                    debug_assert!(time >= self.dev.now);
                    self.dev.now = time;
                    event
                }
            };
            // Told before the event runs: handling a die's event moves its command on.
            #[cfg(any(test, feature = "event-costs"))]
            let work = {
                self.charge(event_costs::Work::Pop);
                self.work_of(event)
            };
            self.dispatch(event);
            if self.mapping.as_ref().is_some_and(|m| m.has_write_backs()) {
                self.issue_write_backs();
            }
            #[cfg(any(test, feature = "event-costs"))]
            self.charge(work);
            if let Some(e) = self.dev.fatal.take() {
                return Err(e);
            }
            self.record.events_processed += 1;
            if self.record.events_processed == next_progress {
                next_progress = next_progress.saturating_add(every);
                progress(self);
            }
        }
        let unfinished = self.host.requests.len();
        if unfinished > 0 {
            let stalled: usize = self.writes.stalled_pages.iter().map(|q| q.len()).sum();
            let open_waiting = self
                .dev
                .ftl
                .buffer
                .open
                .iter()
                .filter(|p| !p.waiters.is_empty())
                .count();
            return Err(Error::Simulation(format!(
                "{unfinished} host requests never completed: {stalled} sealed pages wait for a \
                 free block that GC could not reclaim (the data does not fit: raise \
                 ftl.overprovisioning_ratio or lower the fill), {} writes wait for buffer room, \
                 {open_waiting} partly filled pages hold writes acknowledged on program (set \
                 ftl.write_buffer_timeout_ns)",
                self.writes.waiters.len()
            )));
        }
        // With no event left, every GC job must have ended with its erase; one still running
        // waits for something that will never happen.
        if let Some((pool, j)) = self.gc.jobs.iter().enumerate().find(|(_, j)| j.running) {
            return Err(Error::Simulation(format!(
                "GC job on pool {pool} never finished: victim block {}, {} of {} pages read, {} \
                 reads and {} programs outstanding, {} copies waiting",
                j.victim,
                j.next_page,
                j.end_page,
                j.reads_outstanding,
                j.programs_outstanding,
                j.copies.iter().map(Vec::len).sum::<usize>()
            )));
        }
        self.dev.ftl.verify_all();
        Ok(())
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::Arrival { flow } => self.on_arrival(flow),
            Event::CommandReady { request } => {
                self.host.commands_in_flight -= 1;
                self.on_command_ready(request);
            }
            Event::DieDone(die) => {
                let finished = self
                    .dev
                    .sched
                    .on_die_done(die, self.dev.now, &mut self.dev.events)
                    .len();
                // Acting on a finished operation only queues new ones, and the die starts again
                // only at the end of the instant, so its command stays readable meanwhile.
                for i in 0..finished {
                    if let Some(op) = self.dev.sched.current_op(die, i) {
                        self.on_op_done(op);
                    }
                }
            }
            Event::GcReadDone { job } => self.on_gc_read_done(job as usize),
            Event::Timer(timer) => self.on_timer(timer.kind(), timer.id()),
            Event::MappingLoaded { load } => self.on_mapping_loaded(load),
        }
    }

    #[cfg(any(test, feature = "event-costs"))]
    fn charge(&mut self, work: event_costs::Work) {
        if let Some(c) = &mut self.costs {
            c.charge(work);
        }
    }

    /// What handling `event` will do, for the meter.
    #[cfg(any(test, feature = "event-costs"))]
    fn work_of(&self, event: Event) -> event_costs::Work {
        use crate::flash::OpSource;
        use event_costs::Work;
        match event {
            Event::Arrival { .. } => Work::Arrival,
            Event::CommandReady { request } => match self.host.requests[request as usize].op {
                Op::Read => Work::ReadCommand,
                Op::Write | Op::Trim => Work::UpdateCommand,
            },
            Event::DieDone(die) => {
                let sensing = self.dev.sched.is_sensing(die);
                match self
                    .dev
                    .sched
                    .current_op(die, 0)
                    .map(|op| (op.kind, op.source))
                {
                    Some((OpKind::Read, OpSource::Host | OpSource::Rmw)) if sensing => {
                        Work::HostReadSensed
                    }
                    Some((OpKind::Read, OpSource::Host | OpSource::Rmw)) => {
                        Work::HostReadTransferred
                    }
                    Some((OpKind::Read, _)) if sensing => Work::GcReadSensed,
                    Some((OpKind::Read, _)) => Work::GcReadTransferred,
                    Some((OpKind::Erase, _)) => Work::EraseEnd,
                    Some((_, OpSource::Host)) => Work::HostProgramEnd,
                    _ => Work::GcProgramEnd,
                }
            }
            Event::GcReadDone { .. } => Work::GcReadDecoded,
            Event::MappingLoaded { .. } => Work::ReadCommand,
            Event::Timer(_) => Work::BufferTimeout,
        }
    }

    fn on_op_done(&mut self, op: FlashOp) {
        match op.kind {
            OpKind::Read => self.on_read_done(op),
            OpKind::Program => self.on_program_done(op.owner),
            OpKind::Erase => self.on_erase_done(op.target),
        }
    }
}

/// Check that the flows fit the device and that the engine can name everything its events
/// carry; returns the statistics window's warm-up (`[statistics]`).
fn check_run(
    config: &Config,
    ftl: &Ftl,
    flows: &mut [Flow],
    techniques: &technique::Techniques,
) -> Result<Option<u64>, Error> {
    for (i, f) in flows.iter_mut().enumerate() {
        flow_checks::check_flow(i, f, ftl, config)?;
    }
    let reorder_queues = (techniques.host_streams.as_ref()).map_or(0, |h| h.reorder_queues());
    // Events name dies, flows and GC jobs (pools) in a few bits, and timers their open
    // pages (the write buffer's, by stream) and reorder queues in fewer.
    let ids = [
        (
            "geometry (dies)",
            ftl.geometry.dies() as usize,
            event::MAX_EVENT_ID,
        ),
        ("flows", flows.len(), event::MAX_EVENT_ID),
        (
            "geometry (planes × regions)",
            ftl.pools.len(),
            event::MAX_EVENT_ID,
        ),
        (
            "ftl.placement (streams × regions × buffer lanes)",
            ftl.buffer.open.len(),
            event::MAX_TIMER_ID,
        ),
        (
            "ftl.host_streams (reorder queues: streams × planes × regions)",
            reorder_queues,
            event::MAX_TIMER_ID,
        ),
    ];
    for (what, n, max) in ids {
        if n > max as usize + 1 {
            return Err(Error::config(
                what,
                format!("{n} is more than the {} the engine can address", max + 1),
            ));
        }
    }
    let requests = flows.iter().map(|f| f.source.len()).sum();
    config.statistics.warmup_of(requests)
}

/// Precondition the device `pre` writes into: the mapping table on flash (its translation pages
/// `mapping_keys`), then the fill and overwrites, with `progress` told how it goes. Returns
/// whether anything was written.
fn precondition(
    pre: &mut Preconditioner,
    seed: u64,
    mapping_keys: Option<&std::ops::Range<usize>>,
    progress: &mut dyn FnMut(Phase, u64, u64),
) -> Result<bool, Error> {
    // The mapping table is on flash from the start (a formatted device's).
    if let Some(keys) = mapping_keys {
        for unit in pre.host_units()..pre.mapped_units() {
            pre.write_translation(unit, keys.clone())?;
        }
        pre.flush()?;
    }
    pre.run(seed, &mut |done, total| {
        progress(Phase::Precondition, done, total)
    })?;
    Ok(mapping_keys.is_some() || pre.report.units_written > 0)
}

/// Write the units the flows read before writing them and preconditioning left unmapped, with
/// `progress` told how it goes.
fn precondition_footprint(
    pre: &mut Preconditioner,
    flows: &mut [Flow],
    seed: u64,
    progress: &mut dyn FnMut(Phase, u64, u64),
) -> Result<(), Error> {
    let unit_bytes = pre.ftl.geometry.unit_bytes as u64;
    let (mut lo, mut hi) = (u64::MAX, 0);
    for f in flows.iter_mut() {
        f.for_each_unit_range(unit_bytes, |a, b, r| {
            pre.mark_footprint(a, b, r.op == Op::Read);
            lo = lo.min(a);
            hi = hi.max(b);
        });
    }
    // In address order, as a file system's data lies after a sequential fill (and as MQSim's
    // warm-up does, from a map keyed by address), in one pass over the span the flows touch
    // (the marks live in the mapping table). Written in the order the trace touches them, the
    // units of requests that follow one another would share physical pages, and those requests
    // would share read commands: on a random-read workload two reads in three did.
    if lo <= hi {
        pre.resolve_footprint(lo, hi, seed, &mut |done, total| {
            progress(Phase::Footprint, done, total)
        })?;
    }
    pre.flush()
}
