//! Dominant Pattern Compression (PR-SSD §4.2.2, Fig. 7): a partial-zero filter, then per
//! granularity unit the most dominant pattern(s) removed under an encoding bitmap.
//!
//! Format (field widths chosen here; the paper gives the fields, not their widths — see
//! `docs/codecs.md`). The input is cut into zero-filter units of `zero_filter_bytes` (4 KiB, the
//! partial-read unit). Side metadata: the zero bitmap, one bit per zero-filter unit (1 = all
//! zero), least-significant bit first; PR-SSD keeps it in the mapping table (§4.2.3, Fig. 9), so
//! it is not stored. Stored data: for each non-zero zero-filter unit, in order,
//!
//! 1. the length table: one `w`-bit field per granularity unit, `w` = bits to write
//!    `granularity_bytes` (8 for 128 B), the whole table padded to a byte. A length equal to the
//!    granularity means the unit is stored raw; anything smaller is a compressed unit of that many
//!    bytes. The lengths let the hardware decode units in parallel (§4.2.2: "the compressed length
//!    of each compressed data is stored");
//! 2. the granularity units, back to back. A compressed unit is its header — the `patterns`
//!    dominant patterns (`pattern_bytes` each, little-endian), then the encoding bitmap with one
//!    code per pattern position (1 bit with one pattern: 1 = the pattern; 2 bits with two:
//!    01 = first, 10 = second, 00 = literal), padded to a byte — followed by the literal patterns in
//!    order.
//!
//! A granularity unit is compressed only when that is smaller than the raw unit. Compression fails
//! when the saving on the non-zero part is below the threshold: the non-zero units are then
//! stored raw (the zero filter still applies, as with LPN 907 in Fig. 9).

use serde::{Deserialize, Serialize};

use super::bits::{BitReader, BitWriter};
use super::{check_input, check_original, saving_below, Codec, CodecError, Compressed, UNIT_BYTES};
use crate::error::Error;

const NAME: &str = "dpc";

/// DPC's parameters; the defaults are PR-SSD's hardware choice (§4.2.2): one dominant 1-byte
/// pattern per 128-byte granularity unit, 340 ns to compress and 38 ns to decompress at 400 MHz.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DpcConfig {
    /// Granularity unit compressed independently: 32, 64, 128, 256, 512 or 1024 bytes.
    pub granularity_bytes: u32,
    /// Pattern size: 1, 2, 4 or 8 bytes.
    pub pattern_bytes: u32,
    /// Dominant patterns removed per granularity unit: 1 or 2.
    pub patterns: u32,
    /// Unit of the partial-zero filter (one bitmap bit each): a power of two from the
    /// granularity up to 4096.
    pub zero_filter_bytes: u32,
    pub compress_latency_ns: u64,
    pub decompress_latency_ns: u64,
    /// Compression fails (the data is stored raw) when the saving is below this fraction.
    pub failure_threshold_saving: f64,
}

impl Default for DpcConfig {
    fn default() -> Self {
        DpcConfig {
            granularity_bytes: 128,
            pattern_bytes: 1,
            patterns: 1,
            zero_filter_bytes: UNIT_BYTES as u32,
            compress_latency_ns: 340,
            decompress_latency_ns: 38,
            failure_threshold_saving: 0.10,
        }
    }
}

impl DpcConfig {
    /// Parse the knobs of a name such as `g64-p2-n2-z1024` (any subset, any order).
    pub(crate) fn from_knobs(knobs: &str) -> Option<DpcConfig> {
        let mut c = DpcConfig::default();
        for knob in knobs.split('-') {
            let mut chars = knob.chars();
            let key = chars.next()?;
            let value: u32 = chars.as_str().parse().ok()?;
            match key {
                'g' => c.granularity_bytes = value,
                'p' => c.pattern_bytes = value,
                'n' => c.patterns = value,
                'z' => c.zero_filter_bytes = value,
                _ => return None,
            }
        }
        Some(c)
    }

    /// The name that stands for this configuration's format (latencies and threshold aside).
    pub fn label(&self) -> String {
        let mut s = format!(
            "dpc-g{}-p{}-n{}",
            self.granularity_bytes, self.pattern_bytes, self.patterns
        );
        if self.zero_filter_bytes as usize != UNIT_BYTES {
            s.push_str(&format!("-z{}", self.zero_filter_bytes));
        }
        s
    }

    pub(crate) fn validate(&self) -> Result<(), Error> {
        let g = self.granularity_bytes;
        if !g.is_power_of_two() || !(32..=1024).contains(&g) {
            return Err(Error::config(
                "codec.granularity_bytes",
                format!("{g} is not one of 32, 64, 128, 256, 512, 1024"),
            ));
        }
        if ![1, 2, 4, 8].contains(&self.pattern_bytes) {
            return Err(Error::config(
                "codec.pattern_bytes",
                format!("{} is not one of 1, 2, 4, 8", self.pattern_bytes),
            ));
        }
        if ![1, 2].contains(&self.patterns) {
            return Err(Error::config(
                "codec.patterns",
                format!("{} is not 1 or 2", self.patterns),
            ));
        }
        let z = self.zero_filter_bytes;
        if !z.is_power_of_two() || z < g || z as usize > UNIT_BYTES {
            return Err(Error::config(
                "codec.zero_filter_bytes",
                format!("{z} is not a power of two between granularity_bytes ({g}) and 4096"),
            ));
        }
        Ok(())
    }

    /// Bits of one length-table entry: enough to write the granularity itself (the raw marker).
    fn length_bits(&self) -> u32 {
        u32::BITS - self.granularity_bytes.leading_zeros()
    }

    /// Bits of one encoding-bitmap code: a pattern or a literal, or one of two patterns or a
    /// literal.
    fn code_bits(&self) -> u32 {
        self.patterns
    }

    /// Bytes of a compressed granularity unit's header: patterns plus the encoding bitmap.
    fn header_bytes(&self) -> usize {
        let positions = (self.granularity_bytes / self.pattern_bytes) as usize;
        (self.patterns * self.pattern_bytes) as usize
            + (positions * self.code_bits() as usize).div_ceil(8)
    }
}

/// The DPC codec. Holds scratch buffers so compressing a unit allocates only its output.
pub struct Dpc {
    config: DpcConfig,
    values: Vec<u64>,
    lengths: Vec<u32>,
    body: Vec<u8>,
}

impl Dpc {
    pub fn new(config: DpcConfig) -> Dpc {
        Dpc {
            config,
            values: Vec::new(),
            lengths: Vec::new(),
            body: Vec::new(),
        }
    }

    /// The dominant patterns of one granularity unit, most frequent first (ties go to the smaller
    /// value), and how many positions they cover. With two patterns and a single distinct value
    /// the second pattern repeats the first.
    fn dominant(&mut self, unit: &[u8]) -> ([u64; 2], usize) {
        let p = self.config.pattern_bytes as usize;
        // (value, count) of the best two so far; candidates arrive in ascending value order and
        // only a strictly larger count displaces, so ties keep the smaller value.
        let mut best = [(0u64, 0usize); 2];
        let mut offer = |value: u64, count: usize| {
            if count > best[0].1 {
                best[1] = best[0];
                best[0] = (value, count);
            } else if count > best[1].1 {
                best[1] = (value, count);
            }
        };
        if p == 1 {
            // Byte patterns: a histogram, then the best two by a branch-free maximum over
            // (count, inverted value) keys, so ties go to the smaller byte.
            let mut counts = [0u16; 256];
            for &b in unit {
                counts[b as usize] += 1;
            }
            let mut keys = [0u32; 256];
            for (v, (k, &c)) in keys.iter_mut().zip(&counts).enumerate() {
                *k = (c as u32) << 8 | (255 - v as u32);
            }
            let top = keys.iter().copied().max().unwrap_or(0);
            keys[255 - (top & 0xff) as usize] = 0;
            let second = keys.iter().copied().max().unwrap_or(0);
            for key in [top, second] {
                offer(255 - (key & 0xff) as u64, (key >> 8) as usize);
            }
        } else {
            self.values.clear();
            self.values
                .extend(unit.chunks_exact(p).map(|c| read_le(c, p)));
            self.values.sort_unstable();
            let mut i = 0;
            while i < self.values.len() {
                let v = self.values[i];
                let run = self.values[i..].iter().take_while(|&&x| x == v).count();
                offer(v, run);
                i += run;
            }
        }
        if self.config.patterns == 1 || best[1].1 == 0 {
            ([best[0].0; 2], best[0].1)
        } else {
            ([best[0].0, best[1].0], best[0].1 + best[1].1)
        }
    }

    /// Encode one granularity unit onto `out`; returns its stored length (the granularity when
    /// stored raw).
    fn encode_unit(&mut self, unit: &[u8], out: &mut Vec<u8>) -> u32 {
        let c = &self.config;
        let (p, g) = (c.pattern_bytes as usize, unit.len());
        let (header, code_bits, n_patterns) = (c.header_bytes(), c.code_bits(), c.patterns);
        let (patterns, covered) = self.dominant(unit);
        let positions = g / p;
        let len = header + (positions - covered) * p;
        if len >= g {
            out.extend_from_slice(unit);
            return g as u32;
        }
        for &pat in &patterns[..n_patterns as usize] {
            out.extend_from_slice(&pat.to_le_bytes()[..p]);
        }
        let code = |v: u64| -> u8 {
            if v == patterns[0] {
                1
            } else if n_patterns == 2 && v == patterns[1] {
                2
            } else {
                0
            }
        };
        // The encoding bitmap, `8 / code_bits` codes per byte, least-significant first.
        let per_byte = (8 / code_bits) as usize;
        if p == 1 && n_patterns == 1 {
            let pat = patterns[0] as u8;
            out.extend(unit.chunks(8).map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u8, |byte, (i, &b)| byte | ((b == pat) as u8) << i)
            }));
            out.extend(unit.iter().filter(|&&b| b != pat));
        } else {
            for group in unit.chunks(p * per_byte) {
                let byte = group.chunks_exact(p).enumerate().fold(0u8, |byte, (i, c)| {
                    byte | code(read_le(c, p)) << (i as u32 * code_bits)
                });
                out.push(byte);
            }
            for chunk in unit.chunks_exact(p) {
                if code(read_le(chunk, p)) == 0 {
                    out.extend_from_slice(chunk);
                }
            }
        }
        len as u32
    }

    /// Encode one non-zero zero-filter unit: its length table, then its granularity units.
    fn encode_filter_unit(&mut self, chunk: &[u8], out: &mut Vec<u8>) {
        let g = self.config.granularity_bytes as usize;
        let mut lengths = std::mem::take(&mut self.lengths);
        let mut body = std::mem::take(&mut self.body);
        lengths.clear();
        body.clear();
        for unit in chunk.chunks_exact(g) {
            lengths.push(self.encode_unit(unit, &mut body));
        }
        let bits = self.config.length_bits();
        let mut w = BitWriter::new(out);
        for &len in &lengths {
            w.put(len as u64, bits);
        }
        w.finish();
        out.extend_from_slice(&body);
        self.lengths = lengths;
        self.body = body;
    }

    /// Decode one zero-filter unit from the front of `data`; returns the bytes consumed.
    fn decode_filter_unit(&self, data: &[u8], out: &mut Vec<u8>) -> Result<usize, CodecError> {
        let c = &self.config;
        let g = c.granularity_bytes as usize;
        let units = (c.zero_filter_bytes / c.granularity_bytes) as usize;
        let bits = c.length_bits();
        let table_bytes = (units * bits as usize).div_ceil(8);
        if data.len() < table_bytes {
            return Err(CodecError::corrupt(NAME, "length table cut short"));
        }
        let mut table = BitReader::new(&data[..table_bytes], NAME);
        let mut pos = table_bytes;
        for _ in 0..units {
            let len = table.get(bits)? as usize;
            if len > g {
                return Err(CodecError::corrupt(
                    NAME,
                    format!("unit length {len} exceeds the granularity {g}"),
                ));
            }
            let Some(unit) = data.get(pos..pos + len) else {
                return Err(CodecError::corrupt(NAME, "granularity unit cut short"));
            };
            if len == g {
                out.extend_from_slice(unit);
            } else {
                self.decode_unit(unit, out)?;
            }
            pos += len;
        }
        Ok(pos)
    }

    /// Decode one compressed granularity unit of exactly `unit.len()` bytes.
    fn decode_unit(&self, unit: &[u8], out: &mut Vec<u8>) -> Result<(), CodecError> {
        let c = &self.config;
        let p = c.pattern_bytes as usize;
        let header = c.header_bytes();
        let positions = (c.granularity_bytes / c.pattern_bytes) as usize;
        if unit.len() < header || !(unit.len() - header).is_multiple_of(p) {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "compressed unit of {} bytes has no whole header",
                    unit.len()
                ),
            ));
        }
        let n = c.patterns as usize;
        let bits = c.code_bits() as usize;
        let pattern_at = |i: usize| &unit[i * p..(i + 1) * p];
        let codes = &unit[n * p..header];
        if p == 1 && n == 1 {
            return decode_byte_pattern(unit[0], codes, &unit[header..], positions, out);
        }
        let mut literals = unit[header..].chunks_exact(p);
        for i in 0..positions {
            let at = i * bits;
            match (codes[at / 8] >> (at % 8)) & ((1 << bits) - 1) {
                0 => match literals.next() {
                    Some(l) => out.extend_from_slice(l),
                    None => return Err(CodecError::corrupt(NAME, "too few literals")),
                },
                k if k as usize <= n => out.extend_from_slice(pattern_at(k as usize - 1)),
                _ => return Err(CodecError::corrupt(NAME, "invalid encoding code")),
            }
        }
        if literals.next().is_some() {
            return Err(CodecError::corrupt(NAME, "too many literals"));
        }
        Ok(())
    }
}

/// The default configuration's decoder (one 1-byte pattern): fill the unit with the pattern, then
/// drop the literals into the positions whose code bit is 0 — work in proportion to the literals.
fn decode_byte_pattern(
    pattern: u8,
    codes: &[u8],
    literals: &[u8],
    positions: usize,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    let start = out.len();
    out.resize(start + positions, pattern);
    let unit = &mut out[start..];
    let mut next = literals.iter();
    for (byte_index, &byte) in codes.iter().enumerate() {
        let valid = (positions - byte_index * 8).min(8);
        let mut zeros = !byte & (((1u16 << valid) - 1) as u8);
        while zeros != 0 {
            let i = byte_index * 8 + zeros.trailing_zeros() as usize;
            match next.next() {
                Some(&l) => unit[i] = l,
                None => return Err(CodecError::corrupt(NAME, "too few literals")),
            }
            zeros &= zeros - 1;
        }
    }
    if next.next().is_some() {
        return Err(CodecError::corrupt(NAME, "too many literals"));
    }
    Ok(())
}

/// A little-endian value of `p` ≤ 8 bytes.
fn read_le(bytes: &[u8], p: usize) -> u64 {
    let mut buf = [0u8; 8];
    buf[..p].copy_from_slice(&bytes[..p]);
    u64::from_le_bytes(buf)
}

impl Codec for Dpc {
    fn compress(&mut self, input: &[u8]) -> Result<Compressed, CodecError> {
        check_input(NAME, input)?;
        let z = self.config.zero_filter_bytes as usize;
        let filter_units = input.len() / z;
        let mut side = vec![0u8; filter_units.div_ceil(8)];
        let mut data = Vec::with_capacity(input.len());
        let mut nonzero = 0;
        for (i, chunk) in input.chunks_exact(z).enumerate() {
            if chunk.iter().all(|&b| b == 0) {
                side[i / 8] |= 1 << (i % 8);
            } else {
                nonzero += 1;
                self.encode_filter_unit(chunk, &mut data);
            }
        }
        let nonzero_bytes = nonzero * z;
        let failed = nonzero > 0
            && saving_below(
                nonzero_bytes,
                data.len(),
                self.config.failure_threshold_saving,
            );
        if failed {
            data.clear();
            for (i, chunk) in input.chunks_exact(z).enumerate() {
                if side[i / 8] & (1 << (i % 8)) == 0 {
                    data.extend_from_slice(chunk);
                }
            }
        }
        let decompress_ns = if failed || data.is_empty() {
            0
        } else {
            self.config.decompress_latency_ns
        };
        Ok(Compressed {
            original_bytes: input.len() as u32,
            data,
            side,
            failed,
            compress_ns: self.config.compress_latency_ns,
            decompress_ns,
        })
    }

    fn decompress_into(&mut self, c: &Compressed, out: &mut Vec<u8>) -> Result<(), CodecError> {
        out.clear();
        let len = check_original(NAME, c)?;
        let z = self.config.zero_filter_bytes as usize;
        let filter_units = len / z;
        if c.side.len() != filter_units.div_ceil(8) {
            return Err(CodecError::corrupt(
                NAME,
                format!(
                    "zero bitmap of {} bytes for {filter_units} units",
                    c.side.len()
                ),
            ));
        }
        let mut pos = 0;
        for i in 0..filter_units {
            if c.side[i / 8] & (1 << (i % 8)) != 0 {
                out.resize(out.len() + z, 0);
            } else if c.failed {
                let Some(raw) = c.data.get(pos..pos + z) else {
                    return Err(CodecError::corrupt(NAME, "raw data cut short"));
                };
                out.extend_from_slice(raw);
                pos += z;
            } else {
                pos += self.decode_filter_unit(&c.data[pos..], out)?;
            }
        }
        if pos != c.data.len() {
            return Err(CodecError::corrupt(
                NAME,
                format!("{} bytes left over", c.data.len() - pos),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dpc(knobs: &str) -> Dpc {
        let config = DpcConfig::from_knobs(knobs).unwrap();
        config.validate().unwrap();
        Dpc::new(config)
    }

    fn round_trip(codec: &mut Dpc, input: &[u8]) -> Compressed {
        let c = codec.compress(input).unwrap();
        assert_eq!(codec.decompress(&c).unwrap(), input);
        c
    }

    #[test]
    fn zero_bitmap_marks_all_zero_filter_units() {
        let mut input = vec![0u8; 4 * 4096];
        input[4096 + 17] = 5; // unit 1 non-zero
        input[3 * 4096] = 1; // unit 3 non-zero
        let mut codec = dpc("g128");
        let c = round_trip(&mut codec, &input);
        assert_eq!(c.side, vec![0b0101]);
        assert!(!c.failed);
        // Two non-zero units, each: a 32-byte length table, 31 units that are all zero
        // (header 17 bytes, no literals), one unit with one literal (18 bytes).
        assert_eq!(c.stored_bytes(), 2 * (32 + 31 * 17 + 18));
    }

    #[test]
    fn all_zero_input_stores_nothing_and_costs_no_decompression() {
        let mut codec = dpc("g128");
        let c = round_trip(&mut codec, &[0u8; 8192]);
        assert_eq!(c.stored_bytes(), 0);
        assert_eq!(c.side, vec![0b11]);
        assert!(!c.failed);
        assert_eq!((c.compress_ns, c.decompress_ns), (340, 0));
    }

    #[test]
    fn finer_zero_filter_unit_gives_more_bitmap_bits() {
        let mut input = vec![0u8; 4096];
        input[1500] = 9; // inside the second 1 KiB
        let mut codec = dpc("z1024");
        let c = round_trip(&mut codec, &input);
        assert_eq!(c.side, vec![0b1101]);
    }

    #[test]
    fn dominant_byte_is_the_most_frequent_with_ties_to_the_smaller_value() {
        let mut codec = dpc("g128");
        let mut unit = [0x41u8; 128];
        unit[..40].fill(0x13);
        unit[40..80].fill(0xfc);
        // 0x13 and 0xfc tie at 40 but 0x41 has 48.
        assert_eq!(codec.dominant(&unit), ([0x41; 2], 48));
        unit[80..88].fill(0x13); // now 0x13 48, 0x41 40, 0xfc 40
        assert_eq!(codec.dominant(&unit).0[0], 0x13);
        unit[88..96].fill(0xfc); // 0x13 48, 0xfc 48, 0x41 32: tie → smaller value
        assert_eq!(codec.dominant(&unit).0[0], 0x13);
        let mut two = dpc("g128-n2");
        assert_eq!(two.dominant(&unit), ([0x13, 0xfc], 96));
    }

    #[test]
    fn multi_byte_patterns_are_aligned_little_endian_values() {
        let mut codec = dpc("g64-p4");
        let mut unit = [0u8; 64];
        for w in unit.chunks_exact_mut(4) {
            w.copy_from_slice(&0xdead_beef_u32.to_le_bytes());
        }
        unit[8..12].copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(codec.dominant(&unit), ([0xdead_beef; 2], 15));
        let mut out = Vec::new();
        // Header 4 + 16 bits = 6 bytes, one 4-byte literal.
        assert_eq!(codec.encode_unit(&unit, &mut out), 10);
        assert_eq!(&out[..4], &0xdead_beef_u32.to_le_bytes());
        assert_eq!(out[4..6], [0b1111_1011, 0b1111_1111]);
        assert_eq!(&out[6..], &[1, 2, 3, 4]);
    }

    #[test]
    fn unit_is_stored_raw_when_its_header_outweighs_the_pattern() {
        // 128 distinct bytes: the pattern covers 1 position, header 17 bytes → raw.
        let unit: Vec<u8> = (0..128u8).collect();
        let mut codec = dpc("g128");
        let mut out = Vec::new();
        assert_eq!(codec.encode_unit(&unit, &mut out), 128);
        assert_eq!(out, unit);
    }

    #[test]
    fn length_table_width_follows_the_granularity() {
        for (g, bits) in [(32, 6), (64, 7), (128, 8), (256, 9), (512, 10), (1024, 11)] {
            let c = DpcConfig::from_knobs(&format!("g{g}")).unwrap();
            assert_eq!(c.length_bits(), bits, "g{g}");
        }
        // The paper's example (§4.2.2): two 8-byte patterns at 32 B → 16 B + 1 B of header.
        let c = DpcConfig::from_knobs("g32-p8-n2").unwrap();
        assert_eq!(c.header_bytes(), 17);
    }

    #[test]
    fn incompressible_data_fails_and_is_stored_raw_but_zero_units_stay_filtered() {
        let mut input = vec![0u8; 8192];
        let mut x = 1u32;
        for b in &mut input[4096..] {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *b = (x >> 24) as u8;
        }
        let mut codec = dpc("g128");
        let c = round_trip(&mut codec, &input);
        assert!(c.failed);
        assert_eq!(c.side, vec![0b01]);
        assert_eq!(c.data, &input[4096..]);
        assert_eq!(c.decompress_ns, 0);
    }

    #[test]
    fn threshold_applies_to_the_non_zero_part() {
        // One non-zero 4 KiB unit whose units each save exactly 8 bytes after the table.
        let mut unit = [0u8; 128];
        for (i, b) in unit.iter_mut().enumerate().skip(25) {
            *b = i as u8; // 103 distinct literals, 25 zeros: 17 + 103 = 120 bytes
        }
        let input: Vec<u8> = unit.iter().copied().cycle().take(4096).collect();
        let stored = 32 + 32 * 120; // 3872: saving 224 bytes = 5.47%
        let mut codec = dpc("g128");
        codec.config.failure_threshold_saving = 224.0 / 4096.0;
        let c = round_trip(&mut codec, &input);
        assert!(!c.failed);
        assert_eq!(c.stored_bytes(), stored);
        codec.config.failure_threshold_saving = 225.0 / 4096.0;
        assert!(round_trip(&mut codec, &input).failed);
    }

    #[test]
    fn two_patterns_use_two_bit_codes() {
        let mut codec = dpc("g32-n2");
        let mut unit = [7u8; 32];
        unit[..10].fill(3);
        unit[31] = 200;
        let mut out = Vec::new();
        // Header: 2 patterns + 32 × 2 bits = 10 bytes; one literal.
        assert_eq!(codec.encode_unit(&unit, &mut out), 11);
        assert_eq!(&out[..2], &[7, 3]);
        assert_eq!(out[2], 0b1010_1010); // positions 0-3 → pattern 2 (code 10)
        assert_eq!(out[10], 200);
        let mut back = Vec::new();
        codec.decode_unit(&out, &mut back).unwrap();
        assert_eq!(back, unit);
    }

    #[test]
    fn corrupt_data_is_an_error() {
        let mut codec = dpc("g128");
        let input: Vec<u8> = (0..4096)
            .map(|i| if i % 4 == 0 { (i % 251) as u8 } else { b' ' })
            .collect();
        let c = codec.compress(&input).unwrap();
        assert!(!c.failed);
        let mut cut = c.clone();
        cut.data.pop();
        assert!(codec.decompress(&cut).is_err());
        let mut longer = c.clone();
        longer.data.push(0);
        assert!(codec.decompress(&longer).is_err());
        let mut bad_len = c.clone();
        bad_len.data[0] = 200; // length 200 > 128
        assert!(codec.decompress(&bad_len).is_err());
        let mut bad_side = c;
        bad_side.side.clear();
        assert!(codec.decompress(&bad_side).is_err());
    }
}
