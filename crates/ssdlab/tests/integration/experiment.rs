//! Experiment grids: expansion, results.csv, the report's paper table, and the cache (a re-run
//! runs only what changed).

use std::path::{Path, PathBuf};

use ssdlab::experiment::{self, Experiment};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ssdlab-exp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A small grid on the small test device: two victim policies × two workloads (a committed real
/// trace and a generator) × two seeds.
fn write_grid(dir: &Path, gc_threshold: f64) -> PathBuf {
    let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let text = format!(
        r#"
name = "test grid"
metrics = ["requests.count", "iops", "latency_ns.read.mean", "gc.invocations", "no.such.metric"]
seeds = [1, 2]
baseline = "greedy"
absolute_metrics = ["gc.invocations"]

[[configs]]
label = "greedy"
preset = "default"
config_file = "{repo}/crates/ssdlab/tests/data/small.toml"
set = {{ "ftl.gc_victim.policy" = "greedy", "host.out_of_range" = "wrap" }}

[[configs]]
label = "random"
preset = "default"
config_file = "{repo}/crates/ssdlab/tests/data/small.toml"
set = {{ "ftl.gc_victim.policy" = "random", "ftl.gc_threshold" = {gc_threshold}, "host.out_of_range" = "wrap" }}

[[workloads]]
label = "hm_0"
trace = "{repo}/traces/msr_hm_0_first1000.csv.gz"
format = "msr"

[[workloads]]
label = "gen"
generator = {{ requests = 3000, read_fraction = 0.5, working_set_bytes = 67108864, size = {{ kind = "fixed", bytes = 4096 }}, arrival = {{ kind = "closed", queue_depth = 8 }} }}

[paper]
source = "made up for the test"
[[paper.figures]]
metric = "iops"
config = "random"
normalized_to = "greedy"
value = 1.0
source = "nowhere"
[[paper.figures]]
metric = "latency_ns.read.mean"
config = "random"
normalized_to = "greedy"
best = "lowest"
value = 1.0
source = "nowhere"
reason = """Made up | on
two lines."""
"#
    );
    let path = dir.join("grid.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn run_jobs(file: &Path, out: &Path, jobs: usize) -> Vec<experiment::RunResult> {
    experiment::run_file(
        file,
        out,
        true,
        &mut experiment::Local { jobs },
        "test",
        &mut |_, _| {},
    )
    .unwrap()
    .1
}

fn run(file: &Path, out: &Path) -> Vec<experiment::RunResult> {
    run_jobs(file, out, 2)
}

#[test]
fn a_grid_runs_every_cell_and_reruns_only_what_changed() {
    let dir = scratch("grid");
    let out = dir.join("out");
    let file = write_grid(&dir, 0.05);
    let first = run(&file, &out);
    assert_eq!(first.len(), 2 * 2 * 2);
    assert!(first.iter().all(|r| !r.cached));
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "config,workload,seed,requests.count,iops,latency_ns.read.mean,gc.invocations,no.such.metric"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 8);
    for r in &rows {
        let requests = if r[1] == "hm_0" { "1000" } else { "3000" };
        assert_eq!(r[3], requests, "{r:?}");
        assert!(r[4].parse::<f64>().unwrap() > 0.0);
        // A metric the summary does not have is an empty cell, not an error.
        assert_eq!(r[7], "");
    }
    // Seeds matter for the generated workload.
    let gen: Vec<_> = rows
        .iter()
        .filter(|r| r[0] == "greedy" && r[1] == "gen")
        .collect();
    assert_ne!(gen[0][5], gen[1][5]);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("| iops / greedy | random | best ("),
        "{report}"
    );
    assert!(report.contains("### `latency_ns.read.mean`"));
    // A "lowest" figure takes the workload with the smallest ratio.
    let e = Experiment::load(&file).unwrap();
    let ratio = |w: &str| {
        let m = "latency_ns.read.mean";
        experiment::report::cell(&first, "random", w, m).unwrap()
            / experiment::report::cell(&first, "greedy", w, m).unwrap()
    };
    let lowest = if ratio("hm_0") <= ratio("gen") {
        "hm_0"
    } else {
        "gen"
    };
    let figure = &e.paper.as_ref().unwrap().figures[1];
    let ours = experiment::report::ours(&e, &first, figure).unwrap();
    assert_eq!((ours.value, ours.found.as_str()), (ratio(lowest), lowest));
    assert_eq!(
        (ours.config.as_deref(), ours.workload.as_deref()),
        (Some("random"), Some(lowest))
    );
    assert!(
        report.contains(&format!(
            "| latency_ns.read.mean / greedy | random | best, lowest ({lowest}) |"
        )),
        "{report}"
    );
    // A reason goes beside its figure, on one line, and only figures with one say one.
    assert!(
        report.contains("| verdict | why ours differ |\n"),
        "{report}"
    );
    assert!(
        report.contains(" | Made up \\| on two lines. |\n"),
        "{report}"
    );
    assert!(
        report.contains("| nowhere | result | iops / greedy |"),
        "{report}"
    );
    assert!(report.contains(" |  |\n"), "{report}");
    // The plots read which metrics are drawn absolute from experiment.json.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("experiment.json")).unwrap())
            .unwrap();
    assert_eq!(
        json["absolute_metrics"],
        serde_json::json!(["gc.invocations"])
    );
    assert_eq!(
        json["paper"]["figures"][1]["reason"],
        "Made up | on\ntwo lines."
    );
    assert!(json["paper"]["figures"][0].get("reason").is_none());

    // The folder read back (as `ssdlab report` does) gives the report's comparison; a run file
    // the experiment no longer has (an earlier grid's, in the cache) is left out.
    let stale = out.join("runs").join("gone--hm_0--seed1.json");
    std::fs::copy(out.join("runs").join("greedy--hm_0--seed1.json"), &stale).unwrap();
    let text = std::fs::read_to_string(&stale).unwrap();
    std::fs::write(&stale, text.replace("\"greedy\"", "\"gone\"")).unwrap();
    let (read, results) = experiment::read_outputs(&out).unwrap();
    assert_eq!(results.len(), first.len());
    let rows = |e: &Experiment, r: &[experiment::RunResult]| {
        serde_json::to_value(experiment::report::comparisons(e, r)).unwrap()
    };
    assert_eq!(rows(&read, &results), rows(&e, &first));
    assert_eq!(
        rows(&read, &results)[1]["ours"]["workload"],
        serde_json::json!(lowest)
    );

    // Same file again: everything is reused, with identical results.
    let again = run(&file, &out);
    assert!(again.iter().all(|r| r.cached));
    assert_eq!(
        std::fs::read_to_string(out.join("results.csv")).unwrap(),
        csv
    );

    // One config changes: only its runs are simulated again.
    let file = write_grid(&dir, 0.1);
    let third = run(&file, &out);
    for r in &third {
        assert_eq!(
            r.cached,
            r.config_label == "greedy",
            "{} {}",
            r.config_label,
            r.workload_label
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_thread_and_two_give_identical_results() {
    let dir = scratch("jobs");
    let file = write_grid(&dir, 0.05);
    run_jobs(&file, &dir.join("one"), 1);
    run_jobs(&file, &dir.join("two"), 2);
    let csv = |d: &str| std::fs::read_to_string(dir.join(d).join("results.csv")).unwrap();
    assert_eq!(csv("one"), csv("two"));
    for entry in std::fs::read_dir(dir.join("one").join("runs")).unwrap() {
        let name = entry.unwrap().file_name();
        let summary = |d: &str| {
            let text = std::fs::read_to_string(dir.join(d).join("runs").join(&name)).unwrap();
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            v["summary"].as_object_mut().unwrap().remove("wall_time_s");
            v
        };
        assert_eq!(summary("one"), summary("two"), "{name:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_experiments_are_rejected_by_key() {
    let dir = scratch("bad");
    let path = dir.join("bad.toml");
    let bad = [
        (
            "name = \"x\"\nmetrics = [\"iops\"]\nbaseline = \"nope\"\n[[configs]]\nlabel = \"a\"\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n",
            "baseline",
        ),
        (
            "name = \"x\"\nmetrics = [\"iops\"]\n[[configs]]\nlabel = \"a\"\n[[configs]]\nlabel = \"a\"\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n",
            "configs[1].label",
        ),
        (
            "name = \"x\"\nmetrics = [\"iops\"]\n[[configs]]\nlabel = \"a\"\n[[workloads]]\nlabel = \"w\"\n",
            "workloads[0].trace",
        ),
        // No configs (and no [ablation] to make some).
        (
            "name = \"x\"\nmetrics = [\"iops\"]\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n",
            "`configs`: must not be empty (give [[configs]], or an [ablation])",
        ),
        (
            "name = \"x\"\nmetrics = [\"iops\"]\nabsolute_metrics = [\"raf\"]\n[[configs]]\nlabel = \"a\"\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n",
            "absolute_metrics[0]",
        ),
        (
            "name = \"x\"\nmetrics = [\"iops\"]\nbar_metrics = [\"iops\", \"raf\"]\n[[configs]]\nlabel = \"a\"\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n",
            "bar_metrics[1]",
        ),
        (
            "name = \"x\"\nmetrics = [\"iops\"]\n[[configs]]\nlabel = \"a\"\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n[paper]\nsource = \"s\"\n[[paper.figures]]\nmetric = \"iops\"\nconfig = \"a\"\nworkload = \"w\"\nbest = \"lowest\"\nvalue = 1.0\nsource = \"s\"\n",
            "paper.figures[0].best",
        ),
        (
            "name = \"x\"\nmetrics = [\"iops\"]\n[[configs]]\nlabel = \"a\"\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n[paper]\nsource = \"s\"\n[[paper.figures]]\nmetric = \"iops\"\nconfig = \"a\"\nvalue = 1.0\nsource = \"s\"\nreason = \" \"\n",
            "paper.figures[0].reason",
        ),
    ];
    for (text, key) in bad {
        std::fs::write(&path, text).unwrap();
        let e = Experiment::load(&path).unwrap_err().to_string();
        assert!(e.contains(key), "{key}: {e}");
    }
    // A config key the engine does not know: the error names the run and the key.
    std::fs::write(
        &path,
        "name = \"x\"\nmetrics = [\"iops\"]\n[[configs]]\nlabel = \"a\"\nset = { \"ftl.nope\" = 1 }\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n",
    )
    .unwrap();
    let e = Experiment::load(&path).unwrap();
    let err = match experiment::expand(&e, &dir) {
        Ok(_) => panic!("an unknown key expanded"),
        Err(err) => err.to_string(),
    };
    assert!(
        err.contains("config `a` × workload `w`") && err.contains("nope"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_shipped_experiments_are_valid() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments"));
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let e = Experiment::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            experiment::expand(&e, dir).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            n += 1;
        }
    }
    assert!(n >= 1);
}

/// A finished run with a made-up summary, for the report's arithmetic.
fn result(
    config: &str,
    workload: &str,
    seed: u64,
    summary: serde_json::Value,
) -> experiment::RunResult {
    experiment::RunResult {
        config_label: config.into(),
        config_name: config.into(),
        params: toml::Table::new(),
        workload_label: workload.into(),
        workload_params: toml::Table::new(),
        seed,
        key: String::new(),
        cached: false,
        summary,
    }
}

/// Two workloads, a baseline and two schemes, plus a second baseline with a config of its own
/// (a sweep point), with charts of each kind and figures of each form.
const CHARTED: &str = r#"
name = "charted"
metrics = ["lat", "ops", "parts.a", "parts.b"]
absolute_metrics = ["parts.a", "parts.b"]
baseline = "base"

[[configs]]
label = "base"
[[configs]]
label = "X"
[[configs]]
label = "Y"
[[configs]]
label = "base2"
baseline = "base2"
[[configs]]
label = "X2"
baseline = "base2"

[[workloads]]
label = "w1"
workload = "spread-kv"
[[workloads]]
label = "w2"
workload = "spread-kv"

[[charts]]
name = "fig_lat"
title = "Latency"
metrics = ["lat"]
configs = ["X", "Y"]
[[charts]]
name = "fig_parts"
kind = "stacked"
metrics = ["parts.a", "parts.b"]
configs = ["Y", "X"]
[[charts]]
name = "fig_sweep"
kind = "average"
metrics = ["lat", "ops"]
configs = ["X", "X2"]

[paper]
source = "made up"
[[paper.figures]]
metric = "lat"
config = "X"
normalized_to = "base"
average = true
value = 0.8
source = "avg"
[[paper.figures]]
metric = "ops"
config = "X"
minus = "Y"
normalized_to = "base"
average = true
value = 0.1
source = "gap"
[[paper.figures]]
metric = "parts.b"
share_of = ["parts.a", "parts.b"]
config = "Y"
minus = "X"
workload = "w2"
value = 0.05
source = "share"
[[paper.figures]]
metric = "lat"
config = "X"
workload = "w1"
over_workload = "w2"
value = 0.5
kind = "input"
line = 7
source = "across"
[[paper.figures]]
metric = "lat"
config = "X"
workload = "w9"
value = 2.0
unmeasured = "w9 is not run"
source = "elsewhere"
[[paper.figures]]
metric = "lat"
config = "X"
normalized_to = "base"
average = true
workloads = ["w1"]
value = 0.8
source = "listed"
[[paper.figures]]
metric = "lat"
config = "X"
normalized_to = "base"
workload = "w2"
order = "below"
source = "order"
"#;

fn charted_results() -> Vec<experiment::RunResult> {
    use serde_json::json;
    let s = |lat: f64, ops: f64, a: f64, b: f64| json!({"lat": lat, "ops": ops, "parts": {"a": a, "b": b}});
    vec![
        // Two seeds of the baseline on w1: the cell is their mean (100, 10).
        result("base", "w1", 1, s(90.0, 8.0, 0.0, 0.0)),
        result("base", "w1", 2, s(110.0, 12.0, 0.0, 0.0)),
        result("base", "w2", 1, s(200.0, 40.0, 0.0, 0.0)),
        result("X", "w1", 1, s(80.0, 5.0, 3.0, 1.0)),
        result("X", "w2", 1, s(120.0, 30.0, 1.0, 1.0)),
        result("Y", "w1", 1, s(110.0, 7.0, 1.0, 3.0)),
        result("Y", "w2", 1, s(100.0, 20.0, 0.0, 2.0)),
        result("base2", "w1", 1, s(50.0, 10.0, 0.0, 0.0)),
        result("base2", "w2", 1, s(100.0, 10.0, 0.0, 0.0)),
        result("X2", "w1", 1, s(25.0, 10.0, 1.0, 1.0)),
        result("X2", "w2", 1, s(100.0, 5.0, 1.0, 1.0)),
    ]
}

#[test]
fn charts_averages_and_per_config_baselines_follow_the_papers_arithmetic() {
    use experiment::report::{normalized, normalized_average, ours, shares};
    let dir = scratch("charted");
    let path = dir.join("charted.toml");
    std::fs::write(&path, CHARTED).unwrap();
    let e = Experiment::load(&path).unwrap();
    let r = charted_results();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;

    // X / base: 0.8 on w1, 0.6 on w2; the AVG bar is the mean of the ratios, 0.7.
    assert!(close(normalized(&e, &r, "X", "w1", "lat").unwrap(), 0.8));
    assert!(close(normalized_average(&e, &r, "X", "lat").unwrap(), 0.7));
    // X2 is divided by its own baseline: 0.5 and 1.0.
    assert!(close(
        normalized_average(&e, &r, "X2", "lat").unwrap(),
        0.75
    ));
    assert!(close(
        normalized(&e, &r, "base2", "w2", "lat").unwrap(),
        1.0
    ));
    // Absolute metrics are not divided.
    assert!(close(
        normalized(&e, &r, "X", "w1", "parts.a").unwrap(),
        3.0
    ));
    assert_eq!(
        shares(&r, "X", "w1", &["parts.a".into(), "parts.b".into()]),
        Some(vec![0.75, 0.25])
    );

    let figures = &e.paper.as_ref().unwrap().figures;
    let o = ours(&e, &r, &figures[0]).unwrap();
    assert!(close(o.value, 0.7) && o.found == "average");
    assert_eq!((o.config.as_deref(), o.workload), (Some("X"), None));
    // PR − SP style gap: (0.5 − 0.7) on w1 and (0.75 − 0.5) on w2, averaged.
    let v = ours(&e, &r, &figures[1]).unwrap().value;
    assert!(close(v, (-0.2 + 0.25) / 2.0), "{v}");
    // Y's share of b on w2 is 1, X's 0.5.
    let o = ours(&e, &r, &figures[2]).unwrap();
    assert!(close(o.value, 0.5) && o.found == "w2");
    // A workload without the metric (no reads, no read error rate) leaves the average to the
    // others, and says so; none at all leaves no figure.
    let mut partial = charted_results();
    partial.retain(|x| !(x.config_label == "X" && x.workload_label == "w2"));
    let o = ours(&e, &partial, &figures[0]).unwrap();
    assert!(close(o.value, 0.8), "{}", o.value);
    assert_eq!(o.found, "average of the 1 of 2 workloads with it");
    partial.retain(|x| x.config_label != "X");
    assert!(ours(&e, &partial, &figures[0]).is_none());

    let report = experiment::report::markdown(&e, &r, "test");
    for line in [
        // Scored on the effect: a ratio from 1 (0.3 of a reduction for the paper's 0.2), a
        // difference and a share from 0.
        "| avg | result | lat / base | X | average | 0.8 | 0.7 | +50% | right sign |  |",
        "| gap | result | ops / base | X − Y | average | 0.1 | 0.025 | −75% | right sign |  |",
        "| share | result | parts.b share of (parts.a + parts.b) | Y − X | w2 | 0.05 | 0.5 | +900% \
         | right sign |  |",
        // X's 80 on w1 over its 120 on w2.
        "| across (line 7) | input | lat / on w2 | X | w1 | 0.5 | 0.667 | −33% | right sign |  |",
        "| elsewhere | result | lat | X | w9 | 2 | — | — | not measured | w9 is not run |",
        // An average over the workloads listed; a claim of order alone.
        "| listed | result | lat / base | X | average of the 1 listed | 0.8 | 0.8 | 0% | within \
         ±25% |  |",
        "| order | result | lat / base | X | w2 | < 1 | 0.6 | — | order holds |  |",
        "**7 claims (6 results, 1 input): of the 6 results, 5 have the paper's sign and 2 are \
         within ±25% of its effect; 1 is not measured.**",
        "### Latency",
        "| workload | X | Y |",
        "| **average** | 0.7× | 0.8× |",
        "| workload | Y: parts.a | Y: parts.b | X: parts.a | X: parts.b |",
        "| w1 | 0.25 | 0.75 | 0.75 | 0.25 |",
        "| **average** | 0.125 | 0.875 | 0.625 | 0.375 |",
        "| config (average over workloads) | lat | ops |",
        "| X | 0.7× | 0.625× |",
        "| X2 | 0.75× | 0.75× |",
        "![Latency](plots/fig_lat.png)",
        // The per-metric table: X2's ratio is to base2, the baselines show plain values.
        "| w1 | 100 | 80 (0.8×) | 110 (1.1×) | 50 | 25 (0.5×) |",
        "| **average** | 1× | 0.7× | 0.8× | 1× | 0.75× |",
        "`base2` for `X2`; `base` for the others",
    ] {
        assert!(report.contains(line), "missing {line:?} in\n{report}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bar_metrics_limit_the_per_metric_charts_not_the_tables() {
    let dir = scratch("barmetrics");
    let path = dir.join("charted.toml");
    let r = charted_results();
    let images = ["lat", "ops", "parts_a", "parts_b"].map(|n| format!("(plots/{n}.png)"));
    // Without the key every metric has its bar chart in the report, and experiment.json has no
    // key (the committed reproductions stay as they are).
    std::fs::write(&path, CHARTED).unwrap();
    let e = Experiment::load(&path).unwrap();
    let report = experiment::report::markdown(&e, &r, "test");
    assert!(images.iter().all(|i| report.contains(i)), "{report}");
    assert!(!serde_json::to_string(&e).unwrap().contains("bar_metrics"));
    // With it, only those metrics; every metric keeps its table, and the charts their figures.
    std::fs::write(&path, format!("bar_metrics = [\"ops\"]\n{CHARTED}")).unwrap();
    let e = Experiment::load(&path).unwrap();
    let report = experiment::report::markdown(&e, &r, "test");
    let shown: Vec<bool> = images.iter().map(|i| report.contains(i)).collect();
    assert_eq!(shown, [false, true, false, false], "{report}");
    for m in ["lat", "ops", "parts.a", "parts.b"] {
        assert!(
            report.contains(&format!("### `{m}`\n\n| workload |")),
            "{m}"
        );
    }
    assert!(report.contains("![Latency](plots/fig_lat.png)"));
    // The plots read it from experiment.json.
    let json: serde_json::Value = serde_json::to_value(&e).unwrap();
    assert_eq!(json["bar_metrics"], serde_json::json!(["ops"]));
    // None at all.
    std::fs::write(&path, format!("bar_metrics = []\n{CHARTED}")).unwrap();
    let e = Experiment::load(&path).unwrap();
    let report = experiment::report::markdown(&e, &r, "test");
    assert!(!images.iter().any(|i| report.contains(i)), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_charts_and_figures_are_rejected_by_key() {
    let dir = scratch("badcharts");
    let path = dir.join("bad.toml");
    let cases = [
        ("[[charts]]\nname = \"c\"\nmetrics = [\"lat\", \"ops\"]\n", "charts[0].metrics"),
        ("[[charts]]\nname = \"c\"\nkind = \"stacked\"\nmetrics = [\"lat\"]\n", "charts[0].metrics"),
        ("[[charts]]\nname = \"c\"\nmetrics = [\"nope\"]\n", "charts[0].metrics[0]"),
        ("[[charts]]\nname = \"lat\"\nmetrics = [\"lat\"]\n", "charts[0].name"),
        ("[[charts]]\nname = \"c\"\nmetrics = [\"lat\"]\nconfigs = [\"a\", \"a\"]\n", "charts[0].configs[1]"),
        ("[[charts]]\nname = \"c\"\nkind = \"pie\"\nmetrics = [\"lat\"]\n", "pie"),
        ("[paper]\nsource = \"s\"\n[[paper.figures]]\nmetric = \"lat\"\nconfig = \"a\"\nminus = \"z\"\nvalue = 1.0\nsource = \"s\"\n", "paper.figures[0].minus"),
        ("[paper]\nsource = \"s\"\n[[paper.figures]]\nmetric = \"lat\"\nconfig = \"a\"\nworkload = \"w\"\naverage = true\nvalue = 1.0\nsource = \"s\"\n", "paper.figures[0].average"),
        ("[paper]\nsource = \"s\"\n[[paper.figures]]\nmetric = \"lat\"\nconfig = \"a\"\nbest = \"lowest\"\naverage = true\nvalue = 1.0\nsource = \"s\"\n", "paper.figures[0].best"),
    ];
    let head = "name = \"x\"\nmetrics = [\"lat\", \"ops\"]\n[[configs]]\nlabel = \"a\"\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n";
    for (tail, key) in cases {
        std::fs::write(&path, format!("{head}{tail}")).unwrap();
        let e = Experiment::load(&path).unwrap_err().to_string();
        assert!(e.contains(key), "{key}: {e}");
    }
    std::fs::write(
        &path,
        "name = \"x\"\nmetrics = [\"lat\"]\n[[configs]]\nlabel = \"a\"\nbaseline = \"b\"\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n",
    )
    .unwrap();
    let e = Experiment::load(&path).unwrap_err().to_string();
    assert!(e.contains("configs[0].baseline"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The PR-SSD experiment files name the paper's schemes (Table 3 and §5.3.3's Split All) and
/// workloads (Table 2) exactly, over the named `pr-ssd-*` workloads, with every metric the
/// figures need. Load and validate only: the schemes with the split FTL resolve only on an
/// engine that has it, and `the_shipped_experiments_are_valid` resolves every run.
#[test]
fn the_pr_ssd_experiments_name_the_papers_schemes_and_workloads() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments"));
    let e = Experiment::load(&dir.join("pr-ssd.toml")).unwrap();
    let labels = |v: Vec<&str>| v.join(" ");
    assert_eq!(
        labels(e.configs.iter().map(|c| c.label.as_str()).collect()),
        "baseline S M D P SP MP DP PR SplitAll"
    );
    let workloads = [
        "Ubuntu", "Windows", "Compile", "Internet", "Office", "Copy", "DB", "ML",
    ];
    assert_eq!(
        labels(e.workloads.iter().map(|w| w.label.as_str()).collect()),
        workloads.join(" ")
    );
    for w in &e.workloads {
        assert_eq!(
            w.workload.as_deref(),
            Some(format!("pr-ssd-{}", w.label.to_lowercase()).as_str())
        );
    }
    assert_eq!(e.baseline.as_deref(), Some("baseline"));
    for m in [
        "latency_ns.read.mean",
        "latency_ns.write.mean",
        "latency_ns.all.mean",
        "flash_ops.program.total",
        "flash_ops.read.host",
        "energy_uj.read",
        "compression.saving",
        "compression.units.compressed",
        "compression.units.raw",
        "compression.units.zero",
        "compression.units.split",
        "split.conflicts",
    ] {
        assert!(e.metrics.iter().any(|x| x == m), "{m}");
    }
    let preset = |c: &experiment::spec::ConfigSpec, key: &str| c.set.get(key).cloned();
    for c in &e.configs {
        assert_eq!(c.preset, "pr-ssd");
        let compressing = c.label != "baseline" && c.label != "P";
        assert_eq!(
            preset(c, "ftl.reduction.policy").and_then(|v| v.as_str().map(String::from)),
            Some(if compressing { "compress" } else { "identity" }.into()),
            "{}",
            c.label
        );
        let partial = ["P", "SP", "MP", "DP", "PR", "SplitAll"].contains(&c.label.as_str());
        assert_eq!(
            preset(c, "ftl.read_policy.policy").and_then(|v| v.as_str().map(String::from)),
            Some(if partial { "partial" } else { "full" }.into()),
            "{}",
            c.label
        );
    }
    assert!(!e.paper.as_ref().unwrap().figures.is_empty());
    pr_ssd_runs_share_the_aged_device_and_span_it(&e, dir);

    let c = Experiment::load(&dir.join("pr-ssd-channels.toml")).unwrap();
    pr_ssd_runs_share_the_aged_device_and_span_it(&c, dir);
    for (label, base) in [
        ("PR-4ch", "baseline-4ch"),
        ("PR-8ch", "baseline-8ch"),
        ("PR-16ch", "baseline-16ch"),
    ] {
        assert_eq!(c.baseline_of(label).as_deref(), Some(base));
    }
    assert_eq!(
        labels(c.workloads.iter().map(|w| w.label.as_str()).collect()),
        workloads.join(" ")
    );
}

/// Every run of a PR-SSD experiment is on the same scaled, aged device (pr-ssd/device.toml): 90%
/// of the logical space filled, then overwritten, the workload spanning exactly the filled part
/// and arriving open loop, so that GC runs at steady state in every scheme
/// (docs/reproductions/pr-ssd).
fn pr_ssd_runs_share_the_aged_device_and_span_it(e: &Experiment, dir: &Path) {
    use ssdlab::config::Arrival;
    for c in &e.configs {
        assert_eq!(
            c.config_file.as_deref(),
            Some(Path::new("pr-ssd/device.toml")),
            "{}",
            c.label
        );
    }
    for run in experiment::expand(e, dir).unwrap() {
        let (c, at) = (
            &run.config,
            format!("{} × {}", run.config_label, run.workload_label),
        );
        assert_eq!(
            (c.geometry.blocks_per_plane, c.geometry.pages_per_block),
            (32, 66),
            "{at}"
        );
        assert_eq!(
            (
                c.precondition.fill_fraction,
                c.precondition.overwrite_fraction
            ),
            (0.9, 1.0),
            "{at}"
        );
        // The fill writes units 0, 1, … in order (preconditioning rounds the share of units).
        let units = c
            .ftl
            .logical_units(ssdlab::device::geometry(c).physical_units()) as f64;
        let filled_bytes = (c.precondition.fill_fraction * units).round() as u64
            * u64::from(c.ftl.mapping_unit_kib)
            * 1024;
        let g = c.flows[0].generator.as_ref().unwrap();
        assert_eq!(g.working_set_bytes, filled_bytes, "{at}");
        assert!(matches!(g.arrival, Arrival::Poisson { .. }), "{at}");
    }
}

/// The IPU experiment names the slides' schemes (Baseline, MGA, IPU, and MGA without its merging
/// to tell MGA's two parts apart) and six traces exactly, over
/// the named `ipu-*` workloads, plus the committed MSR Cambridge excerpts replayed as they are;
/// each scheme is its mechanisms' keys on one scaled, aged device whose SLC-mode region takes
/// partial programs (docs/reproductions/ipu).
#[test]
fn the_ipu_experiment_names_the_slides_schemes_and_workloads() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments"));
    let e = Experiment::load(&dir.join("ipu.toml")).unwrap();
    let labels = |v: Vec<&str>| v.join(" ");
    assert_eq!(
        labels(e.configs.iter().map(|c| c.label.as_str()).collect()),
        "Baseline MGA MGA-no-merge IPU"
    );
    assert_eq!(e.baseline.as_deref(), Some("Baseline"));
    let traces = ["ts0", "wdev0", "lun1", "usr0", "lun2", "ads"];
    let msr = [
        ("msr-hm0", "msr_hm_0_first1000.csv.gz"),
        ("msr-wdev1", "msr_wdev_1_full.csv.gz"),
        ("msr-wdev3", "msr_wdev_3_full.csv.gz"),
        ("msr-hm1", "msr_hm_1_first1000writes.csv.gz"),
        ("msr-mds0", "msr_mds_0_first1000writes.csv.gz"),
        ("msr-proj0", "msr_proj_0_first1000writes.csv.gz"),
        ("msr-rsrch2", "msr_rsrch_2_first1000writes.csv.gz"),
        (
            "msr-heimdall",
            "msrcut_heimdall_most_thpt_rand_iops_1006.trace.gz",
        ),
    ];
    let expected: Vec<&str> = traces.iter().copied().chain(msr.map(|m| m.0)).collect();
    assert_eq!(
        labels(e.workloads.iter().map(|w| w.label.as_str()).collect()),
        expected.join(" ")
    );
    for w in &e.workloads[..traces.len()] {
        assert_eq!(
            w.workload.as_deref(),
            Some(format!("ipu-{}", w.label).as_str())
        );
    }
    for (w, (_, file)) in e.workloads[traces.len()..].iter().zip(msr) {
        assert_eq!(
            w.trace.as_deref(),
            Some(Path::new("../traces").join(file).as_path()),
            "{}",
            w.label
        );
        // As they are: the preset's open-loop replay at the trace's own times.
        assert!(w.mode.is_none() && w.time_scale.is_none() && w.set.is_empty());
    }
    for m in [
        "latency_ns.all.mean",
        "latency_ns.read.mean",
        "latency_ns.write.mean",
        "waf",
        "flash_ops.erase.total",
        "flash_ops.program.partial",
        "flash_ops.program.in_place_update",
        "gc.invocations",
    ] {
        assert!(e.metrics.iter().any(|x| x == m), "{m}");
    }
    // Result(1/3): −11.9% against the Baseline and −7.3% against MGA; Result(3/3): 32.9% of
    // writes held in Hot blocks; the abstract's BER −9.2%.
    let figures: Vec<(&str, &str, Option<f64>)> = e
        .paper
        .as_ref()
        .unwrap()
        .figures
        .iter()
        .map(|f| {
            (
                f.metric.as_str(),
                f.normalized_to.as_deref().unwrap_or(""),
                f.value,
            )
        })
        .collect();
    for claim in [
        ("latency_ns.all.mean", "Baseline", Some(0.881)),
        ("latency_ns.all.mean", "MGA", Some(0.927)),
        ("placement.hot_write_share", "", Some(0.329)),
        ("reliability.read_error_rate", "Baseline", Some(0.908)),
    ] {
        assert!(figures.contains(&claim), "{claim:?} in {figures:?}");
    }

    // Each scheme's mechanisms, as resolved on every run.
    let schemes = [
        ("Baseline", "cache", "evict", "greedy", "none"),
        ("MGA", "cache", "evict", "greedy", "share"),
        ("MGA-no-merge", "cache", "evict", "greedy", "share"),
        ("IPU", "levels", "degrade", "isr", "intra_page_update"),
    ];
    let filled = {
        let c = &experiment::expand(&e, dir).unwrap()[0].config;
        let units = c
            .ftl
            .logical_units(ssdlab::device::geometry(c).physical_units()) as f64;
        (c.precondition.fill_fraction * units).round() as u64
            * u64::from(c.ftl.mapping_unit_kib)
            * 1024
    };
    for run in experiment::expand(&e, dir).unwrap() {
        let at = format!("{} × {}", run.config_label, run.workload_label);
        let c = run.config.to_json();
        let (_, placement, migration, victim, partial) =
            schemes.iter().find(|s| s.0 == run.config_label).unwrap();
        let ftl = &c["ftl"];
        assert_eq!(ftl["placement"]["policy"], *placement, "{at}");
        assert_eq!(ftl["placement"]["region"], "slc", "{at}");
        assert_eq!(ftl["migration"]["policy"], *migration, "{at}");
        assert_eq!(ftl["migration"]["from_region"], "slc", "{at}");
        assert_eq!(ftl["migration"]["to_region"], "main", "{at}");
        assert_eq!(ftl["gc_victim"]["policy"], *victim, "{at}");
        // The default ("none") is left out of a resolved config.
        assert_eq!(
            ftl["partial_program"]["policy"].as_str().unwrap_or("none"),
            *partial,
            "{at}"
        );
        // MGA merges a logical page spread past two pages (techniques.md §3.3's assumption);
        // MGA-no-merge is the same sharing without it.
        let merge = ftl["partial_program"]["merge_threshold_pages"]
            .as_u64()
            .unwrap_or(0);
        let expected_merge = if run.config_label == "MGA" { 2 } else { 0 };
        assert_eq!(merge, expected_merge, "{at}");
        // MGA's two-level mapping table (L181), under both of its configs; the default (one
        // entry per unit) is left out of a resolved config.
        let two_level = run.config_label.starts_with("MGA");
        assert_eq!(
            ftl["mapping_granularity"].as_str().unwrap_or("unit"),
            if two_level { "two_level" } else { "unit" },
            "{at}"
        );
        // The slides' 5% SLC-mode blocks, with NOP 4, on the scaled device.
        let regions = &c["geometry"]["regions"];
        assert_eq!(c["geometry"]["blocks_per_plane"], 400, "{at}");
        assert_eq!(
            (&regions[1]["name"], &regions[1]["cell_mode"]),
            (&"slc".into(), &"slc".into()),
            "{at}"
        );
        assert_eq!(regions[1]["blocks_per_plane"], 20, "{at}");
        assert_eq!(regions[1]["nop"], 4, "{at}");
        assert_eq!(ftl["gc_threshold"], 0.05, "{at}");
        // Generators span exactly what preconditioning filled.
        let g = &run.config.flows[0].generator;
        if let Some(g) = g {
            assert_eq!(g.working_set_bytes, filled, "{at}");
        }
    }
}

/// The IPU experiment's aging leaves every plane's MLC blocks one block under their GC threshold
/// and its SLC-mode blocks at theirs, under each scheme: the run starts as a device at its GC
/// threshold, neither fresh nor with a backlog of cleaning to do first
/// (experiments/ipu/device.toml, `[precondition]`).
#[test]
fn the_ipu_device_starts_at_both_regions_gc_threshold() {
    use ssdlab::sim::{RunOptions, Simulation};
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments"));
    let e = Experiment::load(&dir.join("ipu.toml")).unwrap();
    for run in experiment::expand(&e, dir).unwrap() {
        if run.workload_label != "msr-hm0" || run.seed != 1 {
            continue;
        }
        let mut config = run.config.clone();
        let flows = ssdlab::run::load_flows(&mut config).unwrap();
        let sim = Simulation::new(config, flows, RunOptions::default()).unwrap();
        for p in &sim.ftl().pools {
            let free = p.free.len() as u32;
            let region = &sim.ftl().geometry.regions[p.region].name;
            let at = format!("{} plane {} region {region}", run.config_label, p.plane);
            match region.as_str() {
                "main" | "slc" => assert_eq!(free, p.gc_threshold_blocks, "{at}"),
                _ => panic!("{at}"),
            }
        }
    }
}

/// A grid shaped as melded pages' (experiments/melded.toml): sweeps whose values carry their own
/// overrides, a scheme divided by the other at each point (a label as baseline), workloads of two
/// flows with parameters of their own, one of them run only where its `where` says.
const SHAPED: &str = r#"
name = "shaped"
metrics = ["latency_ns.read.mean", "flash_ops.program.total"]

[[configs]]
label = "normal"
preset = "melded"
set = { "ftl.read_policy" = { policy = "full" } }
sweep = [
    { param = "layout", values = ["8x8", "16x4"], set = [
        { "geometry.channels" = 8, "geometry.ways_per_channel" = 4 },
        { "geometry.channels" = 16, "geometry.ways_per_channel" = 2 },
    ] },
    { param = "rate", key = "timing.channel_rate_mts", values = [400.0, 800.0] },
]

[[configs]]
label = "melded"
preset = "melded"
baseline = "normal"
set = { "ftl.read_policy" = { policy = "melded" } }
sweep = [
    { param = "layout", values = ["8x8", "16x4"], set = [
        { "geometry.channels" = 8, "geometry.ways_per_channel" = 4 },
        { "geometry.channels" = 16, "geometry.ways_per_channel" = 2 },
    ] },
    { param = "rate", key = "timing.channel_rate_mts", values = [400.0, 800.0] },
]

[[workloads]]
label = "small"
params = { read_kib = 4 }
where = { layout = "8x8", rate = 800.0 }
set = { "statistics.warmup_requests" = 64 }
flows = [
    { name = "write", generator = { requests = 64, read_fraction = 0.0, working_set_bytes = 8388608, write_size = { kind = "fixed", bytes = 131072 }, write_random_fraction = 0.0, sequential_run_bytes = 8388608, arrival = { kind = "closed", queue_depth = 1 }, stream = { kind = "per_extent", extent_bytes = 8388608 } } },
    { name = "read", generator = { requests = 1, read_fraction = 1.0, working_set_bytes = 8388608, read_size = { kind = "fixed", bytes = 4096 }, read_random_fraction = 0.0, sequential_run_bytes = 8388608, arrival = { kind = "fixed", iops = 1.0 }, start_ns = 2000000000 } },
]

[[workloads]]
label = "big"
params = { read_kib = 8192 }
set = { "statistics.warmup_requests" = 64 }
flows = [
    { name = "write", generator = { requests = 64, read_fraction = 0.0, working_set_bytes = 8388608, write_size = { kind = "fixed", bytes = 131072 }, write_random_fraction = 0.0, sequential_run_bytes = 8388608, arrival = { kind = "closed", queue_depth = 1 }, stream = { kind = "per_extent", extent_bytes = 8388608 } } },
    { name = "read", generator = { requests = 1, read_fraction = 1.0, working_set_bytes = 8388608, read_size = { kind = "fixed", bytes = 8388608 }, read_random_fraction = 0.0, sequential_run_bytes = 8388608, arrival = { kind = "fixed", iops = 1.0 }, start_ns = 2000000000 } },
]

[[charts]]
name = "by_size"
kind = "lines"
metrics = ["latency_ns.read.mean"]
x = "read_kib"
where = { layout = "8x8", rate = 800.0 }
log = ["x", "y"]

[[charts]]
name = "gain"
kind = "lines"
metrics = ["latency_ns.read.mean"]
configs = ["melded"]
x = "rate"
series = ["layout", "read_kib"]
where = { read_kib = 8192 }
normalized_to = "normal"

[paper]
source = "made up"
[[paper.figures]]
metric = "latency_ns.read.mean"
config = "melded"
normalized_to = "normal"
workload = "big"
best = "lowest"
value = 0.7
source = "up to"
"#;

#[test]
fn sweeps_with_overrides_workload_parameters_and_where_shape_the_grid() {
    let dir = scratch("shaped");
    let path = dir.join("shaped.toml");
    std::fs::write(&path, SHAPED).unwrap();
    let e = Experiment::load(&path).unwrap();
    let names: Vec<String> = e.configs.iter().map(|c| c.name()).collect();
    assert_eq!(
        names[..2],
        ["normal[layout=8x8,rate=400]", "normal[layout=8x8,rate=800]"]
    );
    // A value's table sets every key it holds; a `key` sweep its one key.
    let point = &e.configs[7];
    assert_eq!(point.name(), "melded[layout=16x4,rate=800]");
    assert_eq!(point.set["geometry.channels"].as_integer(), Some(16));
    assert_eq!(point.set["geometry.ways_per_channel"].as_integer(), Some(2));
    assert_eq!(point.set["timing.channel_rate_mts"].as_float(), Some(800.0));
    // A label stands for the config with that label at the same parameters.
    assert_eq!(
        e.baseline_of("melded[layout=16x4,rate=400]").as_deref(),
        Some("normal[layout=16x4,rate=400]")
    );
    assert_eq!(e.baseline_of("normal[layout=16x4,rate=400]"), None);
    assert_eq!(e.param_columns(), ["read_kib", "layout", "rate"]);
    // `small` runs on the two 8x8 / 800 points only: 8 + 2 runs, each of two flows.
    let runs = experiment::expand(&e, &dir).unwrap();
    assert_eq!(runs.len(), 10);
    let small: Vec<&str> = runs
        .iter()
        .filter(|r| r.workload_label == "small")
        .map(|r| r.config_name.as_str())
        .collect();
    assert_eq!(
        small,
        ["normal[layout=8x8,rate=800]", "melded[layout=8x8,rate=800]"]
    );
    assert!(runs.iter().all(|r| r.config.flows.len() == 2));
    let r16 = runs
        .iter()
        .find(|r| r.config_name.contains("16x4"))
        .unwrap();
    assert_eq!(r16.config.geometry.channels, 16);

    let results = experiment::run_file(
        &path,
        &dir.join("out"),
        true,
        &mut experiment::Local { jobs: 2 },
        "test",
        &mut |_, _| {},
    )
    .unwrap()
    .1;
    let csv = std::fs::read_to_string(dir.join("out/results.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("config,workload,seed,read_kib,layout,rate,latency_ns.read.mean,flash_ops.program.total")
    );
    // The read, 2 s after the first write, finds the block programmed: nothing is programmed
    // while it is measured, and a 4 KiB read is one sensing and one transfer.
    let small_row = csv
        .lines()
        .find(|l| l.starts_with("normal,small,1,4,8x8,800,"))
        .unwrap_or_else(|| panic!("{csv}"));
    assert!(small_row.ends_with(",0"), "{small_row}");
    assert!(results
        .iter()
        .all(|r| r.summary["flash_ops"]["program"]["total"] == 0));
    // The whole block read melded wordlines, and faster (the figure is the best point).
    use experiment::report::ours;
    let o = ours(&e, &results, &e.paper.as_ref().unwrap().figures[0]).unwrap();
    assert!(o.value < 0.9, "{}", o.value);
    assert!(
        o.found.starts_with("melded[") && o.found.ends_with(", big"),
        "{}",
        o.found
    );
    // Where, apart: the sweep's point and the workload.
    assert_eq!(o.workload.as_deref(), Some("big"));
    assert!(o.found.starts_with(o.config.as_deref().unwrap_or("none")));
    let report = std::fs::read_to_string(dir.join("out/report.md")).unwrap();
    for line in [
        "(8 configs, 2 workloads (1 of them on the configs their `where` selects), 1 seeds;",
        "| latency_ns.read.mean / normal | melded | best, lowest (melded[",
        "`normal` at the same parameters for `melded`",
        "| latency_ns.read.mean | read_kib = 4 | read_kib = 8192 |",
        "| normal[layout=8x8,rate=800] |",
        "| layout=16x4, read_kib=8192 |",
    ] {
        assert!(report.contains(line), "missing {line:?} in\n{report}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_sweeps_workloads_and_references_are_rejected_by_key() {
    let dir = scratch("badshaped");
    let path = dir.join("bad.toml");
    let cases = [
        (
            SHAPED.replacen(
                "{ param = \"rate\", key",
                "{ param = \"rate\", set = [{ seed = 1 }, { seed = 2 }], key",
                1,
            ),
            "configs[0].sweep[1].key",
        ),
        (
            SHAPED.replacen(
                "{ param = \"rate\", key = \"timing.channel_rate_mts\"",
                "{ param = \"rate\"",
                1,
            ),
            "configs[0].sweep[1].key",
        ),
        (
            SHAPED.replacen(
                "{ \"geometry.channels\" = 16, \"geometry.ways_per_channel\" = 2 },\n    ] },",
                "] },",
                1,
            ),
            "configs[0].sweep[0].set",
        ),
        (
            SHAPED.replacen(
                "{ \"geometry.channels\" = 16, \"geometry.ways_per_channel\" = 2 }",
                "{}",
                1,
            ),
            "configs[0].sweep[0].set[1]",
        ),
        (
            SHAPED.replacen(
                "set = { \"ftl.read_policy\" = { policy = \"full\" } }",
                "set = { \"geometry.channels\" = 4 }",
                1,
            ),
            "configs[0].sweep[0].set",
        ),
        (
            SHAPED.replacen("baseline = \"normal\"", "baseline = \"nobody\"", 1),
            "configs[4].baseline",
        ),
        (
            SHAPED.replacen("params = { read_kib = 4 }", "params = { layout = 4 }", 1),
            "workloads[0].params.layout",
        ),
        (
            SHAPED.replacen(
                "where = { layout = \"8x8\", rate = 800.0 }\nset",
                "where = { page = 4 }\nset",
                1,
            ),
            "workloads[0].where.page",
        ),
        (
            SHAPED.replacen(
                "where = { layout = \"8x8\", rate = 800.0 }\nset",
                "where = { layout = \"4x4\" }\nset",
                1,
            ),
            "workloads[0].where",
        ),
        (
            SHAPED.replacen(
                "label = \"small\"\n",
                "label = \"small\"\nworkload = \"hdfs-reader\"\n",
                1,
            ),
            "workloads[0].workload",
        ),
        (
            SHAPED.replacen("log = [\"x\", \"y\"]", "log = [\"z\"]", 1),
            "charts[0].log[0]",
        ),
        (
            SHAPED.replacen(
                "series = [\"layout\", \"read_kib\"]",
                "series = [\"layout\", \"layout\"]",
                1,
            ),
            "charts[1].series[1]",
        ),
        (
            SHAPED.replacen(
                "normalized_to = \"normal\"\n\n[paper]",
                "normalized_to = \"nobody\"\n\n[paper]",
                1,
            ),
            "charts[1].normalized_to",
        ),
    ];
    for (text, key) in cases {
        assert_ne!(text, SHAPED, "{key}: the case changed nothing");
        std::fs::write(&path, &text).unwrap();
        let e = Experiment::load(&path).unwrap_err().to_string();
        assert!(e.contains(&format!("`{key}`")), "{key}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Configs that differ only in what acts after preconditioning share one preconditioned device
/// (docs/snapshots.md): the grid saves one snapshot per device and seed, and its results are
/// those of preconditioning every run afresh, byte for byte.
#[test]
fn runs_that_share_a_device_precondition_it_once() {
    let dir = scratch("snapshots");
    let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let text = format!(
        r#"
name = "shared devices"
metrics = ["iops", "latency_ns.read.mean", "gc.invocations", "precondition.units_written"]
seeds = [1, 2]

[[configs]]
label = "dma"
preset = "default"
config_file = "{repo}/crates/ssdlab/tests/data/small.toml"
set = {{ "ftl.read_policy.policy" = "dma" }}

[[configs]]
label = "full, read priority"
preset = "default"
config_file = "{repo}/crates/ssdlab/tests/data/small.toml"
set = {{ "ftl.read_policy.policy" = "full", "scheduler.read_priority" = true }}

[[workloads]]
label = "steady"
trace = "{repo}/traces/msr_hm_0_first1000.csv.gz"
format = "msr"
set = {{ "precondition.fill_fraction" = 0.9, "precondition.overwrite_fraction" = 0.5, "host.out_of_range" = "wrap" }}
"#
    );
    let file = dir.join("grid.toml");
    std::fs::write(&file, text).unwrap();
    let grid = |out: &Path, snapshots: bool| {
        let local = &mut experiment::Local { jobs: 2 };
        experiment::run_file(&file, out, snapshots, local, "test", &mut |_, _| {}).unwrap();
        std::fs::read_to_string(out.join("results.csv")).unwrap()
    };
    let (kept, afresh) = (dir.join("kept"), dir.join("afresh"));
    assert_eq!(grid(&kept, true), grid(&afresh, false));
    let saved = std::fs::read_dir(kept.join(experiment::SNAPSHOTS))
        .unwrap()
        .count();
    assert_eq!(saved, 2, "one device per seed");
    assert!(!afresh.join(experiment::SNAPSHOTS).exists());
}
