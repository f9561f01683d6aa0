//! MSR Cambridge block traces (SNIA IOTTA), CSV without header:
//!
//! ```text
//! Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//! 128166385295514663,hm,0,Write,9056014336,2048,2833
//! ```
//!
//! - `Timestamp`: Windows FILETIME, 100 ns ticks since 1601-01-01; converted
//!   to ns (`ticks * 100`) and rebased by the loader.
//! - `Type`: `Read` or `Write`, case-insensitive.
//! - `Offset`, `Size`: bytes. `Size` must be positive.
//! - `Hostname`, `DiskNumber`, `ResponseTime` must be present but are not
//!   interpreted (every request goes to the one simulated device);
//!   `DiskNumber` and `ResponseTime` must be non-negative integers, as in
//!   every MSR trace, so that a line with shifted or foreign columns is not
//!   read as a request.
//!
//! Spaces around fields are ignored. Blank lines, lines starting with `#`
//! and a header line (first field `Timestamp`, any case) carry no request.

use super::{
    parse_u64, quote_field, scale_u64, split_fields, zero_size, FieldError, LineParser, Op,
    RawRequest,
};

/// Field names in column order, as used in error messages.
pub const FIELDS: [&str; 7] = [
    "Timestamp",
    "Hostname",
    "DiskNumber",
    "Type",
    "Offset",
    "Size",
    "ResponseTime",
];

/// Nanoseconds per FILETIME tick.
pub const NS_PER_TICK: u64 = 100;

/// Parser for [`super::TraceFormat::Msr`].
#[derive(Clone, Copy, Debug, Default)]
pub struct MsrParser;

impl LineParser for MsrParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(None);
        }
        // A header names its first column; it may have any number of columns.
        if line
            .split(',')
            .next()
            .is_some_and(|first| first.trim().eq_ignore_ascii_case("timestamp"))
        {
            return Ok(None);
        }
        let f = split_fields(line.split(',').map(str::trim), &FIELDS, "comma-separated")?;

        let ticks = parse_u64("Timestamp", f[0])?;
        let ts_ns = scale_u64("Timestamp", f[0], ticks, NS_PER_TICK)?;
        parse_u64("DiskNumber", f[2])?;
        let op = if f[3].eq_ignore_ascii_case("read") {
            Op::Read
        } else if f[3].eq_ignore_ascii_case("write") {
            Op::Write
        } else {
            return Err(FieldError::new(
                "Type",
                format!("{} is not Read or Write", quote_field(f[3])),
            ));
        };
        let offset_bytes = parse_u64("Offset", f[4])?;
        let size_bytes = parse_u64("Size", f[5])?;
        if size_bytes == 0 {
            return Err(zero_size("Size", f[5]));
        }
        parse_u64("ResponseTime", f[6])?;
        Ok(Some(RawRequest {
            ts_ns,
            offset_bytes,
            size_bytes,
            op,
            stream: 0,
        }))
    }

    fn offset_field(&self) -> &'static str {
        "Offset"
    }

    fn size_field(&self) -> &'static str {
        "Size"
    }
}
