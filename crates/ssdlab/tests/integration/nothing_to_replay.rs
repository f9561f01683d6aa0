//! Runs that would replay nothing are refused (exit 2, saying why and what to do), whatever the
//! format and whichever way the run comes (command line, config file, experiment); blkparse
//! captures without the asked-for event choose the first event they hold; `--log-requests`
//! needs `--out`.

use std::path::{Path, PathBuf};

use crate::common;

use common::ssdlab;

use ssdlab::trace::TraceFormat;

fn scratch(name: &str, contents: &str) -> PathBuf {
    common::scratch("nothing_to_replay", name, contents)
}

fn committed(name: &str) -> String {
    common::trace(name).display().to_string()
}

const HEIMDALL_SPEC: &str = "time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0";

#[test]
fn an_empty_trace_is_refused_in_every_format() {
    let empty = scratch("empty.trace", "");
    let e = empty.to_str().unwrap();
    for format in TraceFormat::ALL {
        let (code, out, err) = ssdlab(&["run", "--trace", e, "--format", format.name()]);
        assert_eq!(code, 2, "{format}: {err}");
        assert!(out.is_empty(), "{format}: {out}");
        assert!(
            err.contains(&format!("{e}: nothing to replay: the file is empty")),
            "{format}: {err}"
        );
    }
    let (code, _, err) = ssdlab(&["run", "--trace", e, "--columns", HEIMDALL_SPEC]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("nothing to replay: the file is empty"),
        "{err}"
    );
    // Lines, but none a request: a header alone, comments, blank lines.
    let header = scratch(
        "header.csv",
        "# a comment\narrival_ns,offset_bytes,size_bytes,op\n\n",
    );
    let (code, _, err) = ssdlab(&["run", "--trace", header.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("nothing to replay: none of its 3 lines is a request as format `native`"),
        "{err}"
    );
    let (code, _, err) = ssdlab(&[
        "run",
        "--trace",
        header.to_str().unwrap(),
        "--columns",
        &format!("header_lines=2 {HEIMDALL_SPEC}"),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing to replay"), "{err}");
}

#[test]
fn an_empty_trace_in_a_config_or_an_experiment_is_refused() {
    let empty = scratch("empty-flow.trace", "");
    let config = scratch(
        "empty-flow.toml",
        &format!(
            "[[flows]]\ntrace = {:?}\nformat = \"mqsim\"\n",
            empty.display()
        ),
    );
    let (code, _, err) = ssdlab(&["run", "--config", config.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing to replay"), "{err}");
    let experiment = scratch(
        "empty-experiment.toml",
        &format!(
            "name = \"empty\"\nmetrics = [\"iops\"]\n[[configs]]\nlabel = \"base\"\n\
             [[workloads]]\nlabel = \"empty\"\ntrace = {:?}\nformat = \"mqsim\"\n",
            empty.display()
        ),
    );
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nothing_to_replay-experiment");
    let (code, _, err) = ssdlab(&[
        "experiment",
        experiment.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("run base × empty (seed 1)") && err.contains("nothing to replay"),
        "{err}"
    );
}

#[test]
fn blkparse_without_an_event_reads_the_first_kind_the_file_holds() {
    // The committed btrfs capture holds I, D and C events, no Q.
    let btrfs = committed("blkparse_ycsb_btrfs.txt.gz");
    let (code, out, err) = ssdlab(&["run", "--trace", &btrfs, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("read blkparse `D` events, the first of Q, D, C the file holds"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["requests"]["count"], 1_824);
    assert_eq!(v["config"]["flows"][0]["blkparse_event"], "d");
    // trace-info says it too, and records it.
    let (code, out, err) = ssdlab(&["trace-info", &btrfs, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("`D` events"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["blkparse_event"].as_str(), v["requests"].as_u64()),
        (Some("d"), Some(1_824))
    );
    // A capture with Q events reads Q, as before (Q first); the order is Q, D, C.
    let hadoop = committed("blkparse_hadoop_java_first5000lines.txt.gz");
    let (code, out, _) = ssdlab(&["trace-info", &hadoop, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["blkparse_event"].as_str(), v["requests"].as_u64()),
        (Some("q"), Some(1_384))
    );
    let only_c = scratch(
        "only_c.txt",
        "  8,16   3        4     0.000011950  3645  C   W 4938888 + 8 [0]\n",
    );
    let (code, out, _) = ssdlab(&["trace-info", only_c.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["blkparse_event"].as_str(), v["writes"].as_u64()),
        (Some("c"), Some(1))
    );
}

#[test]
fn a_given_blkparse_event_is_used_as_given_and_an_absent_one_says_what_to_do() {
    let btrfs = committed("blkparse_ycsb_btrfs.txt.gz");
    let (code, out, err) = ssdlab(&["run", "--trace", &btrfs, "--blkparse-event", "d", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("first of Q, D, C"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["config"]["flows"][0]["blkparse_event"], "d");
    let (code, out, err) = ssdlab(&["run", "--trace", &btrfs, "--blkparse-event", "q"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("nothing to replay")
            && err.contains("only `Q` events were read, as asked")
            && err.contains("--blkparse-event d"),
        "{err}"
    );
    // In a config file, the hint is the flow's key.
    let config = scratch(
        "btrfs-q.toml",
        &format!("[[flows]]\ntrace = {btrfs:?}\nblkparse_event = \"q\"\n"),
    );
    let (code, _, err) = ssdlab(&["run", "--config", config.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`blkparse_event = \"d\"` in the flow") && !err.contains("--blkparse"),
        "{err}"
    );
}

#[test]
fn log_requests_without_out_is_a_usage_error() {
    let msr = committed("msr_hm_0_first1000.csv.gz");
    let (code, out, err) = ssdlab(&["run", "--trace", &msr, "--log-requests"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("--out"), "{err}");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nothing_to_replay-log");
    let (code, _, err) = ssdlab(&[
        "run",
        "--trace",
        &msr,
        "--log-requests",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let log = std::fs::read_to_string(dir.join("requests.csv")).unwrap();
    assert_eq!(log.lines().count(), 1_001);
}
