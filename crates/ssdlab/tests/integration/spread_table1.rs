//! SPREAD's Table I on the `spread` preset (spread.txt §III.B): an isolated read of n KiB
//! (n = 2, 4, …, 16) of one 16 KiB page on an idle device takes t_SPR(n) = tR(n) + tDMA(n) under
//! spFTL (`subpage`), 99 µs + 20 µs under pageFTL (`full`: the whole page is sensed and moved) and
//! 99 µs + tDMA(n) under dmaFTL (`dma`: the whole page is sensed, only the wanted codewords move).
//! The preset has `ecc_decode_ns = 0` and `firmware_ns = 0`, and the host interface is turned off
//! here: Table I's t_SPR is the device's read time and has no other term.

use crate::common;

use ssdlab::config::Config;
use ssdlab::trace::{Op, TraceRequest};

/// Table I, tR row (µs) for 2, 4, …, 16 KiB sensed.
const TR_US: [f64; 8] = [35.0, 45.0, 55.0, 65.0, 75.0, 85.0, 95.0, 99.0];
/// Table I, t_SPR row (µs).
const TSPR_US: [f64; 8] = [37.5, 50.0, 62.5, 75.0, 87.5, 100.0, 112.5, 119.0];
/// Table I: 2.5 µs per 2 KiB over the bus.
const TDMA_PER_2K_US: f64 = 2.5;

fn us_to_ns(us: f64) -> u64 {
    (us * 1000.0).round() as u64
}

/// Latency of one read of `kib` KiB at offset 0 on an idle `spread` device under `policy`. The
/// trace footprint preconditions the read's units first, in address order, so the 16 KiB at
/// offset 0 are one physical page (FGM packs four 4 KiB units per page, §II).
fn isolated_read_ns(policy: &str, kib: u64) -> u64 {
    let sets = vec![
        format!("ftl.read_policy.policy=\"{policy}\""),
        "host_interface.protocol=\"none\"".to_string(),
    ];
    let config = Config::resolve("spread", None, &sets).unwrap();
    let read = TraceRequest {
        arrival_ns: 0,
        offset_bytes: 0,
        size_bytes: kib * 1024,
        op: Op::Read,
        stream: 0,
    };
    let (log, summary) = common::run_logged(config, vec![read]);
    assert_eq!(
        summary["flash_ops"]["read"]["host"], 1,
        "one page, one command"
    );
    assert_eq!(log.len(), 1);
    log[0].latency_ns()
}

#[test]
fn table1_column_sums_match_the_paper() {
    for (i, (&tr, &tspr)) in TR_US.iter().zip(&TSPR_US).enumerate() {
        let codewords = (i + 1) as f64;
        assert_eq!(tr + codewords * TDMA_PER_2K_US, tspr, "Table I row {i}");
    }
}

#[test]
fn spftl_reads_take_table1_t_spr() {
    for (i, &tspr) in TSPR_US.iter().enumerate() {
        let kib = 2 * (i as u64 + 1);
        assert_eq!(
            isolated_read_ns("subpage", kib),
            us_to_ns(tspr),
            "{kib} KiB"
        );
    }
}

#[test]
fn pageftl_reads_sense_and_move_the_whole_page() {
    for kib in (2..=16).step_by(2) {
        assert_eq!(
            isolated_read_ns("full", kib),
            us_to_ns(99.0 + 8.0 * TDMA_PER_2K_US),
            "{kib} KiB"
        );
    }
}

#[test]
fn dmaftl_reads_sense_the_whole_page_and_move_the_wanted_codewords() {
    for kib in (2..=16).step_by(2) {
        let codewords = (kib / 2) as f64;
        assert_eq!(
            isolated_read_ns("dma", kib),
            us_to_ns(99.0 + codewords * TDMA_PER_2K_US),
            "{kib} KiB"
        );
    }
}
