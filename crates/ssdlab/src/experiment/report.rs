//! The markdown report of an experiment: per metric a table of workloads × configs (mean over
//! seeds, and normalized to the baseline), the paper's figures next to ours when the experiment
//! has them, and links to the plots (drawn by the Python package, see `ssdlab.plots`).

use std::fmt::Write;

use super::runner::{metric, RunResult};
use super::spec::{Best, Chart, ChartKind, Experiment, PaperFigure};

/// Mean of `metric` over the seeds of one (config, workload) cell.
pub fn cell(results: &[RunResult], config: &str, workload: &str, m: &str) -> Option<f64> {
    let v: Vec<f64> = results
        .iter()
        .filter(|r| r.config_label == config && r.workload_label == workload)
        .filter_map(|r| metric(&r.summary, m))
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// `metric` of `config` on `workload` as a paper figure takes it: as a share of the sum of the
/// figure's `share_of` metrics, if any.
fn figure_cell(
    results: &[RunResult],
    f: &PaperFigure,
    config: &str,
    workload: &str,
) -> Option<f64> {
    let v = cell(results, config, workload, &f.metric)?;
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

/// Our value for a paper figure: on the figure's workload, the mean over all workloads
/// (`average`), or the best over all workloads for an "up to" figure (the largest, or the
/// smallest with `best = "lowest"`), with that workload. On one workload the value is the
/// metric (or its share of `share_of`), divided by that of `normalized_to`, minus the same for
/// `minus`.
pub fn ours(e: &Experiment, results: &[RunResult], f: &PaperFigure) -> Option<(f64, String)> {
    let of = |config: &str, w: &str| {
        let v = figure_cell(results, f, config, w)?;
        match &f.normalized_to {
            Some(n) => {
                let b = figure_cell(results, f, n, w)?;
                (b != 0.0).then(|| v / b)
            }
            None => Some(v),
        }
    };
    let at = |w: &str| match &f.minus {
        Some(m) => Some(of(&f.config, w)? - of(m, w)?),
        None => of(&f.config, w),
    };
    if let Some(w) = &f.workload {
        return at(w).map(|v| (v, w.clone()));
    }
    let all = e
        .workloads
        .iter()
        .filter_map(|w| at(&w.label).map(|v| (v, w.label.clone())));
    if f.average {
        // Over the workloads that have the metric (a read error rate needs reads), saying how
        // many when some do not.
        let v: Vec<f64> = all.map(|(v, _)| v).collect();
        let label = match v.len() == e.workloads.len() {
            true => "average".into(),
            false => format!(
                "average of the {} of {} workloads with it",
                v.len(),
                e.workloads.len()
            ),
        };
        return (!v.is_empty()).then(|| (mean(&v), label));
    }
    match f.best {
        Best::Highest => all.max_by(|a, b| a.0.total_cmp(&b.0)),
        Best::Lowest => all.min_by(|a, b| a.0.total_cmp(&b.0)),
    }
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
            let b = cell(results, b, workload, metric)?;
            (b != 0.0).then(|| v / b)
        }
        _ => Some(v),
    }
}

/// The mean of [`normalized`] over all workloads (the papers' AVG bars); `None` unless every
/// workload has a value.
pub fn normalized_average(
    e: &Experiment,
    results: &[RunResult],
    config: &str,
    metric: &str,
) -> Option<f64> {
    let v = e
        .workloads
        .iter()
        .map(|w| normalized(e, results, config, &w.label, metric))
        .collect::<Option<Vec<f64>>>()?;
    Some(mean(&v))
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

fn num(x: f64) -> String {
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
    let configs = e.chart_configs(chart);
    let dash = || "—".to_string();
    match chart.kind {
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

pub fn markdown(e: &Experiment, results: &[RunResult], command: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# {}\n", e.name);
    if !e.description.is_empty() {
        let _ = writeln!(o, "{}\n", e.description);
    }
    let cached = results.iter().filter(|r| r.cached).count();
    let _ = writeln!(
        o,
        "ssdlab {} · {} runs ({} configs × {} workloads × {} seeds; {cached} reused from an \
         earlier run) · produced by `{command}`\n",
        crate::VERSION,
        results.len(),
        e.configs.len(),
        e.workloads.len(),
        e.seeds.len()
    );
    if let Some(p) = &e.paper {
        let _ = writeln!(
            o,
            "## The paper's figures and ours\n\nSource: {}.\n",
            p.source
        );
        let _ = writeln!(
            o,
            "| metric | config | workload | paper | ssdlab | paper's source |\n|---|---|---|---:|---:|---|"
        );
        for f in &p.figures {
            let mut what = f.metric.clone();
            if !f.share_of.is_empty() {
                what = format!("{what} share of ({})", f.share_of.join(" + "));
            }
            if let Some(n) = &f.normalized_to {
                what = format!("{what} / {n}");
            }
            let config = match &f.minus {
                Some(m) => format!("{} − {m}", f.config),
                None => f.config.clone(),
            };
            let (ours, w) = match ours(e, results, f) {
                Some((v, w)) => (num(v), w),
                None => ("—".into(), f.workload.clone().unwrap_or_default()),
            };
            let w = match (&f.workload, f.average, f.best) {
                (Some(_), _, _) => w,
                (None, true, _) if w.is_empty() => "average".into(),
                (None, true, _) => w,
                (None, false, Best::Highest) => format!("best ({w})"),
                (None, false, Best::Lowest) => format!("best, lowest ({w})"),
            };
            let _ = writeln!(
                o,
                "| {what} | {config} | {w} | {} | {ours} | {} |",
                num(f.value),
                f.source
            );
        }
        o.push('\n');
    }
    if !e.charts.is_empty() {
        let _ = writeln!(
            o,
            "## Figures\n\nMeans over seeds, divided by each config's baseline on the same \
             workload (absolute metrics as they are); **average** is the mean over the workloads, \
             as the papers' AVG bars. Breakdowns give each part's share of their sum.\n"
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
    let labels: Vec<&str> = e.configs.iter().map(|c| c.label.as_str()).collect();
    for m in &e.metrics {
        let _ = writeln!(o, "### `{m}`\n");
        table_header(&mut o, "workload", &labels);
        for w in &e.workloads {
            let _ = write!(o, "| {} |", w.label);
            for c in &e.configs {
                let v = cell(results, &c.label, &w.label, m);
                let base = e
                    .baseline_of(&c.label)
                    .filter(|b| *b != c.label)
                    .and_then(|b| cell(results, b, &w.label, m));
                let text = match (v, base) {
                    (Some(v), Some(b)) if b != 0.0 => format!("{} ({}×)", num(v), num(v / b)),
                    (Some(v), _) => num(v),
                    (None, _) => "—".into(),
                };
                let _ = write!(o, " {text} |");
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
        let _ = writeln!(o, "\n![{m}](plots/{}.png)\n", plot_name(m));
    }
    if e.configs.iter().any(|c| e.baseline_of(&c.label).is_some()) {
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
        "Latency CDFs per workload: `plots/latency_cdf_<workload>.png`. Per-run summaries (with \
         the resolved config): `runs/`; one row per run: `results.csv`.\n"
    );
    if let Some(p) = &e.paper {
        if !p.notes.is_empty() {
            let _ = writeln!(o, "## Reading the comparison\n\n{}", p.notes.trim());
        }
    }
    o
}

/// "`pageFTL`", or "`baseline-4ch` for `PR-4ch`, …" when configs have baselines of their own.
fn baselines(e: &Experiment) -> String {
    let own: Vec<String> = e
        .configs
        .iter()
        .filter_map(|c| {
            let b = c.baseline.as_deref()?;
            (b != c.label).then(|| format!("`{b}` for `{}`", c.label))
        })
        .collect();
    match (&e.baseline, own.is_empty()) {
        (Some(b), true) => format!("`{b}`"),
        (Some(b), false) => format!("{}; `{b}` for the others", own.join(", ")),
        (None, _) => own.join(", "),
    }
}
