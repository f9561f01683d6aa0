//! `[ftl.placement]` and `[ftl.migration]`: the region host writes go to, and the region GC
//! moves data into. Regions are named by the geometry (`[[geometry.regions]]`, or `main`).

use serde::{Deserialize, Serialize};

use super::tagged::tagged_table;
use crate::error::Error;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlacementConfig {
    /// Every host write goes to region 0, one write stream.
    #[default]
    SingleRegion,
    /// Every host write goes to the region named `region` (an SLC-mode cache in front of the
    /// high-density region, IPU's "hybrid SLC/MLC" baseline); data leaves it through GC
    /// (`ftl.migration`).
    Cache { region: String },
    /// Every host write goes to the region named `region`, into one of three write streams by
    /// how often the unit has been rewritten: IPU's Work, Monitor and Hot blocks.
    Levels { region: String },
    /// A controller blind to what its regions are (ROSA's baseline, "heterogeneity-oblivious
    /// placement", §3): a unit's first write goes to a region chosen by its address, runs of
    /// `run_units` units at a time, each region taking runs in proportion to its raw capacity;
    /// a later write stays in the region (one written in place, PCM, is rewritten there).
    Oblivious {
        /// Consecutive units that go to one region (default: a block's worth, as a controller
        /// filling a block from one write stream keeps runs of consecutive writes together).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        run_units: Option<u32>,
        /// Where the flash's share goes, when a policy places it among the flash regions
        /// (`cache`, `levels`: an SLC-mode cache in front of the dense flash, IPU's levels): the
        /// addresses split between PCM and the flash by their raw capacities, and the flash's
        /// writes go where this placement sends them, GC migrating them on as it says. Absent:
        /// every region, PCM and flash alike, takes its own share of the addresses.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        flash: Option<Box<PlacementConfig>>,
    },
}

/// IPU's levels: Work, Monitor and Hot blocks, one write stream each.
pub const LEVEL_STREAMS: u32 = 3;

impl PlacementConfig {
    /// The write streams host data is kept apart in (each with its own open pages).
    pub fn write_streams(&self) -> u32 {
        match self {
            PlacementConfig::Levels { .. } => LEVEL_STREAMS,
            PlacementConfig::Oblivious {
                flash: Some(flash), ..
            } => flash.write_streams(),
            PlacementConfig::SingleRegion
            | PlacementConfig::Cache { .. }
            | PlacementConfig::Oblivious { .. } => 1,
        }
    }

    /// The placement among the flash regions of an oblivious placement over PCM and flash.
    pub fn flash(&self) -> Option<&PlacementConfig> {
        match self {
            PlacementConfig::Oblivious { flash, .. } => flash.as_deref(),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum MigrationConfig {
    /// GC copies valid units within their own region.
    #[default]
    None,
    /// GC of a block of `from_region` copies its valid units to `to_region` (the cache's
    /// eviction to the high-density region); other regions keep theirs.
    Evict {
        from_region: String,
        to_region: String,
    },
    /// IPU's degrading GC: of a `from_region` block, cold units (never updated since they
    /// entered their level) go to `to_region`, the others stay one level down.
    Degrade {
        from_region: String,
        to_region: String,
    },
}

tagged_table!("policy": PlacementConfig, MigrationConfig);

impl PlacementConfig {
    /// The index of the region every host write goes to, among the geometry's `regions` (with
    /// `oblivious`, the flash's: its placement's, or the first, where rewrites of flash data go).
    pub fn region(&self, regions: &[&str]) -> Result<usize, Error> {
        match self {
            PlacementConfig::Oblivious {
                flash: Some(flash), ..
            } => flash.region(regions),
            PlacementConfig::SingleRegion | PlacementConfig::Oblivious { .. } => Ok(0),
            PlacementConfig::Cache { region } | PlacementConfig::Levels { region } => {
                region_index(regions, region, "ftl.placement.region")
            }
        }
    }
}

impl MigrationConfig {
    /// The indices of the regions GC moves data from and to, among the geometry's `regions`;
    /// None when GC keeps data in its region.
    pub fn regions(&self, regions: &[&str]) -> Result<Option<(usize, usize)>, Error> {
        let (from_region, to_region) = match self {
            MigrationConfig::None => return Ok(None),
            MigrationConfig::Evict {
                from_region,
                to_region,
            }
            | MigrationConfig::Degrade {
                from_region,
                to_region,
            } => (from_region, to_region),
        };
        let from = region_index(regions, from_region, "ftl.migration.from_region")?;
        let to = region_index(regions, to_region, "ftl.migration.to_region")?;
        if from == to {
            return Err(Error::config(
                "ftl.migration.to_region",
                format!("`{to_region}` is also the region evicted from"),
            ));
        }
        Ok(Some((from, to)))
    }
}

/// The index of the region called `name` among `regions`, or an error naming `key`.
fn region_index(regions: &[&str], name: &str, key: &str) -> Result<usize, Error> {
    regions.iter().position(|r| *r == name).ok_or_else(|| {
        Error::config(
            key,
            format!(
                "no region `{name}` (the geometry's regions: {})",
                regions.join(", ")
            ),
        )
    })
}
