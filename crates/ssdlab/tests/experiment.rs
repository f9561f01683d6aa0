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
"#
    );
    let path = dir.join("grid.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn run_jobs(file: &Path, out: &Path, jobs: usize) -> Vec<experiment::RunResult> {
    experiment::run_file(file, out, jobs, "test", &mut |_, _| {})
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
    let (ours, at) = experiment::report::ours(&e, &first, figure).unwrap();
    assert_eq!((ours, at.as_str()), (ratio(lowest), lowest));
    assert!(
        report.contains(&format!(
            "| latency_ns.read.mean / greedy | random | best, lowest ({lowest}) |"
        )),
        "{report}"
    );
    // The plots read which metrics are drawn absolute from experiment.json.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("experiment.json")).unwrap())
            .unwrap();
    assert_eq!(
        json["absolute_metrics"],
        serde_json::json!(["gc.invocations"])
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
        ("name = \"x\"\nmetrics = []\n", "configs"),
        (
            "name = \"x\"\nmetrics = [\"iops\"]\nabsolute_metrics = [\"raf\"]\n[[configs]]\nlabel = \"a\"\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n",
            "absolute_metrics[0]",
        ),
        (
            "name = \"x\"\nmetrics = [\"iops\"]\n[[configs]]\nlabel = \"a\"\n[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n[paper]\nsource = \"s\"\n[[paper.figures]]\nmetric = \"iops\"\nconfig = \"a\"\nworkload = \"w\"\nbest = \"lowest\"\nvalue = 1.0\nsource = \"s\"\n",
            "paper.figures[0].best",
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
