//! `ssdlab experiment` and `ssdlab reproduce`: grids of runs (see docs/experiments.md).

use std::path::{Path, PathBuf};

use crate::error::Error;

use super::{usage_error, Progress};

#[derive(clap::Args, Debug)]
pub(super) struct ExperimentArgs {
    /// The experiment file (TOML; see docs/experiments.md).
    file: PathBuf,
    /// Folder for runs/*.json, results.csv and report.md (runs already there are reused).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Simulations run at once (default: every core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
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
    /// Simulations run at once (default: every core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
}

pub(super) fn experiment(a: ExperimentArgs) -> Result<i32, Error> {
    let command = format!(
        "ssdlab experiment {} --out {}",
        a.file.display(),
        a.out.display()
    );
    run_grid(&a.file, &a.out, a.jobs, &command)
}

pub(super) fn reproduce(a: ReproduceArgs) -> Result<i32, Error> {
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
    let command = format!("ssdlab reproduce {} --out {}", a.name, out.display());
    run_grid(&file, &out, a.jobs, &command)
}

fn run_grid(file: &Path, out_dir: &Path, jobs: Option<usize>, command: &str) -> Result<i32, Error> {
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
