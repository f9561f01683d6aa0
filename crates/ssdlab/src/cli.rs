//! The `ssdlab` command line. Exit codes: 0 success, 1 the simulation failed (e.g. the data did
//! not fit), 2 bad input (usage, config, trace), 3 the integrity oracle found violations.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;

use crate::bench::{run_scenario, BenchWorkload};
use crate::config::{preset_names, preset_source, Config, FlowConfig, ReplayMode};
use crate::error::Error;
use crate::run::{load_flows, simulate_flows};
use crate::sim::RunOptions;
use crate::trace::TraceFormat;

#[derive(Parser, Debug)]
#[command(
    name = "ssdlab",
    version,
    about = "Fast, faithful, extensible SSD simulator"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Replay a trace on a simulated SSD and print a summary.
    Run(RunArgs),
    /// List the shipped presets, or print one.
    Presets {
        /// Print this preset's TOML.
        #[arg(long, value_name = "NAME")]
        show: Option<String>,
    },
    /// Measure simulation speed and memory on a generated 1M-request workload.
    Bench {
        /// Requests in the generated trace.
        #[arg(long, default_value_t = 1_000_000)]
        requests: usize,
        /// Which scenario(s) to run.
        #[arg(long, value_enum, default_value_t = Scenario::All)]
        scenario: Scenario,
        /// Print the figures as JSON.
        #[arg(long)]
        json: bool,
        /// Device preset to measure.
        #[arg(long, default_value = "default")]
        preset: String,
        /// Override config keys for both scenarios (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
    },
    /// Write the content of N mapping units, as the `[content]` section makes it, for inspection.
    ContentSample(ContentSampleArgs),
}

#[derive(clap::Args, Debug)]
struct ContentSampleArgs {
    /// Device preset (its mapping unit size and seed are used).
    #[arg(long, default_value = "default")]
    preset: String,
    /// TOML file merged over the preset.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Override any config key, e.g. --set content.zero_unit_fraction=0.06 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Units to write: lpn FIRST_LPN, FIRST_LPN + 1, …
    #[arg(long)]
    units: u32,
    #[arg(long, default_value_t = 0)]
    first_lpn: u32,
    /// Write version of every unit.
    #[arg(long, default_value_t = 0)]
    version: u32,
    /// Output file: the units back to back.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Scenario {
    Fresh,
    Steady,
    All,
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// Device preset (see `ssdlab presets`).
    #[arg(long, default_value = "default")]
    preset: String,
    /// TOML file merged over the preset.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Override any config key, e.g. --set ftl.gc_threshold=0.05 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Trace to replay (adds a flow; repeatable).
    #[arg(long, value_name = "FILE")]
    trace: Vec<PathBuf>,
    /// Format of the --trace files.
    #[arg(long, value_enum, default_value_t = TraceFormat::Msr)]
    format: TraceFormat,
    /// Replay mode of the --trace flows (default: the config's host.mode).
    #[arg(long, value_enum)]
    mode: Option<CliMode>,
    /// Queue depth for closed-loop replay.
    #[arg(long)]
    queue_depth: Option<u32>,
    /// Print the summary as JSON on stdout, and nothing else.
    #[arg(long)]
    json: bool,
    /// Write summary.json, config.toml (and requests.csv with --log-requests) into DIR.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Check every read and the final state against an integrity oracle.
    #[arg(long)]
    verify: bool,
    /// Record one line per request (written to DIR/requests.csv with --out).
    #[arg(long)]
    log_requests: bool,
    /// Random seed (overrides the config's).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum CliMode {
    Open,
    Closed,
}

/// Run the CLI with these arguments (the first is the program name); returns the exit code.
pub fn main_with_args(args: Vec<String>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let result = match cli.command {
        Command::Run(a) => cmd_run(a),
        Command::Presets { show } => cmd_presets(show),
        Command::Bench {
            requests,
            scenario,
            json,
            preset,
            sets,
        } => cmd_bench(requests, scenario, json, &preset, &sets),
        Command::ContentSample(a) => cmd_content_sample(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ssdlab: error: {e}");
            match e {
                Error::Simulation(_) => 1,
                _ => 2,
            }
        }
    }
}

fn cmd_presets(show: Option<String>) -> Result<i32, Error> {
    match show {
        Some(name) => {
            let src = preset_source(&name).ok_or_else(|| Error::UnknownPreset {
                name: name.clone(),
                known: preset_names().join(", "),
            })?;
            out(src);
        }
        None => {
            for name in preset_names() {
                let desc = preset_source(name)
                    .and_then(|s| s.parse::<toml::Table>().ok())
                    .and_then(|t| {
                        t.get("description")
                            .and_then(|d| d.as_str())
                            .map(String::from)
                    })
                    .unwrap_or_default();
                out(&format!("{name:<10} {desc}\n"));
            }
        }
    }
    Ok(0)
}

fn cmd_run(a: RunArgs) -> Result<i32, Error> {
    let mut sets = a.sets.clone();
    if let Some(seed) = a.seed {
        sets.push(format!("seed={seed}"));
    }
    let mut config = Config::resolve(&a.preset, a.config.as_deref(), &sets)?;
    for t in &a.trace {
        config.flows.push(FlowConfig {
            name: String::new(),
            trace: t.clone(),
            format: a.format,
            mode: a.mode.map(|m| match m {
                CliMode::Open => ReplayMode::Open,
                CliMode::Closed => ReplayMode::Closed,
            }),
            queue_depth: a.queue_depth,
            time_scale: None,
            offset_bytes: 0,
        });
    }
    if config.flows.is_empty() {
        return Err(Error::config(
            "flows",
            "no trace to replay: give --trace FILE or [[flows]] in the config",
        ));
    }
    config.validate()?;
    let options = RunOptions {
        verify: a.verify,
        request_log: a.log_requests,
    };
    let flows = load_flows(&config)?;
    let mut progress = Progress::new();
    let result = simulate_flows(&config, flows, &options, &mut |done, total| {
        progress.update(done, total)
    });
    progress.finish();
    let result = result?;
    if let Some(dir) = &a.out {
        write_outputs(dir, &config, &result)?;
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

fn cmd_content_sample(a: ContentSampleArgs) -> Result<i32, Error> {
    let config = Config::resolve(&a.preset, a.config.as_deref(), &a.sets)?;
    let source = crate::content::build(&config.content, config.seed)?;
    let mut buf = vec![0u8; config.ftl.mapping_unit_kib as usize * 1024];
    let file = std::fs::File::create(&a.out).map_err(|e| Error::io(&a.out, e))?;
    let mut w = std::io::BufWriter::new(file);
    let mut zero = 0u32;
    for i in 0..a.units {
        source.fill(a.first_lpn.wrapping_add(i), a.version, &mut buf);
        zero += buf.iter().all(|&b| b == 0) as u32;
        w.write_all(&buf).map_err(|e| Error::io(&a.out, e))?;
    }
    w.flush().map_err(|e| Error::io(&a.out, e))?;
    out(&format!(
        "wrote {} units of {} bytes (lpn {}.., version {}; {zero} all zero) to {}\n",
        a.units,
        buf.len(),
        a.first_lpn,
        a.version,
        a.out.display()
    ));
    Ok(0)
}

fn write_outputs(dir: &Path, config: &Config, r: &crate::RunResult) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let p = dir.join("summary.json");
    let text = serde_json::to_string_pretty(&r.summary).unwrap_or_default() + "\n";
    std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
    let p = dir.join("config.toml");
    let text = toml::to_string(config).unwrap_or_default();
    std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
    if let Some(rows) = &r.requests {
        let p = dir.join("requests.csv");
        let mut w = csv::Writer::from_path(&p).map_err(|e| Error::io(&p, e.into()))?;
        for row in rows {
            w.serialize(row).map_err(|e| Error::io(&p, e.into()))?;
        }
        w.flush().map_err(|e| Error::io(&p, e))?;
    }
    Ok(())
}

/// A progress bar on stderr, shown only for runs longer than a second and only on a terminal.
struct Progress {
    started: Instant,
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            started: Instant::now(),
            bar: None,
            enabled: std::io::stderr().is_terminal(),
        }
    }
    fn update(&mut self, done: u64, total: u64) {
        if !self.enabled || self.started.elapsed() < Duration::from_secs(1) {
            return;
        }
        let elapsed = self.started.elapsed();
        let bar = self.bar.get_or_insert_with(|| {
            // Starts late (after a second): begin at the current position and time, so the rate
            // and ETA are not skewed by the requests done before the bar appeared.
            let b = ProgressBar::new(total)
                .with_position(done)
                .with_elapsed(elapsed);
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} requests, eta {eta}",
            ) {
                b.set_style(style.progress_chars("=> "));
            }
            b
        });
        bar.set_position(done);
    }
    fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// Write to stdout; a closed pipe (`ssdlab ... | head`) ends the output quietly instead of
/// panicking like `print!` would.
fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush());
}

fn us(v: &Value) -> String {
    match v.as_f64() {
        Some(ns) => format!("{:.1} µs", ns / 1000.0),
        None => "-".into(),
    }
}

fn human_summary(s: &Value, config: &Config) -> String {
    let mut o = String::new();
    let flows: Vec<String> = config
        .flows
        .iter()
        .map(|f| format!("{} ({})", f.trace.display(), f.format.name()))
        .collect();
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
        "gc           {} invocations, {} units copied, {} busy; wear levelling {} moves",
        s["gc"]["invocations"],
        s["gc"]["copied_units"],
        us(&s["gc"]["busy_ns"]),
        s["wear_leveling"]["invocations"]
    );
    let _ = writeln!(o, "WAF {}   RAF {}", s["waf"], s["raf"]);
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

fn cmd_bench(
    requests: usize,
    scenario: Scenario,
    json: bool,
    preset: &str,
    user_sets: &[String],
) -> Result<i32, Error> {
    let workload = BenchWorkload {
        requests,
        ..BenchWorkload::default()
    };
    let mut results = Vec::new();
    if scenario != Scenario::Steady {
        let config = Config::resolve(preset, None, user_sets)?;
        results.push(run_scenario("fresh", &config, &workload)?);
        if !json {
            print_bench(results.last());
        }
    }
    if scenario != Scenario::Fresh {
        let mut sets = vec![
            "precondition.fill_fraction=0.8".to_string(),
            "precondition.pattern=\"random\"".to_string(),
            "precondition.overwrite_fraction=0.5".to_string(),
        ];
        sets.extend_from_slice(user_sets);
        let config = Config::resolve(preset, None, &sets)?;
        results.push(run_scenario(
            "steady (80% fill + 50% random overwrites)",
            &config,
            &workload,
        )?);
        if !json {
            print_bench(results.last());
        }
    }
    if json {
        out(&(serde_json::to_string_pretty(&results).unwrap_or_default() + "\n"));
    }
    Ok(0)
}

fn print_bench(v: Option<&Value>) {
    let Some(v) = v else { return };
    out(&format!(
        "{}: {} requests in {} s = {} requests/s; preconditioning {} s; peak RSS {} MiB; \
         GC invocations {}; WAF {}\n",
        v["scenario"].as_str().unwrap_or(""),
        v["requests"],
        v["run_wall_s"],
        v["requests_per_wall_s"],
        v["precondition_wall_s"],
        v["peak_rss_mib"],
        v["gc_invocations"],
        v["waf"]
    ));
}

use std::fmt::Write as _;
