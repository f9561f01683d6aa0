//! The `ssdlab` command line. Exit codes: 0 success, 1 the simulation failed (e.g. the data did
//! not fit), 2 bad input (usage, config, trace), 3 the integrity oracle found violations.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;

use crate::bench::{bench_workload, run_scenario};
use crate::config::{preset_names, preset_source, Config, FlowConfig, ReplayMode};
use crate::error::Error;
use crate::run::{load_flows, simulate_flows};
use crate::sim::RunOptions;
use crate::trace::convert::{write_trace, ConvertError, ConvertTarget};
use crate::trace::info::TraceInfo;
use crate::trace::{load_trace_as, BlkparseEvent, LoadOptions, Trace, TraceFormat};

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
    /// List the shipped workloads (generators built from the papers), or print one.
    Workloads {
        /// Print this workload's TOML.
        #[arg(long, value_name = "NAME")]
        show: Option<String>,
    },
    /// Print a trace's statistics: counts, sizes, addresses, times, re-access.
    TraceInfo {
        /// The trace (plain, gzip or zstd).
        file: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        /// Print the statistics as JSON on stdout, and nothing else.
        #[arg(long)]
        json: bool,
    },
    /// Write a trace in the native or the DiskSim format.
    Convert {
        /// The trace to read (plain, gzip or zstd).
        input: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
        /// Output format.
        #[arg(long, value_enum)]
        to: ConvertTarget,
        /// Output file (plain text; `-` for stdout).
        #[arg(short, long, value_name = "OUT")]
        output: PathBuf,
    },
    /// Run an experiment grid (configs × workloads × seeds) on all cores.
    Experiment {
        /// The experiment file (TOML; see docs/experiments.md).
        file: PathBuf,
        /// Folder for runs/*.json, results.csv and report.md (runs already there are reused).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Simulations run at once (default: every core).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
    },
    /// Run a paper's experiment from experiments/ and write a report next to the paper's numbers.
    Reproduce {
        /// The experiment's name: experiments/NAME.toml.
        name: String,
        /// Output folder (default: reproductions/NAME).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Where the experiment files are.
        #[arg(long, value_name = "DIR", default_value = "experiments")]
        experiments: PathBuf,
        /// Simulations run at once (default: every core).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
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
    /// Measure the codecs' compression ratios (and with --bench, throughput) on real files.
    CodecStudy(crate::codec::cli::CodecStudyArgs),
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

/// How to read a trace file.
#[derive(clap::Args, Debug)]
struct ReadArgs {
    /// Trace format (default: detected from the first lines).
    #[arg(long, value_enum)]
    format: Option<TraceFormat>,
    /// blkparse only: the event that marks a request's arrival (queue or dispatch).
    #[arg(long, value_enum, value_name = "EVENT")]
    blkparse_event: Option<BlkparseEvent>,
}

impl ReadArgs {
    /// Load the whole trace at `path`, without a capacity check; returns it
    /// with the format it was read as (detected if not given).
    fn load(&self, path: &Path) -> Result<(Trace, TraceFormat), Error> {
        let opts = LoadOptions {
            format: self.format,
            blkparse_event: self.blkparse_event.unwrap_or_default(),
            ..LoadOptions::default()
        };
        Ok(load_trace_as(path, &opts)?)
    }
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
    /// Named workload to run (adds a generated flow; repeatable; see `ssdlab workloads`).
    #[arg(long, value_name = "NAME")]
    workload: Vec<String>,
    /// Format of the --trace files (default: detected from each file's first lines).
    #[arg(long, value_enum)]
    format: Option<TraceFormat>,
    /// blkparse only: the event that marks a request's arrival (queue or dispatch).
    #[arg(long, value_enum, value_name = "EVENT")]
    blkparse_event: Option<BlkparseEvent>,
    /// Replay mode of the --trace and --workload flows (default: the config's host.mode, or
    /// the workload's own arrivals).
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
        Command::Workloads { show } => cmd_workloads(show),
        Command::Experiment { file, out, jobs } => {
            let command = format!(
                "ssdlab experiment {} --out {}",
                file.display(),
                out.display()
            );
            cmd_experiment(&file, &out, jobs, &command)
        }
        Command::Reproduce {
            name,
            out,
            experiments,
            jobs,
        } => {
            let file = experiments.join(format!("{name}.toml"));
            if !file.is_file() {
                return usage_error(&format!(
                    "no experiment `{name}`: {} does not exist (known: {})",
                    file.display(),
                    known_experiments(&experiments)
                ));
            }
            let out = out.unwrap_or_else(|| Path::new("reproductions").join(&name));
            let command = format!("ssdlab reproduce {name} --out {}", out.display());
            cmd_experiment(&file, &out, jobs, &command)
        }
        Command::TraceInfo { file, read, json } => cmd_trace_info(&file, &read, json),
        Command::Convert {
            input,
            read,
            to,
            output,
        } => cmd_convert(&input, &read, to, &output),
        Command::Bench {
            requests,
            scenario,
            json,
            preset,
            sets,
        } => cmd_bench(requests, scenario, json, &preset, &sets),
        Command::CodecStudy(a) => crate::codec::cli::run(a),
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

fn cmd_workloads(show: Option<String>) -> Result<i32, Error> {
    use crate::workload::named;
    match show {
        Some(name) => {
            let src = named::source(&name).ok_or_else(|| Error::UnknownWorkload {
                name: name.clone(),
                known: named::names().join(", "),
            })?;
            out(src);
        }
        None => {
            for name in named::names() {
                out(&format!("{name:<16} {}\n", named::description(name)?));
            }
        }
    }
    Ok(0)
}

fn cmd_experiment(
    file: &Path,
    out_dir: &Path,
    jobs: Option<usize>,
    command: &str,
) -> Result<i32, Error> {
    let jobs = jobs.unwrap_or_else(crate::experiment::default_jobs);
    let mut progress = Progress::new("runs");
    let result = crate::experiment::run_file(file, out_dir, jobs, command, &mut |done, total| {
        progress.update(done as u64, total as u64)
    });
    progress.finish();
    let (_, results) = result?;
    let reused = results.iter().filter(|r| r.cached).count();
    eprintln!(
        "ssdlab: {} runs ({reused} reused); results in {}",
        results.len(),
        out_dir.join("results.csv").display()
    );
    if std::env::var_os("SSDLAB_PLOTS").is_none() {
        // The console script of the Python package draws the plots after this returns.
        eprintln!(
            "ssdlab: plots are drawn by the Python package: python -m ssdlab.plots {}",
            out_dir.display()
        );
    }
    Ok(0)
}

/// The experiment names in `dir`, for an error message.
fn known_experiments(dir: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            if p.extension()? != "toml" {
                return None;
            }
            Some(p.file_stem()?.to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    if names.is_empty() {
        format!("none in {}", dir.display())
    } else {
        names.join(", ")
    }
}

fn usage_error(message: &str) -> i32 {
    eprintln!("ssdlab: error: {message}");
    2
}

fn cmd_run(a: RunArgs) -> Result<i32, Error> {
    let mut sets = a.sets.clone();
    if let Some(seed) = a.seed {
        sets.push(format!("seed={seed}"));
    }
    let mut config = Config::resolve(&a.preset, a.config.as_deref(), &sets)?;
    let mode = a.mode.map(|m| match m {
        CliMode::Open => ReplayMode::Open,
        CliMode::Closed => ReplayMode::Closed,
    });
    let added = a
        .trace
        .iter()
        .map(|t| {
            let mut flow = FlowConfig::trace(t.clone(), a.format);
            flow.blkparse_event = a.blkparse_event.unwrap_or_default();
            Ok(flow)
        })
        .chain(a.workload.iter().map(|w| FlowConfig::workload(w)));
    for flow in added {
        let mut flow = flow?;
        flow.mode = mode;
        flow.queue_depth = a.queue_depth;
        config.flows.push(flow);
    }
    if config.flows.is_empty() {
        return Err(Error::config(
            "flows",
            "nothing to replay: give --trace FILE, --workload NAME or [[flows]] in the config",
        ));
    }
    config.validate()?;
    let options = RunOptions {
        verify: a.verify,
        request_log: a.log_requests,
    };
    let flows = load_flows(&mut config)?;
    let mut progress = Progress::new("requests");
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

fn cmd_trace_info(file: &Path, read: &ReadArgs, json: bool) -> Result<i32, Error> {
    let (trace, format) = read.load(file)?;
    let info = TraceInfo::of(&trace, format);
    if json {
        out(&(serde_json::to_string_pretty(&info).unwrap_or_default() + "\n"));
    } else {
        out(&info.to_text());
    }
    Ok(0)
}

fn cmd_convert(
    input: &Path,
    read: &ReadArgs,
    to: ConvertTarget,
    output: &Path,
) -> Result<i32, Error> {
    let (trace, _) = read.load(input)?;
    if output == Path::new("-") {
        write_trace(&trace, to, std::io::stdout().lock(), output)?;
    } else {
        let file = std::fs::File::create(output).map_err(|source| ConvertError::Io {
            path: output.to_path_buf(),
            source,
        })?;
        write_trace(&trace, to, file, output)?;
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
    /// What is counted ("requests", "runs").
    unit: &'static str,
    started: Instant,
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Progress {
    fn new(unit: &'static str) -> Progress {
        Progress {
            unit,
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
            let template = format!(
                "{{elapsed_precise}} [{{bar:30}}] {{human_pos}}/{{human_len}} {}, eta {{eta}}",
                self.unit
            );
            if let Ok(style) = ProgressStyle::with_template(&template) {
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
pub(crate) fn out(text: &str) {
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
    let workload = bench_workload(requests as u64);
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
