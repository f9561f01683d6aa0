//! PR-SSD's split decision (pr-ssd.txt §4.3.1): which logical pages whose compression failed are
//! split across channels. Splitting pays when the page is later read in small pieces; a bulk read
//! of split pages makes the parts of neighbouring pages queue on the same chips (Fig. 12's "split
//! conflict"). The decision looks at the size of the host write and at the sizes of the host
//! reads of the LPN seen so far.

use std::num::NonZeroUsize;

use lru::LruCache;

use super::saved_state::{self, keeps_field, keeps_nothing, SavedState};
use crate::config::{ReadHistory, SplitConfig};

pub trait SplitDecision: SavedState + Send {
    /// A host read of `request_bytes` covered part of `lpn`.
    fn observe_read(&mut self, lpn: u32, request_bytes: u64);
    /// Should `lpn`, written raw by a host request of `request_bytes`, be split?
    fn split(&mut self, lpn: u32, request_bytes: u64) -> bool;
}

/// "Split All" (§5.3.3): every failed compression is split.
pub struct SplitAll;

keeps_nothing!(SplitAll);

impl SplitDecision for SplitAll {
    fn observe_read(&mut self, _lpn: u32, _request_bytes: u64) {}
    fn split(&mut self, _lpn: u32, _request_bytes: u64) -> bool {
        true
    }
}

/// What is remembered of an LPN's host reads: whether the last one was larger than the limit.
pub trait ReadSizeHistory: SavedState + Send {
    fn record(&mut self, lpn: u32, large: bool);
    /// `Some(large)` for the last read remembered, `None` without history.
    fn last_read_large(&mut self, lpn: u32) -> Option<bool>;
}

/// "A single bit in the mapping table" (§4.3.1): set when the LPN's last read was large. An LPN
/// never read reads as small.
pub struct BitHistory {
    bits: Vec<u64>,
}

keeps_field!(BitHistory, bits, |p, b: &Vec<u64>| b.len() == p.bits.len());

impl ReadSizeHistory for BitHistory {
    fn record(&mut self, lpn: u32, large: bool) {
        let (word, bit) = (lpn as usize / 64, lpn % 64);
        if large {
            self.bits[word] |= 1 << bit;
        } else {
            self.bits[word] &= !(1 << bit);
        }
    }
    fn last_read_large(&mut self, lpn: u32) -> Option<bool> {
        Some(self.bits[lpn as usize / 64] >> (lpn % 64) & 1 == 1)
    }
}

/// "Store the information partially and allow it to be managed by an LRU" (§4.3.1): the most
/// recently read LPNs and whether their last read was large.
pub struct LruHistory {
    lru: LruCache<u32, bool>,
}

/// The entries, least recently used first: put back in that order, they rebuild the recency.
impl SavedState for LruHistory {
    fn save_state(&self) -> Result<Vec<u8>, postcard::Error> {
        let entries: Vec<(u32, bool)> = self.lru.iter().rev().map(|(k, v)| (*k, *v)).collect();
        saved_state::save(&entries)
    }
    fn load_state(&mut self, state: &[u8]) -> Result<(), postcard::Error> {
        let entries: Vec<(u32, bool)> = saved_state::load(state)?;
        self.lru.clear();
        for (lpn, large) in entries {
            self.lru.put(lpn, large);
        }
        Ok(())
    }
}

impl ReadSizeHistory for LruHistory {
    fn record(&mut self, lpn: u32, large: bool) {
        self.lru.put(lpn, large);
    }
    fn last_read_large(&mut self, lpn: u32) -> Option<bool> {
        self.lru.peek(&lpn).copied()
    }
}

/// The split decision: split a page written by a request of at most `limit_bytes` unless its
/// last host read was larger than that (a first write, with no read seen, is judged by its size
/// alone).
pub struct BySize {
    limit_bytes: u64,
    history: Box<dyn ReadSizeHistory>,
}

impl SavedState for BySize {
    fn save_state(&self) -> Result<Vec<u8>, postcard::Error> {
        self.history.save_state()
    }
    fn load_state(&mut self, state: &[u8]) -> Result<(), postcard::Error> {
        self.history.load_state(state)
    }
}

impl SplitDecision for BySize {
    fn observe_read(&mut self, lpn: u32, request_bytes: u64) {
        self.history.record(lpn, request_bytes > self.limit_bytes);
    }
    fn split(&mut self, lpn: u32, request_bytes: u64) -> bool {
        request_bytes <= self.limit_bytes && self.history.last_read_large(lpn) != Some(true)
    }
}

/// The decision the config names, if any. `channels` and `partial_bytes` give the default limit.
pub fn build(
    config: &SplitConfig,
    logical_units: u32,
    channels: u32,
    partial_bytes: u32,
) -> Option<Box<dyn SplitDecision>> {
    match config {
        SplitConfig::None => None,
        SplitConfig::All { .. } => Some(Box::new(SplitAll)),
        SplitConfig::Decision {
            history,
            lru_entries,
            max_request_kib,
            ..
        } => {
            let limit_bytes = match max_request_kib {
                0 => channels as u64 * partial_bytes as u64,
                kib => *kib as u64 * 1024,
            };
            let history: Box<dyn ReadSizeHistory> = match history {
                ReadHistory::Bit => Box::new(BitHistory {
                    bits: vec![0; (logical_units as usize).div_ceil(64)],
                }),
                ReadHistory::Lru => {
                    // No more LPNs than the logical space has, and room taken as they come:
                    // 2^32 entries allocated up front would abort the process.
                    let entries = (*lru_entries).min(logical_units) as usize;
                    let mut lru = LruCache::unbounded();
                    lru.resize(NonZeroUsize::new(entries).unwrap_or(NonZeroUsize::MIN));
                    Box::new(LruHistory { lru })
                }
            };
            Some(Box::new(BySize {
                limit_bytes,
                history,
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(history: &str, lru_entries: u32) -> Box<dyn SplitDecision> {
        let config: SplitConfig = toml::from_str(&format!(
            "policy = \"decision\"\nhistory = \"{history}\"\nlru_entries = {lru_entries}"
        ))
        .unwrap();
        // Four channels of 4 KiB partial reads: requests up to 16 KiB split (§4.3.1, Fig. 12).
        build(&config, 1000, 4, 4096).unwrap()
    }

    #[test]
    fn the_decision_splits_small_writes_of_pages_not_read_in_bulk() {
        for history in ["bit", "lru"] {
            let mut d = decision(history, 100);
            // A first write is judged by its size alone.
            assert!(d.split(7, 16384), "{history}");
            assert!(!d.split(7, 16385), "{history}: a bulk write is not split");
            // Once the page was read in bulk, even a small write keeps it whole …
            d.observe_read(7, 65536);
            assert!(!d.split(7, 4096), "{history}");
            // … until a small read is its last.
            d.observe_read(7, 4096);
            assert!(d.split(7, 4096), "{history}");
            assert!(
                d.split(8, 4096),
                "{history}: another page's reads do not count"
            );
        }
    }

    #[test]
    fn the_lru_forgets_the_least_recently_read_pages() {
        let mut d = decision("lru", 2);
        d.observe_read(1, 65536);
        d.observe_read(2, 65536);
        d.observe_read(3, 65536);
        // Page 1 fell out: no history, so its small write splits; 2 and 3 are remembered.
        assert!(d.split(1, 4096));
        assert!(!d.split(2, 4096) && !d.split(3, 4096));
        // The bit history never forgets.
        let mut b = decision("bit", 2);
        for lpn in 1..=3 {
            b.observe_read(lpn, 65536);
        }
        assert!(!b.split(1, 4096));
    }

    /// An LRU of more entries than the logical space has units holds every unit, and takes
    /// its room as pages are read (2^32 - 1 entries allocated at once aborted the process).
    #[test]
    fn an_lru_larger_than_the_logical_space_remembers_every_page() {
        let mut d = decision("lru", u32::MAX);
        for lpn in 0..1000 {
            d.observe_read(lpn, 65536);
        }
        assert!((0..1000).all(|lpn| !d.split(lpn, 4096)));
    }

    #[test]
    fn split_all_splits_everything() {
        let config: SplitConfig = toml::from_str("policy = \"all\"").unwrap();
        let mut d = build(&config, 10, 8, 4096).unwrap();
        d.observe_read(1, 1 << 30);
        assert!(d.split(1, 1 << 30));
        assert!(build(&SplitConfig::None, 10, 8, 4096).is_none());
    }
}
