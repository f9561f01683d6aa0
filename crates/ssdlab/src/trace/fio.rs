//! fio I/O logs (`write_iolog` / `read_iolog`), versions 2 and 3 (read from
//! fio's `iolog.c`, `read_iolog` and `log_io_u`, and its HOWTO "Trace file
//! format"). The first line names the version:
//!
//! ```text
//! fio version 2 iolog                     fio version 3 iolog
//! /dev/sdb add                            0 /dev/sdb add
//! /dev/sdb open                           0 /dev/sdb open
//! /dev/sdb write 0 4096                   12 /dev/sdb write 0 4096
//! /dev/sdb wait 100                       40 /dev/sdb read 8192 4096
//! /dev/sdb read 8192 4096                 95 /dev/sdb close
//! /dev/sdb close
//! ```
//!
//! - Version 2 lines are `filename action` (file actions `add`, `open`,
//!   `close`) or `filename action offset length` (I/O actions). Version 3
//!   puts a `timestamp` first: microseconds since the start of the run, as
//!   current fio writes it (`utime_since_now` in `log_io_u`; fio 3.31 to 3.35
//!   wrote milliseconds, which this parser would read 1000x too fast).
//! - I/O actions: `read`, `write`, `trim` become requests; `offset` and
//!   `length` are bytes, the length must be positive. `sync` and `datasync`
//!   carry no data and are skipped. Every I/O action's `offset` and `length`
//!   must be numbers, as fio reads them.
//! - Version 2 has no timestamps: a request arrives at the sum of the
//!   `wait` actions before it (their `offset` field is a delay in
//!   microseconds), so a log without waits arrives all at once (replay it in
//!   closed-loop mode). fio ignores `wait` in version 3, and so does this
//!   parser.
//! - `filename` is not interpreted: all files share the simulated device's
//!   address space (as fio's `replay_redirect` sends them to one device).
//!
//! Fields are separated by any run of spaces or tabs. Blank lines carry no
//! request; the header must be the first non-blank line.

use super::{parse_u64, quote_field, zero_size, FieldError, LineParser, Op, RawRequest};

/// The header line of a version 2 log.
pub const HEADER_V2: &str = "fio version 2 iolog";
/// The header line of a version 3 log.
pub const HEADER_V3: &str = "fio version 3 iolog";

/// Nanoseconds per microsecond (v2 waits and v3 timestamps).
const NS_PER_US: u64 = 1_000;

/// Parser for [`super::TraceFormat::Fio`].
#[derive(Clone, Copy, Debug, Default)]
pub struct FioParser {
    /// 2 or 3 once the header is read.
    version: Option<u8>,
    /// Version 2: the sum of the waits so far, in ns.
    clock_ns: u64,
}

/// What one line is, once its fields are split.
enum Line<'a> {
    File {
        action: &'a str,
    },
    Io {
        action: &'a str,
        offset: &'a str,
        length: &'a str,
    },
}

impl FioParser {
    /// The version-specific fields of `f` (the line's whitespace-separated
    /// fields) and the timestamp, in ns, for version 3.
    fn split<'a>(&self, version: u8, f: &[&'a str]) -> Result<(Option<u64>, Line<'a>), FieldError> {
        let (ts, rest) = if version == 3 {
            let (&ts, rest) = f
                .split_first()
                .ok_or_else(|| FieldError::new("timestamp", "missing"))?;
            let us = parse_u64("timestamp", ts)?;
            let ns = us.checked_mul(NS_PER_US).ok_or_else(|| {
                FieldError::new(
                    "timestamp",
                    format!(
                        "{} microseconds overflow a 64-bit ns clock",
                        quote_field(ts)
                    ),
                )
            })?;
            (Some(ns), rest)
        } else {
            (None, f)
        };
        let line = match *rest {
            [_file, action] => Line::File { action },
            [_file, action, offset, length] => Line::Io {
                action,
                offset,
                length,
            },
            [] | [_] => return Err(FieldError::new("action", "missing")),
            _ => {
                return Err(FieldError::new(
                    "length",
                    format!(
                        "unexpected data after this field: fio version {version} lines have \
                         {} or {} fields",
                        2 + usize::from(version == 3),
                        4 + usize::from(version == 3)
                    ),
                ))
            }
        };
        Ok((ts, line))
    }
}

impl LineParser for FioParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return Ok(None);
        }
        let Some(version) = self.version else {
            self.version = match trimmed {
                HEADER_V2 => Some(2),
                HEADER_V3 => Some(3),
                _ => {
                    return Err(FieldError::new(
                        "header",
                        format!(
                            "{} is not `{HEADER_V2}` or `{HEADER_V3}`, which must open a fio log",
                            quote_field(trimmed)
                        ),
                    ))
                }
            };
            return Ok(None);
        };
        let f: Vec<&str> = trimmed.split_ascii_whitespace().collect();
        let (ts, parsed) = self.split(version, &f)?;
        let (action, offset, length) = match parsed {
            Line::File { action } => {
                return match action {
                    "add" | "open" | "close" => Ok(None),
                    other => Err(FieldError::new(
                        "action",
                        format!(
                            "{} is not a file action (add, open, close)",
                            quote_field(other)
                        ),
                    )),
                }
            }
            Line::Io {
                action,
                offset,
                length,
            } => (action, offset, length),
        };
        let op = match action {
            "read" => Some(Op::Read),
            "write" => Some(Op::Write),
            "trim" => Some(Op::Trim),
            "sync" | "datasync" | "wait" => None,
            other => {
                return Err(FieldError::new(
                    "action",
                    format!(
                        "{} is not an I/O action (read, write, trim, sync, datasync, wait)",
                        quote_field(other)
                    ),
                ))
            }
        };
        // fio reads `offset` and `length` as numbers whatever the action (`read_iolog`'s
        // sscanf), so they are checked on the lines that do not use them too.
        let offset_bytes = parse_u64("offset", offset)?;
        let size_bytes = parse_u64("length", length)?;
        let Some(op) = op else {
            if action == "wait" && ts.is_none() {
                // The wait's `offset` is its delay in microseconds.
                self.clock_ns = offset_bytes
                    .checked_mul(NS_PER_US)
                    .and_then(|d| self.clock_ns.checked_add(d))
                    .ok_or_else(|| {
                        FieldError::new("offset", "the sum of the waits overflows 64-bit ns")
                    })?;
            }
            return Ok(None);
        };
        if size_bytes == 0 {
            return Err(zero_size("length", length));
        }
        Ok(Some(RawRequest {
            ts_ns: ts.unwrap_or(self.clock_ns),
            offset_bytes,
            size_bytes,
            op,
            stream: 0,
        }))
    }

    fn size_field(&self) -> &'static str {
        "length"
    }
}
