//! Which plane a sealed page is programmed on.

use super::saved_state::{keeps_field, SavedState};
use crate::config::AllocationConfig;
use crate::flash::{DieSet, Geometry, PlaneId, Scheduler, StripeCursor, StripeOrder};

pub trait PlaneAllocator: SavedState + Send {
    /// Plane for the next page of a write stream. `has_room(plane)` says whether the plane can
    /// take a page without waiting for GC.
    fn next_plane(&mut self, sched: &Scheduler, has_room: &dyn Fn(PlaneId) -> bool) -> PlaneId;
}

/// Static striping: page k goes to the plane given by k's digits in the configured order.
pub struct StaticStripe {
    cursor: StripeCursor,
}

keeps_field!(StaticStripe, cursor, |p, c: &StripeCursor| c
    .fits(&p.cursor));

impl PlaneAllocator for StaticStripe {
    fn next_plane(&mut self, _s: &Scheduler, _room: &dyn Fn(PlaneId) -> bool) -> PlaneId {
        self.cursor.next_plane()
    }
}

/// Dynamic: the plane with room whose die has the fewest queued operations; ties go to the plane
/// after the last one chosen (round robin), so an idle device still stripes.
pub struct LeastBusy {
    first_plane: PlaneId,
    planes: u32,
    planes_per_die: u32,
    /// The next plane to look at first, counted from `first_plane`.
    cursor: u32,
}

keeps_field!(LeastBusy, cursor, |p, &c| c < p.planes);

impl PlaneAllocator for LeastBusy {
    fn next_plane(&mut self, s: &Scheduler, room: &dyn Fn(PlaneId) -> bool) -> PlaneId {
        let mut best: Option<(bool, usize, PlaneId)> = None;
        for i in 0..self.planes {
            let p = self.first_plane + (self.cursor + i) % self.planes;
            let key = (!room(p), s.die_load(p / self.planes_per_die));
            if best.is_none_or(|(r, l, _)| key < (r, l)) {
                best = Some((key.0, key.1, p));
            }
        }
        let p = best.map_or(self.first_plane, |b| b.2);
        self.cursor = (p - self.first_plane + 1) % self.planes;
        p
    }
}

/// One allocator for each set of dies (`Geometry::die_sets`): a page goes to a plane of the dies
/// its region is on.
pub fn build(config: &AllocationConfig, g: &Geometry) -> Vec<Box<dyn PlaneAllocator>> {
    g.die_sets
        .iter()
        .map(|set| build_one(config, set))
        .collect()
}

fn build_one(config: &AllocationConfig, g: &DieSet) -> Box<dyn PlaneAllocator> {
    match config {
        AllocationConfig::Static { order } => Box::new(StaticStripe {
            cursor: StripeOrder::new(order, g)
                .expect("stripe order checked by validation")
                .cursor(),
        }),
        AllocationConfig::Dynamic => Box::new(LeastBusy {
            first_plane: g.first_plane,
            planes: g.planes(),
            planes_per_die: g.planes_per_die,
            cursor: 0,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SchedulerConfig;
    use crate::flash::{FlashOp, OpKind, OpSource};
    use crate::test_support::small_geometry as geometry;

    fn busy(sched: &mut Scheduler, die: u32) {
        sched.submit(FlashOp {
            kind: OpKind::Erase,
            source: OpSource::Host,
            die,
            plane_in_die: 0,
            page_in_block: 0,
            target: 0,
            codewords: 0,
            array_ns: 1,
            transfer_ns: 0,
            owner: 0,
            issued_in: 0,
        });
    }

    #[test]
    fn static_stripes_in_the_configured_order() {
        let g = geometry();
        let mut a = build_one(
            &AllocationConfig::Static {
                order: "CWDP".into(),
            },
            &g.die_sets[0],
        );
        let s = crate::device::scheduler(&SchedulerConfig::default(), &g);
        let planes: Vec<_> = (0..8).map(|_| a.next_plane(&s, &|_| true)).collect();
        // 2 channels × 2 ways × 1 die × 2 planes: channel fastest, then way, then plane.
        assert_eq!(planes, vec![0, 4, 2, 6, 1, 5, 3, 7]);
    }

    #[test]
    fn dynamic_prefers_idle_dies_with_room_and_round_robins_ties() {
        let g = geometry();
        let mut a = build_one(&AllocationConfig::Dynamic, &g.die_sets[0]);
        let mut s = crate::device::scheduler(&SchedulerConfig::default(), &g);
        // Idle device: round robin over planes.
        assert_eq!(a.next_plane(&s, &|_| true), 0);
        assert_eq!(a.next_plane(&s, &|_| true), 1);
        // Dies 1 and 2 (planes 2–5) get queued work: the next least-busy plane is 6.
        busy(&mut s, 1);
        busy(&mut s, 2);
        assert_eq!(a.next_plane(&s, &|_| true), 6);
        // A plane without room loses to a busy plane with room.
        assert_eq!(a.next_plane(&s, &|p| p == 3), 3);
    }
}
