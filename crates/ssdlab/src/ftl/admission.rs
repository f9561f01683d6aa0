//! Admitting a written unit into the write buffer, the same for timed writes and preconditioning:
//! where it goes and how it is stored (`Ftl::route`), then the buffer: a rewrite of a unit still in its open page replaces it there; otherwise the old copy is
//! dropped and the unit joins its lane's open page, sealing the page first if the unit does not
//! fit (PR-SSD Fig. 9) and after if nothing more fits. A split unit goes to the first row of the
//! split buffer with room (Fig. 11), and the whole split buffer is sealed when a unit fits in no
//! row or no row has room left.

use std::ops::Range;

use super::placement::{Destination, Placement};
use super::shape::{UnitKind, UnitShape};
use super::split::SplitDecision;
use super::write_buffer::SealedPage;
use super::{Ftl, Location};

/// What must be programmed now.
#[derive(Debug)]
pub enum Sealed {
    Page(SealedPage),
    /// The rows of a split buffer (those holding anything), to be cut into columns.
    Split(Vec<SealedPage>),
}

/// Where an admitted unit went.
#[derive(Clone, Copy, Debug)]
pub struct Admitted {
    /// The open page whose deadline (`ftl.write_buffer_timeout_ns`) covers it: its own, or the
    /// split buffer's first row.
    pub deadline_key: usize,
    /// The deadline page was empty before: its timeout starts now.
    pub was_empty: bool,
    /// It replaced its previous version in place.
    pub rewritten: bool,
    /// How many of the pages sealed were sealed before the unit went in (to be programmed
    /// before the unit's page is opened).
    pub sealed_before: usize,
    /// The waiter was newly registered on the unit's page.
    pub waiting: bool,
}

/// Where a written unit goes, and how it is stored there.
#[derive(Clone, Copy, Debug)]
pub struct Route {
    pub dest: Destination,
    pub shape: UnitShape,
    /// The destination's medium rewrites its slots in place (PCM).
    pub in_place: bool,
}

impl Ftl {
    /// Where unit `lpn`, reduced to `shape` and written for the `updates`-th time by a host
    /// request of `request_bytes`, goes: the placement's destination, unless the unit waits in
    /// an open page bound for a region written in place (its rewrite goes on there:
    /// `buffered_for_in_place`). A medium that rewrites in place stores units as written
    /// (`in_place.rs`); a unit bound for the flash that failed to compress is split
    /// across channels if the split decision says so (PR-SSD §4.3.1). `streams`: the write
    /// streams per region.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn route(
        &self,
        lpn: u32,
        updates: u8,
        mut shape: UnitShape,
        placement: &mut (dyn Placement + '_),
        split: Option<&mut (dyn SplitDecision + '_)>,
        request_bytes: u64,
        streams: usize,
    ) -> Route {
        let mut dest = placement.place(lpn, updates);
        // (No lookups where no medium rewrites in place.)
        let in_place = self.geometry.rewrites_in_place_anywhere() && {
            if let Some(region) = self.buffered_for_in_place(lpn, streams) {
                dest = Destination { region, stream: 0 };
            }
            !self.geometry.regions[dest.region]
                .medium
                .stores_shaped_units()
        };
        if in_place {
            shape = UnitShape::raw(self.geometry.unit_bytes);
        }
        if let (UnitKind::Raw, Some(split), false) = (shape.kind, split, in_place) {
            if split.split(lpn, request_bytes) {
                shape.kind = UnitKind::Split;
            }
        }
        Route {
            dest,
            shape,
            in_place,
        }
    }

    /// Put version `version` of `lpn`, stored as `shape`, into one of open pages `keys` (one
    /// lane's page, or a split buffer's rows: `WriteBuffer::keys`), registering `waiter` (a
    /// request acknowledged when the page is programmed) on the page it goes to; pages to
    /// program now are added to `sealed`, in the order they must be programmed.
    /// (Inline: every written unit passes here; the split buffer's rows are out of line.)
    #[inline(always)]
    pub fn buffer_unit(
        &mut self,
        lpn: u32,
        version: u32,
        shape: UnitShape,
        keys: Range<usize>,
        waiter: Option<u32>,
        sealed: &mut Vec<Sealed>,
    ) -> Admitted {
        let already = sealed.len();
        let current = self.lookup(lpn);
        if let Location::Buffered(e) = current {
            if let Some(key) = self
                .buffer
                .rewrite_in_place(e, keys.clone(), version, shape)
            {
                return Admitted {
                    deadline_key: keys.start,
                    was_empty: false,
                    rewritten: true,
                    sealed_before: 0,
                    waiting: self.buffer.add_waiter(key, waiter),
                };
            }
        }
        self.unmap_from(lpn, current);
        if keys.len() == 1 {
            let key = keys.start;
            if let Some(s) = self.buffer.seal_if_cannot_fit(key, shape.len) {
                sealed.push(Sealed::Page(s));
            }
            let sealed_before = sealed.len() - already;
            let (e, was_empty) = self.buffer.push(key, lpn, version, shape);
            self.map_buffered(lpn, e);
            let waiting = self.buffer.add_waiter(key, waiter);
            if let Some(s) = self.buffer.seal_if_full(key) {
                sealed.push(Sealed::Page(s));
            }
            return Admitted {
                deadline_key: key,
                was_empty,
                rewritten: false,
                sealed_before,
                waiting,
            };
        }
        self.buffer_split_unit(lpn, version, shape, keys, waiter, sealed)
    }

    /// `buffer_unit` into the rows `keys` of a split buffer.
    #[inline(never)]
    fn buffer_split_unit(
        &mut self,
        lpn: u32,
        version: u32,
        shape: UnitShape,
        keys: Range<usize>,
        waiter: Option<u32>,
        sealed: &mut Vec<Sealed>,
    ) -> Admitted {
        let already = sealed.len();
        let key = match self.buffer.first_fit(keys.clone(), shape.len) {
            Some(key) => key,
            None => {
                sealed.push(Sealed::Split(self.buffer.seal_all(keys.clone())));
                keys.start
            }
        };
        let sealed_before = sealed.len() - already;
        let was_empty = self.buffer.all_empty(keys.clone());
        let (e, _) = self.buffer.push(key, lpn, version, shape);
        self.map_buffered(lpn, e);
        let waiting = self.buffer.add_waiter(key, waiter);
        if self.buffer.all_full(keys.clone()) {
            sealed.push(Sealed::Split(self.buffer.seal_all(keys.clone())));
        }
        Admitted {
            deadline_key: keys.start,
            was_empty,
            rewritten: false,
            sealed_before,
            waiting,
        }
    }
}
