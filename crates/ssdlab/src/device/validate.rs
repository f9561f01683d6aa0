//! The whole validation of a config, and the resolving that ends with it. `config/` checks each
//! section and the relations between sections that need no device; the rest need the device's
//! geometry and run here, where it is built: every policy's needs (`needs.rs`), then the
//! capacity of each region (`capacity.rs`). The first failed check is the error, in this order:
//! sections, relations the device's arithmetic relies on, needs, the write buffer, capacity,
//! replay, content.

use std::path::Path;

use super::capacity;
use super::needs::{with_needs, Device};
use crate::config::{Config, FlowConfig, Given, ReplayFlags};
use crate::error::Error;

impl Config {
    /// Build a config from a preset name, an optional TOML file merged over it, and `key=value`
    /// overrides, then validate it.
    pub fn resolve(preset: &str, file: Option<&Path>, sets: &[String]) -> Result<Config, Error> {
        Config::resolve_with_flows(preset, file, sets, Vec::new())
    }

    /// [`Config::resolve`], with `flows` (the traces and workloads a command line or a Python
    /// call names) added after the config's own. The named workloads among all the flows give
    /// `[content]` its workload layer, between the preset's and the user's.
    pub fn resolve_with_flows(
        preset: &str,
        file: Option<&Path>,
        sets: &[String],
        flows: Vec<FlowConfig>,
    ) -> Result<Config, Error> {
        Config::resolve_replaying(preset, file, sets, flows, ReplayFlags::default())
    }

    /// [`Config::resolve_with_flows`], with every flow replayed as `replay` says (a command
    /// line's `--mode` and `--queue-depth`).
    pub fn resolve_replaying(
        preset: &str,
        file: Option<&Path>,
        sets: &[String],
        flows: Vec<FlowConfig>,
        replay: ReplayFlags,
    ) -> Result<Config, Error> {
        Config::read(preset, file, sets, flows, replay, validate)
    }

    /// Parse and validate a complete TOML document (its `[content]`, if any, is the user's).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Config, Error> {
        Config::read_document(text, origin, validate)
    }

    /// Every impossible value or combination is an error naming the key and the reason.
    pub fn validate(&self) -> Result<(), Error> {
        validate(self, &Given::default())
    }
}

/// [`Config::validate`], blaming a limit several keys make on one the user gave (`given`).
fn validate(config: &Config, given: &Given) -> Result<(), Error> {
    let units_per_page = config.validate_sections()?;
    // Only now is the device's arithmetic (u32) safe to do.
    let geo = super::geometry(config);
    let device = Device::new(config, &geo)?;
    for policy in with_needs(config) {
        policy.needs(&device)?;
    }
    config.validate_write_buffer(units_per_page)?;
    capacity::validate(config, &device, given)?;
    config.validate_closed_loop(geo.slots_per_page)?;
    config
        .content
        .validate(Some(config.ftl.mapping_unit_kib as u64 * 1024))
}
