//! The `ssdlab` command line. Exit codes: 0 success, 1 the simulation failed (e.g. the data did
//! not fit, or a run failed on Ray), 2 bad input (usage, config, trace), 3 the integrity oracle found violations.
//!
//! One file per command (or pair of related commands); this file parses the command line,
//! dispatches, and maps errors to exit codes.

mod bench;
mod catalog;
mod codec_study;
mod content;
mod experiment;
mod progress;
mod request_log;
mod run;
mod trace;

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::config::{Config, FlowConfig, ReplayFlags};
use crate::error::Error;
use crate::experiment::Executor;

pub use progress::Progress;

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
    Run(run::RunArgs),
    /// List the shipped presets, or print one.
    Presets(catalog::ShowArgs),
    /// List the shipped workloads (generators built from the papers), or print one.
    Workloads(catalog::ShowArgs),
    /// Print a trace's statistics: counts, sizes, addresses, times, re-access.
    TraceInfo(trace::TraceInfoArgs),
    /// Write a trace in the native or the DiskSim format.
    Convert(trace::ConvertArgs),
    /// Run an experiment grid (configs × workloads × seeds) on all cores, or on Ray.
    Experiment(experiment::ExperimentArgs),
    /// Run a paper's experiment from experiments/ and write a report next to the paper's numbers.
    Reproduce(experiment::ReproduceArgs),
    /// Measure simulation speed and memory on a generated 1M-request workload.
    Bench(bench::BenchArgs),
    /// Measure the codecs' compression ratios (and with --bench, throughput) on real files.
    CodecStudy(codec_study::CodecStudyArgs),
    /// Write the content of N mapping units, as the `[content]` section makes it, for inspection.
    ContentSample(content::ContentSampleArgs),
    /// Build a static HTML site of the committed reproductions (the Python package's command).
    Report(ReportArgs),
}

/// `ssdlab report` is built by the Python package (plotly draws the site), whose console script
/// takes it before this command line sees it; here it is listed in `--help`, and explained.
#[derive(clap::Args, Debug)]
struct ReportArgs {
    /// `--out DIR [--reproductions DIR]` (see `ssdlab report --help` of the console script).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// Connects to Ray for `--backend ray` at `--address` (`None`: the connector's default) and
/// returns the executor running each run as a Ray task, or why it cannot (a usage error, exit
/// code 2). Ray is Python's: the console script of the Python package gives one; the native
/// binary has none.
pub type RayConnect<'a> = &'a mut dyn FnMut(Option<&str>) -> Result<Box<dyn Executor>, String>;

/// Run the CLI with these arguments (the first is the program name); returns the exit code.
pub fn main_with_args(args: Vec<String>) -> i32 {
    main_with_ray(args, None)
}

/// [`main_with_args`], with the Ray backend of `experiment` and `reproduce` given by `ray`.
pub fn main_with_ray(args: Vec<String>, ray: Option<RayConnect>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    // (A panic is a defect; it is reported as an error with its location, exit code 1.)
    let result = crate::error::catch_panic(|| match cli.command {
        Command::Run(a) => run::run(a),
        Command::Presets(a) => catalog::presets(a),
        Command::Workloads(a) => catalog::workloads(a),
        Command::TraceInfo(a) => trace::trace_info(a),
        Command::Convert(a) => trace::convert(a),
        Command::Experiment(a) => experiment::experiment(a, ray),
        Command::Reproduce(a) => experiment::reproduce(a, ray),
        Command::Bench(a) => bench::bench(a),
        Command::CodecStudy(a) => codec_study::run(a),
        Command::ContentSample(a) => content::content_sample(a),
        Command::Report(_) => {
            eprintln!(
                "ssdlab: error: `report` is the Python package's command: run it with the \
                 `ssdlab` console script (pip install .) or `python -m ssdlab.report`"
            );
            Ok(2)
        }
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ssdlab: error: {e}");
            e.exit_code()
        }
    }
}

/// The device a command works on: a preset, a config file merged over it, overrides.
#[derive(clap::Args, Debug)]
struct DeviceArgs {
    /// Device preset (see `ssdlab presets`).
    #[arg(long, default_value = "default")]
    preset: String,
    /// TOML file merged over the preset.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Override any config key, e.g. --set ftl.gc_threshold=0.05 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
}

impl DeviceArgs {
    /// The resolved config, with `extra` overrides after the command line's, `flows` after the
    /// config's own (their named workloads' content applies), and every flow replayed as
    /// `replay` says.
    fn resolve(
        &self,
        extra: &[String],
        flows: Vec<FlowConfig>,
        replay: ReplayFlags,
    ) -> Result<Config, Error> {
        let mut sets = self.sets.clone();
        sets.extend_from_slice(extra);
        Config::resolve_replaying(&self.preset, self.config.as_deref(), &sets, flows, replay)
    }

    /// The resolved config with a flow per named workload (whose content then applies).
    fn resolve_with_workloads(&self, workloads: &[String]) -> Result<Config, Error> {
        let flows = workloads
            .iter()
            .map(|w| FlowConfig::workload(w))
            .collect::<Result<_, _>>()?;
        self.resolve(&[], flows, ReplayFlags::default())
    }
}

/// A usage error found after parsing: print it and return exit code 2.
fn usage_error(message: &str) -> i32 {
    eprintln!("ssdlab: error: {message}");
    2
}

/// Write to stdout; a closed pipe (`ssdlab ... | head`) ends the output quietly instead of
/// panicking like `print!` would.
pub(crate) fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush());
}
