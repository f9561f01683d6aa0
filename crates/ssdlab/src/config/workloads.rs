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
    ("ipu-ts0", include_str!("../../workloads/ipu-ts0.toml")),
    ("ipu-wdev0", include_str!("../../workloads/ipu-wdev0.toml")),
    ("ipu-lun1", include_str!("../../workloads/ipu-lun1.toml")),
    ("ipu-usr0", include_str!("../../workloads/ipu-usr0.toml")),
    ("ipu-lun2", include_str!("../../workloads/ipu-lun2.toml")),
    ("ipu-ads", include_str!("../../workloads/ipu-ads.toml")),
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

    /// PR-SSD Table 2: mean read and write sizes (KB, read as KiB). The workloads' size shapes
    /// are ours; their means must stay the paper's, small requests must dominate (§3.1), and
    /// arrivals must be open loop (timed traces, §5.1.2).
    #[test]
    fn the_pr_ssd_workloads_keep_table_2s_means_with_small_requests_dominant() {
        use super::super::generator::mean_bytes;
        use super::super::{Arrival, SizeDist};
        let table_2 = [
            ("pr-ssd-ubuntu", 42.83, 179.47),
            ("pr-ssd-windows", 14.19, 56.93),
            ("pr-ssd-compile", 25.45, 262.87),
            ("pr-ssd-internet", 28.08, 42.65),
            ("pr-ssd-office", 35.35, 55.27),
            ("pr-ssd-copy", 32.32, 115.24),
            ("pr-ssd-db", 114.60, 432.75),
            ("pr-ssd-ml", 36.83, 18.60),
        ];
        // The share of single 4 KiB requests a distribution gives (fixed components only).
        let small_share = |d: &SizeDist| match d {
            SizeDist::Mixture { components } => {
                let total: f64 = components.iter().map(|c| c.weight).sum();
                components
                    .iter()
                    .filter(|c| c.size == SizeDist::Fixed { bytes: 4096 })
                    .map(|c| c.weight / total)
                    .sum::<f64>()
            }
            _ => 0.0,
        };
        for (name, read_kb, write_kb) in table_2 {
            let g = generator(name).unwrap();
            for (d, kb) in [(&g.read_size, read_kb), (&g.write_size, write_kb)] {
                let d = d.as_ref().unwrap();
                let mean = mean_bytes(d) / 1024.0;
                // The 16 MiB cut of the geometric tails lowers the mean by less than 1e-6.
                assert!((mean / kb - 1.0).abs() < 1e-4, "{name}: {mean} KiB vs {kb}");
                assert!(
                    small_share(d) > 0.5,
                    "{name}: small requests do not dominate"
                );
            }
            assert!(
                matches!(g.arrival, Arrival::Poisson { iops } if iops > 0.0),
                "{name}: {:?}",
                g.arrival
            );
        }
    }

    /// IPU (ipu-slc-partial-programming.txt): the motivation table's shares of requests in
    /// (0,4K], (4K,8K], >8K and the benchmark table's mean write size (KB, read as KiB). Sizes
    /// are 4 KiB, 8 KiB and a tail from 12 KiB in those shares, with the table's mean; arrivals
    /// are open loop (the traces are replayed at their time stamps, L169–175).
    #[test]
    fn the_ipu_workloads_keep_the_tables_size_shares_and_write_means() {
        use super::super::generator::mean_bytes;
        use super::super::{Arrival, SizeDist};
        let tables = [
            ("ipu-ts0", [69.8, 17.9, 12.3], 8.0),
            ("ipu-wdev0", [73.2, 6.8, 20.1], 8.2),
            ("ipu-lun1", [85.2, 7.3, 7.5], 7.6),
            ("ipu-usr0", [66.3, 12.1, 21.6], 10.3),
            ("ipu-lun2", [92.6, 2.5, 4.9], 9.7),
            ("ipu-ads", [74.5, 14.1, 11.4], 7.0),
        ];
        for (name, shares, write_kb) in tables {
            let g = generator(name).unwrap();
            let size = g.size.as_ref().unwrap();
            assert!(g.read_size.is_none() && g.write_size.is_none(), "{name}");
            // The 1 MiB cut of the tail lowers lun2's mean by 5e-5, the others' by less.
            let mean = mean_bytes(size) / 1024.0;
            assert!((mean / write_kb - 1.0).abs() < 1e-4, "{name}: {mean} KiB");
            let SizeDist::Mixture { components } = size else {
                panic!("{name}: not a mixture")
            };
            let weights: Vec<f64> = components.iter().map(|c| c.weight).collect();
            assert_eq!(weights, shares, "{name}");
            assert_eq!(components[0].size, SizeDist::Fixed { bytes: 4096 });
            assert_eq!(components[1].size, SizeDist::Fixed { bytes: 8192 });
            assert!(matches!(
                components[2].size,
                SizeDist::Geometric {
                    min_bytes: Some(12288),
                    step_bytes: 4096,
                    ..
                }
            ));
            assert!(g.updates.is_some(), "{name}");
            assert!(matches!(g.arrival, Arrival::Poisson { .. }), "{name}");
        }
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let e = generator("nope").unwrap_err().to_string();
        assert!(e.contains("nope") && e.contains("spread-kv"), "{e}");
    }
}
