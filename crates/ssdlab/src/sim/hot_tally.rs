//! Where host writes went, by heat, when the placement separates data by heat (IPU's levels):
//! the slides' Result(3/3), "32.9% of writes are the most frequently updated data, held in
//! SLC-mode blocks" (ipu-slc-partial-programming.txt L204), and what it is made of.
//!
//! A placement's streams rank data by its update count as the FTL keeps it, which GC lowers: a
//! unit IPU's degrading GC keeps in the cache drops one level, one it sends down to the
//! high-density region starts over (`ftl/migration.rs`). The workload's own measure of hot data
//! (`docs/workloads.md` § The IPU workloads) is the write history alone: a unit written at least
//! twice before. The tally keeps both, unit by unit, so that a run says how much of the data its
//! workload rewrote most the placement held as hot, and how much GC had demoted by then.

use serde_json::{json, Value};

/// Host unit writes by the stream they were placed in, and by the unit's write history in the
/// run.
pub(super) struct HotTally {
    /// The placement's stream of its hottest data (`Placement::hot_stream`).
    hot_stream: usize,
    /// Per logical unit, its host writes since the run began (preconditioning not counted),
    /// saturating at [`HotTally::HOT`]. Allocated zeroed, so that the pages of a table the run
    /// barely writes are never touched (one byte a unit: 5.8 MB on the IPU reproduction's
    /// device). Kept across the statistics window's boundary: the warm-up's writes are history.
    run_writes: Vec<u8>,
    /// Host unit writes placed in each stream.
    by_stream: Vec<u64>,
    /// Host unit writes of units written at least twice before in the run, and of those, the
    /// ones placed in the hottest stream.
    run_hot: u64,
    run_hot_placed_hot: u64,
}

impl HotTally {
    /// Writes in the run after which a unit is hot (IPU's Hot level: updated at least twice).
    const HOT: u8 = 2;

    pub(super) fn new(hot_stream: usize, streams: usize, logical_units: u64) -> HotTally {
        HotTally {
            hot_stream,
            run_writes: vec![0; logical_units as usize],
            by_stream: vec![0; streams],
            run_hot: 0,
            run_hot_placed_hot: 0,
        }
    }

    /// A host write of `lpn` is placed in `stream`.
    pub(super) fn placed(&mut self, lpn: u32, stream: usize) {
        let before = &mut self.run_writes[lpn as usize];
        let hot = *before >= Self::HOT;
        *before = (*before + 1).min(Self::HOT);
        self.by_stream[stream] += 1;
        self.run_hot += u64::from(hot);
        self.run_hot_placed_hot += u64::from(hot && stream == self.hot_stream);
    }

    /// The statistics window's boundary: the counts start over, the write history stays.
    pub(super) fn reset_stats(&mut self) {
        self.by_stream.fill(0);
        self.run_hot = 0;
        self.run_hot_placed_hot = 0;
    }

    /// The summary's `placement` section.
    pub(super) fn summary(&self) -> Value {
        let placed: u64 = self.by_stream.iter().sum();
        let hot = self.by_stream[self.hot_stream];
        json!({
            "host_units": placed,
            "hot_units": hot,
            "hot_write_share": super::summary::ratio(hot, placed),
            "units_by_stream": self.by_stream,
            "run_hot_units": self.run_hot,
            "run_hot_units_placed_hot": self.run_hot_placed_hot,
            "run_hot_share": super::summary::ratio(self.run_hot, placed),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_is_hot_by_history_after_two_writes_whatever_stream_it_went_to() {
        let mut t = HotTally::new(2, 3, 4);
        // Unit 0 written three times: its third write is hot by history, placed in Hot; unit 1
        // likewise, but placed in Monitor (demoted by GC in between).
        for (lpn, stream) in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 1), (3, 2)] {
            t.placed(lpn, stream);
        }
        let s = t.summary();
        assert_eq!(s["units_by_stream"], json!([2, 3, 2]));
        assert_eq!(s["hot_units"], 2);
        assert_eq!(s["run_hot_units"], 2);
        assert_eq!(s["run_hot_units_placed_hot"], 1);
        // At the boundary the counts start over; the history stays.
        t.reset_stats();
        t.placed(1, 0);
        let s = t.summary();
        assert_eq!(
            (s["host_units"].clone(), s["run_hot_units"].clone()),
            (json!(1), json!(1))
        );
        assert_eq!(s["run_hot_units_placed_hot"], 0);
    }
}
