//! Units drawn from a target compressibility mix, for sweeps a real corpus cannot give (e.g. "half
//! the data incompressible, a fifth 90% redundant").
//!
//! A unit's key picks a class of the mix (class i with probability `fraction_i`). A unit of
//! compressibility `c` and `n` bytes is generated as:
//! - a dominant byte `d`, uniform in 1..=255 per unit (never 0, so redundant runs are not mistaken
//!   for zero sub-blocks, and a 100%-compressible unit is not a zero unit);
//! - `R = round(c·n)` bytes equal to `d`, spread over the unit's 512-byte segments in proportion
//!   to their length (the segment of bytes [a, b) gets ⌊bR/n⌋ − ⌊aR/n⌋), as one run at the start
//!   of each segment;
//! - the other `n − R` bytes i.i.d. uniform (PCG-64 seeded by the key).
//!
//! So `c` is the share of redundant bytes, and each kind of codec sees about that saving: an LZ
//! compressor (LZ4, deflate) replaces each run by one match, a few bytes per segment, and cannot
//! shrink the random bytes; a dominant-pattern compressor (PR-SSD's DPC, 1-byte pattern) finds `d`
//! as the unit's dominant byte at share c + (1 − c)/256, and line compressors (FPC, BDI: 64-byte
//! lines) find whole lines of it, each less the cost of its own metadata. Runs of 512-byte
//! segments rather than finer ones keep the LZ cost to 8 matches per 4 KiB. The measured savings,
//! and why they sit slightly below `c`, are in `docs/content.md`.

use rand::RngCore;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::{cumulative, draw, pick, unit_interval, validate_fractions, KeyedSource, ZeroConfig};
use crate::error::Error;

/// Redundant bytes are spread over segments of this size (the sector), so that every part of a
/// unit, as a 128-byte-granular or a sector-granular codec sees it, has about the same share.
pub const SEGMENT_BYTES: usize = 512;

/// One class of the mix.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixClass {
    /// Share of units in this class.
    pub fraction: f64,
    /// Share of each unit's bytes that are redundant, in [0, 1].
    pub compressibility: f64,
}

/// `source = "synthetic"`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntheticConfig {
    /// The classes; fractions sum to 1.
    pub mix: Vec<MixClass>,
    /// Share of (lpn, version) writes that are all zero (see `zero.rs`).
    #[serde(default)]
    pub zero_unit_fraction: f64,
    /// Share of writes with some zero sub-blocks (see `zero.rs`).
    #[serde(default)]
    pub partial_zero_fraction: f64,
    /// Size of the sub-blocks a partly zero unit zeroes.
    #[serde(default = "super::zero::default_partial_zero_block_bytes")]
    pub partial_zero_block_bytes: u32,
}

impl SyntheticConfig {
    pub fn zeros(&self) -> ZeroConfig {
        ZeroConfig {
            zero_unit_fraction: self.zero_unit_fraction,
            partial_zero_fraction: self.partial_zero_fraction,
            partial_zero_block_bytes: self.partial_zero_block_bytes,
        }
    }

    /// Fractions and compressibilities in [0, 1], fractions summing to 1 (within 1e-9).
    pub fn validate(&self) -> Result<(), Error> {
        validate_fractions(self.mix.iter().map(|c| c.fraction))?;
        for (i, class) in self.mix.iter().enumerate() {
            let v = class.compressibility;
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(Error::config(
                    &format!("content.mix[{i}].compressibility"),
                    format!("must be in [0, 1] (got {v})"),
                ));
            }
        }
        Ok(())
    }
}

/// The synthetic source.
pub struct Synthetic {
    /// Cumulative fraction up to and including each class.
    cumulative: Vec<f64>,
    /// Each class's compressibility.
    compressibility: Vec<f64>,
    seed: u64,
}

impl Synthetic {
    /// `config` should be valid ([`SyntheticConfig::validate`]); an invalid mix still gives
    /// deterministic units (a draw past every cumulative fraction takes the last class).
    pub fn new(config: &SyntheticConfig, seed: u64) -> Synthetic {
        Synthetic {
            cumulative: cumulative(config.mix.iter().map(|c| c.fraction)),
            compressibility: config
                .mix
                .iter()
                .map(|c| c.compressibility.clamp(0.0, 1.0))
                .collect(),
            seed,
        }
    }

    /// The compressibility of the class `key` picks (0 for an empty mix).
    fn class(&self, key: u64) -> f64 {
        let i = pick(&self.cumulative, unit_interval(key));
        self.compressibility.get(i).copied().unwrap_or(0.0)
    }

    /// Generate the unit `key` names (the scheme in the module doc).
    fn generate(&self, key: u64, buf: &mut [u8]) {
        let c = self.class(key);
        let dominant = 1 + (draw(key, 0) % 255) as u8;
        let mut rng = Pcg64Mcg::new(((draw(key, 1) as u128) << 64) | draw(key, 2) as u128);
        let n = buf.len();
        let redundant = ((c * n as f64).round() as usize).min(n);
        let mut start = 0;
        for seg in buf.chunks_mut(SEGMENT_BYTES) {
            let end = start + seg.len();
            // ≤ seg.len() because redundant ≤ n (u128: no overflow for any length).
            let share = |at: usize| (redundant as u128 * at as u128 / n as u128) as usize;
            let r = share(end) - share(start);
            start = end;
            let (run, random) = seg.split_at_mut(r);
            run.fill(dominant);
            rng.fill_bytes(random);
        }
    }
}

impl KeyedSource for Synthetic {
    fn seed(&self) -> u64 {
        self.seed
    }

    fn fill_key(&self, key: u64, buf: &mut [u8]) {
        self.generate(key, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::ContentSource;

    fn source(mix: &[(f64, f64)]) -> Synthetic {
        let config = SyntheticConfig {
            mix: mix
                .iter()
                .map(|&(fraction, compressibility)| MixClass {
                    fraction,
                    compressibility,
                })
                .collect(),
            zero_unit_fraction: 0.0,
            partial_zero_fraction: 0.0,
            partial_zero_block_bytes: 512,
        };
        config.validate().expect("valid mix");
        Synthetic::new(&config, 5)
    }

    /// Bytes equal to the most frequent byte value.
    fn dominant_count(buf: &[u8]) -> usize {
        let mut hist = [0usize; 256];
        buf.iter().for_each(|&b| hist[b as usize] += 1);
        hist.into_iter().max().unwrap_or(0)
    }

    #[test]
    fn the_redundant_share_is_exact_and_even_across_segments() {
        let s = source(&[(1.0, 0.3)]);
        let mut buf = vec![0u8; 4096];
        s.fill(1, 1, &mut buf);
        let d = buf[0];
        assert_ne!(d, 0);
        // round(0.3 × 4096) = 1229 = 8 segments of 153 or 154; each starts with its run.
        for (i, seg) in buf.chunks(512).enumerate() {
            let run = seg.iter().take_while(|&&x| x == d).count();
            let want = 1229 * (i + 1) * 512 / 4096 - 1229 * i * 512 / 4096;
            assert!(
                run >= want && run <= want + 2,
                "segment {i}: run {run}, want {want}"
            );
        }
        // Random bytes equal `d` about 1/256 of the time.
        let extra = dominant_count(&buf) - 1229;
        assert!(extra < 40, "{extra}");
    }

    proptest::proptest! {
        /// Any compressibility and length: each 512-byte segment opens with its share of the
        /// round(c·n) redundant bytes, and those shares add up to exactly round(c·n).
        #[test]
        fn every_segment_opens_with_its_share_of_runs(c in 0.0f64..=1.0, len in 1usize..20_000) {
            let s = source(&[(1.0, c)]);
            let mut buf = vec![0u8; len];
            s.fill(9, 9, &mut buf);
            let redundant = (c * len as f64).round() as usize;
            let mut total = 0;
            for (i, seg) in buf.chunks(SEGMENT_BYTES).enumerate() {
                let (a, b) = (i * SEGMENT_BYTES, i * SEGMENT_BYTES + seg.len());
                let r = redundant * b / len - redundant * a / len;
                total += r;
                if r > 0 {
                    proptest::prop_assert!(seg[..r].iter().all(|&x| x == seg[0] && x != 0));
                }
            }
            proptest::prop_assert_eq!(total, redundant);
        }
    }

    #[test]
    fn extreme_classes() {
        let mut buf = vec![0u8; 4096];
        source(&[(1.0, 1.0)]).fill(3, 0, &mut buf);
        assert!(buf.iter().all(|&x| x == buf[0] && x != 0));
        source(&[(1.0, 0.0)]).fill(3, 0, &mut buf);
        assert!(dominant_count(&buf) < 40);
    }

    #[test]
    fn classes_are_drawn_at_their_fractions() {
        let s = source(&[(0.25, 0.0), (0.75, 1.0)]);
        let mut buf = vec![0u8; 512];
        let full = (0..20_000)
            .filter(|&lpn| {
                s.fill(lpn, 0, &mut buf);
                buf.iter().all(|&x| x == buf[0])
            })
            .count();
        // Binomial(20000, 0.75): σ ≈ 61; 5σ ≈ 306.
        assert!((14_694..=15_306).contains(&full), "{full}");
    }

    #[test]
    fn odd_lengths_are_filled_whole() {
        let s = source(&[(1.0, 0.5)]);
        for len in [0, 1, 100, 513, 700] {
            let mut buf = vec![0u8; len];
            s.fill(0, 0, &mut buf);
            let d = buf.first().copied().unwrap_or(1);
            let run = buf.iter().filter(|&&x| x == d).count();
            let want = (len as f64 * 0.5).round() as usize;
            assert!(
                run >= want && run <= want + 8,
                "len {len}: {run}, want {want}"
            );
        }
    }

    #[test]
    fn validation_names_the_key() {
        let bad = |mix: Vec<MixClass>| SyntheticConfig {
            mix,
            zero_unit_fraction: 0.0,
            partial_zero_fraction: 0.0,
            partial_zero_block_bytes: 512,
        };
        let class = |fraction, compressibility| MixClass {
            fraction,
            compressibility,
        };
        let cases = [
            (bad(vec![]), "content.mix"),
            (bad(vec![class(0.5, 0.1), class(0.4, 0.2)]), "content.mix"),
            (bad(vec![class(1.0, 1.2)]), "content.mix[0].compressibility"),
            (
                bad(vec![class(0.5, 0.1), class(-0.5, 0.2), class(1.0, 0.0)]),
                "content.mix[1].fraction",
            ),
            (
                bad(vec![class(f64::INFINITY, 0.5)]),
                "content.mix[0].fraction",
            ),
        ];
        for (c, key) in cases {
            match c.validate() {
                Err(Error::Config { key: k, .. }) => assert_eq!(k, key),
                other => panic!("{c:?}: expected an error on {key}, got {other:?}"),
            }
        }
    }
}
