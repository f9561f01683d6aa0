//! The read path: one read command per physical page (spFTL's SPREAD mode selector, spread.txt
//! §IV). Whoever needs data of a page — a host request for the units it has there, a GC or
//! wear-levelling job for the page's valid units — asks for the page's codewords it wants. If a
//! command for that page is queued and its die has not started it, the ask joins it (the union of
//! the codewords; PR-SSD §4.2.3 serves simultaneous reads of one page with one read too);
//! otherwise a new command is queued. The read policy shapes the command from the union when the
//! die starts it ([`ReadShaper`]), and each requester gets its data when the command ends.

use std::collections::VecDeque;

use slab::Slab;

use crate::config::EnergyConfig;
use crate::flash::{FlashOp, Geometry, OpKind, OpShaper, OpSource, Timing};
use crate::ftl::read_policy::{PageRead, ReadPolicy};
use crate::stats::DeviceStats;

use super::event::Event;
use super::Simulation;

/// Who wants data from a read command: a host request (`owner` = request id) or a GC / WL job
/// (`owner` = its pool).
#[derive(Clone, Copy, Debug)]
struct Requester {
    source: OpSource,
    owner: u32,
}

struct ReadCommand {
    page: u32,
    /// Sensing time of the whole page (its region's tR for its page type).
    tr_full_ns: u64,
    /// Union of the codewords every requester wants.
    wanted: u64,
    serves_host: bool,
    first: Requester,
    /// Requesters that joined while the command was queued (rare: no allocation otherwise).
    joined: Vec<Requester>,
}

/// One die's read commands that are queued and not started: the ones a new read of their page
/// may join.
#[derive(Clone)]
struct QueuedReads {
    /// (page, command), in the order the die queued them, which is the order it starts them.
    list: VecDeque<(u32, u32)>,
    /// How many listed pages fall in each bucket of `page mod 256`: an empty bucket answers most
    /// look-ups without a scan (a busy die has dozens of reads queued).
    buckets: [u16; 256],
}

impl QueuedReads {
    fn find(&self, page: u32) -> Option<u32> {
        if self.buckets[page as usize % 256] == 0 {
            return None;
        }
        self.list.iter().find(|e| e.0 == page).map(|e| e.1)
    }

    fn push(&mut self, page: u32, id: u32) {
        self.list.push_back((page, id));
        self.buckets[page as usize % 256] += 1;
    }

    /// Command `id` starts. A die's queue is first in, first out, so it is the first listed but
    /// for a multi-plane partner taken from further back.
    fn remove(&mut self, id: u32) {
        let at = self.list.iter().position(|e| e.1 == id);
        debug_assert!(at.is_some(), "read command {id} started but was not listed");
        if let Some((page, _)) = at.and_then(|at| self.list.remove(at)) {
            self.buckets[page as usize % 256] -= 1;
        }
    }
}

/// Read commands in flight (a flash read's `owner` is its key here).
pub(super) struct ReadCommands {
    commands: Slab<ReadCommand>,
    /// Per die (empty unless `merge`).
    queued: Vec<QueuedReads>,
    /// `scheduler.merge_reads`.
    merge: bool,
}

impl ReadCommands {
    pub(super) fn new(merge: bool, dies: u32) -> ReadCommands {
        let empty = QueuedReads {
            list: VecDeque::new(),
            buckets: [0; 256],
        };
        ReadCommands {
            commands: Slab::new(),
            queued: vec![empty; if merge { dies as usize } else { 0 }],
            merge,
        }
    }
}

impl Simulation {
    /// Ask for `codewords` of `page` on behalf of a host request or a GC / WL job.
    pub(super) fn read_page(&mut self, page: u32, codewords: u64, source: OpSource, owner: u32) {
        debug_assert!(codewords != 0);
        let requester = Requester { source, owner };
        let a = self.ftl.geometry.page_addr(page);
        if self.reads.merge {
            if let Some(id) = self.reads.queued[a.die as usize].find(page) {
                let c = &mut self.reads.commands[id as usize];
                c.wanted |= codewords;
                c.serves_host |= source == OpSource::Host;
                c.joined.push(requester);
                self.device.merged_reads += 1;
                return;
            }
        }
        let id = self.reads.commands.insert(ReadCommand {
            page,
            tr_full_ns: self.timing.region(a.region).tr_ns[a.page_type as usize],
            wanted: codewords,
            serves_host: source == OpSource::Host,
            first: requester,
            joined: Vec::new(),
        }) as u32;
        if self.reads.merge {
            self.reads.queued[a.die as usize].push(page, id);
        }
        // Timed when the die starts it (`ReadShaper`).
        self.submit(FlashOp {
            kind: OpKind::Read,
            source,
            die: a.die,
            plane_in_die: a.plane_in_die,
            page_in_block: a.page_in_block,
            target: page,
            array_ns: 0,
            transfer_ns: 0,
            owner: id,
        });
    }

    /// A read command's data is in controller memory: each requester's part is done once it is
    /// decoded.
    pub(super) fn on_read_done(&mut self, id: u32) {
        let c = self.reads.commands.remove(id as usize);
        let decoded = self.now + self.timing.ecc_decode_ns;
        self.serve(c.first, c.page, decoded);
        for r in c.joined {
            self.serve(r, c.page, decoded);
        }
    }

    /// A requester's data of `page` is decoded at `decoded`.
    fn serve(&mut self, r: Requester, page: u32, decoded: u64) {
        match r.source {
            OpSource::Host => self.request_part_done(r.owner, decoded),
            OpSource::Gc | OpSource::Wl => {
                // A job's reads end in the order they finish here, and all decode in the same
                // time, so the job's FIFO of decoded pages stays in step with its events.
                self.gc[r.owner as usize].decoding.push_back(page);
                self.events
                    .push(decoded, Event::GcReadDone { job: r.owner });
            }
        }
    }

    /// Start the idle dies that have work, timing the read commands they start.
    pub(super) fn start_dies(&mut self) {
        let mut shaper = ReadShaper {
            reads: &mut self.reads,
            policy: self.read_policy.as_ref(),
            timing: &self.timing,
            geometry: &self.ftl.geometry,
            energy: &self.config.energy,
            device: &mut self.device,
        };
        self.sched
            .start_pending(self.now, &mut self.events, &mut shaper);
    }
}

/// Times a read command as its die starts it: the read policy shapes the union of what its
/// requesters want, and the bytes and energy are counted.
struct ReadShaper<'a> {
    reads: &'a mut ReadCommands,
    policy: &'a dyn ReadPolicy,
    timing: &'a Timing,
    geometry: &'a Geometry,
    energy: &'a EnergyConfig,
    device: &'a mut DeviceStats,
}

impl OpShaper for ReadShaper<'_> {
    fn on_start(&mut self, op: &mut FlashOp) {
        if op.kind != OpKind::Read {
            return;
        }
        let r = &mut *self.reads;
        if r.merge {
            r.queued[op.die as usize].remove(op.owner);
        }
        let c = &r.commands[op.owner as usize];
        let plan = self.policy.plan(&PageRead {
            tr_full_ns: c.tr_full_ns,
            page_bytes: self.geometry.page_bytes,
            codeword_bytes: self.geometry.codeword_bytes,
            wanted: c.wanted,
        });
        op.array_ns = plan.sense_ns;
        op.transfer_ns = self.timing.transfer_ns(plan.transfer_bytes as u64);
        let d = &mut *self.device;
        d.sensed_bytes += plan.sensed_bytes as u64;
        d.read_transfer_bytes += plan.transfer_bytes as u64;
        // mW × ns = pJ.
        let sense_pj = self.energy.read_power_mw * plan.sense_ns as f64 * plan.sense_current;
        d.energy.read_sense_pj += sense_pj;
        d.energy.read_transfer_pj += self.energy.transfer_pj_per_byte * plan.transfer_bytes as f64;
        if c.serves_host {
            d.host_sensed_bytes += plan.sensed_bytes as u64;
            d.energy.host_read_sense_pj += sense_pj;
        }
    }
}
