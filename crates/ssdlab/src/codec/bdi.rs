//! Base-Delta-Immediate compression (Pekhimenko et al., PACT 2012), the memory codec PR-SSD
//! compares against (§3.2.2, Fig. 8), applied per line and summed over the unit.
//!
//! A line of `L` bytes is read as `n = L/k` little-endian values of `k` bytes. B+Δ with the
//! immediate (zero) base: the explicit base is the first value that does not fit in a signed
//! `d`-byte immediate; every value must then fit in `d` signed bytes either as itself
//! (immediate) or as its difference from the base (wrapping at `k` bytes). Every encoding is
//! tried and the smallest kept (ties: the lower tag):
//!
//! | tag | encoding | size |
//! |---|---|---|
//! | 0 | zeros | 1 |
//! | 1 | repeated 8-byte value | 8 |
//! | 2–4 | base 8, Δ 1/2/4 | k + n·d + ⌈n/8⌉ |
//! | 5–6 | base 4, Δ 1/2 | k + n·d + ⌈n/8⌉ |
//! | 7 | base 2, Δ 1 | k + n·d + ⌈n/8⌉ |
//! | 15 | uncompressed | L |
//!
//! `k + n·d` is the paper's Table 2 (64-byte line: B8Δ1 16, B4Δ1 20, B2Δ1 34, …); the ⌈n/8⌉ is
//! the one-bit-per-value mask saying which base a value uses, which the table leaves out and a
//! decoder cannot do without (techniques.md §1.3 decision). Stored data per line:
//! `base ‖ mask ‖ deltas` (zeros: one 0 byte; repeated: the value; uncompressed: the line). The
//! 4-bit tag of each line is side metadata (the cache's tag array).

use serde::{Deserialize, Serialize};

use super::{check_input, finish, start_decode, Codec, CodecError, Compressed};
use crate::error::Error;

const NAME: &str = "bdi";

/// (tag, base bytes k, delta bytes d) of the base-delta encodings, in tag order.
const BASE_DELTA: [(u8, usize, usize); 6] = [
    (2, 8, 1),
    (3, 8, 2),
    (4, 8, 4),
    (5, 4, 1),
    (6, 4, 2),
    (7, 2, 1),
];
const TAG_ZEROS: u8 = 0;
const TAG_REPEATED: u8 = 1;
const TAG_RAW: u8 = 15;

/// BDI's parameters: 64-byte lines by default, `bdi128` the paper's "extended" variant
/// (Fig. 8), 1 ns latency for memory compression (PR-SSD §5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BdiConfig {
    /// Line size: 32, 64 or 128 bytes.
    pub line_bytes: u32,
    pub compress_latency_ns: u64,
    pub decompress_latency_ns: u64,
    pub failure_threshold_saving: f64,
}

impl Default for BdiConfig {
    fn default() -> Self {
        BdiConfig {
            line_bytes: 64,
            compress_latency_ns: 1,
            decompress_latency_ns: 1,
            failure_threshold_saving: 0.10,
        }
    }
}

impl BdiConfig {
    pub(crate) fn validate(&self) -> Result<(), Error> {
        if ![32, 64, 128].contains(&self.line_bytes) {
            return Err(Error::config(
                "codec.line_bytes",
                format!("{} is not 32, 64 or 128", self.line_bytes),
            ));
        }
        Ok(())
    }
}

pub struct Bdi {
    config: BdiConfig,
}

fn mask(k: usize) -> u64 {
    if k == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * k)) - 1
    }
}

/// Sign-extend the low `bytes` bytes of `v`.
fn sext(v: u64, bytes: usize) -> i64 {
    let shift = 64 - 8 * bytes as u32;
    ((v << shift) as i64) >> shift
}

/// Does the `k`-byte value `v` fit a signed `d`-byte field?
fn fits(v: u64, k: usize, d: usize) -> bool {
    let x = sext(v, k);
    let half = 1i64 << (8 * d - 1);
    (-half..half).contains(&x)
}

fn values(line: &[u8], k: usize) -> impl Iterator<Item = u64> + '_ {
    line.chunks_exact(k).map(move |c| {
        let mut buf = [0u8; 8];
        buf[..k].copy_from_slice(c);
        u64::from_le_bytes(buf)
    })
}

/// The base if every value of `line` fits base `k`, delta `d` with the implicit zero base.
fn base_delta_base(line: &[u8], k: usize, d: usize) -> Option<u64> {
    let mut base = None;
    for v in values(line, k) {
        if fits(v, k, d) {
            continue;
        }
        let b = *base.get_or_insert(v);
        if !fits(v.wrapping_sub(b) & mask(k), k, d) {
            return None;
        }
    }
    Some(base.unwrap_or(0))
}

fn base_delta_size(l: usize, k: usize, d: usize) -> usize {
    let n = l / k;
    k + n * d + n.div_ceil(8)
}

impl Bdi {
    pub fn new(config: BdiConfig) -> Bdi {
        Bdi { config }
    }

    /// The encoding BDI picks for a line: (tag, size in bytes, base).
    fn choose(&self, line: &[u8]) -> (u8, usize, u64) {
        if line.iter().all(|&b| b == 0) {
            return (TAG_ZEROS, 1, 0);
        }
        let first = values(line, 8).next().unwrap_or(0);
        if values(line, 8).all(|v| v == first) {
            return (TAG_REPEATED, 8, first);
        }
        let mut best = (TAG_RAW, line.len(), 0);
        for (tag, k, d) in BASE_DELTA {
            let size = base_delta_size(line.len(), k, d);
            if size < best.1 {
                if let Some(base) = base_delta_base(line, k, d) {
                    best = (tag, size, base);
                }
            }
        }
        best
    }

    /// A line's compressed size in bytes (its raw size when nothing fits): the accounting the
    /// study sums.
    pub fn line_size(&self, line: &[u8]) -> usize {
        self.choose(line).1
    }

    fn encode_line(&self, line: &[u8], out: &mut Vec<u8>) -> u8 {
        let (tag, _, base) = self.choose(line);
        match tag {
            TAG_ZEROS => out.push(0),
            TAG_REPEATED => out.extend_from_slice(&base.to_le_bytes()),
            TAG_RAW => out.extend_from_slice(line),
            _ => {
                let (_, k, d) = BASE_DELTA[(tag - 2) as usize];
                out.extend_from_slice(&base.to_le_bytes()[..k]);
                let n = line.len() / k;
                let mask_at = out.len();
                out.resize(mask_at + n.div_ceil(8), 0);
                for (i, v) in values(line, k).enumerate() {
                    let delta = if fits(v, k, d) {
                        v
                    } else {
                        out[mask_at + i / 8] |= 1 << (i % 8);
                        v.wrapping_sub(base)
                    };
                    out.extend_from_slice(&delta.to_le_bytes()[..d]);
                }
            }
        }
        tag
    }

    /// Decode one line of encoding `tag` from the front of `data`; returns the bytes consumed.
    fn decode_line(&self, tag: u8, data: &[u8], out: &mut Vec<u8>) -> Result<usize, CodecError> {
        let l = self.config.line_bytes as usize;
        let take = |n: usize| {
            data.get(..n)
                .ok_or_else(|| CodecError::corrupt(NAME, "line cut short"))
        };
        match tag {
            TAG_ZEROS => {
                if take(1)?[0] != 0 {
                    return Err(CodecError::corrupt(NAME, "zero line is not a 0 byte"));
                }
                out.resize(out.len() + l, 0);
                Ok(1)
            }
            TAG_REPEATED => {
                let v = take(8)?;
                for _ in 0..l / 8 {
                    out.extend_from_slice(v);
                }
                Ok(8)
            }
            TAG_RAW => {
                out.extend_from_slice(take(l)?);
                Ok(l)
            }
            2..=7 => {
                let (_, k, d) = BASE_DELTA[(tag - 2) as usize];
                let n = l / k;
                let bytes = take(base_delta_size(l, k, d))?;
                let base = values(&bytes[..k], k).next().unwrap_or(0);
                let mask_bits = &bytes[k..k + n.div_ceil(8)];
                let deltas = &bytes[k + n.div_ceil(8)..];
                for (i, delta) in values(deltas, d).enumerate() {
                    let mut v = sext(delta, d) as u64;
                    if mask_bits[i / 8] & (1 << (i % 8)) != 0 {
                        v = v.wrapping_add(base);
                    }
                    out.extend_from_slice(&(v & mask(k)).to_le_bytes()[..k]);
                }
                Ok(bytes.len())
            }
            _ => Err(CodecError::corrupt(NAME, format!("unknown line tag {tag}"))),
        }
    }
}

impl Codec for Bdi {
    fn compress(&mut self, input: &[u8]) -> Result<Compressed, CodecError> {
        check_input(NAME, input)?;
        let l = self.config.line_bytes as usize;
        let lines = input.len() / l;
        let mut side = vec![0u8; lines.div_ceil(2)];
        let mut data = Vec::with_capacity(input.len());
        for (i, line) in input.chunks_exact(l).enumerate() {
            let tag = self.encode_line(line, &mut data);
            side[i / 2] |= tag << (4 * (i % 2));
        }
        let c = &self.config;
        Ok(finish(
            input,
            data,
            side,
            c.failure_threshold_saving,
            c.compress_latency_ns,
            c.decompress_latency_ns,
        ))
    }

    fn decompress_into(&mut self, c: &Compressed, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let Some(len) = start_decode(NAME, c, out)? else {
            return Ok(());
        };
        let l = self.config.line_bytes as usize;
        let lines = len / l;
        if c.side.len() != lines.div_ceil(2) {
            return Err(CodecError::corrupt(
                NAME,
                "line tags do not match the length",
            ));
        }
        let mut pos = 0;
        for i in 0..lines {
            let tag = (c.side[i / 2] >> (4 * (i % 2))) & 0xf;
            pos += self.decode_line(tag, &c.data[pos..], out)?;
        }
        if pos != c.data.len() {
            return Err(CodecError::corrupt(
                NAME,
                "bytes left over after the last line",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bdi(line_bytes: u32) -> Bdi {
        Bdi::new(BdiConfig {
            line_bytes,
            ..BdiConfig::default()
        })
    }

    fn of_u64(v: &[u64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
    fn of_u32(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
    fn of_u16(v: &[u16]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn round_trip_line(b: &Bdi, line: &[u8]) {
        let mut enc = Vec::new();
        let tag = b.encode_line(line, &mut enc);
        assert_eq!(
            enc.len(),
            b.line_size(line),
            "stored bytes = accounted size"
        );
        let mut out = Vec::new();
        assert_eq!(b.decode_line(tag, &enc, &mut out).unwrap(), enc.len());
        assert_eq!(out, line);
    }

    #[test]
    fn known_line_encodings_and_sizes() {
        let b = bdi(64);
        let cases: Vec<(&str, Vec<u8>, u8, usize)> = vec![
            ("zeros", vec![0; 64], TAG_ZEROS, 1),
            (
                "repeated",
                of_u64(&[0xdead_beef_0000_0001; 8]),
                TAG_REPEATED,
                8,
            ),
            (
                "pointers: base8-Δ1",
                of_u64(&(0..8).map(|i| 0x7fff_1234_5600 + i * 3).collect::<Vec<_>>()),
                2,
                8 + 8 + 1,
            ),
            (
                "pointers and zeros share the immediate base",
                of_u64(&[
                    0x7fff_0000_1000,
                    0,
                    0x7fff_0000_1010,
                    5,
                    0,
                    0,
                    0x7fff_0000_0ff0,
                    1,
                ]),
                2,
                17,
            ),
            (
                "base8-Δ2",
                of_u64(&(0..8).map(|i| 0x1_0000_0000 + i * 1000).collect::<Vec<_>>()),
                3,
                8 + 16 + 1,
            ),
            (
                "base8-Δ4",
                of_u64(&(0..8).map(|i| (1 << 40) + i * 100_000).collect::<Vec<_>>()),
                4,
                8 + 32 + 1,
            ),
            (
                "base4-Δ1",
                of_u32(&(0..16).map(|i| 0x1234_5600 + i).collect::<Vec<_>>()),
                5,
                4 + 16 + 2,
            ),
            (
                "base4-Δ2",
                of_u32(&(0..16).map(|i| 0x1234_0000 + i * 300).collect::<Vec<_>>()),
                6,
                4 + 32 + 2,
            ),
            (
                "base2-Δ1",
                of_u16(
                    &(0..32)
                        .map(|i| 0x4000 + (i % 4) * 2 + (i / 4) * 0x10)
                        .collect::<Vec<_>>(),
                ),
                7,
                2 + 32 + 4,
            ),
            (
                "nothing fits",
                (0..64u32).map(|i| (i * 97 % 251) as u8 ^ 0x5a).collect(),
                TAG_RAW,
                64,
            ),
        ];
        for (what, line, tag, size) in cases {
            assert_eq!(b.choose(&line).0, tag, "{what}");
            assert_eq!(b.line_size(&line), size, "{what}");
            round_trip_line(&b, &line);
        }
    }

    #[test]
    fn extended_lines_use_the_same_formula() {
        let b = bdi(128);
        let line = of_u64(&(0..16).map(|i| 0x7fff_1234_5600 + i).collect::<Vec<_>>());
        assert_eq!(b.line_size(&line), 8 + 16 + 2);
        assert_eq!(b.line_size(&[0; 128]), 1);
        round_trip_line(&b, &line);
    }

    #[test]
    fn a_value_far_from_the_base_and_not_an_immediate_breaks_the_encoding() {
        let mut v: Vec<u64> = (0..8).map(|i| 0x7fff_1234_5600 + i).collect();
        v[5] = 0x1_0000_0000_0000;
        assert_eq!(base_delta_base(&of_u64(&v), 8, 1), None);
        assert_eq!(base_delta_base(&of_u64(&v), 8, 4), None);
        v[5] = 0x7fff_1234_5600 - 128; // fits Δ1 exactly at −128
        assert_eq!(base_delta_base(&of_u64(&v), 8, 1), Some(0x7fff_1234_5600));
    }

    #[test]
    fn unit_round_trips_with_tags_as_side_metadata() {
        let mut b = bdi(64);
        let mut unit = vec![0u8; 4096];
        unit[64..128].copy_from_slice(&of_u64(&[42; 8]));
        unit[128..192].copy_from_slice(&of_u32(
            &(0..16).map(|i| 0x1234_5600 + i).collect::<Vec<_>>(),
        ));
        let c = b.compress(&unit).unwrap();
        assert_eq!(c.side.len(), 32);
        assert_eq!(c.side[0], TAG_REPEATED << 4 | TAG_ZEROS);
        // 62 zero lines, one repeated, one base4-Δ1.
        assert_eq!(c.stored_bytes(), 62 + 8 + 22);
        assert_eq!(b.decompress(&c).unwrap(), unit);
        let mut bad = c.clone();
        bad.side[5] = 0x9;
        assert!(b.decompress(&bad).is_err());
        let mut cut = c;
        cut.data.pop();
        assert!(b.decompress(&cut).is_err());
    }
}
