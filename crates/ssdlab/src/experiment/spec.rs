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
    /// Figures in a paper's own layout, drawn besides the per-metric bar charts: a subset of the
    /// configs, a breakdown of several counters, or averages over the workloads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charts: Vec<Chart>,
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
    /// The config this one's ratios are to, when it is not the experiment's `baseline` (a
    /// sweep with one baseline per point, e.g. per channel count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
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

/// A figure in a paper's layout (`plots/NAME.png`, and a table of its values in the report).
/// Values are means over seeds; every non-absolute metric is divided by the config's baseline
/// on the same workload, and "average" is the mean of those ratios over the workloads (the AVG
/// bars of the papers).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chart {
    /// The file name in `plots/` (without extension).
    pub name: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub kind: ChartKind,
    /// Each one of the experiment's `metrics`; a `bars` chart has exactly one.
    pub metrics: Vec<String>,
    /// The configs drawn, in this order (default: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<String>,
}

/// How a chart lays out its values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChartKind {
    /// One metric: a group per workload and one for the average, a bar per config.
    #[default]
    Bars,
    /// Several counters as shares of their sum (a breakdown): a group per workload and the
    /// average, a stacked bar per config.
    Stacked,
    /// Several metrics averaged over the workloads: a group per config, a bar per metric.
    Average,
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

/// One number of the paper: `metric` of `config` on `workload`, or over all workloads (the best,
/// by `best`, for "up to" claims; the mean with `average`). On each workload the value is the
/// metric, as a share of the sum of `share_of` if given, divided by the same of `normalized_to`
/// if given, minus the same of `minus` if given.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperFigure {
    pub metric: String,
    pub config: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized_to: Option<String>,
    /// The value is a difference: `config`'s minus this config's ("a gap of 17% between SP and
    /// PR": both normalized to the baseline, then subtracted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minus: Option<String>,
    /// The metric is taken as a share of the sum of these (a slice of a breakdown, e.g. conflict
    /// reads among all reads); `metric` is usually one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub share_of: Vec<String>,
    /// Without `workload`: the mean over all workloads ("18% on average") instead of the best.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub average: bool,
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
    pub(crate) fn is_highest(&self) -> bool {
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
        for (i, c) in self.configs.iter().enumerate() {
            if let Some(b) = &c.baseline {
                if !is_config(b) {
                    return Err(Error::config(
                        &format!("configs[{i}].baseline"),
                        format!("no config is labelled `{b}`"),
                    ));
                }
            }
        }
        self.validate_charts()?;
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
                if let Some(m) = &f.minus {
                    if !is_config(m) {
                        return Err(Error::config(&key("minus"), format!("no config `{m}`")));
                    }
                }
                if f.share_of.iter().any(String::is_empty) {
                    return Err(Error::config(
                        &key("share_of"),
                        "metric names must not be empty",
                    ));
                }
                if f.average && f.workload.is_some() {
                    return Err(Error::config(
                        &key("average"),
                        "a figure is either on one `workload` or the average over all",
                    ));
                }
                if f.average && !f.best.is_highest() {
                    return Err(Error::config(
                        &key("best"),
                        "an average over all workloads has no best",
                    ));
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

impl Experiment {
    /// The config `label`'s ratios are to: its own `baseline`, else the experiment's.
    pub fn baseline_of(&self, label: &str) -> Option<&str> {
        self.configs
            .iter()
            .find(|c| c.label == label)
            .and_then(|c| c.baseline.as_deref())
            .or(self.baseline.as_deref())
    }

    /// The configs a chart draws, in order.
    pub fn chart_configs<'a>(&'a self, chart: &'a Chart) -> Vec<&'a str> {
        if chart.configs.is_empty() {
            self.configs.iter().map(|c| c.label.as_str()).collect()
        } else {
            chart.configs.iter().map(String::as_str).collect()
        }
    }

    fn validate_charts(&self) -> Result<(), Error> {
        for (i, c) in self.charts.iter().enumerate() {
            let key = |k: &str| format!("charts[{i}].{k}");
            if c.name.is_empty() || c.name.contains(['/', '\\']) {
                return Err(Error::config(
                    &key("name"),
                    "must be a non-empty name without slashes",
                ));
            }
            if self.charts[..i].iter().any(|o| o.name == c.name)
                || self
                    .metrics
                    .iter()
                    .any(|m| super::report::plot_name(m) == c.name)
            {
                return Err(Error::config(
                    &key("name"),
                    format!("`{}` is already the name of another plot", c.name),
                ));
            }
            let wanted = match c.kind {
                ChartKind::Bars => (1, "exactly one metric"),
                ChartKind::Stacked => (2, "at least two metrics (the parts of a breakdown)"),
                ChartKind::Average => (1, "at least one metric"),
            };
            if c.metrics.len() < wanted.0 || (c.kind == ChartKind::Bars && c.metrics.len() > 1) {
                return Err(Error::config(
                    &key("metrics"),
                    format!("needs {}", wanted.1),
                ));
            }
            for (j, m) in c.metrics.iter().enumerate() {
                if !self.metrics.contains(m) {
                    return Err(Error::config(
                        &format!("charts[{i}].metrics[{j}]"),
                        format!("`{m}` is not one of `metrics`"),
                    ));
                }
            }
            for (j, l) in c.configs.iter().enumerate() {
                if !self.configs.iter().any(|x| &x.label == l) || c.configs[..j].contains(l) {
                    return Err(Error::config(
                        &format!("charts[{i}].configs[{j}]"),
                        format!("`{l}` is not a config, or is listed twice"),
                    ));
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
