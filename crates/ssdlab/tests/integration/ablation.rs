//! Ablations (`[ablation]` in an experiment file, docs/experiments.md "Ablation"): the configs
//! the shipped ablation expands to, which of them the engine runs today, the report's tables
//! against their arithmetic and against results.csv on a small run with the integrity oracle,
//! workload sweeps (the fresh and steady states), and `verify`.

use std::path::{Path, PathBuf};

use serde_json::json;
use ssdlab::experiment::report::{ablation_effect, in_set, Effect, InSet};
use ssdlab::experiment::{self, Experiment, RunResult};

fn experiments() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments")).to_path_buf()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ssdlab-ablation-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn load(name: &str) -> Experiment {
    let path = experiments().join(name);
    Experiment::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn names(e: &Experiment) -> Vec<String> {
    e.configs.iter().map(|c| c.name()).collect()
}

#[test]
fn the_shipped_ablation_is_none_each_alone_each_left_out_and_all() {
    let e = load("ablation.toml");
    assert_eq!(
        names(&e),
        [
            "none",
            "compression",
            "partial",
            "ipu",
            "rosa",
            "melded",
            "partial+ipu+rosa+melded",
            "compression+ipu+rosa+melded",
            "compression+partial+rosa+melded",
            "compression+partial+ipu+melded",
            "compression+partial+ipu+rosa",
            "compression+partial+ipu+rosa+melded",
        ]
    );
    assert!(e.verify, "the ablation runs with the integrity oracle");
    let set = |label: &str| &e.configs.iter().find(|c| c.label == label).unwrap().set;
    // Every config is the base device, and only its techniques' keys on top.
    for c in &e.configs {
        assert_eq!(c.preset, "pr-ssd");
        assert_eq!(
            c.config_file.as_deref(),
            Some(Path::new("ablation/device.toml"))
        );
    }
    assert!(set("none").is_empty());
    assert_eq!(
        set("partial")["ftl.read_policy"]["policy"].as_str(),
        Some("partial")
    );
    assert_eq!(
        set("rosa")["ftl.placement"]["policy"].as_str(),
        Some("oblivious")
    );
    assert_eq!(
        set("melded")["ftl.host_streams"]["policy"].as_str(),
        Some("wordlines")
    );
    // The full set: each `together` entry's value where the techniques meet.
    let all = set("compression+partial+ipu+rosa+melded");
    assert_eq!(
        all["ftl.read_policy"].to_string(),
        "{ pages = { policy = \"partial\" }, policy = \"melded\" }"
    );
    assert_eq!(all["ftl.host_streams"]["policy"].as_str(), Some("separate"));
    assert_eq!(all["ftl.placement"]["policy"].as_str(), Some("oblivious"));
    assert_eq!(
        all["ftl.placement"]["flash"]["policy"].as_str(),
        Some("levels")
    );
    assert_eq!(all["ftl.reduction"]["codec"].as_str(), Some("dpc"));
    assert_eq!(
        all["ftl.level1_gc"]["policy"].as_str(),
        Some("read_intensity")
    );
    assert_eq!(
        all["ftl.partial_program"]["policy"].as_str(),
        Some("intra_page_update")
    );
    // Left out, a technique's `together` entries are too: without melded, IPU's streams are
    // the base device's (shared), and partial read is not wrapped.
    let no_melded = set("compression+partial+ipu+rosa");
    assert!(!no_melded.contains_key("ftl.host_streams"));
    assert_eq!(
        no_melded["ftl.read_policy"].to_string(),
        "{ policy = \"partial\" }"
    );
    // Each workload on a fresh device and an aged one.
    let workloads: Vec<&str> = e.workloads.iter().map(|w| w.label.as_str()).collect();
    assert_eq!(
        workloads,
        [
            "ML[state=fresh]",
            "ML[state=steady]",
            "DB[state=fresh]",
            "DB[state=steady]",
            "Windows[state=fresh]",
            "Windows[state=steady]",
        ]
    );
    assert_eq!(e.param_columns(), ["state"]);
    let steady = &e.workloads[1].set;
    assert_eq!(steady["precondition.fill_fraction"].as_float(), Some(0.9));
    assert_eq!(
        steady["precondition.overwrite_fraction"].as_float(),
        Some(1.0)
    );
    assert_eq!(
        e.workloads[0].set["precondition.fill_fraction"].as_float(),
        Some(0.0)
    );
}

#[test]
fn techniques_that_disagree_without_a_together_entry_are_refused_naming_both() {
    let text = std::fs::read_to_string(experiments().join("ablation.toml")).unwrap();
    // Drop the entry that says how IPU's and ROSA's placements meet.
    let entry = text
        .find("[[ablation.together]]\ntechniques = [\"ipu\", \"rosa\"]")
        .expect("the ipu+rosa entry");
    let end = text[entry..].find("\n\n").map_or(text.len(), |n| entry + n);
    let cut = format!("{}{}", &text[..entry], &text[end..]);
    let dir = scratch("conflict");
    std::fs::create_dir_all(dir.join("ablation")).unwrap();
    let path = dir.join("ablation.toml");
    std::fs::write(&path, cut).unwrap();
    let err = Experiment::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("`ablation.techniques[3].set`")
            && err.contains("`ipu` and `rosa` both set `ftl.placement.policy`")
            && err.contains("\"levels\" and \"oblivious\""),
        "{err}"
    );
    // A config of [[configs]] may not take an ablation's label.
    let text = text + "\n[[configs]]\nlabel = \"rosa\"\n";
    std::fs::write(&path, text).unwrap();
    let err = Experiment::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("`configs[0].label`") && err.contains("label of a config of the [ablation]"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The five techniques compose (docs/config.md § Techniques together): every config of the
/// ablation resolves, all five together among them.
#[test]
fn every_config_of_the_full_ablation_resolves() {
    let e = load("ablation.toml");
    assert_eq!(e.configs.len(), 12);
    for w in &e.workloads {
        for c in &e.configs {
            c.resolve(w, 1, &experiments())
                .unwrap_or_else(|err| panic!("{}: {err}", c.label));
        }
    }
    experiment::expand(&e, &experiments()).unwrap();
}

/// ablation-subset.toml is ablation.toml without IPU and ROSA: the same device, techniques,
/// `together` entries, workloads, seeds and metrics (of those it has).
#[test]
fn the_subset_is_the_full_ablation_without_ipu_and_rosa() {
    let full = load("ablation.toml");
    let subset = load("ablation-subset.toml");
    let (a, b) = (
        full.ablation.as_ref().unwrap(),
        subset.ablation.as_ref().unwrap(),
    );
    assert_eq!((&a.preset, &a.config_file), (&b.preset, &b.config_file));
    assert_eq!(a.set, b.set);
    let kept: Vec<&str> = b.techniques.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(kept, ["compression", "partial", "melded"]);
    for t in &b.techniques {
        let same = a.techniques.iter().find(|x| x.name == t.name).unwrap();
        assert_eq!(t.set, same.set, "{}", t.name);
    }
    let together: Vec<_> = (a.together.iter())
        .filter(|g| g.techniques.iter().all(|n| kept.contains(&n.as_str())))
        .map(|g| (&g.techniques, &g.set))
        .collect();
    let theirs: Vec<_> = b.together.iter().map(|g| (&g.techniques, &g.set)).collect();
    assert_eq!(together, theirs);
    let workloads = |e: &Experiment| serde_json::to_value(&e.workloads).unwrap();
    assert_eq!(workloads(&full), workloads(&subset));
    assert_eq!(full.seeds, subset.seeds);
    assert_eq!(full.verify, subset.verify);
    assert!(subset.metrics.iter().all(|m| full.metrics.contains(m)));
    // And it runs today.
    experiment::expand(&subset, &experiments()).expect("the subset resolves");
}

/// A finished run with a made-up summary.
fn result(config: &str, workload: &str, seed: u64, summary: serde_json::Value) -> RunResult {
    RunResult {
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

const TWO: &str = r#"
name = "two"
metrics = ["lat", "count"]
absolute_metrics = ["count"]
baseline = "none"
[ablation]
[[ablation.techniques]]
name = "a"
set = { seed = 1 }
[[ablation.techniques]]
name = "b"
set = { "host.queue_depth" = 4 }
[[ablation.techniques]]
name = "c"
set = { "host.time_scale" = 2.0 }
[[workloads]]
label = "w1"
workload = "spread-kv"
[[workloads]]
label = "w2"
workload = "spread-kv"
"#;

#[test]
fn the_report_gives_each_technique_alone_left_out_and_their_interaction() {
    let e: Experiment = toml::from_str::<Experiment>(TWO)
        .unwrap()
        .prepare()
        .unwrap();
    assert_eq!(
        names(&e),
        ["none", "a", "b", "c", "b+c", "a+c", "a+b", "a+b+c"]
    );
    let s = |lat: f64, count: Option<f64>| match count {
        Some(c) => json!({"lat": lat, "count": c}),
        None => json!({"lat": lat}),
    };
    // On w1: none 100; a alone 80, b alone 90, c alone 100; without a (b+c) 90, without b
    // (a+c) 80, without c (a+b) 50; all 50. `count` is a counter only a has (absent elsewhere:
    // 0), 10 alone and 30 in the set. Two seeds of the full set: their mean.
    let mut r = vec![
        result("none", "w1", 1, s(100.0, None)),
        result("a", "w1", 1, s(80.0, Some(10.0))),
        result("b", "w1", 1, s(90.0, None)),
        result("c", "w1", 1, s(100.0, None)),
        result("b+c", "w1", 1, s(90.0, None)),
        result("a+c", "w1", 1, s(80.0, Some(10.0))),
        result("a+b", "w1", 1, s(50.0, Some(30.0))),
        result("a+b+c", "w1", 1, s(40.0, Some(30.0))),
        result("a+b+c", "w1", 2, s(60.0, Some(30.0))),
    ];
    // On w2 everything is 100 except a alone (50): a does nothing in the set.
    for c in names(&e) {
        let lat = if c == "a" { 50.0 } else { 100.0 };
        r.push(result(&c, "w2", 1, s(lat, Some(0.0))));
    }
    let close = |x: Option<f64>, y: f64| (x.unwrap() - y).abs() < 1e-12;
    let a = e.ablation.as_ref().unwrap();
    let fx = |i: usize, w: &str, m: &str| ablation_effect(&e, &r, a, i, w, m);
    // a: alone 80/100; left out (b+c)/all = 90/50; in the set 50/90 against 0.8 alone.
    let x = fx(0, "w1", "lat");
    assert!(close(x.alone, 0.8) && close(x.left_out, 1.8), "{x:?}");
    assert!(close(x.interaction, (50.0 / 90.0) / 0.8), "{x:?}");
    assert_eq!(in_set(false, &x), Some(InSet::Stronger));
    // b: alone 0.9, in the set 50/80 = 0.625: stronger too.
    assert_eq!(in_set(false, &fx(1, "w1", "lat")), Some(InSet::Stronger));
    // c: nothing alone (1.0), in the set 50/50 = 1: the same.
    let x = fx(2, "w1", "lat");
    assert!(close(x.alone, 1.0) && close(x.left_out, 1.0) && close(x.interaction, 1.0));
    assert_eq!(in_set(false, &x), Some(InSet::Same));
    // On w2, a halves the metric alone and does nothing in the set: weaker.
    let x = fx(0, "w2", "lat");
    assert!(close(x.alone, 0.5) && close(x.left_out, 1.0) && close(x.interaction, 2.0));
    assert_eq!(in_set(false, &x), Some(InSet::Weaker));
    // The absolute counter: differences, with a missing counter counted 0.
    let x = fx(0, "w1", "count");
    assert!(close(x.alone, 10.0) && close(x.left_out, -30.0) && close(x.interaction, 20.0));
    assert_eq!(in_set(true, &x), Some(InSet::Stronger));
    // Reversed: a technique that lowers a metric alone and raises it in the set.
    let reversed = Effect {
        alone: Some(0.8),
        left_out: Some(0.8),
        interaction: Some(1.25 / 0.8),
    };
    assert_eq!(in_set(false, &reversed), Some(InSet::Reversed));

    let md = experiment::report::markdown(&e, &r, "test");
    let section = &md[md.find("## Ablation").expect("an ablation section")..];
    for row in [
        "| all / none | 0.5× | 1× | 0.75× |",
        "| a | w1 | 0.8× | 1.8× | 0.694 | stronger |",
        "| a | w2 | 0.5× | 1× | 2 | weaker |",
        "| a | **average** | 0.65× | 1.4× | 1.347 | weaker |",
        "| c | w1 | 1× | 1× | 1 | ≈ |",
        "| all − none | 30 | 0 | 15 |",
        "| a | w1 | 10 | -30 | 20 | stronger |",
    ] {
        assert!(section.contains(row), "{row}\n{section}");
    }
    // The techniques are listed with their overrides.
    assert!(
        section.contains("| b | `host.queue_depth = 4` |"),
        "{section}"
    );
}

/// A small ablation of the subset, run with the oracle: every run verified and clean,
/// results.csv naming each config by its techniques, the report's numbers those of
/// results.csv, and the outputs read back with the ablation's configs made once.
#[test]
fn a_small_verified_ablation_runs_and_its_report_agrees_with_results_csv() {
    let dir = scratch("run");
    let text = std::fs::read_to_string(experiments().join("ablation-subset.toml")).unwrap();
    // One workload, fewer requests, one seed; the device file found where it is.
    let device = experiments().join("ablation/device.toml");
    let start = text.find("[[workloads]]").unwrap();
    let text = format!(
        "{}[[workloads]]\nlabel = \"Windows\"\nworkload = \"pr-ssd-windows\"\n\
         generator = {{ requests = 400, working_set_bytes = 422785024 }}\n\
         sweep = [{{ param = \"state\", values = [\"fresh\", \"steady\"], set = [\n\
         {{ \"precondition.fill_fraction\" = 0.0 }},\n\
         {{ \"precondition.fill_fraction\" = 0.9, \"precondition.overwrite_fraction\" = 1.0 }},\n\
         ] }}]\n",
        &text[..start]
    )
    .replace("seeds = [1, 2]", "seeds = [1]")
    .replace(
        "\"ablation/device.toml\"",
        &format!("{:?}", device.display().to_string()),
    );
    let file = dir.join("small.toml");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("out");
    let grid = || {
        let local = &mut experiment::Local { jobs: 2 };
        experiment::run_file(&file, &out, true, local, "test", &mut |_, _| {}).unwrap()
    };
    let (e, results) = grid();
    assert_eq!(results.len(), 8 * 2);
    for r in &results {
        assert_eq!(
            r.summary["integrity"]["enabled"],
            json!(true),
            "{}",
            r.config_name
        );
        assert_eq!(
            r.summary["integrity"]["violations"],
            json!(0),
            "{}",
            r.config_name
        );
        assert!(r.summary["integrity"]["checked_reads"].as_u64().unwrap() > 0);
    }
    // Each technique acted where it is on.
    let cell = |c: &str, w: &str, m: &str| experiment::report::cell(&results, c, w, m);
    let steady = "Windows[state=steady]";
    assert!(cell("compression", steady, "compression.saving").unwrap() > 0.1);
    assert!(cell("melded", steady, "melded_reads.commands").unwrap() > 0.0);
    assert!(
        cell("partial", steady, "bytes.sensed").unwrap()
            < cell("none", steady, "bytes.sensed").unwrap()
    );
    // The steady state started at GC's threshold, the fresh one with nothing to clean.
    let pre = |w: &str| {
        let r = results
            .iter()
            .find(|r| r.config_name == "none" && r.workload_label == w);
        r.unwrap().summary["precondition"]["gc_invocations"]
            .as_u64()
            .unwrap()
    };
    assert!(pre(steady) > 0 && pre("Windows[state=fresh]") == 0);

    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..4], ["config", "workload", "seed", "state"]);
    assert_eq!(header.last(), Some(&"integrity.violations"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let configs: Vec<&str> = rows.iter().step_by(2).map(|r| r[0]).collect();
    assert_eq!(
        configs,
        [
            "none",
            "compression",
            "partial",
            "melded",
            "partial+melded",
            "compression+melded",
            "compression+partial",
            "compression+partial+melded",
        ]
    );
    assert!(rows.iter().all(|r| r.last() == Some(&"0")));
    // The report's `alone` for compression on the steady state is results.csv's ratio.
    let lat = header
        .iter()
        .position(|h| *h == "latency_ns.read.mean")
        .unwrap();
    let value = |c: &str| -> f64 {
        let row = rows.iter().find(|r| r[0] == c && r[1] == steady).unwrap();
        row[lat].parse().unwrap()
    };
    let alone = value("compression") / value("none");
    let left_out = value("partial+melded") / value("compression+partial+melded");
    let interaction = 1.0 / left_out / alone;
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let round = |x: f64| {
        format!("{x:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    };
    let row = format!(
        "| compression | {steady} | {}× | {}× | {} |",
        round(alone),
        round(left_out),
        round(interaction)
    );
    assert!(md.contains(&row), "{row}\n{md}");
    assert!(md.contains("Integrity oracle (`verify = true`): 16 of 16 runs checked"));

    // Read back: the ablation's configs made again, once each.
    let (back, again) = experiment::read_outputs(&out).unwrap();
    assert_eq!(names(&back), names(&e));
    assert_eq!(again.len(), results.len());
    let json = std::fs::read_to_string(out.join("experiment.json")).unwrap();
    assert!(
        json.contains("\"techniques\": [\n        \"compression\""),
        "{json}"
    );
    // A second run reuses every verified run; without `verify` the runs are others.
    let (_, reused) = grid();
    assert!(reused.iter().all(|r| r.cached));
    let unverified = std::fs::read_to_string(&file)
        .unwrap()
        .replace("verify = true", "");
    let plain = Experiment::load(&{
        let p = dir.join("plain.toml");
        std::fs::write(&p, unverified).unwrap();
        p
    })
    .unwrap();
    let keys = |e: &Experiment| -> Vec<String> {
        experiment::expand(e, &dir)
            .unwrap()
            .into_iter()
            .map(|r| r.key)
            .collect()
    };
    let verified: Vec<String> = results.iter().map(|r| r.key.clone()).collect();
    assert!(keys(&plain).iter().all(|k| !verified.contains(k)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn violations_fail_a_verified_experiment_with_the_oracle_exit_code() {
    let clean = result("none", "w", 1, json!({"integrity": {"violations": 0}}));
    let bad = result(
        "a",
        "w",
        2,
        json!({"integrity": {"violations": 2, "messages": ["unit 7 read stale data"]}}),
    );
    let runs = vec![clean, bad];
    experiment::runner::check_integrity(false, &runs).expect("not asked to verify");
    let err = experiment::runner::check_integrity(true, &runs).unwrap_err();
    assert!(err.is_integrity() && !err.is_simulation());
    let text = err.to_string();
    assert!(
        text.contains("violations in 1 runs")
            && text.contains("a × w (seed 2): 2 (unit 7 read stale data)"),
        "{text}"
    );
}

#[test]
fn workload_sweeps_expand_into_labelled_workloads_and_bad_ones_are_refused_by_key() {
    let head = "name = \"e\"\nmetrics = [\"iops\"]\n[[configs]]\nlabel = \"c\"\n";
    let prepared = |workloads: &str| {
        toml::from_str::<Experiment>(&format!("{head}{workloads}"))
            .map_err(|e| e.to_string())?
            .prepare()
            .map_err(|e| e.to_string())
    };
    let e = prepared(
        "[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\nparams = { size = 4 }\n\
         set = { \"precondition.pattern\" = \"random\" }\n\
         sweep = [{ param = \"state\", values = [\"fresh\", \"steady\"], set = [\n\
           { \"precondition.fill_fraction\" = 0.0 }, { \"precondition.fill_fraction\" = 0.9 }] },\n\
           { param = \"fill\", key = \"precondition.overwrite_fraction\", values = [0.5, 1] }]\n\
         [[workloads]]\nlabel = \"plain\"\nworkload = \"spread-kv\"\n",
    )
    .unwrap();
    let labels: Vec<&str> = e.workloads.iter().map(|w| w.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "w[fill=0.5,state=fresh]",
            "w[fill=1,state=fresh]",
            "w[fill=0.5,state=steady]",
            "w[fill=1,state=steady]",
            "plain",
        ]
    );
    let w = &e.workloads[2];
    assert_eq!(w.params["size"].as_integer(), Some(4));
    assert_eq!(w.params["state"].as_str(), Some("steady"));
    assert_eq!(w.set["precondition.fill_fraction"].as_float(), Some(0.9));
    assert_eq!(
        w.set["precondition.overwrite_fraction"].as_float(),
        Some(0.5)
    );
    assert_eq!(w.set["precondition.pattern"].as_str(), Some("random"));
    assert!(e.workloads.iter().all(|w| w.sweep.is_empty()));
    assert_eq!(e.param_columns(), ["fill", "size", "state"]);
    // Prepared again (as read back from experiment.json), nothing changes.
    let again = e.clone().prepare().unwrap();
    assert_eq!(again.workloads.len(), 5);
    let refused = [
        (
            "sweep = [{ param = \"s\", key = \"precondition.pattern\", values = [\"random\"] }]\n\
             set = { \"precondition.pattern\" = \"sequential\" }\n",
            "workloads[0].sweep[0].key",
            "also set by this workload's `set`",
        ),
        (
            "params = { s = 1 }\nsweep = [{ param = \"s\", key = \"seed\", values = [1] }]\n",
            "workloads[0].sweep[0].param",
            "already a parameter of this workload",
        ),
        (
            "sweep = [{ param = \"seed\", key = \"seed\", values = [1] }]\n",
            "workloads[0].sweep[0].param",
            "already a column",
        ),
        (
            "sweep = [{ param = \"s\", values = [1, 2], set = [{ seed = 1 }] }]\n",
            "workloads[0].sweep[0].set",
            "one table of overrides per value",
        ),
    ];
    for (extra, key, why) in refused {
        let err = prepared(&format!(
            "[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n{extra}"
        ))
        .expect_err(extra);
        assert!(
            err.contains(&format!("`{key}`")) && err.contains(why),
            "{extra}: {err}"
        );
    }
    // A swept label that another workload already has.
    let err = prepared(
        "[[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n\
         sweep = [{ param = \"s\", key = \"seed\", values = [1] }]\n\
         [[workloads]]\nlabel = \"w[s=1]\"\nworkload = \"spread-kv\"\n",
    )
    .unwrap_err();
    assert!(
        err.contains("`workloads[1].label`") && err.contains("used twice"),
        "{err}"
    );
}
