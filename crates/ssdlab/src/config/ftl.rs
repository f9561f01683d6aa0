//! `[ftl]`: the mapping unit, over-provisioning, GC, the write buffer, and the policies the
//! papers vary (one table each, named by its `policy` key).

use serde::{Deserialize, Serialize};

use super::checks::{fraction, positive};
use super::tagged::tagged_table;
use super::{
    HostStreamsConfig, Level1GcConfig, MappingCacheConfig, MigrationConfig, PartialProgramConfig,
    PlacementConfig, ReadPolicyConfig, ReductionConfig, SplitConfig,
};
use crate::error::Error;

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
    /// Absent from a config echo while off, so that runs without it read as before it existed.
    #[serde(default, skip_serializing_if = "Level1GcConfig::is_none")]
    pub level1_gc: Level1GcConfig,
    /// Absent from a config echo while off, likewise.
    #[serde(default, skip_serializing_if = "IdleGcConfig::is_none")]
    pub idle_gc: IdleGcConfig,
    /// Absent from a config echo while shared, likewise.
    #[serde(default, skip_serializing_if = "HostStreamsConfig::is_shared")]
    pub host_streams: HostStreamsConfig,
    #[serde(default)]
    pub wear_leveling: WearLevelingConfig,
    /// Absent from a config echo while the whole table is in DRAM, likewise.
    #[serde(default, skip_serializing_if = "MappingCacheConfig::is_all")]
    pub mapping_cache: MappingCacheConfig,
    /// How the mapping table's entries are kept (`ftl/two_level.rs`). Absent from a config echo
    /// at its default, likewise.
    #[serde(default, skip_serializing_if = "MappingGranularity::is_unit")]
    pub mapping_granularity: MappingGranularity,
}

/// The entries of the mapping table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MappingGranularity {
    /// One entry per mapping unit (a subpage-level table when units are smaller than pages).
    #[default]
    Unit,
    /// MGA's two-level table (Feng et al., DATE 2017; techniques.md §3.3 part 1): one entry per
    /// logical page (a page's worth of units), pointing to the physical page that holds its
    /// units in order, and subpage entries only for the logical pages whose units lie
    /// elsewhere. The units are located as before; what changes is the table's DRAM, which the
    /// summary's `mapping_table` gives.
    TwoLevel,
}

impl MappingGranularity {
    pub fn is_unit(&self) -> bool {
        *self == MappingGranularity::Unit
    }
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
    /// The values that stand on their own; how they fit the page is checked with the geometry
    /// (`cross_checks.rs`), and how they fit the device once it is built (`device/`).
    pub(super) fn validate(&self) -> Result<(), Error> {
        positive("ftl.mapping_unit_kib", self.mapping_unit_kib as u64)?;
        if let PlacementConfig::Oblivious { run_units, flash } = &self.placement {
            if let Some(n) = run_units {
                positive("ftl.placement.run_units", *n as u64)?;
            }
            if let Some(PlacementConfig::Oblivious { .. }) = flash.as_deref() {
                return Err(Error::config(
                    "ftl.placement.flash.policy",
                    "places the flash's share of an oblivious placement: it cannot be \
                     `oblivious` again (use single_region, cache or levels)",
                ));
            }
        }
        if self.max_units_per_page > 64 {
            return Err(Error::config("ftl.max_units_per_page", "at most 64"));
        }
        fraction(
            "ftl.overprovisioning_ratio",
            self.overprovisioning_ratio,
            true,
        )?;
        fraction("ftl.gc_threshold", self.gc_threshold, true)?;
        if !self.mapping_granularity.is_unit() && !self.mapping_cache.is_all() {
            // (A limit of the model, not of the device: the CMT and its translation pages are
            // kept per unit.)
            return Err(Error::config(
                "ftl.mapping_granularity",
                "a two-level table is measured in DRAM only: the table on flash \
                 (`ftl.mapping_cache = \"demand\"`) and its cached entries are kept one per \
                 unit; use `ftl.mapping_cache = \"all\"`",
            ));
        }
        self.host_streams.validate()?;
        self.level1_gc.validate()?;
        self.idle_gc.validate()
    }

    /// Logical capacity: the `physical` mapping units less the over-provisioned share.
    pub fn logical_units(&self, physical: u64) -> u32 {
        (physical as f64 * (1.0 - self.overprovisioning_ratio)).floor() as u32
    }

    /// Translation pages of the mapping table on flash (`mapping_cache`; 0 when all of it is in
    /// DRAM), for `physical` mapping units of `unit_bytes`.
    pub fn translation_units(&self, physical: u64, unit_bytes: u32) -> u32 {
        (self.mapping_cache).translation_units(self.logical_units(physical), physical, unit_bytes)
    }

    /// Mapping units the FTL maps: the host's logical capacity, then the translation pages.
    pub fn mapped_units(&self, physical: u64, unit_bytes: u32) -> u32 {
        self.logical_units(physical) + self.translation_units(physical, unit_bytes)
    }

    /// Free-block count under which a pool of `blocks` blocks starts GC.
    pub fn gc_threshold_blocks(&self, blocks: u32) -> u32 {
        share_of_blocks(self.gc_threshold, blocks).max(self.gc_reserved_blocks + 1)
    }
}

/// The blocks a free-block threshold given as a share of a pool's `blocks` stands for: rounded
/// up, so that a share above 0 is at least one block (foreground GC's, idle GC's and level 1's
/// thresholds alike).
pub fn share_of_blocks(share: f64, blocks: u32) -> u32 {
    (share * blocks as f64).ceil() as u32
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
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
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

tagged_table!("policy": AllocationConfig, GcVictimConfig, IdleGcConfig);

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
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
    /// The block written longest ago, whatever its valid count (MQSim's FIFO,
    /// `GC_Block_Selection_Policy_Type::FIFO`, after Desnoyers, SYSTOR '12).
    Fifo,
    /// Randomized greedy (MQSim's RGA, `GC_and_WL_Unit_Page_Level.cpp`; Li, Lee and Lui,
    /// SIGMETRICS '13 "d-choices"): the fewest valid units among `sample_size` candidates drawn
    /// at random (seeded).
    RandomizedGreedy {
        /// Candidates drawn per choice; absent: log2 of the blocks per plane, rounded down, as
        /// MQSim's `rga_set_size`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sample_size: Option<u32>,
    },
}

/// Idle-time GC: background GC started early, while the host has nothing in flight, so that
/// the host's next burst finds free blocks rather than waiting behind GC (the idle-time
/// cleaning of log-structured file systems: Blackwell, Harris and Seltzer, USENIX '95,
/// "Heuristic Cleaning Algorithms in Log-Structured File Systems").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum IdleGcConfig {
    /// GC starts only under `ftl.gc_threshold`.
    #[default]
    None,
    /// Every `interval_ns` a timer checks whether the host has no request in flight; if so, each
    /// pool whose free blocks are under `free_threshold` of its blocks (above the foreground
    /// GC's `ftl.gc_threshold`) and that no job is cleaning starts a GC job on the victim the
    /// victim policy picks, if cleaning it frees a page at least.
    WhenIdle {
        /// How often the controller looks for idleness (a firmware timer's period; no default:
        /// it is the researcher's to choose).
        interval_ns: u64,
        /// Share of a pool's blocks under whose free count idle GC cleans (no default, likewise).
        free_threshold: f64,
    },
}

impl IdleGcConfig {
    pub fn is_none(&self) -> bool {
        *self == IdleGcConfig::None
    }

    /// The values on their own; whether the threshold acts in the device is `device/needs.rs`'s.
    fn validate(&self) -> Result<(), Error> {
        let IdleGcConfig::WhenIdle {
            interval_ns,
            free_threshold,
        } = *self
        else {
            return Ok(());
        };
        positive("ftl.idle_gc.interval_ns", interval_ns)?;
        fraction("ftl.idle_gc.free_threshold", free_threshold, true)
    }
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
