//! The PCM medium (ROSA, rosa-pcm-hybrid.txt §2–3): PCM devices beside the flash dies, written
//! in place and never erased, placed over obliviously; refused where it could not act.

use crate::common;

use ssdlab::config::Config;
use ssdlab::ftl::Location;
use ssdlab::sim::{Flow, RunOptions, Simulation};
use ssdlab::trace::{Op, TraceRequest};

use common::SMALL_PCM as PCM;

fn write(t: u64, lpn: u64) -> TraceRequest {
    TraceRequest {
        arrival_ns: t,
        offset_bytes: lpn * 4096,
        size_bytes: 4096,
        op: Op::Write,
        stream: 0,
    }
}

/// Where each of units `0..n` is stored (its slot, and whether PCM's).
fn slots(sim: &Simulation, n: u32) -> Vec<(u32, bool)> {
    (0..n)
        .map(|lpn| match sim.ftl().lookup(lpn) {
            Location::Flash(slot) => (slot, sim.ftl().rewritable_in_place(slot)),
            other => panic!("unit {lpn} is {other:?}"),
        })
        .collect()
}

#[test]
fn a_pcm_update_is_in_place_and_never_erases() {
    let units = 64u64;
    let first: Vec<TraceRequest> = (0..units).map(|l| write(l * 100_000, l)).collect();
    let before = common::run_verified(common::small(PCM), first.clone());
    let placed = slots(&before, units as u32);
    let on_pcm = placed.iter().filter(|(_, pcm)| *pcm).count();
    // A quarter of the units, by address (Fibonacci hashing spreads 64 addresses within a few).
    assert!((10..=22).contains(&on_pcm), "{on_pcm} of 64 units on PCM");
    // Rewrite every unit 200 times: the flash's share runs GC, PCM's stays where it is.
    let mut all = first;
    let t0 = units * 100_000;
    for round in 0..200u64 {
        for l in 0..units {
            all.push(write(t0 + (round * units + l) * 20_000, l));
        }
    }
    let after = common::run_verified(common::small(PCM), all);
    let s = after.summary();
    for (lpn, (&(slot, pcm), &(now, still))) in placed.iter().zip(&slots(&after, 64)).enumerate() {
        assert_eq!(pcm, still, "unit {lpn} changed medium");
        if pcm {
            assert_eq!(slot, now, "unit {lpn} on PCM moved");
        }
    }
    assert_eq!(
        s["pcm"]["in_place_writes"].as_u64(),
        Some(200 * on_pcm as u64),
        "{}",
        s["pcm"]
    );
    assert!(s["gc"]["invocations"].as_u64().unwrap() > 0, "flash GC ran");
    let g = &after.ftl().geometry;
    let pcm_planes = g.die_sets[1].plane_ids();
    for b in 0..g.blocks() {
        let info = after.ftl().blocks[b as usize];
        if pcm_planes.contains(&g.plane_of_block(b)) {
            assert_eq!(info.erase_count, 0, "PCM block {b} was erased");
        }
    }
}

#[test]
fn a_trimmed_pcm_unit_gives_its_page_back_at_once() {
    let mut reqs: Vec<TraceRequest> = (0..64).map(|l| write(l * 100_000, l)).collect();
    let t = 64 * 100_000;
    reqs.push(TraceRequest {
        arrival_ns: t,
        offset_bytes: 0,
        size_bytes: 64 * 4096,
        op: Op::Trim,
        stream: 0,
    });
    // Written again: each unit takes a page again (PCM's from those the trim gave back).
    reqs.extend((0..64).map(|l| write(t + 1_000_000 + l * 100_000, l)));
    let sim = common::run_verified(common::small(PCM), reqs);
    let again = slots(&sim, 64);
    let pcm_pages: std::collections::HashSet<u32> = again
        .iter()
        .filter(|(_, pcm)| *pcm)
        .map(|(slot, _)| sim.ftl().geometry.page_of_slot(*slot))
        .collect();
    let before = common::run_verified(
        common::small(PCM),
        (0..64).map(|l| write(l * 100_000, l)).collect(),
    );
    let first: std::collections::HashSet<u32> = slots(&before, 64)
        .iter()
        .filter(|(_, pcm)| *pcm)
        .map(|(slot, _)| before.ftl().geometry.page_of_slot(*slot))
        .collect();
    assert_eq!(pcm_pages, first, "PCM took back the pages the trim freed");
}

#[test]
fn pcm_reads_are_faster_than_flash_reads() {
    // Read every unit once after writing it: units on PCM sense in 5 µs, flash's in 50–90 µs.
    let mut reqs: Vec<TraceRequest> = (0..64).map(|l| write(l * 100_000, l)).collect();
    let t = 64 * 100_000 + 10_000_000;
    reqs.extend((0..64).map(|l| TraceRequest {
        arrival_ns: t + l * 1_000_000,
        offset_bytes: l * 4096,
        size_bytes: 4096,
        op: Op::Read,
        stream: 0,
    }));
    let flow = Flow::new(
        "t".into(),
        reqs,
        ssdlab::config::ReplayMode::Open,
        1,
        1.0,
        0,
    );
    let opts = RunOptions {
        verify: true,
        request_log: true,
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(common::small(PCM), vec![flow], opts).unwrap();
    sim.run().unwrap();
    let on_pcm: Vec<bool> = slots(&sim, 64).iter().map(|s| s.1).collect();
    let log = sim.take_log().unwrap();
    let (mut pcm, mut flash) = (Vec::new(), Vec::new());
    for r in log.iter().filter(|r| r.op == Op::Read) {
        let lpn = (r.offset_bytes / 4096) as usize;
        match on_pcm[lpn] {
            true => pcm.push(r.latency_ns()),
            false => flash.push(r.latency_ns()),
        }
    }
    let (pcm_max, flash_min) = (pcm.iter().max().unwrap(), flash.iter().min().unwrap());
    // Idle device: each read alone; the difference is the sensing (≥ 45 µs).
    assert!(
        flash_min - pcm_max >= 45_000,
        "PCM reads up to {pcm_max} ns, flash reads from {flash_min} ns"
    );
    assert_eq!(
        sim.summary()["pcm"]["reads"].as_u64(),
        Some(pcm.len() as u64)
    );
}

/// Why the small device with overrides `sets` is refused.
fn refusal(sets: &[&str]) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml");
    let mut table: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
    for s in sets {
        ssdlab::config::apply_override(&mut table, s).unwrap();
    }
    Config::from_toml_str(&toml::to_string(&table).unwrap(), path)
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn what_pcm_cannot_do_is_refused_naming_the_key() {
    let refused = |sets: &[&str], key: &str| {
        let mut all: Vec<&str> = PCM.to_vec();
        all.extend(sets);
        let e = refusal(&all);
        assert!(e.contains(key), "{sets:?}: {e}");
    };
    refused(
        &["geometry.pcm.capacity_share=0.0"],
        "geometry.pcm.capacity_share",
    );
    refused(
        &["geometry.pcm.capacity_share=1.0"],
        "geometry.pcm.capacity_share",
    );
    refused(
        &["geometry.pcm.capacity_share=0.001"],
        "geometry.pcm.capacity_share",
    );
    refused(
        &["geometry.pcm.dies_per_channel=0"],
        "geometry.pcm.dies_per_channel",
    );
    refused(&["timing.pcm={set=\"pcm9\"}"], "timing.pcm.set");
    refused(&["timing.pcm={set=\"pcm1\", read_ns=1}"], "timing.pcm.set");
    refused(&["timing.pcm={write_ns=1}"], "timing.pcm.read_ns");
    refused(
        &["timing.pcm={read_ns=0, write_ns=1}"],
        "timing.pcm.read_ns",
    );
    let level1 = |kv: &str| format!("ftl.level1_gc={{policy=\"read_intensity\", {kv}}}");
    for (kv, key) in [
        ("interval_ns=0", "ftl.level1_gc.interval_ns"),
        ("budget_share=1.5", "ftl.level1_gc.budget_share"),
        ("budget_share=0.0", "ftl.level1_gc.budget_share"),
        ("budget_share=0.0001", "ftl.level1_gc.budget_share"),
        ("free_threshold=0.1", "ftl.level1_gc.free_threshold"),
    ] {
        refused(&[&level1(kv)], key);
    }
    refused(
        &["ftl.placement={policy=\"single_region\"}"],
        "ftl.placement.policy",
    );
    refused(&["ftl.placement.run_units=0"], "ftl.placement.run_units");
    refused(
        &["geometry.regions=[{name=\"pcm\", cell_mode=\"tlc\"}]"],
        "geometry.regions[0].name",
    );
    // PCM's timing without PCM acts on nothing.
    let e = Config::from_toml_str(
        &{
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small.toml");
            let mut table: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
            ssdlab::config::apply_override(&mut table, "timing.pcm={set=\"pcm2\"}").unwrap();
            toml::to_string(&table).unwrap()
        },
        "t",
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(e.contains("timing.pcm"), "{e}");
}

/// PCM takes each unit alone, into a slot of its own (`ftl/in_place.rs`), so pages of several units
/// work: with 16 KiB pages of four 4 KiB units, a unit trimmed off PCM frees its slot, and the
/// next unit PCM takes goes there, beside the page's other units, without opening a page. With
/// compression on, the flash's units are compressed and PCM's stored as written.
#[test]
fn pcm_takes_each_unit_alone_into_the_slots_units_left() {
    let four: Vec<&str> = PCM
        .iter()
        .copied()
        .chain(["geometry.page_size_kib=16"])
        .collect();
    let first: Vec<TraceRequest> = (0..64).map(|l| write(l * 100_000, l)).collect();
    let before = common::run_verified(common::small(&four), first.clone());
    let freed: Vec<u32> = slots(&before, 64)
        .iter()
        .filter(|(_, pcm)| *pcm)
        .map(|&(slot, _)| slot)
        .collect();
    assert!(freed.len() >= 8, "{} units on PCM", freed.len());
    // PCM's units of the first 64 share their pages.
    let g = &before.ftl().geometry;
    let mut pages: Vec<u32> = freed.iter().map(|&s| g.page_of_slot(s)).collect();
    pages.dedup();
    assert_eq!(pages.len(), freed.len().div_ceil(4), "{freed:?}");
    // Trim them, then write 64 new units: PCM's share of those takes the freed slots.
    let mut all = first;
    let t0 = 64 * 100_000;
    for (i, &slot) in freed.iter().enumerate() {
        let lpn = before.ftl().p2l.unit(g, slot) as u64;
        all.push(TraceRequest {
            op: Op::Trim,
            ..write(t0 + i as u64 * 100_000, lpn)
        });
    }
    let t1 = t0 + 64 * 100_000;
    all.extend((64..128).map(|l| write(t1 + (l - 64) * 100_000, l)));
    let after = common::run_verified(common::small(&four), all);
    let new: Vec<u32> = (64..128)
        .filter_map(|lpn| match after.ftl().lookup(lpn) {
            Location::Flash(slot) if after.ftl().rewritable_in_place(slot) => Some(slot),
            _ => None,
        })
        .collect();
    assert!(!new.is_empty());
    let reused = new.iter().filter(|s| freed.contains(s)).count();
    assert_eq!(reused, new.len().min(freed.len()), "{new:?} in {freed:?}");
    // Compression on: the flash's units compressed, PCM's stored as written, verify clean.
    let mut compressed = four.clone();
    compressed.extend([
        "ftl.reduction={policy=\"compress\", codec=\"dpc\"}",
        "ftl.max_units_per_page=8",
        "ftl.write_buffer_units=64",
    ]);
    let sim = common::run_verified(common::small(&compressed), write_all(128));
    let s = sim.summary();
    assert!(
        s["compression"]["units"]["raw"].as_u64().unwrap() > 0,
        "{}",
        s["compression"]
    );
    let mut on_pcm = 0;
    for lpn in 0..128 {
        // (All-zero units are stored nowhere.)
        if let Location::Flash(slot) = sim.ftl().lookup(lpn) {
            if sim.ftl().rewritable_in_place(slot) {
                on_pcm += 1;
                assert!(
                    !sim.ftl().is_compressed(lpn),
                    "unit {lpn} compressed on PCM"
                );
                assert_eq!(sim.ftl().shape_in_slot(lpn, slot).len, 4096);
            }
        }
    }
    assert!(on_pcm > 0);
}

/// Units `0..n` written once each, 100 µs apart.
fn write_all(n: u64) -> Vec<TraceRequest> {
    (0..n).map(|l| write(l * 100_000, l)).collect()
}

/// ROSA's PCM with IPU's SLC-mode cache (docs/config.md § Techniques together): PCM takes its
/// share of the addresses, the flash's share goes to IPU's levels (`ftl.placement.flash`), and
/// the degrading GC moves it on to the dense region. With compression on the flash too, verify
/// clean fresh and in a GC-active steady state, and each technique acts: PCM rewrites in place,
/// partial programs, in-place updates, levels, degrading GC, compression.
#[test]
fn pcm_composes_with_ipu_levels_and_compression() {
    let ipu = [
        "geometry.regions=[{name=\"main\", cell_mode=\"tlc\", blocks_per_plane=56}, {name=\"slc\", cell_mode=\"slc\", blocks_per_plane=8, nop=4}]",
        "timing.slc={tr_ns=20000, tprog_ns=200000, tbers_ns=1000000}",
        "geometry.pcm={capacity_share=0.2}",
        "timing.pcm={read_ns=5000, write_ns=50000}",
        "ftl.placement={policy=\"oblivious\", flash={policy=\"levels\", region=\"slc\"}}",
        "ftl.migration={policy=\"degrade\", from_region=\"slc\", to_region=\"main\"}",
        "ftl.gc_victim.policy=\"isr\"",
        "ftl.partial_program.policy=\"intra_page_update\"",
        "ftl.write_buffer_timeout_ns=1",
        "ftl.overprovisioning_ratio=0.3",
        "ftl.reduction={policy=\"compress\", codec=\"dpc\"}",
        "ftl.max_units_per_page=8",
    ];
    // Without PCM the inner placement is the placement itself: refused.
    let mut no_pcm: Vec<&str> = ipu.to_vec();
    no_pcm.retain(|s| !s.contains("pcm"));
    let e = refusal(&no_pcm);
    assert!(e.contains("ftl.placement.flash"), "{e}");
    for steady in [false, true] {
        let mut sets: Vec<String> = ipu.iter().map(|s| s.to_string()).collect();
        if steady {
            sets.extend(
                [
                    "precondition.fill_fraction=0.9",
                    "precondition.overwrite_fraction=1.0",
                    "precondition.pattern=\"random\"",
                    "precondition.trace_footprint=false",
                ]
                .map(String::from),
            );
        }
        let c = common::small(&sets.iter().map(String::as_str).collect::<Vec<_>>());
        // Updates of a few hundred units, each rewritten many times, 50 µs apart.
        let requests: Vec<TraceRequest> = (0..6000u64)
            .map(|i| write(i * 50_000, (i * 7919) % 600))
            .collect();
        let sim = common::run_verified(c, requests);
        let s = sim.summary();
        let count = |path: &[&str]| path.iter().fold(&s, |v, k| &v[k]).as_u64().unwrap_or(0);
        assert!(
            count(&["pcm", "in_place_writes"]) > 0,
            "steady {steady}: {}",
            s["pcm"]
        );
        assert!(
            count(&["flash_ops", "program", "partial"]) > 0,
            "steady {steady}"
        );
        assert!(
            count(&["flash_ops", "program", "in_place_update"]) > 0,
            "steady {steady}"
        );
        assert!(count(&["placement", "hot_units"]) > 0, "steady {steady}");
        assert!(
            count(&["compression", "units", "compressed"]) > 0,
            "steady {steady}"
        );
        if steady {
            assert!(count(&["gc", "invocations"]) > 0, "no GC ran");
        }
    }
}
