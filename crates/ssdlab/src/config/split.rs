//! `[ftl.split]`: PR-SSD's split FTL (pr-ssd.txt §4.3): a logical page whose compression failed
//! may be cut into its partial units and written across `width` channels, so that reading it
//! takes parallel partial reads instead of one normal read.

use serde::{Deserialize, Serialize};

use super::tagged::tagged_table;

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
