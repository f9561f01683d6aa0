//! The read path: one read command per physical page (spFTL's SPREAD mode selector, spread.txt
//! §IV). Whoever needs data of a page — a host request for the units it has there, a GC or
//! wear-levelling job for the page's valid units — asks for the page's codewords it wants. If a
//! command for that page is queued and its die has not started it, the ask joins it (the union of
//! the codewords; PR-SSD §4.2.3 serves simultaneous reads of one page with one read too);
//! otherwise a new command is queued. The read policy shapes the command from the union when the
//! die starts it ([`ReadShaper`]), and each requester gets its data when the command ends.

use std::collections::HashMap;

use crate::config::{Config, ReliabilityConfig};
use crate::flash::reliability::ErrorModel;
use crate::flash::{DeviceEnergy, FlashOp, Geometry, OpKind, OpShaper, OpSource, Timing};
use crate::ftl::read_ahead::{Lookup, ReadAheadPages, SequentialReads};
use crate::ftl::read_policy::{self, PageRead, ReadAheadWindow, ReadPolicy};
use crate::ftl::Ftl;
use crate::stats::DeviceStats;

use super::event::Event;
use super::page_groups::PageGroups;
use super::Simulation;

/// The read path's own state: the read policy, the read commands in flight, the error model,
/// and the scratch buffer of page groups (reused across events, as the event loop allocates
/// nothing per request).
pub(super) struct Reads {
    pub(super) policy: Box<dyn ReadPolicy>,
    /// Read commands in flight, and the queued ones later reads of their page may join.
    pub(super) commands: ReadCommands,
    /// Raw bit errors and ECC decode times (`reliability.model = "power_law"`); every read
    /// decodes in `timing.ecc_decode_ns` without it.
    pub(super) errors: Option<ErrorModel>,
    pub(super) scratch_groups: PageGroups,
}

impl Reads {
    pub(super) fn new(config: &Config, ftl: &Ftl) -> Reads {
        let g = &ftl.geometry;
        let policy =
            read_policy::build(&config.ftl.read_policy, config.geometry.codeword_size_bytes);
        // (Whether the policy melds at all: a wordline of two pages, both wanted.)
        let meld = policy.melds(2, 2);
        let ahead = (policy.read_ahead()).map(|w| ReadAhead::new(w, g));
        let pages = g.blocks() as u64 * g.max_pages_per_block as u64;
        Reads {
            commands: ReadCommands::new(config.scheduler.merge_reads, meld, ahead, g.dies(), pages),
            policy,
            errors: match &config.reliability {
                ReliabilityConfig::Fixed => None,
                ReliabilityConfig::PowerLaw(c) => Some(crate::device::error_model(c, g)),
            },
            scratch_groups: PageGroups::default(),
        }
    }
}

/// Buckets of the per-die record of queued read pages.
const PAGE_BUCKETS: usize = 256;

/// Who wants data from a read command: a host request (`owner` = request id) or a GC / WL job
/// (`owner` = its pool).
#[derive(Clone, Copy, Debug)]
struct Requester {
    source: OpSource,
    owner: u32,
}

/// The engine's side of read commands. A command is its die-queue entry: the first requester is
/// the operation's `source` and `owner`, the codewords it asked for its `codewords`, and until
/// the die starts it its `array_ns` is the page's full sensing time. What later asks add to a
/// queued command (rare) is kept here, by page, and folded into the command when its die starts
/// it: a die holds at most one queued and one running command of a page, and a read of a page with
/// a queued command joins it.
pub(super) struct ReadCommands {
    /// Per die, the queued read commands whose page falls in each bucket of `page mod
    /// PAGE_BUCKETS`: an empty bucket, or one holding a single other page, rules a join out with
    /// one small array's line (the common case). Empty unless `merge`.
    queued_buckets: Vec<[Bucket; PAGE_BUCKETS]>,
    /// One bit per physical page whose bucket holds more than one queued command: the bit says
    /// whether that page's command is queued. It settles a join without a search of the die's
    /// queue (one huge request queues thousands of commands on a die, and a search per ask made its
    /// time quadratic in its size) and is touched only on such collisions: marking every command
    /// in a table this large missed the caches twice per read. Empty unless `merge`.
    queued_pages: Vec<u64>,
    /// What joined queued commands, and the requesters that joined running ones, by page.
    joined_queued: HashMap<u32, Joined>,
    joined_running: HashMap<u32, Vec<Requester>>,
    /// `scheduler.merge_reads`.
    merge: bool,
    /// The read policy senses whole wordlines when queued reads want all their pages.
    meld: bool,
    /// Streams read in order and the pages sensed ahead of them, if the policy reads ahead.
    ahead: Option<ReadAhead>,
}

/// The read path's read-ahead (`ftl/read_ahead.rs`): a melded read also senses the pages of its
/// wordline that no queued read wants but a stream read in order will, and keeps them in
/// controller memory for its reads.
pub(super) struct ReadAhead {
    streams: SequentialReads,
    pages: ReadAheadPages,
    /// Per melded command running (by its first operation's page), the pages it senses ahead.
    sensing: HashMap<u32, Vec<u32>>,
}

impl ReadAhead {
    /// `window`'s streams, each wanting `window.kib` past its last read, with room for as many
    /// pages as their windows hold.
    pub(super) fn new(window: ReadAheadWindow, g: &Geometry) -> ReadAhead {
        let bytes = window.kib as u64 * 1024;
        let pages = (bytes / g.page_bytes as u64).max(1) * window.streams as u64;
        ReadAhead {
            streams: SequentialReads::new(window.streams, bytes, g.unit_bytes),
            pages: ReadAheadPages::new(pages as usize),
            sensing: HashMap::new(),
        }
    }
}

/// The queued read commands of one die whose pages fall in one bucket.
#[derive(Clone, Copy)]
struct Bucket {
    count: u32,
    /// The page of the only one, while the bucket has held no other since it was last empty;
    /// else [`MANY`], and the pages' bits in `queued_pages` say which are queued.
    single: u32,
}

const MANY: u32 = u32::MAX;
const EMPTY: Bucket = Bucket {
    count: 0,
    single: MANY,
};

/// The codewords and requesters that joined a queued read command after its first.
#[derive(Default)]
struct Joined {
    codewords: u64,
    requesters: Vec<Requester>,
}

impl ReadCommands {
    pub(super) fn new(
        merge: bool,
        meld: bool,
        ahead: Option<ReadAhead>,
        dies: u32,
        pages: u64,
    ) -> ReadCommands {
        ReadCommands {
            queued_buckets: vec![[EMPTY; PAGE_BUCKETS]; if merge { dies as usize } else { 0 }],
            queued_pages: vec![
                0;
                if merge {
                    pages.div_ceil(64) as usize
                } else {
                    0
                }
            ],
            joined_queued: HashMap::new(),
            joined_running: HashMap::new(),
            merge,
            meld,
            ahead,
        }
    }

    /// A host read of `bytes` bytes from byte `offset` (streams read in order are told by
    /// them).
    pub(super) fn observe_host_read(&mut self, offset: u64, bytes: u64) {
        if let Some(a) = &mut self.ahead {
            a.streams.observe(offset, bytes);
        }
    }

    /// Whether read commands may be melded (the summary reports them).
    pub(super) fn melds(&self) -> bool {
        self.meld
    }

    /// Whether melded reads sense pages ahead of streams read in order.
    pub(super) fn reads_ahead(&self) -> bool {
        self.ahead.is_some()
    }

    fn bit(&self, page: u32) -> bool {
        self.queued_pages[page as usize / 64] >> (page % 64) & 1 == 1
    }

    fn set_bit(&mut self, page: u32, on: bool) {
        let word = &mut self.queued_pages[page as usize / 64];
        if on {
            *word |= 1 << (page % 64);
        } else {
            *word &= !(1 << (page % 64));
        }
    }

    /// Whether a read command of `page` (on `die`) is queued and not started.
    fn is_queued(&self, die: u32, page: u32) -> bool {
        let b = self.queued_buckets[die as usize][page as usize % PAGE_BUCKETS];
        match (b.count, b.single) {
            (0, _) => false,
            (_, MANY) => self.bit(page),
            (_, single) => single == page,
        }
    }

    /// A read command of `page` (on `die`) is queued (`true`) or started (`false`).
    fn mark(&mut self, die: u32, page: u32, queued: bool) {
        let b = self.queued_buckets[die as usize][page as usize % PAGE_BUCKETS];
        let next = match (queued, b.count, b.single) {
            (true, 0, _) => Bucket {
                count: 1,
                single: page,
            },
            (true, n, single) => {
                // A second page in the bucket: from now on the bits tell them apart.
                if single != MANY {
                    self.set_bit(single, true);
                }
                self.set_bit(page, true);
                Bucket {
                    count: n + 1,
                    single: MANY,
                }
            }
            (false, 1, single) if single != MANY => EMPTY,
            (false, n, _) => {
                self.set_bit(page, false);
                Bucket {
                    count: n - 1,
                    single: MANY,
                }
            }
        };
        self.queued_buckets[die as usize][page as usize % PAGE_BUCKETS] = next;
    }
}

impl Simulation {
    /// Ask for `codewords` of `page` on behalf of a host request or a GC / WL job.
    pub(super) fn read_page(&mut self, page: u32, codewords: u64, source: OpSource, owner: u32) {
        debug_assert!(codewords != 0);
        if self.reads.commands.ahead.is_some() && self.read_ahead_hit(page, source, owner) {
            return;
        }
        let a = self.dev.ftl.geometry.page_addr(page);
        if self.reads.commands.merge {
            if self.reads.commands.is_queued(a.die, page) {
                let joined = self.reads.commands.joined_queued.entry(page).or_default();
                joined.codewords |= codewords;
                joined.requesters.push(Requester { source, owner });
                self.dev.stats.merged_reads += 1;
                return;
            }
            self.reads.commands.mark(a.die, page, true);
        }
        // Shaped when the die starts it (`ReadShaper`).
        self.dev.submit(FlashOp {
            kind: OpKind::Read,
            source,
            die: a.die,
            plane_in_die: a.plane_in_die,
            page_in_block: a.page_in_block,
            target: page,
            codewords,
            array_ns: self.dev.timing.region(a.region).tr_ns[a.page_type as usize],
            transfer_ns: 0,
            owner,
            issued_in: 0, // (stamped by `submit`)
        });
    }

    /// Whether `page` was read ahead: its requester is served from controller memory, or with
    /// the melded read that is sensing it.
    #[inline(never)]
    fn read_ahead_hit(&mut self, page: u32, source: OpSource, owner: u32) -> bool {
        let block = self.dev.ftl.geometry.block_of_page(page);
        let erase_count = self.dev.ftl.blocks[block as usize].erase_count;
        let Some(a) = &mut self.reads.commands.ahead else {
            return false;
        };
        let r = Requester { source, owner };
        match a.pages.lookup(page, erase_count) {
            Lookup::Miss => return false,
            Lookup::InFlight => self
                .reads
                .commands
                .joined_running
                .entry(page)
                .or_default()
                .push(r),
            Lookup::Ready(at) => self.serve(r, page, at.max(self.dev.now)),
        }
        self.dev.stats.read_ahead_hits += 1;
        true
    }

    /// Read `groups`' pages for host request `id`, which waits for each: a host read, or a
    /// write's merge reads (`source`).
    pub(super) fn read_groups(&mut self, id: u32, groups: &PageGroups, source: OpSource) {
        self.host.requests[id as usize].pending += groups.as_slice().len() as u32;
        for &(page, codewords) in groups.as_slice() {
            self.read_page(page, codewords, source, id);
        }
    }

    /// A read command's data is in controller memory: each requester's part is done once it is
    /// decoded.
    pub(super) fn on_read_done(&mut self, op: FlashOp) {
        let decode_ns = match self.reads.errors.is_some() {
            false => self.dev.timing.ecc_decode_ns,
            true => self.decode_with_errors(&op),
        };
        let decoded = self.dev.now + decode_ns;
        let first = Requester {
            source: op.source,
            owner: op.owner,
        };
        self.serve(first, op.target, decoded);
        self.serve_joined(op.target, decoded);
        if let Some(a) = &mut self.reads.commands.ahead {
            // The pages a melded command sensed ahead are in controller memory with its own.
            if let Some(pages) = a.sensing.remove(&op.target) {
                for &page in &pages {
                    a.pages.sensed(page, decoded);
                }
                for page in pages {
                    self.serve_joined(page, decoded);
                }
            }
        }
    }

    /// Serve the requesters that joined the running read of `page`.
    fn serve_joined(&mut self, page: u32, decoded: u64) {
        if !self.reads.commands.joined_running.is_empty() {
            for r in self
                .reads
                .commands
                .joined_running
                .remove(&page)
                .unwrap_or_default()
            {
                self.serve(r, page, decoded);
            }
        }
    }

    /// The decode time of `op`'s data under the error model, counted in the summary.
    #[inline(never)]
    fn decode_with_errors(&mut self, op: &FlashOp) -> u64 {
        let g = &self.dev.ftl.geometry;
        let block = &self.dev.ftl.blocks[g.block_of_page(op.target) as usize];
        let hours = self.dev.now.saturating_sub(block.last_write_ns) as f64 / 3.6e12;
        let model =
            (self.reads.errors.as_mut()).unwrap_or_else(|| unreachable!("asked with a model"));
        let (rber, d) = model.read(
            g,
            op.target,
            op.codewords,
            block.erase_count,
            hours,
            op.array_ns + op.transfer_ns,
        );
        (self.dev.stats.reliability).count(op.source == OpSource::Host, rber, &d);
        d.decode_ns
    }

    /// A requester's data of `page` is decoded at `decoded`. (Inline: once per page read.)
    #[inline(always)]
    fn serve(&mut self, r: Requester, page: u32, decoded: u64) {
        match r.source {
            OpSource::Host | OpSource::Rmw => self.request_part_done(r.owner, decoded),
            OpSource::Gc | OpSource::Wl => self.gc_page_decoded(r.owner, page, decoded),
            OpSource::Mapping => self.mapping_read_done(r.owner, decoded),
        }
    }

    /// GC / WL job `job`'s read of `page` is decoded at `decoded`. Each decoded page has its
    /// event; pages wait in the order they finish decoding (reads that took longer to decode
    /// behind those that took less), so that the job's events take them in step.
    #[inline(never)]
    fn gc_page_decoded(&mut self, job: u32, page: u32, decoded: u64) {
        let decoding = &mut self.gc.jobs[job as usize].decoding;
        // (With a fixed decode time pages finish in the order they were read: append.)
        match decoding.back() {
            Some(&(last, _)) if last > decoded => {
                let at = decoding.partition_point(|&(t, _)| t <= decoded);
                decoding.insert(at, (decoded, page));
            }
            _ => decoding.push_back((decoded, page)),
        }
        self.dev.events.push(decoded, Event::GcReadDone { job });
    }

    /// Start the idle dies that have work, timing the read commands they start.
    pub(super) fn start_dies(&mut self) {
        // (Most instants end with no die to start: then no shaper is made.)
        if !self.dev.sched.has_pending() {
            return;
        }
        let mut shaper = ReadShaper {
            reads: &mut self.reads.commands,
            policy: self.reads.policy.as_ref(),
            timing: &self.dev.timing,
            ftl: &self.dev.ftl,
            energy: &self.dev.energy,
            device: &mut self.dev.stats,
            counters_run: self.dev.counters_run,
        };
        self.dev
            .sched
            .start_pending(self.dev.now, &mut self.dev.events, &mut shaper);
    }
}

/// Times a read command as its die starts it: the read policy shapes the union of what its
/// requesters want, and the bytes and energy are counted, with the operation: in the run of the
/// counters it was issued in.
struct ReadShaper<'a> {
    reads: &'a mut ReadCommands,
    policy: &'a dyn ReadPolicy,
    timing: &'a Timing,
    /// The device's geometry, and what the pages of a wordline hold (for the read-ahead).
    ftl: &'a Ftl,
    energy: &'a DeviceEnergy,
    device: &'a mut DeviceStats,
    /// The run of `device` (`Shared::counters_run`): a read issued in an earlier one (queued
    /// across the statistics boundary) was counted there, and so are its bytes and energy.
    counters_run: u8,
}

impl ReadShaper<'_> {
    /// Fold what joined `op`'s page while it was queued into it; whether it serves the host.
    fn take_joined(&mut self, op: &mut FlashOp) -> bool {
        let r = &mut *self.reads;
        let mut serves_host = op.source == OpSource::Host;
        if r.merge {
            r.mark(op.die, op.target, false);
            if !r.joined_queued.is_empty() {
                if let Some(joined) = r.joined_queued.remove(&op.target) {
                    op.codewords |= joined.codewords;
                    serves_host |= joined.requesters.iter().any(|j| j.source == OpSource::Host);
                    // (Requesters of a page read ahead may have joined it already.)
                    (r.joined_running.entry(op.target).or_default()).extend(joined.requesters);
                }
            }
        }
        serves_host
    }

    /// Count a command's bytes and energy: `sense_pj` for its sensing.
    fn count(&mut self, sensed_bytes: u64, transfer_bytes: u64, sense_pj: f64, serves_host: bool) {
        let d = &mut *self.device;
        d.sensed_bytes += sensed_bytes;
        d.read_transfer_bytes += transfer_bytes;
        d.energy.read_sense_pj += sense_pj;
        d.energy.read_transfer_pj += self.energy.transfer_pj_per_byte * transfer_bytes as f64;
        if serves_host {
            d.host_sensed_bytes += sensed_bytes;
            d.energy.host_read_sense_pj += sense_pj;
        }
    }

    /// Whether a stream read in order will want `page` (a page no queued read wants): it is
    /// programmed and one of its valid units lies within a stream's window.
    fn wanted_ahead(&self, page: u32) -> bool {
        let Some(a) = &self.reads.ahead else {
            return false;
        };
        let valid = self.ftl.valid_slots(page);
        self.ftl.page_programmed(page)
            && valid != 0
            && (self.ftl.units_in_slots(page, valid)).any(|(_, lpn)| a.streams.wants(lpn))
    }

    /// The pages of `op`'s wordline.
    fn wordline_pages(&self, op: &FlashOp) -> impl Iterator<Item = u32> + '_ {
        let (region, block, wordline) = self.wordline_of(op);
        let first = self.ftl.geometry.page_id(block, 0);
        (self.ftl.geometry.regions[region].wordlines.pages(wordline)).map(move |p| first + p)
    }

    /// The region and wordline (its block, its index) of a read's page.
    fn wordline_of(&self, op: &FlashOp) -> (usize, u32, u32) {
        let a = self.ftl.geometry.page_addr(op.target);
        let wordline = self.ftl.geometry.regions[a.region]
            .wordlines
            .of_page(a.page_in_block);
        (a.region, a.block, wordline)
    }
}

impl OpShaper for ReadShaper<'_> {
    fn on_suspend(&mut self, kind: OpKind) {
        self.device.suspensions[kind.index()] += 1;
    }

    // (Inline: the scheduler calls it as each operation starts, and most return at once.)
    #[inline(always)]
    fn on_start(&mut self, op: &mut FlashOp) {
        if op.kind != OpKind::Read {
            return;
        }
        let serves_host = self.take_joined(op);
        let plan = self.policy.plan(&PageRead {
            tr_full_ns: op.array_ns,
            page_bytes: self.ftl.geometry.page_bytes,
            codeword_bytes: self.ftl.geometry.codeword_bytes,
            wanted: op.codewords,
        });
        op.array_ns = plan.sense_ns;
        op.transfer_ns = self.timing.transfer_ns(plan.transfer_bytes as u64);
        if op.issued_in != self.counters_run {
            return;
        }
        let set = self.ftl.geometry.die_set_of(op.die);
        self.device.die_set_reads[set] += 1;
        let sense_pj = self.energy.by_die_set[set].read_pj(
            plan.sense_ns,
            plan.sense_current,
            plan.sensed_bytes,
            self.ftl.geometry.page_bytes,
        );
        self.count(
            plan.sensed_bytes as u64,
            plan.transfer_bytes as u64,
            sense_pj,
            serves_host,
        );
    }

    fn wordline(&self, op: &FlashOp) -> Option<u64> {
        if !self.reads.meld {
            return None;
        }
        let (region, block, wordline) = self.wordline_of(op);
        // (A wordline of one page, SLC mode or PCM, has nothing to meld.)
        (self.ftl.geometry.regions[region].wordlines.levels() > 1)
            .then_some((block as u64) << 32 | wordline as u64)
    }

    /// The pages queued reads want (several reads of one page are one), and those a stream
    /// read in order will (§2.2), against the policy.
    fn melds(&self, first: &FlashOp, queued: &[u32]) -> bool {
        let (region, _, wordline) = self.wordline_of(first);
        let pages = self.ftl.geometry.regions[region]
            .wordlines
            .page_count(wordline);
        let unqueued = || {
            self.wordline_pages(first)
                .filter(|p| *p != first.target && !queued.contains(p))
        };
        let wanted = pages - unqueued().count() as u32;
        if self.policy.melds(wanted, pages) {
            return true;
        }
        self.reads.ahead.is_some()
            && self.policy.melds(
                wanted + unqueued().filter(|&p| self.wanted_ahead(p)).count() as u32,
                pages,
            )
    }

    /// melded-pages.txt §2, §3.1.1: the wordline's read levels applied once (X + 7Y for TLC),
    /// then every page of it moved over the bus from a page buffer that holds them all (§2.4).
    fn on_start_melded(&mut self, ops: &mut [FlashOp]) {
        let mut serves_host = false;
        for op in ops.iter_mut() {
            serves_host |= self.take_joined(op);
        }
        let (region, _, _) = self.wordline_of(&ops[0]);
        let sense_ns = self.timing.region(region).tr_melded_ns;
        let page_bytes = self.ftl.geometry.page_bytes as u64;
        let page_transfer_ns = self.timing.transfer_ns(page_bytes);
        // Each page crosses the bus once, however many reads of it are queued (without
        // `merge_reads` they are not joined).
        for i in 0..ops.len() {
            let again = ops[..i].iter().any(|o| o.target == ops[i].target);
            ops[i].array_ns = sense_ns;
            ops[i].transfer_ns = if again { 0 } else { page_transfer_ns };
        }
        // The wordline's pages no queued read wants cross the bus with the rest (the page buffer
        // holds them all, §2.4): sensed for a stream's reads ahead, they wait in controller
        // memory; else (`meld = "always"`) they are dropped.
        let unwanted: Vec<u32> = (self.wordline_pages(&ops[0]))
            .filter(|p| ops.iter().all(|op| op.target != *p))
            .collect();
        ops[0].transfer_ns += page_transfer_ns * unwanted.len() as u64;
        let (ahead, dropped) = match self.reads.ahead.is_some() {
            true => (unwanted, 0),
            false => (Vec::new(), unwanted.len() as u64),
        };
        if !ahead.is_empty() {
            let block = self.ftl.geometry.block_of_page(ops[0].target);
            let erase_count = self.ftl.blocks[block as usize].erase_count;
            let a = (self.reads.ahead.as_mut()).unwrap_or_else(|| unreachable!("pages ahead"));
            for &page in &ahead {
                a.pages.sensing(page, erase_count);
            }
            a.sensing.insert(ops[0].target, ahead.clone());
        }
        // The command is counted with the read it was started for (those it took with it were
        // issued in the same run of the counters unless one queued across the boundary).
        if ops[0].issued_in != self.counters_run {
            return;
        }
        self.device.read_ahead_pages += ahead.len() as u64;
        self.device.melded_dropped_pages += dropped;
        let read = self.wordline_pages(&ops[0]).count() as u64;
        let bytes = page_bytes * read;
        self.device.melded_reads += 1;
        self.device.melded_pages += read;
        let set = self.ftl.geometry.die_set_of(ops[0].die);
        self.device.die_set_reads[set] += 1;
        let sense_pj =
            self.energy.by_die_set[set].read_pj(sense_ns, 1.0, bytes as u32, page_bytes as u32);
        self.count(bytes, bytes, sense_pj, serves_host);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queued_pages_are_told_apart_within_a_bucket() {
        let mut r = ReadCommands::new(true, false, None, 2, 4096);
        let (a, b, c) = (5, 5 + PAGE_BUCKETS as u32, 5 + 2 * PAGE_BUCKETS as u32);
        r.mark(0, a, true);
        assert!(r.is_queued(0, a) && !r.is_queued(0, b));
        assert_eq!(r.queued_pages.iter().sum::<u64>(), 0, "one page: no bits");
        r.mark(0, b, true);
        assert!(r.is_queued(0, a) && r.is_queued(0, b) && !r.is_queued(0, c));
        r.mark(0, a, false);
        assert!(!r.is_queued(0, a) && r.is_queued(0, b));
        r.mark(0, b, false);
        assert!(!r.is_queued(0, b));
        assert_eq!(
            r.queued_pages.iter().sum::<u64>(),
            0,
            "an empty bucket leaves no bits"
        );
        r.mark(0, c, true);
        assert!(r.is_queued(0, c) && !r.is_queued(0, a));
        // Another die's bucket of the same number is its own.
        assert!(!r.is_queued(1, c));
    }
}
