//! The units a page is filled with ([`Ftl::fill_page`](super::Ftl::fill_page)): a sealed page
//! of the write buffer, a page of GC's copies, a column of a split buffer.

use super::shape::UnitShape;
use super::NO_LPN;

/// The units of one page, in slot order: `(lpn, version)` per slot (`NO_LPN`: padding), and,
/// when units are shaped, each slot's shape, its offset that of its place in the packed page.
/// Units stored as written carry no shape (slot i holds bytes `i · unit ..` of its page): every
/// written unit passes through here, and a shape would only be copied and ignored. (The
/// default, an empty page of units stored as written, is a placeholder for `mem::take`.)
#[derive(Clone, Debug, Default)]
pub struct PageUnits {
    pub(super) units: Vec<(u32, u32)>,
    /// Parallel to `units` when `shaped`; empty otherwise.
    pub(super) shapes: Vec<UnitShape>,
    shaped: bool,
}

impl PageUnits {
    /// An empty page; `shaped`: the FTL keeps shapes (`DataReduction::keeps_shapes`).
    pub fn new(shaped: bool) -> PageUnits {
        PageUnits {
            units: Vec::new(),
            shapes: Vec::new(),
            shaped,
        }
    }

    /// `slots` slots of padding, of shaped units (to be `set`).
    pub fn padded(slots: usize) -> PageUnits {
        PageUnits {
            units: vec![(NO_LPN, 0); slots],
            shapes: vec![UnitShape::raw(0); slots],
            shaped: true,
        }
    }

    pub fn clear(&mut self) {
        self.units.clear();
        self.shapes.clear();
    }

    /// Append version `version` of `lpn`, stored as `shape()` says (asked only of shaped units).
    #[inline(always)]
    pub fn push(&mut self, lpn: u32, version: u32, shape: impl FnOnce() -> UnitShape) {
        self.units.push((lpn, version));
        if self.shaped {
            self.shapes.push(shape());
        }
    }

    /// Append a slot of padding.
    pub fn pad(&mut self) {
        self.units.push((NO_LPN, 0));
        if self.shaped {
            self.shapes.push(UnitShape::raw(0));
        }
    }

    /// Put version `version` of `lpn`, stored as `shape`, in slot `i` of a shaped page.
    pub fn set(&mut self, i: usize, lpn: u32, version: u32, shape: UnitShape) {
        debug_assert!(self.shaped);
        self.units[i] = (lpn, version);
        self.shapes[i] = shape;
    }

    /// Slots, padding included.
    pub fn len(&self) -> usize {
        self.units.len()
    }

    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// `(lpn, version, shape)` of each unit, padding left out (units stored as written: a raw
    /// shape of no length, which nothing reads).
    pub fn live_shaped(&self) -> impl Iterator<Item = (u32, u32, UnitShape)> + Clone + '_ {
        let shape = |i: usize| self.shapes.get(i).copied().unwrap_or(UnitShape::raw(0));
        (self.units.iter().enumerate())
            .filter(|(_, &(lpn, _))| lpn != NO_LPN)
            .map(move |(i, &(lpn, version))| (lpn, version, shape(i)))
    }

    /// Where the packing of a shaped page ends: the end of its last unit's bytes.
    pub fn packed_end(&self) -> u32 {
        (self.shapes.iter())
            .map(|s| s.offset + s.len)
            .max()
            .unwrap_or(0)
    }

    /// `(lpn, version)` of each unit, padding left out.
    pub fn live(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.units.iter().copied().filter(|&(lpn, _)| lpn != NO_LPN)
    }
}

/// A shaped page from `Some((lpn, version, shape))` per slot, `None` for padding.
impl FromIterator<Option<(u32, u32, UnitShape)>> for PageUnits {
    fn from_iter<I: IntoIterator<Item = Option<(u32, u32, UnitShape)>>>(iter: I) -> PageUnits {
        let mut page = PageUnits::new(true);
        for unit in iter {
            match unit {
                Some((lpn, version, shape)) => page.push(lpn, version, || shape),
                None => page.pad(),
            }
        }
        page
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_shaped_page_keeps_shapes_slot_by_slot() {
        let mut plain = PageUnits::new(false);
        plain.push(7, 1, || unreachable!("asked of a unit stored as written"));
        plain.pad();
        assert_eq!(
            (plain.len(), plain.live().collect::<Vec<_>>()),
            (2, vec![(7, 1)])
        );
        assert!(plain.shapes.is_empty());
        let mut shaped = PageUnits::new(true);
        shaped.pad();
        shaped.push(9, 2, || UnitShape::raw(100));
        assert_eq!(shaped.shapes.len(), 2, "padding keeps the shapes in step");
        assert_eq!((shaped.units[1], shaped.shapes[1].len), ((9, 2), 100));
        let mut column = PageUnits::padded(4);
        column.set(2, 5, 3, UnitShape::raw(4096));
        assert_eq!(column.live().collect::<Vec<_>>(), [(5, 3)]);
        assert_eq!(column.shapes[2].len, 4096);
    }
}
