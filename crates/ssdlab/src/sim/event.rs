//! The engine's events: what the event loop does when one comes due. They live in the
//! [`EventQueue`](crate::event_queue::EventQueue), packed into 32 bits.

use crate::event_queue::QueuedEvent;
use crate::flash::scheduler::DieDone;
use crate::flash::DieId;

use super::technique::TimerKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A flow's next request arrives at the host interface (its trace time).
    Arrival { flow: u32 },
    /// A request's command (and a write's data) is in the device and its firmware time is
    /// over: the FTL acts on it.
    CommandReady { request: u32 },
    /// A die finished a phase of its command (a read's sensing, or the whole command).
    DieDone(DieId),
    /// The oldest GC read of a job is decoded and in controller memory (a job's reads run on
    /// one die and take the same decode time, so they finish in the order they were read).
    GcReadDone { job: u32 },
    /// A timer is due: of the write buffer or of a technique (`technique/`).
    Timer(Timer),
    /// A translation page's reads are decoded: the reads waiting for its entries go on
    /// (`mapping.rs`).
    MappingLoaded { load: u32 },
}

/// Bits of an event's id (flow, request, die, job or stream); ids must be at most
/// [`MAX_EVENT_ID`].
const ID_BITS: u32 = 29;
/// Bits of the event kind.
const TAG_BITS: u32 = 3;
/// Largest die, flow, request, GC job or stream index an event can name.
pub const MAX_EVENT_ID: u32 = (1 << ID_BITS) - 1;
/// Bits of a timer's id; the rest of the event's id is the timer's kind.
const TIMER_ID_BITS: u32 = ID_BITS - 4;
/// Kinds of timer an event can name (16).
pub const TIMER_KINDS: u32 = 1 << (ID_BITS - TIMER_ID_BITS);
/// Largest id a timer can carry.
pub const MAX_TIMER_ID: u32 = (1 << TIMER_ID_BITS) - 1;

/// A timer's kind and the id its handler reads (at most [`MAX_TIMER_ID`]: a stream, a queue),
/// packed in an event's id, the kind in its top bits. The event loop handles a timer as every
/// other event, a tag and one number; only the timer's handler ([`Simulation::on_timer`]) reads
/// its kind: decoding it into an enum of its own at every event would keep the loop from going
/// from the tag straight to the handler (3.7% of the steady benchmark's instructions).
///
/// [`Simulation::on_timer`]: super::Simulation
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timer(u32);

impl Timer {
    pub fn new(kind: TimerKind, id: u32) -> Timer {
        debug_assert!(id <= MAX_TIMER_ID, "timer id {id} checked at construction");
        Timer(kind.number() << TIMER_ID_BITS | id)
    }

    pub fn kind(self) -> TimerKind {
        TimerKind::of_number(self.0 >> TIMER_ID_BITS)
    }

    pub fn id(self) -> u32 {
        self.0 & MAX_TIMER_ID
    }
}

impl QueuedEvent for Event {
    const BITS: u32 = ID_BITS + TAG_BITS;

    fn pack(self) -> u32 {
        let (tag, id) = match self {
            Event::Arrival { flow } => (0, flow),
            Event::DieDone(die) => (1, die),
            Event::GcReadDone { job } => (2, job),
            Event::Timer(Timer(bits)) => (3, bits),
            Event::CommandReady { request } => (4, request),
            Event::MappingLoaded { load } => (5, load),
        };
        debug_assert!(id <= MAX_EVENT_ID, "event id {id} checked at construction");
        tag << ID_BITS | id
    }

    fn unpack(bits: u32) -> Event {
        let id = bits & MAX_EVENT_ID;
        match bits >> ID_BITS {
            0 => Event::Arrival { flow: id },
            1 => Event::DieDone(id),
            2 => Event::GcReadDone { job: id },
            3 => Event::Timer(Timer(id)),
            4 => Event::CommandReady { request: id },
            5 => Event::MappingLoaded { load: id },
            // (A tag `pack` never gives is a defect of the queue's, not a mapping load.)
            _ => unreachable!("event tag {} is not packed", bits >> ID_BITS),
        }
    }
}

impl From<DieDone> for Event {
    fn from(DieDone(die): DieDone) -> Event {
        Event::DieDone(die)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::technique::TechniqueId;

    #[test]
    fn every_event_survives_packing() {
        let timers = (TechniqueId::ALL.iter())
            .map(|&t| Event::Timer(Timer::new(TimerKind::Technique(t), MAX_TIMER_ID)));
        for e in [
            Event::Arrival { flow: 0 },
            Event::DieDone(MAX_EVENT_ID),
            Event::GcReadDone { job: 17 },
            Event::Timer(Timer::new(TimerKind::BufferTimeout, 3)),
            Event::CommandReady {
                request: MAX_EVENT_ID,
            },
            Event::MappingLoaded { load: 5 },
        ]
        .into_iter()
        .chain(timers)
        {
            assert_eq!(Event::unpack(e.pack()), e);
            assert!(u64::from(e.pack()) < 1 << Event::BITS);
        }
    }
}
