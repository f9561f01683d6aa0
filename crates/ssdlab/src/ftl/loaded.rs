//! Checking an FTL decoded from a device snapshot (`sim/snapshot.rs`) before the engine uses it.
//! A snapshot's checksum catches a damaged file; these checks catch a decoded state the engine
//! would index out of range or misread — a file written by a defective build, or one whose
//! damage a checksum happened not to see — so that a bad snapshot is refused naming what is
//! wrong instead of panicking or quietly giving other results. Each table is held to the
//! fresh device built from the same config (`fresh`): of its sizes, every index in range.

use super::{Ftl, BUFFERED, UNMAPPED, ZERO_UNIT};
use crate::flash::Geometry;

/// `what` must equal the fresh device's.
fn same<T: PartialEq + std::fmt::Debug>(what: &str, loaded: T, fresh: T) -> Result<(), String> {
    match loaded == fresh {
        true => Ok(()),
        false => Err(format!("{what} is {loaded:?}, the device's is {fresh:?}")),
    }
}

/// Every entry of `table` must pass `ok`; the first that does not is named.
fn each<T: Copy + std::fmt::Debug>(
    what: &str,
    table: impl IntoIterator<Item = T>,
    ok: impl Fn(T) -> bool,
) -> Result<(), String> {
    match table.into_iter().enumerate().find(|&(_, v)| !ok(v)) {
        None => Ok(()),
        Some((i, v)) => Err(format!("{what}[{i}] is {v:?}, out of range")),
    }
}

impl Ftl {
    /// Whether this FTL, decoded from a snapshot, fits the device `fresh` (built from the same
    /// config, not yet preconditioned): `Err` says the first thing that does not.
    pub fn check_loaded(&self, fresh: &Ftl) -> Result<(), String> {
        let g = &fresh.geometry;
        self.check_sizes(fresh)?;
        // Preconditioning leaves nothing in the write buffer, so no unit maps into it.
        let slots = g.total_slots();
        each("the mapping table", self.l2p.iter().copied(), |e| {
            e == UNMAPPED || e == ZERO_UNIT || (e & BUFFERED == 0 && u64::from(e) <= slots)
        })?;
        self.p2l.check_loaded(&fresh.p2l, g, self.logical_units)?;
        self.check_blocks(g)?;
        self.check_pools(fresh)?;
        self.buffer.check_loaded(&fresh.buffer)?;
        let pages = u64::from(g.blocks()) * u64::from(g.max_pages_per_block);
        let split = self.split_parts.iter().find(|&(&lpn, parts)| {
            lpn >= self.logical_units || parts.iter().any(|p| u64::from(p.slot) >= slots)
        });
        if let Some((lpn, _)) = split {
            return Err(format!("split unit {lpn} or its parts are out of range"));
        }
        for (what, keys) in [
            (
                "a page programmed in part",
                self.partial_pages.keys().copied().collect(),
            ),
            (
                "a PCM page in flight",
                self.in_place_programs.keys().copied().collect::<Vec<_>>(),
            ),
        ] {
            if let Some(page) = keys.into_iter().find(|&p| u64::from(p) >= pages) {
                return Err(format!("{what} is page {page}, past the device's {pages}"));
            }
        }
        match (&self.oracle, &fresh.oracle) {
            (Some(o), Some(f)) => o.check_loaded(f),
            (None, None) => Ok(()),
            (o, _) => Err(format!(
                "it {} the integrity oracle's state, and the run {}",
                if o.is_some() { "holds" } else { "lacks" },
                if o.is_some() {
                    "does not verify"
                } else {
                    "verifies"
                },
            )),
        }
    }

    /// Each parameter and table size is the fresh device's.
    fn check_sizes(&self, fresh: &Ftl) -> Result<(), String> {
        same(
            "the logical capacity",
            self.logical_units,
            fresh.logical_units,
        )?;
        same("the host's capacity", self.host_units, fresh.host_units)?;
        same("a page's space", self.space_per_page, fresh.space_per_page)?;
        same(
            "the GC-reserved blocks",
            self.gc_reserved_blocks,
            fresh.gc_reserved_blocks,
        )?;
        same("the partial unit", self.partial_bytes, fresh.partial_bytes)?;
        same(
            "the codeword map",
            &self.slot_codewords,
            &fresh.slot_codewords,
        )?;
        same(
            "the copy lanes",
            &self.copy_fill_units,
            &fresh.copy_fill_units,
        )?;
        same(
            "the copy packers",
            self.copy_packers.len(),
            fresh.copy_packers.len(),
        )?;
        for (what, loaded, fresh) in [
            ("the mapping table", self.l2p.len(), fresh.l2p.len()),
            ("the blocks", self.blocks.len(), fresh.blocks.len()),
            (
                "the programmed pages",
                self.programmed.len(),
                fresh.programmed.len(),
            ),
            (
                "the valid space",
                self.valid_space.len(),
                fresh.valid_space.len(),
            ),
            (
                "the erased space",
                self.erased_space.len(),
                fresh.erased_space.len(),
            ),
            ("the unit shapes", self.shapes.len(), fresh.shapes.len()),
            (
                "the page slack",
                self.page_slack.len(),
                fresh.page_slack.len(),
            ),
            (
                "the update counts",
                self.update_counts.len(),
                fresh.update_counts.len(),
            ),
            (
                "the read counts per unit",
                self.read_counts.per_unit.len(),
                fresh.read_counts.per_unit.len(),
            ),
            (
                "the read counts per block",
                self.read_counts.per_block.len(),
                fresh.read_counts.per_block.len(),
            ),
            ("the pools", self.pools.len(), fresh.pools.len()),
        ] {
            same(&format!("the length of {what}"), loaded, fresh)?;
        }
        Ok(())
    }

    /// Each block's pages written and programmed lie within the block. (Not programmed within
    /// written: a PCM block counts as programmed whole from its opening.)
    fn check_blocks(&self, g: &Geometry) -> Result<(), String> {
        for (b, info) in self.blocks.iter().enumerate() {
            let pages = g.regions[g.region_of(b as u32)].pages_per_block;
            if info.write_ptr > pages || self.programmed[b] > pages {
                return Err(format!(
                    "block {b} has {} pages written and {} programmed, of {pages}",
                    info.write_ptr, self.programmed[b]
                ));
            }
        }
        Ok(())
    }

    /// Each pool is the fresh device's (plane, region, shape), its blocks its own.
    fn check_pools(&self, fresh: &Ftl) -> Result<(), String> {
        let g = &fresh.geometry;
        let slots = g.total_slots();
        for (i, (p, f)) in self.pools.iter().zip(&fresh.pools).enumerate() {
            let what = |field: &str| format!("pool {i}'s {field}");
            same(&what("plane"), p.plane, f.plane)?;
            same(&what("region"), p.region, f.region)?;
            same(
                &what("pages per block"),
                p.pages_per_block,
                f.pages_per_block,
            )?;
            same(
                &what("medium"),
                p.rewrites_in_place(),
                f.rewrites_in_place(),
            )?;
            same(
                &what("open blocks"),
                p.host_active.len(),
                f.host_active.len(),
            )?;
            let own = |b: u32| b < g.blocks() && g.plane_and_region(b) == (f.plane, f.region);
            let blocks = p.free.iter().copied();
            let open = p.host_active.iter().flatten().chain(&p.gc_active).copied();
            each(&what("blocks"), blocks.chain(open), own)?;
            each(&what("free slots"), p.free_slots.iter().copied(), |s| {
                u64::from(s) < slots
            })?;
            let pages = u64::from(g.blocks()) * u64::from(g.max_pages_per_block);
            each(&what("open slots"), p.open_slots, |(page, slot)| {
                u64::from(page) < pages && slot <= g.slots_per_page
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::reduction;
    use crate::ftl::reverse_map::ReverseMap;

    /// The small device's FTL as a fresh run builds it, the oracle's state with it.
    fn fresh(sets: &[&str]) -> Ftl {
        let config = crate::test_support::small(sets);
        let g = crate::device::geometry(&config);
        let reduction = reduction::build(&config, &g).unwrap();
        Ftl::new(&config, g, true, 1, reduction.as_ref())
    }

    #[test]
    fn a_state_that_fits_the_device_is_taken() {
        let packed = [
            "ftl.mapping_unit_kib=16",
            "ftl.max_units_per_page=12",
            "ftl.reduction={policy=\"compress\", codec=\"dpc\"}",
        ];
        for sets in [&[][..], &packed] {
            assert_eq!(fresh(sets).check_loaded(&fresh(sets)), Ok(()), "{sets:?}");
        }
    }

    /// Each index the engine would follow out of range, and each table of another size, is
    /// refused, naming it.
    #[test]
    fn an_index_out_of_range_or_a_table_of_another_size_is_refused() {
        let device = fresh(&[]);
        let slots = device.geometry.total_slots() as u32;
        let blocks = device.geometry.blocks();
        type Damage = fn(&mut Ftl, u32, u32);
        let damage: [(&str, Damage); 8] = [
            ("the mapping table[3]", |f, slots, _| f.l2p[3] = slots + 2),
            ("the mapping table[4]", |f, _, _| f.l2p[4] = BUFFERED | 7),
            ("the length of the mapping table", |f, _, _| {
                f.l2p.pop();
            }),
            ("block 0 has 4096 pages written", |f, _, _| {
                f.blocks[0].write_ptr = 4096
            }),
            ("pool 0's blocks", |f, _, blocks| {
                f.pools[0].free.push_back(blocks)
            }),
            ("pool 1's blocks", |f, _, _| f.pools[1].free.push_back(0)),
            ("its reverse map", |f, _, _| {
                if let ReverseMap::Dense(p2l) = &mut f.p2l {
                    p2l[9] = f.logical_units;
                }
            }),
            ("the integrity oracle", |f, _, _| f.oracle = None),
        ];
        for (what, damage) in damage {
            let mut loaded = fresh(&[]);
            damage(&mut loaded, slots, blocks);
            let e = loaded.check_loaded(&device).unwrap_err();
            assert!(e.contains(what), "{what}: {e}");
        }
    }
}
