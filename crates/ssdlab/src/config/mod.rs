//! Configuration: typed TOML, every unit in the key name, validated as a whole before the first
//! event. A run's config is a preset (a TOML file under `presets/`), optionally a user file merged
//! over it, then `--set key=value` overrides, then validation.

mod overrides;
mod presets;
mod validate;

pub use overrides::apply_override;
pub use presets::{preset_names, preset_source};

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

use crate::content::ContentConfig;
use crate::error::Error;
use crate::trace::{BlkparseEvent, Caller, ColumnsSpec, OutOfRange, TraceFormat};
use crate::workload::GeneratorConfig;

/// The whole simulation configuration.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Label of this configuration (the preset's name unless overridden).
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Seed of every random choice in the run (random victims, preconditioning, generators).
    #[serde(default)]
    pub seed: u64,
    pub geometry: GeometryConfig,
    pub timing: TimingConfig,
    #[serde(default)]
    pub scheduler: SchedulerConfig,
    pub ftl: FtlConfig,
    #[serde(default)]
    pub energy: EnergyConfig,
    #[serde(default)]
    pub precondition: PreconditionConfig,
    #[serde(default)]
    pub host: HostConfig,
    /// Flows replayed at once; each has its own statistics. The CLI's `--trace` adds one.
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// The bytes of written units, for data reduction (`docs/content.md`). `source` may be left
    /// out: it defaults to the corpus.
    #[serde(
        default,
        deserialize_with = "crate::content::deserialize_defaulting_source"
    )]
    pub content: ContentConfig,
}

/// Cell mode of a block. `Slc` on a TLC die is SLC mode: one page per wordline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellMode {
    Slc,
    Mlc,
    Tlc,
}

impl CellMode {
    pub fn bits_per_cell(self) -> u32 {
        match self {
            CellMode::Slc => 1,
            CellMode::Mlc => 2,
            CellMode::Tlc => 3,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            CellMode::Slc => "slc",
            CellMode::Mlc => "mlc",
            CellMode::Tlc => "tlc",
        }
    }
}

/// Order in which the pages of a multi-level block are programmed, which fixes each page's type.
/// See `docs/device-model.md` and techniques.md §0.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgramOrder {
    /// All pages of a wordline one after another (3D NAND one-shot programming):
    /// page p is wordline p / bits, type p % bits.
    OneShot,
    /// Shadow program with a one-wordline lag: L0 L1 C0 L2 C1 M0 L3 C2 M1 … (MLC: L0 L1 M0 L2 M1 …).
    Shadow,
    /// SimpleSSD/FEMU TLC page-type formula (pages 0–5 LSB, 6–7 CSB, then pairs by (p−8)/2 mod 3).
    Simplessd,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryConfig {
    pub channels: u32,
    pub ways_per_channel: u32,
    pub dies_per_way: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    /// Pages per block in the die's native cell mode. An SLC-mode block has
    /// `pages_per_block / bits_per_cell` pages (one per wordline).
    pub pages_per_block: u32,
    pub page_size_kib: u32,
    /// ECC codeword size: the granularity in which a page can be sensed and moved.
    pub codeword_size_bytes: u32,
    /// Native cell mode of the dies.
    pub cell_mode: CellMode,
    #[serde(default = "default_program_order")]
    pub program_order: ProgramOrder,
    /// Regions: groups of blocks in every plane with their own cell mode. When empty the whole
    /// device is one region named `main` in the native cell mode. Blocks are assigned to regions
    /// in order (region 0 gets the first blocks of each plane); the last region may say
    /// `blocks_per_plane = 0` to take the rest.
    #[serde(default)]
    pub regions: Vec<RegionConfig>,
}

fn default_program_order() -> ProgramOrder {
    ProgramOrder::OneShot
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionConfig {
    pub name: String,
    pub cell_mode: CellMode,
    /// Blocks of this region in each plane (0 = all blocks not given to other regions).
    #[serde(default)]
    pub blocks_per_plane: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
    /// Channel (bus) rate in mega-transfers per second.
    pub channel_rate_mts: f64,
    pub channel_width_bytes: u32,
    /// Exposed ECC decode latency after the last codeword of a read arrives (decoding of earlier
    /// codewords overlaps the transfer).
    pub ecc_decode_ns: u64,
    /// Controller firmware time per host command, charged once when the command arrives.
    pub firmware_ns: u64,
    #[serde(default)]
    pub slc: Option<SlcTiming>,
    #[serde(default)]
    pub mlc: Option<MlcTiming>,
    #[serde(default)]
    pub tlc: Option<TlcTiming>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlcTiming {
    pub tr_ns: u64,
    pub tprog_ns: u64,
    pub tbers_ns: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MlcTiming {
    pub tr_lsb_ns: u64,
    pub tr_msb_ns: u64,
    pub tprog_lsb_ns: u64,
    pub tprog_msb_ns: u64,
    pub tbers_ns: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlcTiming {
    pub tr_lsb_ns: u64,
    pub tr_csb_ns: u64,
    pub tr_msb_ns: u64,
    pub tprog_lsb_ns: u64,
    pub tprog_csb_ns: u64,
    pub tprog_msb_ns: u64,
    pub tbers_ns: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerConfig {
    /// Reads (host and GC) overtake queued programs and erases on a die.
    #[serde(default)]
    pub read_priority: bool,
    /// A die runs queued operations of one kind on different planes as one multi-plane command
    /// (same page index for reads and programs).
    #[serde(default)]
    pub multiplane: bool,
    /// A read of a page whose read command is still queued joins that command (the union of the
    /// wanted codewords, one sensing) instead of queuing its own (spread.txt §IV's mode selector;
    /// PR-SSD §4.2.3). `false` gives every request and GC page its own command.
    #[serde(default = "default_true")]
    pub merge_reads: bool,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            read_priority: false,
            multiplane: false,
            merge_reads: true,
        }
    }
}

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
    #[serde(default)]
    pub allocation: AllocationConfig,
    #[serde(default)]
    pub gc_victim: GcVictimConfig,
    #[serde(default)]
    pub read_policy: ReadPolicyConfig,
    #[serde(default)]
    pub reduction: ReductionConfig,
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
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReadPolicyConfig {
    /// Sense the whole page, move the whole page over the bus (pageFTL).
    Full,
    /// Sense the whole page, move only the wanted codewords (dynamic DMA, dmaFTL).
    #[default]
    Dma,
    /// PR-SSD's NAND partial read (pr-ssd.txt §2.3): wanted data within one aligned unit is
    /// sensed alone, faster and at lower current, and only the unit moves; otherwise a full read.
    Partial {
        /// Partial-read unit (§2.3: "most manufacturers provide a 4 KB partial read").
        #[serde(default = "default_partial_unit_kib")]
        unit_kib: u32,
        /// tR saved by a partial read (§2.3: "reduce the latency by 20%").
        #[serde(default = "default_partial_tr_reduction")]
        tr_reduction: f64,
        /// Sensing current saved (§2.3: "reduce the current consumption by 40%").
        #[serde(default = "default_partial_current_reduction")]
        current_reduction: f64,
    },
    /// SPREAD's subpage-parallel read (spread.txt §III.B): sense and move exactly the wanted
    /// codewords in one command; tR by the number of codewords sensed.
    Subpage {
        /// tR for 1, 2, … codewords sensed, one entry per codeword of a page; the last is the
        /// full page's (Table I: 35 … 99 µs for 2 … 16 KiB). Pages whose full tR differs scale it.
        #[serde(default = "default_subpage_tr")]
        tr_by_codewords_ns: Vec<u64>,
        /// Share of the sensing current independent of how many bitlines are sensed (our
        /// assumption: 0.35 / 0.75, so a quarter page draws PR-SSD §2.3's 0.6×).
        #[serde(default = "default_fixed_current_share")]
        fixed_current_share: f64,
    },
}

fn default_partial_unit_kib() -> u32 {
    4
}
fn default_partial_tr_reduction() -> f64 {
    0.20
}
fn default_partial_current_reduction() -> f64 {
    0.40
}
/// spread.txt Table I, tR row.
fn default_subpage_tr() -> Vec<u64> {
    vec![
        35_000, 45_000, 55_000, 65_000, 75_000, 85_000, 95_000, 99_000,
    ]
}
fn default_fixed_current_share() -> f64 {
    0.35 / 0.75
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReductionConfig {
    /// Units are stored as written.
    #[default]
    Identity,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlacementConfig {
    /// Every host write goes to one region (the first unless named), one write stream.
    #[default]
    SingleRegion,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum MigrationConfig {
    /// GC copies valid units within their own region.
    #[default]
    None,
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

/// Energy of flash operations (docs/config.md § energy): an array phase costs its power × its
/// time, scaled for reads by the read policy's sensing current (a partial read draws 0.6×, pr-ssd.txt
/// §2.3); the bus costs a fixed amount per byte moved either way. The defaults are our assumption
/// for a datasheet-class NAND die: 3.3 V × 25 mA (the typical array read, program and erase current
/// of ONFI parts) = 82.5 mW, and a 1.2 V NV-DDR3 interface drawing 30 mA while moving 800 MB/s =
/// 45 pJ per byte.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EnergyConfig {
    /// Power while sensing at normal current (tR).
    pub read_power_mw: f64,
    /// Power while programming (tPROG).
    pub program_power_mw: f64,
    /// Power while erasing (tBERS).
    pub erase_power_mw: f64,
    /// Energy per byte moved over a channel (data out of reads, into programs).
    pub transfer_pj_per_byte: f64,
}

impl Default for EnergyConfig {
    fn default() -> Self {
        EnergyConfig {
            read_power_mw: 82.5,
            program_power_mw: 82.5,
            erase_power_mw: 82.5,
            transfer_pj_per_byte: 45.0,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FillPattern {
    #[default]
    Sequential,
    Random,
}

/// State-only preconditioning before the first event (no simulated time passes).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreconditionConfig {
    /// Fraction of the logical capacity written before the run.
    #[serde(default)]
    pub fill_fraction: f64,
    #[serde(default)]
    pub pattern: FillPattern,
    /// Random overwrites of already filled units after the fill, as a fraction of the logical
    /// capacity; GC runs (state-only) as needed, so 1.0–2.0 reaches steady state.
    #[serde(default)]
    pub overwrite_fraction: f64,
    /// Also write every unit the trace reads before writing it, so reads hit flash (MQSim does the
    /// same from the trace's footprint), in address order.
    #[serde(default = "default_true")]
    pub trace_footprint: bool,
}

fn default_true() -> bool {
    true
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        PreconditionConfig {
            fill_fraction: 0.0,
            pattern: FillPattern::Sequential,
            overwrite_fraction: 0.0,
            trace_footprint: true,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplayMode {
    /// Requests arrive at their trace timestamps (scaled by `time_scale`).
    #[default]
    Open,
    /// `queue_depth` requests are kept outstanding; timestamps are ignored.
    Closed,
}

/// Defaults for flows that do not set their own.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    #[serde(default)]
    pub mode: ReplayMode,
    #[serde(default = "default_queue_depth")]
    pub queue_depth: u32,
    /// Inter-arrival times are multiplied by this (0.5 = twice as fast).
    #[serde(default = "default_time_scale")]
    pub time_scale: f64,
    #[serde(default)]
    pub out_of_range: OutOfRange,
}

fn default_queue_depth() -> u32 {
    32
}
fn default_time_scale() -> f64 {
    1.0
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            mode: ReplayMode::Open,
            queue_depth: default_queue_depth(),
            time_scale: default_time_scale(),
            out_of_range: OutOfRange::Error,
        }
    }
}

/// One flow: a trace file, or a generator (inline, or a named workload with inline keys over it).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<PathBuf>,
    /// File format; absent: detected from the file's first lines (or `columns`, with a
    /// `columns` table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<TraceFormat>,
    /// The description of a `columns` trace (see `docs/traces.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<ColumnsSpec>,
    /// Which blkparse event is a request's arrival (`q`, `d` or `c`; blkparse only); absent:
    /// the first of Q, D, C the file holds, written here once the trace is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blkparse_event: Option<BlkparseEvent>,
    /// A named workload (`ssdlab workloads`): its generator, with this flow's `generator` keys
    /// merged over it when the config is resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<GeneratorConfig>,
    #[serde(default)]
    pub mode: Option<ReplayMode>,
    #[serde(default)]
    pub queue_depth: Option<u32>,
    #[serde(default)]
    pub time_scale: Option<f64>,
    /// Added to every address of this flow (to give flows disjoint ranges).
    #[serde(default)]
    pub offset_bytes: u64,
    /// Who gave this flow's trace options (a TOML file, unless the command line or Python
    /// added the flow), so that errors name them in that caller's words. Not written out.
    #[serde(skip, default = "toml_caller")]
    pub caller: Caller,
}

fn toml_caller() -> Caller {
    Caller::Toml
}

impl FlowConfig {
    /// A flow replaying a trace file (format `None`: detected from its content), added by
    /// `caller`.
    pub fn trace(path: PathBuf, format: Option<TraceFormat>, caller: Caller) -> FlowConfig {
        FlowConfig {
            trace: Some(path),
            format,
            caller,
            ..FlowConfig::empty()
        }
    }

    /// A flow running a named workload's generator.
    pub fn workload(name: &str) -> Result<FlowConfig, Error> {
        Ok(FlowConfig {
            workload: Some(name.to_string()),
            generator: Some(crate::workload::named::generator(name)?),
            ..FlowConfig::empty()
        })
    }

    fn empty() -> FlowConfig {
        FlowConfig {
            name: String::new(),
            trace: None,
            format: None,
            columns: None,
            blkparse_event: None,
            workload: None,
            generator: None,
            mode: None,
            queue_depth: None,
            time_scale: None,
            offset_bytes: 0,
            caller: Caller::Toml,
        }
    }

    /// What the flow replays, for labels: the trace file or the workload.
    pub fn describe(&self) -> String {
        match (&self.trace, &self.workload) {
            (Some(t), _) => format!(
                "{} ({})",
                t.display(),
                self.format.map_or("detected", TraceFormat::name)
            ),
            (None, Some(w)) => format!("workload {w}"),
            (None, None) => "generator".to_string(),
        }
    }
}

impl Config {
    /// Build a config from a preset name, an optional TOML file merged over it, and `key=value`
    /// overrides, then validate it.
    pub fn resolve(preset: &str, file: Option<&Path>, sets: &[String]) -> Result<Config, Error> {
        let source = preset_source(preset).ok_or_else(|| Error::UnknownPreset {
            name: preset.to_string(),
            known: preset_names().join(", "),
        })?;
        let origin = format!("preset `{preset}`");
        let mut value: toml::Table = toml::from_str(source).map_err(|e| Error::toml(&origin, e))?;
        if let Some(path) = file {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            let user: toml::Table =
                toml::from_str(&text).map_err(|e| Error::toml(&path.display().to_string(), e))?;
            merge(&mut value, user);
        }
        for set in sets {
            apply_override(&mut value, set)?;
        }
        let mut origin = match file {
            Some(p) => format!("{} (over {origin})", p.display()),
            None => origin,
        };
        if !sets.is_empty() {
            origin.push_str(" with overrides");
        }
        Config::from_table(value, &origin)
    }

    /// Parse and validate a complete TOML document.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Config, Error> {
        let value: toml::Table = toml::from_str(text).map_err(|e| Error::toml(origin, e))?;
        Config::from_table(value, origin)
    }

    fn from_table(mut value: toml::Table, origin: &str) -> Result<Config, Error> {
        expand_named_workloads(&mut value)?;
        let config: Config = toml::Value::Table(value)
            .try_into()
            .map_err(|e: toml::de::Error| Error::toml(origin, e))?;
        config.validate()?;
        Ok(config)
    }

    pub fn to_json(&self) -> serde_json::Value {
        // The config is plain data; serialising it cannot fail.
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// A flow naming a `workload` gets that workload's generator, with the flow's own `generator`
/// keys merged over it, so the resolved config (written into every result) is self-contained.
fn expand_named_workloads(value: &mut toml::Table) -> Result<(), Error> {
    let Some(toml::Value::Array(flows)) = value.get_mut("flows") else {
        return Ok(());
    };
    for (i, flow) in flows.iter_mut().enumerate() {
        let Some(table) = flow.as_table_mut() else {
            continue;
        };
        let name = match table.get("workload") {
            None => continue,
            Some(toml::Value::String(n)) => n.clone(),
            Some(_) => {
                return Err(Error::config(
                    &format!("flows[{i}].workload"),
                    "must be a workload name (see `ssdlab workloads`)",
                ))
            }
        };
        let mut generator = crate::workload::named::generator_table(&name)?;
        if let Some(toml::Value::Table(own)) = table.remove("generator") {
            merge(&mut generator, own);
        }
        table.insert("generator".into(), toml::Value::Table(generator));
    }
    Ok(())
}

/// Recursive table merge: keys of `over` replace those of `base`, tables merge.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}
