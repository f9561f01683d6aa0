//! Every committed real-trace excerpt that this engine's formats read, replayed on the `default`
//! preset with the integrity oracle on; and a determinism check.

use crate::common;

use ssdlab::config::{Config, FlowConfig};
use ssdlab::run::simulate;
use ssdlab::trace::{Caller, TraceFormat};
use ssdlab::RunOptions;

/// Replay one committed trace with the oracle on, on a preset (and an optional config file).
fn replay_with(
    preset: &str,
    file: Option<&str>,
    trace: &str,
    format: TraceFormat,
    sets: &[&str],
) -> serde_json::Value {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let mut config = Config::resolve(preset, file.map(std::path::Path::new), &sets).unwrap();
    config.flows.push(FlowConfig::trace(
        common::trace(trace),
        Some(format),
        Caller::Toml,
    ));
    let opts = RunOptions {
        verify: true,
        request_log: false,
        ..RunOptions::default()
    };
    simulate(&config, &opts).unwrap().summary
}

fn replay(preset: &str, trace: &str, format: TraceFormat, sets: &[&str]) -> serde_json::Value {
    replay_with(preset, None, trace, format, sets)
}

/// (file, format, requests, reads) as listed in traces/PROVENANCE.md.
const TRACES: &[(&str, TraceFormat, u64, u64)] = &[
    ("msr_hm_0_first1000.csv.gz", TraceFormat::Msr, 1000, 508),
    ("msr_wdev_1_full.csv.gz", TraceFormat::Msr, 1055, 0),
    ("msr_wdev_3_full.csv.gz", TraceFormat::Msr, 682, 11),
    ("msr_hm_1_first1000writes.csv.gz", TraceFormat::Msr, 1000, 0),
    (
        "msr_mds_0_first1000writes.csv.gz",
        TraceFormat::Msr,
        1000,
        0,
    ),
    (
        "msr_proj_0_first1000writes.csv.gz",
        TraceFormat::Msr,
        1000,
        1,
    ),
    (
        "msr_rsrch_2_first1000writes.csv.gz",
        TraceFormat::Msr,
        1000,
        0,
    ),
    (
        "umass_websearch1_first24783_mqsim.trace.gz",
        TraceFormat::Mqsim,
        24783,
        24779,
    ),
    ("tpcc_small_mqsim.trace.gz", TraceFormat::Mqsim, 6999, 4381),
];

#[test]
fn every_trace_replays_cleanly_with_verify() {
    for &(file, format, count, reads) in TRACES {
        let s = replay("default", file, format, &[]);
        assert_eq!(s["requests"]["count"], count, "{file}");
        assert_eq!(s["requests"]["read"], reads, "{file}");
        let i = &s["integrity"];
        assert_eq!(i["violations"], 0, "{file}: {i}");
        assert!(i["swept_units"].as_u64().unwrap() > 0, "{file}");
        assert_eq!(
            i["checked_reads"].as_u64().unwrap() > 0,
            reads > 0,
            "{file}"
        );
        // Every read of the trace found its data on flash or in the buffer, never unmapped:
        // the trace footprint was preconditioned.
        assert_eq!(s["read_units"]["unmapped"], 0, "{file}");
        if reads > 0 {
            let mean = s["latency_ns"]["read"]["mean"].as_f64().unwrap();
            assert!(
                mean > 50_000.0,
                "{file}: a flash read costs at least tR, got {mean}"
            );
            assert!(s["raf"].as_f64().unwrap() >= 1.0, "{file}");
        }
        let waf = s["waf"].as_f64();
        if let Some(w) = waf {
            assert!(w >= 1.0, "{file}: WAF {w}");
        }
    }
}

#[test]
fn a_trace_replays_under_gc_pressure_on_a_small_device() {
    // hm_0 spans 12.6 GiB; folded onto the 288 MiB test device, its writes keep GC busy.
    let config_path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml");
    let s = replay_with(
        "default",
        Some(config_path),
        "msr_hm_0_first1000.csv.gz",
        TraceFormat::Msr,
        &[
            "host.out_of_range=\"wrap\"",
            "precondition.fill_fraction=0.95",
            "precondition.pattern=\"random\"",
            "precondition.overwrite_fraction=1.0",
            "host.time_scale=0.01",
        ],
    );
    assert!(s["gc"]["invocations"].as_u64().unwrap() > 0, "{}", s["gc"]);
    assert!(s["gc"]["copied_units"].as_u64().unwrap() > 0);
    assert!(s["waf"].as_f64().unwrap() > 1.0);
    assert_eq!(s["integrity"]["violations"], 0, "{}", s["integrity"]);
    assert!(s["flash_ops"]["read"]["gc"].as_u64().unwrap() > 0);
}

/// Dynamic allocation puts each write on a plane of the least busy die, and planes fill
/// unevenly: here the first plane of each die takes more writes than the second. At 89% full and
/// rewritten, GC keeps every plane at its threshold, and a plane whose valid data fills it cleans
/// without freeing a page: its copies go to the planes holding less than their share of the room
/// (the option-space harness, seed 54040, with 2 channels instead of 8: the spill asked for a
/// plane above its GC threshold, and found none).
#[test]
fn a_plane_dynamic_allocation_filled_sends_its_gc_copies_to_planes_under_their_share() {
    let sets: Vec<String> = [
        "geometry.channels=2",
        "geometry.planes_per_die=2",
        "geometry.blocks_per_plane=64",
        "geometry.pages_per_block=24",
        "geometry.page_size_kib=16",
        "geometry.regions=[{name=\"main\", cell_mode=\"tlc\", blocks_per_plane=48}, \
         {name=\"slc\", cell_mode=\"slc\", blocks_per_plane=0, nop=4}]",
        "timing.slc={tr_ns=25000, tprog_ns=300000, tbers_ns=10000000}",
        "ftl.allocation={policy=\"dynamic\"}",
        "precondition.fill_fraction=0.89",
        "precondition.overwrite_fraction=1.52",
        "host.out_of_range=\"wrap\"",
    ]
    .map(String::from)
    .to_vec();
    let mut config = Config::resolve("melded", None, &sets).unwrap();
    let trace = |name, offset_bytes| {
        let mut flow = FlowConfig::trace(common::trace(name), None, Caller::Toml);
        flow.offset_bytes = offset_bytes;
        flow
    };
    config.flows.push(trace("blkparse_ycsb_btrfs.txt.gz", 0));
    config.flows.push(trace(
        "blkparse_hadoop_java_first5000lines.txt.gz",
        78_852_096,
    ));
    let s = common::verified(&config);
    assert_eq!(s["requests"]["count"], 3208, "{}", s["requests"]);
    assert!(
        s["gc"]["invocations"].as_u64().unwrap() > 1000,
        "{}",
        s["gc"]
    );
}

#[test]
fn two_runs_give_identical_results_except_wall_time() {
    let run = || {
        let mut s = replay(
            "default",
            "tpcc_small_mqsim.trace.gz",
            TraceFormat::Mqsim,
            &[
                "ftl.gc_victim.policy=\"random\"",
                "precondition.fill_fraction=0.1",
            ],
        );
        s.as_object_mut().unwrap().remove("wall_time_s");
        serde_json::to_string(&s).unwrap()
    };
    assert_eq!(run(), run());
}

/// Stream ids go from a trace to each request and into `requests.csv`, which has a `stream`
/// column only when some request has a stream id (logs of runs without streams are as before).
#[test]
fn stream_ids_reach_the_request_log_of_runs_that_have_them() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-streams");
    std::fs::create_dir_all(&dir).unwrap();
    let log_of = |name: &str, trace: &str| {
        let path = dir.join(name);
        std::fs::write(&path, trace).unwrap();
        let out = dir.join(format!("{name}.out"));
        let (code, _, err) = common::ssdlab(&[
            "run",
            "--trace",
            path.to_str().unwrap(),
            "--log-requests",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        std::fs::read_to_string(out.join("requests.csv")).unwrap()
    };
    let log = log_of(
        "streams.csv",
        "arrival_ns,offset_bytes,size_bytes,op,stream\n\
         0,0,4096,write,3\n1000000,8192,4096,write,\n2000000,0,4096,read,65535\n",
    );
    let mut lines = log.lines();
    assert_eq!(
        lines.next(),
        Some("flow,op,offset_bytes,size_bytes,arrival_ns,completion_ns,latency_ns,stream")
    );
    let mut streams: Vec<(u64, &str)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[4].parse().unwrap(), f[7])
        })
        .collect();
    streams.sort();
    let ids: Vec<&str> = streams.iter().map(|s| s.1).collect();
    assert_eq!(ids, ["3", "0", "65535"]);
    let log = log_of(
        "no-streams.csv",
        "arrival_ns,offset_bytes,size_bytes,op,stream\n0,0,4096,write,\n",
    );
    assert_eq!(
        log.lines().next(),
        Some("flow,op,offset_bytes,size_bytes,arrival_ns,completion_ns,latency_ns")
    );
}

/// A trace flow's `stream` rule gives a trace without stream ids (blkparse) one id per extent of
/// the addresses the file gives, before `out_of_range = "wrap"` folds them into the device: the
/// Hadoop capture's writes to one 128 MiB extent are one stream, its journal writes another.
#[test]
fn a_trace_flows_stream_rule_numbers_its_extents_before_folding() {
    use ssdlab::config::StreamRule;
    use ssdlab::trace::{load_trace, LoadOptions};
    let name = "blkparse_hadoop_java_first5000lines.txt.gz";
    let extent = 128 << 20;
    let mut config =
        Config::resolve("melded", None, &["host.out_of_range=wrap".to_string()]).unwrap();
    let mut flow = FlowConfig::trace(
        common::trace(name),
        Some(TraceFormat::Blkparse),
        Caller::Toml,
    );
    flow.stream = Some(StreamRule::PerExtent {
        extent_bytes: extent,
    });
    config.flows.push(flow);
    config.validate().unwrap();
    let opts = RunOptions {
        verify: true,
        request_log: true,
        ..RunOptions::default()
    };
    let result = simulate(&config, &opts).unwrap();
    assert_eq!(result.summary["integrity"]["violations"], 0);
    // The file's own addresses (1,188 GiB apart), read without folding.
    let original = load_trace(
        &common::trace(name),
        &LoadOptions {
            format: Some(TraceFormat::Blkparse),
            ..LoadOptions::default()
        },
    )
    .unwrap();
    let mut want: Vec<(u64, u64, u16)> = original
        .requests
        .iter()
        .map(|r| {
            (
                r.arrival_ns,
                r.size_bytes,
                (r.offset_bytes / extent + 1) as u16,
            )
        })
        .collect();
    let log = result.requests.unwrap();
    let mut got: Vec<(u64, u64, u16)> = log
        .iter()
        .map(|r| (r.arrival_ns, r.size_bytes, r.stream))
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    // Folded into the 36 GiB device, yet the writes keep the ids of their extents on the
    // capture's disk (7,746 for the HDFS block's writeback, 7,443 for the journal).
    let capacity = ssdlab::run::logical_capacity_bytes(&config);
    assert!(log
        .iter()
        .all(|r| r.offset_bytes + r.size_bytes <= capacity));
    let streams: std::collections::BTreeSet<u16> = got.iter().map(|g| g.2).collect();
    assert!(
        streams.contains(&7746) && streams.contains(&7443),
        "{streams:?}"
    );
    // Without the rule every request is stream 0, as blkparse has none.
    config.flows[0].stream = None;
    let plain = simulate(&config, &opts).unwrap();
    assert!(plain.requests.unwrap().iter().all(|r| r.stream == 0));
}

/// A stream rule on a trace that gives ids, or past 16 bits, names the line and field; on a
/// generator flow, or with empty extents, the key.
#[test]
fn a_trace_flows_stream_rule_is_refused_where_it_cannot_apply() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-stream-rule");
    std::fs::create_dir_all(&dir).unwrap();
    let run = |trace: &str, body: &str, rule: &str| {
        let path = dir.join(trace);
        std::fs::write(&path, body).unwrap();
        let flow = format!("flows=[{{trace=\"{}\", stream={rule}}}]", path.display());
        common::ssdlab(&["run", "--set", &flow])
    };
    let (code, _, err) = run(
        "given.csv",
        "arrival_ns,offset_bytes,size_bytes,op,stream\n0,0,4096,write,\n10,4096,4096,write,3\n",
        "{kind=\"per_extent\", extent_bytes=4096}",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("given.csv:3: field `stream`"), "{err}");
    // Byte 65,535 × 4096 is extent 65,536: id 65,536 would not fit.
    let (code, _, err) = run(
        "far.csv",
        "arrival_ns,offset_bytes,size_bytes,op\n0,268431360,4096,write\n",
        "{kind=\"per_extent\", extent_bytes=4096}",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("far.csv:2: field `offset"), "{err}");
    let (code, _, err) = run(
        "zero.csv",
        "arrival_ns,offset_bytes,size_bytes,op\n0,0,4096,write\n",
        "{kind=\"per_extent\", extent_bytes=0}",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("flows[0].stream.extent_bytes"), "{err}");
    let (code, _, err) = common::ssdlab(&[
        "run",
        "--set",
        "flows=[{workload=\"hdfs-writer\", generator={requests=8}, stream={kind=\"per_extent\", extent_bytes=4096}}]",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("flows[0].stream"), "{err}");
}

/// `--log-requests=parquet` writes `requests.parquet` instead of `requests.csv`, the same bytes
/// for the same run (its content against the CSV's: `tests/python/test_api.py`); an unknown
/// format is a usage error.
#[test]
fn the_parquet_request_log_is_deterministic() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-parquet");
    let trace = common::trace("msr_hm_0_first1000.csv.gz");
    let log = |name: &str, flag: &str| {
        let out = dir.join(name);
        let (code, _, err) = common::ssdlab(&[
            "run",
            "--trace",
            trace.to_str().unwrap(),
            flag,
            "--out",
            out.to_str().unwrap(),
        ]);
        (code, err, out)
    };
    let (code, err, a) = log("a", "--log-requests=parquet");
    assert_eq!(code, 0, "{err}");
    let (code, err, b) = log("b", "--log-requests=parquet");
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(a.join("requests.parquet")).unwrap();
    assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
    assert_eq!(bytes, std::fs::read(b.join("requests.parquet")).unwrap());
    assert!(!a.join("requests.csv").exists());
    let (code, err, c) = log("c", "--log-requests=json");
    assert_eq!(code, 2);
    assert!(err.contains("[possible values: csv, parquet]"), "{err}");
    assert!(!c.exists());
}
