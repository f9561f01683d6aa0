//! `ssdlab._core`: the private extension behind the `ssdlab` Python package.
//!
//! Deliberately thin. Each function converts its arguments, does the engine's work with the GIL
//! released, and maps `ssdlab::Error` to `SsdlabError`. Defaults, path-or-preset handling and
//! pandas live in `python/ssdlab/__init__.py`; the signatures are mirrored in `_core.pyi`.

use std::io::Write;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyByteArray;

use ssdlab::cli::Progress;
use ssdlab::config::{preset_names, preset_source, FlowConfig, ReplayFlags, ReplayMode};
use ssdlab::experiment::{runner, Executor, Experiment};
use ssdlab::run::simulate_with;
use ssdlab::sim::{Column, Phase, RequestRecord};
use ssdlab::trace::info::TraceInfo;
use ssdlab::trace::{
    load_trace_as, BlkparseEvent, Caller, ColumnsSpec, LoadOptions, Op, TraceFormat,
};
use ssdlab::{Config, Error, RunOptions};

pyo3::create_exception!(
    ssdlab,
    SsdlabError,
    PyValueError,
    "A config, trace or simulation error reported by the ssdlab engine; the message names the \
     file, line, field or config key at fault. A defect of the engine's own (a panic) is one \
     too: `internal error ... at FILE:LINE:COLUMN`."
);

fn py_err(e: Error) -> PyErr {
    SsdlabError::new_err(e.to_string())
}

/// Do the engine's work `f` with the GIL released. A panic in it comes back as `SsdlabError`
/// with its message and location, like any error of the engine's: a `PanicException` is a
/// `BaseException`, which `except Exception` does not catch.
fn engine<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> Result<T, Error> {
    py.detach(|| ssdlab::error::catch_panic(f))
}

fn trace_format(name: &str) -> Result<TraceFormat, Error> {
    TraceFormat::from_name(name).ok_or_else(|| {
        Error::config(
            "format",
            format!(
                "unknown trace format `{name}` (known: {}; or a dict describing the columns)",
                TraceFormat::names().join(", ")
            ),
        )
    })
}

/// A trace's reading options as Python gives them: a format name, or the JSON text of a
/// `format={...}` dict describing its columns, and a blkparse event.
struct ReadOptions {
    format: Option<TraceFormat>,
    columns: Option<ColumnsSpec>,
    blkparse_event: Option<BlkparseEvent>,
}

impl ReadOptions {
    fn new(
        format: Option<&str>,
        columns_json: Option<&str>,
        blkparse_event: Option<&str>,
    ) -> Result<ReadOptions, Error> {
        let columns = columns_json
            .map(|text| {
                let spec = ColumnsSpec::from_json(text)?;
                spec.parser()?;
                Ok(spec)
            })
            .transpose()
            .map_err(|source| Error::Columns {
                option: "format={...}".to_string(),
                source,
            })?;
        let format = match (format, &columns) {
            (_, Some(_)) => Some(TraceFormat::Columns),
            (name, None) => name.map(trace_format).transpose()?,
        };
        let blkparse_event = blkparse_event
            .map(|name| {
                BlkparseEvent::ALL
                    .into_iter()
                    .find(|e| e.name() == name)
                    .ok_or_else(|| {
                        Error::config(
                            "blkparse_event",
                            format!("unknown blkparse event `{name}` (known: q, d, c)"),
                        )
                    })
            })
            .transpose()?;
        Ok(ReadOptions {
            format,
            columns,
            blkparse_event,
        })
    }

    /// A flow replaying `path` with these options.
    fn flow(self, path: PathBuf) -> FlowConfig {
        let mut flow = FlowConfig::trace(path, self.format, Caller::Python);
        flow.columns = self.columns;
        flow.blkparse_event = self.blkparse_event;
        flow
    }
}

fn replay_mode(name: &str) -> Result<ReplayMode, Error> {
    match name {
        "open" => Ok(ReplayMode::Open),
        "closed" => Ok(ReplayMode::Closed),
        _ => Err(Error::config(
            "mode",
            format!("unknown replay mode `{name}` (known: open, closed)"),
        )),
    }
}

/// One trace as Python passes it: path, format name, columns description (JSON), blkparse event.
type TraceArg = (PathBuf, Option<String>, Option<String>, Option<String>);

/// What `simulate` computes without the GIL.
struct Run {
    summary_json: String,
    requests: Option<Vec<RequestRecord>>,
}

/// Everything `ssdlab run` does between parsing its arguments and printing: resolve the config
/// with one flow per trace and workload, validate, load the traces, simulate; with `progress`,
/// `ssdlab run`'s progress bar (on a terminal only).
fn run(
    preset: &str,
    config_path: Option<PathBuf>,
    sets: &[String],
    flows: Vec<FlowConfig>,
    replay: ReplayFlags,
    options: &RunOptions,
    progress: bool,
) -> Result<Run, Error> {
    let mut config =
        Config::resolve_replaying(preset, config_path.as_deref(), sets, flows, replay)?;
    let mut bar = progress.then(|| Progress::new(Phase::Replay.counts()));
    let result = simulate_with(&mut config, options, &mut |phase, done, total| {
        if let Some(bar) = &mut bar {
            bar.simulation(phase, done, total);
        }
    });
    if let Some(bar) = &mut bar {
        bar.finish();
    }
    let result = result?;
    Ok(Run {
        summary_json: result.summary.to_string(),
        requests: result.requests,
    })
}

/// `ssdlab trace-info --json` for one file: the statistics as JSON text.
fn trace_info_json(path: &std::path::Path, read: ReadOptions) -> Result<String, Error> {
    let columns = read.columns.as_ref().map(ColumnsSpec::parser).transpose();
    let opts = LoadOptions {
        format: read.format,
        blkparse_event: read.blkparse_event,
        columns: columns.map_err(|source| Error::Columns {
            option: "format={...}".to_string(),
            source,
        })?,
        caller: Caller::Python,
        ..LoadOptions::default()
    };
    let (trace, format) = load_trace_as(path, &opts)?;
    Ok(serde_json::to_string(&TraceInfo::of(&trace, format)).unwrap_or_default())
}

/// Run an experiment grid; returns one JSON object per run: `config`, `workload`, `seed`, every
/// parameter (the workload's or the config's; null where neither has it), then every metric by its dotted path (null when the summary has no number there).
fn experiment_rows(
    spec: Experiment,
    base: &std::path::Path,
    out: Option<PathBuf>,
    jobs: usize,
    snapshots: bool,
) -> Result<String, Error> {
    let spec = spec.prepare()?;
    let mut runs = ssdlab::experiment::expand(&spec, base)?;
    if let (Some(dir), true) = (&out, snapshots) {
        ssdlab::experiment::keep_snapshots(&mut runs, dir)?;
    }
    let results = ssdlab::experiment::run_grid(
        runs,
        out.as_deref(),
        &mut ssdlab::experiment::Local { jobs },
        &mut |_, _| {},
    )?;
    if let Some(dir) = &out {
        ssdlab::experiment::write_outputs(&spec, &results, dir, "ssdlab.run_grid(...)")?;
    }
    ssdlab::experiment::runner::check_integrity(spec.verify, &results)?;
    let params = spec.param_columns();
    let rows: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            let mut row = serde_json::Map::new();
            row.insert("config".into(), r.config_label.clone().into());
            row.insert("workload".into(), r.workload_label.clone().into());
            row.insert("seed".into(), r.seed.into());
            for p in &params {
                let v = r
                    .workload_params
                    .get(p)
                    .or_else(|| r.params.get(p))
                    .and_then(|v| serde_json::to_value(v).ok());
                row.insert(p.clone(), v.unwrap_or(serde_json::Value::Null));
            }
            for m in &spec.csv_columns() {
                let v = ssdlab::experiment::runner::metric(&r.summary, m);
                row.insert(m.clone(), v.map_or(serde_json::Value::Null, Into::into));
            }
            serde_json::Value::Object(row)
        })
        .collect();
    Ok(serde_json::Value::Array(rows).to_string())
}

/// The Ray executor of the Python package (`ssdlab.ray_backend.RayExecutor`), which the command
/// line's `--backend ray` runs a grid on: its `run(tasks)` takes the runs as `(index, task_toml)`
/// pairs and yields `(index, summary_json, None, None)` or `(index, None, error, exit_code)` as
/// each ends.
struct PyExecutor(Py<PyAny>);

impl Executor for PyExecutor {
    fn execute(
        &mut self,
        runs: &[ssdlab::experiment::Run],
        todo: &[usize],
        finished: &mut dyn FnMut(usize, Result<serde_json::Value, Error>),
    ) -> Result<(), Error> {
        let mut tasks: Vec<(usize, String)> = Vec::with_capacity(todo.len());
        for &i in todo {
            match runner::task_toml(&runs[i]) {
                Ok(task) => tasks.push((i, task)),
                Err(e) => finished(i, Err(e)),
            }
        }
        Python::attach(|py| -> PyResult<()> {
            let ended = self.0.bind(py).call_method1("run", (tasks,))?;
            for item in ended.try_iter()? {
                let (i, summary, error, exit_code): (
                    usize,
                    Option<String>,
                    Option<String>,
                    Option<i32>,
                ) = item?.extract()?;
                let result = match summary {
                    Some(text) => serde_json::from_str(&text).map_err(|e| Error::Remote {
                        message: format!("its summary is no JSON: {e}"),
                        exit_code: 1,
                    }),
                    None => Err(Error::Remote {
                        message: error.unwrap_or_default(),
                        exit_code: exit_code.unwrap_or(1),
                    }),
                };
                finished(i, result);
            }
            Ok(())
        })
        .map_err(|e| Error::Remote {
            message: format!("the Ray backend failed: {e}"),
            exit_code: 1,
        })
    }
}

/// One column of the request log for Python: its name, the numpy dtype of its values, the values
/// (little-endian, in a `bytearray` that `numpy.frombuffer` wraps without a copy) and, for `op`,
/// the names its codes index.
type LogColumn<'py> = (
    &'static str,
    &'static str,
    Bound<'py, PyByteArray>,
    Option<[&'static str; 3]>,
);

/// The request log column by column: those of `requests.csv` written by `ssdlab run --out`,
/// `stream` among them when some request has one. A column costs its width per request (45 or
/// 47 bytes a request in all), not a Python object per value.
fn request_columns<'py>(py: Python<'py>, rows: &[RequestRecord]) -> PyResult<Vec<LogColumn<'py>>> {
    let streams = RequestRecord::any_stream(rows);
    RequestRecord::log_columns(streams)
        .iter()
        .map(|&c| {
            // The 64-bit columns as int64, which pandas computes with as it does with the CSV's
            // values (no value of the log reaches 2^63); the narrower ones unsigned.
            let (dtype, width) = match c.bits() {
                None => ("u1", 1),
                Some(16) => ("<u2", 2),
                Some(32) => ("<u4", 4),
                Some(_) => ("<i8", 8),
            };
            let values = PyByteArray::new_with(py, rows.len() * width, |buf| {
                for (v, r) in buf.chunks_exact_mut(width).zip(rows) {
                    v.copy_from_slice(&c.value(r).to_le_bytes()[..width]);
                }
                Ok(())
            })?;
            let categories = (c == Column::Op).then(|| Op::ALL.map(Op::name));
            Ok((c.name(), dtype, values, categories))
        })
        .collect()
}

#[pymodule]
mod _core {
    use super::*;

    #[pymodule_export]
    use super::SsdlabError;

    /// Run one simulation; returns `(summary_json, request log columns or None)`, the columns as
    /// `(name, dtype, bytearray, categories or None)`.
    ///
    /// `traces` are `(path, format, columns_json, blkparse_event)` tuples (format None:
    /// detected; columns_json: the JSON text of a dict describing the columns, format then
    /// `columns`; blkparse_event None: the first of Q, D, C present) and `workloads` named
    /// workloads, each added as a flow; `mode` and `queue_depth` are set on every flow, the
    /// config's too (None: each flow's own, the config's `host` defaults, or the workload's own
    /// arrivals). The GIL is released while the engine runs;
    /// with `progress`, a progress bar shows on stderr meanwhile if it is a terminal. `snapshot`:
    /// the device snapshot folder or file (`ssdlab run --snapshot`).
    #[pyfunction]
    #[pyo3(signature = (
        preset, config_path, sets, traces, workloads, mode=None, queue_depth=None, verify=false,
        log_requests=false, progress=false, snapshot=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn simulate<'py>(
        py: Python<'py>,
        preset: String,
        config_path: Option<PathBuf>,
        sets: Vec<String>,
        traces: Vec<TraceArg>,
        workloads: Vec<String>,
        mode: Option<String>,
        queue_depth: Option<u32>,
        verify: bool,
        log_requests: bool,
        progress: bool,
        snapshot: Option<PathBuf>,
    ) -> PyResult<(String, Option<Vec<LogColumn<'py>>>)> {
        let mode = mode
            .as_deref()
            .map(replay_mode)
            .transpose()
            .map_err(py_err)?;
        let flows = traces
            .into_iter()
            .map(|(trace, format, columns, event)| {
                let read =
                    ReadOptions::new(format.as_deref(), columns.as_deref(), event.as_deref())?;
                Ok(read.flow(trace))
            })
            .chain(workloads.iter().map(|w| FlowConfig::workload(w)))
            .collect::<Result<Vec<_>, Error>>()
            .map_err(py_err)?;
        let replay = ReplayFlags { mode, queue_depth };
        let options = RunOptions {
            verify,
            request_log: log_requests,
            snapshot,
        };
        let done = engine(py, || {
            run(
                &preset,
                config_path,
                &sets,
                flows,
                replay,
                &options,
                progress,
            )
        })
        .map_err(py_err)?;
        let requests = match &done.requests {
            Some(rows) => Some(request_columns(py, rows)?),
            None => None,
        };
        Ok((done.summary_json, requests))
    }

    /// Names of the named workloads compiled into the engine.
    #[pyfunction]
    fn workloads() -> Vec<&'static str> {
        ssdlab::config::workloads::names()
    }

    /// The TOML text of a named workload.
    #[pyfunction]
    fn workload_toml(name: &str) -> PyResult<&'static str> {
        ssdlab::config::workloads::source(name).ok_or_else(|| {
            py_err(Error::UnknownWorkload {
                name: name.to_string(),
                known: ssdlab::config::workloads::names().join(", "),
            })
        })
    }

    /// Statistics of one trace file as JSON text (`ssdlab trace-info --json`); format None:
    /// detected; columns_json and blkparse_event as in `simulate`'s traces. The GIL is released
    /// while the file is read.
    #[pyfunction]
    #[pyo3(signature = (path, format=None, columns_json=None, blkparse_event=None))]
    fn trace_info(
        py: Python<'_>,
        path: PathBuf,
        format: Option<String>,
        columns_json: Option<String>,
        blkparse_event: Option<String>,
    ) -> PyResult<String> {
        let read = ReadOptions::new(
            format.as_deref(),
            columns_json.as_deref(),
            blkparse_event.as_deref(),
        )
        .map_err(py_err)?;
        engine(py, || trace_info_json(&path, read)).map_err(py_err)
    }

    /// Run an experiment grid given as a TOML file (`path`) or as JSON text (`spec_json`, relative
    /// paths from the working directory); returns the rows as JSON text. With `out`, runs are
    /// cached there and `results.csv`, `report.md` are written, and with `snapshots` the
    /// preconditioned devices are kept in `out/snapshots/`. The GIL is released meanwhile.
    #[pyfunction]
    #[pyo3(signature = (path=None, spec_json=None, out=None, jobs=None, snapshots=true))]
    fn run_experiment(
        py: Python<'_>,
        path: Option<PathBuf>,
        spec_json: Option<String>,
        out: Option<PathBuf>,
        jobs: Option<usize>,
        snapshots: bool,
    ) -> PyResult<String> {
        let jobs = jobs.unwrap_or_else(ssdlab::experiment::default_jobs);
        engine(py, || {
            let (spec, base) = match (path, spec_json) {
                (Some(p), None) => {
                    let base = p.parent().map(PathBuf::from).unwrap_or_default();
                    (Experiment::load(&p)?, base)
                }
                (None, Some(text)) => {
                    let spec: Experiment =
                        serde_json::from_str(&text).map_err(|e| Error::Toml {
                            origin: "experiment".into(),
                            message: e.to_string(),
                        })?;
                    (spec, PathBuf::from("."))
                }
                _ => {
                    return Err(Error::config(
                        "experiment",
                        "give the experiment as a file path or as a dict",
                    ))
                }
            };
            experiment_rows(spec, &base, out, jobs, snapshots)
        })
        .map_err(py_err)
    }

    /// The paper's figures of the experiment whose outputs are in `out` (its `experiment.json`
    /// and `runs/`) next to ours, as JSON text: one object per `[[paper.figures]]` entry, in
    /// order, with the report's `metric`, `config` and `workload` texts, `paper`, `ours` (its
    /// `value`, the `config` and `workload` it was found at, and `found`, or null),
    /// `score` (`delta`, `sign_agrees`, `within`, or null) with `verdict` and `delta_text`,
    /// `kind`, `source`, `line`, `reason` and `unmeasured`. Nothing is run.
    #[pyfunction]
    fn paper_comparison(py: Python<'_>, out: PathBuf) -> PyResult<String> {
        engine(py, || {
            let (e, results) = ssdlab::experiment::read_outputs(&out)?;
            let rows = ssdlab::experiment::report::comparisons(&e, &results);
            Ok(serde_json::to_string(&rows).unwrap_or_default())
        })
        .map_err(py_err)
    }

    /// The scorecard of a paper's experiments, whose outputs are in `folders` (each with its
    /// label), as JSON text: `tally` (claims by kind; of the results, how many have the right
    /// sign and how many are within ±25%), `sentence` (the tally in words) and `markdown` (the
    /// tally and each experiment's table, as the paper's README carries it). Nothing is run.
    #[pyfunction]
    fn scorecard(py: Python<'_>, folders: Vec<(String, PathBuf)>) -> PyResult<String> {
        use ssdlab::experiment::scorecard;
        engine(py, || {
            let sections = scorecard::read(&folders)?;
            let tally = scorecard::Tally::over(&sections);
            Ok(serde_json::json!({
                "tally": tally,
                "sentence": tally.sentence(),
                "markdown": scorecard::paper_markdown(&sections),
            })
            .to_string())
        })
        .map_err(py_err)
    }

    /// Simulate one run of an experiment grid given as the TOML text the grid's Ray backend
    /// sends (the `verify` flag and a resolved config); returns its summary as JSON text. The
    /// GIL is released while the engine runs. A failure raises `SsdlabError` with `exit_code`,
    /// the exit code the command line gives the error, so that the driver exits as the local
    /// backend would.
    #[pyfunction]
    fn run_task(py: Python<'_>, task_toml: String) -> PyResult<String> {
        engine(py, || runner::simulate_task(&task_toml)).map_err(|e| {
            let err = SsdlabError::new_err(e.to_string());
            match err.value(py).setattr("exit_code", e.exit_code()) {
                Ok(()) => err,
                Err(other) => other,
            }
        })
    }

    /// Panic inside the engine's guard, as every function here runs the engine: the tests' way
    /// to check that a defect of the engine reaches Python as `SsdlabError`.
    #[pyfunction]
    fn _panic_in_engine(py: Python<'_>, message: String) -> PyResult<()> {
        engine(py, || -> Result<(), Error> { panic!("{message}") }).map_err(py_err)
    }

    /// Names of the presets compiled into the engine.
    #[pyfunction]
    fn presets() -> Vec<&'static str> {
        preset_names()
    }

    /// The TOML text of a preset.
    #[pyfunction]
    fn preset_toml(name: &str) -> PyResult<&'static str> {
        preset_source(name).ok_or_else(|| {
            py_err(Error::UnknownPreset {
                name: name.to_string(),
                known: preset_names().join(", "),
            })
        })
    }

    /// The engine's version.
    #[pyfunction]
    fn version() -> &'static str {
        ssdlab::VERSION
    }

    /// Run the `ssdlab` command line (`argv[0]` is the program name) and return its exit code.
    /// It writes to the process's stdout and stderr directly, not to `sys.stdout`. `ray`, if
    /// given, is called with `--address` (or None) for `--backend ray` and returns the executor
    /// (`ssdlab.ray_backend.connect`); its exception's message is the usage error.
    #[pyfunction]
    #[pyo3(signature = (argv, ray=None))]
    fn cli_main(py: Python<'_>, argv: Vec<String>, ray: Option<Py<PyAny>>) -> i32 {
        py.detach(|| {
            let mut connect = ray.map(|ray| {
                move |address: Option<&str>| -> Result<Box<dyn Executor>, String> {
                    Python::attach(|py| {
                        ray.call1(py, (address,))
                            .map(|executor| Box::new(PyExecutor(executor)) as Box<dyn Executor>)
                            .map_err(|e| e.value(py).to_string())
                    })
                }
            });
            let ray_connect = connect.as_mut().map(|c| c as ssdlab::cli::RayConnect);
            let code = ssdlab::cli::main_with_ray(argv, ray_connect);
            // No Rust `main` returns here to flush a final partial line before Python exits.
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().flush();
            code
        })
    }
}
