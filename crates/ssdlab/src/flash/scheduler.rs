//! Timed resources: per-die transaction queues and channel buses (design.md "The device").
//!
//! A read holds its die from sensing until its data has left the page register over the bus:
//! wait for die → sense → wait for channel → transfer out. A program: wait for die → wait for
//! channel → transfer in → tPROG. An erase: wait for die → tBERS. The scheduler knows nothing of
//! what an operation is for; its `owner` tag is handed back on completion.

use std::collections::VecDeque;

use super::geometry::{DieId, Geometry};
use crate::sim::event::{Event, EventQueue};

pub type TxnId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Program,
    Erase,
}

/// Who asked for a flash operation (MQSim's transaction sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpSource {
    Host,
    Gc,
    /// Static wear levelling.
    Wl,
}

impl OpSource {
    pub const ALL: [OpSource; 3] = [OpSource::Host, OpSource::Gc, OpSource::Wl];
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn name(self) -> &'static str {
        match self {
            OpSource::Host => "host",
            OpSource::Gc => "gc",
            OpSource::Wl => "wl",
        }
    }
}

/// One flash command, fully timed by the FTL before submission.
#[derive(Clone, Copy, Debug)]
pub struct FlashOp {
    pub kind: OpKind,
    pub source: OpSource,
    pub die: DieId,
    /// Physical page (read, program) or block (erase).
    pub target: u32,
    /// Array time: sensing (read), tPROG (program), tBERS (erase).
    pub array_ns: u64,
    /// Bus time: data out after sensing (read) or in before programming (program).
    pub transfer_ns: u64,
    /// Engine-defined tag handed back on completion.
    pub owner: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Array,
    WaitBus,
    Bus,
}

struct Die {
    phase: Phase,
    current: Option<TxnId>,
    reads: VecDeque<TxnId>,
    others: VecDeque<TxnId>,
    busy_since: u64,
    busy_ns: u64,
}

struct Channel {
    current: Option<DieId>,
    waiting: VecDeque<DieId>,
    busy_ns: u64,
}

pub struct Scheduler {
    dies: Vec<Die>,
    channels: Vec<Channel>,
    dies_per_channel: u32,
    read_priority: bool,
    txns: Vec<FlashOp>,
    free_txns: Vec<TxnId>,
    /// Operations that finished during the last `on_*` call, for the engine to act on.
    pub completed: Vec<FlashOp>,
}

impl Scheduler {
    pub fn new(g: &Geometry, read_priority: bool) -> Scheduler {
        let dies = (0..g.dies())
            .map(|_| Die {
                phase: Phase::Idle,
                current: None,
                reads: VecDeque::new(),
                others: VecDeque::new(),
                busy_since: 0,
                busy_ns: 0,
            })
            .collect();
        let channels = (0..g.channels)
            .map(|_| Channel {
                current: None,
                waiting: VecDeque::new(),
                busy_ns: 0,
            })
            .collect();
        Scheduler {
            dies,
            channels,
            dies_per_channel: g.ways * g.dies_per_way,
            read_priority,
            txns: Vec::new(),
            free_txns: Vec::new(),
            completed: Vec::new(),
        }
    }

    /// Queue an operation on its die at time `now`.
    pub fn submit(&mut self, op: FlashOp, now: u64, events: &mut EventQueue) {
        let id = match self.free_txns.pop() {
            Some(id) => {
                self.txns[id as usize] = op;
                id
            }
            None => {
                self.txns.push(op);
                (self.txns.len() - 1) as TxnId
            }
        };
        let die = &mut self.dies[op.die as usize];
        if self.read_priority && op.kind == OpKind::Read {
            die.reads.push_back(id);
        } else {
            die.others.push_back(id);
        }
        if die.phase == Phase::Idle {
            self.start_next(op.die, now, events);
        }
    }

    /// Operations queued or running on a die (the dynamic allocator's load measure).
    pub fn die_load(&self, die: DieId) -> usize {
        let d = &self.dies[die as usize];
        d.reads.len() + d.others.len() + d.current.is_some() as usize
    }

    pub fn die_busy_ns(&self) -> impl Iterator<Item = u64> + '_ {
        self.dies.iter().map(|d| d.busy_ns)
    }
    pub fn channel_busy_ns(&self) -> impl Iterator<Item = u64> + '_ {
        self.channels.iter().map(|c| c.busy_ns)
    }
    pub fn idle(&self) -> bool {
        self.dies.iter().all(|d| d.phase == Phase::Idle)
    }

    fn start_next(&mut self, die_id: DieId, now: u64, events: &mut EventQueue) {
        let die = &mut self.dies[die_id as usize];
        let Some(id) = die.reads.pop_front().or_else(|| die.others.pop_front()) else {
            die.phase = Phase::Idle;
            die.current = None;
            return;
        };
        die.current = Some(id);
        die.busy_since = now;
        let op = self.txns[id as usize];
        match op.kind {
            OpKind::Read | OpKind::Erase => {
                die.phase = Phase::Array;
                events.push(now + op.array_ns, Event::DieDone(die_id));
            }
            OpKind::Program => self.request_bus(die_id, now, events),
        }
    }

    fn request_bus(&mut self, die_id: DieId, now: u64, events: &mut EventQueue) {
        let ch = (die_id / self.dies_per_channel) as usize;
        if self.channels[ch].current.is_none() {
            self.begin_transfer(ch, die_id, now, events);
        } else {
            self.dies[die_id as usize].phase = Phase::WaitBus;
            self.channels[ch].waiting.push_back(die_id);
        }
    }

    fn begin_transfer(&mut self, ch: usize, die_id: DieId, now: u64, events: &mut EventQueue) {
        let die = &mut self.dies[die_id as usize];
        die.phase = Phase::Bus;
        let op = &self.txns[die.current.unwrap_or_default() as usize];
        let channel = &mut self.channels[ch];
        channel.current = Some(die_id);
        channel.busy_ns += op.transfer_ns;
        events.push(now + op.transfer_ns, Event::BusDone(ch as u32));
    }

    fn finish(&mut self, die_id: DieId, now: u64, events: &mut EventQueue) {
        let die = &mut self.dies[die_id as usize];
        let id = die.current.take().unwrap_or_default();
        die.busy_ns += now - die.busy_since;
        die.phase = Phase::Idle;
        self.completed.push(self.txns[id as usize]);
        self.free_txns.push(id);
        self.start_next(die_id, now, events);
    }

    /// The array phase of a die's current operation ended.
    pub fn on_die_done(&mut self, die_id: DieId, now: u64, events: &mut EventQueue) {
        let id = self.dies[die_id as usize].current.unwrap_or_default();
        match self.txns[id as usize].kind {
            OpKind::Read => self.request_bus(die_id, now, events),
            OpKind::Program | OpKind::Erase => self.finish(die_id, now, events),
        }
    }

    /// A channel finished a transfer.
    pub fn on_bus_done(&mut self, ch: u32, now: u64, events: &mut EventQueue) {
        let channel = &mut self.channels[ch as usize];
        let Some(die_id) = channel.current.take() else {
            return;
        };
        // Hand the bus to the next waiting die first, so a die that starts a new program
        // below queues behind transfers that were already waiting.
        if let Some(next) = channel.waiting.pop_front() {
            self.begin_transfer(ch as usize, next, now, events);
        }
        let id = self.dies[die_id as usize].current.unwrap_or_default();
        let op = self.txns[id as usize];
        match op.kind {
            OpKind::Read => self.finish(die_id, now, events),
            _ => {
                self.dies[die_id as usize].phase = Phase::Array;
                events.push(now + op.array_ns, Event::DieDone(die_id));
            }
        }
    }
}
