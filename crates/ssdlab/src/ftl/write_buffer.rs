//! The write buffer: mapping units wait here, packed into one open page per write stream, until
//! the page is full (or its timeout expires, or the input ends); the page is then sealed and
//! programmed. Entries stay counted against the capacity until their program completes.

use slab::Slab;

use crate::config::Config;
use crate::flash::Geometry;

use super::NO_LPN;

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// `NO_LPN` once overwritten or trimmed while buffered.
    pub lpn: u32,
    pub version: u32,
    pub stored_bytes: u32,
    /// Open page (stream key) holding the entry, or `u32::MAX` once sealed.
    pub open_key: u32,
}

#[derive(Debug, Default)]
pub struct OpenPage {
    pub entries: Vec<u32>,
    pub bytes: u32,
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

pub struct WriteBuffer {
    entries: Slab<Entry>,
    pub open: Vec<OpenPage>,
    /// Emptied entry lists of retired pages, reused by pages sealed later: sealing and placing a
    /// page then allocates nothing.
    spare_lists: Vec<Vec<u32>>,
    page_bytes: u32,
    slots_per_page: u32,
    capacity_units: u32,
    in_use_units: u32,
}

impl WriteBuffer {
    pub fn new(config: &Config, g: &Geometry) -> WriteBuffer {
        WriteBuffer {
            entries: Slab::new(),
            open: Vec::new(),
            spare_lists: Vec::new(),
            page_bytes: g.page_bytes,
            slots_per_page: g.slots_per_page,
            capacity_units: config.ftl.write_buffer_units,
            in_use_units: 0,
        }
    }

    /// Make sure open pages exist for `keys` stream keys.
    pub fn ensure_streams(&mut self, keys: usize) {
        while self.open.len() < keys {
            self.open.push(OpenPage {
                deadline_ns: u64::MAX,
                ..OpenPage::default()
            });
        }
    }

    pub fn entry(&self, e: u32) -> &Entry {
        &self.entries[e as usize]
    }

    pub fn has_room(&self) -> bool {
        self.in_use_units < self.capacity_units
    }

    /// The unit was overwritten or trimmed while buffered.
    pub fn kill(&mut self, e: u32) {
        self.entries[e as usize].lpn = NO_LPN;
    }

    /// Overwrite a unit that sits in open page `key` in place (the buffer absorbs the rewrite).
    /// Returns false if the entry is not in that open page or the new size differs.
    pub fn rewrite_in_place(
        &mut self,
        e: u32,
        key: usize,
        version: u32,
        stored_bytes: u32,
    ) -> bool {
        let entry = &mut self.entries[e as usize];
        if entry.open_key != key as u32 || entry.stored_bytes != stored_bytes {
            return false;
        }
        entry.version = version;
        true
    }

    /// Seal open page `key` if a unit of `stored_bytes` would not fit in it.
    pub fn seal_if_cannot_fit(&mut self, key: usize, stored_bytes: u32) -> Option<SealedPage> {
        let page = &self.open[key];
        let full = page.entries.len() as u32 >= self.slots_per_page
            || page.bytes + stored_bytes > self.page_bytes;
        if full && !page.entries.is_empty() {
            self.seal(key)
        } else {
            None
        }
    }

    /// Seal open page `key` if every slot is used or every byte is.
    pub fn seal_if_full(&mut self, key: usize) -> Option<SealedPage> {
        let page = &self.open[key];
        if page.entries.len() as u32 >= self.slots_per_page || page.bytes >= self.page_bytes {
            self.seal(key)
        } else {
            None
        }
    }

    /// Append a unit to open page `key`; returns the entry id and whether the page was empty.
    pub fn push(&mut self, key: usize, lpn: u32, version: u32, stored_bytes: u32) -> (u32, bool) {
        let entry = Entry {
            lpn,
            version,
            stored_bytes,
            open_key: key as u32,
        };
        let id = self.entries.insert(entry) as u32;
        let page = &mut self.open[key];
        let was_empty = page.entries.is_empty();
        page.entries.push(id);
        page.bytes += stored_bytes;
        self.in_use_units += 1;
        (id, was_empty)
    }

    /// Register request `req` to be acknowledged when open page `key` is programmed; returns
    /// true if it was newly registered.
    pub fn add_waiter(&mut self, key: usize, req: u32) -> bool {
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
        page.bytes = 0;
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
