//! LZ4 block compression, PR-SSD's storage compressor (§3.2.1, §5), through the `lz4_flex` crate
//! (block format, safe and checked decoding, so corrupt input is an error, not a panic).
//!
//! Latency: PR-SSD charges 12 µs to compress and to decompress, derived from the fastest
//! published hardware LZ4 (11 Gbit/s, its ref. [38]) on a 16 KiB page (§5). The model charges it
//! per compressed input, whatever the FTL's unit; set the keys to scale it.

use serde::{Deserialize, Serialize};

use super::{check_input, expect_decoded, finish, start_decode, Codec, CodecError, Compressed};

const NAME: &str = "lz4";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Lz4Config {
    pub compress_latency_ns: u64,
    pub decompress_latency_ns: u64,
    pub failure_threshold_saving: f64,
}

impl Default for Lz4Config {
    fn default() -> Self {
        Lz4Config {
            compress_latency_ns: 12_000,
            decompress_latency_ns: 12_000,
            failure_threshold_saving: 0.10,
        }
    }
}

pub struct Lz4 {
    config: Lz4Config,
}

impl Lz4 {
    pub fn new(config: Lz4Config) -> Lz4 {
        Lz4 { config }
    }
}

impl Codec for Lz4 {
    fn compress(&mut self, input: &[u8]) -> Result<Compressed, CodecError> {
        check_input(NAME, input)?;
        let encoded = lz4_flex::block::compress(input);
        let c = &self.config;
        Ok(finish(
            input,
            encoded,
            Vec::new(),
            c.failure_threshold_saving,
            c.compress_latency_ns,
            c.decompress_latency_ns,
        ))
    }

    fn decompress_into(&mut self, c: &Compressed, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let Some(len) = start_decode(NAME, c, out)? else {
            return Ok(());
        };
        out.resize(len, 0);
        expect_decoded(NAME, lz4_flex::block::decompress_into(&c.data, out), len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_compresses_and_round_trips() {
        let text = b"the quick brown fox jumps over the lazy dog. ".repeat(100);
        let mut lz4 = Lz4::new(Lz4Config::default());
        let c = lz4.compress(&text[..4096]).unwrap();
        assert!(!c.failed && c.stored_bytes() < 400, "{}", c.stored_bytes());
        assert_eq!((c.compress_ns, c.decompress_ns), (12_000, 12_000));
        assert_eq!(lz4.decompress(&c).unwrap(), &text[..4096]);
        let mut cut = c;
        cut.data.truncate(cut.data.len() / 2);
        assert!(lz4.decompress(&cut).is_err());
    }

    #[test]
    fn random_data_fails_and_is_stored_raw() {
        let mut x = 3u64;
        let data: Vec<u8> = (0..8192)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let mut lz4 = Lz4::new(Lz4Config::default());
        let c = lz4.compress(&data).unwrap();
        assert!(c.failed);
        assert_eq!(c.data, data);
        assert_eq!(c.decompress_ns, 0);
        assert_eq!(lz4.decompress(&c).unwrap(), data);
    }
}
