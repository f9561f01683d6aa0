//! Host side: flows issue requests (open loop at trace times, closed loop at a queue depth); a
//! request's command crosses the host interface and, after the firmware time, becomes mapping
//! units; reads gather their units per physical page and issue one read per page; the completion
//! crosses back (a read's data first); response time = completion seen by the host − arrival.

use slab::Slab;

use crate::config::{Config, ReplayMode};
use crate::flash::{OpSource, SlotId};
use crate::ftl::shape::UnitKind;
use crate::ftl::Location;
use crate::trace::Op;

use super::event::{Event, MAX_EVENT_ID};
use super::page_groups::PageGroups;
use super::{Flow, RunOptions, Simulation};
use crate::firmware::Firmware;
use crate::host_interface::HostInterface;

/// The host front's own state: the host interface, the firmware's cores, the flows and the
/// requests they have in flight, and the request log.
pub(super) struct Host {
    pub(super) interface: HostInterface,
    pub(super) firmware: Firmware,
    pub(super) flows: Vec<Flow>,
    /// In-flight host requests; a request's key is its id (operations carry it as `owner`).
    pub(super) requests: Slab<Request>,
    /// Commands crossing the host interface or in firmware (their `CommandReady` is queued).
    pub(super) commands_in_flight: u32,
    pub(super) final_flush_done: bool,
    /// Host requests completed so far.
    pub(super) processed_requests: u64,
    /// How much later than its time stamp the input now arrives (level-1 GC's hold at the
    /// statistics window's boundary).
    pub(super) arrival_shift_ns: u64,
    /// One record per completed request, if the run keeps a log.
    pub(super) log: Option<Vec<RequestRecord>>,
}

impl Host {
    pub(super) fn new(config: &Config, flows: Vec<Flow>, options: &RunOptions) -> Host {
        // One record per request: room for all of them at once, rather than a vector that
        // doubles as it fills (up to twice the memory, for a log of tens of millions).
        let log = options.request_log.then(|| {
            let requests = flows.iter().map(|f| f.source.len()).sum::<u64>();
            Vec::with_capacity(usize::try_from(requests).unwrap_or(0))
        });
        Host {
            interface: HostInterface::new(&config.host_interface),
            firmware: Firmware::new(config.timing.firmware_cores, config.timing.firmware_ns),
            flows,
            requests: Slab::new(),
            commands_in_flight: 0,
            final_flush_done: false,
            processed_requests: 0,
            arrival_shift_ns: 0,
            log,
        }
    }
}

/// An in-flight host request.
pub(super) struct Request {
    flow: u32,
    pub(super) op: Op,
    arrival_ns: u64,
    offset_bytes: u64,
    pub(super) first_lpn: u32,
    pub(super) units: u32,
    /// Where the request starts in its first unit and ends in its last (1..=unit bytes): a read
    /// wants only the codewords of its bytes (a 2 KiB read of a 4 KiB unit wants one codeword).
    head_bytes: u32,
    tail_bytes: u32,
    pub(super) bytes: u64,
    /// The host's stream id from the flow's request (NVMe's streams directive; 0: none), and
    /// the slot of the streams kept apart it was given when its units were admitted
    /// (`sim/technique/host_streams.rs`; 0 while ids are ignored).
    pub(super) stream: u16,
    pub(super) stream_slot: u16,
    /// Controller time after its last flash read: decompressing the units a read found
    /// compressed (one decompressor works through them: PR-SSD §3.2.1), or, for a write that
    /// read its units' old bytes to merge them, decompressing those and compressing the result.
    pub(super) after_read_ns: u64,
    /// Outstanding parts (flash reads, or pages to be programmed for `write_ack = "program"`),
    /// plus one while units are still being admitted.
    pub(super) pending: u32,
    /// Translation pages a read waits for before it reads its data (`mapping.rs`).
    pub(super) mapping_waits: u32,
    pub(super) done_ns: u64,
    /// Whether the request counts in the results: it came after the warm-up (`window.rs`).
    measured: bool,
}

impl Request {
    /// The bytes `[lo, hi)` of unit `lpn` (one of the request's) that the request covers.
    pub(super) fn bytes_in_unit(&self, lpn: u32, unit_bytes: u32) -> (u32, u32) {
        let lo = if lpn == self.first_lpn {
            self.head_bytes
        } else {
            0
        };
        let hi = if lpn == self.first_lpn + self.units - 1 {
            self.tail_bytes
        } else {
            unit_bytes
        };
        (lo, hi)
    }
}

/// One line of the optional per-request log. 40 bytes: a log of tens of millions of requests is
/// held whole until the run ends, so the latency (`completion_ns - arrival_ns`) is computed
/// rather than stored.
#[derive(Clone, Debug)]
pub struct RequestRecord {
    pub flow: u32,
    pub op: Op,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    pub arrival_ns: u64,
    pub completion_ns: u64,
    /// The request's stream id (0: none). The log shows it only for a run with some stream
    /// ([`RequestRecord::columns`]), so runs without streams keep their log as it was.
    pub stream: u16,
}

// The log of a long run is held whole in memory: keep a record at 40 bytes.
const _: () = assert!(std::mem::size_of::<RequestRecord>() == 40);

/// A column of the request log: what the CSV, Parquet and Python forms of the log have in common.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    Flow,
    Op,
    OffsetBytes,
    SizeBytes,
    ArrivalNs,
    CompletionNs,
    LatencyNs,
    Stream,
}

impl Column {
    /// Every column in order: [`RequestRecord::COLUMNS`].
    pub const ALL: [Column; 8] = [
        Column::Flow,
        Column::Op,
        Column::OffsetBytes,
        Column::SizeBytes,
        Column::ArrivalNs,
        Column::CompletionNs,
        Column::LatencyNs,
        Column::Stream,
    ];

    pub fn name(self) -> &'static str {
        RequestRecord::COLUMNS[self as usize]
    }

    /// The width of the column's unsigned integers in bits; `None` for `op`, a name.
    pub fn bits(self) -> Option<u32> {
        match self {
            Column::Op => None,
            Column::Flow => Some(u32::BITS),
            Column::Stream => Some(u16::BITS),
            _ => Some(u64::BITS),
        }
    }

    /// The record's value in this column; for `op`, the index of its name in [`Op::ALL`].
    pub fn value(self, r: &RequestRecord) -> u64 {
        match self {
            Column::Flow => r.flow.into(),
            Column::Op => r.op as u64,
            Column::OffsetBytes => r.offset_bytes,
            Column::SizeBytes => r.size_bytes,
            Column::ArrivalNs => r.arrival_ns,
            Column::CompletionNs => r.completion_ns,
            Column::LatencyNs => r.latency_ns(),
            Column::Stream => r.stream.into(),
        }
    }

    /// The record's value in this column as the CSV log writes it.
    pub fn text(self, r: &RequestRecord) -> String {
        match self {
            Column::Op => r.op.name().to_string(),
            _ => self.value(r).to_string(),
        }
    }
}

impl RequestRecord {
    /// Every column the log can have, in order; `stream` (last) only in a run with streams.
    pub const COLUMNS: [&'static str; 8] = [
        "flow",
        "op",
        "offset_bytes",
        "size_bytes",
        "arrival_ns",
        "completion_ns",
        "latency_ns",
        "stream",
    ];

    /// The log's columns: [`RequestRecord::COLUMNS`], without `stream` unless `streams` (some
    /// request of the run has a stream id).
    pub fn columns(streams: bool) -> &'static [&'static str] {
        &Self::COLUMNS[..Self::shown(streams)]
    }

    /// [`RequestRecord::columns`] as [`Column`]s.
    pub fn log_columns(streams: bool) -> &'static [Column] {
        &Column::ALL[..Self::shown(streams)]
    }

    fn shown(streams: bool) -> usize {
        Self::COLUMNS.len() - usize::from(!streams)
    }

    /// The response time seen by the host.
    pub fn latency_ns(&self) -> u64 {
        self.completion_ns - self.arrival_ns
    }

    /// The record's fields as text, in the order of [`RequestRecord::columns`]`(streams)`.
    pub fn fields(&self, streams: bool) -> impl Iterator<Item = String> + '_ {
        Self::log_columns(streams).iter().map(|c| c.text(self))
    }

    /// Whether some record of `log` has a stream id: then the log shows the `stream` column.
    pub fn any_stream(log: &[RequestRecord]) -> bool {
        log.iter().any(|r| r.stream != 0)
    }
}

impl Simulation {
    /// Schedule a flow's first request(s).
    pub(super) fn prime_flow(&mut self, flow: u32) {
        let f = &mut self.host.flows[flow as usize];
        f.start();
        match f.mode {
            ReplayMode::Open => {
                if let Some(r) = &f.upcoming {
                    let at = scaled(r.arrival_ns, f.time_scale);
                    self.dev.events.push(at, Event::Arrival { flow });
                }
            }
            ReplayMode::Closed => {
                let n = (f.queue_depth as u64).min(f.source.len());
                for _ in 0..n {
                    self.dev.events.push(0, Event::Arrival { flow });
                }
            }
        }
    }

    /// The next request of `flow` arrives: its command crosses the host interface (a write's
    /// data with it), and the FTL acts on it after the firmware time.
    pub(super) fn on_arrival(&mut self, flow: u32) {
        if self.level1_holds_arrival(flow) {
            return;
        }
        let Some(r) = self.host.flows[flow as usize].take_next() else {
            return;
        };
        let measured = self.arrival_is_measured();
        let f = &mut self.host.flows[flow as usize];
        f.outstanding += 1;
        let arrival_ns = self.dev.now;
        let mut next_ns = None;
        if let Some(n) = &f.upcoming {
            if f.mode == ReplayMode::Open {
                let at = scaled(n.arrival_ns, f.time_scale) + self.host.arrival_shift_ns;
                self.dev
                    .events
                    .push(at.max(self.dev.now), Event::Arrival { flow });
                next_ns = Some(at);
            }
        }
        let start = r.offset_bytes + f.offset_bytes;
        self.level1_on_arrival(next_ns);
        self.prefetch_upcoming(flow);
        let g = &self.dev.ftl.geometry;
        let (first, head) = g.unit_of_byte(start);
        let (last, tail) = g.unit_of_byte(start + r.size_bytes.max(1) - 1);
        let req = Request {
            flow,
            op: r.op,
            arrival_ns,
            offset_bytes: r.offset_bytes,
            first_lpn: first as u32,
            units: (last - first + 1) as u32,
            head_bytes: head as u32,
            tail_bytes: tail as u32 + 1,
            bytes: r.size_bytes,
            stream: r.stream,
            stream_slot: 0,
            after_read_ns: 0,
            pending: 1,
            mapping_waits: 0,
            done_ns: self.dev.now,
            measured,
        };
        let id = self.host.requests.insert(req) as u32;
        let in_device = self.host.interface.submit(self.dev.now, r.op, r.size_bytes);
        let ready = self.host.firmware.serve(in_device);
        if ready == self.dev.now {
            self.on_command_ready(id);
        } else if id > MAX_EVENT_ID {
            self.dev.fatal = Some(crate::error::Error::Simulation(format!(
                "more than {} host requests in flight at {} ns: the device cannot keep up with \
                 the trace (slow it down with host.time_scale)",
                MAX_EVENT_ID + 1,
                self.dev.now
            )));
        } else {
            self.host.commands_in_flight += 1;
            self.dev
                .events
                .push(ready, Event::CommandReady { request: id });
        }
    }

    /// A request's command is in the device: the FTL acts on it.
    pub(super) fn on_command_ready(&mut self, id: u32) {
        match self.host.requests[id as usize].op {
            Op::Read => self.issue_read(id),
            // Writes and trims change the mapping, so they take effect in the order their
            // commands reach the FTL (the order they arrived: the link serves commands in
            // order): a trim behind a write that waits for buffer room waits too.
            Op::Write | Op::Trim => self.admit_update(id, 0),
        }
        self.maybe_final_flush();
    }

    /// Start loading the mapping entry of the flow's request after next: by the time it arrives
    /// the entry is in cache (the table is far larger than the caches and read at random).
    fn prefetch_upcoming(&self, flow: u32) {
        let f = &self.host.flows[flow as usize];
        if let Some(r) = &f.after {
            let (lpn, _) = self
                .dev
                .ftl
                .geometry
                .unit_of_byte(r.offset_bytes + f.offset_bytes);
            crate::ftl::table::prefetch(&self.dev.ftl.l2p, lpn as usize);
        }
    }

    /// A read: once its mapping entries are in (`mapping.rs`, when the table is on flash),
    /// read its data.
    fn issue_read(&mut self, id: u32) {
        if self.mapping.is_some() && !self.translate_read(id) {
            return;
        }
        self.read_translated(id);
    }

    /// Ask for the codewords of the request's bytes, one ask per physical page they are on
    /// (spread.txt Fig. 5: a 16 KiB read whose units live in three pages asks three pages).
    pub(super) fn read_translated(&mut self, id: u32) {
        let (first, units) = {
            let r = &self.host.requests[id as usize];
            (r.first_lpn, r.units)
        };
        let unit_bytes = self.dev.ftl.geometry.unit_bytes;
        // (By device address: flows' offsets apart, `offset_bytes` is the flow's.)
        let r = &self.host.requests[id as usize];
        let device_offset = r.first_lpn as u64 * unit_bytes as u64 + r.head_bytes as u64;
        self.reads
            .commands
            .observe_host_read(device_offset, r.bytes);
        // Gather (page, codeword bitmap) for units on flash.
        let mut groups = std::mem::take(&mut self.reads.scratch_groups);
        groups.clear();
        let mut split_pages = std::mem::take(&mut self.writes.scratch_split_pages);
        split_pages.clear();
        // Whether each unit's page is programmed yet is scattered over the blocks: load the
        // answers together.
        for lpn in first..first + units {
            if let Location::Flash(slot) = self.dev.ftl.lookup(lpn) {
                let block = self.dev.ftl.geometry.block_of_slot(slot);
                crate::ftl::table::prefetch(&self.dev.ftl.programmed, block as usize);
            }
        }
        // Bytes served from DRAM: units a read brought into the data cache, and units in the
        // write buffer when writes land in DRAM (a write cache).
        let mut dram_bytes = 0;
        let buffer_in_dram = self.data_cache.as_ref().is_some_and(|c| c.caches_writes());
        for lpn in first..first + units {
            let (lo, hi) = self.host.requests[id as usize].bytes_in_unit(lpn, unit_bytes);
            if self.dev.ftl.oracle.is_some() {
                self.dev.ftl.verify_read(lpn, lo, hi);
            }
            match self.dev.ftl.lookup(lpn) {
                Location::Unmapped => {
                    if self.dev.unmapped_read_is_error() {
                        let flow = &self.host.flows[self.host.requests[id as usize].flow as usize];
                        self.dev.fatal = Some(crate::error::Error::Simulation(format!(
                            "flow `{}` request {} reads unit {lpn}, which was never written \
                             (ftl.unmapped_read = \"error\")",
                            flow.name, flow.issued
                        )));
                        return;
                    }
                    self.dev.stats.unmapped_read_units += 1;
                }
                Location::Buffered(_) => {
                    self.dev.stats.buffer_hit_units += 1;
                    dram_bytes += buffer_in_dram as u64 * (hi - lo) as u64;
                }
                Location::Zero => self.dev.stats.reduction.zero_read_units += 1,
                Location::Flash(slot) => {
                    dram_bytes += self.read_unit_on_flash(
                        id,
                        lpn,
                        slot,
                        (lo, hi),
                        &mut groups,
                        &mut split_pages,
                    );
                }
            }
        }
        if let Some(split) = &mut self.dev.policies.split {
            let bytes = self.host.requests[id as usize].bytes;
            for lpn in first..first + units {
                split.observe_read(lpn, bytes);
            }
            self.dev.stats.reduction.classify_read(
                &self.dev.ftl.geometry,
                groups.as_slice(),
                &split_pages,
            );
        }
        self.writes.scratch_split_pages = split_pages;
        if let Some(c) = &mut self.data_cache {
            if dram_bytes > 0 {
                let r = &mut self.host.requests[id as usize];
                r.done_ns = r.done_ns.max(c.access(self.dev.now, dram_bytes));
            }
        }
        self.read_groups(id, &groups, OpSource::Host);
        self.reads.scratch_groups = groups;
        self.request_part_done(id, self.dev.now);
    }

    /// Unit `lpn` of read `id` is on flash at `slot` (bytes `lo..hi` of it wanted): served from
    /// the write buffer (its page not yet programmed) or the data cache, returning the bytes
    /// DRAM serves, or asked of its pages' codewords in `groups` (`split_pages`: the pages a
    /// split unit's parts added).
    #[inline]
    fn read_unit_on_flash(
        &mut self,
        id: u32,
        lpn: u32,
        slot: SlotId,
        (lo, hi): (u32, u32),
        groups: &mut PageGroups,
        split_pages: &mut Vec<u32>,
    ) -> u64 {
        if !self.dev.ftl.unit_programmed(lpn, slot) {
            self.dev.stats.buffer_hit_units += 1;
            let buffer_in_dram = self.data_cache.as_ref().is_some_and(|c| c.caches_writes());
            return buffer_in_dram as u64 * (hi - lo) as u64;
        }
        if self.data_cache.as_mut().is_some_and(|c| c.holds(lpn)) {
            return (hi - lo) as u64;
        }
        let before = groups.as_slice().len();
        let mut asked = false;
        let conflicts = self
            .dev
            .ftl
            .read_pages(lpn, slot, lo, hi, |page, codewords| {
                groups.add(page, codewords);
                asked = true;
            });
        if !asked {
            // Only zero partial units asked: the zero bitmap answers (§4.2.3).
            self.dev.stats.reduction.zero_read_units += 1;
            return 0;
        }
        self.dev.stats.host_read_units_flash += 1;
        self.dev.ftl.count_read(lpn, slot);
        if self.dev.policies.split.is_some() {
            self.dev.stats.reduction.split_conflicts += conflicts as u64;
            if self.dev.ftl.shape(lpn, slot).kind == UnitKind::Split {
                // The pages its parts added (a part joining a page already asked
                // is that page's business).
                split_pages.extend(groups.as_slice()[before..].iter().map(|&(page, _)| page));
            }
        }
        if self.dev.ftl.is_compressed(lpn) {
            self.dev.stats.reduction.decompressed_units += 1;
            self.host.requests[id as usize].after_read_ns +=
                self.dev.policies.reduction.decompress_ns();
        }
        0
    }

    /// Unmap the units the trim covers whole. A unit it covers only in part stays mapped, so its
    /// other bytes are not lost; its trimmed bytes then read back as they were, which NVMe
    /// allows of deallocated blocks (docs/architecture.md, "Trim").
    pub(super) fn trim(&mut self, id: u32) {
        let (first, units) = {
            let r = &self.host.requests[id as usize];
            (r.first_lpn, r.units)
        };
        let unit_bytes = self.dev.ftl.geometry.unit_bytes;
        for lpn in first..first + units {
            let (lo, hi) = self.host.requests[id as usize].bytes_in_unit(lpn, unit_bytes);
            if let Some(c) = &mut self.data_cache {
                c.drop_unit(lpn);
            }
            if lo == 0 && hi == unit_bytes {
                self.dev.ftl.unmap(lpn);
                if self.mapping.is_some() {
                    self.mapping_written(lpn);
                }
                self.dev.stats.trimmed_units += 1;
            } else {
                self.dev.stats.partly_trimmed_units += 1;
            }
            if let Some(o) = &mut self.dev.ftl.oracle {
                o.trim(lpn, lo, hi);
            }
        }
        self.request_part_done(id, self.dev.now);
    }

    /// One part of a request finished at `done_ns`; the request completes with its last part.
    pub(super) fn request_part_done(&mut self, id: u32, done_ns: u64) {
        let r = &mut self.host.requests[id as usize];
        r.done_ns = r.done_ns.max(done_ns);
        r.pending -= 1;
        if r.pending > 0 {
            return;
        }
        let Request {
            flow,
            op,
            arrival_ns: arrival,
            done_ns,
            after_read_ns,
            bytes,
            offset_bytes: offset,
            measured,
            stream,
            first_lpn,
            units,
            ..
        } = self.host.requests.remove(id as usize);
        if op == Op::Read && self.data_cache.as_ref().is_some_and(|c| c.caches_reads()) {
            self.cache_read_units(first_lpn, units, done_ns);
        }
        let done = self
            .host
            .interface
            .complete(done_ns + after_read_ns, op, bytes);
        self.host.processed_requests += 1;
        self.gc.erases_without_progress = 0;
        let f = &mut self.host.flows[flow as usize];
        f.outstanding -= 1;
        if measured {
            f.stats.record(op, bytes, arrival, done);
        }
        if f.mode == ReplayMode::Closed && !f.exhausted() {
            self.dev.events.push(done, Event::Arrival { flow });
        }
        if let Some(log) = &mut self.host.log {
            log.push(RequestRecord {
                flow,
                op,
                offset_bytes: offset,
                size_bytes: bytes,
                arrival_ns: arrival,
                completion_ns: done,
                stream,
            });
        }
    }

    /// A read request's flash reads are done at `done_ns`: the data cache takes in the units it
    /// read from flash (a DRAM write off the request's path).
    #[cold]
    fn cache_read_units(&mut self, first: u32, units: u32, done_ns: u64) {
        let Some(c) = &mut self.data_cache else {
            return;
        };
        let mut brought = 0;
        for lpn in first..first + units {
            if let Location::Flash(slot) = self.dev.ftl.lookup(lpn) {
                if self.dev.ftl.unit_programmed(lpn, slot) && c.insert(lpn) {
                    brought += 1;
                }
            }
        }
        if brought > 0 {
            c.access(done_ns, brought * self.dev.ftl.geometry.unit_bytes as u64);
        }
    }

    /// When every flow has issued its last request, every command is in the FTL and no write
    /// waits for buffer room, program the partly filled open pages (the end-of-trace flush).
    pub(super) fn maybe_final_flush(&mut self) {
        if self.host.final_flush_done
            || self.host.commands_in_flight > 0
            || !self.writes.waiters.is_empty()
            || !self.host.flows.iter().all(|f| f.exhausted())
        {
            return;
        }
        self.host.final_flush_done = true;
        for key in 0..self.dev.ftl.buffer.open.len() {
            self.seal_and_program(key);
        }
        self.flush_all_reorder();
    }
}

/// A trace time `t` scaled; at most [`super::MAX_ARRIVAL_NS`], which every flow's last arrival
/// was checked against when the simulation was built (`flow_checks.rs`).
fn scaled(t: u64, scale: f64) -> u64 {
    if scale == 1.0 {
        t
    } else {
        (t as f64 * scale).round() as u64
    }
}
