//! Generated flows end to end: named workloads expanded in the config, keys overridden, replayed
//! with the integrity oracle, closed-loop arrivals, determinism.

mod common;

use ssdlab::config::{Config, ReplayMode};
use ssdlab::run::load_flows;
use ssdlab::workload::Arrival;
use ssdlab::{simulate, RunOptions};

/// The `spread` preset with `flows` set to this TOML array (as `--set flows=[...]` would).
fn spread_with(flows: &str) -> Result<Config, ssdlab::Error> {
    Config::resolve("spread", None, &[format!("flows={flows}")])
}

fn verify() -> RunOptions {
    RunOptions {
        verify: true,
        request_log: false,
    }
}

#[test]
fn a_named_workload_with_overrides_runs_clean_and_matches_its_mix() {
    let config = spread_with(
        r#"[{workload = "spread-usr", generator = {requests = 3000, working_set_bytes = 1073741824}}]"#,
    )
    .unwrap();
    // The resolved config carries the whole generator (self-contained results).
    let g = config.flows[0].generator.as_ref().unwrap();
    assert_eq!(g.requests, Some(3000));
    assert_eq!(g.read_fraction, 0.7);
    let flows = load_flows(&mut config.clone()).unwrap();
    // Table II's closed-loop arrivals make the flow closed-loop at the workload's queue depth.
    assert_eq!(flows[0].mode, ReplayMode::Closed);
    assert_eq!(flows[0].queue_depth, 32);
    let s = simulate(&config, &verify()).unwrap().summary;
    assert_eq!(s["integrity"]["violations"], 0);
    assert_eq!(s["requests"]["count"], 3000);
    let reads = s["requests"]["read"].as_f64().unwrap() / 3000.0;
    // Binomial sd at n = 3000, p = 0.7 is 0.0084: 5 sd.
    assert!((reads - 0.7).abs() < 0.042, "{reads}");
    // 16 KiB reads, 4 KiB writes (Table II).
    let rb =
        s["flows"][0]["read_bytes"].as_f64().unwrap() / s["requests"]["read"].as_f64().unwrap();
    assert_eq!(rb, 16384.0, "{s}");
}

#[test]
fn an_arrival_of_another_kind_replaces_the_named_workloads() {
    // SPREAD USR replays closed loop at queue depth 32; a Poisson arrival over it must not keep
    // the closed loop's queue depth (it used to fail as an unknown field).
    let config = spread_with(
        r#"[{workload = "spread-usr", generator = {requests = 500, arrival = {kind = "poisson", iops = 2000.0}}}]"#,
    )
    .unwrap();
    let g = config.flows[0].generator.as_ref().unwrap();
    assert_eq!(g.arrival, Arrival::Poisson { iops: 2000.0 });
    let flows = load_flows(&mut config.clone()).unwrap();
    assert_eq!(flows[0].mode, ReplayMode::Open);
    let s = simulate(&config, &verify()).unwrap().summary;
    assert_eq!(s["integrity"]["violations"], 0);
    // 500 Poisson arrivals at 2,000 IOPS span about 0.25 s (sd 4.5%).
    let span_s = s["span_ns"].as_f64().unwrap() / 1e9;
    assert!((0.2..0.32).contains(&span_s), "{span_s}");
    // And back: a closed loop over an open-loop workload (PR-SSD's) keeps no rate.
    let config = spread_with(
        r#"[{workload = "pr-ssd-office", generator = {requests = 10, working_set_bytes = 1073741824, arrival = {kind = "closed", queue_depth = 4}}}]"#,
    )
    .unwrap();
    let flows = load_flows(&mut config.clone()).unwrap();
    assert_eq!(
        (flows[0].mode, flows[0].queue_depth),
        (ReplayMode::Closed, 4)
    );
    let e = spread_with(
        r#"[{workload = "spread-usr", generator = {arrival = {queue_depth = 4, iops = 5.0}}}]"#,
    )
    .unwrap_err()
    .to_string();
    // The same kind (none named: the named workload's) merges, so a stray key is still an error.
    assert!(e.contains("iops"), "{e}");
}

#[test]
fn generated_runs_are_deterministic_and_follow_the_seed() {
    let toml = r#"[{generator = { requests = 2000, read_fraction = 0.5, working_set_bytes = 268435456, size = { kind = "uniform", min_bytes = 4096, max_bytes = 32768, step_bytes = 4096 }, address = { kind = "zipf", exponent = 0.9 }, arrival = { kind = "poisson", iops = 5000 } }}]"#;
    let run = |seed: u64| {
        let mut c = spread_with(toml).unwrap();
        c.seed = seed;
        let mut s = simulate(&c, &verify()).unwrap().summary;
        s.as_object_mut().unwrap().remove("wall_time_s");
        s
    };
    let a = run(1);
    assert_eq!(a["integrity"]["violations"], 0);
    assert_eq!(a, run(1));
    assert_ne!(a["latency_ns"], run(2)["latency_ns"]);
}

#[test]
fn bad_generators_are_rejected_by_key() {
    let e = spread_with(r#"[{workload = "spread-kv", generator = {read_fraction = 1.5}}]"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("flows[0].generator.read_fraction"), "{e}");
    let e = spread_with(r#"[{workload = "spread-kv", generator = {requests = 0}}]"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("flows[0].generator.requests"), "{e}");
    let e = spread_with(r#"[{workload = "no-such"}]"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown workload `no-such`"), "{e}");
    let e = spread_with(r#"[{trace = "x.csv", format = "msr", workload = "spread-kv"}]"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("flows[0].trace"), "{e}");
}
