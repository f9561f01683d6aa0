//! Device snapshots (`sim/snapshot.rs`, docs/snapshots.md): a run that loads its preconditioned
//! device from a snapshot gives the summary of a run that preconditions afresh, byte for byte,
//! for each technique's state (a test each); runs that differ only in what acts after
//! preconditioning share one snapshot; a snapshot of another device is refused, saying why.

use crate::common;

use std::path::{Path, PathBuf};

use ssdlab::config::{Config, FlowConfig};
use ssdlab::error::Error;
use ssdlab::experiment::spec::Experiment;
use ssdlab::run::simulate;
use ssdlab::sim::SnapshotUse;
use ssdlab::trace::{Caller, TraceFormat};
use ssdlab::RunOptions;

/// A GC-active steady state: 90% of the logical space written, then half of it again at random.
const STEADY: &[&str] = &[
    "precondition.fill_fraction=0.9",
    "precondition.overwrite_fraction=0.5",
    "host.out_of_range=\"wrap\"",
];

fn experiments() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments")
}

/// The configs of a reproduction (`experiments/NAME.toml`): label, preset and overrides.
fn schemes(name: &str) -> Vec<(String, String, Vec<String>)> {
    let e = Experiment::load(&experiments().join(format!("{name}.toml"))).unwrap();
    (e.configs.iter())
        .map(|c| {
            let sets = c.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
            (c.label.clone(), c.preset.clone(), sets)
        })
        .collect()
}

/// `config` replaying the committed `hm_0` excerpt.
fn with_trace(mut config: Config) -> Config {
    let trace = common::trace("msr_hm_0_first1000.csv.gz");
    (config.flows).push(FlowConfig::trace(
        trace,
        Some(TraceFormat::Msr),
        Caller::Toml,
    ));
    config
}

/// The summary as text, without its wall time (the one key that differs between identical
/// runs).
fn text(summary: &serde_json::Value) -> String {
    let mut s = summary.clone();
    s.as_object_mut().unwrap().remove("wall_time_s");
    serde_json::to_string_pretty(&s).unwrap()
}

fn run(config: &Config, snapshot: Option<&Path>) -> Result<(String, Option<SnapshotUse>), Error> {
    let options = RunOptions {
        verify: true,
        snapshot: snapshot.map(Path::to_path_buf),
        ..RunOptions::default()
    };
    let r = simulate(config, &options)?;
    assert_eq!(
        r.summary["integrity"]["violations"], 0,
        "{}",
        r.summary["integrity"]
    );
    Ok((text(&r.summary), r.snapshot.map(|(_, u)| u)))
}

/// Precondition afresh; precondition and save; load: the three summaries are one.
fn same_with_snapshot(label: &str, config: &Config) {
    let dir = tempfile::tempdir().unwrap();
    let (fresh, _) = run(config, None).unwrap();
    let (saved, first) = run(config, Some(dir.path())).unwrap();
    let (loaded, second) = run(config, Some(dir.path())).unwrap();
    assert_eq!(first, Some(SnapshotUse::Saved), "{label}");
    assert_eq!(second, Some(SnapshotUse::Loaded), "{label}");
    assert!(fresh == saved, "{label}: saving changed the run");
    assert!(
        fresh == loaded,
        "{label}: the loaded device ran otherwise:\n{}",
        first_difference(&fresh, &loaded)
    );
}

fn first_difference(a: &str, b: &str) -> String {
    (a.lines().zip(b.lines()))
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map_or("(lengths differ)".into(), |(i, (x, y))| {
            format!("line {i}: {x} / {y}")
        })
}

fn small(sets: &[&str]) -> Config {
    with_trace(common::small(&[STEADY, sets].concat()))
}

#[test]
fn the_plain_ftl_with_random_victims_and_dynamic_allocation() {
    for sets in [
        &["ftl.gc_victim.policy=\"random\""][..],
        &[
            "ftl.gc_victim={policy=\"randomized_greedy\", sample_size=2}",
            "ftl.allocation={policy=\"dynamic\"}",
        ],
        &[
            "ftl.gc_victim.policy=\"cost_benefit\"",
            "precondition.pattern=\"sequential\"",
        ],
    ] {
        same_with_snapshot(&format!("{sets:?}"), &small(sets));
    }
}

/// The units written in `summary`'s preconditioning report.
fn units_preconditioned(summary: &str) -> u64 {
    let s: serde_json::Value = serde_json::from_str(summary).unwrap();
    s["precondition"]["units_written"].as_u64().unwrap()
}

/// The trace's footprint (the small device's `trace_footprint`) is written after the snapshot:
/// one device's preconditioning under another trace, or without the footprint, loads the same
/// snapshot and gives what preconditioning afresh gives; a device whose only preconditioning is
/// the footprint saves none.
#[test]
fn the_trace_footprint() {
    let dir = tempfile::tempdir().unwrap();
    same_with_snapshot("footprint", &small(&[]));
    let (base, used) = run(&small(&[]), Some(dir.path())).unwrap();
    assert_eq!(used, Some(SnapshotUse::Saved));
    let mut shifted = small(&[]);
    shifted.flows[0].offset_bytes = 1 << 20;
    let without = small(&["precondition.trace_footprint=false"]);
    for (label, other) in [("another footprint", &shifted), ("no footprint", &without)] {
        let (fresh, _) = run(other, None).unwrap();
        let (loaded, used) = run(other, Some(dir.path())).unwrap();
        assert_eq!(used, Some(SnapshotUse::Loaded), "{label}");
        assert!(
            fresh == loaded,
            "{label}: {}",
            first_difference(&fresh, &loaded)
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    // (The footprint wrote units the fill left out.)
    let (none, _) = run(&without, None).unwrap();
    assert!(units_preconditioned(&base) > units_preconditioned(&none));
    let only = small(&[
        "precondition.fill_fraction=0.0",
        "precondition.overwrite_fraction=0.0",
    ]);
    let dir = tempfile::tempdir().unwrap();
    let (fresh, _) = run(&only, None).unwrap();
    let (unsaved, used) = run(&only, Some(dir.path())).unwrap();
    assert_eq!(used, Some(SnapshotUse::Unneeded));
    assert!(fresh == unsaved && units_preconditioned(&fresh) > 0);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// PR-SSD: compressed units (the content versions written), the split FTL's history.
#[test]
fn pr_ssd() {
    // LZ4, DPC with partial reads, PR-SSD's split decision, every page split.
    let chosen = ["S", "DP", "PR", "SplitAll"];
    let schemes = schemes("pr-ssd");
    for (label, preset, sets) in schemes.iter().filter(|s| chosen.contains(&s.0.as_str())) {
        let mut all = sets.clone();
        all.extend(["geometry.channels=4", "geometry.blocks_per_plane=24"].map(String::from));
        all.extend(STEADY.iter().map(|s| s.to_string()));
        let c = with_trace(Config::resolve(preset, None, &all).unwrap());
        same_with_snapshot(label, &c);
    }
}

/// IPU: the SLC-mode cache's levels (update counts), partial programs, ISR victims.
#[test]
fn ipu() {
    let device = experiments().join("ipu/device.toml");
    for (label, preset, sets) in schemes("ipu") {
        let mut all = sets.clone();
        all.extend(
            [
                "geometry.blocks_per_plane=200",
                "geometry.pages_per_block=64",
                "geometry.regions=[{name=\"main\", cell_mode=\"mlc\", blocks_per_plane=180}, \
                 {name=\"slc\", cell_mode=\"slc\", blocks_per_plane=20, nop=4}]",
            ]
            .map(String::from),
        );
        all.extend(STEADY.iter().map(|s| s.to_string()));
        let c = with_trace(Config::resolve(&preset, Some(&device), &all).unwrap());
        same_with_snapshot(&label, &c);
    }
}

/// ROSA: PCM filled by the oblivious placement, level 1's read counts from the timed run on.
#[test]
fn rosa() {
    let mut sets = common::SMALL_PCM.to_vec();
    sets.extend([
        "ftl.gc_threshold=0.03",
        "ftl.level1_gc={policy=\"read_intensity\", interval_ns=100000000}",
    ]);
    same_with_snapshot("rosa", &small(&sets));
}

/// SPREAD's and melded pages' read policies act after preconditioning; melded pages' writes
/// reorder by stream into wordlines.
#[test]
fn spread_and_melded_pages() {
    for sets in [
        &["ftl.read_policy.policy=\"subpage\""][..],
        &[
            "ftl.read_policy={policy=\"melded\"}",
            "timing.tlc.tr_melded_ns=160000",
            "geometry.program_order=\"shadow\"",
            "ftl.host_streams={policy=\"wordlines\", max_open=2}",
        ],
    ] {
        same_with_snapshot(&format!("{sets:?}"), &small(sets));
    }
}

/// A mapping table on flash: its translation pages written at the start, its CMT.
#[test]
fn the_mapping_table_on_flash() {
    let sets = [
        "ftl.mapping_cache={policy=\"demand\", capacity_kib=16}",
        "data_cache={policy=\"read_write\", capacity_kib=256}",
    ];
    same_with_snapshot("demand mapping", &small(&sets));
}

/// Timing, scheduling, the read policy and the caches act only after preconditioning: runs
/// that differ in them share a snapshot, and each gives what preconditioning afresh gives.
#[test]
fn runs_that_differ_after_preconditioning_share_a_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let (_, used) = run(&small(&[]), Some(dir.path())).unwrap();
    assert_eq!(used, Some(SnapshotUse::Saved));
    let other = small(&[
        "timing.ecc_decode_ns=9000",
        "scheduler.read_priority=true",
        "ftl.read_policy.policy=\"full\"",
        "data_cache={policy=\"read\", capacity_kib=512}",
        "statistics={warmup_fraction=0.5}",
    ]);
    let (fresh, _) = run(&other, None).unwrap();
    let (loaded, used) = run(&other, Some(dir.path())).unwrap();
    assert_eq!(used, Some(SnapshotUse::Loaded));
    assert!(fresh == loaded, "{}", first_difference(&fresh, &loaded));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// A snapshot file of another device is refused, naming what differs; so is a file that is no
/// snapshot. From the command line, exit status 2.
#[test]
fn a_snapshot_of_another_device_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    run(&small(&[]), Some(dir.path())).unwrap();
    let file = std::fs::read_dir(dir.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let other = small(&["ftl.gc_victim.policy=\"cost_benefit\""]);
    let e = run(&other, Some(&file)).unwrap_err().to_string();
    assert!(e.contains("device snapshot refused"), "{e}");
    assert!(
        e.contains(
            "`ftl.gc_victim.policy` is \"greedy\" in the snapshot, \"cost_benefit\" in this run"
        ),
        "{e}"
    );
    // The file as given is this device's: loaded.
    let (_, used) = run(&small(&[]), Some(&file)).unwrap();
    assert_eq!(used, Some(SnapshotUse::Loaded));

    let junk = dir.path().join("junk.snapshot");
    std::fs::write(&junk, b"not a snapshot").unwrap();
    let e = run(&small(&[]), Some(&junk)).unwrap_err().to_string();
    assert!(e.contains("not a device snapshot"), "{e}");
    let (code, _, stderr) = common::ssdlab(&[
        "run",
        "--preset",
        "default",
        "--workload",
        "spread-kv",
        "--snapshot",
        junk.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("device snapshot refused"), "{stderr}");
}

/// The snapshot files in `dir`.
fn snapshot_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = (std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// A snapshot damaged anywhere — 8 bytes flipped at a quarter, half and three quarters of the
/// file, in its header's key, in its checksum — is never loaded: refused as damaged, naming
/// the file, and moved aside, so that the next run preconditions afresh, saves it again and
/// runs as a fresh run does. A file given directly is refused and left where it is; from the
/// command line, exit status 2.
#[test]
fn a_damaged_snapshot_is_refused_and_rebuilt() {
    let config = small(&[]);
    let dir = tempfile::tempdir().unwrap();
    let (fresh, _) = run(&config, Some(dir.path())).unwrap();
    let [file] = &snapshot_files(dir.path())[..] else {
        panic!("one snapshot")
    };
    let clean = std::fs::read(file).unwrap();
    let n = clean.len();
    for at in [n / 4, n / 2, n * 3 / 4, 60, n - 8] {
        let mut bytes = clean.clone();
        for b in &mut bytes[at..at + 8] {
            *b ^= 0xA5;
        }
        std::fs::write(file, &bytes).unwrap();
        let e = run(&config, Some(dir.path())).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(e, Error::DamagedSnapshot { .. }),
            "byte {at}: {text}"
        );
        assert!(text.contains(file.to_str().unwrap()), "{text}");
        assert!(
            !file.exists(),
            "byte {at}: the damaged file was left in place"
        );
        let (rebuilt, used) = run(&config, Some(dir.path())).unwrap();
        assert_eq!(used, Some(SnapshotUse::Saved), "byte {at}");
        assert!(fresh == rebuilt, "{}", first_difference(&fresh, &rebuilt));
    }
    assert_eq!(std::fs::read(file).unwrap(), clean, "saved again as it was");

    let mut bytes = clean.clone();
    bytes[n / 2] ^= 1;
    let given = dir.path().join("given.snapshot");
    std::fs::write(&given, &bytes).unwrap();
    let (code, _, stderr) = common::ssdlab(&[
        "run",
        "--config",
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml"),
        "--set",
        STEADY[0],
        "--set",
        STEADY[1],
        "--set",
        STEADY[2],
        "--trace",
        common::trace("msr_hm_0_first1000.csv.gz").to_str().unwrap(),
        "--verify",
        "--snapshot",
        given.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("given.snapshot: device snapshot damaged"),
        "{stderr}"
    );
    assert!(given.exists(), "a file given directly is left in place");
}

/// A snapshot is written whole or not at all: a save that fails (here, a folder where the
/// snapshot's file should go) names the snapshot with the system's error and leaves no
/// temporary file; a folder that cannot be written is refused before preconditioning (its
/// temporary file is created first), naming the folder.
#[test]
fn a_failed_save_leaves_nothing_and_names_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    run(&small(&[]), Some(dir.path())).unwrap();
    let [file] = &snapshot_files(dir.path())[..] else {
        panic!("one snapshot")
    };
    // The key's name taken by a folder: the rename fails.
    std::fs::remove_file(file).unwrap();
    std::fs::create_dir(file).unwrap();
    std::fs::write(file.join("x"), b"x").unwrap();
    let e = run(&small(&[]), Some(dir.path())).unwrap_err().to_string();
    assert!(e.contains(file.to_str().unwrap()), "{e}");
    assert_eq!(snapshot_files(dir.path()), vec![file.clone()], "{e}");

    // The temporary file cannot be created (its name taken by a folder: as a folder that
    // cannot be written, for root too): refused at once, naming the folder, not the file.
    std::fs::remove_dir_all(file).unwrap();
    let part = file.with_extension(format!(
        "snapshot.{}.{:?}.part",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir(&part).unwrap();
    let e = run(&small(&[]), Some(dir.path())).unwrap_err().to_string();
    assert!(e.contains("cannot save a snapshot here"), "{e}");
    assert!(
        e.starts_with(dir.path().to_str().unwrap()) && !e.contains(".part:"),
        "{e}"
    );
    std::fs::remove_dir(&part).unwrap();

    // A folder without write permission (root may write anyway: then there is nothing to see).
    let locked = tempfile::tempdir().unwrap();
    let mut permissions = std::fs::metadata(locked.path()).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o555);
    std::fs::set_permissions(locked.path(), permissions).unwrap();
    if std::fs::write(locked.path().join("probe"), b"").is_err() {
        let started = std::time::Instant::now();
        let e = run(&small(&[]), Some(locked.path()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot save a snapshot here"), "{e}");
        assert!(!e.contains(".part"), "{e}");
        assert!(
            started.elapsed().as_secs_f64() < 1.0,
            "refused before preconditioning"
        );
    }
}
