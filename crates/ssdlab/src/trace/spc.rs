//! UMass Trace Repository / Storage Performance Council traces (Financial1-2,
//! WebSearch1-3), CSV without header:
//!
//! ```text
//! ASU,LBA,Size,Opcode,Timestamp
//! 0,657728,8192,R,0.011413
//! ```
//!
//! Field meanings are the SPC trace format specification's (as distributed
//! with the UMass traces):
//! - `ASU`: application specific unit, a non-negative integer below 2^32.
//!   Each ASU is its own address space.
//! - `LBA`: start address in 512-byte sectors, relative to the ASU.
//! - `Size`: request length in bytes; must be positive.
//! - `Opcode`: `r`/`R` read, `w`/`W` write.
//! - `Timestamp`: seconds since the start of the trace, a plain decimal
//!   number; converted exactly to ns and rebased by the loader.
//!
//! ASU layout: ASUs are placed at disjoint ranges of the simulated device.
//! After the whole file is read, the span `S` is the largest request end
//! (LBA x 512 + Size) over all ASUs, rounded up to a multiple of
//! [`ASU_ALIGN_BYTES`] (1 MiB, which keeps every request's alignment up to
//! 1 MiB); ASU `k` then starts at byte `k x S`. A trace with only ASU 0 keeps
//! its addresses. (MQSim's conversions instead keep the LBAs and drop the
//! ASU, which makes different ASUs' requests overlap.)
//!
//! A layout that would pass 2^64 bytes is refused at the first line after
//! which the requests read so far no longer fit: the line that raised the
//! highest ASU (field `ASU`) or the span (field `LBA`), not a line of the
//! highest ASU that merely lies where the layout overflows.
//!
//! Spaces around fields are ignored. Blank lines, `#` lines and a header
//! line (first field `ASU`, any case) carry no request.

use super::{
    parse_decimal_ns, parse_u64, parse_u64_max, quote_field, scale_u64, split_fields, zero_size,
    FieldError, LineParser, Op, RawRequest, TraceRequest,
};

/// Field names in column order, as used in error messages.
pub const FIELDS: [&str; 5] = ["ASU", "LBA", "Size", "Opcode", "Timestamp"];

/// Bytes per sector of the `LBA` field.
pub const SECTOR_BYTES: u64 = 512;

/// Each ASU's span is the largest request end rounded up to this.
pub const ASU_ALIGN_BYTES: u64 = 1 << 20;

/// Parser for [`super::TraceFormat::Spc`]. It remembers each request's ASU
/// to lay the ASUs out once the whole file is read.
#[derive(Clone, Debug, Default)]
pub struct SpcParser {
    /// ASU of every request returned so far (file order); empty while all
    /// requests are on ASU 0.
    asus: Vec<u32>,
    /// Requests returned so far.
    requests: usize,
    /// Largest request end seen, in bytes relative to its ASU.
    max_end: u64,
    /// Highest ASU seen, and the largest request end on it: the layout's last byte is
    /// `top_asu x S + top_asu_end`, as every lower ASU ends by `(k + 1) x S <= top_asu x S`.
    top_asu: u32,
    top_asu_end: u64,
}

impl LineParser for SpcParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(None);
        }
        if line
            .split(',')
            .next()
            .is_some_and(|first| first.trim().eq_ignore_ascii_case("asu"))
        {
            return Ok(None);
        }
        let f = split_fields(line.split(',').map(str::trim), &FIELDS, "comma-separated")?;
        let asu = parse_u64_max("ASU", f[0], u64::from(u32::MAX))?;
        let lba = parse_u64("LBA", f[1])?;
        let offset_bytes = scale_u64("LBA", f[1], lba, SECTOR_BYTES)?;
        let size_bytes = parse_u64("Size", f[2])?;
        if size_bytes == 0 {
            return Err(zero_size("Size", f[2]));
        }
        let op = match f[3] {
            "r" | "R" => Op::Read,
            "w" | "W" => Op::Write,
            other => {
                return Err(FieldError::new(
                    "Opcode",
                    format!("{} is not r or w (either case)", quote_field(other)),
                ))
            }
        };
        let ts_ns = parse_decimal_ns("Timestamp", f[4], 1_000_000_000)?;
        let end = offset_bytes.checked_add(size_bytes).ok_or_else(|| {
            FieldError::new(
                "Size",
                format!("request at byte {offset_bytes} of {size_bytes} bytes ends past 2^64"),
            )
        })?;
        // u64::from(u32::MAX) bounded `asu` above.
        let asu = u32::try_from(asu).unwrap_or(u32::MAX);
        self.check_layout(asu, end)?;
        if asu != 0 && self.asus.is_empty() {
            self.asus = vec![0; self.requests];
        }
        if asu != 0 || !self.asus.is_empty() {
            self.asus.push(asu);
        }
        self.requests += 1;
        Ok(Some(RawRequest {
            ts_ns,
            offset_bytes,
            size_bytes,
            op,
            stream: 0,
        }))
    }

    fn offset_field(&self) -> &'static str {
        "LBA"
    }

    fn size_field(&self) -> &'static str {
        "Size"
    }

    fn offsets_final(&self) -> bool {
        false
    }

    fn finish_offsets(&mut self, requests: &mut [TraceRequest]) -> Result<(), (usize, FieldError)> {
        // `parse_line` refused every request the layout could not hold, so this error would
        // only name a request if that check and this arithmetic ever disagreed.
        let span = self.asu_span_bytes();
        for (i, (r, &asu)) in requests.iter_mut().zip(&self.asus).enumerate() {
            let moved = u64::from(asu)
                .checked_mul(span)
                .and_then(|base| base.checked_add(r.offset_bytes))
                .filter(|start| start.checked_add(r.size_bytes).is_some());
            match moved {
                Some(start) => r.offset_bytes = start,
                None => {
                    return Err((
                        i,
                        FieldError::new(
                            "ASU",
                            format!(
                                "ASU {asu} starts at {asu} x {span} bytes (the per-ASU span), \
                                 which puts this request past 2^64 bytes"
                            ),
                        ),
                    ))
                }
            }
        }
        Ok(())
    }
}

impl SpcParser {
    /// The per-ASU span `S` of the requests read so far (see the module doc).
    pub fn asu_span_bytes(&self) -> u64 {
        span_of(self.max_end)
    }

    /// Take in a request on `asu` ending at byte `end` of it, or refuse it if the ASUs can no
    /// longer be laid out below 2^64 bytes. The layout only grows, so the first request refused
    /// is the one that holds the value at fault: a new highest ASU that starts past 2^64 with
    /// the span as it was (field `ASU`), or an end that widens the span (field `LBA`).
    fn check_layout(&mut self, asu: u32, end: u64) -> Result<(), FieldError> {
        let (top_asu, top_asu_end) = match asu.cmp(&self.top_asu) {
            std::cmp::Ordering::Greater => (asu, end),
            std::cmp::Ordering::Equal => (asu, self.top_asu_end.max(end)),
            std::cmp::Ordering::Less => (self.top_asu, self.top_asu_end),
        };
        let max_end = self.max_end.max(end);
        let last_byte = |span: u64| {
            u64::from(top_asu)
                .checked_mul(span)
                .and_then(|start| start.checked_add(top_asu_end))
        };
        if last_byte(span_of(max_end)).is_none() {
            let span = self.asu_span_bytes();
            return Err(if asu > self.top_asu && last_byte(span).is_none() {
                FieldError::new(
                    "ASU",
                    format!(
                        "ASU {asu} would start at byte {asu} x {span} (the per-ASU span: the \
                         largest request end so far, rounded up to 1 MiB), which puts this \
                         request past 2^64 bytes"
                    ),
                )
            } else {
                FieldError::new(
                    "LBA",
                    format!(
                        "this request ends at byte {end} of ASU {asu}; with the per-ASU span \
                         of {} bytes (the largest request end so far, rounded up to 1 MiB), \
                         ASU {top_asu} (the highest so far) would end past 2^64 bytes",
                        span_of(max_end)
                    ),
                )
            });
        }
        (self.top_asu, self.top_asu_end, self.max_end) = (top_asu, top_asu_end, max_end);
        Ok(())
    }
}

/// The per-ASU span of requests whose largest end is `max_end`: rounded up to 1 MiB.
fn span_of(max_end: u64) -> u64 {
    max_end
        .div_ceil(ASU_ALIGN_BYTES)
        .saturating_mul(ASU_ALIGN_BYTES)
}
