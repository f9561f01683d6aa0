//! What each policy needs of the device and of the other policies. A policy table (or a section
//! whose keys act only in some devices) implements [`Needs`] beside its definition;
//! `Config::validate_cross_section` asks every one of them, in one place, once each section has
//! passed its own checks. A policy that could not act in the device it is given (a partial
//! program on pages of one unit, a migration out of a region no write reaches) is refused there,
//! naming its key and why, instead of being accepted and doing nothing; a new technique brings
//! its checks by implementing [`Needs`] and joining [`Config::with_needs`]. (The parameters of a
//! technique that is off are accepted unused, as a grid of runs keeps them while it switches the
//! technique: `wear_leveling.threshold_erases` without wear levelling, the preconditioning's
//! `pattern`, `overwrite_fraction` and `write_request_kib` without a fill or a split decision.)

use super::Config;
use crate::error::Error;
use crate::flash::Geometry;

/// The device and the placement of data as the policies see them at validation.
pub(super) struct Device<'a> {
    pub config: &'a Config,
    /// The device's arithmetic (safe to build once the slot count is checked).
    pub geometry: &'a Geometry,
    /// The region every host write goes to (`ftl.placement`).
    pub host_region: usize,
    /// The regions GC moves data from and to (`ftl.migration`), if it moves any.
    pub migration: Option<(usize, usize)>,
}

impl Device<'_> {
    /// Resolve the regions `config`'s placement and migration name.
    pub fn new<'a>(config: &'a Config, geometry: &'a Geometry) -> Result<Device<'a>, Error> {
        let names = config.geometry.region_names();
        Ok(Device {
            config,
            geometry,
            host_region: config.ftl.placement.region(&names)?,
            migration: config.ftl.migration.regions(&names)?,
        })
    }

    pub fn region_name(&self, region: usize) -> &str {
        &self.geometry.regions[region].name
    }

    /// Mapping units an uncompressed page holds.
    pub fn units_per_page(&self) -> u32 {
        self.geometry.units_per_page
    }

    pub fn unit_bytes(&self) -> u64 {
        self.geometry.unit_bytes as u64
    }

    pub fn page_bytes(&self) -> u64 {
        self.geometry.page_bytes as u64
    }
}

/// A policy's needs of the device and of the other policies.
pub(super) trait Needs {
    /// Ok if the policy can act in `device`; else an error naming its key and why not.
    fn needs(&self, device: &Device) -> Result<(), Error>;
}

impl Config {
    /// Every policy and section with needs, in the order their refusals are reported.
    pub(super) fn with_needs(&self) -> [&dyn Needs; 12] {
        let f = &self.ftl;
        [
            &f.read_policy,
            &f.reduction,
            &f.split,
            &f.partial_program,
            &f.migration,
            &f.level1_gc,
            &f.host_streams,
            &f.allocation,
            &f.gc_victim,
            &f.mapping_cache,
            &self.scheduler,
            &self.data_cache,
        ]
    }
}
