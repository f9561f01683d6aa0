//! The checks that relate two or more sections: the mapping unit against the page, the timing
//! of the cell modes blocks use, the write buffer, the mapping table's reach, then every
//! policy's needs (`needs.rs`), the capacity GC and the host leave each region, and replay
//! against the write path and the host's queue depth. They run after every section has passed
//! its own checks.

use super::given::Given;
use super::needs::Device;
use super::{Config, PlacementConfig, ReplayMode, WriteAck};
use crate::error::Error;
use crate::flash::{Geometry, Medium, Region};

impl Config {
    pub(super) fn validate_cross_section(&self, given: &Given) -> Result<(), Error> {
        let units_per_page = self.validate_mapping_unit()?;
        for mode in self.geometry.cell_modes_in_use() {
            self.timing.validate_mode(mode)?;
        }
        self.validate_slots(units_per_page)?;
        self.validate_pcm()?;
        // Only now is the device's arithmetic (u32) safe to do.
        let geo = Geometry::new(self);
        let device = Device::new(self, &geo)?;
        for policy in self.with_needs() {
            policy.needs(&device)?;
        }
        // (After the policies' needs: the buffer must outgrow their open pages, the split
        // buffer's among them, once each is known to fit the device.)
        self.validate_write_buffer(units_per_page)?;
        self.validate_capacity(&device, given)?;
        self.validate_closed_loop(geo.slots_per_page)?;
        self.content
            .validate(Some(self.ftl.mapping_unit_kib as u64 * 1024))
    }

    /// The write buffer holds a page, and a timeout has a partly filled page to program.
    fn validate_write_buffer(&self, units_per_page: u32) -> Result<(), Error> {
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
        // programs them as they came, `sim/host_streams.rs`.)
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

    /// Every pool keeps enough spare blocks for GC to make progress, and the host's data fits in
    /// the region it settles in, less what GC keeps free. Each limit is made by several keys:
    /// it is blamed on the one the user gave (`given`), and names the others.
    fn validate_capacity(&self, d: &Device, given: &Given) -> Result<(), Error> {
        let f = &self.ftl;
        let geo = d.geometry;
        let (threshold, reserved) = (f.gc_threshold, f.gc_reserved_blocks);
        let blocks_key = |i: usize| match self.geometry.regions.is_empty() {
            true => "geometry.blocks_per_plane".to_string(),
            false => format!("geometry.regions[{i}].blocks_per_plane"),
        };
        // (PCM is never cleaned: it keeps no block free.)
        let flash = geo.regions.iter().filter(|r| r.medium != Medium::Pcm);
        for (i, r) in flash.enumerate() {
            let needed = f.kept_free_blocks(r.blocks_per_plane);
            if r.blocks_per_plane <= needed {
                let streams = match f.host_streams.max_open() {
                    0 => String::new(),
                    n => format!(
                        "; and a block open for each of the {n} host streams kept apart, \
                         ftl.host_streams.max_open"
                    ),
                };
                let why = format!(
                    "region `{}` has {} blocks per plane, not more than the {needed} GC keeps \
                     free or open (it starts under {} free blocks, ftl.gc_threshold = \
                     {threshold}; holds ftl.gc_reserved_blocks = {reserved} back from host \
                     writes; and has a host and a GC block open{streams}), so none is left for \
                     data",
                    r.name,
                    r.blocks_per_plane,
                    f.gc_threshold_blocks(r.blocks_per_plane)
                );
                let mut others = vec![
                    ("ftl.gc_reserved_blocks".into(), why.clone()),
                    (blocks_key(i), why.clone()),
                ];
                if f.host_streams.max_open() > 0 {
                    others.push(("ftl.host_streams.max_open".into(), why.clone()));
                }
                return Err(given.blame(("ftl.gc_threshold".into(), why), others));
            }
        }
        let blocks = self.geometry.blocks_per_plane;
        let spare = f.overprovisioning_ratio * blocks as f64;
        let needed = f.kept_free_blocks(geo.regions[0].blocks_per_plane);
        if spare < needed as f64 {
            let op = f.overprovisioning_ratio;
            let mut others =
                format!("ftl.gc_threshold = {threshold}, ftl.gc_reserved_blocks = {reserved}");
            if f.host_streams.max_open() > 0 {
                others += &format!(
                    ", a block open for each of the ftl.host_streams.max_open = {} streams",
                    f.host_streams.max_open()
                );
            }
            let op_why = format!(
                "{op} leaves {spare:.1} spare blocks per plane; the over-provisioning cannot \
                 hold the data while GC keeps {needed} blocks free or open ({others}; raise it \
                 to at least {:.3})",
                needed as f64 / blocks as f64
            );
            let excess = format!(
                "makes GC keep {needed} blocks per plane free or open, more than the {spare:.1} \
                 spare blocks the over-provisioning leaves (ftl.overprovisioning_ratio = {op})"
            );
            // The largest threshold the spare blocks allow, if the reserved blocks leave any.
            let room = spare.floor() as i64 - reserved as i64 - 2;
            let lower = match room > reserved as i64 {
                true => format!("lower it to at most {:.3}", room as f64 / blocks as f64),
                false => "no threshold fits while so many blocks are reserved".to_string(),
            };
            let threshold_why =
                format!("{threshold} {excess}, with ftl.gc_reserved_blocks = {reserved}: {lower}");
            let reserved_why =
                format!("{reserved} {excess}, with ftl.gc_threshold = {threshold}: lower it");
            return Err(given.blame(
                ("ftl.overprovisioning_ratio".into(), op_why),
                vec![
                    ("ftl.gc_threshold".into(), threshold_why),
                    ("ftl.gc_reserved_blocks".into(), reserved_why),
                ],
            ));
        }
        if f.logical_units(geo.physical_units()) == 0 {
            return Err(Error::config(
                "ftl.overprovisioning_ratio",
                "leaves no logical capacity",
            ));
        }
        // (With the mapping table on flash, its translation pages are data too.)
        let logical = f.mapped_units(geo.physical_units(), geo.unit_bytes) as u64;
        // GC moves data out of a migration's source region for good: it settles in the
        // destination (a source whose GC must send its data to a destination full of valid data
        // could free nothing). The region host writes go to keeps GC's threshold free for them;
        // a destination takes only GC's copies, which need the reserved and open blocks alone.
        let logical = match &self.ftl.placement {
            PlacementConfig::Oblivious { run_units, flash } => {
                match self.validate_oblivious(d, logical, *run_units, flash.is_some())? {
                    // The flash's share settles as its own placement and migration say.
                    Some(flash_units) => flash_units,
                    None => return Ok(()),
                }
            }
            _ => logical,
        };
        let (settles, moved_from, kept) = match d.migration {
            Some((from, to)) if from == d.host_region => (to, Some(from), reserved + 2),
            _ => {
                let blocks = geo.regions[d.host_region].blocks_per_plane;
                (d.host_region, None, f.kept_free_blocks(blocks))
            }
        };
        let r = &geo.regions[settles];
        let (room, gc_slack) = data_room(geo, r, kept);
        if logical + gc_slack > room {
            let via = match moved_from {
                Some(from) => format!(
                    " (GC moves the data of `{}` there for good, ftl.migration)",
                    geo.regions[from].name
                ),
                None => " (host writes go there, ftl.placement)".to_string(),
            };
            let why = format!(
                "the logical capacity ({logical} units) does not fit in region `{}`, where the \
                 data settles{via}: it holds {room} units besides the blocks GC keeps free, of \
                 which GC needs {gc_slack} invalid to gain a page from some victim in each plane; \
                 raise the over-provisioning (ftl.overprovisioning_ratio), give the region more blocks \
                 ({}), or let the data settle in a larger region",
                r.name,
                blocks_key(settles)
            );
            let mut others = vec![];
            if moved_from.is_some() {
                others.push(("ftl.migration.to_region".to_string(), why.clone()));
            }
            if d.host_region != 0 {
                others.push(("ftl.placement.region".to_string(), why.clone()));
            }
            others.push((blocks_key(settles), why.clone()));
            return Err(given.blame(("ftl.overprovisioning_ratio".into(), why), others));
        }
        Ok(())
    }

    /// Oblivious placement spreads the data over every region in proportion to its capacity:
    /// each must hold its share (and the most the address hashing may give it beyond: 2 + ln N
    /// runs of N, the three-distance bound's order, measured at most 0.42 ln N), less the
    /// blocks its GC keeps free; there must be runs enough for the shares to hold; and no
    /// migration moves data out of the region placement chose for it. With a placement of its
    /// own for the flash (`flash`), the flash regions share one part of the addresses: PCM's
    /// share is checked here, and the units of the flash's (with the hashing's spread) are
    /// returned, to settle as that placement and the migration say.
    fn validate_oblivious(
        &self,
        d: &Device,
        logical: u64,
        run_units: Option<u32>,
        flash_placed: bool,
    ) -> Result<Option<u64>, Error> {
        let geo = d.geometry;
        let f = &self.ftl;
        if d.migration.is_some() && !flash_placed {
            return Err(Error::config(
                "ftl.migration.policy",
                "oblivious placement spreads data over every region by capacity, and a \
                 migration would move one region's share into another for good, which it does \
                 not leave room for: use `none` with `oblivious`, or give the flash a placement \
                 of its own to migrate from (ftl.placement.flash)",
            ));
        }
        if let Some((_, to)) = d.migration.filter(|_| flash_placed) {
            if geo.regions[to].medium == crate::flash::Medium::Pcm {
                return Err(Error::config(
                    "ftl.migration.to_region",
                    "PCM takes the share of the addresses that falls to it (oblivious placement) \
                     and the read-hot data level-1 GC moves there; a migration of the flash's \
                     data into it for good would take the room its own addresses need: migrate \
                     within the flash",
                ));
            }
        }
        let run = run_units.unwrap_or(geo.max_pages_per_block * geo.units_per_page) as u64;
        let runs = logical.div_ceil(run);
        let regions = geo.regions.len() as u64;
        if runs < 64 * regions {
            return Err(Error::config(
                "ftl.placement.run_units",
                format!(
                    "{run} units a run leave the logical capacity ({logical} units) {runs} runs, \
                     fewer than 64 per region: the regions would not get their shares of the \
                     data; use runs of at most {} units",
                    (logical / (64 * regions)).max(1)
                ),
            ));
        }
        let slack = (2.0 + (runs as f64).ln()) * run as f64;
        let pcm_share: f64 = (0..geo.regions.len())
            .filter(|&i| geo.regions[i].medium == crate::flash::Medium::Pcm)
            .map(|i| geo.capacity_share(i))
            .sum();
        for (i, r) in geo.regions.iter().enumerate() {
            if flash_placed && r.medium != crate::flash::Medium::Pcm {
                continue;
            }
            let kept = match r.medium {
                crate::flash::Medium::Pcm => 0,
                crate::flash::Medium::Flash(_) => f.kept_free_blocks(r.blocks_per_plane),
            };
            let (room, gc_slack) = data_room(geo, r, kept);
            let share = (logical as f64 * geo.capacity_share(i) + slack).ceil() as u64;
            if share + gc_slack > room {
                return Err(Error::config(
                    "ftl.overprovisioning_ratio",
                    format!(
                        "with oblivious placement region `{}` takes up to {share} units (its \
                         share of the logical capacity, {logical} units, and the address \
                         hashing's spread), more than the {room} it holds besides the blocks \
                         its GC keeps free, less the {gc_slack} invalid ones its GC needs to \
                         gain a page: raise the over-provisioning or give the region more blocks",
                        r.name
                    ),
                ));
            }
        }
        Ok(flash_placed.then(|| (logical as f64 * (1.0 - pcm_share) + slack).ceil() as u64))
    }

    /// Closed-loop replay against the write path and the host's queue depth (`slots_per_page`:
    /// pages of one slot are never left partly filled).
    fn validate_closed_loop(&self, slots_per_page: u32) -> Result<(), Error> {
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

/// What region `r` holds besides the `kept` blocks per plane its GC keeps free or open, in
/// mapping units, and how many of them GC needs invalid: [`plane_data_room`] over its planes.
fn data_room(geo: &Geometry, r: &Region, kept: u32) -> (u64, u64) {
    let planes = r.dies.planes() as u64;
    let (room, gc_slack) = plane_data_room(geo.units_per_page, r, kept);
    (room * planes, gc_slack * planes)
}

/// What a plane of region `r` holds besides the `kept` blocks its GC keeps free or open, in
/// mapping units of `units_per_page` to a page, and how many of them GC needs invalid. GC gains
/// a page from a victim only if a page's worth of its units is invalid: it copies the rest into
/// whole pages (a job's last one padded). Unless the plane's blocks hold more invalid units than
/// one short of a page each, every victim may be copied whole and GC clean for ever without
/// freeing a page. PCM is rewritten in place and never cleaned: it needs none.
pub(crate) fn plane_data_room(units_per_page: u32, r: &Region, kept: u32) -> (u64, u64) {
    let data_blocks = r.blocks_per_plane.saturating_sub(kept) as u64;
    let room = data_blocks * r.pages_per_block as u64 * units_per_page as u64;
    let gc_slack = match r.medium {
        Medium::Pcm => 0,
        Medium::Flash(_) => data_blocks * (units_per_page as u64 - 1) + 1,
    };
    (room, gc_slack)
}
