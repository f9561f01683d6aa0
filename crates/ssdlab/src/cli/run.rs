//! `ssdlab run`: replay traces and workloads on a simulated SSD, print or write the summary.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::{Config, FlowConfig, ReplayFlags, ReplayMode};
use crate::error::Error;
use crate::run::simulate_with;
use crate::sim::{Phase, RunOptions, SnapshotUse};
use crate::trace::{Caller, TraceFormat};

use super::request_log::{self, LogFormat};
use super::trace::{say_chosen_event, ReadArgs};
use super::{out, DeviceArgs, Progress};

#[derive(clap::Args, Debug)]
pub(super) struct RunArgs {
    #[command(flatten)]
    device: DeviceArgs,
    /// Trace to replay (adds a flow; repeatable).
    #[arg(long, value_name = "FILE")]
    trace: Vec<PathBuf>,
    /// Named workload to run (adds a generated flow; repeatable; see `ssdlab workloads`).
    #[arg(long, value_name = "NAME")]
    workload: Vec<String>,
    /// How to read the --trace files.
    #[command(flatten)]
    read: ReadArgs,
    /// Replay mode of every flow: the --trace and --workload ones and the config's [[flows]],
    /// over their own `mode` (default: each flow's own, else host.mode, or a workload's own
    /// arrivals).
    #[arg(long, value_enum)]
    mode: Option<CliMode>,
    /// Queue depth of every flow in closed-loop replay, over their own `queue_depth` (refused
    /// for a flow that replays open, or whose generator keeps its own depth).
    #[arg(long)]
    queue_depth: Option<u32>,
    /// Print the summary as JSON on stdout, and nothing else.
    #[arg(long)]
    json: bool,
    /// Write summary.json, config.toml (and the request log with --log-requests) into DIR.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Check every read and the final state against an integrity oracle.
    #[arg(long)]
    verify: bool,
    /// Record one row per request into DIR/requests.csv, or DIR/requests.parquet with
    /// --log-requests=parquet (needs --out).
    #[arg(
        long,
        value_name = "FORMAT",
        requires = "out",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "csv"
    )]
    log_requests: Option<LogFormat>,
    /// Random seed (overrides the config's).
    #[arg(long)]
    seed: Option<u64>,
    /// Load the preconditioned device from a snapshot instead of preconditioning, or
    /// precondition and save it: PATH is a folder of snapshots by key (created if need be), or
    /// one snapshot file, refused unless it is of this device (docs/snapshots.md).
    #[arg(long, value_name = "PATH")]
    snapshot: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum CliMode {
    Open,
    Closed,
}

pub(super) fn run(a: RunArgs) -> Result<i32, Error> {
    let seed: Vec<String> = a.seed.iter().map(|s| format!("seed={s}")).collect();
    let mode = a.mode.map(|m| match m {
        CliMode::Open => ReplayMode::Open,
        CliMode::Closed => ReplayMode::Closed,
    });
    let (format, columns) = (a.read.format()?, a.read.columns()?);
    let added = a
        .trace
        .iter()
        .map(|t| {
            let mut flow = FlowConfig::trace(t.clone(), format, Caller::Cli);
            flow.columns.clone_from(&columns);
            flow.blkparse_event = a.read.blkparse_event;
            Ok(flow)
        })
        .chain(a.workload.iter().map(|w| FlowConfig::workload(w)))
        .collect::<Result<Vec<_>, Error>>()?;
    let replay = ReplayFlags {
        mode,
        queue_depth: a.queue_depth,
    };
    let options = RunOptions {
        verify: a.verify,
        request_log: a.log_requests.is_some(),
        snapshot: a.snapshot,
    };
    let mut config = a.device.resolve(&seed, added, replay)?;
    // Flows without a blkparse event get one chosen while loading; say which.
    let unchosen: Vec<bool> = config
        .flows
        .iter()
        .map(|f| f.blkparse_event.is_none())
        .collect();
    let mut progress = Progress::new(Phase::Replay.counts());
    let result = simulate_with(&mut config, &options, &mut |phase, done, total| {
        progress.simulation(phase, done, total)
    });
    progress.finish();
    let result = result?;
    match &result.snapshot {
        Some((path, SnapshotUse::Loaded)) => {
            eprintln!("ssdlab: device loaded from {}", path.display())
        }
        Some((path, SnapshotUse::Saved)) => {
            eprintln!("ssdlab: preconditioned device saved to {}", path.display())
        }
        Some((_, SnapshotUse::Unneeded)) => {
            eprintln!("ssdlab: no snapshot saved: preconditioning wrote nothing")
        }
        None => {}
    }
    for (f, unchosen) in config.flows.iter().zip(unchosen) {
        if let (true, Some(TraceFormat::Blkparse), Some(path), Some(event)) =
            (unchosen, f.format, &f.trace, f.blkparse_event)
        {
            say_chosen_event(path, event);
        }
    }
    if let Some(dir) = &a.out {
        write_outputs(dir, &config, &result, a.log_requests)?;
    }
    let s = &result.summary;
    if a.json {
        out(&(serde_json::to_string_pretty(s).unwrap_or_default() + "\n"));
    } else {
        out(&human_summary(s, &config));
    }
    let violations = s["integrity"]["violations"].as_u64().unwrap_or(0);
    if violations > 0 {
        eprintln!("ssdlab: integrity oracle found {violations} violations");
        for m in s["integrity"]["messages"].as_array().into_iter().flatten() {
            eprintln!("  {}", m.as_str().unwrap_or_default());
        }
        return Ok(3);
    }
    Ok(0)
}

fn write_outputs(
    dir: &Path,
    config: &Config,
    r: &crate::RunResult,
    log: Option<LogFormat>,
) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let p = dir.join("summary.json");
    let text = serde_json::to_string_pretty(&r.summary).unwrap_or_default() + "\n";
    std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
    let p = dir.join("config.toml");
    let text = toml::to_string(config).unwrap_or_default();
    std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
    if let (Some(rows), Some(format)) = (&r.requests, log) {
        request_log::write(dir, rows, format)?;
    }
    Ok(())
}

fn us(v: &Value) -> String {
    match v.as_f64() {
        Some(ns) => format!("{:.1} µs", ns / 1000.0),
        None => "-".into(),
    }
}

fn human_summary(s: &Value, config: &Config) -> String {
    let mut o = String::new();
    let flows: Vec<String> = config.flows.iter().map(|f| f.describe()).collect();
    let _ = writeln!(
        o,
        "ssdlab {} | preset {} | seed {} | {}",
        s["version"].as_str().unwrap_or(""),
        config.name,
        config.seed,
        flows.join(", ")
    );
    let gib = |b: &Value| b.as_f64().unwrap_or(0.0) / (1u64 << 30) as f64;
    let _ = writeln!(
        o,
        "device       {:.1} GiB logical / {:.1} GiB raw",
        gib(&s["capacity"]["logical_bytes"]),
        gib(&s["capacity"]["physical_bytes"])
    );
    let r = &s["requests"];
    let _ = writeln!(
        o,
        "requests     {} ({} read, {} write, {} trim) over {:.3} s simulated",
        r["count"],
        r["read"],
        r["write"],
        r["trim"],
        s["sim_time_ns"].as_f64().unwrap_or(0.0) / 1e9
    );
    for kind in ["read", "write", "all"] {
        let l = &s["latency_ns"][kind];
        let _ = writeln!(
            o,
            "latency {kind:<5} mean {:>11}  p50 {:>11}  p99 {:>11}  p99.9 {:>11}  max {:>11}",
            us(&l["mean"]),
            us(&l["p50"]),
            us(&l["p99"]),
            us(&l["p999"]),
            us(&l["max"])
        );
    }
    let _ = writeln!(
        o,
        "throughput   {} IOPS, {} MiB/s",
        s["iops"], s["bandwidth_mib_s"]
    );
    let flows = s["flows"].as_array().map(Vec::as_slice).unwrap_or_default();
    if flows.len() > 1 {
        for f in flows {
            let _ = writeln!(
                o,
                "  flow {:<20} {} requests, read mean {}, write mean {}, {} IOPS",
                f["name"].as_str().unwrap_or(""),
                f["requests"]["count"],
                us(&f["latency_ns"]["read"]["mean"]),
                us(&f["latency_ns"]["write"]["mean"]),
                f["iops"]
            );
        }
    }
    let ops = &s["flash_ops"];
    let _ = writeln!(
        o,
        "flash ops    read {} (host {}, gc {}), program {} (host {}, gc {}), erase {}",
        ops["read"]["total"],
        ops["read"]["host"],
        ops["read"]["gc"],
        ops["program"]["total"],
        ops["program"]["host"],
        ops["program"]["gc"],
        ops["erase"]["total"]
    );
    let _ = writeln!(
        o,
        "reads        {} joined a queued command of their page; {:.1} MiB sensed, {:.1} MiB moved",
        s["merged_reads"],
        mib(&s["bytes"]["sensed"]),
        mib(&s["bytes"]["read_transferred"])
    );
    let _ = writeln!(
        o,
        "gc           {} invocations, {} units copied, {} busy; wear levelling {} moves",
        s["gc"]["invocations"],
        s["gc"]["copied_units"],
        us(&s["gc"]["busy_ns"]),
        s["wear_leveling"]["invocations"]
    );
    let _ = writeln!(o, "WAF {}   RAF {}", s["waf"], s["raf"]);
    let e = &s["energy_uj"];
    let _ = writeln!(
        o,
        "energy       {} µJ: read {} (sensing {}, transfer {}), program {}, erase {}",
        e["total"], e["read"], e["read_sense"], e["read_transfer"], e["program"], e["erase"]
    );
    let _ = writeln!(
        o,
        "utilisation  die mean {} max {}, channel mean {} max {}",
        s["utilization"]["die"]["mean"],
        s["utilization"]["die"]["max"],
        s["utilization"]["channel"]["mean"],
        s["utilization"]["channel"]["max"]
    );
    let i = &s["integrity"];
    if i["enabled"].as_bool() == Some(true) {
        let _ = writeln!(
            o,
            "integrity    {} unit reads checked, {} units swept at the end, {} violations",
            i["checked_reads"], i["swept_units"], i["violations"]
        );
    }
    o
}

fn mib(bytes: &serde_json::Value) -> f64 {
    bytes.as_u64().unwrap_or(0) as f64 / 1048576.0
}
