//! Generated flows end to end: named workloads expanded in the config, keys overridden, replayed
//! with the integrity oracle, closed-loop arrivals, determinism.

use ssdlab::config::Arrival;
use ssdlab::config::{Config, ReplayMode};
use ssdlab::run::load_flows;
use ssdlab::{simulate, RunOptions};

/// The `spread` preset with `flows` set to this TOML array (as `--set flows=[...]` would).
fn spread_with(flows: &str) -> Result<Config, ssdlab::Error> {
    Config::resolve("spread", None, &[format!("flows={flows}")])
}

fn verify() -> RunOptions {
    RunOptions {
        verify: true,
        request_log: false,
        ..RunOptions::default()
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

/// What IPU's two trace tables give, measured on a generated request stream
/// (docs/workloads.md, "The IPU workloads", defines each figure).
struct Measured {
    requests: usize,
    writes: usize,
    write_ratio: f64,
    /// Shares of all requests with size in (0, 4K], (4K, 8K], > 8K.
    size_shares: [f64; 3],
    write_mean_bytes: f64,
    /// Standard deviation of the write sizes, for the mean's standard error.
    write_sd_bytes: f64,
    /// Share of writes covering a 4 KiB unit written earlier in the run.
    update_ratio: f64,
    /// Share of writes covering a 4 KiB unit written at least twice earlier in the run (IPU's Hot
    /// level: data updated at least twice once this write lands).
    hot_share: f64,
}

fn measure(requests: &[ssdlab::trace::TraceRequest]) -> Measured {
    use ssdlab::trace::Op;
    let mut written: std::collections::HashMap<u64, u32> = Default::default();
    let (mut classes, mut writes, mut updates, mut hot) = ([0usize; 3], 0, 0, 0);
    let (mut sum, mut sum_sq) = (0.0, 0.0);
    for r in requests {
        classes[match r.size_bytes {
            0..=4096 => 0,
            4097..=8192 => 1,
            _ => 2,
        }] += 1;
        if r.op != Op::Write {
            continue;
        }
        writes += 1;
        let size = r.size_bytes as f64;
        sum += size;
        sum_sq += size * size;
        let units = r.offset_bytes / 4096..(r.offset_bytes + r.size_bytes).div_ceil(4096);
        let before = units
            .clone()
            .map(|u| written.get(&u).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        updates += usize::from(before >= 1);
        hot += usize::from(before >= 2);
        for u in units {
            *written.entry(u).or_insert(0) += 1;
        }
    }
    let n = requests.len() as f64;
    let w = writes as f64;
    let mean = sum / w;
    Measured {
        requests: requests.len(),
        writes,
        write_ratio: w / n,
        size_shares: classes.map(|c| c as f64 / n),
        write_mean_bytes: mean,
        write_sd_bytes: (sum_sq / w - mean * mean).sqrt(),
        update_ratio: updates as f64 / w,
        hot_share: hot as f64 / w,
    }
}

/// Every request of a named workload, with some generator keys replaced, drawn with seed 1.
fn generate(name: &str, sets: &[&str]) -> Vec<ssdlab::trace::TraceRequest> {
    use ssdlab::workload::RequestSource;
    let mut table = ssdlab::config::workloads::generator_table(name).unwrap();
    for s in sets {
        table.extend(s.parse::<toml::Table>().unwrap());
    }
    let g: ssdlab::config::GeneratorConfig = toml::Value::Table(table).try_into().unwrap();
    g.validate(name).unwrap();
    let mut source = ssdlab::workload::GeneratorSource::new(g, 1);
    std::iter::from_fn(|| source.next_request()).collect()
}

/// IPU (ipu-slc-partial-programming.txt): the motivation table (update ratio; shares of requests
/// in (0,4K], (4K,8K], >8K) and the benchmark table (requests, write ratio, mean write size in KB,
/// hot-write share), in percent; and the hot share we target where the paper's cannot be met.
const IPU_TABLES: [(&str, [f64; 4], [f64; 4], f64); 6] = [
    (
        "ipu-ts0",
        [78.3, 69.8, 17.9, 12.3],
        [1_801_734.0, 82.4, 8.0, 50.5],
        50.5,
    ),
    (
        "ipu-wdev0",
        [76.5, 73.2, 6.8, 20.1],
        [1_143_261.0, 79.9, 8.2, 58.2],
        58.2,
    ),
    (
        "ipu-lun1",
        [49.8, 85.2, 7.3, 7.5],
        [1_073_405.0, 73.1, 7.6, 10.0],
        10.0,
    ),
    (
        "ipu-usr0",
        [54.4, 66.3, 12.1, 21.6],
        [2_237_889.0, 59.6, 10.3, 36.5],
        36.5,
    ),
    // A hot write is an update, so the hot share can be at most the update ratio: lun2's 8.5% and
    // ads's 18.3% exceed theirs (7.4%, 7.6%); we target the update ratio (docs/workloads.md).
    (
        "ipu-lun2",
        [7.4, 92.6, 2.5, 4.9],
        [1_758_887.0, 19.3, 9.7, 8.5],
        7.4,
    ),
    (
        "ipu-ads",
        [7.6, 74.5, 14.1, 11.4],
        [1_532_120.0, 9.5, 7.0, 18.3],
        7.6,
    ),
];

/// Five standard deviations of a share `p` estimated from `n` independent draws.
fn five_sd(p: f64, n: usize) -> f64 {
    5.0 * (p * (1.0 - p) / n as f64).sqrt()
}

/// Assert `m` matches IPU's tables for `name` (hot share: `hot`, percent) within five standard
/// deviations of its sample size.
fn assert_ipu_tables(
    name: &str,
    m: &Measured,
    update: f64,
    shares: [f64; 3],
    bench: [f64; 4],
    hot: f64,
) {
    let [_, write, write_kb, _] = bench;
    let close = |what: &str, got: f64, want: f64, tol: f64| {
        assert!(
            (got - want).abs() < tol,
            "{name}: {what} {got:.4}, expected {want:.4} ± {tol:.4}"
        );
    };
    // Each request is a write with the write ratio, independently: binomial over the requests.
    close(
        "write ratio",
        m.write_ratio,
        write / 100.0,
        five_sd(write / 100.0, m.requests),
    );
    // Size classes are mixture components drawn per request (the table's shares sum to 100.1
    // for wdev0: weights are relative).
    let total: f64 = shares.iter().sum();
    for (i, share) in shares.iter().enumerate() {
        let p = share / total;
        close("size share", m.size_shares[i], p, five_sd(p, m.requests));
    }
    // The mean's standard error is the sizes' standard deviation over sqrt(writes).
    close(
        "write mean (B)",
        m.write_mean_bytes,
        write_kb * 1024.0,
        5.0 * m.write_sd_bytes / (m.writes as f64).sqrt(),
    );
    // Each write draws its kind independently; the pools' boundary effects are calibrated out
    // (the workload files say how), so the binomial error over the writes bounds the rest.
    let (u, h) = (update / 100.0, hot / 100.0);
    close("update ratio", m.update_ratio, u, five_sd(u, m.writes));
    close("hot-write share", m.hot_share, h, five_sd(h, m.writes));
}

#[test]
fn the_ipu_workloads_match_the_papers_tables() {
    for (name, [update, s4, s8, s_big], bench, hot) in IPU_TABLES {
        let requests = generate(name, &[]);
        // Issue 21: the table's request count scaled down 20x.
        assert_eq!(requests.len() as f64, (bench[0] / 20.0).round(), "{name}");
        let m = measure(&requests);
        eprintln!(
            "{name}: {} requests, writes {:.2}%, sizes {:.2} / {:.2} / {:.2}%, write mean {:.0} B, \
             update {:.2}%, hot {:.2}%",
            m.requests,
            100.0 * m.write_ratio,
            100.0 * m.size_shares[0],
            100.0 * m.size_shares[1],
            100.0 * m.size_shares[2],
            m.write_mean_bytes,
            100.0 * m.update_ratio,
            100.0 * m.hot_share
        );
        assert_ipu_tables(name, &m, update, [s4, s8, s_big], bench, hot);
        // The update ratio and hot share hold on a 4x smaller working set (the experiment sets
        // its own): they come from the write history, not from how crowded the space is.
        let small = measure(&generate(name, &["working_set_bytes = 1073741824"]));
        assert_ipu_tables(name, &small, update, [s4, s8, s_big], bench, hot);
    }
    // The measure can fail: with no updates drawn, new data over 4 GiB rewrites nothing.
    let m = measure(&generate(
        "ipu-ts0",
        &["updates = { update_fraction = 0.0, hot_fraction = 0.0 }"],
    ));
    assert!(m.update_ratio < 0.01, "{}", m.update_ratio);
}

#[test]
fn an_ipu_workload_runs_clean_on_the_ipu_device() {
    let config = Config::resolve(
        "ipu",
        None,
        &[r#"flows=[{workload = "ipu-usr0", generator = {requests = 3000}}]"#.to_string()],
    )
    .unwrap();
    let flows = load_flows(&mut config.clone()).unwrap();
    // Open loop: the traces are replayed at their time stamps.
    assert_eq!(flows[0].mode, ReplayMode::Open);
    let s = simulate(&config, &verify()).unwrap().summary;
    assert_eq!(s["integrity"]["violations"], 0);
    assert_eq!(s["requests"]["count"], 3000);
    // Benchmark table: usr0 writes 59.6% of requests. Binomial sd at n = 3000 is 0.009: 5 sd.
    let writes = s["requests"]["write"].as_f64().unwrap() / 3000.0;
    assert!((writes - 0.596).abs() < 0.045, "{writes}");
}
