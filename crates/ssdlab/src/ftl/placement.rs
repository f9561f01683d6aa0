//! Where a host write goes: a region (cell mode / medium) and a write stream. Units of one stream
//! are packed together into pages; policies may separate hot from cold data, SLC from TLC, or
//! reorder writes by stream (melded pages).

use super::saved_state::{keeps_nothing, SavedState};
use crate::config::PlacementConfig;
use crate::error::Error;
use crate::flash::Geometry;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Destination {
    pub region: usize,
    pub stream: usize,
}

pub trait Placement: SavedState + Send {
    /// Number of write streams (open pages) this policy uses.
    fn streams(&self) -> usize;
    /// Where a host write of `lpn` goes; `updates` is how many times the unit has been
    /// rewritten, this write included (0: its first write), when the FTL counts updates.
    fn place(&mut self, lpn: u32, updates: u8) -> Destination;
    /// Does the policy need the FTL to count each unit's updates?
    fn counts_updates(&self) -> bool {
        false
    }
    /// The stream of the hottest data, when the policy separates data by heat: the summary
    /// counts the host writes that go there.
    fn hot_stream(&self) -> Option<usize> {
        None
    }
}

/// All host writes go to region 0 in one stream.
pub struct SingleRegion;

keeps_nothing!(SingleRegion, Cache, Levels);

impl Placement for SingleRegion {
    fn streams(&self) -> usize {
        1
    }
    fn place(&mut self, _lpn: u32, _updates: u8) -> Destination {
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
    fn place(&mut self, _lpn: u32, _updates: u8) -> Destination {
        Destination {
            region: self.region,
            stream: 0,
        }
    }
}

/// IPU's three levels of SLC-mode blocks (Li et al., ICPP 2021, Design 1/3: Work < Monitor <
/// Hot): every host write goes to the cache region, into the open block of its level: a unit's
/// first write to a Work block, its first update to a Monitor block, later ones to a Hot block
/// (techniques.md §3.2: "WORK (first write) < MONITOR (updated once) < HOT (updated >= 2)"), so
/// data is upgraded as it is rewritten and each level's blocks hold data of one heat.
pub struct Levels {
    region: usize,
}

/// The write streams of [`Levels`], in ascending level.
pub const WORK: usize = 0;
pub const MONITOR: usize = 1;
pub const HOT: usize = 2;

impl Placement for Levels {
    fn streams(&self) -> usize {
        crate::config::LEVEL_STREAMS as usize
    }
    fn place(&mut self, _lpn: u32, updates: u8) -> Destination {
        Destination {
            region: self.region,
            stream: (updates as usize).min(HOT),
        }
    }
    fn counts_updates(&self) -> bool {
        true
    }
    fn hot_stream(&self) -> Option<usize> {
        Some(HOT)
    }
}

/// ROSA's heterogeneity-oblivious baseline (Cho et al., §3: "0% migration means that, although
/// PCM devices are there, the SSD controller does heterogeneity-oblivious placement"): a unit's
/// first write goes to the region its address falls to, each region taking a share of the
/// addresses equal to its share of the raw capacity, so every region fills alike whatever it
/// is made of. Ours (the paper does not say how DiskSim's controller spread data): addresses
/// go in runs (`run_units`; by default a block's worth, as a log-structured controller fills
/// a block with a run of consecutive writes, so that a request falls in one medium as often
/// as on the paper's device), and a run's number is scrambled by Fibonacci hashing, an
/// equidistributed sequence, so that the runs are shared out in the capacities' proportion
/// wherever the data lies. A later write
/// stays where the unit is: rewritten in place if it is on PCM (the engine does that before
/// asking), else in the flash region its address falls to, or the first one if that is PCM
/// (a unit level-1 GC moved out of PCM). With a placement of its own for the flash (`flash`),
/// the flash regions take their share of the addresses together, and that placement says where
/// in the flash each write goes (an SLC-mode cache, IPU's levels), as it would on a device
/// without PCM.
pub struct Oblivious {
    run_units: u32,
    /// Per region, the upper end of its share of the 64-bit hash space (the last is `u64::MAX`).
    bounds: Vec<u64>,
    /// Per region, whether it is written in place (PCM): its share is placed by address alone,
    /// the rest (the appended media's) by the flash's own placement, if any.
    in_place: Vec<bool>,
    /// Where the flash's share goes, if a policy places it.
    flash: Option<Box<dyn Placement>>,
}

impl Oblivious {
    pub fn new(
        g: &Geometry,
        run_units: Option<u32>,
        flash: Option<Box<dyn Placement>>,
    ) -> Oblivious {
        let mut sum = 0.0;
        let in_place: Vec<bool> = g
            .regions
            .iter()
            .map(|r| r.medium.rewrites_in_place())
            .collect();
        let first_flash = in_place.iter().position(|&p| !p);
        let mut bounds: Vec<u64> = (0..g.regions.len())
            .map(|r| {
                sum += match (&flash, in_place[r]) {
                    // The flash's share all at its first region's place (the others get none).
                    (Some(_), false) if Some(r) == first_flash => (0..g.regions.len())
                        .filter(|&i| !in_place[i])
                        .map(|i| g.capacity_share(i))
                        .sum(),
                    (Some(_), false) => 0.0,
                    _ => g.capacity_share(r),
                };
                (sum * u64::MAX as f64) as u64
            })
            .collect();
        if let Some(last) = bounds.last_mut() {
            *last = u64::MAX;
        }
        Oblivious {
            run_units: run_units.unwrap_or(g.max_pages_per_block * g.units_per_page),
            bounds,
            in_place,
            flash,
        }
    }

    /// The region `lpn`'s address falls to.
    pub fn region_of(&self, lpn: u32) -> usize {
        let run = (lpn / self.run_units) as u64;
        let h = run.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.bounds.iter().position(|&b| h <= b).unwrap_or(0)
    }
}

/// Only the flash's own placement, if any, keeps anything: the address shares are fixed.
impl SavedState for Oblivious {
    fn save_state(&self) -> Result<Vec<u8>, postcard::Error> {
        self.flash
            .as_ref()
            .map_or(Ok(Vec::new()), |f| f.save_state())
    }
    fn load_state(&mut self, state: &[u8]) -> Result<(), postcard::Error> {
        match &mut self.flash {
            Some(f) => f.load_state(state),
            None if state.is_empty() => Ok(()),
            None => Err(postcard::Error::DeserializeBadEncoding),
        }
    }
}

impl Placement for Oblivious {
    fn streams(&self) -> usize {
        self.flash.as_ref().map_or(1, |f| f.streams())
    }
    fn place(&mut self, lpn: u32, updates: u8) -> Destination {
        let region = match self.region_of(lpn) {
            r if self.in_place[r] && updates == 0 => r,
            r => match &mut self.flash {
                Some(flash) => return flash.place(lpn, updates),
                None if self.in_place[r] => 0,
                None => r,
            },
        };
        Destination { region, stream: 0 }
    }
    fn counts_updates(&self) -> bool {
        true
    }
    fn hot_stream(&self) -> Option<usize> {
        self.flash.as_ref().and_then(|f| f.hot_stream())
    }
}

pub fn build(config: &PlacementConfig, g: &Geometry) -> Result<Box<dyn Placement>, Error> {
    let region = config.region(&g.region_names())?;
    Ok(match config {
        PlacementConfig::SingleRegion => Box::new(SingleRegion),
        PlacementConfig::Cache { .. } => Box::new(Cache { region }),
        PlacementConfig::Levels { .. } => Box::new(Levels { region }),
        PlacementConfig::Oblivious { run_units, flash } => {
            let flash = flash.as_deref().map(|f| build(f, g)).transpose()?;
            Box::new(Oblivious::new(g, *run_units, flash))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_upgrade_a_unit_as_it_is_rewritten() {
        let mut p = Levels { region: 1 };
        let stream = |p: &mut Levels, updates| p.place(9, updates).stream;
        assert_eq!(
            [0, 1, 2, 3, 200].map(|u| stream(&mut p, u)),
            [WORK, MONITOR, HOT, HOT, HOT]
        );
        assert_eq!(p.place(9, 0).region, 1);
        assert!(p.counts_updates() && !SingleRegion.counts_updates());
    }

    /// With a placement of the flash's own, an address falls to PCM or to the flash by raw
    /// capacity, and the flash's writes go where that placement says: IPU's levels in the
    /// SLC-mode region, by update count; a rewrite of a unit moved out of PCM goes there too.
    #[test]
    fn oblivious_over_pcm_sends_the_flashs_share_to_the_flash_placement() {
        let c = crate::test_support::small(&[
            "geometry.regions=[{name=\"main\", cell_mode=\"tlc\", blocks_per_plane=56}, \
             {name=\"slc\", cell_mode=\"slc\", blocks_per_plane=8, nop=4}]",
            "timing.slc={tr_ns=20000, tprog_ns=200000, tbers_ns=1000000}",
            "geometry.pcm={capacity_share=0.25}",
            "timing.pcm={read_ns=5000, write_ns=50000}",
            "ftl.placement={policy=\"oblivious\", flash={policy=\"levels\", region=\"slc\"}}",
            "ftl.migration={policy=\"degrade\", from_region=\"slc\", to_region=\"main\"}",
            "ftl.overprovisioning_ratio=0.3",
        ]);
        let g = crate::device::geometry(&c);
        let pcm = g
            .regions
            .iter()
            .position(|r| r.medium.rewrites_in_place())
            .unwrap();
        let slc = g.regions.iter().position(|r| r.name == "slc").unwrap();
        let mut p = Oblivious::new(&g, Some(1), Some(Box::new(Levels { region: slc })));
        let units = 4000;
        let first: Vec<Destination> = (0..units).map(|u| p.place(u, 0)).collect();
        let on_pcm = first.iter().filter(|d| d.region == pcm).count() as f64;
        let share = g.capacity_share(pcm);
        assert!(
            (on_pcm / units as f64 - share).abs() < 0.01,
            "{on_pcm} for {share}"
        );
        // The rest to the Work level of the SLC-mode region, none to `main` directly.
        assert!(first
            .iter()
            .all(|d| d.region == pcm || (d.region == slc && d.stream == WORK)));
        let moved_out = (0..units)
            .find(|&u| first[u as usize].region == pcm)
            .unwrap();
        assert_eq!(
            p.place(moved_out, 2),
            Destination {
                region: slc,
                stream: HOT
            }
        );
        assert_eq!(p.streams(), 3);
        assert_eq!(p.hot_stream(), Some(HOT));
    }

    #[test]
    fn single_region_sends_everything_to_region_zero() {
        let mut p = SingleRegion;
        assert_eq!(p.streams(), 1);
        for lpn in [0, 5, u32::MAX - 1] {
            assert_eq!(
                p.place(lpn, 0),
                Destination {
                    region: 0,
                    stream: 0
                }
            );
        }
    }
}
