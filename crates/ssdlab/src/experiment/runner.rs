//! Running a grid: expand it into runs, skip the runs whose result is cached, run the rest on a
//! pool of threads, and write one JSON per run and `results.csv`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::spec::Experiment;
use crate::config::Config;
use crate::error::Error;
use crate::run::simulate;
use crate::sim::RunOptions;

/// One run of the grid, resolved.
pub struct Run {
    pub config_label: String,
    pub workload_label: String,
    pub seed: u64,
    pub config: Config,
    /// Hash of everything the result depends on: the resolved config (with trace files by
    /// content), the labels, the seed and the simulator version.
    pub key: String,
}

/// A finished run.
pub struct RunResult {
    pub config_label: String,
    pub workload_label: String,
    pub seed: u64,
    pub key: String,
    /// Taken from a previous run's file instead of simulated.
    pub cached: bool,
    pub summary: Value,
}

/// Expand the grid in order: configs, then workloads, then seeds. `base` is the folder relative
/// paths in the experiment start from.
pub fn expand(e: &Experiment, base: &Path) -> Result<Vec<Run>, Error> {
    let mut runs = Vec::new();
    for c in &e.configs {
        for w in &e.workloads {
            for &seed in &e.seeds {
                let config = c.resolve(w, seed, base)?;
                let key = run_key(&config, &c.label, &w.label, seed)?;
                runs.push(Run {
                    config_label: c.label.clone(),
                    workload_label: w.label.clone(),
                    seed,
                    config,
                    key,
                });
            }
        }
    }
    Ok(runs)
}

fn run_key(config: &Config, label: &str, workload: &str, seed: u64) -> Result<String, Error> {
    let mut c = config.to_json();
    // Trace files count by content, not path: a moved checkout still hits its cache, an edited
    // trace does not.
    if let Some(flows) = c.get_mut("flows").and_then(Value::as_array_mut) {
        for f in flows {
            if let Some(path) = f.get("trace").and_then(Value::as_str).map(PathBuf::from) {
                let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
                f["trace"] = json!(format!("sha256:{:x}", Sha256::digest(&bytes)));
            }
        }
    }
    let identity = json!({
        "config": c, "config_label": label, "workload": workload, "seed": seed,
        "version": crate::VERSION,
    });
    Ok(format!(
        "{:x}",
        Sha256::digest(identity.to_string().as_bytes())
    ))
}

/// The file of a run's result in the output folder.
pub fn run_file(out: &Path, r: &Run) -> PathBuf {
    out.join("runs").join(format!(
        "{}--{}--seed{}.json",
        r.config_label, r.workload_label, r.seed
    ))
}

/// Run the grid on `jobs` threads; with `out`, reuse and write `runs/*.json`. `progress(done,
/// total)` is called on this thread as runs finish.
pub fn run_grid(
    runs: Vec<Run>,
    out: Option<&Path>,
    jobs: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<RunResult>, Error> {
    if let Some(dir) = out {
        let runs_dir = dir.join("runs");
        std::fs::create_dir_all(&runs_dir).map_err(|e| Error::io(&runs_dir, e))?;
    }
    let total = runs.len();
    let mut results: Vec<Option<RunResult>> = (0..total).map(|_| None).collect();
    let mut todo = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        match out.and_then(|dir| cached(&run_file(dir, r), &r.key)) {
            Some(summary) => results[i] = Some(finished(r, summary, true)),
            None => todo.push(i),
        }
    }
    let mut done = total - todo.len();
    progress(done, total);
    let next = AtomicUsize::new(0);
    let first_error: Mutex<Option<Error>> = Mutex::new(None);
    let (tx, rx) = mpsc::channel::<(usize, Value)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(todo.len().max(1)) {
            let tx = tx.clone();
            let (runs, todo, next, first_error) = (&runs, &todo, &next, &first_error);
            scope.spawn(move || loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = todo.get(n) else { break };
                let r = &runs[i];
                match simulate(&r.config, &RunOptions::default()) {
                    Ok(result) => {
                        // The receiver lives until every sender is gone.
                        let _ = tx.send((i, result.summary));
                    }
                    Err(e) => {
                        let mut slot = first_error.lock().unwrap_or_else(|p| p.into_inner());
                        slot.get_or_insert(Error::InRun {
                            run: format!(
                                "{} × {} (seed {})",
                                r.config_label, r.workload_label, r.seed
                            ),
                            source: Box::new(e),
                        });
                    }
                }
            });
        }
        drop(tx);
        for (i, summary) in rx {
            let r = &runs[i];
            if let Some(dir) = out {
                let record = json!({
                    "key": r.key, "config_label": r.config_label, "workload": r.workload_label,
                    "seed": r.seed, "version": crate::VERSION, "summary": summary,
                });
                let path = run_file(dir, r);
                let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
                if let Err(e) = std::fs::write(&path, text) {
                    let mut slot = first_error.lock().unwrap_or_else(|p| p.into_inner());
                    slot.get_or_insert(Error::io(&path, e));
                }
            }
            results[i] = Some(finished(r, summary, false));
            done += 1;
            progress(done, total);
        }
    });
    if let Some(e) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(results.into_iter().flatten().collect())
}

fn finished(r: &Run, summary: Value, cached: bool) -> RunResult {
    RunResult {
        config_label: r.config_label.clone(),
        workload_label: r.workload_label.clone(),
        seed: r.seed,
        key: r.key.clone(),
        cached,
        summary,
    }
}

/// The summary in `path` if it was written for a run with this `key`.
fn cached(path: &Path, key: &str) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    (v["key"] == key).then(|| v["summary"].clone())
}

/// The value at a dotted path of a summary (`latency_ns.read.mean`), if it is a number.
pub fn metric(summary: &Value, path: &str) -> Option<f64> {
    path.split('.')
        .try_fold(summary, |v, k| v.get(k))
        .and_then(Value::as_f64)
}

/// `results.csv`: one row per run — `config`, `workload`, `seed`, then one column per metric.
pub fn write_csv(path: &Path, metrics: &[String], results: &[RunResult]) -> Result<(), Error> {
    let io = |e: csv::Error| Error::io(path, e.into());
    let mut w = csv::Writer::from_path(path).map_err(io)?;
    let mut header = vec!["config".to_string(), "workload".into(), "seed".into()];
    header.extend(metrics.iter().cloned());
    w.write_record(&header).map_err(io)?;
    for r in results {
        let mut row = vec![
            r.config_label.clone(),
            r.workload_label.clone(),
            r.seed.to_string(),
        ];
        row.extend(
            metrics
                .iter()
                .map(|m| metric(&r.summary, m).map_or(String::new(), |x| x.to_string())),
        );
        w.write_record(&row).map_err(io)?;
    }
    w.flush().map_err(|e| Error::io(path, e))
}
