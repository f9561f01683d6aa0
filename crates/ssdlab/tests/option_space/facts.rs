//! What a run's workload gives each technique to do, read from the requests the run replays (as
//! the engine loads them: the flows' offsets, wrapping and time scales applied). The checks
//! (`checks.rs`) hold a technique to its counters only where these facts say it had work.

use std::collections::{HashMap, HashSet};

use ssdlab::config::{Config, FillPattern, PlacementConfig, ReplayMode};
use ssdlab::flash::Medium;
use ssdlab::ftl::placement::Oblivious;
use ssdlab::sim::Flow;
use ssdlab::trace::Op;

/// How long a write must arrive after the write before it, and before the next, beyond
/// `ftl.write_buffer_timeout_ns`, to be alone in its open page: the time to cross the host link,
/// wait for buffer room on a small device and be admitted is far less.
pub const ALONE_NS: f64 = 500_000_000.0;

/// One request, in mapping units.
#[derive(Clone, Copy)]
struct Unitised {
    arrival_ns: f64,
    op: Op,
    bytes: u64,
    first: u64,
    last: u64,
    /// Byte range within the first unit, and within the last.
    first_from: u64,
    last_to: u64,
}

impl Unitised {
    fn units(&self) -> u64 {
        self.last - self.first + 1
    }
    /// Whether unit `u` of the request is covered whole.
    fn whole(&self, u: u64, unit: u64) -> bool {
        let from = if u == self.first { self.first_from } else { 0 };
        let to = if u == self.last { self.last_to } else { unit };
        from == 0 && to == unit
    }
}

/// What oblivious placement gives each region: a unit's first write goes to the region its
/// address falls to (the engine's `Oblivious::region_of`, the rule docs/config.md states), and
/// stays there (rewritten in place on PCM). Counted only where that is sure: a unit trimmed and
/// written again may land elsewhere (a PCM unit's rewrite after a trim goes to the first region).
pub struct ObliviousFacts {
    /// Units holding data at the end (`Facts::live_units`), by the region their address falls to.
    pub live_by_region: Vec<u64>,
    /// The index of the PCM region, if the device has PCM.
    pub pcm: Option<usize>,
    /// Some host read covers a unit whose address falls to PCM (else no read can reach PCM,
    /// unless GC moves data there).
    pub reads_pcm_addresses: bool,
    /// Some host read covers a unit that preconditioning wrote to PCM and no request writes or
    /// trims: it is read from PCM itself, not from controller memory.
    pub reads_pcm_resident: bool,
    /// Some host write covers a unit that preconditioning wrote to PCM and no request trims: it
    /// is rewritten in place.
    pub writes_pcm_resident: bool,
}

pub struct Facts {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    /// Mapping units the host writes, reads and trims cover, counted per request.
    pub write_units: u64,
    pub read_units: u64,
    pub trimmed_whole: u64,
    pub trimmed_part: u64,
    pub largest_write: u64,
    pub largest_read: u64,
    /// Every flow replays at its trace's times (open loop).
    pub open_loop: bool,
    /// The longest run of consecutive writes each of one unit and alone in time (`ALONE_NS`
    /// plus the buffer timeout from its neighbours), and the longest such run all to one unit.
    pub lone_writes: usize,
    pub lone_writes_to_one_unit: usize,
    /// Some unit is written three times with no trim of it between.
    pub written_thrice: bool,
    /// Some write carries a stream id.
    pub tagged_writes: bool,
    /// Units that hold data at the end: preconditioned (a sequential fill, the trace
    /// footprint), then written, less those trimmed since (a random fill is not counted).
    pub live_units: u64,
    /// Some write covers part of a unit that preconditioning wrote and no other request
    /// writes or trims: its old bytes are on flash when it arrives.
    pub partial_write_over_flash: bool,
    /// Each flow's operations in source order (the order it issues them).
    pub flow_ops: Vec<Vec<Op>>,
    /// With oblivious placement, where the workload's data lies by medium and region.
    pub oblivious: Option<ObliviousFacts>,
    /// Each read's byte range within its unit, or None for a read across units.
    read_spans: Vec<Option<(u64, u64)>>,
    unit_bytes: u64,
}

impl Facts {
    pub fn of(config: &Config, flows: &mut [Flow]) -> Facts {
        let unit = config.ftl.mapping_unit_kib as u64 * 1024;
        let timeout = config.ftl.write_buffer_timeout_ns as f64;
        // Requests in source order per flow (the footprint's order), and the flows' modes.
        let mut per_flow: Vec<Vec<Unitised>> = Vec::new();
        let mut open_loop = true;
        let mut tagged_writes = false;
        for f in flows.iter_mut() {
            open_loop &= f.mode == ReplayMode::Open;
            f.source.rewind();
            let mut list = Vec::new();
            while let Some(r) = f.source.next_request() {
                tagged_writes |= r.op == Op::Write && r.stream != 0;
                let start = r.offset_bytes + f.offset_bytes;
                let end = start + r.size_bytes;
                list.push(Unitised {
                    arrival_ns: r.arrival_ns as f64 * f.time_scale,
                    op: r.op,
                    bytes: r.size_bytes,
                    first: start / unit,
                    last: (end - 1) / unit,
                    first_from: start % unit,
                    last_to: (end - 1) % unit + 1,
                });
            }
            f.source.rewind();
            per_flow.push(list);
        }
        let mut all: Vec<Unitised> = per_flow.iter().flatten().copied().collect();
        all.sort_by(|a, b| a.arrival_ns.total_cmp(&b.arrival_ns));

        let preconditioned = preconditioned(config, &per_flow, unit);
        let count = |op: Op| all.iter().filter(|r| r.op == op).count() as u64;
        let units = |op: Op| all.iter().filter(|r| r.op == op).map(Unitised::units).sum();
        let largest = |op: Op| {
            all.iter()
                .filter(|r| r.op == op)
                .map(|r| r.bytes)
                .max()
                .unwrap_or(0)
        };
        let (mut trimmed_whole, mut trimmed_part) = (0, 0);
        for r in all.iter().filter(|r| r.op == Op::Trim) {
            for u in r.first..=r.last {
                match r.whole(u, unit) {
                    true => trimmed_whole += 1,
                    false => trimmed_part += 1,
                }
            }
        }

        // Writes alone in time.
        let writes: Vec<&Unitised> = all.iter().filter(|r| r.op == Op::Write).collect();
        let alone = |i: usize| {
            let gap = ALONE_NS + timeout;
            let before = i == 0 || writes[i].arrival_ns - writes[i - 1].arrival_ns > gap;
            let after =
                i + 1 == writes.len() || writes[i + 1].arrival_ns - writes[i].arrival_ns > gap;
            before && after && writes[i].units() == 1
        };
        let (mut lone_writes, mut lone_writes_to_one_unit) = (0, 0);
        let (mut run, mut same) = (0, 0);
        for i in 0..writes.len() {
            if !alone(i) {
                (run, same) = (0, 0);
                continue;
            }
            run += 1;
            same = match run > 1 && writes[i - 1].first == writes[i].first {
                true => same + 1,
                false => 1,
            };
            lone_writes = lone_writes.max(run);
            lone_writes_to_one_unit = lone_writes_to_one_unit.max(same);
        }

        // Units' writes in a row, and the data held at the end.
        let mut in_a_row: HashMap<u64, u32> = HashMap::new();
        let mut written_thrice = false;
        let mut live: HashSet<u64> = preconditioned.clone();
        let mut changed_by: HashMap<u64, u32> = HashMap::new();
        for r in &all {
            for u in r.first..=r.last {
                match r.op {
                    Op::Write => {
                        let n = in_a_row.entry(u).or_default();
                        *n += 1;
                        written_thrice |= *n >= 3;
                        live.insert(u);
                        *changed_by.entry(u).or_default() += 1;
                    }
                    Op::Trim => {
                        *changed_by.entry(u).or_default() += 1;
                        if r.whole(u, unit) {
                            in_a_row.remove(&u);
                            live.remove(&u);
                        }
                    }
                    Op::Read => {}
                }
            }
        }
        // A unit on PCM is rewritten in place, its bytes alone (no read-modify-write); level-1
        // GC may move any unit there.
        let on_flash = on_flash(config);
        let partial_write_over_flash = all.iter().filter(|r| r.op == Op::Write).any(|r| {
            [r.first, r.last].into_iter().any(|u| {
                !r.whole(u, unit)
                    && preconditioned.contains(&u)
                    && changed_by.get(&u) == Some(&1)
                    && on_flash(u)
            })
        });
        let oblivious = oblivious_facts(config, &all, &preconditioned, &changed_by, &live);
        let read_spans = all
            .iter()
            .filter(|r| r.op == Op::Read)
            .map(|r| (r.first == r.last).then_some((r.first_from, r.last_to)))
            .collect();
        Facts {
            flow_ops: per_flow
                .iter()
                .map(|l| l.iter().map(|r| r.op).collect())
                .collect(),
            requests: all.len() as u64,
            reads: count(Op::Read),
            writes: count(Op::Write),
            trims: count(Op::Trim),
            write_units: units(Op::Write),
            read_units: units(Op::Read),
            trimmed_whole,
            trimmed_part,
            largest_write: largest(Op::Write),
            largest_read: largest(Op::Read),
            open_loop,
            lone_writes,
            lone_writes_to_one_unit,
            written_thrice,
            tagged_writes,
            live_units: live.len() as u64,
            partial_write_over_flash,
            oblivious,
            read_spans,
            unit_bytes: unit,
        }
    }

    /// Every host read lies within one mapping unit and, inside it, within one aligned chunk
    /// of `chunk` bytes (a read policy's unit; a chunk as large as the unit or larger holds the
    /// whole unit, units and chunks being powers of two). False without reads.
    pub fn reads_within(&self, chunk: u64) -> bool {
        !self.read_spans.is_empty()
            && self.read_spans.iter().all(|span| match *span {
                Some((from, to)) => chunk >= self.unit_bytes || from / chunk == (to - 1) / chunk,
                None => false,
            })
    }

    /// Every host read lies within one mapping unit and wants fewer codewords of `codeword`
    /// bytes than a page of `page` bytes has. False without reads.
    pub fn reads_want_less_than_a_page(&self, codeword: u64, page: u64) -> bool {
        !self.read_spans.is_empty()
            && self.read_spans.iter().all(|span| match *span {
                Some((from, to)) => to.div_ceil(codeword) - from / codeword < page / codeword,
                None => false,
            })
    }
}

/// Whether a unit stays on flash for the whole run: always without PCM; with PCM, when its
/// address falls to a flash region and level-1 GC (which moves units to PCM) is off.
fn on_flash(config: &Config) -> Box<dyn Fn(u64) -> bool> {
    let g = ssdlab::device::geometry(config);
    let Some(pcm) = g.regions.iter().position(|r| r.medium == Medium::Pcm) else {
        return Box::new(|_| true);
    };
    if !config.ftl.level1_gc.is_none() {
        return Box::new(|_| false);
    }
    let PlacementConfig::Oblivious {
        run_units,
        flash: None,
    } = config.ftl.placement
    else {
        return Box::new(|_| false);
    };
    let placement = Oblivious::new(&g, run_units, None);
    Box::new(move |u| placement.region_of(u as u32) != pcm)
}

/// Where oblivious placement puts the workload's data (None under another placement).
fn oblivious_facts(
    config: &Config,
    all: &[Unitised],
    preconditioned: &HashSet<u64>,
    changed_by: &HashMap<u64, u32>,
    live: &HashSet<u64>,
) -> Option<ObliviousFacts> {
    let PlacementConfig::Oblivious {
        run_units,
        flash: None,
    } = config.ftl.placement
    else {
        return None;
    };
    let g = ssdlab::device::geometry(config);
    let placement = Oblivious::new(&g, run_units, None);
    let region = |u: u64| placement.region_of(u as u32);
    let pcm = g.regions.iter().position(|r| r.medium == Medium::Pcm);
    let on_pcm = |u: u64| pcm == Some(region(u));
    let mut live_by_region = vec![0; g.regions.len()];
    for u in live {
        live_by_region[region(*u)] += 1;
    }
    // Units written or trimmed by some request, and those trimmed.
    let mut trimmed = HashSet::new();
    for r in all.iter().filter(|r| r.op == Op::Trim) {
        trimmed.extend(r.first..=r.last);
    }
    let resident = |u: u64| preconditioned.contains(&u) && on_pcm(u) && !trimmed.contains(&u);
    let covers = |op: Op, f: &dyn Fn(u64) -> bool| {
        all.iter()
            .filter(|r| r.op == op)
            .any(|r| (r.first..=r.last).any(f))
    };
    Some(ObliviousFacts {
        live_by_region,
        pcm,
        reads_pcm_addresses: covers(Op::Read, &on_pcm),
        reads_pcm_resident: covers(Op::Read, &|u| resident(u) && !changed_by.contains_key(&u)),
        writes_pcm_resident: covers(Op::Write, &resident),
    })
}

/// The units preconditioning writes that the facts can name: a sequential fill's, and the
/// trace footprint's (units whose first touch, flow by flow in source order, is a read).
fn preconditioned(config: &Config, flows: &[Vec<Unitised>], unit: u64) -> HashSet<u64> {
    let p = &config.precondition;
    let logical = ssdlab::run::logical_capacity_bytes(config) / unit;
    let mut set = HashSet::new();
    if p.pattern == FillPattern::Sequential {
        let fill = ((p.fill_fraction * logical as f64).round() as u64).min(logical);
        set.extend(0..fill);
    }
    if p.trace_footprint {
        let mut touched = HashSet::new();
        for r in flows.iter().flatten() {
            for u in r.first..=r.last {
                if touched.insert(u) && r.op == Op::Read {
                    set.insert(u);
                }
            }
        }
    }
    set
}
