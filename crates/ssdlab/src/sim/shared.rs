//! What the parts of the simulation share of the device, handed to each: the configuration, the flash
//! (its timing and scheduler), the FTL and its policies, the event queue and the clock, the
//! device's counters, and the error that stops the run.

use crate::config::{Config, UnmappedRead, WriteAck};
use crate::error::Error;
use crate::event_queue::EventQueue;
use crate::flash::{DeviceEnergy, FlashOp, OpKind, Scheduler, Timing};
use crate::ftl::policies::Policies;
use crate::ftl::Ftl;
use crate::stats::DeviceStats;

use super::event::Event;

pub(super) struct Shared {
    pub(super) config: Config,
    pub(super) timing: Timing,
    /// What the operations cost in energy (each die set's by its medium's model).
    pub(super) energy: DeviceEnergy,
    pub(super) sched: Scheduler,
    pub(super) events: EventQueue<Event>,
    pub(super) ftl: Ftl,
    /// The FTL's policies (`ftl/policies.rs`), those preconditioning used.
    pub(super) policies: Policies,
    pub(super) stats: DeviceStats,
    /// Which run of `stats` this is: they start over at the statistics boundary (`window.rs`).
    /// Each operation is stamped with it as it is issued, and counted in that run.
    pub(super) counters_run: u8,
    /// The simulated time, in ns.
    pub(super) now: u64,
    /// The error that ends the run, once one is met (the event loop returns it).
    pub(super) fatal: Option<Error>,
}

impl Shared {
    pub(super) fn new(config: Config, ftl: Ftl, policies: Policies, sched: Scheduler) -> Shared {
        Shared {
            timing: crate::device::timing(&config.timing, &ftl.geometry),
            energy: crate::device::energy(&config.energy, &ftl.geometry),
            config,
            sched,
            events: EventQueue::default(),
            ftl,
            policies,
            stats: DeviceStats::default(),
            counters_run: 0,
            now: 0,
            fatal: None,
        }
    }

    /// Submit a flash operation now and count it (a read's bytes and energy are counted when its
    /// die starts it, once it is timed, in the run of the counters it was issued in: see
    /// `read.rs`).
    pub(super) fn submit(&mut self, mut op: FlashOp) {
        op.issued_in = self.counters_run;
        self.stats.count_op(op.kind, op.source);
        // (A read's energy is charged when its die starts it, once it is timed; its die set is
        // not looked up here, where most operations are reads.)
        match op.kind {
            OpKind::Read => {}
            OpKind::Program => {
                let set = self.ftl.geometry.die_set_of(op.die);
                self.stats.die_set_programs[set] += 1;
                let page_bytes = self.ftl.geometry.page_bytes as f64;
                self.stats.energy.program_pj += self.energy.by_die_set[set].program_pj(op.array_ns)
                    + self.energy.transfer_pj_per_byte * page_bytes;
            }
            OpKind::Erase => {
                let set = self.ftl.geometry.die_set_of(op.die);
                self.stats.energy.erase_pj += self.energy.by_die_set[set].erase_pj(op.array_ns);
            }
        }
        self.sched.submit(op);
    }

    pub(super) fn unmapped_read_is_error(&self) -> bool {
        self.config.ftl.unmapped_read == UnmappedRead::Error
    }

    pub(super) fn ack_on_program(&self) -> bool {
        self.config.ftl.write_ack == WriteAck::Program
    }
}
