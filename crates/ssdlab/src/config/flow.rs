//! `[[flows]]`: the request sources replayed together, each a trace or a generator.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

use super::checks::{positive, positive_real};
use super::generator::validate_stream_for_trace;
use super::workloads;
use super::{Arrival, GeneratorConfig, HostConfig, ReplayMode, StreamRule};
use crate::error::Error;
use crate::trace::{BlkparseEvent, Caller, ColumnsSpec, TraceFormat};

/// One flow: a trace file, or a generator (inline, or a named workload with inline keys over it).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<PathBuf>,
    /// File format; absent: detected from the file's first lines (or `columns`, with a
    /// `columns` table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<TraceFormat>,
    /// The description of a `columns` trace (see `docs/traces.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<ColumnsSpec>,
    /// Which blkparse event is a request's arrival (`q`, `d` or `c`; blkparse only); absent:
    /// the first of Q, D, C the file holds, written here once the trace is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blkparse_event: Option<BlkparseEvent>,
    /// A named workload (`ssdlab workloads`): its generator, with this flow's `generator` keys
    /// merged over it when the config is resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<GeneratorConfig>,
    #[serde(default)]
    pub mode: Option<ReplayMode>,
    #[serde(default)]
    pub queue_depth: Option<u32>,
    #[serde(default)]
    pub time_scale: Option<f64>,
    /// Added to every address of this flow (to give flows disjoint ranges).
    #[serde(default)]
    pub offset_bytes: u64,
    /// Stream ids for a trace that has none (blkparse, MSR, …): the rule a generator's `stream`
    /// takes, applied to the addresses the file gives (docs/traces.md, "Stream ids"). A
    /// generator gives its own rule (`generator.stream`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamRule>,
    /// Who gave this flow's trace options (a TOML file, unless the command line or Python
    /// added the flow), so that errors name them in that caller's words. Not written out.
    #[serde(skip, default = "toml_caller")]
    pub caller: Caller,
}

fn toml_caller() -> Caller {
    Caller::Toml
}

/// A replay mode and queue depth given for a whole run: `ssdlab run --mode/--queue-depth`,
/// Python's `simulate(mode=..., queue_depth=...)`. Each is set on every flow, the config's own
/// `[[flows]]` and the ones the call adds alike, over the flow's own setting, as if every flow
/// gave it; so a depth on a flow that replays open, or beside a closed-loop generator's own, is
/// refused as it would be in the config (`cross_checks.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayFlags {
    pub mode: Option<ReplayMode>,
    pub queue_depth: Option<u32>,
}

impl ReplayFlags {
    pub(super) fn apply(&self, flow: &mut FlowConfig) {
        if let Some(mode) = self.mode {
            flow.mode = Some(mode);
        }
        if let Some(depth) = self.queue_depth {
            flow.queue_depth = Some(depth);
        }
    }
}

impl FlowConfig {
    /// A flow replaying a trace file (format `None`: detected from its content), added by
    /// `caller`.
    pub fn trace(path: PathBuf, format: Option<TraceFormat>, caller: Caller) -> FlowConfig {
        FlowConfig {
            trace: Some(path),
            format,
            caller,
            ..FlowConfig::empty()
        }
    }

    /// A flow running a named workload's generator.
    pub fn workload(name: &str) -> Result<FlowConfig, Error> {
        Ok(FlowConfig {
            workload: Some(name.to_string()),
            generator: Some(workloads::generator(name)?),
            ..FlowConfig::empty()
        })
    }

    fn empty() -> FlowConfig {
        FlowConfig {
            name: String::new(),
            trace: None,
            format: None,
            columns: None,
            blkparse_event: None,
            workload: None,
            generator: None,
            mode: None,
            queue_depth: None,
            time_scale: None,
            offset_bytes: 0,
            stream: None,
            caller: Caller::Toml,
        }
    }

    /// What the flow replays, for labels: the trace file or the workload.
    pub fn describe(&self) -> String {
        match (&self.trace, &self.workload) {
            (Some(t), _) => format!(
                "{} ({})",
                t.display(),
                self.format.map_or("detected", TraceFormat::name)
            ),
            (None, Some(w)) => format!("workload {w}"),
            (None, None) => "generator".to_string(),
        }
    }

    /// How the flow replays, its own setting or else the host's: the mode and the queue depth
    /// (used in closed mode). A generator with closed-loop arrivals brings both.
    pub fn replay(&self, host: &HostConfig) -> (ReplayMode, u32) {
        match (&self.trace, &self.generator) {
            (
                None,
                Some(GeneratorConfig {
                    arrival: Arrival::Closed { queue_depth },
                    ..
                }),
            ) => (ReplayMode::Closed, *queue_depth),
            _ => (
                self.mode.unwrap_or(host.mode),
                self.queue_depth.unwrap_or(host.queue_depth),
            ),
        }
    }

    /// Flow `index`'s own settings: one source, and a generator's arrivals agree with the mode.
    pub(super) fn validate(&self, index: usize) -> Result<(), Error> {
        let key = |k: &str| format!("flows[{index}].{k}");
        if let Some(ts) = self.time_scale {
            positive_real(&key("time_scale"), ts)?;
        }
        if let Some(depth) = self.queue_depth {
            positive(&key("queue_depth"), depth as u64)?;
        }
        match (&self.trace, &self.generator) {
            // A trace without a format has it detected when the flow is loaded.
            (Some(_), None) => match &self.stream {
                Some(rule) => validate_stream_for_trace(rule, &key("stream")),
                None => Ok(()),
            },
            (None, Some(_)) if self.stream.is_some() => Err(Error::config(
                &key("stream"),
                "a generator's requests take their stream ids from its own `generator.stream`",
            )),
            (None, Some(g)) => {
                g.validate(&key("generator"))?;
                if matches!(g.arrival, Arrival::Closed { .. })
                    && self.mode == Some(ReplayMode::Open)
                {
                    return Err(Error::config(
                        &key("mode"),
                        "the generator's arrivals are closed-loop, the flow's mode open",
                    ));
                }
                Ok(())
            }
            _ => Err(Error::config(
                &key("trace"),
                "a flow replays exactly one of a `trace` and a `generator` (or `workload`)",
            )),
        }
    }
}
