//! The checks that relate two or more sections and need no device: before the device's
//! arithmetic is safe, the mapping unit against the page, the timing of the cell modes blocks
//! use, the mapping table's reach and PCM's (`pcm.rs`); after every policy's needs, the write
//! buffer, and replay against the write path and the host's queue depth. They rely on every
//! section's own checks; `device/validate.rs` runs them in this order, with the checks that need
//! the device's geometry (the policies' needs, the capacity of each region) between.

use super::{Config, PlacementConfig, ReplayMode, WriteAck};
use crate::error::Error;

impl Config {
    /// The relations the device's arithmetic (u32) relies on, checked before it is built.
    /// Returns the units an uncompressed page holds.
    pub(super) fn validate_before_device(&self) -> Result<u32, Error> {
        let units_per_page = self.validate_mapping_unit()?;
        for mode in self.geometry.cell_modes_in_use() {
            self.timing.validate_mode(mode)?;
        }
        self.validate_slots(units_per_page)?;
        self.validate_pcm()?;
        Ok(units_per_page)
    }

    /// The write buffer holds a page, and a timeout has a partly filled page to program (after
    /// the policies' needs: the buffer must outgrow their open pages, the split buffer's among
    /// them, once each is known to fit the device).
    pub(crate) fn validate_write_buffer(&self, units_per_page: u32) -> Result<(), Error> {
        let f = &self.ftl;
        if f.write_buffer_units < units_per_page {
            return Err(Error::config(
                "ftl.write_buffer_units",
                format!(
                    "must hold at least one page ({units_per_page} units), got {}",
                    f.write_buffer_units
                ),
            ));
        }
        // Without a timeout a page is programmed only once full. Each write stream has an open
        // page per lane (compression: one of compressed units, one of units that failed to
        // compress, and the split FTL's buffer of `width` rows); a buffer that can fill with
        // every open page one unit short of full seals none, and every write waits for ever.
        let compressed_page = f.max_units_per_page.max(units_per_page);
        // A split buffer is sealed once every row is full, and its units go first fit into rows
        // of whole partial units: all rows but the last full and the last one unit short.
        let split_short = match (f.split.width(), f.reduction.partial_unit_bytes()) {
            (Some(width), Some(partial)) => {
                width * (self.geometry.page_bytes() / partial) as u32 - 1
            }
            _ => 0,
        };
        let lanes_short = match f.reduction.codec().is_some() {
            true => compressed_page - 1 + units_per_page - 1 + split_short,
            false => units_per_page - 1,
        };
        // (Oblivious placement writes a stream into every region, or into PCM and where its
        // placement of the flash's share sends it.)
        let streams = match &f.placement {
            PlacementConfig::Oblivious { flash: None, .. } => {
                self.geometry.region_names().len() as u32
            }
            PlacementConfig::Oblivious { flash: Some(_), .. } => {
                f.placement.write_streams() + self.geometry.pcm.is_some() as u32
            }
            _ => f.placement.write_streams(),
        };
        // (A mapping table on flash writes its translation pages, stored as written, in a
        // stream of their own.)
        let translation_short = match f.mapping_cache.is_all() {
            true => 0,
            false => units_per_page - 1,
        };
        let streams = streams + u32::from(translation_short > 0);
        let needed =
            (streams - u32::from(translation_short > 0)) * lanes_short + translation_short + 1;
        if f.write_buffer_timeout_ns == 0 && f.write_buffer_units < needed {
            return Err(Error::config(
                "ftl.write_buffer_units",
                format!(
                    "holds {} units, but with no ftl.write_buffer_timeout_ns it must hold one \
                     more than its {streams} write stream(s)' open pages can take while none is \
                     full ({needed}: pages of {units_per_page} units{}), or every page can wait \
                     part full for ever; raise it or set ftl.write_buffer_timeout_ns",
                    f.write_buffer_units,
                    match (f.reduction.codec().is_some(), split_short) {
                        (true, 0) => format!(", and of {compressed_page} compressed units"),
                        (true, _) => format!(
                            ", of {compressed_page} compressed units, and a split buffer short \
                             of full with {split_short}"
                        ),
                        (false, _) => String::new(),
                    }
                ),
            ));
        }
        // (Pages laid out along wordlines wait for their turn whatever they hold: the timeout
        // programs them as they came, `sim/technique/host_streams.rs`.)
        if f.write_buffer_timeout_ns > 0
            && units_per_page.max(f.max_units_per_page) == 1
            && !f.host_streams.reorders()
        {
            return Err(Error::config(
                "ftl.write_buffer_timeout_ns",
                "programs a partly filled page, or one held for its turn in the wordline order, \
                 but a page holds one mapping unit and no page is held (ftl.host_streams): every \
                 unit fills its page at once, so none ever waits; leave it 0",
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
        if f.max_units_per_page > units_per_page && f.reduction.codec().is_none() {
            return Err(Error::config(
                "ftl.max_units_per_page",
                format!(
                    "{} units stored as written would take {} KiB of a {} KiB page, which \
                     holds {units_per_page} of {} KiB: more slots than that store more than the \
                     flash holds; give 0 (automatic) or {units_per_page}, or compress units \
                     (ftl.reduction.policy = \"compress\")",
                    f.max_units_per_page,
                    f.max_units_per_page * f.mapping_unit_kib,
                    g.page_size_kib,
                    f.mapping_unit_kib
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
        // Every plane numbers its flash blocks, then PCM's (a PCM plane's flash block ids and
        // a flash plane's PCM ids name nothing: `flash/geometry.rs`).
        let blocks_per_plane = g.blocks_per_plane as u64 + g.pcm_blocks_per_plane();
        let slots = [
            g.flash_planes().checked_add(g.pcm_planes()),
            Some(blocks_per_plane),
            Some(g.pages_per_block as u64),
        ]
        .iter()
        .try_fold(slots_per_page, |acc, x| acc.checked_mul((*x)?));
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

    /// Closed-loop replay against the write path and the host's queue depth (`slots_per_page`:
    /// pages of one slot are never left partly filled).
    pub(crate) fn validate_closed_loop(&self, slots_per_page: u32) -> Result<(), Error> {
        let h = &self.host;
        // (A flow is closed-loop by its own mode, the host's, or a generator's closed arrivals.)
        let closed_loop = h.mode == ReplayMode::Closed
            || (self.flows.iter()).any(|fl| fl.replay(h).0 == ReplayMode::Closed);
        // A page waits for later writes when it may be left partly filled, and, with pages laid
        // out along wordlines, when it is held for its turn in the wordline order (the
        // option-space harness, seed 66174: pages of one slot).
        let pages_wait = slots_per_page > 1 || self.ftl.host_streams.reorders();
        if self.ftl.write_ack == WriteAck::Program
            && self.ftl.write_buffer_timeout_ns == 0
            && pages_wait
            && closed_loop
        {
            return Err(Error::config(
                "ftl.write_buffer_timeout_ns",
                "must be set (> 0) when writes are acknowledged on program in closed-loop replay: \
                 otherwise a page partly filled, or held for its turn in the wordline order \
                 (ftl.host_streams), waits for writes that its own unacknowledged writes hold \
                 back",
            ));
        }
        // A flow's own depth acts in closed-loop replay, its own time scale in open replay (a
        // closed generator brings its depth, and no time stamps).
        for (i, fl) in self.flows.iter().enumerate() {
            let (mode, depth) = fl.replay(h);
            match mode {
                ReplayMode::Open if fl.queue_depth.is_some() => {
                    return Err(Error::config(
                        &format!("flows[{i}].queue_depth"),
                        "is the requests kept outstanding in closed-loop replay, and the flow \
                         replays open, at its time stamps: set its mode closed, or leave it out",
                    ))
                }
                ReplayMode::Closed if fl.queue_depth.is_some_and(|d| d != depth) => {
                    return Err(Error::config(
                        &format!("flows[{i}].queue_depth"),
                        format!(
                            "the flow's generator keeps its own {depth} requests outstanding \
                             (generator.arrival.queue_depth): leave it out"
                        ),
                    ))
                }
                ReplayMode::Closed if fl.time_scale.is_some() => {
                    return Err(Error::config(
                        &format!("flows[{i}].time_scale"),
                        "scales the time stamps of open replay, and the flow replays closed-loop, \
                         which ignores them: leave it out",
                    ))
                }
                _ => {}
            }
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
