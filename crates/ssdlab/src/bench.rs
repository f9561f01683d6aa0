//! `ssdlab bench`: the engine's standing performance measurement. A generated trace (70% reads,
//! 4–64 KiB in 4 KiB steps, uniform over 16 GiB, Poisson arrivals at 20 k IOPS) is replayed on the
//! `default` preset once fresh and once preconditioned to 80% with random overwrites so that GC
//! is active, reporting host requests simulated per wall-second and the process's peak RSS.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;
use serde_json::{json, Value};

use crate::config::Config;
use crate::error::Error;
use crate::sim::{Flow, RequestSource, RunOptions, Simulation};
use crate::trace::{Op, TraceRequest};

/// Parameters of the benchmark workload.
#[derive(Clone, Debug)]
pub struct BenchWorkload {
    pub requests: usize,
    pub read_fraction: f64,
    pub min_kib: u64,
    pub max_kib: u64,
    pub span_bytes: u64,
    pub iops: f64,
    pub seed: u64,
}

impl Default for BenchWorkload {
    fn default() -> Self {
        BenchWorkload {
            requests: 1_000_000,
            read_fraction: 0.7,
            min_kib: 4,
            max_kib: 64,
            span_bytes: 16 << 30,
            iops: 20_000.0,
            seed: 1,
        }
    }
}

impl BenchWorkload {
    /// The request sequence as a generator (deterministic in the seed; nothing is stored).
    pub fn source(&self) -> BenchSource {
        BenchSource::new(self.clone())
    }
}

/// Generates the benchmark workload on demand.
pub struct BenchSource {
    w: BenchWorkload,
    rng: Pcg64Mcg,
    gap: Exp<f64>,
    issued: usize,
    t: f64,
}

impl BenchSource {
    fn new(w: BenchWorkload) -> BenchSource {
        let gap = Exp::new(w.iops / 1e9).unwrap_or_else(|_| unreachable!("iops is positive"));
        BenchSource {
            rng: Pcg64Mcg::seed_from_u64(w.seed),
            gap,
            issued: 0,
            t: 0.0,
            w,
        }
    }
}

impl RequestSource for BenchSource {
    fn len(&self) -> u64 {
        self.w.requests as u64
    }
    fn rewind(&mut self) {
        *self = BenchSource::new(self.w.clone());
    }
    fn next_request(&mut self) -> Option<TraceRequest> {
        if self.issued == self.w.requests {
            return None;
        }
        self.issued += 1;
        let rng = &mut self.rng;
        let kib = 4 * rng.gen_range(self.w.min_kib / 4..=self.w.max_kib / 4);
        let size = kib * 1024;
        let slots = (self.w.span_bytes - size) / 4096;
        let offset = rng.gen_range(0..=slots) * 4096;
        let op = if rng.gen_bool(self.w.read_fraction) {
            Op::Read
        } else {
            Op::Write
        };
        let r = TraceRequest {
            arrival_ns: self.t as u64,
            offset_bytes: offset,
            size_bytes: size,
            op,
        };
        self.t += self.gap.sample(rng);
        Some(r)
    }
}

/// Peak resident set size of this process so far, in MiB (Linux `VmHWM`; None elsewhere).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kib / 1024.0 * 10.0).round() / 10.0)
}

/// Run one scenario and report its figures.
pub fn run_scenario(name: &str, config: &Config, workload: &BenchWorkload) -> Result<Value, Error> {
    let n = workload.requests as u64;
    let flow = Flow::from_source(
        "bench".into(),
        Box::new(workload.source()),
        config.host.mode,
        config.host.queue_depth,
        1.0,
        0,
    );
    let t0 = Instant::now();
    let mut sim = Simulation::new(config.clone(), vec![flow], RunOptions::default())?;
    let precondition_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    sim.run()?;
    let run_s = t1.elapsed().as_secs_f64();
    let s = sim.summary();
    Ok(json!({
        "scenario": name,
        "requests": n,
        "precondition_wall_s": round(precondition_s),
        "run_wall_s": round(run_s),
        "requests_per_wall_s": (n as f64 / run_s).round(),
        "events": sim.events_processed,
        "flash_ops": s["flash_ops"].clone(),
        "peak_rss_mib": peak_rss_mib(),
        "gc_invocations": s["gc"]["invocations"],
        "waf": s["waf"],
        "read_latency_mean_ns": s["latency_ns"]["read"]["mean"],
        "write_latency_p99_ns": s["latency_ns"]["write"]["p99"],
        "device_logical_gib": s["capacity"]["logical_bytes"].as_u64().map(|b| round(b as f64 / (1u64 << 30) as f64)),
        "precondition": s["precondition"],
    }))
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
