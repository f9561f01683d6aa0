//! FlashSim traces (Kim, Tauras, Gupta, Urgaonkar; read from FlashSim's
//! `run_trace.cpp`, which reads `sscanf("%lf %u %lu %u %u")` into
//! `arrive_time, diskno, vaddr, size, op`, and from the UMass WebSearch1
//! conversion shipped with `RVerschoren/flashsim-dchoices`):
//!
//! ```text
//! arrive_time diskno vaddr size op
//! 11.413000 0 657728 2 1        (the shipped file separates fields by tabs)
//! ```
//!
//! - `arrive_time`: arrival time in milliseconds, a plain decimal number.
//!   FlashSim's clock has no fixed unit (it is the unit of the delays in
//!   `ssd.conf`); the traces prepared for it are in ms (WebSearch1's first
//!   record, SPC timestamp 0.011413 s, is `11.413000`). Converted exactly
//!   to ns and rebased by the loader.
//! - `diskno`: a non-negative integer, not interpreted.
//! - `vaddr`: start address in 512-byte sectors, as the UMass conversions
//!   write it (the SPC LBA unchanged). FlashSim itself treats it as an opaque
//!   logical address (`run_trace` folds it modulo 65536).
//! - `size`: length in 4 KiB pages, FlashSim's `event_arrive` unit (the
//!   conversions round the SPC byte size up to whole pages); must be positive.
//! - `op`: `0` = write, `1` = read (`run_trace.cpp`); other values are
//!   rejected (FlashSim prints "Bad operation in trace" and skips them).
//!
//! Fields are separated by any run of spaces or tabs; blank lines and `#`
//! lines carry no request.

use std::borrow::Cow;

use super::columns::{
    column, fixed_layout_parser, Clock, Columns, Role, Separator, ZERO_WRITE_ONE_READ,
};

/// Bytes per unit of `vaddr`.
pub const SECTOR_BYTES: u64 = 512;

/// Bytes per unit of `size` (one FlashSim page).
pub const PAGE_BYTES: u64 = 4096;

/// The five columns, in order.
const COLUMNS: Columns = Columns {
    columns: Cow::Borrowed(&[
        column("arrive_time", Role::Time(Clock::Decimal(1_000_000))),
        column("diskno", Role::Number),
        column(
            "vaddr",
            Role::Offset {
                unit_bytes: SECTOR_BYTES,
            },
        ),
        column(
            "size",
            Role::Size {
                unit_bytes: PAGE_BYTES,
            },
        ),
        column("op", Role::Op(ZERO_WRITE_ONE_READ)),
    ]),
    separator: Separator::Whitespace,
    extra_fields: false,
    max_field: u64::MAX,
};

fixed_layout_parser!(
    /// Parser for [`super::TraceFormat::Flashsim`].
    FlashsimParser,
    COLUMNS
);
