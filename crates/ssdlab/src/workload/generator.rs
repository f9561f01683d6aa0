//! The generator: a [`RequestSource`] that draws each request from a [`GeneratorConfig`].
//!
//! Per request, in this order: read or write (`read_fraction`); its size; its start — at random
//! (the address distribution, or with `updates` the written data a write rewrites or a read asks)
//! when the request is random or its kind's sequential run is used up, else where the previous
//! request of its kind ended; its arrival gap. One seeded PCG stream drives everything, so a
//! generator is a pure function of its config and seed.

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;

use super::address::AddressSampler;
use super::size::SizeSampler;
use super::updates::UpdateState;
use super::RequestSource;
use crate::config::{Arrival, GeneratorConfig, StreamRule};
use crate::trace::{Op, TraceRequest};

/// Where one request kind's sequential requests are (a sequential stream, not a host stream
/// id).
#[derive(Clone, Copy, Default)]
struct Sequential {
    /// Where the next sequential request starts.
    cursor: u64,
    /// Bytes left in the current run (0: the next request starts a new run).
    run_left: u64,
}

pub struct GeneratorSource {
    config: GeneratorConfig,
    seed: u64,
    /// Requests in the whole sequence (counted once for duration-bounded generators).
    len: u64,
    rng: Pcg64Mcg,
    read_size: Option<SizeSampler>,
    write_size: Option<SizeSampler>,
    address: AddressSampler,
    /// What the run has written, when random writes choose between new data and updates.
    updates: Option<UpdateState>,
    /// The address distribution's slots: `alignment_bytes` pieces, or whole runs.
    slot_bytes: u64,
    sequential: [Sequential; 2],
    gap: Option<Exp<f64>>,
    issued: u64,
    t_ns: f64,
}

impl GeneratorSource {
    /// A generator for a validated config.
    pub fn new(config: GeneratorConfig, seed: u64) -> GeneratorSource {
        let seed = config.seed.unwrap_or(seed);
        let slot_bytes = match config.sequential_run_bytes {
            0 => config.alignment_bytes,
            run => run,
        };
        let slots = (config.working_set_bytes / slot_bytes).max(1);
        let gap = match config.arrival {
            Arrival::Poisson { iops } | Arrival::Bursts { iops, .. } => {
                Some(Exp::new(iops / 1e9).unwrap_or_else(|_| unreachable!("iops checked positive")))
            }
            Arrival::Fixed { .. } | Arrival::Closed { .. } => None,
        };
        let mut g = GeneratorSource {
            read_size: config.size_of(true).map(SizeSampler::new),
            write_size: config.size_of(false).map(SizeSampler::new),
            address: AddressSampler::new(&config.address, slots, seed ^ 0x5ca7_7e12),
            updates: config
                .updates
                .as_ref()
                .map(|u| UpdateState::new(u, config.alignment_bytes, config.working_set_bytes)),
            slot_bytes,
            rng: Pcg64Mcg::seed_from_u64(seed),
            sequential: [Sequential::default(); 2],
            gap,
            issued: 0,
            t_ns: config.start_ns as f64,
            len: config.requests.unwrap_or(0),
            config,
            seed,
        };
        if let Some(limit) = g.config.duration_ns {
            let mut n = 0;
            while g.draw().arrival_ns < limit {
                n += 1;
            }
            g.len = n;
            g.rewind();
        }
        g
    }

    /// Draw the next request (ignoring the count).
    fn draw(&mut self) -> TraceRequest {
        let c = &self.config;
        let read = self.rng.gen_bool(c.read_fraction);
        let sampler = if read {
            &self.read_size
        } else {
            &self.write_size
        };
        // Validation guarantees a sampler for every kind that can be drawn.
        let size = sampler
            .as_ref()
            .map_or(c.alignment_bytes, |s| s.sample(&mut self.rng));
        let random_fraction = if read {
            c.read_random_fraction
        } else {
            c.write_random_fraction
        };
        let ws = c.working_set_bytes;
        let seq = &mut self.sequential[usize::from(read)];
        let random = seq.run_left == 0 || self.rng.gen_bool(random_fraction);
        // Past the end, random starts move back inside (sequential streams wrap to 0, below).
        let place = |start: u64| {
            if start + size > ws {
                (ws - size) / c.alignment_bytes * c.alignment_bytes
            } else {
                start
            }
        };
        let mut start = if random {
            seq.run_left = c.sequential_run_bytes;
            match (&mut self.updates, read) {
                (Some(updates), false) => update_start(
                    updates,
                    &self.address,
                    self.slot_bytes,
                    &mut self.rng,
                    size,
                    place,
                ),
                (Some(updates), true) => updates
                    .read_start(&mut self.rng, place)
                    .unwrap_or_else(|| place(self.address.sample(&mut self.rng) * self.slot_bytes)),
                (None, _) => place(self.address.sample(&mut self.rng) * self.slot_bytes),
            }
        } else {
            seq.cursor
        };
        if start + size > ws {
            start = 0;
        }
        if let (Some(updates), false) = (&mut self.updates, read) {
            updates.record(start, size);
        }
        seq.cursor = start + size;
        seq.run_left = seq.run_left.saturating_sub(size);
        if c.sequential_run_bytes == 0 {
            // Without a run length a sequential stream goes on until a random request.
            seq.run_left = u64::MAX;
        }
        let arrival_ns = self.t_ns as u64;
        self.t_ns += match (&c.arrival, &self.gap) {
            (Arrival::Fixed { iops }, _) => 1e9 / iops,
            (
                Arrival::Bursts {
                    burst_requests,
                    idle_ns,
                    ..
                },
                Some(gap),
            ) if (self.issued + 1).is_multiple_of(*burst_requests) => {
                gap.sample(&mut self.rng) + *idle_ns as f64
            }
            (_, Some(gap)) => gap.sample(&mut self.rng),
            (_, None) => 0.0,
        };
        self.issued += 1;
        TraceRequest {
            arrival_ns,
            offset_bytes: start,
            size_bytes: size,
            op: if read { Op::Read } else { Op::Write },
            stream: c.stream.as_ref().map_or(0, |rule| stream_id(rule, start)),
        }
    }
}

/// The start of a random write of `size` bytes when writes choose between new data and updates
/// ([`UpdateState::start`]); `place` keeps a start inside the working set. (Out of line: the
/// address sampler is then inlined where it is drawn without updates.)
#[inline(never)]
fn update_start(
    updates: &mut UpdateState,
    address: &AddressSampler,
    slot_bytes: u64,
    rng: &mut Pcg64Mcg,
    size: u64,
    place: impl Fn(u64) -> u64,
) -> u64 {
    updates.start(size, rng, &place, |rng| {
        place(address.sample(rng) * slot_bytes)
    })
}

/// The stream id of a request starting `offset_bytes` into the working set, under a validated
/// rule.
#[inline]
fn stream_id(rule: &StreamRule, offset_bytes: u64) -> u16 {
    rule.id(offset_bytes)
        .unwrap_or_else(|| unreachable!("validation bounds the last extent's id by u16::MAX"))
}

impl RequestSource for GeneratorSource {
    fn len(&self) -> u64 {
        self.len
    }
    fn rewind(&mut self) {
        // The samplers hold no state; the stream, the clock and what was written start over.
        self.rng = Pcg64Mcg::seed_from_u64(self.seed);
        if let Some(u) = &mut self.updates {
            u.reset();
        }
        self.sequential = [Sequential::default(); 2];
        self.issued = 0;
        self.t_ns = self.config.start_ns as f64;
    }
    fn next_request(&mut self) -> Option<TraceRequest> {
        (self.issued < self.len).then(|| self.draw())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{SizeDist, StreamRule};

    fn base() -> GeneratorConfig {
        GeneratorConfig::new(
            50_000,
            0.7,
            1 << 30,
            SizeDist::Fixed { bytes: 8192 },
            Arrival::Poisson { iops: 10_000.0 },
        )
    }

    fn all(c: GeneratorConfig) -> Vec<TraceRequest> {
        c.validate("g").expect("valid");
        let mut g = GeneratorSource::new(c, 7);
        std::iter::from_fn(|| g.next_request()).collect()
    }

    #[test]
    fn matches_its_read_ratio_rate_and_bounds() {
        let v = all(base());
        assert_eq!(v.len(), 50_000);
        let reads = v.iter().filter(|r| r.op == Op::Read).count() as f64 / 50_000.0;
        // Binomial sd at n = 5e4, p = 0.7 is 0.002.
        assert!((reads - 0.7).abs() < 0.01, "{reads}");
        let span_s = v.last().map_or(0, |r| r.arrival_ns) as f64 / 1e9;
        let rate = 50_000.0 / span_s;
        // Poisson: relative sd of the span is 1 / sqrt(n) ≈ 0.45%.
        assert!((rate / 10_000.0 - 1.0).abs() < 0.02, "{rate}");
        assert!(v.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns));
        assert!(v
            .iter()
            .all(|r| r.offset_bytes % 4096 == 0 && r.offset_bytes + r.size_bytes <= 1 << 30));
    }

    /// Pearson's chi-square statistic of observed counts against expected ones.
    fn chi_square(observed: &[u64], expected: &[f64]) -> f64 {
        observed
            .iter()
            .zip(expected)
            .map(|(&o, &e)| (o as f64 - e).powi(2) / e)
            .sum()
    }

    #[test]
    fn sizes_and_gaps_pass_goodness_of_fit_tests() {
        let v = all(GeneratorConfig {
            requests: Some(40_000),
            size: Some(SizeDist::Uniform {
                min_bytes: 4096,
                max_bytes: 65536,
                step_bytes: 4096,
            }),
            ..base()
        });
        // Sizes: 16 equally likely values. Chi-square with 15 degrees of freedom: the 0.1%
        // critical value is 37.7.
        let mut counts = [0u64; 16];
        for r in &v {
            counts[(r.size_bytes / 4096 - 1) as usize] += 1;
        }
        let x2 = chi_square(&counts, &[v.len() as f64 / 16.0; 16]);
        assert!(x2 < 37.7, "chi-square {x2}");
        // Gaps: exponential with rate 10 k/s. Kolmogorov–Smirnov: reject at 0.1% if
        // D > 1.95 / sqrt(n).
        let mut gaps: Vec<f64> = v
            .windows(2)
            .map(|w| (w[1].arrival_ns - w[0].arrival_ns) as f64)
            .collect();
        gaps.sort_by(f64::total_cmp);
        let n = gaps.len() as f64;
        let d = gaps
            .iter()
            .enumerate()
            .map(|(i, &g)| {
                // Arrival times are whole ns: compare with the CDF at the middle of the ns.
                let f = 1.0 - (-(g + 0.5) * 1e4 / 1e9).exp();
                (f - i as f64 / n).abs().max((f - (i + 1) as f64 / n).abs())
            })
            .fold(0.0, f64::max);
        assert!(d < 1.95 / n.sqrt(), "KS D = {d}");
        // The test can fail: the same gaps against a rate 5% off are rejected.
        let d_off = gaps
            .iter()
            .enumerate()
            .map(|(i, &g)| ((1.0 - (-g * 1.05e4 / 1e9).exp()) - i as f64 / n).abs())
            .fold(0.0, f64::max);
        assert!(
            d_off > 1.95 / n.sqrt(),
            "KS cannot tell a 5% rate error: {d_off}"
        );
    }

    #[test]
    fn sequential_requests_continue_where_the_last_of_their_kind_ended() {
        let v = all(GeneratorConfig {
            read_random_fraction: 0.0,
            write_random_fraction: 0.25,
            ..base()
        });
        let (mut seq, mut writes, mut last) = (0, 0, [None, None]);
        for r in &v {
            let k = usize::from(r.op == Op::Read);
            if let Some(end) = last[k] {
                let continues =
                    r.offset_bytes == end || (r.offset_bytes == 0 && end + 8192 > 1 << 30);
                if k == 1 {
                    assert!(continues, "a read broke its sequential stream");
                } else {
                    writes += 1;
                    seq += u32::from(continues);
                }
            }
            last[k] = Some(r.offset_bytes + r.size_bytes);
        }
        let share = seq as f64 / writes as f64;
        // 75% of writes continue (a random start lands on the cursor with negligible chance).
        assert!((share - 0.75).abs() < 0.015, "{share}");
    }

    #[test]
    fn runs_cover_whole_aligned_blocks() {
        // HDFS-style: 1 MiB requests reading whole 8 MiB blocks.
        let v = all(GeneratorConfig {
            read_fraction: 1.0,
            read_random_fraction: 0.0,
            sequential_run_bytes: 8 << 20,
            size: Some(SizeDist::Fixed { bytes: 1 << 20 }),
            ..base()
        });
        for block in v.chunks(8) {
            assert_eq!(block[0].offset_bytes % (8 << 20), 0);
            for (i, r) in block.iter().enumerate() {
                assert_eq!(
                    r.offset_bytes,
                    block[0].offset_bytes + (i as u64) * (1 << 20)
                );
            }
        }
    }

    #[test]
    fn duration_bounds_arrivals_and_rewind_replays_identically() {
        let c = GeneratorConfig {
            requests: None,
            duration_ns: Some(1_000_000_000),
            arrival: Arrival::Bursts {
                iops: 50_000.0,
                burst_requests: 100,
                idle_ns: 10_000_000,
            },
            ..base()
        };
        c.validate("g").expect("valid");
        let mut g = GeneratorSource::new(c, 1);
        let first: Vec<_> = std::iter::from_fn(|| g.next_request()).collect();
        assert_eq!(first.len() as u64, g.len());
        assert!(first.iter().all(|r| r.arrival_ns < 1_000_000_000));
        // Each burst of 100 at 50 k IOPS lasts ~2 ms, then 10 ms idle: ~8,300 requests a second.
        assert!((7_000..9_500).contains(&first.len()), "{}", first.len());
        g.rewind();
        let again: Vec<_> = std::iter::from_fn(|| g.next_request()).collect();
        assert_eq!(first, again);
    }

    #[test]
    fn start_ns_delays_the_first_arrival_and_keeps_the_gaps() {
        let at = |start_ns| {
            all(GeneratorConfig {
                requests: Some(5),
                arrival: Arrival::Fixed { iops: 1000.0 },
                start_ns,
                ..base()
            })
            .iter()
            .map(|r| r.arrival_ns)
            .collect::<Vec<_>>()
        };
        assert_eq!(at(0), [0, 1_000_000, 2_000_000, 3_000_000, 4_000_000]);
        let late = at(7_000_000_000);
        assert_eq!(late[0], 7_000_000_000);
        assert_eq!(late[4] - late[0], 4_000_000);
        // With a duration, arrivals before it count: the run's clock, not the flow's.
        let mut g = GeneratorSource::new(
            GeneratorConfig {
                requests: None,
                duration_ns: Some(7_002_500_000),
                arrival: Arrival::Fixed { iops: 1000.0 },
                start_ns: 7_000_000_000,
                ..base()
            },
            1,
        );
        assert_eq!(std::iter::from_fn(|| g.next_request()).count(), 3);
        g.rewind();
        assert_eq!(g.next_request().map(|r| r.arrival_ns), Some(7_000_000_000));
        // Closed-loop requests have no arrival times to delay.
        let e = GeneratorConfig {
            arrival: Arrival::Closed { queue_depth: 1 },
            start_ns: 1,
            ..base()
        }
        .validate("g")
        .unwrap_err()
        .to_string();
        assert!(e.contains("g.start_ns"), "{e}");
    }

    #[test]
    fn updates_rewrite_written_data_and_start_over_on_rewind() {
        use crate::config::Updates;
        let c = GeneratorConfig {
            read_fraction: 0.3,
            size: Some(SizeDist::Fixed { bytes: 4096 }),
            updates: Some(Updates {
                update_fraction: 0.6,
                hot_fraction: 0.2,
                ..Default::default()
            }),
            ..base()
        };
        c.validate("g").expect("valid");
        let mut g = GeneratorSource::new(c, 3);
        let first: Vec<_> = std::iter::from_fn(|| g.next_request()).collect();
        // Single-unit writes: the kinds are exactly the shares of writes whose unit was written
        // before, and twice before.
        let mut written = std::collections::HashMap::new();
        let (mut writes, mut updates, mut hot) = (0.0, 0.0, 0.0);
        for r in first.iter().filter(|r| r.op == Op::Write) {
            let n: &mut u32 = written.entry(r.offset_bytes).or_default();
            writes += 1.0;
            updates += f64::from(u8::from(*n >= 1));
            hot += f64::from(u8::from(*n >= 2));
            *n += 1;
        }
        // About 35,000 writes: binomial sd 0.0026 at 0.6, 0.0021 at 0.2; 5 sd.
        assert!(
            (updates / writes - 0.6).abs() < 0.013,
            "{}",
            updates / writes
        );
        assert!((hot / writes - 0.2).abs() < 0.011, "{}", hot / writes);
        g.rewind();
        let again: Vec<_> = std::iter::from_fn(|| g.next_request()).collect();
        assert_eq!(first, again);
    }

    #[test]
    fn reads_follow_writes_in_their_shares_and_not_without_the_key() {
        use crate::config::Updates;
        // Single-unit requests on a working set far larger than what is written: a read that
        // the address distribution places almost never finds written data.
        let shares = |read_written_fraction, read_hot_fraction| {
            let c = GeneratorConfig {
                read_fraction: 0.5,
                size: Some(SizeDist::Fixed { bytes: 4096 }),
                updates: Some(Updates {
                    update_fraction: 0.6,
                    hot_fraction: 0.3,
                    read_written_fraction,
                    read_hot_fraction,
                }),
                ..base()
            };
            let mut written = std::collections::HashMap::<u64, u32>::new();
            let (mut reads, mut on_written, mut on_hot) = (0.0, 0.0, 0.0);
            for r in all(c) {
                let n = written.entry(r.offset_bytes).or_default();
                match r.op {
                    Op::Write => *n += 1,
                    _ => {
                        reads += 1.0;
                        on_written += f64::from(u8::from(*n >= 1));
                        on_hot += f64::from(u8::from(*n >= 2));
                    }
                }
            }
            (on_written / reads, on_hot / reads)
        };
        // About 25,000 reads: binomial sd at most 0.0032; 5 sd. (The pools are empty only for
        // the first few reads.)
        let (w, h) = shares(0.4, 0.1);
        assert!(
            (w - 0.4).abs() < 0.016 && (h - 0.1).abs() < 0.016,
            "{w} {h}"
        );
        let (w, h) = shares(1.0, 1.0);
        assert!(w > 0.999 && h > 0.99, "{w} {h}");
        // Without the key the reads go where the address distribution puts them: 2^18 slots,
        // at most 25,000 written.
        let (w, _) = shares(0.0, 0.0);
        assert!(w < 0.15, "{w}");
    }

    #[test]
    fn the_hdfs_writer_writes_each_block_as_a_stream_of_its_own() {
        let c = crate::config::workloads::generator("hdfs-writer").unwrap();
        let block = 128 << 20;
        assert_eq!(
            c.stream,
            Some(StreamRule::PerExtent {
                extent_bytes: block
            })
        );
        let v = all(c);
        // Every request is the stream of the 128 MiB block it writes, numbered from 1 (0 is
        // none), and a block is written by consecutive requests: 1,024 of 128 KiB each.
        for r in &v {
            assert_eq!(u64::from(r.stream), r.offset_bytes / block + 1, "{r:?}");
        }
        for run in v.chunks(1024) {
            assert!(run.iter().all(|r| r.stream == run[0].stream));
        }
        let streams: std::collections::BTreeSet<u16> = v.iter().map(|r| r.stream).collect();
        assert!(streams.iter().all(|s| (1..=64).contains(s)));
        assert!(streams.len() > 32, "{}", streams.len());
        // Without the key every request is stream 0.
        assert!(all(base()).iter().all(|r| r.stream == 0));
    }
}
