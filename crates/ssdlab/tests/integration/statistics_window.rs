//! The statistics window (`[statistics]`, docs/results.md "The statistics window"): the first
//! requests warm up, the rest are measured. Host figures are those of the measured requests
//! (checked against the request log, which keeps every request), device figures the end of the
//! run less the boundary (checked against a run of the warm-up alone), and the window changes
//! nothing of the simulation itself.

use crate::common;

use serde_json::Value;
use ssdlab::config::{Config, ReplayMode};
use ssdlab::sim::{Flow, RequestRecord, RunOptions, Simulation};
use ssdlab::trace::{Op, TraceRequest};

/// A GC-active small device (filled and aged) whose partly filled pages are programmed 1 ms
/// after their last write, so that the warm-up leaves nothing in the buffer. No trace
/// footprint: the warm-up alone and the whole trace start from the same device.
fn device(sets: &[&str]) -> Config {
    let mut all = vec![
        "precondition.fill_fraction=0.9",
        "precondition.overwrite_fraction=0.5",
        "precondition.pattern=\"random\"",
        "precondition.trace_footprint=false",
        "ftl.write_buffer_timeout_ns=1000000",
    ];
    all.extend_from_slice(sets);
    common::small(&all)
}

/// A 64-bit LCG from `seed`: the tests need no statistical quality, only a fixed sequence.
fn lcg(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    }
}

/// `n` requests from `start_ns`, 200 µs apart, at random 4 KiB-aligned places of the first
/// `span` bytes: writes of `write_kib` (some of them trims when `trims`) and 4 to 32 KiB reads.
fn requests(seed: u64, n: usize, start_ns: u64, span: u64, write_kib: u64) -> Vec<TraceRequest> {
    let mut next = lcg(seed);
    (0..n as u64)
        .map(|i| {
            let (op, kib) = match next() % 10 {
                0..=3 => (Op::Write, write_kib),
                4 => (Op::Trim, 8),
                _ => (Op::Read, 4 << (next() % 4)),
            };
            let size_bytes = kib * 1024;
            TraceRequest {
                arrival_ns: start_ns + i * 200_000,
                offset_bytes: next() % ((span - size_bytes) / 4096) * 4096,
                size_bytes,
                op,
                stream: 0,
            }
        })
        .collect()
}

/// Run `flows` (name, requests, mode) on `config`: the summary and the request log.
fn run(
    config: &Config,
    flows: Vec<(&str, Vec<TraceRequest>, ReplayMode)>,
) -> (Value, Vec<RequestRecord>) {
    let flows = flows
        .into_iter()
        .map(|(name, reqs, mode)| Flow::new(name.into(), reqs, mode, 4, 1.0, 0))
        .collect();
    let opts = RunOptions {
        verify: true,
        request_log: true,
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(config.clone(), flows, opts).unwrap();
    sim.run().unwrap();
    let s = sim.summary();
    assert_eq!(s["integrity"]["violations"], 0, "{}", s["integrity"]);
    (s, sim.take_log().unwrap())
}

/// The warm-up: 400 requests, writes of 128 KiB; then, a second after it ends, the measured
/// part: 800 requests, writes of 32 KiB, whose latencies are far from the warm-up's. Both parts
/// run GC.
fn two_parts(config: &Config) -> (Vec<TraceRequest>, Vec<TraceRequest>) {
    let span = ssdlab::run::logical_capacity_bytes(config);
    let warmup = requests(1, 400, 0, span, 128);
    let measured = requests(2, 800, 400 * 200_000 + 1_000_000_000, span, 32);
    (warmup, measured)
}

fn at<'a>(s: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(s, |v, k| &v[k])
}

#[test]
fn host_figures_are_those_of_the_requests_after_the_warmup() {
    let plain = device(&[]);
    let (warmup, measured) = two_parts(&plain);
    let whole: Vec<TraceRequest> = warmup.iter().chain(&measured).copied().collect();
    let windowed = device(&["statistics.warmup_requests=400"]);
    let (s, log) = run(&windowed, vec![("t", whole.clone(), ReplayMode::Open)]);

    // The log keeps every request; the measured ones arrived from the boundary on.
    assert_eq!(log.len(), 1200);
    let boundary = measured[0].arrival_ns;
    assert_eq!(s["statistics"]["warmup_requests"], 400);
    assert_eq!(s["statistics"]["measured_from_ns"], boundary);
    let kept: Vec<&RequestRecord> = log.iter().filter(|r| r.arrival_ns >= boundary).collect();
    assert_eq!(kept.len(), 800);
    let count = |op: Op| kept.iter().filter(|r| r.op == op).count() as u64;
    assert_eq!(s["requests"]["count"], 800);
    assert_eq!(s["requests"]["read"], count(Op::Read));
    assert_eq!(s["requests"]["write"], count(Op::Write));
    assert_eq!(s["requests"]["trim"], count(Op::Trim));
    let bytes = |op: Op| -> u64 {
        kept.iter()
            .filter(|r| r.op == op)
            .map(|r| r.size_bytes)
            .sum()
    };
    assert_eq!(s["read_bytes"], bytes(Op::Read));
    assert_eq!(s["write_bytes"], bytes(Op::Write));
    // Latencies: mean (to 0.1 ns, as the summary rounds it) and max over the measured requests.
    for (key, ops) in [
        ("read", &[Op::Read][..]),
        ("write", &[Op::Write][..]),
        ("all", &[Op::Read, Op::Write][..]),
    ] {
        let l: Vec<u64> = kept
            .iter()
            .filter(|r| ops.contains(&r.op))
            .map(|r| r.latency_ns())
            .collect();
        let mean = l.iter().sum::<u64>() as f64 / l.len() as f64;
        let got = &s["latency_ns"][key];
        assert_eq!(got["count"], l.len() as u64, "{key}");
        assert_eq!(
            got["mean"].as_f64().unwrap(),
            (mean * 10.0).round() / 10.0,
            "{key}"
        );
        assert_eq!(got["max"], *l.iter().max().unwrap(), "{key}");
    }
    // Rates over the measured span: from the boundary to the last measured completion.
    let last = kept.iter().map(|r| r.completion_ns).max().unwrap();
    assert_eq!(s["span_ns"], last - boundary);
    let iops = 800.0 / ((last - boundary) as f64 / 1e9);
    assert_eq!(
        s["iops"].as_f64().unwrap(),
        (iops * 1000.0).round() / 1000.0
    );
    assert_eq!(s["flows"][0]["requests"], s["requests"]);

    // The warm-up's large writes are out: the whole run's write mean is far above.
    let (all, all_log) = run(&plain, vec![("t", whole, ReplayMode::Open)]);
    let write_mean = |v: &Value| v["latency_ns"]["write"]["mean"].as_f64().unwrap();
    assert!(
        write_mean(&all) > 2.0 * write_mean(&s),
        "{} vs {}",
        write_mean(&all),
        write_mean(&s)
    );
    // The window changes what is reported, not what happens.
    let times = |l: &[RequestRecord]| -> Vec<(u64, u64)> {
        l.iter().map(|r| (r.arrival_ns, r.completion_ns)).collect()
    };
    assert_eq!(times(&all_log), times(&log));
    assert_eq!(all["sim_time_ns"], s["sim_time_ns"]);
    assert!(all.get("statistics").is_none());
}

#[test]
fn device_figures_are_the_end_of_the_run_less_the_boundary() {
    let plain = device(&[]);
    let (warmup, measured) = two_parts(&plain);
    let whole: Vec<TraceRequest> = warmup.iter().chain(&measured).copied().collect();
    let windowed = device(&["statistics.warmup_fraction=0.3334"]);
    let (s, _) = run(&windowed, vec![("t", whole.clone(), ReplayMode::Open)]);
    let (all, _) = run(&plain, vec![("t", whole, ReplayMode::Open)]);
    // (0.3334 × 1,200 requests: the 400 of the warm-up.)
    assert_eq!(s["statistics"]["warmup_requests"], 400);
    // The warm-up ends long before the measured part arrives: a run of it alone is the device
    // at the boundary.
    let (before, _) = run(&plain, vec![("t", warmup, ReplayMode::Open)]);
    assert!(at(&before, "sim_time_ns").as_u64().unwrap() < measured[0].arrival_ns);
    // Every counter is then exactly the whole run's less the warm-up's.
    let mut counters = vec![
        "merged_reads",
        "gc.invocations",
        "gc.copied_units",
        "gc.busy_ns",
        "wear_leveling.invocations",
        "wear_leveling.copied_units",
        "bytes.sensed",
        "bytes.sensed_for_host",
        "bytes.read_transferred",
        "bytes.programmed",
        "read_units.flash",
        "read_units.buffer_hit",
        "read_units.unmapped",
        "trim_units.unmapped",
        "trim_units.partly_trimmed",
        "write_buffer.coalesced_units",
        "write_buffer.padded_slots",
        "write_buffer.stall_ns",
    ];
    let ops: Vec<String> = ["read", "program", "erase"]
        .iter()
        .flat_map(|k| ["host", "gc", "wl", "total"].map(|s| format!("flash_ops.{k}.{s}")))
        .collect();
    counters.extend(ops.iter().map(String::as_str));
    for key in counters {
        let n = |v: &Value| at(v, key).as_u64().unwrap();
        assert_eq!(n(&s), n(&all) - n(&before), "{key}");
    }
    // Both parts ran GC and erased blocks: the subtraction is not of zeros.
    for v in [&before, &s] {
        assert!(at(v, "gc.invocations").as_u64().unwrap() > 0);
        assert!(at(v, "flash_ops.erase.total").as_u64().unwrap() > 0);
    }
    // Sums of reals and means over blocks, to their rounding.
    for key in [
        "energy_uj.read",
        "energy_uj.program",
        "energy_uj.erase",
        "energy_uj.total",
        "erase_count.mean",
    ] {
        let x = |v: &Value| at(v, key).as_f64().unwrap();
        let d = x(&all) - x(&before);
        assert!((x(&s) - d).abs() <= 0.002, "{key}: {} vs {d}", x(&s));
    }
    // WAF: bytes programmed after the boundary over bytes written by the measured requests.
    let waf = at(&s, "bytes.programmed").as_u64().unwrap() as f64
        / at(&s, "write_bytes").as_u64().unwrap() as f64;
    assert_eq!(s["waf"].as_f64().unwrap(), (waf * 1000.0).round() / 1000.0);
    // Busy time over the measured span: the dies' busy time after the boundary (the whole
    // run's less the warm-up's, each a mean utilization times its span, to the summary's six
    // decimals) over the span from the boundary to the end.
    let span = at(&s, "statistics.measured_span_ns").as_u64().unwrap();
    assert_eq!(
        span,
        at(&s, "sim_time_ns").as_u64().unwrap() - measured[0].arrival_ns
    );
    for key in ["utilization.die.mean", "utilization.channel.mean"] {
        let busy = |v: &Value| {
            at(v, key).as_f64().unwrap() * at(v, "sim_time_ns").as_u64().unwrap() as f64
        };
        let expected = (busy(&all) - busy(&before)) / span as f64;
        let got = at(&s, key).as_f64().unwrap();
        assert!((got - expected).abs() < 1e-4, "{key}: {got} vs {expected}");
        assert!(got > 0.0, "{key}");
    }
}

/// A read issued in the warm-up and still queued at the boundary is the warm-up's: its bytes
/// (counted as its die starts it, once it is timed) with its operation (counted as it is
/// issued). Every host read here is one 4 KiB partial-read unit, sensed alone in a command of
/// its own, and nothing else reads: every read command the run counts senses 4 KiB, however many of the warm-up's
/// reads its dies start after the boundary (seed 19316 of the option space, where the reads
/// queued there put the measured part's sensing above a page a command).
#[test]
fn a_read_queued_across_the_boundary_is_counted_with_the_warmup() {
    let config = device(&[
        "precondition.fill_fraction=0.0",
        "precondition.overwrite_fraction=0.0",
        "precondition.trace_footprint=true",
        "ftl.read_policy={policy=\"partial\", unit_kib=4}",
        "scheduler.merge_reads=false",
        "statistics.warmup_requests=128",
    ]);
    // 128 reads of distinct units at once, queued on the 4 dies (issued a microsecond later,
    // past the firmware); the measured part's 16 reads of other units 100 µs on.
    let read = |i: u64, arrival_ns: u64| TraceRequest {
        arrival_ns,
        offset_bytes: i * 4096,
        size_bytes: 4096,
        op: Op::Read,
        stream: 0,
    };
    let reqs: Vec<TraceRequest> = (0..128)
        .map(|i| read(i, 0))
        .chain((128..144).map(|i| read(i, 100_000)))
        .collect();
    let (s, log) = run(&config, vec![("t", reqs, ReplayMode::Open)]);
    assert_eq!(s["statistics"]["measured_from_ns"], 100_000);
    // Most of the warm-up's reads were still queued at the boundary: each waited longer than
    // a die takes for one.
    let late = (log.iter())
        .filter(|r| r.arrival_ns == 0 && r.completion_ns > 300_000)
        .count();
    assert!(late > 64, "only {late} warm-up reads ended past 300 µs");
    let n = |key: &str| at(&s, key).as_u64().unwrap();
    assert_eq!(n("flash_ops.read.total"), 16);
    assert_eq!(n("flash_ops.read.host"), 16);
    assert_eq!(n("read_units.flash"), 16);
    assert_eq!(n("bytes.sensed"), 16 * 4096);
    assert_eq!(n("bytes.sensed_for_host"), 16 * 4096);
    assert_eq!(n("bytes.read_transferred"), 16 * 4096);
    // (RAF: what the measured reads sensed over what they asked for.)
    assert_eq!(s["raf"].as_f64().unwrap(), 1.0);
}

#[test]
fn the_warmup_is_the_first_requests_in_arrival_order_over_all_flows() {
    let config = common::small(&["statistics.warmup_requests=5"]);
    let at_times = |times: &[u64]| -> Vec<TraceRequest> {
        times
            .iter()
            .map(|&t| TraceRequest {
                arrival_ns: t,
                offset_bytes: t / 1_000_000 * 4096,
                size_bytes: 4096,
                op: Op::Write,
                stream: 0,
            })
            .collect()
    };
    // Flow a arrives at 0, 2, 4, … ms and b at 1, 3, 5, … ms: the first five arrivals are three
    // of a's and two of b's.
    let ms = |odd: u64| {
        (0..10)
            .map(|i| (2 * i + odd) * 1_000_000)
            .collect::<Vec<_>>()
    };
    let (s, _) = run(
        &config,
        vec![
            ("a", at_times(&ms(0)), ReplayMode::Open),
            ("b", at_times(&ms(1)), ReplayMode::Open),
        ],
    );
    assert_eq!(s["requests"]["count"], 15);
    assert_eq!(s["flows"][0]["requests"]["count"], 7);
    assert_eq!(s["flows"][1]["requests"]["count"], 8);
    assert_eq!(s["statistics"]["measured_from_ns"], 5_000_000);
    // A flow all of whose requests warm up reports none.
    let config = common::small(&["statistics.warmup_requests=10"]);
    let (s, _) = run(
        &config,
        vec![
            ("early", at_times(&ms(0)), ReplayMode::Open),
            (
                "late",
                at_times(&[30_000_000, 31_000_000]),
                ReplayMode::Open,
            ),
        ],
    );
    assert_eq!(s["flows"][0]["requests"]["count"], 0);
    assert_eq!(s["flows"][0]["latency_ns"]["all"]["mean"], Value::Null);
    assert_eq!(s["flows"][1]["requests"]["count"], 2);
}

#[test]
fn a_closed_loop_measures_the_requests_issued_after_the_warmup() {
    let config = device(&["statistics.warmup_requests=300"]);
    let (warmup, measured) = two_parts(&config);
    let whole: Vec<TraceRequest> = warmup.iter().chain(&measured).copied().collect();
    let (s, log) = run(&config, vec![("t", whole.clone(), ReplayMode::Closed)]);
    assert_eq!(s["requests"]["count"], 900);
    // Issued in trace order at queue depth 4: the measured requests are the last 900 of the
    // trace, the first of them issued when the 300th warm-up request's slot fell free.
    let tail = &whole[300..];
    let count = |op: Op| tail.iter().filter(|r| r.op == op).count() as u64;
    assert_eq!(s["requests"]["write"], count(Op::Write));
    assert_eq!(s["requests"]["trim"], count(Op::Trim));
    let mut arrivals: Vec<u64> = log.iter().map(|r| r.arrival_ns).collect();
    arrivals.sort_unstable();
    assert_eq!(s["statistics"]["measured_from_ns"], arrivals[300]);
}

#[test]
fn with_no_window_the_summary_is_as_without_the_section() {
    let (warmup, _) = two_parts(&device(&[]));
    let (a, _) = run(&device(&[]), vec![("t", warmup.clone(), ReplayMode::Open)]);
    let (b, _) = run(
        &device(&[
            "statistics.warmup_requests=0",
            "statistics.warmup_fraction=0.0",
        ]),
        vec![("t", warmup, ReplayMode::Open)],
    );
    assert_eq!(a, b);
    assert!(a.get("statistics").is_none());
    assert!(a["config"].get("statistics").is_none());
}

#[test]
fn a_window_that_cannot_be_is_refused_naming_its_key() {
    let trace = common::trace("msr_hm_0_first1000.csv.gz");
    let trace = trace.to_str().unwrap();
    for (set, key, why) in [
        (
            "statistics.warmup_fraction=1.0",
            "statistics.warmup_fraction",
            "must be in [0, 1)",
        ),
        (
            "statistics.warmup_fraction=-0.5",
            "statistics.warmup_fraction",
            "must be in [0, 1)",
        ),
        (
            "statistics.warmup_requests=1000",
            "statistics.warmup_requests",
            "warms up on 1000 of the run's 1000 requests: no request is left to measure",
        ),
    ] {
        let (code, _, err) = common::ssdlab(&["run", "--trace", trace, "--set", set]);
        assert_eq!(code, 2, "{set}: {err}");
        assert!(
            err.contains(&format!("config key `{key}`: {why}")),
            "{set}: {err}"
        );
    }
    let (code, _, err) = common::ssdlab(&[
        "run",
        "--trace",
        trace,
        "--set",
        "statistics.warmup_requests=10",
        "--set",
        "statistics.warmup_fraction=0.5",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("config key `statistics.warmup_fraction`: 0.5 is set with statistics.warmup_requests = 10"),
        "{err}"
    );
    // In a config file: the file and the line.
    let file = common::scratch(
        "statistics_window",
        "window.toml",
        "seed = 1\n\n[statistics]\nwarmup_fraction = 1.5\n",
    );
    let (code, _, err) =
        common::ssdlab(&["run", "--trace", trace, "--config", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("window.toml:4"), "{err}");
    assert!(err.contains("`statistics.warmup_fraction`"), "{err}");
    // Half of the trace through the command line: the other half is measured.
    let (code, out, err) = common::ssdlab(&[
        "run",
        "--trace",
        trace,
        "--set",
        "statistics.warmup_fraction=0.5",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["requests"]["count"], 500);
    assert_eq!(s["statistics"]["warmup_requests"], 500);
}

#[test]
fn an_experiment_grid_sets_the_window_per_config() {
    let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let small = format!("{repo}/crates/ssdlab/tests/data/small.toml");
    let text = format!(
        r#"
name = "window grid"
metrics = ["requests.count", "statistics.warmup_requests"]
seeds = [1]

[[configs]]
label = "whole"
config_file = "{small}"
set = {{ "host.out_of_range" = "wrap" }}

[[configs]]
label = "second half"
config_file = "{small}"
set = {{ "host.out_of_range" = "wrap", "statistics.warmup_fraction" = 0.5 }}

[[workloads]]
label = "hm_0"
trace = "{repo}/traces/msr_hm_0_first1000.csv.gz"
format = "msr"
"#
    );
    let dir = std::env::temp_dir().join(format!("ssdlab-window-grid-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("grid.toml");
    std::fs::write(&file, text).unwrap();
    let (_, runs) = ssdlab::experiment::run_file(
        &file,
        &dir.join("out"),
        true,
        &mut ssdlab::experiment::Local { jobs: 1 },
        "test",
        &mut |_, _| {},
    )
    .unwrap();
    let count = |label: &str| {
        let r = runs.iter().find(|r| r.config_label == label).unwrap();
        (
            r.summary["requests"]["count"].as_u64(),
            r.summary["statistics"]["warmup_requests"].as_u64(),
        )
    };
    assert_eq!(count("whole"), (Some(1000), None));
    assert_eq!(count("second half"), (Some(500), Some(500)));
}

/// Requests at `n` times 100 µs apart over the first `span` bytes, of every kind the summary's
/// sections count: streams writing extents of their own in order, one at a time for 80 steps
/// (long enough to complete a MiB) and now and then another (more streams than a device keeps
/// open), the one writing read back in order behind its writes; reads and updates of a few hot
/// units; writes of part of a unit; trims of parts of units; and pairs of reads of one 16 KiB
/// page anywhere.
fn every_kind(seed: u64, n: usize, span: u64) -> Vec<TraceRequest> {
    let mut next = lcg(seed);
    const STREAMS: u64 = 6;
    let extent = span / 2 / STREAMS / 65536 * 65536;
    let hot = span / 2;
    let mut written = [0u64; STREAMS as usize];
    let mut read = [0u64; STREAMS as usize];
    let mut out = Vec::new();
    for i in 0..n as u64 {
        let mut push = |op, offset_bytes, size_bytes, stream| {
            out.push(TraceRequest {
                arrival_ns: i * 100_000,
                offset_bytes,
                size_bytes,
                op,
                stream,
            })
        };
        let writing = i / 80 % STREAMS;
        match next() % 10 {
            k @ 0..=2 => {
                let s = if k < 2 { writing } else { next() % STREAMS };
                let at = written[s as usize];
                written[s as usize] = (at + 65536) % extent;
                push(Op::Write, s * extent + at, 65536, s as u16 + 1);
            }
            3 | 4 => {
                let s = writing as usize;
                let at = read[s];
                read[s] = (at + 16384) % written[s].max(16384);
                push(Op::Read, writing * extent + at, 16384, 0);
            }
            5 => push(Op::Read, hot + next() % 8 * 4096, 4096, 0),
            6 => push(Op::Write, hot + next() % 8 * 4096, 4096, 0),
            7 => push(Op::Write, hot + next() % 4096 * 4096 + 512, 1024, 0),
            8 => push(Op::Trim, hot + next() % 4096 * 4096 + 2048, 36864, 0),
            _ => {
                let page = next() % (span / 16384 - 1) * 16384;
                push(Op::Read, page, 4096, 0);
                push(Op::Read, page + 4096, 4096, 0);
            }
        }
    }
    out
}

/// Leaves of the summary that are not counters of the work a run did, and so need not shrink
/// when the warm-up is left out (dotted keys, `*` any one key or index; a pattern names a leaf
/// or every leaf under it). A flow's host figures (`flows.N.…`) are the top level's.
const NOT_COUNTERS: &[&str] = &[
    // The latency distribution of the measured requests (its `count` is a counter).
    "latency_ns.*.mean",
    "latency_ns.*.p50",
    "latency_ns.*.p99",
    "latency_ns.*.p999",
    "latency_ns.*.max",
    "latency_ns.*.cdf",
    // The measured requests' span (from the first arrival to the last completion: not a sum),
    // and rates, ratios and means per operation of measured figures.
    "span_ns",
    "iops",
    "bandwidth_mib_s",
    "waf",
    "raf",
    "gc.mean_busy_ns",
    "utilization",
    "compression.saving",
    "placement.hot_write_share",
    "placement.run_hot_share",
    "reliability.read_error_rate",
    "reliability.ecc_decode_ns",
    "reliability.internal.read_error_rate",
    "reliability.internal.ecc_decode_ns",
    // The spread over blocks of their erases since the boundary (`mean` is their sum / blocks).
    "erase_count.min",
    "erase_count.max",
    "erase_count.std",
    "erase_count.spread",
    // The integrity oracle checks the whole run: a violation in the warm-up still fails it.
    "integrity",
    // States and echoes: preconditioning (before the run), the device's size, the clock, the
    // config.
    "precondition",
    "capacity",
    "mapping_cache.translation_pages",
    // The caches' sizes in effect (capped at what they can hold).
    "mapping_cache.cmt_entries",
    "mapping_cache.capped",
    "data_cache.capacity_units",
    "data_cache.capped",
    "sim_time_ns",
    "seed",
    "config",
    // The window's own report of the warm-up (present only with a window).
    "statistics",
    "level1_gc.at_boundary",
];

/// Every numeric leaf of `v`, by its path of keys.
fn numeric_leaves(v: &Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, f64)>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                path.push(k.clone());
                numeric_leaves(v, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                path.push(i.to_string());
                numeric_leaves(v, path, out);
                path.pop();
            }
        }
        Value::Number(n) => out.push((path.clone(), n.as_f64().unwrap())),
        _ => {}
    }
}

fn is_counter(path: &[String]) -> bool {
    let host = match path {
        [flows, _, rest @ ..] if flows == "flows" => rest,
        _ => path,
    };
    !NOT_COUNTERS.iter().any(|pattern| {
        let keys: Vec<&str> = pattern.split('.').collect();
        keys.len() <= host.len() && keys.iter().zip(host).all(|(k, p)| *k == "*" || k == p)
    })
}

/// A preset made small, with `sets`, on a GC-active device (filled and aged, as `device`).
fn small_preset(name: &str, sets: &[&str]) -> Config {
    let aged = [
        "precondition.fill_fraction=0.9",
        "precondition.overwrite_fraction=0.5",
        "precondition.pattern=\"random\"",
        "precondition.trace_footprint=false",
        "ftl.wear_leveling={enabled=true, threshold_erases=2}",
    ];
    let sets: Vec<String> = sets.iter().chain(&aged).map(|s| s.to_string()).collect();
    Config::resolve(name, None, &sets).unwrap()
}

/// With a statistics window every counter of every section of the summary counts the measured
/// part only. The summary is walked leaf by leaf, so that a section added later is checked as
/// soon as a device here reports it. Each device replays a trace three times over, the first two
/// warming up, the third a second after the device has done with them: every counter is then the
/// same run's without a window less a run of the warm-up alone (the device at the boundary), and
/// every counter the run moves the warm-up moved too (else its check would be a subtraction of
/// nothing). The devices between them report every section: `composed` (the techniques) with the
/// split FTL, a data cache, a mapping table on flash and streams kept apart; `melded` with
/// streams laid out on wordlines, the error model and program and erase suspension.
#[test]
fn every_counter_of_every_section_counts_the_measured_part_only() {
    // The `ipu` preset's error model, its MLC cells' figures for these TLC ones.
    let reliability = "reliability={model=\"power_law\", ecc_min_decode_ns=500, \
        ecc_max_decode_ns=96800, correctable_bits_per_codeword=80, max_read_retries=5, \
        retry_error_divisor=2.0, tlc={epsilon=1.0e-4, alpha=3.9e-10, k=2.05, beta=6.28e-5, \
        m=0.14, n=0.54, gamma=3.0e-12, p=0.33, q=1.71, partial_program_disturb=0.0, \
        neighbour_program_disturb=0.0}}";
    let devices = [
        small_preset(
            "composed",
            &[
                "geometry.channels=4",
                "geometry.ways_per_channel=1",
                "geometry.dies_per_way=1",
                "geometry.blocks_per_plane=64",
                "geometry.pages_per_block=48",
                "geometry.regions=[{name=\"main\", cell_mode=\"tlc\", blocks_per_plane=48}, \
                 {name=\"slc\", cell_mode=\"slc\", blocks_per_plane=16, nop=4}]",
                "ftl.overprovisioning_ratio=0.3",
                "ftl.write_buffer_units=64",
                "ftl.mapping_unit_kib=16",
                "ftl.split={policy=\"decision\", width=4, history=\"bit\"}",
                // (Two streams: each open one holds a block per level and plane of the 16
                // SLC-mode blocks.)
                "ftl.host_streams={policy=\"separate\", max_open=2, complete_after_mib=1}",
                "ftl.mapping_cache={policy=\"demand\", capacity_kib=16}",
                "data_cache={policy=\"read_write\", capacity_kib=256}",
                // ROSA's level-1 GC is off: with a window it runs invocations at the boundary
                // (its figures before them under `level1_gc.at_boundary`), so the run with a
                // window is not the one without. tests/integration/rosa.rs checks its window.
                "ftl.level1_gc={policy=\"none\"}",
            ],
        ),
        small_preset(
            "melded",
            &[
                "geometry.channels=2",
                "geometry.ways_per_channel=1",
                "geometry.blocks_per_plane=64",
                "geometry.pages_per_block=48",
                "ftl.write_buffer_units=64",
                "ftl.write_buffer_timeout_ns=1000000",
                "ftl.read_policy={policy=\"melded\"}",
                "ftl.host_streams={policy=\"wordlines\", max_open=4, complete_after_mib=1}",
                reliability,
                "scheduler.read_priority=true",
                "scheduler.suspension={policy=\"for_reads\", program_suspend_ns=5000, \
                 erase_suspend_ns=5000}",
            ],
        ),
    ];
    // Per section: whether a warm-up moved any of its counters.
    let mut sections = std::collections::BTreeMap::<String, bool>::new();
    for plain in devices {
        let name = plain.name.clone();
        let pass = every_kind(3, 800, ssdlab::run::logical_capacity_bytes(&plain));
        let open = |reqs: &[TraceRequest]| vec![("t", reqs.to_vec(), ReplayMode::Open)];
        let after = |reqs: &[TraceRequest], shift: u64| -> Vec<TraceRequest> {
            let later = pass.iter().map(|r| TraceRequest {
                arrival_ns: r.arrival_ns + shift,
                ..*r
            });
            reqs.iter().copied().chain(later).collect()
        };
        // (Twice over, so that what only a second visit does, such as updates in place or
        // wear levelling, is in the warm-up too.)
        let warmup = after(&pass, pass.last().unwrap().arrival_ns + 1_000_000);
        let (before, _) = run(&plain, open(&warmup));
        let boundary = at(&before, "sim_time_ns").as_u64().unwrap() + 1_000_000_000;
        let whole = after(&warmup, boundary);
        let mut windowed = plain.clone();
        windowed.statistics.warmup_requests = warmup.len() as u64;
        let (s, _) = run(&windowed, open(&whole));
        let (all, _) = run(&plain, open(&whole));
        let mut leaves = Vec::new();
        numeric_leaves(&all, &mut Vec::new(), &mut leaves);
        for (path, whole) in leaves.into_iter().filter(|(p, _)| is_counter(p)) {
            let key = format!("/{}", path.join("/"));
            let measured = s.pointer(&key).and_then(Value::as_f64);
            let measured = measured.unwrap_or_else(|| panic!("{name}: no {key} with the window"));
            let warmup = before.pointer(&key).and_then(Value::as_f64).unwrap_or(0.0);
            // (Sums of reals are rounded to 3 decimals, each of the three figures.)
            assert!(
                (measured - (whole - warmup)).abs() <= 0.002,
                "{name}: {key} is {measured} with the window, {whole} without, {warmup} in the \
                 warm-up"
            );
            assert!(
                warmup > 0.0 || whole == 0.0,
                "{name}: the warm-up moved no {key}: give it work that does"
            );
            *sections.entry(path[0].clone()).or_default() |= warmup > 0.0;
        }
    }
    let idle: Vec<&String> = (sections.iter())
        .filter(|(_, e)| !**e)
        .map(|(k, _)| k)
        .collect();
    assert!(idle.is_empty(), "sections no warm-up exercised: {idle:?}");
}
