//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use ssdlab::config::{apply_override, Config};
use ssdlab::sim::{Flow, RequestRecord, RunOptions, Simulation};
use ssdlab::trace::TraceRequest;

/// The small test device (tests/data/small.toml) with overrides.
pub fn small(sets: &[&str]) -> Config {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml");
    let mut table: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
    for s in sets {
        apply_override(&mut table, s).unwrap();
    }
    Config::from_toml_str(&toml::to_string(&table).unwrap(), path).unwrap()
}

/// A file in the repository's committed trace excerpts.
pub fn trace(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces")).join(name)
}

/// Replay `requests` as one flow with the integrity oracle on; the per-request records in
/// completion order and the summary (whose integrity check must be clean).
pub fn run_logged(
    config: Config,
    requests: Vec<TraceRequest>,
) -> (Vec<RequestRecord>, serde_json::Value) {
    let flow = Flow::new("t".into(), requests, config.host.mode, 1, 1.0, 0);
    let opts = RunOptions {
        verify: true,
        request_log: true,
    };
    let mut sim = Simulation::new(config, vec![flow], opts).unwrap();
    sim.run().unwrap();
    let s = sim.summary();
    assert_eq!(s["integrity"]["violations"], 0, "{}", s["integrity"]);
    (sim.log.take().unwrap(), s)
}
