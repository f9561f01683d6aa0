//! `ssdlab experiment` and `ssdlab reproduce`: grids of runs (see docs/experiments.md).

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::experiment::{Executor, Local};

use super::{usage_error, Progress, RayConnect};

#[derive(clap::Args, Debug)]
pub(super) struct ExperimentArgs {
    /// The experiment file (TOML; see docs/experiments.md).
    file: PathBuf,
    /// Folder for runs/*.json, results.csv and report.md (runs already there are reused).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    #[command(flatten)]
    backend: BackendArgs,
}

#[derive(clap::Args, Debug)]
pub(super) struct ReproduceArgs {
    /// The experiment's name: experiments/NAME.toml.
    name: String,
    /// Output folder (default: reproductions/NAME).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Where the experiment files are.
    #[arg(long, value_name = "DIR", default_value = "experiments")]
    experiments: PathBuf,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Where the runs of a grid are simulated (docs/experiments.md, "Running on a Ray cluster").
#[derive(clap::Args, Debug)]
pub(super) struct BackendArgs {
    /// Simulations run at once by the local backend (default: every core). Not with `ray`,
    /// where the cluster's CPUs decide (each run takes one).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// `local`: threads of this process. `ray`: one Ray task per run (the Python package's
    /// `ssdlab` command, with `pip install 'ssdlab[ray]'`).
    #[arg(long, value_enum, default_value_t = Backend::Local)]
    backend: Backend,
    /// The Ray cluster (`--backend ray`): `auto` (the one this machine belongs to), or
    /// `ray://HOST:10001` (Ray Client). Default: a new Ray instance on this machine.
    #[arg(long, value_name = "ADDR")]
    address: Option<String>,
    /// Precondition every run afresh instead of keeping each preconditioned device in
    /// OUT/snapshots/ for the runs that share it (docs/snapshots.md).
    #[arg(long)]
    no_snapshots: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Local,
    Ray,
}

impl BackendArgs {
    /// The executor these options name, or the exit code of the usage error they make.
    fn executor(self, ray: Option<RayConnect>) -> Result<Box<dyn Executor>, i32> {
        match self.backend {
            Backend::Local => {
                if self.address.is_some() {
                    return Err(usage_error(
                        "--address is the Ray cluster's: give --backend ray",
                    ));
                }
                let jobs = self.jobs.unwrap_or_else(crate::experiment::default_jobs);
                Ok(Box::new(Local { jobs }))
            }
            Backend::Ray => {
                if self.jobs.is_some() {
                    return Err(usage_error(
                        "--jobs is the local backend's: with --backend ray, the cluster's CPUs \
                         decide how many runs are simulated at once (each run takes one)",
                    ));
                }
                let Some(connect) = ray else {
                    return Err(usage_error(
                        "the Ray backend runs through the Python package's `ssdlab` command: \
                         pip install 'ssdlab[ray]', then run this command line with it",
                    ));
                };
                connect(self.address.as_deref())
                    .map_err(|why| usage_error(&format!("--backend ray: {why}")))
            }
        }
    }
}

pub(super) fn experiment(a: ExperimentArgs, ray: Option<RayConnect>) -> Result<i32, Error> {
    let snapshots = !a.backend.no_snapshots;
    let mut executor = match a.backend.executor(ray) {
        Ok(executor) => executor,
        Err(code) => return Ok(code),
    };
    let command = format!(
        "ssdlab experiment {} --out {}",
        a.file.display(),
        a.out.display()
    );
    run_grid(&a.file, &a.out, snapshots, executor.as_mut(), &command)
}

pub(super) fn reproduce(a: ReproduceArgs, ray: Option<RayConnect>) -> Result<i32, Error> {
    let file = a.experiments.join(format!("{}.toml", a.name));
    if !file.is_file() {
        return Ok(usage_error(&format!(
            "no experiment `{}`: {} does not exist (known: {})",
            a.name,
            file.display(),
            known_experiments(&a.experiments)
        )));
    }
    let out = a
        .out
        .unwrap_or_else(|| Path::new("reproductions").join(&a.name));
    let snapshots = !a.backend.no_snapshots;
    let mut executor = match a.backend.executor(ray) {
        Ok(executor) => executor,
        Err(code) => return Ok(code),
    };
    let command = format!("ssdlab reproduce {} --out {}", a.name, out.display());
    run_grid(&file, &out, snapshots, executor.as_mut(), &command)
}

fn run_grid(
    file: &Path,
    out_dir: &Path,
    snapshots: bool,
    executor: &mut dyn Executor,
    command: &str,
) -> Result<i32, Error> {
    let mut progress = Progress::new("runs");
    let result =
        crate::experiment::run_file(file, out_dir, snapshots, executor, command, &mut |d, t| {
            progress.update(d as u64, t as u64)
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
