//! Where a host write goes: a region (cell mode / medium) and a write stream. Units of one stream
//! are packed together into pages; policies may separate hot from cold data, SLC from TLC, or
//! reorder writes by stream (melded pages).

use crate::config::PlacementConfig;
use crate::error::Error;
use crate::flash::Geometry;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Destination {
    pub region: usize,
    pub stream: usize,
}

pub trait Placement: Send {
    /// Number of write streams (open pages) this policy uses.
    fn streams(&self) -> usize;
    /// Regions host data may live in (validation checks that the logical capacity fits).
    fn host_regions(&self) -> Vec<usize>;
    fn place(&mut self, lpn: u32) -> Destination;
}

/// All host writes go to region 0 in one stream.
pub struct SingleRegion;

impl Placement for SingleRegion {
    fn streams(&self) -> usize {
        1
    }
    fn host_regions(&self) -> Vec<usize> {
        vec![0]
    }
    fn place(&mut self, _lpn: u32) -> Destination {
        Destination {
            region: 0,
            stream: 0,
        }
    }
}

/// All host writes go to one region (a cache), in one stream.
pub struct Cache {
    region: usize,
}

impl Placement for Cache {
    fn streams(&self) -> usize {
        1
    }
    fn host_regions(&self) -> Vec<usize> {
        vec![self.region]
    }
    fn place(&mut self, _lpn: u32) -> Destination {
        Destination {
            region: self.region,
            stream: 0,
        }
    }
}

pub fn build(config: &PlacementConfig, g: &Geometry) -> Result<Box<dyn Placement>, Error> {
    Ok(match config {
        PlacementConfig::SingleRegion => Box::new(SingleRegion),
        PlacementConfig::Cache { region } => Box::new(Cache {
            region: region_named(g, region, "ftl.placement.region")?,
        }),
    })
}

/// The index of the region called `name` in `[[geometry.regions]]`, or an error naming `key`.
pub fn region_named(g: &Geometry, name: &str, key: &str) -> Result<usize, Error> {
    g.regions
        .iter()
        .position(|r| r.name == name)
        .ok_or_else(|| {
            let known: Vec<&str> = g.regions.iter().map(|r| r.name.as_str()).collect();
            Error::config(
                key,
                format!(
                    "no region `{name}` (the geometry's regions: {})",
                    known.join(", ")
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_region_sends_everything_to_region_zero() {
        let mut p = SingleRegion;
        assert_eq!(p.streams(), 1);
        assert_eq!(p.host_regions(), vec![0]);
        for lpn in [0, 5, u32::MAX - 1] {
            assert_eq!(
                p.place(lpn),
                Destination {
                    region: 0,
                    stream: 0
                }
            );
        }
    }
}
