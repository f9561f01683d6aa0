//! Frequent Pattern Compression (Alameldeen & Wood, UW-Madison CS TR-1500, 2004), the memory
//! codec PR-SSD compares against (§3.2.2, Fig. 8), applied per line and summed over the unit.
//!
//! Each 32-bit little-endian word gets a 3-bit prefix and a data field; the first matching pattern
//! wins (techniques.md §1.3):
//!
//! | prefix | pattern | data bits |
//! |---|---|---|
//! | 000 | run of 1–8 zero words (run length − 1) | 3 |
//! | 001 | 4-bit sign-extended | 4 |
//! | 010 | 1-byte sign-extended | 8 |
//! | 011 | halfword sign-extended | 16 |
//! | 100 | halfword padded with a zero low halfword | 16 |
//! | 101 | two halfwords, each a sign-extended byte | 16 |
//! | 110 | word of four equal bytes | 8 |
//! | 111 | uncompressed word | 32 |
//!
//! A line's size is its bit count rounded up to whole bytes (to `segment_bytes`; the TR's L2
//! stores 8-byte segments); a line that would not be smaller than its raw size is stored raw. The
//! unit's size is the sum of its lines' sizes: that is the stored data, the prefixes and fields
//! packed least-significant bit first, each line starting on a byte. Which lines are raw is a
//! one-bit-per-line tag kept as side metadata (a cache keeps it in the tag array), since a
//! compressed line's end follows from decoding its words.

use serde::{Deserialize, Serialize};

use super::bits::{BitReader, BitWriter};
use super::{check_input, finish, start_decode, Codec, CodecError, Compressed};
use crate::error::Error;

const NAME: &str = "fpc";

/// FPC's parameters: the defaults are the 64-byte lines of the TR and PR-SSD's 1 ns latency for
/// memory compression (§5); `fpc128` is the paper's "extended" 128-byte variant (Fig. 8).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FpcConfig {
    /// Line (cache block) size: 32, 64 or 128 bytes.
    pub line_bytes: u32,
    /// A compressed line occupies a multiple of this: 1 (bit-exact, rounded to bytes) or a
    /// power of two up to the line (8 = the TR's segments).
    pub segment_bytes: u32,
    pub compress_latency_ns: u64,
    pub decompress_latency_ns: u64,
    pub failure_threshold_saving: f64,
}

impl Default for FpcConfig {
    fn default() -> Self {
        FpcConfig {
            line_bytes: 64,
            segment_bytes: 1,
            compress_latency_ns: 1,
            decompress_latency_ns: 1,
            failure_threshold_saving: 0.10,
        }
    }
}

impl FpcConfig {
    pub(crate) fn validate(&self) -> Result<(), Error> {
        if ![32, 64, 128].contains(&self.line_bytes) {
            return Err(Error::config(
                "codec.line_bytes",
                format!("{} is not 32, 64 or 128", self.line_bytes),
            ));
        }
        let s = self.segment_bytes;
        if !s.is_power_of_two() || s > self.line_bytes {
            return Err(Error::config(
                "codec.segment_bytes",
                format!("{s} is not a power of two up to line_bytes"),
            ));
        }
        Ok(())
    }
}

pub struct Fpc {
    config: FpcConfig,
}

/// How one non-zero word is coded: (prefix, data field, data bits).
fn classify(w: u32) -> (u64, u64, u32) {
    let s = w as i32;
    let (lo, hi) = (w as u16 as i16 as i32, (w >> 16) as u16 as i16 as i32);
    let byte_range = -128..=127;
    if (-8..=7).contains(&s) {
        (0b001, (w & 0xf) as u64, 4)
    } else if byte_range.contains(&s) {
        (0b010, (w & 0xff) as u64, 8)
    } else if (-32768..=32767).contains(&s) {
        (0b011, (w & 0xffff) as u64, 16)
    } else if w & 0xffff == 0 {
        (0b100, (w >> 16) as u64, 16)
    } else if byte_range.contains(&lo) && byte_range.contains(&hi) {
        (0b101, ((w & 0xff) | ((w >> 8) & 0xff00)) as u64, 16)
    } else if w == (w & 0xff) * 0x0101_0101 {
        (0b110, (w & 0xff) as u64, 8)
    } else {
        (0b111, w as u64, 32)
    }
}

/// Sign-extend the low `bits` bits of `v` to 32 bits.
fn sext(v: u64, bits: u32) -> u32 {
    let shift = 32 - bits;
    (((v as u32) << shift) as i32 >> shift) as u32
}

impl Fpc {
    pub fn new(config: FpcConfig) -> Fpc {
        Fpc { config }
    }

    /// Append one line's encoding to `out`; false (and nothing appended) when the line does not
    /// shrink and is stored raw instead.
    fn encode_line(&self, line: &[u8], out: &mut Vec<u8>) -> bool {
        let start = out.len();
        let mut w = BitWriter::new(out);
        // Lines are at most 128 bytes (validated): 32 words.
        let mut buf = [0u32; 32];
        let words = &mut buf[..line.len() / 4];
        for (w, b) in words.iter_mut().zip(line.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        let mut i = 0;
        while i < words.len() {
            if words[i] == 0 {
                let run = words[i..].iter().take(8).take_while(|&&x| x == 0).count();
                w.put(0b000, 3);
                w.put(run as u64 - 1, 3);
                i += run;
            } else {
                let (prefix, data, bits) = classify(words[i]);
                w.put(prefix, 3);
                w.put(data, bits);
                i += 1;
            }
        }
        w.finish();
        let len = (out.len() - start).next_multiple_of(self.config.segment_bytes as usize);
        if len >= line.len() {
            out.truncate(start);
            return false;
        }
        out.resize(start + len, 0);
        true
    }

    /// A line's compressed size in bytes under this configuration (its raw size when it does not
    /// shrink): the accounting the study sums.
    pub fn line_size(&self, line: &[u8]) -> usize {
        let mut out = Vec::new();
        if self.encode_line(line, &mut out) {
            out.len()
        } else {
            line.len()
        }
    }

    /// Decode one compressed line from the front of `data`; returns the bytes consumed.
    fn decode_line(&self, data: &[u8], out: &mut Vec<u8>) -> Result<usize, CodecError> {
        let words = self.config.line_bytes as usize / 4;
        let mut r = BitReader::new(data, NAME);
        let mut done = 0;
        while done < words {
            let prefix = r.get(3)?;
            let (word, count) = match prefix {
                0b000 => (0, r.get(3)? as usize + 1),
                0b001 => (sext(r.get(4)?, 4), 1),
                0b010 => (sext(r.get(8)?, 8), 1),
                0b011 => (sext(r.get(16)?, 16), 1),
                0b100 => ((r.get(16)? as u32) << 16, 1),
                0b101 => {
                    let v = r.get(16)?;
                    (sext(v & 0xff, 8) & 0xffff | sext(v >> 8, 8) << 16, 1)
                }
                0b110 => (r.get(8)? as u32 * 0x0101_0101, 1),
                _ => (r.get(32)? as u32, 1),
            };
            if done + count > words {
                return Err(CodecError::corrupt(NAME, "zero run past the end of a line"));
            }
            for _ in 0..count {
                out.extend_from_slice(&word.to_le_bytes());
            }
            done += count;
        }
        let used = r
            .bytes_used()
            .next_multiple_of(self.config.segment_bytes as usize);
        if used > data.len() {
            return Err(CodecError::corrupt(NAME, "line segment cut short"));
        }
        Ok(used)
    }
}

impl Codec for Fpc {
    fn compress(&mut self, input: &[u8]) -> Result<Compressed, CodecError> {
        check_input(NAME, input)?;
        let l = self.config.line_bytes as usize;
        let lines = input.len() / l;
        let mut side = vec![0u8; lines.div_ceil(8)];
        let mut data = Vec::with_capacity(input.len());
        for (i, line) in input.chunks_exact(l).enumerate() {
            if !self.encode_line(line, &mut data) {
                side[i / 8] |= 1 << (i % 8);
                data.extend_from_slice(line);
            }
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
        if c.side.len() != lines.div_ceil(8) {
            return Err(CodecError::corrupt(
                NAME,
                "line tags do not match the length",
            ));
        }
        let mut pos = 0;
        for i in 0..lines {
            if c.side[i / 8] & (1 << (i % 8)) != 0 {
                let Some(raw) = c.data.get(pos..pos + l) else {
                    return Err(CodecError::corrupt(NAME, "raw line cut short"));
                };
                out.extend_from_slice(raw);
                pos += l;
            } else {
                pos += self.decode_line(&c.data[pos..], out)?;
            }
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

    fn line(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn fpc(line_bytes: u32, segment_bytes: u32) -> Fpc {
        Fpc::new(FpcConfig {
            line_bytes,
            segment_bytes,
            ..FpcConfig::default()
        })
    }

    #[test]
    fn each_pattern_has_its_prefix_and_width() {
        assert_eq!(classify(5), (0b001, 5, 4));
        assert_eq!(classify(0xffff_fff8), (0b001, 8, 4)); // -8
        assert_eq!(classify(0xffff_ff80), (0b010, 0x80, 8)); // -128
        assert_eq!(classify(0x80), (0b011, 0x80, 16)); // 128 needs a halfword
        assert_eq!(classify(0xffff_8000), (0b011, 0x8000, 16)); // -32768
        assert_eq!(classify(0x1234_0000), (0b100, 0x1234, 16));
        assert_eq!(classify(0x007f_ff80), (0b101, 0x7f80, 16)); // halves 127 and -128
        assert_eq!(classify(0x4141_4141), (0b110, 0x41, 8));
        assert_eq!(classify(0x1234_5678), (0b111, 0x1234_5678, 32));
    }

    #[test]
    fn every_pattern_decodes_to_its_word_including_negative_halves() {
        let mut f = fpc(64, 1);
        let words = [
            0,
            0xffff_fff9,
            0x7f,
            0xffff_ff81,
            0x7fff,
            0xffff_8001,
            0xfedc_0000,
            0xff80_ff80,
            0x0080_007f,
            0xff7f_0001,
            0x9999_9999,
            0xdead_beef,
            5,
            0,
            0,
            0xffff_ffff,
        ];
        let unit: Vec<u8> = line(&words).repeat(64);
        let c = f.compress(&unit).unwrap();
        assert!(!c.failed);
        assert_eq!(f.decompress(&c).unwrap(), unit);
    }

    #[test]
    fn known_line_sizes() {
        let f = fpc(64, 1);
        // 16 zero words: two runs of 8, 6 bits each → 12 bits → 2 bytes.
        assert_eq!(f.line_size(&[0; 64]), 2);
        // 16 small values: 16 × (3 + 4) = 112 bits = 14 bytes.
        assert_eq!(f.line_size(&line(&[1; 16])), 14);
        // One of each pattern: run of 3 (6), 4-bit (7), byte (11), halfword (19), padded (19),
        // two bytes (19), repeated (11), raw (35), 4-bit (7), run of 5 (6) = 140 bits → 18 B.
        let mixed = line(&[
            0,
            0,
            0,
            5,
            0xffff_ff80,
            0x1234,
            0x1234_0000,
            0x007f_ff80,
            0x4141_4141,
            0x1234_5678,
            0xffff_ffff,
            0,
            0,
            0,
            0,
            0,
        ]);
        assert_eq!(f.line_size(&mixed), 18);
        // 8-byte segments round 18 up to 24.
        assert_eq!(fpc(64, 8).line_size(&mixed), 24);
        // 16 raw words: 560 bits = 70 bytes ≥ 64 → stored raw.
        let raw = line(&[0x1234_5678; 16]);
        assert_eq!(f.line_size(&raw), 64);
        // A run of 9 zeros is a run of 8 and a run of 1; then 7 raw words.
        let mut nine = vec![0u32; 9];
        nine.extend([0x1234_5678; 7]);
        assert_eq!(
            f.line_size(&line(&nine)),
            (6 + 6 + 7 * 35_usize).div_ceil(8)
        );
        // 128-byte lines: 32 zero words → 4 runs → 24 bits.
        assert_eq!(fpc(128, 1).line_size(&[0; 128]), 3);
    }

    #[test]
    fn unit_size_is_the_sum_of_line_sizes() {
        let mut f = fpc(64, 1);
        let mut unit = Vec::new();
        for i in 0..64u32 {
            unit.extend(line(&[i; 16]));
        }
        let expected: usize = unit.chunks(64).map(|l| f.line_size(l)).sum();
        let c = f.compress(&unit).unwrap();
        assert_eq!(c.stored_bytes() as usize, expected);
        assert_eq!(c.side, vec![0; 8], "no raw lines");
        assert_eq!(f.decompress(&c).unwrap(), unit);
    }

    #[test]
    fn raw_lines_are_tagged_and_round_trip() {
        let mut f = fpc(64, 8);
        let mut unit = vec![0u8; 4096];
        let mut x = 7u32;
        for b in &mut unit[64..128] {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            *b = (x >> 16) as u8;
        }
        let c = f.compress(&unit).unwrap();
        assert_eq!(c.side[0], 0b10);
        // 63 zero lines of one 8-byte segment each, one raw line.
        assert_eq!(c.stored_bytes(), 63 * 8 + 64);
        assert_eq!(f.decompress(&c).unwrap(), unit);
        let mut cut = c;
        cut.data.truncate(100);
        assert!(f.decompress(&cut).is_err());
    }

    #[test]
    fn overlong_zero_run_is_corrupt() {
        let f = fpc(64, 1);
        let encode = |tail_run: u64| {
            let mut data = Vec::new();
            let mut w = BitWriter::new(&mut data);
            w.put(0b000, 3);
            w.put(7, 3); // 8 zero words
            for _ in 0..4 {
                w.put(0b001, 3);
                w.put(1, 4); // 4 small words
            }
            w.put(0b000, 3);
            w.put(tail_run - 1, 3);
            w.finish();
            data
        };
        let mut out = Vec::new();
        assert_eq!(f.decode_line(&encode(4), &mut out).unwrap(), 5);
        assert_eq!(out.len(), 64);
        out.clear();
        let e = f.decode_line(&encode(5), &mut out).unwrap_err();
        assert!(e.to_string().contains("zero run"), "{e}");
    }
}
