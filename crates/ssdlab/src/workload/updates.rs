//! Writes that rewrite data written earlier in the run, for workloads known by their update ratio
//! and hot-write share (IPU, ipu-slc-partial-programming.txt: the motivation table's "Update
//! Ratio", the benchmark table's "Hot write"). IPU ranks data by how often it was updated — Work
//! (written once) < Monitor (updated once) < Hot (updated ≥ 2) (techniques.md §3.2) — so a write
//! is one of three kinds, by the unit it starts on:
//!
//! - a *hot update* (`hot_fraction`): a unit drawn uniformly from those written at least twice;
//! - a *first update* (`update_fraction − hot_fraction`): a unit drawn uniformly from those
//!   written exactly once;
//! - *new data* (the rest): a start drawn from the address distribution, again until the whole
//!   request falls on units never written (at most [`PROBES`] draws); failing that, the first
//!   run of never-written units the request fits in at or after the last draw, within
//!   [`SCAN_WORDS`] words of counts; failing that too, the last draw (an update).
//!
//! A write that wants a pool that is empty (early in the run, or when first updates outrun new
//! data) takes the other pool, and new data if both are empty. Units are `alignment_bytes`
//! pieces; every write, random or sequential, counts on the units it covers. Where the paper is
//! silent (which written data an update picks, how updates are sized) the choice is ours: pools
//! drawn uniformly, sizes from the size distribution like any write.
//!
//! Unlike the other distributions this one has state: how often each unit of the working set was
//! written (never, once, more: two bits a unit, allocated zeroed so that only the parts written
//! take memory) and the two pools (four bytes a unit written). It is sized by the working set,
//! not by the run, and a draw costs the same at any point of a run: new data's probes test bits
//! in a table that stays in cache (a 4 GiB working set of 4 KiB units: 256 KiB), where a hash
//! map of the units written missed the cache more the more the run had written.

use rand::Rng;

use crate::config::Updates;

/// New data's start is drawn at most this many times to find units never written. With the
/// working set a few times the data written, the first draw nearly always succeeds. Drawing
/// until one succeeds would cost a write 1/f draws when a share f of the working set is left
/// unwritten, so past a few draws new data scans for room instead (ours: 8 draws fail only
/// where f < 1/2 with probability over 1/256).
const PROBES: usize = 8;

/// How far new data scans for never-written units past its last draw: words of the write
/// counts, 32 units each (ours: 2,048 units, 8 MiB of 4 KiB units, read in order and skipped a
/// word at a time where every unit was written). New data finds room this way while about one
/// unit in 2,000 of the working set is left; when less is, it overwrites where its last draw
/// fell and counts as an update. Either way a write costs a bounded number of steps, however
/// much of the working set the run has written.
const SCAN_WORDS: u64 = 64;

/// Which written data a random write goes to.
#[derive(Clone, Copy)]
enum Pool {
    /// Units written exactly once.
    Once,
    /// Units written at least twice.
    Updated,
}

/// How often each unit was written, saturating at [`WriteCounts::MORE`]: all IPU's levels need.
struct WriteCounts {
    /// Two bits a unit, 32 units a word.
    words: Vec<u64>,
}

impl WriteCounts {
    const MORE: u64 = 2;

    fn new(units: u64) -> WriteCounts {
        WriteCounts {
            // Zeroed: the allocator maps untouched pages lazily, so a working set the run
            // barely writes costs little.
            words: vec![0; units.div_ceil(32) as usize],
        }
    }

    fn get(&self, unit: u64) -> u64 {
        self.words[(unit / 32) as usize] >> (unit % 32 * 2) & 3
    }

    /// Count a write of `unit`; its count before.
    fn add(&mut self, unit: u64) -> u64 {
        let word = &mut self.words[(unit / 32) as usize];
        let shift = unit % 32 * 2;
        let before = *word >> shift & 3;
        *word += u64::from(before < Self::MORE) << shift;
        before
    }

    fn clear(&mut self) {
        self.words.fill(0);
    }

    /// The first unit of the first run of `len` never-written units at or after `from` that ends
    /// by `end`, looking at most [`SCAN_WORDS`] words from `from`'s.
    fn never_written_run(&self, from: u64, len: u64, end: u64) -> Option<u64> {
        const EVEN_BITS: u64 = 0x5555_5555_5555_5555;
        let end = end.min((from / 32 + SCAN_WORDS) * 32);
        let (mut unit, mut run) = (from, 0);
        while unit < end {
            let word = self.words[(unit / 32) as usize];
            // Bit 2i set where unit i of the word was never written (both its bits clear).
            let fresh = !(word | word >> 1) & EVEN_BITS;
            if fresh >> (unit % 32 * 2) == 0 {
                // Nothing left to find in this word: skip to the next.
                run = 0;
                unit = (unit / 32 + 1) * 32;
                continue;
            }
            match fresh >> (unit % 32 * 2) & 1 {
                1 => run += 1,
                _ => run = 0,
            }
            unit += 1;
            if run == len {
                return Some(unit - len);
            }
        }
        None
    }
}

pub(super) struct UpdateState {
    update_fraction: f64,
    hot_fraction: f64,
    read_written_fraction: f64,
    read_hot_fraction: f64,
    unit_bytes: u64,
    /// Whole units in the working set: a request on them fits it.
    whole_units: u64,
    /// Writes per unit of the working set.
    writes: WriteCounts,
    /// Units that were written once when added; those written again since are dropped when
    /// drawn.
    once: Vec<u32>,
    /// Units written at least twice (a count never falls, so these stay valid).
    updated: Vec<u32>,
}

impl UpdateState {
    /// The state of a generator whose requests fall in `working_set_bytes` (validated: at most
    /// `config::generator::MAX_UPDATE_UNITS` units of `unit_bytes`).
    pub(super) fn new(u: &Updates, unit_bytes: u64, working_set_bytes: u64) -> UpdateState {
        UpdateState {
            update_fraction: u.update_fraction,
            hot_fraction: u.hot_fraction,
            read_written_fraction: u.read_written_fraction,
            read_hot_fraction: u.read_hot_fraction,
            unit_bytes,
            whole_units: working_set_bytes / unit_bytes,
            writes: WriteCounts::new(working_set_bytes.div_ceil(unit_bytes)),
            once: Vec::new(),
            updated: Vec::new(),
        }
    }

    /// Forget every write (the generator starts over).
    pub(super) fn reset(&mut self) {
        self.writes.clear();
        self.once.clear();
        self.updated.clear();
    }

    /// The start of a random write of `size` bytes. `place` turns a start into one whose request
    /// fits the working set; `new_start` draws a start for new data (already placed).
    pub(super) fn start<R: Rng>(
        &mut self,
        size: u64,
        rng: &mut R,
        place: impl Fn(u64) -> u64,
        mut new_start: impl FnMut(&mut R) -> u64,
    ) -> u64 {
        let x: f64 = rng.gen();
        let pools: &[Pool] = if x < self.hot_fraction {
            &[Pool::Updated, Pool::Once]
        } else if x < self.update_fraction {
            &[Pool::Once, Pool::Updated]
        } else {
            &[]
        };
        for &pool in pools {
            if let Some(unit) = self.pick(pool, rng) {
                return place(u64::from(unit) * self.unit_bytes);
            }
        }
        let mut start = new_start(rng);
        for _ in 1..PROBES {
            if self.never_written(start, size) {
                return start;
            }
            start = new_start(rng);
        }
        if self.never_written(start, size) {
            return start;
        }
        let units = self.units(start, size);
        self.writes
            .never_written_run(units.start, units.end - units.start, self.whole_units)
            .map_or(start, |unit| place(unit * self.unit_bytes))
    }

    /// The start of a random read that goes to written data (`read_written_fraction`), or
    /// `None` for one the address distribution places. Reads of written data pick their unit as
    /// updates do: hot reads among units written at least twice, the others among units written
    /// once, each taking the other pool while its own is empty. Without such reads no draw is
    /// made, so a generator's stream is as before the key existed.
    pub(super) fn read_start<R: Rng>(
        &mut self,
        rng: &mut R,
        place: impl Fn(u64) -> u64,
    ) -> Option<u64> {
        if self.read_written_fraction == 0.0 {
            return None;
        }
        let x: f64 = rng.gen();
        let pools: &[Pool] = if x < self.read_hot_fraction {
            &[Pool::Updated, Pool::Once]
        } else if x < self.read_written_fraction {
            &[Pool::Once, Pool::Updated]
        } else {
            &[]
        };
        pools
            .iter()
            .find_map(|&pool| self.pick(pool, rng))
            .map(|unit| place(u64::from(unit) * self.unit_bytes))
    }

    /// A unit drawn uniformly from `pool`, or `None` if it is empty.
    fn pick(&mut self, pool: Pool, rng: &mut impl Rng) -> Option<u32> {
        match pool {
            Pool::Updated => (!self.updated.is_empty())
                .then(|| self.updated[rng.gen_range(0..self.updated.len())]),
            Pool::Once => loop {
                if self.once.is_empty() {
                    return None;
                }
                let i = rng.gen_range(0..self.once.len());
                let unit = self.once[i];
                if self.writes.get(unit.into()) == 1 {
                    return Some(unit);
                }
                // Written again since (a write that started elsewhere covered it).
                self.once.swap_remove(i);
            },
        }
    }

    /// The units `[start, start + size)` covers.
    fn units(&self, start: u64, size: u64) -> std::ops::Range<u64> {
        start / self.unit_bytes..(start + size).div_ceil(self.unit_bytes)
    }

    fn never_written(&self, start: u64, size: u64) -> bool {
        self.units(start, size).all(|u| self.writes.get(u) == 0)
    }

    /// Count a write of `size` bytes at `start` on every unit it covers.
    pub(super) fn record(&mut self, start: u64, size: u64) {
        for unit in self.units(start, size) {
            // (Units are below MAX_UPDATE_UNITS: validated.)
            match self.writes.add(unit) {
                0 => self.once.push(unit as u32),
                1 => self.updated.push(unit as u32),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::generator::validate_updates;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    /// Shares of `n` writes of `units` units each that start on a unit written before, and on one
    /// written at least twice before, over `slots` slots drawn uniformly for new data.
    fn shares(u: Updates, n: usize, units: u64, slots: u64) -> (f64, f64) {
        let size = units * 4096;
        let ws = slots * 4096;
        validate_updates(&u, "updates", 0, ("ws", ws), 4096).expect("valid");
        let mut s = UpdateState::new(&u, 4096, ws);
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let place = |start: u64| start.min(ws - size);
        let (mut updates, mut hot) = (0, 0);
        for _ in 0..n {
            let start = s.start(size, &mut rng, place, |r| {
                place(r.gen_range(0..slots) * 4096)
            });
            let before = s.writes.get(start / 4096);
            updates += usize::from(before >= 1);
            hot += usize::from(before >= 2);
            s.record(start, size);
        }
        (updates as f64 / n as f64, hot as f64 / n as f64)
    }

    #[test]
    fn writes_follow_the_update_and_hot_fractions() {
        // Binomial sd at n = 1e5 is at most 0.0016; 0.01 is 6 sd. The pools are empty only at
        // the start (a handful of writes).
        let (u, h) = shares(
            Updates {
                update_fraction: 0.5,
                hot_fraction: 0.1,
                ..Default::default()
            },
            100_000,
            1,
            1 << 24,
        );
        assert!((u - 0.5).abs() < 0.01 && (h - 0.1).abs() < 0.01, "{u} {h}");
        // Without updates nothing is rewritten, even when new data fills half the slots.
        let (u, _) = shares(
            Updates {
                update_fraction: 0.0,
                hot_fraction: 0.0,
                ..Default::default()
            },
            50_000,
            1,
            100_000,
        );
        assert_eq!(u, 0.0);
    }

    #[test]
    fn first_updates_that_outrun_new_data_become_hot() {
        // 80% updates, 10% hot: 70% first updates, but each unit has one first update and new
        // data brings only 20%: the once pool runs dry and the rest go to hot data, so
        // hot ≈ 80% − 20%.
        let (u, h) = shares(
            Updates {
                update_fraction: 0.8,
                hot_fraction: 0.1,
                ..Default::default()
            },
            100_000,
            1,
            1 << 24,
        );
        assert!((u - 0.8).abs() < 0.01 && (h - 0.6).abs() < 0.01, "{u} {h}");
    }

    #[test]
    fn new_data_takes_a_bounded_number_of_draws_and_scans_for_the_room_left() {
        let slots = 100_000u64;
        let u = Updates {
            update_fraction: 0.0,
            hot_fraction: 0.0,
            ..Default::default()
        };
        let mut s = UpdateState::new(&u, 4096, slots * 4096);
        // Every unit written but one in a thousand: a draw finds room one time in a thousand.
        for unit in (0..slots).filter(|u| u % 1000 != 500) {
            s.record(unit * 4096, 4096);
        }
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let place = |start: u64| start.min((slots - 1) * 4096);
        let mut draws = 0;
        let mut found = 0;
        for _ in 0..1000 {
            let start = s.start(4096, &mut rng, place, |r| {
                draws += 1;
                r.gen_range(0..slots) * 4096
            });
            found += usize::from(s.writes.get(start / 4096) == 0);
        }
        assert!(draws <= 1000 * PROBES, "no more draws than PROBES a write");
        // The scan finds the next free unit unless the last draw fell past the last one.
        assert!(found >= 990, "{found} of 1000 writes found room");
        // With no room left new data overwrites where its last draw fell.
        for unit in (0..slots).filter(|u| u % 1000 == 500) {
            s.record(unit * 4096, 4096);
        }
        let mut last = 0;
        let start = s.start(4096, &mut rng, place, |r| {
            last = r.gen_range(0..slots) * 4096;
            last
        });
        assert_eq!(start, last);
    }

    #[test]
    fn the_scan_finds_the_first_run_long_enough_and_ending_in_bounds() {
        let mut c = WriteCounts::new(200);
        for unit in (0..200).filter(|u| !(40..43).contains(u) && !(70..75).contains(u)) {
            c.add(unit);
        }
        c.add(33);
        assert_eq!(c.never_written_run(0, 3, 200), Some(40));
        assert_eq!(c.never_written_run(0, 4, 200), Some(70));
        assert_eq!(c.never_written_run(41, 2, 200), Some(41));
        assert_eq!(
            c.never_written_run(0, 5, 74),
            None,
            "the run must end by 74"
        );
        assert_eq!(c.never_written_run(0, 6, 200), None);
        // At most SCAN_WORDS words on: room past them is not found.
        let mut c = WriteCounts::new(64 * 100);
        for unit in 0..64 * 100 - 1 {
            c.add(unit);
        }
        assert_eq!(c.never_written_run(0, 1, 64 * 100), None);
        assert_eq!(
            c.never_written_run(64 * 100 - 2000, 1, 64 * 100),
            Some(64 * 100 - 1)
        );
    }

    #[test]
    fn write_counts_saturate_without_touching_their_neighbours() {
        let mut c = WriteCounts::new(100);
        for (unit, writes) in [(31, 1), (32, 5), (33, 2), (99, 3)] {
            for n in 0..writes {
                assert_eq!(c.add(unit), n.min(WriteCounts::MORE), "unit {unit}");
            }
        }
        let counts: Vec<u64> = [0, 30, 31, 32, 33, 34, 98, 99].map(|u| c.get(u)).to_vec();
        assert_eq!(counts, [0, 0, 1, 2, 2, 0, 0, 2]);
    }
}
