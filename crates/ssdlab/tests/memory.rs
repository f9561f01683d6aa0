//! Memory that depends on the device and the data, not on the run (docs/performance.md §
//! Memory): heap bytes counted by this test binary's own allocator. Each test holds a lock while
//! it measures, as the counts are the process's.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

mod common;

use ssdlab::config::workloads;
use ssdlab::config::Config;
use ssdlab::sim::{Flow, Simulation};
use ssdlab::trace::{Op, TraceRequest};
use ssdlab::workload::{GeneratorSource, RequestSource};
use ssdlab::RunOptions;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every call forwards to the system allocator unchanged; only the counts are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, size) };
        if !q.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            grew(size);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What `f` returns, and the most heap it held at once beyond what was live before it.
fn peak_heap_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed) - before)
}

/// PR-SSD's schemes (the README's flags).
const PR_SSD: &[&str] = &[
    "ftl.reduction={policy=\"compress\", codec=\"dpc\", partial_zero_filter=true}",
    "ftl.max_units_per_page=12",
    "ftl.read_policy.policy=\"partial\"",
    "ftl.split.policy=\"decision\"",
];

/// The `pr-ssd` preset with 64 blocks a plane (4.2 M pages), replaying `pr-ssd-copy` over a
/// 256 MiB working set, with `sets`.
fn pr_ssd(sets: &[&str]) -> Config {
    let mut all: Vec<String> = [
        "geometry.blocks_per_plane=64",
        "flows=[{workload=\"pr-ssd-copy\", generator={requests=3000, working_set_bytes=268435456}}]",
    ]
    .iter()
    .chain(sets)
    .map(|s| s.to_string())
    .collect();
    all.push("seed=3".into());
    Config::resolve("pr-ssd", None, &all).unwrap()
}

/// Compressed pages hold from one unit (data that does not compress) to
/// `ftl.max_units_per_page`; the FTL's tables for them must cost what the units take, not a
/// slot per unit a page could hold (a reverse map of 12 slots a page was 48 bytes a page).
#[test]
fn compression_costs_memory_per_logical_unit_not_per_slot_a_page_could_hold() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let run = |config: &Config| {
        let (r, peak) = peak_heap_of(|| ssdlab::simulate(config, &RunOptions::default()));
        let r = r.unwrap();
        assert_eq!(r.summary["requests"]["count"], 3000);
        peak
    };
    let off = pr_ssd(&[]);
    let on = pr_ssd(PR_SSD);
    let g = ssdlab::device::geometry(&on);
    let pages = g.blocks() as usize * g.max_pages_per_block as usize;
    let logical_units = on.ftl.logical_units(g.physical_units()) as usize;
    let (peak_off, peak_on) = (run(&off), run(&on));
    // Compression's own tables are per logical unit: its shape (8 bytes) and write count (4).
    let per_page = (peak_on.saturating_sub(peak_off + 12 * logical_units)) as f64 / pages as f64;
    assert!(
        per_page <= 8.0,
        "compression costs {per_page:.1} bytes a flash page beyond its 12 a logical unit \
         (on {peak_on}, off {peak_off} bytes; {pages} pages, {logical_units} logical units)"
    );
}

/// The update model of the generators counts writes per unit of the working set in a table
/// sized when the generator is built; a run adds only its pools of written units (4 bytes a
/// unit written once, 4 more once written again), never a hash map of every unit written.
#[test]
fn the_update_model_grows_by_at_most_its_pools() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut g = workloads::generator("ipu-ts0").unwrap();
    g.working_set_bytes = 64 << 20;
    g.requests = Some(100_000);
    g.validate("g").unwrap();
    let units = (g.working_set_bytes / g.alignment_bytes) as usize;
    let mut source = GeneratorSource::new(g, 1);
    let (written, grown) = peak_heap_of(|| {
        let mut written = 0u64;
        while let Some(r) = source.next_request() {
            written += r.size_bytes * u64::from(r.op == ssdlab::trace::Op::Write);
        }
        written
    });
    assert!(
        written > 4 * (64 << 20),
        "the run writes the working set over: {written}"
    );
    // Each pool at most one entry per unit, in a vector that at most doubles its room.
    let bound = 2 * 2 * 4 * units;
    assert!(
        grown <= bound,
        "drawing grew the heap by {grown} bytes ({:.1} a working-set unit)",
        grown as f64 / units as f64
    );
}

/// A cache takes memory as it fills, not for its capacity: a CMT and a read cache of more than
/// the small device could ever fill (capped at its 73,728 units) cost, over ones of a few
/// entries, at most 200 bytes an entry the run brings in (a table slot and a list node), never
/// a table of every unit of the device up front.
#[test]
fn a_cache_takes_memory_as_it_fills_not_for_its_capacity() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let units = 1024u64;
    // Write `units` units, then read them back from flash.
    let requests: Vec<TraceRequest> = (0..2 * units)
        .map(|i| TraceRequest {
            arrival_ns: i * 100_000,
            offset_bytes: i % units * 4096,
            size_bytes: 4096,
            op: if i < units { Op::Write } else { Op::Read },
            stream: 0,
        })
        .collect();
    let peak = |kib: u64| {
        let config = common::small(&[
            &format!("ftl.mapping_cache={{policy=\"demand\", capacity_kib={kib}}}"),
            &format!(
                "data_cache={{policy=\"read\", capacity_kib={}}}",
                kib.max(4)
            ),
        ]);
        let flow = Flow::new("f".into(), requests.clone(), config.host.mode, 1, 1.0, 0);
        let (summary, peak) = peak_heap_of(|| {
            let mut sim = Simulation::new(config, vec![flow], RunOptions::default()).unwrap();
            sim.run().unwrap();
            sim.summary()
        });
        assert_eq!(
            summary["data_cache"]["capped"],
            kib > 4,
            "{}",
            summary["data_cache"]
        );
        peak
    };
    let (few, huge) = (peak(1), peak(i64::MAX as u64));
    let bound = 2 * 200 * units as usize;
    assert!(
        huge <= few + bound,
        "caches of every unit took {huge} bytes at most, of a few entries {few}: more than \
         {bound} bytes for the {units} units the run brought into each"
    );
}
