//! Timed resources: per-die transaction queues and channel buses (design.md "The device").
//!
//! A read holds its die from sensing until its data has left the page register over the bus:
//! wait for die → sense → wait for channel → transfer out. A program: wait for die → wait for
//! channel → transfer in → tPROG. An erase: wait for die → tBERS. The scheduler knows nothing of
//! what an operation is for; its `owner` tag is handed back on completion.
//!
//! A channel serves transfers in the order dies ask for it. Dies ask in event order, which is
//! time order, so a channel is just the time it next falls free: a die that asks at `t` gets the
//! bus from `max(t, free_at)`. This books a transfer when it is asked for, without an event of
//! its own (a program is one event: its transfer and tPROG are known when it starts).
//!
//! Where a command waits in its die's queue, which queued commands join it, and what a queued
//! read may suspend are the scheduler's policy's (`scheduling.rs`); the rest is the same for
//! every policy. A die starting an operation may take queued operations on its other planes
//! that the policy joins to it (a multi-plane command: `scheduler.multiplane`), and runs them as
//! one: the array phase lasts as long as the slowest plane's, the bus carries every plane's data
//! back to back, and all complete together.
//!
//! With suspension on (`scheduler.suspension`; Wu and He, FAST '12), a read queued at a die in
//! the array phase of a program or erase stops it: after the suspend latency the die serves its
//! queued reads, then resumes the operation for the time it had left. The operation's own
//! completion event is then stale; the die remembers it and lets it pass.

use std::collections::VecDeque;

use super::geometry::{DieId, Geometry};
use super::scheduling::{KindRules, Lane, Queued, SchedulingPolicy};
use crate::event_queue::{EventQueue, QueuedEvent};

/// The event a die schedules for the end of a phase of its command (a read's sensing, or the
/// whole command): whoever runs the event queue turns it into its own event and hands it back to
/// [`Scheduler::on_die_done`] when it comes due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DieDone(pub DieId);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Program,
    Erase,
}

impl OpKind {
    pub const ALL: [OpKind; 3] = [OpKind::Read, OpKind::Program, OpKind::Erase];
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Program => "program",
            OpKind::Erase => "erase",
        }
    }
}

/// Who asked for a flash operation (MQSim's transaction sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpSource {
    Host,
    Gc,
    /// Static wear levelling.
    Wl,
    /// A host write reading the old data it merges with: the rest of a unit it writes in part
    /// (read-modify-write), or the other units of a logical page MGA merges back into one. On
    /// the host's behalf, but no host read: counted apart so that RAF and the error model's
    /// read figures stay the host's.
    Rmw,
    /// A translation page of a mapping table kept on flash (`ftl.mapping_cache`): read to load
    /// entries or to merge a write-back, or written back.
    Mapping,
}

impl OpSource {
    pub const ALL: [OpSource; 5] = [
        OpSource::Host,
        OpSource::Gc,
        OpSource::Wl,
        OpSource::Rmw,
        OpSource::Mapping,
    ];
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn name(self) -> &'static str {
        match self {
            OpSource::Host => "host",
            OpSource::Gc => "gc",
            OpSource::Wl => "wl",
            OpSource::Rmw => "rmw",
            OpSource::Mapping => "mapping",
        }
    }
}

/// One flash command. Programs and erases are timed by the FTL before submission; a read is
/// timed when its die starts it (see [`OpShaper`]), because until then it may absorb later reads
/// of the same page: until then its `array_ns` is the page's full sensing time.
#[derive(Clone, Copy, Debug)]
pub struct FlashOp {
    pub kind: OpKind,
    pub source: OpSource,
    pub die: DieId,
    /// Plane within the die, and page index within the block (for multi-plane pairing).
    pub plane_in_die: u32,
    pub page_in_block: u32,
    /// Physical page (read, program) or block (erase).
    pub target: u32,
    /// Read: the page's codewords wanted (bit i = codeword i); 0 for programs and erases.
    pub codewords: u64,
    /// Array time: sensing (read), tPROG (program), tBERS (erase).
    pub array_ns: u64,
    /// Bus time: data out after sensing (read) or in before programming (program).
    pub transfer_ns: u64,
    /// Engine-defined tag handed back on completion.
    pub owner: u32,
    /// Engine-defined: which run of the engine's counters the operation was issued in (they
    /// start over at a statistics boundary), so that what the engine counts as the die starts
    /// the operation is counted with the operation's own count (`OpShaper::on_start`).
    pub issued_in: u8,
}

/// Told of each operation as its die starts it, and may set its times then. The engine's read
/// path times a read command from the union of everything wanted from its page by that moment
/// (spread.txt §IV's mode selector); `()` leaves operations as submitted.
pub trait OpShaper {
    fn on_start(&mut self, op: &mut FlashOp);
    /// The wordline read `op` would be melded on: a key shared by the reads of one wordline of
    /// one block, or None where reads are not melded (the default).
    fn wordline(&self, _op: &FlashOp) -> Option<u64> {
        None
    }
    /// Whether the die senses `first`'s whole wordline in one command when queued reads want
    /// `first`'s page and the `queued` pages of it.
    fn melds(&self, _first: &FlashOp, _queued: &[u32]) -> bool {
        false
    }
    /// Told of a melded command, the reads of one wordline, as its die starts it (instead of
    /// `on_start` for each).
    fn on_start_melded(&mut self, _ops: &mut [FlashOp]) {}
    /// Told that a read suspended a command of this kind (program or erase).
    fn on_suspend(&mut self, _kind: OpKind) {}
}

impl OpShaper for () {
    fn on_start(&mut self, _: &mut FlashOp) {}
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    /// A read is sensing; its transfer is booked when sensing ends.
    Sensing,
    /// The command's last phase is booked; it completes at the die's next event.
    Finishing,
}

struct Die {
    /// The channel the die is on (kept here: a division on every transfer showed in profiles).
    channel: u32,
    phase: Phase,
    /// The operations running together (one, or several planes' in a multi-plane command).
    current: Vec<FlashOp>,
    transfer_ns: u64,
    // Operations are held in the queues themselves: a die's queue is read in order, which keeps
    // it in cache (a shared slab of operations indexed from the queues was not). The lanes
    // `Lane::Reads` and `Lane::Others`, in the order each is served.
    reads: VecDeque<FlashOp>,
    others: VecDeque<FlashOp>,
    busy_since: u64,
    busy_ns: u64,
    /// Listed in `to_start`: idle with queued work, to be started at the end of this instant
    /// (or, with suspension, busy with a program or erase a queued read may suspend).
    start_pending: bool,
    /// When the running command's array phase began (a program's after its data is in) and
    /// when the command ends: where a suspension may stop it, and what it has left.
    array_from: u64,
    done_at: u64,
    /// How often the running command has been suspended.
    times_suspended: u32,
    /// A suspended command, its time left and how often it has been suspended (None: none).
    suspended: Option<(u64, u32)>,
    suspended_ops: Vec<FlashOp>,
    /// The completion events of suspended commands, stale: each is let pass once.
    stale_events: Vec<u64>,
}

struct Channel {
    /// When the last booked transfer ends.
    free_at: u64,
    busy_ns: u64,
}

/// The dies and channels of a device, their commands ordered, joined and suspended by the
/// policy `P` (the engine's: [`KindRules`], the rules `[scheduler]` sets).
pub struct Scheduler<P: SchedulingPolicy = KindRules> {
    dies: Vec<Die>,
    channels: Vec<Channel>,
    policy: P,
    /// Idle dies with queued work. They start once everything submitted at the current instant
    /// is queued, so simultaneous commands can pair (multi-plane) or be reordered (read priority).
    to_start: Vec<DieId>,
}

impl<P: SchedulingPolicy> Scheduler<P> {
    pub fn new(g: &Geometry, policy: P) -> Scheduler<P> {
        let dies = (0..g.dies())
            .map(|d| Die {
                // (PCM devices too: each on its channel's bus, with its own queue.)
                channel: g.channel_of_die(d),
                phase: Phase::Idle,
                current: Vec::new(),
                transfer_ns: 0,
                reads: VecDeque::new(),
                others: VecDeque::new(),
                busy_since: 0,
                busy_ns: 0,
                start_pending: false,
                array_from: 0,
                done_at: 0,
                times_suspended: 0,
                suspended: None,
                suspended_ops: Vec::new(),
                stale_events: Vec::new(),
            })
            .collect();
        let channels = (0..g.channels)
            .map(|_| Channel {
                free_at: 0,
                busy_ns: 0,
            })
            .collect();
        Scheduler {
            dies,
            channels,
            policy,
            to_start: Vec::new(),
        }
    }

    /// Queue an operation on its die where the policy places it (it starts, if the die is
    /// idle, when the instant ends).
    pub fn submit(&mut self, op: FlashOp) {
        let die = &mut self.dies[op.die as usize];
        let queued = Queued {
            reads: &die.reads,
            others: &die.others,
        };
        let place = self.policy.place(&op, &queued);
        debug_assert!(place.lane == Lane::Others || op.kind == OpKind::Read);
        // (A push at the back of each lane of its own: one push at the back of the lane chosen
        // kept the lane in a register over the queue's growth, which cost the steady benchmark
        // 0.2% more instructions.)
        match (place.lane, place.before) {
            (Lane::Reads, None) => die.reads.push_back(op),
            (Lane::Others, None) => die.others.push_back(op),
            (Lane::Reads, Some(i)) => die.reads.insert(i, op),
            (Lane::Others, Some(i)) => die.others.insert(i, op),
        }
        let may_suspend = die.phase == Phase::Finishing
            && op.kind == OpKind::Read
            && self.policy.may_suspend(&op)
            && die.suspended.is_none();
        if (die.phase == Phase::Idle || may_suspend) && !die.start_pending {
            die.start_pending = true;
            self.to_start.push(op.die);
        }
    }

    /// Whether some die waits to start at the instant's end ([`Scheduler::start_pending`]).
    #[inline]
    pub fn has_pending(&self) -> bool {
        !self.to_start.is_empty()
    }

    /// Start the idle dies that have work; the engine calls this once every event of the
    /// current instant has run, so every command of that instant has been submitted.
    pub fn start_pending(
        &mut self,
        now: u64,
        events: &mut EventQueue<impl QueuedEvent + From<DieDone>>,
        shaper: &mut impl OpShaper,
    ) {
        // In the order the dies became ready, so the first to ask gets the bus first.
        let mut i = 0;
        while i < self.to_start.len() {
            let d = self.to_start[i];
            self.dies[d as usize].start_pending = false;
            match self.dies[d as usize].phase {
                Phase::Idle => self.start_next(d, now, now, events, shaper),
                Phase::Finishing => self.suspend(d, now, events, shaper),
                Phase::Sensing => {}
            }
            i += 1;
        }
        self.to_start.clear();
    }

    /// Operations queued or running on a die (the dynamic allocator's load measure). An idle
    /// die's `current` still holds its finished command until it starts again: not load.
    pub fn die_load(&self, die: DieId) -> usize {
        let d = &self.dies[die as usize];
        let running = if d.phase == Phase::Idle {
            0
        } else {
            d.current.len()
        };
        let suspended = match d.suspended {
            Some(_) => d.suspended_ops.len(),
            None => 0,
        };
        d.reads.len() + d.others.len() + running + suspended
    }

    /// Suspend the die's program or erase for its queued reads, if the policy allows: it stops
    /// when its array phase has begun (a program's data is in by then), the die senses after
    /// the suspend latency, and the operation keeps the time it had left for its resumption.
    /// (Cold, kept out of line: the steady path of a device without suspension stays as it was.)
    #[cold]
    #[inline(never)]
    fn suspend(
        &mut self,
        die_id: DieId,
        now: u64,
        events: &mut EventQueue<impl QueuedEvent + From<DieDone>>,
        shaper: &mut impl OpShaper,
    ) {
        let die = &mut self.dies[die_id as usize];
        let kind = die.current[0].kind;
        let Some(rule) = self.policy.suspension(kind) else {
            return;
        };
        let at = now.max(die.array_from);
        let left = die.done_at.saturating_sub(at);
        if die.reads.is_empty()
            || die.suspended.is_some()
            || die.times_suspended >= rule.max_per_operation
            || left == 0
            || left < rule.min_remaining_ns
        {
            return;
        }
        die.stale_events.push(die.done_at);
        die.busy_ns += at - die.busy_since;
        die.busy_since = at;
        die.suspended = Some((left, die.times_suspended + 1));
        std::mem::swap(&mut die.current, &mut die.suspended_ops);
        shaper.on_suspend(kind);
        self.start_next(die_id, now, at + rule.latency_ns, events, shaper);
    }

    /// Resume the die's suspended command for the time it had left.
    #[cold]
    #[inline(never)]
    fn resume(
        &mut self,
        die_id: DieId,
        now: u64,
        events: &mut EventQueue<impl QueuedEvent + From<DieDone>>,
    ) {
        let die = &mut self.dies[die_id as usize];
        let Some((left, times)) = die.suspended.take() else {
            return;
        };
        std::mem::swap(&mut die.current, &mut die.suspended_ops);
        die.times_suspended = times;
        die.phase = Phase::Finishing;
        die.busy_since = now;
        die.array_from = now;
        die.done_at = now + left;
        events.push(die.done_at, DieDone(die_id).into());
    }

    pub fn die_busy_ns(&self) -> impl Iterator<Item = u64> + '_ {
        self.dies.iter().map(|d| d.busy_ns)
    }
    pub fn channel_busy_ns(&self) -> impl Iterator<Item = u64> + '_ {
        self.channels.iter().map(|c| c.busy_ns)
    }

    /// Start the die's next command at `start` (`now`, or later after a suspend latency).
    /// (Inlined into `start_pending`, as it was before suspension's two branches made it
    /// larger: out of line it cost the steady benchmark 5% more instructions.)
    #[inline(always)]
    fn start_next(
        &mut self,
        die_id: DieId,
        now: u64,
        start: u64,
        events: &mut EventQueue<impl QueuedEvent + From<DieDone>>,
        shaper: &mut impl OpShaper,
    ) {
        let die = &mut self.dies[die_id as usize];
        let from_reads = !die.reads.is_empty();
        if !from_reads && die.suspended.is_some() {
            return self.resume(die_id, now, events);
        }
        let queue = if from_reads {
            &mut die.reads
        } else {
            &mut die.others
        };
        let Some(first) = queue.pop_front() else {
            die.phase = Phase::Idle;
            return;
        };
        if die.suspended.is_none() {
            die.times_suspended = 0;
        }
        die.current.clear();
        die.current.push(first);
        if first.kind == OpKind::Read {
            if let Some(wordline) = shaper.wordline(&first) {
                // A melded read takes the queued reads of the wordline's other pages with it,
                // ahead of what is queued between (a read overtakes nothing it depends on: a
                // page is read only once programmed).
                let siblings: Vec<usize> = (queue.iter().enumerate())
                    .filter(|(_, op)| {
                        op.kind == OpKind::Read && shaper.wordline(op) == Some(wordline)
                    })
                    .map(|(i, _)| i)
                    .collect();
                let queued: Vec<u32> = siblings.iter().map(|&i| queue[i].target).collect();
                if shaper.melds(&first, &queued) {
                    for &i in siblings.iter().rev() {
                        if let Some(op) = queue.remove(i) {
                            die.current.push(op);
                        }
                    }
                    shaper.on_start_melded(&mut die.current);
                    return self.run_current(die_id, start, events);
                }
            }
        }
        // Multi-plane: queued operations on other planes the policy joins. Only a plane's first
        // queued operation may join: taking a later one would overtake the plane's earlier
        // operations (and program a block's pages out of order).
        let mut planes_seen: u64 = 1 << (first.plane_in_die % 64);
        let mut i = 0;
        while die.current.len() < self.policy.max_group() && i < queue.len() {
            let op = &queue[i];
            let plane_bit = 1u64 << (op.plane_in_die % 64);
            let pairs = planes_seen & plane_bit == 0 && self.policy.joins(&first, op);
            planes_seen |= plane_bit;
            if pairs {
                if let Some(taken) = queue.remove(i) {
                    die.current.push(taken);
                }
            } else {
                i += 1;
            }
        }
        for op in die.current.iter_mut() {
            shaper.on_start(op);
        }
        self.run_current(die_id, start, events);
    }

    /// Start the die's command at `start`, its operations shaped: the array phase as long as
    /// the slowest operation's, the bus carrying every operation's data back to back. (A die
    /// serving reads in a suspension counts as busy from the suspension on.)
    fn run_current(
        &mut self,
        die_id: DieId,
        start: u64,
        events: &mut EventQueue<impl QueuedEvent + From<DieDone>>,
    ) {
        let die = &mut self.dies[die_id as usize];
        let first = die.current[0];
        let array_ns = die.current.iter().map(|c| c.array_ns).max().unwrap_or(0);
        die.transfer_ns = die.current.iter().map(|c| c.transfer_ns).sum();
        if die.suspended.is_none() {
            die.busy_since = start;
        }
        let done = match first.kind {
            OpKind::Read => {
                die.phase = Phase::Sensing;
                start + array_ns
            }
            OpKind::Erase => {
                die.phase = Phase::Finishing;
                die.array_from = start;
                start + array_ns
            }
            OpKind::Program => {
                die.phase = Phase::Finishing;
                let transfer_ns = die.transfer_ns;
                let array_from = self.book_bus(die_id, start, transfer_ns);
                self.dies[die_id as usize].array_from = array_from;
                array_from + array_ns
            }
        };
        self.dies[die_id as usize].done_at = done;
        events.push(done, DieDone(die_id).into());
    }

    /// Book the die's channel for `transfer_ns` from `now` or when it falls free; returns when
    /// the transfer ends.
    fn book_bus(&mut self, die_id: DieId, now: u64, transfer_ns: u64) -> u64 {
        let channel = &mut self.channels[self.dies[die_id as usize].channel as usize];
        channel.free_at = channel.free_at.max(now) + transfer_ns;
        channel.busy_ns += transfer_ns;
        channel.free_at
    }

    /// A phase of a die's command ended: a read's sensing (its transfer out is booked now), or
    /// the whole command. Returns the operations of a finished command; they stay readable until
    /// the die starts again, at the end of the instant.
    pub fn on_die_done(
        &mut self,
        die_id: DieId,
        now: u64,
        events: &mut EventQueue<impl QueuedEvent + From<DieDone>>,
    ) -> &[FlashOp] {
        let die = &mut self.dies[die_id as usize];
        if !die.stale_events.is_empty() && Self::pass_stale_event(die, now) {
            return &[];
        }
        if die.phase == Phase::Sensing {
            die.phase = Phase::Finishing;
            let transfer_ns = die.transfer_ns;
            let done = self.book_bus(die_id, now, transfer_ns);
            events.push(done, DieDone(die_id).into());
            return &[];
        }
        die.busy_ns += now - die.busy_since;
        // (Busy on, without a gap, if this was a read served in a suspension.)
        die.busy_since = now;
        die.phase = Phase::Idle;
        if !die.start_pending {
            die.start_pending = true;
            self.to_start.push(die_id);
        }
        &self.dies[die_id as usize].current
    }

    /// Whether the event due now is a suspended command's stale completion; if so, it is let
    /// pass (once).
    #[cold]
    #[inline(never)]
    fn pass_stale_event(die: &mut Die, now: u64) -> bool {
        match die.stale_events.iter().position(|&t| t == now) {
            Some(i) => {
                die.stale_events.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// Whether the die's command is a read still sensing (its next event ends the sensing).
    /// Only the event-cost meter asks.
    #[cfg(any(test, feature = "event-costs"))]
    pub fn is_sensing(&self, die_id: DieId) -> bool {
        self.dies[die_id as usize].phase == Phase::Sensing
    }

    /// Operation `i` of the die's current (or just finished) command.
    pub fn current_op(&self, die_id: DieId, i: usize) -> Option<FlashOp> {
        self.dies[die_id as usize].current.get(i).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::scheduling::{Place, SuspendRule, Suspension};
    use crate::test_support::small_geometry as geometry;

    /// The die's own event stands for an engine's in these tests.
    impl QueuedEvent for DieDone {
        const BITS: u32 = 32;
        fn pack(self) -> u32 {
            self.0
        }
        fn unpack(bits: u32) -> DieDone {
            DieDone(bits)
        }
    }

    fn program(plane: u32, page_in_block: u32, target: u32) -> FlashOp {
        FlashOp {
            kind: OpKind::Program,
            source: OpSource::Host,
            die: 0,
            plane_in_die: plane,
            page_in_block,
            target,
            codewords: 0,
            array_ns: 100,
            transfer_ns: 10,
            owner: target,
            issued_in: 0,
        }
    }

    /// The rules of `[scheduler]`: reads first or not, operations joined across the small
    /// device's planes or not, nothing suspended.
    fn rules(read_priority: bool, multiplane: bool) -> KindRules {
        KindRules {
            read_priority,
            max_group: match multiplane {
                true => geometry().planes_per_die as usize,
                false => 1,
            },
            suspension: None,
        }
    }

    /// Run the scheduler alone until idle; (target, completion time) in completion order.
    fn completion_order<P: SchedulingPolicy>(s: &mut Scheduler<P>) -> Vec<(u32, u64)> {
        timed_completions(s, Vec::new())
    }

    #[test]
    fn a_pcm_read_waits_for_its_channel_but_not_for_a_flash_erase_on_it() {
        let g = crate::test_support::geometry(&[
            "geometry.page_size_kib=4",
            "geometry.pcm={capacity_share=0.2}",
            "timing.pcm={set=\"pcm1\"}",
            "ftl.placement={policy=\"oblivious\"}",
        ]);
        let pcm_die = g.die_sets[1].first_plane / g.planes_per_die;
        assert_eq!(
            g.channel_of_die(0),
            g.channel_of_die(pcm_die),
            "both on channel 0"
        );
        let op = |kind, die, array_ns, transfer_ns, target| FlashOp {
            kind,
            source: OpSource::Host,
            die,
            plane_in_die: 0,
            page_in_block: 0,
            target,
            codewords: 1,
            array_ns,
            transfer_ns,
            owner: target,
            issued_in: 0,
        };
        // A flash die on channel 0 erases (3 ms) and then moves a read's data (its bus phase
        // from 3 ms on); PCM on the same channel senses at once and moves its data first.
        let mut s = Scheduler::new(&g, rules(false, false));
        s.submit(op(OpKind::Erase, 0, 3_000_000, 0, 1));
        s.submit(op(OpKind::Read, 0, 50_000, 4_000, 2));
        s.submit(op(OpKind::Read, pcm_die, 2_500, 4_000, 3));
        let done = completion_order(&mut s);
        assert_eq!(done[0], (3, 6_500), "PCM: 2.5 µs sensing, 4 µs on the bus");
        assert_eq!(done.last(), Some(&(2, 3_054_000)));
        // Two PCM reads on one channel's PCM die and a flash read: the bus is shared (one
        // transfer at a time), the dies are not.
        let mut s = Scheduler::new(&g, rules(false, false));
        s.submit(op(OpKind::Read, 0, 2_000, 4_000, 1));
        s.submit(op(OpKind::Read, pcm_die, 2_000, 4_000, 2));
        let done = completion_order(&mut s);
        assert_eq!(
            done,
            vec![(1, 6_000), (2, 10_000)],
            "the second transfer waits for the bus"
        );
    }

    /// Run the scheduler with operations submitted at their times (besides those submitted
    /// already) until idle; (target, completion time) in completion order.
    fn timed_completions<P: SchedulingPolicy>(
        s: &mut Scheduler<P>,
        ops: Vec<(u64, FlashOp)>,
    ) -> Vec<(u32, u64)> {
        // A submission is an event of its own, with an id past every die's.
        const SUBMIT: u32 = 1 << 20;
        let mut events = EventQueue::<DieDone>::default();
        for (i, (t, _)) in ops.iter().enumerate() {
            events.push(*t, DieDone(SUBMIT + i as u32));
        }
        let (mut order, mut now) = (Vec::new(), 0);
        loop {
            let e = match events.pop_at(now) {
                Some(e) => e,
                None => {
                    s.start_pending(now, &mut events, &mut ());
                    let Some((t, e)) = events.pop() else { break };
                    now = t;
                    e
                }
            };
            if e.0 >= SUBMIT {
                s.submit(ops[(e.0 - SUBMIT) as usize].1);
                continue;
            }
            let done = s.on_die_done(e.0, now, &mut events);
            order.extend(done.iter().map(|o| (o.target, now)));
        }
        order
    }

    fn op(kind: OpKind, array_ns: u64, transfer_ns: u64, target: u32) -> FlashOp {
        FlashOp {
            kind,
            source: OpSource::Host,
            die: 0,
            plane_in_die: 0,
            page_in_block: 0,
            target,
            codewords: 1,
            array_ns,
            transfer_ns,
            owner: target,
            issued_in: 0,
        }
    }

    fn suspending(program: Option<u64>, erase: Option<u64>, min: u64, max: u32) -> Scheduler {
        let rule = |latency_ns: Option<u64>| {
            latency_ns.map(|latency_ns| SuspendRule {
                latency_ns,
                min_remaining_ns: min,
                max_per_operation: max,
            })
        };
        let suspension = Suspension {
            program: rule(program),
            erase: rule(erase),
        };
        let policy = KindRules {
            suspension: Some(suspension),
            ..rules(true, false)
        };
        Scheduler::new(&geometry(), policy)
    }

    #[test]
    fn a_read_suspends_an_erase_which_resumes_for_the_time_it_had_left() {
        let erase = op(OpKind::Erase, 3_000_000, 0, 1);
        let read = |at, target| (at, op(OpKind::Read, 50_000, 4_000, target));
        // Without suspension the read waits for the erase: 3 ms + 50 µs + 4 µs.
        let mut s = Scheduler::new(&geometry(), rules(true, false));
        let done = timed_completions(&mut s, vec![(0, erase), read(1_000_000, 2)]);
        assert_eq!(done, vec![(1, 3_000_000), (2, 3_054_000)]);
        // With it: 20 µs to suspend, the read, then the erase's 2 ms left.
        let mut s = suspending(None, Some(20_000), 0, 1);
        let done = timed_completions(&mut s, vec![(0, erase), read(1_000_000, 2)]);
        assert_eq!(done, vec![(2, 1_074_000), (1, 3_074_000)]);
        assert_eq!(s.die_busy_ns().next(), Some(3_074_000), "busy throughout");
        // An erase with less than the least left runs to its end.
        let mut s = suspending(None, Some(20_000), 100_000, 1);
        let done = timed_completions(&mut s, vec![(0, erase), read(2_950_000, 2)]);
        assert_eq!(done, vec![(1, 3_000_000), (2, 3_054_000)]);
        // Once suspended as often as allowed, it runs to its end; reads queued in a suspension
        // are served in it.
        let mut s = suspending(None, Some(20_000), 0, 1);
        let ops = vec![
            (0, erase),
            read(1_000_000, 2),
            read(1_010_000, 3),
            read(2_000_000, 4),
        ];
        let done = timed_completions(&mut s, ops);
        assert_eq!(
            done,
            vec![
                (2, 1_074_000),
                (3, 1_128_000),
                (1, 3_128_000),
                (4, 3_182_000)
            ]
        );
        // Twice allowed: the second read suspends it again.
        let mut s = suspending(None, Some(20_000), 0, 2);
        let ops = vec![(0, erase), read(1_000_000, 2), read(2_000_000, 4)];
        let done = timed_completions(&mut s, ops);
        assert_eq!(done, vec![(2, 1_074_000), (4, 2_074_000), (1, 3_148_000)]);
        // Programs are not suspended when only erases may be.
        let mut s = suspending(None, Some(20_000), 0, 1);
        let ops = vec![
            (0, op(OpKind::Program, 500_000, 10_000, 1)),
            read(100_000, 2),
        ];
        let done = timed_completions(&mut s, ops);
        assert_eq!(done, vec![(1, 510_000), (2, 564_000)]);
    }

    #[test]
    fn a_read_suspends_a_program_once_its_data_is_in() {
        // The program's data is on the bus until 10 µs; the read arrives at 5 µs and the
        // program stops at 10 µs, 5 µs to suspend, then 50 + 4 µs; the program's 500 µs
        // follow.
        let mut s = suspending(Some(5_000), None, 0, 1);
        let ops = vec![
            (0, op(OpKind::Program, 500_000, 10_000, 1)),
            (5_000, op(OpKind::Read, 50_000, 4_000, 2)),
        ];
        let done = timed_completions(&mut s, ops);
        assert_eq!(done, vec![(2, 69_000), (1, 569_000)]);
        // Queued programs wait for the suspended one: it resumes before them.
        let mut s = suspending(Some(5_000), None, 0, 1);
        let ops = vec![
            (0, op(OpKind::Program, 500_000, 10_000, 1)),
            (1_000, op(OpKind::Program, 500_000, 10_000, 3)),
            (5_000, op(OpKind::Read, 50_000, 4_000, 2)),
        ];
        let done = timed_completions(&mut s, ops);
        assert_eq!(done, vec![(2, 69_000), (1, 569_000), (3, 1_079_000)]);
        assert_eq!(s.die_load(0), 0);
    }

    #[test]
    fn a_die_that_finished_its_work_carries_no_load() {
        let mut s = Scheduler::new(&geometry(), rules(false, false));
        s.submit(program(0, 0, 100));
        s.submit(program(0, 1, 101));
        assert_eq!(s.die_load(0), 2);
        assert_eq!(completion_order(&mut s).len(), 2);
        assert_eq!(s.die_load(0), 0, "idle, with its last command finished");
    }

    #[test]
    fn multiplane_pairs_only_each_planes_first_operation() {
        // Plane 1 page 5 may pair with plane 0's page 5 only if nothing of plane 0 is ahead of it:
        // here plane 0's page 4 is, so pairing would program that block out of order.
        let mut s = Scheduler::new(&geometry(), rules(false, true));
        s.submit(program(1, 5, 205));
        s.submit(program(0, 4, 104));
        s.submit(program(0, 5, 105));
        let order: Vec<u32> = completion_order(&mut s).iter().map(|o| o.0).collect();
        assert_eq!(order, vec![205, 104, 105]);
        // Without the blocker the two page-5 programs run as one command and complete together.
        let mut s = Scheduler::new(&geometry(), rules(false, true));
        s.submit(program(1, 5, 205));
        s.submit(program(0, 5, 105));
        s.submit(program(0, 6, 106));
        // Bus in 2 × 10 ns, one tPROG of 100 ns; then page 6 alone.
        assert_eq!(
            completion_order(&mut s),
            vec![(205, 120), (105, 120), (106, 230)]
        );
    }

    /// A policy that weighs who issued a command: each waits ahead of the queued commands of
    /// greater owners (a priority per tenant), else in arrival order. The seam a fairness-aware
    /// scheduler plugs into: it places a command among the queued ones, by their owners.
    struct ByOwner;

    impl SchedulingPolicy for ByOwner {
        fn place(&mut self, op: &FlashOp, queued: &Queued) -> Place {
            let others = queued.lane(Lane::Others);
            Place {
                lane: Lane::Others,
                before: others.iter().position(|q| q.owner > op.owner),
            }
        }
        fn max_group(&self) -> usize {
            1
        }
        fn joins(&self, _: &FlashOp, _: &FlashOp) -> bool {
            false
        }
        fn may_suspend(&self, _: &FlashOp) -> bool {
            false
        }
        fn suspension(&self, _: OpKind) -> Option<SuspendRule> {
            None
        }
    }

    #[test]
    fn a_policy_places_a_command_among_the_queued_ones() {
        let mut s = Scheduler::new(&geometry(), ByOwner);
        for (plane, page, target) in [(0, 0, 30), (1, 0, 10), (0, 1, 20), (1, 1, 10)] {
            s.submit(program(plane, page, target));
        }
        // Owners 10 first (in their arrival order), then 20 and 30; one program at a time.
        let order: Vec<u32> = completion_order(&mut s).iter().map(|o| o.0).collect();
        assert_eq!(order, vec![10, 10, 20, 30]);
    }
}
