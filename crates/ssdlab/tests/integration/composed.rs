//! The `composed` preset (docs/presets.md § composed): the five papers' techniques in one device
//! run together, verify clean, each acting where the workload lets it.

use crate::common;

use ssdlab::config::Config;

/// The preset, and the preset with PR-SSD's 16 KiB logical pages and its split FTL: every
/// technique of docs/config.md's matrix on at once (IPU's partial programs then write the
/// compressed units into subpages of the partial unit's size).
#[test]
fn the_composed_preset_runs_every_technique_verify_clean() {
    let flows = "flows=[{workload=\"pr-ssd-windows\", generator={requests=3000}}]";
    let split = [
        "ftl.mapping_unit_kib=16",
        "ftl.split={policy=\"decision\", width=4, history=\"bit\"}",
    ];
    for sets in [vec![flows], [&[flows][..], &split].concat()] {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let c = Config::resolve("composed", None, &sets).unwrap();
        let s = common::verified(&c);
        let count = |path: &[&str]| path.iter().fold(&s, |v, k| &v[k]).as_u64().unwrap_or(0);
        // PR-SSD: units compressed and merged into pages.
        assert!(
            count(&["compression", "units", "compressed"]) > 0,
            "{sets:?}: {}",
            s["compression"]
        );
        assert!(s["compression"]["saving"].as_f64().unwrap() > 0.05);
        // IPU: host writes in the SLC-mode levels, pages programmed in part.
        assert!(
            count(&["placement", "host_units"]) > 0,
            "{sets:?}: {}",
            s["placement"]
        );
        assert!(count(&["flash_ops", "program", "partial"]) > 0, "{sets:?}");
        // ROSA: PCM takes its share of the data and serves reads of it.
        assert!(
            count(&["pcm", "programs"]) > 0 && count(&["pcm", "reads"]) > 0,
            "{sets:?}: {}",
            s["pcm"]
        );
        // Melded pages: on, though this workload's reads want no whole wordline.
        assert!(s["melded_reads"].is_object(), "{s}");
        // The split FTL, where on: split buffers programmed across the flash's channels.
        assert_eq!(
            count(&["split", "buffers"]) > 0,
            sets.len() > 1,
            "{sets:?}: {}",
            s["split"]
        );
    }
}
