//! Request size sampling.

use rand::Rng;
use rand_distr::{Distribution, Geometric, WeightedIndex};

use super::SizeDist;
use crate::error::Error;

/// Draws sizes from a [`SizeDist`].
pub(super) enum SizeSampler {
    Fixed(u64),
    Choice(Vec<u64>, WeightedIndex<f64>),
    Uniform { min: u64, steps: u64, step: u64 },
    Histogram(Vec<(u64, u64)>, WeightedIndex<f64>, u64),
    Geometric(Geometric, u64, u64),
}

impl SizeSampler {
    /// A sampler for a validated distribution.
    pub(super) fn new(d: &SizeDist) -> SizeSampler {
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
            } => {
                // Mean of step × (1 + G) is step / p.
                let p = (*step_bytes as f64 / mean_bytes).min(1.0);
                let g = Geometric::new(p).unwrap_or_else(|_| unreachable!("p in (0, 1]"));
                SizeSampler::Geometric(g, *step_bytes, *max_bytes)
            }
        }
    }

    pub(super) fn sample(&self, rng: &mut impl Rng) -> u64 {
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
            SizeSampler::Geometric(g, step, max) => (step * (1 + g.sample(rng))).min(*max),
        }
    }
}

/// Check a distribution; `key` names it in errors.
pub(super) fn validate(d: &SizeDist, key: &str, working_set_bytes: u64) -> Result<(), Error> {
    let err = |what: &str, msg: String| Err(Error::config(&format!("{key}.{what}"), msg));
    let weights_ok =
        |w: &[f64]| w.iter().all(|x| x.is_finite() && *x >= 0.0) && w.iter().sum::<f64>() > 0.0;
    let largest = match d {
        SizeDist::Fixed { bytes } => {
            if *bytes == 0 {
                return err("bytes", "must be positive".into());
            }
            *bytes
        }
        SizeDist::Choice { bytes, weights } => {
            if bytes.is_empty() || bytes.len() != weights.len() {
                return err(
                    "weights",
                    format!(
                        "needs one weight per size ({} sizes, {} weights)",
                        bytes.len(),
                        weights.len()
                    ),
                );
            }
            if bytes.contains(&0) {
                return err("bytes", "sizes must be positive".into());
            }
            if !weights_ok(weights) {
                return err("weights", "must be ≥ 0 and not all 0".into());
            }
            bytes.iter().copied().max().unwrap_or(0)
        }
        SizeDist::Uniform {
            min_bytes,
            max_bytes,
            step_bytes,
        } => {
            if *step_bytes == 0 || *min_bytes == 0 || max_bytes < min_bytes {
                return err(
                    "min_bytes",
                    format!(
                        "need 0 < min_bytes ≤ max_bytes and step_bytes > 0 (got {min_bytes}, \
                         {max_bytes}, {step_bytes})"
                    ),
                );
            }
            if (max_bytes - min_bytes) % step_bytes != 0 {
                return err(
                    "max_bytes",
                    format!(
                        "max_bytes − min_bytes must be a multiple of step_bytes ({step_bytes})"
                    ),
                );
            }
            *max_bytes
        }
        SizeDist::Histogram {
            bin_edges_bytes,
            weights,
            step_bytes,
        } => {
            if bin_edges_bytes.len() < 2 || bin_edges_bytes.len() != weights.len() + 1 {
                return err(
                    "weights",
                    format!(
                        "needs one weight per bin: {} edges make {} bins, got {} weights",
                        bin_edges_bytes.len(),
                        bin_edges_bytes.len().saturating_sub(1),
                        weights.len()
                    ),
                );
            }
            if *step_bytes == 0
                || bin_edges_bytes[0] == 0
                || bin_edges_bytes.windows(2).any(|b| b[0] >= b[1])
                || bin_edges_bytes.iter().any(|e| e % step_bytes != 0)
            {
                return err(
                    "bin_edges_bytes",
                    format!("must be positive, increasing multiples of step_bytes ({step_bytes})"),
                );
            }
            if !weights_ok(weights) {
                return err("weights", "must be ≥ 0 and not all 0".into());
            }
            bin_edges_bytes.last().copied().unwrap_or(0) - step_bytes
        }
        SizeDist::Geometric {
            mean_bytes,
            step_bytes,
            max_bytes,
        } => {
            if *step_bytes == 0 || !(mean_bytes.is_finite() && *mean_bytes >= *step_bytes as f64) {
                return err(
                    "mean_bytes",
                    format!("must be at least step_bytes = {step_bytes} (got {mean_bytes})"),
                );
            }
            if max_bytes < step_bytes {
                return err(
                    "max_bytes",
                    format!("must be at least step_bytes = {step_bytes}"),
                );
            }
            *max_bytes
        }
    };
    if largest > working_set_bytes {
        return err(
            "kind",
            format!(
                "sizes up to {largest} bytes do not fit the working set of {working_set_bytes}"
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn draws(d: &SizeDist, n: usize) -> Vec<u64> {
        validate(d, "size", 1 << 40).expect("valid");
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
        };
        let v = draws(&d, 200_000);
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
        // sd of a geometric size ≈ mean; standard error = mean / sqrt(n) ≈ 0.22%: bound at 1.5%.
        assert!((mean / (42.83 * 1024.0) - 1.0).abs() < 0.015, "{mean}");
        assert!(v.iter().all(|b| b % 4096 == 0 && *b >= 4096));
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

    #[test]
    fn bad_distributions_name_their_key() {
        let e = validate(
            &SizeDist::Choice {
                bytes: vec![4096],
                weights: vec![1.0, 2.0],
            },
            "flows[0].generator.size",
            1 << 30,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("flows[0].generator.size.weights"), "{e}");
        let e = validate(&SizeDist::Fixed { bytes: 1 << 31 }, "size", 1 << 30)
            .unwrap_err()
            .to_string();
        assert!(e.contains("working set"), "{e}");
    }
}
