//! Loading a trace: decompress, detect the format, parse every line, check addresses against the
//! capacity, sort by arrival and rebase times to 0.

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;

use super::{
    detect, FieldError, Fingerprint, Fingerprints, LineParser, LoadOptions, OutOfRange, RawRequest,
    Trace, TraceError, TraceFormat, TraceRequest,
};
use crate::config::StreamRule;

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
    if opts.format == Some(TraceFormat::Columns) && opts.columns.is_none() {
        return Err(TraceError::Undescribed {
            path: path.to_path_buf(),
            option: opts.caller.columns_option(),
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

/// The per-request side table, allocated only once a request needs it.
#[derive(Default)]
struct SideTable {
    fingerprints: Option<Fingerprints>,
}

impl SideTable {
    /// Keep the rows `keep` marks (a mask over every request so far).
    fn retain(&mut self, keep: &[bool]) {
        if let Some(table) = &mut self.fingerprints {
            let mut kept = Fingerprints::default();
            for (i, _) in keep.iter().enumerate().filter(|(_, k)| **k) {
                kept.push(table.get(i));
            }
            *table = kept;
        }
    }

    /// Record the extras of request number `index` (0-based, file order).
    fn push(&mut self, index: usize, fps: &[Fingerprint]) {
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

/// The items of `items` whose `keep` entry is true.
fn masked<T: Copy>(items: &[T], keep: &[bool]) -> Vec<T> {
    items
        .iter()
        .zip(keep)
        .filter_map(|(item, k)| k.then_some(*item))
        .collect()
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
        stream: opts.stream.as_ref(),
    };
    let defer = !parser.offsets_final();
    let mut buf: Vec<u8> = Vec::with_capacity(256);
    let mut line_no: u64 = 0;
    let mut skipped_lines = 0usize;
    // Line of each request, kept only while offsets wait for the whole file.
    let mut lines: Vec<u64> = Vec::new();
    // Holds absolute timestamps in `arrival_ns` until rebased below.
    let mut requests: Vec<TraceRequest> = Vec::new();
    let mut side = SideTable::default();
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
        let (offset_bytes, stream) = if defer {
            lines.push(line_no);
            (raw.offset_bytes, raw.stream)
        } else {
            ctx.place(&raw, parser)
                .map_err(|e| ctx.field_error(line_no, e))?
        };
        side.push(requests.len(), parser.fingerprints());
        requests.push(TraceRequest {
            arrival_ns: raw.ts_ns,
            offset_bytes,
            size_bytes: raw.size_bytes,
            op: raw.op,
            stream,
        });
    }
    if let Some(keep) = parser.keep() {
        skipped_lines += keep.iter().filter(|k| !**k).count();
        requests = masked(&requests, &keep);
        if defer {
            lines = masked(&lines, &keep);
        }
        side.retain(&keep);
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
                stream: r.stream,
            };
            (r.offset_bytes, r.stream) = ctx
                .place(&raw, parser)
                .map_err(|e| ctx.field_error(line_of(i), e))?;
        }
    }

    let mut reordered = 0;
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
        fingerprints,
        blkparse_event: parser.blkparse_event(),
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

/// Where requests go: the capacity check and the out-of-range rule; and which stream they are,
/// under a flow's stream rule.
struct Placer<'a> {
    path: &'a Path,
    capacity_bytes: Option<u64>,
    out_of_range: OutOfRange,
    stream: Option<&'a StreamRule>,
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

    /// The start address to use for `raw`, after the capacity check, and its stream id.
    fn place(&self, raw: &RawRequest, parser: &dyn LineParser) -> Result<(u64, u16), FieldError> {
        let stream = self.stream_of(raw, parser)?;
        Ok((self.address(raw, parser)?, stream))
    }

    /// The stream id of `raw`: the file's, or the rule's from the address the file gives (not
    /// the folded one: two extents folded onto one range of the device stay two streams).
    fn stream_of(&self, raw: &RawRequest, parser: &dyn LineParser) -> Result<u16, FieldError> {
        let Some(rule) = self.stream else {
            return Ok(raw.stream);
        };
        if raw.stream != 0 {
            return Err(FieldError::new(
                "stream",
                format!(
                    "the trace gives stream id {}; a flow's `stream` rule is for traces without \
                     stream ids",
                    raw.stream
                ),
            ));
        }
        rule.id(raw.offset_bytes).ok_or_else(|| {
            FieldError::new(
                parser.offset_field(),
                format!(
                    "byte {} lies past the {} extents the flow's `stream` rule can number (NVMe's \
                     stream identifier is 16 bits, 0 is none): give larger extents",
                    raw.offset_bytes,
                    u16::MAX
                ),
            )
        })
    }

    /// The start address to use for `raw`, after the capacity check.
    fn address(&self, raw: &RawRequest, parser: &dyn LineParser) -> Result<u64, FieldError> {
        // Refused whatever the capacity and out-of-range rule: no address a trace can state
        // lies past 2^64, so such a request is a malformed line, not one to fold (which would
        // replay it at an address that has nothing to do with the one written).
        let end = raw
            .offset_bytes
            .checked_add(raw.size_bytes)
            .ok_or_else(|| {
                FieldError::new(
                    parser.offset_field(),
                    format!(
                        "request at byte {} of {} bytes ends past 2^64 bytes",
                        raw.offset_bytes, raw.size_bytes
                    ),
                )
            })?;
        let Some(cap) = self.capacity_bytes else {
            return Ok(raw.offset_bytes);
        };
        if end <= cap {
            return Ok(raw.offset_bytes);
        }
        match self.out_of_range {
            OutOfRange::Error => Err(FieldError::new(
                parser.offset_field(),
                format!(
                    "request [{}, {end}) ends past the logical capacity of {cap} bytes \
                     (set out_of_range = wrap to fold addresses into the capacity)",
                    raw.offset_bytes
                ),
            )),
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
    // Compared through `capacity - size`: `start + size` overflows when the capacity is past
    // 2^63 (found by the fuzzer, docs/fuzzing.md).
    let room = capacity - size;
    if start <= room {
        return Some(start);
    }
    let excess = start - room; // start + size - capacity: 1..=start
    let shift = excess
        .div_ceil(WRAP_ALIGN_BYTES)
        .saturating_mul(WRAP_ALIGN_BYTES);
    if shift <= start {
        Some(start - shift)
    } else {
        Some(capacity - size)
    }
}
