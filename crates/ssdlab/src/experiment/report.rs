//! The markdown report of an experiment: per metric a table of workloads × configs (mean over
//! seeds, and normalized to the baseline), the paper's figures next to ours when the experiment
//! has them, and links to the plots (drawn by the Python package, see `ssdlab.plots`).

use std::fmt::Write;

use super::runner::{metric, RunResult};
use super::spec::{Best, Experiment, PaperFigure};

/// Mean of `metric` over the seeds of one (config, workload) cell.
pub fn cell(results: &[RunResult], config: &str, workload: &str, m: &str) -> Option<f64> {
    let v: Vec<f64> = results
        .iter()
        .filter(|r| r.config_label == config && r.workload_label == workload)
        .filter_map(|r| metric(&r.summary, m))
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Our value for a paper figure: the metric (or its ratio to `normalized_to`) on the figure's
/// workload, or the best over all workloads for an "up to" figure (the largest, or the smallest
/// with `best = "lowest"`), with that workload.
pub fn ours(e: &Experiment, results: &[RunResult], f: &PaperFigure) -> Option<(f64, String)> {
    let at = |w: &str| {
        let v = cell(results, &f.config, w, &f.metric)?;
        match &f.normalized_to {
            Some(n) => Some(v / cell(results, n, w, &f.metric)?),
            None => Some(v),
        }
    };
    match &f.workload {
        Some(w) => at(w).map(|v| (v, w.clone())),
        None => {
            let all = e
                .workloads
                .iter()
                .filter_map(|w| at(&w.label).map(|v| (v, w.label.clone())));
            match f.best {
                Best::Highest => all.max_by(|a, b| a.0.total_cmp(&b.0)),
                Best::Lowest => all.min_by(|a, b| a.0.total_cmp(&b.0)),
            }
        }
    }
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
            let what = match &f.normalized_to {
                Some(n) => format!("{} / {n}", f.metric),
                None => f.metric.clone(),
            };
            let (ours, w) = match ours(e, results, f) {
                Some((v, w)) => (num(v), w),
                None => ("—".into(), f.workload.clone().unwrap_or_default()),
            };
            let w = match (&f.workload, f.best) {
                (Some(_), _) => w,
                (None, Best::Highest) => format!("best ({w})"),
                (None, Best::Lowest) => format!("best, lowest ({w})"),
            };
            let _ = writeln!(
                o,
                "| {what} | {} | {w} | {} | {ours} | {} |",
                f.config,
                num(f.value),
                f.source
            );
        }
        o.push('\n');
    }
    let _ = writeln!(o, "## Results (mean over seeds)\n");
    for m in &e.metrics {
        let _ = writeln!(o, "### `{m}`\n");
        let mut header = "| workload |".to_string();
        let mut rule = "|---|".to_string();
        for c in &e.configs {
            let _ = write!(header, " {} |", c.label);
            rule.push_str("---:|");
        }
        let _ = writeln!(o, "{header}\n{rule}");
        for w in &e.workloads {
            let base = e
                .baseline
                .as_ref()
                .and_then(|b| cell(results, b, &w.label, m));
            let _ = write!(o, "| {} |", w.label);
            for c in &e.configs {
                let v = cell(results, &c.label, &w.label, m);
                let text = match (v, base) {
                    (Some(v), Some(b)) if b != 0.0 && e.baseline.as_deref() != Some(&c.label) => {
                        format!("{} ({}×)", num(v), num(v / b))
                    }
                    (Some(v), _) => num(v),
                    (None, _) => "—".into(),
                };
                let _ = write!(o, " {text} |");
            }
            o.push('\n');
        }
        let _ = writeln!(o, "\n![{m}](plots/{}.png)\n", plot_name(m));
    }
    if let Some(b) = &e.baseline {
        let _ = writeln!(
            o,
            "Ratios in parentheses are to `{b}` on the same workload.\n"
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
