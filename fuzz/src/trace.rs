//! The trace-loading property, checked on one fuzz input.
//!
//! The input's first byte chooses how the file is loaded ([`Setup`]); the rest is the file. It
//! goes through [`read_trace_as`], the path `ssdlab run --trace` and `load_trace_as` take, and:
//!
//! - loading never panics (overflow checks are on) and ends (libFuzzer's `-timeout`);
//! - a loaded trace keeps the loader's promises: sorted by arrival, first arrival 0, every
//!   request non-empty and inside the capacity, the fingerprint table one entry per request, a
//!   stream id only from a format that carries one, and every line of the file either a request
//!   or a skipped line;
//! - an error names the file and, for a bad line, a line that exists and a field; only
//!   compressed input can give an I/O error, and only detection a detection error;
//! - the outcome does not depend on how the bytes arrive: gzip or zstd framing of the same text,
//!   reads of one byte at a time, a named format instead of the detected one, and `wrap` instead
//!   of `error` for a trace that already fits all load it the same (a corrupt compressed stream
//!   may load otherwise with one-byte reads, see `check`).

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::path::Path;

use ssdlab::trace::{
    read_trace_as, BlkparseEvent, Caller, ColumnsSpec, LoadOptions, OutOfRange, Trace, TraceError,
    TraceFormat, FINGERPRINT_BLOCK_BYTES,
};

/// The name the fuzzed file goes by in errors.
const PATH: &str = "fuzz.trace";

/// Logical capacities to choose from: none, where a request's end can overflow; a tiny one that is
/// no multiple of 4 KiB, so that requests larger than the device and `wrap`'s flush-with-the-end
/// rule are reached; 1 GiB; and a huge one. The huge one is 2^63, not 2^64 - 1, until `wrap`
/// stops overflowing on capacities above 2^63 (docs/fuzzing.md, Findings).
const CAPACITIES: [Option<u64>; 4] = [None, Some(7 * 4096 + 512), Some(1 << 30), Some(u64::MAX)];

/// The magic numbers the loader recognises compressed input by (docs/traces.md).
const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];

/// How the rest of the input is framed before the loader reads it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// Passed as it is: plain text, or a compressed stream the fuzzer wrote (or mangled).
    AsIs,
    /// Gzip-compressed here, a valid stream of the text.
    Gzip,
    /// Zstd-compressed here, a valid frame of the text.
    Zstd,
}

/// What the first input byte selects. Bits 0-1: capacity ([`CAPACITIES`]); 2: `wrap` instead of
/// `error`; 3: blkparse `D` events instead of the first kind the file holds; 4-5: framing (0 and
/// 3 as is, 1 gzip, 2 zstd); 6: detect the format instead of naming it; 7: feed the loader one
/// byte per read. For `columns`, the second byte picks the description ([`COLUMNS`]).
struct Setup {
    opts: LoadOptions,
    framing: Framing,
    one_byte_reads: bool,
}

impl Setup {
    fn from_byte(format: TraceFormat, b: u8, columns: Option<&ColumnsSpec>) -> Setup {
        let bit = |i: u32| b & (1 << i) != 0;
        Setup {
            opts: LoadOptions {
                format: (!bit(6)).then_some(format),
                columns: columns.map(|spec| spec.parser().expect("a valid description")),
                caller: Caller::Cli,
                capacity_bytes: CAPACITIES[usize::from(b & 3)],
                out_of_range: if bit(2) {
                    OutOfRange::Wrap
                } else {
                    OutOfRange::Error
                },
                blkparse_event: bit(3).then_some(BlkparseEvent::D),
                // (A flow's stream rule numbers requests by address after parsing; the parsers
                // are what this target fuzzes.)
                stream: None,
            },
            framing: match (b >> 4) & 3 {
                1 => Framing::Gzip,
                2 => Framing::Zstd,
                _ => Framing::AsIs,
            },
            one_byte_reads: bit(7),
        }
    }
}

/// Descriptions the `columns` target reads with: the worked examples of docs/traces.md
/// (Heimdall's MSR cuts, CloudPhysics' CSV) and one with every other unit and coding, and a
/// stream column.
const COLUMNS: [&str; 3] = [
    "time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0",
    "separator=, header_lines=1 time_us=1 offset_sectors=3 size_bytes=4 op=2 read=r write=w",
    "separator=; time_s=2 offset_blocks=1 block_bytes=4096 size_sectors=3 op=4 read=R,Read \
     write=W,Write trim=D stream=5",
];

/// Check the property on one input; a violation panics, which libFuzzer reports as a crash.
pub fn check(format: TraceFormat, data: &[u8]) {
    check_with(format, None, data)
}

/// [`check`] for the `columns` format: the input's first byte picks one of [`COLUMNS`].
pub fn check_columns(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let spec = ColumnsSpec::from_cli(COLUMNS[usize::from(pick) % COLUMNS.len()])
        .expect("a valid description");
    check_with(TraceFormat::Columns, Some(&spec), rest)
}

fn check_with(format: TraceFormat, columns: Option<&ColumnsSpec>, data: &[u8]) {
    let Some((&control, text)) = data.split_first() else {
        return;
    };
    let setup = Setup::from_byte(format, control, columns);
    let compressed = is_compressed(text);
    if setup.framing == Framing::AsIs && compressed && expands_past(text, MAX_EXPANDED_BYTES) {
        return;
    }
    let file = frame(setup.framing, text);
    let outcome = load(&file, &setup.opts, setup.one_byte_reads);
    // The text the parser sees, when known: a compressed stream passed as is decompresses to
    // something only the decoder knows.
    let seen = (setup.framing != Framing::AsIs || !compressed).then_some(text);
    check_outcome(&outcome, &setup.opts, seen);

    let same = |other: &Outcome, why: &str| {
        assert_eq!(summary(&outcome), summary(other), "{why}");
    };
    if setup.framing != Framing::AsIs && !compressed {
        same(
            &load(text, &setup.opts, false),
            "compression changed the outcome",
        );
    }
    if setup.one_byte_reads {
        let whole = load(&file, &setup.opts, false);
        if seen.is_some() {
            same(&whole, "one-byte reads changed the outcome");
        } else {
            // A stream the fuzzer wrote may be corrupt, and the decoders do not report damage
            // alike whatever the read sizes (docs/fuzzing.md, Findings): each outcome only has
            // to keep its own promises.
            check_outcome(&whole, &setup.opts, seen);
        }
    }
    let Ok((trace, read_as)) = &outcome else {
        return;
    };
    if setup.opts.format.is_none() {
        let named = LoadOptions {
            format: Some(*read_as),
            ..setup.opts.clone()
        };
        same(
            &load(&file, &named, setup.one_byte_reads),
            "naming the detected format changed the outcome",
        );
    }
    if setup.opts.capacity_bytes.is_some() && setup.opts.out_of_range == OutOfRange::Error {
        let wrapped = LoadOptions {
            out_of_range: OutOfRange::Wrap,
            ..setup.opts.clone()
        };
        let again = load(&file, &wrapped, setup.one_byte_reads);
        assert!(
            matches!(&again, Ok((t, _)) if t == trace),
            "wrap changed a trace that fits: {:?}",
            summary(&again)
        );
    }
}

type Outcome = Result<(Trace, TraceFormat), TraceError>;

/// An outcome as a comparable value (I/O errors are not comparable, their messages are).
fn summary(outcome: &Outcome) -> Result<&(Trace, TraceFormat), String> {
    outcome.as_ref().map_err(ToString::to_string)
}

fn frame(framing: Framing, text: &[u8]) -> Vec<u8> {
    match framing {
        Framing::AsIs => text.to_vec(),
        Framing::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(text)
                .and_then(|()| enc.finish())
                .expect("gzip into memory")
        }
        Framing::Zstd => ZSTD.with(|z| z.borrow_mut().compress(text).expect("zstd into memory")),
    }
}

thread_local! {
    /// One zstd compressor for every input: making its context anew took 7% of the time.
    static ZSTD: RefCell<zstd::bulk::Compressor<'static>> =
        RefCell::new(zstd::bulk::Compressor::new(1).expect("a zstd compressor"));
}

/// A compressed stream the fuzzer wrote that expands past this is not loaded: a few hundred
/// bytes of zstd can stand for hundreds of MiB of empty lines, which the loader streams through
/// as it does any text, only for seconds per load (tens of seconds on a busy machine, past
/// libFuzzer's timeout: docs/fuzzing.md, Findings). The decoders and the parser see nothing new
/// in the bulk.
const MAX_EXPANDED_BYTES: u64 = 1 << 20;

/// Whether the gzip or zstd stream `bytes` decodes to more than `limit` bytes (a corrupt stream
/// counts what decodes before the damage).
fn expands_past(bytes: &[u8], limit: u64) -> bool {
    let mut sink = io::sink();
    let decoded = if bytes.starts_with(GZIP_MAGIC) {
        io::copy(
            &mut flate2::read::MultiGzDecoder::new(bytes).take(limit + 1),
            &mut sink,
        )
    } else {
        match zstd::stream::read::Decoder::new(bytes) {
            Ok(d) => io::copy(&mut d.take(limit + 1), &mut sink),
            Err(e) => Err(e),
        }
    };
    decoded.is_ok_and(|n| n > limit)
}

fn is_compressed(bytes: &[u8]) -> bool {
    bytes.starts_with(GZIP_MAGIC) || bytes.starts_with(ZSTD_MAGIC)
}

fn load(file: &[u8], opts: &LoadOptions, one_byte_reads: bool) -> Outcome {
    if one_byte_reads {
        read_trace_as(OneByteReads(file), Path::new(PATH), opts)
    } else {
        read_trace_as(file, Path::new(PATH), opts)
    }
}

/// A reader that hands out one byte per `read`, as a slow pipe may.
struct OneByteReads<'a>(&'a [u8]);

impl Read for OneByteReads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

/// Lines the loader reads from `text`: `\n`-terminated ones, and a last one without.
fn line_count(text: &[u8]) -> u64 {
    let ended = text.iter().filter(|&&b| b == b'\n').count() as u64;
    ended + u64::from(!text.is_empty() && !text.ends_with(b"\n"))
}

/// The outcome's own promises; `seen` is the text the parser read, when known.
fn check_outcome(outcome: &Outcome, opts: &LoadOptions, seen: Option<&[u8]>) {
    let lines = seen.map(line_count);
    match outcome {
        Ok((trace, read_as)) => {
            if let Some(format) = opts.format {
                assert_eq!(*read_as, format, "read as another format than named");
            }
            check_trace(trace, opts, lines);
            if !matches!(read_as, TraceFormat::Native | TraceFormat::Columns) {
                assert!(
                    !trace.has_streams(),
                    "a stream id from a format without one"
                );
            }
        }
        Err(e) => check_error(e, opts, seen, lines),
    }
}

fn check_trace(trace: &Trace, opts: &LoadOptions, lines: Option<u64>) {
    let requests = &trace.requests;
    assert_eq!(trace.path, Path::new(PATH));
    assert!(
        requests
            .windows(2)
            .all(|w| w[0].arrival_ns <= w[1].arrival_ns),
        "requests not sorted by arrival"
    );
    if let Some(first) = requests.first() {
        assert_eq!(first.arrival_ns, 0, "first arrival not rebased to 0");
    }
    for r in requests {
        assert!(r.size_bytes > 0, "empty request {r:?}");
        let end = r.offset_bytes.checked_add(r.size_bytes);
        assert!(end.is_some(), "request ends past 2^64: {r:?}");
        if let (Some(end), Some(cap)) = (end, opts.capacity_bytes) {
            assert!(end <= cap, "request past the capacity of {cap}: {r:?}");
        }
    }
    assert!(trace.reordered <= requests.len());
    if let Some(fps) = &trace.fingerprints {
        assert_eq!(fps.len(), requests.len(), "fingerprint table length");
        for (i, r) in requests.iter().enumerate() {
            let blocks = r.size_bytes.div_ceil(FINGERPRINT_BLOCK_BYTES);
            assert!(
                fps.get(i).len() as u64 <= blocks,
                "request {i} has more fingerprints than 4 KiB blocks"
            );
        }
    }
    if let Some(lines) = lines {
        assert_eq!(
            requests.len() as u64 + trace.skipped_lines as u64,
            lines,
            "requests + skipped lines != lines"
        );
    }
}

fn check_error(e: &TraceError, opts: &LoadOptions, seen: Option<&[u8]>, lines: Option<u64>) {
    let message = e.to_string();
    assert!(
        message.starts_with(PATH),
        "error does not name the file: {message}"
    );
    assert_eq!(e.path(), Path::new(PATH));
    match e {
        TraceError::Field { line, field, .. } => {
            assert!(!field.trim().is_empty(), "error names no field: {message}");
            check_line(*line, lines, &message);
        }
        TraceError::Encoding { line, .. } => check_line(*line, lines, &message),
        TraceError::Io { .. } => assert!(
            seen.is_none(),
            "I/O error on plain text or a valid stream: {message}"
        ),
        TraceError::Detect { .. } => assert!(
            opts.format.is_none(),
            "detection error with a named format: {message}"
        ),
        TraceError::ZeroCapacity { .. } => panic!("zero-capacity error without a zero capacity"),
        TraceError::Undescribed { .. } => assert!(
            opts.format == Some(TraceFormat::Columns) && opts.columns.is_none(),
            "columns format without a description, yet it had one: {message}"
        ),
    }
}

fn check_line(line: u64, lines: Option<u64>, message: &str) {
    assert!(line >= 1, "line 0 in {message}");
    if let Some(lines) = lines {
        assert!(line <= lines, "line past the {lines} lines read: {message}");
    }
}
