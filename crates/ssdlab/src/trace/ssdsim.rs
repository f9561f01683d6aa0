//! SSDsim traces (Hu et al.; read from `huaicheng/ssdsim`, `readme.txt` and
//! `get_requests` in `ssd.c`):
//!
//! ```text
//! time_ns device lsn size ope
//! 11413000 0 657728 16 1
//! ```
//!
//! - `time_ns`: arrival time, integer nanoseconds (SSDsim's readme: "the unit
//!   of the request arriving time is nanosecond"). Rebased by the loader.
//! - `device`: logical device number; must be a non-negative integer but is
//!   not interpreted (SSDsim ignores it too).
//! - `lsn`: logical sector number, 512-byte sectors.
//! - `size`: request size in 512-byte sectors; must be positive (some SSDsim
//!   versions silently turn 0 into 1; ssdlab rejects it).
//! - `ope`: `1` = read, `0` = write. Other values are rejected.
//!
//! The units are MQSim's; what differs is the field width: SSDsim reads
//! `device`, `lsn` and `size` into C `int`s with `sscanf("%lld %d %d %d %d")`,
//! so a value above 2^31 - 1 cannot come from a trace SSDsim could replay and
//! is rejected here rather than silently wrapped. Fields are separated by any
//! run of spaces or tabs; blank lines and `#` lines carry no request.

use super::columns::{Clock, Columns, TypeCode};
use super::{FieldError, LineParser, RawRequest};

/// Field names in column order, as used in error messages.
pub const FIELDS: [&str; 5] = ["time_ns", "device", "lsn", "size", "ope"];

/// Bytes per sector in SSDsim traces.
pub const SECTOR_BYTES: u64 = 512;

/// Largest value of a C `int`, the type SSDsim reads the fields into.
pub const MAX_C_INT: u64 = i32::MAX as u64;

const COLUMNS: Columns = Columns {
    fields: FIELDS,
    clock: Clock::IntegerNs,
    address_unit: SECTOR_BYTES,
    size_unit: SECTOR_BYTES,
    type_code: TypeCode::ZeroWriteOneRead,
    max_field: MAX_C_INT,
};

/// Parser for [`super::TraceFormat::Ssdsim`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SsdsimParser;

impl LineParser for SsdsimParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        COLUMNS.parse(line)
    }

    fn offset_field(&self) -> &'static str {
        "lsn"
    }
}
