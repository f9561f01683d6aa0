//! The option-space harness (docs/fuzzing.md, "The option-space harness"): random configurations
//! drawn from every decision the config offers, on small devices of random geometry, over the
//! committed trace excerpts, the harness's own traces and generators, fresh and GC-active. Each
//! run must be refused naming a key, or finish with no integrity violation, identical summaries
//! when repeated, and every technique that is on acting where the workload gives it work.
//!
//! ```sh
//! cargo test -p ssdlab --test option_space                          # the CI sample
//! SSDLAB_COMBOS=20000 cargo test --release -p ssdlab --test option_space -- --nocapture
//! SSDLAB_COMBO=1234 cargo test -p ssdlab --test option_space -- --nocapture   # one seed
//! SSDLAB_COMBO=1234 cargo test --release -p ssdlab --test option_space -- --ignored --nocapture
//! ```
//!
//! The last gives each failure of the seed with its fewest overrides (`minimise.rs`);
//! `SSDLAB_MINIMISE="ssdlab run …"` instead of `SSDLAB_COMBO` does so for a printed command.
//!
//! `SSDLAB_COMBOS_FROM=N` starts at seed N; `SSDLAB_COMBOS_VERBOSE=1` prints every seed's
//! command as it starts (to stderr: a run that hangs shows itself) and its outcome.

#[path = "../common/mod.rs"]
mod common;

mod checks;
mod coverage;
mod draw;
mod facts;
mod flows;
mod minimise;
mod outcome;
mod report;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use draw::draw;
use outcome::judge;
use report::Report;

/// Draws the CI sample runs: 90 s of CPU in the test profile on a quiet machine, shared out over
/// its cores.
const CI_SAMPLE: u64 = 2500;

/// Draws the coverage tests look at (no run: a draw is cheap).
const COVERAGE_DRAWS: u64 = 3000;

/// A number from the environment.
fn env(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v}: expected a number")),
    )
}

/// Where the harness writes its traces (kept for the runs that failed).
fn scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("option_space")
}

/// The seeds to run: `SSDLAB_COMBO` alone, or `SSDLAB_COMBOS` (default the CI sample) from
/// `SSDLAB_COMBOS_FROM` (default 0).
fn seeds() -> std::ops::Range<u64> {
    if let Some(seed) = env("SSDLAB_COMBO") {
        return seed..seed + 1;
    }
    let from = env("SSDLAB_COMBOS_FROM").unwrap_or(0);
    from..from + env("SSDLAB_COMBOS").unwrap_or(CI_SAMPLE)
}

#[test]
fn every_drawn_configuration_is_refused_or_runs_correctly() {
    let seeds = seeds();
    let dir = scratch();
    outcome::quiet_panics();
    // A run that never ends would hang the test silently: say which seed it is. (Each worker
    // says which seed it starts, and that it is done with it.)
    let (started, watched) = mpsc::channel::<(u64, bool)>();
    std::thread::spawn(move || {
        let mut running: Vec<(u64, Instant)> = Vec::new();
        loop {
            match watched.recv_timeout(Duration::from_secs(10)) {
                Ok((seed, true)) => running.push((seed, Instant::now())),
                Ok((seed, false)) => running.retain(|r| r.0 != seed),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
            for (seed, since) in &mut running {
                if since.elapsed() > Duration::from_secs(120) {
                    eprintln!("option space: seed {seed} has run for over 2 minutes");
                    *since = Instant::now();
                }
            }
        }
    });
    // The seeds run on every core, each worker taking the next; the report takes them in seed
    // order, so that it reads the same however they were shared out.
    let verbose = std::env::var_os("SSDLAB_COMBOS_VERBOSE").is_some();
    let clock = Instant::now();
    let next = AtomicU64::new(seeds.start);
    let judged = Mutex::new(BTreeMap::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            let started = started.clone();
            s.spawn(|| {
                let started = started;
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= seeds.end {
                        return;
                    }
                    let _ = started.send((seed, true));
                    let d = draw(seed);
                    let t = Instant::now();
                    let j = judge(&d, &dir);
                    let took = t.elapsed();
                    let _ = started.send((seed, false));
                    judged.lock().unwrap().insert(seed, (d, j, took));
                }
            });
        }
    });
    drop(started);
    let mut report = Report::new(seeds.clone());
    for (seed, (d, j, took)) in judged.into_inner().unwrap() {
        if verbose {
            println!("seed {seed}: {}\n  {}", j.outcome.describe(), j.command);
        }
        report.add(&d, j, took);
    }
    report.print(clock.elapsed());
    // In a sample of the CI's size or more, every check a config considered was armed by some
    // run: none of them is idle.
    if seeds.end - seeds.start >= CI_SAMPLE {
        let idle = report.never_armed();
        assert!(idle.is_empty(), "checks never armed: {idle:?}");
    }
    assert!(
        report.failure_classes() == 0,
        "{} failure classes in seeds {seeds:?} (the report above gives each one's command)",
        report.failure_classes()
    );
}

/// Every value of every enum key of the config (every policy, mode, order, switch) is drawn in
/// `COVERAGE_DRAWS` draws, each codec kind too: a variant added to the config must be added to
/// the draws.
#[test]
fn every_value_of_every_config_enum_is_drawn() {
    let draws: Vec<draw::Draw> = (0..COVERAGE_DRAWS).map(draw).collect();
    let tables: Vec<toml::Table> = draws.iter().map(coverage::merged).collect();
    let keys = coverage::enum_keys(&tables);
    for key in [
        "ftl.read_policy.policy",
        "ftl.partial_program.policy",
        "geometry.regions[].cell_mode",
        "scheduler.multiplane",
    ] {
        assert!(keys.contains_key(key), "{key} not found among {keys:?}");
    }
    let seen = coverage::values(&tables);
    let mut missing = Vec::new();
    for (key, variants) in &keys {
        for v in variants {
            if !seen.get(key).is_some_and(|s| s.contains(v)) {
                missing.push(format!("{key} = {v}"));
            }
        }
    }
    let codecs: std::collections::BTreeSet<String> = draw::CODECS
        .iter()
        .map(|c| coverage::codec_kind(c))
        .collect();
    for kind in coverage::codec_kinds() {
        if !codecs.contains(&kind) {
            missing.push(format!("ftl.reduction.codec of kind {kind}"));
        }
    }
    assert!(
        missing.is_empty(),
        "never drawn in {COVERAGE_DRAWS} draws (draw.rs): {missing:#?}"
    );
}

/// Every key of every preset and of its resolved config is drawn with at least two values, or
/// held at the preset's with a reason (`coverage::HELD`), or is a workload's; and so is every
/// key of `coverage::ALSO_DRAWN`.
#[test]
fn every_config_key_is_drawn_or_held() {
    let draws: Vec<draw::Draw> = (0..COVERAGE_DRAWS).map(draw).collect();
    let drawn = coverage::overridden(&draws);
    let mut missing = BTreeSetOf::new();
    for t in coverage::preset_tables() {
        let mut l = Vec::new();
        coverage::leaves(&toml::Value::Table(t), "", &mut l);
        for (key, _) in l {
            let held = coverage::HELD.iter().any(|(k, _)| key.starts_with(k))
                || key.starts_with(coverage::WORKLOAD);
            // (An empty array of tables, such as no regions, is drawn by drawing its tables.)
            let tables = format!("{key}[]");
            let drawn_tables = drawn.keys().any(|k| k.starts_with(&tables));
            if !held && !drawn_tables && drawn.get(&key).is_none_or(|v| v.len() < 2) {
                missing.insert(key);
            }
        }
    }
    for key in coverage::ALSO_DRAWN {
        if drawn.get(key).is_none_or(|v| v.len() < 2) {
            missing.insert(key.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "keys neither drawn with two values or more in {COVERAGE_DRAWS} draws (draw.rs) nor \
         held with a reason (coverage::HELD): {missing:#?}"
    );
}

type BTreeSetOf = std::collections::BTreeSet<String>;

/// The failures of seed `SSDLAB_COMBO`, or of the command in `SSDLAB_MINIMISE` (as the report
/// prints it), each with the fewest overrides that still fail alike.
#[test]
#[ignore = "a tool: give SSDLAB_COMBO or SSDLAB_MINIMISE"]
fn minimise_the_failures_of_a_seed() {
    outcome::quiet_panics();
    let (preset, sets, invalid, judged) = match env("SSDLAB_COMBO") {
        Some(seed) => {
            let d = draw(seed);
            let judged = judge(&d, &scratch());
            (d.preset.to_string(), judged.sets.clone(), d.invalid, judged)
        }
        None => {
            let text = std::env::var("SSDLAB_MINIMISE").expect("SSDLAB_COMBO or SSDLAB_MINIMISE");
            let (preset, sets) = minimise::parse_command(&text);
            let mut judged = outcome::Judged::new(&preset, &sets);
            judged.outcome = outcome::run(&preset, &sets, None, &mut judged);
            (preset, sets, None, judged)
        }
    };
    println!("{}\n  {}", judged.outcome.describe(), judged.command);
    if let outcome::Outcome::Failed(failures) = &judged.outcome {
        for f in failures {
            let class = report::class_of(&f.detail);
            let shortest = minimise::minimise(&preset, &sets, invalid.as_deref(), f.check, &class);
            println!("[{}] {}\n  {shortest}", f.check, f.detail);
        }
    }
}

#[test]
fn a_draw_follows_from_its_seed() {
    for seed in [0, 1, 99, u64::MAX] {
        let (a, b) = (draw(seed), draw(seed));
        assert_eq!(
            (a.preset, &a.sets, &a.invalid),
            (b.preset, &b.sets, &b.invalid)
        );
        assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    }
}
