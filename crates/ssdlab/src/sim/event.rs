//! The event queue: events ordered by (time, insertion sequence), so simultaneous events run in
//! the order they were scheduled and every run is deterministic.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::flash::DieId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A flow's next request is processed (its arrival time plus firmware time).
    Arrival { flow: u32 },
    /// A die finished a phase of its command (a read's sensing, or the whole command).
    DieDone(DieId),
    /// The oldest GC read of a job is decoded and in controller memory (a job's reads run on
    /// one die and take the same decode time, so they finish in the order they were read).
    GcReadDone { job: u32 },
    /// The write-buffer timeout of an open page may have expired.
    BufferTimeout { stream: u32 },
}

/// Bits of an event's id (flow, die, job or stream); ids must be at most [`MAX_EVENT_ID`].
const ID_BITS: u32 = 22;
/// Bits of the event kind.
const TAG_BITS: u32 = 2;
/// Bits of the insertion sequence number that breaks ties between events at one time. It
/// wraps after 2^40 (10^12) events, far beyond any run, and only needs to order events of equal
/// time that are in the queue together.
const SEQ_BITS: u32 = 128 - 64 - ID_BITS - TAG_BITS;

/// Largest die, flow, GC job or stream index an event can name.
pub const MAX_EVENT_ID: u32 = (1 << ID_BITS) - 1;

impl Event {
    fn pack(self) -> u32 {
        let (tag, id) = match self {
            Event::Arrival { flow } => (0, flow),
            Event::DieDone(die) => (1, die),
            Event::GcReadDone { job } => (2, job),
            Event::BufferTimeout { stream } => (3, stream),
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
            _ => Event::BufferTimeout { stream: id },
        }
    }
}

/// Events ordered by (time, insertion sequence). Each heap entry is one integer — time in the
/// high 64 bits, then the sequence number, then the packed event — so the heap compares and
/// moves 16 bytes and nothing else.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<u128>>,
    seq: u64,
    /// The last popped event's entry is still at the top of the heap. Handling an event usually
    /// schedules the next one (a read's sensing ends and its transfer is booked, a flow's next
    /// arrival), so a pop is held back until then and that push overwrites the top: one sift
    /// down instead of a pop's and a push's sifts. Keys are unique, so the order is unchanged.
    popped_top: bool,
}

impl EventQueue {
    pub fn push(&mut self, time: u64, event: Event) {
        self.seq = (self.seq + 1) & ((1 << SEQ_BITS) - 1);
        let low = self.seq << (ID_BITS + TAG_BITS) | event.pack() as u64;
        let key = Reverse((time as u128) << 64 | low as u128);
        if std::mem::take(&mut self.popped_top) {
            if let Some(mut top) = self.heap.peek_mut() {
                *top = key;
                return;
            }
        }
        self.heap.push(key);
    }
    pub fn pop(&mut self) -> Option<(u64, Event)> {
        self.drop_popped();
        let Reverse(key) = *self.heap.peek()?;
        self.popped_top = true;
        let bits = key as u32 & ((1 << (ID_BITS + TAG_BITS)) - 1);
        Some(((key >> 64) as u64, Event::unpack(bits)))
    }
    /// Time of the earliest event.
    pub fn peek_time(&mut self) -> Option<u64> {
        self.drop_popped();
        self.heap.peek().map(|Reverse(key)| (key >> 64) as u64)
    }
    /// Remove the entry of the last popped event if no push has overwritten it.
    fn drop_popped(&mut self) {
        if std::mem::take(&mut self.popped_top) {
            self.heap.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::default();
        q.push(10, Event::DieDone(1));
        q.push(5, Event::DieDone(2));
        q.push(10, Event::DieDone(3));
        q.push(5, Event::DieDone(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (5, Event::DieDone(2)),
                (5, Event::DieDone(4)),
                (10, Event::DieDone(1)),
                (10, Event::DieDone(3)),
            ]
        );
    }

    #[test]
    fn every_event_survives_packing() {
        for e in [
            Event::Arrival { flow: 0 },
            Event::DieDone(MAX_EVENT_ID),
            Event::GcReadDone { job: 17 },
            Event::BufferTimeout { stream: 3 },
        ] {
            let mut q = EventQueue::default();
            q.push(u64::MAX, e);
            assert_eq!(q.pop(), Some((u64::MAX, e)));
        }
    }

    #[test]
    fn matches_a_sorted_reference_under_random_monotone_use() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let mut q = EventQueue::default();
        let mut reference: Vec<(u64, u64)> = Vec::new(); // (time, insertion number)
        let (mut now, mut n) = (0u64, 0u64);
        for _ in 0..20_000 {
            if rng.gen_bool(0.55) || reference.is_empty() {
                let t = now + [0, 1, 7, 1000, 1 << 40][rng.gen_range(0..5)] + rng.gen_range(0..3);
                n += 1;
                q.push(t, Event::DieDone(n as u32));
                reference.push((t, n));
            } else {
                reference.sort();
                let (t, id) = reference.remove(0);
                assert_eq!(q.peek_time(), Some(t));
                assert_eq!(q.pop(), Some((t, Event::DieDone(id as u32))));
                now = t;
            }
        }
    }
}
