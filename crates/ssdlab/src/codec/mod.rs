//! Codecs that run on real bytes: the stored size of a unit comes out of a codec, never from a
//! drawn ratio (techniques.md §1.5). PR-SSD (Kang et al., IEEE TC 2023) compares storage
//! compression (LZ4, §3.2.1), memory compression (FPC, BDI, §3.2.2) and its own Dominant Pattern
//! Compression (DPC, §4.2); each is a [`Codec`] here, chosen by name or by a [`CodecConfig`].
//!
//! Every codec compresses a 4 KiB unit or a logical page of any multiple of 4 KiB, decompresses it
//! back to the identical bytes, charges the latency its model gives (PR-SSD §4.2.2 and §5), and
//! reports a *failed* compression — a saving below the configured threshold, 10% in PR-SSD §5 —
//! in which case the unit is stored raw. `layout` packs compressed units into physical pages. The
//! codecs are pure (bytes in, bytes and a modelled latency out); measuring them on real corpora is
//! [`crate::codec_study`]'s (`ssdlab codec-study`). The formats and the accounting are documented
//! in `docs/codecs.md`.

pub mod bdi;
pub(crate) mod bits;
pub mod dpc;
pub mod fpc;
pub mod layout;
pub mod lz4;
pub mod zstd;

use serde::{Deserialize, Serialize};

use crate::error::Error;

pub use bdi::BdiConfig;
pub use dpc::DpcConfig;
pub use fpc::FpcConfig;
pub use lz4::Lz4Config;
pub use zstd::ZstdConfig;

/// Inputs are whole multiples of this: PR-SSD's partial-read unit and the FTL's mapping unit.
pub const UNIT_BYTES: usize = 4096;

/// Largest input a codec accepts (a 1 MiB logical page); keeps every size within `u32`.
pub const MAX_INPUT_BYTES: usize = 1 << 20;

/// The codec names [`CodecConfig::from_name`] knows besides the `dpc-g…-p…-n…` family.
pub const CODEC_NAMES: &[&str] = &["dpc", "fpc", "fpc128", "bdi", "bdi128", "lz4", "zstd"];

/// Why a codec refused an input or could not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    #[error("{codec}: input of {len} bytes is not a positive multiple of 4096 of at most {max}")]
    InputLength {
        codec: &'static str,
        len: usize,
        max: usize,
    },
    /// The stored bytes (or side metadata) do not decode: a bug or a corrupted page.
    #[error("{codec}: corrupt compressed data: {reason}")]
    Corrupt { codec: &'static str, reason: String },
}

impl CodecError {
    pub(crate) fn corrupt(codec: &'static str, reason: impl Into<String>) -> CodecError {
        CodecError::Corrupt {
            codec,
            reason: reason.into(),
        }
    }
}

/// What a codec made of one input: everything the FTL's data-reduction seam and its verify path
/// need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compressed {
    /// Length of the input.
    pub original_bytes: u32,
    /// The bytes written to flash: the encoded form, the raw input when compression failed, or
    /// nothing when DPC's partial-zero filter removed everything.
    pub data: Vec<u8>,
    /// Metadata decoding needs that the device keeps off the data pages, so it is not part of
    /// the stored size: DPC's partial-zero bitmap (PR-SSD keeps it in the mapping table,
    /// §4.2.3), FPC's and BDI's per-line tags (a memory controller keeps them in its tag array).
    pub side: Vec<u8>,
    /// The saving was below the threshold: `data` is the raw input (DPC: its non-zero part).
    pub failed: bool,
    /// Controller time the model charges to compress this input.
    pub compress_ns: u64,
    /// Controller time the model charges to read it back: zero when there is nothing to decode
    /// (stored raw, or all zero).
    pub decompress_ns: u64,
}

impl Compressed {
    /// Bytes this input occupies on flash.
    pub fn stored_bytes(&self) -> u32 {
        self.data.len() as u32
    }

    /// The paper's compression ratio: (original − stored) / original (PR-SSD §1).
    pub fn saving(&self) -> f64 {
        1.0 - self.data.len() as f64 / self.original_bytes as f64
    }
}

/// A compressor with its latency model.
pub trait Codec: Send {
    /// Compress `input`, a positive multiple of [`UNIT_BYTES`] of at most [`MAX_INPUT_BYTES`].
    fn compress(&mut self, input: &[u8]) -> Result<Compressed, CodecError>;

    /// Restore the input `c` was made from into `out` (cleared first). Corrupt data is an error,
    /// never a panic.
    fn decompress_into(&mut self, c: &Compressed, out: &mut Vec<u8>) -> Result<(), CodecError>;

    /// [`Codec::decompress_into`] into a new vector.
    fn decompress(&mut self, c: &Compressed) -> Result<Vec<u8>, CodecError> {
        let mut out = Vec::with_capacity(c.original_bytes as usize);
        self.decompress_into(c, &mut out)?;
        Ok(out)
    }
}

/// A codec and its parameters, as written in TOML (`codec = "dpc"`, `granularity_bytes = 128`,
/// …). Every key carries its unit; unknown keys are errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "codec", rename_all = "snake_case", deny_unknown_fields)]
pub enum CodecConfig {
    Dpc(DpcConfig),
    Fpc(FpcConfig),
    Bdi(BdiConfig),
    Lz4(Lz4Config),
    Zstd(ZstdConfig),
}

impl CodecConfig {
    /// The configuration a name stands for, with the paper's defaults: `dpc`, `fpc`, `fpc128`,
    /// `bdi`, `bdi128`, `lz4`, `zstd`, or a DPC configuration such as `dpc-g64-p2-n2`
    /// (granularity 64 B, 2-byte patterns, two patterns; `-z1024` sets the zero-filter unit), or
    /// FPC with segment rounding such as `fpc-s8` (the TR's 8-byte segments).
    pub fn from_name(name: &str) -> Result<CodecConfig, Error> {
        let config = match name {
            "dpc" => CodecConfig::Dpc(DpcConfig::default()),
            "fpc" => CodecConfig::Fpc(FpcConfig::default()),
            "fpc128" => CodecConfig::Fpc(FpcConfig {
                line_bytes: 128,
                ..FpcConfig::default()
            }),
            "bdi" => CodecConfig::Bdi(BdiConfig::default()),
            "bdi128" => CodecConfig::Bdi(BdiConfig {
                line_bytes: 128,
                ..BdiConfig::default()
            }),
            "lz4" => CodecConfig::Lz4(Lz4Config::default()),
            "zstd" => CodecConfig::Zstd(ZstdConfig::default()),
            other => {
                if let Some(knobs) = other.strip_prefix("dpc-") {
                    CodecConfig::Dpc(DpcConfig::from_knobs(knobs).ok_or_else(|| {
                        unknown_codec(
                            other,
                            "a DPC name is dpc-g<bytes>-p<bytes>-n<1|2>[-z<bytes>]",
                        )
                    })?)
                } else if let Some((line, segment)) = other.split_once("-s") {
                    // FPC with segment rounding: `fpc-s8`, `fpc128-s8`.
                    let CodecConfig::Fpc(mut f) = CodecConfig::from_name(line)? else {
                        return Err(unknown_codec(other, "segments apply to fpc and fpc128"));
                    };
                    f.segment_bytes = segment
                        .parse()
                        .map_err(|_| unknown_codec(other, "an FPC name is fpc[128]-s<bytes>"))?;
                    CodecConfig::Fpc(f)
                } else {
                    return Err(unknown_codec(other, ""));
                }
            }
        };
        config.validate()?;
        Ok(config)
    }

    /// Parse a TOML table such as `codec = "fpc"\nline_bytes = 128`.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<CodecConfig, Error> {
        let config: CodecConfig = toml::from_str(text).map_err(|e| Error::toml(origin, e))?;
        config.validate()?;
        Ok(config)
    }

    /// Check every parameter; errors name the key (`codec.<key>`) and the reason.
    pub fn validate(&self) -> Result<(), Error> {
        let threshold = match self {
            CodecConfig::Dpc(c) => {
                c.validate()?;
                c.failure_threshold_saving
            }
            CodecConfig::Fpc(c) => {
                c.validate()?;
                c.failure_threshold_saving
            }
            CodecConfig::Bdi(c) => {
                c.validate()?;
                c.failure_threshold_saving
            }
            CodecConfig::Lz4(c) => c.failure_threshold_saving,
            CodecConfig::Zstd(c) => {
                c.validate()?;
                c.failure_threshold_saving
            }
        };
        if !(0.0..1.0).contains(&threshold) {
            return Err(Error::config(
                "codec.failure_threshold_saving",
                format!("{threshold} is not in [0, 1)"),
            ));
        }
        Ok(())
    }

    /// Set the saving below which compression counts as failed.
    pub fn set_failure_threshold(&mut self, saving: f64) {
        match self {
            CodecConfig::Dpc(c) => c.failure_threshold_saving = saving,
            CodecConfig::Fpc(c) => c.failure_threshold_saving = saving,
            CodecConfig::Bdi(c) => c.failure_threshold_saving = saving,
            CodecConfig::Lz4(c) => c.failure_threshold_saving = saving,
            CodecConfig::Zstd(c) => c.failure_threshold_saving = saving,
        }
    }

    /// Override the latency model's compression and decompression times (`None` keeps one).
    pub fn set_latencies(&mut self, compress_ns: Option<u64>, decompress_ns: Option<u64>) {
        let (c, d) = match self {
            CodecConfig::Dpc(c) => (&mut c.compress_latency_ns, &mut c.decompress_latency_ns),
            CodecConfig::Fpc(c) => (&mut c.compress_latency_ns, &mut c.decompress_latency_ns),
            CodecConfig::Bdi(c) => (&mut c.compress_latency_ns, &mut c.decompress_latency_ns),
            CodecConfig::Lz4(c) => (&mut c.compress_latency_ns, &mut c.decompress_latency_ns),
            CodecConfig::Zstd(c) => (&mut c.compress_latency_ns, &mut c.decompress_latency_ns),
        };
        if let Some(ns) = compress_ns {
            *c = ns;
        }
        if let Some(ns) = decompress_ns {
            *d = ns;
        }
    }

    /// The decompression time the model charges a unit stored compressed.
    pub fn decompress_latency_ns(&self) -> u64 {
        match self {
            CodecConfig::Dpc(c) => c.decompress_latency_ns,
            CodecConfig::Fpc(c) => c.decompress_latency_ns,
            CodecConfig::Bdi(c) => c.decompress_latency_ns,
            CodecConfig::Lz4(c) => c.decompress_latency_ns,
            CodecConfig::Zstd(c) => c.decompress_latency_ns,
        }
    }

    /// Validate and build the codec.
    pub fn build(&self) -> Result<Box<dyn Codec>, Error> {
        self.validate()?;
        Ok(match self {
            CodecConfig::Dpc(c) => Box::new(dpc::Dpc::new(c.clone())),
            CodecConfig::Fpc(c) => Box::new(fpc::Fpc::new(c.clone())),
            CodecConfig::Bdi(c) => Box::new(bdi::Bdi::new(c.clone())),
            CodecConfig::Lz4(c) => Box::new(lz4::Lz4::new(c.clone())),
            CodecConfig::Zstd(c) => Box::new(zstd::Zstd::new(c.clone())?),
        })
    }
}

/// Build a codec by name (see [`CodecConfig::from_name`]).
pub fn by_name(name: &str) -> Result<Box<dyn Codec>, Error> {
    CodecConfig::from_name(name)?.build()
}

fn unknown_codec(name: &str, hint: &str) -> Error {
    let mut reason = format!(
        "unknown codec `{name}` (known: {}, dpc-g<bytes>-p<bytes>-n<1|2>, fpc[128]-s<bytes>)",
        CODEC_NAMES.join(", ")
    );
    if !hint.is_empty() {
        reason.push_str("; ");
        reason.push_str(hint);
    }
    Error::config("codec", reason)
}

/// Refuse inputs that are not whole 4 KiB units (or too large).
pub(crate) fn check_input(codec: &'static str, input: &[u8]) -> Result<(), CodecError> {
    if input.is_empty() || !input.len().is_multiple_of(UNIT_BYTES) || input.len() > MAX_INPUT_BYTES
    {
        return Err(CodecError::InputLength {
            codec,
            len: input.len(),
            max: MAX_INPUT_BYTES,
        });
    }
    Ok(())
}

/// PR-SSD §5: compression fails when the saving is below the threshold (10%); the unit is then
/// stored raw, since a barely smaller unit frees no space but still costs decompression.
pub(crate) fn saving_below(original: usize, compressed: usize, threshold: f64) -> bool {
    (original as f64 - compressed as f64) < threshold * original as f64
}

/// Finish a line- or block-codec's output: keep `encoded` unless the saving is below the
/// threshold, in which case the raw input is stored and nothing needs decoding.
pub(crate) fn finish(
    input: &[u8],
    encoded: Vec<u8>,
    side: Vec<u8>,
    threshold: f64,
    compress_ns: u64,
    decompress_ns: u64,
) -> Compressed {
    let failed = saving_below(input.len(), encoded.len(), threshold);
    let (data, side, decompress_ns) = if failed {
        (input.to_vec(), Vec::new(), 0)
    } else {
        (encoded, side, decompress_ns)
    };
    Compressed {
        original_bytes: input.len() as u32,
        data,
        side,
        failed,
        compress_ns,
        decompress_ns,
    }
}

/// The raw-stored case of decompression, shared by the codecs that store the whole input raw.
fn copy_raw(codec: &'static str, c: &Compressed, out: &mut Vec<u8>) -> Result<(), CodecError> {
    if c.data.len() != c.original_bytes as usize {
        return Err(CodecError::corrupt(
            codec,
            format!(
                "raw unit holds {} bytes, expected {}",
                c.data.len(),
                c.original_bytes
            ),
        ));
    }
    out.extend_from_slice(&c.data);
    Ok(())
}

/// The common start of decoding: clear `out`, check the claimed length, and copy a unit stored
/// raw. Returns the length to decode, or None when the unit was raw and is already in `out`.
pub(crate) fn start_decode(
    codec: &'static str,
    c: &Compressed,
    out: &mut Vec<u8>,
) -> Result<Option<usize>, CodecError> {
    out.clear();
    let len = check_original(codec, c)?;
    if c.failed {
        copy_raw(codec, c, out)?;
        return Ok(None);
    }
    Ok(Some(len))
}

/// A byte-oriented decoder's result: it must have produced exactly `len` bytes.
pub(crate) fn expect_decoded<E: std::fmt::Display>(
    codec: &'static str,
    decoded: Result<usize, E>,
    len: usize,
) -> Result<(), CodecError> {
    match decoded {
        Ok(n) if n == len => Ok(()),
        Ok(n) => Err(CodecError::corrupt(
            codec,
            format!("decoded {n} bytes, expected {len}"),
        )),
        Err(e) => Err(CodecError::corrupt(codec, e.to_string())),
    }
}

/// Check the original length a `Compressed` claims before decoding into it.
pub(crate) fn check_original(codec: &'static str, c: &Compressed) -> Result<usize, CodecError> {
    let len = c.original_bytes as usize;
    if len == 0 || !len.is_multiple_of(UNIT_BYTES) || len > MAX_INPUT_BYTES {
        return Err(CodecError::corrupt(
            codec,
            format!("original length {len} is not a positive multiple of 4096"),
        ));
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_name_builds() {
        for name in CODEC_NAMES {
            let config = CodecConfig::from_name(name).unwrap();
            assert!(config.build().is_ok(), "{name}");
        }
        let c = CodecConfig::from_name("fpc128-s8").unwrap();
        let CodecConfig::Fpc(f) = c else {
            panic!("not fpc")
        };
        assert_eq!((f.line_bytes, f.segment_bytes), (128, 8));
        let c = CodecConfig::from_name("dpc-g64-p2-n2-z1024").unwrap();
        let CodecConfig::Dpc(d) = c else {
            panic!("not dpc")
        };
        assert_eq!(
            (
                d.granularity_bytes,
                d.pattern_bytes,
                d.patterns,
                d.zero_filter_bytes
            ),
            (64, 2, 2, 1024)
        );
    }

    #[test]
    fn unknown_names_and_bad_knobs_are_errors_naming_the_problem() {
        let e = CodecConfig::from_name("lzma").unwrap_err().to_string();
        assert!(e.contains("lzma") && e.contains("known"), "{e}");
        let e = CodecConfig::from_name("dpc-g100").unwrap_err().to_string();
        assert!(e.contains("granularity_bytes"), "{e}");
        let e = CodecConfig::from_name("dpc-x1").unwrap_err().to_string();
        assert!(e.contains("dpc-g<bytes>"), "{e}");
        let e = CodecConfig::from_name("fpc-s3").unwrap_err().to_string();
        assert!(e.contains("segment_bytes"), "{e}");
        let e = CodecConfig::from_name("bdi-s8").unwrap_err().to_string();
        assert!(e.contains("fpc and fpc128"), "{e}");
        let e = CodecConfig::from_name("fpc-sx").unwrap_err().to_string();
        assert!(e.contains("fpc[128]-s<bytes>"), "{e}");
    }

    #[test]
    fn toml_has_units_in_keys_and_refuses_unknown_keys() {
        let c = CodecConfig::from_toml_str(
            "codec = \"dpc\"\ngranularity_bytes = 256\ncompress_latency_ns = 1\n",
            "t.toml",
        )
        .unwrap();
        let CodecConfig::Dpc(d) = c else {
            panic!("not dpc")
        };
        assert_eq!((d.granularity_bytes, d.compress_latency_ns), (256, 1));
        assert_eq!(
            d.decompress_latency_ns, 38,
            "unset keys keep the paper's value"
        );
        let e = CodecConfig::from_toml_str("codec = \"fpc\"\ngranularity = 1\n", "t.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("granularity") && e.contains("t.toml"), "{e}");
        let e = CodecConfig::from_toml_str(
            "codec = \"lz4\"\nfailure_threshold_saving = 1.5\n",
            "t.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("failure_threshold_saving"), "{e}");
    }

    #[test]
    fn threshold_decides_failure_at_the_boundary() {
        // 10% of 4096 is 409.6 bytes: saving 410 passes, 409 fails.
        assert!(!saving_below(4096, 4096 - 410, 0.10));
        assert!(saving_below(4096, 4096 - 409, 0.10));
        // A saving exactly at the threshold passes.
        assert!(!saving_below(4096, 3072, 0.25));
        assert!(saving_below(4096, 3073, 0.25));
        // With no threshold only expansion fails.
        assert!(!saving_below(4096, 4096, 0.0));
        assert!(saving_below(4096, 4097, 0.0));
    }

    #[test]
    fn inputs_must_be_whole_units() {
        for len in [0, 100, 4095, 4097, MAX_INPUT_BYTES + UNIT_BYTES] {
            let e = check_input("t", &vec![0; len]).unwrap_err();
            assert!(matches!(e, CodecError::InputLength { .. }), "{len}");
        }
        assert!(check_input("t", &[0; 8192]).is_ok());
    }
}
