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

/// Width of a calendar bucket (2^9 ns = 512 ns) and number of buckets (2^14): the calendar
/// spans 8.4 ms ahead of the current instant, which holds a TLC program (5 ms) and a few bus
/// waits; events further out (slow arrivals, long timeouts) wait in an overflow heap.
const BUCKET_SHIFT: u32 = 9;
const BUCKETS: usize = 1 << 14;
const NIL: u32 = u32::MAX;
/// Words of the occupancy bitmap.
const WORDS: usize = BUCKETS / 64;

/// Events ordered by (time, insertion sequence), in a calendar queue (Brown, CACM 1988): a ring
/// of buckets, each a short list kept in order, with a bitmap of the occupied ones. An event
/// lands in the bucket of its time in O(1), and the next event is the head of the first occupied
/// bucket from the current one. A binary heap's comparisons at every level are unpredictable
/// branches: with ~100 pending events and SSD-like delays it took 34 ns per event in a
/// micro-benchmark, the calendar 14 ns (docs/performance.md, fourth session).
///
/// A calendar node is 16 bytes: time, packed event and link. It needs no sequence number: an
/// event goes after every entry of its bucket that is not later, so simultaneous events keep
/// their insertion order. The overflow heap, whose entries are not kept in insertion order,
/// orders by one integer — time in the high 64 bits, then a sequence number, then the packed
/// event. Its entries move into the calendar, in order, as soon as their bucket comes within the
/// span (whenever `cur` advances), so before any event of the same time can be pushed straight
/// into the calendar: migrated events stay ahead of later ones. Invariants: no entry lies in a
/// bucket before `cur` (times never go back: an event is scheduled at or after the current
/// instant, whose bucket `cur` is), and every overflow entry lies more than a calendar span
/// after `cur`. A bucket's two ends, and a node's fields, sit together so that each is one
/// memory access; the ring and its bitmap have a fixed size, so a masked index needs no bounds
/// check.
pub struct EventQueue {
    /// Per bucket (absolute bucket number modulo `BUCKETS`), its list of nodes.
    buckets: Box<[Bucket; BUCKETS]>,
    /// Nodes of the lists. Freed nodes are chained through `next`.
    nodes: Vec<Node>,
    free: u32,
    /// One bit per bucket: occupied; and one bit per word of those: not zero.
    occupied: Box<[u64; WORDS]>,
    summary: [u64; WORDS / 64],
    /// Absolute bucket of the last popped event.
    cur: u64,
    in_calendar: usize,
    overflow: BinaryHeap<Reverse<u128>>,
    /// Insertion sequence of overflow entries.
    seq: u64,
}

/// A bucket's ascending list: its first and last node (`last` is meaningless while the bucket
/// is empty). Events usually come later than those already in their bucket (simultaneous ones
/// always do), and are appended after `last` without a walk.
#[derive(Clone, Copy)]
struct Bucket {
    first: u32,
    last: u32,
}

#[derive(Clone, Copy)]
struct Node {
    time: u64,
    event: u32,
    next: u32,
}

impl Default for EventQueue {
    fn default() -> EventQueue {
        EventQueue {
            buckets: Box::new(
                [Bucket {
                    first: NIL,
                    last: NIL,
                }; BUCKETS],
            ),
            nodes: Vec::new(),
            free: NIL,
            occupied: Box::new([0; WORDS]),
            summary: [0; WORDS / 64],
            cur: 0,
            in_calendar: 0,
            overflow: BinaryHeap::new(),
            seq: 0,
        }
    }
}

fn bucket_of(time: u64) -> u64 {
    time >> BUCKET_SHIFT
}

/// Position of absolute bucket `b` in the ring.
fn slot(b: u64) -> usize {
    b as usize & (BUCKETS - 1)
}

fn time_of(key: u128) -> u64 {
    (key >> 64) as u64
}

/// The packed event of an overflow key.
fn event_bits(key: u128) -> u32 {
    key as u32 & ((1 << (ID_BITS + TAG_BITS)) - 1)
}

impl EventQueue {
    pub fn push(&mut self, time: u64, event: Event) {
        debug_assert!(bucket_of(time) >= self.cur, "event scheduled in the past");
        if bucket_of(time) < self.cur + BUCKETS as u64 {
            self.insert(time, event.pack());
        } else {
            self.seq = (self.seq + 1) & ((1 << SEQ_BITS) - 1);
            let low = self.seq << (ID_BITS + TAG_BITS) | event.pack() as u64;
            self.overflow
                .push(Reverse((time as u128) << 64 | low as u128));
        }
    }

    pub fn pop(&mut self) -> Option<(u64, Event)> {
        if self.in_calendar == 0 {
            // Jump to the overflow's earliest event: nothing is due before it.
            let &Reverse(key) = self.overflow.peek()?;
            self.cur = bucket_of(time_of(key));
            self.migrate();
        }
        let b = self.first_occupied();
        // The popped event is the earliest, and nothing is ever scheduled before it.
        let ahead = (b as u64).wrapping_sub(self.cur) % BUCKETS as u64;
        if ahead > 0 {
            self.cur += ahead;
            if !self.overflow.is_empty() {
                self.migrate();
            }
        }
        let (time, event) = self.take_first(b);
        Some((time, Event::unpack(event)))
    }

    /// Pop the earliest event if it is due at `now`, the current instant (the time of the last
    /// pop): it can only be the first of the current bucket, so no search is needed.
    pub fn pop_at(&mut self, now: u64) -> Option<Event> {
        let b = slot(self.cur);
        let node = self.buckets[b].first;
        if node == NIL || self.nodes[node as usize].time != now {
            return None;
        }
        Some(Event::unpack(self.take_first(b).1))
    }

    /// Remove the first entry of occupied bucket `b`: its time and packed event.
    fn take_first(&mut self, b: usize) -> (u64, u32) {
        let node = self.buckets[b].first;
        let Node { time, event, next } = self.nodes[node as usize];
        self.buckets[b].first = next;
        self.nodes[node as usize].next = self.free;
        self.free = node;
        // Clear the bucket's bit if it is now empty, and its word's summary bit if that word
        // is: computed, not branched on, as whether a bucket empties is as good as random.
        let w = b / 64;
        self.occupied[w] &= !(((next == NIL) as u64) << (b % 64));
        self.summary[w / 64] &= !(((self.occupied[w] == 0) as u64) << (w % 64));
        self.in_calendar -= 1;
        (time, event)
    }

    /// The first occupied bucket at or after `cur`, going round the ring (the calendar must not
    /// be empty): the rest of `cur`'s word, else the first non-empty word after it by the
    /// summary.
    fn first_occupied(&self) -> usize {
        let start = slot(self.cur);
        let w = start / 64;
        let word = self.occupied[w] & (!0u64 << (start % 64));
        if word != 0 {
            return w * 64 + word.trailing_zeros() as usize;
        }
        // Summary bits after `w`, then round to `w` itself (its bits before `start`).
        let from = w + 1;
        for i in 0..=WORDS / 64 {
            let s = (from / 64 + i) % (WORDS / 64);
            let mut bits = self.summary[s];
            if i == 0 {
                bits &= (!0u64).checked_shl((from % 64) as u32).unwrap_or(0);
            }
            if bits != 0 {
                let w = s * 64 + bits.trailing_zeros() as usize;
                return w * 64 + self.occupied[w].trailing_zeros() as usize;
            }
        }
        unreachable!("the calendar holds {} events", self.in_calendar)
    }

    /// A node holding an event, linked to nothing: a freed one if any.
    fn new_node(&mut self, time: u64, event: u32) -> u32 {
        let node = Node {
            time,
            event,
            next: NIL,
        };
        if self.free == NIL {
            self.nodes.push(node);
            return (self.nodes.len() - 1) as u32;
        }
        let n = self.free;
        self.free = self.nodes[n as usize].next;
        self.nodes[n as usize] = node;
        n
    }

    /// Insert into its bucket's list, after every entry not later than it.
    #[inline]
    fn insert(&mut self, time: u64, event: u32) {
        let b = slot(bucket_of(time));
        let node = self.new_node(time, event);
        let Bucket { first, last } = self.buckets[b];
        if first == NIL {
            self.buckets[b] = Bucket {
                first: node,
                last: node,
            };
            self.occupied[b / 64] |= 1 << (b % 64);
            self.summary[b / 64 / 64] |= 1 << (b / 64 % 64);
        } else if self.nodes[last as usize].time <= time {
            self.nodes[last as usize].next = node;
            self.buckets[b].last = node;
        } else {
            // Before the last: walk to its place.
            let (mut prev, mut at) = (NIL, first);
            while self.nodes[at as usize].time <= time {
                prev = at;
                at = self.nodes[at as usize].next;
            }
            self.nodes[node as usize].next = at;
            if prev == NIL {
                self.buckets[b].first = node;
            } else {
                self.nodes[prev as usize].next = node;
            }
        }
        self.in_calendar += 1;
    }

    /// Move the overflow's entries that now fall inside the calendar's span into it.
    #[inline(never)]
    fn migrate(&mut self) {
        while let Some(&Reverse(key)) = self.overflow.peek() {
            if bucket_of(time_of(key)) >= self.cur + BUCKETS as u64 {
                break;
            }
            self.overflow.pop();
            self.insert(time_of(key), event_bits(key));
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
    fn many_simultaneous_events_keep_their_order() {
        // A closed-loop flow with a deep queue schedules all its first requests at one instant.
        let mut q = EventQueue::default();
        for i in 0..200_000 {
            q.push(5000, Event::Arrival { flow: i });
        }
        q.push(4999, Event::DieDone(7));
        assert_eq!(q.pop(), Some((4999, Event::DieDone(7))));
        for i in 0..200_000 {
            assert_eq!(q.pop_at(5000), Some(Event::Arrival { flow: i }));
        }
        assert_eq!(q.pop(), None);
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
        let span = (BUCKETS as u64) << BUCKET_SHIFT;
        // Steps within a bucket, across buckets, around the calendar's span (wrapping the ring
        // and passing through the overflow) and far beyond it.
        let steps = [
            0,
            1,
            7,
            511,
            512,
            1000,
            100_000,
            span - 1,
            span,
            span + 513,
            3 * span,
            1 << 40,
        ];
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let mut q = EventQueue::default();
        let mut reference = std::collections::BTreeSet::new(); // (time, insertion number)
        let (mut now, mut n) = (0u64, 0u64);
        for _ in 0..200_000 {
            if rng.gen_bool(0.55) || reference.is_empty() {
                let t = now + steps[rng.gen_range(0..steps.len())] + rng.gen_range(0..3);
                n += 1;
                q.push(t, Event::DieDone(n as u32));
                reference.insert((t, n));
            } else {
                let &(t, id) = reference.first().unwrap();
                if rng.gen_bool(0.5) {
                    // Only an event due at the current instant comes out.
                    let due = q.pop_at(now);
                    if t == now {
                        assert_eq!(due, Some(Event::DieDone(id as u32)));
                        reference.pop_first();
                    } else {
                        assert_eq!(due, None);
                    }
                } else {
                    assert_eq!(q.pop(), Some((t, Event::DieDone(id as u32))));
                    reference.pop_first();
                    now = t;
                }
            }
        }
        while let Some((t, id)) = reference.pop_first() {
            assert_eq!(q.pop(), Some((t, Event::DieDone(id as u32))));
        }
        assert_eq!(q.pop(), None);
    }
}
