//! Flows: sources of host requests, each with its own replay mode and statistics (MQSim's
//! "flows"). A source is a trace held in memory or a generator that produces its requests on
//! demand, so a million-request workload costs no memory.

use crate::config::ReplayMode;
use crate::stats::FlowStats;
use crate::trace::TraceRequest;
use crate::workload::RequestSource;

/// A trace loaded in memory.
pub struct VecSource {
    requests: Vec<TraceRequest>,
    next: usize,
}

impl VecSource {
    pub fn new(requests: Vec<TraceRequest>) -> VecSource {
        VecSource { requests, next: 0 }
    }
}

impl RequestSource for VecSource {
    fn len(&self) -> u64 {
        self.requests.len() as u64
    }
    fn rewind(&mut self) {
        self.next = 0;
    }
    fn next_request(&mut self) -> Option<TraceRequest> {
        let r = self.requests.get(self.next).copied();
        self.next += 1;
        r
    }
}

pub struct Flow {
    pub name: String,
    pub source: Box<dyn RequestSource>,
    pub mode: ReplayMode,
    pub queue_depth: u32,
    pub time_scale: f64,
    /// Byte offset added to every address.
    pub offset_bytes: u64,
    /// The next request to issue and the one after it, read ahead from the source (the engine
    /// prefetches their mapping entries before they arrive).
    pub(super) upcoming: Option<TraceRequest>,
    pub(super) after: Option<TraceRequest>,
    /// Requests issued so far.
    pub(super) issued: u64,
    pub(super) outstanding: u32,
    pub stats: FlowStats,
}

impl Flow {
    /// A flow over a trace held in memory.
    pub fn new(
        name: String,
        requests: Vec<TraceRequest>,
        mode: ReplayMode,
        queue_depth: u32,
        time_scale: f64,
        offset_bytes: u64,
    ) -> Flow {
        Flow::from_source(
            name,
            Box::new(VecSource::new(requests)),
            mode,
            queue_depth,
            time_scale,
            offset_bytes,
        )
    }

    pub fn from_source(
        name: String,
        source: Box<dyn RequestSource>,
        mode: ReplayMode,
        queue_depth: u32,
        time_scale: f64,
        offset_bytes: u64,
    ) -> Flow {
        Flow {
            name,
            source,
            mode,
            queue_depth,
            time_scale,
            offset_bytes,
            upcoming: None,
            after: None,
            issued: 0,
            outstanding: 0,
            stats: FlowStats::default(),
        }
    }

    /// Visit every request once (from the start) with its unit range, then rewind.
    pub(super) fn for_each_unit_range(
        &mut self,
        unit: u64,
        mut f: impl FnMut(u64, u64, &TraceRequest),
    ) {
        self.source.rewind();
        while let Some(r) = self.source.next_request() {
            let start = r.offset_bytes + self.offset_bytes;
            let end = start + r.size_bytes.max(1) - 1;
            f(start / unit, end / unit, &r);
        }
        self.source.rewind();
    }

    /// Take the next request to issue and read the following one ahead.
    pub(super) fn take_next(&mut self) -> Option<TraceRequest> {
        let r = self.upcoming.take()?;
        self.upcoming = self.after.take();
        self.after = self.source.next_request();
        self.issued += 1;
        Some(r)
    }

    /// Start reading: fill the look-ahead.
    pub(super) fn start(&mut self) {
        self.source.rewind();
        self.upcoming = self.source.next_request();
        self.after = self.source.next_request();
    }

    pub(super) fn exhausted(&self) -> bool {
        self.upcoming.is_none()
    }
}
