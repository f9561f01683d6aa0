//! Where the engine's own time goes, by kind of event (`ssdlab bench --event-costs`, in a build
//! with the `event-costs` feature: `cargo build --release --features event-costs`). The event
//! loop reads a clock after popping each event and after handling it, and charges each stretch
//! to the work it did: popping, starting the dies at the end of an instant, or handling one kind
//! of event (a host read's sensing end, a program's end, a request's arrival, …).
//!
//! Instruction counts (callgrind) say what the engine executes and sampling profiles (`perf`)
//! where it stalls, but neither says what an event of each kind costs in time: callgrind ignores
//! cache latency and prefetches, and sampling without hardware counters (as in a VM) smears
//! stalls over the instructions after them. A time-stamp counter read at each boundary does.
//! It costs two counter reads per event, so the figures describe a slightly slower run; the
//! shares between kinds are what they are for.

use serde_json::{json, Value};

/// A kind of work the event loop does, as charged by the meter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// Taking the next event off the queue.
    Pop,
    /// Starting idle dies once an instant's events have run (timing the read commands).
    StartDies,
    HostReadSensed,
    HostReadTransferred,
    GcReadSensed,
    GcReadTransferred,
    /// A host page's program ends: its buffer room admits waiting writes.
    HostProgramEnd,
    /// A GC or wear-levelling copy's program ends: the job reads on.
    GcProgramEnd,
    EraseEnd,
    GcReadDecoded,
    /// A request arrives: its command crosses the host interface (and, when that takes no time,
    /// the next three).
    Arrival,
    ReadCommand,
    /// A write or a trim.
    UpdateCommand,
    BufferTimeout,
}

impl Work {
    pub const ALL: [Work; 14] = [
        Work::Pop,
        Work::StartDies,
        Work::HostReadSensed,
        Work::HostReadTransferred,
        Work::GcReadSensed,
        Work::GcReadTransferred,
        Work::HostProgramEnd,
        Work::GcProgramEnd,
        Work::EraseEnd,
        Work::GcReadDecoded,
        Work::Arrival,
        Work::ReadCommand,
        Work::UpdateCommand,
        Work::BufferTimeout,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Work::Pop => "pop the next event",
            Work::StartDies => "start dies (end of instant)",
            Work::HostReadSensed => "host read: sensing ends",
            Work::HostReadTransferred => "host read: transfer ends",
            Work::GcReadSensed => "GC read: sensing ends",
            Work::GcReadTransferred => "GC read: transfer ends",
            Work::HostProgramEnd => "host program ends",
            Work::GcProgramEnd => "GC program ends",
            Work::EraseEnd => "erase ends",
            Work::GcReadDecoded => "GC read: decoded",
            Work::Arrival => "request arrives",
            Work::ReadCommand => "read command reaches the FTL",
            Work::UpdateCommand => "write or trim command reaches the FTL",
            Work::BufferTimeout => "write-buffer timeout",
        }
    }
}

/// Time and count per kind of work, in clock ticks (the time-stamp counter on x86-64,
/// nanoseconds elsewhere).
pub struct EventCosts {
    ticks: [u64; Work::ALL.len()],
    counts: [u64; Work::ALL.len()],
    last: u64,
}

impl Default for EventCosts {
    fn default() -> EventCosts {
        EventCosts {
            ticks: [0; Work::ALL.len()],
            counts: [0; Work::ALL.len()],
            last: ticks(),
        }
    }
}

impl EventCosts {
    /// Charge the time since the previous charge to `work`.
    pub(super) fn charge(&mut self, work: Work) {
        let now = ticks();
        self.ticks[work as usize] += now.wrapping_sub(self.last);
        self.counts[work as usize] += 1;
        self.last = now;
    }

    /// How many times `work` was charged.
    pub fn count(&self, work: Work) -> u64 {
        self.counts[work as usize]
    }

    /// Clock ticks charged to `work`.
    pub fn ticks(&self, work: Work) -> u64 {
        self.ticks[work as usize]
    }

    /// Per kind of work that happened: its name, count, share of the metered time, and mean
    /// time per occurrence in nanoseconds, the ticks scaled so that they add up to `wall_ns`
    /// (the run's wall time; the time-stamp counter runs at a constant rate).
    pub fn to_json(&self, wall_ns: f64) -> Value {
        let total: u64 = self.ticks.iter().sum();
        let ns_per_tick = if total > 0 {
            wall_ns / total as f64
        } else {
            0.0
        };
        let rows: Vec<Value> = Work::ALL
            .iter()
            .filter(|&&w| self.count(w) > 0)
            .map(|&w| {
                let (n, t) = (self.count(w), self.ticks(w));
                json!({
                    "work": w.name(),
                    "count": n,
                    "share": (t as f64 / total as f64 * 1e4).round() / 1e4,
                    "ns_each": (t as f64 * ns_per_tick / n as f64 * 10.0).round() / 10.0,
                })
            })
            .collect();
        Value::Array(rows)
    }
}

#[cfg(target_arch = "x86_64")]
fn ticks() -> u64 {
    // SAFETY: reading the time-stamp counter has no preconditions on x86-64.
    unsafe { std::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
fn ticks() -> u64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}
