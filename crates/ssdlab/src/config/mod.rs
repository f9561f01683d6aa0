//! Configuration: typed TOML, every unit in the key name, validated as a whole before the first
//! event. A run's config is a preset (a TOML file under `presets/`), optionally a user file merged
//! over it, then `--set key=value` overrides, then validation. `[content]` also takes the content
//! of the named workloads the flows run, below the user's (`content_layers.rs`).
//!
//! The config holds plain values and imports nothing of the device (`flash/`), the FTL, the
//! engine or the generators: each section checks its own values here, and so do the relations
//! between sections that need no device (`cross_checks.rs`); the checks that need the device's
//! geometry run where it is built, in `device/`. So the whole validation, and the resolving that
//! ends with it (`Config::resolve`, `Config::validate`, …), are `device/validate.rs`'s; this
//! module reads a config and hands it to that validation.

pub(crate) mod checks;
mod content_layers;
mod cross_checks;
mod data_cache;
mod energy;
mod flow;
mod ftl;
pub(crate) mod generator;
mod geometry;
mod given;
mod host;
mod host_interface;
mod host_streams;
mod level1_gc;
mod locate;
mod mapping_cache;
mod overrides;
mod partial_program;
mod pcm;
mod placement;
mod precondition;
mod presets;
mod read_policy;
mod reduction;
mod reliability;
mod scheduler;
mod split;
mod statistics;
pub(crate) mod tagged;
mod timing;
pub mod workloads;

pub use data_cache::{DataCacheConfig, DramConfig};
pub use energy::EnergyConfig;
pub use flow::{FlowConfig, ReplayFlags};
// (Every type of `[ftl]`'s keys and tables: a new one is named outside `config/` as it is.)
pub use ftl::*;
pub use generator::{
    AddressDist, Arrival, GeneratorConfig, SizeComponent, SizeDist, StreamRule, Updates,
};
pub use geometry::{GeometryConfig, RegionConfig, MAIN_REGION};
pub(crate) use given::Given;
pub use host::{HostConfig, ReplayMode};
pub use host_interface::{HostInterfaceConfig, HostProtocol};
pub use host_streams::HostStreamsConfig;
pub use level1_gc::{Level1GcConfig, Level1Granularity};
pub use mapping_cache::{MappingCacheConfig, MappingCacheSizes};
pub use overrides::apply_override;
pub use partial_program::PartialProgramConfig;
pub use pcm::{PcmConfig, PcmTiming, PCM_REGION, PCM_SETS};
pub use placement::{MigrationConfig, PlacementConfig, LEVEL_STREAMS};
pub use precondition::{FillPattern, PreconditionConfig};
pub use presets::{preset_names, preset_source};
pub use read_policy::{
    Meld, ReadPolicyConfig, DEFAULT_READ_AHEAD_STREAMS, MAX_READ_AHEAD_KIB, MAX_READ_AHEAD_STREAMS,
};
pub use reduction::ReductionConfig;
pub use reliability::{PowerLawConfig, RberConfig, ReliabilityConfig};
pub use scheduler::{SchedulerConfig, SuspensionConfig};
pub use split::{ReadHistory, SplitConfig};
pub use statistics::StatisticsConfig;
pub use timing::{MlcTiming, SlcTiming, TimingConfig, TlcTiming};

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

use crate::content::ContentConfig;
use crate::error::Error;
use crate::nand::CellMode;
use content_layers::ContentLayers;

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
    /// The link between host and device (`host_interface.rs`).
    #[serde(default)]
    pub host_interface: HostInterfaceConfig,
    /// The controller's DRAM in front of the FTL (`data_cache.rs`); left out of the config echo
    /// when off.
    #[serde(default, skip_serializing_if = "DataCacheConfig::is_off")]
    pub data_cache: DataCacheConfig,
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
    /// Raw bit errors and ECC decode time (`flash/reliability.rs`); left out of the config echo
    /// when `fixed`.
    #[serde(default, skip_serializing_if = "ReliabilityConfig::is_fixed")]
    pub reliability: ReliabilityConfig,
    /// The warm-up a run leaves out of its results (`sim/window.rs`); left out of the config
    /// echo when off.
    #[serde(default, skip_serializing_if = "StatisticsConfig::is_off")]
    pub statistics: StatisticsConfig,
}

/// A config's whole validation, which reading one ends with (`device/validate.rs`): a limit
/// several keys make is blamed on one of them the user gave.
pub(crate) type Validation = fn(&Config, &Given) -> Result<(), Error>;

impl Config {
    /// Build a config from a preset name, an optional TOML file merged over it, `key=value`
    /// overrides and `flows` (the traces and workloads a command line or a Python call names,
    /// added after the config's own), with every flow replayed as `replay` says; then check it
    /// with `validate`. The named workloads among all the flows give `[content]` its workload
    /// layer, between the preset's and the user's.
    pub(crate) fn read(
        preset: &str,
        file: Option<&Path>,
        sets: &[String],
        flows: Vec<FlowConfig>,
        replay: ReplayFlags,
        validate: Validation,
    ) -> Result<Config, Error> {
        let source = preset_source(preset).ok_or_else(|| Error::UnknownPreset {
            name: preset.to_string(),
            known: preset_names().join(", "),
        })?;
        let origin = format!("preset `{preset}`");
        let mut value: toml::Table = toml::from_str(source).map_err(|e| Error::toml(&origin, e))?;
        let preset_content = value.get("content").cloned();
        let mut user = None;
        let mut text = String::new();
        if let Some(path) = file {
            text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            let table: toml::Table =
                toml::from_str(&text).map_err(|e| Error::toml(&path.display().to_string(), e))?;
            merge(&mut value, table.clone());
            user = Some(table);
        }
        for set in sets {
            apply_override(&mut value, set)?;
        }
        let layers = ContentLayers::new(preset_content, user.as_ref(), sets)?;
        let given = Given::new(user.as_ref(), sets);
        let mut origin = match file {
            Some(p) => format!("{} (over {origin})", p.display()),
            None => origin,
        };
        if !sets.is_empty() {
            origin.push_str(" with overrides");
        }
        let config = Config::from_table(value, &origin, &layers, flows, replay);
        config
            .and_then(|c| validate(&c, &given).map(|()| c))
            .map_err(|e| match file {
                Some(path) => locate::in_file(e, path, &text, sets),
                None => e,
            })
    }

    /// Parse a complete TOML document (its `[content]`, if any, is the user's) and check it with
    /// `validate`.
    pub(crate) fn read_document(
        text: &str,
        origin: &str,
        validate: Validation,
    ) -> Result<Config, Error> {
        let value: toml::Table = toml::from_str(text).map_err(|e| Error::toml(origin, e))?;
        let layers = ContentLayers::of_document(&value);
        let config =
            Config::from_table(value, origin, &layers, Vec::new(), ReplayFlags::default())?;
        validate(&config, &Given::default())?;
        Ok(config)
    }

    /// The first part of the validation, which needs no device: every impossible value of a
    /// section is an error naming the key and the reason, checked beside its type, then the
    /// relations between sections that the device's arithmetic relies on (`cross_checks.rs`,
    /// which rely on those: no zero divisors, no overflow). Returns the units an uncompressed
    /// page holds.
    pub(crate) fn validate_sections(&self) -> Result<u32, Error> {
        self.geometry.validate()?;
        self.timing.validate()?;
        self.ftl.validate()?;
        self.energy.validate()?;
        self.precondition.validate()?;
        let modes: Vec<CellMode> = match self.geometry.regions.is_empty() {
            true => vec![self.geometry.cell_mode],
            false => self.geometry.regions.iter().map(|r| r.cell_mode).collect(),
        };
        self.reliability.validate(&modes)?;
        self.host.validate()?;
        self.host_interface.validate()?;
        self.data_cache.validate()?;
        self.statistics.validate()?;
        for (i, flow) in self.flows.iter().enumerate() {
            flow.validate(i)?;
        }
        checks::durations(&self.to_json())?;
        self.validate_before_device()
    }

    /// Expand the table's named workloads, lay `[content]` from `layers` and the workloads of
    /// every flow (the table's, then `extra`), read the table, add `extra`, set `replay` on
    /// every flow.
    fn from_table(
        mut value: toml::Table,
        origin: &str,
        layers: &ContentLayers,
        extra: Vec<FlowConfig>,
        replay: ReplayFlags,
    ) -> Result<Config, Error> {
        let mut workloads = expand_named_workloads(&mut value)?;
        workloads.extend(extra.iter().filter_map(|f| f.workload.clone()));
        match layers.resolve(&workloads)? {
            Some(content) => value.insert("content".into(), content),
            None => value.remove("content"),
        };
        let mut config: Config = toml::Value::Table(value)
            .try_into()
            .map_err(|e: toml::de::Error| Error::toml(origin, e))?;
        config.flows.extend(extra);
        for flow in &mut config.flows {
            replay.apply(flow);
        }
        Ok(config)
    }

    pub fn to_json(&self) -> serde_json::Value {
        // The config is plain data; serialising it cannot fail.
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// [`Config::to_json`] with each flow's trace file named by its content (`sha256:…`), not
    /// its path, for the keys of cached results and device snapshots: a moved checkout still
    /// finds them, an edited trace does not.
    pub fn identity_json(&self) -> Result<serde_json::Value, Error> {
        use sha2::{Digest, Sha256};
        let mut c = self.to_json();
        if let Some(flows) = c.get_mut("flows").and_then(serde_json::Value::as_array_mut) {
            for f in flows {
                if let Some(path) = f.get("trace").and_then(|t| t.as_str()).map(PathBuf::from) {
                    let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
                    f["trace"] = format!("sha256:{:x}", Sha256::digest(&bytes)).into();
                }
            }
        }
        Ok(c)
    }
}

/// A flow naming a `workload` gets that workload's generator, with the flow's own `generator`
/// keys merged over it, so the resolved config (written into every result) is self-contained.
/// Returns the workloads named, in flow order.
fn expand_named_workloads(value: &mut toml::Table) -> Result<Vec<String>, Error> {
    let mut names = Vec::new();
    let Some(toml::Value::Array(flows)) = value.get_mut("flows") else {
        return Ok(names);
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
        let mut generator = workloads::generator_table(&name)?;
        if let Some(toml::Value::Table(own)) = table.remove("generator") {
            merge(&mut generator, own);
        }
        table.insert("generator".into(), toml::Value::Table(generator));
        names.push(name);
    }
    Ok(names)
}

/// Recursive table merge: keys of `over` replace those of `base`, tables merge, except that a
/// table naming another variant of a tagged value than `base` does (see [`VARIANT_TAGS`])
/// replaces it whole: the base's variant's keys are not keys of the new variant.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) if !other_variant(b, &o) => {
                merge(b, o)
            }
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// The keys that name the variant of a tagged table: a generator's size, address and arrival
/// distributions (`kind`), the FTL's policies (`policy`).
const VARIANT_TAGS: [&str; 2] = ["kind", "policy"];

/// Whether `over` names a different variant than `base` (both carry the tag, with other values).
fn other_variant(base: &toml::Table, over: &toml::Table) -> bool {
    VARIANT_TAGS
        .iter()
        .any(|tag| matches!((base.get(*tag), over.get(*tag)), (Some(b), Some(o)) if b != o))
}

fn default_true() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_of_another_variant_replaces_the_base_and_one_of_the_same_merges() {
        let mut base: toml::Table = toml::from_str(
            "[g]\nrequests = 5\narrival = { kind = \"closed\", queue_depth = 32 }\n\
             size = { kind = \"geometric\", mean_bytes = 8192.0, step_bytes = 4096, max_bytes = 65536 }",
        )
        .unwrap();
        let over: toml::Table = toml::from_str(
            "[g]\narrival = { kind = \"poisson\", iops = 100.0 }\n\
             size = { kind = \"geometric\", mean_bytes = 16384.0 }",
        )
        .unwrap();
        merge(&mut base, over);
        let g = base["g"].as_table().unwrap();
        // Another kind: the closed loop's queue depth is gone.
        let arrival = g["arrival"].as_table().unwrap();
        assert!(!arrival.contains_key("queue_depth"), "{arrival}");
        assert_eq!(arrival["kind"].as_str(), Some("poisson"));
        assert_eq!(arrival["iops"].as_float(), Some(100.0));
        // The same kind: keys merge.
        let size = g["size"].as_table().unwrap();
        assert_eq!(size["mean_bytes"].as_float(), Some(16384.0));
        assert_eq!(size["max_bytes"].as_integer(), Some(65536));
        assert_eq!(g["requests"].as_integer(), Some(5));
    }
}
