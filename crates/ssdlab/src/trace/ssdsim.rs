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

use std::borrow::Cow;

use super::columns::{
    column, fixed_layout_parser, Clock, Columns, Role, Separator, ZERO_WRITE_ONE_READ,
};

/// Bytes per sector in SSDsim traces.
pub const SECTOR_BYTES: u64 = 512;

/// Largest value of a C `int`, the type SSDsim reads the fields into.
pub const MAX_C_INT: u64 = i32::MAX as u64;

/// The five columns, in order.
const COLUMNS: Columns = Columns {
    columns: Cow::Borrowed(&[
        column("time_ns", Role::Time(Clock::IntegerNs)),
        column("device", Role::Number),
        column(
            "lsn",
            Role::Offset {
                unit_bytes: SECTOR_BYTES,
            },
        ),
        column(
            "size",
            Role::Size {
                unit_bytes: SECTOR_BYTES,
            },
        ),
        column("ope", Role::Op(ZERO_WRITE_ONE_READ)),
    ]),
    separator: Separator::Whitespace,
    extra_fields: false,
    max_field: MAX_C_INT,
};

fixed_layout_parser!(
    /// Parser for [`super::TraceFormat::Ssdsim`].
    SsdsimParser,
    COLUMNS
);
