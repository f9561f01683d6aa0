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
//! CSV ([`native`]). Without a format, [`detect`] picks the one format that
//! accepts the file's first lines. [`info`] computes `ssdlab trace-info`
//! statistics and [`convert`] writes traces back out (native, DiskSim).
//!
//! Input may be plain text, gzip or zstd; compression is recognised by its
//! magic bytes (`1f 8b`, `28 b5 2f fd`), never by the file name, and
//! multi-member gzip and multi-frame zstd files are read to the end. No input
//! can make the loader panic: every malformed line becomes a [`TraceError`]
//! that names the file, the 1-based line number and the field.
//!
//! Besides the requests, a [`Trace`] carries two optional per-request side
//! tables, kept out of [`TraceRequest`] so that the engine's requests stay 32
//! bytes whatever the format: stream ids ([`Trace::streams`], native format)
//! and content fingerprints ([`Trace::fingerprints`], FIU and native).
//!
//! Adding a format: write a type implementing [`LineParser`] in a new file of
//! this module and read files with [`read_trace_with`]; to make it selectable
//! by name, add a [`TraceFormat`] variant and an arm in [`TraceFormat::parser`].

pub mod blkparse;
mod columns;
pub mod convert;
pub mod detect;
pub mod disksim;
pub mod fio;
pub mod fiu;
pub mod flashsim;
pub mod info;
pub mod mqsim;
pub mod msr;
pub mod native;
pub mod spc;
pub mod ssdsim;

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;

pub use blkparse::{BlkparseEvent, BlkparseParser};
pub use disksim::DisksimParser;
pub use fio::FioParser;
pub use fiu::FiuParser;
pub use flashsim::FlashsimParser;
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
}

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
    /// Stream id, for formats that carry one (native); never [`NO_STREAM`].
    pub stream: Option<u32>,
}

/// The value [`Trace::streams`] holds for a request without a stream id.
/// Parsers reject it as an id, so it never stands for a real stream.
pub const NO_STREAM: u32 = u32::MAX;

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
}

impl TraceFormat {
    /// Every supported format.
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
        }
    }

    /// A fresh parser for this format, set up from `opts`.
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
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
    /// Which blkparse event marks a request's arrival (blkparse only).
    pub blkparse_event: BlkparseEvent,
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
    /// Stream id of each request (parallel to `requests`, [`NO_STREAM`] for a
    /// request without one); `None` when no request has one.
    pub streams: Option<Vec<u32>>,
    /// Content fingerprints of each request (parallel to `requests`); `None`
    /// when no request has any. See [`Fingerprint`] for the contract.
    pub fingerprints: Option<Fingerprints>,
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

    /// Stream id of request `i`, if it has one.
    pub fn stream(&self, i: usize) -> Option<u32> {
        let s = *self.streams.as_ref()?.get(i)?;
        (s != NO_STREAM).then_some(s)
    }

    /// Content fingerprints of request `i` (empty if it has none).
    pub fn fingerprints(&self, i: usize) -> &[Fingerprint] {
        self.fingerprints.as_ref().map_or(&[], |f| f.get(i))
    }
}

/// Why one field of one line could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {reason}")]
pub struct FieldError {
    /// The field's name as the format documents it (e.g. `Size`, `start_sector`).
    pub field: &'static str,
    /// What is wrong with it, quoting the offending text.
    pub reason: String,
}

impl FieldError {
    /// A new error about `field`.
    pub fn new(field: &'static str, reason: impl Into<String>) -> Self {
        FieldError {
            field,
            reason: reason.into(),
        }
    }
}

/// Why a trace could not be loaded. Every variant names the file; parse
/// errors also name the 1-based line number and the field.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened or read (including corrupt gzip data).
    #[error("{}: cannot read trace: {source}", path.display())]
    Io {
        /// The trace file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A field of a line is malformed, or the request lies past the capacity.
    #[error("{}:{line}: field `{field}`: {reason}", path.display())]
    Field {
        /// The trace file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// The field's name as the format documents it.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A line is not valid UTF-8.
    #[error("{}:{line}: line is not valid UTF-8 text", path.display())]
    Encoding {
        /// The trace file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
    },
    /// [`LoadOptions::capacity_bytes`] was 0.
    #[error("{}: logical capacity is 0 bytes; it must be positive", path.display())]
    ZeroCapacity {
        /// The trace file.
        path: PathBuf,
    },
    /// No format was given and the first lines do not tell it (see [`detect`]).
    #[error("{}: cannot tell the trace format: {reason}", path.display())]
    Detect {
        /// The trace file.
        path: PathBuf,
        /// Which formats accepted the first lines, or why each refused them.
        reason: String,
    },
}

impl TraceError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TraceError::Io { path, .. }
            | TraceError::Field { path, .. }
            | TraceError::Encoding { path, .. }
            | TraceError::ZeroCapacity { path }
            | TraceError::Detect { path, .. } => path,
        }
    }

    /// The 1-based line number, if the error is about one line.
    pub fn line(&self) -> Option<u64> {
        match self {
            TraceError::Field { line, .. } | TraceError::Encoding { line, .. } => Some(*line),
            TraceError::Io { .. } | TraceError::ZeroCapacity { .. } | TraceError::Detect { .. } => {
                None
            }
        }
    }

    /// The field name, for [`TraceError::Field`].
    pub fn field(&self) -> Option<&'static str> {
        match self {
            TraceError::Field { field, .. } => Some(field),
            _ => None,
        }
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

/// Load the trace at `path` (plain text, gzip or zstd).
pub fn load_trace(path: &Path, opts: &LoadOptions) -> Result<Trace, TraceError> {
    Ok(load_trace_as(path, opts)?.0)
}

/// Like [`load_trace`], also returning the format the trace was read as
/// (`opts.format`, or the detected one). The file is opened once, so a
/// pipe or FIFO can be read too.
pub fn load_trace_as(path: &Path, opts: &LoadOptions) -> Result<(Trace, TraceFormat), TraceError> {
    read_trace_as(open(path)?, path, opts)
}

/// Open `path` for reading, as a [`TraceError::Io`] naming it on failure.
pub(crate) fn open(path: &Path) -> Result<File, TraceError> {
    File::open(path).map_err(|source| TraceError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Like [`load_trace`], but from any reader (plain text, gzip or zstd);
/// `path` is only used to name the source in [`Trace::path`] and in errors.
pub fn read_trace<R: Read>(
    reader: R,
    path: &Path,
    opts: &LoadOptions,
) -> Result<Trace, TraceError> {
    Ok(read_trace_as(reader, path, opts)?.0)
}

/// Like [`read_trace`], also returning the format the trace was read as.
/// Detection reads the first lines once and replays them to the parser.
pub fn read_trace_as<R: Read>(
    reader: R,
    path: &Path,
    opts: &LoadOptions,
) -> Result<(Trace, TraceFormat), TraceError> {
    if opts.capacity_bytes == Some(0) {
        return Err(TraceError::ZeroCapacity {
            path: path.to_path_buf(),
        });
    }
    let mut input = decompressed(reader, path)?;
    match opts.format {
        Some(format) => {
            let trace = load_lines(input, path, format.parser(opts).as_mut(), opts)?;
            Ok((trace, format))
        }
        None => {
            let sample = detect::Sample::read(&mut input, path)?;
            let format = sample.detect(path, opts)?;
            let replay = Cursor::new(sample.into_bytes()).chain(input);
            let trace = load_lines(replay, path, format.parser(opts).as_mut(), opts)?;
            Ok((trace, format))
        }
    }
}

/// Read a trace with any [`LineParser`] (plain text, gzip or zstd input);
/// `opts.format` is not used.
pub fn read_trace_with<R: Read>(
    reader: R,
    path: &Path,
    parser: &mut dyn LineParser,
    opts: &LoadOptions,
) -> Result<Trace, TraceError> {
    if opts.capacity_bytes == Some(0) {
        return Err(TraceError::ZeroCapacity {
            path: path.to_path_buf(),
        });
    }
    load_lines(decompressed(reader, path)?, path, parser, opts)
}

/// The zstd frame magic number, as it appears on disk.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// The gzip member magic number.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// `reader` as decompressed text: the first bytes are sniffed for a gzip or
/// zstd magic number (robust to short reads), then put back.
pub(crate) fn decompressed<'a, R: Read + 'a>(
    mut reader: R,
    path: &Path,
) -> Result<Box<dyn BufRead + 'a>, TraceError> {
    let io_err = |source| TraceError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut magic = [0u8; 4];
    let mut got = 0;
    while got < magic.len() {
        match reader.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_err(e)),
        }
    }
    let head = magic.get(..got).unwrap_or(&[]).to_vec();
    let is_gzip = head.starts_with(&GZIP_MAGIC);
    let is_zstd = head == ZSTD_MAGIC;
    let raw = BufReader::with_capacity(1 << 16, Cursor::new(head).chain(reader));
    Ok(if is_gzip {
        Box::new(BufReader::with_capacity(1 << 16, MultiGzDecoder::new(raw)))
    } else if is_zstd {
        let decoder = zstd::stream::read::Decoder::with_buffer(raw).map_err(io_err)?;
        Box::new(BufReader::with_capacity(1 << 16, decoder))
    } else {
        Box::new(raw)
    })
}

/// Per-request side tables, allocated only once a request needs them.
#[derive(Default)]
struct SideTables {
    streams: Option<Vec<u32>>,
    fingerprints: Option<Fingerprints>,
}

impl SideTables {
    /// Record the extras of request number `index` (0-based, file order).
    fn push(&mut self, index: usize, stream: Option<u32>, fps: &[Fingerprint]) {
        if stream.is_some() || self.streams.is_some() {
            let streams = self.streams.get_or_insert_with(|| vec![NO_STREAM; index]);
            streams.push(stream.unwrap_or(NO_STREAM));
        }
        if !fps.is_empty() || self.fingerprints.is_some() {
            let table = self.fingerprints.get_or_insert_with(|| {
                let mut t = Fingerprints::default();
                (0..index).for_each(|_| t.push(&[]));
                t
            });
            table.push(fps);
        }
    }
}

/// Parse every line of `input` and assemble the trace.
fn load_lines<B: BufRead>(
    mut input: B,
    path: &Path,
    parser: &mut dyn LineParser,
    opts: &LoadOptions,
) -> Result<Trace, TraceError> {
    let ctx = Placer {
        path,
        capacity_bytes: opts.capacity_bytes,
        out_of_range: opts.out_of_range,
    };
    let defer = !parser.offsets_final();
    let mut buf: Vec<u8> = Vec::with_capacity(256);
    let mut line_no: u64 = 0;
    let mut skipped_lines = 0usize;
    // Line of each request, kept only while offsets wait for the whole file.
    let mut lines: Vec<u64> = Vec::new();
    // Holds absolute timestamps in `arrival_ns` until rebased below.
    let mut requests: Vec<TraceRequest> = Vec::new();
    let mut side = SideTables::default();
    loop {
        buf.clear();
        let Some(text) = next_line(&mut input, &mut buf, line_no + 1, path)? else {
            break;
        };
        line_no += 1;
        let raw = match parser.parse_line(text) {
            Ok(Some(raw)) => raw,
            Ok(None) => {
                skipped_lines += 1;
                continue;
            }
            Err(e) => return Err(ctx.field_error(line_no, e)),
        };
        let offset_bytes = if defer {
            lines.push(line_no);
            raw.offset_bytes
        } else {
            ctx.place(&raw, parser)
                .map_err(|e| ctx.field_error(line_no, e))?
        };
        side.push(requests.len(), raw.stream, parser.fingerprints());
        requests.push(TraceRequest {
            arrival_ns: raw.ts_ns,
            offset_bytes,
            size_bytes: raw.size_bytes,
            op: raw.op,
        });
    }
    if defer {
        let line_of = |i: usize| lines.get(i).copied().unwrap_or(0);
        parser
            .finish_offsets(&mut requests)
            .map_err(|(i, e)| ctx.field_error(line_of(i), e))?;
        for (i, r) in requests.iter_mut().enumerate() {
            let raw = RawRequest {
                ts_ns: r.arrival_ns,
                offset_bytes: r.offset_bytes,
                size_bytes: r.size_bytes,
                op: r.op,
                stream: None,
            };
            r.offset_bytes = ctx
                .place(&raw, parser)
                .map_err(|e| ctx.field_error(line_of(i), e))?;
        }
    }

    let mut reordered = 0;
    let mut streams = side.streams;
    let mut fingerprints = side.fingerprints;
    if !requests
        .windows(2)
        .all(|w| w[0].arrival_ns <= w[1].arrival_ns)
    {
        let mut order: Vec<usize> = (0..requests.len()).collect();
        order.sort_by_key(|&i| requests.get(i).map_or(0, |r| r.arrival_ns)); // stable
        reordered = order
            .iter()
            .enumerate()
            .filter(|(pos, orig)| pos != *orig)
            .count();
        requests = order
            .iter()
            .filter_map(|&i| requests.get(i).copied())
            .collect();
        streams = streams.map(|s| order.iter().filter_map(|&i| s.get(i).copied()).collect());
        fingerprints = fingerprints.map(|f| f.permuted(&order));
    }
    if let Some(t0) = requests.first().map(|r| r.arrival_ns) {
        for r in &mut requests {
            r.arrival_ns -= t0; // sorted, so never below t0
        }
    }
    Ok(Trace {
        path: path.to_path_buf(),
        requests,
        reordered,
        skipped_lines,
        streams,
        fingerprints,
    })
}

/// Append the next line of `input` to `buf` and return it as text, without
/// its terminator (`\n` or `\r\n`) and, on line 1, without a byte-order
/// mark; `None` at the end of the input. `line_no` (1-based) names the line
/// in errors.
pub(crate) fn next_line<'b, B: BufRead + ?Sized>(
    input: &mut B,
    buf: &'b mut Vec<u8>,
    line_no: u64,
    path: &Path,
) -> Result<Option<&'b str>, TraceError> {
    let start = buf.len();
    let n = input
        .read_until(b'\n', buf)
        .map_err(|source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if n == 0 {
        return Ok(None);
    }
    let raw = buf.get(start..).unwrap_or(&[]);
    let text = std::str::from_utf8(raw).map_err(|_| TraceError::Encoding {
        path: path.to_path_buf(),
        line: line_no,
    })?;
    let mut text = text.strip_suffix('\n').unwrap_or(text);
    text = text.strip_suffix('\r').unwrap_or(text);
    if line_no == 1 {
        text = text.strip_prefix('\u{feff}').unwrap_or(text);
    }
    Ok(Some(text))
}

/// Where requests go: the capacity check and the out-of-range rule.
struct Placer<'a> {
    path: &'a Path,
    capacity_bytes: Option<u64>,
    out_of_range: OutOfRange,
}

impl Placer<'_> {
    fn field_error(&self, line: u64, e: FieldError) -> TraceError {
        TraceError::Field {
            path: self.path.to_path_buf(),
            line,
            field: e.field,
            reason: e.reason,
        }
    }

    /// The start address to use for `raw`, after the capacity check.
    fn place(&self, raw: &RawRequest, parser: &dyn LineParser) -> Result<u64, FieldError> {
        let Some(cap) = self.capacity_bytes else {
            return match raw.offset_bytes.checked_add(raw.size_bytes) {
                Some(_) => Ok(raw.offset_bytes),
                None => Err(FieldError::new(
                    parser.offset_field(),
                    format!(
                        "request at byte {} of {} bytes ends past 2^64 bytes",
                        raw.offset_bytes, raw.size_bytes
                    ),
                )),
            };
        };
        let fits = raw
            .offset_bytes
            .checked_add(raw.size_bytes)
            .is_some_and(|end| end <= cap);
        if fits {
            return Ok(raw.offset_bytes);
        }
        match self.out_of_range {
            OutOfRange::Error => {
                // u128: the end may not fit in 64 bits.
                let end = u128::from(raw.offset_bytes) + u128::from(raw.size_bytes);
                Err(FieldError::new(
                    parser.offset_field(),
                    format!(
                        "request [{}, {end}) ends past the logical capacity of {cap} bytes \
                         (set out_of_range = wrap to fold addresses into the capacity)",
                        raw.offset_bytes
                    ),
                ))
            }
            OutOfRange::Wrap => fold_into_capacity(raw.offset_bytes, raw.size_bytes, cap)
                .ok_or_else(|| {
                    FieldError::new(
                        parser.size_field(),
                        format!(
                            "request of {} bytes is larger than the logical capacity of {} bytes",
                            raw.size_bytes, cap
                        ),
                    )
                }),
        }
    }
}

/// Alignment preserved by [`fold_into_capacity`] when it has to shift a
/// folded request back to fit.
pub const WRAP_ALIGN_BYTES: u64 = 4096;

/// The start address [`OutOfRange::Wrap`] gives a request
/// `[offset, offset + size)` on a device of `capacity` bytes.
///
/// Rule:
/// 1. If the request fits (`offset + size <= capacity`) it is unchanged.
/// 2. Otherwise the start is folded modulo the capacity,
///    `start = offset % capacity`, as SSDsim (`lsn % largest_lsn`) and MQSim
///    (`Start_LBA % range`) do.
/// 3. If the folded request still crosses the end, it keeps its size and its
///    start moves down by the smallest multiple of [`WRAP_ALIGN_BYTES`] that
///    makes it fit (so `start % 4096` is preserved, and a 4 KiB-aligned
///    request stays aligned when the capacity is a multiple of 4 KiB); if no
///    such shift exists (`start` < the shift), the request is placed at
///    `capacity - size`, flush with the end.
///    Unlike MQSim, a request is never split into a tail and a head piece.
///
/// Returns `None` only when `size > capacity` (or `capacity == 0`): such a
/// request cannot fit anywhere.
pub fn fold_into_capacity(offset: u64, size: u64, capacity: u64) -> Option<u64> {
    if capacity == 0 || size > capacity {
        return None;
    }
    if offset.checked_add(size).is_some_and(|end| end <= capacity) {
        return Some(offset);
    }
    let start = offset % capacity;
    // start < capacity and size <= capacity, so start + size cannot overflow.
    let end = start + size;
    if end <= capacity {
        return Some(start);
    }
    let excess = end - capacity; // 1..=start
    let shift = excess
        .div_ceil(WRAP_ALIGN_BYTES)
        .saturating_mul(WRAP_ALIGN_BYTES);
    if shift <= start {
        Some(start - shift)
    } else {
        Some(capacity - size)
    }
}

/// Longest field text quoted verbatim in an error message.
const MAX_QUOTED_CHARS: usize = 48;

/// `s` quoted and escaped for an error message, cut after a few dozen chars.
pub fn quote_field(s: &str) -> String {
    match s.char_indices().nth(MAX_QUOTED_CHARS) {
        None => format!("{s:?}"),
        Some((cut, _)) => format!("{:?}...", s.get(..cut).unwrap_or(s)),
    }
}

/// Parse a non-negative decimal integer (ASCII digits only, no sign, no
/// spaces). The error names `field` and quotes the text.
pub fn parse_u64(field: &'static str, s: &str) -> Result<u64, FieldError> {
    let bytes = s.as_bytes();
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return Err(FieldError::new(
            field,
            format!("{} is not a non-negative integer", quote_field(s)),
        ));
    }
    let mut v: u64 = 0;
    for &b in bytes {
        v = match v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
        {
            Some(v) => v,
            None => {
                return Err(FieldError::new(
                    field,
                    format!("{} is too large (maximum {})", quote_field(s), u64::MAX),
                ))
            }
        };
    }
    Ok(v)
}

/// Multiply a parsed value by its unit (e.g. 512 B per sector), naming
/// `field` if the result does not fit in 64 bits.
pub fn scale_u64(
    field: &'static str,
    text: &str,
    value: u64,
    unit: u64,
) -> Result<u64, FieldError> {
    value.checked_mul(unit).ok_or_else(|| {
        FieldError::new(
            field,
            format!(
                "{} is too large: {value} x {unit} overflows 64 bits",
                quote_field(text)
            ),
        )
    })
}

/// The error for a size field that parsed as 0.
pub fn zero_size(field: &'static str, text: &str) -> FieldError {
    FieldError::new(
        field,
        format!(
            "{} is a zero-length request; sizes must be positive",
            quote_field(text)
        ),
    )
}

/// Split `parts` (the fields of one line, already separated) into exactly
/// `N` fields named `names`; `separator` describes how they are separated
/// (e.g. `"comma-separated"`) in the error, which names the first missing
/// field or, for extra data, the last field.
pub fn split_fields<'a, const N: usize>(
    parts: impl Iterator<Item = &'a str>,
    names: &[&'static str; N],
    separator: &str,
) -> Result<[&'a str; N], FieldError> {
    let mut f = [""; N];
    let mut n = 0usize;
    for part in parts {
        match f.get_mut(n) {
            Some(slot) => *slot = part,
            None => {
                let last = names.last().copied().unwrap_or("line");
                return Err(FieldError::new(
                    last,
                    format!(
                        "unexpected data after this field: line has more than {N} \
                         {separator} fields, expected {N}"
                    ),
                ));
            }
        }
        n += 1;
    }
    if let Some(&missing) = names.get(n) {
        return Err(FieldError::new(
            missing,
            format!("missing: line has {n} {separator} fields, expected {N}"),
        ));
    }
    Ok(f)
}

/// Parse a non-negative decimal integer no larger than `max` (for fields a
/// tool stores in a narrower C type). The error names `field`.
pub fn parse_u64_max(field: &'static str, s: &str, max: u64) -> Result<u64, FieldError> {
    let v = parse_u64(field, s)?;
    if v > max {
        return Err(FieldError::new(
            field,
            format!("{} is too large (maximum {max})", quote_field(s)),
        ));
    }
    Ok(v)
}

/// Fraction digits read by [`parse_decimal_ns`]; later ones are below any
/// unit's nanosecond and ignored.
const MAX_FRACTION_DIGITS: usize = 20;

/// Parse a non-negative plain decimal number (`12`, `12.5`, `.5`, `12.`; no
/// sign, no exponent) given in a unit of `unit_ns` nanoseconds (1e6 for
/// milliseconds, 1e9 for seconds) and return it in ns, rounded to the
/// nearest ns. Exact: no binary floating point is involved.
pub fn parse_decimal_ns(field: &'static str, s: &str, unit_ns: u64) -> Result<u64, FieldError> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return Err(FieldError::new(
            field,
            format!("{} is not a non-negative decimal number", quote_field(s)),
        ));
    }
    let too_large = || {
        FieldError::new(
            field,
            format!("{} is too large for a 64-bit ns clock", quote_field(s)),
        )
    };
    let whole = if int.is_empty() {
        0
    } else {
        parse_u64(field, int).map_err(|_| too_large())?
    };
    let mut ns = whole.checked_mul(unit_ns).ok_or_else(too_large)?;
    let frac = frac.get(..MAX_FRACTION_DIGITS).unwrap_or(frac);
    if !frac.is_empty() {
        // num < 10^20 and den <= 10^20: u128 holds num * unit_ns for any
        // unit up to 10^18 ns; the checked product covers the rest.
        let num: u128 = frac.parse().map_err(|_| too_large())?;
        let den = 10u128.pow(frac.len() as u32);
        let scaled = num.checked_mul(u128::from(unit_ns)).ok_or_else(too_large)?;
        let part = (scaled + den / 2) / den;
        let part = u64::try_from(part).map_err(|_| too_large())?;
        ns = ns.checked_add(part).ok_or_else(too_large)?;
    }
    Ok(ns)
}
