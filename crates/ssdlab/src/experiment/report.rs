//! The markdown report of an experiment: per metric a table of workloads × configs (mean over
//! seeds, and normalized to the baseline), the paper's figures next to ours when the experiment
//! has them, and links to the plots (drawn by the Python package, see `ssdlab.plots`).

use std::fmt::Write;

use serde::Serialize;

use super::ablation::Ablation;
use super::params::text;
use super::runner::{metric, RunResult};
use super::scorecard::{self, score, Score, Tally};
use super::spec::{
    param_of, series_text, Best, Chart, ChartKind, ClaimKind, ConfigSpec, Experiment, Order,
    PaperFigure,
};

/// Mean of `metric` over the seeds of one (config, workload) cell; `config` is the config's name
/// (its label, with its parameters if it has any).
pub fn cell(results: &[RunResult], config: &str, workload: &str, m: &str) -> Option<f64> {
    let v: Vec<f64> = results
        .iter()
        .filter(|r| r.config_name == config && r.workload_label == workload)
        .filter_map(|r| metric(&r.summary, m))
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// `metric` of `config` on `workload` as a paper figure takes it: per the figure's `per` metric,
/// or as a share of the sum of its `share_of` metrics, if any.
fn figure_cell(
    results: &[RunResult],
    f: &PaperFigure,
    config: &str,
    workload: &str,
) -> Option<f64> {
    let v = cell(results, config, workload, &f.metric)?;
    if let Some(per) = &f.per {
        let d = cell(results, config, workload, per)?;
        return (d != 0.0).then(|| v / d);
    }
    if f.share_of.is_empty() {
        return Some(v);
    }
    let total = f
        .share_of
        .iter()
        .map(|m| cell(results, config, workload, m))
        .sum::<Option<f64>>()?;
    (total != 0.0).then(|| v / total)
}

/// Our value for a paper figure, and where it was found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ours {
    pub value: f64,
    /// The config's name it was found at; none for an average over several configs.
    pub config: Option<String>,
    /// The workload it was found on; none for an average over workloads.
    pub workload: Option<String>,
    /// Where, as the report says it: the workload, `config, workload` when the figure's config
    /// is a label of several configs, or `average`.
    pub found: String,
}

/// Our value for a paper figure: on the figure's workload, the mean over all workloads
/// (`average`), or the best over all workloads for an "up to" figure (the largest, or the
/// smallest with `best = "lowest"`), with where it was found. On one workload the value is the
/// metric (or its share of `share_of`), divided by that of `normalized_to`, minus the same for
/// `minus`. A figure whose `config` is a label takes the best over the configs with it too
/// (each divided by, or less, its own counterpart of `normalized_to` and `minus`); where it was
/// found is then the config's name and the workload.
pub fn ours(e: &Experiment, results: &[RunResult], f: &PaperFigure) -> Option<Ours> {
    let on = |config: &ConfigSpec, reference: &str, w: &str| {
        let c = e.counterpart(reference, config)?;
        let v = figure_cell(results, f, &c.name(), w)?;
        match &f.normalized_to {
            Some(n) => {
                let b = figure_cell(results, f, &e.counterpart(n, config)?.name(), w)?;
                (b != 0.0).then(|| v / b)
            }
            None => Some(v),
        }
    };
    let of = |config: &ConfigSpec, reference: &str, w: &str| {
        let v = on(config, reference, w)?;
        match &f.over_workload {
            Some(other) => {
                let b = on(config, reference, other)?;
                (b != 0.0).then(|| v / b)
            }
            None => Some(v),
        }
    };
    let at = |config: &ConfigSpec, w: &str| match &f.minus {
        Some(m) => Some(of(config, &f.config, w)? - of(config, m, w)?),
        None => of(config, &f.config, w),
    };
    let points = e.configs_called(&f.config);
    let several = points.len() > 1;
    let all: Vec<Ours> = points
        .iter()
        .flat_map(|c| {
            e.workloads
                .iter()
                .filter(|w| match &f.workload {
                    Some(x) => x == &w.label,
                    None => f.workloads.is_empty() || f.workloads.contains(&w.label),
                })
                .filter_map(move |w| {
                    let value = at(c, &w.label)?;
                    let found = match several {
                        true => format!("{}, {}", c.name(), w.label),
                        false => w.label.clone(),
                    };
                    Some(Ours {
                        value,
                        config: Some(c.name()),
                        workload: Some(w.label.clone()),
                        found,
                    })
                })
        })
        .collect();
    if f.workload.is_some() && !several {
        return all.into_iter().next();
    }
    if f.average {
        // Over the workloads that have the metric (a read error rate needs reads), saying how
        // many when some do not.
        let v: Vec<f64> = all.iter().map(|o| o.value).collect();
        let (n, listed) = match f.workloads.len() {
            0 => (e.workloads.len(), ""),
            n => (n, " listed"),
        };
        let found = match v.len() == n {
            true if listed.is_empty() => "average".into(),
            true => format!("average of the {n} listed"),
            false => format!(
                "average of the {} of {n}{listed} workloads with it",
                v.len()
            ),
        };
        let config = (!several).then(|| points[0].name());
        return (!v.is_empty()).then(|| Ours {
            value: mean(&v),
            config,
            workload: None,
            found,
        });
    }
    match f.best {
        Best::Highest => all.into_iter().max_by(|a, b| a.value.total_cmp(&b.value)),
        Best::Lowest => all.into_iter().min_by(|a, b| a.value.total_cmp(&b.value)),
    }
}

/// One of the paper's figures next to ours: a row of the report's table, and of the site's
/// fidelity table (`ssdlab report`).
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The metric as the figure takes it: `m share of (a + b)`, `m per n`, `m / config`.
    pub metric: String,
    /// The figure's config, `config − minus` for a difference.
    pub config: String,
    /// Its workload, or how ours was chosen over the workloads: `average`, `best (KV)`.
    pub workload: String,
    /// The paper's number; none for a claim of order alone.
    pub paper: Option<f64>,
    /// The paper's value as the tables give it: its number, or `> 1` for a claim of order.
    pub paper_text: String,
    pub ours: Option<Ours>,
    /// Ours scored against the paper's, on the effect; none where ours has no value.
    pub score: Option<Score>,
    /// The score in words (`scorecard::verdict`), and Δ as the tables give it (`+70%`, `—`).
    pub verdict: &'static str,
    pub delta_text: String,
    pub kind: ClaimKind,
    pub source: String,
    /// The line of the paper's text that states the claim.
    pub line: Option<u32>,
    pub reason: Option<String>,
    /// Why the grid gives no value (the figure's `unmeasured`).
    pub unmeasured: Option<String>,
}

/// The experiment's paper figures next to ours, in the order of `[[paper.figures]]`.
pub fn comparisons(e: &Experiment, results: &[RunResult]) -> Vec<Comparison> {
    let Some(p) = &e.paper else {
        return Vec::new();
    };
    p.figures
        .iter()
        .map(|f| {
            let mut metric = f.metric.clone();
            if !f.share_of.is_empty() {
                metric = format!("{metric} share of ({})", f.share_of.join(" + "));
            }
            if let Some(per) = &f.per {
                metric = format!("{metric} per {per}");
            }
            if let Some(n) = &f.normalized_to {
                metric = format!("{metric} / {n}");
            }
            if let Some(w) = &f.over_workload {
                metric = format!("{metric} / on {w}");
            }
            let config = match &f.minus {
                Some(m) => format!("{} − {m}", f.config),
                None => f.config.clone(),
            };
            let ours = match f.unmeasured {
                Some(_) => None,
                None => ours(e, results, f),
            };
            let w = match &ours {
                Some(o) => o.found.clone(),
                None => f.workload.clone().unwrap_or_default(),
            };
            // (Validation gives a figure its value or its order.)
            let null = f.null();
            let (paper_text, scored) = match (f.value, f.order) {
                (Some(v), _) => (num(v), ours.as_ref().map(|o| score(v, o.value, null))),
                (None, order) => {
                    let above = order == Some(Order::Above);
                    let text = format!("{} {}", if above { ">" } else { "<" }, num(null));
                    (
                        text,
                        (ours.as_ref()).map(|o| scorecard::score_order(above, o.value, null)),
                    )
                }
            };
            let one = f.workload.is_some() && e.configs_called(&f.config).len() == 1;
            let workload = match (one, f.average, f.best) {
                _ if f.unmeasured.is_some() => f.workload.clone().unwrap_or_default(),
                (true, _, _) => w,
                (false, true, _) if w.is_empty() => "average".into(),
                (false, true, _) => w,
                (false, false, Best::Highest) => format!("best ({w})"),
                (false, false, Best::Lowest) => format!("best, lowest ({w})"),
            };
            Comparison {
                metric,
                config,
                workload,
                paper: f.value,
                paper_text,
                score: scored,
                verdict: scorecard::verdict(scored),
                delta_text: scored
                    .and_then(|s| s.delta)
                    .map_or_else(|| "—".into(), scorecard::delta_text),
                ours,
                kind: f.kind,
                source: f.source.clone(),
                line: f.line,
                reason: f.reason.clone(),
                unmeasured: f.unmeasured.clone(),
            }
        })
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// `metric` of `config` on `workload` divided by that of the config's baseline (itself for a
/// baseline, so 1), or as it is without a baseline or for an absolute metric.
pub fn normalized(
    e: &Experiment,
    results: &[RunResult],
    config: &str,
    workload: &str,
    metric: &str,
) -> Option<f64> {
    let v = cell(results, config, workload, metric)?;
    match e.baseline_of(config) {
        Some(b) if !e.absolute_metrics.iter().any(|m| m == metric) => {
            let b = cell(results, &b, workload, metric)?;
            (b != 0.0).then(|| v / b)
        }
        _ => Some(v),
    }
}

/// The mean of [`normalized`] over the workloads the config runs (all, unless a workload's
/// `where` leaves it out; the papers' AVG bars); `None` unless each of them has a value.
pub fn normalized_average(
    e: &Experiment,
    results: &[RunResult],
    config: &str,
    metric: &str,
) -> Option<f64> {
    let spec = e.configs.iter().find(|c| c.name() == config)?;
    let v = e
        .workloads
        .iter()
        .filter(|w| w.runs_on(spec))
        .map(|w| normalized(e, results, config, &w.label, metric))
        .collect::<Option<Vec<f64>>>()?;
    (!v.is_empty()).then(|| mean(&v))
}

/// The shares of a breakdown's parts (`metrics`) of `config` on `workload`, in order.
pub fn shares(
    results: &[RunResult],
    config: &str,
    workload: &str,
    metrics: &[String],
) -> Option<Vec<f64>> {
    let parts = metrics
        .iter()
        .map(|m| cell(results, config, workload, m))
        .collect::<Option<Vec<f64>>>()?;
    let total: f64 = parts.iter().sum();
    (total != 0.0).then(|| parts.iter().map(|p| p / total).collect())
}

/// The file name (without extension) of a metric's bar chart.
pub fn plot_name(metric: &str) -> String {
    metric.replace('.', "_")
}

pub(crate) fn num(x: f64) -> String {
    if x == 0.0 || (x.abs() >= 0.01 && x.abs() < 1e6) {
        format!("{x:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{x:.3e}")
    }
}

/// A normalized value for a table: `0.82×`, or the value itself for an absolute metric.
fn ratio_text(e: &Experiment, metric: &str, v: f64) -> String {
    if e.absolute_metrics.iter().any(|m| m == metric) {
        num(v)
    } else {
        format!("{}×", num(v))
    }
}

fn table_header(o: &mut String, first: &str, columns: &[&str]) {
    let _ = writeln!(
        o,
        "| {first} |{}\n|---|{}",
        columns
            .iter()
            .map(|c| format!(" {c} |"))
            .collect::<String>(),
        "---:|".repeat(columns.len())
    );
}

/// A chart's values as a table, in the chart's layout.
fn chart_table(o: &mut String, e: &Experiment, results: &[RunResult], chart: &Chart) {
    let names: Vec<String> = e.chart_configs(chart).iter().map(|c| c.name()).collect();
    let configs: Vec<&str> = names.iter().map(String::as_str).collect();
    let dash = || "—".to_string();
    match chart.kind {
        ChartKind::Lines => lines_table(o, e, results, chart),
        ChartKind::Bars => {
            let m = &chart.metrics[0];
            table_header(o, "workload", &configs);
            for w in &e.workloads {
                let _ = write!(o, "| {} |", w.label);
                for c in &configs {
                    let v = normalized(e, results, c, &w.label, m);
                    let _ = write!(o, " {} |", v.map_or_else(dash, |v| ratio_text(e, m, v)));
                }
                o.push('\n');
            }
            let _ = write!(o, "| **average** |");
            for c in &configs {
                let v = normalized_average(e, results, c, m);
                let _ = write!(o, " {} |", v.map_or_else(dash, |v| ratio_text(e, m, v)));
            }
            o.push('\n');
        }
        ChartKind::Stacked => {
            let columns: Vec<String> = configs
                .iter()
                .flat_map(|c| chart.metrics.iter().map(move |m| format!("{c}: {m}")))
                .collect();
            table_header(
                o,
                "workload",
                &columns.iter().map(String::as_str).collect::<Vec<_>>(),
            );
            let mut sums = vec![(0.0, 0usize); columns.len()];
            for w in &e.workloads {
                let _ = write!(o, "| {} |", w.label);
                for (i, c) in configs.iter().enumerate() {
                    let s = shares(results, c, &w.label, &chart.metrics);
                    for j in 0..chart.metrics.len() {
                        let k = i * chart.metrics.len() + j;
                        match &s {
                            Some(s) => {
                                sums[k].0 += s[j];
                                sums[k].1 += 1;
                                let _ = write!(o, " {} |", num(s[j]));
                            }
                            None => {
                                let _ = write!(o, " — |");
                            }
                        }
                    }
                }
                o.push('\n');
            }
            let _ = write!(o, "| **average** |");
            for (sum, n) in sums {
                let text = if n == e.workloads.len() {
                    num(sum / n as f64)
                } else {
                    dash()
                };
                let _ = write!(o, " {text} |");
            }
            o.push('\n');
        }
        ChartKind::Average => {
            let metrics: Vec<&str> = chart.metrics.iter().map(String::as_str).collect();
            table_header(o, "config (average over workloads)", &metrics);
            for c in &configs {
                let _ = write!(o, "| {c} |");
                for m in &metrics {
                    let v = normalized_average(e, results, c, m);
                    let _ = write!(o, " {} |", v.map_or_else(dash, |v| ratio_text(e, m, v)));
                }
                o.push('\n');
            }
        }
    }
}

/// One line of a `lines` chart: its title and its points (x, config, workload), ordered by x.
pub struct Line<'a> {
    pub title: String,
    pub points: Vec<(f64, &'a ConfigSpec, &'a str)>,
}

/// A `lines` chart's lines, in the order their configs come, each ordered by x: with `x` a
/// config's parameter, one per workload, or per value of `series` (per workload and value with
/// several workloads); with `x` a workload's parameter, one per config (and value of `series`),
/// its points the workloads that have the parameter.
pub fn lines<'a>(e: &'a Experiment, chart: &'a Chart) -> Vec<Line<'a>> {
    let x = chart.x.as_deref().unwrap_or_default();
    let by_workload = !e.configs.iter().any(|c| c.params.contains_key(x));
    let workloads = e.chart_workloads(chart);
    let mut out: Vec<Line> = Vec::new();
    for w in &workloads {
        for c in e.chart_configs(chart).into_iter().filter(|c| w.runs_on(c)) {
            let at = match param_of(c, w, x) {
                Some(toml::Value::Integer(v)) => *v as f64,
                Some(toml::Value::Float(v)) => *v,
                _ => continue,
            };
            let series = series_text(&chart.series, c, w);
            let title = match (by_workload, series.is_empty(), workloads.len()) {
                (true, true, _) => c.name(),
                (true, false, _) => format!("{} {series}", c.name()),
                (false, true, _) => w.label.clone(),
                (false, false, 1) => series,
                (false, false, _) => format!("{} {series}", w.label),
            };
            match out.iter_mut().find(|l| l.title == title) {
                Some(l) => l.points.push((at, c, &w.label)),
                None => out.push(Line {
                    title,
                    points: vec![(at, c, &w.label)],
                }),
            }
        }
    }
    for l in &mut out {
        l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// A point of a `lines` chart: the metric, divided by `normalized_to`'s (the config of that
/// name, or of that label at the point's parameters) on the same workload.
pub fn line_value(
    e: &Experiment,
    results: &[RunResult],
    chart: &Chart,
    config: &ConfigSpec,
    workload: &str,
) -> Option<f64> {
    let v = cell(results, &config.name(), workload, &chart.metrics[0])?;
    match &chart.normalized_to {
        Some(n) => {
            let b = cell(
                results,
                &e.counterpart(n, config)?.name(),
                workload,
                &chart.metrics[0],
            )?;
            (b != 0.0).then(|| v / b)
        }
        None => Some(v),
    }
}

/// A `lines` chart as a table: a row per line, a column per x value.
fn lines_table(o: &mut String, e: &Experiment, results: &[RunResult], chart: &Chart) {
    let x = chart.x.as_deref().unwrap_or_default();
    let all = lines(e, chart);
    let mut xs: Vec<f64> = all
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let columns: Vec<String> = xs.iter().map(|v| format!("{x} = {}", num(*v))).collect();
    let first = match &chart.normalized_to {
        Some(n) => format!("{} / {n}", chart.metrics[0]),
        None => chart.metrics[0].clone(),
    };
    table_header(
        o,
        &first,
        &columns.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    for l in &all {
        let _ = write!(o, "| {} |", l.title);
        for at in &xs {
            let v = l
                .points
                .iter()
                .find(|p| p.0 == *at)
                .and_then(|p| line_value(e, results, chart, p.1, p.2));
            let _ = write!(o, " {} |", v.map_or("—".into(), num));
        }
        o.push('\n');
    }
}

/// One technique's effect on one metric of one workload (means over seeds): alone (with it
/// alone against `none`), left out (the full set without it against the full set), and their
/// interaction (its effect in the set against its effect alone). Ratios, or for an absolute
/// metric differences; `None` where a config has no value (or a ratio's divisor is 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Effect {
    pub alone: Option<f64>,
    pub left_out: Option<f64>,
    pub interaction: Option<f64>,
}

/// How a technique's effect in the full set compares with its effect alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InSet {
    /// Within 1% of its effect alone: the others neither help nor overlap it.
    Same,
    /// It moves the metric further in the set than alone.
    Stronger,
    /// It moves the metric less in the set than alone (the others overlap it, or hurt it).
    Weaker,
    /// It moves the metric the other way in the set.
    Reversed,
}

impl InSet {
    fn text(self) -> &'static str {
        match self {
            InSet::Same => "≈",
            InSet::Stronger => "stronger",
            InSet::Weaker => "weaker",
            InSet::Reversed => "reversed",
        }
    }
}

/// [`cell`], or 0 where the config ran on the workload and its summaries lack the metric: a
/// technique's counters are in the summary only while it is on (`compression.saving`,
/// `melded_reads.commands`), so a config without it did none of that.
pub fn counted(results: &[RunResult], config: &str, workload: &str, m: &str) -> Option<f64> {
    cell(results, config, workload, m).or_else(|| {
        (results.iter())
            .any(|r| r.config_name == config && r.workload_label == workload)
            .then_some(0.0)
    })
}

/// The effect of technique `i` of the ablation on `metric` on `workload`.
pub fn ablation_effect(
    e: &Experiment,
    results: &[RunResult],
    a: &Ablation,
    i: usize,
    workload: &str,
    metric: &str,
) -> Effect {
    let v = |c: &str| counted(results, c, workload, metric);
    let (none, alone, all, left_out) = (
        v(super::ablation::NONE),
        v(&a.alone(i)),
        v(&a.all()),
        v(&a.left_out(i)),
    );
    let absolute = e.absolute_metrics.iter().any(|m| m == metric);
    let ratio = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) if y != 0.0 => Some(x / y),
        _ => None,
    };
    let diff = |x: Option<f64>, y: Option<f64>| Some(x? - y?);
    match absolute {
        false => {
            let (al, lo) = (ratio(alone, none), ratio(left_out, all));
            let inset = ratio(all, left_out);
            Effect {
                alone: al,
                left_out: lo,
                interaction: ratio(inset, al),
            }
        }
        true => {
            let (al, lo) = (diff(alone, none), diff(left_out, all));
            Effect {
                alone: al,
                left_out: lo,
                interaction: diff(diff(all, left_out), al),
            }
        }
    }
}

/// How a technique's effect in the set compares with its effect alone, from its effect alone
/// and their interaction (in the set = alone × interaction; for an absolute metric, alone +
/// interaction): by the size of each ratio's logarithm (each difference), the same within 1%.
pub fn in_set(absolute: bool, effect: &Effect) -> Option<InSet> {
    let (alone, interaction) = (effect.alone?, effect.interaction?);
    let (a, s, tolerance) = match absolute {
        false if alone > 0.0 && interaction > 0.0 => {
            (alone.ln(), alone.ln() + interaction.ln(), 0.01)
        }
        false => return None,
        true => {
            let s = alone + interaction;
            (alone, s, 0.01 * alone.abs().max(s.abs()))
        }
    };
    let small = |x: f64| x.abs() <= tolerance;
    Some(if (s - a).abs() <= tolerance {
        InSet::Same
    } else if !small(a) && !small(s) && a.signum() != s.signum() {
        InSet::Reversed
    } else if s.abs() > a.abs() {
        InSet::Stronger
    } else {
        InSet::Weaker
    })
}

/// The ablation's section of the report: its techniques, and per metric the full set against
/// none and each technique's effect alone and left out, per workload (and their mean).
fn ablation_section(o: &mut String, e: &Experiment, results: &[RunResult], a: &Ablation) {
    let _ = writeln!(
        o,
        "## Ablation\n\nConfigs: `none` (the base device: preset `{}`{}), each technique alone, \
         each left out of the full set, and the full set, `{}`; a config's label names the \
         techniques it turns on.\n",
        a.preset,
        a.config_file
            .as_ref()
            .map_or(String::new(), |f| format!(" with `{}`", f.display())),
        a.all()
    );
    let _ = writeln!(o, "| technique | overrides |\n|---|---|");
    for t in &a.techniques {
        let what = match t.description.is_empty() {
            true => String::new(),
            false => format!("{}: ", t.description.trim()),
        };
        let _ = writeln!(
            o,
            "| {} | {what}{} |",
            t.name,
            Ablation::describe_set(&t.set)
        );
    }
    for g in &a.together {
        let what = match g.description.is_empty() {
            true => String::new(),
            false => format!("{}: ", g.description.trim()),
        };
        let _ = writeln!(
            o,
            "| {} together | {what}{} |",
            g.techniques.join(" and "),
            Ablation::describe_set(&g.set)
        );
    }
    let _ = writeln!(
        o,
        "\nPer metric, means over seeds. **all / none**: the full set against the base. Per \
         technique X: **alone** = X alone ÷ none; **left out** = the full set without X ÷ the \
         full set (above 1: the metric is higher without X); **interaction** = X's effect in \
         the set (the full set ÷ the set without X) ÷ its effect alone, 1 where X does in the \
         set what it does alone; **in the set**: `stronger` where X moves the metric further in \
         the set than alone, `weaker` where less (the others overlap or hurt it), `reversed` \
         where the other way, `≈` within 1%. For absolute metrics ({}), differences instead of \
         ratios: alone X − none, left out (all − X) − all, interaction (all − (all − X)) − (X − \
         none), 0 where X does the same in the set. A config whose summaries lack a counter \
         (its technique off) counts 0. **average**: the mean over the workloads of each column \
         (its tag from the mean alone and interaction).\n",
        match e.absolute_metrics.is_empty() {
            true => "none here".to_string(),
            false => e
                .absolute_metrics
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", "),
        }
    );
    let dash = || "—".to_string();
    let mean = |v: Vec<Option<f64>>| -> Option<f64> {
        let v: Vec<f64> = v.into_iter().flatten().collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    let workloads: Vec<&str> = e.workloads.iter().map(|w| w.label.as_str()).collect();
    let several = workloads.len() > 1;
    for m in &e.metrics {
        let absolute = e.absolute_metrics.iter().any(|x| x == m);
        let show = |v: Option<f64>| match (v, absolute) {
            (Some(v), false) => format!("{}×", num(v)),
            (Some(v), true) => num(v),
            (None, _) => dash(),
        };
        let _ = writeln!(o, "### `{m}`\n");
        let mut columns = workloads.clone();
        if several {
            columns.push("**average**");
        }
        let first = if absolute {
            "all − none"
        } else {
            "all / none"
        };
        table_header(o, "", &columns);
        let total: Vec<Option<f64>> = workloads
            .iter()
            .map(|w| {
                let (none, all) = (
                    counted(results, super::ablation::NONE, w, m),
                    counted(results, &a.all(), w, m),
                );
                match absolute {
                    false => none.zip(all).filter(|(n, _)| *n != 0.0).map(|(n, x)| x / n),
                    true => Some(all? - none?),
                }
            })
            .collect();
        let _ = write!(o, "| {first} |");
        for v in &total {
            let _ = write!(o, " {} |", show(*v));
        }
        if several {
            let _ = write!(o, " {} |", show(mean(total.clone())));
        }
        let _ = writeln!(o, "\n");
        let _ = writeln!(
            o,
            "| technique | workload | alone | left out | interaction | in the set |\n\
             |---|---|---:|---:|---:|---|"
        );
        for (i, t) in a.techniques.iter().enumerate() {
            let effects: Vec<Effect> = workloads
                .iter()
                .map(|w| ablation_effect(e, results, a, i, w, m))
                .collect();
            let mut rows: Vec<(String, Effect)> = (workloads.iter().map(|w| w.to_string()))
                .zip(effects.iter().copied())
                .collect();
            if several {
                let average = Effect {
                    alone: mean(effects.iter().map(|x| x.alone).collect()),
                    left_out: mean(effects.iter().map(|x| x.left_out).collect()),
                    interaction: mean(effects.iter().map(|x| x.interaction).collect()),
                };
                rows.push(("**average**".into(), average));
            }
            for (w, x) in rows {
                let interaction = x.interaction.map_or_else(dash, num);
                let tag = in_set(absolute, &x).map_or_else(dash, |t| t.text().into());
                let _ = writeln!(
                    o,
                    "| {} | {w} | {} | {} | {interaction} | {tag} |",
                    t.name,
                    show(x.alone),
                    show(x.left_out)
                );
            }
        }
        o.push('\n');
    }
}

/// The integrity oracle's line of the report, for an experiment with `verify`: the reads
/// checked, the units swept and the violations over every run, and the runs that have some.
fn integrity_section(o: &mut String, results: &[RunResult]) {
    let sum = |k: &str| -> u64 {
        (results.iter())
            .filter_map(|r| r.summary["integrity"][k].as_u64())
            .sum()
    };
    let checked = results
        .iter()
        .filter(|r| r.summary["integrity"]["enabled"].as_bool() == Some(true))
        .count();
    let _ = writeln!(
        o,
        "Integrity oracle (`verify = true`): {checked} of {} runs checked, {} unit reads and {} \
         units swept at the end, {} violations.\n",
        results.len(),
        sum("checked_reads"),
        sum("swept_units"),
        sum("violations")
    );
    let bad = super::runner::violations(results);
    for (run, n, messages) in &bad {
        let _ = writeln!(o, "- {run}: {n} violations ({})", messages.join("; "));
    }
    if !bad.is_empty() {
        o.push('\n');
    }
}

pub fn markdown(e: &Experiment, results: &[RunResult], command: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# {}\n", e.name);
    if !e.description.is_empty() {
        let _ = writeln!(o, "{}\n", e.description);
    }
    let cached = results.iter().filter(|r| r.cached).count();
    let some = e.workloads.iter().filter(|w| !w.where_.is_empty()).count();
    let grid = match some {
        0 => format!(
            "{} configs × {} workloads × {} seeds",
            e.configs.len(),
            e.workloads.len(),
            e.seeds.len()
        ),
        _ => format!(
            "{} configs, {} workloads ({some} of them on the configs their `where` selects), {} \
             seeds",
            e.configs.len(),
            e.workloads.len(),
            e.seeds.len()
        ),
    };
    let _ = writeln!(
        o,
        "ssdlab {} · {} runs ({grid}; {cached} reused from an earlier run) · produced by \
         `{command}`\n",
        crate::VERSION,
        results.len(),
    );
    if e.verify {
        integrity_section(&mut o, results);
    }
    if let Some(p) = &e.paper {
        paper_section(&mut o, p, &comparisons(e, results));
    }
    if let Some(a) = &e.ablation {
        ablation_section(&mut o, e, results, a);
    }
    if !e.charts.is_empty() {
        let _ = writeln!(
            o,
            "## Figures\n\nMeans over seeds, divided by each config's baseline on the same \
             workload (absolute metrics as they are); **average** is the mean over the workloads, \
             as the papers' AVG bars. Breakdowns give each part's share of their sum.{}\n",
            match e.charts.iter().any(|c| c.kind == ChartKind::Lines) {
                true =>
                    " Lines give a metric against a parameter, as it is or divided by one config's.",
                false => "",
            }
        );
        for chart in &e.charts {
            let title = if chart.title.is_empty() {
                &chart.name
            } else {
                &chart.title
            };
            let _ = writeln!(o, "### {title}\n");
            chart_table(&mut o, e, results, chart);
            let _ = writeln!(o, "\n![{title}](plots/{}.png)\n", chart.name);
        }
    }
    let _ = writeln!(o, "## Results (mean over seeds)\n");
    let names: Vec<String> = e.configs.iter().map(|c| c.name()).collect();
    let labels: Vec<&str> = names.iter().map(String::as_str).collect();
    let params = super::params::columns(&e.configs);
    // A value with its ratio to the config's baseline, if it has one.
    let value = |c: &str, w: &str, m: &str| {
        let v = cell(results, c, w, m);
        let base = e
            .baseline_of(c)
            .filter(|b| b != c)
            .and_then(|b| cell(results, &b, w, m));
        match (v, base) {
            (Some(v), Some(b)) if b != 0.0 => format!("{} ({}×)", num(v), num(v / b)),
            (Some(v), _) => num(v),
            (None, _) => "—".into(),
        }
    };
    for m in &e.metrics {
        let _ = writeln!(o, "### `{m}`\n");
        if !params.is_empty() {
            // Configs with parameters are many (a sweep's points): a row each, with its
            // parameters, and a column per workload.
            let mut columns: Vec<&str> = params.iter().map(String::as_str).collect();
            columns.extend(e.workloads.iter().map(|w| w.label.as_str()));
            table_header(&mut o, "config", &columns);
            for c in &e.configs {
                let _ = write!(o, "| {} |", c.label);
                for p in &params {
                    let v = c.params.get(p).map_or(String::new(), text);
                    let _ = write!(o, " {v} |");
                }
                for w in &e.workloads {
                    let _ = write!(o, " {} |", value(&c.name(), &w.label, m));
                }
                o.push('\n');
            }
            if e.has_bar_chart(m) {
                let _ = writeln!(o, "\n![{m}](plots/{}.png)\n", plot_name(m));
            } else {
                o.push('\n');
            }
            continue;
        }
        table_header(&mut o, "workload", &labels);
        for w in &e.workloads {
            let _ = write!(o, "| {} |", w.label);
            for c in &labels {
                let _ = write!(o, " {} |", value(c, &w.label, m));
            }
            o.push('\n');
        }
        if e.workloads.len() > 1 {
            let _ = write!(o, "| **average** |");
            for c in &labels {
                let v = normalized_average(e, results, c, m);
                let _ = write!(o, " {} |", v.map_or("—".into(), |v| ratio_text(e, m, v)));
            }
            o.push('\n');
        }
        if e.has_bar_chart(m) {
            let _ = writeln!(o, "\n![{m}](plots/{}.png)\n", plot_name(m));
        } else {
            o.push('\n');
        }
    }
    if e.configs.iter().any(|c| e.baseline_of(&c.name()).is_some()) {
        let _ = writeln!(
            o,
            "Ratios in parentheses are to the config's baseline ({}) on the same workload; the \
             **average** row is the mean of those ratios over the workloads (of the values, for \
             absolute metrics and configs without a baseline).\n",
            baselines(e)
        );
    }
    let _ = writeln!(
        o,
        "{}Per-run summaries (with the resolved config): `runs/`; one row per run: \
         `results.csv`.\n",
        match e.latency_cdfs {
            true => "Latency CDFs per workload: `plots/latency_cdf_<workload>.png`. ",
            false => "",
        }
    );
    if let Some(p) = &e.paper {
        if !p.notes.is_empty() {
            let _ = writeln!(o, "## Reading the comparison\n\n{}", p.notes.trim());
        }
    }
    o
}

/// The paper's claims next to ours, scored (`scorecard.rs`), with their tally.
fn paper_section(o: &mut String, p: &super::spec::Paper, rows: &[Comparison]) {
    let _ = writeln!(
        o,
        "## The paper's figures and ours\n\nSource: {}{}. {}\n\n**{}**\n",
        p.source,
        p.text
            .as_ref()
            .map_or_else(String::new, |t| format!(" (lines of `{t}`)")),
        scorecard::METHOD,
        Tally::of(rows).sentence()
    );
    scorecard::table(o, rows);
}

/// "`pageFTL`", or "`baseline-4ch` for `PR-4ch`, …" when configs have baselines of their own;
/// a baseline given by label is said once per label ("`normal` at the same parameters for
/// `melded`").
fn baselines(e: &Experiment) -> String {
    let mut own: Vec<String> = Vec::new();
    for c in &e.configs {
        let Some(b) = c.baseline.as_deref() else {
            continue;
        };
        let text = match e.configs.iter().any(|x| x.name() == b) {
            true if b == c.name() => continue,
            true => format!("`{b}` for `{}`", c.name()),
            false => format!("`{b}` at the same parameters for `{}`", c.label),
        };
        if !own.contains(&text) {
            own.push(text);
        }
    }
    match (&e.baseline, own.is_empty()) {
        (Some(b), true) => format!("`{b}`"),
        (Some(b), false) => format!("{}; `{b}` for the others", own.join(", ")),
        (None, _) => own.join(", "),
    }
}
