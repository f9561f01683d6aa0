//! Whole-config validation before the first event: each impossible value or combination is an
//! error naming the key and the reason.

use super::{AllocationConfig, CellMode, Config, ReadPolicyConfig, ReplayMode, WriteAck};
use crate::error::Error;
use crate::flash::{Geometry, StripeOrder};

fn positive(key: &str, v: u64) -> Result<(), Error> {
    if v == 0 {
        Err(Error::config(key, "must be at least 1 (got 0)"))
    } else {
        Ok(())
    }
}

fn fraction(key: &str, v: f64, lo_open: bool) -> Result<(), Error> {
    let ok = v.is_finite() && v < 1.0 && if lo_open { v > 0.0 } else { v >= 0.0 };
    if ok {
        Ok(())
    } else {
        let range = if lo_open { "(0, 1)" } else { "[0, 1)" };
        Err(Error::config(key, format!("must be in {range} (got {v})")))
    }
}

impl Config {
    /// The read policy's parameters against the page and codeword size.
    fn validate_read_policy(&self, page: u64, codeword: u64) -> Result<(), Error> {
        match &self.ftl.read_policy {
            ReadPolicyConfig::Full | ReadPolicyConfig::Dma => Ok(()),
            ReadPolicyConfig::Partial {
                unit_kib,
                tr_reduction,
                current_reduction,
            } => {
                let key = "ftl.read_policy.unit_kib";
                positive(key, *unit_kib as u64)?;
                let unit = *unit_kib as u64 * 1024;
                if !unit.is_multiple_of(codeword) || !page.is_multiple_of(unit) || unit == page {
                    return Err(Error::config(
                        key,
                        format!(
                            "a partial-read unit of {unit_kib} KiB must be whole {codeword}-byte \
                             codewords and divide the {} KiB page into two or more parts",
                            page / 1024
                        ),
                    ));
                }
                fraction("ftl.read_policy.tr_reduction", *tr_reduction, false)?;
                fraction(
                    "ftl.read_policy.current_reduction",
                    *current_reduction,
                    false,
                )
            }
            ReadPolicyConfig::Subpage {
                tr_by_codewords_ns,
                fixed_current_share,
            } => {
                let key = "ftl.read_policy.tr_by_codewords_ns";
                let codewords = page / codeword;
                if tr_by_codewords_ns.len() as u64 != codewords {
                    return Err(Error::config(
                        key,
                        format!(
                            "needs one tR per number of codewords sensed, {codewords} for a {} \
                             KiB page of {codeword}-byte codewords (got {})",
                            page / 1024,
                            tr_by_codewords_ns.len()
                        ),
                    ));
                }
                if tr_by_codewords_ns[0] == 0 || tr_by_codewords_ns.windows(2).any(|w| w[1] < w[0])
                {
                    return Err(Error::config(
                        key,
                        "must be positive and never decrease: sensing more codewords cannot be faster",
                    ));
                }
                let share = *fixed_current_share;
                if !(share.is_finite() && (0.0..=1.0).contains(&share)) {
                    return Err(Error::config(
                        "ftl.read_policy.fixed_current_share",
                        format!("must be in [0, 1] (got {share})"),
                    ));
                }
                Ok(())
            }
        }
    }

    pub fn validate(&self) -> Result<(), Error> {
        let g = &self.geometry;
        positive("geometry.channels", g.channels as u64)?;
        positive("geometry.ways_per_channel", g.ways_per_channel as u64)?;
        positive("geometry.dies_per_way", g.dies_per_way as u64)?;
        positive("geometry.planes_per_die", g.planes_per_die as u64)?;
        positive("geometry.blocks_per_plane", g.blocks_per_plane as u64)?;
        positive("geometry.pages_per_block", g.pages_per_block as u64)?;
        positive("geometry.page_size_kib", g.page_size_kib as u64)?;
        positive("geometry.codeword_size_bytes", g.codeword_size_bytes as u64)?;
        positive("ftl.mapping_unit_kib", self.ftl.mapping_unit_kib as u64)?;
        let bits = g.cell_mode.bits_per_cell();
        if !g.pages_per_block.is_multiple_of(bits) {
            return Err(Error::config(
                "geometry.pages_per_block",
                format!(
                    "{} is not a multiple of {bits}, the pages per wordline of {} cells",
                    g.pages_per_block,
                    g.cell_mode.name()
                ),
            ));
        }
        let page = g.page_size_kib as u64 * 1024;
        if !page.is_multiple_of(g.codeword_size_bytes as u64) {
            return Err(Error::config(
                "geometry.codeword_size_bytes",
                format!(
                    "{} does not divide the {page}-byte page",
                    g.codeword_size_bytes
                ),
            ));
        }
        if page / g.codeword_size_bytes as u64 > 64 {
            return Err(Error::config(
                "geometry.codeword_size_bytes",
                format!(
                    "a page may hold at most 64 codewords (has {})",
                    page / g.codeword_size_bytes as u64
                ),
            ));
        }
        let unit = self.ftl.mapping_unit_kib as u64 * 1024;
        if !page.is_multiple_of(unit) {
            return Err(Error::config(
                "ftl.mapping_unit_kib",
                format!(
                    "{} KiB does not divide the {} KiB page",
                    self.ftl.mapping_unit_kib, g.page_size_kib
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
        if self.ftl.max_units_per_page != 0 && self.ftl.max_units_per_page < units_per_page {
            return Err(Error::config(
                "ftl.max_units_per_page",
                format!("must be 0 (automatic) or at least {units_per_page}, the units an uncompressed page holds"),
            ));
        }
        if self.ftl.max_units_per_page > 64 {
            return Err(Error::config("ftl.max_units_per_page", "at most 64"));
        }
        self.validate_read_policy(page, g.codeword_size_bytes as u64)?;
        let e = &self.energy;
        for (key, v) in [
            ("energy.read_power_mw", e.read_power_mw),
            ("energy.program_power_mw", e.program_power_mw),
            ("energy.erase_power_mw", e.erase_power_mw),
            ("energy.transfer_pj_per_byte", e.transfer_pj_per_byte),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::config(
                    key,
                    format!("must be a finite number ≥ 0 (got {v})"),
                ));
            }
        }
        // Regions.
        let mut used = 0u32;
        for (i, r) in g.regions.iter().enumerate() {
            let key = format!("geometry.regions[{i}]");
            if r.blocks_per_plane == 0 && i + 1 != g.regions.len() {
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
                        g.cell_mode.name()
                    ),
                ));
            }
            if !bits.is_multiple_of(r.cell_mode.bits_per_cell()) {
                return Err(Error::config(
                    &format!("{key}.cell_mode"),
                    "the die's wordlines do not split evenly into this mode's pages",
                ));
            }
            used += r.blocks_per_plane;
            if g.regions[..i].iter().any(|o| o.name == r.name) {
                return Err(Error::config(
                    &format!("{key}.name"),
                    format!("`{}` is used twice", r.name),
                ));
            }
        }
        if used > g.blocks_per_plane {
            return Err(Error::config(
                "geometry.regions",
                format!("the regions take {used} blocks per plane, more than geometry.blocks_per_plane = {}", g.blocks_per_plane),
            ));
        }
        if let Some(last) = g.regions.last() {
            if last.blocks_per_plane != 0 && used < g.blocks_per_plane {
                return Err(Error::config(
                    "geometry.regions",
                    format!("the regions cover {used} of {} blocks per plane; give the last region blocks_per_plane = 0 to take the rest", g.blocks_per_plane),
                ));
            }
        }
        // Timing for every cell mode in use.
        let t = &self.timing;
        if !(t.channel_rate_mts.is_finite() && t.channel_rate_mts > 0.0) {
            return Err(Error::config(
                "timing.channel_rate_mts",
                format!("must be positive (got {})", t.channel_rate_mts),
            ));
        }
        positive("timing.channel_width_bytes", t.channel_width_bytes as u64)?;
        let mut modes = vec![g.cell_mode];
        modes.extend(g.regions.iter().map(|r| r.cell_mode));
        if !g.regions.is_empty() {
            modes.remove(0);
        }
        for m in modes {
            let present = match m {
                CellMode::Slc => t.slc.is_some(),
                CellMode::Mlc => t.mlc.is_some(),
                CellMode::Tlc => t.tlc.is_some(),
            };
            if !present {
                return Err(Error::config(
                    &format!("timing.{}", m.name()),
                    "missing: blocks use this cell mode",
                ));
            }
        }
        // FTL.
        let f = &self.ftl;
        fraction("ftl.overprovisioning_ratio", f.overprovisioning_ratio, true)?;
        fraction("ftl.gc_threshold", f.gc_threshold, true)?;
        if f.write_buffer_units < units_per_page {
            return Err(Error::config(
                "ftl.write_buffer_units",
                format!(
                    "must hold at least one page ({units_per_page} units), got {}",
                    f.write_buffer_units
                ),
            ));
        }
        // Slot ids are u32 with a flag bit: the whole device must stay under 2^31 slots. Checked
        // in u64 before any geometry arithmetic (which is u32) can overflow.
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
        if let AllocationConfig::Static { order } = &f.allocation {
            let geo = Geometry::new(self);
            if StripeOrder::new(order, &geo).is_none() {
                return Err(Error::config(
                    "ftl.allocation.order",
                    format!("`{order}` is not a permutation of C, W, D, P"),
                ));
            }
        }
        let geo = Geometry::new(self);
        // Every pool must keep enough spare blocks for GC to make progress.
        for r in &geo.regions {
            let threshold = crate::ftl::gc_threshold_blocks(self, r.blocks_per_plane);
            let needed = threshold + f.gc_reserved_blocks + 2;
            if r.blocks_per_plane <= needed {
                return Err(Error::config(
                    "ftl.gc_threshold",
                    format!("region `{}` has {} blocks per plane, not more than the {needed} GC keeps free or open", r.name, r.blocks_per_plane),
                ));
            }
        }
        let spare_blocks = f.overprovisioning_ratio * g.blocks_per_plane as f64;
        let main = &geo.regions[0];
        let needed =
            crate::ftl::gc_threshold_blocks(self, main.blocks_per_plane) + f.gc_reserved_blocks + 2;
        if spare_blocks < needed as f64 {
            return Err(Error::config(
                "ftl.overprovisioning_ratio",
                format!(
                    "{} leaves {spare_blocks:.1} spare blocks per plane; the over-provisioning cannot hold the data while GC keeps {needed} blocks free or open (raise it to at least {:.3})",
                    f.overprovisioning_ratio,
                    needed as f64 / g.blocks_per_plane as f64
                ),
            ));
        }
        let logical = crate::ftl::logical_units(self, &geo) as u64;
        if logical == 0 {
            return Err(Error::config(
                "ftl.overprovisioning_ratio",
                "leaves no logical capacity",
            ));
        }
        // The host's data must fit in the regions host writes go to, less what GC keeps free.
        let host_regions = crate::ftl::placement::build(&f.placement).host_regions();
        let mut room = 0u64;
        for &ri in &host_regions {
            let r = &geo.regions[ri];
            let usable = r.blocks_per_plane.saturating_sub(
                crate::ftl::gc_threshold_blocks(self, r.blocks_per_plane)
                    + f.gc_reserved_blocks
                    + 2,
            );
            room += usable as u64
                * r.pages_per_block as u64
                * geo.units_per_page as u64
                * geo.planes() as u64;
        }
        if logical > room {
            let names: Vec<&str> = host_regions
                .iter()
                .map(|&r| geo.regions[r].name.as_str())
                .collect();
            return Err(Error::config(
                "ftl.overprovisioning_ratio",
                format!(
                    "the logical capacity ({logical} units) does not fit in the region(s) host writes go to ({}: {room} units once GC keeps its blocks free); raise the over-provisioning or give those regions more blocks",
                    names.join(", ")
                ),
            ));
        }
        // Preconditioning and host.
        let p = &self.precondition;
        if !(p.fill_fraction.is_finite() && (0.0..=1.0).contains(&p.fill_fraction)) {
            return Err(Error::config(
                "precondition.fill_fraction",
                format!("must be in [0, 1] (got {})", p.fill_fraction),
            ));
        }
        if !(p.overwrite_fraction.is_finite() && p.overwrite_fraction >= 0.0) {
            return Err(Error::config(
                "precondition.overwrite_fraction",
                format!("must be ≥ 0 (got {})", p.overwrite_fraction),
            ));
        }
        let h = &self.host;
        let closed_loop = h.mode == ReplayMode::Closed
            || self
                .flows
                .iter()
                .any(|fl| fl.mode == Some(ReplayMode::Closed));
        if f.write_ack == WriteAck::Program && f.write_buffer_timeout_ns == 0 && closed_loop {
            return Err(Error::config(
                "ftl.write_buffer_timeout_ns",
                "must be set (> 0) when writes are acknowledged on program in closed-loop replay: \
                 otherwise a partly filled page waits for writes that its own unacknowledged \
                 writes hold back",
            ));
        }
        if !(h.time_scale.is_finite() && h.time_scale > 0.0) {
            return Err(Error::config(
                "host.time_scale",
                format!("must be positive (got {})", h.time_scale),
            ));
        }
        if h.mode == ReplayMode::Closed {
            positive("host.queue_depth", h.queue_depth as u64)?;
        }
        for (i, fl) in self.flows.iter().enumerate() {
            if let Some(ts) = fl.time_scale {
                if !(ts.is_finite() && ts > 0.0) {
                    return Err(Error::config(
                        &format!("flows[{i}].time_scale"),
                        format!("must be positive (got {ts})"),
                    ));
                }
            }
            if fl.queue_depth == Some(0) {
                return Err(Error::config(
                    &format!("flows[{i}].queue_depth"),
                    "must be at least 1 (got 0)",
                ));
            }
            match (&fl.trace, &fl.generator) {
                // A trace without a format has it detected when the flow is loaded.
                (Some(_), None) => {}
                (None, Some(g)) => {
                    g.validate(&format!("flows[{i}].generator"))?;
                    if let crate::workload::Arrival::Closed { .. } = g.arrival {
                        if fl.mode == Some(ReplayMode::Open) {
                            return Err(Error::config(
                                &format!("flows[{i}].mode"),
                                "the generator's arrivals are closed-loop, the flow's mode open",
                            ));
                        }
                    }
                }
                _ => {
                    return Err(Error::config(
                        &format!("flows[{i}].trace"),
                        "a flow replays exactly one of a `trace` and a `generator` (or `workload`)",
                    ))
                }
            }
        }
        self.content.validate(Some(unit))?;
        Ok(())
    }
}
