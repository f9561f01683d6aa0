//! Where GC sends the valid units it copies out of a victim: the same region, or another one
//! (IPU's upgrade/degrade between SLC and TLC, ROSA's hot→PCM / cold→flash).

use super::placement::region_named;
use crate::config::MigrationConfig;
use crate::error::Error;
use crate::flash::Geometry;

pub trait Migration: Send {
    /// Destination region of a valid unit copied out of a block of `from_region`.
    fn destination(&mut self, lpn: u32, from_region: usize) -> usize;
    /// Regions GC may move data into from `from_region` (for capacity checks).
    fn targets(&self, from_region: usize) -> Vec<usize>;
}

/// GC keeps data in its region.
pub struct NoMigration;

impl Migration for NoMigration {
    fn destination(&mut self, _lpn: u32, from_region: usize) -> usize {
        from_region
    }
    fn targets(&self, _from_region: usize) -> Vec<usize> {
        Vec::new()
    }
}

/// GC of one region evicts its valid data to another.
pub struct Evict {
    from: usize,
    to: usize,
}

impl Migration for Evict {
    fn destination(&mut self, _lpn: u32, from_region: usize) -> usize {
        match from_region == self.from {
            true => self.to,
            false => from_region,
        }
    }
    fn targets(&self, from_region: usize) -> Vec<usize> {
        match from_region == self.from {
            true => vec![self.to],
            false => Vec::new(),
        }
    }
}

pub fn build(config: &MigrationConfig, g: &Geometry) -> Result<Box<dyn Migration>, Error> {
    Ok(match config {
        MigrationConfig::None => Box::new(NoMigration),
        MigrationConfig::Evict {
            from_region,
            to_region,
        } => {
            let from = region_named(g, from_region, "ftl.migration.from_region")?;
            let to = region_named(g, to_region, "ftl.migration.to_region")?;
            if from == to {
                return Err(Error::config(
                    "ftl.migration.to_region",
                    format!("`{to_region}` is also the region evicted from"),
                ));
            }
            Box::new(Evict { from, to })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_migration_keeps_the_region() {
        assert_eq!(NoMigration.destination(3, 0), 0);
        assert_eq!(NoMigration.destination(3, 2), 2);
    }

    #[test]
    fn eviction_moves_only_the_cache_regions_data() {
        let mut e = Evict { from: 1, to: 0 };
        assert_eq!(e.destination(3, 1), 0);
        assert_eq!(e.destination(3, 0), 0);
        assert_eq!((e.targets(1), e.targets(0)), (vec![0], vec![]));
    }
}
