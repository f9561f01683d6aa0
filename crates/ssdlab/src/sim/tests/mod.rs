//! Engine tests that need the engine's insides: an exact GC copy and erase, and the integrity
//! oracle catching a planted GC bug; `compression.rs`: reads and GC of compressed pages;
//! `split.rs`: the split FTL; `data_cache.rs`: the DRAM data cache; `mapping.rs`: the mapping table on
//! flash.

mod cache;
mod compression;
mod data_cache;
mod mapping;
mod partial_program;
mod split;

use super::*;
use crate::config::ReplayMode;
use crate::flash::OpSource;
use crate::sim::gc_job::{CopiesTo, Owner};
use crate::test_support::small;
use crate::trace::TraceRequest;

fn verify() -> RunOptions {
    RunOptions {
        verify: true,
        request_log: false,
        ..RunOptions::default()
    }
}

/// 48 pages per plane preconditioned (1536 units): block 0 of every plane is full.
const FILL_ONE_BLOCK_PER_PLANE: &str = "precondition.fill_fraction=0.0208333";

#[test]
fn gc_copy_and_erase_take_exact_die_and_bus_time() {
    let mut sim = Simulation::new(small(&[FILL_ONE_BLOCK_PER_PLANE]), vec![], verify()).unwrap();
    // Plane 0's block 0 holds stream pages 0, 8, 16, …: page index i holds units 32i..32i+3.
    // Invalidate all but unit 0 (page 0, slot 0).
    for i in 0..48u32 {
        for u in 0..4 {
            let lpn = 32 * i + u;
            if lpn != 0 {
                sim.dev.ftl.unmap(lpn);
                sim.dev.ftl.oracle.as_mut().unwrap().trim(lpn, 0, 4096);
            }
        }
    }
    assert_eq!(sim.dev.ftl.valid_space[0], 1);
    sim.start_gc_job(0, 0, Owner::Room, CopiesTo::Rules { spills: false });
    sim.run().unwrap();
    // Read 4 KiB of an LSB page (dma), decode, program a padded page (LSB of a fresh block), erase.
    let expected = 50_000 + 4096 + 2_000 + 16_384 + 500_000 + 3_000_000;
    assert_eq!(sim.dev.stats.gc_busy_ns, expected);
    assert_eq!(sim.dev.stats.gc_copied_units, 1);
    assert_eq!(sim.dev.ftl.blocks[0].state, crate::ftl::BlockState::Free);
    assert_eq!(sim.dev.ftl.blocks[0].erase_count, 1);
    // Unit 0 now lives in plane 0's GC block, page 0.
    let slot = match sim.dev.ftl.lookup(0) {
        crate::ftl::Location::Flash(s) => s,
        other => panic!("unit 0 is {other:?}"),
    };
    assert_eq!(sim.dev.ftl.geometry.block_of_slot(slot), 1);
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
}

/// Replay `requests` on the small device with `sets`, verified: each request's latency in
/// arrival order, and the simulation.
fn latencies(sets: &[&str], requests: Vec<TraceRequest>) -> (Vec<u64>, Simulation) {
    let flow = Flow::new("f".into(), requests, ReplayMode::Open, 1, 1.0, 0);
    let options = RunOptions {
        verify: true,
        request_log: true,
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(small(sets), vec![flow], options).unwrap();
    sim.run().unwrap();
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
    let mut log = sim.host.log.clone().unwrap();
    log.sort_by_key(|r| r.arrival_ns);
    (log.iter().map(|r| r.latency_ns()).collect(), sim)
}

/// The summary of `requests` replayed on the small device with `sets` (as [`latencies`]),
/// without its config echo: to compare runs of configs that differ but must run alike.
fn summary_without_config(sets: &[&str], requests: Vec<TraceRequest>) -> serde_json::Value {
    let (_, sim) = latencies(sets, requests);
    let mut s = sim.summary();
    s.as_object_mut().unwrap().remove("config");
    s
}

/// A 4 KiB request of unit `unit` at `at_us`.
fn unit_request(at_us: u64, op: Op, unit: u64) -> TraceRequest {
    TraceRequest {
        arrival_ns: at_us * 1000,
        offset_bytes: unit * 4096,
        size_bytes: 4096,
        op,
        stream: 0,
    }
}

fn random_writes(n: usize, units: u64, seed: u64) -> Vec<TraceRequest> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    (0..n)
        .map(|i| TraceRequest {
            arrival_ns: i as u64 * 20_000,
            offset_bytes: rng.gen_range(0..units) * 4096,
            size_bytes: 4096 * rng.gen_range(1..4),
            op: if rng.gen_bool(0.3) {
                Op::Read
            } else {
                Op::Write
            },
            stream: 0,
        })
        .collect()
}

fn run_with_gc(planted: bool) -> u64 {
    let cfg = small(&[
        "precondition.fill_fraction=0.9",
        "precondition.overwrite_fraction=0.3",
    ]);
    let units = (0.9 * 73728.0) as u64;
    let flow = Flow::new(
        "w".into(),
        random_writes(4000, units, 3),
        ReplayMode::Open,
        1,
        1.0,
        0,
    );
    let mut sim = Simulation::new(cfg, vec![flow], verify()).unwrap();
    sim.gc.planted_remap_bug = planted;
    sim.run().unwrap();
    assert!(
        sim.dev.stats.gc_invocations > 0,
        "the workload must make GC run"
    );
    sim.dev.ftl.oracle.as_ref().unwrap().violations
}

#[test]
fn the_oracle_is_clean_under_gc_and_catches_a_planted_remap_bug() {
    assert_eq!(run_with_gc(false), 0);
    assert!(run_with_gc(true) > 0);
}

/// Pages a GC job has in flight (reads and copy programs queued or running on its die), at most.
fn gc_pages_in_flight_peak(window: u32) -> (u32, u64) {
    let cfg = small(&[
        "precondition.fill_fraction=0.9",
        "precondition.overwrite_fraction=0.3",
        &format!("ftl.gc_copy_window_pages={window}"),
    ]);
    let units = (0.9 * 73728.0) as u64;
    let flow = Flow::new(
        "w".into(),
        random_writes(3000, units, 5),
        ReplayMode::Open,
        1,
        1.0,
        0,
    );
    let mut sim = Simulation::new(cfg, vec![flow], verify()).unwrap();
    let mut peak = 0;
    sim.run_with_progress(1, &mut |s| {
        for j in &s.gc.jobs {
            peak = peak.max(j.reads_outstanding + j.programs_outstanding);
        }
    })
    .unwrap();
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
    assert!(
        sim.dev.stats.gc_invocations > 0,
        "the workload must make GC run"
    );
    (peak, sim.dev.stats.gc_copied_units)
}

#[test]
fn gc_keeps_at_most_its_window_of_pages_in_flight() {
    for window in [1, 2, 8] {
        let (peak, copied) = gc_pages_in_flight_peak(window);
        assert!(peak <= window, "window {window}: {peak} pages in flight");
        assert!(copied > 0);
    }
    // Without a window the whole victim is read at once (MQSim's way).
    let (peak, _) = gc_pages_in_flight_peak(0);
    assert!(peak > 8, "no window: only {peak} pages in flight");
}

/// Rewrites of a small hot set: without wear levelling the blocks holding cold data are never
/// erased again and the erase-count spread grows; static wear levelling moves the cold data.
fn erase_spread_after_hot_writes(wear_leveling: bool) -> (u32, u64) {
    let cfg = small(&[
        "precondition.fill_fraction=0.7",
        &format!("ftl.wear_leveling.enabled={wear_leveling}"),
        "ftl.wear_leveling.threshold_erases=4",
    ]);
    let requests: Vec<TraceRequest> = (0..200_000u64)
        .map(|i| TraceRequest {
            arrival_ns: i * 2_000,
            offset_bytes: (i * 7919 % 2_000) * 4096,
            size_bytes: 4096,
            op: Op::Write,
            stream: 0,
        })
        .collect();
    let flow = Flow::new("hot".into(), requests, ReplayMode::Open, 1, 1.0, 0);
    let mut sim = Simulation::new(cfg, vec![flow], verify()).unwrap();
    sim.run().unwrap();
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
    let (lo, hi) = (0..sim.dev.ftl.pools.len())
        .map(|p| sim.dev.ftl.erase_spread(p))
        .fold((u32::MAX, 0), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
    (hi - lo, sim.dev.stats.wl_invocations)
}

#[test]
fn static_wear_levelling_bounds_the_erase_count_spread() {
    let (spread_off, moves_off) = erase_spread_after_hot_writes(false);
    let (spread_on, moves_on) = erase_spread_after_hot_writes(true);
    assert_eq!(moves_off, 0);
    assert!(moves_on > 0);
    assert!(
        spread_off > 4 + 2,
        "the workload must skew wear (spread {spread_off})"
    );
    assert!(
        spread_on <= 4 + 2,
        "spread {spread_on} with wear levelling (threshold 4)"
    );
}

#[test]
fn metering_charges_every_event_to_its_kind_and_changes_no_result() {
    // GC-active, with reads, writes and trims.
    let build = || {
        let cfg = small(&[
            "precondition.fill_fraction=0.9",
            "precondition.overwrite_fraction=0.3",
        ]);
        let mut requests = random_writes(3000, (0.9 * 73728.0) as u64, 7);
        for r in requests.iter_mut().step_by(50) {
            r.op = Op::Trim;
        }
        let flow = Flow::new("w".into(), requests, ReplayMode::Open, 1, 1.0, 0);
        Simulation::new(cfg, vec![flow], verify()).unwrap()
    };
    let mut plain = build();
    plain.run().unwrap();
    let mut metered = build();
    let costs = metered.run_metered().unwrap();
    assert_eq!(plain.summary(), metered.summary());
    assert_eq!(metered.dev.ftl.oracle.as_ref().unwrap().violations, 0);
    assert!(metered.dev.stats.gc_invocations > 0, "GC must run");

    use event_costs::Work;
    let events = metered.record.events_processed;
    assert_eq!(costs.count(Work::Pop), events);
    // Every kind of work but the loop's own is the handling of one event.
    let handled: u64 = Work::ALL
        .iter()
        .filter(|w| !matches!(w, Work::Pop | Work::StartDies))
        .map(|&w| costs.count(w))
        .sum();
    assert_eq!(handled, events);
    let ops = |k: OpKind, s: OpSource| metered.dev.stats.ops[k.index()][s.index()];
    // Each read command has a sensing end and a transfer end, told apart by the die's phase.
    let host_reads = ops(OpKind::Read, OpSource::Host);
    assert!(host_reads > 0);
    assert_eq!(costs.count(Work::HostReadSensed), host_reads);
    assert_eq!(costs.count(Work::HostReadTransferred), host_reads);
    let gc_reads = ops(OpKind::Read, OpSource::Gc) + ops(OpKind::Read, OpSource::Wl);
    assert!(gc_reads > 0);
    assert_eq!(costs.count(Work::GcReadSensed), gc_reads);
    assert_eq!(costs.count(Work::GcReadTransferred), gc_reads);
    let host_programs = ops(OpKind::Program, OpSource::Host);
    assert!(host_programs > 0);
    assert_eq!(costs.count(Work::HostProgramEnd), host_programs);
    let gc_programs = ops(OpKind::Program, OpSource::Gc) + ops(OpKind::Program, OpSource::Wl);
    assert!(gc_programs > 0);
    assert_eq!(costs.count(Work::GcProgramEnd), gc_programs);
    let erases: u64 = OpSource::ALL.iter().map(|&s| ops(OpKind::Erase, s)).sum();
    assert_eq!(costs.count(Work::EraseEnd), erases);
    let reads = 3000 - 3000 / 50 - metered.host.flows[0].stats.write.count();
    // Each request arrives, then (after the firmware time) its command reaches the FTL.
    assert_eq!(costs.count(Work::Arrival), 3000);
    assert_eq!(costs.count(Work::ReadCommand), reads);
    assert_eq!(costs.count(Work::UpdateCommand), 3000 - reads);
    assert!(costs.ticks(Work::Pop) > 0);
    let rows = costs.to_json(1e9);
    let share: f64 = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["share"].as_f64().unwrap())
        .sum();
    assert!((share - 1.0).abs() < 1e-3, "shares add up to {share}");
}

/// A trim of bytes 512–1536 of a 4 KiB unit once unmapped the whole unit: the bytes it did not
/// name (0–512, 1536–4096) read back as zeroes, and the oracle, which tracked whole units, saw
/// nothing wrong. The unit must stay mapped, and the oracle must flag the old behaviour.
fn write_trim_read(trim_offset: u64, trim_bytes: u64) -> Simulation {
    let at = |i: u64, offset_bytes, size_bytes, op| TraceRequest {
        arrival_ns: i * 1_000_000,
        offset_bytes,
        size_bytes,
        op,
        stream: 0,
    };
    let requests = vec![
        at(0, 0, 4096, Op::Write),
        at(1, trim_offset, trim_bytes, Op::Trim),
        at(2, 0, 4096, Op::Read),
    ];
    let flow = Flow::new("t".into(), requests, ReplayMode::Open, 1, 1.0, 0);
    let mut sim = Simulation::new(small(&[]), vec![flow], verify()).unwrap();
    sim.run().unwrap();
    sim
}

#[test]
fn a_trim_of_part_of_a_unit_keeps_its_other_bytes() {
    let sim = write_trim_read(512, 1024);
    assert_eq!(sim.dev.stats.unmapped_read_units, 0, "the unit was dropped");
    assert_eq!(sim.dev.stats.partly_trimmed_units, 1);
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
    // A trim of the whole unit unmaps it, and reading it is no violation.
    let sim = write_trim_read(0, 4096);
    assert_eq!(sim.dev.stats.unmapped_read_units, 1);
    assert_eq!(sim.dev.stats.trimmed_units, 1);
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
}

#[test]
fn the_oracle_flags_a_unit_dropped_by_a_partial_trim() {
    let mut sim = Simulation::new(small(&[]), vec![], verify()).unwrap();
    let o = sim.dev.ftl.oracle.as_mut().unwrap();
    o.write(5, 0, 4096);
    // What the FTL once did on a trim of bytes 512–1536: unmap the whole unit.
    o.trim(5, 512, 1536);
    sim.dev.ftl.unmap(5);
    sim.dev.ftl.verify_read(5, 1536, 2048);
    sim.dev.ftl.verify_read(5, 512, 1536);
    let o = sim.dev.ftl.oracle.as_ref().unwrap();
    assert_eq!(o.violations, 1, "{:?}", o.messages);
    assert!(o.messages[0].contains("sector 3"), "{:?}", o.messages);
    // Sectors trimmed only in part still hold written bytes.
    let o = sim.dev.ftl.oracle.as_mut().unwrap();
    o.write(6, 0, 4096);
    o.trim(6, 100, 4096);
    sim.dev.ftl.unmap(6);
    sim.dev.ftl.verify_read(6, 0, 512);
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 2);
}

/// A GC-heavy preconditioning of `ipu` once ran silent for two minutes: progress covered only the
/// replay. It now reports the preconditioning as its own phase, before the replay.
#[test]
fn progress_reports_preconditioning_before_the_replay() {
    let cfg = small(&[
        "precondition.fill_fraction=0.9",
        "precondition.overwrite_fraction=1.0",
    ]);
    let flow = Flow::new(
        "w".into(),
        random_writes(100, 1000, 1),
        ReplayMode::Open,
        1,
        1.0,
        0,
    );
    let mut seen: Vec<(Phase, u64, u64)> = Vec::new();
    let mut sim = Simulation::with_progress(cfg, vec![flow], verify(), &mut |p, done, total| {
        seen.push((p, done, total))
    })
    .unwrap();
    sim.run().unwrap();
    let pre: Vec<_> = seen.iter().filter(|s| s.0 == Phase::Precondition).collect();
    // 0.9 + 1.0 of 73,728 units, reported every 65,536.
    assert_eq!(pre.len(), 2, "{seen:?}");
    assert!(pre.windows(2).all(|w| w[0].1 < w[1].1));
    assert!(pre
        .iter()
        .all(|&&(_, done, total)| done <= total && total == 140_083));
}

/// A flow's stream ids reach the engine's requests: each request's log record (taken from the
/// request as it completes) carries the id its trace request had, 0 where it had none.
#[test]
fn stream_ids_survive_from_the_flow_to_the_request() {
    let streams = [7u16, 0, 65_535, 7, 1];
    let requests: Vec<TraceRequest> = streams
        .iter()
        .enumerate()
        .map(|(i, &stream)| TraceRequest {
            arrival_ns: i as u64 * 100_000,
            // Request 3 reads what request 0 wrote.
            offset_bytes: if i == 3 { 0 } else { i as u64 * 8192 },
            size_bytes: 8192,
            op: if i == 3 { Op::Read } else { Op::Write },
            stream,
        })
        .collect();
    let flow = Flow::new("t".into(), requests, ReplayMode::Open, 1, 1.0, 0);
    let options = RunOptions {
        verify: true,
        request_log: true,
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(small(&[]), vec![flow], options).unwrap();
    sim.run().unwrap();
    let mut log = sim.host.log.take().unwrap();
    log.sort_by_key(|r| r.arrival_ns);
    let logged: Vec<u16> = log.iter().map(|r| r.stream).collect();
    assert_eq!(logged, streams);
    assert!(RequestRecord::any_stream(&log));
    assert_eq!(RequestRecord::columns(true).last(), Some(&"stream"));
    assert!(!RequestRecord::columns(false).contains(&"stream"));
}

/// The log's columns read a record as `requests.csv` writes it, the latency from the two times;
/// `op` as its index in `Op::ALL` (the Parquet log's names and Python's categories).
#[test]
fn log_columns_read_a_record() {
    let r = RequestRecord {
        flow: 2,
        op: Op::Trim,
        offset_bytes: 4096,
        size_bytes: 512,
        arrival_ns: 10,
        completion_ns: 35,
        stream: 7,
    };
    let text: Vec<String> = r.fields(true).collect();
    assert_eq!(text, ["2", "trim", "4096", "512", "10", "35", "25", "7"]);
    assert_eq!(r.fields(false).count(), 7);
    for op in Op::ALL {
        let r = RequestRecord { op, ..r.clone() };
        assert_eq!(Op::ALL[Column::Op.value(&r) as usize], op);
    }
    let names: Vec<&str> = Column::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(names, RequestRecord::COLUMNS);
}

/// Every unit reads back as written and every block's valid count is its valid slots': the
/// oracle's invariants, checked over the whole device.
fn hold_to_the_oracle(sim: &mut Simulation) {
    for block in 0..sim.dev.ftl.blocks.len() as u32 {
        sim.dev.ftl.verify_block(block);
    }
    sim.dev.ftl.verify_all();
    let o = sim.dev.ftl.oracle.as_ref().unwrap();
    assert_eq!(o.violations, 0, "{:?}", o.messages);
    assert!(o.swept_units > 0);
}

/// One GC, two clocks (`ftl/gc.rs`): the small device brought to a GC-active steady state by
/// preconditioning's instant GC (a fill and two overwrites), and from empty by the timed GC
/// alone (random writes of twice the data), each held to the oracle's invariants.
#[test]
fn both_clocks_bring_the_device_to_a_steady_state_the_oracle_holds() {
    let data = (0.9 * 73728.0) as u64;
    let instant = small(&[
        "precondition.fill_fraction=0.9",
        "precondition.overwrite_fraction=2.0",
    ]);
    let mut sim = Simulation::new(instant, vec![], verify()).unwrap();
    assert!(
        sim.record.precondition.gc_invocations > 100,
        "{:?}",
        sim.record.precondition
    );
    hold_to_the_oracle(&mut sim);

    let timed = small(&["precondition.fill_fraction=0.0"]);
    let requests = random_writes(2 * data as usize, data, 11);
    let flow = Flow::new("w".into(), requests, ReplayMode::Open, 1, 1.0, 0);
    let mut sim = Simulation::new(timed, vec![flow], verify()).unwrap();
    assert_eq!(sim.record.precondition.gc_invocations, 0);
    sim.run().unwrap();
    assert!(
        sim.dev.stats.gc_invocations > 100,
        "{}",
        sim.dev.stats.gc_invocations
    );
    hold_to_the_oracle(&mut sim);
}
