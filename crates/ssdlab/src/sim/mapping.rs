//! A mapping table kept on flash behind a cached mapping table (`ftl.mapping_cache = "demand"`,
//! `ftl/mapping_cache.rs`), as MQSim's `Address_Mapping_Unit_Page_Level` runs it:
//!
//! - The table is on flash from the start, one translation page per mapping unit of entries
//!   (written by preconditioning, as MQSim's `Store_mapping_table_on_flash_at_start`); the CMT
//!   starts empty. Translation pages are mapping units past the host's, mapped by a directory in
//!   DRAM, written through their own write stream and moved by GC like any unit.
//! - A host read whose entry is not held reads the entry's codewords of its translation page
//!   (or joins the read already loading it) and waits: its data reads are issued once every
//!   entry it needs is in. A translation page still in the write buffer is in DRAM: no read.
//! - A host write changes its units' entries (held dirty). An entry not held also loads its
//!   translation page, as MQSim's write-back does, but the write does not wait for it: the new
//!   location is known, and only the old copy's invalidation needs the old entry.
//! - GC's copies change their entries too, without reading (MQSim inserts them as they are).
//! - A changed entry pushed out of the CMT writes its translation page anew with every changed
//!   entry of that page, after reading the page's other entries (MQSim's
//!   `generate_flash_writeback_request_for_mapping_data`; the write does not wait for that read).
//!   Write-backs are issued once the event that caused them is handled, so none starts inside GC's
//!   or the write path's bookkeeping.
//!
//! Flash operations on translation pages are counted under the source `mapping`.

use std::collections::HashMap;

use foldhash::fast::FixedState;
use slab::Slab;

use crate::config::{Config, MappingCacheSizes};
use crate::flash::OpSource;
use crate::ftl::mapping_cache::MappingCache;
use crate::ftl::reduction::DataReduction;
use crate::ftl::shape::UnitShape;
use crate::ftl::{Ftl, Location};

use super::event::{Event, MAX_EVENT_ID};
use super::Simulation;

/// A translation page being read.
struct Load {
    unit: u32,
    /// Page reads still to finish.
    reads_left: u32,
    /// Host reads waiting for the page's entries.
    waiting: Vec<u32>,
}

pub(super) struct Mapping {
    pub(super) cache: MappingCache,
    /// The load of each translation unit being read.
    loading: HashMap<u32, u32, FixedState>,
    loads: Slab<Load>,
    /// Translation units to write back once the current event is handled.
    write_backs: Vec<u32>,
    /// The buffer keys translation pages go to (a write stream of their own).
    keys: std::ops::Range<usize>,
    /// Bytes of an entry in a translation page.
    entry_size: u32,
    pub(super) stats: MappingStats,
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct MappingStats {
    /// Translation pages read: to load entries, or to merge a write-back.
    pub(super) page_reads: u64,
    pub(super) page_writes: u64,
}

/// The write-buffer keys translation pages go to when the mapping table is on flash: the last
/// of `streams` write streams, stored as written, in the region host writes go to (or the first
/// region appended to, if that one is rewritten in place: a table page is written whole).
pub(super) fn translation_keys(
    config: &Config,
    ftl: &Ftl,
    reduction: &dyn DataReduction,
    streams: usize,
) -> Option<std::ops::Range<usize>> {
    if config.ftl.mapping_cache.is_all() {
        return None;
    }
    let g = &ftl.geometry;
    let names: Vec<&str> = g.regions.iter().map(|r| r.name.as_str()).collect();
    let host = config
        .ftl
        .placement
        .region(&names)
        .expect("validated placement");
    let region = match g.regions[host].medium.rewrites_in_place() {
        true => (g.regions.iter()).position(|r| !r.medium.rewrites_in_place())?,
        false => host,
    };
    let lane = reduction.lane_of(UnitShape::raw(g.unit_bytes));
    Some(ftl.buffer.lane_keys(region * streams + streams - 1, lane))
}

impl Mapping {
    /// The bytes of `lpn`'s entry in its translation page.
    fn entry_bytes(&self, lpn: u32) -> (u32, u32) {
        let at = self.cache.entry_index(lpn) * self.entry_size;
        (at, at + self.entry_size)
    }

    /// Whether the open page `key` holds translation pages.
    pub(super) fn writes_to(&self, key: usize) -> bool {
        self.keys.contains(&key)
    }

    /// Its section of the run's summary (`translation_pages`: the table's pages on flash).
    pub(super) fn summary(&self, translation_pages: u32) -> serde_json::Value {
        let (c, st) = (self.cache.stats, self.stats);
        serde_json::json!({
            "translation_pages": translation_pages,
            "cmt_entries": self.cache.capacity(),
            "capped": self.cache.capped(),
            "hits": c.hits,
            "misses": c.misses,
            "dirty_evictions": c.dirty_evictions,
            "page_reads": st.page_reads,
            "page_writes": st.page_writes,
        })
    }

    pub(super) fn reset_stats(&mut self) {
        self.cache.stats = Default::default();
        self.stats = MappingStats::default();
    }

    pub(super) fn new(
        sizes: MappingCacheSizes,
        unit_bytes: u32,
        host_units: u32,
        keys: std::ops::Range<usize>,
    ) -> Mapping {
        Mapping {
            entry_size: unit_bytes / sizes.entries_per_translation_page.max(1),
            cache: MappingCache::new(sizes, host_units),
            loading: HashMap::default(),
            loads: Slab::new(),
            write_backs: Vec::new(),
            keys,
            stats: MappingStats::default(),
        }
    }

    /// GC moved `lpn`: its entry changes, without a read.
    pub(super) fn moved(&mut self, lpn: u32) {
        if !self.cache.is_translation_unit(lpn) {
            let (_, write_back) = self.cache.update(lpn);
            self.write_backs.extend(write_back);
        }
    }

    pub(super) fn has_write_backs(&self) -> bool {
        !self.write_backs.is_empty()
    }
}

impl Simulation {
    /// Look up the entries of read request `id`: true if every one is held (the read goes on);
    /// else the translation pages it needs are being read, and it goes on once they are in.
    pub(super) fn translate_read(&mut self, id: u32) -> bool {
        let (first, units) = {
            let r = &self.host.requests[id as usize];
            (r.first_lpn, r.units)
        };
        let mut waits = 0;
        for lpn in first..first + units {
            // The write buffer's own index and the data cache answer before the table does.
            match self.dev.ftl.lookup(lpn) {
                Location::Buffered(_) => continue,
                Location::Flash(slot) if !self.dev.ftl.unit_programmed(lpn, slot) => continue,
                _ => {}
            }
            if self.data_cache.as_ref().is_some_and(|c| c.contains(lpn)) {
                continue;
            }
            let m = self.mapping.as_mut().expect("asked with a mapping cache");
            if m.cache.lookup(lpn) {
                continue;
            }
            let unit = m.cache.translation_unit(lpn);
            let entry = m.entry_bytes(lpn);
            match self.load_translation(unit, entry) {
                Some(load) => {
                    let m = self.mapping.as_mut().expect("asked with a mapping cache");
                    let waiting = &mut m.loads[load as usize].waiting;
                    if waiting.last() != Some(&id) {
                        waiting.push(id);
                        waits += 1;
                    }
                }
                // (The translation page is in DRAM: the entry is read from there.)
                None => self.hold_entry(lpn, false),
            }
        }
        self.host.requests[id as usize].mapping_waits = waits;
        waits == 0
    }

    /// Read bytes `lo..hi` of translation unit `unit` (or join the read loading it); None if it
    /// needs no flash read (it is in the write buffer, or not yet programmed).
    fn load_translation(&mut self, unit: u32, (lo, hi): (u32, u32)) -> Option<u32> {
        let m = self.mapping.as_mut()?;
        if let Some(&load) = m.loading.get(&unit) {
            return Some(load);
        }
        let Location::Flash(slot) = self.dev.ftl.lookup(unit) else {
            return None;
        };
        if !self.dev.ftl.unit_programmed(unit, slot) {
            return None;
        }
        let load = m.loads.insert(Load {
            unit,
            reads_left: 0,
            waiting: Vec::new(),
        }) as u32;
        m.loading.insert(unit, load);
        m.stats.page_reads += 1;
        let mut groups = std::mem::take(&mut self.reads.scratch_groups);
        groups.clear();
        self.dev
            .ftl
            .read_pages(unit, slot, lo, hi, |page, codewords| {
                groups.add(page, codewords)
            });
        let m = self.mapping.as_mut().expect("checked above");
        m.loads[load as usize].reads_left = groups.as_slice().len() as u32;
        for &(page, codewords) in groups.as_slice() {
            self.read_page(page, codewords, OpSource::Mapping, load);
        }
        self.reads.scratch_groups = groups;
        // (A page already in controller memory, read ahead, serves the load at once.)
        let m = self.mapping.as_ref().expect("checked above");
        m.loads
            .get(load as usize)
            .is_some_and(|l| l.unit == unit)
            .then_some(load)
    }

    /// A read of load `load`'s translation page is decoded at `decoded`.
    pub(super) fn mapping_read_done(&mut self, load: u32, decoded: u64) {
        let m = self
            .mapping
            .as_mut()
            .expect("mapping reads need a mapping cache");
        let l = &mut m.loads[load as usize];
        l.reads_left -= 1;
        if l.reads_left > 0 {
            return;
        }
        if decoded > self.dev.now && load <= MAX_EVENT_ID {
            self.dev.events.push(decoded, Event::MappingLoaded { load });
        } else {
            self.on_mapping_loaded(load);
        }
    }

    /// Load `load`'s translation page is in: its waiting reads hold their entries of it, and
    /// those with every entry in go on.
    pub(super) fn on_mapping_loaded(&mut self, load: u32) {
        let m = self
            .mapping
            .as_mut()
            .expect("mapping loads need a mapping cache");
        let Load { unit, waiting, .. } = m.loads.remove(load as usize);
        m.loading.remove(&unit);
        for id in waiting {
            let (first, units) = {
                let r = &self.host.requests[id as usize];
                (r.first_lpn, r.units)
            };
            for lpn in first..first + units {
                let m = self.mapping.as_ref().expect("checked above");
                if m.cache.translation_unit(lpn) == unit && !m.cache.holds(lpn) {
                    self.hold_entry(lpn, false);
                }
            }
            let r = &mut self.host.requests[id as usize];
            r.mapping_waits -= 1;
            if r.mapping_waits == 0 {
                self.read_translated(id);
            }
        }
    }

    /// Hold `lpn`'s entry (changed or not), queueing the write-back of an entry it pushes out.
    fn hold_entry(&mut self, lpn: u32, dirty: bool) {
        let m = self.mapping.as_mut().expect("asked with a mapping cache");
        if let Some(unit) = m.cache.insert(lpn, dirty) {
            m.write_backs.push(unit);
        }
    }

    /// A host write changed `lpn`'s entry: a miss loads its translation page, unwaited.
    pub(super) fn mapping_written(&mut self, lpn: u32) {
        let m = self.mapping.as_mut().expect("asked with a mapping cache");
        let (hit, write_back) = m.cache.update(lpn);
        m.write_backs.extend(write_back);
        if !hit {
            let unit = m.cache.translation_unit(lpn);
            let entry = m.entry_bytes(lpn);
            self.load_translation(unit, entry);
        }
    }

    /// Write back the translation pages queued since the last event: each reads the page's
    /// entries held nowhere else and writes the page through its own write stream.
    #[cold]
    pub(super) fn issue_write_backs(&mut self) {
        loop {
            let Some(m) = self.mapping.as_mut() else {
                return;
            };
            let Some(unit) = m.write_backs.pop() else {
                return;
            };
            m.stats.page_writes += 1;
            let keys = m.keys.clone();
            let unit_bytes = self.dev.ftl.geometry.unit_bytes;
            self.load_translation(unit, (0, unit_bytes));
            let version =
                (self.dev.ftl.oracle.as_mut()).map_or(0, |o| o.write(unit, 0, unit_bytes));
            let shape = UnitShape::raw(unit_bytes);
            let sealed = &mut self.writes.scratch_sealed;
            let a = self
                .dev
                .ftl
                .buffer_unit(unit, version, shape, keys.clone(), None, sealed);
            self.program_admitted(a);
            // (After the end-of-trace flush nothing else would program it.)
            if self.host.final_flush_done {
                for key in keys {
                    self.seal_and_program(key);
                }
            }
        }
    }
}
