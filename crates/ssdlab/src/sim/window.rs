//! The statistics window (`[statistics]`): the run's first requests warm the device up and the
//! rest are measured. Host figures count the measured requests only (`Request::measured`);
//! device figures are what the device did after the boundary, the arrival of the first
//! measured request. At the boundary the device counters start over (every one of them is a
//! sum, so what follows is the end of the run less the boundary) and the figures the
//! device keeps outside them (busy times, erase counts) are kept to be taken off at the end.

use serde_json::{json, Value};

use super::Simulation;

/// Where a run is in its window.
pub(super) struct Window {
    /// Warm-up requests still to arrive before the boundary; None while measuring (every
    /// request, with no window; after the boundary, with one).
    warmup_left: Option<u64>,
    /// The requests the warm-up excludes (0 without a window).
    warmup_requests: u64,
    /// The device at the boundary, once crossed.
    boundary: Option<Boundary>,
}

/// What the device had done by the boundary, beyond its counters.
struct Boundary {
    at_ns: u64,
    die_busy_ns: Vec<u64>,
    channel_busy_ns: Vec<u64>,
    link_busy_ns: (u64, u64),
    erase_counts: Vec<u32>,
}

impl Window {
    /// A window that excludes the first `warmup` requests (None: no window).
    pub(super) fn new(warmup: Option<u64>) -> Window {
        Window {
            warmup_left: warmup,
            warmup_requests: warmup.unwrap_or(0),
            boundary: None,
        }
    }
}

/// Each of `now` less its value at the boundary (`at`; None: no window, `now` as it is).
fn since<T: Copy + std::ops::Sub<Output = T>>(
    now: impl Iterator<Item = T>,
    at: Option<&[T]>,
) -> Vec<T> {
    match at {
        Some(at) => now.zip(at).map(|(n, a)| n - *a).collect(),
        None => now.collect(),
    }
}

impl Simulation {
    /// A request arrives: whether it is measured. The first measured one crosses the boundary
    /// (with no window, every request is measured and this is one branch).
    #[inline]
    pub(super) fn arrival_is_measured(&mut self) -> bool {
        match self.window.warmup_left {
            None => true,
            Some(0) => {
                self.window.warmup_left = None;
                self.cross_statistics_boundary();
                true
            }
            Some(n) => {
                self.window.warmup_left = Some(n - 1);
                false
            }
        }
    }

    /// The boundary between warm-up and measurement, the one place in the event loop where it
    /// is crossed: now, before the first measured request acts. The device's counters start
    /// over and what it keeps outside them is noted. A policy that acts at the boundary (ROSA
    /// forces its level-1 GCs here, §3: "then we trigger several Level 1 GCs") is asked from
    /// here, after the counters start over: its work is measured, as is every operation
    /// issued from now on, also for warm-up requests still in flight.
    #[cold]
    fn cross_statistics_boundary(&mut self) {
        self.window.boundary = Some(Boundary {
            at_ns: self.dev.now,
            die_busy_ns: self.dev.sched.die_busy_ns().collect(),
            channel_busy_ns: self.dev.sched.channel_busy_ns().collect(),
            link_busy_ns: self.host.interface.busy_ns(),
            erase_counts: self.dev.ftl.blocks.iter().map(|b| b.erase_count).collect(),
        });
        self.dev.stats = Default::default();
        // A new run of the counters, told apart from the warm-up's: a read issued before now
        // and still queued is the warm-up's, as its count is, though its bytes and energy are
        // counted only as its die starts it, once timed (`read.rs`); in these, the measured
        // part's reads would sense more than their commands' pages (option-space seed 19316).
        self.dev.counters_run = self.dev.counters_run.wrapping_add(1);
        self.host.firmware.stats = Default::default();
        if let Some(c) = &mut self.data_cache {
            c.stats = Default::default();
        }
        if let Some(m) = &mut self.mapping {
            m.reset_stats();
        }
        if let Some(h) = &mut self.writes.hot {
            h.reset_stats();
        }
        for t in self.techniques.iter_mut() {
            t.reset_stats();
        }
    }

    /// Is the next arrival the first measured one?
    pub(super) fn at_statistics_boundary(&self) -> bool {
        self.window.warmup_left == Some(0)
    }

    /// When the measured part began: the boundary, or 0 without a window.
    pub(super) fn measured_from_ns(&self) -> u64 {
        self.window.boundary.as_ref().map_or(0, |b| b.at_ns)
    }

    /// Each die's busy time in the measured part.
    pub(super) fn measured_die_busy_ns(&self) -> Vec<u64> {
        let at = self.window.boundary.as_ref().map(|b| &b.die_busy_ns[..]);
        since(self.dev.sched.die_busy_ns(), at)
    }

    /// Each channel's busy time in the measured part.
    pub(super) fn measured_channel_busy_ns(&self) -> Vec<u64> {
        let at = self
            .window
            .boundary
            .as_ref()
            .map(|b| &b.channel_busy_ns[..]);
        since(self.dev.sched.channel_busy_ns(), at)
    }

    /// The host link's busy time each way (to the device, to the host) in the measured part.
    pub(super) fn measured_link_busy_ns(&self) -> (u64, u64) {
        let (to_device, to_host) = self.host.interface.busy_ns();
        match &self.window.boundary {
            Some(b) => (to_device - b.link_busy_ns.0, to_host - b.link_busy_ns.1),
            None => (to_device, to_host),
        }
    }

    /// Each block's erases in the measured part.
    pub(super) fn measured_erase_counts(&self) -> Vec<u32> {
        let at = self.window.boundary.as_ref().map(|b| &b.erase_counts[..]);
        since(self.dev.ftl.blocks.iter().map(|b| b.erase_count), at)
    }

    /// The `statistics` summary key: what the window excluded (None: no window).
    pub(super) fn window_json(&self) -> Option<Value> {
        let b = self.window.boundary.as_ref()?;
        Some(json!({
            "warmup_requests": self.window.warmup_requests,
            "measured_from_ns": b.at_ns,
            "measured_span_ns": self.dev.now - b.at_ns,
        }))
    }
}
