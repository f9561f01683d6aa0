//! `[geometry]`: the hierarchy of channels, ways, dies, planes, blocks and pages, the cell mode,
//! and the regions of blocks with their own cell mode.

use serde::{Deserialize, Serialize};

use super::checks::positive;
use super::pcm::{PcmConfig, PCM_REGION};
use crate::error::Error;
use crate::nand::{CellMode, ProgramOrder};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryConfig {
    pub channels: u32,
    pub ways_per_channel: u32,
    pub dies_per_way: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    /// Pages per block in the die's native cell mode. An SLC-mode block has
    /// `pages_per_block / bits_per_cell` pages (one per wordline).
    pub pages_per_block: u32,
    pub page_size_kib: u32,
    /// ECC codeword size: the granularity in which a page can be sensed and moved.
    pub codeword_size_bytes: u32,
    /// Native cell mode of the dies.
    pub cell_mode: CellMode,
    #[serde(default = "default_program_order")]
    pub program_order: ProgramOrder,
    /// Regions: groups of blocks in every plane with their own cell mode. When empty the whole
    /// device is one region named `main` in the native cell mode. Blocks are assigned to regions
    /// in order (region 0 gets the first blocks of each plane); the last region may say
    /// `blocks_per_plane = 0` to take the rest.
    #[serde(default)]
    pub regions: Vec<RegionConfig>,
    /// PCM devices beside the flash dies (ROSA): their blocks form the region `pcm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcm: Option<PcmConfig>,
}

/// The name of the one region of a device that lists none: all its flash blocks, in the dies'
/// native cell mode.
pub const MAIN_REGION: &str = "main";

fn default_program_order() -> ProgramOrder {
    ProgramOrder::OneShot
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionConfig {
    pub name: String,
    pub cell_mode: CellMode,
    /// Blocks of this region in each plane (0 = all blocks not given to other regions).
    #[serde(default)]
    pub blocks_per_plane: u32,
    /// NOP: how many times a page may be programmed between erases, each program filling some
    /// of its still-erased slots (partial programming; SLC datasheets allow 4). 1: whole pages.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub nop: u32,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

impl GeometryConfig {
    pub(crate) fn page_bytes(&self) -> u64 {
        self.page_size_kib as u64 * 1024
    }

    /// The regions' names, in order: [`MAIN_REGION`] alone without regions, then `pcm` with PCM.
    pub(crate) fn region_names(&self) -> Vec<&str> {
        let mut names = match self.regions.is_empty() {
            true => vec![MAIN_REGION],
            false => self.regions.iter().map(|r| r.name.as_str()).collect(),
        };
        if self.pcm.is_some() {
            names.push(PCM_REGION);
        }
        names
    }

    /// The cell modes blocks are in: the regions' modes, or the native mode without regions.
    pub(super) fn cell_modes_in_use(&self) -> Vec<CellMode> {
        if self.regions.is_empty() {
            vec![self.cell_mode]
        } else {
            self.regions.iter().map(|r| r.cell_mode).collect()
        }
    }

    /// Every level of the hierarchy is populated, pages split into whole wordlines and whole
    /// codewords, and the regions tile each plane's blocks in modes the dies can run.
    pub(super) fn validate(&self) -> Result<(), Error> {
        positive("geometry.channels", self.channels as u64)?;
        positive("geometry.ways_per_channel", self.ways_per_channel as u64)?;
        positive("geometry.dies_per_way", self.dies_per_way as u64)?;
        positive("geometry.planes_per_die", self.planes_per_die as u64)?;
        positive("geometry.blocks_per_plane", self.blocks_per_plane as u64)?;
        positive("geometry.pages_per_block", self.pages_per_block as u64)?;
        positive("geometry.page_size_kib", self.page_size_kib as u64)?;
        positive(
            "geometry.codeword_size_bytes",
            self.codeword_size_bytes as u64,
        )?;
        let bits = self.cell_mode.bits_per_cell();
        if !self.pages_per_block.is_multiple_of(bits) {
            return Err(Error::config(
                "geometry.pages_per_block",
                format!(
                    "{} is not a multiple of {bits}, the pages per wordline of {} cells",
                    self.pages_per_block,
                    self.cell_mode.name()
                ),
            ));
        }
        let page = self.page_bytes();
        let codeword = self.codeword_size_bytes as u64;
        if !page.is_multiple_of(codeword) {
            return Err(Error::config(
                "geometry.codeword_size_bytes",
                format!("{codeword} does not divide the {page}-byte page"),
            ));
        }
        // The codewords a read wants are one 64-bit mask.
        if page / codeword > 64 {
            return Err(Error::config(
                "geometry.codeword_size_bytes",
                format!(
                    "a page may hold at most 64 codewords (has {})",
                    page / codeword
                ),
            ));
        }
        self.validate_regions()?;
        if let Some(pcm) = &self.pcm {
            pcm.validate()?;
            self.validate_pcm_room(pcm)?;
        }
        Ok(())
    }

    /// PCM's share gives each PCM plane at least one block, and no flash region takes its name.
    fn validate_pcm_room(&self, pcm: &PcmConfig) -> Result<(), Error> {
        if let Some(i) = self.regions.iter().position(|r| r.name == PCM_REGION) {
            return Err(Error::config(
                &format!("geometry.regions[{i}].name"),
                format!("`{PCM_REGION}` names the PCM's blocks (geometry.pcm): choose another"),
            ));
        }
        if self.pcm_blocks_per_plane() == 0 {
            return Err(Error::config(
                "geometry.pcm.capacity_share",
                format!(
                    "{} of the device leaves its {} PCM planes less than a block each (PCM \
                     blocks are the flash's: {} pages of {} KiB); raise it or use fewer PCM \
                     dies (geometry.pcm.dies_per_channel)",
                    pcm.capacity_share,
                    self.pcm_planes(),
                    self.pages_per_block,
                    self.page_size_kib
                ),
            ));
        }
        Ok(())
    }

    /// Planes of the flash dies.
    pub fn flash_planes(&self) -> u64 {
        [
            self.ways_per_channel,
            self.dies_per_way,
            self.planes_per_die,
        ]
        .iter()
        .fold(self.channels as u64, |n, &x| n.saturating_mul(x as u64))
    }

    /// Planes of the PCM devices (0 without PCM).
    pub fn pcm_planes(&self) -> u64 {
        self.pcm.as_ref().map_or(0, |p| {
            [p.dies_per_channel, self.planes_per_die]
                .iter()
                .fold(self.channels as u64, |n, &x| n.saturating_mul(x as u64))
        })
    }

    /// Blocks of each PCM plane (0 without PCM).
    pub fn pcm_blocks_per_plane(&self) -> u64 {
        self.pcm.as_ref().map_or(0, |p| {
            p.blocks_per_plane(
                self.flash_planes()
                    .saturating_mul(self.blocks_per_plane as u64),
                self.pcm_planes(),
            )
        })
    }

    fn validate_regions(&self) -> Result<(), Error> {
        let bits = self.cell_mode.bits_per_cell();
        // Summed in u64: a few huge counts must not wrap into a plausible total.
        let mut used = 0u64;
        for (i, r) in self.regions.iter().enumerate() {
            let key = format!("geometry.regions[{i}]");
            if r.name.is_empty() {
                return Err(Error::config(
                    &format!("{key}.name"),
                    "is empty: placement and migration name a region to send data to it",
                ));
            }
            if r.blocks_per_plane == 0 && i + 1 != self.regions.len() {
                return Err(Error::config(
                    &format!("{key}.blocks_per_plane"),
                    "only the last region may take the rest (0)",
                ));
            }
            if r.cell_mode.bits_per_cell() > bits {
                return Err(Error::config(
                    &format!("{key}.cell_mode"),
                    format!(
                        "a {} region cannot live on {} dies",
                        r.cell_mode.name(),
                        self.cell_mode.name()
                    ),
                ));
            }
            if !bits.is_multiple_of(r.cell_mode.bits_per_cell()) {
                return Err(Error::config(
                    &format!("{key}.cell_mode"),
                    "the die's wordlines do not split evenly into this mode's pages",
                ));
            }
            if r.nop == 0 || r.nop > u8::MAX as u32 {
                return Err(Error::config(
                    &format!("{key}.nop"),
                    format!("{} must be 1 (whole pages) to 255", r.nop),
                ));
            }
            if r.nop > 1 && r.cell_mode.bits_per_cell() > 1 {
                return Err(Error::config(
                    &format!("{key}.nop"),
                    format!(
                        "partial programming is for SLC-mode pages; a {} page is programmed once",
                        r.cell_mode.name()
                    ),
                ));
            }
            used += r.blocks_per_plane as u64;
            if self.regions[..i].iter().any(|o| o.name == r.name) {
                return Err(Error::config(
                    &format!("{key}.name"),
                    format!("`{}` is used twice", r.name),
                ));
            }
        }
        if used > self.blocks_per_plane as u64 {
            return Err(Error::config(
                "geometry.regions",
                format!(
                    "the regions take {used} blocks per plane, more than \
                     geometry.blocks_per_plane = {}",
                    self.blocks_per_plane
                ),
            ));
        }
        if let Some(last) = self.regions.last() {
            if last.blocks_per_plane != 0 && used < self.blocks_per_plane as u64 {
                return Err(Error::config(
                    "geometry.regions",
                    format!(
                        "the regions cover {used} of {} blocks per plane; give the last region \
                         blocks_per_plane = 0 to take the rest",
                        self.blocks_per_plane
                    ),
                ));
            }
        }
        Ok(())
    }
}
