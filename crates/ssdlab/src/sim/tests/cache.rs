//! An SLC-mode cache in front of the high-density region (IPU's "hybrid SLC/MLC" baseline):
//! host writes land in the cache region, and GC of a cache block evicts its valid data to the
//! main region, in preconditioning and in timed runs.

use super::*;
use crate::config::Config;
use crate::ftl::Location;
use crate::sim::gc_job::{CopiesTo, Owner};

/// The `ipu` preset scaled down: 2 × 2 × 2 × 2 planes of 60 blocks × 32 pages, 6 of them
/// SLC-mode (10%) per plane.
fn hybrid(sets: &[&str]) -> Config {
    let mut all = vec![
        "geometry.blocks_per_plane=60",
        "geometry.pages_per_block=32",
        "geometry.regions=[{name=\"main\", cell_mode=\"mlc\", blocks_per_plane=54}, \
         {name=\"slc\", cell_mode=\"slc\", blocks_per_plane=6}]",
        "precondition.trace_footprint=false",
        // 20% spare (the preset's 10%, less what GC keeps free in two small regions).
        "ftl.overprovisioning_ratio=0.2",
    ];
    all.extend_from_slice(sets);
    let all: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    Config::resolve("ipu", None, &all).unwrap()
}

const CACHE: [&str; 2] = [
    "ftl.placement={policy=\"cache\", region=\"slc\"}",
    "ftl.migration={policy=\"evict\", from_region=\"slc\", to_region=\"main\"}",
];

/// Units whose current copy is in each region (main, slc).
fn units_by_region(sim: &Simulation) -> [u32; 2] {
    let mut n = [0; 2];
    for lpn in 0..sim.dev.ftl.logical_units {
        if let Location::Flash(slot) = sim.dev.ftl.lookup(lpn) {
            let g = &sim.dev.ftl.geometry;
            n[g.region_of(g.block_of_slot(slot))] += 1;
        }
    }
    n
}

/// Random 4 KiB writes over the whole logical space, 20 µs apart.
fn random_writes(sim_units: u32, n: usize) -> Vec<Flow> {
    let mut x: u64 = 12345;
    let requests = (0..n)
        .map(|i| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            TraceRequest {
                arrival_ns: i as u64 * 20_000,
                offset_bytes: (x >> 33) % sim_units as u64 * 4096,
                size_bytes: 4096,
                op: Op::Write,
                stream: 0,
            }
        })
        .collect();
    vec![Flow::new("w".into(), requests, ReplayMode::Open, 1, 1.0, 0)]
}

#[test]
fn preconditioning_through_the_cache_leaves_the_data_evicted_to_main() {
    let mut sets = CACHE.to_vec();
    sets.push("precondition.fill_fraction=0.8");
    let sim = Simulation::new(hybrid(&sets), vec![], verify()).unwrap();
    let [main, slc] = units_by_region(&sim);
    let cache_units = 6 * 32 * 4 * 16;
    assert!(
        slc <= cache_units,
        "{slc} units in a cache of {cache_units}"
    );
    assert_eq!(
        main + slc,
        (0.8 * sim.dev.ftl.logical_units as f64).round() as u32
    );
    assert!(main > 10 * slc, "main {main}, slc {slc}");
    // Without the cache everything is written to region 0 (main) directly.
    let plain = Simulation::new(
        hybrid(&["precondition.fill_fraction=0.8"]),
        vec![],
        verify(),
    )
    .unwrap();
    assert_eq!(units_by_region(&plain)[1], 0);
}

#[test]
fn timed_writes_land_in_the_cache_and_its_gc_evicts_them() {
    let mut sets = CACHE.to_vec();
    sets.push("precondition.fill_fraction=0.8");
    let config = hybrid(&sets);
    let units = Simulation::new(config.clone(), vec![], RunOptions::default())
        .unwrap()
        .dev
        .ftl
        .logical_units;
    let mut sim = Simulation::new(config, random_writes(units, 20_000), verify()).unwrap();
    let before = units_by_region(&sim);
    sim.run().unwrap();
    let after = units_by_region(&sim);
    let d = &sim.dev.stats;
    assert!(d.gc_invocations > 0);
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
    // Host data enters through the cache, and the cache's GC keeps it from filling: evicted
    // units (moved to main) are about as many as those written.
    assert!(after[1] <= 6 * 32 * 4 * 16);
    assert!(
        d.gc_copied_units > 0 && after[0] > 0,
        "{before:?} → {after:?}"
    );
}

#[test]
fn a_cache_without_eviction_cannot_hold_the_logical_capacity() {
    let e = Config::resolve(
        "ipu",
        None,
        &["ftl.placement={policy=\"cache\", region=\"slc\"}".to_string()],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("ftl.overprovisioning_ratio") && e.contains("slc"),
        "{e}"
    );
    let e = Config::resolve(
        "ipu",
        None,
        &["ftl.placement={policy=\"cache\", region=\"nope\"}".to_string()],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("ftl.placement.region") && e.contains("main, slc"),
        "{e}"
    );
}

/// IPU's degrading GC: of a cache block, the cold units (never updated) go to the main region,
/// an updated one stays in the cache, one level down.
#[test]
fn degrading_gc_sends_only_cold_data_to_main() {
    let c = hybrid(&[
        "ftl.placement={policy=\"cache\", region=\"slc\"}",
        "ftl.migration={policy=\"degrade\", from_region=\"slc\", to_region=\"main\"}",
        "ftl.write_buffer_timeout_ns=1",
        // One plane, so that the writes share a block.
        "geometry.channels=1",
        "geometry.ways_per_channel=1",
        "geometry.dies_per_way=1",
        "geometry.planes_per_die=1",
    ]);
    // Unit 1 written three times (Hot), then units 2–14 once, one-unit pages, each write done
    // before the next.
    let mut at: Vec<(u64, u64)> = vec![(1, 0), (1, 1), (1, 2)];
    at.extend((2..15).map(|u| (u, u + 1)));
    let requests = at
        .iter()
        .map(|&(unit, ms)| TraceRequest {
            arrival_ns: ms * 1_000_000,
            offset_bytes: unit * 4096,
            size_bytes: 4096,
            op: Op::Write,
            stream: 0,
        })
        .collect();
    let flow = Flow::new("w".into(), requests, ReplayMode::Open, 1, 1.0, 0);
    let mut sim = Simulation::new(c, vec![flow], verify()).unwrap();
    sim.run().unwrap();
    let region_of = |sim: &Simulation, lpn| match sim.dev.ftl.lookup(lpn) {
        Location::Flash(slot) => {
            let g = &sim.dev.ftl.geometry;
            g.region_of(g.block_of_slot(slot))
        }
        other => panic!("unit {lpn} is {other:?}"),
    };
    let block = match sim.dev.ftl.lookup(1) {
        Location::Flash(slot) => sim.dev.ftl.geometry.block_of_slot(slot),
        _ => unreachable!(),
    };
    assert!((1..15).all(|u| region_of(&sim, u) == 1), "all in the cache");
    assert_eq!(sim.dev.ftl.update_count(1), 2);
    let block_of = |sim: &Simulation, lpn| match sim.dev.ftl.lookup(lpn) {
        Location::Flash(slot) => sim.dev.ftl.geometry.block_of_slot(slot),
        _ => unreachable!(),
    };
    let cold: Vec<u32> = (2..15).filter(|&u| block_of(&sim, u) == block).collect();
    assert_eq!(cold.len(), 13, "{cold:?}");
    let pool = sim.dev.ftl.pool_of_block(block);
    sim.start_gc_job(pool, block, Owner::Room, CopiesTo::Rules { spills: false });
    sim.run().unwrap();
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
    assert_eq!(region_of(&sim, 1), 1, "the hot unit stays in the cache");
    assert_eq!(sim.dev.ftl.update_count(1), 1, "one level down");
    assert!(
        cold.iter().all(|&u| region_of(&sim, u) == 0),
        "cold units go to main"
    );
}
