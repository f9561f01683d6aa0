//! The DRAM data cache (`data_cache.rs`): what it serves, and when.

use super::*;

const WRITE_CACHE: &str = "data_cache={policy=\"write\"}";
const READ_CACHE: &str = "data_cache={policy=\"read\", capacity_kib=64}";
/// A 4 KiB access of MQSim's default DRAM: tRCD + tCL + 4096 / 2 × 10 ns.
const DRAM_4K_NS: u64 = 26 + 20_480;
const FIRMWARE_NS: u64 = 1_000;

use super::unit_request as request;

/// A write cache acknowledges a write once its data is in DRAM, and a read of data still in the
/// write buffer is a DRAM read, queued behind the write on the one channel.
#[test]
fn a_write_cache_times_writes_and_buffered_reads_by_the_dram() {
    let trace = vec![request(0, Op::Write, 5), request(10, Op::Read, 5)];
    let (off, _) = latencies(&[], trace.clone());
    assert_eq!(off, [FIRMWARE_NS, FIRMWARE_NS]);
    let (on, sim) = latencies(&[WRITE_CACHE], trace);
    assert_eq!(on[0], FIRMWARE_NS + DRAM_4K_NS);
    // The read reaches the FTL at 11 µs and waits for the write's access to end.
    assert_eq!(on[1], FIRMWARE_NS + DRAM_4K_NS + DRAM_4K_NS - 10_000);
    assert_eq!(sim.dev.stats.buffer_hit_units, 1);
    let c = sim.data_cache.as_ref().unwrap().stats;
    assert_eq!((c.dram_accesses, c.dram_bytes), (2, 8192));
}

/// A read cache serves a unit a read brought in from DRAM, with no flash read; a write of the
/// unit drops the copy, and the unit is read from flash again once programmed.
#[test]
fn a_read_cache_serves_units_reads_brought_in_until_written() {
    let trace = vec![
        request(0, Op::Read, 7),
        request(1_000, Op::Read, 7),
        request(2_000, Op::Write, 7),
        // Other writes fill the open page of unit 7 (4 units a page) so it is programmed.
        request(2_001, Op::Write, 8),
        request(2_002, Op::Write, 9),
        request(2_003, Op::Write, 10),
        request(10_000, Op::Read, 7),
    ];
    let (lat, sim) = latencies(&[READ_CACHE], trace.clone());
    assert_eq!(lat[1], FIRMWARE_NS + DRAM_4K_NS);
    assert!(lat[0] > lat[1] && lat[6] > lat[1], "{lat:?}");
    let c = sim.data_cache.as_ref().unwrap().stats;
    assert_eq!(c.read_hit_units, 1);
    // Read 0 and read 6 each brought unit 7 in.
    assert_eq!(c.inserted_units, 2);
    assert_eq!(
        sim.dev.stats.ops[OpKind::Read as usize][OpSource::Host.index()],
        2
    );
    let (off, sim) = latencies(&[], trace);
    assert_eq!(
        sim.dev.stats.ops[OpKind::Read as usize][OpSource::Host.index()],
        3
    );
    assert_eq!(off[1], off[0]);
}

/// A write cache's acknowledgement contradicts one on program.
#[test]
fn a_write_cache_is_refused_with_acknowledgement_on_program() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let mut table: toml::Table = text.parse().unwrap();
    crate::config::apply_override(&mut table, WRITE_CACHE).unwrap();
    crate::config::apply_override(&mut table, "ftl.write_ack=\"program\"").unwrap();
    let e = Config::from_toml_str(&toml::to_string(&table).unwrap(), path)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("data_cache.policy") && e.contains("write_ack"),
        "{e}"
    );
}

/// A read cache of more units than the logical capacity has (here of `capacity_kib` past
/// u64::MAX bytes) is capped at it, taking its room as units come, and runs exactly as a cache
/// of the logical capacity: 294,912 KiB, the small device's 73,728 units of 4 KiB.
#[test]
fn a_read_cache_larger_than_the_logical_capacity_runs_as_one_of_it() {
    let run = |kib: u64| {
        let cache = format!("data_cache={{policy=\"read\", capacity_kib={kib}}}");
        let sets = ["precondition.fill_fraction=0.5", &cache];
        let mut s = super::summary_without_config(&sets, super::random_writes(400, 4096, 5));
        assert_eq!(s["data_cache"]["capacity_units"], 73_728);
        let capped = s["data_cache"].as_object_mut().unwrap().remove("capped");
        (capped.unwrap(), s)
    };
    let (capped, huge) = run(i64::MAX as u64);
    let (exact_capped, exact) = run(294_912);
    assert_eq!((capped, exact_capped), (true.into(), false.into()));
    assert!(
        exact["data_cache"]["read_hit_units"].as_u64() > Some(0),
        "{exact}"
    );
    assert_eq!(huge, exact);
}
