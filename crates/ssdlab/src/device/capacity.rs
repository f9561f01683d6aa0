//! The capacity GC and the host leave each region: every pool keeps blocks enough free for GC to
//! make progress, and the host's data fits where it settles. Checked against the built geometry
//! (each region's blocks, pages and planes), after every policy's needs.

use super::needs::{kept_free_blocks, open_blocks, Device};
use crate::config::{Config, Given, PlacementConfig};
use crate::error::Error;
use crate::flash::{Geometry, Region};

/// Every pool keeps enough spare blocks for GC to make progress, and the host's data fits in
/// the region it settles in, less what GC keeps free. Each limit is made by several keys:
/// it is blamed on the one the user gave (`given`), and names the others.
pub(super) fn validate(config: &Config, d: &Device, given: &Given) -> Result<(), Error> {
    regions_keep_free(config, d, given)?;
    spare_keeps_free(config, d, given)?;
    data_settles(config, d, given)
}

/// The key of region `i`'s blocks per plane.
fn blocks_key(config: &Config, i: usize) -> String {
    match config.geometry.regions.is_empty() {
        true => "geometry.blocks_per_plane".to_string(),
        false => format!("geometry.regions[{i}].blocks_per_plane"),
    }
}

/// Every region GC cleans has blocks beyond those it keeps free or open.
fn regions_keep_free(config: &Config, d: &Device, given: &Given) -> Result<(), Error> {
    let f = &config.ftl;
    let geo = d.geometry;
    let (threshold, reserved) = (f.gc_threshold, f.gc_reserved_blocks);
    // The blocks the policies hold open, said by whose they are.
    let held = open_blocks(config);
    // (A medium never erased, PCM, is never cleaned: it keeps no block free.)
    let flash = geo.regions.iter().filter(|r| r.medium.erases());
    for (i, r) in flash.enumerate() {
        let needed = kept_free_blocks(config, r.blocks_per_plane);
        if r.blocks_per_plane <= needed {
            let streams: String = (held.iter())
                .map(|o| format!("; and {}, {}", o.what, o.key))
                .collect();
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
                (blocks_key(config, i), why.clone()),
            ];
            others.extend(held.iter().map(|o| (o.key.to_string(), why.clone())));
            return Err(given.blame(("ftl.gc_threshold".into(), why), others));
        }
    }
    Ok(())
}

/// The over-provisioning leaves at least the blocks GC keeps free or open.
fn spare_keeps_free(config: &Config, d: &Device, given: &Given) -> Result<(), Error> {
    let f = &config.ftl;
    let geo = d.geometry;
    let (threshold, reserved) = (f.gc_threshold, f.gc_reserved_blocks);
    let held = open_blocks(config);
    let blocks = config.geometry.blocks_per_plane;
    let spare = f.overprovisioning_ratio * blocks as f64;
    let needed = kept_free_blocks(config, geo.regions[0].blocks_per_plane);
    if spare < needed as f64 {
        let op = f.overprovisioning_ratio;
        let mut others =
            format!("ftl.gc_threshold = {threshold}, ftl.gc_reserved_blocks = {reserved}");
        for o in &held {
            others += &format!(", {} ({})", o.what, o.key);
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
    Ok(())
}

/// The logical capacity fits where the data settles, less what GC keeps free.
fn data_settles(config: &Config, d: &Device, given: &Given) -> Result<(), Error> {
    let f = &config.ftl;
    let geo = d.geometry;
    let reserved = f.gc_reserved_blocks;
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
    let logical = match &config.ftl.placement {
        PlacementConfig::Oblivious { run_units, flash } => {
            match oblivious(config, d, logical, *run_units, flash.is_some())? {
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
            (d.host_region, None, kept_free_blocks(config, blocks))
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
            blocks_key(config, settles)
        );
        let mut others = vec![];
        if moved_from.is_some() {
            others.push(("ftl.migration.to_region".to_string(), why.clone()));
        }
        if d.host_region != 0 {
            others.push(("ftl.placement.region".to_string(), why.clone()));
        }
        others.push((blocks_key(config, settles), why.clone()));
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
fn oblivious(
    config: &Config,
    d: &Device,
    logical: u64,
    run_units: Option<u32>,
    flash_placed: bool,
) -> Result<Option<u64>, Error> {
    let geo = d.geometry;
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
        if geo.regions[to].medium.rewrites_in_place() {
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
        .filter(|&i| geo.regions[i].medium.rewrites_in_place())
        .map(|i| geo.capacity_share(i))
        .sum();
    for (i, r) in geo.regions.iter().enumerate() {
        if flash_placed && !r.medium.rewrites_in_place() {
            continue;
        }
        let kept = match r.medium.erases() {
            true => kept_free_blocks(config, r.blocks_per_plane),
            false => 0,
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
    let gc_slack = match r.medium.erases() {
        true => data_blocks * (units_per_page as u64 - 1) + 1,
        false => 0,
    };
    (room, gc_slack)
}
