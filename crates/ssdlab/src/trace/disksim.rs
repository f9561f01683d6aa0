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

use std::borrow::Cow;

use super::columns::{column, fixed_layout_parser, Clock, Columns, OpCoding, Role, Separator};

/// Bytes per DiskSim block.
pub const BLOCK_BYTES: u64 = 512;

/// Nanoseconds per millisecond, DiskSim's time unit.
pub const NS_PER_MS: u64 = 1_000_000;

/// The five columns, in order.
const COLUMNS: Columns = Columns {
    columns: Cow::Borrowed(&[
        column("time_ms", Role::Time(Clock::Decimal(NS_PER_MS))),
        column("devno", Role::Number),
        column(
            "blkno",
            Role::Offset {
                unit_bytes: BLOCK_BYTES,
            },
        ),
        column(
            "bcount",
            Role::Size {
                unit_bytes: BLOCK_BYTES,
            },
        ),
        column("flags", Role::Op(OpCoding::HexFlagsBit0Read)),
    ]),
    separator: Separator::Whitespace,
    extra_fields: false,
    max_field: u64::MAX,
};

fixed_layout_parser!(
    /// Parser for [`super::TraceFormat::Disksim`].
    DisksimParser,
    COLUMNS
);
