//! Zstandard, for comparison only: PR-SSD names it among the Huffman-coded storage compressors
//! too costly to put inside an SSD (§3.2.1). Through the `zstd` crate (the reference C library),
//! with one reusable context per codec.
//!
//! Latency has no source in the paper; the default is twice LZ4's 12 µs, from the paper's remark
//! that zlib-class decompression costs about twice LZ4's (§3.2.1, its ref. [22]).

use serde::{Deserialize, Serialize};

use super::{check_input, expect_decoded, finish, start_decode, Codec, CodecError, Compressed};
use crate::error::Error;

const NAME: &str = "zstd";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ZstdConfig {
    /// Compression level, 1 to 22 (3 is the library's default).
    pub level: i32,
    pub compress_latency_ns: u64,
    pub decompress_latency_ns: u64,
    pub failure_threshold_saving: f64,
}

impl Default for ZstdConfig {
    fn default() -> Self {
        ZstdConfig {
            level: 3,
            compress_latency_ns: 24_000,
            decompress_latency_ns: 24_000,
            failure_threshold_saving: 0.10,
        }
    }
}

impl ZstdConfig {
    pub(crate) fn validate(&self) -> Result<(), Error> {
        if !(1..=22).contains(&self.level) {
            return Err(Error::config(
                "codec.level",
                format!("{} is not in 1..=22", self.level),
            ));
        }
        Ok(())
    }
}

pub struct Zstd {
    config: ZstdConfig,
    compressor: zstd::bulk::Compressor<'static>,
    decompressor: zstd::bulk::Decompressor<'static>,
}

impl Zstd {
    pub fn new(config: ZstdConfig) -> Result<Zstd, Error> {
        let context_error = |e: std::io::Error| Error::config("codec.level", e.to_string());
        Ok(Zstd {
            compressor: zstd::bulk::Compressor::new(config.level).map_err(context_error)?,
            decompressor: zstd::bulk::Decompressor::new().map_err(context_error)?,
            config,
        })
    }
}

impl Codec for Zstd {
    fn compress(&mut self, input: &[u8]) -> Result<Compressed, CodecError> {
        check_input(NAME, input)?;
        // A compressor only fails when its output buffer is too small, which `compress` sizes
        // itself; should it fail anyway, the input is stored raw.
        let encoded = self
            .compressor
            .compress(input)
            .unwrap_or_else(|_| input.to_vec());
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
        out.reserve(len);
        expect_decoded(
            NAME,
            self.decompressor.decompress_to_buffer(&c.data[..], out),
            len,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let text = b"zstandard compresses this sentence well. ".repeat(200);
        let mut z = Zstd::new(ZstdConfig::default()).unwrap();
        let c = z.compress(&text[..8192]).unwrap();
        assert!(!c.failed && c.stored_bytes() < 200, "{}", c.stored_bytes());
        assert_eq!(z.decompress(&c).unwrap(), &text[..8192]);
        let mut cut = c;
        cut.data.truncate(cut.data.len() - 3);
        assert!(z.decompress(&cut).is_err());
    }

    #[test]
    fn level_is_validated() {
        let e = ZstdConfig {
            level: 0,
            ..ZstdConfig::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().contains("codec.level"));
    }
}
