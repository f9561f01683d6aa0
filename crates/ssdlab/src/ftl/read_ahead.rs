//! Read-ahead for melded reads (melded-pages.txt §2.2: "Since HDFS performs all write and read
//! operations in large chunks and in a sequential manner, the scheduler can predict read
//! patterns"). Two pure parts the read path (`sim/read.rs`) puts together:
//! - [`SequentialReads`] tells which logical units streams read in order will want next: a read
//!   that starts at the byte where a tracked stream's last read ended continues it, and from its
//!   second read on the stream wants the units within its window past its last read's end;
//! - [`ReadAheadPages`] holds the pages a melded read sensed beyond what queued reads wanted, in
//!   controller memory, until a read takes them or newer ones push them out (least recently
//!   used first).
//!
//! Our choices (the paper is silent on how a controller predicts): streams are told apart by
//! their addresses alone (stream ids mark writes, §2.3); a stream is in order from its second
//! read that starts exactly where the last ended; the least recently read stream makes way for
//! a new one; a page read ahead stays valid until its block is erased (its data cannot change
//! before: a page is programmed once between erases, and a read asks for a page only while the
//! units it wants map there).

use foldhash::fast::FixedState;
use lru::LruCache;

use crate::flash::geometry::PageId;

/// Streams read in order, by address.
pub struct SequentialReads {
    streams: Vec<Stream>,
    /// Most streams tracked.
    capacity: usize,
    /// Bytes past a stream's last read that it wants.
    window_bytes: u64,
    /// The mapping unit, to tell which units a window holds.
    unit_bytes: u64,
    /// Reads seen, the clock of `last_read`.
    reads: u64,
}

#[derive(Clone, Copy, Debug)]
struct Stream {
    /// The byte after its last read. (Bytes, not units: a stream's reads need not start on a
    /// unit, and one that ends inside a unit is continued by a read that starts there.)
    next: u64,
    /// Whether its last read continued an earlier one.
    in_order: bool,
    last_read: u64,
}

impl SequentialReads {
    pub fn new(streams: u32, window_bytes: u64, unit_bytes: u32) -> SequentialReads {
        SequentialReads {
            streams: Vec::with_capacity(streams as usize),
            capacity: streams as usize,
            window_bytes,
            unit_bytes: unit_bytes as u64,
            reads: 0,
        }
    }

    /// A host read of `bytes` bytes from byte `offset`.
    pub fn observe(&mut self, offset: u64, bytes: u64) {
        self.reads += 1;
        let next = offset.saturating_add(bytes);
        if let Some(s) = self.streams.iter_mut().find(|s| s.next == offset) {
            *s = Stream {
                next,
                in_order: true,
                last_read: self.reads,
            };
            return;
        }
        let fresh = Stream {
            next,
            in_order: false,
            last_read: self.reads,
        };
        if self.streams.len() < self.capacity {
            self.streams.push(fresh);
        } else if let Some(lru) = self.streams.iter_mut().min_by_key(|s| s.last_read) {
            *lru = fresh;
        }
    }

    /// Whether a stream read in order will read some of unit `lpn` within its window.
    pub fn wants(&self, lpn: u32) -> bool {
        let start = lpn as u64 * self.unit_bytes;
        let end = start + self.unit_bytes;
        self.streams
            .iter()
            .any(|s| s.in_order && end > s.next && start < s.next + self.window_bytes)
    }
}

/// Pages sensed ahead of the reads that will want them, in controller memory.
pub struct ReadAheadPages {
    pages: LruCache<PageId, Held, FixedState>,
}

/// A page read ahead: its block's erase count when it was sensed (a later erase voids it), and
/// when its data is decoded (None while its melded read is running).
#[derive(Clone, Copy, Debug)]
struct Held {
    erase_count: u32,
    ready_ns: Option<u64>,
}

/// What a read of a page finds among the pages read ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Not there (or there from before its block's last erase).
    Miss,
    /// Its melded read is still running: the data comes when it ends.
    InFlight,
    /// In controller memory from this time on.
    Ready(u64),
}

impl ReadAheadPages {
    /// Room for `pages` pages (at least one).
    pub fn new(pages: usize) -> ReadAheadPages {
        let cap = std::num::NonZeroUsize::new(pages.max(1)).unwrap_or(std::num::NonZeroUsize::MIN);
        ReadAheadPages {
            pages: LruCache::with_hasher(cap, FixedState::default()),
        }
    }

    /// A melded read of a block erased `erase_count` times senses `page` for the reads ahead.
    pub fn sensing(&mut self, page: PageId, erase_count: u32) {
        self.pages.put(
            page,
            Held {
                erase_count,
                ready_ns: None,
            },
        );
    }

    /// `page`'s melded read ended: its data is decoded at `ready_ns`. (A page pushed out while
    /// its read ran is not taken back.)
    pub fn sensed(&mut self, page: PageId, ready_ns: u64) {
        if let Some(h) = self.pages.peek_mut(&page) {
            h.ready_ns = Some(ready_ns);
        }
    }

    /// A read of `page`, whose block has been erased `erase_count` times.
    pub fn lookup(&mut self, page: PageId, erase_count: u32) -> Lookup {
        match self.pages.get(&page).copied() {
            None => Lookup::Miss,
            Some(h) if h.erase_count != erase_count => {
                self.pages.pop(&page);
                Lookup::Miss
            }
            Some(Held { ready_ns: None, .. }) => Lookup::InFlight,
            Some(Held {
                ready_ns: Some(t), ..
            }) => Lookup::Ready(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Units of 1 KiB, so that unit n is bytes n·1024 ….
    const K: u64 = 1024;

    #[test]
    fn a_stream_is_in_order_from_its_second_contiguous_read() {
        let mut s = SequentialReads::new(2, 8 * K, 1024);
        s.observe(100 * K, 4 * K);
        assert!(!s.wants(104), "one read is no stream yet");
        s.observe(104 * K, 4 * K);
        let window = s.wants(108) && s.wants(115);
        assert!(window, "its window: 8 units past its last read");
        let outside = s.wants(116) || s.wants(107);
        assert!(!outside, "nor past the window, nor behind it");
        // A read elsewhere starts another stream; the first keeps its window.
        s.observe(500 * K, 4 * K);
        assert!(s.wants(108) && !s.wants(504));
        // A third stream pushes out the least recently read (the first).
        s.observe(900 * K, 4 * K);
        assert!(!s.wants(108));
        s.observe(504 * K, 4 * K);
        assert!(s.wants(508));
    }

    /// Reads that start inside a unit continue a stream that ended there: the unit they share
    /// is the last one's and the next's, and is wanted.
    #[test]
    fn a_stream_of_reads_off_the_unit_boundaries_is_in_order() {
        let mut s = SequentialReads::new(1, 8 * K, 4096);
        s.observe(K, 128 * K);
        s.observe(129 * K, 128 * K);
        // Its last read ended 1 KiB into unit 64 (bytes 256 KiB … 260 KiB).
        assert!(
            s.wants(64) && s.wants(65),
            "the unit it ends in, and the next"
        );
        assert!(!s.wants(63) && !s.wants(67));
    }

    #[test]
    fn pages_read_ahead_are_ready_when_sensed_and_void_after_an_erase() {
        let mut p = ReadAheadPages::new(2);
        assert_eq!(p.lookup(7, 0), Lookup::Miss);
        p.sensing(7, 3);
        assert_eq!(p.lookup(7, 3), Lookup::InFlight);
        p.sensed(7, 1_000);
        assert_eq!(p.lookup(7, 3), Lookup::Ready(1_000));
        // Its block erased since: the page holds other data now.
        assert_eq!(p.lookup(7, 4), Lookup::Miss);
        assert_eq!(p.lookup(7, 3), Lookup::Miss, "and it is dropped");
        // The least recently used page makes way.
        p.sensing(1, 0);
        p.sensing(2, 0);
        p.lookup(1, 0);
        p.sensing(3, 0);
        assert_eq!(p.lookup(2, 0), Lookup::Miss);
        assert_eq!(p.lookup(1, 0), Lookup::InFlight);
    }
}
