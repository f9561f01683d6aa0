//! MGA's two-level mapping table (Feng et al., "Mapping granularity adaptive FTL based on flash
//! page re-programming", DATE 2017; techniques.md §3.3 part 1; the IPU slides, L181: "employing
//! two-level mapping table to record subpage information in same pages"), measured on the
//! FTL's mapping as it stands: page-level entries for the data written a page at a time,
//! subpage-level entries for the rest.
//!
//! A logical page is a page's worth of consecutive units, aligned. It needs only its page entry
//! when its units sit in one physical page in order (unit `i` of the logical page in slot `i`),
//! or when none of them is written; otherwise its page entry points to a subpage entry per unit.
//! The units are found where they are either way, so no operation changes: with the table
//! wholly in DRAM, as in the slides' SSDsim, the table's size is all the two-level mapping
//! changes.
//!
//! Entry sizes (ours, the sizes an address needs): a subpage entry holds a slot's address,
//! ⌈log2(slots)⌉ bits; a page entry a page's address and one bit telling a page-mapped logical
//! page from one with subpage entries; each rounded up to whole bytes.

use serde_json::{json, Value};

use super::{Ftl, Location};

/// A two-level table's entries and bytes, beside the one-entry-per-unit table's and a
/// page-level table's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoLevelTable {
    pub logical_pages: u64,
    /// Logical pages with subpage entries (the rest need their page entry only).
    pub subpage_pages: u64,
    pub units_per_page: u64,
    pub page_entry_bytes: u64,
    pub subpage_entry_bytes: u64,
    /// A page-level table's entries: a page's address, no flag.
    pub page_table_entry_bytes: u64,
    pub logical_units: u64,
}

impl TwoLevelTable {
    pub fn bytes(&self) -> u64 {
        self.logical_pages * self.page_entry_bytes
            + self.subpage_pages * self.units_per_page * self.subpage_entry_bytes
    }

    pub fn to_json(&self) -> Value {
        json!({
            "granularity": "two_level",
            "logical_pages": self.logical_pages,
            "page_mapped_pages": self.logical_pages - self.subpage_pages,
            "subpage_mapped_pages": self.subpage_pages,
            "bytes": self.bytes(),
            "unit_table_bytes": self.logical_units * self.subpage_entry_bytes,
            "page_table_bytes": self.logical_pages * self.page_table_entry_bytes,
        })
    }
}

/// Whole bytes holding an address among `n`, and `extra` bits more.
fn address_bytes(n: u64, extra: u32) -> u64 {
    u64::from((n.max(2) - 1).ilog2() + 1 + extra).div_ceil(8)
}

impl Ftl {
    /// The two-level table the mapping needs now (over the host's logical units).
    pub fn two_level_table(&self, logical_units: u32) -> TwoLevelTable {
        let g = &self.geometry;
        let upp = g.units_per_page;
        let pages = u64::from(g.blocks()) * u64::from(g.max_pages_per_block);
        let mut subpage_pages = 0;
        for first in (0..logical_units).step_by(upp as usize) {
            let units = first..(first + upp).min(logical_units);
            let page_mapped = match self.lookup(first) {
                // Unit i of the logical page in slot i of the first unit's page (a page's
                // slots are numbered in a row).
                Location::Flash(s0) if g.slot_in_page(s0) == 0 => units
                    .clone()
                    .all(|lpn| self.lookup(lpn) == Location::Flash(s0 + (lpn - first))),
                _ => false,
            };
            let unwritten = units
                .clone()
                .all(|lpn| self.lookup(lpn) == Location::Unmapped);
            subpage_pages += u64::from(!(page_mapped || unwritten));
        }
        TwoLevelTable {
            logical_pages: u64::from(logical_units.div_ceil(upp)),
            subpage_pages,
            units_per_page: u64::from(upp),
            page_entry_bytes: address_bytes(pages, 1),
            subpage_entry_bytes: address_bytes(g.total_slots(), 0),
            page_table_entry_bytes: address_bytes(pages, 0),
            logical_units: u64::from(logical_units),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_take_the_bits_their_count_needs() {
        assert_eq!(address_bytes(256, 0), 1);
        assert_eq!(address_bytes(257, 0), 2);
        assert_eq!(address_bytes(1 << 16, 1), 3);
        assert_eq!(address_bytes(1, 0), 1);
    }

    #[test]
    fn a_table_of_page_mapped_pages_is_its_page_entries_only() {
        let t = TwoLevelTable {
            logical_pages: 10,
            subpage_pages: 0,
            units_per_page: 4,
            page_entry_bytes: 4,
            subpage_entry_bytes: 4,
            page_table_entry_bytes: 4,
            logical_units: 40,
        };
        assert_eq!(t.bytes(), 40);
        let mixed = TwoLevelTable {
            subpage_pages: 5,
            ..t
        };
        // Half the pages with subpage entries: 10 page entries and 20 subpage entries.
        assert_eq!(mixed.bytes(), 10 * 4 + 5 * 4 * 4);
        assert_eq!(mixed.to_json()["unit_table_bytes"], 160);
    }
}
