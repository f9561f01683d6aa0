//! The host's streams in the event loop (`ftl.host_streams`, melded-pages.txt §2.2–2.3; the
//! slots and the wordline layout are `ftl/host_streams.rs`): a write's stream id picks the open
//! pages (and, through its buffer key, the blocks) its units go to; with `wordlines`, a stream's
//! sealed pages wait on their plane until their page of the block comes in program order.

use serde_json::{json, Value};

use crate::config::Config;
use crate::ftl::host_streams::{ReorderQueue, SlotCounts, StreamSlots};
use crate::ftl::write_buffer::SealedPage;
use crate::ftl::Ftl;
use crate::sim::Simulation;

use super::{Technique, TechniqueId};

pub(in crate::sim) struct HostStreams {
    slots: StreamSlots,
    /// Per (slot, pool), `slot · pools + pool`: the stream's pages waiting for their turn
    /// (`wordlines` only).
    reorder: Vec<ReorderQueue<SealedPage>>,
    pools: usize,
    /// Whether a timeout event is queued for each queue.
    timer_queued: Vec<bool>,
    /// Pages that waited for their wordline's turn, and pages programmed as they came when a
    /// queue was flushed.
    held_pages: u64,
    flushed_pages: u64,
    /// Host programs in flight: while any is, buffer room will come without a relief.
    host_programs: u32,
}

impl HostStreams {
    /// The queues pages wait in for their wordline's turn (none unless they reorder).
    pub(in crate::sim) fn reorder_queues(&self) -> usize {
        self.reorder.len()
    }
}

impl Technique for HostStreams {
    fn new(config: &Config, ftl: &Ftl) -> Option<HostStreams> {
        let (h, pools) = (&config.ftl.host_streams, ftl.pools.len());
        if h.is_shared() {
            return None;
        }
        let slots = StreamSlots::new(h.max_open(), h.complete_bytes());
        let queues = if h.reorders() {
            slots.slots() * pools
        } else {
            0
        };
        Some(HostStreams {
            slots,
            reorder: (0..queues).map(|_| ReorderQueue::default()).collect(),
            pools,
            timer_queued: vec![false; queues],
            held_pages: 0,
            flushed_pages: 0,
            host_programs: 0,
        })
    }

    fn section(&self) -> &'static str {
        "host_streams"
    }

    fn summary(&self) -> Value {
        let c = self.slots.counts;
        json!({
            "opened": c.opened,
            "released": c.released,
            "completed": c.completed,
            "held_pages": self.held_pages,
            "flushed_pages": self.flushed_pages,
        })
    }

    /// The counters start over (the streams open and the pages held stay, the device's
    /// state).
    fn reset_stats(&mut self) {
        self.slots.counts = SlotCounts::default();
        self.held_pages = 0;
        self.flushed_pages = 0;
    }

    /// Its timer: a queue's oldest page may have waited the write buffer's timeout.
    fn on_timer(sim: &mut Simulation, queue: u32) {
        sim.on_reorder_timeout(queue as usize);
    }
}

impl Simulation {
    /// The slot of request `id`'s stream, opened now if it has none; a stream released for it
    /// has its open pages programmed first.
    pub(in crate::sim) fn host_slot(&mut self, id: u32) -> u32 {
        let Some(h) = &mut self.techniques.host_streams else {
            return 0;
        };
        let (slot, released) = h
            .slots
            .slot(self.host.requests[id as usize].stream, self.dev.now);
        if let Some(old) = released {
            self.release_slot(old as usize);
        }
        slot
    }

    /// Request `id`'s units are all in the write buffer: a stream that has now written its whole
    /// block (`complete_after_mib`) is closed, what it left programmed (§2.3).
    pub(in crate::sim) fn host_stream_wrote(&mut self, id: u32) {
        let Some(h) = &mut self.techniques.host_streams else {
            return;
        };
        let r = &self.host.requests[id as usize];
        if h.slots.wrote(u32::from(r.stream_slot), r.bytes) {
            self.release_slot(r.stream_slot as usize);
        }
    }

    /// The write buffer's stream of placement stream `stream` of host stream slot `slot` in
    /// `region`.
    #[inline]
    pub(in crate::sim) fn stream_key(&self, region: usize, slot: usize, stream: usize) -> usize {
        region * self.writes.streams + slot * self.dev.policies.placement_streams + stream
    }

    /// Program what a released stream left: its open pages, then its held pages as they came.
    fn release_slot(&mut self, slot: usize) {
        let lanes = self.dev.ftl.buffer.lanes();
        let regions = self.dev.ftl.geometry.regions.len();
        for region in 0..regions {
            for stream in 0..self.dev.policies.placement_streams {
                let stream_key = self.stream_key(region, slot, stream);
                for lane in 0..lanes {
                    for key in self.dev.ftl.buffer.lane_keys(stream_key, lane) {
                        self.seal_and_program(key);
                    }
                }
            }
        }
        let pools = self.dev.ftl.pools.len();
        for pool in 0..pools {
            self.flush_reorder(slot * pools + pool);
        }
    }

    /// A host program starts (+1) or ends (-1).
    #[inline]
    pub(in crate::sim) fn count_host_program(&mut self, delta: i32) {
        if let Some(h) = &mut self.techniques.host_streams {
            h.host_programs = h.host_programs.saturating_add_signed(delta);
        }
    }

    /// A write waits for buffer room, and none will come (no host program in flight or waiting
    /// for a block): every open stream's part-filled pages are programmed and its held pages
    /// too, as they came. (The buffer's validation counts the open pages of writes without a
    /// stream; those of the open streams, up to `max_open` times as many, and the pages held
    /// for their turn could otherwise fill it with nothing to program.) While programs are in
    /// flight their ends free room and the layout is kept.
    pub(in crate::sim) fn relieve_buffer(&mut self) {
        let programs = self
            .techniques
            .host_streams
            .as_ref()
            .map_or(0, |h| h.host_programs);
        if programs > 0 || self.writes.stalled_pages.iter().any(|q| !q.is_empty()) {
            return;
        }
        let slots = self.writes.streams / self.dev.policies.placement_streams;
        for slot in 1..slots {
            self.release_slot(slot);
        }
    }

    /// The queue a sealed page of buffer key `key` going to `pool` waits in, if its stream's
    /// pages are reordered.
    pub(in crate::sim) fn reorder_queue(&self, key: usize, pool: usize) -> Option<usize> {
        let h = self.techniques.host_streams.as_ref()?;
        if h.reorder.is_empty() {
            return None;
        }
        let (_, writer) = self.key_destination(key);
        let crate::ftl::Writer::Host { stream } = writer else {
            return None;
        };
        let slot = stream / self.dev.policies.placement_streams;
        // (Slot 0 is the writes without a stream; past the last slot, translation pages.)
        let queue = slot * h.pools + pool;
        (slot > 0 && queue < h.reorder.len()).then_some(queue)
    }

    /// A sealed page arrives at its queue: the pages now due are placed.
    pub(in crate::sim) fn reorder_arrive(&mut self, queue: usize, pool: usize, sealed: SealedPage) {
        let region = self.dev.ftl.pools[pool].region;
        let wl = &self.dev.ftl.geometry.regions[region].wordlines;
        let pages = self.dev.ftl.pools[pool].pages_per_block;
        let Some(h) = &mut self.techniques.host_streams else {
            return;
        };
        let mut due = Vec::new();
        let waits = h.reorder[queue].arrive(sealed, self.dev.now, wl, pages, &mut due);
        h.held_pages += u64::from(waits);
        let timeout = self.dev.config.ftl.write_buffer_timeout_ns;
        if timeout > 0 && h.reorder[queue].held() > 0 && !h.timer_queued[queue] {
            h.timer_queued[queue] = true;
            let at = h.reorder[queue].oldest_ns().unwrap_or(self.dev.now) + timeout;
            self.dev
                .events
                .push(at, TechniqueId::HostStreams.timer(queue as u32));
        }
        for sealed in due {
            self.dispatch_sealed(pool, sealed);
        }
    }

    /// The write buffer's timeout for a queue's oldest page: if it has waited that long, every
    /// held page of the queue is programmed as it came; else the timer is set for it.
    fn on_reorder_timeout(&mut self, queue: usize) {
        let timeout = self.dev.config.ftl.write_buffer_timeout_ns;
        let Some(h) = &mut self.techniques.host_streams else {
            return;
        };
        h.timer_queued[queue] = false;
        let Some(oldest) = h.reorder[queue].oldest_ns() else {
            return;
        };
        if oldest + timeout <= self.dev.now {
            self.flush_reorder(queue);
        } else {
            h.timer_queued[queue] = true;
            self.dev.events.push(
                oldest + timeout,
                TechniqueId::HostStreams.timer(queue as u32),
            );
        }
    }

    /// Program every page `queue` holds, as they came.
    fn flush_reorder(&mut self, queue: usize) {
        let Some(h) = &mut self.techniques.host_streams else {
            return;
        };
        if h.reorder.get(queue).is_none_or(|q| q.held() == 0) {
            return;
        }
        let mut due = Vec::new();
        h.reorder[queue].flush(&mut due);
        h.flushed_pages += due.len() as u64;
        let pool = queue % h.pools;
        for sealed in due {
            self.dispatch_sealed(pool, sealed);
        }
    }

    /// Program every held page: writes wait for buffer room, or the input has ended.
    pub(in crate::sim) fn flush_all_reorder(&mut self) {
        let queues = self
            .techniques
            .host_streams
            .as_ref()
            .map_or(0, |h| h.reorder_queues());
        for q in 0..queues {
            self.flush_reorder(q);
        }
    }
}
