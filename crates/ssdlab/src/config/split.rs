//! `[ftl.split]`: PR-SSD's split FTL (pr-ssd.txt §4.3): a logical page whose compression failed
//! may be cut into its partial units and written across `width` channels, so that reading it
//! takes parallel partial reads instead of one normal read.

use serde::{Deserialize, Serialize};

use super::needs::{Device, Needs};
use super::tagged::tagged_table;
use crate::error::Error;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum SplitConfig {
    /// Failed compressions are written as normal page requests (PR-SSD's DP scheme).
    #[default]
    None,
    /// Every failed compression is split ("Split All", §5.3.3, Fig. 19).
    All {
        /// Channels a split page request is cut across: the partial units of one page (§4.3:
        /// four 4 KB packages of a 16 KB page).
        #[serde(default = "default_width")]
        width: u32,
    },
    /// The split decision (§4.3.1): split only a page written by a host request of at most
    /// `max_request_kib` whose reads, as far as the history knows, were that small too.
    Decision {
        #[serde(default = "default_width")]
        width: u32,
        /// How the LPN's host read sizes are remembered (§4.3.1: "a single bit in the mapping
        /// table" or "managed by an LRU"; "their performance results are similar").
        #[serde(default)]
        history: ReadHistory,
        /// Entries of the LRU history (our choice: 65,536, 1 MiB of 16-byte entries; the paper
        /// gives no size).
        #[serde(default = "default_lru_entries")]
        lru_entries: u32,
        /// Largest host request split, and largest read that keeps an LPN splittable; 0 = the
        /// channels × the partial unit, the most partial reads the device runs at once (§4.3.1:
        /// with four channels, "the host size that can be allowed to be split is a single page
        /// unit"; §5.4: more channels split larger requests).
        #[serde(default)]
        max_request_kib: u32,
    },
}

tagged_table!("policy": SplitConfig);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadHistory {
    /// One bit per LPN: its last host read was larger than the limit.
    #[default]
    Bit,
    /// The last read size of the most recently read LPNs; an LPN not in it has no history.
    Lru,
}

fn default_width() -> u32 {
    4
}
fn default_lru_entries() -> u32 {
    65_536
}

impl SplitConfig {
    pub fn is_none(&self) -> bool {
        matches!(self, SplitConfig::None)
    }

    pub fn width(&self) -> Option<u32> {
        match self {
            SplitConfig::None => None,
            SplitConfig::All { width } | SplitConfig::Decision { width, .. } => Some(*width),
        }
    }
}

/// Against the device: the width must be two or more distinct channels, cut the (logical and
/// physical) page into its partial units, and fit the page's slots.
impl Needs for SplitConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        let channels = d.geometry.channels;
        let (page_bytes, unit_bytes) = (d.page_bytes(), d.unit_bytes());
        let partial_bytes = d.config.ftl.reduction.partial_unit_bytes();
        let slots_per_page = d.geometry.slots_per_page as u64;
        let Some(width) = self.width() else {
            return Ok(());
        };
        let Some(partial) = partial_bytes else {
            return Err(Error::config(
                "ftl.split.policy",
                "splits the pages whose compression failed: it needs ftl.reduction.policy = \
                 \"compress\"",
            ));
        };
        if unit_bytes != page_bytes {
            return Err(Error::config(
                "ftl.split.policy",
                format!(
                    "splits logical pages the size of a physical page (§4.3): set \
                     ftl.mapping_unit_kib = {}",
                    page_bytes / 1024
                ),
            ));
        }
        if width < 2 || width > channels || width as u64 > slots_per_page {
            return Err(Error::config(
                "ftl.split.width",
                format!(
                    "{width} must be 2 or more and at most the {channels} channels (each part \
                     of a split page on its own channel) and the {slots_per_page} units a page \
                     holds (ftl.max_units_per_page)"
                ),
            ));
        }
        if page_bytes != width as u64 * partial {
            return Err(Error::config(
                "ftl.split.width",
                format!(
                    "{width} parts of {} KiB (ftl.reduction.partial_unit_kib) do not make the \
                     {} KiB page",
                    partial / 1024,
                    page_bytes / 1024
                ),
            ));
        }
        if let SplitConfig::Decision { lru_entries, .. } = self {
            if *lru_entries == 0 {
                return Err(Error::config("ftl.split.lru_entries", "must be at least 1"));
            }
        }
        Ok(())
    }
}
