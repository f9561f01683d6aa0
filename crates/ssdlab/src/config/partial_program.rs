//! `[ftl.partial_program]`: programming the still-erased slots of a page programmed before
//! (MGA's page sharing, IPU's intra-page update), in a region whose `nop` is above 1.

use serde::{Deserialize, Serialize};

use super::needs::{Device, Needs};
use super::tagged::tagged_table;
use crate::error::Error;

/// Which page a sealed page of fewer units than slots is programmed into, in a region whose
/// pages take partial programs (`geometry.regions[].nop` above 1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum PartialProgramConfig {
    /// A fresh page every time; the slots left are padding.
    #[default]
    None,
    /// Into the erased slots of the last page its writer programmed in part, while they hold
    /// it and the page's NOP allows, else a fresh page whose rest stays erased: units of
    /// different logical pages share a physical page (MGA, Feng et al., DATE 2017).
    Share {
        /// MGA's subpage merging: a write that would leave its logical page (a flash page's
        /// worth of mapping units) spread over more than this many physical pages reads the
        /// page's other units and rewrites them with it, into one page. 0 = no merging.
        /// (Techniques.md §3.3: the threshold is not public; 2 is our assumption.)
        #[serde(default, skip_serializing_if = "is_zero")]
        merge_threshold_pages: u32,
    },
    /// `share`, and an update of a unit whose old copy sits in a page with an erased slot and
    /// programs left goes into that page at once, beside its old version (IPU, Li et al.,
    /// ICPP 2021).
    IntraPageUpdate,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl PartialProgramConfig {
    pub fn is_none(&self) -> bool {
        *self == PartialProgramConfig::None
    }
}

tagged_table!("policy": PartialProgramConfig);

/// Partial programs fill the erased slots of pages host writes left partly filled: they need
/// such pages (more than one unit to a page, a write buffer that programs a page before it is
/// full) in a region whose pages take more than one program, and subpages that hold whole
/// codewords.
impl Needs for PartialProgramConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        if self.is_none() {
            return Ok(());
        }
        let key = "ftl.partial_program.policy";
        let regions = &d.geometry.regions;
        if regions.iter().all(|r| r.nop < 2) {
            return Err(Error::config(
                key,
                "no region's pages take partial programs: give one a `nop` above 1 \
                 (geometry.regions[].nop)",
            ));
        }
        if regions[d.host_region].nop < 2 {
            let host = d.region_name(d.host_region);
            let partial: Vec<&str> = regions
                .iter()
                .filter(|r| r.nop > 1)
                .map(|r| r.name.as_str())
                .collect();
            return Err(Error::config(
                key,
                format!(
                    "host writes go to region `{host}` (ftl.placement), whose pages are \
                     programmed once (nop 1), and no host write reaches the region(s) whose pages \
                     take partial programs ({}): send host writes there (ftl.placement = {{ \
                     policy = \"cache\", region = \"{}\" }})",
                    partial.join(", "),
                    partial[0]
                ),
            ));
        }
        // A program writes whole subpages, each a run of codewords with their ECC: the unit
        // when units are stored as written, the partial unit when they are shaped (compressed
        // units are packed into a program's subpages as into a page).
        let reduction = &d.config.ftl.reduction;
        if let Some(subpage) = reduction.partial_unit_bytes() {
            let subpages = d.page_bytes() / subpage;
            if subpages < 2 {
                return Err(Error::config(
                    "ftl.reduction.partial_unit_kib",
                    format!(
                        "partial programs write whole subpages, a partial unit ({} KiB) each \
                         when units are compressed, and the {} KiB page holds one: no page is \
                         ever programmed in part; use a smaller partial unit",
                        subpage / 1024,
                        d.page_bytes() / 1024
                    ),
                ));
            }
            if let Some(align) = reduction.align_bytes().filter(|&a| subpage % a as u64 != 0) {
                return Err(Error::config(
                    "ftl.reduction.align_bytes",
                    format!(
                        "{align} does not divide the {subpage}-byte partial unit, the subpage a \
                         later partial program packs its units from: they would lose their \
                         alignment"
                    ),
                ));
            }
            if let PartialProgramConfig::Share {
                merge_threshold_pages: 1..,
            } = self
            {
                return Err(Error::config(
                    "ftl.partial_program.merge_threshold_pages",
                    "MGA's merging gathers a logical page's units, stored as written, into one \
                     page, but compressed units pack in any number a page: use 0 (no merging) \
                     with compression, or ftl.reduction.policy = \"identity\"",
                ));
            }
        }
        if d.geometry.slots_per_page < 2 {
            return Err(Error::config(
                key,
                format!(
                    "a {} KiB page holds one {} KiB mapping unit: there is no subpage to program \
                     after the first, so no page is ever programmed in part; use a mapping unit \
                     smaller than the page (ftl.mapping_unit_kib)",
                    d.page_bytes() / 1024,
                    d.unit_bytes() / 1024
                ),
            ));
        }
        if d.config.ftl.write_buffer_timeout_ns == 0 {
            return Err(Error::config(
                key,
                "the write buffer programs only full pages (ftl.write_buffer_timeout_ns = 0), so \
                 no page is ever programmed in part: set ftl.write_buffer_timeout_ns above 0 (a \
                 partly filled page is then programmed that long after its first unit; the \
                 `ipu` preset's 1 ns programs each request's units as they arrive)",
            ));
        }
        let units = d.units_per_page();
        match self {
            PartialProgramConfig::Share {
                merge_threshold_pages,
            } if *merge_threshold_pages >= units => Err(Error::config(
                "ftl.partial_program.merge_threshold_pages",
                format!(
                    "{merge_threshold_pages} never merges: a logical page of {units} units \
                     lies on at most {units} pages; give at most {} (or 0: no merging)",
                    units - 1
                ),
            )),
            _ => Ok(()),
        }
    }
}
