//! Engine tests that need the engine's insides: an exact GC copy and erase, and the integrity
//! oracle catching a planted GC bug.

use super::*;
use crate::config::ReplayMode;
use crate::trace::TraceRequest;

fn small(sets: &[&str]) -> Config {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml");
    let mut table: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
    for s in sets {
        crate::config::apply_override(&mut table, s).unwrap();
    }
    Config::from_toml_str(&toml::to_string(&table).unwrap(), path).unwrap()
}

fn verify() -> RunOptions {
    RunOptions {
        verify: true,
        request_log: false,
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
                sim.ftl.unmap(lpn);
                sim.ftl.oracle.as_mut().unwrap().versions[lpn as usize] = 0;
            }
        }
    }
    assert_eq!(sim.ftl.blocks[0].valid_units, 1);
    sim.start_gc(0, 0, OpSource::Gc);
    sim.run().unwrap();
    // Read 4 KiB of an LSB page (dma), decode, program a padded page (LSB of a fresh block), erase.
    let expected = 50_000 + 4096 + 2_000 + 16_384 + 500_000 + 3_000_000;
    assert_eq!(sim.device.gc_busy_ns, expected);
    assert_eq!(sim.device.gc_copied_units, 1);
    assert_eq!(sim.ftl.blocks[0].state, crate::ftl::BlockState::Free);
    assert_eq!(sim.ftl.blocks[0].erase_count, 1);
    // Unit 0 now lives in plane 0's GC block, page 0.
    let slot = match sim.ftl.lookup(0) {
        crate::ftl::Location::Flash(s) => s,
        other => panic!("unit 0 is {other:?}"),
    };
    assert_eq!(sim.ftl.geometry.block_of_slot(slot), 1);
    assert_eq!(sim.ftl.oracle.as_ref().unwrap().violations, 0);
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
    sim.planted_gc_remap_bug = planted;
    sim.run().unwrap();
    assert!(
        sim.device.gc_invocations > 0,
        "the workload must make GC run"
    );
    sim.ftl.oracle.as_ref().unwrap().violations
}

#[test]
fn the_oracle_is_clean_under_gc_and_catches_a_planted_remap_bug() {
    assert_eq!(run_with_gc(false), 0);
    assert!(run_with_gc(true) > 0);
}
