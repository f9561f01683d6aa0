//! `[ftl.partial_program]`: programming the still-erased slots of a page programmed before
//! (MGA's page sharing, IPU's intra-page update), in a region whose `nop` is above 1.

use serde::{Deserialize, Serialize};

use super::tagged::tagged_table;

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
