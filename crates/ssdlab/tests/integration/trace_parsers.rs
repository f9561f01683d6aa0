//! Trace loader tests: real trace excerpts (committed under `traces/`, see
//! `traces/PROVENANCE.md`), malformed input, gzip handling, capacity checks,
//! and property tests (round trip, garbage never panics).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::common;

use common::{address_range, mean_size};
use proptest::prelude::*;
use ssdlab::trace::convert::{write_trace, ConvertTarget};
use ssdlab::trace::detect::detect_format;
use ssdlab::trace::{
    fold_into_capacity, load_trace, read_trace, BlkparseEvent, LineParser, LoadOptions,
    MqsimParser, MsrParser, Op, OutOfRange, Trace, TraceError, TraceFormat, TraceRequest,
};

const TIB: u64 = 1 << 40;
const GIB: u64 = 1 << 30;

fn traces_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces")
}

fn trace_path(name: &str) -> PathBuf {
    traces_dir().join(name)
}

/// A scratch file for one test (unique name per test).
fn scratch(name: &str, contents: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trace_parsers");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

fn opts(format: TraceFormat, capacity_bytes: u64) -> LoadOptions {
    LoadOptions {
        format: Some(format),
        capacity_bytes: Some(capacity_bytes),
        ..LoadOptions::default()
    }
}

fn gunzip(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Assert that `err` names `path`, `line` and `field`, both in its Display
/// text and in its accessors.
fn assert_names(err: &TraceError, path: &Path, line: u64, field: &str) {
    let text = err.to_string();
    let loc = format!("{}:{}:", path.display(), line);
    assert!(text.contains(&loc), "{text:?} does not contain {loc:?}");
    let fld = format!("field `{field}`");
    assert!(text.contains(&fld), "{text:?} does not contain {fld:?}");
    assert_eq!(err.path(), path);
    assert_eq!(err.line(), Some(line));
    assert_eq!(err.field(), Some(field));
}

// ---------------------------------------------------------------------------
// Real traces, with the statistics recorded in the shared MANIFEST.md.

struct Known {
    file: &'static str,
    format: TraceFormat,
    requests: usize,
    reads: usize,
    /// Time span (last minus first arrival), seconds, as the manifest rounds it.
    span_s: f64,
    /// Lowest offset and highest end, bytes.
    min_offset: u64,
    max_end: u64,
    /// Mean read / write size in bytes (1 decimal), None if there are none.
    mean_read: Option<f64>,
    mean_write: Option<f64>,
}

const KNOWN: &[Known] = &[
    Known {
        file: "msr_hm_0_first1000.csv.gz",
        format: TraceFormat::Msr,
        requests: 1_000,
        reads: 508,
        span_s: 127.233,
        min_offset: 17_625_088,
        max_end: 13_575_029_248,
        mean_read: Some(12024.9),
        mean_write: Some(7278.3),
    },
    Known {
        file: "msr_wdev_1_full.csv.gz",
        format: TraceFormat::Msr,
        requests: 1_055,
        reads: 0,
        span_s: 595003.214,
        min_offset: 2_675_048_448,
        max_end: 54_620_086_272,
        mean_read: None,
        mean_write: Some(5249.1),
    },
    Known {
        file: "msr_wdev_3_full.csv.gz",
        format: TraceFormat::Msr,
        requests: 682,
        reads: 11,
        span_s: 596961.941,
        min_offset: 10_860_032,
        max_end: 36_417_486_336,
        mean_read: Some(64791.3),
        mean_write: Some(4456.2),
    },
    Known {
        file: "msr_hm_1_first1000writes.csv.gz",
        format: TraceFormat::Msr,
        requests: 1_000,
        reads: 0,
        span_s: 25152.386,
        min_offset: 397_312,
        max_end: 27_310_669_824,
        mean_read: None,
        mean_write: Some(34201.6),
    },
    Known {
        file: "msr_mds_0_first1000writes.csv.gz",
        format: TraceFormat::Msr,
        requests: 1_000,
        reads: 0,
        span_s: 618.765,
        min_offset: 2_277_376,
        max_end: 36_414_865_408,
        mean_read: None,
        mean_write: Some(5887.0),
    },
    Known {
        file: "msr_proj_0_first1000writes.csv.gz",
        format: TraceFormat::Msr,
        requests: 1_000,
        reads: 1,
        span_s: 510.547,
        min_offset: 157_487_104,
        max_end: 17_211_323_904,
        mean_read: Some(16384.0),
        mean_write: Some(7102.9),
    },
    Known {
        file: "msr_rsrch_2_first1000writes.csv.gz",
        format: TraceFormat::Msr,
        requests: 1_000,
        reads: 0,
        span_s: 27438.784,
        min_offset: 1_528_462_848,
        max_end: 87_444_069_888,
        mean_read: None,
        mean_write: Some(4354.0),
    },
    Known {
        file: "umass_websearch1_first24783_mqsim.trace.gz",
        format: TraceFormat::Mqsim,
        requests: 24_783,
        reads: 24_779,
        span_s: 60.055,
        min_offset: 0,
        max_end: 17_902_723_072,
        mean_read: Some(15419.7),
        mean_write: Some(8192.0),
    },
    Known {
        file: "tpcc_small_mqsim.trace.gz",
        format: TraceFormat::Mqsim,
        requests: 6_999,
        reads: 4_381,
        span_s: 0.136,
        min_offset: 361_823_744,
        max_end: 232_713_410_560,
        mean_read: Some(8289.2),
        mean_write: Some(8939.5),
    },
];

/// Read by described columns (`tests/integration/columns.rs`); here, shown *not* readable by the named
/// formats whose lines it resembles.
const HEIMDALL: &str = "msrcut_heimdall_most_thpt_rand_iops_1006.trace.gz";

#[test]
fn real_traces_match_manifest() {
    for k in KNOWN {
        let path = trace_path(k.file);
        let t =
            load_trace(&path, &opts(k.format, TIB)).unwrap_or_else(|e| panic!("{}: {e}", k.file));
        assert_eq!(t.path, path);
        assert_eq!(t.requests.len(), k.requests, "{}", k.file);
        assert_eq!(t.count(Op::Read), k.reads, "{}", k.file);
        assert_eq!(t.count(Op::Write), k.requests - k.reads, "{}", k.file);
        assert_eq!(t.count(Op::Trim), 0, "{}", k.file);
        assert_eq!(t.reordered, 0, "{}: manifest says time-ordered", k.file);
        assert_eq!(t.skipped_lines, 0, "{}", k.file);
        assert_eq!(t.requests[0].arrival_ns, 0, "{}: rebased", k.file);
        assert!(t
            .requests
            .windows(2)
            .all(|w| w[0].arrival_ns <= w[1].arrival_ns));
        let span_s = t.duration_ns() as f64 / 1e9;
        assert!(
            (span_s - k.span_s).abs() < 0.0006,
            "{}: span {span_s} s, manifest {}",
            k.file,
            k.span_s
        );
        assert_eq!(
            address_range(&t.requests),
            (k.min_offset, k.max_end),
            "{}",
            k.file
        );
        for (op, want) in [(Op::Read, k.mean_read), (Op::Write, k.mean_write)] {
            let got = mean_size(&t.requests, op);
            match (got, want) {
                (None, None) => {}
                (Some(g), Some(w)) => {
                    assert!((g - w).abs() < 0.051, "{}: {op:?} {g} vs {w}", k.file)
                }
                _ => panic!("{}: {op:?} mean {got:?} vs manifest {want:?}", k.file),
            }
        }
    }
}

#[test]
fn first_records_decode_exactly() {
    // MSR hm_0 line 1: 128166385295514663,hm,0,Write,9056014336,2048,2833
    // line 2: 128166385295514878,hm,0,Write,11855351808,512,2617
    let t = load_trace(
        &trace_path("msr_hm_0_first1000.csv.gz"),
        &opts(TraceFormat::Msr, TIB),
    )
    .unwrap();
    assert_eq!(
        t.requests[..2],
        [
            TraceRequest {
                arrival_ns: 0,
                offset_bytes: 9_056_014_336,
                size_bytes: 2048,
                op: Op::Write,
                stream: 0,
            },
            TraceRequest {
                arrival_ns: (128166385295514878 - 128166385295514663) * 100,
                offset_bytes: 11_855_351_808,
                size_bytes: 512,
                op: Op::Write,
                stream: 0,
            },
        ]
    );
    // MQSim WebSearch1 lines 1-2: "11413000 0 657728 16 1", "11565000 1 31244784 64 1"
    let t = load_trace(
        &trace_path("umass_websearch1_first24783_mqsim.trace.gz"),
        &opts(TraceFormat::Mqsim, TIB),
    )
    .unwrap();
    assert_eq!(
        t.requests[..2],
        [
            TraceRequest {
                arrival_ns: 0,
                offset_bytes: 657_728 * 512,
                size_bytes: 16 * 512,
                op: Op::Read,
                stream: 0,
            },
            TraceRequest {
                arrival_ns: 11_565_000 - 11_413_000,
                offset_bytes: 31_244_784 * 512,
                size_bytes: 64 * 512,
                op: Op::Read,
                stream: 0,
            },
        ]
    );
}

#[test]
fn committed_traces_are_documented_and_small() {
    let provenance = std::fs::read_to_string(traces_dir().join("PROVENANCE.md")).unwrap();
    for name in KNOWN.iter().map(|k| k.file).chain([HEIMDALL]) {
        assert!(trace_path(name).is_file(), "traces/{name} is missing");
    }
    let mut total = 0;
    for entry in std::fs::read_dir(traces_dir()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if name == "PROVENANCE.md" {
            continue;
        }
        total += entry.metadata().unwrap().len();
        assert!(
            provenance.contains(&format!("## `{name}`")),
            "traces/{name} has no PROVENANCE.md section"
        );
    }
    assert!(total < 3 << 20, "committed traces take {total} bytes");
}

#[test]
fn heimdall_msr_cut_is_not_misread_by_a_named_format() {
    // `0.000 0 11562803200 4096 1`: fractional ms times and byte addresses.
    let path = trace_path(HEIMDALL);
    let err = load_trace(&path, &opts(TraceFormat::Mqsim, u64::MAX)).unwrap_err();
    assert_names(&err, &path, 1, "arrival_ns");
    assert!(err
        .to_string()
        .contains("\"0.000\" is not a non-negative integer"));
    let err = load_trace(&path, &opts(TraceFormat::Msr, u64::MAX)).unwrap_err();
    assert_names(&err, &path, 1, "Hostname");
}

// ---------------------------------------------------------------------------
// gzip handling

#[test]
fn gzip_and_plain_load_identically() {
    for k in KNOWN {
        let gz_path = trace_path(k.file);
        let plain = gunzip(&gz_path);
        // Name it .gz on purpose: detection is by magic bytes, not extension.
        let plain_path = scratch(&format!("plain_{}", k.file), &plain);
        let a = load_trace(&gz_path, &opts(k.format, TIB)).unwrap();
        let b = load_trace(&plain_path, &opts(k.format, TIB)).unwrap();
        assert_eq!(a.requests, b.requests, "{}", k.file);
        assert_eq!(
            (a.reordered, a.skipped_lines),
            (b.reordered, b.skipped_lines)
        );
        assert_eq!(b.path, plain_path);
    }
}

#[test]
fn multi_member_gzip_is_read_to_the_end() {
    let plain = gunzip(&trace_path("tpcc_small_mqsim.trace.gz"));
    let cut = plain.len() / 2;
    let cut = cut + plain[cut..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut two = gzip(&plain[..cut]);
    two.extend(gzip(&plain[cut..]));
    let path = scratch("two_members.txt", &two);
    let a = load_trace(&path, &opts(TraceFormat::Mqsim, TIB)).unwrap();
    let b = read_trace(&plain[..], Path::new("mem"), &opts(TraceFormat::Mqsim, TIB)).unwrap();
    assert_eq!(a.requests.len(), 6_999);
    assert_eq!(a.requests, b.requests);
}

#[test]
fn corrupt_gzip_is_an_io_error_naming_the_file() {
    let mut data = gzip(b"0 0 0 8 1\n1 0 8 8 0\n");
    let n = data.len();
    data[n / 2..].iter_mut().for_each(|b| *b ^= 0x5a);
    let path = scratch("corrupt.gz", &data);
    let err = load_trace(&path, &opts(TraceFormat::Mqsim, TIB)).unwrap_err();
    assert!(err.to_string().starts_with(&path.display().to_string()));

    let path = scratch("magic_only.gz", &[0x1f, 0x8b]);
    let err = load_trace(&path, &opts(TraceFormat::Mqsim, TIB)).unwrap_err();
    assert!(matches!(err, TraceError::Io { .. }), "{err}");
}

#[test]
fn missing_file_is_an_io_error_naming_the_file() {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no/such/trace.csv");
    let err = load_trace(&path, &opts(TraceFormat::Msr, TIB)).unwrap_err();
    assert!(matches!(err, TraceError::Io { .. }));
    assert!(err.to_string().contains(&path.display().to_string()));
    assert_eq!(err.line(), None);
}

#[test]
fn empty_file_gives_an_empty_trace() {
    for format in TraceFormat::ALL {
        let t = read_trace(&b""[..], Path::new("empty"), &opts(format, TIB)).unwrap();
        assert!(t.requests.is_empty());
        assert_eq!(t.duration_ns(), 0);
        let t = read_trace(&gzip(b"")[..], Path::new("empty.gz"), &opts(format, TIB)).unwrap();
        assert!(t.requests.is_empty());
    }
}

// ---------------------------------------------------------------------------
// Malformed input: every error names file, line and field.

const MSR_OK: &str = "128166385295514663,hm,0,Write,9056014336,2048,2833\n";

/// An MSR file whose line `bad_line` (1-based) is `bad`, the others valid.
fn msr_file(name: &str, bad_line: usize, bad: &str) -> PathBuf {
    let mut text = String::new();
    for i in 1..=20 {
        if i == bad_line {
            text.push_str(bad);
            text.push('\n');
        } else {
            text.push_str(MSR_OK);
        }
    }
    scratch(name, text.as_bytes())
}

fn msr_err(name: &str, bad_line: usize, bad: &str) -> (PathBuf, TraceError) {
    let path = msr_file(name, bad_line, bad);
    let err = load_trace(&path, &opts(TraceFormat::Msr, TIB)).unwrap_err();
    (path, err)
}

#[test]
fn msr_negative_size_message_is_exact() {
    let (path, err) = msr_err(
        "x.csv",
        17,
        "128166385295514663,hm,0,Write,9056014336,-4096,2833",
    );
    assert_names(&err, &path, 17, "Size");
    assert_eq!(
        err.to_string(),
        format!(
            "{}:17: field `Size`: \"-4096\" is not a non-negative integer",
            path.display()
        )
    );
}

#[test]
fn msr_bad_lines_name_line_and_field() {
    let cases: &[(&str, &str)] = &[
        // malformed line (wrong separator): only one field
        (
            "128166385295514663;hm;0;Write;9056014336;2048;2833",
            "Hostname",
        ),
        // too few fields
        ("128166385295514663,hm,0,Write,9056014336", "Size"),
        ("128166385295514663", "Hostname"),
        // too many fields
        (
            "128166385295514663,hm,0,Write,9056014336,2048,2833,9",
            "ResponseTime",
        ),
        // non-numeric / negative / fractional
        (
            "12816638529551466x,hm,0,Write,9056014336,2048,2833",
            "Timestamp",
        ),
        ("-1,hm,0,Write,9056014336,2048,2833", "Timestamp"),
        ("128166385295514663,hm,0,Write,abc,2048,2833", "Offset"),
        ("128166385295514663,hm,0,Write,-512,2048,2833", "Offset"),
        ("128166385295514663,hm,0,Write,0x1000,2048,2833", "Offset"),
        (
            "128166385295514663,hm,0,Write,9056014336,2048.5,2833",
            "Size",
        ),
        ("128166385295514663,hm,0,Write,9056014336,,2833", "Size"),
        (
            "128166385295514663,hm,0,Write,9056014336,+2048,2833",
            "Size",
        ),
        // zero size
        ("128166385295514663,hm,0,Write,9056014336,0,2833", "Size"),
        // unknown op
        ("128166385295514663,hm,0,Flush,9056014336,2048,2833", "Type"),
        ("128166385295514663,hm,0,R,9056014336,2048,2833", "Type"),
        ("128166385295514663,hm,0,,9056014336,2048,2833", "Type"),
        // overflow: u64 text, and ticks * 100 past u64
        (
            "128166385295514663,hm,0,Write,99999999999999999999,2048,2833",
            "Offset",
        ),
        (
            "999999999999999999,hm,0,Write,9056014336,2048,2833",
            "Timestamp",
        ),
        // fields not interpreted are still numbers: a line of foreign columns is no request
        (
            "128166385295514663,hm,x,Write,9056014336,2048,2833",
            "DiskNumber",
        ),
        (
            "128166385295514663,hm,0,Write,9056014336,2048,fast",
            "ResponseTime",
        ),
    ];
    for (i, (bad, field)) in cases.iter().enumerate() {
        let line = 1 + i % 20;
        let (path, err) = msr_err(&format!("msr_bad_{i}.csv"), line, bad);
        assert_names(&err, &path, line as u64, field);
    }
}

#[test]
fn msr_accepts_header_comments_blank_lines_crlf_bom_and_spaces() {
    let text = "\u{feff}Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\r\n\
                # a comment\r\n\
                \r\n\
                128166385295514663,hm,0,Write,9056014336,2048,2833\r\n\
                \x20128166385295514673 , hm , 0 , READ , 4096 , 512 , 1 \r\n\
                   \n\
                128166385295514683,hm,0,rEaD,0,1,1";
    let t = read_trace(
        text.as_bytes(),
        Path::new("h.csv"),
        &opts(TraceFormat::Msr, TIB),
    )
    .unwrap();
    assert_eq!(t.skipped_lines, 4);
    assert_eq!(
        t.requests,
        vec![
            TraceRequest {
                arrival_ns: 0,
                offset_bytes: 9056014336,
                size_bytes: 2048,
                op: Op::Write,
                stream: 0,
            },
            TraceRequest {
                arrival_ns: 1000,
                offset_bytes: 4096,
                size_bytes: 512,
                op: Op::Read,
                stream: 0,
            },
            TraceRequest {
                arrival_ns: 2000,
                offset_bytes: 0,
                size_bytes: 1,
                op: Op::Read,
                stream: 0,
            },
        ]
    );
}

const MQ_OK: &str = "11413000 0 657728 16 1\n";

fn mqsim_err(name: &str, bad_line: usize, bad: &str) -> (PathBuf, TraceError) {
    let mut text = String::new();
    for i in 1..=20 {
        if i == bad_line {
            text.push_str(bad);
            text.push('\n');
        } else {
            text.push_str(MQ_OK);
        }
    }
    let path = scratch(name, text.as_bytes());
    let err = load_trace(&path, &opts(TraceFormat::Mqsim, TIB)).unwrap_err();
    (path, err)
}

#[test]
fn mqsim_bad_lines_name_line_and_field() {
    let cases: &[(&str, &str)] = &[
        // malformed: comma-separated
        ("11413000,0,657728,16,1", "device"),
        // too few / too many fields
        ("11413000 0 657728 16", "type"),
        ("11413000", "device"),
        ("11413000 0 657728 16 1 7", "type"),
        // non-numeric / negative / fractional
        ("11.413 0 657728 16 1", "arrival_ns"),
        ("-5 0 657728 16 1", "arrival_ns"),
        ("11413000 x 657728 16 1", "device"),
        ("11413000 0 -657728 16 1", "start_sector"),
        ("11413000 0 0x1000 16 1", "start_sector"),
        ("11413000 0 657728 -16 1", "size_sectors"),
        ("11413000 0 657728 sixteen 1", "size_sectors"),
        // zero size
        ("11413000 0 657728 0 1", "size_sectors"),
        // unknown op
        ("11413000 0 657728 16 2", "type"),
        ("11413000 0 657728 16 R", "type"),
        ("11413000 0 657728 16 -1", "type"),
        // sectors * 512 overflows u64
        ("11413000 0 36028797018963968 16 1", "start_sector"),
        ("11413000 0 0 36028797018963968 1", "size_sectors"),
    ];
    for (i, (bad, field)) in cases.iter().enumerate() {
        let line = 1 + (i * 7) % 20;
        let (path, err) = mqsim_err(&format!("mq_bad_{i}.trace"), line, bad);
        assert_names(&err, &path, line as u64, field);
    }
}

#[test]
fn mqsim_accepts_tabs_runs_of_spaces_comments_and_crlf() {
    let text = "# comment\n\n  11413000\t0   657728 16 1 \r\n11413100 3 0 1 0\n";
    let t = read_trace(
        text.as_bytes(),
        Path::new("m"),
        &opts(TraceFormat::Mqsim, TIB),
    )
    .unwrap();
    assert_eq!(t.skipped_lines, 2);
    assert_eq!(
        t.requests,
        vec![
            TraceRequest {
                arrival_ns: 0,
                offset_bytes: 657728 * 512,
                size_bytes: 16 * 512,
                op: Op::Read,
                stream: 0,
            },
            TraceRequest {
                arrival_ns: 100,
                offset_bytes: 0,
                size_bytes: 512,
                op: Op::Write,
                stream: 0,
            },
        ]
    );
}

#[test]
fn invalid_utf8_names_the_line() {
    let mut data = MQ_OK.repeat(3).into_bytes();
    data.extend_from_slice(b"11413000 0 \xff\xfe 16 1\n");
    let path = scratch("bad_utf8.trace", &data);
    let err = load_trace(&path, &opts(TraceFormat::Mqsim, TIB)).unwrap_err();
    assert!(matches!(err, TraceError::Encoding { line: 4, .. }), "{err}");
    assert!(err.to_string().contains(&format!("{}:4:", path.display())));
}

#[test]
fn zero_capacity_is_rejected() {
    let err = read_trace(
        MQ_OK.as_bytes(),
        Path::new("z"),
        &opts(TraceFormat::Mqsim, 0),
    )
    .unwrap_err();
    assert!(matches!(err, TraceError::ZeroCapacity { .. }), "{err}");
}

// ---------------------------------------------------------------------------
// Time ordering

#[test]
fn backwards_timestamps_are_stable_sorted_and_counted() {
    // ts: 50 40 60 40 70 -> sorted 40(l2) 40(l4) 50(l1) 60(l3) 70(l5)
    let text = "50 0 1 1 1\n40 0 2 1 1\n60 0 3 1 0\n40 0 4 1 0\n70 0 5 1 1\n";
    let t = read_trace(
        text.as_bytes(),
        Path::new("r"),
        &opts(TraceFormat::Mqsim, TIB),
    )
    .unwrap();
    let got: Vec<(u64, u64)> = t
        .requests
        .iter()
        .map(|r| (r.arrival_ns, r.offset_bytes / 512))
        .collect();
    assert_eq!(got, vec![(0, 2), (0, 4), (10, 1), (20, 3), (30, 5)]);
    // positions 0..=3 changed, position 4 kept its request
    assert_eq!(t.reordered, 4);
}

// ---------------------------------------------------------------------------
// Capacity: error vs wrap

#[test]
fn out_of_range_error_names_line_and_address_field() {
    let plain = gunzip(&trace_path("tpcc_small_mqsim.trace.gz"));
    let text = String::from_utf8(plain).unwrap();
    let cap = 64 * GIB;
    let first_bad = text
        .lines()
        .position(|l| {
            let f: Vec<u64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            (f[2] + f[3]) * 512 > cap
        })
        .unwrap() as u64
        + 1;
    let path = trace_path("tpcc_small_mqsim.trace.gz");
    let err = load_trace(&path, &opts(TraceFormat::Mqsim, cap)).unwrap_err();
    assert_names(&err, &path, first_bad, "start_sector");
    assert!(err.to_string().contains("capacity"), "{err}");

    let path = trace_path("msr_rsrch_2_first1000writes.csv.gz");
    let err = load_trace(&path, &opts(TraceFormat::Msr, 16 * GIB)).unwrap_err();
    assert_eq!(err.field(), Some("Offset"), "{err}");

    // A request ending exactly at the capacity is in range; one byte more is not.
    let o = opts(TraceFormat::Mqsim, 8 * 512);
    assert!(read_trace(&b"0 0 4 4 0\n"[..], Path::new("e"), &o).is_ok());
    let err = read_trace(&b"0 0 4 4 0\n1 0 4 5 0\n"[..], Path::new("e"), &o).unwrap_err();
    assert_names(&err, Path::new("e"), 2, "start_sector");
}

#[test]
fn out_of_range_wrap_folds_into_capacity() {
    let path = trace_path("tpcc_small_mqsim.trace.gz");
    let cap = 64 * GIB;
    let exact = load_trace(&path, &opts(TraceFormat::Mqsim, TIB)).unwrap();
    let wrapped = load_trace(
        &path,
        &LoadOptions {
            out_of_range: OutOfRange::Wrap,
            ..opts(TraceFormat::Mqsim, cap)
        },
    )
    .unwrap();
    assert_eq!(wrapped.requests.len(), exact.requests.len());
    let mut folded = 0;
    for (w, e) in wrapped.requests.iter().zip(&exact.requests) {
        assert_eq!(
            (w.arrival_ns, w.size_bytes, w.op),
            (e.arrival_ns, e.size_bytes, e.op)
        );
        assert!(w.offset_bytes + w.size_bytes <= cap);
        assert_eq!(w.offset_bytes % 512, e.offset_bytes % 512);
        if e.offset_bytes + e.size_bytes <= cap {
            assert_eq!(w.offset_bytes, e.offset_bytes);
        } else {
            folded += 1;
            let start = e.offset_bytes % cap;
            if start + e.size_bytes <= cap {
                assert_eq!(w.offset_bytes, start);
            } else {
                assert_eq!(w.offset_bytes % 4096, start % 4096);
            }
        }
    }
    assert!(folded > 1000, "only {folded} requests were past 64 GiB");

    // Wrap cannot place a request larger than the whole device.
    let err = read_trace(
        &b"0 0 0 9 0\n"[..],
        Path::new("big"),
        &LoadOptions {
            out_of_range: OutOfRange::Wrap,
            ..opts(TraceFormat::Mqsim, 8 * 512)
        },
    )
    .unwrap_err();
    assert_names(&err, Path::new("big"), 1, "size_sectors");
}

#[test]
fn a_request_ending_past_2_64_is_refused_even_with_wrap() {
    // 8 KiB at 2^64 - 4 KiB: no address to fold, so `wrap` refuses it as `error` and
    // `trace-info` (no capacity) do, naming the line and the address field.
    let text = format!("{MSR_OK}128166385295514878,hm,0,Write,18446744073709547520,8192,2617\n");
    for capacity_bytes in [None, Some(16 * GIB), Some(u64::MAX)] {
        for out_of_range in [OutOfRange::Error, OutOfRange::Wrap] {
            let o = LoadOptions {
                format: Some(TraceFormat::Msr),
                capacity_bytes,
                out_of_range,
                ..LoadOptions::default()
            };
            let err = read_trace(text.as_bytes(), Path::new("m"), &o).unwrap_err();
            assert_names(&err, Path::new("m"), 2, "Offset");
            assert!(err.to_string().contains("past 2^64"), "{err}");
        }
    }
}

#[test]
fn fold_rule_examples() {
    // A capacity past 2^63: `start + size` once overflowed here (found by the fuzzer). 8 KiB at
    // 2^64 − 512 is moved back by whole 4 KiB steps until it fits.
    let near_end = u64::MAX - 511;
    assert_eq!(
        fold_into_capacity(near_end, 8192, u64::MAX),
        Some(near_end - 8192)
    );
    let c = 1 << 20; // 1 MiB
                     // fits: unchanged
    assert_eq!(fold_into_capacity(0, c, c), Some(0));
    assert_eq!(fold_into_capacity(c - 4096, 4096, c), Some(c - 4096));
    // plain modulo
    assert_eq!(fold_into_capacity(c + 8192, 4096, c), Some(8192));
    assert_eq!(fold_into_capacity(5 * c + 512, 1024, c), Some(512));
    // folded request still crosses the end: shift down by whole 4 KiB units
    assert_eq!(fold_into_capacity(c - 1024, 4096, c), Some(c - 1024 - 4096));
    assert_eq!(
        fold_into_capacity(2 * c - 512, 8192, c),
        Some(c - 512 - 8192)
    );
    // no room for an aligned shift: flush with the end
    assert_eq!(fold_into_capacity(c - 512, c - 1024, c), Some(1024));
    // too large / empty device
    assert_eq!(fold_into_capacity(0, c + 1, c), None);
    assert_eq!(fold_into_capacity(0, 1, 0), None);
    // no overflow near u64::MAX
    assert_eq!(fold_into_capacity(u64::MAX, u64::MAX, u64::MAX), Some(0));
    let f = fold_into_capacity(u64::MAX - 3, 4096, c).unwrap();
    assert!(f + 4096 <= c);
}

// ---------------------------------------------------------------------------
// Property tests

/// What the loader must produce for `raw` (ts_ns, offset, size, op) in file
/// order: stable sort by time, rebase to the earliest.
fn expected(raw: &[(u64, u64, u64, Op)]) -> (Vec<TraceRequest>, usize) {
    let mut tagged: Vec<(usize, (u64, u64, u64, Op))> = raw.iter().copied().enumerate().collect();
    tagged.sort_by_key(|(_, r)| r.0);
    let moved = tagged
        .iter()
        .enumerate()
        .filter(|(p, (i, _))| p != i)
        .count();
    let t0 = tagged.first().map_or(0, |(_, r)| r.0);
    let reqs = tagged
        .into_iter()
        .map(|(_, (ts, offset_bytes, size_bytes, op))| TraceRequest {
            arrival_ns: ts - t0,
            offset_bytes,
            size_bytes,
            op,
            stream: 0,
        })
        .collect();
    (reqs, moved)
}

fn msr_type(op: Op, case: u8) -> &'static str {
    match (op, case % 4) {
        (Op::Read, 0) => "Read",
        (Op::Read, 1) => "read",
        (Op::Read, 2) => "READ",
        (Op::Read, _) => "rEaD",
        (_, 0) => "Write",
        (_, 1) => "write",
        (_, 2) => "WRITE",
        (_, _) => "wRiTe",
    }
}

type MsrRec = (u64, String, u32, bool, u8, u64, u64, u64);

fn msr_rec() -> impl Strategy<Value = MsrRec> {
    (
        0..u64::MAX / 100,                // ticks
        "[a-z][a-z0-9_]{0,8}",            // host
        any::<u32>(),                     // disk
        any::<bool>(),                    // read?
        any::<u8>(),                      // case / spacing choice
        0..(1u64 << 60),                  // offset
        1..(1u64 << 24),                  // size
        any::<u32>().prop_map(u64::from), // response time
    )
}

type MqRec = (u64, u32, u64, u64, bool, u8);

fn mq_rec() -> impl Strategy<Value = MqRec> {
    (
        any::<u64>(),    // arrival ns
        any::<u32>(),    // device
        0..(1u64 << 50), // start sector
        1..(1u64 << 20), // size sectors
        any::<bool>(),   // read?
        any::<u8>(),     // separator / line-ending choice
    )
}

fn maybe_gzip(text: String, gz: bool) -> Vec<u8> {
    if gz {
        gzip(text.as_bytes())
    } else {
        text.into_bytes()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn msr_round_trip(recs in prop::collection::vec(msr_rec(), 0..200), gz: bool, junk in 0usize..4) {
        let mut text = String::new();
        let mut raw = Vec::new();
        for (i, (ticks, host, disk, read, style, offset, size, resp)) in recs.iter().enumerate() {
            let op = if *read { Op::Read } else { Op::Write };
            let ty = msr_type(op, *style);
            let sp = if style & 0x10 != 0 { " " } else { "" };
            let eol = if style & 0x20 != 0 { "\r\n" } else { "\n" };
            text.push_str(&format!("{ticks}{sp},{host},{disk},{sp}{ty},{offset}{sp},{size},{resp}{eol}"));
            if i % 4 == junk {
                text.push_str(if style & 0x40 != 0 { "# note\n" } else { "\n" });
            }
            raw.push((ticks * 100, *offset, *size, op));
        }
        let skipped = text.lines().filter(|l| l.trim().is_empty() || l.starts_with('#')).count();
        let t = read_trace(&maybe_gzip(text, gz)[..], Path::new("p.csv"), &opts(TraceFormat::Msr, u64::MAX)).unwrap();
        let (want, moved) = expected(&raw);
        prop_assert_eq!(t.requests, want);
        prop_assert_eq!(t.reordered, moved);
        prop_assert_eq!(t.skipped_lines, skipped);
    }

    #[test]
    fn mqsim_round_trip(recs in prop::collection::vec(mq_rec(), 0..200), gz: bool) {
        let mut text = String::new();
        let mut raw = Vec::new();
        for (ts, dev, sector, count, read, style) in &recs {
            let sep = ["  ", "\t", " \t "][usize::from(style % 3)];
            let sep = if style & 0x80 != 0 { sep } else { " " };
            let eol = if style & 0x40 != 0 { "\r\n" } else { "\n" };
            let ty = if *read { 1 } else { 0 };
            text.push_str(&format!("{ts}{sep}{dev}{sep}{sector}{sep}{count}{sep}{ty}{eol}"));
            let op = if *read { Op::Read } else { Op::Write };
            raw.push((*ts, sector * 512, count * 512, op));
        }
        let t = read_trace(&maybe_gzip(text, gz)[..], Path::new("p.trace"), &opts(TraceFormat::Mqsim, u64::MAX)).unwrap();
        let (want, moved) = expected(&raw);
        prop_assert_eq!(t.requests, want);
        prop_assert_eq!(t.reordered, moved);
        prop_assert_eq!(t.skipped_lines, 0);
    }

    #[test]
    fn wrapped_requests_always_fit(offset: u64, size in 1u64..(1 << 40), cap in 1u64..=u64::MAX) {
        match fold_into_capacity(offset, size, cap) {
            None => prop_assert!(size > cap),
            Some(start) => {
                prop_assert!(size <= cap);
                prop_assert!(start <= cap - size);
                if offset.checked_add(size).is_some_and(|e| e <= cap) {
                    prop_assert_eq!(start, offset);
                }
            }
        }
    }

    #[test]
    fn garbage_lines_never_panic(
        line in prop_oneof![
            any::<String>(),
            "[0-9 ,.+\\-xXa-fA-FrRwW#\t]{0,80}",
            "[0-9]{1,25}(,[0-9A-Za-z+\\-.]{0,22}){0,8}",
            "[0-9\\-]{1,25}( [0-9\\-.]{0,22}){0,6}",
        ]
    ) {
        let mut msr = MsrParser;
        let mut mq = MqsimParser;
        for p in [&mut msr as &mut dyn LineParser, &mut mq] {
            if let Err(e) = p.parse_line(&line) {
                prop_assert!(!e.field.is_empty());
                prop_assert!(e.to_string().contains(e.field));
            }
        }
    }

    #[test]
    fn garbage_files_never_panic(
        data in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..400),
            prop::collection::vec(any::<u8>(), 0..400).prop_map(|mut v| { v.splice(0..0, [0x1f, 0x8b]); v }),
            prop::collection::vec(any::<u8>(), 0..400).prop_map(|v| gzip(&v)),
            "([0-9]{1,20}[ ,]){0,8}\n{0,2}".prop_map(String::into_bytes),
        ],
        cap in 1u64..=u64::MAX,
        wrap: bool,
    ) {
        for format in TraceFormat::ALL {
            let o = LoadOptions {
                out_of_range: if wrap { OutOfRange::Wrap } else { OutOfRange::Error },
                ..opts(format, cap)
            };
            match read_trace(&data[..], Path::new("garbage.bin"), &o) {
                Ok(t) => {
                    for r in &t.requests {
                        prop_assert!(r.size_bytes > 0);
                        prop_assert!(r.offset_bytes.checked_add(r.size_bytes).is_some_and(|e| e <= cap));
                    }
                    prop_assert!(t.requests.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns));
                }
                Err(e) => prop_assert!(e.to_string().starts_with("garbage.bin")),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The formats added after MSR and MQSim: real excerpts with counts recomputed
// with zcat/awk (see traces/PROVENANCE.md; whole files match the manifest).

struct Excerpt {
    file: &'static str,
    format: TraceFormat,
    event: BlkparseEvent,
    requests: usize,
    reads: usize,
    writes: usize,
    read_bytes: u64,
    write_bytes: u64,
    span_ns: u64,
    skipped: usize,
    reordered: usize,
}

const EXCERPTS: &[Excerpt] = &[
    Excerpt {
        file: "umass_websearch1_first5000_flashsim.trace.gz",
        format: TraceFormat::Flashsim,
        event: BlkparseEvent::Q,
        requests: 5_000,
        reads: 4_998,
        writes: 2,
        read_bytes: 80_035_840,
        write_bytes: 16_384,
        span_ns: 11_546_542_000,
        skipped: 0,
        reordered: 0,
    },
    Excerpt {
        file: "blkparse_ycsb_btrfs.txt.gz",
        format: TraceFormat::Blkparse,
        event: BlkparseEvent::D,
        requests: 1_824,
        reads: 1_301,
        writes: 523,
        read_bytes: 1_050_824_704,
        write_bytes: 256_434_176,
        span_ns: 1_071_280_062_737,
        skipped: 3_692,
        reordered: 668,
    },
    Excerpt {
        file: "ycsb_rocksdb_ssdtrace_first2000lines.blkparse.gz",
        format: TraceFormat::Blkparse,
        event: BlkparseEvent::D,
        requests: 339,
        reads: 339,
        writes: 0,
        read_bytes: 39_088_128,
        write_bytes: 0,
        span_ns: 454_240_273,
        skipped: 1_661,
        reordered: 0,
    },
    Excerpt {
        file: "blkparse_hadoop_java_first5000lines.txt.gz",
        format: TraceFormat::Blkparse,
        event: BlkparseEvent::Q,
        requests: 1_384,
        reads: 38,
        writes: 1_346,
        read_bytes: 4_726_784,
        write_bytes: 5_513_216,
        span_ns: 4_320_820_232,
        skipped: 3_616,
        reordered: 0,
    },
    Excerpt {
        file: "fiu_mail_cheetah_day2_first2000.blkparse.gz",
        format: TraceFormat::Fiu,
        event: BlkparseEvent::Q,
        requests: 2_000,
        reads: 1_982,
        writes: 18,
        read_bytes: 1_982 * 4096,
        write_bytes: 18 * 4096,
        span_ns: 2_919_340_318,
        skipped: 0,
        reordered: 0,
    },
    Excerpt {
        file: "umass_websearch1_first10.spc.gz",
        format: TraceFormat::Spc,
        event: BlkparseEvent::Q,
        requests: 10,
        reads: 10,
        writes: 0,
        read_bytes: 139_264,
        write_bytes: 0,
        span_ns: 23_498_000,
        skipped: 0,
        reordered: 0,
    },
];

fn excerpt_opts(e: &Excerpt) -> LoadOptions {
    LoadOptions {
        format: Some(e.format),
        blkparse_event: Some(e.event),
        ..LoadOptions::default()
    }
}

fn bytes_of(t: &ssdlab::trace::Trace, op: Op) -> u64 {
    t.requests
        .iter()
        .filter(|r| r.op == op)
        .map(|r| r.size_bytes)
        .sum()
}

#[test]
fn new_format_excerpts_match_recomputed_counts() {
    for e in EXCERPTS {
        let path = trace_path(e.file);
        let t = load_trace(&path, &excerpt_opts(e)).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(t.requests.len(), e.requests, "{}", e.file);
        assert_eq!(t.count(Op::Read), e.reads, "{}", e.file);
        assert_eq!(t.count(Op::Write), e.writes, "{}", e.file);
        assert_eq!(t.count(Op::Trim), 0, "{}", e.file);
        assert_eq!(bytes_of(&t, Op::Read), e.read_bytes, "{}", e.file);
        assert_eq!(bytes_of(&t, Op::Write), e.write_bytes, "{}", e.file);
        assert_eq!(t.duration_ns(), e.span_ns, "{}", e.file);
        assert_eq!(t.skipped_lines, e.skipped, "{}", e.file);
        assert_eq!(t.reordered, e.reordered, "{}", e.file);
        // Detection agrees (blkparse needs its event to see requests, not to be
        // detected), except for FlashSim's five numeric columns (see below).
        let detected = detect_format(&path, &LoadOptions::default());
        if e.format == TraceFormat::Flashsim {
            assert!(detected.is_err(), "{}", e.file);
        } else {
            assert_eq!(detected.unwrap(), e.format, "{}", e.file);
        }
    }
}

#[test]
fn blkparse_whole_files_match_the_manifest() {
    // The btrfs file is committed whole; its D events are the manifest's figures.
    let t = load_trace(
        &trace_path("blkparse_ycsb_btrfs.txt.gz"),
        &LoadOptions {
            blkparse_event: Some(BlkparseEvent::D),
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(address_range(&t.requests), (65_536, 2_706_374_656));
    assert!((mean_size(&t.requests, Op::Read).unwrap() - 807_705.4).abs() < 0.051);
    assert!((mean_size(&t.requests, Op::Write).unwrap() - 490_313.9).abs() < 0.051);
    assert_eq!(t.blkparse_event, Some(BlkparseEvent::D));
    // It has no Q events: without an event the first kind it holds, D, is read; Q as asked
    // gives an empty trace (a run refuses it; trace-info shows it), not an error.
    let chosen = load_trace(
        &trace_path("blkparse_ycsb_btrfs.txt.gz"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(chosen.requests, t.requests);
    assert_eq!(chosen.blkparse_event, Some(BlkparseEvent::D));
    assert_eq!(chosen.skipped_lines, t.skipped_lines);
    let q = load_trace(
        &trace_path("blkparse_ycsb_btrfs.txt.gz"),
        &LoadOptions {
            blkparse_event: Some(BlkparseEvent::Q),
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert!(q.requests.is_empty());
}

#[test]
fn spc_asus_are_laid_out_disjointly() {
    // umass_websearch1_first10.spc: ASUs 0, 1, 2; the largest end is
    // 34567136 * 512 + 32768 = 17698406400 (ASU 0), rounded up to 1 MiB.
    let t = load_trace(
        &trace_path("umass_websearch1_first10.spc.gz"),
        &LoadOptions::default(),
    )
    .unwrap();
    let span = 17_698_406_400u64.div_ceil(1 << 20) * (1 << 20);
    let text = String::from_utf8(gunzip(&trace_path("umass_websearch1_first10.spc.gz"))).unwrap();
    for (line, r) in text.lines().zip(&t.requests) {
        let f: Vec<&str> = line.split(',').collect();
        let asu: u64 = f[0].parse().unwrap();
        let lba: u64 = f[1].parse().unwrap();
        assert_eq!(r.offset_bytes, asu * span + lba * 512, "{line}");
        assert_eq!(r.size_bytes, f[2].parse::<u64>().unwrap());
    }
    // First record: `0,657728,8192,R,0.011413`; the next at 0.011565 s.
    assert_eq!(t.requests[1].arrival_ns, 152_000);
    // Only ASU 0: addresses unchanged. A too-small device names the ASU's line.
    let one = b"0,8,4096,w,1.5\n0,0,512,R,2\n";
    let t = read_trace(&one[..], Path::new("s"), &opts(TraceFormat::Spc, TIB)).unwrap();
    assert_eq!(t.requests[0].offset_bytes, 4096);
    assert_eq!(t.requests[1].arrival_ns, 500_000_000);
    let two = b"0,0,4096,w,0\n1,0,4096,w,0\n";
    let err = read_trace(&two[..], Path::new("s"), &opts(TraceFormat::Spc, 1 << 20)).unwrap_err();
    assert_names(&err, Path::new("s"), 2, "LBA");
}

#[test]
fn an_spc_layout_past_2_64_names_the_line_holding_the_value() {
    // The committed WebSearch1 excerpt (ASUs 0, 1, 2; line 2 is ASU 1) sixteen times over.
    let excerpt =
        String::from_utf8(gunzip(&trace_path("umass_websearch1_first10.spc.gz"))).unwrap();
    let lines: Vec<&str> = excerpt.lines().cycle().take(160).collect();
    let with = |line_no: usize, field: usize, value: &str| {
        let mut lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let mut f: Vec<&str> = lines[line_no - 1].split(',').collect();
        f[field] = value;
        lines[line_no - 1] = f.join(",");
        lines.join("\n")
    };
    let load = |text: String| {
        read_trace(
            text.as_bytes(),
            Path::new("s"),
            &LoadOptions {
                format: Some(TraceFormat::Spc),
                ..LoadOptions::default()
            },
        )
    };
    assert_eq!(load(lines.join("\n")).unwrap().requests.len(), 160);
    // An LBA on line 151 (ASU 0) that fits alone but widens the per-ASU span so far that ASU 2
    // would end past 2^64: the LBA's line is at fault, not line 2 where ASU 1 first appears.
    let err = load(with(151, 1, "36028797000000000")).unwrap_err();
    assert_names(&err, Path::new("s"), 151, "LBA");
    assert!(err.to_string().contains("past 2^64"), "{err}");
    // A huge ASU number on line 7: that line, its ASU.
    let err = load(with(7, 0, "4000000000")).unwrap_err();
    assert_names(&err, Path::new("s"), 7, "ASU");
    // The first ASU 2 comes after the wide span: its line, its ASU.
    let text = "0,0,512,R,0\n1,0,512,R,0\n0,20000000000000000,512,R,0\n2,0,512,R,0\n";
    let err = load(text.to_string()).unwrap_err();
    assert_names(&err, Path::new("s"), 4, "ASU");
    // The same span with ASU 1 at most fits: ASU 1 starts past 2^63.
    let text = "0,0,512,R,0\n1,0,512,R,0\n0,20000000000000000,512,R,0\n1,5,512,R,0\n";
    let t = load(text.to_string()).unwrap();
    let span = (20_000_000_000_000_000u64 * 512 + 512).div_ceil(1 << 20) * (1 << 20);
    assert_eq!(t.requests[3].offset_bytes, span + 5 * 512);
}

#[test]
fn fiu_md5s_become_fingerprints() {
    let path = trace_path("fiu_mail_cheetah_day2_first2000.blkparse.gz");
    let t = load_trace(&path, &LoadOptions::default()).unwrap();
    let fps = t.fingerprints.as_ref().unwrap();
    assert_eq!(fps.len(), 2_000);
    assert_eq!(
        t.fingerprints(0)[0].to_string(),
        "d6c75ba46e82326fefa545b57a12e221"
    );
    let text = String::from_utf8(gunzip(&path)).unwrap();
    let md5s: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().nth(8).unwrap())
        .collect();
    // Equal MD5s give equal fingerprints and different ones different.
    let mut seen = std::collections::HashMap::new();
    for (i, md5) in md5s.iter().enumerate() {
        let fp = t.fingerprints(i);
        assert_eq!(fp.len(), 1);
        assert_eq!(fp[0].to_string(), *md5);
        seen.entry(*md5).or_insert(fp[0]);
        assert_eq!(seen[md5], fp[0]);
    }
    assert_eq!(seen.len(), 1_412);
    assert!(!t.has_streams());
}

#[test]
fn ssdsim_reads_mqsim_files_identically_but_within_c_int() {
    // SSDsim's units are MQSim's (ns, 512-byte sectors, 1 = read).
    for file in [
        "tpcc_small_mqsim.trace.gz",
        "umass_websearch1_first24783_mqsim.trace.gz",
    ] {
        let a = load_trace(&trace_path(file), &opts(TraceFormat::Mqsim, TIB)).unwrap();
        let b = load_trace(&trace_path(file), &opts(TraceFormat::Ssdsim, TIB)).unwrap();
        assert_eq!(a.requests, b.requests, "{file}");
    }
    let err = read_trace(
        &b"0 0 2147483648 8 1\n"[..],
        Path::new("big"),
        &opts(TraceFormat::Ssdsim, u64::MAX),
    )
    .unwrap_err();
    assert_names(&err, Path::new("big"), 1, "lsn");
}

#[test]
fn five_column_files_are_ambiguous_and_the_error_lists_candidates() {
    for (file, candidates) in [
        (
            "tpcc_small_mqsim.trace.gz",
            "disksim, mqsim, ssdsim, flashsim",
        ),
        (
            "umass_websearch1_first5000_flashsim.trace.gz",
            "disksim, flashsim",
        ),
        (HEIMDALL, "disksim, flashsim"),
    ] {
        let path = trace_path(file);
        let err = load_trace(&path, &LoadOptions::default()).unwrap_err();
        assert!(matches!(err, TraceError::Detect { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains(candidates) && text.contains("--format"),
            "{text}"
        );
    }
    // Nothing matches: every format says why.
    let err = read_trace(
        &b"hello world\n"[..],
        Path::new("h"),
        &LoadOptions::default(),
    )
    .unwrap_err();
    let text = err.to_string();
    for f in TraceFormat::ALL {
        assert!(text.contains(&format!("{f}: line 1: field")), "{text}");
    }
}

#[test]
fn disksim_units_and_flags() {
    let text = "11.413000 0 657728 16 0x1\n11.5 3 8 1 a\n12 0 0 2 4\n";
    let t = read_trace(
        text.as_bytes(),
        Path::new("d"),
        &opts(TraceFormat::Disksim, TIB),
    )
    .unwrap();
    assert_eq!(
        t.requests,
        vec![
            TraceRequest {
                arrival_ns: 0,
                offset_bytes: 657_728 * 512,
                size_bytes: 8192,
                op: Op::Read,
                stream: 0,
            },
            TraceRequest {
                arrival_ns: 87_000,
                offset_bytes: 4096,
                size_bytes: 512,
                op: Op::Write,
                stream: 0,
            },
            TraceRequest {
                arrival_ns: 587_000,
                offset_bytes: 0,
                size_bytes: 1024,
                op: Op::Write,
                stream: 0,
            },
        ]
    );
}

#[test]
fn fio_v2_waits_and_v3_timestamps() {
    let v2 = "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb write 0 4096\n\
              /dev/sdb wait 250 0\n/dev/sdb read 8192 4096\n/dev/sdb sync 0 0\n\
              /dev/sdb trim 4096 8192\n/dev/sdb close\n";
    let t = read_trace(v2.as_bytes(), Path::new("v2"), &LoadOptions::default()).unwrap();
    assert_eq!(
        t.requests,
        vec![
            TraceRequest {
                arrival_ns: 0,
                offset_bytes: 0,
                size_bytes: 4096,
                op: Op::Write,
                stream: 0,
            },
            TraceRequest {
                arrival_ns: 250_000,
                offset_bytes: 8192,
                size_bytes: 4096,
                op: Op::Read,
                stream: 0,
            },
            TraceRequest {
                arrival_ns: 250_000,
                offset_bytes: 4096,
                size_bytes: 8192,
                op: Op::Trim,
                stream: 0,
            },
        ]
    );
    assert_eq!(t.skipped_lines, 6);
    let v3 = "fio version 3 iolog\n0 /dev/sdb add\n5 /dev/sdb open\n12 /dev/sdb write 0 4096\n\
              40 /dev/sdb read 8192 512\n41 /dev/sdb wait 1000 0\n95 /dev/sdb close\n";
    let t = read_trace(v3.as_bytes(), Path::new("v3"), &LoadOptions::default()).unwrap();
    assert_eq!(t.requests.len(), 2);
    assert_eq!(t.requests[1].arrival_ns, 28_000);
    // The header must come first.
    let err = read_trace(
        &b"/dev/sdb write 0 4096\n"[..],
        Path::new("f"),
        &opts(TraceFormat::Fio, TIB),
    )
    .unwrap_err();
    assert_names(&err, Path::new("f"), 1, "header");
}

#[test]
fn blkparse_flushes_discards_and_summary() {
    let text = "  8,0    1        1     0.000000000  100  Q  FWS [kworker]\n\
                  8,0    1        2     0.000001000  100  Q   WS 64 + 0 [jbd2]\n\
                  8,0    1        3     0.000002000  100  Q   DS 128 + 16 [fstrim]\n\
                  8,0    1        4     0.000003000  100  Q    N [java] 1\n\
                  8,0    1        5     0.000004000  100  Q   RA 256 + 8 [cat]\n\
                  8,0    1        6     0.000005000  100  m    N cfq100 alloced\n\
                CPU1 (8,0):\n Reads Queued:           1,        4KiB\n\
                Total (8,0):\nEvents (8,0): 6 entries\n";
    let t = read_trace(
        text.as_bytes(),
        Path::new("b"),
        &opts(TraceFormat::Blkparse, TIB),
    )
    .unwrap();
    assert_eq!(
        t.requests,
        vec![
            TraceRequest {
                arrival_ns: 0,
                offset_bytes: 128 * 512,
                size_bytes: 8192,
                op: Op::Trim,
                stream: 0,
            },
            TraceRequest {
                arrival_ns: 2000,
                offset_bytes: 256 * 512,
                size_bytes: 4096,
                op: Op::Read,
                stream: 0,
            },
        ]
    );
    let bad = "  8,0    1        1     0.000000000  100  Q   W 64 - 8 [x]\n";
    let err = read_trace(
        bad.as_bytes(),
        Path::new("b"),
        &opts(TraceFormat::Blkparse, TIB),
    )
    .unwrap_err();
    assert_names(&err, Path::new("b"), 1, "blocks");
    let err = read_trace(
        &b"Reads Queued: 1\n"[..],
        Path::new("b"),
        &opts(TraceFormat::Blkparse, TIB),
    )
    .unwrap_err();
    assert_names(&err, Path::new("b"), 1, "device");
}

#[test]
fn blkparse_reads_every_rwbs_spelling_and_refuses_other_letters() {
    let read = |rwbs: &str| {
        let line = format!("  8,0    1        1     0.000000000  100  Q {rwbs:>4} 64 + 8 [p]\n");
        read_trace(
            line.as_bytes(),
            Path::new("b"),
            &opts(TraceFormat::Blkparse, TIB),
        )
        .map(|t| t.requests.first().map(|r| r.op))
    };
    // blkparse's `fill_rwbs` (blktrace, old and new) and the kernel's `blk_fill_rwbs`.
    let real = [
        ("R", Some(Op::Read)),
        ("RA", Some(Op::Read)),
        ("RS", Some(Op::Read)),
        ("RM", Some(Op::Read)),
        ("RSM", Some(Op::Read)),
        ("RAS", Some(Op::Read)),
        ("W", Some(Op::Write)),
        ("WS", Some(Op::Write)),
        ("WSM", Some(Op::Write)),
        ("WBS", Some(Op::Write)),
        ("FWS", Some(Op::Write)),
        ("FWFS", Some(Op::Write)),
        ("WFSM", Some(Op::Write)),
        ("WZ", Some(Op::Write)),
        ("D", Some(Op::Trim)),
        ("DS", Some(Op::Trim)),
        ("DE", Some(Op::Trim)),
        ("N", None),
        ("FN", None),
        ("F", None),
        ("FS", None),
        ("ZO", None),
        ("ZC", None),
        ("ZF", None),
    ];
    for (rwbs, op) in real {
        assert_eq!(read(rwbs).unwrap(), op, "{rwbs}");
    }
    // Unknown letters, letters out of place, two operations, no operation, lower case, and
    // zone commands whose data a conventional device cannot place.
    for rwbs in [
        "X", "Z", "RX", "XR", "RW", "WR", "RR", "SW", "S", "AR", "r", "WSA", "ZA", "ZR", "ZRA",
    ] {
        let err = read(rwbs).unwrap_err();
        assert_names(&err, Path::new("b"), 1, "rwbs");
    }
    let err = read("ZA").unwrap_err();
    assert!(err.to_string().contains("zone append"), "{err}");
}

#[test]
fn blkparse_packet_commands_are_skipped_and_stray_tokens_refused() {
    // SCSI packet commands carry a byte count and a CDB, not a sector range.
    let text =
        "  8,0    1        1     0.000000000  100  D   R 36 (12 00 00 00 24 00 ..) [smartctl]\n\
                  8,0    1        2     0.000001000  100  C   R (12 00 00 00 24 00 ..) [0]\n\
                  8,0    1        3     0.000002000  100  C   W (    1234) [0]\n\
                  8,0    1        4     0.000003000  100  C   W 64 + 8 (    1234) [0]\n\
                  8,0    1        5     0.000004000  100  Q   W 72 + 8 |4| [p]\n";
    let o = LoadOptions {
        blkparse_event: None,
        ..opts(TraceFormat::Blkparse, TIB)
    };
    let t = read_trace(text.as_bytes(), Path::new("b"), &o).unwrap();
    assert_eq!(t.requests.len(), 1);
    assert_eq!(t.skipped_lines, 4);
    let bad = "  8,0    1        1     0.000000000  100  Q   W 64 + 8 9 [p]\n";
    let err = read_trace(bad.as_bytes(), Path::new("b"), &o).unwrap_err();
    assert_names(&err, Path::new("b"), 1, "process");
}

/// One bad line per format and field: `(format, prelude lines, bad line, field)`.
const BAD_LINES: &[(TraceFormat, &str, &str, &str)] = &[
    (TraceFormat::Spc, "", "0,657728,8192,R", "Timestamp"),
    (TraceFormat::Spc, "", "0,657728,8192,X,0.1", "Opcode"),
    (TraceFormat::Spc, "", "0,657728,0,R,0.1", "Size"),
    (TraceFormat::Spc, "", "-1,657728,8192,R,0.1", "ASU"),
    (TraceFormat::Spc, "", "0,657728,8192,R,1e-3", "Timestamp"),
    (TraceFormat::Disksim, "", "1.5 0 8 8 0xg", "flags"),
    (TraceFormat::Disksim, "", "-1.5 0 8 8 1", "time_ms"),
    (TraceFormat::Disksim, "", "1.5 0 8 0 1", "bcount"),
    (TraceFormat::Ssdsim, "", "100 0 8 8 2", "ope"),
    (TraceFormat::Ssdsim, "", "1.5 0 8 8 1", "time_ns"),
    (TraceFormat::Flashsim, "", "1.5 0 8 8", "op"),
    (TraceFormat::Flashsim, "", "1.5 0 x 8 1", "vaddr"),
    (
        TraceFormat::Blkparse,
        "",
        "8,0 1 1 0.5 100 Q W x + 8 [p]",
        "sector",
    ),
    (
        TraceFormat::Blkparse,
        "",
        "8,0 1 1 0.5 100 Q w 8 + 8 [p]",
        "rwbs",
    ),
    (
        TraceFormat::Blkparse,
        "",
        "8,0 x 1 0.5 100 Q W 8 + 8 [p]",
        "cpu",
    ),
    (TraceFormat::Blkparse, "", "8,0 1 1 0.5", "pid"),
    (
        TraceFormat::Fiu,
        "",
        "1 2 p 8 16 R 6 0 d6c75ba46e82326fefa545b57a12e221",
        "size",
    ),
    (
        TraceFormat::Fiu,
        "",
        "1 2 p 8 8 R 6 0 d6c75ba46e82326fefa545b57a12e22",
        "md5",
    ),
    (
        TraceFormat::Fiu,
        "",
        "1 2 p 8 8 X 6 0 d6c75ba46e82326fefa545b57a12e221",
        "op",
    ),
    (TraceFormat::Fiu, "", "1 2 p 8 8 R", "major"),
    (
        TraceFormat::Fio,
        "fio version 2 iolog",
        "/dev/sdb write 0 0",
        "length",
    ),
    (
        TraceFormat::Fio,
        "fio version 2 iolog",
        "/dev/sdb erase 0 8",
        "action",
    ),
    (
        TraceFormat::Fio,
        "fio version 3 iolog",
        "x /dev/sdb write 0 8",
        "timestamp",
    ),
    (
        TraceFormat::Fio,
        "fio version 2 iolog",
        "/dev/sdb write 0 8 9",
        "length",
    ),
    (
        TraceFormat::Fio,
        "fio version 2 iolog",
        "/dev/sdb sync x 0",
        "offset",
    ),
    (
        TraceFormat::Fio,
        "fio version 2 iolog",
        "/dev/sdb wait 100 x",
        "length",
    ),
    (
        TraceFormat::Fio,
        "fio version 3 iolog",
        "5 /dev/sdb datasync 0 -1",
        "length",
    ),
    (
        TraceFormat::Native,
        "",
        "arrival_ns,offset,size_bytes,op",
        "header",
    ),
    (
        TraceFormat::Native,
        "arrival_ns,offset_bytes,size_bytes,op",
        "0,0,4096",
        "op",
    ),
    (
        TraceFormat::Native,
        "arrival_ns,offset_bytes,size_bytes,op",
        "0,0,4096,flush",
        "op",
    ),
    (
        TraceFormat::Native,
        "arrival_ns,offset_bytes,size_bytes,op,stream",
        "0,0,4096,read,65536",
        "stream",
    ),
    (
        TraceFormat::Native,
        "arrival_ns,offset_bytes,size_bytes,op,content",
        "0,0,8192,read,ab",
        "content",
    ),
    (
        TraceFormat::Native,
        "arrival_ns,offset_bytes,size_bytes,op,content",
        "0,0,4096,read,xyz",
        "content",
    ),
];

#[test]
fn bad_lines_of_every_new_format_name_line_and_field() {
    for (i, (format, prelude, bad, field)) in BAD_LINES.iter().enumerate() {
        let mut text = String::new();
        let mut line = 1;
        if !prelude.is_empty() {
            text.push_str(prelude);
            text.push('\n');
            line += 1;
        }
        text.push_str(bad);
        text.push('\n');
        let path = PathBuf::from(format!("bad_{i}.{format}"));
        let err = read_trace(text.as_bytes(), &path, &opts(*format, TIB))
            .expect_err(&format!("{format}: {bad:?} was accepted"));
        assert_names(&err, &path, line, field);
    }
}

#[test]
fn zstd_input_is_read_like_plain() {
    for file in [
        "tpcc_small_mqsim.trace.gz",
        "fiu_mail_cheetah_day2_first2000.blkparse.gz",
    ] {
        let plain = gunzip(&trace_path(file));
        // Two frames: multi-frame files are read to the end.
        let cut = plain.len() / 2;
        let cut = cut + plain[cut..].iter().position(|&b| b == b'\n').unwrap() + 1;
        let mut zst = zstd::encode_all(&plain[..cut], 3).unwrap();
        zst.extend(zstd::encode_all(&plain[cut..], 3).unwrap());
        let format = if file.contains("fiu") {
            TraceFormat::Fiu
        } else {
            TraceFormat::Mqsim
        };
        let a = read_trace(&zst[..], Path::new("z"), &opts(format, TIB)).unwrap();
        let b = read_trace(&plain[..], Path::new("p"), &opts(format, TIB)).unwrap();
        assert_eq!(
            (a.requests, a.fingerprints),
            (b.requests, b.fingerprints),
            "{file}"
        );
    }
    let err = read_trace(
        &[0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3][..],
        Path::new("z"),
        &opts(TraceFormat::Mqsim, TIB),
    )
    .unwrap_err();
    assert!(matches!(err, TraceError::Io { .. }), "{err}");
}

// ---------------------------------------------------------------------------
// convert: native is lossless, DiskSim keeps 512-byte-aligned requests exact.

fn all_readable_excerpts() -> Vec<(PathBuf, LoadOptions)> {
    let mut v: Vec<(PathBuf, LoadOptions)> = KNOWN
        .iter()
        .map(|k| {
            (
                trace_path(k.file),
                LoadOptions {
                    format: Some(k.format),
                    ..LoadOptions::default()
                },
            )
        })
        .collect();
    v.extend(
        EXCERPTS
            .iter()
            .map(|e| (trace_path(e.file), excerpt_opts(e))),
    );
    v
}

fn converted(t: &ssdlab::trace::Trace, to: ConvertTarget) -> Vec<u8> {
    let mut out = Vec::new();
    write_trace(t, to, &mut out, Path::new("out")).unwrap();
    out
}

#[test]
fn convert_round_trips() {
    for (path, o) in all_readable_excerpts() {
        let t = load_trace(&path, &o).unwrap();
        let native = converted(&t, ConvertTarget::Native);
        let back = read_trace(&native[..], Path::new("n"), &LoadOptions::default()).unwrap();
        assert_eq!(back.requests, t.requests, "{}", path.display());
        assert_eq!(back.fingerprints, t.fingerprints);
        // Every excerpt is sector-based, so DiskSim keeps it exactly.
        let disksim = converted(&t, ConvertTarget::Disksim);
        let back = read_trace(
            &disksim[..],
            Path::new("d"),
            &opts(TraceFormat::Disksim, u64::MAX),
        )
        .unwrap();
        assert_eq!(back.requests, t.requests, "{}", path.display());
    }
}

#[test]
fn convert_native_keeps_streams_and_content_and_disksim_widens() {
    let text = "arrival_ns,offset_bytes,size_bytes,op,stream,content\n\
                10,100,5000,write,7,1;ffffffffffffffffffffffffffffffff\n\
                5,4096,4096,trim,,\n\
                12,0,4096,read,65535,\n";
    let t = read_trace(text.as_bytes(), Path::new("n"), &LoadOptions::default()).unwrap();
    assert_eq!(t.reordered, 2);
    let streams: Vec<u16> = t.requests.iter().map(|r| r.stream).collect();
    assert_eq!(streams, [0, 7, 65535]);
    assert_eq!(t.fingerprints(1).len(), 2);
    let back = read_trace(
        &converted(&t, ConvertTarget::Native)[..],
        Path::new("m"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(
        back,
        Trace {
            path: PathBuf::from("m"),
            reordered: 0,
            ..t.clone()
        }
    );
    // DiskSim has no trim.
    let mut out = Vec::new();
    let err = write_trace(&t, ConvertTarget::Disksim, &mut out, Path::new("o.txt")).unwrap_err();
    assert!(err.to_string().contains("trim"), "{err}");
    // An unaligned request is widened to the 512-byte blocks it touches.
    let one = "arrival_ns,offset_bytes,size_bytes,op\n1234567,100,5000,write\n";
    let t = read_trace(one.as_bytes(), Path::new("n"), &LoadOptions::default()).unwrap();
    let text = String::from_utf8(converted(&t, ConvertTarget::Disksim)).unwrap();
    assert_eq!(text, "0.000000 0 0 10 0\n");
}
