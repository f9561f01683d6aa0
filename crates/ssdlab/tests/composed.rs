//! The `composed` preset (docs/presets.md § composed): the five papers' techniques in one device
//! run together, verify clean, each acting where the workload lets it.

mod common;

use ssdlab::config::Config;

#[test]
fn the_composed_preset_runs_every_technique_verify_clean() {
    let c = Config::resolve(
        "composed",
        None,
        &["flows=[{workload=\"pr-ssd-windows\", generator={requests=3000}}]".to_string()],
    )
    .unwrap();
    let s = common::verified(&c);
    let count = |path: &[&str]| path.iter().fold(&s, |v, k| &v[k]).as_u64().unwrap_or(0);
    // PR-SSD: units compressed and merged into pages.
    assert!(
        count(&["compression", "units", "compressed"]) > 0,
        "{}",
        s["compression"]
    );
    assert!(s["compression"]["saving"].as_f64().unwrap() > 0.05);
    // IPU: host writes in the SLC-mode levels, pages programmed in part.
    assert!(
        count(&["placement", "host_units"]) > 0,
        "{}",
        s["placement"]
    );
    assert!(count(&["flash_ops", "program", "partial"]) > 0);
    // ROSA: PCM takes its share of the data and serves reads of it.
    assert!(
        count(&["pcm", "programs"]) > 0 && count(&["pcm", "reads"]) > 0,
        "{}",
        s["pcm"]
    );
    // Melded pages: on, though this workload's reads want no whole wordline.
    assert!(s["melded_reads"].is_object(), "{s}");
}
