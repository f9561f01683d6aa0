//! blkparse text output (Linux `blktrace`, the default `blkparse -i dev`
//! format, documented in blkparse(1) "Default output"):
//!
//! ```text
//! maj,min cpu sequence time pid action rwbs [sector + blocks [process]]
//!   8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]
//! ```
//!
//! - `time`: seconds since the start of tracing, a decimal with ns digits;
//!   converted exactly to ns and rebased by the loader.
//! - `action`: the event; one event type marks a request's arrival, chosen
//!   by [`BlkparseEvent`]: `Q` (queued: what the application issued, before
//!   merging), `D` (dispatched to the device driver: after the I/O scheduler
//!   merged and reordered) or `C` (completed). Without a choice, the first of
//!   Q, D, C that the file holds (with data) is used: every Q, D and C event is
//!   read, and once the file is read the others are dropped. Lines with any
//!   other action (G, I, M, F, A, P, U, m, ...) are skipped.
//! - `rwbs`: the request's operation and flags, read by [`rwbs_op`] in the
//!   alphabet blkparse writes them in (`fill_rwbs` in blktrace's
//!   `blkparse_fmt.c`, and the kernel's `blk_fill_rwbs`): an optional `F`
//!   (preflush), the operation, then the flags `F` (FUA), `A` (readahead),
//!   `B` (barrier, kernels before 2.6.36), `S` (sync), `M` (metadata), each
//!   at most once and in that order. Operations: `R` read, `W` write, `D`
//!   discard and `DE` secure erase (trims), `WZ` write zeroes (a write), `N`
//!   none, a lone `F` a flush; blktrace 2's zone commands `ZO`, `ZC`, `ZF`
//!   (open, close, finish: no data) and `ZA`, `ZR`, `ZRA` (append, reset, reset
//!   all: refused, as ssdlab models no zones). Events without data (`N`,
//!   flushes, zone open/close/finish) are skipped, and so are events without
//!   `sector + blocks` or with 0 blocks, and packet commands (`36 (12 00 ..)`).
//!   Any other letter, or a letter out of place, is an error.
//! - `sector`, `blocks`: start and length in 512-byte sectors; what follows
//!   must be blkparse's `(elapsed)`, `|alignment|` or `[process]`.
//! - `maj,min`, `cpu`, `sequence`, `pid` must be well-formed numbers but
//!   are not interpreted: every request goes to the one simulated device.
//!
//! The per-CPU and total summary blkparse prints at the end (from the first
//! line starting `CPU<n> (` or `Total (`) is skipped to the end of the file,
//! as are blank lines. Any other line that is not an event is an error.

use super::{
    parse_decimal_ns, parse_u64, quote_field, scale_u64, FieldError, LineParser, Op, RawRequest,
};

/// Which blkparse event marks a request's arrival.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum BlkparseEvent {
    /// `Q`: the request as the application queued it (before merging).
    Q,
    /// `D`: the request as dispatched to the driver (after merging).
    D,
    /// `C`: the request as the device completed it (its time is the completion's).
    C,
}

impl BlkparseEvent {
    /// Every event, in the order one is picked when none is given.
    pub const ALL: [BlkparseEvent; 3] = [BlkparseEvent::Q, BlkparseEvent::D, BlkparseEvent::C];

    /// The action letter blkparse prints for this event.
    pub fn action(self) -> &'static str {
        match self {
            BlkparseEvent::Q => "Q",
            BlkparseEvent::D => "D",
            BlkparseEvent::C => "C",
        }
    }

    /// The event's value as options take it (`q`, `d`, `c`).
    pub fn name(self) -> &'static str {
        match self {
            BlkparseEvent::Q => "q",
            BlkparseEvent::D => "d",
            BlkparseEvent::C => "c",
        }
    }

    fn of_action(action: &str) -> Option<BlkparseEvent> {
        BlkparseEvent::ALL
            .into_iter()
            .find(|e| e.action() == action)
    }
}

/// Bytes per sector in blkparse output.
pub const SECTOR_BYTES: u64 = 512;

/// Parser for [`super::TraceFormat::Blkparse`].
#[derive(Clone, Debug, Default)]
pub struct BlkparseParser {
    /// The event read; `None` until chosen when none was given.
    event: Option<BlkparseEvent>,
    /// Without a given event: the event of each request returned so far, in order.
    read: Vec<BlkparseEvent>,
    /// Whether the event was given (else it is chosen after the last line).
    given: bool,
    /// Set once the trailing summary starts; every later line is skipped.
    in_summary: bool,
}

impl BlkparseParser {
    /// A parser taking `event` lines as requests; `None` takes the first of Q, D, C present.
    pub fn new(event: Option<BlkparseEvent>) -> BlkparseParser {
        BlkparseParser {
            event,
            read: Vec::new(),
            given: event.is_some(),
            in_summary: false,
        }
    }
}

/// Whether `line` opens blkparse's trailing summary (`CPU3 (8,16):`, `Total (8,16):`).
fn opens_summary(line: &str) -> bool {
    if line.starts_with("Total (") {
        return true;
    }
    line.strip_prefix("CPU").is_some_and(|rest| {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && rest.get(digits..).is_some_and(|r| r.starts_with(" ("))
    })
}

/// What an RWBS operation means for the replay.
enum RwbsOp {
    /// A request of this operation.
    Data(Op),
    /// No data to replay: `N`, a flush, a zone's open, close or finish.
    NoData,
    /// A zoned device's command that cannot be replayed on a conventional one: why.
    Zoned(&'static str),
}

/// The operations of an RWBS string, as `blk_fill_rwbs` and blkparse's `fill_rwbs` spell them;
/// longer spellings first, so that `ZRA` is not read as `ZR` then the flag `A`.
const RWBS_OPS: [(&str, RwbsOp); 12] = [
    ("DE", RwbsOp::Data(Op::Trim)), // secure erase: the data is gone, as after a discard
    ("D", RwbsOp::Data(Op::Trim)),
    ("WZ", RwbsOp::Data(Op::Write)), // write zeroes (older blkparse prints it as `W`)
    ("W", RwbsOp::Data(Op::Write)),
    ("R", RwbsOp::Data(Op::Read)),
    ("N", RwbsOp::NoData),
    (
        "ZA",
        RwbsOp::Zoned("a zone append, whose sector is its zone's start, not where the data lands"),
    ),
    (
        "ZRA",
        RwbsOp::Zoned("a reset of every zone, which discards data the trace does not locate"),
    ),
    (
        "ZR",
        RwbsOp::Zoned("a zone reset, which discards a zone whose length the event does not give"),
    ),
    ("ZO", RwbsOp::NoData),
    ("ZC", RwbsOp::NoData),
    ("ZF", RwbsOp::NoData),
];

/// The flags after the operation, in the order blkparse writes them: FUA, readahead, barrier
/// (kernels before 2.6.36), sync, metadata. None changes what the request does to the data.
const RWBS_FLAGS: [&str; 5] = ["F", "A", "B", "S", "M"];

/// The operation an RWBS string names, `None` for an event without data. Strict: a letter not
/// in blkparse's alphabet or out of its place is an error, so that a malformed or shifted line
/// is never read as a request it is not (`RX` as a read, `X` as nothing).
fn rwbs_op(rwbs: &str) -> Result<Option<Op>, FieldError> {
    let mut rest = rwbs;
    let preflush = eat(&mut rest, "F");
    let op = RWBS_OPS
        .iter()
        .find(|(spelling, _)| eat(&mut rest, spelling));
    for flag in RWBS_FLAGS {
        eat(&mut rest, flag);
    }
    let bad = |why: String| FieldError::new("rwbs", format!("{}: {why}", quote_field(rwbs)));
    if let Some(c) = rest.chars().next() {
        return Err(bad(format!(
            "`{c}` is not an RWBS letter in its place: blkparse writes an optional `F` \
             (preflush), the operation (`R`, `W`, `D`, `N`, `DE`, `WZ`, or a zone command \
             `ZA`, `ZR`, `ZRA`, `ZO`, `ZC`, `ZF`), then the flags `F`, `A`, `B`, `S`, `M` in \
             that order"
        )));
    }
    match op {
        Some((_, RwbsOp::Data(op))) => Ok(Some(*op)),
        Some((_, RwbsOp::NoData)) => Ok(None),
        Some((spelling, RwbsOp::Zoned(what))) => Err(bad(format!(
            "`{spelling}` is {what}; ssdlab replays conventional block devices, not zoned ones"
        ))),
        // A lone `F` (with flags) is the kernel's flush operation.
        None if preflush => Ok(None),
        None => Err(bad(
            "no operation: blkparse writes one of `R`, `W`, `D`, `N` (or `F` for a flush) \
             before the flags"
                .to_string(),
        )),
    }
}

/// Remove `prefix` from the start of `rest`, saying whether it was there.
fn eat(rest: &mut &str, prefix: &str) -> bool {
    match rest.strip_prefix(prefix) {
        Some(after) => {
            *rest = after;
            true
        }
        None => false,
    }
}

/// Field names of an event line's fixed prefix, in order.
const PREFIX: [&str; 6] = ["device", "cpu", "sequence", "time", "pid", "action"];

impl LineParser for BlkparseParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        if self.in_summary {
            return Ok(None);
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return Ok(None);
        }
        if opens_summary(trimmed) {
            self.in_summary = true;
            return Ok(None);
        }
        let mut tok = trimmed.split_ascii_whitespace();
        let mut next = |field: &'static str| {
            tok.next()
                .ok_or_else(|| FieldError::new(field, "missing: the line ends before this field"))
        };
        let device = next(PREFIX[0])?;
        let well_formed_device = device.split_once(',').is_some_and(|(maj, min)| {
            parse_u64("device", maj).is_ok() && parse_u64("device", min).is_ok()
        });
        if !well_formed_device {
            return Err(FieldError::new(
                "device",
                format!(
                    "{} is not `major,minor`: not a blkparse event line \
                     (`maj,min cpu sequence time pid action ...`)",
                    quote_field(device)
                ),
            ));
        }
        parse_u64("cpu", next(PREFIX[1])?)?;
        parse_u64("sequence", next(PREFIX[2])?)?;
        let time = next(PREFIX[3])?;
        let ts_ns = parse_decimal_ns("time", time, 1_000_000_000)?;
        parse_u64("pid", next(PREFIX[4])?)?;
        let action = next(PREFIX[5])?;
        let Some(event) = BlkparseEvent::of_action(action) else {
            return Ok(None);
        };
        if self.given && self.event != Some(event) {
            return Ok(None);
        }
        let Some(op) = rwbs_op(next("rwbs")?)? else {
            return Ok(None); // no data: N, a flush, a zone's state change
        };
        let sector = match tok.next() {
            None => return Ok(None), // e.g. `Q FWS [proc]`: a flush, no data
            // `[proc]`, or a data-less event's `(elapsed)`.
            Some(t) if t.starts_with('[') || t.starts_with('(') => return Ok(None),
            Some(t) => t,
        };
        let start = parse_u64("sector", sector)?;
        match tok.next() {
            Some("+") => {}
            // `C WS 1950885322 [0]`: a data-less request's completion (a flush);
            // `D R 36 (12 00 ..) [smartctl]`: a packet command, its byte count and CDB.
            Some(t) if t.starts_with('[') || t.starts_with('(') => return Ok(None),
            other => {
                return Err(FieldError::new(
                    "blocks",
                    format!(
                        "expected `+ blocks` after the sector, found {}",
                        other.map_or("the end of the line".to_string(), quote_field)
                    ),
                ))
            }
        }
        let blocks_text = tok.next().unwrap_or("");
        let blocks = parse_u64("blocks", blocks_text)?;
        // blkparse ends a request with `(elapsed)`, `|alignment|` or `[process]` (or `[error]`);
        // anything else means the line is not what it looks like.
        if let Some(t) = tok.next() {
            if !t.starts_with(['(', '|', '[']) {
                return Err(FieldError::new(
                    "process",
                    format!(
                        "{} after `sector + blocks`: blkparse writes `[process]` there \
                         (or `(elapsed)`, `|alignment|` before it)",
                        quote_field(t)
                    ),
                ));
            }
        }
        if blocks == 0 {
            return Ok(None); // a data-less flush
        }
        let request = RawRequest {
            ts_ns,
            offset_bytes: scale_u64("sector", sector, start, SECTOR_BYTES)?,
            size_bytes: scale_u64("blocks", blocks_text, blocks, SECTOR_BYTES)?,
            op,
            stream: 0,
        };
        if !self.given {
            self.read.push(event);
        }
        Ok(Some(request))
    }

    fn keep(&mut self) -> Option<Vec<bool>> {
        if self.given {
            return None;
        }
        let chosen = BlkparseEvent::ALL
            .into_iter()
            .find(|e| self.read.contains(e))?;
        self.event = Some(chosen);
        Some(self.read.iter().map(|e| *e == chosen).collect())
    }

    fn blkparse_event(&self) -> Option<BlkparseEvent> {
        self.event
    }

    fn offset_field(&self) -> &'static str {
        "sector"
    }

    fn size_field(&self) -> &'static str {
        "blocks"
    }
}
