//! A mapping table on flash behind a cached mapping table (`mapping.rs`).

use super::*;
use crate::ftl::Location;

/// The small device's table: 6-byte CMT entries, 4-byte translation entries (1024 a 4 KiB
/// translation page); `kib` of CMT.
fn demand(kib: u64) -> String {
    format!("ftl.mapping_cache={{policy=\"demand\", capacity_kib={kib}}}")
}

fn read(at_us: u64, unit: u64) -> TraceRequest {
    super::unit_request(at_us, Op::Read, unit)
}

fn mapping_ops(sim: &Simulation, kind: OpKind) -> u64 {
    sim.dev.stats.ops[kind as usize][OpSource::Mapping.index()]
}

/// A read whose entry is not held first reads the entry's codeword of its translation page
/// (an LSB page: 50 µs, 2 KiB moved in 2 µs, decoded in 2 µs); a later read of the unit finds
/// its entry held. The CMT holds entries, not pages: a unit beside it misses too.
#[test]
fn a_miss_reads_the_translation_page_before_the_data() {
    let fill = "precondition.fill_fraction=0.5";
    let trace = vec![read(0, 10), read(1_000, 10), read(2_000, 11)];
    let (all, _) = latencies(&[fill], trace.clone());
    let (lat, sim) = latencies(&[fill, &demand(64)], trace);
    let mapping_read = 50_000 + 2_048 + 2_000;
    assert_eq!(lat, [all[0] + mapping_read, all[1], all[2] + mapping_read]);
    let m = sim.mapping.as_ref().unwrap();
    assert_eq!((m.cache.stats.hits, m.cache.stats.misses), (1, 2));
    assert_eq!(mapping_ops(&sim, OpKind::Read), 2);
    assert_eq!(mapping_ops(&sim, OpKind::Program), 0);
    // 73,728 host units: 72 translation pages past them, on flash from the start.
    assert_eq!(sim.dev.ftl.logical_units - sim.dev.ftl.host_units, 72);
    for unit in sim.dev.ftl.host_units..sim.dev.ftl.logical_units {
        assert!(
            matches!(sim.dev.ftl.lookup(unit), Location::Flash(_)),
            "{unit}"
        );
    }
}

/// Reads of one translation page's entries while it loads wait for that one read.
#[test]
fn reads_of_a_page_being_loaded_join_its_read() {
    let fill = "precondition.fill_fraction=0.5";
    let trace = vec![read(0, 10), read(1, 20), read(2, 30)];
    let (_, sim) = latencies(&[fill, &demand(64)], trace);
    assert_eq!(mapping_ops(&sim, OpKind::Read), 1);
    assert_eq!(sim.mapping.as_ref().unwrap().cache.stats.misses, 3);
}

/// Changed entries pushed out of a small CMT write their translation pages anew (counted as
/// mapping programs), through GC-active overwrites, and every unit reads back as written.
#[test]
fn dirty_entries_pushed_out_write_their_pages_through_gc() {
    let sets = [
        "precondition.fill_fraction=0.9",
        "precondition.overwrite_fraction=0.3",
        // 1 KiB: 170 entries.
        &demand(1),
    ];
    let units = (0.9 * 73728.0) as u64;
    let trace = super::random_writes(4000, units, 3);
    let (_, sim) = latencies(&sets, trace);
    let m = sim.mapping.as_ref().unwrap();
    assert!(m.cache.stats.dirty_evictions > 100, "{:?}", m.cache.stats);
    assert_eq!(m.stats.page_writes, m.cache.stats.dirty_evictions);
    assert!(mapping_ops(&sim, OpKind::Program) > 0);
    assert!(mapping_ops(&sim, OpKind::Read) > 0);
    assert!(sim.dev.stats.gc_invocations > 0);
    for unit in sim.dev.ftl.host_units..sim.dev.ftl.logical_units {
        assert!(
            !matches!(sim.dev.ftl.lookup(unit), Location::Unmapped),
            "{unit}"
        );
    }
}

/// GC whose copies' entries, pushed out of a CMT of a few entries, write back as many
/// translation pages as its random victims free never climbs back to its threshold: the run
/// stops, naming the CMT's capacity, instead of running for ever.
#[test]
fn gc_that_only_feeds_its_own_write_backs_is_stopped() {
    let sets = [
        "precondition.fill_fraction=0.9",
        "precondition.overwrite_fraction=0.3",
        "ftl.gc_victim={policy=\"randomized_greedy\", sample_size=1}",
        &demand(1),
    ];
    let units = (0.9 * 73728.0) as u64;
    let flow = Flow::new(
        "f".into(),
        super::random_writes(4000, units, 3),
        ReplayMode::Open,
        1,
        1.0,
        0,
    );
    let mut sim = Simulation::new(small(&sets), vec![flow], RunOptions::default()).unwrap();
    let e = sim.run().unwrap_err().to_string();
    assert!(
        e.contains("ftl.mapping_cache.capacity_kib") && e.contains("no host request"),
        "{e}"
    );
}

/// A CMT of more entries than the table has (here of `capacity_kib` past u64::MAX bytes) is
/// capped at the table, taking its room as entries come, and runs exactly as a CMT of the
/// table: 432 KiB of 6-byte entries, the small device's 73,728 units.
#[test]
fn a_cmt_larger_than_the_table_runs_as_one_of_the_table() {
    let run = |kib: u64| {
        let sets = ["precondition.fill_fraction=0.5", &demand(kib)];
        let mut s = super::summary_without_config(&sets, super::random_writes(400, 4096, 5));
        assert_eq!(s["mapping_cache"]["cmt_entries"], 73_728);
        let capped = s["mapping_cache"].as_object_mut().unwrap().remove("capped");
        (capped.unwrap(), s)
    };
    let (capped, huge) = run(i64::MAX as u64);
    let (exact_capped, exact) = run(432);
    assert_eq!((capped, exact_capped), (true.into(), false.into()));
    assert!(exact["mapping_cache"]["hits"].as_u64() > Some(0), "{exact}");
    assert_eq!(huge, exact);
}
