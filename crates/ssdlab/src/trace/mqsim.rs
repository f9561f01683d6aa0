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

use std::borrow::Cow;

use super::columns::{
    column, fixed_layout_parser, Clock, Columns, Role, Separator, ZERO_WRITE_ONE_READ,
};

/// Bytes per sector in MQSim traces.
pub const SECTOR_BYTES: u64 = 512;

/// The five columns, in order.
const COLUMNS: Columns = Columns {
    columns: Cow::Borrowed(&[
        column("arrival_ns", Role::Time(Clock::IntegerNs)),
        column("device", Role::Number),
        column(
            "start_sector",
            Role::Offset {
                unit_bytes: SECTOR_BYTES,
            },
        ),
        column(
            "size_sectors",
            Role::Size {
                unit_bytes: SECTOR_BYTES,
            },
        ),
        column("type", Role::Op(ZERO_WRITE_ONE_READ)),
    ]),
    separator: Separator::Whitespace,
    extra_fields: false,
    max_field: u64::MAX,
};

fixed_layout_parser!(
    /// Parser for [`super::TraceFormat::Mqsim`].
    MqsimParser,
    COLUMNS
);
