//! The event queue: events ordered by (time, insertion sequence), so simultaneous events run in
//! the order they were scheduled and every run is deterministic.
//!
//! It sits below both the device (`flash/`, whose dies schedule the end of their commands) and the
//! engine (`sim/`, whose event loop pops them), and knows neither: an event is any [`QueuedEvent`],
//! a value that packs into a few bits of a `u32`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::marker::PhantomData;

/// What the queue holds: a small value that packs into the low [`QueuedEvent::BITS`] bits of a
/// `u32` (a node of the calendar is then 16 bytes, and an overflow entry one `u128`).
pub trait QueuedEvent: Copy {
    /// Bits of the packed form; at most 32.
    const BITS: u32;
    fn pack(self) -> u32;
    /// The inverse of `pack`, for every value `pack` returns.
    fn unpack(bits: u32) -> Self;
}

/// Width of a calendar bucket (2^10 ns, about 1 µs), and of a period (2^9 buckets, 524 µs).
/// With 512 ns buckets and periods twice as long (a 16 KiB fine ring) the steady benchmark
/// missed the first-level data cache 5% more often; 2 µs buckets did about as well as these
/// (docs/performance.md, "The event queue").
const BUCKET_SHIFT: u32 = 10;
const PERIOD_SHIFT: u32 = 9;
/// The fine ring holds the current period and the next, bucket by bucket: nearly every event
/// but a program's or an erase's end (sensing, transfers, decodes, arrivals) lands there
/// directly.
const FINE: usize = 2 << PERIOD_SHIFT;
/// The coarse ring holds the periods after those, up to 33.5 ms ahead (a TLC program, an
/// erase), one unsorted list per period; events further out (slow arrivals, long timeouts) wait
/// in an overflow heap.
const COARSE: u64 = 64;
/// The coarse ring's occupancy is one word, searched by rotation.
const _: () = assert!(COARSE == u64::BITS as u64);
const NIL: u32 = u32::MAX;
/// Words of the fine ring's occupancy bitmap (one summary word has a bit for each).
const WORDS: usize = FINE / 64;
const _: () = assert!(WORDS <= 64);

/// Events ordered by (time, insertion sequence), in a two-level calendar queue (Brown, CACM
/// 1988; the levels as in Varghese and Lauck's hierarchical timing wheels). The fine ring has a
/// bucket per microsecond, each a short list kept in order, with a bitmap of the occupied ones: an
/// event lands in the bucket of its time in O(1), and the next event is the head of the first
/// occupied bucket from the current one. A binary heap's comparisons at every level are
/// unpredictable branches: with ~100 pending events and SSD-like delays it took 34 ns per event
/// in a micro-benchmark, a calendar 14 ns (docs/performance.md, "The event queue").
///
/// Two levels keep the calendar small (8 KiB of fine buckets, 512 bytes of coarse), so its
/// buckets stay in the core's first caches. A one-level ring spanning a TLC program's 5 ms had
/// 16 K buckets (128 KiB), and an insert a program ahead touched a line nothing else had touched
/// since the ring last came round: in the steady benchmark, one insert in six missed the 512 KiB
/// L2 (docs/performance.md, "The event queue"). A program's end now waits in its period's coarse
/// list and moves into the fine ring, once, when that period becomes the next.
///
/// A node is 16 bytes: time, packed event and link. It needs no sequence number: an event goes
/// after every entry of its fine bucket that is not later, and a coarse list keeps insertion
/// order, so simultaneous events keep their order. The overflow heap, whose entries are not
/// kept in insertion order, orders by one integer — time in the high 64 bits, then a sequence
/// number, then the packed event. Entries move down a level as soon as their period comes
/// within the lower level's span (whenever `cur` enters a new period), so before any event of
/// the same period can be pushed into that level directly: moved events stay ahead of later
/// ones. Invariants, with `p` the current period (`cur`'s): the fine ring holds exactly the
/// periods `p` and `p + 1`, and no entry of it lies in a bucket before `cur` (times never go
/// back: an event is scheduled at or after the current instant, whose bucket `cur` is); the
/// coarse ring holds periods `p + 2` to `p + COARSE - 1`; every overflow entry lies in a later
/// period.
pub struct EventQueue<E> {
    /// Per fine bucket (absolute bucket number modulo `FINE`), its list of nodes in order.
    fine: Box<[Bucket; FINE]>,
    /// One bit per fine bucket: occupied; and one bit per word of those: not zero (so the fine
    /// ring is empty when `summary` is).
    occupied: [u64; WORDS],
    summary: u64,
    /// Per coarse period (absolute period modulo `COARSE`), its nodes in insertion order.
    coarse: [Bucket; COARSE as usize],
    /// One bit per coarse period: occupied (zero: the coarse ring is empty).
    coarse_occupied: u64,
    /// Nodes of the lists. Freed nodes are chained through `next`.
    nodes: Vec<Node>,
    free: u32,
    /// Absolute bucket of the last popped event.
    cur: u64,
    overflow: BinaryHeap<Reverse<u128>>,
    /// Insertion sequence of overflow entries.
    seq: u64,
    event: PhantomData<E>,
}

/// A list's first and last node (`last` is meaningless while the list is empty). A fine
/// bucket's list is ascending: events usually come later than those already in their bucket
/// (simultaneous ones always do), and are appended after `last` without a walk.
#[derive(Clone, Copy)]
struct Bucket {
    first: u32,
    last: u32,
}

const EMPTY: Bucket = Bucket {
    first: NIL,
    last: NIL,
};

#[derive(Clone, Copy)]
struct Node {
    time: u64,
    event: u32,
    next: u32,
}

impl<E> Default for EventQueue<E> {
    fn default() -> EventQueue<E> {
        EventQueue {
            fine: Box::new([EMPTY; FINE]),
            occupied: [0; WORDS],
            summary: 0,
            coarse: [EMPTY; COARSE as usize],
            coarse_occupied: 0,
            nodes: Vec::new(),
            free: NIL,
            cur: 0,
            overflow: BinaryHeap::new(),
            seq: 0,
            event: PhantomData,
        }
    }
}

fn bucket_of(time: u64) -> u64 {
    time >> BUCKET_SHIFT
}

fn period_of(time: u64) -> u64 {
    time >> (BUCKET_SHIFT + PERIOD_SHIFT)
}

/// Position of absolute bucket `b` in the fine ring.
fn slot(b: u64) -> usize {
    b as usize & (FINE - 1)
}

fn time_of(key: u128) -> u64 {
    (key >> 64) as u64
}

impl<E: QueuedEvent> EventQueue<E> {
    /// Bits of the insertion sequence number that breaks ties between overflow entries of one
    /// time: what a `u128` key leaves after the time and the packed event. With 32-bit events it
    /// wraps after 2^32 (4 × 10^9) entries, and it only needs to order entries of equal time
    /// that are in the heap together.
    const SEQ_BITS: u32 = 64 - E::BITS;

    /// The packed event of an overflow key.
    fn event_bits(key: u128) -> u32 {
        (key & ((1u128 << E::BITS) - 1)) as u32
    }

    pub fn push(&mut self, time: u64, event: E) {
        debug_assert!(bucket_of(time) >= self.cur, "event scheduled in the past");
        self.place(time, event.pack());
    }

    /// File a packed event in the level whose span holds its period.
    #[inline]
    fn place(&mut self, time: u64, event: u32) {
        let p = period_of(time);
        if p < self.period() + 2 {
            let node = self.new_node(time, event);
            self.insert_fine(node, time);
        } else if p < self.period() + COARSE {
            let node = self.new_node(time, event);
            self.append_coarse(node, p);
        } else {
            self.seq = (self.seq + 1) & ((1 << Self::SEQ_BITS) - 1);
            let low = self.seq << E::BITS | event as u64;
            self.overflow
                .push(Reverse((time as u128) << 64 | low as u128));
        }
    }

    pub fn pop(&mut self) -> Option<(u64, E)> {
        if self.summary == 0 {
            // Jump to the first period with an event: the coarse ring's, else the overflow's.
            let old = self.period();
            let next = if self.coarse_occupied != 0 {
                let from = (old + 2) % COARSE;
                let ahead = self
                    .coarse_occupied
                    .rotate_right(from as u32)
                    .trailing_zeros();
                old + 2 + ahead as u64
            } else {
                let &Reverse(key) = self.overflow.peek()?;
                period_of(time_of(key))
            };
            self.cur = next << PERIOD_SHIFT;
            self.advance(old);
        }
        let b = self.first_occupied();
        // The popped event is the earliest, and nothing is ever scheduled before it.
        let ahead = (b as u64).wrapping_sub(self.cur) % FINE as u64;
        if ahead > 0 {
            let old = self.period();
            self.cur += ahead;
            if self.period() != old {
                self.advance(old);
            }
        }
        let (time, event) = self.take_first(b);
        Some((time, E::unpack(event)))
    }

    /// Pop the earliest event if it is due at `now`, the current instant (the time of the last
    /// pop): it can only be the first of the current bucket, so no search is needed.
    pub fn pop_at(&mut self, now: u64) -> Option<E> {
        let b = slot(self.cur);
        let node = self.fine[b].first;
        if node == NIL || self.nodes[node as usize].time != now {
            return None;
        }
        Some(E::unpack(self.take_first(b).1))
    }

    /// Remove the first entry of occupied fine bucket `b`: its time and packed event.
    fn take_first(&mut self, b: usize) -> (u64, u32) {
        let node = self.fine[b].first;
        let Node { time, event, next } = self.nodes[node as usize];
        self.fine[b].first = next;
        self.nodes[node as usize].next = self.free;
        self.free = node;
        // Clear the bucket's bit if it is now empty, and its word's summary bit if that word
        // is: computed, not branched on, as whether a bucket empties is as good as random.
        let w = b / 64;
        self.occupied[w] &= !(((next == NIL) as u64) << (b % 64));
        self.summary &= !(((self.occupied[w] == 0) as u64) << w);
        (time, event)
    }

    /// The first occupied fine bucket at or after `cur`, going round the ring (the fine ring
    /// must not be empty): the rest of `cur`'s word, else the first non-empty word after it.
    fn first_occupied(&self) -> usize {
        let start = slot(self.cur);
        let w = start / 64;
        let word = self.occupied[w] & (!0u64 << (start % 64));
        if word != 0 {
            return w * 64 + word.trailing_zeros() as usize;
        }
        // Words after `w`, then round to `w` itself (its bits before `start`).
        let after = (w + 1) % WORDS;
        let w = (after + self.summary.rotate_right(after as u32).trailing_zeros() as usize) % WORDS;
        w * 64 + self.occupied[w].trailing_zeros() as usize
    }

    /// The current period: `cur`'s.
    fn period(&self) -> u64 {
        self.cur >> PERIOD_SHIFT
    }

    /// `cur` has moved on from period `old`: the coarse lists of the periods entering the fine
    /// ring, and the overflow entries entering the calendar, move down a level, in order.
    #[inline(never)]
    fn advance(&mut self, old: u64) {
        let to = self.period();
        for p in (old + 2).max(to)..to + 2 {
            // Periods from `old + COARSE` on were never in the coarse ring: theirs is the
            // overflow, moved below.
            if p >= old + COARSE {
                break;
            }
            let c = (p % COARSE) as usize;
            let mut node = self.coarse[c].first;
            if node == NIL {
                continue;
            }
            self.coarse[c].first = NIL;
            self.coarse_occupied &= !(1 << c);
            while node != NIL {
                let Node { time, next, .. } = self.nodes[node as usize];
                self.nodes[node as usize].next = NIL;
                self.insert_fine(node, time);
                node = next;
            }
        }
        while let Some(&Reverse(key)) = self.overflow.peek() {
            if period_of(time_of(key)) >= to + COARSE {
                break;
            }
            self.overflow.pop();
            self.place(time_of(key), Self::event_bits(key));
        }
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

    /// Append `node` to the coarse list of period `p`.
    fn append_coarse(&mut self, node: u32, p: u64) {
        let c = (p % COARSE) as usize;
        if self.coarse[c].first == NIL {
            self.coarse[c] = Bucket {
                first: node,
                last: node,
            };
            self.coarse_occupied |= 1 << c;
        } else {
            let last = self.coarse[c].last;
            self.nodes[last as usize].next = node;
            self.coarse[c].last = node;
        }
    }

    /// Insert `node` (at `time`) into its fine bucket's list, after every entry not later than
    /// it.
    #[inline]
    fn insert_fine(&mut self, node: u32, time: u64) {
        let b = slot(bucket_of(time));
        let Bucket { first, last } = self.fine[b];
        if first == NIL {
            self.fine[b] = Bucket {
                first: node,
                last: node,
            };
            self.occupied[b / 64] |= 1 << (b % 64);
            self.summary |= 1 << (b / 64);
        } else if self.nodes[last as usize].time <= time {
            self.nodes[last as usize].next = node;
            self.fine[b].last = node;
        } else {
            // Before the last: walk to its place.
            let (mut prev, mut at) = (NIL, first);
            while self.nodes[at as usize].time <= time {
                prev = at;
                at = self.nodes[at as usize].next;
            }
            self.nodes[node as usize].next = at;
            if prev == NIL {
                self.fine[b].first = node;
            } else {
                self.nodes[prev as usize].next = node;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event that is just its number, as wide as the engine's.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Id(u32);

    impl QueuedEvent for Id {
        const BITS: u32 = 24;
        fn pack(self) -> u32 {
            self.0
        }
        fn unpack(bits: u32) -> Id {
            Id(bits)
        }
    }

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::default();
        q.push(10, Id(1));
        q.push(5, Id(2));
        q.push(10, Id(3));
        q.push(5, Id(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![(5, Id(2)), (5, Id(4)), (10, Id(1)), (10, Id(3)),]
        );
    }

    #[test]
    fn many_simultaneous_events_keep_their_order() {
        // A closed-loop flow with a deep queue schedules all its first requests at one instant.
        let mut q = EventQueue::default();
        for i in 0..200_000 {
            q.push(5000, Id(i));
        }
        q.push(4999, Id(7));
        assert_eq!(q.pop(), Some((4999, Id(7))));
        for i in 0..200_000 {
            assert_eq!(q.pop_at(5000), Some(Id(i)));
        }
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn the_widest_packed_event_survives_the_overflow_heap() {
        let widest = Id((1 << Id::BITS) - 1);
        let mut q = EventQueue::default();
        q.push(u64::MAX, widest);
        q.push(u64::MAX, Id(0));
        assert_eq!(q.pop(), Some((u64::MAX, widest)));
        assert_eq!(q.pop(), Some((u64::MAX, Id(0))));
    }

    #[test]
    fn matches_a_sorted_reference_under_random_monotone_use() {
        check_against_reference(1, 5);
    }

    #[test]
    fn simultaneous_events_scheduled_from_different_levels_keep_their_order() {
        // Times on a coarse grid, so that events of one time are pushed from instants far apart:
        // the early ones wait in the overflow or a coarse list, the later ones go straight into
        // the fine ring, and they must still come out in insertion order.
        check_against_reference(1 << 17, 6);
        let period = 1u64 << (BUCKET_SHIFT + PERIOD_SHIFT);
        let t = 100 * period + 7;
        let mut q = EventQueue::default();
        q.push(t, Id(1)); // overflow
        q.push(t - 40 * period, Id(2));
        assert_eq!(q.pop(), Some((t - 40 * period, Id(2))));
        q.push(t, Id(3)); // coarse
        q.push(t - period, Id(4));
        assert_eq!(q.pop(), Some((t - period, Id(4))));
        q.push(t, Id(5)); // fine
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(t, Id(1)), (t, Id(3)), (t, Id(5))]);
    }

    /// Random pushes and pops (times rounded up to multiples of `grid`) against a sorted set.
    fn check_against_reference(grid: u64, seed: u64) {
        use rand::{Rng, SeedableRng};
        let period = 1u64 << (BUCKET_SHIFT + PERIOD_SHIFT);
        let span = COARSE * period;
        // Steps within a bucket, across buckets, around a period and the fine ring's span
        // (into the coarse ring), around the calendar's span (through the overflow) and far
        // beyond it.
        let steps = [
            0,
            1,
            7,
            511,
            512,
            1000,
            100_000,
            period - 1,
            period,
            2 * period - 1,
            2 * period + 1,
            10 * period,
            span - period - 1,
            span - 1,
            span,
            span + 513,
            3 * span,
            1 << 40,
        ];
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        let mut q = EventQueue::default();
        let mut reference = std::collections::BTreeSet::new(); // (time, insertion number)
        let (mut now, mut n) = (0u64, 0u64);
        for _ in 0..200_000 {
            if rng.gen_bool(0.55) || reference.is_empty() {
                let t = (now + steps[rng.gen_range(0..steps.len())] + rng.gen_range(0..3))
                    .next_multiple_of(grid);
                n += 1;
                q.push(t, Id(n as u32));
                reference.insert((t, n));
            } else {
                let &(t, id) = reference.first().unwrap();
                if rng.gen_bool(0.5) {
                    // Only an event due at the current instant comes out.
                    let due = q.pop_at(now);
                    if t == now {
                        assert_eq!(due, Some(Id(id as u32)));
                        reference.pop_first();
                    } else {
                        assert_eq!(due, None);
                    }
                } else {
                    assert_eq!(q.pop(), Some((t, Id(id as u32))));
                    reference.pop_first();
                    now = t;
                }
            }
        }
        while let Some((t, id)) = reference.pop_first() {
            assert_eq!(q.pop(), Some((t, Id(id as u32))));
        }
        assert_eq!(q.pop(), None);
    }
}
