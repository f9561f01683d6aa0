//! A pseudo-random permutation with O(1) memory and random access, used to scatter a fill order
//! (preconditioning) and the ranks of a skewed address distribution (workload generators) over
//! an address space without storing a shuffled table.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A pseudo-random permutation of `0..n` with O(1) memory and random access: a four-round
/// Feistel network over the smallest even-bit power of two ≥ n, cycle-walking past values ≥ n.
pub struct Permutation {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    pub fn new(n: u64, seed: u64) -> Permutation {
        let bits = (64 - n.max(2).saturating_sub(1).leading_zeros()).max(2);
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        Permutation {
            n,
            half_bits: bits.div_ceil(2),
            keys: [rng.gen(), rng.gen(), rng.gen(), rng.gen()],
        }
    }

    fn round(&self, x: u64, key: u64) -> u64 {
        // Multiply-shift hash: cheap, and mixing quality is all a fill order needs.
        (x ^ key).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32
    }

    fn encrypt(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut l, mut r) = (x >> self.half_bits, x & mask);
        for &k in &self.keys {
            let next = l ^ (self.round(r, k) & mask);
            l = r;
            r = next;
        }
        (l << self.half_bits) | r
    }

    /// The i-th element (i < n).
    pub fn at(&self, i: u64) -> u64 {
        let mut x = self.encrypt(i);
        while x >= self.n {
            x = self.encrypt(x);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_visits_every_index_once() {
        for n in [1u64, 2, 7, 100, 1000, 4097] {
            let p = Permutation::new(n, 12345);
            let mut seen: Vec<u64> = (0..n).map(|i| p.at(i)).collect();
            seen.sort();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
        }
    }
}
