//! Where compressed units sit in a physical page, for the FTL: PR-SSD merges compressed units
//! into one page through a buffer (at most 12, §4.4.1; Fig. 9) and serves a read of a unit that
//! lies inside one 4 KiB partial-read unit of the page with a partial read, any other with a full
//! read (§4.2.3, Fig. 10).

use crate::error::Error;

/// How a unit's bytes are stored (a mapping entry's shape, `ftl/shape.rs`, says it of each unit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum UnitKind {
    /// Stored as written: its non-zero partial units back to back from `offset`, in order.
    Raw,
    /// Stored compressed: `len` bytes from `offset`, read whole and decompressed.
    Compressed,
    /// Split (PR-SSD §4.3): each non-zero partial unit on a page of its own channel, at partial
    /// index `row` of that page.
    Split,
}

/// A unit's place in its page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Byte offset in the page.
    pub offset: u32,
    /// Stored bytes.
    pub len: u32,
}

impl Slot {
    /// The partial-read units of `partial_bytes` the slot touches, as a bitmap (bit i = the i-th
    /// partial unit of the page; PR-SSD's "partial bitmap"). Empty for an empty slot; units past
    /// the 64th are not represented. A single set bit means one partial read serves it.
    pub fn partial_units(self, partial_bytes: u32) -> u64 {
        if self.len == 0 || partial_bytes == 0 {
            return 0;
        }
        let last_byte = self.offset as u64 + self.len as u64 - 1;
        let first = (self.offset / partial_bytes).min(64);
        let last = (last_byte / partial_bytes as u64).min(63) as u32;
        (first..=last).fold(0, |bits, i| bits | 1 << i)
    }
}

/// Why a unit was not added to the page being filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Nothing to store: an all-zero unit lives in the mapping table only.
    Empty,
    /// Larger than a whole page; never packable.
    TooLarge,
    /// The page has too little room left or already holds the maximum number of units: flush it
    /// and put the unit in the next (PR-SSD's merge buffer, Fig. 9).
    PageFull,
}

/// Fills one physical page with compressed units in arrival order.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PagePacker {
    page_bytes: u32,
    max_units: usize,
    align_bytes: u32,
    /// Where the next unit would start: the end of the units placed, rounded up to the
    /// alignment (kept, not derived, as the write buffer asks several times per unit written).
    next: u32,
    /// Units placed so far.
    units: usize,
}

impl PagePacker {
    /// A packer for pages of `page_bytes` holding at most `max_units` units (PR-SSD: 16 KiB,
    /// 12), each starting at a multiple of `align_bytes` (1 = packed back to back).
    pub fn new(page_bytes: u32, max_units: usize, align_bytes: u32) -> Result<PagePacker, Error> {
        if page_bytes == 0 {
            return Err(Error::config("page_bytes", "must be at least 1"));
        }
        if max_units == 0 {
            return Err(Error::config("max_units", "must be at least 1"));
        }
        if align_bytes == 0 || !page_bytes.is_multiple_of(align_bytes) {
            return Err(Error::config(
                "align_bytes",
                format!("{align_bytes} does not divide the page ({page_bytes} bytes)"),
            ));
        }
        Ok(PagePacker {
            page_bytes,
            max_units,
            align_bytes,
            next: 0,
            units: 0,
        })
    }

    /// Place a unit of `len` stored bytes after the ones already in the page.
    #[inline(always)]
    pub fn push(&mut self, len: u32) -> Result<Slot, Refusal> {
        if len == 0 {
            return Err(Refusal::Empty);
        }
        if len > self.page_bytes {
            return Err(Refusal::TooLarge);
        }
        if !self.fits(len) {
            return Err(Refusal::PageFull);
        }
        Ok(self.place(len))
    }

    /// `push` of a unit the caller knows fits (1 ..= page bytes, and [`PagePacker::fits`]).
    #[inline(always)]
    pub fn place(&mut self, len: u32) -> Slot {
        debug_assert!(len > 0 && self.fits(len), "{len} bytes do not fit");
        let slot = Slot {
            offset: self.next,
            len,
        };
        let end = self.next + len;
        // (Units packed back to back, the common case, need no division. The alignment divides
        // the page, so `next` stays within it.)
        self.next = match self.align_bytes {
            1 => end,
            align => end.next_multiple_of(align),
        };
        self.units += 1;
        slot
    }

    /// Whether a unit of `len` (1 ..= page) stored bytes fits in what is left of the page.
    #[inline(always)]
    pub fn fits(&self, len: u32) -> bool {
        // (`next` never passes the page's end.)
        self.units < self.max_units && len <= self.page_bytes - self.next
    }

    /// Whether no further unit fits: every unit place or every byte is used.
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.units >= self.max_units || self.next >= self.page_bytes
    }

    /// The fewest units of at most `max_len` stored bytes that can fill a page (leave it full,
    /// or not all fit in it): fewer always fit with room to spare, so a caller need not pack
    /// them to know.
    pub fn fewest_to_fill(&self, max_len: u32) -> usize {
        let room = max_len.next_multiple_of(self.align_bytes);
        (self.page_bytes.div_ceil(room) as usize).min(self.max_units)
    }

    /// Start an empty page.
    pub fn clear(&mut self) {
        self.next = 0;
        self.units = 0;
    }

    /// How many units are placed so far.
    pub fn len(&self) -> usize {
        self.units
    }

    pub fn is_empty(&self) -> bool {
        self.units == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_pack_back_to_back_until_the_page_is_full() {
        let mut p = PagePacker::new(16384, 12, 1).unwrap();
        assert_eq!(
            p.push(3000),
            Ok(Slot {
                offset: 0,
                len: 3000
            })
        );
        assert_eq!(
            p.push(4096),
            Ok(Slot {
                offset: 3000,
                len: 4096
            })
        );
        assert_eq!(p.push(0), Err(Refusal::Empty));
        assert_eq!(p.push(16385), Err(Refusal::TooLarge));
        assert!(p.fits(9288) && !p.fits(9289));
        assert_eq!(p.push(9288).map(|s| s.offset), Ok(7096)); // exactly fills 16384
        assert!(p.is_full() && !p.fits(1));
        assert_eq!(p.push(1), Err(Refusal::PageFull));
        assert_eq!(p.len(), 3);
        p.clear();
        assert!(p.is_empty() && p.fits(16384) && !p.is_full());
        assert_eq!(p.push(1).map(|s| s.offset), Ok(0));
    }

    #[test]
    fn at_most_max_units_per_page() {
        let mut p = PagePacker::new(16384, 12, 1).unwrap();
        for i in 0..12 {
            assert_eq!(p.push(100).map(|s| s.offset), Ok(i * 100));
        }
        assert!(p.is_full(), "twelve units fill it whatever bytes are left");
        assert_eq!(p.push(100), Err(Refusal::PageFull));
    }

    #[test]
    fn fewer_units_than_fewest_to_fill_never_fill_a_page() {
        // 16 KiB pages of 4 KiB units: four fill one. Of 5,000-byte units aligned to 16 bytes
        // (5,008 each), three take 15,024 bytes and the fourth does not fit. At most two units
        // a page: two.
        assert_eq!(
            PagePacker::new(16384, 4, 1).unwrap().fewest_to_fill(4096),
            4
        );
        let p = PagePacker::new(16384, 12, 16).unwrap();
        assert_eq!(p.fewest_to_fill(5000), 4);
        let mut q = p.clone();
        for _ in 0..3 {
            q.push(5000).unwrap();
        }
        assert!(!q.is_full() && !q.fits(5000));
        assert_eq!(PagePacker::new(16384, 2, 1).unwrap().fewest_to_fill(100), 2);
        // Units as large as the page: one.
        assert_eq!(p.fewest_to_fill(16384), 1);
    }

    #[test]
    fn alignment_pads_between_units() {
        let mut p = PagePacker::new(16384, 12, 16).unwrap();
        p.push(17).unwrap();
        assert_eq!(p.push(1).map(|s| s.offset), Ok(32));
        // The next unit starts at 48: 16,336 bytes fit, one more does not.
        assert!(p.fits(16336) && !p.fits(16337));
        assert!(PagePacker::new(16384, 12, 3).is_err());
        assert!(PagePacker::new(16384, 0, 1).is_err());
    }

    #[test]
    fn partial_units_of_a_slot() {
        let s = |offset, len| Slot { offset, len };
        assert_eq!(s(0, 4096).partial_units(4096), 0b0001);
        assert_eq!(s(0, 4097).partial_units(4096), 0b0011);
        assert_eq!(s(4095, 2).partial_units(4096), 0b0011);
        assert_eq!(s(4096, 4096).partial_units(4096), 0b0010);
        assert_eq!(s(3000, 9000).partial_units(4096), 0b0111);
        assert_eq!(s(12288, 4096).partial_units(4096), 0b1000);
        assert_eq!(s(0, 16384).partial_units(4096), 0b1111);
        assert_eq!(s(100, 0).partial_units(4096), 0);
        // 2 KiB partial units (SPREAD's codewords) work the same way.
        assert_eq!(s(3000, 2000).partial_units(2048), 0b0110);
        // Slots no packer makes still give an answer, not an overflow.
        assert_eq!(s(u32::MAX, u32::MAX).partial_units(4096), 0);
        assert_eq!(s(0, u32::MAX).partial_units(1), u64::MAX);
    }
}
