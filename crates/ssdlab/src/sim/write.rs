//! Write path: units enter the write buffer (waiting for room when it is full), fill the open page
//! of their stream, and a sealed page is placed on a plane and programmed. A plane without room
//! holds its sealed pages until GC frees a block (foreground GC).

use std::collections::VecDeque;

use slab::Slab;

use super::hot_tally::HotTally;
use crate::config::PartialWrite;
use crate::flash::{FlashOp, OpKind, OpSource};
use crate::ftl::admission::{Admitted, Route, Sealed};
use crate::ftl::page_units::PageUnits;
use crate::ftl::policies::Policies;
use crate::ftl::shape::{UnitKind, UnitShape};
use crate::ftl::write_buffer::SealedPage;
use crate::ftl::{table, Ftl, Location, Writer};

use super::event::{Event, Timer};
use super::technique::TimerKind;
use super::Simulation;

/// Mapping entries in a cache line.
const UNITS_PER_LINE: u32 = 64 / std::mem::size_of::<u32>() as u32;

/// What a program operation is for (its `owner` indexes these).
pub(super) struct ProgramRecord {
    pub(super) page: u32,
    pub(super) units: u32,
    pub(super) waiters: Vec<u32>,
    pub(super) source: OpSource,
    /// The pool programmed (host), or the pool whose GC job issued the copy (GC, WL).
    pub(super) pool: usize,
    /// The slots a later (partial) program of the page writes; 0 for a page's first program.
    pub(super) partial_slots: u64,
}

/// The write path's own state: programs in flight, what waits for room, and where the next
/// pages go.
pub(super) struct Writes {
    /// In-flight programs, keyed by the `owner` of their flash operation.
    pub(super) programs: Slab<ProgramRecord>,
    /// Sealed host pages waiting for a pool to have room (foreground GC), per pool.
    pub(super) stalled_pages: Vec<VecDeque<SealedPage>>,
    /// Write (and trim) requests waiting for buffer room, in arrival order.
    pub(super) waiters: VecDeque<WaitingWrite>,
    /// Where host writes went by heat, when the placement has a stream of the hottest data
    /// (`Placement::hot_stream`).
    pub(super) hot: Option<HotTally>,
    /// The placement's streams.
    pub(super) streams: usize,
    /// Scratch buffers reused across events (the event loop allocates nothing per request).
    pub(super) scratch_sealed: Vec<Sealed>,
    pub(super) scratch_split_pages: Vec<u32>,
    pub(super) scratch_units: PageUnits,
}

impl Writes {
    /// The write path of `ftl` under `policies`.
    pub(super) fn new(ftl: &Ftl, policies: &Policies) -> Writes {
        Writes {
            programs: Slab::new(),
            stalled_pages: (0..ftl.pools.len()).map(|_| VecDeque::new()).collect(),
            waiters: VecDeque::new(),
            hot: (policies.placement.hot_stream())
                .map(|s| HotTally::new(s, policies.placement.streams(), ftl.logical_units.into())),
            streams: policies.streams,
            scratch_sealed: Vec::new(),
            scratch_split_pages: Vec::new(),
            scratch_units: PageUnits::new(ftl.keeps_shapes()),
        }
    }
}

/// A request that changes the mapping and waits for buffer room.
#[derive(Clone, Copy)]
pub(super) struct WaitingWrite {
    request: u32,
    /// Index of its next unit to admit.
    next_unit: u32,
    since_ns: u64,
    /// Its units (a copy of the request's, so that the queue alone says which mapping entries
    /// the write will touch).
    first_lpn: u32,
    units: u32,
}

impl Simulation {
    /// Admit a request that changes the mapping (a write, or a trim) from unit index `from`,
    /// behind any such request already waiting for buffer room, so they take effect in order.
    pub(super) fn admit_update(&mut self, id: u32, from: u32) {
        let r = &self.host.requests[id as usize];
        let mut waiting = WaitingWrite {
            request: id,
            next_unit: from,
            since_ns: self.dev.now,
            first_lpn: r.first_lpn,
            units: r.units,
        };
        if !self.writes.waiters.is_empty() {
            self.writes.waiters.push_back(waiting);
            return;
        }
        if let Some(next) = self.admit_units(id, from) {
            waiting.next_unit = next;
            self.writes.waiters.push_back(waiting);
            if self.techniques.host_streams.is_some() {
                self.relieve_buffer();
            }
        }
    }

    /// Admit as many units as fit (a trim takes effect at once); returns the index of the first
    /// unit left over, if any.
    fn admit_units(&mut self, id: u32, from: u32) -> Option<u32> {
        let (first, units, op) = {
            let r = &self.host.requests[id as usize];
            (r.first_lpn, r.units, r.op)
        };
        if op == crate::trace::Op::Trim {
            self.trim(id);
            return None;
        }
        if self.techniques.host_streams.is_some() {
            self.host.requests[id as usize].stream_slot = self.host_slot(id) as u16;
        }
        let mut encode_ns = 0;
        for i in from..units {
            if !self.dev.ftl.buffer.has_room() {
                self.write_into_dram(id, from, i);
                return Some(i);
            }
            encode_ns += self.admit_unit(id, first + i);
        }
        self.write_into_dram(id, from, units);
        if self.techniques.host_streams.is_some() {
            self.host_stream_wrote(id);
        }
        // All units are in: drop the admission guard (and acknowledge, for write_ack = "buffer").
        self.request_part_done(id, self.dev.now + encode_ns);
        None
    }

    /// A write cache takes in the bytes of the request's units `from..to`, just admitted; the
    /// write is acknowledged once they are in DRAM.
    #[inline]
    fn write_into_dram(&mut self, id: u32, from: u32, to: u32) {
        let Some(c) = &mut self.data_cache else {
            return;
        };
        if !c.caches_writes() || from == to {
            return;
        }
        let r = &mut self.host.requests[id as usize];
        let unit_bytes = self.dev.ftl.geometry.unit_bytes;
        let bytes: u64 = (r.first_lpn + from..r.first_lpn + to)
            .map(|lpn| {
                let (lo, hi) = r.bytes_in_unit(lpn, unit_bytes);
                (hi - lo) as u64
            })
            .sum();
        r.done_ns = r.done_ns.max(c.access(self.dev.now, bytes));
    }

    /// Put one unit into the write buffer (an all-zero one only into the mapping); returns its
    /// encode time.
    #[inline(always)]
    fn admit_unit(&mut self, id: u32, lpn: u32) -> u64 {
        let unit_bytes = self.dev.ftl.geometry.unit_bytes;
        let version = match &mut self.dev.ftl.oracle {
            Some(o) => {
                let (lo, hi) = self.host.requests[id as usize].bytes_in_unit(lpn, unit_bytes);
                o.write(lpn, lo, hi)
            }
            None => 0,
        };
        let updates = self.dev.ftl.count_update(lpn);
        if let Some(c) = &mut self.data_cache {
            c.drop_unit(lpn);
        }
        if self.mapping.is_some() {
            self.mapping_written(lpn);
        }
        // A unit in a slot rewritten in place (PCM) is rewritten where it is, only its bytes
        // moved (no read-modify-write: PCM is written a byte at a time). Units are stored as
        // written there (`ftl/in_place.rs`).
        if self.dev.ftl.geometry.rewrites_in_place_anywhere() {
            if let Location::Flash(slot) = self.dev.ftl.lookup(lpn) {
                if self.dev.ftl.rewritable_in_place(slot) {
                    // (Stored as written: counted so, beside the units the reduction stores.)
                    let as_written = UnitShape::raw(self.dev.ftl.geometry.unit_bytes);
                    let stored = Some((as_written.kind, as_written.len));
                    self.dev.stats.reduction.count(unit_bytes, stored);
                    self.rewrite_in_place(id, lpn, version, slot);
                    return 0;
                }
            }
        }
        let merged = self.dev.config.ftl.partial_write == PartialWrite::ReadModifyWrite
            && self.read_for_merge(id, lpn);
        let reduced = self.dev.policies.reduction.reduce(lpn);
        if merged {
            // The merged unit is compressed once its old bytes are in.
            self.host.requests[id as usize].after_read_ns += reduced.encode_ns;
        }
        let Some(shape) = reduced.shape else {
            self.dev.stats.reduction.count(unit_bytes, None);
            self.dev.ftl.map_zero(lpn, version);
            return reduced.encode_ns;
        };
        let Route {
            dest,
            shape,
            in_place,
        } = self.dev.ftl.route(
            lpn,
            updates,
            shape,
            &mut *self.dev.policies.placement,
            self.dev.policies.split.as_deref_mut(),
            self.host.requests[id as usize].bytes,
            self.writes.streams,
        );
        (self.dev.stats.reduction).count(unit_bytes, Some((shape.kind, shape.len)));
        // A host stream's own pages and blocks (`sim/technique/host_streams.rs`) are the appended media's:
        // one written in place, a unit at a time (PCM), has no block a stream could keep to itself.
        let slot = match self.host.requests[id as usize].stream_slot as usize {
            s if s > 0 && !in_place => s,
            _ => 0,
        };
        let stream_key = self.stream_key(dest.region, slot, dest.stream);
        if let Some(hot) = &mut self.writes.hot {
            hot.placed(lpn, dest.stream);
        }
        // (The mapping is looked up only when pages take partial programs.)
        // (A split unit's parts go to pages of their own channels, never beside its old copy.)
        if let (Some(policy), false) = (
            &mut self.dev.policies.partial,
            shape.kind == UnitKind::Split,
        ) {
            if let Location::Flash(old) = self.dev.ftl.lookup(lpn) {
                if let Some(page) = policy.update_in_place(&self.dev.ftl, old, updates, shape.len) {
                    self.update_in_place(id, lpn, version, shape, page);
                    return reduced.encode_ns;
                }
            }
        }
        let keys =
            (self.dev.ftl.buffer).keys(stream_key, self.dev.policies.reduction.lane_of(shape));
        if let Some(limit) =
            (self.dev.policies.partial.as_ref()).and_then(|p| p.merge_threshold_pages())
        {
            self.merge_logical_page(id, lpn, keys.clone(), limit);
        }
        let waiter = self.dev.ack_on_program().then_some(id);
        let a = (self.dev.ftl).buffer_unit(
            lpn,
            version,
            shape,
            keys,
            waiter,
            &mut self.writes.scratch_sealed,
        );
        if a.rewritten {
            self.dev.stats.coalesced_write_units += 1;
        }
        if a.waiting {
            self.host.requests[id as usize].pending += 1;
        }
        self.program_admitted(a);
        reduced.encode_ns
    }

    /// MGA's subpage merging (Feng et al., DATE 2017; techniques.md §3.3): when a write of `lpn`
    /// into open pages `keys` would leave its logical page (a flash page's worth of mapping
    /// units) spread over more than `limit` physical pages, the logical page's other units on
    /// flash are read (request `id` waits for the reads) and rewritten into the same open page,
    /// so that the logical page lies in one physical page again. (The rewritten units join the
    /// buffer at once; their page's program does not wait for the reads, as a read-modify-write's
    /// does not.)
    #[inline(never)]
    fn merge_logical_page(&mut self, id: u32, lpn: u32, keys: std::ops::Range<usize>, limit: u32) {
        let g = &self.dev.ftl.geometry;
        let per_page = g.page_bytes / g.unit_bytes;
        let first = lpn / per_page * per_page;
        let last = (first + per_page).min(self.dev.ftl.host_units);
        let mut others = Vec::new();
        let mut pages: Vec<u32> = Vec::new();
        // Only the region written to shares pages (MGA's subpage-mapped data: the small writes);
        // units elsewhere were written, or moved, a page at a time.
        let region = self
            .dev
            .ftl
            .buffer
            .destination(keys.start, self.writes.streams)
            .0;
        for u in (first..last).filter(|&u| u != lpn) {
            if let Location::Flash(slot) = self.dev.ftl.lookup(u) {
                if g.region_of(g.block_of_slot(slot)) != region {
                    continue;
                }
                others.push((u, slot));
                let page = g.page_of_slot(slot);
                if !pages.contains(&page) {
                    pages.push(page);
                }
            }
        }
        // The pages its other units are on, and the one the write goes to, past the limit?
        if (pages.len() as u32) < limit {
            return;
        }
        let unit_bytes = g.unit_bytes;
        let mut groups = std::mem::take(&mut self.reads.scratch_groups);
        groups.clear();
        for &(u, slot) in &others {
            if self.dev.ftl.unit_programmed(u, slot) {
                self.dev
                    .ftl
                    .read_pages(u, slot, 0, unit_bytes, |page, codewords| {
                        groups.add(page, codewords)
                    });
            }
        }
        self.read_groups(id, &groups, OpSource::Rmw);
        self.reads.scratch_groups = groups;
        for (u, slot) in others {
            let version =
                (self.dev.ftl.oracle.as_ref()).map_or(0, |o| o.slot_version[slot as usize]);
            let shape = UnitShape {
                offset: 0,
                ..self.dev.ftl.shape_in_slot(u, slot)
            };
            let sealed = &mut self.writes.scratch_sealed;
            let a = (self.dev.ftl).buffer_unit(u, version, shape, keys.clone(), None, sealed);
            self.dev.stats.merged_units += 1;
            // (A merged unit may be the first into its open page: its timeout starts then.)
            self.program_admitted(a);
        }
    }

    /// After a unit's admission `a`: program the pages it sealed (`scratch_sealed`) and start
    /// its page's timeout. Pages sealed before the unit went in are programmed before the
    /// timeout is set, the rest after. (Most units seal nothing.)
    #[inline(always)]
    pub(super) fn program_admitted(&mut self, a: Admitted) {
        if self.writes.scratch_sealed.is_empty() {
            return self.start_buffer_timeout(a);
        }
        let mut sealed = std::mem::take(&mut self.writes.scratch_sealed);
        let mut pages = sealed.drain(..);
        for s in pages.by_ref().take(a.sealed_before) {
            self.program_now(s);
        }
        self.start_buffer_timeout(a);
        for s in pages {
            self.program_now(s);
        }
        self.writes.scratch_sealed = sealed;
    }

    /// The first unit into an empty open page starts its timeout (`write_buffer_timeout_ns`).
    fn start_buffer_timeout(&mut self, a: Admitted) {
        let timeout = self.dev.config.ftl.write_buffer_timeout_ns;
        if a.was_empty && timeout > 0 {
            let deadline = self.dev.now + timeout;
            self.dev.ftl.buffer.open[a.deadline_key].deadline_ns = deadline;
            self.dev.events.push(
                deadline,
                Event::Timer(Timer::new(TimerKind::BufferTimeout, a.deadline_key as u32)),
            );
        }
    }

    /// A write covering only part of unit `lpn` must merge the unit's other bytes: read them
    /// from the old copy on flash (and decompress it) before the write completes. A copy in
    /// the write buffer, an all-zero or unmapped unit, needs no read. Returns whether it read.
    #[inline(never)]
    fn read_for_merge(&mut self, id: u32, lpn: u32) -> bool {
        let unit_bytes = self.dev.ftl.geometry.unit_bytes;
        let (lo, hi) = self.host.requests[id as usize].bytes_in_unit(lpn, unit_bytes);
        if lo == 0 && hi == unit_bytes {
            return false;
        }
        let Location::Flash(slot) = self.dev.ftl.lookup(lpn) else {
            return false;
        };
        if !self.dev.ftl.unit_programmed(lpn, slot) {
            return false;
        }
        let mut groups = std::mem::take(&mut self.reads.scratch_groups);
        groups.clear();
        for (a, b) in [(0, lo), (hi, unit_bytes)] {
            if a < b {
                self.dev.ftl.read_pages(lpn, slot, a, b, |page, codewords| {
                    groups.add(page, codewords)
                });
            }
        }
        let read = !groups.as_slice().is_empty();
        if read {
            self.dev.stats.merge_read_units += 1;
            if self.dev.ftl.is_compressed(lpn) {
                self.host.requests[id as usize].after_read_ns +=
                    self.dev.policies.reduction.decompress_ns();
            }
        }
        self.read_groups(id, &groups, OpSource::Rmw);
        self.reads.scratch_groups = groups;
        read
    }

    /// Program what was sealed: a page, or a split buffer cut into columns.
    pub(super) fn program_now(&mut self, sealed: Sealed) {
        match sealed {
            Sealed::Page(page) => self.place_sealed(page),
            Sealed::Split(rows) => self.place_split(rows),
        }
    }

    /// The region and the writer of an open page's key.
    pub(super) fn key_destination(&self, key: usize) -> (usize, Writer) {
        self.dev.ftl.buffer.destination(key, self.writes.streams)
    }

    /// Choose a plane for a sealed page and program it there, or hold it until the plane has room.
    pub(super) fn place_sealed(&mut self, sealed: SealedPage) {
        let (region, writer) = self.key_destination(sealed.key);
        let ftl = &self.dev.ftl;
        let dies = ftl.geometry.regions[region].dies.index;
        let plane = self.dev.policies.allocators[dies].next_plane(&self.dev.sched, &|p| {
            ftl.has_room(ftl.pool_index(p, region), writer)
        });
        let pool = self.dev.ftl.pool_index(plane, region);
        match self.reorder_queue(sealed.key, pool) {
            Some(queue) => self.reorder_arrive(queue, pool, sealed),
            None => self.dispatch_sealed(pool, sealed),
        }
    }

    /// Program a sealed page on `pool`, or hold it until the pool has room.
    pub(super) fn dispatch_sealed(&mut self, pool: usize, sealed: SealedPage) {
        let (_, writer) = self.key_destination(sealed.key);
        if !self.writes.stalled_pages[pool].is_empty() || !self.dev.ftl.has_room(pool, writer) {
            self.writes.stalled_pages[pool].push_back(sealed);
            self.maybe_start_gc(pool);
            return;
        }
        self.program_sealed(pool, sealed);
    }

    /// Program a sealed host page into `pool`, which has room.
    pub(super) fn program_sealed(&mut self, pool: usize, sealed: SealedPage) {
        let mut units = std::mem::take(&mut self.writes.scratch_units);
        self.dev.ftl.sealed_units(&sealed, &mut units);
        if self.dev.ftl.stores_units_alone(pool) {
            return self.program_units_alone(pool, sealed, units);
        }
        if let Some(page) = self.partial_target(&sealed, &units) {
            self.program_partial(page, sealed, &units);
            self.writes.scratch_units = units;
            return;
        }
        let (_, writer) = self.key_destination(sealed.key);
        let Some(page) = self.dev.ftl.alloc_page(pool, writer, self.dev.now) else {
            self.writes.scratch_units = units;
            self.writes.stalled_pages[pool].push_front(sealed);
            return;
        };
        let live = units.live().count() as u64;
        self.dev.stats.padded_slots += self.dev.ftl.geometry.slots_per_page as u64 - live;
        let bytes = match &mut self.dev.policies.partial {
            // The subpages left stay erased for later partial programs, and only those
            // written are moved.
            Some(policy) => {
                let bytes = self.dev.ftl.fill_page_in_part(page, &units);
                policy.first_program(&self.dev.ftl, sealed.key, page);
                bytes
            }
            None => {
                self.dev.ftl.fill_page(page, &units);
                self.dev.ftl.geometry.page_bytes
            }
        } as u64;
        self.writes.scratch_units = units;
        let units = sealed.entries.len() as u32;
        let source = self.program_source(sealed.key);
        self.dev.ftl.buffer.retire(sealed.entries);
        let owner = self.new_program(ProgramRecord {
            page,
            units,
            waiters: sealed.waiters,
            source: OpSource::Host,
            pool,
            partial_slots: 0,
        });
        let op = self.program_op_bytes(page, source, owner, bytes);
        self.dev.submit(op);
        self.maybe_start_gc(pool);
    }

    /// Program the live `units` of `sealed` into PCM `pool`, each alone into a slot of its own
    /// (`ftl/in_place.rs`), or hold the page until the pool has room for them all. The last program
    /// (they complete in order, on one die) releases the page's buffer room and its waiters.
    fn program_units_alone(&mut self, pool: usize, sealed: SealedPage, units: PageUnits) {
        let live: Vec<(u32, u32)> = units.live().collect();
        self.writes.scratch_units = units;
        if !self.dev.ftl.has_room_for_units(pool, live.len() as u32) {
            self.writes.stalled_pages[pool].push_front(sealed);
            return;
        }
        let entries = sealed.entries.len() as u32;
        let source = self.program_source(sealed.key);
        self.dev.ftl.buffer.retire(sealed.entries);
        if live.is_empty() {
            // Every unit was rewritten or trimmed while buffered: nothing to program.
            self.dev.ftl.buffer.release(entries);
            for w in sealed.waiters {
                self.request_part_done(w, self.dev.now);
            }
            return self.admit_waiting_writes();
        }
        let mut waiters = Some(sealed.waiters);
        for (i, &(lpn, version)) in live.iter().enumerate() {
            let slot = self.dev.ftl.alloc_slot(pool, self.dev.now);
            let bytes = self.dev.ftl.fill_slot(slot, lpn, version);
            let last = i + 1 == live.len();
            let page = self.dev.ftl.geometry.page_of_slot(slot);
            let owner = self.new_program(ProgramRecord {
                page,
                units: if last { entries } else { 0 },
                waiters: if last {
                    waiters.take().unwrap()
                } else {
                    Vec::new()
                },
                source: OpSource::Host,
                pool,
                partial_slots: 0,
            });
            let op = self.program_op_bytes(page, source, owner, bytes);
            self.dev.submit(op);
        }
    }

    /// Program version `version` of `lpn` (of request `id`), stored as `shape`, into erased
    /// subpages of `page`, which holds its old copy, at once: a partial program of one unit,
    /// outside the write buffer.
    #[inline(never)]
    fn update_in_place(&mut self, id: u32, lpn: u32, version: u32, shape: UnitShape, page: u32) {
        self.dev.ftl.unmap(lpn);
        let mut unit = PageUnits::new(self.dev.ftl.keeps_shapes());
        unit.push(lpn, version, || UnitShape { offset: 0, ..shape });
        let written = self.dev.ftl.fill_erased_slots(page, &unit);
        self.dev.stats.partial_programs += 1;
        self.dev.stats.in_place_updates += 1;
        self.program_for_request(id, page, written.slots, written.bytes);
    }

    /// Program version `version` of `lpn` (of request `id`) over its old copy in `slot`, on a
    /// page written in place (PCM), at once: outside the write buffer, moving only the bytes
    /// the request writes.
    #[inline(never)]
    fn rewrite_in_place(&mut self, id: u32, lpn: u32, version: u32, slot: u32) {
        self.dev.ftl.rewrite_in_place(lpn, slot, version);
        self.dev.stats.rewrites_in_place += 1;
        let g = &self.dev.ftl.geometry;
        let (lo, hi) = self.host.requests[id as usize].bytes_in_unit(lpn, g.unit_bytes);
        let page = g.page_of_slot(slot);
        self.program_for_request(id, page, 0, (hi - lo) as u64);
    }

    /// Program `bytes` of `page` (its `partial_slots`, if a later program of it) for request
    /// `id` alone, outside the write buffer: the request waits for it if writes are
    /// acknowledged on program.
    fn program_for_request(&mut self, id: u32, page: u32, partial_slots: u64, bytes: u64) {
        let waiters = match self.dev.ack_on_program() {
            true => {
                self.host.requests[id as usize].pending += 1;
                vec![id]
            }
            false => Vec::new(),
        };
        let pool = self
            .dev
            .ftl
            .pool_of_block(self.dev.ftl.geometry.block_of_page(page));
        let owner = self.new_program(ProgramRecord {
            page,
            units: 0,
            waiters,
            source: OpSource::Host,
            pool,
            partial_slots,
        });
        let op = self.program_op_bytes(page, OpSource::Host, owner, bytes);
        self.dev.submit(op);
    }

    /// The page already programmed in part that the partial-program policy sends `sealed`'s
    /// live `units` to, if any.
    fn partial_target(&mut self, sealed: &SealedPage, units: &PageUnits) -> Option<u32> {
        let policy = self.dev.policies.partial.as_mut()?;
        let live = units.live().count() as u32;
        (live > 0 && live < self.dev.ftl.geometry.slots_per_page)
            .then(|| {
                policy.target(
                    &self.dev.ftl,
                    sealed.key,
                    live,
                    self.dev.ftl.live_bytes(units),
                )
            })
            .flatten()
    }

    /// Program `sealed`'s live `units` into erased subpages of `page` (on any plane: no page is
    /// allocated): one more program of the page, moving only their bytes.
    #[inline(never)]
    fn program_partial(&mut self, page: u32, sealed: SealedPage, units: &PageUnits) {
        let pool = self
            .dev
            .ftl
            .pool_of_block(self.dev.ftl.geometry.block_of_page(page));
        let written = self.dev.ftl.fill_erased_slots(page, units);
        self.dev.stats.partial_programs += 1;
        let n = sealed.entries.len() as u32;
        let source = self.program_source(sealed.key);
        self.dev.ftl.buffer.retire(sealed.entries);
        let owner = self.new_program(ProgramRecord {
            page,
            units: n,
            waiters: sealed.waiters,
            source: OpSource::Host,
            pool,
            partial_slots: written.slots,
        });
        let op = self.program_op_bytes(page, source, owner, written.bytes);
        self.dev.submit(op);
    }

    /// Whom a sealed page's program is counted for: the host, or the mapping table's
    /// translation pages (their own stream, `mapping.rs`). Either way it is the write path's
    /// (its end releases buffer room).
    fn program_source(&self, key: usize) -> OpSource {
        match &self.mapping {
            Some(m) if m.writes_to(key) => OpSource::Mapping,
            _ => OpSource::Host,
        }
    }

    pub(super) fn new_program(&mut self, record: ProgramRecord) -> u32 {
        if record.source == OpSource::Host {
            self.count_host_program(1);
        }
        self.writes.programs.insert(record) as u32
    }

    /// The program command for a whole page.
    pub(super) fn program_op(&mut self, page: u32, source: OpSource, owner: u32) -> FlashOp {
        let bytes = self.dev.ftl.geometry.page_bytes as u64;
        self.program_op_bytes(page, source, owner, bytes)
    }

    /// A program command moving `bytes` of the page (fewer than a page: a partial program).
    pub(super) fn program_op_bytes(
        &mut self,
        page: u32,
        source: OpSource,
        owner: u32,
        bytes: u64,
    ) -> FlashOp {
        let g = &self.dev.ftl.geometry;
        let a = g.page_addr(page);
        self.dev.stats.programmed_bytes += bytes;
        FlashOp {
            kind: OpKind::Program,
            source,
            die: a.die,
            plane_in_die: a.plane_in_die,
            page_in_block: a.page_in_block,
            target: page,
            codewords: 0,
            array_ns: self.dev.timing.region(a.region).tprog_ns[a.page_type as usize],
            transfer_ns: self.dev.timing.transfer_ns(bytes),
            owner,
            issued_in: 0, // (stamped by `submit`)
        }
    }

    pub(super) fn on_program_done(&mut self, owner: u32) {
        let ProgramRecord {
            page,
            units,
            waiters,
            source,
            pool,
            partial_slots,
        } = self.writes.programs.remove(owner as usize);
        match partial_slots {
            0 => self.dev.ftl.complete_program(page),
            slots => self.dev.ftl.complete_partial(page, slots),
        }
        if let Some(m) = &mut self.reads.errors {
            let g = &self.dev.ftl.geometry;
            match partial_slots {
                0 => m.wear.programmed(g, page, g.all_slots(), true),
                slots => m.wear.programmed(g, page, slots, false),
            }
        }
        // A block whose last program completes may be the victim a waiting GC needs.
        let block = self.dev.ftl.geometry.block_of_page(page);
        let block_pool = self.dev.ftl.pool_of_block(block);
        if self.dev.ftl.programmed[block as usize] == self.dev.ftl.pools[block_pool].pages_per_block
        {
            self.maybe_start_gc(block_pool);
        }
        // So may a block of a pool that found nothing worth cleaning, if this page's units
        // overwrote units of it.
        if !self.gc.parked.is_empty() {
            self.retry_parked_gc();
        }
        match source {
            OpSource::Host => {
                self.count_host_program(-1);
                self.dev.ftl.buffer.release(units);
                for w in waiters {
                    self.request_part_done(w, self.dev.now);
                }
                self.admit_waiting_writes();
            }
            OpSource::Gc | OpSource::Wl => {
                self.gc.jobs[pool].programs_outstanding -= 1;
                self.advance_gc(pool);
            }
            OpSource::Rmw | OpSource::Mapping => {
                unreachable!("merged units and translation pages are programmed as host writes")
            }
        }
    }

    /// Buffer room freed up: admit waiting writes in arrival order.
    fn admit_waiting_writes(&mut self) {
        while self.dev.ftl.buffer.has_room() {
            let Some(mut w) = self.writes.waiters.pop_front() else {
                break;
            };
            self.dev.stats.write_stall_ns += self.dev.now - w.since_ns;
            if let Some(left) = self.admit_units(w.request, w.next_unit) {
                w.next_unit = left;
                w.since_ns = self.dev.now;
                self.writes.waiters.push_front(w);
                break;
            }
        }
        if self.techniques.host_streams.is_some() && !self.writes.waiters.is_empty() {
            self.relieve_buffer();
        }
        // A program frees a page's worth of room, about half a write, so the write behind the
        // first is admitted at one of the next programs' ends. It has waited long enough for its
        // mapping entries to leave the cache: load them now, a few dozen events before they are
        // needed (docs/performance.md, "Memory access").
        if let Some(w) = self.writes.waiters.get(1) {
            let from = w.first_lpn + w.next_unit;
            let last = w.first_lpn + w.units - 1;
            table::prefetch(&self.dev.ftl.l2p, from as usize);
            table::prefetch(
                &self.dev.ftl.l2p,
                last.min(from + UNITS_PER_LINE - 1) as usize,
            );
        }
        self.maybe_final_flush();
    }

    pub(super) fn on_buffer_timeout(&mut self, key: usize) {
        // The event may be for a page sealed since; only a page whose own deadline is now goes.
        // (A page opened at the same instant as a sealed one has the same deadline and its own
        // event at this very time, so sealing it on the older event changes nothing.)
        if self.dev.ftl.buffer.open[key].deadline_ns != self.dev.now {
            return;
        }
        self.seal_and_program(key);
    }

    /// Seal open page `key` (with its split buffer, if it is one's first row) and program it.
    pub(super) fn seal_and_program(&mut self, key: usize) {
        let lanes = self.dev.ftl.buffer.lanes();
        let group = self.dev.ftl.buffer.keys(key / lanes, key % lanes);
        if group.len() > 1 {
            if key == group.start {
                let rows = self.dev.ftl.buffer.seal_all(group);
                self.place_split(rows);
            }
        } else if let Some(sealed) = self.dev.ftl.buffer.seal(key) {
            self.place_sealed(sealed);
        }
    }
}
