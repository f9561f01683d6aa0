//! The controller's DRAM data cache (`[data_cache]`), as MQSim's `Data_Cache_Manager_Flash_Advanced`
//! keeps it (Tavakkol et al., FAST 2018, §3.2).
//!
//! - **Writes** (`write`, `read_write`): a write's data is written into DRAM and the write is
//!   acknowledged once it is there. The data stays until its program completes, as MQSim removes
//!   a slot once its write-back is serviced; the engine's write buffer is that room, so a read of
//!   a buffered unit is a read of DRAM. MQSim holds data it has seen written within the last
//!   second (a Bloom filter of addresses) dirty in DRAM until evicted instead of writing it back
//!   at once; here every write is written back at once (MQSim's path for the rest), so a rewrite
//!   of such data costs a program where MQSim's would not.
//! - **Reads** (`read`, `read_write`): units read from flash are written into DRAM once the
//!   request's reads are done (off its path, on the DRAM's) and stay, least recently used out,
//!   until `capacity_kib` (at most the logical capacity) is full; a write or trim of a unit
//!   drops its copy. A later read of a unit held is served from DRAM.
//!
//! The DRAM is one channel serving one access at a time in arrival order (MQSim's shared
//! `dram_execution_queue`). An access of `n` bytes opens each row it touches (tRCD + tCL, and tRP
//! between rows) and moves its bytes at two bus transfers per clock. Within a row this is
//! MQSim's `estimate_dram_access_time`; for an access over a row MQSim's formula counts half
//! the rows (`memory_access_size_in_byte / dram_row_size / 2`), so its 16 KiB access takes
//! about half the time this one does.

use std::num::NonZeroUsize;

use foldhash::fast::FixedState;
use lru::LruCache;

use crate::config::{DataCacheConfig, DramConfig};

/// The DRAM channel: its timing and when it next falls free.
#[derive(Clone, Debug)]
pub struct Dram {
    row_bytes: u64,
    open_row_ns: u64,
    trp_ns: u64,
    /// Bytes the bus moves per µs (two transfers of `bus_bytes` per clock period).
    bytes_per_us: u64,
    free_at: u64,
}

impl Dram {
    pub fn new(c: &DramConfig) -> Dram {
        Dram {
            row_bytes: c.row_bytes as u64,
            open_row_ns: c.trcd_ns + c.tcl_ns,
            trp_ns: c.trp_ns,
            bytes_per_us: 2 * c.bus_bytes as u64 * c.clock_mhz as u64,
            free_at: 0,
        }
    }

    /// How long an access of `bytes` holds the channel.
    pub fn access_ns(&self, bytes: u64) -> u64 {
        let rows = bytes.div_ceil(self.row_bytes).max(1);
        rows * self.open_row_ns
            + (rows - 1) * self.trp_ns
            + (bytes * 1000).div_ceil(self.bytes_per_us)
    }

    /// Access `bytes` from `now` or once the channel is free; returns when the access ends.
    fn access(&mut self, now: u64, bytes: u64) -> (u64, u64) {
        let ns = self.access_ns(bytes);
        self.free_at = self.free_at.max(now) + ns;
        (self.free_at, ns)
    }
}

/// What the cache did, for the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct DataCacheStats {
    /// Host-read units served from DRAM because a read brought them in (units still in the write
    /// buffer are counted as `buffer_hit`).
    pub read_hit_units: u64,
    /// Units reads brought into DRAM, and those later pushed out for room.
    pub inserted_units: u64,
    pub evicted_units: u64,
    pub dram_accesses: u64,
    pub dram_bytes: u64,
    pub dram_busy_ns: u64,
}

pub struct DataCache {
    dram: Dram,
    writes: bool,
    /// Units reads brought in, least recently used first out (when reads are cached).
    held: Option<LruCache<u32, (), FixedState>>,
    /// Whether `capacity_kib` holds more units than the logical capacity has, and the cache is
    /// capped at it.
    capped: bool,
    pub stats: DataCacheStats,
}

impl DataCache {
    /// The cache `config` describes for units of `unit_bytes`, if it is on, on a device of
    /// `host_units` logical units. Reads bring in at most all of them: room for more would never
    /// be used, and a cache so capped behaves as one of exactly the logical capacity.
    pub fn new(config: &DataCacheConfig, unit_bytes: u32, host_units: u32) -> Option<DataCache> {
        let dram = Dram::new(config.dram()?);
        // Saturating: a capacity past u64::MAX bytes holds more than any device anyway.
        let units =
            (config.read_capacity_kib()).map(|kib| kib.saturating_mul(1024) / unit_bytes as u64);
        let held = units.map(|units| {
            let cap = units.min(host_units as u64) as usize;
            // Its room is taken as units come (a cache of a large device's whole logical capacity
            // is gigabytes of table that a short run never fills).
            let mut held = LruCache::unbounded_with_hasher(FixedState::default());
            held.resize(NonZeroUsize::new(cap).unwrap_or(NonZeroUsize::MIN));
            held
        });
        Some(DataCache {
            dram,
            writes: config.caches_writes(),
            held,
            capped: units.is_some_and(|u| u > host_units as u64),
            stats: DataCacheStats::default(),
        })
    }

    /// Whether writes land in DRAM (and are acknowledged from it).
    pub fn caches_writes(&self) -> bool {
        self.writes
    }

    pub fn caches_reads(&self) -> bool {
        self.held.is_some()
    }

    /// Units reads bring in at most (when reads are cached).
    /// Its section of the run's summary.
    pub fn summary(&self) -> serde_json::Value {
        let st = self.stats;
        let mut s = serde_json::json!({
            "read_hit_units": st.read_hit_units,
            "inserted_units": st.inserted_units,
            "evicted_units": st.evicted_units,
            "dram": {
                "accesses": st.dram_accesses,
                "bytes": st.dram_bytes,
                "busy_ns": st.dram_busy_ns,
            },
        });
        if let Some(units) = self.capacity_units() {
            s["capacity_units"] = serde_json::json!(units);
            s["capped"] = serde_json::json!(self.capped());
        }
        s
    }

    pub fn capacity_units(&self) -> Option<usize> {
        self.held.as_ref().map(|h| h.cap().get())
    }

    /// Whether `capacity_kib` holds more than the logical capacity, the cache capped at it.
    pub fn capped(&self) -> bool {
        self.capped
    }

    /// Move `bytes` to or from DRAM from `now`; returns when done.
    pub fn access(&mut self, now: u64, bytes: u64) -> u64 {
        let (done, ns) = self.dram.access(now, bytes);
        self.stats.dram_accesses += 1;
        self.stats.dram_bytes += bytes;
        self.stats.dram_busy_ns += ns;
        done
    }

    /// Whether a read brought `lpn` in and it is still held (it becomes the most recently used).
    pub fn holds(&mut self, lpn: u32) -> bool {
        let hit = self.held.as_mut().is_some_and(|h| h.get(&lpn).is_some());
        self.stats.read_hit_units += hit as u64;
        hit
    }

    /// Whether a read brought `lpn` in and it is still held (nothing counted or reordered).
    pub fn contains(&self, lpn: u32) -> bool {
        self.held.as_ref().is_some_and(|h| h.contains(&lpn))
    }

    /// Bring in `lpn`, just read from flash (pushing out the least recently used if full);
    /// whether it was not held already.
    pub fn insert(&mut self, lpn: u32) -> bool {
        let Some(h) = &mut self.held else {
            return false;
        };
        if h.contains(&lpn) {
            return false;
        }
        if h.push(lpn, ()).is_some() {
            self.stats.evicted_units += 1;
        }
        self.stats.inserted_units += 1;
        true
    }

    /// `lpn` was written or trimmed: a copy a read brought in is stale.
    pub fn drop_unit(&mut self, lpn: u32) {
        if let Some(h) = &mut self.held {
            h.pop(&lpn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mqsim_dram() -> Dram {
        Dram::new(&DramConfig::default())
    }

    /// MQSim's `estimate_dram_access_time` within a row: tRCD + tCL + (bytes / bus / 2) × 10 ns
    /// at its 100 MHz, one-byte default.
    #[test]
    fn an_access_within_a_row_takes_mqsims_time() {
        let d = mqsim_dram();
        assert_eq!(d.access_ns(4096), 13 + 13 + 20_480);
        assert_eq!(d.access_ns(8192), 13 + 13 + 40_960);
        assert_eq!(d.access_ns(512), 13 + 13 + 2_560);
    }

    /// Each row an access touches is opened, and closed before the next.
    #[test]
    fn an_access_over_rows_opens_each() {
        let d = mqsim_dram();
        assert_eq!(d.access_ns(16_384), 2 * 26 + 13 + 81_920);
        assert_eq!(d.access_ns(8193), 2 * 26 + 13 + 40_965);
    }

    /// The channel serves one access at a time, in order.
    #[test]
    fn accesses_queue_on_the_channel() {
        let c = DataCacheConfig::Write {
            dram: DramConfig::default(),
        };
        let mut cache = DataCache::new(&c, 4096, 1000).unwrap();
        assert_eq!(cache.access(1_000, 4096), 1_000 + 20_506);
        assert_eq!(cache.access(2_000, 4096), 1_000 + 2 * 20_506);
        assert_eq!(cache.access(100_000, 4096), 100_000 + 20_506);
        assert_eq!(cache.stats.dram_accesses, 3);
        assert_eq!(cache.stats.dram_busy_ns, 3 * 20_506);
        assert!(cache.caches_writes() && !cache.caches_reads());
    }

    /// Reads bring units in up to the capacity, least recently used out; a write drops a copy.
    #[test]
    fn read_units_are_held_least_recently_used_out() {
        let c = DataCacheConfig::Read {
            capacity_kib: 8,
            dram: DramConfig::default(),
        };
        let mut cache = DataCache::new(&c, 4096, 1000).unwrap();
        assert!(!cache.holds(1));
        assert!(cache.insert(1) && cache.insert(2) && !cache.insert(1));
        assert!(cache.holds(1)); // 2 is now the least recently used
        cache.insert(3);
        assert!(!cache.holds(2));
        assert!(cache.holds(1) && cache.holds(3));
        cache.drop_unit(3);
        assert!(!cache.holds(3));
        assert_eq!(cache.stats.read_hit_units, 3);
        assert_eq!(cache.stats.inserted_units, 3);
        assert_eq!(cache.stats.evicted_units, 1);
        assert!(DataCache::new(&DataCacheConfig::Off, 4096, 1000).is_none());
    }

    /// Reads bring in at most the logical capacity (here 1000 units), past u64::MAX bytes too.
    #[test]
    fn a_read_cache_larger_than_the_logical_capacity_is_capped_at_it() {
        let of = |capacity_kib| {
            let c = DataCacheConfig::Read {
                capacity_kib,
                dram: DramConfig::default(),
            };
            let cache = DataCache::new(&c, 4096, 1000).unwrap();
            (cache.capacity_units(), cache.capped())
        };
        assert_eq!(of(u64::MAX), (Some(1000), true));
        assert_eq!(of(4000), (Some(1000), false));
        assert_eq!(of(8), (Some(2), false));
    }
}
