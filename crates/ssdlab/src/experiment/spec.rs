//! The experiment file: a grid of configs × workloads × seeds, the metrics to report, and
//! (for `ssdlab reproduce`) the paper's own figures to put ours next to.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ablation::Ablation;
use super::params::{self, Sweep};
use crate::config::StreamRule;
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
    /// The config the bar charts (and normalized paper figures) divide by: its label, or its
    /// name (`label[a=1,b=x]`) if it has parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Metrics whose bar charts show their values as they are, not divided by the baseline's
    /// (e.g. RAF, which SPREAD's Fig. 6(c) plots absolute); each must be one of `metrics`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absolute_metrics: Vec<String>,
    /// The metrics that get a bar chart of their own (`plots/METRIC.png`, shown under the
    /// metric's table in the report), each one of `metrics`; absent: every metric; `[]`: none
    /// (a grid of many configs, whose bars no one can tell apart). Tables keep every metric.
    /// With an `[ablation]` the Python plots draw each technique's contribution there instead
    /// (docs/experiments.md, "Ablation").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bar_metrics: Option<Vec<String>>,
    /// The configs, after the `[ablation]`'s (if any) once the experiment is prepared.
    #[serde(default)]
    pub configs: Vec<ConfigSpec>,
    /// Configs generated from a base device and a list of techniques: none, each alone, each
    /// left out of the full set, the full set (docs/experiments.md, "Ablation").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ablation: Option<Ablation>,
    pub workloads: Vec<WorkloadSpec>,
    /// Every run checks every read and the final state against the integrity oracle (`ssdlab
    /// run --verify`); a violation in any run fails the experiment, after its outputs are
    /// written (results.csv then has a column `integrity.violations`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify: bool,
    /// Figures in a paper's own layout, drawn besides the per-metric bar charts: a subset of the
    /// configs, a breakdown of several counters, or averages over the workloads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charts: Vec<Chart>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper: Option<Paper>,
    /// Whether the plots give each workload's read-latency CDF (default true); false for
    /// workloads of one read each, whose CDF is a step (melded pages' Table 3).
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub latency_cdfs: bool,
}

fn default_seeds() -> Vec<u64> {
    vec![1]
}

fn yes() -> bool {
    true
}

fn is_yes(b: &bool) -> bool {
    *b
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
    /// Named parameters (`{ migration_share = 0.04 }`): columns of results.csv, telling apart
    /// configs that share a label (docs/experiments.md, "Parameters and sweeps").
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub params: toml::Table,
    /// Parameters swept over values, each value written to a config key: the config stands for
    /// the cross product of the sweeps' values. Expanded when the experiment is read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweep: Vec<Sweep>,
    /// The config's name when it has parameters (`label[a=1,b=x]`), written into
    /// experiment.json for the plots; never read.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// For a config of the `[ablation]`, the techniques it turns on (none: an empty list),
    /// written into experiment.json; never read (the ablation makes its configs again).
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub techniques: Option<Vec<String>>,
}

fn default_preset() -> String {
    "default".into()
}

/// One row of the grid: a trace or a generator, replayed as the run's only flow; or several
/// flows replayed together (`flows`).
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
    /// A trace's stream rule, as a flow's `stream` (stream ids for a trace that has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamRule>,
    /// Several flows replayed together instead of the one the keys above describe, each a
    /// table as a config's `[[flows]]` entry (a trace's path relative to the experiment file):
    /// e.g. a block written, then read after its programs (melded pages' Table 3).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<toml::Table>,
    /// Overrides this workload needs on every config (e.g. SU's preconditioning).
    #[serde(default)]
    pub set: toml::Table,
    /// Named parameters (`{ read_size_kib = 4 }`): columns of results.csv, as a config's.
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub params: toml::Table,
    /// Parameters swept over values, as a config's `sweep`: the workload stands for one
    /// workload per combination of values, labelled `label[param=value]` (e.g. each workload
    /// on a fresh device and on one aged to GC's steady state). Expanded when the experiment is
    /// read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweep: Vec<Sweep>,
    /// Only the configs whose parameters have these values run this workload (default all):
    /// a grid that is not a full cross product.
    #[serde(
        default,
        rename = "where",
        skip_serializing_if = "toml::Table::is_empty"
    )]
    pub where_: toml::Table,
}

impl WorkloadSpec {
    /// Whether `config` runs this workload (its `where`).
    pub fn runs_on(&self, config: &ConfigSpec) -> bool {
        self.where_
            .iter()
            .all(|(k, v)| config.params.get(k) == Some(v))
    }
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
    /// The configs drawn, in this order (default: all): each a config's name, or a label that
    /// stands for every config with that label.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<String>,
    /// `lines`: the parameter on the x axis (numeric): a config's, or a workload's (then a
    /// line per config, its points the workloads that have the parameter: melded pages' read
    /// size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<String>,
    /// `lines`: the parameter, or the list of parameters, with one line per value (per
    /// combination of values) (default: one line per workload, or per config when `x` is a
    /// workload's; with a parameter and several workloads, one per workload and value).
    #[serde(
        default,
        deserialize_with = "one_or_many",
        serialize_with = "one_or_many_out",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub series: Vec<String>,
    /// `lines`: the axes drawn on a log scale, `["x"]`, `["y"]` or both (values spanning
    /// decades: read sizes of 4 KiB to 128 MiB).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<String>,
    /// `lines`: only the points whose parameters (the config's or the workload's) have these
    /// values.
    #[serde(
        default,
        rename = "where",
        skip_serializing_if = "toml::Table::is_empty"
    )]
    pub where_: toml::Table,
    /// `lines`: the config every value is divided by, on the same workload (a paper's
    /// "normalized to pcm5 at 0%"); or a label, for the config with that label at each point's
    /// parameters (melded pages' gain over normal reads at each sweep point).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized_to: Option<String>,
}

impl Chart {
    /// Whether parameters `params` have the values the chart's `where` gives those of
    /// `columns` (a config's or a workload's parameter names).
    fn selects(&self, columns: &[String], params: &toml::Table) -> bool {
        (self.where_.iter())
            .filter(|(k, _)| columns.contains(k))
            .all(|(k, v)| params.get(k) == Some(v))
    }
}

/// A table workload `label` holds under `key`, as its flow's TOML.
fn table_of<T: Serialize>(label: &str, key: &str, v: &T) -> Result<toml::Value, Error> {
    toml::Value::try_from(v)
        .map_err(|e| Error::config(&format!("workloads `{label}`.{key}"), e.to_string()))
}

/// A string, or a list of them (a chart's `series`).
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

/// One name as a string (as experiments before lists wrote it), several as a list.
fn one_or_many_out<S: serde::Serializer>(v: &[String], s: S) -> Result<S::Ok, S::Error> {
    match v {
        [one] => s.serialize_str(one),
        many => many.serialize(s),
    }
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
    /// One metric against a parameter (`x`): a line per value of another (`series`) or per
    /// workload, as the values are or divided by one config's (`normalized_to`).
    Lines,
}

/// The paper's figures, for the reproduction report.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// The paper and section the figures come from.
    pub source: String,
    /// The file of the paper's text the figures' `line`s are of (the project's seeds, e.g.
    /// `spread.txt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default)]
    pub figures: Vec<PaperFigure>,
    /// Free text put at the end of the report: how to read the comparison.
    #[serde(default)]
    pub notes: String,
}

/// One number of the paper: `metric` of `config` on `workload`, or over all workloads (the best,
/// by `best`, for "up to" claims; the mean with `average`). On each workload the value is the
/// metric, per `per` or as a share of the sum of `share_of` if given, divided by the same of `normalized_to`
/// if given, minus the same of `minus` if given. `config` may be a label: the best over the
/// configs with it (every point of a sweep, "up to 45%"); `normalized_to` and `minus` may be
/// labels: the config with that label at the point's parameters.
///
/// A figure is scored on the effect (`report.rs` `Score`): ours and the paper's distance from
/// `null`, the value of no effect.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperFigure {
    /// Empty only for an `unmeasured` claim that names none.
    #[serde(default)]
    pub metric: String,
    /// The metric divided by this metric of the same config and workload (a time per
    /// invocation: `busy_ns` per `invocations`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<String>,
    /// Empty only for an `unmeasured` claim that names none.
    #[serde(default)]
    pub config: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized_to: Option<String>,
    /// The value on `workload` divided by the same on this workload ("pageFTL's RAF on USR
    /// above PRJ's"): a comparison across workloads. Needs `workload`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_workload: Option<String>,
    /// The value is a difference: `config`'s minus this config's ("a gap of 17% between SP and
    /// PR": both normalized to the baseline, then subtracted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minus: Option<String>,
    /// The metric is taken as a share of the sum of these (a slice of a breakdown, e.g. conflict
    /// reads among all reads); `metric` is usually one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub share_of: Vec<String>,
    /// Without `workload`: the workloads the average or the best is over (default all): the
    /// paper's own set where the grid runs more ("the six traces").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<String>,
    /// Without `workload`: the mean over all workloads ("18% on average") instead of the best.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub average: bool,
    /// The paper's number; none for a claim of order alone (`order`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// For a claim the paper makes without a number ("pageFTL's RAF on USR is above PRJ's"):
    /// that ours lies above or below `null`. Instead of `value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
    /// Which value over all workloads is the best, for a figure without `workload`: the highest
    /// (the default: "IOPS up to 2.2×") or the lowest ("latency reduced by up to 56%").
    #[serde(default, skip_serializing_if = "Best::is_highest")]
    pub best: Best,
    /// Where the number is in the paper, and what it claims (e.g. "§V.B, Fig. 6(a): IOPS up to
    /// 2.2× over pageFTL").
    pub source: String,
    /// The line of the paper's text (`[paper] text`) that states the number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// What the figure is to the reproduction: a result it reproduces, an input it was given,
    /// or a value it was calibrated to. Only results are evidence of fidelity.
    #[serde(default, skip_serializing_if = "ClaimKind::is_result")]
    pub kind: ClaimKind,
    /// The value of no effect: 1 for a ratio (`normalized_to`, `over_workload`), else 0 (a
    /// difference, `minus`, even of ratios; a share, a time, a count), unless given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub null: Option<f64>,
    /// Why the grid gives no value for this claim (a workload or mechanism it does not run): the
    /// claim is kept, and counted, as not reproduced. `metric`, `config` and `workload` then
    /// describe it and are not looked up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmeasured: Option<String>,
    /// Why ours differ from `value`, in a sentence or two (markdown), taken from the
    /// reproduction's README, which gives the longer argument: the report and the site's
    /// fidelity table print it beside the two numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A claim of order alone: the value lies above or below its `null`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    Above,
    Below,
}

/// What a paper figure is to the reproduction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// An effect the paper measured and the reproduction simulates.
    #[default]
    Result,
    /// A value the reproduction takes from the paper as a parameter (a latency of Table I): its
    /// agreement checks the model, not the technique.
    Input,
    /// A value a workload or parameter was set to match (a codec's savings on generated content).
    Calibrated,
}

impl ClaimKind {
    pub(crate) fn is_result(&self) -> bool {
        *self == ClaimKind::Result
    }

    pub fn text(self) -> &'static str {
        match self {
            ClaimKind::Result => "result",
            ClaimKind::Input => "input",
            ClaimKind::Calibrated => "calibrated",
        }
    }
}

impl PaperFigure {
    /// The value of no effect (see `null`).
    pub fn null(&self) -> f64 {
        // (A difference of two ratios, `minus`, is a difference: no effect is 0.)
        let ratio =
            self.minus.is_none() && (self.normalized_to.is_some() || self.over_workload.is_some());
        self.null.unwrap_or(if ratio { 1.0 } else { 0.0 })
    }
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
        e.prepare()
    }

    /// The experiment as it runs: the `[ablation]`'s configs first, then every config with
    /// sweeps replaced by its points, and every workload with sweeps by its points; then checked.
    /// Preparing a prepared experiment again changes nothing.
    pub fn prepare(mut self) -> Result<Experiment, Error> {
        // The ablation's configs of an earlier preparation are made again.
        self.configs.retain(|c| c.techniques.is_none());
        let mut configs = params::expand(std::mem::take(&mut self.configs), &self.metrics)?;
        if let Some(a) = &self.ablation {
            let generated = a.configs()?;
            for (i, c) in configs.iter().enumerate() {
                if generated.iter().any(|g| g.label == c.label) {
                    return Err(Error::config(
                        &format!("configs[{i}].label"),
                        format!("`{}` is the label of a config of the [ablation]", c.label),
                    ));
                }
            }
            configs.splice(0..0, generated);
        }
        self.configs = configs;
        for c in &mut self.configs {
            c.name = (!c.params.is_empty()).then(|| c.name());
        }
        self.workloads =
            params::expand_workloads(std::mem::take(&mut self.workloads), &self.metrics)?;
        self.check()?;
        Ok(self)
    }

    /// Check labels, parameters and references; errors name the key.
    pub fn validate(&self) -> Result<(), Error> {
        self.clone().prepare().map(drop)
    }

    /// The parameter names, in the order of their columns in results.csv: the workloads',
    /// then the configs' (each in order of first appearance).
    pub fn param_columns(&self) -> Vec<String> {
        let mut names = self.workload_param_columns();
        names.extend(params::columns(&self.configs));
        names
    }

    /// The workloads' parameter names, in order of first appearance.
    pub fn workload_param_columns(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for w in &self.workloads {
            for k in w.params.keys() {
                if !names.contains(k) {
                    names.push(k.clone());
                }
            }
        }
        names
    }

    /// The metric columns of results.csv: `metrics`, and with `verify` the oracle's
    /// `integrity.violations` (unless a metric already).
    pub fn csv_columns(&self) -> Vec<String> {
        let mut columns = self.metrics.clone();
        let v = "integrity.violations";
        if self.verify && !columns.iter().any(|m| m == v) {
            columns.push(v.into());
        }
        columns
    }

    /// Whether `metric` gets a bar chart of its own (`bar_metrics`, default every metric).
    pub fn has_bar_chart(&self, metric: &str) -> bool {
        self.bar_metrics
            .as_ref()
            .is_none_or(|ms| ms.iter().any(|m| m == metric))
    }

    fn check(&self) -> Result<(), Error> {
        let nonempty = |key: &str, n: usize| {
            if n == 0 {
                Err(Error::config(key, "must not be empty"))
            } else {
                Ok(())
            }
        };
        nonempty("metrics", self.metrics.len())?;
        nonempty("seeds", self.seeds.len())?;
        if self.configs.is_empty() {
            return Err(Error::config(
                "configs",
                "must not be empty (give [[configs]], or an [ablation])",
            ));
        }
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
        // Configs that share a label are told apart by their parameters (params::expand).
        for (i, c) in self.configs.iter().enumerate() {
            if c.label.is_empty() || c.label.contains(['/', '\\', '[', ']']) {
                return Err(Error::config(
                    &format!("configs[{i}].label"),
                    "must be a non-empty name without slashes or brackets",
                ));
            }
        }
        unique(
            "workloads",
            self.workloads.iter().map(|w| w.label.as_str()).collect(),
        )?;
        let is_config = |l: &str| self.configs.iter().any(|c| c.name() == l);
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
                self.check_counterpart(&format!("configs[{i}].baseline"), b, c)?;
            }
        }
        self.check_workloads()?;
        self.validate_charts()?;
        for (i, m) in self.absolute_metrics.iter().enumerate() {
            if !self.metrics.contains(m) {
                return Err(Error::config(
                    &format!("absolute_metrics[{i}]"),
                    format!("`{m}` is not one of `metrics`"),
                ));
            }
        }
        for (i, m) in self.bar_metrics.iter().flatten().enumerate() {
            if !self.metrics.contains(m) {
                return Err(Error::config(
                    &format!("bar_metrics[{i}]"),
                    format!("`{m}` is not one of `metrics`"),
                ));
            }
        }
        if let Some(p) = &self.paper {
            for (i, f) in p.figures.iter().enumerate() {
                let key = |k: &str| format!("paper.figures[{i}].{k}");
                if f.value.is_some() == f.order.is_some() {
                    return Err(Error::config(
                        &key("value"),
                        "give the paper's `value`, or for a claim without a number its `order` \
                         (\"above\" or \"below\" null), not both",
                    ));
                }
                if let Some(why) = &f.unmeasured {
                    if why.trim().is_empty() {
                        return Err(Error::config(
                            &key("unmeasured"),
                            "must say why the grid gives no value",
                        ));
                    }
                    continue;
                }
                if f.metric.is_empty() {
                    return Err(Error::config(&key("metric"), "must name a metric"));
                }
                let points = self.configs_called(&f.config);
                if points.is_empty() {
                    return Err(Error::config(
                        &key("config"),
                        format!("no config `{}`", f.config),
                    ));
                }
                for c in &points {
                    if let Some(n) = &f.normalized_to {
                        self.check_counterpart(&key("normalized_to"), n, c)?;
                    }
                    if let Some(m) = &f.minus {
                        self.check_counterpart(&key("minus"), m, c)?;
                    }
                }
                if f.share_of.iter().any(String::is_empty) {
                    return Err(Error::config(
                        &key("share_of"),
                        "metric names must not be empty",
                    ));
                }
                if f.per.is_some() && !f.share_of.is_empty() {
                    return Err(Error::config(
                        &key("per"),
                        "a figure is a metric per another or a share of several, not both",
                    ));
                }
                if f.per.as_deref() == Some("") {
                    return Err(Error::config(&key("per"), "must name a metric"));
                }
                if f.reason.as_deref().is_some_and(|r| r.trim().is_empty()) {
                    return Err(Error::config(
                        &key("reason"),
                        "must say why (leave the key out where ours agree)",
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
                if f.workload.is_some() && !f.workloads.is_empty() {
                    return Err(Error::config(
                        &key("workloads"),
                        "a figure is on one `workload` or over several `workloads`, not both",
                    ));
                }
                for (j, w) in f.workloads.iter().enumerate() {
                    if !self.workloads.iter().any(|x| &x.label == w) {
                        return Err(Error::config(
                            &key(&format!("workloads[{j}]")),
                            format!("no workload `{w}`"),
                        ));
                    }
                }
                if let Some(w) = &f.over_workload {
                    if f.workload.is_none() {
                        return Err(Error::config(
                            &key("over_workload"),
                            "compares `workload` with another: give `workload` too",
                        ));
                    }
                    if !self.workloads.iter().any(|x| &x.label == w) {
                        return Err(Error::config(
                            &key("over_workload"),
                            format!("no workload `{w}`"),
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
                    if !f.best.is_highest() && points.len() == 1 {
                        return Err(Error::config(
                            &key("best"),
                            "only a figure over all workloads (no `workload`) or over the \
                             configs of a label has a best",
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

impl Experiment {
    /// The name of the config that the config named `name`'s ratios are to: its own `baseline`
    /// (a label standing for the config with that label at its parameters), else the
    /// experiment's.
    pub fn baseline_of(&self, name: &str) -> Option<String> {
        let config = self.configs.iter().find(|c| c.name() == name)?;
        match &config.baseline {
            Some(b) => self.counterpart(b, config).map(ConfigSpec::name),
            None => self.baseline.clone(),
        }
    }

    /// The config `reference` stands for beside `of`: the config of that name, else the config
    /// labelled so at `of`'s parameters (a sweep's point beside the same point of another
    /// scheme).
    pub fn counterpart(&self, reference: &str, of: &ConfigSpec) -> Option<&ConfigSpec> {
        self.configs
            .iter()
            .find(|c| c.name() == reference)
            .or_else(|| {
                self.configs
                    .iter()
                    .find(|c| c.label == reference && c.params == of.params)
            })
    }

    /// The configs `reference` names: the one of that name, else every config with that label.
    pub fn configs_called(&self, reference: &str) -> Vec<&ConfigSpec> {
        let named: Vec<&ConfigSpec> = self
            .configs
            .iter()
            .filter(|c| c.name() == reference)
            .collect();
        match named.is_empty() {
            true => self
                .configs
                .iter()
                .filter(|c| c.label == reference)
                .collect(),
            false => named,
        }
    }

    /// `reference` (at `key`) names a config, or labels one at `of`'s parameters.
    fn check_counterpart(&self, key: &str, reference: &str, of: &ConfigSpec) -> Result<(), Error> {
        match self.counterpart(reference, of) {
            Some(_) => Ok(()),
            None => Err(Error::config(
                key,
                format!(
                    "no config is named `{reference}`, nor labelled so at the parameters of `{}`",
                    of.name()
                ),
            )),
        }
    }

    /// Each workload replays one source, or several flows; its parameters are columns of their
    /// own; its `where` names configs' parameters and leaves it some config to run on.
    fn check_workloads(&self) -> Result<(), Error> {
        let config_columns = params::columns(&self.configs);
        for (i, w) in self.workloads.iter().enumerate() {
            let key = |k: &str| format!("workloads[{i}].{k}");
            let single = [
                ("trace", w.trace.is_some()),
                ("format", w.format.is_some()),
                ("columns", w.columns.is_some()),
                ("blkparse_event", w.blkparse_event.is_some()),
                ("workload", w.workload.is_some()),
                ("generator", w.generator.is_some()),
                ("mode", w.mode.is_some()),
                ("queue_depth", w.queue_depth.is_some()),
                ("time_scale", w.time_scale.is_some()),
                ("stream", w.stream.is_some()),
            ];
            if !w.flows.is_empty() {
                if let Some((k, _)) = single.iter().find(|(_, given)| *given) {
                    return Err(Error::config(
                        &key(k),
                        "a workload of several `flows` gives each flow's keys in its table",
                    ));
                }
            } else if w.trace.is_some() == (w.workload.is_some() || w.generator.is_some()) {
                return Err(Error::config(
                    &key("trace"),
                    "give exactly one of `trace` and `workload` / `generator`, or `flows`",
                ));
            } else if w.stream.is_some() && w.trace.is_none() {
                return Err(Error::config(
                    &key("stream"),
                    "a generator's requests take their stream ids from its own `generator.stream`",
                ));
            }
            for (k, v) in &w.params {
                let at = key(&format!("params.{k}"));
                params::check_name(&at, k, &self.metrics)?;
                params::check_value(&at, v)?;
                if config_columns.contains(k) {
                    return Err(Error::config(
                        &at,
                        format!("`{k}` is already a parameter of a config"),
                    ));
                }
            }
            for k in w.where_.keys() {
                if !config_columns.contains(k) {
                    return Err(Error::config(
                        &key(&format!("where.{k}")),
                        format!("`{k}` is not a parameter of any config"),
                    ));
                }
            }
            if !self.configs.iter().any(|c| w.runs_on(c)) {
                return Err(Error::config(&key("where"), "leaves no config to run on"));
            }
        }
        Ok(())
    }

    /// The configs a chart draws, in order: each entry of its `configs` a name, or a label
    /// standing for the configs that carry it (in the experiment's order), with a `lines` chart's
    /// `where` applied.
    pub fn chart_configs<'a>(&'a self, chart: &'a Chart) -> Vec<&'a ConfigSpec> {
        let chosen: Vec<&ConfigSpec> = if chart.configs.is_empty() {
            self.configs.iter().collect()
        } else {
            chart
                .configs
                .iter()
                .flat_map(|want| {
                    let named: Vec<&ConfigSpec> =
                        self.configs.iter().filter(|c| &c.name() == want).collect();
                    match named.is_empty() {
                        true => self.configs.iter().filter(|c| &c.label == want).collect(),
                        false => named,
                    }
                })
                .collect()
        };
        let columns = params::columns(&self.configs);
        chosen
            .into_iter()
            .filter(|c| chart.selects(&columns, &c.params))
            .collect()
    }

    /// The workloads a chart draws: those whose parameters have the values its `where` gives
    /// workloads' parameters.
    pub fn chart_workloads<'a>(&'a self, chart: &'a Chart) -> Vec<&'a WorkloadSpec> {
        let columns = self.workload_param_columns();
        self.workloads
            .iter()
            .filter(|w| chart.selects(&columns, &w.params))
            .collect()
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
                ChartKind::Bars | ChartKind::Lines => (1, "exactly one metric"),
                ChartKind::Stacked => (2, "at least two metrics (the parts of a breakdown)"),
                ChartKind::Average => (1, "at least one metric"),
            };
            let one = matches!(c.kind, ChartKind::Bars | ChartKind::Lines);
            if c.metrics.len() < wanted.0 || (one && c.metrics.len() > 1) {
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
                if !self.configs.iter().any(|x| &x.name() == l || &x.label == l)
                    || c.configs[..j].contains(l)
                {
                    return Err(Error::config(
                        &format!("charts[{i}].configs[{j}]"),
                        format!("`{l}` is not a config's name or label, or is listed twice"),
                    ));
                }
            }
            self.validate_lines(i, c)?;
        }
        Ok(())
    }

    /// A `lines` chart's parameters name parameters, its configs have one value per line and x,
    /// and its `normalized_to` is a config; other kinds take none of them.
    fn validate_lines(&self, i: usize, c: &Chart) -> Result<(), Error> {
        let key = |k: &str| format!("charts[{i}].{k}");
        if c.kind != ChartKind::Lines {
            let given = [
                ("x", c.x.is_some()),
                ("series", !c.series.is_empty()),
                ("where", !c.where_.is_empty()),
                ("normalized_to", c.normalized_to.is_some()),
                ("log", !c.log.is_empty()),
            ];
            if let Some((k, _)) = given.iter().find(|(_, on)| *on) {
                return Err(Error::config(&key(k), "only a `lines` chart takes it"));
            }
            return Ok(());
        }
        let columns = self.param_columns();
        let config_columns = params::columns(&self.configs);
        let is_param = |k: &str, p: &str, of: &[String]| {
            if of.iter().any(|c| c == p) {
                Ok(())
            } else {
                Err(Error::config(
                    &key(k),
                    format!("`{p}` is not a parameter of any config or workload"),
                ))
            }
        };
        let Some(x) = &c.x else {
            return Err(Error::config(
                &key("x"),
                "a `lines` chart needs the parameter of its x axis",
            ));
        };
        is_param("x", x, &columns)?;
        for (j, s) in c.series.iter().enumerate() {
            let at = format!("series[{j}]");
            is_param(&at, s, &columns)?;
            if s == x || c.series[..j].contains(s) {
                return Err(Error::config(
                    &key(&at),
                    format!("`{s}` is the x axis's parameter or listed twice"),
                ));
            }
        }
        for k in c.where_.keys() {
            is_param(&format!("where.{k}"), k, &columns)?;
        }
        for (j, axis) in c.log.iter().enumerate() {
            if !["x", "y"].contains(&axis.as_str()) || c.log[..j].contains(axis) {
                return Err(Error::config(
                    &key(&format!("log[{j}]")),
                    format!("`{axis}`: the axes on a log scale are `x` and `y`, each once"),
                ));
            }
        }
        let drawn = self.chart_configs(c);
        let workloads = self.chart_workloads(c);
        if drawn.is_empty() || workloads.is_empty() {
            return Err(Error::config(
                &key("where"),
                "leaves no config or no workload to draw",
            ));
        }
        if let Some(n) = &c.normalized_to {
            for p in &drawn {
                self.check_counterpart(&key("normalized_to"), n, p)?;
            }
        }
        // Each point: its line (the config too when x is a workload's parameter) and x.
        let by_workload = !config_columns.contains(x);
        let mut seen: Vec<(String, f64, String)> = Vec::new();
        for p in drawn {
            for w in workloads.iter().filter(|w| w.runs_on(p)) {
                let at = match param_of(p, w, x) {
                    Some(toml::Value::Integer(v)) => *v as f64,
                    Some(toml::Value::Float(v)) => *v,
                    // A workload without the parameter is not on a workload-x chart.
                    None if by_workload => continue,
                    other => {
                        return Err(Error::config(
                            &key("x"),
                            format!(
                                "`{}` has {} for `{x}`: every config drawn needs a number there",
                                p.name(),
                                other.map_or("no value".into(), |v| format!("`{v}`"))
                            ),
                        ))
                    }
                };
                // A line per config (x a workload's parameter) or per workload, and series.
                let line = match by_workload {
                    true => format!("{} {}", p.name(), series_text(&c.series, p, w)),
                    false => format!("{} {}", w.label, series_text(&c.series, p, w)),
                };
                let point = format!("`{}` on `{}`", p.name(), w.label);
                if let Some((_, _, o)) = seen.iter().find(|(l, a, _)| *l == line && *a == at) {
                    return Err(Error::config(
                        &key("configs"),
                        format!(
                            "{o} and {point} are the same point of the same line: narrow the \
                             chart with `configs` or `where`, or give it a `series`"
                        ),
                    ));
                }
                seen.push((line, at, point));
            }
        }
        Ok(())
    }
}

/// A parameter of a point of the grid: the config's, else the workload's.
pub fn param_of<'a>(c: &'a ConfigSpec, w: &'a WorkloadSpec, p: &str) -> Option<&'a toml::Value> {
    c.params.get(p).or_else(|| w.params.get(p))
}

/// The series of a point: `name=value` for each of `series`, joined by `, ` (`name none` where
/// the point has no value).
pub fn series_text(series: &[String], c: &ConfigSpec, w: &WorkloadSpec) -> String {
    series
        .iter()
        .map(|s| match param_of(c, w, s) {
            Some(v) => format!("{s}={}", params::text(v)),
            None => format!("{s} none"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl ConfigSpec {
    /// The config's name: its label, followed by its parameters if it has any
    /// (`ROSA[migration_share=0.04,pcm_params=pcm3]`).
    pub fn name(&self) -> String {
        params::point_name(&self.label, &self.params)
    }

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
            flow.insert("columns".into(), table_of(&workload.label, "columns", c)?);
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
        if let Some(rule) = &workload.stream {
            flow.insert("stream".into(), table_of(&workload.label, "stream", rule)?);
        }
        let flows = match workload.flows.is_empty() {
            true => vec![toml::Value::Table(flow)],
            // Each flow as written, its trace found from the experiment's folder.
            false => workload
                .flows
                .iter()
                .map(|f| {
                    let mut f = f.clone();
                    if let Some(toml::Value::String(t)) = f.get("trace") {
                        let path = base.join(t).display().to_string();
                        f.insert("trace".into(), path.into());
                    }
                    toml::Value::Table(f)
                })
                .collect(),
        };
        sets.push(format!("flows={}", toml::Value::Array(flows)));
        let file = self.config_file.as_ref().map(|f| base.join(f));
        Config::resolve(&self.preset, file.as_deref(), &sets).map_err(|e| Error::Toml {
            origin: format!(
                "experiment: config `{}` × workload `{}`",
                self.name(),
                workload.label
            ),
            message: e.to_string(),
        })
    }
}
