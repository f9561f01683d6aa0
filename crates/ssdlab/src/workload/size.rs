//! Request size sampling.

use rand::Rng;
use rand_distr::{Distribution, Geometric, WeightedIndex};

use crate::config::SizeDist;

/// Draws sizes from a [`SizeDist`].
pub(crate) enum SizeSampler {
    Fixed(u64),
    Choice(Vec<u64>, WeightedIndex<f64>),
    Uniform {
        min: u64,
        steps: u64,
        step: u64,
    },
    Histogram(Vec<(u64, u64)>, WeightedIndex<f64>, u64),
    /// `min + step × G`, cut to `max`.
    Geometric {
        g: Geometric,
        min: u64,
        step: u64,
        max: u64,
    },
    Mixture(Vec<SizeSampler>, WeightedIndex<f64>),
}

impl SizeSampler {
    /// A sampler for a validated distribution.
    pub(crate) fn new(d: &SizeDist) -> SizeSampler {
        let weights = |w: &[f64]| {
            WeightedIndex::new(w.iter().copied())
                .unwrap_or_else(|_| unreachable!("weights checked by validation"))
        };
        match d {
            SizeDist::Fixed { bytes } => SizeSampler::Fixed(*bytes),
            SizeDist::Choice { bytes, weights: w } => {
                SizeSampler::Choice(bytes.clone(), weights(w))
            }
            SizeDist::Uniform {
                min_bytes,
                max_bytes,
                step_bytes,
            } => SizeSampler::Uniform {
                min: *min_bytes,
                steps: (max_bytes - min_bytes) / step_bytes,
                step: *step_bytes,
            },
            SizeDist::Histogram {
                bin_edges_bytes: e,
                weights: w,
                step_bytes,
            } => SizeSampler::Histogram(
                e.windows(2).map(|b| (b[0], b[1])).collect(),
                weights(w),
                *step_bytes,
            ),
            SizeDist::Geometric {
                mean_bytes,
                step_bytes,
                max_bytes,
                min_bytes,
            } => {
                // Mean of min + step × G is min − step + step / p. Subtracting the offset
                // min − step (0 by default) keeps p = step / mean exactly when there is none.
                let min = min_bytes.unwrap_or(*step_bytes);
                let off = min as f64 - *step_bytes as f64;
                let p = (*step_bytes as f64 / (mean_bytes - off)).min(1.0);
                SizeSampler::Geometric {
                    g: Geometric::new(p).unwrap_or_else(|_| unreachable!("p in (0, 1]")),
                    min,
                    step: *step_bytes,
                    max: *max_bytes,
                }
            }
            SizeDist::Mixture { components } => SizeSampler::Mixture(
                components
                    .iter()
                    .map(|c| SizeSampler::new(&c.size))
                    .collect(),
                weights(&components.iter().map(|c| c.weight).collect::<Vec<_>>()),
            ),
        }
    }

    pub(crate) fn sample(&self, rng: &mut impl Rng) -> u64 {
        match self {
            SizeSampler::Fixed(b) => *b,
            SizeSampler::Choice(bytes, w) => bytes[w.sample(rng)],
            SizeSampler::Uniform { min, steps, step } => min + step * rng.gen_range(0..=*steps),
            SizeSampler::Histogram(bins, w, step) => {
                let (lo, hi) = bins[w.sample(rng)];
                // Sizes lo, lo + step, … below hi (validation makes lo a multiple of step).
                let steps = (hi - lo).div_ceil(*step);
                lo + step * rng.gen_range(0..steps)
            }
            SizeSampler::Geometric { g, min, step, max } => (min + step * g.sample(rng)).min(*max),
            SizeSampler::Mixture(parts, w) => parts[w.sample(rng)].sample(rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::generator::{mean_bytes, validate_size};
    use crate::config::SizeComponent;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn draws(d: &SizeDist, n: usize) -> Vec<u64> {
        validate_size(d, "size", 1 << 40).expect("valid");
        let s = SizeSampler::new(d);
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        (0..n).map(|_| s.sample(&mut rng)).collect()
    }

    #[test]
    fn choice_follows_its_weights() {
        // SPREAD GRP: 4 KiB : 8 KiB = 3 : 2.
        let d = SizeDist::Choice {
            bytes: vec![4096, 8192],
            weights: vec![3.0, 2.0],
        };
        let v = draws(&d, 100_000);
        let small = v.iter().filter(|&&b| b == 4096).count() as f64 / v.len() as f64;
        // Binomial sd at n = 1e5, p = 0.6 is 0.0015: 5 sd.
        assert!((small - 0.6).abs() < 0.008, "{small}");
        assert!(v.iter().all(|&b| b == 4096 || b == 8192));
    }

    #[test]
    fn geometric_has_the_requested_mean_on_the_step_grid() {
        let d = SizeDist::Geometric {
            mean_bytes: 42.83 * 1024.0,
            step_bytes: 4096,
            max_bytes: 1 << 30,
            min_bytes: None,
        };
        let v = draws(&d, 200_000);
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
        // sd of a geometric size ≈ mean; standard error = mean / sqrt(n) ≈ 0.22%: bound at 1.5%.
        assert!((mean / (42.83 * 1024.0) - 1.0).abs() < 0.015, "{mean}");
        assert!(v.iter().all(|b| b % 4096 == 0 && *b >= 4096));
    }

    /// PR-SSD Office's read sizes (Table 2 mean 35.35 KB): 60% single 4 KiB reads, the rest
    /// geometric with the mean that keeps the whole at Table 2's.
    fn small_and_tail() -> SizeDist {
        let tail = (35.35 * 1024.0 - 0.6 * 4096.0) / 0.4;
        SizeDist::Mixture {
            components: vec![
                SizeComponent {
                    weight: 0.6,
                    size: SizeDist::Fixed { bytes: 4096 },
                },
                SizeComponent {
                    weight: 0.4,
                    size: SizeDist::Geometric {
                        mean_bytes: tail,
                        step_bytes: 4096,
                        max_bytes: 16 << 20,
                        min_bytes: None,
                    },
                },
            ],
        }
    }

    #[test]
    fn a_mixture_draws_its_components_by_weight_and_keeps_their_mean() {
        let d = small_and_tail();
        assert!((mean_bytes(&d) / (35.35 * 1024.0) - 1.0).abs() < 1e-9);
        let v = draws(&d, 200_000);
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
        // The tail's sd ≈ its mean (84 KiB), the whole's ≈ 62 KiB; standard error at n = 2e5
        // ≈ 0.14 KiB = 0.4% of the mean: bound at 2%.
        assert!((mean / (35.35 * 1024.0) - 1.0).abs() < 0.02, "{mean}");
        // 4 KiB: the fixed component (0.6) and the tail's first step (0.4 × 4096 / tail mean).
        let tail = (35.35 * 1024.0 - 0.6 * 4096.0) / 0.4;
        let expected = 0.6 + 0.4 * 4096.0 / tail;
        let small = v.iter().filter(|&&b| b == 4096).count() as f64 / v.len() as f64;
        // Binomial sd at n = 2e5 is 0.0011: 5 sd.
        assert!((small - expected).abs() < 0.0055, "{small} vs {expected}");
        // The test can fail: a plain geometric with the same mean has far fewer 4 KiB sizes.
        let plain = draws(
            &SizeDist::Geometric {
                mean_bytes: 35.35 * 1024.0,
                step_bytes: 4096,
                max_bytes: 16 << 20,
                min_bytes: None,
            },
            200_000,
        );
        let plain_small = plain.iter().filter(|&&b| b == 4096).count() as f64 / 200_000.0;
        assert!(plain_small < 0.15, "{plain_small}");
    }

    #[test]
    fn the_analytic_mean_of_a_cut_geometric_matches_its_draws() {
        // A cut that matters: mean 64 KiB, sizes above 96 KiB cut to 96 KiB.
        let d = SizeDist::Geometric {
            mean_bytes: 65536.0,
            step_bytes: 4096,
            max_bytes: 98304,
            min_bytes: None,
        };
        let v = draws(&d, 200_000);
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
        let m = mean_bytes(&d);
        assert!(m < 60_000.0, "the cut lowers the mean: {m}");
        // sd < 40 KiB: standard error < 0.1 KiB; bound at 1%.
        assert!((mean / m - 1.0).abs() < 0.01, "{mean} vs {m}");
    }

    #[test]
    fn a_geometric_above_a_minimum_keeps_its_mean_and_grid() {
        // IPU ts0's requests over 8 KiB: 12 KiB and up on 4 KiB steps, mean 31,436 B.
        let d = SizeDist::Geometric {
            mean_bytes: 31436.0,
            step_bytes: 4096,
            max_bytes: 1 << 20,
            min_bytes: Some(12288),
        };
        let v = draws(&d, 200_000);
        assert!(v
            .iter()
            .all(|&b| b >= 12288 && b % 4096 == 0 && b <= 1 << 20));
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
        let m = mean_bytes(&d);
        assert!(
            (m / 31436.0 - 1.0).abs() < 1e-6,
            "the cut at 1 MiB is negligible: {m}"
        );
        // sd = sqrt(q) × step / p ≈ 19 KiB; standard error at n = 2e5 ≈ 43 B = 0.14%: bound 1%.
        assert!((mean / m - 1.0).abs() < 0.01, "{mean} vs {m}");
        // The share at the minimum is p = step / (mean − min + step) = 0.176 (binomial sd 0.0009).
        let at_min = v.iter().filter(|&&b| b == 12288).count() as f64 / v.len() as f64;
        assert!(
            (at_min - 4096.0 / (31436.0 - 8192.0)).abs() < 0.005,
            "{at_min}"
        );
        // A minimum of one step is the plain geometric, draw for draw.
        let plain = |min_bytes| SizeDist::Geometric {
            mean_bytes: 135347.2,
            step_bytes: 4096,
            max_bytes: 16 << 20,
            min_bytes,
        };
        assert_eq!(
            draws(&plain(None), 10_000),
            draws(&plain(Some(4096)), 10_000)
        );
        // A cut that matters, with a minimum: the analytic mean follows the draws.
        let cut = SizeDist::Geometric {
            mean_bytes: 65536.0,
            step_bytes: 4096,
            max_bytes: 98304,
            min_bytes: Some(16384),
        };
        let v = draws(&cut, 200_000);
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
        assert!((mean / mean_bytes(&cut) - 1.0).abs() < 0.01, "{mean}");
    }

    #[test]
    fn uniform_and_histogram_stay_in_range_on_their_grid() {
        let u = draws(
            &SizeDist::Uniform {
                min_bytes: 4096,
                max_bytes: 65536,
                step_bytes: 4096,
            },
            10_000,
        );
        assert!(u
            .iter()
            .all(|b| (4096..=65536).contains(b) && b % 4096 == 0));
        assert!(u.contains(&4096) && u.contains(&65536));
        let h = draws(
            &SizeDist::Histogram {
                bin_edges_bytes: vec![4096, 8192, 65536],
                weights: vec![1.0, 0.0],
                step_bytes: 4096,
            },
            1000,
        );
        assert!(h.iter().all(|&b| b == 4096), "zero-weight bin drawn");
    }
}
