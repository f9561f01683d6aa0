//! The experiment file: a grid of configs × workloads × seeds, the metrics to report, and
//! (for `ssdlab reproduce`) the paper's own figures to put ours next to.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::{Config, ReplayMode};
use crate::error::Error;
use crate::trace::{BlkparseEvent, ColumnsSpec, TraceFormat};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Dotted paths into the run summary (`iops`, `raf`, `latency_ns.read.mean`), one column each.
    pub metrics: Vec<String>,
    #[serde(default = "default_seeds")]
    pub seeds: Vec<u64>,
    /// The config label the bar charts (and normalized paper figures) divide by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Metrics whose bar charts show their values as they are, not divided by the baseline's
    /// (e.g. RAF, which SPREAD's Fig. 6(c) plots absolute); each must be one of `metrics`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absolute_metrics: Vec<String>,
    pub configs: Vec<ConfigSpec>,
    pub workloads: Vec<WorkloadSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper: Option<Paper>,
}

fn default_seeds() -> Vec<u64> {
    vec![1]
}

/// One column of the grid: a preset, an optional config file, overrides.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigSpec {
    /// The run's label in results (the paper's scheme name, e.g. `spFTL`).
    pub label: String,
    #[serde(default = "default_preset")]
    pub preset: String,
    /// Merged over the preset; relative to the experiment file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_file: Option<PathBuf>,
    /// Overrides by dotted key, as `--set` gives them: `{ "ftl.read_policy.policy" = "full" }`.
    #[serde(default)]
    pub set: toml::Table,
}

fn default_preset() -> String {
    "default".into()
}

/// One row of the grid: a trace or a generator, replayed as the run's only flow.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// The workload's label in results (the paper's name, e.g. `KV`).
    pub label: String,
    /// A trace file, relative to the experiment file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<TraceFormat>,
    /// The description of a `columns` trace, as in a config's flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<ColumnsSpec>,
    /// The blkparse event to read (default: the first of Q, D, C the file holds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blkparse_event: Option<BlkparseEvent>,
    /// A named workload, with `generator` keys merged over it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<toml::Table>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ReplayMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_scale: Option<f64>,
    /// Overrides this workload needs on every config (e.g. SU's preconditioning).
    #[serde(default)]
    pub set: toml::Table,
}

/// The paper's figures, for the reproduction report.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// The paper and section the figures come from.
    pub source: String,
    #[serde(default)]
    pub figures: Vec<PaperFigure>,
    /// Free text put at the end of the report: how to read the comparison.
    #[serde(default)]
    pub notes: String,
}

/// One number of the paper: `metric` of `config` on `workload` (or over all workloads, for
/// "up to" claims: `workload` absent takes the best, by `best`), optionally divided by
/// `normalized_to`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperFigure {
    pub metric: String,
    pub config: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized_to: Option<String>,
    pub value: f64,
    /// Which value over all workloads is the best, for a figure without `workload`: the highest
    /// (the default: "IOPS up to 2.2×") or the lowest ("latency reduced by up to 56%").
    #[serde(default, skip_serializing_if = "Best::is_highest")]
    pub best: Best,
    /// Where the number is in the paper (e.g. "Fig. 6(a)").
    pub source: String,
}

/// The direction of an "up to" figure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Best {
    #[default]
    Highest,
    Lowest,
}

impl Best {
    fn is_highest(&self) -> bool {
        *self == Best::Highest
    }
}

impl Experiment {
    /// Read an experiment file (TOML).
    pub fn load(path: &Path) -> Result<Experiment, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let e: Experiment =
            toml::from_str(&text).map_err(|e| Error::toml(&path.display().to_string(), e))?;
        e.validate()?;
        Ok(e)
    }

    /// Check labels and references; errors name the key.
    pub fn validate(&self) -> Result<(), Error> {
        let nonempty = |key: &str, n: usize| {
            if n == 0 {
                Err(Error::config(key, "must not be empty"))
            } else {
                Ok(())
            }
        };
        nonempty("metrics", self.metrics.len())?;
        nonempty("seeds", self.seeds.len())?;
        nonempty("configs", self.configs.len())?;
        nonempty("workloads", self.workloads.len())?;
        let unique = |key: &str, labels: Vec<&str>| {
            for (i, l) in labels.iter().enumerate() {
                if l.is_empty() || l.contains(['/', '\\']) {
                    return Err(Error::config(
                        &format!("{key}[{i}].label"),
                        "must be a non-empty name without slashes",
                    ));
                }
                if labels[..i].contains(l) {
                    return Err(Error::config(
                        &format!("{key}[{i}].label"),
                        format!("`{l}` is used twice"),
                    ));
                }
            }
            Ok(())
        };
        unique(
            "configs",
            self.configs.iter().map(|c| c.label.as_str()).collect(),
        )?;
        unique(
            "workloads",
            self.workloads.iter().map(|w| w.label.as_str()).collect(),
        )?;
        let is_config = |l: &str| self.configs.iter().any(|c| c.label == l);
        if let Some(b) = &self.baseline {
            if !is_config(b) {
                return Err(Error::config(
                    "baseline",
                    format!("no config is labelled `{b}`"),
                ));
            }
        }
        for (i, m) in self.absolute_metrics.iter().enumerate() {
            if !self.metrics.contains(m) {
                return Err(Error::config(
                    &format!("absolute_metrics[{i}]"),
                    format!("`{m}` is not one of `metrics`"),
                ));
            }
        }
        for (i, w) in self.workloads.iter().enumerate() {
            if w.trace.is_some() == (w.workload.is_some() || w.generator.is_some()) {
                return Err(Error::config(
                    &format!("workloads[{i}].trace"),
                    "give exactly one of `trace` and `workload` / `generator`",
                ));
            }
        }
        if let Some(p) = &self.paper {
            for (i, f) in p.figures.iter().enumerate() {
                let key = |k: &str| format!("paper.figures[{i}].{k}");
                if !is_config(&f.config) {
                    return Err(Error::config(
                        &key("config"),
                        format!("no config `{}`", f.config),
                    ));
                }
                if let Some(n) = &f.normalized_to {
                    if !is_config(n) {
                        return Err(Error::config(
                            &key("normalized_to"),
                            format!("no config `{n}`"),
                        ));
                    }
                }
                if let Some(w) = &f.workload {
                    if !self.workloads.iter().any(|x| &x.label == w) {
                        return Err(Error::config(
                            &key("workload"),
                            format!("no workload `{w}`"),
                        ));
                    }
                    if !f.best.is_highest() {
                        return Err(Error::config(
                            &key("best"),
                            "only a figure over all workloads (no `workload`) has a best",
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

impl ConfigSpec {
    /// The resolved config of this column with `workload` as its only flow. `base` is the
    /// experiment file's folder (relative paths start there).
    pub fn resolve(
        &self,
        workload: &WorkloadSpec,
        seed: u64,
        base: &Path,
    ) -> Result<Config, Error> {
        let mut sets: Vec<String> = Vec::new();
        for table in [&self.set, &workload.set] {
            for (k, v) in table {
                sets.push(format!("{k}={v}"));
            }
        }
        sets.push(format!("seed={seed}"));
        // The flow goes in as an override too, so a named workload is expanded (and its
        // generator keys merged) by the same code as in a config file.
        let mut flow = toml::Table::new();
        if let Some(t) = &workload.trace {
            flow.insert("trace".into(), base.join(t).display().to_string().into());
        }
        if let Some(f) = workload.format {
            flow.insert("format".into(), f.name().into());
        }
        if let Some(c) = &workload.columns {
            let table = toml::Value::try_from(c).map_err(|e| {
                Error::config(
                    &format!("workloads `{}`.columns", workload.label),
                    e.to_string(),
                )
            })?;
            flow.insert("columns".into(), table);
        }
        if let Some(e) = workload.blkparse_event {
            flow.insert("blkparse_event".into(), e.name().into());
        }
        if let Some(w) = &workload.workload {
            flow.insert("workload".into(), w.clone().into());
        }
        if let Some(g) = &workload.generator {
            flow.insert("generator".into(), toml::Value::Table(g.clone()));
        }
        flow.insert("name".into(), workload.label.clone().into());
        if let Some(m) = workload.mode {
            let m = match m {
                ReplayMode::Open => "open",
                ReplayMode::Closed => "closed",
            };
            flow.insert("mode".into(), m.into());
        }
        if let Some(q) = workload.queue_depth {
            flow.insert("queue_depth".into(), i64::from(q).into());
        }
        if let Some(t) = workload.time_scale {
            flow.insert("time_scale".into(), t.into());
        }
        sets.push(format!(
            "flows={}",
            toml::Value::Array(vec![toml::Value::Table(flow)])
        ));
        let file = self.config_file.as_ref().map(|f| base.join(f));
        Config::resolve(&self.preset, file.as_deref(), &sets).map_err(|e| Error::Toml {
            origin: format!(
                "experiment: config `{}` × workload `{}`",
                self.label, workload.label
            ),
            message: e.to_string(),
        })
    }
}
