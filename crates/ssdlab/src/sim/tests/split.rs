//! The split FTL (PR-SSD §4.3): where a flushed split buffer's columns go, how a split page is
//! read, and what GC does with a part.

use super::*;
use crate::ftl::shape::{UnitKind, UnitShape};
use crate::ftl::Writer;
use crate::sim::gc_job::{CopiesTo, Owner};

/// The small device widened to four channels, with PR-SSD's mapping and the split FTL
/// splitting every failed compression; content as `content` says.
fn pr_split(content: &str) -> Config {
    small(&[
        "geometry.channels=4",
        "ftl.mapping_unit_kib=16",
        "ftl.max_units_per_page=12",
        "ftl.reduction={policy=\"compress\", codec=\"dpc\", partial_zero_filter=true}",
        "ftl.read_policy.policy=\"partial\"",
        "ftl.split.policy=\"all\"",
        "precondition.trace_footprint=false",
        &format!("content={content}"),
    ])
}

const LP: u64 = 16384;

fn requests(op: Op, lpns: impl Iterator<Item = u64>) -> Vec<TraceRequest> {
    lpns.enumerate()
        .map(|(i, lpn)| TraceRequest {
            arrival_ns: i as u64 * 100_000,
            offset_bytes: lpn * LP,
            size_bytes: LP,
            op,
            stream: 0,
        })
        .collect()
}

#[test]
fn split_pages_are_on_different_channels_and_of_one_page_type() {
    // Half the pages compress (and go to merged pages, striped plane by plane, so the planes'
    // write points drift apart); half do not and are split.
    let mix = "{source=\"synthetic\", mix=[{fraction=0.5, compressibility=0.0}, \
               {fraction=0.5, compressibility=0.95}]}";
    let flow = Flow::new(
        "w".into(),
        requests(Op::Write, 0..600),
        ReplayMode::Open,
        1,
        1.0,
        0,
    );
    let mut sim = Simulation::new(pr_split(mix), vec![flow], verify()).unwrap();
    sim.run().unwrap();
    let g = sim.dev.ftl.geometry.clone();
    let mut split = 0;
    for lpn in 0..600 {
        let parts = sim.dev.ftl.split_parts(lpn);
        if parts.is_empty() {
            continue;
        }
        split += 1;
        assert_eq!(
            parts.len(),
            4,
            "unit {lpn}: four non-zero partial units, four parts"
        );
        let pages: Vec<u32> = parts.iter().map(|p| g.page_of_slot(p.slot)).collect();
        let mut channels: Vec<u32> = pages
            .iter()
            .map(|&p| g.channel_of_die(g.page_addr(p).die))
            .collect();
        channels.sort_unstable();
        channels.dedup();
        assert_eq!(channels.len(), 4, "unit {lpn}: parts on {pages:?}");
        let types: Vec<u8> = pages.iter().map(|&p| g.page_type(p)).collect();
        assert!(
            types.windows(2).all(|w| w[0] == w[1]),
            "unit {lpn}: {types:?}"
        );
        // Each part at its row's partial index, the same in every page.
        assert!(parts.iter().all(|p| p.offset == parts[0].offset));
    }
    assert!(split > 200, "{split} units split");
    let d = &sim.dev.stats.reduction;
    assert_eq!(
        d.split_units, split,
        "units written split are counted as such"
    );
    // With four planes to a channel, four channels nearly always offer pages of one type.
    assert!(
        d.split_buffers > 50 && d.split_fallbacks <= d.split_buffers / 10,
        "{} {}",
        d.split_buffers,
        d.split_fallbacks
    );
    assert_eq!(sim.dev.ftl.oracle.as_ref().unwrap().violations, 0);
}

/// Lay out a split unit by hand: part i in `(plane, partial index)` of `at[i]`.
fn lay_out_split(sim: &mut Simulation, lpn: u32, at: &[(u32, u32)]) -> Vec<u32> {
    let mut pages = Vec::new();
    for (part, &(plane, index)) in at.iter().enumerate() {
        let pool = sim.dev.ftl.pool_index(plane, 0);
        let page = match pages.iter().find(|&&(p, _)| p == plane) {
            Some(&(_, page)) => page,
            None => {
                let page = sim
                    .dev
                    .ftl
                    .alloc_page(pool, Writer::Host { stream: 0 }, 0)
                    .unwrap();
                pages.push((plane, page));
                page
            }
        };
        let shape = UnitShape {
            kind: UnitKind::Split,
            offset: index * 4096,
            len: 4096,
            zero_bitmap: 0,
            row: part as u8,
        };
        // One part per fill, in slot `index` (a page given two parts gets two fills).
        let mut units = vec![None; index as usize + 1];
        units[index as usize] = Some((lpn, 0, shape));
        sim.dev.ftl.fill_page(page, &units.into_iter().collect());
    }
    for &(_, page) in &pages {
        sim.dev.ftl.complete_program(page);
    }
    pages.iter().map(|&(_, p)| p).collect()
}

#[test]
fn a_split_page_is_read_in_parallel_partial_reads_and_a_conflict_in_one_full_read() {
    let random = "{source=\"synthetic\", mix=[{fraction=1.0, compressibility=0.0}]}";
    let read = |at: &[(u32, u32)]| {
        let flow = Flow::new(
            "r".into(),
            requests(Op::Read, 3..4),
            ReplayMode::Open,
            1,
            1.0,
            0,
        );
        let mut sim = Simulation::new(pr_split(random), vec![flow], RunOptions::default()).unwrap();
        lay_out_split(&mut sim, 3, at);
        sim.run().unwrap();
        let d = &sim.dev.stats;
        (
            d.ops[OpKind::Read.index()][OpSource::Host.index()],
            d.sensed_bytes,
            d.reduction.split_conflicts,
        )
    };
    // Planes 0, 4, 8, 12 are on channels 0–3: four partial reads of 4 KiB.
    assert_eq!(read(&[(0, 1), (4, 1), (8, 1), (12, 1)]), (4, 4 * 4096, 0));
    // Parts 0 and 1 on one page (a split conflict): that page is read once, fully.
    assert_eq!(
        read(&[(0, 1), (0, 2), (8, 1), (12, 1)]),
        (3, 16384 + 2 * 4096, 1)
    );
}

#[test]
fn gc_moves_one_part_and_leaves_the_others() {
    let random = "{source=\"synthetic\", mix=[{fraction=1.0, compressibility=0.0}]}";
    let mut sim = Simulation::new(pr_split(random), vec![], verify()).unwrap();
    let pages = lay_out_split(&mut sim, 3, &[(0, 1), (4, 1), (8, 1), (12, 1)]);
    // Fill the rest of plane 4's first block with a unit that is then dropped, so the block is
    // full and holds one valid slot: part 1.
    let pool = sim.dev.ftl.pool_index(4, 0);
    while sim.dev.ftl.blocks[sim.dev.ftl.geometry.block_of_page(pages[1]) as usize].write_ptr < 48 {
        let page = sim
            .dev
            .ftl
            .alloc_page(pool, Writer::Host { stream: 0 }, 0)
            .unwrap();
        sim.dev.ftl.unmap(9);
        let units = [Some((9, 0, UnitShape::raw(16384)))];
        sim.dev.ftl.fill_page(page, &units.into_iter().collect());
        sim.dev.ftl.complete_program(page);
    }
    sim.dev.ftl.unmap(9);
    let victim = sim.dev.ftl.geometry.block_of_page(pages[1]);
    // One part, alone in its page: the page's other 12 KiB are free only once it moves.
    assert_eq!(
        sim.dev.ftl.valid_space[victim as usize], 16384,
        "one part's page"
    );
    let before = sim.dev.ftl.split_parts(3).to_vec();
    sim.start_gc_job(pool, victim, Owner::Room, CopiesTo::Rules { spills: false });
    sim.run().unwrap();
    let after = sim.dev.ftl.split_parts(3).to_vec();
    assert_eq!(sim.dev.stats.gc_copied_units, 1);
    assert_ne!(after[1], before[1], "part 1 moved");
    assert_eq!(
        (after[0], after[2], after[3]),
        (before[0], before[2], before[3]),
        "the other parts stay where they are (§4.3.2)"
    );
    assert!(sim.dev.ftl.maps_to(3, after[1].slot) && !sim.dev.ftl.maps_to(3, before[1].slot));
    assert_eq!(sim.dev.ftl.valid_space[victim as usize], 0);
    assert_eq!(
        sim.dev.ftl.blocks[victim as usize].state,
        crate::ftl::BlockState::Free
    );
}

/// Preconditioning tells the split decision the write size it stands for: pages written by
/// requests larger than the channels read in parallel (§4.3.1) are not split.
#[test]
fn preconditioning_splits_by_the_write_size_it_stands_for() {
    let random = "{source=\"synthetic\", mix=[{fraction=1.0, compressibility=0.0}]}";
    let split_units = |request_kib: u64, sizes: Option<&str>| {
        let mut c = pr_split(random);
        c.ftl.split = toml::from_str("policy = \"decision\"\nwidth = 4").unwrap();
        c.precondition.fill_fraction = 0.25;
        c.precondition.write_request_kib = request_kib;
        c.precondition.write_size = sizes.map(|t| toml::from_str(t).unwrap());
        c.validate().unwrap();
        let sim = Simulation::new(c, vec![], RunOptions::default()).unwrap();
        (0..sim.dev.ftl.logical_units)
            .filter(|&l| !sim.dev.ftl.split_parts(l).is_empty())
            .count()
    };
    // Four channels × 4 KiB: a 16 KiB write is split, a 64 KiB one is not.
    let all = split_units(0, None);
    assert!(all > 1000, "{all}");
    assert_eq!(split_units(16, None), all);
    assert_eq!(split_units(64, None), 0);
    // A workload's own mix: four 16 KiB writes to each 64 KiB one write half the units, so
    // about half are split.
    let mix = "kind = \"choice\"\nbytes = [16384, 65536]\nweights = [4, 1]";
    let half = split_units(0, Some(mix)) as f64 / all as f64;
    assert!((half - 0.5).abs() < 0.05, "{half}");
}
