//! Why a trace could not be loaded: every error names the file, and a bad line's also names the
//! 1-based line number and the field.

use std::path::{Path, PathBuf};

/// Why a trace could not be loaded. Every variant names the file; parse
/// errors also name the 1-based line number and the field.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened or read (including corrupt gzip data).
    #[error("{}: cannot read trace: {source}", path.display())]
    Io {
        /// The trace file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A field of a line is malformed, or the request lies past the capacity.
    #[error("{}:{line}: field `{field}`: {reason}", path.display())]
    Field {
        /// The trace file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// The field's name as the format documents it.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A line is not valid UTF-8.
    #[error("{}:{line}: line is not valid UTF-8 text", path.display())]
    Encoding {
        /// The trace file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
    },
    /// [`LoadOptions::capacity_bytes`] was 0.
    #[error("{}: logical capacity is 0 bytes; it must be positive", path.display())]
    ZeroCapacity {
        /// The trace file.
        path: PathBuf,
    },
    /// Format `columns` was asked for without a description of the columns.
    #[error(
        "{}: format `columns` needs a description of the file's columns: give one with {option}",
        path.display()
    )]
    Undescribed {
        /// The trace file.
        path: PathBuf,
        /// How the caller gives the description ([`super::Caller::columns_option`]).
        option: &'static str,
    },
    /// No format was given and the first lines do not tell it (see [`detect`]).
    #[error("{}: cannot tell the trace format: {reason}", path.display())]
    Detect {
        /// The trace file.
        path: PathBuf,
        /// Which formats accepted the first lines, or why each refused them.
        reason: String,
    },
}

impl TraceError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TraceError::Io { path, .. }
            | TraceError::Field { path, .. }
            | TraceError::Encoding { path, .. }
            | TraceError::ZeroCapacity { path }
            | TraceError::Undescribed { path, .. }
            | TraceError::Detect { path, .. } => path,
        }
    }

    /// The 1-based line number, if the error is about one line.
    pub fn line(&self) -> Option<u64> {
        match self {
            TraceError::Field { line, .. } | TraceError::Encoding { line, .. } => Some(*line),
            TraceError::Io { .. }
            | TraceError::ZeroCapacity { .. }
            | TraceError::Undescribed { .. }
            | TraceError::Detect { .. } => None,
        }
    }

    /// The field name, for [`TraceError::Field`].
    pub fn field(&self) -> Option<&'static str> {
        match self {
            TraceError::Field { field, .. } => Some(field),
            _ => None,
        }
    }
}
