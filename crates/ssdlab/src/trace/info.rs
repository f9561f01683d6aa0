//! Trace statistics for `ssdlab trace-info`: counts, sizes, addresses, times
//! and re-access ratios of a loaded [`Trace`]. Keys are described in
//! `docs/traces.md`; everything is exact (no sampling).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;

use super::{BlkparseEvent, Op, Trace, TraceFormat, FINGERPRINT_BLOCK_BYTES};

/// Block size of the re-access statistics.
pub const BLOCK_BYTES: u64 = 4096;

/// Statistics of one trace. Means and ratios are `None` (JSON `null`) when
/// there is nothing to average.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceInfo {
    /// The file, as given.
    pub path: String,
    /// The format it was read as.
    pub format: TraceFormat,
    /// The blkparse event read (blkparse only): the one given, or the first of Q, D, C the
    /// file holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blkparse_event: Option<BlkparseEvent>,
    /// Number of requests.
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    /// Reads over requests (by count).
    pub read_ratio: Option<f64>,
    pub read_bytes_total: u64,
    pub write_bytes_total: u64,
    pub trim_bytes_total: u64,
    pub read_bytes_mean: Option<f64>,
    pub write_bytes_mean: Option<f64>,
    pub trim_bytes_mean: Option<f64>,
    /// Request sizes in power-of-two buckets; only non-empty buckets.
    pub size_histogram: Vec<SizeBucket>,
    /// Lowest start address, bytes.
    pub min_offset_bytes: Option<u64>,
    /// Highest end address (offset + size), bytes.
    pub max_end_bytes: Option<u64>,
    /// `max_end_bytes - min_offset_bytes` (0 for an empty trace).
    pub address_span_bytes: u64,
    /// Last arrival minus first arrival, ns.
    pub time_span_ns: u64,
    /// Gaps between consecutive arrivals; `None` with fewer than 2 requests.
    pub inter_arrival_ns: Option<InterArrival>,
    /// Requests the loader moved to sort the file by time.
    pub reordered_requests: u64,
    /// Lines that carried no request.
    pub skipped_lines: u64,
    /// How often 4 KiB blocks are touched again.
    pub reaccess: Reaccess,
    /// Number of distinct stream ids, if the trace has any.
    pub streams: Option<u64>,
    /// Content fingerprint counts, if the trace has any.
    pub fingerprints: Option<FingerprintCounts>,
}

/// Requests whose size is in `(le_bytes / 2, le_bytes]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SizeBucket {
    /// Upper bound (inclusive), a power of two.
    pub le_bytes: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
}

/// Inter-arrival time statistics, ns. Percentiles are exact (nearest rank).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InterArrival {
    pub mean: f64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

/// Re-access of 4 KiB blocks (a request touches every block it overlaps).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reaccess {
    /// Distinct blocks read at least once.
    pub read_blocks: u64,
    /// Distinct blocks written at least once.
    pub written_blocks: u64,
    /// Fraction of the read blocks read more than once.
    pub read_reaccess_ratio: Option<f64>,
    /// Fraction of the written blocks written more than once (overwrites).
    pub write_reaccess_ratio: Option<f64>,
    /// Fraction of block reads (one per block per read request) whose block
    /// was written earlier in the trace.
    pub read_after_write_ratio: Option<f64>,
}

/// Content fingerprint counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FingerprintCounts {
    /// Fingerprinted 4 KiB blocks (requests x blocks).
    pub blocks: u64,
    /// Distinct fingerprints among them.
    pub distinct: u64,
}

fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// The nearest-rank percentile `p` (0..=100) of sorted `v`.
fn percentile(sorted: &[u64], p: u64) -> u64 {
    let n = sorted.len() as u64;
    let rank = (p * n).div_ceil(100).max(1);
    sorted
        .get(usize::try_from(rank - 1).unwrap_or(usize::MAX))
        .or(sorted.last())
        .copied()
        .unwrap_or(0)
}

/// Per-block access counts for [`Reaccess`], packed in one byte: reads in
/// bits 0-1 and writes in bits 2-3, each saturating at 2 ("more than once").
#[derive(Default)]
struct BlockCounts(HashMap<u64, u8>);

impl BlockCounts {
    const READS: u8 = 0b0011;
    const WRITES: u8 = 0b1100;

    fn bump(state: &mut u8, mask: u8, one: u8) {
        if *state & mask < 2 * one {
            *state += one;
        }
    }
}

impl TraceInfo {
    /// The statistics of `trace`, read as `format`.
    pub fn of(trace: &Trace, format: TraceFormat) -> TraceInfo {
        let mut count = [0u64; 3];
        let mut bytes = [0u64; 3];
        let mut hist: BTreeMap<u64, [u64; 3]> = BTreeMap::new();
        let mut min_offset: Option<u64> = None;
        let mut max_end: Option<u64> = None;
        let mut blocks = BlockCounts::default();
        let (mut block_reads, mut raw_reads) = (0u64, 0u64);
        for r in &trace.requests {
            let k = match r.op {
                Op::Read => 0,
                Op::Write => 1,
                Op::Trim => 2,
            };
            if let (Some(c), Some(b)) = (count.get_mut(k), bytes.get_mut(k)) {
                *c += 1;
                *b = b.saturating_add(r.size_bytes);
            }
            let le = r.size_bytes.checked_next_power_of_two().unwrap_or(u64::MAX);
            if let Some(c) = hist.entry(le).or_default().get_mut(k) {
                *c += 1;
            }
            let end = r.offset_bytes.saturating_add(r.size_bytes);
            min_offset = Some(min_offset.map_or(r.offset_bytes, |m| m.min(r.offset_bytes)));
            max_end = Some(max_end.map_or(end, |m| m.max(end)));
            if r.op == Op::Trim {
                continue;
            }
            let first = r.offset_bytes / BLOCK_BYTES;
            let last = (end - 1) / BLOCK_BYTES; // size > 0
            for block in first..=last {
                let state = blocks.0.entry(block).or_default();
                if r.op == Op::Read {
                    block_reads += 1;
                    raw_reads += u64::from(*state & BlockCounts::WRITES != 0);
                    BlockCounts::bump(state, BlockCounts::READS, 1);
                } else {
                    BlockCounts::bump(state, BlockCounts::WRITES, 4);
                }
            }
        }
        let count_blocks = |mask: u8, twice: u8| {
            let touched = blocks.0.values().filter(|s| **s & mask != 0).count() as u64;
            let again = blocks.0.values().filter(|s| **s & mask == twice).count() as u64;
            (touched, again)
        };
        let (read_blocks, reread) = count_blocks(BlockCounts::READS, 2);
        let (written_blocks, rewritten) = count_blocks(BlockCounts::WRITES, 8);

        let mut gaps: Vec<u64> = trace
            .requests
            .windows(2)
            .map(|w| w[1].arrival_ns - w[0].arrival_ns)
            .collect();
        gaps.sort_unstable();
        let time_span_ns = trace.duration_ns();
        let inter_arrival_ns = (!gaps.is_empty()).then(|| InterArrival {
            mean: time_span_ns as f64 / gaps.len() as f64,
            p50: percentile(&gaps, 50),
            p99: percentile(&gaps, 99),
            max: gaps.last().copied().unwrap_or(0),
        });

        let streams = trace.has_streams().then(|| {
            let mut ids: Vec<u16> = trace
                .requests
                .iter()
                .map(|r| r.stream)
                .filter(|&id| id != 0)
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids.len() as u64
        });
        let fingerprints = trace.fingerprints.as_ref().map(|f| {
            let mut all = f.all().to_vec();
            let blocks = all.len() as u64;
            all.sort_unstable();
            all.dedup();
            FingerprintCounts {
                blocks,
                distinct: all.len() as u64,
            }
        });
        let requests = trace.requests.len() as u64;
        let [reads, writes, trims] = count;
        let [read_bytes_total, write_bytes_total, trim_bytes_total] = bytes;
        TraceInfo {
            path: trace.path.display().to_string(),
            format,
            blkparse_event: trace.blkparse_event,
            requests,
            reads,
            writes,
            trims,
            read_ratio: ratio(reads, requests),
            read_bytes_total,
            write_bytes_total,
            trim_bytes_total,
            read_bytes_mean: ratio(read_bytes_total, reads),
            write_bytes_mean: ratio(write_bytes_total, writes),
            trim_bytes_mean: ratio(trim_bytes_total, trims),
            size_histogram: hist
                .into_iter()
                .map(|(le_bytes, [reads, writes, trims])| SizeBucket {
                    le_bytes,
                    reads,
                    writes,
                    trims,
                })
                .collect(),
            min_offset_bytes: min_offset,
            max_end_bytes: max_end,
            address_span_bytes: match (min_offset, max_end) {
                (Some(lo), Some(hi)) => hi - lo,
                _ => 0,
            },
            time_span_ns,
            inter_arrival_ns,
            reordered_requests: trace.reordered as u64,
            skipped_lines: trace.skipped_lines as u64,
            reaccess: Reaccess {
                read_blocks,
                written_blocks,
                read_reaccess_ratio: ratio(reread, read_blocks),
                write_reaccess_ratio: ratio(rewritten, written_blocks),
                read_after_write_ratio: ratio(raw_reads, block_reads),
            },
            streams,
            fingerprints,
        }
    }

    /// A human-readable report, one topic a line.
    pub fn to_text(&self) -> String {
        let mut o = String::new();
        let opt =
            |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |x| format!("{x:.digits$}"));
        let pct = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{:.2}%", 100.0 * x));
        let event = self
            .blkparse_event
            .map_or(String::new(), |e| format!(", `{}` events", e.action()));
        let _ = writeln!(o, "trace        {} ({}{event})", self.path, self.format);
        let _ = writeln!(
            o,
            "requests     {} ({} read, {} write, {} trim), read ratio {}",
            self.requests,
            self.reads,
            self.writes,
            self.trims,
            opt(self.read_ratio, 4)
        );
        let _ = writeln!(
            o,
            "bytes        read {} (mean {}), write {} (mean {}), trim {} (mean {})",
            human_bytes(self.read_bytes_total),
            opt(self.read_bytes_mean, 1),
            human_bytes(self.write_bytes_total),
            opt(self.write_bytes_mean, 1),
            human_bytes(self.trim_bytes_total),
            opt(self.trim_bytes_mean, 1)
        );
        for b in &self.size_histogram {
            let _ = writeln!(
                o,
                "  size <= {:>10}: {:>9} read {:>9} write {:>9} trim",
                human_bytes(b.le_bytes),
                b.reads,
                b.writes,
                b.trims
            );
        }
        let _ = writeln!(
            o,
            "addresses    [{}, {}) bytes, span {}",
            self.min_offset_bytes.unwrap_or(0),
            self.max_end_bytes.unwrap_or(0),
            human_bytes(self.address_span_bytes)
        );
        let _ = write!(
            o,
            "time         span {:.3} s",
            self.time_span_ns as f64 / 1e9
        );
        if let Some(ia) = &self.inter_arrival_ns {
            let _ = write!(
                o,
                "; inter-arrival mean {:.1} us, p50 {:.1} us, p99 {:.1} us, max {:.1} us",
                ia.mean / 1e3,
                ia.p50 as f64 / 1e3,
                ia.p99 as f64 / 1e3,
                ia.max as f64 / 1e3
            );
        }
        let _ = writeln!(o);
        let ra = &self.reaccess;
        let _ = writeln!(
            o,
            "re-access    {} of {} read blocks read again, {} of {} written blocks rewritten, \
             {} of block reads after a write (4 KiB blocks)",
            pct(ra.read_reaccess_ratio),
            ra.read_blocks,
            pct(ra.write_reaccess_ratio),
            ra.written_blocks,
            pct(ra.read_after_write_ratio)
        );
        let _ = writeln!(
            o,
            "file         {} lines without a request, {} requests reordered by time",
            self.skipped_lines, self.reordered_requests
        );
        if let Some(n) = self.streams {
            let _ = writeln!(o, "streams      {n} distinct");
        }
        if let Some(f) = &self.fingerprints {
            let _ = writeln!(
                o,
                "content      {} fingerprinted {}-byte blocks, {} distinct fingerprints",
                f.blocks, FINGERPRINT_BLOCK_BYTES, f.distinct
            );
        }
        o
    }
}

/// `b` bytes in B, KiB, MiB, GiB or TiB, whichever reads best.
fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    let name = UNITS.get(unit).copied().unwrap_or("B");
    if unit == 0 {
        format!("{b} B")
    } else {
        format!("{v:.3} {name}")
    }
}
