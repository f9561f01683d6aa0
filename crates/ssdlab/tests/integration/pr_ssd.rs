//! PR-SSD end to end on real traces: every scheme of the reproduction (`experiments/pr-ssd.toml`:
//! baseline, S, M, D, P, SP, MP, DP, PR, SplitAll) replays every committed trace excerpt with the
//! integrity oracle on, and runs a GC-active steady state (preconditioned to 90%, overwritten at
//! random) with the oracle on. The device is the `pr-ssd` preset with 64 blocks per plane instead
//! of 1024 (32 GiB raw), traces folded into it (`host.out_of_range = "wrap"`), so that the
//! oracle's final sweep over every logical page and the steady state's preconditioning stay fast.

use crate::common;

use std::path::Path;

use ssdlab::config::{Config, FlowConfig};
use ssdlab::experiment::spec::Experiment;
use ssdlab::run::simulate;
use ssdlab::trace::columns::ColumnsSpec;
use ssdlab::trace::Caller;
use ssdlab::RunOptions;

/// Each scheme of the reproduction: (label, its overrides of the preset).
fn schemes() -> Vec<(String, Vec<String>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/pr-ssd.toml");
    let e = Experiment::load(&path).unwrap();
    e.configs
        .iter()
        .map(|c| {
            assert_eq!(c.preset, "pr-ssd", "{}", c.label);
            let sets = c.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
            (c.label.clone(), sets)
        })
        .collect()
}

const SMALLER: &[&str] = &["geometry.blocks_per_plane=64", "host.out_of_range=\"wrap\""];

fn config(sets: &[String], more: &[&str]) -> Config {
    let mut all: Vec<String> = sets.to_vec();
    all.extend(SMALLER.iter().chain(more).map(|s| s.to_string()));
    Config::resolve("pr-ssd", None, &all).unwrap()
}

#[test]
fn every_scheme_is_verify_clean_on_every_committed_trace() {
    let schemes = schemes();
    assert_eq!(schemes.len(), 10);
    for (file, format, columns) in common::committed_traces() {
        for (label, sets) in &schemes {
            let mut c = config(sets, &[]);
            let mut flow = FlowConfig::trace(common::trace(file), format, Caller::Toml);
            flow.columns = columns.map(|s| ColumnsSpec::from_cli(s).unwrap());
            c.flows.push(flow);
            let s = common::verified(&c);
            assert!(
                s["integrity"]["checked_reads"].as_u64().unwrap() > 0 || s["requests"]["read"] == 0,
                "{label} on {file}"
            );
            // The schemes are what they say: compression where named, splits only in PR and
            // SplitAll.
            let compressed = s["compression"]["units"]["compressed"].as_u64();
            assert_eq!(
                compressed.is_some(),
                !["baseline", "P"].contains(&label.as_str()),
                "{label} on {file}"
            );
            assert_eq!(
                s.get("split").is_some(),
                ["PR", "SplitAll"].contains(&label.as_str()),
                "{label} on {file}"
            );
        }
    }
}

#[test]
fn every_scheme_is_verify_clean_in_a_gc_active_steady_state() {
    for (label, sets) in schemes() {
        let c = config(
            &sets,
            &[
                "precondition.fill_fraction=0.95",
                "precondition.pattern=\"random\"",
                "precondition.overwrite_fraction=2.0",
                "precondition.trace_footprint=false",
                // Blocks of 48 pages (3 GiB raw), so that a few thousand writes fill blocks.
                "geometry.pages_per_block=48",
                // Random overwrites and reads over most of the logical space, with the Copy
                // workload's content (a movie: mostly incompressible, so the device is full
                // enough for GC; named in the flows before the config resolves, so that its
                // content is laid in); writes of part of a logical page read the rest back first
                // (read-modify-write).
                "flows=[{workload=\"pr-ssd-copy\", generator={requests=3000, working_set_bytes=2147483648}}]",
            ],
        );
        let s = common::verified(&c);
        assert!(
            s["gc"]["invocations"].as_u64().unwrap() > 0,
            "{label}: no GC ran"
        );
        assert!(
            s["write_buffer"]["merge_read_units"].as_u64().unwrap() > 0,
            "{label}: no partial write read its page"
        );
    }
}

/// Every logical page valid, split parts spread over 16 channels of one chip each: the split
/// FTL's placement fills a plane before the others (GC spills whole units to planes with room,
/// but a split unit's parts keep their planes), and preconditioning says the data does not fit
/// instead of cleaning without end (it once did: GC counted a page's packing slack as free and
/// recopied full, loosely packed blocks for nothing).
#[test]
fn a_device_too_full_for_the_split_placement_is_an_error_not_a_hang() {
    let (_, sets) = schemes().into_iter().find(|(l, _)| l == "PR").unwrap();
    let c = config(
        &sets,
        &[
            "geometry.blocks_per_plane=32",
            "geometry.pages_per_block=66",
            "geometry.channels=16",
            "geometry.ways_per_channel=1",
            "precondition.fill_fraction=1.0",
            "precondition.pattern=\"sequential\"",
            "precondition.overwrite_fraction=1.0",
            "precondition.trace_footprint=false",
            "flows=[{workload=\"pr-ssd-copy\", generator={requests=100, working_set_bytes=1073741824}}]",
        ],
    );
    match simulate(&c, &RunOptions::default()) {
        Ok(_) => panic!("a full plane went unnoticed"),
        Err(e) => {
            let e = e.to_string();
            assert!(
                e.contains("does not fit") || e.contains("fills the plane"),
                "{e}"
            )
        }
    }
}

/// PR's split buffer in a write buffer with no timeout: two rows of two 16 KiB partial units,
/// sealed only once both rows are full, so three units can sit in it with nothing to program;
/// with the merge page one unit short as well, a buffer of four units waits for ever (the
/// option-space harness, seed 1966). The smallest buffer the config accepts must complete.
#[test]
fn the_smallest_write_buffer_accepted_without_a_timeout_drains_the_split_buffer() {
    let (_, sets) = schemes().into_iter().find(|(l, _)| l == "PR").unwrap();
    let small_buffer = |units: u32| {
        let mut all: Vec<String> = sets.to_vec();
        all.extend(
            [
                "geometry.page_size_kib=32",
                "ftl.mapping_unit_kib=32",
                "ftl.max_units_per_page=2",
                "ftl.reduction.partial_unit_kib=16",
                "ftl.split={policy=\"decision\", width=2, max_request_kib=4}",
                "ftl.write_buffer_timeout_ns=0",
                "ftl.write_ack=\"buffer\"",
                "host.out_of_range=\"wrap\"",
                "geometry.blocks_per_plane=64",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        all.push(format!("ftl.write_buffer_units={units}"));
        Config::resolve("pr-ssd", None, &all)
    };
    let e = small_buffer(4).unwrap_err().to_string();
    assert!(
        e.contains("ftl.write_buffer_units") && e.contains("split buffer short of full with 3"),
        "{e}"
    );
    let mut c = small_buffer(5).unwrap();
    c.flows.push(FlowConfig::trace(
        common::trace("msr_rsrch_2_first1000writes.csv.gz"),
        Some(ssdlab::trace::TraceFormat::Msr),
        Caller::Toml,
    ));
    // (A write that waits for ever stops the run with an error: `verified` unwraps it.)
    let s = common::verified(&c);
    assert!(
        s["split"]["buffers"].as_u64().unwrap() > 0,
        "{}",
        s["split"]
    );
}

/// Compressed units in pages sealed part full at a write-buffer timeout: each page's unused
/// bytes count as valid while any unit of it is, so a device filled with such pages looked
/// wholly valid to GC, which found no victim, and every write waited for ever (the option-space
/// harness, seed 2791). GC repacks a block whose valid units fit in fewer pages packed anew.
#[test]
fn blocks_of_part_full_compressed_pages_are_repacked() {
    let sets: Vec<String> = [
        "geometry.channels=1",
        "geometry.ways_per_channel=1",
        "geometry.dies_per_way=1",
        "geometry.planes_per_die=2",
        "geometry.blocks_per_plane=64",
        "geometry.pages_per_block=48",
        "geometry.page_size_kib=32",
        "ftl.mapping_unit_kib=4",
        "ftl.reduction={policy=\"compress\", codec=\"zstd\"}",
        "ftl.max_units_per_page=16",
        "ftl.write_buffer_timeout_ns=100000",
        "ftl.write_buffer_units=32",
        "precondition.fill_fraction=1.0",
        "precondition.overwrite_fraction=1.0",
        "host.out_of_range=\"wrap\"",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut c = Config::resolve("pr-ssd", None, &sets).unwrap();
    c.flows.push(FlowConfig::trace(
        common::trace("blkparse_ycsb_btrfs.txt.gz"),
        None,
        Caller::Toml,
    ));
    // (A write that waits for ever stops the run with an error: `verified` unwraps it.)
    let s = common::verified(&c);
    assert!(s["gc"]["invocations"].as_u64().unwrap() > 0, "{}", s["gc"]);
}

/// PR's split FTL beside ROSA's PCM (docs/config.md § Techniques together): units whose
/// addresses fall to PCM are stored there whole, as written; the flash's units that fail to
/// compress are split over its channels (the PCM dies, numbered after the flash's, take no
/// part); level 1 moves read-hot blocks into PCM and leaves their split parts on the flash,
/// copied within their planes. Before, a split buffer's planes were counted over both media's
/// dies, so its pages crowded onto a few flash planes until one was full of valid data; and a
/// split unit's reads made each block holding a part hot, so level 1 moved the parts from block
/// to block for ever.
#[test]
fn the_split_ftl_works_beside_pcm() {
    let (_, sets) = schemes().into_iter().find(|(l, _)| l == "PR").unwrap();
    let c = config(
        &sets,
        &[
            "geometry.pages_per_block=48",
            "geometry.pcm={capacity_share=0.2}",
            "timing.pcm={set=\"pcm3\"}",
            "ftl.placement={policy=\"oblivious\"}",
            "ftl.level1_gc={policy=\"read_intensity\", free_threshold=0.1}",
            "precondition.fill_fraction=0.9",
            "precondition.pattern=\"sequential\"",
            "precondition.overwrite_fraction=1.0",
            "precondition.trace_footprint=false",
            "precondition.write_request_kib=16",
            "flows=[{workload=\"pr-ssd-office\", generator={requests=3000, working_set_bytes=2147483648}}]",
        ],
    );
    let s = common::verified(&c);
    let n = |path: &str| {
        (path.split('.').fold(&s, |v, k| &v[k]))
            .as_u64()
            .unwrap_or(0)
    };
    assert!(
        n("split.buffers") > 0 && n("split.fallbacks") == 0,
        "{}",
        s["split"]
    );
    assert!(n("pcm.in_place_writes") > 0, "{}", s["pcm"]);
    assert!(n("level1_gc.units_to_pcm") > 0, "{}", s["level1_gc"]);
    assert!(n("gc.invocations") > 0, "no GC ran");
}
