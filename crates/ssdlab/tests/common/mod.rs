//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use ssdlab::config::{apply_override, Config};

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
