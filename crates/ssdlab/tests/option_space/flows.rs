//! The workloads a draw replays: the committed trace excerpts, traces the harness writes (reads,
//! writes and trims of every size from a 512-byte sector up, rewrites of a few hot units, and
//! probes: single-unit writes alone in time, so that a page is sealed with one unit and
//! partial programming has work), and a generator. They are drawn with the device and written
//! once its logical capacity is known, each in its own share of the address space.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use toml::Value;

use super::common;

/// How far apart a probe's writes arrive: far past any drawn `ftl.write_buffer_timeout_ns` (at
/// most 10 ms) and any queue a small device builds up, even at `host.time_scale = 0.5`.
pub const PROBE_GAP_NS: u64 = 4_000_000_000;

/// The least share of a device a committed excerpt replays on (its largest requests are a
/// few MiB; a share smaller than one request cannot replay it, wrapped or not).
const COMMITTED_SHARE_BYTES: u64 = 16 << 20;

#[derive(Clone, Copy, Debug)]
pub enum FlowPlan {
    /// The committed excerpt at this index of `common::committed_traces()`.
    Committed(usize),
    /// A trace the harness writes from this seed.
    Written(u64),
    /// A generator flow with this seed.
    Generated(u64),
}

impl FlowPlan {
    /// A flow; `written` tips the choice towards a trace of the harness's (with probes).
    pub fn draw(r: &mut Pcg64Mcg, written: bool) -> FlowPlan {
        if written && r.gen_bool(0.6) {
            return FlowPlan::Written(r.gen());
        }
        match r.gen_range(0..10) {
            0..=3 => FlowPlan::Committed(r.gen_range(0..common::committed_traces().len())),
            4..=7 => FlowPlan::Written(r.gen()),
            _ => FlowPlan::Generated(r.gen()),
        }
    }
}

/// What a flow needs to know of the device.
pub struct Device {
    pub capacity_bytes: u64,
    pub unit_bytes: u64,
    pub page_bytes: u64,
}

/// The `flows` override of `plans` on `device`, writing the harness's traces into `dir` as
/// `seed-SEED-flow-I.csv`; also whether a committed excerpt is among them (its addresses then
/// need `host.out_of_range = "wrap"`) and the files written.
pub fn materialise(
    plans: &[FlowPlan],
    device: &Device,
    seed: u64,
    dir: &Path,
) -> (String, bool, Vec<PathBuf>) {
    let share = device.capacity_bytes / plans.len() as u64 / device.unit_bytes * device.unit_bytes;
    let mut files = Vec::new();
    let mut committed = false;
    let flows: Vec<Value> = plans
        .iter()
        .enumerate()
        .map(|(i, plan)| {
            let offset = share * i as u64;
            let mut flow = toml::Table::new();
            // An excerpt's requests (up to a few MiB) must fit the flow's share of the device.
            let plan = match *plan {
                FlowPlan::Committed(_) if share < COMMITTED_SHARE_BYTES => FlowPlan::Written(seed),
                plan => plan,
            };
            match plan {
                FlowPlan::Committed(k) => {
                    committed = true;
                    let (file, format, columns) = common::committed_traces()[k];
                    flow.insert(
                        "trace".into(),
                        common::trace(file).display().to_string().into(),
                    );
                    if let Some(format) = format {
                        flow.insert("format".into(), format.name().into());
                    }
                    if let Some(spec) = columns {
                        let spec = ssdlab::trace::columns::ColumnsSpec::from_cli(spec)
                            .expect("a committed description");
                        flow.insert(
                            "columns".into(),
                            Value::try_from(spec).expect("a description serialises"),
                        );
                    }
                }
                FlowPlan::Written(flow_seed) => {
                    let path = dir.join(format!("seed-{seed}-flow-{i}.csv"));
                    std::fs::create_dir_all(dir).expect("the harness's scratch folder");
                    let trace = written_trace(flow_seed, share, device);
                    std::fs::write(&path, with_streams(flow_seed, trace, device))
                        .expect("a scratch trace");
                    flow.insert("trace".into(), path.display().to_string().into());
                    flow.insert("format".into(), "native".into());
                    files.push(path);
                }
                FlowPlan::Generated(flow_seed) => {
                    flow.insert("generator".into(), generator(flow_seed, share, device));
                }
            }
            if offset > 0 {
                flow.insert("offset_bytes".into(), Value::Integer(offset as i64));
            }
            Value::Table(flow)
        })
        .collect();
    (format!("flows={}", Value::Array(flows)), committed, files)
}

/// A native trace over `span` bytes: requests of every kind and size (reads of at most a unit,
/// in most of them), a few hot units rewritten again and again, and one or two probes.
fn written_trace(seed: u64, span: u64, d: &Device) -> String {
    let r = &mut Pcg64Mcg::seed_from_u64(seed);
    let sector = 512;
    let unit = d.unit_bytes;
    let requests = [100usize, 300, 800][r.gen_range(0..3)];
    let working = (span as f64 * [0.05, 0.3, 1.0][r.gen_range(0..3)]) as u64 / unit * unit;
    let working = working.max(unit * 16).min(span / unit * unit);
    let mean_gap_ns = [1_000.0, 20_000.0, 500_000.0][r.gen_range(0..3)];
    let (read_share, trim_share) =
        [(0.3, 0.05), (0.5, 0.1), (0.1, 0.0), (0.0, 0.2)][r.gen_range(0..4)];
    // Most traces read a unit or less at a time, so that the read policies' savings show.
    let small_reads = r.gen_bool(0.6);
    let units = working / unit;
    let hot: Vec<u64> = (0..8).map(|_| r.gen_range(0..units)).collect();
    let probes: Vec<usize> = (0..r.gen_range(1..=2))
        .map(|_| r.gen_range(0..requests))
        .collect();
    let mut out = String::from("arrival_ns,offset_bytes,size_bytes,op\n");
    let mut t = 0u64;
    for i in 0..requests {
        for _ in probes.iter().filter(|&&p| p == i) {
            t = probe(r, &mut out, t, units, unit);
        }
        let gap = -mean_gap_ns * (1.0 - r.gen::<f64>()).ln();
        t += gap as u64;
        let x: f64 = r.gen();
        let op = if x < read_share {
            "read"
        } else if x < read_share + trim_share {
            "trim"
        } else {
            "write"
        };
        // Within a unit (a sector or more), one unit, several units, about a page.
        let kinds = match op == "read" && small_reads {
            true => 2,
            false => 4,
        };
        let size = match r.gen_range(0..kinds) {
            0 if unit > sector => sector * r.gen_range(1..unit / sector),
            1 => unit,
            2 => unit * r.gen_range(2..=8),
            _ => (d.page_bytes + sector * r.gen_range(0..3)).saturating_sub(sector),
        }
        .clamp(sector, working);
        // A hot unit, or any; a request of a unit or less mostly within one unit (a small
        // read always), the others anywhere on the sector grid.
        let u = match r.gen_bool(0.3) {
            true => hot[r.gen_range(0..hot.len())],
            false => r.gen_range(0..units),
        };
        let in_one_unit = size <= unit && (op == "read" && small_reads || r.gen_bool(0.7));
        let start = match in_one_unit {
            true => u * unit + sector * r.gen_range(0..=(unit - size) / sector),
            false => (u * unit).min(working - size) / sector * sector,
        };
        let _ = writeln!(out, "{t},{start},{size},{op}");
    }
    out
}

/// Four to six writes of one unit each (or of a sector within one), `PROBE_GAP_NS` apart and
/// apart from what comes before and after: all to one unit (an update of an update, for IPU's
/// in-place update), or each to its own. Returns the time after the probe.
fn probe(r: &mut Pcg64Mcg, out: &mut String, mut t: u64, units: u64, unit: u64) -> u64 {
    let same = r.gen_bool(0.5);
    let mut u = r.gen_range(0..units);
    for _ in 0..r.gen_range(4..=6) {
        t += PROBE_GAP_NS;
        let (start, size) = match unit > 512 && r.gen_bool(0.5) {
            true => (u * unit + 512, 512),
            false => (u * unit, unit),
        };
        let _ = writeln!(out, "{t},{start},{size},write");
        if !same {
            u = r.gen_range(0..units);
        }
    }
    t + PROBE_GAP_NS
}

/// A generator over `span` bytes: sizes from a sector to 16 units, random or sequential,
/// open- or closed-loop, with or without rewrites of earlier data.
fn generator(seed: u64, span: u64, d: &Device) -> Value {
    let r = &mut Pcg64Mcg::seed_from_u64(seed);
    let alignment = [512u64, 4096][r.gen_range(0..2)].min(d.unit_bytes);
    let working = (span / 4096 * 4096).max(4096);
    let max = (d.unit_bytes * 16).min(working) / 512 * 512;
    let mut g = toml::Table::new();
    let int = |n: u64| Value::Integer(n as i64);
    g.insert("requests".into(), int([200, 600][r.gen_range(0..2)]));
    g.insert(
        "read_fraction".into(),
        Value::Float([0.0, 0.3, 0.7][r.gen_range(0..3)]),
    );
    g.insert("working_set_bytes".into(), int(working));
    g.insert("alignment_bytes".into(), int(alignment));
    let size: toml::Table = [
        ("kind", Value::from("uniform")),
        ("min_bytes", int(512)),
        ("max_bytes", int(max.max(512))),
        ("step_bytes", int(512)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    g.insert("size".into(), Value::Table(size));
    let address = match r.gen_range(0..3) {
        0 => "{kind=\"uniform\"}",
        1 => "{kind=\"zipf\", exponent=0.99}",
        _ => "{kind=\"hot_cold\", hot_space_fraction=0.1, hot_access_fraction=0.9}",
    };
    g.insert("address".into(), parse(address));
    g.insert(
        "write_random_fraction".into(),
        Value::Float([1.0, 0.5][r.gen_range(0..2)]),
    );
    let arrival = match r.gen_range(0..3) {
        0 => "{kind=\"poisson\", iops=1000.0}",
        1 => "{kind=\"poisson\", iops=50000.0}",
        _ => "{kind=\"closed\", queue_depth=8}",
    };
    g.insert("arrival".into(), parse(arrival));
    let updates = r.gen_bool(0.4);
    g.insert("seed".into(), int(r.gen_range(0..1_000_000)));
    // Stream ids (drawn last: the draws above are those of earlier versions): one per extent
    // of a few pages, of many, or of the whole working set.
    if r.gen_bool(0.4) {
        let extent = [d.page_bytes * 3, d.page_bytes * 48, working][r.gen_range(0..3)];
        g.insert(
            "stream".into(),
            parse(&format!("{{kind=\"per_extent\", extent_bytes={extent}}}")),
        );
    }
    if updates {
        // Reads of written data from a stream of their own (the key came later): none, some,
        // or all of them, half of those on data written at least twice.
        let reads = &mut Pcg64Mcg::seed_from_u64(seed ^ READS_FOLLOW_SALT);
        let written = [0.0, 0.3, 1.0][reads.gen_range(0..3)];
        g.insert(
            "updates".into(),
            parse(&format!(
                "{{update_fraction=0.6, hot_fraction=0.3, read_written_fraction={written:?}, \
                 read_hot_fraction={:?}}}",
                written / 2.0
            )),
        );
    }
    Value::Table(g)
}

/// The stream of the generators' reads of written data.
const READS_FOLLOW_SALT: u64 = 0x7265_6164_5f77_7274;

/// Half the time, a `stream` column for a written trace: each request's id from its address's
/// extent of a few pages or of many (ids from 1), a tenth of them untagged (0). From a stream of
/// draws of its own, so that the trace's requests are those of earlier versions.
fn with_streams(seed: u64, trace: String, d: &Device) -> String {
    let r = &mut Pcg64Mcg::seed_from_u64(seed ^ 0x7374_7265_616d_7321);
    if r.gen_bool(0.5) {
        return trace;
    }
    let extent = [d.page_bytes * 3, d.page_bytes * 48][r.gen_range(0..2)];
    let mut lines = trace.lines();
    let mut out = format!("{},stream\n", lines.next().expect("a header"));
    for line in lines {
        let offset: u64 = line
            .split(',')
            .nth(1)
            .and_then(|o| o.parse().ok())
            .expect("an offset");
        let id = match r.gen_bool(0.1) {
            true => 0,
            false => (offset / extent) % 65_535 + 1,
        };
        let _ = writeln!(out, "{line},{id}");
    }
    out
}

/// An inline TOML value.
fn parse(text: &str) -> Value {
    let t: toml::Table = format!("v = {text}").parse().expect("an inline value");
    t["v"].clone()
}
