//! One error type for the library. Every variant says where the problem is (file, line, field,
//! config key) and why; the CLI maps them to exit codes.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::Once;

use crate::trace::columns::SpecError;
use crate::trace::convert::ConvertError;
use crate::trace::TraceError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A value or combination of values the simulator cannot run.
    #[error("config key `{key}`: {reason}")]
    Config { key: String, reason: String },
    /// TOML syntax or schema error (unknown key, wrong type); toml's message carries line/column.
    #[error("{origin}: {message}")]
    Toml { origin: String, message: String },
    /// An override (`--set` on the command line, `set=` from Python, a `set` table in an
    /// experiment) that cannot be applied.
    #[error("override `{set}`: {reason}")]
    Override { set: String, reason: String },
    /// A description of a `columns` trace that does not hold; `option` is how the caller gave
    /// it (`--columns`, `format={...}`, `flows[0].columns`).
    #[error("{option}: {source}")]
    Columns {
        option: String,
        #[source]
        source: SpecError,
    },
    /// A flow with no request to replay: the run would measure nothing.
    #[error("{flow}: nothing to replay: {reason}")]
    NothingToReplay { flow: String, reason: String },
    #[error("unknown preset `{name}` (known: {known})")]
    UnknownPreset { name: String, known: String },
    #[error("unknown workload `{name}` (known: {known})")]
    UnknownWorkload { name: String, known: String },
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(transparent)]
    Convert(#[from] ConvertError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The simulation reached a state it cannot leave (e.g. the data no longer fits).
    #[error("simulation stopped: {0}")]
    Simulation(String),
    /// An error about a key a config file sets: the file and the line.
    #[error("{}:{line}: {source}", path.display())]
    InFile {
        path: PathBuf,
        line: usize,
        source: Box<Error>,
    },
    /// A device snapshot that cannot be loaded for this run (`sim/snapshot.rs`), and why.
    #[error("{}: device snapshot refused: {reason}", path.display())]
    Snapshot { path: PathBuf, reason: String },
    /// A device snapshot whose contents are not what was saved, or that does not fit the device
    /// (`sim/snapshot.rs`): never loaded. A grid's run that meets one runs again, rebuilding it.
    #[error("{}: device snapshot damaged: {reason}", path.display())]
    DamagedSnapshot { path: PathBuf, reason: String },
    /// A run that failed where a remote executor (Ray) ran it, in that executor's words: the
    /// engine's error on the worker, with the exit code it stands for there
    /// ([`Error::exit_code`]), or why the worker was lost (exit code 1: the run was started).
    #[error("{message}")]
    Remote { message: String, exit_code: i32 },
    /// One run of an experiment grid failed: which, and why.
    #[error("run {run}: {source}")]
    InRun { run: String, source: Box<Error> },
    /// The engine panicked: a defect of ssdlab's, whatever the input, turned into an error by
    /// [`catch_panic`] so that it reaches the caller (Python, a grid's other runs) as one.
    #[error("internal error (a defect of ssdlab; please report it with the command): {message} at {location}")]
    Panic { message: String, location: String },
    /// The integrity oracle found violations in runs of an experiment with `verify = true`
    /// (exit code 3, as `ssdlab run --verify`).
    #[error("the integrity oracle found violations in {runs} runs (outputs written):\n  {detail}")]
    Integrity { runs: usize, detail: String },
}

impl Error {
    /// Whether the simulation itself could not go on (exit code 1), rather than the input
    /// being bad (exit code 2).
    pub fn is_simulation(&self) -> bool {
        match self {
            Error::Simulation(_) | Error::Panic { .. } | Error::Remote { exit_code: 1, .. } => true,
            Error::InRun { source, .. } | Error::InFile { source, .. } => source.is_simulation(),
            _ => false,
        }
    }

    /// Whether the integrity oracle found violations (exit code 3).
    pub fn is_integrity(&self) -> bool {
        matches!(self, Error::Integrity { .. })
    }

    /// The command line's exit code for this error: 1 the simulation could not go on, 3 the
    /// integrity oracle found violations, 2 the input is bad.
    pub fn exit_code(&self) -> i32 {
        if self.is_simulation() {
            1
        } else if self.is_integrity() {
            3
        } else {
            2
        }
    }

    pub fn config(key: &str, reason: impl Into<String>) -> Error {
        Error::Config {
            key: key.to_string(),
            reason: reason.into(),
        }
    }
    /// A TOML error. One inside a tagged table (`config/tagged.rs`) was read apart and ends with
    /// the keys inside the table (`in `width``) before those of the table (`in `ftl.split``):
    /// they are joined into one key, outermost first (`in `ftl.split.width``).
    pub fn toml(origin: &str, e: toml::de::Error) -> Error {
        let text = e.to_string();
        let mut keys = Vec::new();
        let mut lines = Vec::new();
        for line in text.lines() {
            match line.strip_prefix("in `").and_then(|l| l.strip_suffix('`')) {
                Some(key) => keys.push(key),
                None if line.is_empty() => {}
                None => lines.push(line),
            }
        }
        keys.reverse();
        let mut message = lines.join("\n");
        if !keys.is_empty() {
            message.push_str(&format!("\nin `{}`", keys.join(".")));
        }
        Error::Toml {
            origin: origin.to_string(),
            message,
        }
    }
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

thread_local! {
    /// Calls of [`catch_panic`] running on this thread: while there is one, a panic is reported
    /// as its error, not printed.
    static CATCHING: Cell<u32> = const { Cell::new(0) };
    /// The last panic's message and location on this thread, kept by the panic hook.
    static CAUGHT: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Run `f`, turning a panic inside it into [`Error::Panic`] with the panic's message and
/// location: no panic crosses into Python (where it would be a `BaseException` that
/// `except Exception` does not catch) or ends a grid's other runs. Once called, a panic hook
/// keeps the location of panics caught here and leaves the others to the hook before it.
pub fn catch_panic<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| match CATCHING.get() {
            0 => previous(info),
            _ => {
                let location = info.location().map_or("an unknown place".into(), |l| {
                    format!("{}:{}:{}", l.file(), l.line(), l.column())
                });
                let message = panic_message(info.payload());
                CAUGHT.set(Some((message, location)));
            }
        }));
    });
    CATCHING.set(CATCHING.get() + 1);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CATCHING.set(CATCHING.get() - 1);
    result.unwrap_or_else(|payload| {
        let (message, location) = CAUGHT
            .take()
            .unwrap_or_else(|| (panic_message(&*payload), "an unknown place".into()));
        Err(Error::Panic { message, location })
    })
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    match (
        payload.downcast_ref::<&str>(),
        payload.downcast_ref::<String>(),
    ) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "a panic with no message".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_with_its_message_and_location() {
        let e = catch_panic(|| -> Result<(), Error> { panic!("boom {}", 7) }).unwrap_err();
        let Error::Panic { message, location } = &e else {
            panic!("not a panic error: {e}")
        };
        assert_eq!(message, "boom 7");
        assert!(
            location.starts_with("crates/ssdlab/src/error.rs:"),
            "{location}"
        );
        assert_eq!(e.exit_code(), 1);
        assert!(e.to_string().starts_with("internal error"), "{e}");
        // On another thread too, and what does not panic passes through.
        let e = std::thread::spawn(|| catch_panic(|| -> Result<(), Error> { panic!("there") }))
            .join()
            .expect("caught, not unwound into the thread");
        assert!(e.unwrap_err().to_string().contains("there"));
        assert_eq!(catch_panic(|| Ok(3)).unwrap(), 3);
    }
}
