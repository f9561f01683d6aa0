//! Bad input gets a clear error naming where and why, and a non-zero exit code; never a panic.

use std::path::Path;

use crate::common;

use common::ssdlab;
use ssdlab::config::Config;

fn err(preset: &str, file: Option<&Path>, sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    match Config::resolve(preset, file, &sets) {
        Ok(_) => panic!("expected an error for {sets:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn unknown_key_is_named() {
    let e = err("default", None, &["ftl.gc_treshold=0.1"]);
    assert!(e.contains("gc_treshold"), "{e}");
    let dir = std::env::temp_dir().join("ssdlab-bad-input");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("typo.toml");
    std::fs::write(&f, "[geometry]\nchanels = 4\n").unwrap();
    let e = err("default", Some(&f), &[]);
    assert!(e.contains("chanels") && e.contains("typo.toml"), "{e}");
}

#[test]
fn impossible_values_name_the_key_and_reason() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["geometry.channels=0"], "geometry.channels", "at least 1"),
        (
            &["host_interface.pcie_generation=6"],
            "host_interface.pcie_generation",
            "1 to 5",
        ),
        (
            &["host_interface.pcie_lanes=3"],
            "host_interface.pcie_lanes",
            "one of [1, 2, 4, 8, 16, 32]",
        ),
        (
            &["host_interface.tlp_max_payload_bytes=100"],
            "host_interface.tlp_max_payload_bytes",
            "one of [128",
        ),
        (
            &["host_interface.protocol=\"sata\""],
            "protocol",
            "sata",
        ),
        (
            &["ftl.overprovisioning_ratio=0.01"],
            "ftl.overprovisioning_ratio",
            "cannot hold the data",
        ),
        (
            &["ftl.overprovisioning_ratio=1.5"],
            "ftl.overprovisioning_ratio",
            "(0, 1)",
        ),
        (
            &["geometry.pages_per_block=100"],
            "geometry.pages_per_block",
            "multiple of 3",
        ),
        (
            &["geometry.codeword_size_bytes=3000"],
            "geometry.codeword_size_bytes",
            "does not divide",
        ),
        (
            &["ftl.mapping_unit_kib=3"],
            "ftl.mapping_unit_kib",
            "does not divide",
        ),
        (
            &[
                "ftl.read_policy.policy=\"subpage\"",
                "ftl.read_policy.tr_by_codewords_ns=[35000, 99000]",
            ],
            "ftl.read_policy.tr_by_codewords_ns",
            "one tR per number of codewords sensed",
        ),
        (
            &[
                "ftl.read_policy.policy=\"subpage\"",
                "ftl.read_policy.tr_by_codewords_ns=[35000, 45000, 55000, 65000, 75000, 85000, 95000, 90000]",
            ],
            "ftl.read_policy.tr_by_codewords_ns",
            "never decrease",
        ),
        (
            &[
                "ftl.read_policy.policy=\"partial\"",
                "ftl.read_policy.unit_kib=3",
            ],
            "ftl.read_policy.unit_kib",
            "whole 2048-byte codewords",
        ),
        (
            &[
                "ftl.read_policy.policy=\"partial\"",
                "ftl.read_policy.unit_kib=16",
            ],
            "ftl.read_policy.unit_kib",
            "two or more parts",
        ),
        (
            &[
                "ftl.read_policy.policy=\"partial\"",
                "ftl.read_policy.tr_reduction=1.2",
            ],
            "ftl.read_policy.tr_reduction",
            "[0, 1)",
        ),
        (
            &["energy.read_power_mw=-1"],
            "energy.read_power_mw",
            "≥ 0",
        ),
        (
            &["ftl.allocation.order=\"CWDX\""],
            "ftl.allocation.order",
            "permutation",
        ),
        (
            &["timing.channel_rate_mts=0.0"],
            "timing.channel_rate_mts",
            "positive",
        ),
        (
            &["ftl.write_buffer_units=1"],
            "ftl.write_buffer_units",
            "at least one page",
        ),
        (
            &["precondition.fill_fraction=1.5"],
            "precondition.fill_fraction",
            "[0, 1]",
        ),
        (
            &[
                "precondition.write_request_kib=16",
                "precondition.write_size={kind=\"fixed\", bytes=4096}",
            ],
            "precondition.write_size",
            "not both",
        ),
        (
            &["precondition.write_size={kind=\"fixed\", bytes=0}"],
            "precondition.write_size.bytes",
            "positive",
        ),
        (
            &["geometry.blocks_per_plane=4000000000"],
            "geometry",
            "exceed the 2^31",
        ),
        (
            &[
                "geometry.channels=4000000000",
                "geometry.ways_per_channel=4000000000",
            ],
            "geometry",
            "2^64",
        ),
        (
            &["ftl.write_ack=\"program\"", "host.mode=\"closed\""],
            "ftl.write_buffer_timeout_ns",
            "closed-loop",
        ),
    ];
    for (sets, key, reason) in cases {
        let e = err("default", None, sets);
        assert!(e.contains(key) && e.contains(reason), "{sets:?} gave: {e}");
    }
    // A missing timing table for a cell mode in use.
    let e = err(
        "default",
        None,
        &["geometry.cell_mode=\"mlc\"", "geometry.pages_per_block=384"],
    );
    assert!(e.contains("timing.mlc"), "{e}");
    // Wrong type and malformed override.
    let e = err("default", None, &["geometry.channels=\"eight\""]);
    assert!(e.contains("channels") || e.contains("invalid type"), "{e}");
    let e = err("default", None, &["no_equals_sign"]);
    assert!(e.contains("key=value"), "{e}");
    let e = err("nosuch", None, &[]);
    assert!(e.contains("unknown preset") && e.contains("default"), "{e}");
}

/// A read, program or erase time of 0 in a cell mode that blocks use is an error naming the key:
/// the die's work would be free. ECC decode and firmware time may be 0 (melded has both), and a
/// table of a mode no block uses is not looked at.
#[test]
fn zero_nand_times_of_a_cell_mode_in_use_are_rejected() {
    let in_use = [
        ("default", "tlc.tr_lsb_ns"),
        ("default", "tlc.tr_csb_ns"),
        ("default", "tlc.tr_msb_ns"),
        ("default", "tlc.tprog_lsb_ns"),
        ("default", "tlc.tprog_csb_ns"),
        ("default", "tlc.tprog_msb_ns"),
        ("default", "tlc.tbers_ns"),
        // ipu: an MLC region and an SLC region.
        ("ipu", "mlc.tr_lsb_ns"),
        ("ipu", "mlc.tr_msb_ns"),
        ("ipu", "mlc.tprog_lsb_ns"),
        ("ipu", "mlc.tprog_msb_ns"),
        ("ipu", "mlc.tbers_ns"),
        ("ipu", "slc.tr_ns"),
        ("ipu", "slc.tprog_ns"),
        ("ipu", "slc.tbers_ns"),
    ];
    for (preset, key) in in_use {
        let set = format!("timing.{key}=0");
        let e = err(preset, None, &[&set]);
        assert!(
            e.contains(&format!("`timing.{key}`")) && e.contains("at least 1 (got 0)"),
            "{preset} {set} gave: {e}"
        );
    }
    let sets: Vec<String> = [
        "timing.ecc_decode_ns=0",
        "timing.firmware_ns=0",
        "timing.slc={tr_ns=0, tprog_ns=0, tbers_ns=0}",
    ]
    .map(String::from)
    .to_vec();
    Config::resolve("default", None, &sets).expect("zero decode, firmware and unused times");
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    let (code, out, err) = ssdlab(&["run", "--trace", &msr, "--set", "timing.tlc.tprog_msb_ns=0"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("`timing.tlc.tprog_msb_ns`"), "{err}");
}

/// `--mode closed` with `host.queue_depth = 0` and no `--queue-depth` would keep no request
/// outstanding and replay nothing; in open mode the queue depth is not used, so 0 is fine there.
#[test]
fn closed_loop_replay_at_a_zero_host_queue_depth_is_rejected() {
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    let run = |mode: &str| {
        ssdlab(&[
            "run",
            "--trace",
            &msr,
            "--mode",
            mode,
            "--set",
            "host.queue_depth=0",
            "--json",
        ])
    };
    let (code, out, err) = run("closed");
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("`host.queue_depth`") && err.contains("flows[0] replays closed-loop"),
        "{err}"
    );
    let (code, out, err) = run("open");
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["requests"]["count"], 1000);
    // A generator with closed-loop arrivals brings its own depth.
    let (code, _, err) = ssdlab(&[
        "run",
        "--workload",
        "hdfs-reader",
        "--set",
        "host.queue_depth=0",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn cli_reports_bad_traces_with_file_line_and_field() {
    let dir = std::env::temp_dir().join("ssdlab-bad-input");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("neg.csv");
    std::fs::write(
        &f,
        "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514700,hm,0,Read,4096,-4096,10\n",
    )
    .unwrap();
    let (code, out, err) = ssdlab(&["run", "--trace", f.to_str().unwrap(), "--format", "msr"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("neg.csv:2") && err.contains("Size") && err.contains("-4096"),
        "{err}"
    );
    // Malformed line (too few fields) in an MQSim trace.
    let f = dir.join("short.trace");
    std::fs::write(&f, "0 0 8 8 1\n100 0 8\n").unwrap();
    let (code, _, err) = ssdlab(&["run", "--trace", f.to_str().unwrap(), "--format", "mqsim"]);
    assert_eq!(code, 2);
    assert!(err.contains("short.trace:2"), "{err}");
    // An address past the logical capacity, then the same folded with wrap.
    let f = dir.join("far.trace");
    std::fs::write(&f, "0 0 99999999999 8 1\n").unwrap();
    let (code, _, err) = ssdlab(&["run", "--trace", f.to_str().unwrap(), "--format", "mqsim"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("far.trace:1") && err.contains("start_sector"),
        "{err}"
    );
    let (code, out, err) = ssdlab(&[
        "run",
        "--trace",
        f.to_str().unwrap(),
        "--format",
        "mqsim",
        "--set",
        "host.out_of_range=wrap",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("--json prints only JSON");
    assert_eq!(v["requests"]["count"], 1);
    // A request ending past 2^64 bytes has no address to fold: `run` with wrap refuses it as
    // `trace-info` does, with the same file, line and field.
    let f = dir.join("past_2_64.csv");
    std::fs::write(
        &f,
        "128166385295514663,hm,0,Write,9056014336,2048,2833\n\
         128166385295514700,hm,0,Write,18446744073709547520,8192,10\n",
    )
    .unwrap();
    let path = f.to_str().unwrap();
    let (code, _, info_err) = ssdlab(&["trace-info", path, "--format", "msr"]);
    assert_eq!(code, 2, "{info_err}");
    let wrap = ["--set", "host.out_of_range=wrap"];
    let (code, _, run_err) =
        ssdlab(&[&["run", "--trace", path, "--format", "msr"][..], &wrap].concat());
    assert_eq!(code, 2, "{run_err}");
    assert!(
        run_err.contains("past_2_64.csv:2: field `Offset`"),
        "{run_err}"
    );
    assert!(run_err.contains("past 2^64"), "{run_err}");
    assert_eq!(run_err, info_err);
}

#[test]
fn cli_refuses_stream_ids_past_16_bits_naming_file_line_and_field() {
    let dir = std::env::temp_dir().join("ssdlab-bad-input");
    std::fs::create_dir_all(&dir).unwrap();
    // NVMe's stream identifier is 16 bits: 65,535 is the last id.
    let native = dir.join("streams.csv");
    std::fs::write(
        &native,
        "arrival_ns,offset_bytes,size_bytes,op,stream\n0,0,4096,write,65535\n10,4096,4096,write,65536\n",
    )
    .unwrap();
    let (code, out, err) = ssdlab(&["run", "--trace", native.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("streams.csv:3: field `stream`") && err.contains("65536"),
        "{err}"
    );
    let columns = dir.join("streams.txt");
    std::fs::write(&columns, "0 0 4096 W 7\n10 4096 4096 W 70000\n").unwrap();
    let spec = "time_ns=1 offset_bytes=2 size_bytes=3 op=4 write=W stream=5";
    let (code, _, err) = ssdlab(&[
        "run",
        "--trace",
        columns.to_str().unwrap(),
        "--columns",
        spec,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("streams.txt:2: field `stream`") && err.contains("70000"),
        "{err}"
    );
}

#[test]
fn cli_usage_errors_and_help() {
    let (code, out, _) = ssdlab(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("run") && out.contains("presets") && out.contains("bench"));
    let (code, _, err) = ssdlab(&["run", "--no-such-flag"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = ssdlab(&["run", "--preset", "default"]);
    assert_eq!(code, 2);
    assert!(err.contains("nothing to replay"), "{err}");
    let (code, _, err) = ssdlab(&["run", "--workload", "no-such-workload"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown workload `no-such-workload`") && err.contains("spread-kv"),
        "{err}"
    );
    let (code, out, _) = ssdlab(&["workloads"]);
    assert_eq!(code, 0);
    assert!(out.contains("spread-kv") && out.contains("pr-ssd-db") && out.contains("hdfs-reader"));
    let (code, out, _) = ssdlab(&["presets"]);
    assert_eq!(code, 0);
    for p in [
        "default", "pr-ssd", "spread", "ipu", "rosa", "melded", "composed", "mqsim",
    ] {
        assert!(out.contains(p), "{out}");
    }
    let (code, out, _) = ssdlab(&["presets", "--show", "spread"]);
    assert_eq!(code, 0);
    assert!(out.contains("[geometry]"));
    // `report` is listed, and built by the Python package: the bare binary says where.
    let (_, out, _) = ssdlab(&["--help"]);
    assert!(out.contains("report"), "{out}");
    let (code, _, err) = ssdlab(&["report", "--out", "site"]);
    assert_eq!(code, 2);
    assert!(err.contains("python -m ssdlab.report"), "{err}");
}

#[test]
fn impossible_runs_stop_with_a_reason_not_a_hang() {
    let dir = std::env::temp_dir().join("ssdlab-bad-input");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("read.trace");
    std::fs::write(&f, "0 0 8 8 1\n").unwrap();
    let small = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml");
    // A read of a never-written unit with unmapped_read = "error".
    let (code, _, err) = ssdlab(&[
        "run",
        "--config",
        small,
        "--trace",
        f.to_str().unwrap(),
        "--format",
        "mqsim",
        "--set",
        "ftl.unmapped_read=\"error\"",
        "--set",
        "precondition.trace_footprint=false",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("never written") && err.contains("unit 1"),
        "{err}"
    );
    // More data than the region host writes go to can hold (a small SLC region): rejected
    // before the run instead of failing (or looping) half way.
    let (code, _, err) = ssdlab(&[
        "run", "--config", small, "--trace", f.to_str().unwrap(), "--format", "mqsim",
        "--set", "geometry.regions=[{name=\"slc\", cell_mode=\"slc\", blocks_per_plane=16}, {name=\"main\", cell_mode=\"tlc\", blocks_per_plane=0}]",
        "--set", "timing.slc={tr_ns=20000, tprog_ns=200000, tbers_ns=2000000}",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("does not fit in region `slc`")
            && err.contains("`geometry.regions[0].blocks_per_plane`"),
        "{err}"
    );
}

#[test]
fn a_zero_length_request_at_the_end_of_the_device_is_refused_not_a_panic() {
    use ssdlab::sim::{Flow, RunOptions, Simulation};
    use ssdlab::trace::{Op, TraceRequest};
    let config = Config::resolve("spread", None, &[]).unwrap();
    let capacity = ssdlab::run::logical_capacity_bytes(&config);
    let r = TraceRequest {
        arrival_ns: 0,
        offset_bytes: capacity,
        size_bytes: 0,
        op: Op::Read,
        stream: 0,
    };
    let flow = Flow::new("z".into(), vec![r], config.host.mode, 1, 1.0, 0);
    let e = Simulation::new(config, vec![flow], RunOptions::default())
        .err()
        .map(|e| e.to_string());
    assert!(
        e.as_deref().is_some_and(|e| e.contains("past the logical")),
        "{e:?}"
    );
}

fn committed_trace(name: &str) -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/").to_string() + name
}

#[test]
fn cli_trace_info_prints_text_or_only_json() {
    let fiu = committed_trace("fiu_mail_cheetah_day2_first2000.blkparse.gz");
    let (code, out, err) = ssdlab(&["trace-info", &fiu, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("--json prints only JSON");
    for key in [
        "requests",
        "read_ratio",
        "read_bytes_mean",
        "write_bytes_mean",
        "address_span_bytes",
        "time_span_ns",
        "size_histogram",
        "inter_arrival_ns",
        "reaccess",
    ] {
        assert!(v.get(key).is_some(), "no key {key} in {out}");
    }
    assert_eq!(v["format"], "fiu");
    assert_eq!(v["requests"], 2000);
    assert_eq!(v["time_span_ns"], 2_919_340_318u64);
    assert_eq!(v["fingerprints"]["distinct"], 1412);
    let (code, out, _) = ssdlab(&["trace-info", &fiu]);
    assert_eq!(code, 0);
    assert!(out.contains("2000 (1982 read, 18 write, 0 trim)"), "{out}");
    // blkparse: the event option; an ambiguous file: exit 2 naming the candidates.
    let btrfs = committed_trace("blkparse_ycsb_btrfs.txt.gz");
    let (code, out, _) = ssdlab(&["trace-info", &btrfs, "--blkparse-event", "d", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["requests"], 1824);
    let tpcc = committed_trace("tpcc_small_mqsim.trace.gz");
    let (code, out, err) = ssdlab(&["trace-info", &tpcc]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("mqsim, ssdsim") && err.contains("--format"),
        "{err}"
    );
    let (code, _, err) = ssdlab(&["trace-info", &tpcc, "--format", "mqsim"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn cli_convert_writes_native_and_disksim_that_read_back() {
    let dir = std::env::temp_dir().join("ssdlab-bad-input");
    std::fs::create_dir_all(&dir).unwrap();
    let spc = committed_trace("umass_websearch1_first10.spc.gz");
    let native = dir.join("websearch.csv");
    let (code, _, err) = ssdlab(&[
        "convert",
        &spc,
        "--to",
        "native",
        "-o",
        native.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&native).unwrap();
    assert!(
        text.starts_with("arrival_ns,offset_bytes,size_bytes,op\n0,336756736,8192,read\n"),
        "{text}"
    );
    let disksim = dir.join("websearch.disksim");
    let (code, _, err) = ssdlab(&[
        "convert",
        native.to_str().unwrap(),
        "--to",
        "disksim",
        "-o",
        disksim.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&disksim).unwrap();
    assert!(
        text.starts_with("0.000000 0 657728 16 1\n0.152000 0 "),
        "{text}"
    );
    // A trim cannot be written as DiskSim: exit 2 with the reason.
    let trim = dir.join("trim.csv");
    std::fs::write(
        &trim,
        "arrival_ns,offset_bytes,size_bytes,op\n0,0,4096,trim\n",
    )
    .unwrap();
    let (code, _, err) = ssdlab(&[
        "convert",
        trim.to_str().unwrap(),
        "--to",
        "disksim",
        "-o",
        disksim.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("trim"), "{err}");
}

#[test]
fn cli_run_detects_the_format_and_records_it() {
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    let (code, out, err) = ssdlab(&["run", "--trace", &msr, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["requests"]["count"], 1000);
    assert_eq!(v["config"]["flows"][0]["format"], "msr");
}

/// A cache of more than it can ever hold (the whole mapping table, the logical capacity) is
/// capped at that and says so, without allocating its nominal size: 8 GiB and 64 GiB of CMT
/// aborted the process asking for them, `capacity_kib` past u64::MAX bytes overflowed.
#[test]
fn caches_larger_than_they_can_fill_are_capped_not_allocated() {
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    let cases = [
        (
            "ftl.mapping_cache={policy=\"demand\", capacity_kib=8388608}",
            "mapping_cache",
        ),
        (
            "ftl.mapping_cache={policy=\"demand\", capacity_kib=67108864}",
            "mapping_cache",
        ),
        (
            "ftl.mapping_cache={policy=\"demand\", capacity_kib=9223372036854775807}",
            "mapping_cache",
        ),
        (
            "data_cache={policy=\"read\", capacity_kib=9223372036854775807}",
            "data_cache",
        ),
    ];
    for (set, section) in cases {
        let (code, out, err) = ssdlab(&["run", "--set", set, "--trace", &msr, "--json"]);
        assert_eq!(code, 0, "{set}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["requests"]["count"], 1000, "{set}");
        assert_eq!(v[section]["capped"], true, "{set}: {}", v[section]);
    }
}

#[test]
fn bench_reports_where_its_time_went_when_asked() {
    let args = [
        "bench",
        "--requests",
        "2000",
        "--scenario",
        "fresh",
        "--json",
    ];
    let (code, out, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("--json prints only JSON");
    assert!(v[0].get("event_costs").is_none(), "only when asked");
    let (code, out, err) = ssdlab(&[&args[..], &["--event-costs"]].concat());
    if !cfg!(feature = "event-costs") {
        assert_eq!(code, 2);
        assert!(err.contains("--features event-costs"), "{err}");
        assert!(out.is_empty());
        return;
    }
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("--json prints only JSON");
    let rows = v[0]["event_costs"].as_array().expect("event_costs rows");
    let count = |work: &str| {
        rows.iter()
            .find(|r| r["work"] == work)
            .map_or(0, |r| r["count"].as_u64().unwrap())
    };
    assert_eq!(
        count("read request arrives") + count("write or trim arrives"),
        2000
    );
    assert_eq!(
        count("pop the next event"),
        v[0]["events"].as_u64().unwrap()
    );
    assert_eq!(
        count("host read: sensing ends"),
        v[0]["flash_ops"]["read"]["host"].as_u64().unwrap()
    );
}

/// PR-SSD's keys (docs/compression.md): an unknown codec or scheme policy, a merge limit of 0
/// or past 64, a split width the channels or the page cannot hold, content with no files.
#[test]
fn compression_and_split_mistakes_name_the_key() {
    let pr = |more: &[&str]| {
        let mut sets = vec![
            "ftl.reduction.policy=\"compress\"",
            "ftl.reduction.codec=\"dpc\"",
            "ftl.max_units_per_page=12",
        ];
        sets.extend(more);
        err("pr-ssd", None, &sets)
    };
    let cases: Vec<(String, &str, &str)> = vec![
        (
            pr(&["ftl.reduction.codec=\"lzma\""]),
            "ftl.reduction.codec",
            "lzma",
        ),
        (
            err("pr-ssd", None, &["ftl.reduction.policy=\"zip\""]),
            "policy",
            "zip",
        ),
        (
            pr(&["ftl.split.policy=\"sometimes\""]),
            "policy",
            "sometimes",
        ),
        (
            pr(&["ftl.max_units_per_page=0"]),
            "ftl.max_units_per_page",
            "1 to 64",
        ),
        (
            pr(&["ftl.max_units_per_page=65"]),
            "ftl.max_units_per_page",
            "64",
        ),
        (
            pr(&["ftl.split.policy=\"all\"", "ftl.split.width=16"]),
            "ftl.split.width",
            "channels",
        ),
        (
            pr(&["ftl.split.policy=\"all\"", "ftl.split.width=2"]),
            "ftl.split.width",
            "do not make",
        ),
        (
            err("pr-ssd", None, &["ftl.split.policy=\"all\""]),
            "ftl.split.policy",
            "compress",
        ),
        (
            pr(&["ftl.reduction.failure_threshold_saving=1.0"]),
            "ftl.reduction.failure_threshold_saving",
            "[0, 1)",
        ),
        (
            pr(&["ftl.reduction.partial_unit_kib=3"]),
            "ftl.reduction.partial_unit_kib",
            "divide",
        ),
    ];
    for (e, key, why) in &cases {
        assert!(e.contains(key) && e.contains(why), "{key}: {e}");
    }
    // A content directory without a file: exit 2, naming the key and the path.
    let empty = tempfile::tempdir().unwrap();
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    let (code, _, e) = ssdlab(&[
        "run",
        "--preset",
        "pr-ssd",
        "--trace",
        &msr,
        "--set",
        "ftl.reduction={policy=\"compress\", codec=\"dpc\"}",
        "--set",
        "ftl.max_units_per_page=12",
        "--set",
        &format!("content.dir=\"{}\"", empty.path().display()),
    ]);
    assert_eq!(code, 2, "{e}");
    assert!(
        e.contains("content") && e.contains(&empty.path().display().to_string()),
        "{e}"
    );
}

#[test]
fn ipu_mistakes_name_the_key() {
    let cache = [
        "ftl.placement={policy=\"cache\", region=\"slc\"}",
        "ftl.migration={policy=\"evict\", from_region=\"slc\", to_region=\"main\"}",
    ];
    let ipu = |more: &[&str]| {
        let mut sets = cache.to_vec();
        sets.extend(more);
        err("ipu", None, &sets)
    };
    let regions = |slc_blocks: u32, nop: u32| {
        format!(
            "geometry.regions=[{{name=\"main\", cell_mode=\"mlc\", blocks_per_plane={}}}, \
             {{name=\"slc\", cell_mode=\"slc\", blocks_per_plane={slc_blocks}, nop={nop}}}]",
            2048 - slc_blocks
        )
    };
    let cases: Vec<(String, &str, &str)> = vec![
        (
            ipu(&[&regions(102, 0)]),
            "geometry.regions[1].nop",
            "1 (whole pages) to 255",
        ),
        (
            ipu(&[&regions(1, 4)]),
            "region `slc` has 1 blocks per plane",
            "GC keeps free",
        ),
        (
            err(
                "ipu",
                None,
                &["ftl.placement={policy=\"tiers\", region=\"slc\"}"],
            ),
            "ftl.placement.policy",
            "tiers",
        ),
        (
            ipu(&["reliability.model=\"gaussian\""]),
            "reliability.model",
            "gaussian",
        ),
        (
            ipu(&["reliability.slc.epsilon=-1"]),
            "reliability.slc.epsilon",
            "at least 0",
        ),
        (
            ipu(&["reliability.retry_error_divisor=1.0"]),
            "reliability.retry_error_divisor",
            "above 1",
        ),
        (
            ipu(&["reliability.ecc_max_decode_ns=100"]),
            "reliability.ecc_max_decode_ns",
            "below",
        ),
        (
            err(
                "default",
                None,
                &[
                    "reliability.model=\"power_law\"",
                    "reliability.ecc_min_decode_ns=1",
                    "reliability.ecc_max_decode_ns=2",
                    "reliability.correctable_bits_per_codeword=8",
                    "reliability.max_read_retries=1",
                    "reliability.retry_error_divisor=2.0",
                ],
            ),
            "reliability.tlc",
            "give its RBER parameters",
        ),
    ];
    for (e, key, reason) in cases {
        assert!(e.contains(key) && e.contains(reason), "{key}: {e}");
    }
}

/// The `ipu` preset's regions with an SLC-mode region whose pages take four programs, and the
/// SLC timing a preset without one needs.
fn slc_regions(main_mode: &str, main_blocks: u32, slc_blocks: u32) -> [String; 2] {
    [
        format!(
            "geometry.regions=[{{name=\"main\", cell_mode=\"{main_mode}\", \
             blocks_per_plane={main_blocks}}}, {{name=\"slc\", cell_mode=\"slc\", \
             blocks_per_plane={slc_blocks}, nop=4}}]"
        ),
        "timing.slc={tr_ns=25000, tprog_ns=300000, tbers_ns=10000000}".to_string(),
    ]
}

/// A technique that could not act in the device it is given is refused, naming its key and why
/// (issue 30 §3), instead of being accepted and doing nothing.
#[test]
fn what_cannot_act_is_refused_naming_the_key() {
    let cache = "ftl.placement={policy=\"cache\", region=\"slc\"}";
    let evict = "ftl.migration={policy=\"evict\", from_region=\"slc\", to_region=\"main\"}";
    let with = |preset: &str, base: &[String], more: &[&str]| {
        let mut sets: Vec<&str> = base.iter().map(String::as_str).collect();
        sets.extend(more);
        err(preset, None, &sets)
    };
    let ipu = slc_regions("mlc", 1946, 102);
    let cases: Vec<(String, &str, &str)> = vec![
        // Compression's two lanes in a buffer too small to fill either, with no timeout (the
        // option-space harness: every write waited for ever).
        (
            err(
                "default",
                None,
                &[
                    "ftl.reduction={policy=\"compress\", codec=\"dpc\"}",
                    "ftl.max_units_per_page=8",
                    "ftl.write_buffer_units=8",
                ],
            ),
            "`ftl.write_buffer_units`",
            "ftl.write_buffer_timeout_ns",
        ),
        // Zero-filtered partial units the codecs cannot read (the harness: nothing compressed).
        (
            err(
                "default",
                None,
                &[
                    "ftl.reduction={policy=\"compress\", codec=\"dpc\", partial_zero_filter=true, partial_unit_kib=2}",
                    "ftl.max_units_per_page=8",
                ],
            ),
            "`ftl.reduction.partial_unit_kib`",
            "whole 4 KiB input units",
        ),
        // More slots than units a page holds, without compression.
        (
            err("default", None, &["ftl.max_units_per_page=8"]),
            "`ftl.max_units_per_page`",
            "more than the flash holds",
        ),
        // Partial programs on pages of one unit (pr-ssd: 16 KiB units; melded: 4 KiB pages).
        (
            with(
                "pr-ssd",
                &slc_regions("tlc", 960, 64),
                &[cache, evict, "ftl.partial_program.policy=\"share\""],
            ),
            "`ftl.partial_program.policy`",
            "holds one 16 KiB mapping unit",
        ),
        (
            with(
                "melded",
                &slc_regions("tlc", 448, 64),
                &[cache, evict, "ftl.partial_program.policy=\"intra_page_update\""],
            ),
            "`ftl.partial_program.policy`",
            "holds one 4 KiB mapping unit",
        ),
        // Partial programs or migration where no write reaches (single_region placement).
        (
            with("ipu", &ipu, &["ftl.partial_program.policy=\"share\""]),
            "`ftl.partial_program.policy`",
            "no host write reaches",
        ),
        (
            with("ipu", &ipu, &[evict]),
            "`ftl.migration.from_region`",
            "no write reaches region `slc`",
        ),
        // IPU and MGA while the write buffer programs only full pages.
        (
            with(
                "ipu",
                &ipu,
                &[cache, evict, "ftl.partial_program.policy=\"intra_page_update\"", "ftl.write_buffer_timeout_ns=0", "ftl.write_ack=\"buffer\""],
            ),
            "`ftl.partial_program.policy`",
            "set ftl.write_buffer_timeout_ns above 0",
        ),
        (
            with(
                "default",
                &slc_regions("tlc", 640, 43),
                &[cache, evict, "ftl.partial_program={policy=\"share\", merge_threshold_pages=2}"],
            ),
            "`ftl.partial_program.policy`",
            "set ftl.write_buffer_timeout_ns above 0",
        ),
        // An empty region name.
        (
            err("default", None, &["geometry.regions=[{name=\"\", cell_mode=\"tlc\"}]"]),
            "`geometry.regions[0].name`",
            "is empty",
        ),
        // Found by the sweep: keys that act only with others.
        (
            with("ipu", &ipu, &[cache, evict, "ftl.partial_program={policy=\"share\", merge_threshold_pages=4}"]),
            "`ftl.partial_program.merge_threshold_pages`",
            "never merges",
        ),
        (
            err("default", None, &["ftl.gc_victim.policy=\"isr\""]),
            "`ftl.gc_victim.policy`",
            "picks greedy's victims",
        ),
        (
            err("spread", None, &["scheduler.multiplane=true"]),
            "`scheduler.multiplane`",
            "a die has one plane",
        ),
        (
            err("pr-ssd", None, &["scheduler.suspension={policy=\"for_reads\", erase_suspend_ns=20000}"]),
            "`scheduler.suspension`",
            "set read_priority = true",
        ),
        (
            err("default", None, &["scheduler.suspension={policy=\"for_reads\"}"]),
            "`scheduler.suspension`",
            "suspends neither programs nor erases",
        ),
        (
            err("default", None, &["scheduler.suspension={policy=\"for_reads\", program_suspend_ns=1, max_per_operation=0}"]),
            "`scheduler.suspension.max_per_operation`",
            "at least 1",
        ),
        (
            err("default", None, &["scheduler.suspension={policy=\"none\", program_suspend_ns=1}"]),
            "program_suspend_ns",
            "unknown field",
        ),
        (
            err("default", None, &["ftl.mapping_cache={policy=\"demand\", capacity_kib=0}"]),
            "`ftl.mapping_cache.capacity_kib`",
            "at least 1",
        ),
        (
            err("default", None, &["ftl.mapping_cache={policy=\"demand\", capacity_kib=64, translation_entry_bytes=8192}"]),
            "`ftl.mapping_cache.translation_entry_bytes`",
            "too small for an entry",
        ),
        (
            err("default", None, &["ftl.mapping_cache={policy=\"all\", capacity_kib=64}"]),
            "capacity_kib",
            "unknown field",
        ),
        (
            err("default", None, &["data_cache={policy=\"read\", capacity_kib=1}"]),
            "`data_cache.capacity_kib`",
            "at least one mapping unit",
        ),
        (
            err("rosa", None, &["data_cache={policy=\"write\"}"]),
            "`data_cache.policy`",
            "choose one",
        ),
        (
            err("default", None, &["data_cache={policy=\"off\", dram={clock_mhz=800}}"]),
            "dram",
            "unknown field",
        ),
        (
            err("default", None, &["data_cache={policy=\"write\", dram={bus_bytes=0}}"]),
            "`data_cache.dram.bus_bytes`",
            "at least 1",
        ),
        (
            err("rosa", None, &["ftl.write_buffer_timeout_ns=1"]),
            "`ftl.write_buffer_timeout_ns`",
            "holds one mapping unit",
        ),
        (
            err("rosa", None, &["geometry.codeword_size_bytes=4096", "ftl.read_policy.policy=\"dma\""]),
            "`ftl.read_policy.policy`",
            "use `full`",
        ),
        (
            err(
                "pr-ssd",
                None,
                &["ftl.reduction={policy=\"compress\", codec=\"dpc\", partial_zero_filter=true, partial_unit_kib=16}", "ftl.max_units_per_page=12"],
            ),
            "`ftl.reduction.partial_zero_filter`",
            "is the whole mapping unit",
        ),
    ];
    for (e, key, why) in &cases {
        assert!(e.contains(key) && e.contains(why), "{key}: {e}");
    }
    // The CLI: exit code 2 and the key.
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    for sets in [
        vec!["ftl.gc_victim={policy=\"greedy\", wieght=1}"],
        vec!["ftl.max_units_per_page=8"],
        vec!["geometry.regions=[{name=\"\", cell_mode=\"tlc\"}]"],
    ] {
        let mut args = vec!["run", "--trace", &msr];
        for s in &sets {
            args.extend(["--set", s]);
        }
        let (code, out, e) = ssdlab(&args);
        assert_eq!(code, 2, "{sets:?}: {e}");
        assert!(out.is_empty());
        assert!(e.contains("wieght") || e.contains("config key `"), "{e}");
    }
    // A flow's queue depth in open replay, its time scale in closed-loop replay.
    let scaled = format!("flows=[{{trace=\"{msr}\", time_scale=0.5}}]");
    for (args, key) in [
        (
            vec!["--trace", &msr, "--queue-depth", "8"],
            "`flows[0].queue_depth`",
        ),
        (
            vec!["--set", "host.mode=\"closed\"", "--set", &scaled],
            "`flows[0].time_scale`",
        ),
    ] {
        let (code, _, e) = ssdlab(&[&["run"], &args[..]].concat());
        assert_eq!(code, 2, "{e}");
        assert!(e.contains(key), "{e}");
    }
    // Writes acknowledged on program, no buffer timeout, and a closed-loop flow (here a
    // generator's closed arrivals, the host open): its outstanding writes can all wait in partly
    // filled pages for writes it holds back.
    let (code, _, e) = ssdlab(&[
        "run",
        "--preset",
        "default",
        "--set",
        "ftl.write_ack=\"program\"",
        "--set",
        "ftl.write_buffer_timeout_ns=0",
        "--set",
        "flows=[{ generator = { arrival = { kind = \"closed\", queue_depth = 8 }, requests = 100, read_fraction = 0.0, working_set_bytes = 1048576, size = { kind = \"fixed\", bytes = 4096 } } }]",
    ]);
    assert_eq!(code, 2, "{e}");
    assert!(
        e.contains("`ftl.write_buffer_timeout_ns`") && e.contains("closed-loop"),
        "{e}"
    );
    // Pages of one unit never wait for more: closed-loop replay acknowledged on program needs no
    // buffer timeout there (it was refused), and acts.
    Config::resolve("rosa", None, &["host.mode=\"closed\"".to_string()]).expect("rosa, closed");
    // Unless they are laid out along wordlines: a page of one unit is held for its turn, and its
    // write, unacknowledged, holds back the stream's next (the option-space harness, seed 66174,
    // ran until no event was left). A timeout is then needed, and accepted.
    let wordlines = |timeout_ns: u32| {
        Config::resolve(
            "spread",
            None,
            &[
                "geometry.page_size_kib=4",
                "geometry.program_order=\"shadow\"",
                "ftl.host_streams={policy=\"wordlines\", max_open=2}",
                "ftl.write_ack=\"program\"",
                "host.mode=\"closed\"",
            ]
            .map(String::from)
            .into_iter()
            .chain([format!("ftl.write_buffer_timeout_ns={timeout_ns}")])
            .collect::<Vec<_>>(),
        )
    };
    let e = wordlines(0).unwrap_err().to_string();
    assert!(
        e.contains("`ftl.write_buffer_timeout_ns`") && e.contains("wordline order"),
        "{e}"
    );
    wordlines(100_000).expect("a timeout for pages held for their turn");
}

/// A cache in the high-density region evicting to the small SLC-mode one: the data settles
/// where GC moves it, which cannot hold it (preconditioning used to stop half way, exit 1).
#[test]
fn data_that_settles_in_a_region_too_small_for_it_is_refused() {
    let device = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/ipu/device.toml"
    );
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    let run = |from: &str, to: &str| {
        ssdlab(&[
            "run",
            "--preset",
            "ipu",
            "--config",
            device,
            "--trace",
            &msr,
            "--set",
            &format!("ftl.placement={{policy=\"cache\", region=\"{from}\"}}"),
            "--set",
            &format!(
                "ftl.migration={{policy=\"evict\", from_region=\"{from}\", to_region=\"{to}\"}}"
            ),
            "--json",
        ])
    };
    let (code, out, e) = run("main", "slc");
    assert_eq!(code, 2, "{e}");
    assert!(out.is_empty());
    assert!(
        e.contains("config key `ftl.migration.to_region`")
            && e.contains("does not fit in region `slc`")
            && e.contains("GC moves the data of `main` there"),
        "{e}"
    );
    // The cache the other way round settles its data in `main`, which holds it.
    let sets = [
        "ftl.placement={policy=\"cache\", region=\"slc\"}".to_string(),
        "ftl.migration={policy=\"evict\", from_region=\"slc\", to_region=\"main\"}".to_string(),
    ];
    Config::resolve("ipu", Some(Path::new(device)), &sets).expect("a cache in slc");
}

/// A limit several keys make is blamed on the key the user set, naming the others; a type
/// error inside a policy table names the whole key; a config file's error, its line.
#[test]
fn errors_name_the_key_that_was_given_and_where() {
    let e = err("ipu", None, &["ftl.gc_reserved_blocks=200"]);
    assert!(
        e.starts_with("config key `ftl.gc_reserved_blocks`")
            && e.contains("ftl.gc_threshold = 0.05"),
        "{e}"
    );
    let e = err("default", None, &["ftl.gc_threshold=0.9"]);
    assert!(
        e.starts_with("config key `ftl.gc_threshold`")
            && e.contains("ftl.overprovisioning_ratio = 0.07")
            && e.contains("lower it to at most 0.064"),
        "{e}"
    );
    let e = err("default", None, &["ftl.overprovisioning_ratio=0.01"]);
    assert!(
        e.starts_with("config key `ftl.overprovisioning_ratio`"),
        "{e}"
    );
    let e = err("pr-ssd", None, &["ftl.split={policy=\"all\", width=-4}"]);
    assert!(e.ends_with("in `ftl.split.width`"), "{e}");
    // From a file: its name and the line of the key.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("mine.toml");
    std::fs::write(&f, "seed = 3\n\n[ftl]\ngc_threshold = 0.9\n").unwrap();
    let e = err("default", Some(&f), &[]);
    assert!(
        e.starts_with(&format!("{}:4: config key `ftl.gc_threshold`", f.display())),
        "{e}"
    );
    // Unless an override replaced it.
    let e = err("default", Some(&f), &["ftl.gc_threshold=0.95"]);
    assert!(e.starts_with("config key `ftl.gc_threshold`"), "{e}");
    std::fs::write(&f, "[ftl.split]\npolicy = \"all\"\nwidth = -4\n").unwrap();
    let e = err("pr-ssd", Some(&f), &[]);
    assert!(
        e.starts_with(&format!("{}:3 (over preset `pr-ssd`)", f.display()))
            && e.ends_with("in `ftl.split.width`"),
        "{e}"
    );
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    let (code, _, e) = ssdlab(&[
        "run",
        "--preset",
        "pr-ssd",
        "--config",
        f.to_str().unwrap(),
        "--trace",
        &msr,
    ]);
    assert_eq!(code, 2, "{e}");
    assert!(
        e.contains("mine.toml:3") && e.contains("ftl.split.width"),
        "{e}"
    );
}

/// Blocks of six 16 KiB pages of four units: GC gains a page from a victim only if four of its
/// units are invalid, so a plane whose blocks hold fewer invalid units than three each (and one)
/// may be cleaned for ever without freeing a page (the option-space harness, 16 runs: "GC cleaned
/// every block without freeing a page", during the run and during preconditioning). The config
/// is refused naming the over-provisioning; the least one accepted runs GC-active to the end.
#[test]
fn a_device_whose_gc_could_gain_no_page_is_refused_and_the_least_accepted_cleans() {
    let sets = |op: f64| -> Vec<String> {
        [
            "geometry.channels=2",
            "geometry.planes_per_die=1",
            "geometry.blocks_per_plane=64",
            "geometry.pages_per_block=6",
            "ftl.mapping_unit_kib=4",
            "ftl.gc_threshold=0.15",
            "precondition.fill_fraction=1.0",
            "precondition.overwrite_fraction=2.0",
            "precondition.pattern=\"random\"",
            "precondition.trace_footprint=false",
            // Random 4 KiB overwrites over the whole logical space.
            "flows=[{generator={requests=20000, read_fraction=0.0, working_set_bytes=33554432, \
             size={kind=\"fixed\", bytes=4096}, arrival={kind=\"closed\", queue_depth=8}}}]",
            "host.out_of_range=\"wrap\"",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("ftl.overprovisioning_ratio={op}")])
        .collect()
    };
    // 0.30: 8,601 logical units in 9,792 of room, 1,191 spare for the 1,232 GC needs invalid.
    let e = Config::resolve("pr-ssd", None, &sets(0.30))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ftl.overprovisioning_ratio") && e.contains("to gain a page"),
        "{e}"
    );
    let c = Config::resolve("pr-ssd", None, &sets(0.31)).unwrap();
    let s = common::verified(&c);
    assert!(
        s["gc"]["invocations"].as_u64().unwrap() > 100,
        "{}",
        s["gc"]
    );
}

/// `ssdlab run ARGS` on the small test device, trace addresses folded into it.
fn run_small(args: &[&str]) -> (i32, String, String) {
    let small = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml");
    let device = ["run", "--config", small, "--set", "host.out_of_range=wrap"];
    ssdlab(&[&device[..], args].concat())
}

#[test]
fn a_device_duration_that_could_wrap_the_clock_is_refused_naming_the_key() {
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    for (set, key) in [
        (
            "timing.firmware_ns=9000000000000000000",
            "`timing.firmware_ns`",
        ),
        ("timing.tlc.tbers_ns=1100000000000", "`timing.tlc.tbers_ns`"),
        (
            "ftl.write_buffer_timeout_ns=9223372036854775807",
            "`ftl.write_buffer_timeout_ns`",
        ),
    ] {
        let (code, _, err) = run_small(&["--trace", &msr, "--set", set]);
        assert_eq!(code, 2, "{set}: {err}");
        assert!(err.contains(key) && err.contains("2^40 ns"), "{set}: {err}");
    }
}

#[test]
fn a_time_scale_taking_arrivals_past_the_clock_is_refused_naming_the_trace_and_limit() {
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    for scale in ["1e9", "1e12"] {
        let set = format!("host.time_scale={scale}");
        let (code, out, err) = run_small(&["--trace", &msr, "--set", &set, "--json"]);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains("`host.time_scale`")
                && err.contains("msr_hm_0_first1000.csv.gz")
                && err.contains("2^62 ns"),
            "{err}"
        );
    }
    // A flow's own scale is blamed as its own key.
    let flows = format!("flows=[{{trace=\"{msr}\", time_scale=1e9}}]");
    let (code, _, err) = run_small(&["--set", &flows]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`flows[0].time_scale`") && err.contains("2^62 ns"),
        "{err}"
    );
    // A trace spanning 576,557 s: refused at a millionfold, replayed as it is (nothing wraps:
    // the read completes after it arrives, within a tR or so).
    let long = common::scratch(
        "bad_input",
        "long_span.csv",
        "arrival_ns,offset_bytes,size_bytes,op\n0,0,4096,write\n576557000000000,0,4096,read\n",
    );
    let long = long.to_str().unwrap();
    let (code, _, err) = run_small(&["--trace", long, "--set", "host.time_scale=1e6"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`host.time_scale`") && err.contains("long_span.csv"),
        "{err}"
    );
    let (code, out, err) = run_small(&["--trace", long, "--json"]);
    assert_eq!(code, 0, "{err}");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    let read = &s["latency_ns"]["read"];
    assert!(read["max"].as_u64().unwrap() < 1_000_000, "{read}");
    assert!(
        s["sim_time_ns"].as_u64().unwrap() >= 576_557_000_000_000,
        "{s}"
    );
}

#[test]
fn generator_arrivals_past_the_clock_are_refused_naming_the_key() {
    let generator = |extra: &str| {
        format!(
            "flows=[{{generator={{requests=10, read_fraction=0.5, working_set_bytes=1048576, \
             size={{kind=\"fixed\", bytes=4096}}, arrival={{kind=\"fixed\", iops=1.0}}{extra}}}}}]"
        )
    };
    // Ten requests a second apart, scaled a billionfold: 9e18 ns.
    let (code, _, err) = run_small(&["--set", &generator(""), "--set", "host.time_scale=1e9"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`host.time_scale`") && err.contains("2^62 ns"),
        "{err}"
    );
    let (code, _, err) = run_small(&["--set", &generator(", start_ns=5000000000000000000")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`flows[0].generator.start_ns`") && err.contains("2^62 ns"),
        "{err}"
    );
}

#[test]
fn cli_replay_mode_and_depth_apply_to_the_configs_flows() {
    let msr = committed_trace("msr_hm_0_first1000.csv.gz");
    let flows = format!("flows=[{{trace=\"{msr}\"}}]");
    let run = |sets: &str, flags: &[&str]| {
        let (code, out, err) = run_small(&[&["--set", sets, "--json"][..], flags].concat());
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let open = run(&flows, &[]);
    let closed = run(&flows, &["--mode", "closed", "--queue-depth", "8"]);
    assert_eq!(closed["config"]["flows"][0]["mode"], "closed");
    assert_eq!(closed["config"]["flows"][0]["queue_depth"], 8);
    assert_ne!(open["latency_ns"], closed["latency_ns"]);
    // As if the flow gave them itself, over what it gives.
    let own = format!("flows=[{{trace=\"{msr}\", mode=\"closed\", queue_depth=8}}]");
    assert_eq!(run(&own, &[])["latency_ns"], closed["latency_ns"]);
    let own_open = format!("flows=[{{trace=\"{msr}\", mode=\"open\"}}]");
    let over = run(&own_open, &["--mode", "closed", "--queue-depth", "8"]);
    assert_eq!(over["latency_ns"], closed["latency_ns"]);
    // A depth for flows that replay open is refused, as a flow's own would be.
    let (code, _, err) = run_small(&["--set", &flows, "--queue-depth", "8"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`flows[0].queue_depth`"), "{err}");
}

#[test]
fn a_workload_larger_than_the_device_blames_its_working_set() {
    let sm = [
        "--set",
        "geometry.channels=2",
        "--set",
        "geometry.ways_per_channel=1",
        "--set",
        "geometry.dies_per_way=1",
        "--set",
        "geometry.blocks_per_plane=160",
        "--set",
        "geometry.pages_per_block=48",
        "--set",
        "ftl.overprovisioning_ratio=0.12",
        "--set",
        "precondition.fill_fraction=0.9",
        "--set",
        "precondition.overwrite_fraction=1.0",
        "--set",
        "host.out_of_range=wrap",
    ];
    let args = [
        &["run", "--preset", "default"][..],
        &sm,
        &["--workload", "spread-usr"],
    ]
    .concat();
    let (code, _, err) = ssdlab(&args);
    assert_eq!(code, 2, "{err}");
    // 8 GiB, and wrap does not fold a generator's addresses.
    assert!(
        err.contains("`flows[0].generator.working_set_bytes`")
            && err.contains("8589934592")
            && err.contains("out_of_range = \"wrap\" folds the addresses of trace files"),
        "{err}"
    );
}
