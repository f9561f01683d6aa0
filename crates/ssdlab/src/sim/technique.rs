//! Where a technique's run-time part plugs into the engine, in one place: its timers (one
//! generic event, `Event::Timer`, handed here to its handler by kind) and its section of the
//! summary and reset at the statistics window's boundary ([`Technique`], the parts listed in
//! [`Techniques`]). A new technique adds its timer kind and handler to
//! [`TimerKind`] and [`Simulation::on_timer`], its part to [`Techniques`] (its field, its
//! construction and its two lists) and, if its timer runs from the start, its first to
//! [`Simulation::start_techniques`]: `event.rs`,
//! `summary.rs` and `window.rs` stay as they are. (What preconditioning leaves in a technique is
//! a policy's state, saved through `ftl/policies.rs`; a run-time part starts afresh each run.)

use serde_json::Value;

use crate::config::Config;
use crate::ftl::Ftl;

use super::host_streams::HostStreams;
use super::idle_gc::IdleGc;
use super::level1::Level1;
use super::Simulation;

/// What the engine asks of every technique's run-time part.
pub(super) trait Technique {
    /// The key of its section of the summary.
    fn section(&self) -> &'static str;
    /// Its section of the summary.
    fn summary(&self) -> Value;
    /// The statistics window's boundary is crossed: its counters start over (what it did
    /// before may be kept apart, in its own section).
    fn reset_stats(&mut self);
}

/// A kind of timer, each with its handler ([`Simulation::on_timer`]); a timer's event carries
/// its kind and an id the handler reads (a stream, a queue).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// The write-buffer timeout of an open page may have expired (id: the open page's key).
    BufferTimeout,
    /// Level-1 GC's interval may have passed without one (ROSA §2).
    Level1,
    /// A page held for its wordline's turn may have waited the write buffer's timeout
    /// (`ftl.host_streams = "wordlines"`; id: the queue).
    Reorder,
    /// Idle GC's check for a host with nothing in flight (`idle_gc.rs`).
    IdleGc,
}

impl TimerKind {
    /// The kind's number in an event.
    pub fn number(self) -> u32 {
        self as u32
    }

    /// The kind numbered `n` (one [`TimerKind::number`] gave).
    pub fn of_number(n: u32) -> TimerKind {
        match n {
            0 => TimerKind::BufferTimeout,
            1 => TimerKind::Level1,
            2 => TimerKind::Reorder,
            _ => TimerKind::IdleGc,
        }
    }
}

impl Simulation {
    /// A timer of `kind` is due.
    pub(super) fn on_timer(&mut self, kind: TimerKind, id: u32) {
        match kind {
            TimerKind::BufferTimeout => self.on_buffer_timeout(id as usize),
            TimerKind::Level1 => self.on_level1_timer(),
            TimerKind::Reorder => self.on_reorder_timeout(id as usize),
            TimerKind::IdleGc => self.on_idle_gc_timer(),
        }
    }

    /// The flows are lined up and the replay is about to start: the techniques whose timers
    /// run from the start set their first.
    pub(super) fn start_techniques(&mut self) {
        self.start_idle_gc();
    }
}

/// The techniques' run-time parts, each there when it is on.
pub(super) struct Techniques {
    /// ROSA's level-1 GC (`level1.rs`).
    pub(super) level1: Option<Level1>,
    /// The host's streams kept apart (`ftl.host_streams`, `host_streams.rs`).
    pub(super) host_streams: Option<HostStreams>,
    /// Idle-time GC (`ftl.idle_gc`, `idle_gc.rs`).
    pub(super) idle_gc: Option<IdleGc>,
}

impl Techniques {
    pub(super) fn new(config: &Config, ftl: &Ftl) -> Techniques {
        Techniques {
            level1: Level1::new(config, &ftl.geometry),
            host_streams: HostStreams::new(config, ftl.pools.len()),
            idle_gc: IdleGc::new(config, ftl),
        }
    }

    /// Every technique's run-time part that is on, in the order the summary lists them.
    pub(super) fn iter(&self) -> impl Iterator<Item = &dyn Technique> {
        let level1 = self.level1.as_ref().map(|t| t as &dyn Technique);
        let host_streams = self.host_streams.as_ref().map(|t| t as &dyn Technique);
        let idle_gc = self.idle_gc.as_ref().map(|t| t as &dyn Technique);
        [level1, host_streams, idle_gc].into_iter().flatten()
    }

    /// [`Techniques::iter`], to change.
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = &mut dyn Technique> {
        let level1 = self.level1.as_mut().map(|t| t as &mut dyn Technique);
        let host_streams = self.host_streams.as_mut().map(|t| t as &mut dyn Technique);
        let idle_gc = self.idle_gc.as_mut().map(|t| t as &mut dyn Technique);
        [level1, host_streams, idle_gc].into_iter().flatten()
    }
}
