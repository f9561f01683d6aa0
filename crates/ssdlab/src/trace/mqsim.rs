//! MQSim ASCII traces (CMU-SAFARI/MQSim, `src/host/ASCII_Trace_Definition.h`
//! and `IO_Flow_Trace_Based.cpp`), the DiskSim-style layout:
//!
//! ```text
//! arrival_ns device start_sector size_sectors type
//! 11413000 0 657728 16 1
//! ```
//!
//! - `arrival_ns`: arrival time, integer nanoseconds (MQSim's default
//!   `Time_Unit` NANOSECOND, used by the traces it ships). Rebased by the
//!   loader.
//! - `device`: device/ASU number; must be a non-negative integer but is not
//!   interpreted (MQSim ignores it too).
//! - `start_sector`, `size_sectors`: 512-byte sectors. The size must be positive.
//! - `type`: `0` = write, `1` = read (MQSim's `ASCIITraceWriteCode`/`ReadCode`).
//!   Other values are rejected (MQSim would silently treat them as reads).
//!
//! Fields are separated by any run of spaces or tabs. Blank lines and lines
//! starting with `#` carry no request. Unlike MQSim (which stops reading at
//! the first line without 5 fields) a malformed line is an error, and a
//! fractional time (e.g. `0.000`, FlashSim/Heimdall style) is rejected rather
//! than truncated.

use super::{parse_u64, quote_field, scale_u64, zero_size, FieldError, LineParser, Op, RawRequest};

/// Field names in column order, as used in error messages.
pub const FIELDS: [&str; 5] = [
    "arrival_ns",
    "device",
    "start_sector",
    "size_sectors",
    "type",
];

/// Bytes per sector in MQSim traces.
pub const SECTOR_BYTES: u64 = 512;

/// Parser for [`super::TraceFormat::Mqsim`].
#[derive(Clone, Copy, Debug, Default)]
pub struct MqsimParser;

impl LineParser for MqsimParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        let mut f = [""; FIELDS.len()];
        let mut n = 0usize;
        for part in line.split_ascii_whitespace() {
            if n == 0 && part.starts_with('#') {
                return Ok(None);
            }
            match f.get_mut(n) {
                Some(slot) => *slot = part,
                None => {
                    let total = line.split_ascii_whitespace().count();
                    return Err(FieldError::new(
                        FIELDS[FIELDS.len() - 1],
                        format!(
                            "unexpected data after this field: line has {total} \
                             whitespace-separated fields, expected {}",
                            FIELDS.len()
                        ),
                    ));
                }
            }
            n += 1;
        }
        if n == 0 {
            return Ok(None);
        }
        if let Some(&missing) = FIELDS.get(n) {
            return Err(FieldError::new(
                missing,
                format!(
                    "missing: line has {n} whitespace-separated fields, expected {}",
                    FIELDS.len()
                ),
            ));
        }

        let ts_ns = parse_u64("arrival_ns", f[0])?;
        parse_u64("device", f[1])?;
        let start = parse_u64("start_sector", f[2])?;
        let offset_bytes = scale_u64("start_sector", f[2], start, SECTOR_BYTES)?;
        let sectors = parse_u64("size_sectors", f[3])?;
        if sectors == 0 {
            return Err(zero_size("size_sectors", f[3]));
        }
        let size_bytes = scale_u64("size_sectors", f[3], sectors, SECTOR_BYTES)?;
        let op = match f[4] {
            "0" => Op::Write,
            "1" => Op::Read,
            other => {
                return Err(FieldError::new(
                    "type",
                    format!("{} is not 0 (write) or 1 (read)", quote_field(other)),
                ))
            }
        };
        Ok(Some(RawRequest {
            ts_ns,
            offset_bytes,
            size_bytes,
            op,
        }))
    }

    fn offset_field(&self) -> &'static str {
        "start_sector"
    }

    fn size_field(&self) -> &'static str {
        "size_sectors"
    }
}
