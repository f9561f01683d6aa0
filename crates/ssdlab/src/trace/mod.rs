//! Block I/O trace loading.
//!
//! A trace file is read line by line; a [`LineParser`] turns each line into a
//! [`RawRequest`] (the format's own absolute timestamp, in ns), and
//! [`load_trace`] then checks every address against the logical capacity,
//! sorts the requests by arrival if the file is not time-ordered and rebases
//! the times so that the first request arrives at 0.
//!
//! Supported formats ([`TraceFormat`]):
//! - [`TraceFormat::Msr`]: MSR Cambridge CSV, see [`msr::MsrParser`].
//! - [`TraceFormat::Mqsim`]: MQSim ASCII, see [`mqsim::MqsimParser`].
//!
//! Input may be plain text or gzip; gzip is recognised by its magic bytes
//! (`1f 8b`), never by the file name, and multi-member gzip files are read to
//! the end. No input can make the loader panic: every malformed line becomes a
//! [`TraceError`] that names the file, the 1-based line number and the field.
//!
//! Adding a format: write a type implementing [`LineParser`] in a new file of
//! this module and read files with [`read_trace_with`]; to make it selectable
//! by name, add a [`TraceFormat`] variant and a match arm in [`read_trace`].

pub mod mqsim;
pub mod msr;

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;

pub use mqsim::MqsimParser;
pub use msr::MsrParser;

/// Request type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Host read.
    Read,
    /// Host write.
    Write,
    /// Discard / deallocate (no format read here produces it yet).
    Trim,
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
}

/// The trace file formats [`load_trace`] can read.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
    /// MQSim ASCII: `arrival_ns device start_sector size_sectors type`.
    Mqsim,
}

impl TraceFormat {
    /// Every supported format.
    pub const ALL: [TraceFormat; 2] = [TraceFormat::Msr, TraceFormat::Mqsim];

    /// Lowercase name, as accepted on the command line and in config files.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Msr => "msr",
            TraceFormat::Mqsim => "mqsim",
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

/// How to read a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// File format of the trace.
    pub format: TraceFormat,
    /// Logical capacity of the simulated device in bytes; must be positive.
    pub capacity_bytes: u64,
    /// What to do with a request that ends past `capacity_bytes`.
    pub out_of_range: OutOfRange,
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
    /// Lines that carry no request (blank lines, `#` comments, headers).
    pub skipped_lines: usize,
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
}

impl TraceError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TraceError::Io { path, .. }
            | TraceError::Field { path, .. }
            | TraceError::Encoding { path, .. }
            | TraceError::ZeroCapacity { path } => path,
        }
    }

    /// The 1-based line number, if the error is about one line.
    pub fn line(&self) -> Option<u64> {
        match self {
            TraceError::Field { line, .. } | TraceError::Encoding { line, .. } => Some(*line),
            TraceError::Io { .. } | TraceError::ZeroCapacity { .. } => None,
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

/// A parser for one line-oriented format. New formats (SPC, blkparse, fio, ...) come next as new impls.
pub trait LineParser {
    /// Ok(None) for a line that carries no request (blank, comment, header). Err names the field.
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
}

/// Load the trace at `path`, plain text or gzip.
pub fn load_trace(path: &Path, opts: &LoadOptions) -> Result<Trace, TraceError> {
    let file = File::open(path).map_err(|source| TraceError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read_trace(file, path, opts)
}

/// Like [`load_trace`], but from any reader (plain text or gzip); `path` is
/// only used to name the source in [`Trace::path`] and in errors.
pub fn read_trace<R: Read>(
    reader: R,
    path: &Path,
    opts: &LoadOptions,
) -> Result<Trace, TraceError> {
    match opts.format {
        TraceFormat::Msr => read_trace_with(
            reader,
            path,
            &mut MsrParser,
            opts.capacity_bytes,
            opts.out_of_range,
        ),
        TraceFormat::Mqsim => read_trace_with(
            reader,
            path,
            &mut MqsimParser,
            opts.capacity_bytes,
            opts.out_of_range,
        ),
    }
}

/// Read a trace with any [`LineParser`] (plain text or gzip input).
pub fn read_trace_with<R: Read, P: LineParser>(
    mut reader: R,
    path: &Path,
    parser: &mut P,
    capacity_bytes: u64,
    out_of_range: OutOfRange,
) -> Result<Trace, TraceError> {
    if capacity_bytes == 0 {
        return Err(TraceError::ZeroCapacity {
            path: path.to_path_buf(),
        });
    }
    let io_err = |source| TraceError::Io {
        path: path.to_path_buf(),
        source,
    };
    // Sniff the first two bytes (robust to short reads), then put them back.
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < magic.len() {
        match reader.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_err(e)),
        }
    }
    let head = magic.get(..got).unwrap_or(&[]);
    let is_gzip = head == [0x1f, 0x8b];
    let input = BufReader::with_capacity(1 << 16, Cursor::new(head.to_vec()).chain(reader));
    let ctx = ReadCtx {
        path,
        capacity_bytes,
        out_of_range,
    };
    if is_gzip {
        let decoder = BufReader::with_capacity(1 << 16, MultiGzDecoder::new(input));
        ctx.read_lines(decoder, parser)
    } else {
        ctx.read_lines(input, parser)
    }
}

struct ReadCtx<'a> {
    path: &'a Path,
    capacity_bytes: u64,
    out_of_range: OutOfRange,
}

impl ReadCtx<'_> {
    fn read_lines<B: BufRead, P: LineParser>(
        &self,
        mut input: B,
        parser: &mut P,
    ) -> Result<Trace, TraceError> {
        let mut buf: Vec<u8> = Vec::with_capacity(256);
        let mut line_no: u64 = 0;
        let mut skipped_lines = 0usize;
        // Holds absolute timestamps in `arrival_ns` until rebased below.
        let mut requests: Vec<TraceRequest> = Vec::new();
        loop {
            buf.clear();
            let n = input
                .read_until(b'\n', &mut buf)
                .map_err(|source| TraceError::Io {
                    path: self.path.to_path_buf(),
                    source,
                })?;
            if n == 0 {
                break;
            }
            line_no += 1;
            let text = std::str::from_utf8(&buf).map_err(|_| TraceError::Encoding {
                path: self.path.to_path_buf(),
                line: line_no,
            })?;
            let mut text = text.strip_suffix('\n').unwrap_or(text);
            text = text.strip_suffix('\r').unwrap_or(text);
            if line_no == 1 {
                text = text.strip_prefix('\u{feff}').unwrap_or(text);
            }
            let raw = match parser.parse_line(text) {
                Ok(Some(raw)) => raw,
                Ok(None) => {
                    skipped_lines += 1;
                    continue;
                }
                Err(e) => return Err(self.field_error(line_no, e)),
            };
            let offset_bytes = self
                .place(&raw, parser)
                .map_err(|e| self.field_error(line_no, e))?;
            requests.push(TraceRequest {
                arrival_ns: raw.ts_ns,
                offset_bytes,
                size_bytes: raw.size_bytes,
                op: raw.op,
            });
        }

        let mut reordered = 0;
        if !requests
            .windows(2)
            .all(|w| w[0].arrival_ns <= w[1].arrival_ns)
        {
            let mut tagged: Vec<(usize, TraceRequest)> = requests.into_iter().enumerate().collect();
            tagged.sort_by_key(|(_, r)| r.arrival_ns); // stable
            reordered = tagged
                .iter()
                .enumerate()
                .filter(|(pos, (orig, _))| pos != orig)
                .count();
            requests = tagged.into_iter().map(|(_, r)| r).collect();
        }
        if let Some(t0) = requests.first().map(|r| r.arrival_ns) {
            for r in &mut requests {
                r.arrival_ns -= t0; // sorted, so never below t0
            }
        }
        Ok(Trace {
            path: self.path.to_path_buf(),
            requests,
            reordered,
            skipped_lines,
        })
    }

    fn field_error(&self, line: u64, e: FieldError) -> TraceError {
        TraceError::Field {
            path: self.path.to_path_buf(),
            line,
            field: e.field,
            reason: e.reason,
        }
    }

    /// The start address to use for `raw`, after the capacity check.
    fn place<P: LineParser>(&self, raw: &RawRequest, parser: &P) -> Result<u64, FieldError> {
        let cap = self.capacity_bytes;
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
