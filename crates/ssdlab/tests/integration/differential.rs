//! Differential property test (redb-style): random write/trim/read sequences on the small device
//! under GC pressure, with the oracle on; afterwards a plain model built by this test from the
//! same sequence (per unit: the last version written, and whether a trim covered it whole since)
//! must agree with what the FTL's mapping leads to for every unit, whatever GC moved in between.
//! Requests are in 512-byte sectors, so they start and end inside units: a trim of part of a
//! unit must leave it mapped. The second property runs PR-SSD's mapping (compressed, merged,
//! zero, raw and split logical pages) against the same model.

use crate::common;

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use ssdlab::config::ReplayMode;
use ssdlab::sim::{Flow, RunOptions, Simulation};
use ssdlab::trace::{Op, TraceRequest};

/// Units the workload touches: 20% of the 73,728-unit test device, which is preconditioned to
/// 90% with random overwrites so free blocks are scarce. At least ~3,000 written units (more
/// than one block per plane) make GC run in every case.
const SPAN_UNITS: u64 = 14_000;

const SECTORS_PER_UNIT: u64 = 8;

fn op_strategy() -> impl Strategy<Value = (u8, u64, u64, u64)> {
    // (kind 0..10, first sector, sectors, gap ns): whole units three times in four, else any
    // sectors.
    (
        0u8..10,
        0..(SPAN_UNITS - 8) * SECTORS_PER_UNIT,
        1u64..8 * SECTORS_PER_UNIT,
        0u64..40_000,
    )
        .prop_map(|(kind, first, sectors, gap)| {
            if gap % 4 == 0 {
                (kind, first, sectors, gap)
            } else {
                let whole = |s: u64| s / SECTORS_PER_UNIT * SECTORS_PER_UNIT;
                (
                    kind,
                    whole(first),
                    whole(sectors).max(SECTORS_PER_UNIT),
                    gap,
                )
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn mapping_agrees_with_a_reference_model(
        ops in proptest::collection::vec(op_strategy(), 1200..2500),
        victim in prop_oneof![Just("greedy"), Just("cost_benefit"), Just("random")],
        ack in prop_oneof![Just("buffer"), Just("program")],
        priority in any::<bool>(),
        multiplane in any::<bool>(),
    ) {
        let config = common::small(&[
            &format!("ftl.gc_victim.policy=\"{victim}\""),
            &format!("ftl.write_ack=\"{ack}\""),
            &format!("scheduler.read_priority={priority}"),
            &format!("scheduler.multiplane={multiplane}"),
            "ftl.write_buffer_timeout_ns=300000",
            "ftl.wear_leveling.threshold_erases=3",
            "precondition.fill_fraction=0.9",
            "precondition.pattern=\"random\"",
            "precondition.overwrite_fraction=0.5",
        ]);
        check(config, 4096, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, .. ProptestConfig::default() })]

    /// The same under PR-SSD: 16 KiB logical pages compressed by DPC over real-looking content
    /// with zero and partly zero pages, merged 12 to a page, failed compressions split across the
    /// (four) channels, read with partial reads.
    #[test]
    fn pr_ssd_mapping_agrees_with_a_reference_model(
        ops in proptest::collection::vec(op_strategy(), 1200..2500),
        split in prop_oneof![Just("decision"), Just("all"), Just("none")],
        ack in prop_oneof![Just("buffer"), Just("program")],
        multiplane in any::<bool>(),
    ) {
        let config = common::small(&[
            "geometry.channels=4",
            "geometry.ways_per_channel=1",
            "ftl.mapping_unit_kib=16",
            "ftl.max_units_per_page=12",
            "ftl.reduction={policy=\"compress\", codec=\"dpc\", partial_zero_filter=true}",
            "ftl.read_policy.policy=\"partial\"",
            &format!("ftl.split.policy=\"{split}\""),
            &format!("ftl.write_ack=\"{ack}\""),
            &format!("scheduler.multiplane={multiplane}"),
            "ftl.write_buffer_timeout_ns=300000",
            "ftl.wear_leveling.threshold_erases=3",
            // Mostly incompressible, so that the device is as full as the plain one and GC runs.
            "content={source=\"synthetic\", mix=[{fraction=0.8, compressibility=0.0}, \
             {fraction=0.2, compressibility=0.8}], zero_unit_fraction=0.03, \
             partial_zero_fraction=0.2, partial_zero_block_bytes=4096}",
            "precondition.fill_fraction=0.95",
            "precondition.pattern=\"random\"",
            "precondition.overwrite_fraction=1.0",
        ]);
        check(config, 16384, &ops)?;
    }
}

/// Replay `ops` on a device built from `config` (mapping units of `unit_bytes`) with the
/// oracle on, and compare the mapping with the model's.
fn check(
    config: ssdlab::config::Config,
    unit_bytes: u64,
    ops: &[(u8, u64, u64, u64)],
) -> Result<(), TestCaseError> {
    let mut t = 0;
    let requests: Vec<TraceRequest> = ops
        .iter()
        .map(|&(kind, first, sectors, gap)| {
            t += gap;
            let op = match kind {
                0..=5 => Op::Write,
                6 => Op::Trim,
                _ => Op::Read,
            };
            TraceRequest {
                arrival_ns: t,
                offset_bytes: first * 512,
                size_bytes: sectors * 512,
                op,
                stream: 0,
            }
        })
        .collect();
    let flow = Flow::new("p".into(), requests.clone(), ReplayMode::Open, 1, 1.0, 0);
    let opts = RunOptions {
        verify: true,
        request_log: false,
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(config, vec![flow], opts).unwrap();
    // The model starts from the preconditioned state (unit → last version, and the units
    // mapped) …
    let oracle = sim.ftl().oracle.as_ref().unwrap();
    let mut last: HashMap<u32, u32> = (0..sim.ftl().logical_units)
        .filter(|&l| oracle.versions[l as usize] != 0)
        .map(|l| (l, oracle.versions[l as usize]))
        .collect();
    let mut mapped: HashSet<u32> = last.keys().copied().collect();
    // … and replays the sequence in arrival order (the engine admits writes in that order).
    for r in &requests {
        let end = r.offset_bytes + r.size_bytes;
        for lpn in r.offset_bytes / unit_bytes..end.div_ceil(unit_bytes) {
            let whole = r.offset_bytes <= lpn * unit_bytes && (lpn + 1) * unit_bytes <= end;
            let lpn = lpn as u32;
            match r.op {
                Op::Write => {
                    *last.entry(lpn).or_insert(0) += 1;
                    mapped.insert(lpn);
                }
                Op::Trim if whole => {
                    mapped.remove(&lpn);
                }
                Op::Trim | Op::Read => {}
            }
        }
    }
    sim.run().unwrap();
    prop_assert!(sim.stats().gc_invocations > 0, "no GC ran");
    for lpn in 0..sim.ftl().logical_units {
        let expected = if mapped.contains(&lpn) { last[&lpn] } else { 0 };
        prop_assert_eq!(sim.ftl().stored_version(lpn), expected, "unit {}", lpn);
    }
    let o = sim.ftl().oracle.as_ref().unwrap();
    prop_assert_eq!(o.violations, 0, "{:?}", o.messages);
    prop_assert!(o.checked_reads > 0);
    Ok(())
}
