//! The checks that relate two or more sections: the mapping unit and the read policy against
//! the page, the timing of the cell modes blocks use, the mapping table's reach, the capacity
//! GC and the host leave each region, and closed-loop replay against the write path and the
//! host's queue depth. They run after every section has passed its own checks.

use super::{Config, ReplayMode, WriteAck};
use crate::error::Error;
use crate::flash::Geometry;

impl Config {
    pub(super) fn validate_cross_section(&self) -> Result<(), Error> {
        let units_per_page = self.validate_mapping_unit()?;
        let g = &self.geometry;
        self.ftl
            .read_policy
            .validate(g.page_bytes(), g.codeword_size_bytes as u64)?;
        self.ftl
            .reduction
            .validate(self.ftl.mapping_unit_kib as u64 * 1024, g.page_bytes())?;
        if self.ftl.reduction.codec().is_some() && self.ftl.max_units_per_page == 0 {
            return Err(Error::config(
                "ftl.max_units_per_page",
                "compression merges units into pages: give the merge limit, 1 to 64 (PR-SSD \
                 §4.4.1: 12)",
            ));
        }
        self.ftl.split.validate(
            g.channels,
            g.page_bytes(),
            self.ftl.mapping_unit_kib as u64 * 1024,
            self.ftl.reduction.partial_unit_bytes(),
            (self.ftl.max_units_per_page as u64).max(units_per_page as u64),
        )?;
        self.validate_partial_program()?;
        for mode in g.cell_modes_in_use() {
            self.timing.validate_mode(mode)?;
        }
        if self.ftl.write_buffer_units < units_per_page {
            return Err(Error::config(
                "ftl.write_buffer_units",
                format!(
                    "must hold at least one page ({units_per_page} units), got {}",
                    self.ftl.write_buffer_units
                ),
            ));
        }
        self.validate_slots(units_per_page)?;
        // Only now is the device's arithmetic (u32) safe to do.
        let geo = Geometry::new(self);
        self.ftl.allocation.validate(&geo)?;
        self.validate_capacity(&geo)?;
        self.validate_closed_loop()?;
        self.content
            .validate(Some(self.ftl.mapping_unit_kib as u64 * 1024))
    }

    /// Partial programs need a region whose pages take them, and units stored as written (a
    /// page's slots are then its subpages).
    fn validate_partial_program(&self) -> Result<(), Error> {
        if self.ftl.partial_program.is_none() {
            return Ok(());
        }
        if !self.geometry.regions.iter().any(|r| r.nop > 1) {
            return Err(Error::config(
                "ftl.partial_program.policy",
                "no region's pages take partial programs: give one a `nop` above 1 \
                 (geometry.regions[].nop)",
            ));
        }
        if self.ftl.reduction.codec().is_some() || self.ftl.max_units_per_page != 0 {
            return Err(Error::config(
                "ftl.partial_program.policy",
                "partial programs fill a page's slots as subpages: use units stored as written \
                 (ftl.reduction.policy = \"identity\", ftl.max_units_per_page = 0)",
            ));
        }
        Ok(())
    }

    /// The mapping unit against the page: whole units per page, whole codewords per unit, and
    /// slots for at least an uncompressed page. Returns the units an uncompressed page holds.
    fn validate_mapping_unit(&self) -> Result<u32, Error> {
        let g = &self.geometry;
        let f = &self.ftl;
        let page = g.page_bytes();
        let unit = f.mapping_unit_kib as u64 * 1024;
        if !page.is_multiple_of(unit) {
            return Err(Error::config(
                "ftl.mapping_unit_kib",
                format!(
                    "{} KiB does not divide the {} KiB page",
                    f.mapping_unit_kib, g.page_size_kib
                ),
            ));
        }
        if !unit.is_multiple_of(g.codeword_size_bytes as u64) {
            return Err(Error::config(
                "ftl.mapping_unit_kib",
                format!(
                    "{unit} bytes is not a whole number of {}-byte codewords",
                    g.codeword_size_bytes
                ),
            ));
        }
        let units_per_page = (page / unit) as u32;
        if f.max_units_per_page != 0 && f.max_units_per_page < units_per_page {
            return Err(Error::config(
                "ftl.max_units_per_page",
                format!(
                    "must be 0 (automatic) or at least {units_per_page}, the units an \
                     uncompressed page holds"
                ),
            ));
        }
        Ok(units_per_page)
    }

    /// Slot ids are u32 with a flag bit: the whole device must stay under 2^31 slots. Checked
    /// in u64 before any geometry arithmetic (which is u32) can overflow.
    fn validate_slots(&self, units_per_page: u32) -> Result<(), Error> {
        let g = &self.geometry;
        let slots_per_page = (self.ftl.max_units_per_page as u64).max(units_per_page as u64);
        let slots = [
            g.channels,
            g.ways_per_channel,
            g.dies_per_way,
            g.planes_per_die,
            g.blocks_per_plane,
            g.pages_per_block,
        ]
        .iter()
        .try_fold(slots_per_page, |acc, &x| acc.checked_mul(x as u64));
        if slots.is_none_or(|n| n >= (1u64 << 31) - 1) {
            return Err(Error::config(
                "geometry",
                format!(
                    "{} mapping slots exceed the 2^31 the mapping table addresses; use a larger \
                     mapping unit or a smaller device",
                    slots.map_or("more than 2^64".to_string(), |n| n.to_string())
                ),
            ));
        }
        Ok(())
    }

    /// Every pool keeps enough spare blocks for GC to make progress, and the host's data fits
    /// in the regions host writes go to, less what GC keeps free.
    fn validate_capacity(&self, geo: &Geometry) -> Result<(), Error> {
        let f = &self.ftl;
        let kept_free =
            |blocks: u32| crate::ftl::gc_threshold_blocks(self, blocks) + f.gc_reserved_blocks + 2;
        for r in &geo.regions {
            let needed = kept_free(r.blocks_per_plane);
            if r.blocks_per_plane <= needed {
                return Err(Error::config(
                    "ftl.gc_threshold",
                    format!(
                        "region `{}` has {} blocks per plane, not more than the {needed} GC \
                         keeps free or open",
                        r.name, r.blocks_per_plane
                    ),
                ));
            }
        }
        let blocks_per_plane = self.geometry.blocks_per_plane;
        let spare_blocks = f.overprovisioning_ratio * blocks_per_plane as f64;
        let needed = kept_free(geo.regions[0].blocks_per_plane);
        if spare_blocks < needed as f64 {
            return Err(Error::config(
                "ftl.overprovisioning_ratio",
                format!(
                    "{} leaves {spare_blocks:.1} spare blocks per plane; the over-provisioning \
                     cannot hold the data while GC keeps {needed} blocks free or open (raise it \
                     to at least {:.3})",
                    f.overprovisioning_ratio,
                    needed as f64 / blocks_per_plane as f64
                ),
            ));
        }
        let logical = crate::ftl::logical_units(self, geo) as u64;
        if logical == 0 {
            return Err(Error::config(
                "ftl.overprovisioning_ratio",
                "leaves no logical capacity",
            ));
        }
        // Regions host data may live in: where it is written, and where GC may move it.
        let mut host_regions = crate::ftl::placement::build(&f.placement, geo)?.host_regions();
        let migration = crate::ftl::migration::build(&f.migration, geo)?;
        let mut i = 0;
        while i < host_regions.len() {
            if let Some(r) = migration.target(host_regions[i]) {
                if !host_regions.contains(&r) {
                    host_regions.push(r);
                }
            }
            i += 1;
        }
        let room: u64 = host_regions
            .iter()
            .map(|&ri| {
                let r = &geo.regions[ri];
                r.blocks_per_plane
                    .saturating_sub(kept_free(r.blocks_per_plane)) as u64
                    * r.pages_per_block as u64
                    * geo.units_per_page as u64
                    * geo.planes() as u64
            })
            .sum();
        if logical > room {
            let names: Vec<&str> = host_regions
                .iter()
                .map(|&r| geo.regions[r].name.as_str())
                .collect();
            return Err(Error::config(
                "ftl.overprovisioning_ratio",
                format!(
                    "the logical capacity ({logical} units) does not fit in the region(s) host \
                     writes go to ({}: {room} units once GC keeps its blocks free); raise the \
                     over-provisioning or give those regions more blocks",
                    names.join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// Closed-loop replay against the write path and the host's queue depth.
    fn validate_closed_loop(&self) -> Result<(), Error> {
        let h = &self.host;
        let closed_loop = h.mode == ReplayMode::Closed
            || self
                .flows
                .iter()
                .any(|fl| fl.mode == Some(ReplayMode::Closed));
        if self.ftl.write_ack == WriteAck::Program
            && self.ftl.write_buffer_timeout_ns == 0
            && closed_loop
        {
            return Err(Error::config(
                "ftl.write_buffer_timeout_ns",
                "must be set (> 0) when writes are acknowledged on program in closed-loop replay: \
                 otherwise a partly filled page waits for writes that its own unacknowledged \
                 writes hold back",
            ));
        }
        // A flow set to closed mode without a depth of its own (`--mode closed`) keeps the
        // host's depth outstanding: with 0 it would replay nothing. (A flow's own depth and a
        // generator's are checked with the flow.)
        match self
            .flows
            .iter()
            .position(|fl| fl.replay(h) == (ReplayMode::Closed, 0))
        {
            Some(i) => Err(Error::config(
                "host.queue_depth",
                format!(
                    "must be at least 1 (got 0): flows[{i}] replays closed-loop at the host's \
                     queue depth"
                ),
            )),
            None => Ok(()),
        }
    }
}
