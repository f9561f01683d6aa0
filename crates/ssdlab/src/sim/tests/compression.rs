//! Reads and GC of pages that hold compressed, raw-with-zeros and all-zero logical pages
//! (PR-SSD §4.2.3, Fig. 10), on pages laid out by hand so that the expected flash work is known.

use super::*;
use crate::ftl::shape::{UnitKind, UnitShape};
use crate::ftl::{Location, Writer};
use crate::sim::gc_job::{CopiesTo, Owner};

/// The small device with PR-SSD's mapping: 16 KiB logical pages compressed by DPC with the
/// partial-zero filter, up to 12 to a page, read with the 4 KiB partial read. Nothing is written
/// before the run (the tests lay pages out themselves).
fn pr_small() -> Config {
    small(&[
        "ftl.mapping_unit_kib=16",
        "ftl.max_units_per_page=12",
        "ftl.reduction={policy=\"compress\", codec=\"dpc\", partial_zero_filter=true}",
        "ftl.read_policy.policy=\"partial\"",
        "precondition.trace_footprint=false",
    ])
}

fn compressed(offset: u32, len: u32) -> UnitShape {
    UnitShape {
        kind: UnitKind::Compressed,
        offset,
        len,
        zero_bitmap: 0,
        row: 0,
    }
}

/// Lay `units` out in the next page of plane 0's host block, programmed.
fn lay_out(sim: &mut Simulation, units: &[(u32, UnitShape)]) -> u32 {
    let page = sim
        .dev
        .ftl
        .alloc_page(0, Writer::Host { stream: 0 }, 0)
        .unwrap();
    let units = units.iter().map(|&(lpn, s)| Some((lpn, 0, s))).collect();
    sim.dev.ftl.fill_page(page, &units);
    sim.dev.ftl.complete_program(page);
    page
}

/// Reads of (first byte, bytes), 1 ms apart (each ends before the next arrives).
fn reads(spans: &[(u64, u64)]) -> Vec<Flow> {
    let requests = spans
        .iter()
        .enumerate()
        .map(|(i, &(offset, size))| TraceRequest {
            arrival_ns: i as u64 * 1_000_000,
            offset_bytes: offset,
            size_bytes: size,
            op: Op::Read,
            stream: 0,
        })
        .collect();
    vec![Flow::new("r".into(), requests, ReplayMode::Open, 1, 1.0, 0)]
}

const LP: u64 = 16384;

#[test]
fn one_partial_unit_is_a_partial_read_and_several_a_full_one() {
    // Fig. 10: LPN 1 lies in the page's first 4 KiB, LPN 2 across its first and second.
    let flows = reads(&[(LP, 4096), (2 * LP, LP), (LP, 2 * LP)]);
    let mut sim = Simulation::new(pr_small(), flows, RunOptions::default()).unwrap();
    lay_out(
        &mut sim,
        &[(1, compressed(0, 3000)), (2, compressed(3000, 5000))],
    );
    sim.run().unwrap();
    let d = &sim.dev.stats;
    // LPN 1 alone: a partial read (4 KiB sensed); LPN 2: a full read; 1 and 2 asked together:
    // one read of the OR of their bitmaps, a full read.
    assert_eq!(d.ops[OpKind::Read.index()][OpSource::Host.index()], 3);
    assert_eq!(d.sensed_bytes, 4096 + 16384 + 16384);
    assert_eq!(d.reduction.decompressed_units, 4);
    assert_eq!(d.reduction.zero_read_units, 0);
}

#[test]
fn zero_partial_units_are_read_from_the_mapping_alone() {
    // LPN 5 was written all zero; LPN 6's first two partial units are zero and its other two
    // are stored raw from the start of their page (a direct-lane page of its own).
    let flows = reads(&[
        (5 * LP, LP),
        (6 * LP, 8192),
        (6 * LP + 8192, 4096),
        (6 * LP + 12288 + 512, 512),
    ]);
    let mut sim = Simulation::new(pr_small(), flows, RunOptions::default()).unwrap();
    sim.dev.ftl.map_zero(5, 0);
    assert_eq!(sim.dev.ftl.lookup(5), Location::Zero);
    let raw = UnitShape {
        zero_bitmap: 0b0011,
        ..UnitShape::raw(8192)
    };
    lay_out(&mut sim, &[(6, raw)]);
    sim.run().unwrap();
    let d = &sim.dev.stats;
    // Two asks need no flash; partial unit 2 of LPN 6 is the page's first 4 KiB, unit 3 its
    // second: two partial reads, nothing decompressed.
    assert_eq!(d.reduction.zero_read_units, 2);
    assert_eq!(d.ops[OpKind::Read.index()][OpSource::Host.index()], 2);
    assert_eq!(d.sensed_bytes, 2 * 4096);
    assert_eq!(d.reduction.decompressed_units, 0);
}

#[test]
fn decompression_time_follows_the_read() {
    let latency = |codec: &str| {
        let mut config = pr_small();
        config.ftl.reduction = toml::from_str(&format!(
            "policy = \"compress\"\ncodec = \"{codec}\"\npartial_zero_filter = true"
        ))
        .unwrap();
        let flows = reads(&[(LP, 4096)]);
        let mut sim = Simulation::new(config, flows, RunOptions::default()).unwrap();
        lay_out(&mut sim, &[(1, compressed(0, 3000))]);
        sim.run().unwrap();
        sim.host.flows[0].stats.read.to_json()["max"]
            .as_u64()
            .unwrap()
    };
    // LZ4 decompresses in 12 µs, DPC in 38 ns (§5.1.1, §4.2.2): the same read differs by that.
    assert_eq!(latency("lz4") - latency("dpc"), 12_000 - 38);
}

#[test]
fn gc_copies_only_valid_slots_and_keeps_their_packing() {
    let mut sim = Simulation::new(pr_small(), vec![], RunOptions::default()).unwrap();
    // Plane 0's first block: 48 pages of four 4,000-byte compressed units each.
    let mut lpn = 0;
    for _ in 0..48 {
        let units: Vec<(u32, UnitShape)> = (0..4)
            .map(|i| {
                lpn += 1;
                (lpn - 1, compressed(i * 4000, 4000))
            })
            .collect();
        lay_out(&mut sim, &units);
    }
    // Keep slot 0 of page 0 (bytes 0..4000: one partial unit), slot 1 of page 1 (4000..8000:
    // two) and slot 2 of page 2 (8000..12000: two); drop every other unit.
    let keep = [0, 5, 10];
    for l in 0..lpn {
        if !keep.contains(&l) {
            sim.dev.ftl.unmap(l);
        }
    }
    assert_eq!(
        sim.dev.ftl.valid_space[0],
        3 * (4000 + 384),
        "valid space is the stored bytes, and the slack of a page with a valid unit"
    );
    sim.start_gc_job(0, 0, Owner::Room, CopiesTo::Rules { spills: false });
    sim.run().unwrap();
    let d = &sim.dev.stats;
    assert_eq!(d.gc_copied_units, 3);
    // Only the three pages with a valid unit are read, each for that unit's bytes: a partial
    // read, then two full reads.
    assert_eq!(d.ops[OpKind::Read.index()][OpSource::Gc.index()], 3);
    assert_eq!(d.sensed_bytes, 4096 + 2 * 16384);
    // The copies keep their compressed size, packed back to back into one page.
    let page = |l| match sim.dev.ftl.lookup(l) {
        Location::Flash(slot) => (sim.dev.ftl.geometry.page_of_slot(slot), slot),
        other => panic!("unit {l} is {other:?}"),
    };
    let (p0, s0) = page(0);
    assert!(keep.iter().all(|&l| page(l).0 == p0));
    assert_eq!(d.ops[OpKind::Program.index()][OpSource::Gc.index()], 1);
    let offsets: Vec<u32> = keep
        .iter()
        .map(|&l| {
            let (_, s) = page(l);
            sim.dev.ftl.shape(l, s).offset
        })
        .collect();
    assert_eq!(offsets, [0, 4000, 8000]);
    assert_eq!(sim.dev.ftl.shape(0, s0), compressed(0, 4000));
    assert_eq!(sim.dev.ftl.blocks[0].state, crate::ftl::BlockState::Free);
}

/// A page's unused bytes count as valid while any of its units is: a block of fully valid,
/// loosely packed pages frees nothing when cleaned, and GC must not see it as a third empty.
#[test]
fn a_pages_packing_slack_is_valid_space_until_its_last_unit_goes() {
    let mut sim = Simulation::new(pr_small(), vec![], RunOptions::default()).unwrap();
    // One 9,000-byte unit a page (a second would not fit): 7,384 bytes of slack each.
    for lpn in 0..48 {
        lay_out(&mut sim, &[(lpn, compressed(0, 9000))]);
    }
    let full = 48 * 16384;
    assert_eq!(sim.dev.ftl.valid_space[0], full, "every page is taken");
    let mut candidates = Vec::new();
    sim.dev.ftl.victim_candidates(0, &mut candidates);
    let c = candidates.iter().find(|c| c.block == 0).unwrap();
    assert_eq!(c.valid_space, c.capacity_space, "not worth cleaning");
    // A page with two units: the first to go frees its bytes, the last the page.
    let page = lay_out(
        &mut sim,
        &[(100, compressed(0, 6000)), (101, compressed(6000, 6000))],
    );
    let block = sim.dev.ftl.geometry.block_of_page(page) as usize;
    let before = sim.dev.ftl.valid_space[block];
    sim.dev.ftl.unmap(100);
    assert_eq!(sim.dev.ftl.valid_space[block], before - 6000);
    sim.dev.ftl.unmap(101);
    assert_eq!(sim.dev.ftl.valid_space[block], before - 16384);
    sim.dev.ftl.verify_block(block as u32);
}

#[test]
fn a_partial_write_reads_the_rest_of_its_logical_page_first() {
    let run = |partial_write: &str, offset: u64, size: u64| {
        let mut config = pr_small();
        config.ftl.partial_write =
            toml::from_str::<toml::Table>(&format!("v = \"{partial_write}\"")).unwrap()["v"]
                .clone()
                .try_into()
                .unwrap();
        let flow = Flow::new(
            "w".into(),
            vec![TraceRequest {
                arrival_ns: 0,
                offset_bytes: LP + offset,
                size_bytes: size,
                op: Op::Write,
                stream: 0,
            }],
            ReplayMode::Open,
            1,
            1.0,
            0,
        );
        let mut sim = Simulation::new(config, vec![flow], RunOptions::default()).unwrap();
        lay_out(&mut sim, &[(1, compressed(0, 3000))]);
        sim.run().unwrap();
        let d = &sim.dev.stats;
        // A write's read of its old data is no host read: RAF's numerator and the host read
        // count stay the host's (issue 30 §4).
        assert_eq!(d.ops[OpKind::Read.index()][OpSource::Host.index()], 0);
        assert_eq!(d.host_sensed_bytes, 0);
        (
            d.ops[OpKind::Read.index()][OpSource::Rmw.index()],
            d.merge_read_units,
            sim.host.flows[0].stats.write.to_json()["max"]
                .as_u64()
                .unwrap(),
        )
    };
    // 4 KiB into a 16 KiB logical page stored compressed: one read of the old copy (a partial
    // read: it lies in the page's first 4 KiB), decoded and decompressed, before the write ends.
    let (reads, merged, rmw) = run("read_modify_write", 4096, 4096);
    assert_eq!((reads, merged), (1, 1));
    let (reads, merged, blind) = run("overwrite", 4096, 4096);
    assert_eq!((reads, merged), (0, 0));
    // tR of an LSB page × 0.8, 4 KiB over the bus, ECC decode, DPC's 38 ns to decompress the
    // old copy, then the 340 ns to compress the merged page (which the blind write also pays).
    assert_eq!(rmw - blind, 40_000 + 4096 + 2_000 + 38);
    // A whole logical page needs nothing of the old copy.
    assert_eq!(run("read_modify_write", 0, LP).0, 0);
}

/// With mapping units smaller than a page, a unit that fails to compress is stored as any raw
/// unit is, as many to a page as fit uncompressed, not alone in a page of its own (issue 30 §3:
/// incompressible 4 KiB units took a 16 KiB page each, WAF 3.6). In a GC-active steady state of
/// incompressible writes the write amplification is then that of raw units.
#[test]
fn units_that_fail_to_compress_share_pages_as_raw_units_do() {
    let run = |reduction: &str, max_units_per_page: &str| {
        let cfg = small(&[
            max_units_per_page,
            reduction,
            "content={source=\"synthetic\", mix=[{fraction=1.0, compressibility=0.0}]}",
            "precondition.fill_fraction=0.9",
            "precondition.overwrite_fraction=0.3",
            "precondition.trace_footprint=false",
        ]);
        let requests = random_writes(6000, (0.9 * 73728.0) as u64, 3);
        let flow = Flow::new("w".into(), requests, ReplayMode::Open, 1, 1.0, 0);
        let mut sim = Simulation::new(cfg, vec![flow], verify()).unwrap();
        sim.run().unwrap();
        assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
        assert!(sim.dev.stats.gc_invocations > 0, "GC must run");
        sim.summary()
    };
    let raw = run(
        "ftl.reduction={policy=\"identity\"}",
        "ftl.max_units_per_page=0",
    );
    let failed = run(
        "ftl.reduction={policy=\"compress\", codec=\"dpc\"}",
        "ftl.max_units_per_page=12",
    );
    assert_eq!(failed["compression"]["units"]["compressed"], 0, "{failed}");
    let waf = |s: &serde_json::Value| s["waf"].as_f64().unwrap();
    assert!(
        waf(&failed) < waf(&raw) * 1.1,
        "raw {} against failed compression {}",
        waf(&raw),
        waf(&failed)
    );
}
