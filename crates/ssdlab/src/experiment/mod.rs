//! Experiments: a TOML file naming a grid of configs × workloads × seeds and the metrics to
//! report. `ssdlab experiment FILE --out DIR` runs it on a local thread pool and writes one JSON
//! per run (`runs/`), `results.csv` and `report.md`; results are cached by a hash of what they
//! depend on, so re-running an experiment only runs what changed. `ssdlab reproduce NAME` runs
//! `experiments/NAME.toml`, whose `[paper]` table lists the paper's own figures, and the report
//! puts ours next to them. Plots are drawn by the Python package (`ssdlab.plots`).

pub mod params;
pub mod report;
pub mod runner;
pub mod spec;

use std::path::Path;

pub use runner::{expand, run_grid, Run, RunResult};
pub use spec::Experiment;

use crate::error::Error;

/// Run an experiment file's grid and write its outputs into `out`; returns the results.
pub fn run_file(
    file: &Path,
    out: &Path,
    jobs: usize,
    command: &str,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(Experiment, Vec<RunResult>), Error> {
    let e = Experiment::load(file)?;
    let base = file.parent().unwrap_or(Path::new("."));
    let runs = expand(&e, base)?;
    let results = run_grid(runs, Some(out), jobs, progress)?;
    write_outputs(&e, &results, out, command)?;
    Ok((e, results))
}

/// `results.csv`, `report.md` and a copy of the experiment (`experiment.json`, which the plots
/// read for labels, baseline and metrics).
pub fn write_outputs(
    e: &Experiment,
    results: &[RunResult],
    out: &Path,
    command: &str,
) -> Result<(), Error> {
    std::fs::create_dir_all(out).map_err(|err| Error::io(out, err))?;
    runner::write_csv(
        &out.join("results.csv"),
        &e.param_columns(),
        &e.metrics,
        results,
    )?;
    let path = out.join("report.md");
    std::fs::write(&path, report::markdown(e, results, command))
        .map_err(|err| Error::io(&path, err))?;
    let path = out.join("experiment.json");
    let text = serde_json::to_string_pretty(e).unwrap_or_default() + "\n";
    std::fs::write(&path, text).map_err(|err| Error::io(&path, err))
}

/// Threads to use by default: every core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
