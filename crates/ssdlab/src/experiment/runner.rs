//! Running a grid: expand it into runs, skip the runs whose result is cached, run the rest on an
//! [`Executor`] (a pool of threads here, or Ray tasks from the Python package), and write one JSON
//! per run and `results.csv`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use serde::{Deserialize, Serialize};
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
    /// The config's name: its label, with its parameters if it has any.
    pub config_name: String,
    /// The config's parameters (columns of results.csv).
    pub params: toml::Table,
    pub workload_label: String,
    /// The workload's parameters (columns of results.csv).
    pub workload_params: toml::Table,
    pub seed: u64,
    pub config: Config,
    /// Check every read and the final state against the integrity oracle (the experiment's
    /// `verify`).
    pub verify: bool,
    /// Where the run's preconditioned device is saved once and loaded from (`RunOptions::
    /// snapshot`): the grid's `snapshots/` folder, unless the grid keeps none.
    pub snapshot: Option<PathBuf>,
    /// Hash of everything the result depends on: the resolved config (with trace files by
    /// content), the labels, the seed, whether the oracle checks the run, and the simulator
    /// version.
    pub key: String,
}

/// A finished run.
pub struct RunResult {
    pub config_label: String,
    pub config_name: String,
    pub params: toml::Table,
    pub workload_label: String,
    pub workload_params: toml::Table,
    pub seed: u64,
    pub key: String,
    /// Taken from a previous run's file instead of simulated.
    pub cached: bool,
    pub summary: Value,
}

/// Expand the grid in order: configs, then the workloads each runs (a workload's `where` may
/// leave a config out), then seeds. `base` is the folder relative paths in the experiment start
/// from.
///
/// A config the engine refuses fails the whole grid; with several, the error names each (with
/// its first refusal), so that one attempt tells which configs a grid still waits for.
pub fn expand(e: &Experiment, base: &Path) -> Result<Vec<Run>, Error> {
    let mut runs = Vec::new();
    let mut refused: Vec<Error> = Vec::new();
    'configs: for c in &e.configs {
        for w in e.workloads.iter().filter(|w| w.runs_on(c)) {
            for &seed in &e.seeds {
                let config = match c.resolve(w, seed, base) {
                    Ok(config) => config,
                    Err(err) => {
                        refused.push(err);
                        continue 'configs;
                    }
                };
                let mut key = run_key(&config, &c.label, &c.params, &w.label, seed)?;
                if e.verify {
                    // A verified run is another result (its summary counts the checks); runs
                    // without the oracle keep the keys they had.
                    key = format!("{:x}", Sha256::digest(format!("{key} verify").as_bytes()));
                }
                runs.push(Run {
                    config_label: c.label.clone(),
                    config_name: c.name(),
                    params: c.params.clone(),
                    workload_label: w.label.clone(),
                    workload_params: w.params.clone(),
                    seed,
                    config,
                    verify: e.verify,
                    snapshot: None,
                    key,
                });
            }
        }
    }
    match refused.len() {
        0 => Ok(runs),
        1 => Err(refused.remove(0)),
        n => Err(Error::Toml {
            origin: format!(
                "experiment: {n} of {} configs refused (each by its first run)",
                e.configs.len()
            ),
            message: refused.iter().map(|err| format!("\n  {err}")).collect(),
        }),
    }
}

fn run_key(
    config: &Config,
    label: &str,
    params: &toml::Table,
    workload: &str,
    seed: u64,
) -> Result<String, Error> {
    let c = config.identity_json()?;
    let mut identity = json!({
        "config": c, "config_label": label, "workload": workload, "seed": seed,
        "version": crate::VERSION,
    });
    // Parameters tell apart configs that share a label; without them the key is as it was, so
    // earlier results stay cached.
    if !params.is_empty() {
        identity["params"] = json!(params);
    }
    Ok(format!(
        "{:x}",
        Sha256::digest(identity.to_string().as_bytes())
    ))
}

/// The file of a run's result in the output folder.
pub fn run_file(out: &Path, r: &Run) -> PathBuf {
    out.join("runs").join(format!(
        "{}--{}--seed{}.json",
        r.config_name, r.workload_label, r.seed
    ))
}

/// Runs the runs of a grid that are not cached yet: where, and how many at once, is the
/// executor's policy; what is done with their results (files written as each finishes, progress,
/// errors naming the run) is [`run_grid`]'s, the same for every executor.
pub trait Executor {
    /// Simulate `runs[i]` for every `i` of `todo` (as [`simulate_run`] does) and call
    /// `finished(i, summary)` on the calling thread as each ends, in any order. A failed run is
    /// reported through `finished`, and the others still run; an `Err` return is the executor's
    /// own failure (the runs it has not reported are lost).
    fn execute(
        &mut self,
        runs: &[Run],
        todo: &[usize],
        finished: &mut dyn FnMut(usize, Result<Value, Error>),
    ) -> Result<(), Error>;
}

/// A pool of `jobs` threads in this process (the default executor).
pub struct Local {
    pub jobs: usize,
}

impl Executor for Local {
    fn execute(
        &mut self,
        runs: &[Run],
        todo: &[usize],
        finished: &mut dyn FnMut(usize, Result<Value, Error>),
    ) -> Result<(), Error> {
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel::<(usize, Result<Value, Error>)>();
        std::thread::scope(|scope| {
            for _ in 0..self.jobs.max(1).min(todo.len().max(1)) {
                let tx = tx.clone();
                let next = &next;
                scope.spawn(move || loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = todo.get(n) else { break };
                    let r = &runs[i];
                    // The receiver lives until every sender is gone.
                    let result = crate::error::catch_panic(|| {
                        simulate_run(&r.config, r.verify, r.snapshot.as_deref())
                    });
                    let _ = tx.send((i, result));
                });
            }
            drop(tx);
            for (i, result) in rx {
                finished(i, result);
            }
        });
        Ok(())
    }
}

/// Simulate one run of a grid and return its summary. Every executor runs a run through here
/// (a remote one from [`task_toml`], with [`simulate_task`]), so that a run's options are set
/// in one place, whichever executor runs it.
pub fn simulate_run(
    config: &Config,
    verify: bool,
    snapshot: Option<&Path>,
) -> Result<Value, Error> {
    let options = RunOptions {
        verify,
        snapshot: snapshot.map(Path::to_path_buf),
        ..RunOptions::default()
    };
    match simulate(config, &options) {
        // The grid's folder moved the damaged file aside: this run preconditions afresh and
        // saves it again (or loads what a run sharing it saved meanwhile).
        Err(Error::DamagedSnapshot { path, reason }) => {
            eprintln!(
                "ssdlab: {}: device snapshot damaged ({reason}): rebuilding it",
                path.display()
            );
            Ok(simulate(config, &options)?.summary)
        }
        result => Ok(result?.summary),
    }
}

/// What a remote executor ships to its workers for one run: whether the oracle checks it, and
/// the resolved config.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Task {
    verify: bool,
    /// The grid's snapshot folder, at the same path on the worker's machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    snapshot: Option<PathBuf>,
    config: Config,
}

/// A run as TOML text for a remote executor, which gives it to [`simulate_task`] where it runs.
/// TOML, the config's own language, not JSON: the config's types read tables through TOML's
/// deserializer, which has no null for the `None`s the JSON echo writes. The config comes back
/// exactly, its floats too (written in their shortest exact form), so the worker runs, and its
/// summary echoes, the config the local executor would.
pub fn task_toml(r: &Run) -> Result<String, Error> {
    let task = Task {
        verify: r.verify,
        snapshot: r.snapshot.clone(),
        config: r.config.clone(),
    };
    toml::to_string(&task).map_err(|e| Error::Toml {
        origin: "the run's task".into(),
        message: e.to_string(),
    })
}

/// Simulate a run given as [`task_toml`] text; returns its summary as JSON text.
pub fn simulate_task(text: &str) -> Result<String, Error> {
    let task: Task = toml::from_str(text).map_err(|e| Error::toml("the run's task", e))?;
    let summary = simulate_run(&task.config, task.verify, task.snapshot.as_deref())?;
    Ok(summary.to_string())
}

/// Run the grid's runs on `executor`; with `out`, reuse `runs/*.json` whose key matches (those
/// runs are not given to the executor) and write each run's file as it finishes, so that a grid
/// stopped by a failure resumes where it was. `progress(done, total)` is called on this thread
/// as runs finish. A failed run does not stop the others; the error names the first failed run
/// in grid order.
pub fn run_grid(
    runs: Vec<Run>,
    out: Option<&Path>,
    executor: &mut dyn Executor,
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
    // The first error of the grid, by the position of its run.
    let mut first_error: Option<(usize, Error)> = None;
    let mut fail = |i: usize, e: Error| {
        if first_error.as_ref().is_none_or(|(j, _)| i < *j) {
            first_error = Some((i, e));
        }
    };
    executor.execute(&runs, &todo, &mut |i, result| {
        let r = &runs[i];
        let summary = match result {
            Ok(summary) => summary,
            Err(e) => {
                let run = format!("{} × {} (seed {})", r.config_name, r.workload_label, r.seed);
                return fail(
                    i,
                    Error::InRun {
                        run,
                        source: Box::new(e),
                    },
                );
            }
        };
        if let Some(dir) = out {
            if let Err(e) = write_run(dir, r, &summary) {
                fail(i, e);
            }
        }
        results[i] = Some(finished(r, summary, false));
        done += 1;
        progress(done, total);
    })?;
    if let Some((_, e)) = first_error {
        return Err(e);
    }
    Ok(results.into_iter().flatten().collect())
}

/// Write a finished run's file (`runs/<name>.json`): its key, identity and summary.
fn write_run(dir: &Path, r: &Run, summary: &Value) -> Result<(), Error> {
    let mut record = json!({
        "key": r.key, "config_label": r.config_label,
    });
    if !r.params.is_empty() {
        record["params"] = json!(r.params);
    }
    let rest = json!({
        "workload": r.workload_label, "seed": r.seed, "version": crate::VERSION,
        "summary": summary,
    });
    if let (Some(m), Value::Object(rest)) = (record.as_object_mut(), rest) {
        m.extend(rest);
    }
    let path = run_file(dir, r);
    let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
    std::fs::write(&path, text).map_err(|e| Error::io(&path, e))
}

fn finished(r: &Run, summary: Value, cached: bool) -> RunResult {
    RunResult {
        config_label: r.config_label.clone(),
        config_name: r.config_name.clone(),
        params: r.params.clone(),
        workload_label: r.workload_label.clone(),
        workload_params: r.workload_params.clone(),
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

/// `results.csv`: one row per run — `config` (the label), `workload`, `seed`, one column per
/// parameter (`params`: the workload's or the config's of that name, empty where neither has
/// one), then one per metric.
pub fn write_csv(
    path: &Path,
    params: &[String],
    metrics: &[String],
    results: &[RunResult],
) -> Result<(), Error> {
    let io = |e: csv::Error| Error::io(path, e.into());
    let mut w = csv::Writer::from_path(path).map_err(io)?;
    let mut header = vec!["config".to_string(), "workload".into(), "seed".into()];
    header.extend(params.iter().cloned());
    header.extend(metrics.iter().cloned());
    w.write_record(&header).map_err(io)?;
    for r in results {
        let mut row = vec![
            r.config_label.clone(),
            r.workload_label.clone(),
            r.seed.to_string(),
        ];
        row.extend(params.iter().map(|p| {
            r.workload_params
                .get(p)
                .or_else(|| r.params.get(p))
                .map_or(String::new(), super::params::text)
        }));
        row.extend(
            metrics
                .iter()
                .map(|m| metric(&r.summary, m).map_or(String::new(), |x| x.to_string())),
        );
        w.write_record(&row).map_err(io)?;
    }
    w.flush().map_err(|e| Error::io(path, e))
}

/// The integrity oracle's violations of each run that has some, as `(run, count, first
/// messages)`.
pub fn violations(results: &[RunResult]) -> Vec<(String, u64, Vec<String>)> {
    results
        .iter()
        .filter_map(|r| {
            let i = &r.summary["integrity"];
            let n = i["violations"].as_u64().filter(|n| *n > 0)?;
            let messages = (i["messages"].as_array().into_iter().flatten())
                .filter_map(Value::as_str)
                .take(3)
                .map(str::to_string)
                .collect();
            let run = format!("{} × {} (seed {})", r.config_name, r.workload_label, r.seed);
            Some((run, n, messages))
        })
        .collect()
}

/// With `verify`, an error naming every run the integrity oracle found violations in (and the
/// first messages of each), if any.
pub fn check_integrity(verify: bool, results: &[RunResult]) -> Result<(), Error> {
    let bad = violations(results);
    if !verify || bad.is_empty() {
        return Ok(());
    }
    let runs: Vec<String> = bad
        .iter()
        .map(|(run, n, messages)| format!("{run}: {n} ({})", messages.join("; ")))
        .collect();
    Err(Error::Integrity {
        runs: bad.len(),
        detail: runs.join("\n  "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "name = \"e\"\nmetrics = [\"iops\", \"gc.invocations\"]\n\
        [[configs]]\nlabel = \"Baseline\"\nparams = { share = 0.0 }\n\
        sweep = [{ param = \"pcm\", key = \"timing.pcm.set\", values = [\"pcm1\", \"pcm5\"] }]\n\
        [[configs]]\nlabel = \"ROSA\"\nset = { \"ftl.level1_gc.policy\" = \"read_intensity\" }\n\
        sweep = [{ param = \"share\", key = \"ftl.level1_gc.budget_share\", values = [0.04, 0.2] },\n\
                 { param = \"pcm\", key = \"timing.pcm.set\", values = [\"pcm1\", \"pcm5\"] }]\n\
        [[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n";

    fn runs() -> (Experiment, Vec<Run>) {
        let e: Experiment = toml::from_str(SPEC).expect("experiment");
        let e = e.prepare().expect("valid");
        // The rosa preset has PCM, which level 1 needs.
        let mut e2 = e.clone();
        for c in &mut e2.configs {
            c.preset = "rosa".into();
        }
        let runs = expand(&e2, Path::new(".")).expect("resolves");
        (e2, runs)
    }

    #[test]
    fn configs_that_share_a_label_get_their_own_files_and_keys() {
        let (_, runs) = runs();
        assert_eq!(runs.len(), 6);
        let files: Vec<PathBuf> = runs.iter().map(|r| run_file(Path::new("o"), r)).collect();
        assert_eq!(
            files[2],
            Path::new("o/runs/ROSA[pcm=pcm1,share=0.04]--w--seed1.json")
        );
        for (i, r) in runs.iter().enumerate() {
            assert!(!files[..i].contains(&files[i]), "{}", files[i].display());
            assert!(
                !runs[..i].iter().any(|o| o.key == r.key),
                "{}",
                r.config_name
            );
        }
        // The sweep's value reached the config.
        let set = |r: &Run| r.config.timing.pcm.as_ref().and_then(|p| p.set.clone());
        assert_eq!(set(&runs[1]).as_deref(), Some("pcm5"));
    }

    #[test]
    fn parameters_enter_the_key_only_when_there_are_some() {
        let (_, runs) = runs();
        let r = &runs[0];
        let with = run_key(&r.config, &r.config_label, &r.params, "w", 1).unwrap();
        let without = run_key(&r.config, &r.config_label, &toml::Table::new(), "w", 1).unwrap();
        assert_ne!(with, without);
        // Without parameters, the key is the one earlier versions wrote (their caches hold).
        let identity = json!({
            "config": r.config.to_json(), "config_label": r.config_label, "workload": "w",
            "seed": 1, "version": crate::VERSION,
        });
        let old = format!("{:x}", Sha256::digest(identity.to_string().as_bytes()));
        assert_eq!(without, old);
    }

    #[test]
    fn a_task_gives_the_worker_every_shipped_experiments_configs_exactly() {
        // What a Ray worker simulates must be the config the grid resolved, to the last bit of
        // every float: its summary echoes the config, and results.csv must not depend on where a
        // run ran. The shipped experiments cover every section a config can have.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("experiments/")
            .map(|entry| entry.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        assert!(files.len() > 5, "{}", dir.display());
        let mut checked = 0;
        for file in &files {
            let e = Experiment::load(file).expect("loads");
            for r in expand(&e, &dir).expect("expands") {
                let text = task_toml(&r).expect("written");
                let task: Task = toml::from_str(&text).expect("read");
                assert_eq!(task.verify, r.verify);
                // Debug prints every field, floats in their shortest exact form.
                let (sent, got) = (format!("{:?}", r.config), format!("{:?}", task.config));
                assert!(sent == got, "{} {}", file.display(), r.config_name);
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn parameters_become_columns_of_results_csv() {
        let (e, runs) = runs();
        let results: Vec<RunResult> = runs
            .iter()
            .map(|r| finished(r, json!({"iops": 2.5, "gc": {"invocations": 0}}), false))
            .collect();
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("results.csv");
        write_csv(&path, &e.param_columns(), &e.metrics, &results).expect("written");
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "config,workload,seed,pcm,share,iops,gc.invocations"
        );
        assert_eq!(lines[1], "Baseline,w,1,pcm1,0,2.5,0");
        assert_eq!(lines[6], "ROSA,w,1,pcm5,0.2,2.5,0");
        // Rows are unique by (config, workload, seed, parameters).
        let mut rows: Vec<&str> = lines[1..]
            .iter()
            .map(|l| l.rsplitn(3, ',').last().unwrap())
            .collect();
        rows.sort();
        rows.dedup();
        assert_eq!(rows.len(), 6);
    }
}
