//! The write buffer: mapping units wait here, packed into one open page per write stream, until
//! the page is full (or its timeout expires, or the input ends); the page is then sealed and
//! programmed. Entries stay counted against the capacity until their program completes.

use slab::Slab;

use crate::codec::layout::PagePacker;
use crate::config::Config;
use crate::flash::Geometry;

use super::shape::UnitShape;
use super::{Writer, NO_LPN};

/// How one kind of page is packed: at most `max_units` units, each starting at a multiple of
/// `align_bytes`, back to back while they fit ([`PagePacker`]). A data-reduction policy names
/// its lanes (e.g. compressed units merged, failed ones alone); open pages are per (region,
/// stream, lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Lane {
    pub max_units: u32,
    pub align_bytes: u32,
}

impl Lane {
    pub fn packer(self, page_bytes: u32) -> PagePacker {
        PagePacker::new(page_bytes, self.max_units as usize, self.align_bytes)
            .unwrap_or_else(|e| unreachable!("lanes are validated: {e}"))
    }
}

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// `NO_LPN` once overwritten or trimmed while buffered.
    pub lpn: u32,
    pub version: u32,
    /// Open page (stream key) holding the entry, or `u32::MAX` once sealed.
    pub open_key: u32,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct OpenPage {
    pub entries: Vec<u32>,
    /// Where the next unit goes.
    packer: PagePacker,
    /// Requests acknowledged when this page is programmed (`write_ack = "program"`).
    pub waiters: Vec<u32>,
    /// When the page is programmed even if not full (`write_buffer_timeout_ns` after its first
    /// unit); `u64::MAX` when it has no deadline.
    pub deadline_ns: u64,
}

/// A page's worth of buffered entries, ready to be placed and programmed.
#[derive(Debug)]
pub struct SealedPage {
    pub key: usize,
    pub entries: Vec<u32>,
    pub waiters: Vec<u32>,
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct WriteBuffer {
    /// Not saved in a device snapshot: preconditioning leaves the buffer empty.
    #[serde(skip)]
    entries: Slab<Entry>,
    /// Per entry, when units are shaped: how its unit is stored, its offset that of its place in
    /// the open page. Units stored as written need none (kept apart from `entries` so that
    /// they do not carry one).
    shapes: Vec<UnitShape>,
    shaped: bool,
    pub open: Vec<OpenPage>,
    /// Emptied entry lists of retired pages, reused by pages sealed later: sealing and placing a
    /// page then allocates nothing.
    spare_lists: Vec<Vec<u32>>,
    page_bytes: u32,
    lanes: Vec<Lane>,
    /// Lanes that are the rows of one split buffer (PR-SSD §4.3, Fig. 11), filled first fit and
    /// flushed together.
    split_rows: std::ops::Range<usize>,
    capacity_units: u32,
    in_use_units: u32,
}

impl WriteBuffer {
    pub fn new(config: &Config, g: &Geometry) -> WriteBuffer {
        WriteBuffer {
            entries: Slab::new(),
            shapes: Vec::new(),
            shaped: false,
            open: Vec::new(),
            spare_lists: Vec::new(),
            page_bytes: g.page_bytes,
            lanes: Vec::new(),
            split_rows: 0..0,
            capacity_units: config.ftl.write_buffer_units,
            in_use_units: 0,
        }
    }

    /// Open a page for each of `streams` stream keys in each of `lanes`: key = stream key ·
    /// lanes + lane. Lanes `split_rows` are the rows of a split buffer. `shaped`: units are
    /// shaped (`DataReduction::keeps_shapes`), else all stored as written.
    pub fn open_streams(
        &mut self,
        streams: usize,
        lanes: &[Lane],
        split_rows: std::ops::Range<usize>,
        shaped: bool,
    ) {
        self.shaped = shaped;
        self.lanes = lanes.to_vec();
        self.split_rows = split_rows;
        self.open = (0..streams * lanes.len())
            .map(|key| OpenPage {
                entries: Vec::new(),
                packer: lanes[key % lanes.len()].packer(self.page_bytes),
                waiters: Vec::new(),
                deadline_ns: u64::MAX,
            })
            .collect();
    }

    /// Whether this buffer, decoded from a device snapshot, is `fresh`'s (of the same config)
    /// as preconditioning leaves it: empty (its entries are not saved), of the same lanes and
    /// open pages. `Err` says what differs.
    pub fn check_loaded(&self, fresh: &WriteBuffer) -> Result<(), String> {
        let holds = self.in_use_units != 0
            || (self.open.iter()).any(|p| !p.entries.is_empty() || !p.waiters.is_empty())
            || self.spare_lists.iter().any(|l| !l.is_empty());
        if holds {
            return Err("its write buffer holds units, and preconditioning leaves it empty".into());
        }
        let shape = |b: &WriteBuffer| {
            (
                b.shaped,
                b.page_bytes,
                b.capacity_units,
                b.split_rows.clone(),
                b.lanes.clone(),
            )
        };
        let packers = |b: &WriteBuffer| b.open.iter().map(|p| p.packer.clone()).collect::<Vec<_>>();
        match shape(self) == shape(fresh) && packers(self) == packers(fresh) {
            true => Ok(()),
            false => Err("its write buffer's lanes or open pages are not the device's".into()),
        }
    }

    /// Lanes per stream key.
    pub fn lanes(&self) -> usize {
        self.lanes.len()
    }

    /// The region and the host writer of open page `key`, with `streams` write streams per
    /// region (keys are `(region · streams + stream) · lanes + lane`).
    pub fn destination(&self, key: usize, streams: usize) -> (usize, Writer) {
        let stream_key = key / self.lanes.len();
        (
            stream_key / streams,
            Writer::Host {
                stream: stream_key % streams,
            },
        )
    }

    /// The open pages a unit of `lane` for `stream_key` may go to: its lane's, or every row of
    /// the split buffer.
    pub fn keys(&self, stream_key: usize, lane: usize) -> std::ops::Range<usize> {
        if self.split_rows.contains(&lane) {
            let base = stream_key * self.lanes.len();
            base + self.split_rows.start..base + self.split_rows.end
        } else {
            self.lane_keys(stream_key, lane)
        }
    }

    /// The open page of `lane` (not a split buffer's row) for `stream_key`, as a range of keys.
    pub fn lane_keys(&self, stream_key: usize, lane: usize) -> std::ops::Range<usize> {
        let key = stream_key * self.lanes.len() + lane;
        key..key + 1
    }

    /// The first open page of `keys` a unit of `stored_bytes` fits in (PR-SSD Fig. 11: a
    /// request goes to the first buffer page with room, merging with what is there).
    pub fn first_fit(&self, keys: std::ops::Range<usize>, stored_bytes: u32) -> Option<usize> {
        keys.into_iter()
            .find(|&k| self.open[k].packer.fits(stored_bytes))
    }

    /// Whether every open page of `keys` is empty.
    pub fn all_empty(&self, keys: std::ops::Range<usize>) -> bool {
        self.open[keys].iter().all(|p| p.entries.is_empty())
    }

    /// Whether no unit fits in any open page of `keys`.
    pub fn all_full(&self, keys: std::ops::Range<usize>) -> bool {
        self.open[keys].iter().all(|p| p.packer.is_full())
    }

    /// Seal every open page of `keys` that holds something (a split buffer is flushed whole).
    pub fn seal_all(&mut self, keys: std::ops::Range<usize>) -> Vec<SealedPage> {
        keys.filter_map(|k| self.seal(k)).collect()
    }

    pub fn entry(&self, e: u32) -> &Entry {
        &self.entries[e as usize]
    }

    /// How shaped entry `e`'s unit is stored, its offset that of its place in its open page.
    pub fn shape(&self, e: u32) -> UnitShape {
        debug_assert!(self.shaped, "units stored as written keep no shape");
        self.shapes[e as usize]
    }

    pub fn has_room(&self) -> bool {
        self.in_use_units < self.capacity_units
    }

    /// The unit was overwritten or trimmed while buffered.
    pub fn kill(&mut self, e: u32) {
        self.entries[e as usize].lpn = NO_LPN;
    }

    /// Overwrite a unit that sits in one of open pages `keys` in place (the buffer absorbs the
    /// rewrite); returns its page's key. None if the entry is in no such open page or the new
    /// version is stored in another size or form.
    pub fn rewrite_in_place(
        &mut self,
        e: u32,
        keys: std::ops::Range<usize>,
        version: u32,
        shape: UnitShape,
    ) -> Option<usize> {
        let entry = &mut self.entries[e as usize];
        let key = entry.open_key as usize;
        if !keys.contains(&key) {
            return None;
        }
        if self.shaped {
            let old = &mut self.shapes[e as usize];
            if old.len != shape.len || old.kind != shape.kind {
                return None;
            }
            *old = UnitShape {
                offset: old.offset,
                row: old.row,
                ..shape
            };
        }
        entry.version = version;
        Some(key)
    }

    /// A buffered split unit could not be split after all: it is written as a raw unit.
    pub fn set_shape(&mut self, e: u32, shape: UnitShape) {
        self.shapes[e as usize] = shape;
    }

    /// Seal open page `key` if a unit of `stored_bytes` would not fit in it (PR-SSD Fig. 9: "if
    /// the remaining size of the buffer is smaller than the incoming page request, the current
    /// buffer is flushed").
    pub fn seal_if_cannot_fit(&mut self, key: usize, stored_bytes: u32) -> Option<SealedPage> {
        let page = &self.open[key];
        if !page.entries.is_empty() && !page.packer.fits(stored_bytes) {
            self.seal(key)
        } else {
            None
        }
    }

    /// Seal open page `key` if no further unit can go in.
    pub fn seal_if_full(&mut self, key: usize) -> Option<SealedPage> {
        if self.open[key].packer.is_full() {
            self.seal(key)
        } else {
            None
        }
    }

    /// Append a unit of `shape` to open page `key` (which has room: see `seal_if_cannot_fit`);
    /// returns the entry id and whether the page was empty.
    #[inline(always)]
    pub fn push(&mut self, key: usize, lpn: u32, version: u32, shape: UnitShape) -> (u32, bool) {
        let page = &mut self.open[key];
        // (A sealed page makes room: `seal_if_cannot_fit`, `first_fit`.)
        let slot = page.packer.place(shape.len);
        let entry = Entry {
            lpn,
            version,
            open_key: key as u32,
        };
        let id = self.entries.insert(entry) as u32;
        if self.shaped {
            // A split buffer's row is the partial index its units' parts take in their pages.
            let row = if self.split_rows.is_empty() {
                0
            } else {
                (key % self.lanes.len()).saturating_sub(self.split_rows.start)
            };
            let shaped = UnitShape {
                offset: slot.offset,
                row: row as u8,
                ..shape
            };
            match self.shapes.get_mut(id as usize) {
                Some(s) => *s = shaped,
                None => {
                    // (A slab's new entry takes the next id: the table grows with it.)
                    debug_assert_eq!(id as usize, self.shapes.len());
                    self.shapes.push(shaped);
                }
            }
        }
        let was_empty = page.entries.is_empty();
        page.entries.push(id);
        self.in_use_units += 1;
        (id, was_empty)
    }

    /// Register request `waiter`, if any, to be acknowledged when open page `key` is
    /// programmed; returns true if it was newly registered.
    pub fn add_waiter(&mut self, key: usize, waiter: Option<u32>) -> bool {
        let Some(req) = waiter else {
            return false;
        };
        let w = &mut self.open[key].waiters;
        if w.last() == Some(&req) {
            return false;
        }
        w.push(req);
        true
    }

    /// Close open page `key` (if it holds anything) for placement.
    pub fn seal(&mut self, key: usize) -> Option<SealedPage> {
        let page = &mut self.open[key];
        page.deadline_ns = u64::MAX;
        if page.entries.is_empty() {
            return None;
        }
        page.packer.clear();
        let spare = self.spare_lists.pop().unwrap_or_default();
        let entries = std::mem::replace(&mut page.entries, spare);
        let waiters = std::mem::take(&mut page.waiters);
        for &e in &entries {
            self.entries[e as usize].open_key = u32::MAX;
        }
        Some(SealedPage {
            key,
            entries,
            waiters,
        })
    }

    /// Entries of a placed page leave the buffer's index (their data stays counted until
    /// `release`); the emptied list is kept for a later page.
    pub fn retire(&mut self, mut entries: Vec<u32>) {
        for &e in &entries {
            self.entries.remove(e as usize);
        }
        entries.clear();
        self.spare_lists.push(entries);
    }

    /// A program of `units` buffered units completed.
    pub fn release(&mut self, units: u32) {
        self.in_use_units -= units;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::shape::UnitKind;

    /// The small device's buffer with one stream and one lane: PR-SSD's merge buffer (a page,
    /// at most 12 units back to back).
    fn merge_buffer() -> WriteBuffer {
        let config = crate::test_support::small(&[]);
        let g = crate::device::geometry(&config);
        let mut b = WriteBuffer::new(&config, &g);
        let lane = Lane {
            max_units: 12,
            align_bytes: 1,
        };
        b.open_streams(1, &[lane], 0..0, true);
        b
    }

    fn compressed(len: u32) -> UnitShape {
        UnitShape {
            kind: UnitKind::Compressed,
            ..UnitShape::raw(len)
        }
    }

    /// PR-SSD Fig. 9: the merge buffer holds LPNs 908, 909 and 910; LPN 911's compressed size is
    /// larger than what is left, so the buffer is flushed with 908–910 (to PPN 201) and 911
    /// starts the next page (PPN 202).
    #[test]
    fn the_merge_buffer_flushes_when_the_next_unit_does_not_fit() {
        let mut b = merge_buffer();
        let mut offsets = Vec::new();
        for (lpn, len) in [(908, 5000), (909, 6000), (910, 4000)] {
            assert!(b.seal_if_cannot_fit(0, len).is_none(), "{lpn} fits");
            let (e, _) = b.push(0, lpn, 1, compressed(len));
            offsets.push(b.shape(e).offset);
            assert!(b.seal_if_full(0).is_none());
        }
        assert_eq!(offsets, [0, 5000, 11000], "packed back to back");
        // 15,000 of 16,384 bytes used: 1,384 more fit, 1,385 do not.
        assert!(b.seal_if_cannot_fit(0, 1384).is_none());
        let sealed = b
            .seal_if_cannot_fit(0, 1385)
            .expect("911 does not fit: flush");
        let lpns: Vec<u32> = sealed.entries.iter().map(|&e| b.entry(e).lpn).collect();
        assert_eq!(lpns, [908, 909, 910]);
        let (e, was_empty) = b.push(0, 911, 1, compressed(1385));
        assert!(was_empty);
        assert_eq!(b.shape(e).offset, 0, "911 opens the next page");
    }

    #[test]
    fn a_page_holds_at_most_its_lane_s_units() {
        let mut b = merge_buffer();
        for lpn in 0..11 {
            b.push(0, lpn, 1, compressed(100));
            assert!(b.seal_if_full(0).is_none());
        }
        b.push(0, 11, 1, compressed(100));
        let sealed = b
            .seal_if_full(0)
            .expect("twelve merged units fill the page (§4.4.1)");
        assert_eq!(sealed.entries.len(), 12);
    }
}
