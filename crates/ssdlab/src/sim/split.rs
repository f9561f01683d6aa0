//! Programming a flushed split buffer (PR-SSD §4.3, Fig. 11): its rows are cut into vertical
//! packages, one per channel, and programmed on pages of one page type on `width` channels;
//! when no such pages are free now, its units are written as normal page requests instead.

use crate::flash::OpSource;
use crate::ftl::shape::UnitShape;
use crate::ftl::write_buffer::SealedPage;

use super::write::ProgramRecord;
use super::Simulation;

impl Simulation {
    #[inline(never)]
    pub(super) fn place_split(&mut self, rows: Vec<SealedPage>) {
        let Some(first) = rows.first() else {
            return;
        };
        let (region, writer) = self.key_destination(first.key);
        let stream_key = first.key / self.dev.ftl.buffer.lanes();
        let width = self.dev.policies.reduction.split_rows().len();
        let partial_bytes = self.dev.policies.reduction.partial_unit_bytes();
        let columns = self.dev.ftl.split_columns(&rows, width, partial_bytes);
        let entries: Vec<u32> = rows
            .iter()
            .flat_map(|r| r.entries.iter().copied())
            .collect();
        let waiters: Vec<Vec<u32>> = rows.into_iter().map(|r| r.waiters).collect();
        match (self.dev.ftl).split_pages(region, writer, width, self.dev.now) {
            Some(pages) => {
                self.dev.stats.reduction.split_buffers += 1;
                let waiters = self.share_waiters(waiters, pages.len() as u32);
                let units = entries.len() as u32;
                for (j, (page, column)) in pages.into_iter().zip(columns).enumerate() {
                    let live = column.live().count() as u64;
                    self.dev.stats.padded_slots += width as u64 - live;
                    self.dev.ftl.fill_page(page, &column);
                    let pool = self
                        .dev
                        .ftl
                        .pool_of_block(self.dev.ftl.geometry.block_of_page(page));
                    // The buffer's room comes back with the first program's end.
                    let owner = self.new_program(ProgramRecord {
                        page,
                        units: if j == 0 { units } else { 0 },
                        waiters: waiters.clone(),
                        source: OpSource::Host,
                        pool,
                        partial_slots: 0,
                    });
                    let op = self.program_op(page, OpSource::Host, owner);
                    self.dev.submit(op);
                    self.maybe_start_gc(pool);
                }
                self.dev.ftl.buffer.retire(entries);
            }
            None => {
                // Written unsplit: each live unit a raw page of its own in the direct lane.
                self.dev.stats.reduction.split_fallbacks += 1;
                let lane = self
                    .dev
                    .policies
                    .reduction
                    .lane_of(UnitShape::raw(partial_bytes));
                let key = self.dev.ftl.buffer.keys(stream_key, lane).start;
                let pages = self.dev.ftl.unsplit(entries, key);
                // Counted again as raw: at most what this statistics window counted as split
                // (units admitted before the window opened were counted in what it reset).
                let r = &mut self.dev.stats.reduction;
                let moved = (pages.len() as u64).min(r.split_units);
                r.split_units -= moved;
                r.raw_units += moved;
                let waiters = self.share_waiters(waiters, pages.len() as u32);
                for mut page in pages {
                    page.waiters = waiters.clone();
                    self.place_sealed(page);
                }
            }
        }
    }

    /// Requests waiting (`write_ack = "program"`) on the rows of a split buffer now wait on each
    /// of `programs` programs instead: one list for all, and each request's count of outstanding
    /// parts moved from its registrations on rows to one per program.
    /// With no program at all (every unit overwritten while buffered), they are done now.
    fn share_waiters(&mut self, rows: Vec<Vec<u32>>, programs: u32) -> Vec<u32> {
        let mut all: Vec<u32> = rows.into_iter().flatten().collect();
        if programs == 0 {
            for w in all {
                self.request_part_done(w, self.dev.now);
            }
            return Vec::new();
        }
        all.sort_unstable();
        let mut shared = Vec::new();
        for chunk in all.chunk_by(|a, b| a == b) {
            let r = &mut self.host.requests[chunk[0] as usize];
            r.pending = r.pending - chunk.len() as u32 + programs;
            shared.push(chunk[0]);
        }
        shared
    }
}
