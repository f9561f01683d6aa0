//! Exact-timing tests on the small test device (tests/data/small.toml): firmware 1 µs,
//! tR 50/70/90 µs, tPROG 500/600/700 µs, tBERS 3 ms, 1000 MT/s × 1 B (1 ns per byte), ECC 2 µs.
//! Static CWDP striping over 2 channels × 2 ways × 2 planes: page k of the write stream goes to
//! plane (k mod 2)·4 + ((k / 2) mod 2)·2 + (k / 4) mod 2, and holds units 4k..4k+3.

use crate::common;

use common::{run_logged as run, small};
use ssdlab::sim::RequestRecord;
use ssdlab::trace::{Op, TraceRequest};

const FW: u64 = 1_000;
const ECC: u64 = 2_000;
const TR_LSB: u64 = 50_000;
const TPROG_LSB: u64 = 500_000;
const KIB4: u64 = 4096;

fn req(at: u64, unit: u64, units: u64, op: Op) -> TraceRequest {
    TraceRequest {
        arrival_ns: at,
        offset_bytes: unit * KIB4,
        size_bytes: units * KIB4,
        op,
        stream: 0,
    }
}

fn latency_of(log: &[RequestRecord], offset_unit: u64) -> u64 {
    log.iter()
        .find(|r| r.offset_bytes == offset_unit * KIB4)
        .unwrap()
        .latency_ns()
}

/// Sequential precondition of the first 32 units: pages 0..7 of the stream, one per plane.
const FILL_8_PAGES: &str = "precondition.fill_fraction=0.000434028";
/// Sequential precondition of 1% of the device (pages 0..184).
const FILL_1PCT: &str = "precondition.fill_fraction=0.01";

#[test]
fn one_4k_read_on_an_idle_device() {
    // Unit 0 sits on page 0 (LSB) of plane 0; dma moves only its 4 KiB.
    let (log, s) = run(small(&[FILL_1PCT]), vec![req(0, 0, 1, Op::Read)]);
    assert_eq!(log[0].latency_ns(), FW + TR_LSB + KIB4 + ECC);
    assert_eq!(s["raf"], 4.0, "one 16 KiB page sensed for 4 KiB asked");
    // The full-page policy moves 16 KiB.
    let (log, _) = run(
        small(&[FILL_1PCT, "ftl.read_policy.policy=full"]),
        vec![req(0, 0, 1, Op::Read)],
    );
    assert_eq!(log[0].latency_ns(), FW + TR_LSB + 4 * KIB4 + ECC);
}

#[test]
fn page_type_sets_the_sensing_time() {
    // Unit 32 is on page 8 of the stream: plane 0 again, page index 1 of its block (CSB).
    let (log, _) = run(small(&[FILL_1PCT]), vec![req(0, 32, 1, Op::Read)]);
    assert_eq!(log[0].latency_ns(), FW + 70_000 + KIB4 + ECC);
}

#[test]
fn a_read_spanning_pages_completes_with_its_last_page() {
    // Units 2..6 span page 0 (units 2, 3 → plane 0, die 0, channel 0) and page 1 (units 4, 5 →
    // plane 4, die 2, channel 1): two commands in parallel, 8 KiB each.
    let (log, s) = run(small(&[FILL_1PCT]), vec![req(0, 2, 4, Op::Read)]);
    assert_eq!(log[0].latency_ns(), FW + TR_LSB + 2 * KIB4 + ECC);
    assert_eq!(s["flash_ops"]["read"]["host"], 2);
}

#[test]
fn two_reads_on_one_die_serialize_sensing() {
    // Units 0 (page 0, plane 0) and 16 (page 4, plane 1): both on die 0.
    // The die stays busy until the first page register has been emptied over the bus.
    let reqs = vec![req(0, 0, 1, Op::Read), req(0, 16, 1, Op::Read)];
    let (log, _) = run(small(&[FILL_1PCT]), reqs);
    assert_eq!(latency_of(&log, 0), FW + TR_LSB + KIB4 + ECC);
    assert_eq!(
        latency_of(&log, 16),
        FW + TR_LSB + KIB4 + TR_LSB + KIB4 + ECC
    );
}

#[test]
fn reads_on_two_dies_of_one_channel_overlap_sensing_and_serialize_transfers() {
    // Unit 0: page 0 → die 0 (channel 0, way 0). Unit 8: page 2 → die 1 (channel 0, way 1).
    let reqs = vec![req(0, 0, 1, Op::Read), req(0, 8, 1, Op::Read)];
    let (log, _) = run(small(&[FILL_1PCT]), reqs);
    assert_eq!(latency_of(&log, 0), FW + TR_LSB + KIB4 + ECC);
    assert_eq!(latency_of(&log, 8), FW + TR_LSB + 2 * KIB4 + ECC);
    // On two channels (unit 4: page 1 → channel 1) nothing is shared.
    let reqs = vec![req(0, 0, 1, Op::Read), req(0, 4, 1, Op::Read)];
    let (log, _) = run(small(&[FILL_1PCT]), reqs);
    assert_eq!(latency_of(&log, 4), FW + TR_LSB + KIB4 + ECC);
}

#[test]
fn one_page_program_with_program_ack() {
    // A 16 KiB write fills the stream's first page (plane 0, LSB): bus in, then tPROG.
    let (log, s) = run(
        small(&["ftl.write_ack=\"program\""]),
        vec![req(0, 100, 4, Op::Write)],
    );
    assert_eq!(log[0].latency_ns(), FW + 4 * KIB4 + TPROG_LSB);
    assert_eq!(s["flash_ops"]["program"]["host"], 1);
    // With buffer acknowledgement the host sees only the firmware time.
    let (log, _) = run(small(&[]), vec![req(0, 100, 4, Op::Write)]);
    assert_eq!(log[0].latency_ns(), FW);
}

/// NVMe over PCIe 3.0 x4 with 128-byte packets carrying 28 bytes of overhead each: a message of
/// `bytes` payload takes ceil(ceil(wire bytes / 4 lanes) × 130 / 128) ns.
mod pcie3_x4 {
    /// Doorbell (2 + 28 bytes: 8 per lane), a read request (4 + 28), the 64-byte SQE (92: 23).
    pub const SUBMIT: u64 = 9 + 9 + 24;
    /// A 4 KiB payload: 32 packets of 156 bytes, 1248 per lane.
    pub const DATA_4K: u64 = 1268;
    /// The 16-byte CQE (44 bytes: 11 per lane).
    pub const CQE: u64 = 12;
    /// A device read of host memory: its request, then the data.
    pub const FETCH_4K: u64 = 9 + DATA_4K;
}

#[test]
fn the_host_interface_carries_commands_data_and_completions() {
    use pcie3_x4::*;
    let nvme = "host_interface.protocol=\"nvme\"";
    // A read: the command crosses, the device reads, the data and the CQE cross back.
    let (log, _) = run(small(&[FILL_8_PAGES, nvme]), vec![req(0, 0, 1, Op::Read)]);
    let device = FW + TR_LSB + KIB4 + ECC;
    assert_eq!(log[0].latency_ns(), SUBMIT + device + DATA_4K + CQE);
    // A buffered write: the command and its data cross, then the firmware, then the CQE.
    let (log, _) = run(small(&[nvme]), vec![req(0, 100, 1, Op::Write)]);
    assert_eq!(log[0].latency_ns(), SUBMIT + FETCH_4K + FW + CQE);
    // Two reads at once on two channels (pages 0 and 1): the second command crosses 24 ns after
    // the first (behind its doorbell and SQE), both dies finish within those 24 ns, and the
    // second's data waits on the link to the host for the first's data and CQE.
    let (log, _) = run(
        small(&[FILL_8_PAGES, nvme]),
        vec![req(0, 0, 1, Op::Read), req(0, 4, 1, Op::Read)],
    );
    let first = SUBMIT + device + DATA_4K + CQE;
    assert_eq!(latency_of(&log, 0), first);
    assert_eq!(latency_of(&log, 4), first + DATA_4K + CQE);
}

#[test]
fn a_partial_page_is_programmed_at_the_buffer_timeout_or_at_the_end() {
    let timeout = 200_000;
    // A later trim keeps the flow open, so only the timeout can flush the lone unit.
    let (log, s) = run(
        small(&[
            "ftl.write_ack=\"program\"",
            &format!("ftl.write_buffer_timeout_ns={timeout}"),
        ]),
        vec![req(0, 100, 1, Op::Write), req(10_000_000, 500, 1, Op::Trim)],
    );
    assert_eq!(latency_of(&log, 100), FW + timeout + 4 * KIB4 + TPROG_LSB);
    assert_eq!(s["write_buffer"]["padded_slots"], 3);
    // Without a timeout the end of the input flushes it at once.
    let (log, _) = run(
        small(&["ftl.write_ack=\"program\""]),
        vec![req(0, 100, 1, Op::Write)],
    );
    assert_eq!(log[0].latency_ns(), FW + 4 * KIB4 + TPROG_LSB);
}

/// Five pages written at once after 8 preconditioned pages: pages 8 and 12 go to die 0 (planes
/// 0 and 1, page index 1 = CSB, tPROG 600 µs); a read of unit 0 (die 0) arrives at 30 µs.
fn read_behind_programs(read_priority: bool) -> u64 {
    let cfg = small(&[
        FILL_8_PAGES,
        &format!("scheduler.read_priority={read_priority}"),
    ]);
    let reqs = vec![req(0, 1000, 20, Op::Write), req(30_000, 0, 1, Op::Read)];
    let (log, _) = run(cfg, reqs);
    latency_of(&log, 0)
}

#[test]
fn read_priority_lets_a_read_overtake_queued_programs() {
    const TPROG_CSB: u64 = 600_000;
    // Page 8: bus in 1 µs → 17.384 µs, tPROG → 617.384 µs. Page 12 queues behind it on die 0.
    let page8_done = FW + 4 * KIB4 + TPROG_CSB;
    // FIFO: page 12 (bus in, tPROG) runs before the read.
    let page12_done = page8_done + 4 * KIB4 + TPROG_CSB;
    assert_eq!(
        read_behind_programs(false),
        page12_done + TR_LSB + KIB4 + ECC - 30_000
    );
    // Read priority: the read runs as soon as page 8's program ends (no program suspension).
    assert_eq!(
        read_behind_programs(true),
        page8_done + TR_LSB + KIB4 + ECC - 30_000
    );
}

#[test]
fn multiplane_reads_share_one_sensing_and_move_back_to_back() {
    // Units 0 and 16: page index 0 of planes 0 and 1 of die 0 — a multi-plane pair.
    let reqs = vec![req(0, 0, 1, Op::Read), req(0, 16, 1, Op::Read)];
    let (log, s) = run(small(&[FILL_1PCT, "scheduler.multiplane=true"]), reqs);
    for unit in [0, 16] {
        assert_eq!(latency_of(&log, unit), FW + TR_LSB + 2 * KIB4 + ECC);
    }
    assert_eq!(s["flash_ops"]["read"]["host"], 2);
    // Units 0 and 20 are on planes 0 and 1 but at page indices 0 and 1: no pairing.
    // (Unit 20 = stream page 5 → plane 5, die 2: pick unit 48 = page 12 → plane 1, index 1.)
    let reqs = vec![req(0, 0, 1, Op::Read), req(0, 48, 1, Op::Read)];
    let (log, _) = run(small(&[FILL_1PCT, "scheduler.multiplane=true"]), reqs);
    assert_eq!(
        latency_of(&log, 48),
        FW + TR_LSB + KIB4 + 70_000 + KIB4 + ECC
    );
}

#[test]
fn an_slc_mode_region_on_tlc_dies_has_its_own_timing_and_page_count() {
    // Region 0 (where writes go) is SLC mode: 48 TLC pages per block become 16 SLC pages, one per
    // wordline, all of one page type.
    let cfg = small(&[
        FILL_1PCT,
        "geometry.regions=[{name=\"slc\", cell_mode=\"slc\", blocks_per_plane=16}, \
         {name=\"main\", cell_mode=\"tlc\", blocks_per_plane=0}]",
        "timing.slc={tr_ns=20000, tprog_ns=200000, tbers_ns=2000000}",
        // Host data lives in the small SLC region only, so the logical capacity must fit there.
        "ftl.overprovisioning_ratio=0.95",
    ]);
    // Unit 32 is on page 8 (plane 0, page index 1): a CSB page on TLC, an SLC page here.
    // (1% of the 4,096-unit logical space is 41 units: pages 0..10.)
    let (log, _) = run(cfg.clone(), vec![req(0, 32, 1, Op::Read)]);
    assert_eq!(log[0].latency_ns(), FW + 20_000 + KIB4 + ECC);
    let g = ssdlab::device::geometry(&cfg);
    assert_eq!(g.regions[0].pages_per_block, 16);
    assert_eq!(g.regions[1].pages_per_block, 48);
    assert_eq!(g.regions[1].blocks_per_plane, 48);
}

/// The firmware's cores (`timing.firmware_cores`): two reads arriving together on two dies of
/// two channels each take `FW` of firmware; on one core the second waits for the first's.
#[test]
fn firmware_cores_queue_commands_and_none_add_latency_only() {
    let reads = || vec![req(0, 0, 1, Op::Read), req(0, 4, 1, Op::Read)];
    let alone = FW + TR_LSB + KIB4 + ECC;
    for (cores, second) in [("0", alone), ("2", alone), ("1", alone + FW)] {
        let sets = [FILL_1PCT, &format!("timing.firmware_cores={cores}")];
        let (log, s) = run(small(&sets), reads());
        assert_eq!(
            (latency_of(&log, 0), latency_of(&log, 4)),
            (alone, second),
            "{cores} cores"
        );
        // Reported with cores: each command's core time, and the second's wait on one core.
        match cores {
            "0" => assert!(s.get("firmware").is_none()),
            _ => {
                let f = &s["firmware"];
                assert_eq!(
                    (f["commands"].as_u64(), f["busy_ns"].as_u64()),
                    (Some(2), Some(2 * FW))
                );
                let wait = if cores == "1" { FW as f64 / 2.0 } else { 0.0 };
                assert_eq!(f["mean_wait_ns"].as_f64(), Some(wait), "{f}");
            }
        }
    }
    // Cores with no firmware time to serve are refused, naming the key.
    let e = ssdlab::config::Config::resolve(
        "default",
        None,
        &[
            "timing.firmware_cores=2".into(),
            "timing.firmware_ns=0".into(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("timing.firmware_cores"), "{e}");
}
