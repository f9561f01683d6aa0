//! Partial programming (`geometry.regions[].nop`, `ftl.partial_program`): a page of the SLC-mode
//! region takes later programs into its erased slots, at most NOP programs between erases, each
//! moving only its units' bytes; a unit whose program is still writing is read from controller
//! memory.

use super::*;
use crate::config::Config;
use crate::ftl::Location;

/// The small device with an SLC-mode cache of 8 blocks (16 pages each) per plane whose pages
/// take `nop` programs, host writes going there and each sealed at once (1 ns buffer timeout).
fn slc_cache(nop: u32) -> Config {
    small(&[
        &format!(
            "geometry.regions=[{{name=\"main\", cell_mode=\"tlc\", blocks_per_plane=56}}, \
             {{name=\"slc\", cell_mode=\"slc\", blocks_per_plane=8, nop={nop}}}]"
        ),
        "timing.slc={tr_ns=20000, tprog_ns=200000, tbers_ns=1000000}",
        "ftl.placement={policy=\"cache\", region=\"slc\"}",
        "ftl.migration={policy=\"evict\", from_region=\"slc\", to_region=\"main\"}",
        "ftl.partial_program.policy=\"share\"",
        "ftl.write_buffer_timeout_ns=1",
        "precondition.trace_footprint=false",
    ])
}

/// 4 KiB requests of `op` at the given (unit, arrival µs).
fn requests(op: Op, at: &[(u64, u64)]) -> Vec<TraceRequest> {
    at.iter()
        .map(|&(unit, us)| TraceRequest {
            arrival_ns: us * 1000,
            offset_bytes: unit * 4096,
            size_bytes: 4096,
            op,
            stream: 0,
        })
        .collect()
}

fn run(config: Config, requests: Vec<TraceRequest>) -> Simulation {
    let flow = Flow::new("f".into(), requests, ReplayMode::Open, 1, 1.0, 0);
    let mut sim = Simulation::new(config, vec![flow], verify()).unwrap();
    sim.run().unwrap();
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
    sim
}

fn page_of(sim: &Simulation, lpn: u32) -> u32 {
    match sim.dev.ftl.lookup(lpn) {
        Location::Flash(slot) => sim.dev.ftl.geometry.page_of_slot(slot),
        other => panic!("unit {lpn} is {other:?}"),
    }
}

#[test]
fn later_writes_fill_the_erased_slots_of_the_same_page_up_to_nop() {
    // One write every millisecond (each program done before the next write): one plane's
    // writer, since the dynamic allocator picks the first idle plane.
    let writes: Vec<(u64, u64)> = (0..8).map(|i| (i * 100, i * 1000)).collect();
    let sim = run(slc_cache(4), requests(Op::Write, &writes));
    let pages: Vec<u32> = (0..8).map(|i| page_of(&sim, i * 100)).collect();
    // Four 4 KiB subpages a page: writes 0–3 share a page, 4–7 the next one.
    assert!(pages[..4].iter().all(|&p| p == pages[0]), "{pages:?}");
    assert!(pages[4..].iter().all(|&p| p == pages[4]), "{pages:?}");
    assert_ne!(pages[0], pages[4]);
    let d = &sim.dev.stats;
    assert_eq!(d.partial_programs, 6);
    assert_eq!(d.ops[OpKind::Program.index()][OpSource::Host.index()], 8);
    // Each program moves one 4 KiB subpage.
    assert_eq!(d.programmed_bytes, 8 * 4096);
    // NOP 2: a page takes two programs, then a fresh page is opened.
    let sim = run(slc_cache(2), requests(Op::Write, &writes));
    let pages: Vec<u32> = (0..8).map(|i| page_of(&sim, i * 100)).collect();
    for pair in pages.chunks(2) {
        assert_eq!(pair[0], pair[1], "{pages:?}");
    }
    assert_eq!(
        pages
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        4
    );
    assert_eq!(sim.dev.stats.partial_programs, 4);
}

#[test]
fn a_unit_whose_partial_program_is_writing_is_read_from_the_buffer() {
    // Unit 5 is written by a partial program at 1 ms (the page's first program, of unit 1, ended
    // by then) and read 10 µs later, during its 200 µs program; unit 1 is read from flash.
    let mut reqs = requests(Op::Write, &[(1, 0), (5, 1000)]);
    reqs.extend(requests(Op::Read, &[(5, 1010), (1, 1020)]));
    reqs.sort_by_key(|r| r.arrival_ns);
    let sim = run(slc_cache(4), reqs);
    assert_eq!(page_of(&sim, 1), page_of(&sim, 5));
    assert_eq!(sim.dev.stats.partial_programs, 1);
    assert_eq!(sim.dev.stats.buffer_hit_units, 1);
    assert_eq!(
        sim.dev.stats.ops[OpKind::Read.index()][OpSource::Host.index()],
        1
    );
}

#[test]
fn partial_programs_need_a_region_that_takes_them_and_a_nop_of_at_least_one() {
    let e = Config::resolve(
        "ipu",
        None,
        &["ftl.partial_program.policy=\"share\"".to_string()],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("ftl.partial_program.policy") && e.contains("nop"),
        "{e}"
    );
    let e = Config::resolve(
        "ipu",
        None,
        &[
            "geometry.regions=[{name=\"main\", cell_mode=\"mlc\", blocks_per_plane=1946}, \
           {name=\"slc\", cell_mode=\"slc\", blocks_per_plane=102, nop=0}]"
                .to_string(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("geometry.regions[1].nop"), "{e}");
    let e = Config::resolve(
        "ipu",
        None,
        &[
            "geometry.regions=[{name=\"main\", cell_mode=\"mlc\", blocks_per_plane=1946, nop=4}, \
           {name=\"slc\", cell_mode=\"slc\", blocks_per_plane=102}]"
                .to_string(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("geometry.regions[0].nop") && e.contains("SLC"),
        "{e}"
    );
}

/// IPU's intra-page update: an update whose old copy is itself an update goes into the page
/// holding that copy, while `share` sends it to the writer's last page programmed in part.
#[test]
fn an_update_goes_into_the_page_of_its_old_copy() {
    // Unit 1, then its first update (its old copy a first write: not in place; it shares 1's
    // page P1), then units 3–5 in one request (a fresh page P2: P1 has only two erased slots),
    // then unit 1's second update.
    let mut reqs = requests(Op::Write, &[(1, 0), (1, 1000)]);
    reqs.push(TraceRequest {
        arrival_ns: 2_000_000,
        offset_bytes: 3 * 4096,
        size_bytes: 3 * 4096,
        op: Op::Write,
        stream: 0,
    });
    reqs.extend(requests(Op::Write, &[(1, 3000)]));
    let with = |policy: &str| {
        let mut c = slc_cache(4);
        c.ftl.partial_program = toml::from_str(&format!("policy = \"{policy}\"")).unwrap();
        run(c, reqs.clone())
    };
    let ipu = with("intra_page_update");
    assert_ne!(
        page_of(&ipu, 1),
        page_of(&ipu, 3),
        "beside its old copy, in P1"
    );
    assert_eq!(ipu.dev.stats.in_place_updates, 1, "the second update only");
    let p1 = ipu.dev.ftl.partial_page(page_of(&ipu, 1)).unwrap();
    assert_eq!((p1.programs, p1.erased.count_ones()), (3, 1));
    let share = with("share");
    assert_eq!(
        page_of(&share, 1),
        page_of(&share, 3),
        "the writer's last page"
    );
    assert_eq!(share.dev.stats.in_place_updates, 0);
}

/// IPU's three levels: a unit's first write goes to a Work block, its first update to a
/// Monitor block, later ones to a Hot block (one open block each in the cache region).
#[test]
fn levels_place_each_write_by_how_often_its_unit_was_rewritten() {
    let mut c = slc_cache(4);
    c.ftl.placement = toml::from_str("policy = \"levels\"\nregion = \"slc\"").unwrap();
    c.ftl.partial_program = toml::from_str("policy = \"none\"").unwrap();
    // Unit 7 written three times, unit 8 once, unit 9 twice.
    let sim = run(
        c,
        requests(
            Op::Write,
            &[
                (7, 0),
                (8, 1000),
                (7, 2000),
                (9, 3000),
                (9, 4000),
                (7, 5000),
            ],
        ),
    );
    let block = |lpn| sim.dev.ftl.geometry.block_of_page(page_of(&sim, lpn));
    let region = |lpn| sim.dev.ftl.geometry.region_of(block(lpn));
    assert!(
        [7, 8, 9].iter().all(|&l| region(l) == 1),
        "all in the cache"
    );
    // Hot (7), Work (8), Monitor (9): three different blocks.
    assert_ne!(block(7), block(8));
    assert_ne!(block(7), block(9));
    assert_ne!(block(8), block(9));
}

/// Compressed units share a page programmed in part: each program packs its units into the
/// page's first erased 4 KiB subpage (the partial unit), from the subpage's start, so a page of
/// four subpages takes four programs of two compressed units each, eight units where units
/// stored as written take four; a ninth unit finds none left and opens a fresh page.
#[test]
fn compressed_units_are_packed_into_the_erased_subpages_of_a_page_programmed_in_part() {
    let pairs = |n: u64| -> Vec<TraceRequest> {
        (0..n)
            .map(|i| TraceRequest {
                arrival_ns: i * 1_000_000,
                offset_bytes: i * 100 * 4096,
                size_bytes: 2 * 4096,
                op: Op::Write,
                stream: 0,
            })
            .collect()
    };
    let compressed = |mut c: Config| {
        c.ftl.reduction =
            toml::from_str("policy = \"compress\"\ncodec = \"dpc\"\npartial_unit_kib = 4").unwrap();
        c.ftl.max_units_per_page = 8;
        c.content = toml::from_str(
            "source = \"synthetic\"\nmix = [{ fraction = 1.0, compressibility = 0.75 }]",
        )
        .unwrap();
        c.validate().unwrap();
        c
    };
    let sim = run(compressed(slc_cache(4)), pairs(5));
    let units: Vec<u32> = (0..5).flat_map(|i| [i * 100, i * 100 + 1]).collect();
    let pages: Vec<u32> = units.iter().map(|&u| page_of(&sim, u)).collect();
    assert!(pages[..8].iter().all(|&p| p == pages[0]), "{pages:?}");
    assert_ne!(pages[8], pages[0], "no slot nor program left: a fresh page");
    for (i, &u) in units[..8].iter().enumerate() {
        let Location::Flash(slot) = sim.dev.ftl.lookup(u) else {
            unreachable!()
        };
        let shape = sim.dev.ftl.shape_in_slot(u, slot);
        assert_eq!(sim.dev.ftl.geometry.slot_in_page(slot), i as u32);
        assert!(sim.dev.ftl.is_compressed(u), "unit {u}: {shape:?}");
        // The pair's first unit starts its program's subpage; both lie within it.
        if i % 2 == 0 {
            assert_eq!(shape.offset, i as u32 / 2 * 4096, "unit {u}");
        }
        assert!(
            shape.offset + shape.len <= (i as u32 / 2 + 1) * 4096,
            "{shape:?}"
        );
    }
    let d = &sim.dev.stats;
    assert_eq!(d.partial_programs, 3);
    // Each program moves one subpage (the fifth, a fresh page's first).
    assert_eq!(d.programmed_bytes, 5 * 4096);
    // Stored as written, the pairs take two subpages each: two pages of two programs.
    let raw = run(slc_cache(4), pairs(4));
    assert_ne!(page_of(&raw, 0), page_of(&raw, 200));
    assert_eq!(raw.dev.stats.partial_programs, 2);
}
