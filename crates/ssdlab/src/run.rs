//! One call from a config to a result: load the flows' traces (or set up their generators), build and precondition the
//! device, run, summarise.

use std::time::Instant;

use serde_json::{json, Value};

use crate::config::{Config, FlowConfig};
use crate::error::Error;
use crate::flash::Geometry;
use crate::sim::{Flow, Phase, RequestRecord, RequestSource, RunOptions, Simulation, VecSource};
use crate::trace::{load_trace_as, LoadOptions};
use crate::workload::GeneratorSource;

pub struct RunResult {
    /// The JSON summary (see `docs/results.md`).
    pub summary: Value,
    /// One record per request, when `RunOptions::request_log` was set.
    pub requests: Option<Vec<RequestRecord>>,
}

/// Logical capacity of a validated config, in bytes.
pub fn logical_capacity_bytes(config: &Config) -> u64 {
    let g = Geometry::new(config);
    crate::ftl::logical_units(config, &g) as u64 * g.unit_bytes as u64
}

/// Load every flow named in `config.flows`: read its trace, or set up its generator. A trace
/// flow without a format gets the detected one written into its config, so that the resolved
/// config (written into every result) records the format used. Each trace file is opened once
/// (a FIFO works).
pub fn load_flows(config: &mut Config) -> Result<Vec<Flow>, Error> {
    let capacity = logical_capacity_bytes(config);
    let host = config.host.clone();
    let seed = config.seed;
    config
        .flows
        .iter_mut()
        .enumerate()
        .map(|(i, f)| {
            let name = if !f.name.is_empty() {
                f.name.clone()
            } else if let Some(w) = &f.workload {
                w.clone()
            } else if let Some(t) = &f.trace {
                t.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| format!("flow{i}"))
            } else {
                format!("flow{i}")
            };
            let (mode, queue_depth) = f.replay(&host);
            let time_scale = f.time_scale.unwrap_or(host.time_scale);
            let source: Box<dyn RequestSource> = match (&f.trace, &f.generator) {
                (Some(path), _) => {
                    let opts = LoadOptions {
                        format: f.format,
                        capacity_bytes: Some(capacity.saturating_sub(f.offset_bytes)),
                        out_of_range: host.out_of_range,
                        blkparse_event: f.blkparse_event,
                    };
                    let (trace, format) = load_trace_as(path, &opts)?;
                    f.format = Some(format);
                    Box::new(VecSource::new(trace.requests))
                }
                (None, Some(g)) => Box::new(GeneratorSource::new(g.clone(), flow_seed(seed, i))),
                (None, None) => {
                    return Err(Error::config(
                        &format!("flows[{i}].trace"),
                        "a flow needs a `trace` or a `generator`",
                    ))
                }
            };
            Ok(Flow::from_source(
                name,
                source,
                mode,
                queue_depth,
                time_scale,
                f.offset_bytes,
            ))
        })
        .collect()
}

/// The seed of flow `index`'s generator when it sets none: the run's seed mixed with the index,
/// so flows draw independent streams and the whole run still follows from one seed.
fn flow_seed(seed: u64, index: usize) -> u64 {
    seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (index as u64 + 1).wrapping_mul(0xbf58_476d_1ce4_e5b9)
}

/// Run the flows of `config` to completion.
pub fn simulate(config: &Config, options: &RunOptions) -> Result<RunResult, Error> {
    let mut config = config.clone();
    let flows = load_flows(&mut config)?;
    simulate_flows(&config, flows, options, &mut |_, _, _| {})
}

/// Add `extra` flows to `config` (the traces and workloads a command line or a Python call
/// names), check that there is something to replay, validate, load the flows and run them. The
/// config keeps the detected trace formats, as results record it.
pub fn simulate_with(
    config: &mut Config,
    extra: Vec<FlowConfig>,
    options: &RunOptions,
    progress: &mut dyn FnMut(Phase, u64, u64),
) -> Result<RunResult, Error> {
    config.flows.extend(extra);
    if config.flows.is_empty() {
        return Err(Error::config(
            "flows",
            "nothing to replay: give a trace, a workload or [[flows]] in the config",
        ));
    }
    config.validate()?;
    let flows = load_flows(config)?;
    simulate_flows(config, flows, options, progress)
}

/// Run the given flows; `progress(phase, done, total)` is called now and then: units written
/// while preconditioning, then host requests completed.
pub fn simulate_flows(
    config: &Config,
    flows: Vec<Flow>,
    options: &RunOptions,
    progress: &mut dyn FnMut(Phase, u64, u64),
) -> Result<RunResult, Error> {
    let started = Instant::now();
    let mut sim = Simulation::with_progress(config.clone(), flows, options.clone(), progress)?;
    let total = sim.total_requests();
    sim.run_with_progress(1 << 16, &mut |s| {
        progress(Phase::Replay, s.processed_requests(), total)
    })?;
    progress(Phase::Replay, sim.processed_requests(), total);
    let mut summary = sim.summary();
    summary["wall_time_s"] = json!((started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0);
    Ok(RunResult {
        summary,
        requests: sim.log.take(),
    })
}
