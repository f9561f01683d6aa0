//! The config-loading property, checked on one fuzz input.
//!
//! The input is a preset, a `--config` file and `--set` overrides, given to [`Config::resolve`],
//! the path every command that takes `--preset`/`--config`/`--set` goes through (parse, merge
//! over the preset, override, deserialise, validate). Then:
//!
//! - resolving never panics (overflow checks are on) and ends (libFuzzer's `-timeout`);
//! - an error names what is wrong: a config key, the override, or (TOML syntax and schema
//!   errors) a position or a key in backquotes;
//! - a resolved config survives the trip through `config.toml` that `ssdlab run --out` writes:
//!   it serialises, and the text loads back to the same config.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ssdlab::config::preset_names;
use ssdlab::{Config, Error};

/// The `--config` file, one per process (parallel fuzzing jobs must not share it), in
/// `$TMPDIR`.
fn config_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("ssdlab-fuzz-config-{}.toml", std::process::id()))
    })
}

/// Check the property on one input; a violation panics, which libFuzzer reports as a crash.
///
/// Input: the first byte picks the preset (its low 7 bits, modulo the number of presets) and
/// whether there is a `--config` file (bit 7 clear). The rest is split at NUL bytes: the file's
/// bytes first (when there is a file), then one `--set` override per part.
pub fn check(data: &[u8]) {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let presets = preset_names();
    let preset = presets[usize::from(control & 0x7f) % presets.len()];
    let mut parts = rest.split(|&b| b == 0);
    let file = if control & 0x80 == 0 {
        parts.next()
    } else {
        None
    };
    // Arguments reach clap as UTF-8 or are refused there.
    let sets: Vec<String> = parts
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    if let Some(bytes) = file {
        std::fs::write(config_path(), bytes).expect("write the fuzzed config file");
    }
    let path = file.map(|_| config_path());
    match Config::resolve(preset, path, &sets) {
        Ok(config) => check_round_trip(&config),
        Err(e) => check_error(&e, file, &sets),
    }
}

/// `ssdlab run --out` writes the resolved config as `config.toml`; it must load back unchanged.
fn check_round_trip(config: &Config) {
    let text = toml::to_string(config)
        .unwrap_or_else(|e| panic!("a resolved config does not serialise: {e}"));
    let again = Config::from_toml_str(&text, "config.toml")
        .unwrap_or_else(|e| panic!("a resolved config does not load back: {e}\n{text}"));
    assert_eq!(
        config.to_json(),
        again.to_json(),
        "the config changed on its way through config.toml:\n{text}"
    );
}

fn check_error(e: &Error, file: Option<&[u8]>, sets: &[String]) {
    let message = e.to_string();
    match e {
        Error::Config { key, .. } => assert!(
            !key.is_empty() && !key.contains(char::is_whitespace),
            "not a key: {message}"
        ),
        Error::Toml { origin, message: m } => {
            assert!(!origin.is_empty(), "no origin: {message}");
            assert!(
                m.contains(" line ") || m.contains('`'),
                "names neither a position nor a key: {message}"
            );
        }
        Error::Override { set, .. } => {
            assert!(sets.contains(set), "names no override given: {message}")
        }
        // An error about a key the config file sets: that file, a line in it, and the error.
        Error::InFile { path, line, source } => {
            assert!(
                path == config_path() && file.is_some() && *line > 0,
                "names no line of the config file: {message}"
            );
            check_error(source, file, sets)
        }
        // Names the workload asked for, quoted (even when empty), and the known ones.
        Error::UnknownWorkload { .. } => {}
        Error::Io { path, .. } => assert!(
            path == config_path() && file.is_some_and(|f| std::str::from_utf8(f).is_err()),
            "I/O error on a readable UTF-8 file: {message}"
        ),
        _ => panic!("unexpected kind of error: {message}"),
    }
}
