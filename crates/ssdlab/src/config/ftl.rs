//! `[ftl]`: the mapping unit, over-provisioning, GC, the write buffer, and the policies the
//! papers vary (one table each, named by its `policy` key).

use serde::{Deserialize, Serialize};

use super::checks::{fraction, positive};
use super::{ReadPolicyConfig, ReductionConfig, SplitConfig};
use crate::error::Error;
use crate::flash::{Geometry, StripeOrder};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// Mapping unit (logical page) size.
    #[serde(default = "default_mapping_unit_kib")]
    pub mapping_unit_kib: u32,
    /// Most mapping units one physical page may hold (0 = page size / mapping unit). Larger values
    /// only matter when data reduction shrinks units.
    #[serde(default)]
    pub max_units_per_page: u32,
    /// Fraction of the physical capacity hidden from the host.
    pub overprovisioning_ratio: f64,
    /// Background GC starts on a plane when its free blocks fall under this fraction of its blocks.
    pub gc_threshold: f64,
    /// Free blocks per plane kept for GC: host writes never take them, so GC can always proceed.
    #[serde(default = "default_gc_reserved_blocks")]
    pub gc_reserved_blocks: u32,
    /// Most pages one GC job has in flight: victim pages being read, plus copies being
    /// programmed; the next victim page is read as one leaves. A controller's copy buffer is
    /// small and its GC runs in steps between host commands, so host reads and writes do not
    /// queue behind a whole victim's reads and programs. 0 = no limit: every valid page of the
    /// victim is read at once, as MQSim does.
    #[serde(default = "default_gc_copy_window_pages")]
    pub gc_copy_window_pages: u32,
    /// Write buffer capacity in mapping units (open and not yet programmed pages).
    pub write_buffer_units: u32,
    /// A partly filled page is programmed (padded) this long after its first unit arrived; 0 = never.
    #[serde(default)]
    pub write_buffer_timeout_ns: u64,
    #[serde(default)]
    pub write_ack: WriteAck,
    /// What a read of a never-written (or trimmed) unit does.
    #[serde(default)]
    pub unmapped_read: UnmappedRead,
    /// What a host write covering only part of a mapping unit costs. Absent from a config echo
    /// at its default, so that runs without it read as before it existed.
    #[serde(default, skip_serializing_if = "PartialWrite::is_overwrite")]
    pub partial_write: PartialWrite,
    #[serde(default)]
    pub allocation: AllocationConfig,
    #[serde(default)]
    pub gc_victim: GcVictimConfig,
    #[serde(default)]
    pub read_policy: ReadPolicyConfig,
    #[serde(default)]
    pub reduction: ReductionConfig,
    /// Absent from a config echo while off, so that runs without it read as before it existed.
    #[serde(default, skip_serializing_if = "SplitConfig::is_none")]
    pub split: SplitConfig,
    /// Absent from a config echo while off, so that runs without it read as before it existed.
    #[serde(default, skip_serializing_if = "PartialProgramConfig::is_none")]
    pub partial_program: PartialProgramConfig,
    #[serde(default)]
    pub placement: PlacementConfig,
    #[serde(default)]
    pub migration: MigrationConfig,
    #[serde(default)]
    pub wear_leveling: WearLevelingConfig,
}

fn default_mapping_unit_kib() -> u32 {
    4
}
fn default_gc_reserved_blocks() -> u32 {
    1
}
fn default_gc_copy_window_pages() -> u32 {
    8
}

impl FtlConfig {
    /// The values that stand on their own; how they fit the page and the device is checked
    /// with the geometry (`cross_checks.rs`).
    pub(super) fn validate(&self) -> Result<(), Error> {
        positive("ftl.mapping_unit_kib", self.mapping_unit_kib as u64)?;
        if self.max_units_per_page > 64 {
            return Err(Error::config("ftl.max_units_per_page", "at most 64"));
        }
        fraction(
            "ftl.overprovisioning_ratio",
            self.overprovisioning_ratio,
            true,
        )?;
        fraction("ftl.gc_threshold", self.gc_threshold, true)
    }
}

/// When a host write is acknowledged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteAck {
    /// When all its units are in the (power-loss-protected) write buffer.
    #[default]
    Buffer,
    /// When every page holding one of its units has been programmed.
    Program,
}

/// A host write that covers only part of a mapping unit (a 4 KiB write into a 16 KiB logical
/// page, a 512-byte write into a 4 KiB unit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartialWrite {
    /// The unit is rewritten without reading its old bytes (the engine's behaviour before this
    /// key, kept as the default so that existing presets keep their results).
    #[default]
    Overwrite,
    /// The controller first reads the unit's old copy from flash (and decompresses it) to merge
    /// the untouched bytes, as MQSim and SimpleSSD do and PR-SSD's logical pages require: the
    /// write completes when that read has; the unit enters the write buffer at once.
    ReadModifyWrite,
}

impl PartialWrite {
    pub fn is_overwrite(&self) -> bool {
        *self == PartialWrite::Overwrite
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnmappedRead {
    /// Return zeroes without touching flash (what an SSD does); counted in `unmapped_read_units`.
    #[default]
    Zero,
    /// Stop the run with an error naming the flow and request.
    Error,
}

/// Order of the four parallelism levels for static striping; the first letter varies fastest
/// (MQSim's convention; Jung & Kandemir, HotStorage'12). C = channel, W = way, D = die, P = plane.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum AllocationConfig {
    /// Page k of the write stream goes to the plane given by k's mixed-radix digits in `order`.
    Static { order: String },
    /// Each page goes to the plane whose die has the least queued work (ties: lowest plane id).
    Dynamic,
}

impl Default for AllocationConfig {
    fn default() -> Self {
        AllocationConfig::Static {
            order: "CWDP".into(),
        }
    }
}

impl AllocationConfig {
    /// A static order names each level of the device once.
    pub(super) fn validate(&self, geometry: &Geometry) -> Result<(), Error> {
        match self {
            AllocationConfig::Static { order } if StripeOrder::new(order, geometry).is_none() => {
                Err(Error::config(
                    "ftl.allocation.order",
                    format!("`{order}` is not a permutation of C, W, D, P"),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// Which page a sealed page of fewer units than slots is programmed into, in a region whose
/// pages take partial programs (`geometry.regions[].nop` above 1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum PartialProgramConfig {
    /// A fresh page every time; the slots left are padding.
    #[default]
    None,
    /// Into the erased slots of the last page its writer programmed in part, while they hold
    /// it and the page's NOP allows, else a fresh page whose rest stays erased: units of
    /// different logical pages share a physical page (MGA, Feng et al., DATE 2017).
    Share {
        /// MGA's subpage merging: a write that would leave its logical page (a flash page's
        /// worth of mapping units) spread over more than this many physical pages reads the
        /// page's other units and rewrites them with it, into one page. 0 = no merging.
        /// (Techniques.md §3.3: the threshold is not public; 2 is our assumption.)
        #[serde(default, skip_serializing_if = "is_zero")]
        merge_threshold_pages: u32,
    },
    /// `share`, and an update of a unit whose old copy sits in a page with an erased slot and
    /// programs left goes into that page at once, beside its old version (IPU, Li et al.,
    /// ICPP 2021).
    IntraPageUpdate,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl PartialProgramConfig {
    pub fn is_none(&self) -> bool {
        *self == PartialProgramConfig::None
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum GcVictimConfig {
    /// Fewest valid units (ties: lowest block index).
    #[default]
    Greedy,
    /// Largest age·(1−u)/(2u) (Kawaguchi et al. 1995; u = valid fraction, age since last write).
    CostBenefit,
    /// Uniformly random among full blocks (seeded).
    Random,
    /// Largest invalid share of the written subpages, erased ones left out (IPU's ISR).
    Isr,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlacementConfig {
    /// Every host write goes to region 0, one write stream.
    #[default]
    SingleRegion,
    /// Every host write goes to the region named `region` (an SLC-mode cache in front of the
    /// high-density region, IPU's "hybrid SLC/MLC" baseline); data leaves it through GC
    /// (`ftl.migration`).
    Cache { region: String },
    /// Every host write goes to the region named `region`, into one of three write streams by
    /// how often the unit has been rewritten: IPU's Work, Monitor and Hot blocks.
    Levels { region: String },
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum MigrationConfig {
    /// GC copies valid units within their own region.
    #[default]
    None,
    /// GC of a block of `from_region` copies its valid units to `to_region` (the cache's
    /// eviction to the high-density region); other regions keep theirs.
    Evict {
        from_region: String,
        to_region: String,
    },
    /// IPU's degrading GC: of a `from_region` block, cold units (never updated since they
    /// entered their level) go to `to_region`, the others stay one level down.
    Degrade {
        from_region: String,
        to_region: String,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WearLevelingConfig {
    /// Static wear levelling: when a plane's erase-count spread exceeds `threshold_erases`, the
    /// full block with the fewest erases (cold data) is cleaned so that it returns to the pool.
    pub enabled: bool,
    pub threshold_erases: u32,
}

impl Default for WearLevelingConfig {
    fn default() -> Self {
        WearLevelingConfig {
            enabled: true,
            threshold_erases: 100,
        }
    }
}
