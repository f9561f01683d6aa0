//! The techniques' run-time parts, registered in one place: the list at the foot of this file
//! names each technique's field and part, one line a technique, and [`techniques!`] builds from
//! it everything the engine goes through — [`Techniques`] (each part there when it is on),
//! [`TechniqueId`] (a technique named by a timer or a GC job's owner), the replay's start and
//! the timers' dispatch. A part implements [`Technique`]: its construction, its summary section
//! and reset at the statistics window's boundary, its first timers and their handler, and what
//! its GC jobs count. A new technique is a file here and a line in the list; `event.rs`,
//! `summary.rs`, `window.rs`, `gc_job.rs` and `snapshot.rs` stay as they are. (A technique that
//! acts on the engine's paths, as level 1 on arrivals and programs and the host's streams on the
//! write path, is called there through its field. What preconditioning leaves in a technique is
//! a policy's state, saved through `ftl/policies.rs`; a run-time part starts afresh each run.)

mod host_streams;
mod idle_gc;
mod level1;

use serde_json::Value;

use crate::config::Config;
use crate::ftl::Ftl;
use crate::stats::DeviceStats;

use super::event::{Event, Timer, TIMER_KINDS};
use super::gc_job::Owner;
use super::Simulation;
use host_streams::HostStreams;
use idle_gc::IdleGc;
use level1::Level1;

/// What the engine asks of every technique's run-time part.
pub(in crate::sim) trait Technique {
    /// Its part, if `config` turns the technique on.
    fn new(config: &Config, ftl: &Ftl) -> Option<Self>
    where
        Self: Sized;
    /// The key of its section of the summary.
    fn section(&self) -> &'static str;
    /// Its section of the summary.
    fn summary(&self) -> Value;
    /// The statistics window's boundary is crossed: its counters start over (what it did
    /// before may be kept apart, in its own section).
    fn reset_stats(&mut self);
    /// The flows are lined up and the replay is about to start: its first timers, if they run
    /// from the start (before the flows' first arrivals are set, so it may read them through).
    fn start(_sim: &mut Simulation)
    where
        Self: Sized,
    {
    }
    /// A timer it set (`TechniqueId::timer`) is due, carrying `id`.
    fn on_timer(sim: &mut Simulation, id: u32)
    where
        Self: Sized;
    /// A GC job of its own (`Owner::Technique`, `gc_job.rs`) started: counted where it counts
    /// them, in the device's counters (`stats`) and its own.
    fn job_started(&mut self, _stats: &mut DeviceStats) {}
    /// A job of its own copied `units` units into `region`, in one program.
    fn job_copied(&mut self, _stats: &mut DeviceStats, _region: usize, _units: u64) {}
    /// A job of its own ended, having run `ns`.
    fn job_ended(&mut self, _stats: &mut DeviceStats, _ns: u64) {}
    /// A GC job of any owner on `pool` ended (after its own counting, `job_ended`): a technique
    /// whose background work waits on jobs goes on.
    fn after_job(_sim: &mut Simulation, _pool: usize, _owner: Owner)
    where
        Self: Sized,
    {
    }
}

/// The techniques, in the order the summary lists them: each one's field in [`Techniques`] and
/// its part's type, which names it in [`TechniqueId`] too.
macro_rules! techniques {
    ($($(#[$doc:meta])* $field:ident: $part:ident,)+) => {
        /// The techniques' run-time parts, each there when it is on.
        pub(in crate::sim) struct Techniques {
            $($(#[$doc])* pub(in crate::sim) $field: Option<$part>,)+
        }

        /// A technique, as a timer of its own or a GC job it owns names it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum TechniqueId {
            $($part,)+
        }

        impl TechniqueId {
            /// Every technique, in order.
            pub(in crate::sim) const ALL: &[TechniqueId] = &[$(TechniqueId::$part,)+];
        }

        impl Techniques {
            pub(in crate::sim) fn new(config: &Config, ftl: &Ftl) -> Techniques {
                Techniques {
                    $($field: $part::new(config, ftl),)+
                }
            }

            /// Every technique's run-time part that is on, in the order the summary lists them.
            pub(in crate::sim) fn iter(&self) -> impl Iterator<Item = &dyn Technique> {
                [$(self.$field.as_ref().map(|t| t as &dyn Technique),)+]
                    .into_iter()
                    .flatten()
            }

            /// [`Techniques::iter`], to change.
            pub(in crate::sim) fn iter_mut(&mut self) -> impl Iterator<Item = &mut dyn Technique> {
                [$(self.$field.as_mut().map(|t| t as &mut dyn Technique),)+]
                    .into_iter()
                    .flatten()
            }

            /// Technique `t`'s part, if it is on.
            pub(in crate::sim) fn part_mut(&mut self, t: TechniqueId) -> Option<&mut dyn Technique> {
                match t {
                    $(TechniqueId::$part => self.$field.as_mut().map(|p| p as &mut dyn Technique),)+
                }
            }
        }

        impl Simulation {
            /// The flows are lined up and the replay is about to start: each technique sets the
            /// timers that run from the start.
            pub(in crate::sim) fn start_techniques(&mut self) {
                $($part::start(self);)+
            }

            /// A GC job of `owner` on `pool` ended: each technique hears of it.
            pub(in crate::sim) fn techniques_after_job(&mut self, pool: usize, owner: Owner) {
                $($part::after_job(self, pool, owner);)+
            }

            /// A timer of technique `t` is due.
            fn on_technique_timer(&mut self, t: TechniqueId, id: u32) {
                match t {
                    $(TechniqueId::$part => $part::on_timer(self, id),)+
                }
            }
        }
    };
}

// (A timer's kind is one of the few an event can name: the write buffer's, then each
// technique's.)
const _: () = assert!(TechniqueId::ALL.len() < TIMER_KINDS as usize);

impl TechniqueId {
    /// The event of this technique's timer carrying `id` (at most `event::MAX_TIMER_ID`).
    pub(in crate::sim) fn timer(self, id: u32) -> Event {
        Event::Timer(Timer::new(TimerKind::Technique(self), id))
    }
}

/// A kind of timer, with its handler ([`Simulation::on_timer`]); a timer's event carries its
/// kind and an id the handler reads (an open page, a queue).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// The write-buffer timeout of an open page may have expired (id: the open page's key).
    BufferTimeout,
    /// A technique's timer ([`Technique::on_timer`]).
    Technique(TechniqueId),
}

impl TimerKind {
    /// The kind's number in an event.
    pub fn number(self) -> u32 {
        match self {
            TimerKind::BufferTimeout => 0,
            TimerKind::Technique(t) => t as u32 + 1,
        }
    }

    /// The kind numbered `n` (one [`TimerKind::number`] gave).
    pub fn of_number(n: u32) -> TimerKind {
        match n.checked_sub(1) {
            None => TimerKind::BufferTimeout,
            Some(t) => TimerKind::Technique(TechniqueId::ALL[t as usize]),
        }
    }
}

impl Simulation {
    /// A timer of `kind` is due.
    pub(in crate::sim) fn on_timer(&mut self, kind: TimerKind, id: u32) {
        match kind {
            TimerKind::BufferTimeout => self.on_buffer_timeout(id as usize),
            TimerKind::Technique(t) => self.on_technique_timer(t, id),
        }
    }
}

techniques! {
    /// ROSA's level-1 GC (`ftl.level1_gc`, `level1.rs`).
    level1: Level1,
    /// The host's streams kept apart (`ftl.host_streams`, `host_streams.rs`).
    host_streams: HostStreams,
    /// Idle-time GC (`ftl.idle_gc`, `idle_gc.rs`).
    idle_gc: IdleGc,
}
