//! One call from a config to a result: load the flows' traces (or set up their generators), build and precondition the
//! device, run, summarise.

use std::time::Instant;

use serde_json::{json, Value};

use crate::config::{Config, FlowConfig};
use crate::error::Error;
use crate::sim::{Flow, Phase, RequestRecord, RunOptions, Simulation, SnapshotUse, VecSource};
use crate::trace::{load_trace_as, BlkparseEvent, Caller, LoadOptions, Trace, TraceFormat};
use crate::workload::{GeneratorSource, RequestSource};

pub struct RunResult {
    /// The JSON summary (see `docs/results.md`).
    pub summary: Value,
    /// One record per request, when `RunOptions::request_log` was set.
    pub requests: Option<Vec<RequestRecord>>,
    /// The device snapshot the run used (`RunOptions::snapshot`), and how.
    pub snapshot: Option<(std::path::PathBuf, SnapshotUse)>,
}

/// Logical capacity of a validated config, in bytes.
pub fn logical_capacity_bytes(config: &Config) -> u64 {
    let g = crate::device::geometry(config);
    config.ftl.logical_units(g.physical_units()) as u64 * g.unit_bytes as u64
}

/// Load every flow named in `config.flows`: read its trace, or set up its generator. A trace
/// flow without a format gets the detected one written into its config (and a blkparse flow
/// without an event the one chosen), so that the resolved config (written into every result)
/// records what was read. Each trace file is opened once (a FIFO works). A flow with no request
/// to replay is an error ([`Error::NothingToReplay`]): every run, from the command line, Python
/// or an experiment, comes through here.
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
                        format: flow_format(f, i)?,
                        capacity_bytes: Some(capacity.saturating_sub(f.offset_bytes)),
                        out_of_range: host.out_of_range,
                        blkparse_event: f.blkparse_event,
                        columns: f
                            .columns
                            .as_ref()
                            .map(|spec| {
                                spec.parser().map_err(|source| Error::Columns {
                                    option: columns_option(f.caller, i),
                                    source,
                                })
                            })
                            .transpose()?,
                        stream: f.stream.clone(),
                        caller: f.caller,
                    };
                    let (trace, format) = load_trace_as(path, &opts)?;
                    if trace.requests.is_empty() {
                        return Err(Error::NothingToReplay {
                            flow: path.display().to_string(),
                            reason: why_empty(&trace, format, f.blkparse_event, f.caller),
                        });
                    }
                    f.format = Some(format);
                    if format == TraceFormat::Blkparse {
                        f.blkparse_event = trace.blkparse_event;
                    }
                    Box::new(VecSource::new(trace.requests))
                }
                (None, Some(g)) => {
                    let source = GeneratorSource::new(g.clone(), flow_seed(seed, i));
                    if source.is_empty() {
                        return Err(Error::NothingToReplay {
                            flow: format!("flow `{name}`"),
                            reason: "its generator draws no request: its first arrival comes \
                                     after `duration_ns`"
                                .to_string(),
                        });
                    }
                    Box::new(source)
                }
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

/// The format a trace flow is read as: its `format`, or `columns` when it has only a `columns`
/// description; a description beside another format is an error naming flow `index`'s key.
fn flow_format(f: &FlowConfig, index: usize) -> Result<Option<TraceFormat>, Error> {
    match (&f.columns, f.format) {
        (Some(_), None | Some(TraceFormat::Columns)) => Ok(Some(TraceFormat::Columns)),
        (Some(_), Some(other)) => Err(Error::config(
            &format!("flows[{index}].columns"),
            format!("a columns description goes with format `columns`, not `{other}`"),
        )),
        (None, format) => Ok(format),
    }
}

/// How `caller` gave flow `index`'s columns description, for its errors.
fn columns_option(caller: Caller, index: usize) -> String {
    match caller {
        Caller::Cli => "--columns".to_string(),
        Caller::Python => "format={...}".to_string(),
        Caller::Toml => format!("flows[{index}].columns"),
    }
}

/// Why a trace read as `format` gave no request, and what to do, in `caller`'s words.
/// `event` is the blkparse event asked for (`None`: the first of Q, D, C present was sought).
fn why_empty(
    trace: &Trace,
    format: TraceFormat,
    event: Option<BlkparseEvent>,
    caller: Caller,
) -> String {
    let lines = trace.skipped_lines;
    if lines == 0 {
        return "the file is empty; give a trace that holds requests".to_string();
    }
    let read = format!(
        "none of its {lines} lines is a request as format `{format}` reads it (blank lines, \
         comments, headers and records the format skips)"
    );
    match (format, event) {
        (TraceFormat::Blkparse, Some(asked)) => {
            let others: Vec<String> = BlkparseEvent::ALL
                .into_iter()
                .filter(|e| *e != asked)
                .map(|e| caller.blkparse_event_option(e.name()))
                .collect();
            format!(
                "{read}; only `{}` events were read, as asked: choose another event ({}), or \
                 give none to use the first of Q, D, C the file holds",
                asked.action(),
                others.join(" or ")
            )
        }
        (TraceFormat::Blkparse, None) => format!(
            "{read}; it holds no Q, D or C event with data: is it blkparse's default text output \
             of a capture with I/O?"
        ),
        _ => format!("{read}; check the format and the file"),
    }
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

/// Check that `config` has something to replay, validate it, load the flows and run them. The
/// config keeps the detected trace formats, as results record it. A command line or a Python call
/// adds the traces and workloads it names when resolving the config
/// ([`Config::resolve_with_flows`]), so that their named workloads' content applies.
pub fn simulate_with(
    config: &mut Config,
    options: &RunOptions,
    progress: &mut dyn FnMut(Phase, u64, u64),
) -> Result<RunResult, Error> {
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
        requests: sim.take_log(),
        snapshot: sim.take_snapshot(),
    })
}
