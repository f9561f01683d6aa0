//! Zero and partly zero units, a common option of every source.
//!
//! Zero data is the cheapest data to store: an all-zero unit needs only a mark in the mapping table
//! (PR-SSD cites [31] for this), and PR-SSD's DPC filters zero sub-blocks out before compressing
//! and records them in a per-LPN zero bitmap (Kang et al., IEEE TC 2023, §4.2.1–§4.2.3, Fig. 9:
//! LPN 907 "contains three partial zero data and is represented as 0111"). Their Fig. 6b measures
//! partial-zero page requests at 6% on average and up to 20% across workloads. Real corpora have
//! few aligned zero blocks, so these rates are set here, per (lpn, version):
//!
//! - with probability `zero_unit_fraction` the unit is all zero;
//! - else with probability `partial_zero_fraction` it is the source's unit with `k` of its
//!   `m = unit / partial_zero_block_bytes` sub-blocks zeroed, `k` uniform in 1..m−1 and the set of
//!   zeroed sub-blocks uniform among the sets of that size (our reconstruction: PR-SSD gives the
//!   rate, not the shape), so each unit keeps at least one non-zero and one zero sub-block;
//! - else it is the source's unit unchanged.
//!
//! One uniform draw of the (lpn, version) key decides, so the zero shares are exact in
//! expectation and independent of which content the unit gets. With PR-SSD's 16 KiB LPNs and
//! 4 KiB partial units, set `partial_zero_block_bytes = 4096`; with 4 KiB units, 512-byte
//! sectors (the default) are the natural sub-block. Content named by a fingerprint is not touched:
//! a trace that carries content says itself which blocks are zero (see `reference.rs`).

use super::{below, draw, key, unit_interval, ContentSource, Domain, Fingerprint, UnitIdentity};
use crate::error::Error;

pub(crate) fn default_partial_zero_block_bytes() -> u32 {
    512
}

/// The zero-unit options (the same keys in every `[content]` source).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZeroConfig {
    pub zero_unit_fraction: f64,
    pub partial_zero_fraction: f64,
    pub partial_zero_block_bytes: u32,
}

impl Default for ZeroConfig {
    fn default() -> Self {
        ZeroConfig {
            zero_unit_fraction: 0.0,
            partial_zero_fraction: 0.0,
            partial_zero_block_bytes: default_partial_zero_block_bytes(),
        }
    }
}

impl ZeroConfig {
    /// Check the values, and with `unit_bytes` that a partly zero unit has at least two sub-blocks.
    pub fn validate(&self, unit_bytes: Option<u64>) -> Result<(), Error> {
        for (key, v) in [
            ("content.zero_unit_fraction", self.zero_unit_fraction),
            ("content.partial_zero_fraction", self.partial_zero_fraction),
        ] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(Error::config(key, format!("must be in [0, 1] (got {v})")));
            }
        }
        let sum = self.zero_unit_fraction + self.partial_zero_fraction;
        if sum > 1.0 {
            return Err(Error::config(
                "content.partial_zero_fraction",
                format!(
                    "zero_unit_fraction + partial_zero_fraction = {sum} exceeds 1 (they are shares \
                     of the same writes)"
                ),
            ));
        }
        let block = self.partial_zero_block_bytes as u64;
        if block == 0 || !block.is_multiple_of(512) {
            return Err(Error::config(
                "content.partial_zero_block_bytes",
                format!("must be a positive multiple of 512 (got {block})"),
            ));
        }
        if let Some(unit) = unit_bytes {
            if self.partial_zero_fraction > 0.0 && (!unit.is_multiple_of(block) || unit < 2 * block)
            {
                return Err(Error::config(
                    "content.partial_zero_block_bytes",
                    format!(
                        "{block} bytes must divide the {unit}-byte mapping unit at least twice, \
                         so that a partly zero unit has zero and non-zero sub-blocks"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A source whose (lpn, version) units are zeroed at the configured rates.
pub struct ZeroUnits<S> {
    inner: S,
    /// Draws below this are all-zero units.
    zero_below: f64,
    /// Draws in [zero_below, partial_below) are partly zero units.
    partial_below: f64,
    block: usize,
    seed: u64,
}

impl<S: ContentSource> ZeroUnits<S> {
    pub fn new(inner: S, config: &ZeroConfig, seed: u64) -> Self {
        ZeroUnits {
            inner,
            zero_below: config.zero_unit_fraction,
            partial_below: config.zero_unit_fraction + config.partial_zero_fraction,
            block: config.partial_zero_block_bytes as usize,
            seed,
        }
    }
}

/// Zero `k` of the `m` whole sub-blocks of `buf`, `k` uniform in 1..m−1, the set uniform among
/// sets of size `k` (Knuth's selection sampling, TAOCP vol. 2 §3.4.2 Algorithm S: block i is taken
/// with probability (still needed)/(blocks left)). Fewer than two sub-blocks: nothing to do.
fn zero_sub_blocks(key: u64, block: usize, buf: &mut [u8]) {
    let m = buf.len().checked_div(block).unwrap_or(0);
    if m < 2 {
        return;
    }
    for (sub, zero) in buf.chunks_exact_mut(block).zip(selection(key, m)) {
        if zero {
            sub.fill(0);
        }
    }
}

/// Which of `m` sub-blocks `zero_sub_blocks` zeroes, in order (none when `m` < 2).
fn selection(key: u64, m: usize) -> impl Iterator<Item = bool> {
    let m = m as u64;
    let mut needed = if m < 2 {
        0
    } else {
        1 + below(draw(key, 0), m - 1)
    };
    (0..m).map(move |i| {
        let take = needed > 0 && below(draw(key, 1 + i), m - i) < needed;
        needed -= take as u64;
        take
    })
}

/// The sub-blocks `zero_sub_blocks` zeroes as a bitmap (units of at most 64 sub-blocks).
fn zeroed_mask(key: u64, m: usize) -> Option<u64> {
    (m <= 64).then(|| {
        selection(key, m)
            .enumerate()
            .fold(0, |mask, (i, zero)| mask | (zero as u64) << i)
    })
}

impl<S: ContentSource> ContentSource for ZeroUnits<S> {
    fn fill(&self, lpn: u32, version: u32, buf: &mut [u8]) {
        if self.partial_below <= 0.0 {
            return self.inner.fill(lpn, version, buf);
        }
        let k = key(Domain::Zero, self.seed, lpn as u64, version as u64);
        let u = unit_interval(k);
        if u < self.zero_below {
            buf.fill(0);
            return;
        }
        self.inner.fill(lpn, version, buf);
        if u < self.partial_below {
            zero_sub_blocks(k, self.block, buf);
        }
    }

    fn fill_by_ref(&self, fingerprint: Fingerprint, buf: &mut [u8]) {
        self.inner.fill_by_ref(fingerprint, buf);
    }

    fn identity(&self, lpn: u32, version: u32, len: usize) -> Option<UnitIdentity> {
        if self.partial_below <= 0.0 {
            return self.inner.identity(lpn, version, len);
        }
        let k = key(Domain::Zero, self.seed, lpn as u64, version as u64);
        let u = unit_interval(k);
        if u < self.zero_below {
            return Some((u64::MAX, u64::MAX));
        }
        let (id, zeroed) = self.inner.identity(lpn, version, len)?;
        if zeroed != 0 {
            return None;
        }
        if u < self.partial_below {
            // Never 0: a partly zero unit has at least one zero sub-block.
            let mask = zeroed_mask(k, len.checked_div(self.block).unwrap_or(0))?;
            Some((id, mask))
        } else {
            Some((id, 0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Never zero: every byte 0xFF.
    struct Ones;
    impl ContentSource for Ones {
        fn fill(&self, _: u32, _: u32, buf: &mut [u8]) {
            buf.fill(0xFF);
        }
        fn fill_by_ref(&self, _: Fingerprint, buf: &mut [u8]) {
            buf.fill(0xFF);
        }
    }

    fn zero_blocks(buf: &[u8], block: usize) -> usize {
        buf.chunks_exact(block)
            .filter(|b| b.iter().all(|&x| x == 0))
            .count()
    }

    #[test]
    fn partly_zero_units_keep_a_zero_and_a_nonzero_sub_block_and_use_every_count() {
        let z = ZeroUnits::new(
            Ones,
            &ZeroConfig {
                zero_unit_fraction: 0.0,
                partial_zero_fraction: 1.0,
                partial_zero_block_bytes: 512,
            },
            9,
        );
        let mut counts = [0u32; 9];
        let mut position_hits = [0u32; 8];
        let mut buf = [0u8; 4096];
        for lpn in 0..4000 {
            z.fill(lpn, 0, &mut buf);
            let k = zero_blocks(&buf, 512);
            counts[k] += 1;
            for (i, b) in buf.chunks_exact(512).enumerate() {
                // Sub-blocks are whole: all zero or untouched.
                assert!(b.iter().all(|&x| x == 0) || b.iter().all(|&x| x == 0xFF));
                position_hits[i] += (b[0] == 0) as u32;
            }
        }
        assert_eq!(counts[0] + counts[8], 0, "{counts:?}");
        // k uniform on 1..=7: 4000/7 ≈ 571 each; 5σ ≈ 110.
        assert!(
            counts[1..8].iter().all(|&c| (461..=681).contains(&c)),
            "{counts:?}"
        );
        // Every position equally likely to be zero (mean k / m = 1/2 → 2000 each; 5σ ≈ 160).
        assert!(
            position_hits.iter().all(|&h| (1840..=2160).contains(&h)),
            "{position_hits:?}"
        );
    }

    proptest::proptest! {
        /// Whatever the key, sub-block size and length: between 1 and m − 1 whole sub-blocks are
        /// zeroed when there are m ≥ 2, nothing otherwise, and the tail past the last whole
        /// sub-block is never touched.
        #[test]
        fn zeroing_takes_whole_sub_blocks_and_leaves_both_kinds(
            key: u64,
            sectors in 1usize..=8,
            len in 0usize..20_000,
        ) {
            let block = sectors * 512;
            let mut buf = vec![0xFFu8; len];
            zero_sub_blocks(key, block, &mut buf);
            let m = len / block;
            let k = zero_blocks(&buf, block);
            if m >= 2 {
                proptest::prop_assert!((1..m).contains(&k), "{} of {}", k, m);
            } else {
                proptest::prop_assert_eq!(k, 0);
            }
            proptest::prop_assert_eq!(buf.iter().filter(|&&x| x == 0).count(), k * block);
        }
    }

    #[test]
    fn fingerprint_content_is_never_zeroed() {
        let z = ZeroUnits::new(
            Ones,
            &ZeroConfig {
                zero_unit_fraction: 1.0,
                partial_zero_fraction: 0.0,
                partial_zero_block_bytes: 512,
            },
            9,
        );
        let mut buf = [0u8; 4096];
        z.fill(1, 1, &mut buf);
        assert!(buf.iter().all(|&x| x == 0));
        z.fill_by_ref(77, &mut buf);
        assert!(buf.iter().all(|&x| x == 0xFF));
    }

    #[test]
    fn a_unit_of_one_sub_block_is_left_whole() {
        let mut buf = [0xFFu8; 512];
        zero_sub_blocks(5, 512, &mut buf);
        assert!(buf.iter().all(|&x| x == 0xFF));
        zero_sub_blocks(5, 0, &mut buf);
        assert!(buf.iter().all(|&x| x == 0xFF));
    }

    #[test]
    fn validation_names_the_key() {
        let ok = ZeroConfig::default();
        let cases = [
            (
                ZeroConfig {
                    zero_unit_fraction: 1.5,
                    ..ok
                },
                None,
                "content.zero_unit_fraction",
            ),
            (
                ZeroConfig {
                    partial_zero_fraction: f64::NAN,
                    ..ok
                },
                None,
                "content.partial_zero_fraction",
            ),
            (
                ZeroConfig {
                    zero_unit_fraction: 0.6,
                    partial_zero_fraction: 0.6,
                    ..ok
                },
                None,
                "content.partial_zero_fraction",
            ),
            (
                ZeroConfig {
                    partial_zero_block_bytes: 100,
                    ..ok
                },
                None,
                "content.partial_zero_block_bytes",
            ),
            (
                ZeroConfig {
                    partial_zero_fraction: 0.1,
                    partial_zero_block_bytes: 4096,
                    ..ok
                },
                Some(4096),
                "content.partial_zero_block_bytes",
            ),
        ];
        for (c, unit, key) in cases {
            match c.validate(unit) {
                Err(Error::Config { key: k, .. }) => assert_eq!(k, key),
                other => panic!("{c:?}: expected an error on {key}, got {other:?}"),
            }
        }
        assert!(ZeroConfig {
            partial_zero_fraction: 0.1,
            partial_zero_block_bytes: 4096,
            ..ok
        }
        .validate(Some(16384))
        .is_ok());
    }
}
