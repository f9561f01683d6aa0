//! Helpers for the crate's unit tests.

use crate::config::{apply_override, Config};
use crate::flash::Geometry;

/// The small test device (tests/data/small.toml) with `key=value` overrides.
pub fn small(sets: &[&str]) -> Config {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml");
    let mut table: toml::Table = std::fs::read_to_string(path)
        .expect("tests/data/small.toml is readable")
        .parse()
        .expect("tests/data/small.toml is TOML");
    for s in sets {
        apply_override(&mut table, s).expect("a well-formed override");
    }
    let text = toml::to_string(&table).expect("a TOML table serialises");
    Config::from_toml_str(&text, path).expect("the small test device is valid")
}

/// The small test device's geometry, with `key=value` overrides.
pub fn geometry(sets: &[&str]) -> Geometry {
    crate::device::geometry(&small(sets))
}

pub fn small_geometry() -> Geometry {
    geometry(&[])
}
