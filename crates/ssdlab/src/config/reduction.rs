//! `[ftl.reduction]`: what happens to a logical page's bytes before it is stored: kept as written,
//! or compressed by a codec on its real content (PR-SSD §4.1–4.2, docs/compression.md).

use serde::{Deserialize, Serialize};

use super::tagged::tagged_table;
use crate::codec::CodecConfig;
use crate::error::Error;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReductionConfig {
    /// Units are stored as written; their content is never looked at.
    #[default]
    Identity,
    /// Every written logical page gets its bytes from `[content]` and is compressed by `codec`;
    /// an all-zero page is not stored (a mark in the mapping table), a page that saves less than
    /// `failure_threshold_saving` is stored raw, the others are merged into pages through a
    /// page-sized buffer (PR-SSD §2.2, §4.2.3, Fig. 9), at most `ftl.max_units_per_page` to a
    /// page.
    Compress {
        /// A codec name as `ssdlab codec-study --codec` takes it: `dpc`, `fpc`, `lz4`, `bdi`,
        /// `dpc-g128-p1-n1`, … (docs/codecs.md).
        codec: String,
        /// A compression saving less than this fails (PR-SSD §5.1.3: 10%).
        #[serde(default = "default_failure_threshold")]
        failure_threshold_saving: f64,
        /// Drop all-zero partial units before compressing and record them in the unit's zero
        /// bitmap (DPC's partial-zero filter, §4.2.2); a read of only such units needs no flash
        /// read. Off: only a wholly zero page is left unstored (conventional compression SSDs).
        #[serde(default)]
        partial_zero_filter: bool,
        /// The partial unit of the zero bitmap (§4.2.2: 4 KB, the partial-read unit).
        #[serde(default = "default_partial_unit_kib")]
        partial_unit_kib: u32,
        /// Compressed units start at multiples of this in a page (our choice 1: back to back;
        /// the paper does not align them).
        #[serde(default = "one")]
        align_bytes: u32,
        /// Override the codec model's compression time per logical page (absent: the codec's,
        /// e.g. DPC 340 ns, LZ4 12 µs: docs/codecs.md).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        compress_latency_ns: Option<u64>,
        /// Override the codec model's decompression time (DPC 38 ns, FPC 1 ns, LZ4 12 µs: §4.2.2,
        /// §5.1.1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decompress_latency_ns: Option<u64>,
    },
}

tagged_table!("policy": ReductionConfig);

fn default_failure_threshold() -> f64 {
    0.10
}
fn default_partial_unit_kib() -> u32 {
    4
}
fn one() -> u32 {
    1
}

impl ReductionConfig {
    /// The codec with the threshold and latency overrides applied.
    pub fn codec(&self) -> Option<Result<CodecConfig, Error>> {
        let ReductionConfig::Compress {
            codec,
            failure_threshold_saving,
            compress_latency_ns,
            decompress_latency_ns,
            ..
        } = self
        else {
            return None;
        };
        Some(
            CodecConfig::from_name(codec)
                .map_err(|e| Error::config("ftl.reduction.codec", e.to_string()))
                .map(|mut c| {
                    c.set_failure_threshold(*failure_threshold_saving);
                    c.set_latencies(*compress_latency_ns, *decompress_latency_ns);
                    c
                }),
        )
    }

    /// The partial unit of zero bitmaps, when units are compressed.
    pub fn partial_unit_bytes(&self) -> Option<u64> {
        match self {
            ReductionConfig::Identity => None,
            ReductionConfig::Compress {
                partial_unit_kib, ..
            } => Some(*partial_unit_kib as u64 * 1024),
        }
    }

    /// The byte boundary compressed units are packed at, when units are compressed.
    pub fn align_bytes(&self) -> Option<u32> {
        match self {
            ReductionConfig::Identity => None,
            ReductionConfig::Compress { align_bytes, .. } => Some(*align_bytes),
        }
    }
}
