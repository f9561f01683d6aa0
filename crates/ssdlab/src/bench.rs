//! `ssdlab bench`: the engine's standing performance measurement. A generated trace (70% reads,
//! 4–64 KiB in 4 KiB steps, uniform over 16 GiB, Poisson arrivals at 20 k IOPS) is replayed on the
//! `default` preset once fresh and once preconditioned to 80% with random overwrites so that GC
//! is active, reporting host requests simulated per wall-second and the process's peak RSS.

use std::time::Instant;

use serde_json::{json, Value};

use crate::config::Config;
use crate::config::{Arrival, GeneratorConfig, SizeDist};
use crate::error::Error;
use crate::sim::{Flow, RunOptions, Simulation};
use crate::workload::{GeneratorSource, RequestSource};

/// The benchmark workload: `requests` requests, 70% reads, 4–64 KiB in 4 KiB steps, uniform
/// over 16 GiB, Poisson arrivals at 20 k IOPS, seed 1 — generated on the fly, nothing stored.
pub fn bench_workload(requests: u64) -> GeneratorConfig {
    let size = SizeDist::Uniform {
        min_bytes: 4096,
        max_bytes: 65536,
        step_bytes: 4096,
    };
    GeneratorConfig {
        seed: Some(1),
        ..GeneratorConfig::new(
            requests,
            0.7,
            16 << 30,
            size,
            Arrival::Poisson { iops: 20_000.0 },
        )
    }
}

/// Peak resident set size of this process so far, in MiB (Linux `VmHWM`; None elsewhere).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kib / 1024.0 * 10.0).round() / 10.0)
}

/// Run one scenario and report its figures; with `event_costs` (in a build with the
/// `event-costs` feature), also where the run's time went by kind of event (`event_costs` in the
/// JSON; the metered run is slightly slower).
pub fn run_scenario(
    name: &str,
    config: &Config,
    workload: &GeneratorConfig,
    event_costs: bool,
) -> Result<Value, Error> {
    workload.validate("bench")?;
    let source = GeneratorSource::new(workload.clone(), config.seed);
    let n = source.len();
    let flow = Flow::from_source(
        "bench".into(),
        Box::new(source),
        config.host.mode,
        config.host.queue_depth,
        1.0,
        0,
    );
    let t0 = Instant::now();
    let mut sim = Simulation::new(config.clone(), vec![flow], RunOptions::default())?;
    let precondition_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    #[cfg(feature = "event-costs")]
    let costs = if event_costs {
        Some(sim.run_metered()?)
    } else {
        sim.run()?;
        None
    };
    #[cfg(not(feature = "event-costs"))]
    {
        // The CLI refuses `--event-costs` in a build without the feature.
        debug_assert!(!event_costs);
        sim.run()?;
    }
    let run_s = t1.elapsed().as_secs_f64();
    let s = sim.summary();
    let v = json!({
        "scenario": name,
        "requests": n,
        "precondition_wall_s": round(precondition_s),
        "run_wall_s": round(run_s),
        "requests_per_wall_s": (n as f64 / run_s).round(),
        "events": sim.events_processed(),
        "flash_ops": s["flash_ops"].clone(),
        "peak_rss_mib": peak_rss_mib(),
        "gc_invocations": s["gc"]["invocations"],
        "waf": s["waf"],
        "read_latency_mean_ns": s["latency_ns"]["read"]["mean"],
        "write_latency_p99_ns": s["latency_ns"]["write"]["p99"],
        "device_logical_gib": s["capacity"]["logical_bytes"].as_u64().map(|b| round(b as f64 / (1u64 << 30) as f64)),
        "precondition": s["precondition"],
    });
    #[cfg(feature = "event-costs")]
    let v = match costs {
        Some(costs) => {
            let mut v = v;
            v["event_costs"] = costs.to_json(run_s * 1e9);
            v
        }
        None => v,
    };
    Ok(v)
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
