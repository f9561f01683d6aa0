//! The cached mapping table (CMT) of a mapping table kept on flash (`ftl.mapping_cache =
//! "demand"`; DFTL, Gupta et al., ASPLOS 2009, as MQSim's `Address_Mapping_Unit_Page_Level`
//! keeps it): the entries held in DRAM, least recently used out, each clean or changed since
//! its translation page was written. Pure bookkeeping: the engine (`sim/mapping.rs`) reads and
//! writes the translation pages it names.
//!
//! Translation page `t` holds the entries of units `t·E .. (t+1)·E` (`E` entries a page) and is
//! itself mapping unit `first_translation_unit + t`, past the host's logical capacity.

use std::num::NonZeroUsize;

use foldhash::fast::FixedState;
use lru::LruCache;

use crate::config::MappingCacheSizes;

#[derive(Clone, Copy, Debug, Default)]
pub struct MappingCacheStats {
    /// Lookups that found the entry held.
    pub hits: u64,
    /// Lookups that did not (each one loads the entry's translation page, or joins its load).
    pub misses: u64,
    /// Changed entries pushed out, each writing its translation page.
    pub dirty_evictions: u64,
}

pub struct MappingCache {
    /// Held entries by unit, each with the write count of its translation page when it last
    /// changed (None: unchanged since loaded). An entry is dirty while that is its page's
    /// current count: writing a page back makes all its entries clean at once.
    entries: LruCache<u32, Option<u32>, FixedState>,
    /// Whether `capacity_kib` holds more entries than the whole table has, and the CMT is capped
    /// at the table.
    capped: bool,
    /// Per translation page, how many times it was written back.
    page_writes: Vec<u32>,
    per_page: u32,
    first_translation_unit: u32,
    pub stats: MappingCacheStats,
}

impl MappingCache {
    /// An empty CMT of `sizes`, whose translation pages start at unit `first_translation_unit`
    /// (the host's units, whose entries the pages hold). It holds at most the whole table: room
    /// for more would never be used, and a CMT so capped behaves as one of exactly the table.
    pub fn new(sizes: MappingCacheSizes, first_translation_unit: u32) -> MappingCache {
        let table = first_translation_unit as u64;
        let capacity =
            NonZeroUsize::new(sizes.cmt_entries.min(table) as usize).unwrap_or(NonZeroUsize::MIN);
        // Its room is taken as entries come (a table-sized CMT of a large device is gigabytes
        // that a short run never fills).
        let mut entries = LruCache::unbounded_with_hasher(FixedState::default());
        entries.resize(capacity);
        let per_page = sizes.entries_per_translation_page.max(1);
        MappingCache {
            entries,
            capped: sizes.cmt_entries > table,
            page_writes: vec![0; first_translation_unit.div_ceil(per_page) as usize],
            per_page,
            first_translation_unit,
            stats: MappingCacheStats::default(),
        }
    }

    /// The mapping unit of the translation page holding `lpn`'s entry.
    pub fn translation_unit(&self, lpn: u32) -> u32 {
        self.first_translation_unit + lpn / self.per_page
    }

    /// `lpn`'s entry's place in its translation page (0-based).
    pub fn entry_index(&self, lpn: u32) -> u32 {
        lpn % self.per_page
    }

    /// Whether units past the host's (translation pages, mapped by the directory in DRAM).
    pub fn is_translation_unit(&self, lpn: u32) -> bool {
        lpn >= self.first_translation_unit
    }

    /// Look `lpn`'s entry up for a read: whether it is held (it becomes the most recently used).
    pub fn lookup(&mut self, lpn: u32) -> bool {
        let hit = self.entries.get(&lpn).is_some();
        match hit {
            true => self.stats.hits += 1,
            false => self.stats.misses += 1,
        }
        hit
    }

    /// Entries the CMT holds at most.
    pub fn capacity(&self) -> usize {
        self.entries.cap().get()
    }

    /// Whether `capacity_kib` holds more than the whole table, the CMT capped at it.
    pub fn capped(&self) -> bool {
        self.capped
    }

    /// Whether `lpn`'s entry is held, without using it.
    pub fn holds(&self, lpn: u32) -> bool {
        self.entries.contains(&lpn)
    }

    /// Hold `lpn`'s entry, just loaded (clean) or changed (`dirty`); if that pushes out a
    /// changed entry, returns the translation unit to write back (its page's other changed
    /// entries are written with it, and are clean from now on).
    pub fn insert(&mut self, lpn: u32, dirty: bool) -> Option<u32> {
        let page = (lpn / self.per_page) as usize;
        let changed = dirty.then_some(self.page_writes[page]);
        if let Some(d) = self.entries.get_mut(&lpn) {
            if dirty {
                *d = changed;
            }
            return None;
        }
        let (victim, changed_at) = self.entries.push(lpn, changed)?;
        let page = (victim / self.per_page) as usize;
        if changed_at != Some(self.page_writes[page]) {
            return None;
        }
        self.stats.dirty_evictions += 1;
        self.page_writes[page] += 1;
        Some(self.first_translation_unit + page as u32)
    }

    /// `lpn` was written, or moved by GC: its entry changes. A held entry becomes dirty; one
    /// not held is inserted dirty (counted a miss). Returns a translation unit to write back, as
    /// [`MappingCache::insert`].
    pub fn update(&mut self, lpn: u32) -> (bool, Option<u32>) {
        let hit = self.lookup(lpn);
        (hit, self.insert(lpn, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmt(entries: u64, per_page: u32) -> MappingCache {
        let sizes = MappingCacheSizes {
            cmt_entries: entries,
            entries_per_translation_page: per_page,
        };
        MappingCache::new(sizes, 1000)
    }

    #[test]
    fn entries_live_in_translation_pages_past_the_host_units() {
        let c = cmt(4, 10);
        assert_eq!(c.translation_unit(0), 1000);
        assert_eq!(c.translation_unit(9), 1000);
        assert_eq!(c.translation_unit(10), 1001);
        assert_eq!(c.entry_index(13), 3);
        assert!(c.is_translation_unit(1000) && !c.is_translation_unit(999));
    }

    /// The CMT holds at most the table's entries (here 1000 host units), whatever its sizes.
    #[test]
    fn a_cmt_larger_than_the_table_is_capped_at_it() {
        let c = cmt(u64::MAX, 10);
        assert_eq!((c.capacity(), c.capped()), (1000, true));
        let c = cmt(1000, 10);
        assert_eq!((c.capacity(), c.capped()), (1000, false));
    }

    /// Least recently used out; a clean entry leaves without a write.
    #[test]
    fn clean_entries_leave_least_recently_used_first_without_a_write() {
        let mut c = cmt(2, 10);
        assert!(!c.lookup(1));
        assert_eq!(c.insert(1, false), None);
        assert_eq!(c.insert(2, false), None);
        assert!(c.lookup(1)); // 2 is now the least recently used
        assert_eq!(c.insert(3, false), None);
        assert!(!c.holds(2) && c.holds(1) && c.holds(3));
        assert_eq!(
            (c.stats.hits, c.stats.misses, c.stats.dirty_evictions),
            (1, 1, 0)
        );
    }

    /// A changed entry pushed out writes its translation page, which carries its page's other
    /// changed entries: they are clean afterwards, and leave without a write.
    #[test]
    fn a_dirty_victim_writes_its_page_with_its_dirty_neighbours() {
        let mut c = cmt(3, 10);
        assert_eq!(c.update(11), (false, None));
        assert_eq!(c.update(12), (false, None));
        assert_eq!(c.insert(25, false), None);
        // 11 is the least recently used and dirty: page 1 (unit 1001) is written, 12 with it.
        assert_eq!(c.insert(30, false), Some(1001));
        assert_eq!(c.update(31), (false, None)); // pushes 12 out: clean now
        assert_eq!(c.insert(40, false), None); // pushes 25 out: clean
        assert_eq!(c.insert(41, false), None); // pushes 30 out: clean
        assert_eq!(c.insert(42, false), Some(1003)); // pushes 31 out: dirty
        assert_eq!(c.stats.dirty_evictions, 2);
        // Updating a held entry is a hit and changes it.
        assert_eq!(c.update(42), (true, None));
        // The same with pages smaller than the CMT (their entries looked up one by one).
        let mut c = cmt(4, 2);
        assert_eq!(c.update(0), (false, None));
        assert_eq!(c.update(1), (false, None));
        assert_eq!(c.insert(5, false), None);
        assert_eq!(c.insert(6, false), None);
        assert_eq!(c.insert(7, false), Some(1000));
        assert_eq!(c.insert(8, false), None);
    }
}
