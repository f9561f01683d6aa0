//! The `columns` format: traces read by a user's description of their columns. The Heimdall MSR
//! cut and the CloudPhysics vscsi excerpt (committed under `traces/`, see `traces/PROVENANCE.md`)
//! are read with the statistics recorded there; the DiskSim family's fixed layouts read what the
//! same description reads; errors name the spec's keys; every entry point takes a description.

use std::path::{Path, PathBuf};

use crate::common;

use common::{ssdlab, trace as trace_path};

use ssdlab::trace::detect::detect_format;
use ssdlab::trace::{
    load_trace, ColumnsSpec, LoadOptions, Op, Trace, TraceError, TraceFormat, TraceRequest,
};

const HEIMDALL: &str = "msrcut_heimdall_most_thpt_rand_iops_1006.trace.gz";
const HEIMDALL_SPEC: &str = "time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0";
const CLOUDPHYSICS: &str = "cloudphysics_vscsi_first5000.csv.gz";
const CLOUDPHYSICS_SPEC: &str =
    "separator=, time_us=1 op=2 size_bytes=4 offset_sectors=5 read=R write=W";

fn scratch(name: &str, contents: &str) -> PathBuf {
    common::scratch("columns", name, contents)
}

fn described(spec: &str) -> LoadOptions {
    LoadOptions {
        format: Some(TraceFormat::Columns),
        columns: Some(ColumnsSpec::from_cli(spec).unwrap().parser().unwrap()),
        ..LoadOptions::default()
    }
}

fn mean_size(t: &Trace, op: Op) -> f64 {
    common::mean_size(&t.requests, op).unwrap()
}

fn address_range(t: &Trace) -> (u64, u64) {
    common::address_range(&t.requests)
}

#[test]
fn heimdall_reads_as_the_manifest_describes_it() {
    // MANIFEST: 10,000 requests, 8,316 reads / 1,684 writes, mean read 4276.4 B, mean write
    // 56191.1 B, time span 1.017 s, address range [26,116,096, 12,665,090,048).
    let t = load_trace(&trace_path(HEIMDALL), &described(HEIMDALL_SPEC)).unwrap();
    assert_eq!(t.requests.len(), 10_000);
    assert_eq!((t.count(Op::Read), t.count(Op::Write)), (8_316, 1_684));
    assert!((mean_size(&t, Op::Read) - 4276.4).abs() < 0.05);
    assert!((mean_size(&t, Op::Write) - 56191.1).abs() < 0.05);
    assert!((t.duration_ns() as f64 / 1e9 - 1.017).abs() < 0.0006);
    assert_eq!(address_range(&t), (26_116_096, 12_665_090_048));
    assert_eq!((t.reordered, t.skipped_lines), (0, 0));
    // Line 1: `0.000 0 11562803200 4096 1`.
    assert_eq!(
        t.requests[0],
        TraceRequest {
            arrival_ns: 0,
            offset_bytes: 11_562_803_200,
            size_bytes: 4096,
            op: Op::Read,
            stream: 0,
        }
    );
}

#[test]
fn cloudphysics_excerpt_reads_as_provenance_records_it() {
    // PROVENANCE.md (computed with awk): 5,000 requests, 6 reads / 4,994 writes, mean read
    // 49834.7 B, mean write 8823.0 B, span 1306.691320 s, range [42,249,728, 23,808,876,032).
    let t = load_trace(&trace_path(CLOUDPHYSICS), &described(CLOUDPHYSICS_SPEC)).unwrap();
    assert_eq!(t.requests.len(), 5_000);
    assert_eq!((t.count(Op::Read), t.count(Op::Write)), (6, 4_994));
    assert!((mean_size(&t, Op::Read) - 49834.7).abs() < 0.05);
    assert!((mean_size(&t, Op::Write) - 8823.0).abs() < 0.05);
    assert_eq!(t.duration_ns(), 1_306_691_320_000);
    assert_eq!(address_range(&t), (42_249_728, 23_808_876_032));
    // Line 1: `5633898368802,W,2a,512,42932745`.
    assert_eq!(
        (
            t.requests[0].offset_bytes,
            t.requests[0].size_bytes,
            t.requests[0].op
        ),
        (42_932_745 * 512, 512, Op::Write)
    );
}

#[test]
fn the_disksim_family_reads_what_the_same_description_reads() {
    for (file, format, spec) in [
        (
            "tpcc_small_mqsim.trace.gz",
            TraceFormat::Mqsim,
            "time_ns=1 offset_sectors=3 size_sectors=4 op=5 read=1 write=0",
        ),
        (
            "umass_websearch1_first5000_flashsim.trace.gz",
            TraceFormat::Flashsim,
            "time_ms=1 offset_sectors=3 size_blocks=4 block_bytes=4096 op=5 read=1 write=0",
        ),
    ] {
        let path = trace_path(file);
        let fixed = LoadOptions {
            format: Some(format),
            ..LoadOptions::default()
        };
        let a = load_trace(&path, &fixed).unwrap();
        let b = load_trace(&path, &described(spec)).unwrap();
        assert_eq!(a.requests, b.requests, "{file}");
    }
}

#[test]
fn bad_lines_name_file_line_and_the_specs_key() {
    let path = scratch(
        "bad.csv",
        "ts,op,cmd,size,lba\n1,W,2a,512,8\n2,X,2a,512,8\n",
    );
    let spec = format!("header_lines=1 {CLOUDPHYSICS_SPEC}");
    let err = load_trace(&path, &described(&spec)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("{}:3: field `op`", path.display())),
        "{text}"
    );
    assert!(
        text.contains("\"X\" is not R (read) or W (write)"),
        "{text}"
    );
    assert_eq!((err.line(), err.field()), (Some(3), Some("op")));
    // Without header_lines the header is a bad time.
    let err = load_trace(&path, &described(CLOUDPHYSICS_SPEC)).unwrap_err();
    assert_eq!((err.line(), err.field()), (Some(1), Some("time_us")));
    // Past the capacity: the address column is named by its key.
    let opts = LoadOptions {
        capacity_bytes: Some(4096),
        ..described(&spec)
    };
    let err = load_trace(&path, &opts).unwrap_err();
    assert_eq!((err.line(), err.field()), (Some(2), Some("offset_sectors")));
}

#[test]
fn detection_never_picks_columns_and_columns_needs_a_description() {
    let path = trace_path(HEIMDALL);
    let err = detect_format(&path, &LoadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("disksim, flashsim"), "{err}");
    let opts = LoadOptions {
        format: Some(TraceFormat::Columns),
        ..LoadOptions::default()
    };
    let err = load_trace(&path, &opts).unwrap_err();
    assert!(matches!(err, TraceError::Undescribed { .. }), "{err}");
    assert!(err.to_string().contains("--columns"), "{err}");
}

#[test]
fn cli_run_trace_info_and_convert_take_a_description() {
    let heimdall = trace_path(HEIMDALL);
    let h = heimdall.to_str().unwrap();
    let (code, out, err) = ssdlab(&["run", "--trace", h, "--columns", HEIMDALL_SPEC, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["requests"]["count"], 10_000);
    assert_eq!(v["requests"]["read"], 8_316);
    let flow = &v["config"]["flows"][0];
    assert_eq!(flow["format"], "columns");
    assert_eq!(flow["columns"]["offset_bytes"], 3);
    assert_eq!(flow["columns"]["read"], serde_json::json!(["1"]));

    let cp = trace_path(CLOUDPHYSICS);
    let (code, out, err) = ssdlab(&[
        "trace-info",
        cp.to_str().unwrap(),
        "--columns",
        CLOUDPHYSICS_SPEC,
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["format"].as_str(), v["requests"].as_u64()),
        (Some("columns"), Some(5_000))
    );
    assert_eq!(v["reads"], 6);

    let native = Path::new(env!("CARGO_TARGET_TMPDIR")).join("columns-heimdall.csv");
    let n = native.to_str().unwrap();
    let args = [
        "convert",
        h,
        "--format",
        "columns",
        "--columns",
        HEIMDALL_SPEC,
    ];
    let (code, _, err) = ssdlab(&[&args[..], &["--to", "native", "-o", n]].concat());
    assert_eq!(code, 0, "{err}");
    let back = load_trace(&native, &LoadOptions::default()).unwrap();
    let direct = load_trace(&heimdall, &described(HEIMDALL_SPEC)).unwrap();
    assert_eq!(back.requests, direct.requests);
}

#[test]
fn cli_description_mistakes_are_usage_errors_naming_the_part() {
    let h = trace_path(HEIMDALL);
    let h = h.to_str().unwrap();
    for (spec, named) in [
        (
            "time_ms=1 offset_bytes=3 size_bytes=4 op=5",
            "--columns: `read`",
        ),
        (
            "time_ms=x offset_bytes=3",
            "--columns: `time_ms=x`: the value is not a whole number",
        ),
        (
            "time_ms=1 offset_bytes=3 size_bytes=3 op=5 read=1",
            "column 3 is already `offset_bytes`",
        ),
        ("tme_ms=1", "--columns: `tme_ms`: unknown field `tme_ms`"),
    ] {
        let (code, out, err) = ssdlab(&["trace-info", h, "--columns", spec]);
        assert_eq!(code, 2, "{spec}: {err}");
        assert!(out.is_empty());
        assert!(err.contains(named), "{spec}: {err}");
        let (code, _, err) = ssdlab(&["run", "--trace", h, "--columns", spec]);
        assert_eq!(code, 2, "{spec}: {err}");
        assert!(err.contains(named), "{spec}: {err}");
    }
    let (code, _, err) = ssdlab(&["run", "--trace", h, "--format", "columns"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("needs a description") && err.contains("--columns"),
        "{err}"
    );
    let (code, _, err) = ssdlab(&[
        "trace-info",
        h,
        "--format",
        "mqsim",
        "--columns",
        HEIMDALL_SPEC,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("does not go with --format mqsim"), "{err}");
}

#[test]
fn toml_flows_and_experiments_take_a_columns_table() {
    let h = trace_path(HEIMDALL);
    let table = "[flows.columns]\ntime_ms = 1\noffset_bytes = 3\nsize_bytes = 4\nop = 5\n\
                 read = [\"1\"]\nwrite = [\"0\"]\n";
    let config = scratch(
        "heimdall.toml",
        &format!("[[flows]]\ntrace = {:?}\n{table}", h.display()),
    );
    let (code, out, err) = ssdlab(&["run", "--config", config.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["requests"]["read"], 8_316);
    assert_eq!(v["config"]["flows"][0]["format"], "columns");
    // A mistake names the flow's key, in TOML's words; a typo'd key is refused by name.
    let bad = scratch(
        "bad-heimdall.toml",
        &format!(
            "[[flows]]\ntrace = {:?}\nformat = \"columns\"\n{}",
            h.display(),
            table.replace("op = 5\n", "")
        ),
    );
    let (code, _, err) = ssdlab(&["run", "--config", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("flows[0].columns: `op`"), "{err}");
    let typo = scratch(
        "typo-heimdall.toml",
        &format!(
            "[[flows]]\ntrace = {:?}\n{}",
            h.display(),
            table.replace("op = 5", "opp = 5")
        ),
    );
    let (code, _, err) = ssdlab(&["run", "--config", typo.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("opp"), "{err}");
    let undescribed = scratch(
        "undescribed.toml",
        &format!(
            "[[flows]]\ntrace = {:?}\nformat = \"columns\"\n",
            h.display()
        ),
    );
    let (code, _, err) = ssdlab(&["run", "--config", undescribed.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("a `columns` table in the flow") && !err.contains("--columns"),
        "{err}"
    );

    let experiment = scratch(
        "heimdall-experiment.toml",
        &format!(
            "name = \"heimdall\"\nmetrics = [\"requests.read\"]\n\
             [[configs]]\nlabel = \"base\"\n\
             [[workloads]]\nlabel = \"heimdall\"\ntrace = {:?}\n\
             columns = {{ time_ms = 1, offset_bytes = 3, size_bytes = 4, op = 5, read = [\"1\"], write = [\"0\"] }}\n",
            h.display()
        ),
    );
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("columns-experiment");
    let _ = std::fs::remove_dir_all(&out_dir);
    let (code, _, err) = ssdlab(&[
        "experiment",
        experiment.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let csv = std::fs::read_to_string(out_dir.join("results.csv")).unwrap();
    assert!(csv.contains("8316"), "{csv}");
}
