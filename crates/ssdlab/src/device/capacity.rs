//! The capacity GC and the host leave each region: every pool keeps blocks enough free for GC to
//! make progress, and the host's data fits where it settles. Checked against the built geometry
//! (each region's blocks, pages and planes), after every policy's needs, against what the
//! policies declare: the blocks they hold open (`Needs::open_blocks`) and where the data settles
//! (`settles.rs`).

use super::needs::{kept_free_blocks, open_blocks, Device};
use super::settles::{settling, Claim, Kept, Share};
use crate::config::{Config, Given};
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

/// The logical capacity fits where the data settles, less what GC keeps free: each share the
/// placement and the migration declare ([`settling`]) in its region's room.
fn data_settles(config: &Config, d: &Device, given: &Given) -> Result<(), Error> {
    let f = &config.ftl;
    let geo = d.geometry;
    if f.logical_units(geo.physical_units()) == 0 {
        return Err(Error::config(
            "ftl.overprovisioning_ratio",
            "leaves no logical capacity",
        ));
    }
    // (With the mapping table on flash, its translation pages are data too.)
    let logical = f.mapped_units(geo.physical_units(), geo.unit_bytes) as u64;
    for share in settling(d, logical)?.shares {
        share_fits(config, d, given, &share)?;
    }
    Ok(())
}

/// `share` fits in its region besides the blocks GC keeps free there, with room for the invalid
/// units GC needs to gain a page.
fn share_fits(config: &Config, d: &Device, given: &Given, share: &Share) -> Result<(), Error> {
    let geo = d.geometry;
    let (i, units) = (share.region, share.units);
    let r = &geo.regions[i];
    let kept = match share.kept {
        Kept::ForHostWrites => kept_free_blocks(config, r.blocks_per_plane),
        Kept::ForGcCopies => config.ftl.gc_reserved_blocks + 2,
        Kept::Nothing => 0,
    };
    let (room, gc_slack) = data_room(geo, r, kept);
    if units + gc_slack <= room {
        return Ok(());
    }
    match &share.claim {
        Claim::Addresses { what } => Err(Error::config(
            "ftl.overprovisioning_ratio",
            format!(
                "{what}, more than the {room} it holds besides the blocks its GC keeps free, \
                 less the {gc_slack} invalid ones its GC needs to gain a page: raise the \
                 over-provisioning or give the region more blocks"
            ),
        )),
        Claim::Settles { via, keys } => {
            let why = format!(
                "the logical capacity ({units} units) does not fit in region `{}`, where the \
                 data settles{via}: it holds {room} units besides the blocks GC keeps free, of \
                 which GC needs {gc_slack} invalid to gain a page from some victim in each \
                 plane; raise the over-provisioning (ftl.overprovisioning_ratio), give the \
                 region more blocks ({}), or let the data settle in a larger region",
                r.name,
                blocks_key(config, i)
            );
            let mut others: Vec<(String, String)> = (keys.iter())
                .map(|k| (k.to_string(), why.clone()))
                .collect();
            others.push((blocks_key(config, i), why.clone()));
            Err(given.blame(("ftl.overprovisioning_ratio".into(), why), others))
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
    let gc_slack = match r.medium.erases() {
        true => data_blocks * (units_per_page as u64 - 1) + 1,
        false => 0,
    };
    (room, gc_slack)
}
