//! What a die's scheduler decides, as a policy: where a command waits in its die's queue, which
//! queued commands join the one starting (a multi-plane command), and whether a queued read
//! suspends the program or erase its die is running, and how. The scheduler (`scheduler.rs`)
//! does the rest the same for every policy: it starts a die's commands once the instant's are
//! all queued, serves a lane of reads before the other, offers only each plane's first queued
//! command to join (a later one would overtake its plane's earlier commands and program a
//! block's pages out of order), books the bus, suspends and resumes.
//!
//! [`KindRules`] is the built-in policy, the rules `[scheduler]` sets. A policy sees each command
//! whole (its kind, its source, its `owner`: the engine's tag, for a host read the request that
//! first asked for it) and the die's queue, so that one that weighs the flows against each other
//! (a fairness scheduler for several tenants) plugs in here. The scheduler is generic over its
//! policy: the calls are static and inlined, as the rules were before they were a policy (the
//! scheduler is the simulator's hottest code).

use std::collections::VecDeque;

use super::scheduler::{FlashOp, OpKind};

/// A die's two queues. A die starts a command from [`Lane::Reads`] while it holds one, and
/// from [`Lane::Others`] only when it is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// Reads only: served first, and the only lane a die serves while it has a command
    /// suspended.
    Reads,
    /// Every other queued command, and reads that wait their turn with them.
    Others,
}

/// Where a new command waits: its lane, and ahead of which of the lane's queued commands (by
/// index; `None`: at the back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub lane: Lane,
    pub before: Option<usize>,
}

/// A die's queued commands as a policy sees them, each lane in the order it is served.
pub struct Queued<'a> {
    pub(super) reads: &'a VecDeque<FlashOp>,
    pub(super) others: &'a VecDeque<FlashOp>,
}

impl Queued<'_> {
    pub fn lane(&self, lane: Lane) -> &VecDeque<FlashOp> {
        match lane {
            Lane::Reads => self.reads,
            Lane::Others => self.others,
        }
    }
}

/// How a die orders, joins and suspends its commands.
pub trait SchedulingPolicy {
    /// Where `op` waits in its die's queue, which holds `queued`.
    fn place(&mut self, op: &FlashOp, queued: &Queued) -> Place;
    /// Most operations one command combines (1: none joins the one starting).
    fn max_group(&self) -> usize;
    /// Whether `op`, the first queued operation of another plane of the die, joins the command
    /// `first` starts.
    fn joins(&self, first: &FlashOp, op: &FlashOp) -> bool;
    /// Whether `read`, queued while its die runs a program or erase, may suspend it: the die
    /// then asks [`SchedulingPolicy::suspension`] once the instant's commands are queued.
    fn may_suspend(&self, read: &FlashOp) -> bool;
    /// How a queued read suspends a running command of `kind` (None: it runs to its end).
    fn suspension(&self, kind: OpKind) -> Option<SuspendRule>;
}

/// The rules of `[scheduler]`: each decision by the commands' kinds (and planes and pages), not
/// by who issued them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindRules {
    /// Reads (host and GC) wait in the lane served first (`scheduler.read_priority`); else every
    /// command waits in arrival order.
    pub read_priority: bool,
    /// Most operations one command combines: the die's planes with `scheduler.multiplane`, else 1.
    /// Operations of one kind join, at one page index for reads and programs (any block for
    /// erases), as multi-plane commands require.
    pub max_group: usize,
    /// What queued reads may suspend (`scheduler.suspension`; with read priority, which
    /// validation checks: a suspended die serves the lane of reads).
    pub suspension: Option<Suspension>,
}

impl SchedulingPolicy for KindRules {
    #[inline]
    fn place(&mut self, op: &FlashOp, _: &Queued) -> Place {
        let lane = match self.read_priority && op.kind == OpKind::Read {
            true => Lane::Reads,
            false => Lane::Others,
        };
        Place { lane, before: None }
    }

    #[inline]
    fn max_group(&self) -> usize {
        self.max_group
    }

    #[inline]
    fn joins(&self, first: &FlashOp, op: &FlashOp) -> bool {
        op.kind == first.kind
            && (op.kind == OpKind::Erase || op.page_in_block == first.page_in_block)
    }

    #[inline]
    fn may_suspend(&self, _: &FlashOp) -> bool {
        self.suspension.is_some()
    }

    #[inline]
    fn suspension(&self, kind: OpKind) -> Option<SuspendRule> {
        self.suspension?.rule(kind)
    }
}

/// When a read may suspend one kind of operation, and what it costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuspendRule {
    /// From the suspend command until the die can sense.
    pub latency_ns: u64,
    /// An operation with less than this left runs to its end.
    pub min_remaining_ns: u64,
    /// Most times one operation is suspended.
    pub max_per_operation: u32,
}

/// What reads may suspend: programs, erases (None: that kind runs to its end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Suspension {
    pub program: Option<SuspendRule>,
    pub erase: Option<SuspendRule>,
}

impl Suspension {
    fn rule(&self, kind: OpKind) -> Option<SuspendRule> {
        match kind {
            OpKind::Program => self.program,
            OpKind::Erase => self.erase,
            OpKind::Read => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::OpSource;

    fn op(kind: OpKind, plane_in_die: u32, page_in_block: u32) -> FlashOp {
        FlashOp {
            kind,
            source: OpSource::Host,
            die: 0,
            plane_in_die,
            page_in_block,
            target: 0,
            codewords: 0,
            array_ns: 1,
            transfer_ns: 1,
            owner: 0,
            issued_in: 0,
        }
    }

    /// The rules from their parameters alone: the lane by kind, joining by kind and page,
    /// suspension by the running command's kind.
    #[test]
    fn kind_rules_place_join_and_suspend_by_kind() {
        let (reads, others) = (VecDeque::new(), VecDeque::new());
        let queued = Queued {
            reads: &reads,
            others: &others,
        };
        let erase_only = SuspendRule {
            latency_ns: 20_000,
            min_remaining_ns: 0,
            max_per_operation: 1,
        };
        let mut rules = KindRules {
            read_priority: true,
            max_group: 2,
            suspension: Some(Suspension {
                program: None,
                erase: Some(erase_only),
            }),
        };
        let read = op(OpKind::Read, 0, 5);
        let at_back = |lane| Place { lane, before: None };
        assert_eq!(rules.place(&read, &queued), at_back(Lane::Reads));
        assert_eq!(
            rules.place(&op(OpKind::Program, 0, 5), &queued),
            at_back(Lane::Others)
        );
        assert!(rules.joins(&read, &op(OpKind::Read, 1, 5)));
        assert!(!rules.joins(&read, &op(OpKind::Read, 1, 6)), "another page");
        assert!(
            !rules.joins(&read, &op(OpKind::Program, 1, 5)),
            "another kind"
        );
        let erase = op(OpKind::Erase, 0, 0);
        assert!(rules.joins(&erase, &op(OpKind::Erase, 1, 3)), "any block");
        assert!(rules.may_suspend(&read));
        assert_eq!(rules.suspension(OpKind::Erase), Some(erase_only));
        assert_eq!(rules.suspension(OpKind::Program), None);
        // Without read priority reads wait in arrival order; without suspension none suspends.
        rules.read_priority = false;
        rules.suspension = None;
        assert_eq!(rules.place(&read, &queued), at_back(Lane::Others));
        assert!(!rules.may_suspend(&read));
        assert_eq!(rules.suspension(OpKind::Erase), None);
    }
}
