//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use ssdlab::config::{apply_override, Config};
use ssdlab::sim::{Flow, RequestRecord, RunOptions, Simulation};
use ssdlab::trace::{Op, TraceRequest};

/// The small test device (tests/data/small.toml) with overrides.
pub fn small(sets: &[&str]) -> Config {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml");
    let mut table: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
    for s in sets {
        apply_override(&mut table, s).unwrap();
    }
    Config::from_toml_str(&toml::to_string(&table).unwrap(), path).unwrap()
}

/// Overrides of the small device giving it PCM: 4 KiB pages (a unit a page), a quarter of the
/// capacity PCM, data placed over both media unit by unit (tests/integration/pcm.rs, tests/integration/rosa.rs).
pub const SMALL_PCM: &[&str] = &[
    "geometry.page_size_kib=4",
    "geometry.blocks_per_plane=16",
    "geometry.pcm={capacity_share=0.25}",
    "timing.pcm={read_ns=5000, write_ns=50000}",
    "ftl.placement={policy=\"oblivious\", run_units=1}",
    "ftl.write_buffer_units=8",
    "ftl.overprovisioning_ratio=0.4",
];

/// A file in the repository's committed trace excerpts.
pub fn trace(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces")).join(name)
}

/// Replay `requests` as one flow with the integrity oracle on; the per-request records in
/// completion order and the summary (whose integrity check must be clean).
pub fn run_logged(
    config: Config,
    requests: Vec<TraceRequest>,
) -> (Vec<RequestRecord>, serde_json::Value) {
    let flow = Flow::new("t".into(), requests, config.host.mode, 1, 1.0, 0);
    let opts = RunOptions {
        verify: true,
        request_log: true,
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(config, vec![flow], opts).unwrap();
    sim.run().unwrap();
    let s = sim.summary();
    assert_eq!(s["integrity"]["violations"], 0, "{}", s["integrity"]);
    (sim.take_log().unwrap(), s)
}

/// Replay `requests` as one flow on `config` with the integrity oracle on (which must find
/// nothing); the simulation after its run.
pub fn run_verified(config: Config, requests: Vec<TraceRequest>) -> Simulation {
    let flow = Flow::new("t".into(), requests, config.host.mode, 1, 1.0, 0);
    let opts = RunOptions {
        verify: true,
        request_log: false,
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(config, vec![flow], opts).unwrap();
    sim.run().unwrap();
    let s = sim.summary();
    assert_eq!(s["integrity"]["violations"], 0, "{}", s["integrity"]);
    sim
}

/// Run the `ssdlab` binary with `args`: its exit code, stdout and stderr.
pub fn ssdlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A scratch file `name` holding `contents`, in a folder of its own per test file (`dir`).
pub fn scratch(dir: &str, name: &str, contents: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// Mean size in bytes of the requests of type `op`, `None` if there are none.
pub fn mean_size(reqs: &[TraceRequest], op: Op) -> Option<f64> {
    let sizes: Vec<u64> = reqs
        .iter()
        .filter(|r| r.op == op)
        .map(|r| r.size_bytes)
        .collect();
    if sizes.is_empty() {
        None
    } else {
        Some(sizes.iter().sum::<u64>() as f64 / sizes.len() as f64)
    }
}

/// Lowest start and highest end (bytes) of non-empty `requests`.
pub fn address_range(requests: &[TraceRequest]) -> (u64, u64) {
    let min = requests.iter().map(|r| r.offset_bytes).min().unwrap();
    let max = requests
        .iter()
        .map(|r| r.offset_bytes + r.size_bytes)
        .max()
        .unwrap();
    (min, max)
}

/// The committed excerpts with the format each needs (None: detected).
pub fn committed_traces() -> Vec<(
    &'static str,
    Option<ssdlab::trace::TraceFormat>,
    Option<&'static str>,
)> {
    use ssdlab::trace::TraceFormat::*;
    vec![
        ("blkparse_hadoop_java_first5000lines.txt.gz", None, None),
        ("blkparse_ycsb_btrfs.txt.gz", None, None),
        (
            "cloudphysics_vscsi_first5000.csv.gz",
            Some(Columns),
            Some("separator=, time_us=1 op=2 size_bytes=4 offset_sectors=5 read=R write=W"),
        ),
        ("fiu_mail_cheetah_day2_first2000.blkparse.gz", None, None),
        ("msr_hm_0_first1000.csv.gz", None, None),
        ("msr_hm_1_first1000writes.csv.gz", None, None),
        ("msr_mds_0_first1000writes.csv.gz", None, None),
        ("msr_proj_0_first1000writes.csv.gz", None, None),
        ("msr_rsrch_2_first1000writes.csv.gz", None, None),
        ("msr_wdev_1_full.csv.gz", None, None),
        ("msr_wdev_3_full.csv.gz", None, None),
        (
            "msrcut_heimdall_most_thpt_rand_iops_1006.trace.gz",
            Some(Columns),
            Some("time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0"),
        ),
        ("tpcc_small_mqsim.trace.gz", Some(Mqsim), None),
        ("umass_websearch1_first10.spc.gz", None, None),
        (
            "umass_websearch1_first24783_mqsim.trace.gz",
            Some(Mqsim),
            None,
        ),
        (
            "umass_websearch1_first5000_flashsim.trace.gz",
            Some(Flashsim),
            None,
        ),
        (
            "ycsb_rocksdb_ssdtrace_first2000lines.blkparse.gz",
            None,
            None,
        ),
    ]
}

/// Run `config` with the integrity oracle on; its summary, whose integrity check must be clean.
pub fn verified(config: &Config) -> serde_json::Value {
    let opts = ssdlab::RunOptions {
        verify: true,
        request_log: false,
        ..ssdlab::RunOptions::default()
    };
    let s = ssdlab::run::simulate(config, &opts).unwrap().summary;
    assert_eq!(s["integrity"]["violations"], 0, "{}", s["integrity"]);
    s
}
