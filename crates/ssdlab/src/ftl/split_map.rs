//! Where the parts of split logical pages live: PR-SSD's split mapping table (pr-ssd.txt §4.3.2,
//! Fig. 13), one (PPN, partial index) per part, and how a flushed split buffer becomes one page
//! per channel ("vertical packages", §4.3, Fig. 11).
//!
//! A split LPN's mapping entry points at its first part's slot (so lookups, the oracle and the
//! end-of-run sweep treat it as any stored unit); the table lists every part. A part's slot is
//! valid while the table lists it. GC moves parts one by one: "the other split data, which are
//! stored in different channels, will be maintained".

use super::page_units::PageUnits;
use super::shape::{UnitKind, UnitShape};
use super::write_buffer::SealedPage;
use super::{Ftl, Writer, NO_LPN};
use crate::flash::{PageId, PlaneId, SlotId};

/// One part of a split LPN: its slot, and where its bytes start in the slot's page (its partial
/// index × the partial unit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SplitPart {
    pub slot: SlotId,
    pub offset: u32,
}

impl Ftl {
    /// The parts of split `lpn`, in the order of its non-zero partial units.
    pub fn split_parts(&self, lpn: u32) -> &[SplitPart] {
        self.split_parts.get(&lpn).map_or(&[], Vec::as_slice)
    }

    /// Whether `slot` holds one of split `lpn`'s current parts.
    pub(super) fn is_split_part(&self, lpn: u32, slot: SlotId) -> bool {
        self.split_parts(lpn).iter().any(|p| p.slot == slot)
    }

    /// Part `part` of split `lpn` is now in `slot`, at byte `offset` of its page.
    #[inline(never)]
    pub(super) fn record_split_part(&mut self, lpn: u32, part: usize, slot: SlotId, offset: u32) {
        let parts = self.split_parts.entry(lpn).or_default();
        if parts.len() <= part {
            parts.resize(part + 1, SplitPart { slot, offset });
        }
        parts[part] = SplitPart { slot, offset };
    }

    /// The index of `lpn`'s part in `slot`.
    pub fn split_part_index(&self, lpn: u32, slot: SlotId) -> Option<usize> {
        self.split_parts(lpn).iter().position(|p| p.slot == slot)
    }

    /// Cut the rows of a flushed split buffer into columns: column `j`'s page holds, in slot
    /// `r`, the part of row `r`'s unit that lies in partial unit `j` of the row (or padding).
    /// Units overwritten or trimmed while buffered are padding.
    pub fn split_columns(
        &self,
        rows: &[SealedPage],
        width: usize,
        partial_bytes: u32,
    ) -> Vec<PageUnits> {
        let mut columns = vec![PageUnits::padded(width); width];
        for sealed in rows {
            for &e in &sealed.entries {
                let entry = self.buffer.entry(e);
                let live = entry.lpn != NO_LPN && self.holds_buffered(entry.lpn, e);
                if !live {
                    continue;
                }
                let s = self.buffer.shape(e);
                let row = s.row as usize;
                let first = (s.offset / partial_bytes) as usize;
                for part in 0..(s.len / partial_bytes) as usize {
                    let shape = UnitShape {
                        kind: UnitKind::Split,
                        offset: row as u32 * partial_bytes,
                        len: partial_bytes,
                        zero_bitmap: s.zero_bitmap,
                        row: part as u8,
                    };
                    columns[first + part].set(row, entry.lpn, entry.version, shape);
                }
            }
        }
        columns
    }

    /// A flushed split buffer that cannot be split after all: each of its live units becomes a
    /// raw unit in a page of its own, sealed under `key` (the direct lane's open page); the
    /// entries of units overwritten while buffered leave the buffer now.
    pub fn unsplit(&mut self, entries: Vec<u32>, key: usize) -> Vec<SealedPage> {
        let mut pages = Vec::new();
        let mut dead = Vec::new();
        for e in entries {
            let entry = *self.buffer.entry(e);
            if entry.lpn == NO_LPN || !self.holds_buffered(entry.lpn, e) {
                dead.push(e);
                continue;
            }
            self.buffer.set_shape(
                e,
                UnitShape {
                    kind: UnitKind::Raw,
                    offset: 0,
                    row: 0,
                    ..self.buffer.shape(e)
                },
            );
            pages.push(SealedPage {
                key,
                entries: vec![e],
                waiters: Vec::new(),
            });
        }
        let n = dead.len() as u32;
        self.buffer.retire(dead);
        self.buffer.release(n);
        pages
    }

    /// The units of a sealed page for `fill_page`: its entries in order, those overwritten or
    /// trimmed while buffered as padding.
    pub fn sealed_units(&self, sealed: &SealedPage, out: &mut PageUnits) {
        out.clear();
        for &e in &sealed.entries {
            let entry = self.buffer.entry(e);
            match entry.lpn != NO_LPN && self.holds_buffered(entry.lpn, e) {
                true => out.push(entry.lpn, entry.version, || self.buffer.shape(e)),
                false => out.pad(),
            }
        }
    }

    /// The page type `writer`'s next page in `pool` would have.
    fn next_page_type(&self, pool: usize, writer: Writer) -> u8 {
        let p = &self.pools[pool];
        let active = match writer {
            Writer::Host { stream } => p.host_active[stream],
            Writer::Gc => p.gc_active,
        };
        let index = match active {
            Some(b) if self.blocks[b as usize].write_ptr < p.pages_per_block => {
                self.blocks[b as usize].write_ptr
            }
            _ => 0,
        };
        self.geometry.regions[p.region].page_types[index as usize]
    }

    /// Take one page on each of `width` different channels, all of one page type ("we split the
    /// requests when the page types of the four partial read requests are the same", §4.3), from
    /// `writer`'s blocks in `region`. Channels and the planes within them rotate with the split
    /// cursor so that split buffers spread over the device. None when no `width` channels offer a page
    /// of one type without waiting for GC.
    pub fn split_pages(
        &mut self,
        region: usize,
        writer: Writer,
        width: usize,
        now: u64,
    ) -> Option<Vec<PageId>> {
        let cursor = self.split_cursor;
        // The region's own dies, numbered channel by channel (PCM's come after the flash's).
        let dies = self.geometry.regions[region].dies;
        let channels = dies.channels;
        let planes_per_channel = dies.planes() / channels;
        let types = self.geometry.regions[region]
            .page_types
            .iter()
            .max()
            .map_or(1, |&t| t as usize + 1);
        // Per page type, the planes found so far (at most one per channel).
        let mut found: Vec<Vec<PlaneId>> = vec![Vec::new(); types];
        let mut chosen = None;
        'channels: for i in 0..channels {
            let channel = (cursor + i) % channels;
            let mut seen = vec![false; types];
            for k in 0..planes_per_channel {
                let plane = dies.first_plane
                    + channel * planes_per_channel
                    + (cursor / channels + k) % planes_per_channel;
                let pool = self.pool_index(plane, region);
                if !self.has_room(pool, writer) {
                    continue;
                }
                let t = self.next_page_type(pool, writer) as usize;
                if !seen[t] {
                    seen[t] = true;
                    found[t].push(plane);
                    if found[t].len() == width {
                        chosen = Some(t);
                        break 'channels;
                    }
                }
            }
        }
        let planes = std::mem::take(&mut found[chosen?]);
        self.split_cursor = cursor.wrapping_add(width as u32);
        planes
            .into_iter()
            .map(|plane| {
                let pool = self.pool_index(plane, region);
                self.alloc_page(pool, writer, now)
            })
            .collect()
    }
}
