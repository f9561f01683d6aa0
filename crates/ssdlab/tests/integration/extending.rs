//! docs/extending.md and its worked examples: every block of code the page quotes is the code
//! (verbatim in the file it names), every file it names exists, and each example runs end to
//! end on a real trace, held to the effect it is there for.

use std::path::Path;

use crate::common::{small, trace, verified};

/// The repository's root (the page names files from there).
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The page's fenced blocks marked ```` ```rust quoted PATH ````: each path and its text.
fn quoted_blocks(page: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        if let Some(path) = line.strip_prefix("```rust quoted ") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            blocks.push((path.trim().to_string(), body.join("\n")));
        }
    }
    blocks
}

/// What the page quotes is the code, so that neither changes without the other: a block
/// edited in the code (or in the page) no longer appears in its file, and the test says which.
#[test]
fn every_quoted_block_is_in_the_file_it_names() {
    let page = std::fs::read_to_string(root().join("docs/extending.md")).unwrap();
    let blocks = quoted_blocks(&page);
    // (A page whose marks were lost would check nothing.)
    assert!(blocks.len() >= 30, "{} quoted blocks", blocks.len());
    for (path, body) in &blocks {
        let code = std::fs::read_to_string(root().join(path))
            .unwrap_or_else(|e| panic!("docs/extending.md quotes {path}: {e}"));
        assert!(
            code.contains(body.as_str()),
            "docs/extending.md quotes {path}, which does not hold:\n{body}"
        );
    }
    // Every file the page names, in its tables and prose, exists.
    for name in page.split('`').skip(1).step_by(2) {
        if name.starts_with("crates/") || name.starts_with("docs/") || name.starts_with("traces/") {
            let name = name.split_whitespace().next().unwrap_or(name);
            assert!(root().join(name).exists(), "docs/extending.md names {name}");
        }
    }
}

/// The small test device made small enough that a real trace's writes keep its GC busy: 16
/// blocks a plane, filled to 90% and overwritten once before the trace (a steady state), the
/// trace's addresses folded into its logical capacity.
fn gc_active(trace_name: &str, sets: &[&str]) -> serde_json::Value {
    let flows = format!(
        "flows=[{{trace={:?}}}]",
        trace(trace_name).display().to_string()
    );
    let mut all = vec![
        "geometry.blocks_per_plane=16",
        "ftl.overprovisioning_ratio=0.35",
        "host.out_of_range=wrap",
        "precondition.fill_fraction=0.9",
        "precondition.overwrite_fraction=1.0",
        flows.as_str(),
    ];
    all.extend_from_slice(sets);
    verified(&small(&all))
}

fn n(s: &serde_json::Value, key: &str) -> f64 {
    key.split('.')
        .fold(s, |v, k| &v[k])
        .as_f64()
        .unwrap_or_else(|| panic!("{key} in {s}"))
}

/// (a) FIFO cleans the block written longest ago, however many valid units it still holds,
/// where greedy takes the emptiest: on MSR Cambridge's wdev_1 (1,055 writes of a test web
/// server, the committed excerpt) replayed over a device in a steady state, FIFO copies more
/// units per victim, so its write amplification is higher.
#[test]
fn fifo_victims_copy_more_than_greedy_on_a_skewed_real_trace() {
    let greedy = gc_active("msr_wdev_1_full.csv.gz", &["ftl.gc_victim.policy=greedy"]);
    let fifo = gc_active("msr_wdev_1_full.csv.gz", &["ftl.gc_victim.policy=fifo"]);
    let per_victim = |s: &serde_json::Value| n(s, "gc.copied_units") / n(s, "gc.invocations");
    assert!(
        n(&greedy, "gc.invocations") > 0.0,
        "GC runs: {}",
        greedy["gc"]
    );
    assert!(
        per_victim(&fifo) > per_victim(&greedy),
        "units copied a victim: fifo {} greedy {}",
        per_victim(&fifo),
        per_victim(&greedy)
    );
    assert!(
        n(&fifo, "waf") > n(&greedy, "waf"),
        "waf: fifo {} greedy {}",
        fifo["waf"],
        greedy["waf"]
    );
}

/// The small device (fresh) replaying `trace_name`, its addresses folded into the device.
fn fresh(trace_name: &str, sets: &[&str]) -> serde_json::Value {
    let flows = format!(
        "flows=[{{trace={:?}}}]",
        trace(trace_name).display().to_string()
    );
    let mut all = vec!["host.out_of_range=wrap", flows.as_str()];
    all.extend_from_slice(sets);
    verified(&small(&all))
}

/// (b) A proportional read senses only the codewords a read wants, in the share of tR their
/// bitlines take: on MSR Cambridge's hm_0 (a hardware monitoring server: reads of 4 KiB to 64
/// KiB from 16 KiB pages) it senses what it moves, where `dma` senses whole pages, and its host
/// reads finish sooner and cost less sensing energy.
#[test]
fn proportional_reads_sense_less_sooner_and_cheaper_on_a_real_trace() {
    let dma = fresh("msr_hm_0_first1000.csv.gz", &["ftl.read_policy.policy=dma"]);
    let prop = fresh(
        "msr_hm_0_first1000.csv.gz",
        &["ftl.read_policy={policy=\"proportional\"}"],
    );
    assert!(n(&prop, "latency_ns.read.count") > 0.0);
    assert_eq!(n(&prop, "bytes.sensed"), n(&prop, "bytes.read_transferred"));
    assert!(n(&prop, "bytes.sensed") < n(&dma, "bytes.sensed"));
    assert_eq!(
        n(&prop, "bytes.read_transferred"),
        n(&dma, "bytes.read_transferred")
    );
    let mean = |s: &serde_json::Value| n(s, "latency_ns.read.mean");
    assert!(
        mean(&prop) < mean(&dma),
        "{} vs {}",
        mean(&prop),
        mean(&dma)
    );
    let sense = |s: &serde_json::Value| n(s, "energy_uj.read_sense");
    assert!(
        sense(&prop) < sense(&dma),
        "{} vs {}",
        sense(&prop),
        sense(&dma)
    );
}

/// (c) Idle-time GC makes room while the host is idle: on MSR Cambridge's hm_1 (1,000 writes
/// over seven hours of a hardware monitoring server, in bursts) on a device in a steady state,
/// the foreground GC that held writes back runs mostly ahead of the bursts, so writes wait less;
/// the price is write amplification, as idle GC cleans blocks the foreground GC would have left
/// to fill with more invalid units. Its counters start over at the statistics window's boundary.
#[test]
fn idle_gc_cleans_between_bursts_and_writes_wait_less_on_a_real_trace() {
    const HM_1: &str = "msr_hm_1_first1000writes.csv.gz";
    const IDLE: &str =
        "ftl.idle_gc={policy=\"when_idle\", interval_ns=100000000, free_threshold=0.3}";
    let off = gc_active(HM_1, &[]);
    let on = gc_active(HM_1, &[IDLE]);
    assert!(off.get("idle_gc").is_none(), "reported only while on");
    let idle = &on["idle_gc"];
    let c = |k: &str| n(idle, k);
    assert!(
        c("checks") >= c("idle_checks") && c("idle_checks") > 0.0,
        "{idle}"
    );
    assert!(
        c("jobs") > 0.0 && c("jobs") <= n(&on, "gc.invocations"),
        "{idle}"
    );
    assert!(
        c("copied_units") > 0.0 && c("copy_programs") > 0.0,
        "{idle}"
    );
    assert!(c("copied_units") <= n(&on, "gc.copied_units"));
    for k in ["latency_ns.write.mean", "latency_ns.write.p99"] {
        assert!(
            n(&on, k) < n(&off, k),
            "{k}: {} with idle GC, {} without",
            n(&on, k),
            n(&off, k)
        );
    }
    assert!(n(&on, "waf") > n(&off, "waf"));
    // The timer never outlasts the input: the run ends when it did.
    assert_eq!(on["sim_time_ns"], off["sim_time_ns"]);
    let windowed = gc_active(HM_1, &[IDLE, "statistics.warmup_fraction=0.5"]);
    let w = &windowed["idle_gc"];
    assert!(
        n(w, "checks") > 0.0 && n(w, "checks") < c("checks"),
        "{w} vs {idle}"
    );
}
