//! DiskSim ASCII traces (CMU DiskSim 4.0, `iotrace_ascii_get_ioreq_event` in
//! `src/disksim_iotrace.c`, which reads each line with
//! `sscanf("%lf %d %ld %d %x")`):
//!
//! ```text
//! time_ms devno blkno bcount flags
//! 11.413000 0 657728 16 1
//! ```
//!
//! - `time_ms`: arrival time in milliseconds (DiskSim's clock unit), a plain
//!   decimal number; converted exactly to ns (no binary rounding) and rebased
//!   by the loader. Exponent notation is rejected.
//! - `devno`: device number; a non-negative integer, not interpreted.
//! - `blkno`, `bcount`: start and length in 512-byte blocks; `bcount` must be
//!   positive.
//! - `flags`: a hexadecimal flags word (DiskSim's `%x`, optional `0x`); bit 0
//!   is DiskSim's `READ` flag: set = read, clear = write. The other bits
//!   (synchronous, time-critical, ...) are accepted and not interpreted.
//!
//! Fields are separated by any run of spaces or tabs; blank lines and `#`
//! lines carry no request (DiskSim itself stops at them).

use super::columns::{Clock, Columns, TypeCode};
use super::{FieldError, LineParser, RawRequest};

/// Field names in column order, as used in error messages.
pub const FIELDS: [&str; 5] = ["time_ms", "devno", "blkno", "bcount", "flags"];

/// Bytes per DiskSim block.
pub const BLOCK_BYTES: u64 = 512;

/// Nanoseconds per millisecond, DiskSim's time unit.
pub const NS_PER_MS: u64 = 1_000_000;

const COLUMNS: Columns = Columns {
    fields: FIELDS,
    clock: Clock::Decimal(NS_PER_MS),
    address_unit: BLOCK_BYTES,
    size_unit: BLOCK_BYTES,
    type_code: TypeCode::HexFlagsBit0Read,
    max_field: u64::MAX,
};

/// Parser for [`super::TraceFormat::Disksim`].
#[derive(Clone, Copy, Debug, Default)]
pub struct DisksimParser;

impl LineParser for DisksimParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        COLUMNS.parse(line)
    }

    fn offset_field(&self) -> &'static str {
        "blkno"
    }

    fn size_field(&self) -> &'static str {
        "bcount"
    }
}
