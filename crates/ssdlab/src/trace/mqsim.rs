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
//! Fields are separated by any run of spaces or tabs (see [`super::columns`]).
//! Blank lines and lines starting with `#` carry no request. Unlike MQSim (which stops reading at
//! the first line without 5 fields) a malformed line is an error, and a
//! fractional time (e.g. `0.000`, FlashSim/Heimdall style) is rejected rather
//! than truncated.

use super::columns::{Clock, Columns, TypeCode};
use super::{FieldError, LineParser, RawRequest};

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

const COLUMNS: Columns = Columns {
    fields: FIELDS,
    clock: Clock::IntegerNs,
    address_unit: SECTOR_BYTES,
    size_unit: SECTOR_BYTES,
    type_code: TypeCode::ZeroWriteOneRead,
    max_field: u64::MAX,
};

/// Parser for [`super::TraceFormat::Mqsim`].
#[derive(Clone, Copy, Debug, Default)]
pub struct MqsimParser;

impl LineParser for MqsimParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        COLUMNS.parse(line)
    }

    fn offset_field(&self) -> &'static str {
        "start_sector"
    }

    fn size_field(&self) -> &'static str {
        "size_sectors"
    }
}
