//! Running one draw through the library, as `ssdlab run --preset P --set … --verify` does, and
//! judging it: refused naming a key (exit 2), or run to the end twice with identical summaries
//! and every check of `checks.rs` holding.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde_json::Value;

use ssdlab::config::{Config, UnmappedRead};
use ssdlab::error::Error;
use ssdlab::run::{load_flows, simulate_with};
use ssdlab::sim::RunOptions;

use super::checks::{check, Failure};
use super::draw::Draw;
use super::facts::Facts;
use super::flows::{materialise, Device};

pub enum Outcome {
    /// Refused as a config error (the CLI's exit 2), naming this key, for this reason.
    Refused(String, String),
    /// Stopped at a read of a unit never written, as `ftl.unmapped_read = "error"` asks.
    Stopped,
    /// Ran to the end; every check holds. The resolved config.
    Passed(toml::Value),
    Failed(Vec<Failure>),
}

impl Outcome {
    /// One line: what became of the run.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Refused(key, reason) => format!("refused, `{key}`: {reason}"),
            Outcome::Stopped => "stopped (ftl.unmapped_read = \"error\")".to_string(),
            Outcome::Passed(_) => "passed".to_string(),
            Outcome::Failed(f) => {
                let checks: Vec<String> = f
                    .iter()
                    .map(|f| format!("[{}] {}", f.check, f.detail))
                    .collect();
                format!("failed: {}", checks.join("; "))
            }
        }
    }
}

pub struct Judged {
    pub outcome: Outcome,
    /// The command that reproduces the run, and its overrides.
    pub command: String,
    pub sets: Vec<String>,
    /// The harness's trace files, kept when the run failed (they are in the command).
    pub files: Vec<PathBuf>,
    /// The checks the run considered, and those it armed (`checks.rs`).
    pub considered: Vec<&'static str>,
    pub armed: Vec<&'static str>,
}

impl Judged {
    /// A run of `preset` with `sets`, not judged yet.
    pub fn new(preset: &str, sets: &[String]) -> Judged {
        Judged {
            outcome: Outcome::Stopped,
            command: command(preset, sets),
            sets: sets.to_vec(),
            files: Vec::new(),
            considered: Vec::new(),
            armed: Vec::new(),
        }
    }
}

/// The `ssdlab run` command of `preset` with `sets`.
pub fn command(preset: &str, sets: &[String]) -> String {
    let mut c = format!("ssdlab run --preset {preset}");
    for s in sets {
        c.push_str(&format!(" --set '{s}'"));
    }
    c + " --verify --json"
}

/// A failure of one kind.
fn failed(check: &'static str, detail: impl Into<String>) -> Outcome {
    Outcome::Failed(vec![Failure {
        check,
        detail: detail.into(),
    }])
}

/// How an error ends a run: a refusal naming a key, or a failure with the CLI's exit code. A
/// TOML schema error is a refusal only of the key the draw made `invalid` on purpose, named in
/// it; elsewhere it would be the harness's own slip.
fn judge_error(e: &Error, config: Option<&Config>, invalid: Option<&str>) -> Outcome {
    let field = invalid.and_then(|k| k.rsplit('.').next());
    match e {
        Error::Config { key, reason } if !key.is_empty() => {
            Outcome::Refused(key.clone(), reason.clone())
        }
        Error::Toml { message, .. }
            if field.is_some_and(|f| message.contains(&format!("`{f}`"))) =>
        {
            Outcome::Refused(invalid.unwrap_or_default().to_string(), message.clone())
        }
        Error::Simulation(m)
            if m.contains("ftl.unmapped_read = \"error\"")
                && config.is_some_and(|c| c.ftl.unmapped_read == UnmappedRead::Error) =>
        {
            Outcome::Stopped
        }
        e => failed(
            if e.is_simulation() {
                "exit 1"
            } else {
                "exit 2 without a config key"
            },
            e.to_string(),
        ),
    }
}

thread_local! {
    /// The last panic on this thread: its message and where it happened.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Panics are failures the report gives with their place: record them instead of printing a
/// backtrace per run.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".to_string());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        // (One line: an assertion's message spans several.)
        let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{place}")));
    }));
}

/// The last panic's message and place.
fn panic_message() -> String {
    LAST_PANIC
        .with(|p| p.borrow_mut().take())
        .unwrap_or_else(|| "a panic".to_string())
}

/// Run `draw`, writing its traces into `dir`.
pub fn judge(draw: &Draw, dir: &Path) -> Judged {
    let mut judged = Judged::new(draw.preset, &draw.sets);
    // The device alone first: the flows are sized to its logical capacity.
    let device = match Config::resolve(draw.preset, None, &draw.sets) {
        Ok(c) => c,
        Err(e) => {
            judged.outcome = judge_error(&e, None, draw.invalid.as_deref());
            return judged;
        }
    };
    let (flows, committed, files) = materialise(
        &draw.flows,
        &Device {
            capacity_bytes: ssdlab::run::logical_capacity_bytes(&device),
            unit_bytes: device.ftl.mapping_unit_kib as u64 * 1024,
            page_bytes: device.geometry.page_size_kib as u64 * 1024,
        },
        draw.seed,
        dir,
    );
    judged.files = files;
    let mut sets = draw.sets.clone();
    // Committed excerpts address far more than a small device holds.
    if committed {
        sets.push("host.out_of_range=\"wrap\"".to_string());
    }
    sets.push(flows);
    judged.command = command(draw.preset, &sets);
    // (A run that hangs shows what it is running.)
    if std::env::var_os("SSDLAB_COMBOS_VERBOSE").is_some() {
        eprintln!("seed {}: running\n  {}", draw.seed, judged.command);
    }
    judged.outcome = run(draw.preset, &sets, draw.invalid.as_deref(), &mut judged);
    judged.sets = sets;
    judged
}

/// Run `preset` with `sets` (`invalid`: a key set on purpose that must be refused), a panic
/// being a failure; the checks considered and armed go into `judged`.
pub fn run(preset: &str, sets: &[String], invalid: Option<&str>, judged: &mut Judged) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| {
        run_twice(preset, sets, invalid, judged)
    })) {
        Ok(Outcome::Passed(_) | Outcome::Stopped) if invalid.is_some() => failed(
            "an invalid key is refused",
            format!(
                "`{}` holds what no config accepts, and the run was accepted",
                invalid.unwrap_or_default()
            ),
        ),
        Ok(outcome) => outcome,
        Err(_) => failed("panic", panic_message()),
    }
}

/// Resolve, read the workload's facts, run twice, check. The first run saves its preconditioned
/// device in a snapshot and the second loads it (docs/snapshots.md), so that "identical when
/// repeated" holds a loaded device to the preconditioned one, for every accepted combination.
/// Then the snapshot is damaged, and a third run must refuse it as damaged.
fn run_twice(preset: &str, sets: &[String], invalid: Option<&str>, judged: &mut Judged) -> Outcome {
    let config = match Config::resolve(preset, None, sets) {
        Ok(c) => c,
        Err(e) => return judge_error(&e, None, invalid),
    };
    let mut loaded = config.clone();
    let facts = match load_flows(&mut loaded) {
        Ok(mut flows) => Facts::of(&loaded, &mut flows),
        Err(e) => return judge_error(&e, Some(&config), invalid),
    };
    let snapshots = tempfile::tempdir().expect("a scratch folder");
    let options = RunOptions {
        verify: true,
        request_log: false,
        snapshot: Some(snapshots.path().to_path_buf()),
    };
    let once = || {
        simulate_with(&mut config.clone(), &options, &mut |_, _, _| {}).map(|r| {
            let mut s = r.summary;
            if let Value::Object(m) = &mut s {
                m.remove("wall_time_s");
            }
            s
        })
    };
    let first = match once() {
        Ok(s) => s,
        Err(e) => return judge_error(&e, Some(&config), invalid),
    };
    let verdict = check(&config, &facts, &first);
    judged.considered = verdict.considered;
    judged.armed = verdict.armed;
    let mut failures = verdict.failures;
    match once() {
        Ok(again) if again == first => {}
        Ok(again) => failures.push(Failure {
            check: "identical when repeated",
            detail: format!(
                "{} (the second run loaded the first's device snapshot, if it saved one)",
                first_difference(&first, &again)
            ),
        }),
        Err(e) => failures.push(Failure {
            check: "identical when repeated",
            detail: format!("the second run failed: {e}"),
        }),
    }
    if let Some(damage) = damage_snapshot(snapshots.path(), sets) {
        match once() {
            Err(Error::DamagedSnapshot { .. }) => {}
            Ok(_) => failures.push(Failure {
                check: "a damaged snapshot is refused",
                detail: format!("{damage}: the run loaded it"),
            }),
            Err(e) => failures.push(Failure {
                check: "a damaged snapshot is refused",
                detail: format!("{damage}: not refused as damaged but {e}"),
            }),
        }
    }
    match failures.is_empty() {
        true => Outcome::Passed(toml::Value::try_from(&config).expect("a config serialises")),
        false => Outcome::Failed(failures),
    }
}

/// Damage the snapshot the run saved in `dir`, if it saved one: 8 bytes flipped at a place
/// drawn from the run's overrides, anywhere in the file (header, state, checksum). Says where.
fn damage_snapshot(dir: &Path, sets: &[String]) -> Option<String> {
    use std::hash::{Hash, Hasher};
    let file = std::fs::read_dir(dir).ok()?.next()?.ok()?.path();
    let mut bytes = std::fs::read(&file).expect("the saved snapshot is readable");
    let mut h = std::collections::hash_map::DefaultHasher::new();
    sets.hash(&mut h);
    let at = (h.finish() % bytes.len() as u64) as usize;
    let end = (at + 8).min(bytes.len());
    for b in &mut bytes[at..end] {
        *b ^= 0xA5;
    }
    std::fs::write(&file, &bytes).expect("the saved snapshot is writable");
    Some(format!("bytes {at}..{end} of {} flipped", bytes.len()))
}

/// The first key whose value differs between two summaries.
fn first_difference(a: &Value, b: &Value) -> String {
    fn walk(a: &Value, b: &Value, path: String) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => x.iter().find_map(|(k, v)| {
                walk(v, y.get(k).unwrap_or(&Value::Null), format!("{path}.{k}"))
            }),
            _ if a != b => Some(format!("{path}: {a} then {b}")),
            _ => None,
        }
    }
    walk(a, b, String::new()).unwrap_or_else(|| "the summaries differ".to_string())
}
