//! Where the logical data settles, as the placement and then the migration declare it
//! ([`Settles`]): each region's share of the units, and how it comes there. The capacity checks
//! (`capacity.rs`) hold each share to its region's room and name no policy; a combination a
//! policy cannot place the data in is refused here, by the policy with the rule.

use super::needs::Device;
use crate::config::{MigrationConfig, PlacementConfig};
use crate::error::Error;

/// The logical data and the shares of it the policies asked so far leave in the regions.
pub(super) struct Settling {
    /// The logical units (with the mapping table on flash, its translation pages too).
    pub logical: u64,
    /// Each share, in the order the capacity checks hold them to their regions' room.
    pub shares: Vec<Share>,
}

/// Units of the logical data that settle in a region.
pub(super) struct Share {
    pub region: usize,
    /// The most units that settle there.
    pub units: u64,
    /// The blocks GC keeps free there for them.
    pub kept: Kept,
    pub claim: Claim,
}

/// What GC of a region keeps free for the data settling there.
pub(super) enum Kept {
    /// Its threshold, its reserve and its open blocks (`kept_free_blocks`): host writes go there.
    ForHostWrites,
    /// Its reserve and its host and GC blocks alone: only GC's copies go there, which need no
    /// threshold of free blocks ahead of them.
    ForGcCopies,
    /// Nothing: the region's medium is never erased, so GC never cleans it.
    Nothing,
}

/// How a share comes to its region, in a refusal's words.
pub(super) enum Claim {
    /// The placement gives the region the units by their addresses, and nothing moves them out:
    /// `what` says which and how many ("… region `x` takes up to N units (…)"). Refused on the
    /// over-provisioning alone.
    Addresses { what: String },
    /// The data settles there, brought `via` (a parenthesis of the refusal); `keys` chose the
    /// region, and share the blame with the over-provisioning and the region's blocks
    /// (`Given::blame`).
    Settles {
        via: String,
        keys: Vec<&'static str>,
    },
}

/// A policy that decides where the logical data settles.
pub(super) trait Settles {
    /// Where this policy sends the data the policies asked before it left in `data` (Ok), or an
    /// error naming its key where it cannot place the data in `device`.
    fn settle(&self, device: &Device, data: &mut Settling) -> Result<(), Error>;
}

/// Where `logical` units settle: at first all where host writes go (`Device::host_region`), then
/// as the placement and the migration, asked in that order, declare.
pub(super) fn settling(d: &Device, logical: u64) -> Result<Settling, Error> {
    let mut keys = vec![];
    if d.host_region != 0 {
        keys.push("ftl.placement.region");
    }
    let mut data = Settling {
        logical,
        shares: vec![Share {
            region: d.host_region,
            units: logical,
            kept: Kept::ForHostWrites,
            claim: Claim::Settles {
                via: " (host writes go there, ftl.placement)".to_string(),
                keys,
            },
        }],
    };
    let f = &d.config.ftl;
    for policy in [&f.placement as &dyn Settles, &f.migration] {
        policy.settle(d, &mut data)?;
    }
    Ok(data)
}

/// Every placement but `oblivious` sends each host write to one region (`Device::host_region`),
/// where the data settles.
impl Settles for PlacementConfig {
    fn settle(&self, d: &Device, data: &mut Settling) -> Result<(), Error> {
        match self {
            PlacementConfig::Oblivious { run_units, flash } => {
                oblivious(d, data, *run_units, flash.is_some())
            }
            PlacementConfig::SingleRegion
            | PlacementConfig::Cache { .. }
            | PlacementConfig::Levels { .. } => Ok(()),
        }
    }
}

/// Oblivious placement spreads the data over every region in proportion to its capacity:
/// each takes its share (and the most the address hashing may give it beyond: 2 + ln N runs of
/// N, the three-distance bound's order, measured at most 0.42 ln N); there must be runs enough
/// for the shares to hold; and no migration moves data out of the region placement chose for
/// it. With a placement of its own for the flash (`flash_placed`), the flash regions share one
/// part of the addresses: the regions written in place (PCM) take their shares, and the flash's
/// (with the hashing's spread) settles where host writes go, as that placement and the
/// migration say.
fn oblivious(
    d: &Device,
    data: &mut Settling,
    run_units: Option<u32>,
    flash_placed: bool,
) -> Result<(), Error> {
    let geo = d.geometry;
    let logical = data.logical;
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
    let by_address = (0..geo.regions.len())
        .filter(|&i| !flash_placed || geo.regions[i].medium.rewrites_in_place());
    let shares: Vec<Share> = by_address
        .map(|i| {
            let r = &geo.regions[i];
            let units = (logical as f64 * geo.capacity_share(i) + slack).ceil() as u64;
            Share {
                region: i,
                units,
                kept: match r.medium.erases() {
                    true => Kept::ForHostWrites,
                    false => Kept::Nothing,
                },
                claim: Claim::Addresses {
                    what: format!(
                        "with oblivious placement region `{}` takes up to {units} units (its \
                         share of the logical capacity, {logical} units, and the address \
                         hashing's spread)",
                        r.name
                    ),
                },
            }
        })
        .collect();
    let pcm_share: f64 = (0..geo.regions.len())
        .filter(|&i| geo.regions[i].medium.rewrites_in_place())
        .map(|i| geo.capacity_share(i))
        .sum();
    // (Of the data host writes were to settle where they go, the flash's part of the addresses
    // stays there with a placement of its own; else every region's share is its own.)
    let host_written = std::mem::replace(&mut data.shares, shares);
    if flash_placed {
        let units = (logical as f64 * (1.0 - pcm_share) + slack).ceil() as u64;
        data.shares
            .extend(host_written.into_iter().map(|s| Share { units, ..s }));
    }
    Ok(())
}

/// GC moves the data host writes leave in a migration's source region out for good: it settles
/// in the destination (a source whose GC must send its data to a destination full of valid data
/// could free nothing), which takes only GC's copies.
impl Settles for MigrationConfig {
    fn settle(&self, d: &Device, data: &mut Settling) -> Result<(), Error> {
        let Some((from, to)) = d.migration else {
            return Ok(());
        };
        // (A share the addresses give the region stays there.)
        for s in data.shares.iter_mut().filter(|s| s.region == from) {
            if let Claim::Settles { via, keys } = &mut s.claim {
                s.region = to;
                s.kept = Kept::ForGcCopies;
                *via = format!(
                    " (GC moves the data of `{}` there for good, ftl.migration)",
                    d.region_name(from)
                );
                keys.insert(0, "ftl.migration.to_region");
            }
        }
        Ok(())
    }
}
