//! Which keys the config has and which values its enums take, read from the config itself: the
//! presets' tables and their resolved echo give the keys, and serde names every variant of a
//! key when handed one it does not know. A key or a variant added later (ROSA's, melded
//! pages') thus fails `every_config_key_is_drawn_or_held` or
//! `every_value_of_every_config_enum_is_drawn` until the draws give it.

use std::collections::{BTreeMap, BTreeSet};

use toml::Value;

use ssdlab::codec::CodecConfig;
use ssdlab::config::{apply_override, preset_names, preset_source, Config};

use super::draw::Draw;

/// A value no enum has.
const UNKNOWN: &str = "?harness?";

/// The keys held at their preset's values, and why. (A prefix holds every key below it.)
pub const HELD: [(&str, &str); 8] = [
    ("name", "a label"),
    ("description", "a label"),
    (
        "timing.",
        "each preset's own timings, drawn with the preset (plus a table for a cell mode it \
         lacks, and PCM's: ALSO_DRAWN): times move events, not the paths they take",
    ),
    (
        "energy.",
        "energy per operation scales counters; no path depends on it (PCM's is drawn: \
         ALSO_DRAWN)",
    ),
    (
        "host_interface.tlp_",
        "PCIe packet sizes: the protocol, generation and lanes are drawn",
    ),
    (
        "host_interface.dllp_",
        "PCIe packet sizes: the protocol, generation and lanes are drawn",
    ),
    (
        "host_interface.framing_",
        "PCIe packet sizes: the protocol, generation and lanes are drawn",
    ),
    (
        "reliability.",
        "the error model's parameters are the IPU preset's, whole; the model is drawn",
    ),
];

/// Keys drawn though no preset sets them or a prefix of `HELD` holds them: PCM's timing and
/// energy forms (each has its own validation), the firmware's cores, oblivious placement's
/// runs, and the melded read's, the host streams', the proportional read's and idle GC's
/// parameters. Each must be
/// drawn with two values or more.
pub const ALSO_DRAWN: [&str; 14] = [
    "timing.firmware_cores",
    "timing.pcm.set",
    "timing.pcm.read_ns",
    "timing.pcm.write_ns",
    "energy.pcm_read_pj_per_bit",
    "energy.pcm_write_pj_per_bit",
    "ftl.placement.run_units",
    "ftl.read_policy.read_ahead_kib",
    "ftl.read_policy.read_ahead_streams",
    "ftl.host_streams.max_open",
    "ftl.host_streams.complete_after_mib",
    "ftl.read_policy.fixed_tr_share",
    "ftl.idle_gc.interval_ns",
    "ftl.idle_gc.free_threshold",
];

/// Keys outside the device's option space: the workloads (committed excerpts, the harness's
/// traces, a generator: `flows.rs`). Their formats are the parsers' fuzz targets' business
/// (docs/fuzzing.md), their distributions `tests/integration/workloads.rs`'.
pub const WORKLOAD: &str = "flows";

/// The leaves of `v` below `path`: dotted keys, `[]` for the elements of an array of tables
/// (other arrays are leaves), each with its value.
pub fn leaves(v: &Value, path: &str, out: &mut Vec<(String, Value)>) {
    let join = |k: &str| match path.is_empty() {
        true => k.to_string(),
        false => format!("{path}.{k}"),
    };
    match v {
        Value::Table(t) => {
            for (k, v) in t {
                leaves(v, &join(k), out);
            }
        }
        Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_table) => {
            for e in a {
                leaves(e, &format!("{path}[]"), out);
            }
        }
        v => out.push((path.to_string(), v.clone())),
    }
}

/// How a leaf's value reads among the values a key took.
pub fn spelled(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// The preset's table with a draw's device overrides: what `Config::resolve` reads.
pub fn merged(draw: &Draw) -> toml::Table {
    let mut t: toml::Table = preset_source(draw.preset)
        .and_then(|s| s.parse().ok())
        .expect("a preset parses");
    for s in &draw.sets {
        apply_override(&mut t, s).expect("a drawn override applies");
    }
    t
}

/// The key `path` (with `[]` for the first element of an array) of `t`, mutably.
fn at<'a>(t: &'a mut toml::Table, path: &str) -> Option<&'a mut Value> {
    let mut parts = path.split('.');
    let first = parts.next()?;
    let mut v = t.get_mut(first.trim_end_matches("[]"))?;
    if first.ends_with("[]") {
        v = v.get_mut(0)?;
    }
    for part in parts {
        v = v.get_mut(part.trim_end_matches("[]"))?;
        if part.ends_with("[]") {
            v = v.get_mut(0)?;
        }
    }
    Some(v)
}

/// The names serde expects in place of an unknown variant, from its message.
fn expected_variants(message: &str) -> Option<Vec<String>> {
    let after = message
        .split_once(&format!("unknown variant `{UNKNOWN}`"))?
        .1;
    let list = after.split_once("expected")?.1.lines().next()?;
    Some(
        list.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect(),
    )
}

/// Every value of the enum key `path` of `base` (a table that deserialises), or None if the
/// key is not an enum: set it to a value no enum has and read what serde expects instead.
fn variants(base: &toml::Table, path: &str) -> Option<Vec<String>> {
    let mut t = base.clone();
    *at(&mut t, path)? = Value::String(UNKNOWN.into());
    let e = Value::Table(t).try_into::<Config>().err()?;
    expected_variants(&e.to_string())
}

/// The codec kinds `ftl.reduction.codec` names (a codec name's `codec` tag).
pub fn codec_kinds() -> Vec<String> {
    let e = toml::from_str::<CodecConfig>(&format!("codec = \"{UNKNOWN}\""))
        .expect_err("an unknown codec");
    expected_variants(&e.to_string()).expect("serde names the codecs")
}

/// The kind of codec a codec name gives.
pub fn codec_kind(name: &str) -> String {
    let c = CodecConfig::from_name(name).expect("a drawn codec name");
    Value::try_from(&c).expect("a codec serialises")["codec"]
        .as_str()
        .expect("a codec's tag")
        .to_string()
}

/// Every preset's table and its resolved echo.
pub fn preset_tables() -> Vec<toml::Table> {
    preset_names()
        .into_iter()
        .flat_map(|p| {
            let table: toml::Table = preset_source(p)
                .and_then(|s| s.parse().ok())
                .expect("a preset parses");
            let config = Config::resolve(p, None, &[]).expect("a preset resolves");
            let echo = match Value::try_from(&config).expect("a config serialises") {
                Value::Table(t) => t,
                _ => unreachable!("a config is a table"),
            };
            [table, echo]
        })
        .collect()
}

/// The components of a mixture of write sizes (`precondition.write_size`, a generator's
/// grammar): each is a distribution of the same grammar, every kind of which is drawn at the
/// top level; a mixture within a mixture would ask for every kind one level deeper, for ever.
const NESTED_SIZES: &str = "precondition.write_size.components";

/// The enum keys of the presets and of `drawn` (tables that resolve as far as
/// deserialisation), with their variants: booleans as `false` and `true`.
pub fn enum_keys(drawn: &[toml::Table]) -> BTreeMap<String, Vec<String>> {
    let mut keys = BTreeMap::new();
    for t in preset_tables().iter().chain(drawn) {
        if Value::Table(t.clone()).try_into::<Config>().is_err() {
            continue;
        }
        let mut l = Vec::new();
        leaves(&Value::Table(t.clone()), "", &mut l);
        for (path, v) in l {
            if path.starts_with(WORKLOAD)
                || path.starts_with(NESTED_SIZES)
                || keys.contains_key(&path)
            {
                continue;
            }
            let found = match v {
                Value::Boolean(_) => Some(vec!["false".to_string(), "true".to_string()]),
                Value::String(_) => variants(t, &path),
                _ => None,
            };
            if let Some(values) = found {
                keys.insert(path, values);
            }
        }
    }
    keys
}

/// The values each key took in `tables`.
pub fn values(tables: &[toml::Table]) -> BTreeMap<String, BTreeSet<String>> {
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for t in tables {
        let mut l = Vec::new();
        leaves(&Value::Table(t.clone()), "", &mut l);
        for (path, v) in l {
            seen.entry(path).or_default().insert(spelled(&v));
        }
    }
    seen
}

/// The values each key took in the overrides of `draws` alone.
pub fn overridden(draws: &[Draw]) -> BTreeMap<String, BTreeSet<String>> {
    let tables: Vec<toml::Table> = draws
        .iter()
        .map(|d| {
            let mut t = toml::Table::new();
            for s in &d.sets {
                apply_override(&mut t, s).expect("a drawn override applies");
            }
            t
        })
        .collect();
    values(&tables)
}
