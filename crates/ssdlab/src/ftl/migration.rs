//! Where GC sends the valid units it copies out of a victim: the same region, or another one
//! (IPU's upgrade/degrade between SLC and TLC, ROSA's hot→PCM / cold→flash).

use crate::config::MigrationConfig;

pub trait Migration: Send {
    /// Destination region of a valid unit copied out of a block of `from_region`.
    fn destination(&mut self, lpn: u32, from_region: usize) -> usize;
}

/// GC keeps data in its region.
pub struct NoMigration;

impl Migration for NoMigration {
    fn destination(&mut self, _lpn: u32, from_region: usize) -> usize {
        from_region
    }
}

pub fn build(config: &MigrationConfig) -> Box<dyn Migration> {
    match config {
        MigrationConfig::None => Box::new(NoMigration),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_migration_keeps_the_region() {
        assert_eq!(NoMigration.destination(3, 0), 0);
        assert_eq!(NoMigration.destination(3, 2), 2);
    }
}
