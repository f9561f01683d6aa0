//! `ftl.mapping_cache`: where the controller keeps the page-level mapping table
//! (`crate::ftl::mapping_cache`, `sim/mapping.rs`).

use serde::{Deserialize, Serialize};

use super::tagged::tagged_table;

/// The mapping table: all of it in DRAM, or on flash with a cache of entries in DRAM loaded on
/// demand (DFTL: Gupta et al., ASPLOS 2009; MQSim's `Ideal_Mapping_Table` and `CMT_Capacity`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum MappingCacheConfig {
    /// The whole table in DRAM: every lookup is free (MQSim's `Ideal_Mapping_Table` true).
    #[default]
    All,
    /// The table lives on flash in translation pages, one mapping unit each, written from the
    /// start; a cached mapping table (CMT) of `capacity_kib` (at most the whole table) holds
    /// entries, least recently used out. A miss reads the entry's translation page; evicting a changed entry writes its
    /// translation page anew, with every changed entry of that page.
    Demand {
        capacity_kib: u64,
        /// One CMT entry; absent: MQSim's ⌈(2·log2(physical units) + sectors per unit) / 8⌉
        /// (`Address_Mapping_Unit_Page_Level.cpp:327`: a logical and a physical address and a
        /// bitmap of written sectors).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        entry_bytes: Option<u32>,
        /// One entry in a translation page; absent: MQSim's ⌈(log2(physical units) + sectors
        /// per unit) / 8⌉ (line 329: the physical address and the bitmap).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        translation_entry_bytes: Option<u32>,
    },
}

tagged_table!("policy": MappingCacheConfig);

/// MQSim's entry sizes: `addresses` addresses of log2(physical units) bits and a bitmap of the
/// unit's 512-byte sectors, rounded up to bytes.
fn mqsim_entry_bytes(addresses: f64, physical_units: u64, unit_bytes: u32) -> u32 {
    let bits = addresses * (physical_units as f64).log2() + (unit_bytes / 512) as f64;
    (bits / 8.0).ceil() as u32
}

/// The demand-loaded table's sizes, in entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MappingCacheSizes {
    /// Entries `capacity_kib` holds (the CMT holds at most the whole table's: see
    /// [`crate::ftl::mapping_cache::MappingCache::new`]).
    pub cmt_entries: u64,
    /// Entries a translation page (one mapping unit) holds.
    pub entries_per_translation_page: u32,
}

impl MappingCacheConfig {
    pub fn is_all(&self) -> bool {
        *self == MappingCacheConfig::All
    }

    /// The CMT's and the translation pages' sizes for `physical_units` units of `unit_bytes`
    /// (None: the whole table is in DRAM).
    pub fn sizes(&self, physical_units: u64, unit_bytes: u32) -> Option<MappingCacheSizes> {
        let MappingCacheConfig::Demand {
            capacity_kib,
            entry_bytes,
            translation_entry_bytes,
        } = self
        else {
            return None;
        };
        let entry =
            entry_bytes.unwrap_or_else(|| mqsim_entry_bytes(2.0, physical_units, unit_bytes));
        let on_flash = translation_entry_bytes
            .unwrap_or_else(|| mqsim_entry_bytes(1.0, physical_units, unit_bytes));
        Some(MappingCacheSizes {
            // Saturating: a capacity past u64::MAX bytes holds more than any table anyway.
            cmt_entries: capacity_kib.saturating_mul(1024) / entry.max(1) as u64,
            entries_per_translation_page: unit_bytes / on_flash.max(1),
        })
    }

    /// Translation pages (hidden mapping units) the table of `host_units` takes on flash.
    pub fn translation_units(&self, host_units: u32, physical_units: u64, unit_bytes: u32) -> u32 {
        match self.sizes(physical_units, unit_bytes) {
            Some(s) => host_units.div_ceil(s.entries_per_translation_page.max(1)),
            None => 0,
        }
    }
}
