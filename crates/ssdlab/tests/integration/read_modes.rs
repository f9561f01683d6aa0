//! Read modes on crafted cases (docs/read-modes.md): the mode selector's one command per page
//! with the union of wanted codewords (spread.txt Fig. 5), joining queued commands, GC reading
//! only valid codewords, RAF = 1 for 2 KiB reads under `subpage`, and read energy by mode.
//!
//! The small test device (tests/data/small.toml): 16 KiB pages of eight 2 KiB codewords, 1 ns per
//! byte on the bus, firmware 1 µs, ECC 2 µs, tR(LSB) 50 µs. Static CWDP striping: page k of the
//! write stream goes to plane (k mod 2)·4 + ((k / 2) mod 2)·2 + (k / 4) mod 2 (two planes a die,
//! dies 0 and 1 on channel 0, dies 2 and 3 on channel 1).

use crate::common;

use common::{run_logged as run, small};
use ssdlab::sim::RequestRecord;
use ssdlab::trace::{Op, TraceRequest};

const FW: u64 = 1_000;
const ECC: u64 = 2_000;
const TR_LSB: u64 = 50_000;
const KIB4: u64 = 4096;
const KIB2: u64 = 2048;
/// A subpage tR row whose full-page entry is the device's LSB tR, so LSB pages use it as is:
/// 15, 20, …, 50 µs for 1…8 codewords.
const SUBPAGE: &str =
    "ftl.read_policy.tr_by_codewords_ns=[15000, 20000, 25000, 30000, 35000, 40000, 45000, 50000]";

fn req(at: u64, offset_bytes: u64, size_bytes: u64, op: Op) -> TraceRequest {
    TraceRequest {
        arrival_ns: at,
        offset_bytes,
        size_bytes,
        op,
        stream: 0,
    }
}

fn unit(at: u64, unit: u64, units: u64, op: Op) -> TraceRequest {
    req(at, unit * KIB4, units * KIB4, op)
}

fn latency_at(log: &[RequestRecord], offset_bytes: u64, op: Op) -> u64 {
    log.iter()
        .find(|r| r.offset_bytes == offset_bytes && r.op == op)
        .unwrap()
        .latency_ns()
}

fn policy(name: &str) -> String {
    format!("ftl.read_policy.policy=\"{name}\"")
}

/// spread.txt Fig. 5: units F0..F3 are written together, then F1 and F2 are overwritten at
/// different times, so a 16 KiB read of F0..F3 finds them on three pages: one command for F0 and
/// F3 (codewords 0, 1, 6, 7 of page 0), one for F1 and one for F2 (codewords 0, 1 of pages 1, 2).
fn fig5() -> Vec<TraceRequest> {
    vec![
        unit(0, 0, 4, Op::Write),
        // F1 then three other units fill page 1 (plane 4: die 2, channel 1).
        unit(1_000_000, 1, 1, Op::Write),
        unit(1_000_000, 100, 3, Op::Write),
        // F2 then three others fill page 2 (plane 2: die 1, channel 0).
        unit(2_000_000, 2, 1, Op::Write),
        unit(2_000_000, 200, 3, Op::Write),
        // Long after every program: the 16 KiB read.
        unit(10_000_000, 0, 4, Op::Read),
    ]
}

#[test]
fn fig5_one_command_per_page_with_the_union_of_its_codewords() {
    let none = "precondition.fill_fraction=0.0";
    // spFTL: page 0 senses 4 codewords (30 µs) and moves 8 KiB; pages 1 and 2 sense 2 (20 µs) and
    // move 4 KiB each. Page 2 shares channel 0 with page 0 but is done with it by 24.1 µs.
    let (log, s) = run(small(&[none, &policy("subpage"), SUBPAGE]), fig5());
    assert_eq!(s["flash_ops"]["read"]["host"], 3);
    assert_eq!(latency_at(&log, 0, Op::Read), FW + 30_000 + 2 * KIB4 + ECC);
    assert_eq!(s["bytes"]["sensed_for_host"], 4 * KIB4);
    assert_eq!(s["raf"], 1.0);
    // pageFTL: three full pages; pages 0 and 2 finish sensing together and share channel 0.
    let (log, s) = run(small(&[none, &policy("full")]), fig5());
    assert_eq!(s["flash_ops"]["read"]["host"], 3);
    assert_eq!(latency_at(&log, 0, Op::Read), FW + TR_LSB + 8 * KIB4 + ECC);
    assert_eq!(s["raf"], 3.0);
    // dmaFTL: full sensing, 8 KiB then 4 KiB on channel 0.
    let (log, _) = run(small(&[none, &policy("dma")]), fig5());
    assert_eq!(latency_at(&log, 0, Op::Read), FW + TR_LSB + 3 * KIB4 + ECC);
    // PR-SSD partial read: page 0's codewords span two 4 KiB units → full read (50 µs, 16 KiB);
    // pages 1 and 2 want one unit → 40 µs, 4 KiB each. Channel 0 carries page 2 at 40 µs, then
    // page 0 at 50 µs.
    let (log, s) = run(small(&[none, &policy("partial")]), fig5());
    assert_eq!(latency_at(&log, 0, Op::Read), FW + TR_LSB + 4 * KIB4 + ECC);
    assert_eq!(s["bytes"]["sensed_for_host"], 4 * KIB4 + 2 * KIB4);
}

#[test]
fn reads_of_a_page_at_one_instant_are_one_command() {
    // Units 0 and 1 share page 0 (preconditioned in address order).
    let fill = "precondition.fill_fraction=0.01";
    let reads = vec![unit(0, 0, 1, Op::Read), unit(0, 1, 1, Op::Read)];
    let (log, s) = run(small(&[fill]), reads.clone());
    assert_eq!(s["flash_ops"]["read"]["host"], 1);
    assert_eq!(s["merged_reads"], 1);
    for u in [0, 1] {
        assert_eq!(
            latency_at(&log, u * KIB4, Op::Read),
            FW + TR_LSB + 2 * KIB4 + ECC
        );
    }
    // Without merging each has its own command and the second waits for the first.
    let (log, s) = run(small(&[fill, "scheduler.merge_reads=false"]), reads);
    assert_eq!(s["flash_ops"]["read"]["host"], 2);
    assert_eq!(s["merged_reads"], 0);
    assert_eq!(
        latency_at(&log, KIB4, Op::Read),
        FW + 2 * (TR_LSB + KIB4) + ECC
    );
}

#[test]
fn a_read_joins_a_queued_command_but_not_a_started_one() {
    let fill = "precondition.fill_fraction=0.01";
    // Unit 16 is on page 4 (die 0): it keeps die 0 busy while units 0 and 1 (page 0, die 0) ask.
    let reads = vec![
        unit(0, 16, 1, Op::Read),
        unit(1_000, 0, 1, Op::Read),
        unit(2_000, 1, 1, Op::Read),
    ];
    let (log, s) = run(small(&[fill]), reads);
    assert_eq!(s["flash_ops"]["read"]["host"], 2);
    assert_eq!(s["merged_reads"], 1);
    let page0_done = FW + TR_LSB + KIB4 + TR_LSB + 2 * KIB4 + ECC;
    assert_eq!(latency_at(&log, 0, Op::Read), page0_done - 1_000);
    assert_eq!(latency_at(&log, KIB4, Op::Read), page0_done - 2_000);
    // Unit 1 asks while page 0 is already sensing for unit 0: it needs a command of its own.
    let reads = vec![unit(0, 0, 1, Op::Read), unit(10_000, 1, 1, Op::Read)];
    let (log, s) = run(small(&[fill]), reads);
    assert_eq!(s["flash_ops"]["read"]["host"], 2);
    assert_eq!(s["merged_reads"], 0);
    assert_eq!(
        latency_at(&log, KIB4, Op::Read),
        FW + 2 * (TR_LSB + KIB4) + ECC - 10_000
    );
}

#[test]
fn joins_stay_with_their_command_when_a_page_has_one_running_and_one_queued() {
    let fill = "precondition.fill_fraction=0.01";
    // Unit 16 (page 4, die 0) keeps die 0 busy while units 0 and 1 (page 0) ask: command A and a
    // join. While A senses, units 2 and 3 (page 0) ask: command B and a join. Each joined read
    // must end with its own command (the engine keeps joined requesters by page).
    let a_start = FW + TR_LSB + KIB4;
    let reads = vec![
        unit(0, 16, 1, Op::Read),
        unit(1_000, 0, 1, Op::Read),
        unit(2_000, 1, 1, Op::Read),
        unit(a_start, 2, 1, Op::Read),
        unit(a_start + 1_000, 3, 1, Op::Read),
    ];
    let (log, s) = run(small(&[fill]), reads);
    assert_eq!(s["flash_ops"]["read"]["host"], 3);
    assert_eq!(s["merged_reads"], 2);
    let a_done = a_start + TR_LSB + 2 * KIB4;
    let b_done = a_done + TR_LSB + 2 * KIB4;
    assert_eq!(latency_at(&log, 0, Op::Read), a_done + ECC - 1_000);
    assert_eq!(latency_at(&log, KIB4, Op::Read), a_done + ECC - 2_000);
    assert_eq!(latency_at(&log, 2 * KIB4, Op::Read), b_done + ECC - a_start);
    assert_eq!(
        latency_at(&log, 3 * KIB4, Op::Read),
        b_done + ECC - a_start - 1_000
    );
}

#[test]
fn a_read_wants_only_the_codewords_of_its_bytes() {
    let fill = "precondition.fill_fraction=0.01";
    // 2 KiB at byte 6 KiB: the second half of unit 1 = codeword 3 of page 0. Under subpage: one
    // codeword sensed (15 µs) and moved (2 KiB).
    let (log, s) = run(
        small(&[fill, &policy("subpage"), SUBPAGE]),
        vec![req(0, 6 * 1024, KIB2, Op::Read)],
    );
    assert_eq!(log[0].latency_ns(), FW + 15_000 + KIB2 + ECC);
    assert_eq!(s["raf"], 1.0);
    // 4 KiB at byte 6 KiB straddles units 1 and 2: codewords 3 and 4.
    let (log, _) = run(
        small(&[fill, &policy("subpage"), SUBPAGE]),
        vec![req(0, 6 * 1024, KIB4, Op::Read)],
    );
    assert_eq!(log[0].latency_ns(), FW + 20_000 + KIB4 + ECC);
}

/// Distinct 2 KiB-aligned offsets in a scrambled order (an odd stride over a power of two).
fn scattered_2k_reads(n: u64, span_codewords: u64, gap_ns: u64) -> Vec<TraceRequest> {
    (0..n)
        .map(|i| {
            let cw = (i * 40_503) % span_codewords;
            req(i * gap_ns, cw * KIB2, KIB2, Op::Read)
        })
        .collect()
}

#[test]
fn subpage_reads_of_2k_have_raf_one_and_full_reads_raf_eight() {
    let fill = "precondition.fill_fraction=0.5";
    let reads = scattered_2k_reads(4000, 1 << 16, 5_000);
    let (_, s) = run(small(&[fill, &policy("subpage"), SUBPAGE]), reads.clone());
    assert_eq!(s["raf"], 1.0);
    assert_eq!(s["requests"]["read"], 4000);
    let (_, s) = run(small(&[fill, &policy("full")]), reads);
    // Reads of one page that meet in a queue share a command, so at most 8.
    let raf = s["raf"].as_f64().unwrap();
    assert!(raf > 7.0 && raf <= 8.0, "{raf}");
}

/// Random 4 KiB overwrites of most of the device: GC runs, and no host read competes, so every
/// sensed byte is GC's (or wear levelling's).
fn overwrites() -> Vec<TraceRequest> {
    let units = 60_000u64;
    (0..40_000u64)
        .map(|i| unit(i * 20_000, (i * 7_919 + i / 3) % units, 1, Op::Write))
        .collect()
}

#[test]
fn gc_under_subpage_senses_only_valid_codewords() {
    let fill = "precondition.fill_fraction=0.8";
    let (_, s) = run(small(&[fill, &policy("subpage"), SUBPAGE]), overwrites());
    let reads = s["flash_ops"]["read"]["total"].as_u64().unwrap();
    let copied = s["gc"]["copied_units"].as_u64().unwrap()
        + s["wear_leveling"]["copied_units"].as_u64().unwrap();
    let sensed = s["bytes"]["sensed"].as_u64().unwrap();
    assert!(s["gc"]["invocations"].as_u64().unwrap() > 10, "{}", s["gc"]);
    // Whole valid units are sensed: at least what was copied (a unit overwritten between its read
    // and its copy is sensed, not copied), and far less than whole pages.
    assert_eq!(sensed % KIB4, 0);
    assert!(sensed >= copied * KIB4);
    assert!(
        sensed <= copied * KIB4 * 21 / 20,
        "{sensed} vs {}",
        copied * KIB4
    );
    assert!(sensed < reads * 4 * KIB4);
    // pageFTL senses every victim page whole.
    let (_, s) = run(small(&[fill, &policy("full")]), overwrites());
    let reads = s["flash_ops"]["read"]["total"].as_u64().unwrap();
    assert_eq!(s["bytes"]["sensed"].as_u64().unwrap(), reads * 4 * KIB4);
}

#[test]
fn read_sense_energy_follows_current_and_time() {
    // One 4 KiB read at a time of the LSB pages 0..7 (spaced, so none merge): the partial read draws 0.6×
    // the current for 0.8× the time, so 0.48× the sensing energy (pr-ssd.txt §2.3).
    let fill = "precondition.fill_fraction=0.5";
    let reads: Vec<TraceRequest> = (0..200)
        .map(|i| unit(i * 200_000, (i % 8) * 4, 1, Op::Read))
        .collect();
    let sense = |p: &str| {
        let row = if p == "subpage" { SUBPAGE } else { fill };
        let (_, s) = run(small(&[fill, &policy(p), row]), reads.clone());
        s["energy_uj"]["read_sense"].as_f64().unwrap()
    };
    let (full, partial, subpage) = (sense("full"), sense("partial"), sense("subpage"));
    assert!((partial / full - 0.48).abs() < 1e-3, "{partial} / {full}");
    // Subpage: 2 of 8 codewords sensed; with an LSB page's 50 µs row entry of 20 µs and a quarter
    // page's current of 0.6×: 0.4 × 0.6.
    assert!((subpage / full - 0.24).abs() < 1e-3, "{subpage} / {full}");
    // Every read is on an LSB page: 200 × 82.5 mW × 50 µs = 825 µJ.
    assert!((full - 825.0).abs() < 1e-6, "{full}");
}
