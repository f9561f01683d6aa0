//! Named workloads shipped with ssdlab, compiled in from `workloads/*.toml`. Each file has a
//! `description`, a `[generator]` table (a [`GeneratorConfig`]) and optionally a `[content]`
//! table: the bytes its writes carry, which a run uses unless the user's config chooses its own
//! (`content/layers.rs`). Comments in the file say which number comes from which table of which
//! paper, and which are our choices.

use super::GeneratorConfig;
use crate::error::Error;

const WORKLOADS: &[(&str, &str)] = &[
    ("spread-kv", include_str!("../../workloads/spread-kv.toml")),
    (
        "spread-grp",
        include_str!("../../workloads/spread-grp.toml"),
    ),
    (
        "spread-prj",
        include_str!("../../workloads/spread-prj.toml"),
    ),
    (
        "spread-usr",
        include_str!("../../workloads/spread-usr.toml"),
    ),
    (
        "spread-stg",
        include_str!("../../workloads/spread-stg.toml"),
    ),
    ("spread-su", include_str!("../../workloads/spread-su.toml")),
    (
        "pr-ssd-ubuntu",
        include_str!("../../workloads/pr-ssd-ubuntu.toml"),
    ),
    (
        "pr-ssd-windows",
        include_str!("../../workloads/pr-ssd-windows.toml"),
    ),
    (
        "pr-ssd-compile",
        include_str!("../../workloads/pr-ssd-compile.toml"),
    ),
    (
        "pr-ssd-internet",
        include_str!("../../workloads/pr-ssd-internet.toml"),
    ),
    (
        "pr-ssd-office",
        include_str!("../../workloads/pr-ssd-office.toml"),
    ),
    (
        "pr-ssd-copy",
        include_str!("../../workloads/pr-ssd-copy.toml"),
    ),
    ("pr-ssd-db", include_str!("../../workloads/pr-ssd-db.toml")),
    ("pr-ssd-ml", include_str!("../../workloads/pr-ssd-ml.toml")),
    (
        "hdfs-reader",
        include_str!("../../workloads/hdfs-reader.toml"),
    ),
    (
        "hdfs-writer",
        include_str!("../../workloads/hdfs-writer.toml"),
    ),
];

pub fn names() -> Vec<&'static str> {
    WORKLOADS.iter().map(|(n, _)| *n).collect()
}

/// The TOML text of a named workload.
pub fn source(name: &str) -> Option<&'static str> {
    WORKLOADS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// A named workload's file, parsed.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    description: String,
    generator: toml::Table,
    #[serde(default)]
    content: Option<toml::Table>,
}

/// The description of a named workload.
pub fn description(name: &str) -> Result<String, Error> {
    Ok(parse(name)?.description)
}

/// The `[generator]` table of a named workload (to merge a flow's own keys over).
pub fn generator_table(name: &str) -> Result<toml::Table, Error> {
    Ok(parse(name)?.generator)
}

/// The `[content]` table of a named workload, if it has one.
pub fn content_table(name: &str) -> Result<Option<toml::Table>, Error> {
    Ok(parse(name)?.content)
}

/// The generator of a named workload.
pub fn generator(name: &str) -> Result<GeneratorConfig, Error> {
    toml::Value::Table(generator_table(name)?)
        .try_into()
        .map_err(|e: toml::de::Error| Error::toml(&format!("workload `{name}`"), e))
}

fn parse(name: &str) -> Result<File, Error> {
    let text = source(name).ok_or_else(|| Error::UnknownWorkload {
        name: name.to_string(),
        known: names().join(", "),
    })?;
    toml::from_str(text).map_err(|e| Error::toml(&format!("workload `{name}`"), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_workload_is_valid() {
        for name in names() {
            let g = generator(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            g.validate(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!description(name).expect("parses").is_empty());
            if let Some(table) = content_table(name).expect("parses") {
                let content =
                    crate::content::deserialize_defaulting_source(toml::Value::Table(table))
                        .unwrap_or_else(|e| panic!("{name}: [content]: {e}"));
                content
                    .validate(None)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let e = generator("nope").unwrap_err().to_string();
        assert!(e.contains("nope") && e.contains("spread-kv"), "{e}");
    }
}
