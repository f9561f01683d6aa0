//! Where random requests start: a slot (an `alignment_bytes`-sized piece) of the working set.

use rand::Rng;
use rand_distr::{Distribution, Zipf};

use crate::config::AddressDist;
use crate::permutation::Permutation;

pub(super) enum AddressSampler {
    Uniform {
        slots: u64,
    },
    /// Zipf ranks (1 = hottest) scattered over the slots.
    Zipf {
        zipf: Zipf<f64>,
        scatter: Permutation,
    },
    /// Hot slots are the first `hot` of the scattered order.
    HotCold {
        slots: u64,
        hot: u64,
        hot_access: f64,
        scatter: Permutation,
    },
}

impl AddressSampler {
    /// A sampler over `slots` slots (≥ 1) for a validated distribution; `seed` scatters ranks.
    pub(super) fn new(d: &AddressDist, slots: u64, seed: u64) -> AddressSampler {
        match d {
            AddressDist::Uniform => AddressSampler::Uniform { slots },
            AddressDist::Zipf { exponent } => AddressSampler::Zipf {
                zipf: Zipf::new(slots, *exponent)
                    .unwrap_or_else(|_| unreachable!("exponent checked by validation")),
                scatter: Permutation::new(slots, seed),
            },
            AddressDist::HotCold {
                hot_space_fraction,
                hot_access_fraction,
            } => {
                let hot = ((slots as f64 * hot_space_fraction).round() as u64).clamp(1, slots);
                AddressSampler::HotCold {
                    slots,
                    hot,
                    hot_access: *hot_access_fraction,
                    scatter: Permutation::new(slots, seed),
                }
            }
        }
    }

    #[inline(always)]
    pub(super) fn sample(&self, rng: &mut impl Rng) -> u64 {
        match self {
            AddressSampler::Uniform { slots } => rng.gen_range(0..*slots),
            AddressSampler::Zipf { zipf, scatter } => {
                // Zipf samples ranks 1..=n as floats holding integers.
                scatter.at(zipf.sample(rng) as u64 - 1)
            }
            AddressSampler::HotCold {
                slots,
                hot,
                hot_access,
                scatter,
            } => {
                let rank = if *hot == *slots || rng.gen_bool(*hot_access) {
                    rng.gen_range(0..*hot)
                } else {
                    rng.gen_range(*hot..*slots)
                };
                scatter.at(rank)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::generator::validate_address;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn counts(d: &AddressDist, slots: u64, n: usize) -> Vec<u64> {
        validate_address(d, "address").expect("valid");
        let s = AddressSampler::new(d, slots, 3);
        let mut rng = Pcg64Mcg::seed_from_u64(4);
        let mut c = vec![0u64; slots as usize];
        for _ in 0..n {
            c[s.sample(&mut rng) as usize] += 1;
        }
        c
    }

    #[test]
    fn hot_cold_sends_the_hot_share_to_the_hot_slots() {
        let d = AddressDist::HotCold {
            hot_space_fraction: 0.2,
            hot_access_fraction: 0.8,
        };
        let c = counts(&d, 1000, 200_000);
        let mut sorted = c.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let top: u64 = sorted[..200].iter().sum();
        let share = top as f64 / 200_000.0;
        // Binomial sd of the hot share at n = 2e5 is 0.0009.
        assert!((share - 0.8).abs() < 0.01, "{share}");
        // Hot slots are scattered, not the first 200.
        let first: u64 = c[..200].iter().sum();
        assert!((first as f64 / 200_000.0) < 0.5, "hot slots not scattered");
    }

    #[test]
    fn zipf_is_skewed_and_uniform_is_not() {
        let z = counts(&AddressDist::Zipf { exponent: 0.99 }, 10_000, 100_000);
        let u = counts(&AddressDist::Uniform, 10_000, 100_000);
        let max = |c: &[u64]| *c.iter().max().unwrap_or(&0);
        // Zipf(0.99) over 1e4 ranks gives rank 1 about 1 / H ≈ 10% of draws.
        assert!(max(&z) > 5_000, "{}", max(&z));
        assert!(max(&u) < 40, "{}", max(&u));
    }
}
