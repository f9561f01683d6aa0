//! The host's streams (`ftl.host_streams`): which open streams have pages and blocks of their
//! own, and, for melded pages (melded-pages.txt §2.2, Figs. 4–6), the order a stream's sealed
//! pages are programmed in on one plane so that its k-th page lands on the k-th page of the
//! block in wordline order: consecutive pages of the stream then share a wordline (LSB, CSB, MSB)
//! despite the shadow program order, and a later sequential read finds all of a wordline's pages
//! wanted at once (a melded read).

use std::collections::{BTreeMap, HashMap};

use crate::flash::geometry::Wordlines;

/// Slots of the streams open at once: slot 0 takes every write without a stream id (and every
/// write when none is kept apart); slots 1 … `max_open` each one stream.
pub struct StreamSlots {
    /// The stream id in each slot (slot 0's is 0; 0 elsewhere: free).
    ids: Vec<u16>,
    /// When each slot was last written, to release the least recent.
    last_use: Vec<u64>,
    slot_of: HashMap<u16, u32>,
    /// Bytes each slot's stream has written since it opened.
    written: Vec<u64>,
    /// A stream that has written this many bytes is complete (0: never).
    complete_bytes: u64,
    pub counts: SlotCounts,
}

/// What the slots did: counters, started over at the statistics window's boundary.
#[derive(Clone, Copy, Default)]
pub struct SlotCounts {
    pub opened: u64,
    /// Streams released for another (the least recently written).
    pub released: u64,
    /// Streams closed once complete.
    pub completed: u64,
}

impl StreamSlots {
    /// `max_open` streams, each closed once it has written `complete_bytes` (0: never).
    pub fn new(max_open: u32, complete_bytes: u64) -> StreamSlots {
        StreamSlots {
            ids: vec![0; max_open as usize + 1],
            last_use: vec![0; max_open as usize + 1],
            slot_of: HashMap::new(),
            written: vec![0; max_open as usize + 1],
            complete_bytes,
            counts: SlotCounts::default(),
        }
    }

    /// Slot `slot`'s stream wrote `bytes`: whether that completed it (its slot is free then,
    /// and a later write of its id opens it again).
    pub fn wrote(&mut self, slot: u32, bytes: u64) -> bool {
        let s = slot as usize;
        if s == 0 || self.complete_bytes == 0 || self.ids[s] == 0 {
            return false;
        }
        self.written[s] += bytes;
        if self.written[s] < self.complete_bytes {
            return false;
        }
        self.slot_of.remove(&self.ids[s]);
        self.ids[s] = 0;
        self.counts.completed += 1;
        true
    }

    /// The slot of stream `id`, opening one if it has none (at `now`); and the slot whose
    /// stream was released for it, if one was (its open pages are to be programmed before the
    /// new stream writes).
    pub fn slot(&mut self, id: u16, now: u64) -> (u32, Option<u32>) {
        if id == 0 {
            return (0, None);
        }
        if let Some(&s) = self.slot_of.get(&id) {
            self.last_use[s as usize] = now;
            return (s, None);
        }
        self.counts.opened += 1;
        // A free slot, else the one written least recently (ties: the lowest).
        let s = (1..self.ids.len())
            .min_by_key(|&s| (self.ids[s] != 0, self.last_use[s], s))
            .expect("max_open ≥ 1 (validated)");
        let released = (self.ids[s] != 0).then(|| {
            self.slot_of.remove(&self.ids[s]);
            self.counts.released += 1;
            s as u32
        });
        self.ids[s] = id;
        self.last_use[s] = now;
        self.written[s] = 0;
        self.slot_of.insert(id, s as u32);
        (s as u32, released)
    }

    pub fn slots(&self) -> usize {
        self.ids.len()
    }
}

/// One stream's sealed pages on one plane, programmed in the order of the block's pages: a page
/// waits until every page before it in program order is programmed. Pages are numbered as they
/// arrive; a layout says which arrival each page of the block takes.
pub struct ReorderQueue<T> {
    /// The page of the stream's block the next page programmed takes (program order).
    next_page: u32,
    /// Pages arrived so far.
    arrivals: u64,
    layout: Option<Layout>,
    /// Pages waiting for their turn: by arrival, with the time each arrived.
    held: BTreeMap<u64, (T, u64)>,
}

/// Where a stream's pages go in a block it began writing at page `start`: the pages of the
/// wordlines it began part written (`orphans`, programmed after `start` though their wordline
/// has pages before it) take its first arrivals as they come; the following arrivals go in
/// wordline order from wordline `base`.
struct Layout {
    first_arrival: u64,
    start: u32,
    orphans: Vec<u32>,
    base_rank: u32,
}

impl Layout {
    fn at(start: u32, first_arrival: u64, wl: &Wordlines, pages: u32) -> Layout {
        // The first wordline with no page before `start`.
        let base = (0..pages)
            .map(|p| wl.of_page(p))
            .filter(|&w| wl.pages(w).all(|p| p >= start))
            .min();
        let orphans = (start..pages)
            .filter(|&p| base.is_none_or(|b| wl.of_page(p) < b))
            .collect();
        let base_rank = base.map_or(0, |b| wl.pages(b).map(|p| wl.rank(p)).min().unwrap_or(0));
        Layout {
            first_arrival,
            start,
            orphans,
            base_rank,
        }
    }

    /// The arrival block page `page` takes.
    fn arrival_for(&self, page: u32, wl: &Wordlines) -> u64 {
        self.first_arrival
            + match self.orphans.iter().position(|&p| p == page) {
                Some(i) => i as u64,
                None => (self.orphans.len() as u32 + wl.rank(page) - self.base_rank) as u64,
            }
    }

    /// Arrivals the block takes from `start` on.
    fn capacity(&self, pages: u32) -> u64 {
        (pages - self.start) as u64
    }
}

impl<T> Default for ReorderQueue<T> {
    fn default() -> Self {
        ReorderQueue {
            next_page: 0,
            arrivals: 0,
            layout: None,
            held: BTreeMap::new(),
        }
    }
}

impl<T> ReorderQueue<T> {
    /// A page of the stream arrives at `now` for a block of `pages` pages whose wordlines are
    /// `wl`; the pages now due are appended to `due` in program order. Whether the page that
    /// arrived waits for its turn.
    pub fn arrive(
        &mut self,
        page: T,
        now: u64,
        wl: &Wordlines,
        pages: u32,
        due: &mut Vec<T>,
    ) -> bool {
        let n = self.arrivals;
        self.arrivals += 1;
        if self.layout.is_none() {
            self.layout = Some(Layout::at(self.next_page % pages, n, wl, pages));
            self.next_page %= pages;
        }
        self.held.insert(n, (page, now));
        self.drain(wl, pages, due);
        self.held.contains_key(&n)
    }

    fn drain(&mut self, wl: &Wordlines, pages: u32, due: &mut Vec<T>) {
        loop {
            let Some(layout) = &mut self.layout else {
                return;
            };
            if self.next_page == pages {
                // The block is full: the next one is laid out from its first page.
                let first = layout.first_arrival + layout.capacity(pages);
                *layout = Layout::at(0, first, wl, pages);
                self.next_page = 0;
            }
            let want = layout.arrival_for(self.next_page, wl);
            let Some((page, _)) = self.held.remove(&want) else {
                return;
            };
            due.push(page);
            self.next_page += 1;
        }
    }

    /// Pages waiting for their turn.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// When the page that has waited longest arrived.
    pub fn oldest_ns(&self) -> Option<u64> {
        self.held.values().map(|&(_, t)| t).min()
    }

    /// Give up the layout: every waiting page is due now, as it came; the stream's next page
    /// starts a layout of its own where these end.
    pub fn flush(&mut self, due: &mut Vec<T>) {
        let n = self.held.len() as u32;
        due.extend(std::mem::take(&mut self.held).into_values().map(|(p, _)| p));
        self.next_page += n;
        self.layout = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::geometry::page_types;
    use crate::nand::{CellMode, ProgramOrder};

    fn shadow(wordlines: u32) -> Wordlines {
        Wordlines::new(&page_types(CellMode::Tlc, wordlines, ProgramOrder::Shadow))
    }

    /// Feed arrivals 0.. in order; the arrival each block page took, in program order.
    fn programmed(q: &mut ReorderQueue<u32>, wl: &Wordlines, pages: u32, n: u32) -> Vec<u32> {
        let mut out = Vec::new();
        for a in 0..n {
            q.arrive(a, 0, wl, pages, &mut out);
        }
        out
    }

    #[test]
    fn a_stream_fills_wordlines_in_order_despite_the_shadow_order() {
        // Shadow order L0 L1 C0 L2 C1 M0 L3 C2 M1 C3 M2 M3: page k of the stream must land on
        // wordline k / 3 (Fig. 4: "stripe 3 is written before 1 and stripes 4 and 5 before 2").
        let wl = shadow(4);
        let mut q = ReorderQueue::default();
        let order = programmed(&mut q, &wl, 12, 12);
        assert_eq!(order, vec![0, 3, 1, 6, 4, 2, 9, 7, 5, 10, 8, 11]);
        for (page, &arrival) in order.iter().enumerate() {
            assert_eq!(wl.of_page(page as u32), arrival / 3, "page {page}");
        }
        assert_eq!(q.held(), 0);
        // The next block is laid out alike.
        let more = programmed(&mut q, &wl, 12, 12);
        assert_eq!(more, vec![0, 3, 1, 6, 4, 2, 9, 7, 5, 10, 8, 11]);
    }

    #[test]
    fn early_pages_wait_for_their_turn_and_a_flush_programs_them_as_they_came() {
        let wl = shadow(4);
        let mut q = ReorderQueue::default();
        // Arrivals 0, 1, 2: page 0 (L0) takes 0; page 1 (L1) wants arrival 3.
        assert_eq!(programmed(&mut q, &wl, 12, 3), vec![0]);
        assert_eq!(q.held(), 2);
        let mut out = Vec::new();
        q.flush(&mut out);
        assert_eq!(out, vec![1, 2]);
        // The next arrivals start a layout at page 3 (L2): wordlines 0 and 1 have pages left
        // (C1, M0, C…); those take the first arrivals as they come, then wordline 2 on.
        let mut out = Vec::new();
        for a in 10..19 {
            q.arrive(a, 0, &wl, 12, &mut out);
        }
        // Pages 3.. in program order: L2 C1 M0 L3 C2 M1 C3 M2 M3; orphans C1 M0 M1 (wordlines
        // 0, 1) take 10, 11 … as they come; wordlines 2 and 3 the rest in wordline order.
        let taken: Vec<(u32, u32)> = (3..12).zip(out.iter().copied()).collect();
        let on = |w: u32| -> Vec<u32> {
            taken
                .iter()
                .filter(|(p, _)| wl.of_page(*p) == w)
                .map(|&(_, a)| a)
                .collect()
        };
        assert_eq!(out.len(), 9);
        assert_eq!(on(2), vec![13, 14, 15]);
        assert_eq!(on(3), vec![16, 17, 18]);
    }

    #[test]
    fn one_shot_blocks_keep_the_arrival_order() {
        let wl = Wordlines::new(&page_types(CellMode::Tlc, 4, ProgramOrder::OneShot));
        let mut q = ReorderQueue::default();
        assert_eq!(programmed(&mut q, &wl, 12, 12), (0..12).collect::<Vec<_>>());
    }

    #[test]
    fn slots_release_the_least_recently_written_stream() {
        let mut s = StreamSlots::new(2, 0);
        assert_eq!(s.slot(0, 0), (0, None), "no stream id: slot 0");
        assert_eq!(s.slot(7, 1), (1, None));
        assert_eq!(s.slot(9, 2), (2, None));
        assert_eq!(s.slot(7, 3), (1, None));
        // Stream 5 takes 9's slot, written less recently than 7's.
        assert_eq!(s.slot(5, 4), (2, Some(2)));
        assert_eq!(s.slot(9, 5), (1, Some(1)));
        assert_eq!((s.counts.opened, s.counts.released), (4, 2));
    }

    #[test]
    fn a_stream_that_has_written_its_block_is_closed() {
        let mut s = StreamSlots::new(2, 100);
        assert_eq!(s.slot(7, 0), (1, None));
        assert!(!s.wrote(1, 60));
        assert!(s.wrote(1, 40), "100 bytes: complete");
        assert_eq!(s.counts.completed, 1);
        // Its slot is free: another stream takes it without a release; 7 opens anew.
        assert_eq!(s.slot(8, 1), (1, None));
        assert_eq!(s.slot(7, 2), (2, None));
        assert!(!s.wrote(2, 99), "counted from its reopening");
        assert!(!s.wrote(0, 1000), "no stream id: never complete");
        assert_eq!(
            (s.counts.opened, s.counts.released, s.counts.completed),
            (3, 0, 1)
        );
        let mut never = StreamSlots::new(1, 0);
        never.slot(7, 0);
        assert!(!never.wrote(1, u64::MAX / 2));
    }
}
