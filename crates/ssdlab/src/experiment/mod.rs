//! Experiments: a TOML file naming a grid of configs × workloads × seeds and the metrics to
//! report. `ssdlab experiment FILE --out DIR` runs it on a local thread pool (or on Ray, from the
//! Python package) and writes one JSON per run (`runs/`), `results.csv` and `report.md`; results
//! are cached by a hash of what they depend on, so re-running an experiment only runs what
//! changed. `ssdlab reproduce NAME` runs
//! `experiments/NAME.toml`, whose `[paper]` table lists the paper's own figures, and the report
//! puts ours next to them. Plots are drawn by the Python package (`ssdlab.plots`).

pub mod ablation;
pub mod params;
pub mod report;
pub mod runner;
pub mod scorecard;
pub mod spec;

use std::path::Path;

pub use runner::{expand, run_grid, Executor, Local, Run, RunResult};
pub use spec::Experiment;

use crate::error::Error;

/// Run an experiment file's grid on `executor` and write its outputs into `out`; returns the
/// results.
///
/// With `snapshots`, the runs keep their preconditioned devices in `out/snapshots/`
/// (docs/snapshots.md): the runs that share a device and its preconditioning precondition it
/// once.
pub fn run_file(
    file: &Path,
    out: &Path,
    snapshots: bool,
    executor: &mut dyn Executor,
    command: &str,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(Experiment, Vec<RunResult>), Error> {
    let e = Experiment::load(file)?;
    let base = file.parent().unwrap_or(Path::new("."));
    let mut runs = expand(&e, base)?;
    if snapshots {
        keep_snapshots(&mut runs, out)?;
    }
    let results = run_grid(runs, Some(out), executor, progress)?;
    write_outputs(&e, &results, out, command)?;
    runner::check_integrity(e.verify, &results)?;
    Ok((e, results))
}

/// The folder of an experiment's output where its runs keep their device snapshots.
pub const SNAPSHOTS: &str = "snapshots";

/// Let `runs` keep their preconditioned devices in `out/snapshots/`.
pub fn keep_snapshots(runs: &mut [Run], out: &Path) -> Result<(), Error> {
    // Absolute: a remote executor's workers find it at the same path.
    let dir = std::path::absolute(out.join(SNAPSHOTS)).map_err(|err| Error::io(out, err))?;
    for r in runs {
        r.snapshot = Some(dir.clone());
    }
    Ok(())
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
        &e.csv_columns(),
        results,
    )?;
    let path = out.join("report.md");
    std::fs::write(&path, report::markdown(e, results, command))
        .map_err(|err| Error::io(&path, err))?;
    let path = out.join("experiment.json");
    let text = serde_json::to_string_pretty(e).unwrap_or_default() + "\n";
    std::fs::write(&path, text).map_err(|err| Error::io(&path, err))
}

/// The experiment and the results an output folder holds (`experiment.json` and `runs/*.json`,
/// as [`write_outputs`] and the grid left them), to report on them again without running
/// anything: the site of `ssdlab report` puts the paper's figures next to ours with
/// [`report::comparisons`] of these. Run files of configs, workloads or seeds the experiment no
/// longer has (left in the cache by an earlier grid) are not among the results.
pub fn read_outputs(out: &Path) -> Result<(Experiment, Vec<RunResult>), Error> {
    let json = |path: &Path| -> Result<serde_json::Value, Error> {
        let text = std::fs::read_to_string(path).map_err(|err| Error::io(path, err))?;
        serde_json::from_str(&text).map_err(|err| Error::Toml {
            origin: path.display().to_string(),
            message: err.to_string(),
        })
    };
    let path = out.join("experiment.json");
    let mut spec = json(&path)?;
    // A config's `name` is written for the plots and never read back: the experiment is
    // prepared again, which names its configs, and makes the ablation's (those with
    // `techniques`) again.
    if let Some(configs) = spec.get_mut("configs").and_then(|c| c.as_array_mut()) {
        configs.retain(|c| c.get("techniques").is_none());
        for c in configs.iter_mut().filter_map(|c| c.as_object_mut()) {
            c.remove("name");
        }
    }
    let bad = |message: String| Error::Toml {
        origin: path.display().to_string(),
        message,
    };
    let e: Experiment = serde_json::from_value(spec).map_err(|err| bad(err.to_string()))?;
    let e = e.prepare()?;
    let dir = out.join("runs");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .map_err(|err| Error::io(&dir, err))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut results = Vec::new();
    for file in files {
        let mut record = json(&file)?;
        let field = |k: &str| record[k].as_str().unwrap_or_default().to_string();
        let (label, workload, key) = (field("config_label"), field("workload"), field("key"));
        let seed = record["seed"].as_u64();
        let params: toml::Table = match record.get("params") {
            Some(p) => serde_json::from_value(p.clone()).map_err(|err| Error::Toml {
                origin: file.display().to_string(),
                message: err.to_string(),
            })?,
            None => toml::Table::new(),
        };
        let config = e
            .configs
            .iter()
            .find(|c| c.label == label && c.params == params);
        let spec = e.workloads.iter().find(|w| w.label == workload);
        let (Some(config), Some(spec), Some(seed)) = (config, spec, seed) else {
            continue;
        };
        if !spec.runs_on(config) || !e.seeds.contains(&seed) {
            continue;
        }
        results.push(RunResult {
            config_label: label,
            config_name: config.name(),
            params,
            workload_label: workload,
            workload_params: spec.params.clone(),
            seed,
            key,
            cached: true,
            summary: record["summary"].take(),
        });
    }
    Ok((e, results))
}

/// Threads to use by default: every core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
