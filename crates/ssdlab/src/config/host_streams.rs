//! `[ftl.host_streams]`: what the device does with the host's stream ids (NVMe's streams
//! directive; a request without one is stream 0). Melded pages (Arpith K & Gopinath,
//! melded-pages.txt §2.3): "the controller opens a new stream for each HDFS block and pages that
//! originate from different sources are written to different SSD blocks. Stream identifiers and
//! allocated blocks are released after the SSD completes writing an entire HDFS block"; and §2.2:
//! the scheduler reorders a stream's writes so that the pages read together share a wordline.

use serde::{Deserialize, Serialize};

use super::tagged::tagged_table;
use crate::error::Error;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum HostStreamsConfig {
    /// Stream ids are ignored: every host write shares its placement stream's open pages and
    /// blocks.
    #[default]
    Shared,
    /// Each open stream has its own open pages and blocks (§2.3); stream 0 shares them.
    Separate {
        /// Streams open at once (NVMe's streams allocated). A write of another stream when all
        /// are open releases the one written least recently: its open pages are programmed, and
        /// its blocks go on with the next stream it takes.
        #[serde(default = "default_max_open")]
        max_open: u32,
        /// A stream is complete once it has written so many MiB (§2.3: "Stream identifiers and
        /// allocated blocks are released after the SSD completes writing an entire HDFS block";
        /// HDFS's block is 128 MiB): its open pages are programmed, and its slot freed. 0: a
        /// stream stays open until another needs its slot, or the input ends.
        #[serde(default)]
        complete_after_mib: u32,
    },
    /// Separate streams whose pages are reordered (§2.2, Figs. 4–6): a stream's k-th page on a
    /// parallel unit goes to wordline k / levels at level k % levels of its block, so that the
    /// pages a sequential read wants together share a wordline despite the shadow program
    /// order. Pages that arrive before their wordline's turn wait in the write buffer; what
    /// waits is programmed as it came when the stream is released, at the write buffer's timeout
    /// (`ftl.write_buffer_timeout_ns`), when a write waits for buffer room, and at the input's
    /// end.
    Wordlines {
        #[serde(default = "default_max_open")]
        max_open: u32,
        /// As for `separate`; the pages held for their turn are programmed as they came.
        #[serde(default)]
        complete_after_mib: u32,
    },
}

/// Ours (the paper is silent): 16 streams, as many HDFS blocks as a DataNode writes at once with
/// room to spare; NVMe allows up to 65,535.
fn default_max_open() -> u32 {
    16
}

tagged_table!("policy": HostStreamsConfig);

impl HostStreamsConfig {
    pub fn is_shared(&self) -> bool {
        *self == HostStreamsConfig::Shared
    }

    /// Streams with open pages of their own (0 when ids are ignored).
    pub fn max_open(&self) -> u32 {
        match *self {
            HostStreamsConfig::Shared => 0,
            HostStreamsConfig::Separate { max_open, .. }
            | HostStreamsConfig::Wordlines { max_open, .. } => max_open,
        }
    }

    /// Bytes a stream writes before it is complete (0: never).
    pub fn complete_bytes(&self) -> u64 {
        match *self {
            HostStreamsConfig::Shared => 0,
            HostStreamsConfig::Separate {
                complete_after_mib, ..
            }
            | HostStreamsConfig::Wordlines {
                complete_after_mib, ..
            } => complete_after_mib as u64 * 1024 * 1024,
        }
    }

    pub fn reorders(&self) -> bool {
        matches!(self, HostStreamsConfig::Wordlines { .. })
    }

    pub(super) fn validate(&self) -> Result<(), Error> {
        let n = self.max_open();
        if !self.is_shared() && !(1..=MAX_OPEN).contains(&n) {
            return Err(Error::config(
                "ftl.host_streams.max_open",
                format!("must be 1 to {MAX_OPEN} (streams with open pages of their own), got {n}"),
            ));
        }
        Ok(())
    }
}

/// Open streams at most: each has an open page per region, placement stream and buffer lane,
/// and an active block per plane.
pub const MAX_OPEN: u32 = 256;
