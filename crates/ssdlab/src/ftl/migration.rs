//! Where GC sends the valid units it copies out of a victim: the same region, or another one
//! (IPU's upgrade/degrade between SLC and TLC, ROSA's hot→PCM / cold→flash).

use super::saved_state::{keeps_nothing, SavedState};
use crate::config::MigrationConfig;
use crate::error::Error;
use crate::flash::Geometry;

pub trait Migration: SavedState + Send {
    /// Destination region of a valid unit copied out of a block of `from_region`, and the unit's
    /// update count after the move (`updates` before it; a policy may demote the unit).
    fn destination(&mut self, lpn: u32, from_region: usize, updates: u8) -> (usize, u8);
    /// The region GC may move data into from `from_region`, if any (for capacity checks). Where
    /// there is none, `destination` keeps every unit and its count, and GC need not ask it.
    fn target(&self, from_region: usize) -> Option<usize>;
    /// Does the policy need the FTL to count each unit's updates?
    fn counts_updates(&self) -> bool {
        false
    }
}

/// GC keeps data in its region.
pub struct NoMigration;

keeps_nothing!(NoMigration, Evict, Degrade);

impl Migration for NoMigration {
    fn destination(&mut self, _lpn: u32, from_region: usize, updates: u8) -> (usize, u8) {
        (from_region, updates)
    }
    fn target(&self, _from_region: usize) -> Option<usize> {
        None
    }
}

/// GC of one region evicts its valid data to another.
pub struct Evict {
    from: usize,
    to: usize,
}

impl Migration for Evict {
    fn destination(&mut self, _lpn: u32, from_region: usize, updates: u8) -> (usize, u8) {
        match from_region == self.from {
            true => (self.to, updates),
            false => (from_region, updates),
        }
    }
    fn target(&self, from_region: usize) -> Option<usize> {
        (from_region == self.from).then_some(self.to)
    }
}

/// IPU's degrading GC (Li et al., ICPP 2021, Design 3/3: "DEGRADE cold write data, hold the
/// level of other data", "free up the SLC region occupied by cold data"): a unit GC copies out
/// of the cache region goes to the high-density region if it is cold — at the Work level, not
/// updated since it entered the level — and otherwise stays in the cache one level down (Hot to
/// Monitor, Monitor to Work). The demotion is ours: the slides keep the other data's level, but
/// then data updated twice long ago would hold the cache for ever; one level per GC pass lets it
/// age out unless it is updated again.
pub struct Degrade {
    from: usize,
    to: usize,
}

impl Migration for Degrade {
    fn destination(&mut self, _lpn: u32, from_region: usize, updates: u8) -> (usize, u8) {
        match (from_region == self.from, updates) {
            (false, n) => (from_region, n),
            (true, 0) => (self.to, 0),
            (true, n) => (self.from, n.min(2) - 1),
        }
    }
    fn target(&self, from_region: usize) -> Option<usize> {
        (from_region == self.from).then_some(self.to)
    }
    fn counts_updates(&self) -> bool {
        true
    }
}

pub fn build(config: &MigrationConfig, g: &Geometry) -> Result<Box<dyn Migration>, Error> {
    Ok(match (config, config.regions(&g.region_names())?) {
        (MigrationConfig::Evict { .. }, Some((from, to))) => Box::new(Evict { from, to }),
        (MigrationConfig::Degrade { .. }, Some((from, to))) => Box::new(Degrade { from, to }),
        _ => Box::new(NoMigration),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_migration_keeps_the_region() {
        assert_eq!(NoMigration.destination(3, 0, 5), (0, 5));
        assert_eq!(NoMigration.destination(3, 2, 0), (2, 0));
    }

    #[test]
    fn degrade_sends_only_cold_data_down_and_demotes_the_rest() {
        let mut d = Degrade { from: 1, to: 0 };
        // Work (never updated): to the high-density region.
        assert_eq!(d.destination(3, 1, 0), (0, 0));
        // Monitor stays, as Work; Hot stays, as Monitor (however often it was updated).
        assert_eq!(d.destination(3, 1, 1), (1, 0));
        assert_eq!(d.destination(3, 1, 2), (1, 1));
        assert_eq!(d.destination(3, 1, 200), (1, 1));
        // Other regions keep their data.
        assert_eq!(d.destination(3, 0, 0), (0, 0));
        assert!(d.counts_updates());
    }

    #[test]
    fn eviction_moves_only_the_cache_regions_data() {
        let mut e = Evict { from: 1, to: 0 };
        assert_eq!(e.destination(3, 1, 4), (0, 4));
        assert_eq!(e.destination(3, 0, 4), (0, 4));
        assert_eq!((e.target(1), e.target(0)), (Some(0), None));
    }
}
