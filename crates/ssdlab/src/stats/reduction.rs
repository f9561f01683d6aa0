//! What data reduction did to the host's writes and reads (`compression` in the summary; present
//! when `ftl.reduction` is not `identity`).

use serde_json::{json, Value};

use crate::codec::layout::UnitKind;
use crate::flash::Geometry;

#[derive(Clone, Default)]
pub struct ReductionStats {
    /// Host-written units by how they were stored.
    pub raw_units: u64,
    pub compressed_units: u64,
    pub zero_units: u64,
    pub split_units: u64,
    /// Logical bytes of those units, and the bytes stored for them.
    pub original_bytes: u64,
    pub stored_bytes: u64,
    /// Units a host read found in zero partial units only: answered from the mapping, no flash.
    pub zero_read_units: u64,
    /// Units a host read decompressed after their flash read.
    pub decompressed_units: u64,
    /// Split buffers programmed across channels, and those written unsplit because no pages of
    /// one type were free on enough channels.
    pub split_buffers: u64,
    pub split_fallbacks: u64,
    /// Parts of a split unit a host read found on a page with another of its parts asked
    /// (§4.3.2: one full read serves them).
    pub split_conflicts: u64,
    /// Host reads by channel conflict (Fig. 19): every page read on its own channel; two or
    /// more on one channel, none of them a split part; and some of them split parts.
    pub reads_non_conflict: u64,
    pub reads_conflict_normal: u64,
    pub reads_conflict_split: u64,
}

impl ReductionStats {
    /// A host-written unit of `unit_bytes` is stored as `stored`: its kind and stored bytes
    /// (`None`: all zero).
    pub fn count(&mut self, unit_bytes: u32, stored: Option<(UnitKind, u32)>) {
        self.original_bytes += unit_bytes as u64;
        let Some((kind, len)) = stored else {
            self.zero_units += 1;
            return;
        };
        self.stored_bytes += len as u64;
        match kind {
            UnitKind::Raw => self.raw_units += 1,
            UnitKind::Compressed => self.compressed_units += 1,
            UnitKind::Split => self.split_units += 1,
        }
    }

    /// Classify a host read by the channels its page reads use (Fig. 19): `pages` are its
    /// (page, codewords) reads, `split_pages` those that carry split parts.
    #[inline(never)]
    pub fn classify_read(&mut self, g: &Geometry, pages: &[(u32, u64)], split_pages: &[u32]) {
        let channel = |page: u32| g.channel_of_die(g.page_addr(page).die);
        let mut conflict = false;
        let mut split_conflict = false;
        for (i, &(a, _)) in pages.iter().enumerate() {
            for &(b, _) in &pages[i + 1..] {
                if channel(a) == channel(b) {
                    conflict = true;
                    split_conflict |= split_pages.contains(&a) || split_pages.contains(&b);
                }
            }
        }
        match (conflict, split_conflict) {
            (false, _) => self.reads_non_conflict += 1,
            (true, false) => self.reads_conflict_normal += 1,
            (true, true) => self.reads_conflict_split += 1,
        }
    }

    pub fn to_json(&self) -> Value {
        let saving = (self.original_bytes > 0).then(|| {
            let s = 1.0 - self.stored_bytes as f64 / self.original_bytes as f64;
            (s * 1e4).round() / 1e4
        });
        json!({
            "saving": saving,
            "original_bytes": self.original_bytes,
            "stored_bytes": self.stored_bytes,
            "units": {
                "compressed": self.compressed_units,
                "raw": self.raw_units,
                "zero": self.zero_units,
                "split": self.split_units,
            },
            "zero_read_units": self.zero_read_units,
            "decompressed_units": self.decompressed_units,
        })
    }

    /// The `split` summary (when the split FTL is on).
    pub fn split_json(&self) -> Value {
        json!({
            "units": self.split_units,
            "buffers": self.split_buffers,
            "fallbacks": self.split_fallbacks,
            "conflicts": self.split_conflicts,
            "reads": {
                "non_conflict": self.reads_non_conflict,
                "conflict_normal": self.reads_conflict_normal,
                "conflict_split": self.reads_conflict_split,
            },
        })
    }
}
