//! The FTL's policies, built in one place from the config with the device they act on, for the
//! timed run and preconditioning alike, and saved together in a device snapshot (each through its
//! [`SavedState`]). A new policy with state joins [`Policies`] and [`Policies::states`]: nothing
//! else builds, hands on or saves it.

use crate::config::Config;
use crate::error::Error;

use super::allocation::{self, PlaneAllocator};
use super::gc::GcRules;
use super::migration::{self, Migration};
use super::partial_program::{self, PartialProgram};
use super::placement::{self, Placement};
use super::reduction::{self, DataReduction};
use super::saved_state::SavedState;
use super::split::{self, SplitDecision};
use super::Ftl;

pub struct Policies {
    /// Which stream (and region) a host write goes to.
    pub placement: Box<dyn Placement>,
    /// Where GC sends a victim's units.
    pub migration: Box<dyn Migration>,
    /// How a unit is stored: as written, compressed, or deduplicated.
    pub reduction: Box<dyn DataReduction>,
    /// One per set of dies (`allocation::build`): which plane a page goes to.
    pub allocators: Vec<Box<dyn PlaneAllocator>>,
    /// GC's victim choice and copy destinations.
    pub gc: GcRules,
    /// PR-SSD's split decision, when the split FTL is on.
    pub split: Option<Box<dyn SplitDecision>>,
    /// Which page a sealed page of few units goes into, when pages take partial programs.
    pub partial: Option<Box<dyn PartialProgram>>,
    /// Write streams the buffer keeps apart in each region: the placement's, once per host
    /// stream slot (`ftl.host_streams`), and one more for the translation pages of a mapping
    /// table on flash (the last).
    pub streams: usize,
    /// Streams the placement writes (`streams` counts them once per host stream slot).
    pub placement_streams: usize,
}

impl Policies {
    /// The FTL of `config`'s device (`verify`: with the integrity oracle) and the policies that
    /// act on it. `config` must be validated.
    pub fn build(config: &Config, verify: bool) -> Result<(Ftl, Policies), Error> {
        let geometry = crate::device::geometry(config);
        let g = &geometry;
        let placement = placement::build(&config.ftl.placement, g)?;
        let migration = migration::build(&config.ftl.migration, g)?;
        let reduction = reduction::build(config, g)?;
        let mapping_on = !config.ftl.mapping_cache.is_all();
        // (A slot for each of the host's streams kept apart, `sim/technique/host_streams.rs`, and one
        // for the rest of its writes.)
        let host_slots = config.ftl.host_streams.max_open() as usize + 1;
        let streams = placement.streams() * host_slots + usize::from(mapping_on);
        let allocators = allocation::build(&config.ftl.allocation, g);
        let gc = GcRules::new(config, g);
        let mut ftl = Ftl::new(config, geometry, verify, streams, reduction.as_ref());
        let partial = partial_program::build(&config.ftl.partial_program, ftl.buffer.open.len());
        if placement.counts_updates()
            || migration.counts_updates()
            || partial.as_ref().is_some_and(|p| p.counts_updates())
        {
            ftl.keep_update_counts();
        }
        let split = split::build(
            &config.ftl.split,
            ftl.logical_units,
            ftl.geometry.channels,
            reduction.partial_unit_bytes(),
        );
        let placement_streams = placement.streams();
        let policies = Policies {
            placement,
            migration,
            reduction,
            allocators,
            gc,
            split,
            partial,
            streams,
            placement_streams,
        };
        Ok((ftl, policies))
    }

    /// The state of every policy preconditioning shapes, by name, in the order a snapshot keeps
    /// them. (The partial program's choice of page starts afresh with the timed run:
    /// preconditioning fills pages whole.)
    pub fn states(&mut self) -> Vec<(String, &mut dyn SavedState)> {
        let mut states: Vec<(String, &mut dyn SavedState)> = Vec::new();
        for (i, a) in self.allocators.iter_mut().enumerate() {
            states.push((format!("ftl.allocation[{i}]"), a.as_mut()));
        }
        states.push(("ftl.reduction".into(), self.reduction.as_mut()));
        states.push(("ftl.gc_victim".into(), self.gc.victim.as_mut()));
        states.push(("ftl.placement".into(), self.placement.as_mut()));
        states.push(("ftl.migration".into(), self.migration.as_mut()));
        if let Some(s) = &mut self.split {
            states.push(("ftl.split".into(), s.as_mut()));
        }
        states
    }
}
