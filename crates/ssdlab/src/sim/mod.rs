//! The discrete-event engine. One `Simulation` value owns everything: config, device, FTL,
//! policies, flows, statistics. Time is an integer number of nanoseconds; events are ordered by
//! (time, sequence). The handlers live next to the concern they serve: `host.rs` (requests),
//! `write.rs` (buffer, sealing, programs), `gc.rs` (garbage collection and wear levelling).

pub mod event;
// (In the unit tests too, so that the meter's test runs with the others, in one build.)
#[cfg(any(test, feature = "event-costs"))]
pub mod event_costs;
mod flow;
mod flow_checks;
mod gc;
mod gc_job;
mod host;
mod host_streams;
mod level1;
mod mapping;
mod page_groups;
mod read;
pub mod snapshot;
mod split;
mod summary;
mod technique;
#[cfg(test)]
mod tests;
mod window;
mod write;

use std::collections::VecDeque;

use slab::Slab;

use crate::config::{Config, ReliabilityConfig, UnmappedRead, WriteAck};
use crate::data_cache::DataCache;
use crate::device;
use crate::error::Error;
use crate::event_queue::EventQueue;
use crate::flash::reliability::ErrorModel;
use crate::flash::{FlashOp, OpKind, OpSource, Scheduler, Timing};
use crate::ftl::admission::Sealed;
use crate::ftl::page_units::PageUnits;
use crate::ftl::policies::Policies;
use crate::ftl::precondition::{mark_footprint, PreconditionReport, Preconditioner};
use crate::ftl::read_policy::{self, ReadPolicy};
use crate::ftl::write_buffer::SealedPage;
use crate::ftl::Ftl;
use crate::host_interface::HostInterface;
use crate::stats::DeviceStats;
use crate::trace::Op;
use event::Event;
use gc_job::GcJob;

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

/// What a program operation is for (its `owner` indexes these).
struct ProgramRecord {
    page: u32,
    units: u32,
    waiters: Vec<u32>,
    source: OpSource,
    /// The pool programmed (host), or the pool whose GC job issued the copy (GC, WL).
    pool: usize,
    /// The slots a later (partial) program of the page writes; 0 for a page's first program.
    partial_slots: u64,
}

pub struct Simulation {
    pub config: Config,
    pub timing: Timing,
    pub sched: Scheduler,
    pub host_interface: HostInterface,
    /// The DRAM in front of the FTL, when on (`data_cache.rs`).
    data_cache: Option<DataCache>,
    /// The cached mapping table of a mapping table kept on flash, when it is (`mapping.rs`).
    mapping: Option<mapping::Mapping>,
    events: EventQueue<Event>,
    pub ftl: Ftl,
    read_policy: Box<dyn ReadPolicy>,
    /// Read commands in flight, and the queued ones later reads of their page may join.
    reads: read::ReadCommands,
    /// The FTL's policies (`ftl/policies.rs`), those preconditioning used.
    policies: Policies,
    /// Raw bit errors and ECC decode times (`reliability.model = "power_law"`); every read
    /// decodes in `timing.ecc_decode_ns` without it.
    errors: Option<ErrorModel>,
    /// The placement's stream of the hottest data, if it has one (`Placement::hot_stream`).
    hot_stream: Option<usize>,
    /// Where the next split buffer's channels start (`Ftl::split_pages`).
    split_cursor: u32,
    /// How much later than its time stamp the input now arrives (level-1 GC's hold at the
    /// statistics window's boundary).
    arrival_shift_ns: u64,
    /// ROSA's level-1 GC, when on (`level1.rs`).
    level1: Option<level1::Level1>,
    /// The host's streams kept apart (`ftl.host_streams`), if they are.
    host_streams: Option<host_streams::HostStreams>,
    pub flows: Vec<Flow>,
    /// In-flight host requests; a request's key is its id (operations carry it as `owner`).
    requests: Slab<host::Request>,
    /// In-flight programs, keyed by the `owner` of their flash operation.
    programs: Slab<ProgramRecord>,
    gc: Vec<GcJob>,
    /// Sealed host pages waiting for a pool to have room (foreground GC), per pool.
    stalled_pages: Vec<VecDeque<SealedPage>>,
    /// GC victims erased since a host request last completed (`gc.rs` `end_gc_job`: GC that
    /// goes on for ever is stopped).
    gc_erases_without_progress: u64,
    /// Pools that needed GC but held nothing worth cleaning, with their invalid space then
    /// (`gc.rs` `park_gc`): asked again once units of theirs are overwritten.
    gc_parked: Vec<(usize, u64)>,
    /// Write (and trim) requests waiting for buffer room, in arrival order.
    write_waiters: VecDeque<write::WaitingWrite>,
    /// Scratch buffers reused across events (the event loop allocates nothing per request).
    scratch_groups: page_groups::PageGroups,
    scratch_sealed: Vec<Sealed>,
    scratch_split_pages: Vec<u32>,
    scratch_units: PageUnits,
    streams: usize,
    /// Commands crossing the host interface or in firmware (their `CommandReady` is queued).
    commands_in_flight: u32,
    final_flush_done: bool,
    now: u64,
    fatal: Option<Error>,
    pub device: DeviceStats,
    /// Which requests warm up, and the device at the boundary once crossed (`window.rs`).
    window: window::Window,
    pub precondition: PreconditionReport,
    pub log: Option<Vec<RequestRecord>>,
    /// The device snapshot of `options.snapshot`, and what the run did with it.
    pub snapshot: Option<(std::path::PathBuf, SnapshotUse)>,
    pub options: RunOptions,
    processed_requests: u64,
    /// Events handled so far (a measure of simulation work, reported by `ssdlab bench`).
    pub events_processed: u64,
    /// Test-only fault injection (see `tests.rs`).
    #[cfg(test)]
    planted_gc_remap_bug: bool,
    /// Where the event loop's time goes, while [`Simulation::run_metered`] runs.
    #[cfg(any(test, feature = "event-costs"))]
    costs: Option<event_costs::EventCosts>,
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
        let timing = device::timing(&config.timing, &ftl.geometry);
        let streams = policies.streams;
        let keys = ftl.buffer.open.len();
        let sched = device::scheduler(&config.scheduler, &ftl.geometry);
        let pools = ftl.pools.len();
        let regions = ftl.geometry.regions.len();
        let lanes = ftl.buffer.lanes();

        for (i, f) in flows.iter_mut().enumerate() {
            flow_checks::check_flow(i, f, &ftl, &config)?;
        }
        let requests = flows.iter().map(|f| f.source.len()).sum();
        let warmup = config.statistics.warmup_of(requests)?;
        // Events name dies, flows and GC jobs (pools) in a few bits, and timers their open
        // pages (the write buffer's, by stream) in fewer.
        let ids = [
            (
                "geometry (dies)",
                ftl.geometry.dies() as usize,
                event::MAX_EVENT_ID,
            ),
            ("flows", flows.len(), event::MAX_EVENT_ID),
            ("geometry (planes × regions)", pools, event::MAX_EVENT_ID),
            (
                "ftl.placement (streams × regions × buffer lanes)",
                keys,
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
        let unit_bytes = ftl.geometry.unit_bytes as u64;
        // Units the flows read before writing them are preconditioned too (MQSim does the same).
        let footprint = config.precondition.trace_footprint;
        if footprint {
            for f in flows.iter_mut() {
                f.for_each_unit_range(unit_bytes, |a, b, r| {
                    mark_footprint(&mut ftl, a, b, r.op == Op::Read)
                });
            }
        }
        let mapping_keys =
            mapping::translation_keys(&config, &ftl, policies.reduction.as_ref(), streams);
        let mut pre = Preconditioner::new(&mut ftl, &mut policies, &sched);
        let mut afresh = |pre: &mut Preconditioner| {
            precondition(pre, &config, mapping_keys.as_ref(), &mut flows, progress)
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
        let precondition = pre.report;
        let pre_split_cursor = pre.split_cursor;
        let shaped = ftl.keeps_shapes();
        let level1 = level1::Level1::new(&config, &ftl.geometry);
        if level1.is_some() {
            ftl.keep_read_counts();
        }
        let hot_stream = policies.placement.hot_stream();

        let read_policy =
            read_policy::build(&config.ftl.read_policy, config.geometry.codeword_size_bytes);
        // (Whether the policy melds at all: a wordline of two pages, both wanted.)
        let meld = read_policy.melds(2, 2);
        let ahead = (read_policy.read_ahead()).map(|w| read::ReadAhead::new(w, &ftl.geometry));
        let mut sim = Simulation {
            read_policy,
            policies,
            reads: read::ReadCommands::new(
                config.scheduler.merge_reads,
                meld,
                ahead,
                ftl.geometry.dies(),
                ftl.geometry.blocks() as u64 * ftl.geometry.max_pages_per_block as u64,
            ),
            hot_stream,
            errors: match &config.reliability {
                ReliabilityConfig::Fixed => None,
                ReliabilityConfig::PowerLaw(c) => Some(device::error_model(c, &ftl.geometry)),
            },
            split_cursor: pre_split_cursor,
            level1,
            host_streams: host_streams::HostStreams::new(&config, pools),
            arrival_shift_ns: 0,
            timing,
            sched,
            host_interface: HostInterface::new(&config.host_interface),
            data_cache: DataCache::new(&config.data_cache, ftl.geometry.unit_bytes, ftl.host_units),
            mapping: mapping_keys.map(|keys| {
                let g = &ftl.geometry;
                let sizes = (config.ftl.mapping_cache)
                    .sizes(g.physical_units(), g.unit_bytes)
                    .expect("a mapping table on flash");
                mapping::Mapping::new(sizes, g.unit_bytes, ftl.host_units, keys)
            }),
            events: EventQueue::default(),
            ftl,
            flows,
            requests: Slab::new(),
            programs: Slab::new(),
            gc: (0..pools).map(|_| GcJob::new(regions * lanes)).collect(),
            stalled_pages: (0..pools).map(|_| VecDeque::new()).collect(),
            gc_parked: Vec::new(),
            gc_erases_without_progress: 0,
            write_waiters: VecDeque::new(),
            scratch_groups: page_groups::PageGroups::default(),
            scratch_sealed: Vec::new(),
            scratch_split_pages: Vec::new(),
            scratch_units: PageUnits::new(shaped),
            streams,
            commands_in_flight: 0,
            final_flush_done: false,
            now: 0,
            fatal: None,
            device: DeviceStats::default(),
            window: window::Window::new(warmup),
            precondition,
            log: options.request_log.then(Vec::new),
            snapshot,
            options,
            processed_requests: 0,
            events_processed: 0,
            #[cfg(test)]
            planted_gc_remap_bug: false,
            #[cfg(any(test, feature = "event-costs"))]
            costs: None,
            config,
        };
        // One record per request: room for all of them at once, rather than a vector that
        // doubles as it fills (up to twice the memory, for a log of tens of millions).
        let requests = usize::try_from(sim.total_requests()).unwrap_or(0);
        if let Some(log) = &mut sim.log {
            log.reserve_exact(requests);
        }
        for f in 0..sim.flows.len() {
            sim.prime_flow(f as u32);
        }
        Ok(sim)
    }

    pub fn now(&self) -> u64 {
        self.now
    }

    /// Host requests completed so far (for progress reporting).
    pub fn processed_requests(&self) -> u64 {
        self.processed_requests
    }

    pub fn total_requests(&self) -> u64 {
        self.flows.iter().map(|f| f.source.len()).sum()
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
        let mut next_progress = self.events_processed.saturating_add(every);
        loop {
            let event = match self.events.pop_at(self.now) {
                Some(event) => event,
                None => {
                    // Dies start once the current instant is over (see
                    // `Scheduler::start_pending`).
                    self.start_dies();
                    #[cfg(any(test, feature = "event-costs"))]
                    self.charge(event_costs::Work::StartDies);
                    let Some((time, event)) = self.events.pop() else {
                        break;
                    };
                    debug_assert!(time >= self.now);
                    self.now = time;
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
            if let Some(e) = self.fatal.take() {
                return Err(e);
            }
            self.events_processed += 1;
            if self.events_processed == next_progress {
                next_progress = next_progress.saturating_add(every);
                progress(self);
            }
        }
        let unfinished = self.requests.len();
        if unfinished > 0 {
            let stalled: usize = self.stalled_pages.iter().map(|q| q.len()).sum();
            let open_waiting = self
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
                self.write_waiters.len()
            )));
        }
        // With no event left, every GC job must have ended with its erase; one still running
        // waits for something that will never happen.
        if let Some((pool, j)) = self.gc.iter().enumerate().find(|(_, j)| j.running) {
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
        self.ftl.verify_all();
        Ok(())
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::Arrival { flow } => self.on_arrival(flow),
            Event::CommandReady { request } => {
                self.commands_in_flight -= 1;
                self.on_command_ready(request);
            }
            Event::DieDone(die) => {
                let finished = self
                    .sched
                    .on_die_done(die, self.now, &mut self.events)
                    .len();
                // Acting on a finished operation only queues new ones, and the die starts again
                // only at the end of the instant, so its command stays readable meanwhile.
                for i in 0..finished {
                    if let Some(op) = self.sched.current_op(die, i) {
                        self.on_op_done(op);
                    }
                }
            }
            Event::GcReadDone { job } => self.on_gc_read_done(job as usize),
            Event::Timer { kind, id } => self.on_timer(kind, id),
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
        use event_costs::Work;
        match event {
            Event::Arrival { .. } => Work::Arrival,
            Event::CommandReady { request } => match self.requests[request as usize].op {
                Op::Read => Work::ReadCommand,
                Op::Write | Op::Trim => Work::UpdateCommand,
            },
            Event::DieDone(die) => {
                let sensing = self.sched.is_sensing(die);
                match self.sched.current_op(die, 0).map(|op| (op.kind, op.source)) {
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
            Event::Timer { .. } => Work::BufferTimeout,
        }
    }

    fn on_op_done(&mut self, op: FlashOp) {
        match op.kind {
            OpKind::Read => self.on_read_done(op),
            OpKind::Program => self.on_program_done(op.owner),
            OpKind::Erase => self.on_erase_done(op.target),
        }
    }

    /// Submit a flash operation now and count it (a read's bytes and energy are counted when its
    /// die starts it, once it is timed: see `read.rs`).
    fn submit(&mut self, op: FlashOp) {
        self.device.count_op(op.kind, op.source);
        let e = &self.config.energy;
        match op.kind {
            OpKind::Read => {}
            // PCM's cells cost energy per bit written (a whole page: PCM writes its lines
            // whole), not power × time as flash's do (the read's is charged when it starts).
            OpKind::Program if op.die >= self.ftl.geometry.pcm_first_die => {
                self.device.pcm_programs += 1;
                let page_bytes = self.ftl.geometry.page_bytes;
                self.device.energy.program_pj +=
                    e.pcm_page_pj(page_bytes).1 + e.transfer_pj_per_byte * page_bytes as f64;
            }
            OpKind::Program => {
                self.device.energy.program_pj += e.program_power_mw * op.array_ns as f64
                    + e.transfer_pj_per_byte * self.ftl.geometry.page_bytes as f64;
            }
            OpKind::Erase => self.device.energy.erase_pj += e.erase_power_mw * op.array_ns as f64,
        }
        self.sched.submit(op);
    }

    fn unmapped_read_is_error(&self) -> bool {
        self.config.ftl.unmapped_read == UnmappedRead::Error
    }

    fn ack_on_program(&self) -> bool {
        self.config.ftl.write_ack == WriteAck::Program
    }
}

/// Every address of a flow must fall inside the logical capacity (the trace loader checks its
/// own file; this catches a flow's `offset_bytes` and generated flows).
/// Precondition the device `pre` writes into: the mapping table on flash (its translation pages
/// `mapping_keys`), the fill and overwrites, then the units the flows read before writing
/// them, with `progress` told how each phase goes. Returns whether anything was written.
fn precondition(
    pre: &mut Preconditioner,
    config: &Config,
    mapping_keys: Option<&std::ops::Range<usize>>,
    flows: &mut [Flow],
    progress: &mut dyn FnMut(Phase, u64, u64),
) -> Result<bool, Error> {
    // The mapping table is on flash from the start (a formatted device's).
    if let Some(keys) = mapping_keys {
        for unit in pre.host_units()..pre.mapped_units() {
            pre.write_translation(unit, keys.clone())?;
        }
        pre.flush()?;
    }
    pre.run(&config.precondition, config.seed, &mut |done, total| {
        progress(Phase::Precondition, done, total)
    })?;
    if config.precondition.trace_footprint {
        // In address order, as a file system's data lies after a sequential fill (and as
        // MQSim's warm-up does, from a map keyed by address), in one pass over the span the
        // flows touch (the marks live in the mapping table). Written in the order the trace
        // touches them, the units of requests that follow one another would share physical
        // pages, and those requests would share read commands: on a random-read workload
        // two reads in three did.
        let unit_bytes = pre.ftl.geometry.unit_bytes as u64;
        let (mut lo, mut hi) = (u64::MAX, 0);
        for f in flows.iter_mut() {
            f.for_each_unit_range(unit_bytes, |a, b, _| {
                lo = lo.min(a);
                hi = hi.max(b);
            });
        }
        if lo <= hi {
            pre.resolve_footprint(lo, hi, &mut |done, total| {
                progress(Phase::Footprint, done, total)
            })?;
        }
        pre.flush()?;
    }
    Ok(mapping_keys.is_some() || pre.report.units_written > 0)
}
