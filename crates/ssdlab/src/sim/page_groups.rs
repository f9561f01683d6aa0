//! The physical pages a host read needs, each with the codewords it wants there, in the order
//! first asked (spread.txt Fig. 5: a 16 KiB read whose units live in three pages asks three
//! pages).

use std::collections::HashMap;

use foldhash::fast::FixedState;

/// Groups a short read finds by a scan, from the newest (consecutive units usually share a page,
/// and scanning a few entries beats hashing).
const SCAN: usize = 16;

/// (page, wanted codewords) in first-asked order. Past [`SCAN`] groups, pages are found through
/// an index: a huge read asks for tens of thousands of pages, and a scan per unit made its time
/// quadratic in its size.
#[derive(Default)]
pub(super) struct PageGroups {
    groups: Vec<(u32, u64)>,
    /// Page → index in `groups`, kept once there are more than [`SCAN`] groups.
    index: HashMap<u32, u32, FixedState>,
}

impl PageGroups {
    pub(super) fn clear(&mut self) {
        self.groups.clear();
        self.index.clear();
    }

    /// Add `codewords` to `page`'s group, opening it if it is new. (A read of a few pages, the
    /// common case, is settled here inline; it is called for every unit a host read asks.)
    #[inline(always)]
    pub(super) fn add(&mut self, page: u32, codewords: u64) {
        if self.groups.len() < SCAN {
            match self.groups.iter().rposition(|&(p, _)| p == page) {
                Some(i) => self.groups[i].1 |= codewords,
                None => self.groups.push((page, codewords)),
            }
            return;
        }
        self.add_to_many(page, codewords);
    }

    /// `add` once the read has [`SCAN`] groups or more.
    #[inline(never)]
    fn add_to_many(&mut self, page: u32, codewords: u64) {
        let found = if self.groups.len() <= SCAN {
            self.groups.iter().rposition(|&(p, _)| p == page)
        } else {
            self.index.get(&page).map(|&i| i as usize)
        };
        match found {
            Some(i) => self.groups[i].1 |= codewords,
            None => {
                self.groups.push((page, codewords));
                if self.groups.len() == SCAN + 1 {
                    self.index = (self.groups.iter().enumerate())
                        .map(|(i, &(p, _))| (p, i as u32))
                        .collect();
                } else if self.groups.len() > SCAN + 1 {
                    self.index.insert(page, self.groups.len() as u32 - 1);
                }
            }
        }
    }

    pub(super) fn as_slice(&self) -> &[(u32, u64)] {
        &self.groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_keep_first_asked_order_and_merge_codewords_short_or_long() {
        for pages in [3u32, 40] {
            let mut g = PageGroups::default();
            // Each page asked twice, the second time after every other page: a scan and the
            // index must both find it.
            for round in 0..2 {
                for p in 0..pages {
                    g.add(1000 - p, 1 << round);
                }
            }
            let expected: Vec<(u32, u64)> = (0..pages).map(|p| (1000 - p, 0b11)).collect();
            assert_eq!(g.as_slice(), expected.as_slice());
            // A long read finds its pages through the index, not by a scan per unit.
            let indexed = if pages as usize > SCAN {
                pages as usize
            } else {
                0
            };
            assert_eq!(g.index.len(), indexed);
            g.clear();
            g.add(7, 1);
            assert_eq!(g.as_slice(), &[(7, 1)]);
        }
    }
}
