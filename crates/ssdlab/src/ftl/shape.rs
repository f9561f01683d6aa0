//! The shape of a stored logical page: what a mapping entry holds besides where the page lives.
//!
//! PR-SSD's compression-aware mapping table (pr-ssd.txt §4.2.3, Fig. 9) keeps per LPN a
//! compression flag, the LPN's location in its physical page (offset and length), a zero bitmap
//! (one bit per 4 KiB partial unit of the logical page: the unit is all zero and is not stored)
//! and a partial bitmap (which partial units of the physical page hold the LPN). A split LPN
//! (§4.3.2, Fig. 13) adds the partial index its parts occupy in their pages. The partial bitmap
//! follows from offset and length, so it is derived ([`UnitShape::partial_bitmap`]), not stored.
//!
//! An all-zero logical page has no shape: the mapping marks it zero and nothing is stored
//! (`Location::Zero`).

// (The kind is the layout's word, which the statistics count units by too.)
use crate::codec::layout::Slot;
pub use crate::codec::layout::UnitKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UnitShape {
    pub kind: UnitKind,
    /// Byte offset of the stored data in its page (set when the page is packed).
    pub offset: u32,
    /// Stored bytes (of one part, for a split unit).
    pub len: u32,
    /// Bit i: partial unit i of the logical page is all zero and not stored.
    pub zero_bitmap: u16,
    /// Partial index of a split unit's parts in their pages.
    pub row: u8,
}

impl UnitShape {
    /// A unit stored as written, `len` bytes, none of it filtered out as zero.
    pub fn raw(len: u32) -> UnitShape {
        UnitShape {
            kind: UnitKind::Raw,
            offset: 0,
            len,
            zero_bitmap: 0,
            row: 0,
        }
    }

    /// The 64-bit form kept in the mapping table: offset, length − 1 (pages of at most 64 KiB,
    /// which validation ensures when shapes are kept), zero bitmap, kind, row.
    pub fn pack(self) -> u64 {
        let kind = match self.kind {
            UnitKind::Raw => 0u64,
            UnitKind::Compressed => 1,
            UnitKind::Split => 2,
        };
        debug_assert!(self.offset < 1 << 16 && (1..=1 << 16).contains(&self.len));
        self.offset as u64
            | ((self.len - 1) as u64) << 16
            | (self.zero_bitmap as u64) << 32
            | kind << 48
            | (self.row as u64) << 56
    }

    pub fn unpack(v: u64) -> UnitShape {
        UnitShape {
            kind: match (v >> 48) & 0xff {
                0 => UnitKind::Raw,
                1 => UnitKind::Compressed,
                _ => UnitKind::Split,
            },
            offset: (v & 0xffff) as u32,
            len: ((v >> 16) & 0xffff) as u32 + 1,
            zero_bitmap: (v >> 32) as u16,
            row: (v >> 56) as u8,
        }
    }

    /// The partial units of the physical page holding the unit's stored bytes (PR-SSD's partial
    /// bitmap, §4.2.3): one bit → a partial read serves it, several → a full read.
    pub fn partial_bitmap(self, partial_bytes: u32) -> u64 {
        Slot {
            offset: self.offset,
            len: self.len,
        }
        .partial_units(partial_bytes)
    }

    /// Logical partial units (of `partial_bytes`) that bytes `[lo, hi)` of the unit touch and
    /// that are not zero: those a read must fetch from flash.
    pub fn stored_units_touched(self, lo: u32, hi: u32, partial_bytes: u32) -> u32 {
        let touched = bits(lo / partial_bytes, (hi - 1) / partial_bytes);
        touched & !(self.zero_bitmap as u32)
    }

    /// The byte ranges of the page a read of bytes `[lo, hi)` of a raw or compressed unit
    /// needs, passed to `f` (page start, page end). A compressed unit is read whole; a raw one
    /// only where the asked bytes are, skipping zero partial units. Nothing is passed when every
    /// asked partial unit is zero.
    pub fn page_ranges(self, lo: u32, hi: u32, partial_bytes: u32, mut f: impl FnMut(u32, u32)) {
        let mut units = self.stored_units_touched(lo, hi, partial_bytes);
        if units == 0 {
            return;
        }
        if self.kind == UnitKind::Compressed {
            f(self.offset, self.offset + self.len);
            return;
        }
        let stored = !(self.zero_bitmap as u32);
        while units != 0 {
            let j = units.trailing_zeros();
            units &= units - 1;
            // Where logical unit j sits: after the stored units before it.
            let rank = (stored & ((1 << j) - 1)).count_ones();
            let base = self.offset + rank * partial_bytes;
            let start = lo.max(j * partial_bytes) - j * partial_bytes;
            let end = hi.min((j + 1) * partial_bytes) - j * partial_bytes;
            f(base + start, base + end);
        }
    }
}

/// Bits `first..=last`.
fn bits(first: u32, last: u32) -> u32 {
    let width = last - first + 1;
    let ones = if width >= 32 {
        u32::MAX
    } else {
        (1 << width) - 1
    };
    ones << first
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ranges(s: UnitShape, lo: u32, hi: u32) -> Vec<(u32, u32)> {
        let mut v = Vec::new();
        s.page_ranges(lo, hi, 4096, |a, b| v.push((a, b)));
        v
    }

    #[test]
    fn a_raw_unit_is_read_where_the_asked_bytes_are_stored() {
        // Fig. 9's LPN 907: zero bitmap 0111 read as "units 0–2 zero": only unit 3 is stored, at
        // the page's start.
        let s = UnitShape {
            zero_bitmap: 0b0111,
            ..UnitShape::raw(4096)
        };
        assert_eq!(ranges(s, 0, 16384), vec![(0, 4096)]);
        assert_eq!(ranges(s, 12288 + 100, 12288 + 200), vec![(100, 200)]);
        assert!(ranges(s, 0, 12288).is_empty(), "zero units need no read");
        // No zero units: bytes map straight through, from the unit's offset.
        let whole = UnitShape {
            offset: 4096,
            ..UnitShape::raw(16384)
        };
        assert_eq!(
            ranges(whole, 5000, 9000),
            vec![(4096 + 5000, 4096 + 8192), (4096 + 8192, 4096 + 9000)]
        );
    }

    #[test]
    fn a_compressed_unit_is_read_whole_unless_only_zero_units_are_asked() {
        let s = UnitShape {
            kind: UnitKind::Compressed,
            offset: 3000,
            len: 5000,
            zero_bitmap: 0b1000,
            row: 0,
        };
        assert_eq!(ranges(s, 0, 512), vec![(3000, 8000)]);
        assert!(ranges(s, 12288, 16384).is_empty());
        assert_eq!(s.partial_bitmap(4096), 0b11);
    }

    proptest! {
        #[test]
        fn shapes_survive_packing(
            kind in 0u8..3,
            offset in 0u32..65536,
            len in 1u32..=65536,
            zero_bitmap: u16,
            row: u8,
        ) {
            let kind = [UnitKind::Raw, UnitKind::Compressed, UnitKind::Split][kind as usize];
            let s = UnitShape { kind, offset, len, zero_bitmap, row };
            prop_assert_eq!(UnitShape::unpack(s.pack()), s);
        }
    }
}
