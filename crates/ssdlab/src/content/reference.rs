//! Content by reference: traces that identify each written block's content (FIU's traces carry
//! the MD5 of every 4 KiB block; a native trace may carry a content id) name it with a
//! [`Fingerprint`], and [`ContentSource::fill_by_ref`](super::ContentSource::fill_by_ref) turns it
//! into bytes.
//!
//! The contract, for one source (same configuration and seed) and one buffer length:
//! - **equal fingerprints give equal bytes**, whatever the unit, version or call order, so the
//!   duplicates a trace records stay duplicates (what deduplication and content-aware placement
//!   see);
//! - **different fingerprints give different bytes**: the source's unit for the fingerprint's key
//!   (a real corpus block, or a synthetic unit of the configured mix) has its first 16 bytes
//!   replaced by a bijective scramble of the fingerprint. A corpus holds only about a thousand
//!   4 KiB blocks, so without the stamp distinct blocks of a trace would collide; with it they
//!   never do (for buffers of at least 16 bytes). The stamp costs at most 16 incompressible
//!   bytes per unit (0.4% of 4 KiB);
//! - **zero content stays zero**: [`ZERO_FINGERPRINT`], and the MD5 of an all-zero buffer of the
//!   same length ([`MD5_OF_ZEROS`]: 512 B and 4 KiB), fill zeros, so a zero block in an MD5 trace
//!   is a zero unit for the codec. The zero-unit rates of `[content]` do not apply: such a
//!   trace says itself which blocks are zero.
//!
//! A trace parser produces a fingerprint from an MD5 hex string with [`fingerprint_from_hex`]
//! (big-endian: the hex digits as written). A unit made of several trace blocks (a 16 KiB mapping
//! unit over 4 KiB MD5 blocks) is filled block by block.

use super::{key, mix64, Domain};

/// A 128-bit content identity: an MD5 digest, or any id a trace assigns to equal contents.
pub type Fingerprint = u128;

/// The fingerprint of all-zero content, whatever the length.
pub const ZERO_FINGERPRINT: Fingerprint = 0;

/// MD5 digests of all-zero buffers (`head -c 4096 /dev/zero | md5sum`), by buffer length.
pub const MD5_OF_ZEROS: [(usize, Fingerprint); 2] = [
    (512, 0xbf61_9eac_0cdf_3f68_d496_ea93_4413_7e8b),
    (4096, 0x620f_0b67_a91f_7f74_151b_c5be_745b_7110),
];

/// Parse 1 to 32 hex digits (an MD5 digest as traces print it) into a fingerprint; `None` for
/// anything else.
pub fn fingerprint_from_hex(hex: &str) -> Option<Fingerprint> {
    if hex.is_empty() || hex.len() > 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u128::from_str_radix(hex, 16).ok()
}

/// Whether `fingerprint` names all-zero content of `len` bytes.
pub fn names_zeros(fingerprint: Fingerprint, len: usize) -> bool {
    fingerprint == ZERO_FINGERPRINT || MD5_OF_ZEROS.contains(&(len, fingerprint))
}

/// A bijection of u128 (two Feistel rounds with SplitMix64 as round function), so that small
/// native ids stamp as random-looking bytes, as distinct MD5s would.
fn scramble(fingerprint: Fingerprint) -> u128 {
    let (mut hi, mut lo) = ((fingerprint >> 64) as u64, fingerprint as u64);
    hi ^= mix64(lo);
    lo ^= mix64(hi);
    ((hi as u128) << 64) | lo as u128
}

/// The body of every source's `fill_by_ref`: zero content, or `generate` with the fingerprint's
/// key followed by the stamp.
pub(crate) fn fill(
    seed: u64,
    fingerprint: Fingerprint,
    buf: &mut [u8],
    generate: impl FnOnce(u64, &mut [u8]),
) {
    if names_zeros(fingerprint, buf.len()) {
        buf.fill(0);
        return;
    }
    let k = key(
        Domain::Ref,
        seed,
        fingerprint as u64,
        (fingerprint >> 64) as u64,
    );
    generate(k, buf);
    let stamp = scramble(fingerprint).to_le_bytes();
    let n = stamp.len().min(buf.len());
    buf[..n].copy_from_slice(&stamp[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_parses_as_written() {
        assert_eq!(
            fingerprint_from_hex("620f0b67a91f7f74151bc5be745b7110"),
            Some(MD5_OF_ZEROS[1].1)
        );
        assert_eq!(fingerprint_from_hex("00ff"), Some(255));
        for bad in ["", "+1", "-1", "xyz", "0x12", &"f".repeat(33)] {
            assert_eq!(fingerprint_from_hex(bad), None, "{bad}");
        }
    }

    #[test]
    fn scramble_is_a_bijection_on_samples() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..10_000u128 {
            assert!(seen.insert(scramble(i)));
            assert!(seen.insert(scramble(i << 64)) || i == 0);
        }
    }

    #[test]
    fn zero_fingerprints_fill_zeros_only_at_their_length() {
        let mut buf = vec![0xEEu8; 4096];
        fill(1, MD5_OF_ZEROS[1].1, &mut buf, |_, b| b.fill(0xAA));
        assert!(buf.iter().all(|&x| x == 0));
        fill(1, ZERO_FINGERPRINT, &mut buf, |_, b| b.fill(0xAA));
        assert!(buf.iter().all(|&x| x == 0));
        // The MD5 of 512 zero bytes names 512 bytes, not 4096: an ordinary fingerprint here.
        fill(1, MD5_OF_ZEROS[0].1, &mut buf, |_, b| b.fill(0xAA));
        assert_eq!(buf[16..], [0xAA; 4080]);
        assert_ne!(buf[..16], [0xAA; 16]);
    }
}
