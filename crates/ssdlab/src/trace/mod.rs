//! Block I/O trace loading.
//!
//! A trace file is read line by line; a [`LineParser`] turns each line into a
//! [`RawRequest`] (the format's own absolute timestamp, in ns), and
//! [`load_trace`] then checks every address against the logical capacity
//! (when one is given), sorts the requests by arrival if the file is not
//! time-ordered and rebases the times so that the first request arrives at 0.
//!
//! Supported formats ([`TraceFormat`], one module each; units and sources in
//! `docs/traces.md`): MSR Cambridge CSV ([`msr`]), UMass/SPC ([`spc`]),
//! DiskSim ASCII ([`disksim`]), MQSim ASCII ([`mqsim`]), SSDsim ([`ssdsim`]),
//! FlashSim ([`flashsim`]), blkparse text output ([`blkparse`]), FIU traces
//! with per-block MD5 ([`fiu`]), fio iolog v2/v3 ([`fio`]) and ssdlab's own
//! CSV ([`native`]), and any layout of columns a user describes ([`columns`], which
//! the four DiskSim-family formats are fixed instances of). Without a format,
//! [`detect`] picks the one format that accepts the file's first lines (never
//! `columns`, which needs its description). [`info`] computes `ssdlab trace-info`
//! statistics and [`convert`] writes traces back out (native, DiskSim).
//!
//! Input may be plain text, gzip or zstd; compression is recognised by its
//! magic bytes (`1f 8b`, `28 b5 2f fd`), never by the file name, and
//! multi-member gzip and multi-frame zstd files are read to the end. No input
//! can make the loader panic: every malformed line becomes a [`TraceError`]
//! that names the file, the 1-based line number and the field.
//!
//! Each request carries its stream id ([`TraceRequest::stream`]; native and
//! described columns carry one, other formats none, which is stream 0). Content
//! fingerprints ([`Trace::fingerprints`], FIU and native) are a side table, kept
//! out of [`TraceRequest`] so that the engine's requests stay 32 bytes whatever
//! the format.
//!
//! Adding a format: write a type implementing [`LineParser`] in a new file of
//! this module and read files with [`read_trace_with`]; to make it selectable
//! by name, add a [`TraceFormat`] variant and an arm in [`TraceFormat::parser`].

pub mod blkparse;
mod caller;
pub mod columns;
pub mod convert;
pub mod detect;
pub mod disksim;
pub mod error;
pub mod fields;
pub mod fio;
pub mod fiu;
pub mod flashsim;
pub mod info;
pub mod load;
pub mod mqsim;
pub mod msr;
pub mod native;
pub mod spc;
pub mod ssdsim;

use std::fmt;
use std::path::PathBuf;

pub use blkparse::{BlkparseEvent, BlkparseParser};
pub use caller::Caller;
pub use columns::{ColumnsParser, ColumnsSpec};
pub use disksim::DisksimParser;
pub use error::TraceError;
pub use fields::{
    parse_decimal_ns, parse_stream, parse_u64, parse_u64_max, quote_field, scale_u64, split_fields,
    zero_size, FieldError,
};
pub use fio::FioParser;
pub use fiu::FiuParser;
pub use flashsim::FlashsimParser;
pub use load::{
    fold_into_capacity, load_trace, load_trace_as, read_trace, read_trace_as, read_trace_with,
};
pub use mqsim::MqsimParser;
pub use msr::MsrParser;
pub use native::NativeParser;
pub use spc::SpcParser;
pub use ssdsim::SsdsimParser;

/// Request type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Host read.
    Read,
    /// Host write.
    Write,
    /// Discard / deallocate (blkparse discards, fio trims, native `trim`).
    Trim,
}

impl Op {
    /// Every op, in declaration order (`op as usize` indexes it).
    pub const ALL: [Op; 3] = [Op::Read, Op::Write, Op::Trim];

    /// Lowercase name, as the native format and the request log write it.
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
        }
    }
}

/// One host request, times rebased so the trace's first request arrives at 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRequest {
    /// Arrival time in ns since the trace's first request.
    pub arrival_ns: u64,
    /// Start address in bytes, within the logical capacity (after wrapping).
    pub offset_bytes: u64,
    /// Length in bytes, always positive. Not necessarily 4 KiB-aligned.
    pub size_bytes: u64,
    /// Request type.
    pub op: Op,
    /// Stream id: the identifier of NVMe's streams directive (DSPEC, 16 bits; NVMe 1.3), 0 for
    /// a request without one. It fits in the padding after `op`, so the engine's requests
    /// stay 32 bytes.
    pub stream: u16,
}

// Flows copy requests on every arrival and hold traces in memory: the stream id must stay in
// the padding, not grow the request.
const _: () = assert!(std::mem::size_of::<TraceRequest>() == 32);

/// One request as a [`LineParser`] reads it: the format's own absolute
/// timestamp converted to ns, before rebasing, and the address in bytes
/// before the capacity check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawRequest {
    /// The format's own timestamp in ns (any epoch; not rebased).
    pub ts_ns: u64,
    /// Start address in bytes, as written in the trace.
    pub offset_bytes: u64,
    /// Length in bytes; parsers reject 0.
    pub size_bytes: u64,
    /// Request type.
    pub op: Op,
    /// Stream id, for formats that carry one (native, described columns); 0 for none.
    pub stream: u16,
}

/// Bytes covered by one content fingerprint: fingerprint `i` of a request
/// covers its bytes `[4096 i, 4096 (i + 1))` (the last one possibly a
/// partial block), so a request of `size` bytes has `size.div_ceil(4096)`.
pub const FINGERPRINT_BLOCK_BYTES: u64 = 4096;

/// A 128-bit content fingerprint of one 4 KiB block of a request (FIU's MD5
/// of the block's data, or the native format's content reference).
///
/// Contract: blocks with equal fingerprints hold equal content, and blocks
/// with different fingerprints are taken to hold different content. ssdlab
/// never computes fingerprints; it carries them from the trace to whatever
/// generates the written data, which must honour this contract.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub [u8; 16]);

impl Fingerprint {
    /// Parse 1 to 32 hex digits (either case), read as a 128-bit number:
    /// `"1f"` and `"001F"` are the same fingerprint. The error names `field`.
    pub fn from_hex(field: &'static str, s: &str) -> Result<Fingerprint, FieldError> {
        if s.is_empty() || s.len() > 32 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(FieldError::new(
                field,
                format!("{} is not 1 to 32 hex digits", quote_field(s)),
            ));
        }
        let v = u128::from_str_radix(s, 16)
            .map_err(|e| FieldError::new(field, format!("{}: {e}", quote_field(s))))?;
        Ok(Fingerprint(v.to_be_bytes()))
    }
}

impl fmt::Display for Fingerprint {
    /// 32 lowercase hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", u128::from_be_bytes(self.0))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The content fingerprints of a trace's requests, one list per request
/// (empty for a request without), stored flat: request `i`'s fingerprints are
/// `all[ends[i - 1]..ends[i]]`. See [`Fingerprint`] for the contract.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fingerprints {
    ends: Vec<usize>,
    all: Vec<Fingerprint>,
}

impl Fingerprints {
    /// The fingerprints of request `i`, in block order; empty if it has none
    /// or `i` is out of range.
    pub fn get(&self, i: usize) -> &[Fingerprint] {
        let start = match i.checked_sub(1) {
            Some(prev) => self.ends.get(prev).copied().unwrap_or(usize::MAX),
            None => 0,
        };
        let end = self.ends.get(i).copied().unwrap_or(0);
        self.all.get(start..end).unwrap_or(&[])
    }

    /// Every fingerprint of the trace, request after request.
    pub fn all(&self) -> &[Fingerprint] {
        &self.all
    }

    /// Number of requests covered (with or without fingerprints).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when no request is covered.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn push(&mut self, fps: &[Fingerprint]) {
        self.all.extend_from_slice(fps);
        self.ends.push(self.all.len());
    }

    fn permuted(&self, order: &[usize]) -> Fingerprints {
        let mut out = Fingerprints {
            ends: Vec::with_capacity(order.len()),
            all: Vec::with_capacity(self.all.len()),
        };
        for &i in order {
            out.push(self.get(i));
        }
        out
    }
}

/// The trace file formats [`load_trace`] can read (see `docs/traces.md`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
    /// UMass/SPC CSV: `ASU,LBA,Size,Opcode,Timestamp` (sectors, bytes, seconds).
    Spc,
    /// DiskSim ASCII: `time_ms devno blkno bcount flags` (512-byte blocks, hex flags).
    Disksim,
    /// MQSim ASCII: `arrival_ns device start_sector size_sectors type`.
    Mqsim,
    /// SSDsim: `time_ns device lsn size ope` (512-byte sectors, C `int` fields).
    Ssdsim,
    /// FlashSim: `arrive_time_ms diskno vaddr size op` (sectors, 4 KiB pages).
    Flashsim,
    /// blkparse default text output; Q (queue) or D (dispatch) events.
    Blkparse,
    /// FIU traces: `ts_ns pid process lba size R|W major minor md5`.
    Fiu,
    /// fio iolog, version 2 or 3 (told apart by the header line).
    Fio,
    /// ssdlab CSV: `arrival_ns,offset_bytes,size_bytes,op[,stream][,content]`.
    Native,
    /// Columns a user describes ([`ColumnsSpec`]): which holds the time, the address, the
    /// size and the operation, in which units.
    Columns,
}

impl TraceFormat {
    /// Every format that reads a file without a description: the ones [`detect`] tries.
    /// [`TraceFormat::Columns`] is not among them.
    pub const ALL: [TraceFormat; 10] = [
        TraceFormat::Msr,
        TraceFormat::Spc,
        TraceFormat::Disksim,
        TraceFormat::Mqsim,
        TraceFormat::Ssdsim,
        TraceFormat::Flashsim,
        TraceFormat::Blkparse,
        TraceFormat::Fiu,
        TraceFormat::Fio,
        TraceFormat::Native,
    ];

    /// Lowercase name, as accepted on the command line and in config files.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Msr => "msr",
            TraceFormat::Spc => "spc",
            TraceFormat::Disksim => "disksim",
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Ssdsim => "ssdsim",
            TraceFormat::Flashsim => "flashsim",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Fiu => "fiu",
            TraceFormat::Fio => "fio",
            TraceFormat::Native => "native",
            TraceFormat::Columns => "columns",
        }
    }

    /// The format named `name` (any format, `columns` included).
    pub fn from_name(name: &str) -> Option<TraceFormat> {
        <TraceFormat as clap::ValueEnum>::from_str(name, false).ok()
    }

    /// The names of every format, `columns` last.
    pub fn names() -> Vec<&'static str> {
        TraceFormat::ALL
            .iter()
            .chain([&TraceFormat::Columns])
            .map(|f| f.name())
            .collect()
    }

    /// A fresh parser for this format, set up from `opts`. For `columns` without
    /// `opts.columns` it is a parser that refuses every line (the loader refuses such options
    /// before reading, naming the option in the caller's words).
    pub fn parser(self, opts: &LoadOptions) -> Box<dyn LineParser> {
        match self {
            TraceFormat::Msr => Box::new(MsrParser),
            TraceFormat::Spc => Box::<SpcParser>::default(),
            TraceFormat::Disksim => Box::new(DisksimParser),
            TraceFormat::Mqsim => Box::new(MqsimParser),
            TraceFormat::Ssdsim => Box::new(SsdsimParser),
            TraceFormat::Flashsim => Box::new(FlashsimParser),
            TraceFormat::Blkparse => Box::new(BlkparseParser::new(opts.blkparse_event)),
            TraceFormat::Fiu => Box::<FiuParser>::default(),
            TraceFormat::Fio => Box::<FioParser>::default(),
            TraceFormat::Native => Box::<NativeParser>::default(),
            TraceFormat::Columns => match &opts.columns {
                Some(parser) => Box::new(parser.clone()),
                None => Box::new(columns::Undescribed),
            },
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What to do with an address past the logical capacity.
///
/// With [`OutOfRange::Wrap`] a request whose end lies past the capacity `C`
/// is folded back, see [`fold_into_capacity`] for the exact rule.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum OutOfRange {
    /// Reject the trace: the error names the line and the address field.
    #[default]
    Error,
    /// Fold the start address into the capacity (as SSDsim and MQSim do).
    Wrap,
}

/// How to read a trace. The default detects the format and checks no
/// capacity (what `ssdlab trace-info` and `ssdlab convert` need).
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// File format of the trace; `None` detects it from the first lines
    /// (see [`detect`]).
    pub format: Option<TraceFormat>,
    /// Logical capacity of the simulated device in bytes, which every request
    /// must fit in (after `out_of_range`); must be positive. `None` checks
    /// nothing but that a request's end fits in 64 bits.
    pub capacity_bytes: Option<u64>,
    /// What to do with a request that ends past `capacity_bytes`.
    pub out_of_range: OutOfRange,
    /// Which blkparse event marks a request's arrival (blkparse only); `None`
    /// takes the first of Q, D, C present in the file.
    pub blkparse_event: Option<BlkparseEvent>,
    /// The described layout, for [`TraceFormat::Columns`] (see [`ColumnsSpec::parser`]).
    pub columns: Option<ColumnsParser>,
    /// Stream ids for a trace that carries none (a flow's `stream`): each request's id from
    /// its address as the file gives it, before `out_of_range` folds it; a request past id
    /// 65,535, or one the file already gives an id, is an error naming its line.
    pub stream: Option<crate::config::StreamRule>,
    /// Who gave these options, so that errors name them in the caller's words.
    pub caller: Caller,
}

/// A loaded trace: requests sorted by arrival, first arrival at 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The path the trace was read from, as given.
    pub path: PathBuf,
    /// The requests, sorted by `arrival_ns` (stable: ties keep file order).
    pub requests: Vec<TraceRequest>,
    /// Count of requests moved by sorting: the number of positions whose
    /// request differs before and after the stable sort by arrival time
    /// (0 when the file is already time-ordered).
    pub reordered: usize,
    /// Lines that carry no request (blank lines, `#` comments, headers, and
    /// records a format skips on purpose, e.g. blkparse events not selected).
    pub skipped_lines: usize,
    /// Content fingerprints of each request (parallel to `requests`); `None`
    /// when no request has any. See [`Fingerprint`] for the contract.
    pub fingerprints: Option<Fingerprints>,
    /// The blkparse event the requests are (blkparse only; `None` there when
    /// no event was given and the file has none of Q, D, C).
    pub blkparse_event: Option<BlkparseEvent>,
}

impl Trace {
    /// Number of requests of type `op`.
    pub fn count(&self, op: Op) -> usize {
        self.requests.iter().filter(|r| r.op == op).count()
    }

    /// Arrival time of the last request (the trace's time span), in ns.
    pub fn duration_ns(&self) -> u64 {
        self.requests.last().map_or(0, |r| r.arrival_ns)
    }

    /// Whether any request has a stream id (other than 0, no stream).
    pub fn has_streams(&self) -> bool {
        self.requests.iter().any(|r| r.stream != 0)
    }

    /// Content fingerprints of request `i` (empty if it has none).
    pub fn fingerprints(&self, i: usize) -> &[Fingerprint] {
        self.fingerprints.as_ref().map_or(&[], |f| f.get(i))
    }
}

/// A parser for one line-oriented format.
pub trait LineParser {
    /// Ok(None) for a line that carries no request (blank, comment, header,
    /// a record the format skips on purpose). Err names the field.
    ///
    /// `line` comes without its line terminator (`\n` or `\r\n`).
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError>;

    /// Name of the field holding the start address, used in out-of-range errors.
    fn offset_field(&self) -> &'static str {
        "offset"
    }

    /// Name of the field holding the request size, used when a request is
    /// larger than the whole capacity.
    fn size_field(&self) -> &'static str {
        "size"
    }

    /// Content fingerprints of the request the last `parse_line` returned,
    /// one per 4 KiB block ([`FINGERPRINT_BLOCK_BYTES`]); empty for none.
    fn fingerprints(&self) -> &[Fingerprint] {
        &[]
    }

    /// False when the offsets `parse_line` returns are not final until the
    /// whole file is read (SPC lays its ASUs out by the largest one): the
    /// loader then calls [`LineParser::finish_offsets`] after the last line
    /// and checks capacities only after that.
    fn offsets_final(&self) -> bool {
        true
    }

    /// Which of the requests `parse_line` returned to keep, once the whole file is read, as a
    /// mask in file order; `None` keeps every one. For formats that can only choose once they
    /// have seen the file (blkparse without a given event keeps the first kind present).
    fn keep(&mut self) -> Option<Vec<bool>> {
        None
    }

    /// The blkparse event the kept requests are (blkparse only).
    fn blkparse_event(&self) -> Option<BlkparseEvent> {
        None
    }

    /// Make the offsets final. `requests` are every request `parse_line`
    /// returned, in file order, with the offsets it gave. An error names the
    /// index (into `requests`) of the request at fault and its field.
    fn finish_offsets(
        &mut self,
        _requests: &mut [TraceRequest],
    ) -> Result<(), (usize, FieldError)> {
        Ok(())
    }
}
