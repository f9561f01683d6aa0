//! The event queue: events ordered by (time, insertion sequence), so simultaneous events run in
//! the order they were scheduled and every run is deterministic.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::flash::DieId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A flow's next request is processed (its arrival time plus firmware time).
    Arrival { flow: u32 },
    /// A die finished its array phase (sensing, programming, erasing).
    DieDone(DieId),
    /// A channel finished a transfer.
    BusDone(u32),
    /// Data of a GC read is decoded and in controller memory.
    GcReadDone { job: u32, page: u32 },
    /// The write-buffer timeout of an open page expired.
    BufferTimeout { stream: u32, generation: u64 },
}

/// A heap entry: the ordering key (time in the high 64 bits, insertion sequence in the low 64)
/// as one integer, so each comparison in the heap is a single one.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: u64, event: Event) {
        self.seq += 1;
        self.heap.push(Entry {
            key: (time as u128) << 64 | self.seq as u128,
            event,
        });
    }
    pub fn pop(&mut self) -> Option<(u64, Event)> {
        self.heap.pop().map(|e| ((e.key >> 64) as u64, e.event))
    }
    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|e| (e.key >> 64) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::default();
        q.push(10, Event::BusDone(1));
        q.push(5, Event::BusDone(2));
        q.push(10, Event::BusDone(3));
        q.push(5, Event::BusDone(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (5, Event::BusDone(2)),
                (5, Event::BusDone(4)),
                (10, Event::BusDone(1)),
                (10, Event::BusDone(3)),
            ]
        );
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
                q.push(t, Event::BusDone(n as u32));
                reference.push((t, n));
            } else {
                reference.sort();
                let (t, id) = reference.remove(0);
                assert_eq!(q.peek_time(), Some(t));
                assert_eq!(q.pop(), Some((t, Event::BusDone(id as u32))));
                now = t;
            }
        }
    }
}
