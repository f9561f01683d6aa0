//! Which plane a sealed page is programmed on.

use crate::config::AllocationConfig;
use crate::flash::{Geometry, PlaneId, Scheduler, StripeCursor, StripeOrder};

pub trait PlaneAllocator: Send {
    /// Plane for the next page of a write stream. `has_room(plane)` says whether the plane can
    /// take a page without waiting for GC.
    fn next_plane(&mut self, sched: &Scheduler, has_room: &dyn Fn(PlaneId) -> bool) -> PlaneId;
}

/// Static striping: page k goes to the plane given by k's digits in the configured order.
pub struct StaticStripe {
    cursor: StripeCursor,
}

impl PlaneAllocator for StaticStripe {
    fn next_plane(&mut self, _s: &Scheduler, _room: &dyn Fn(PlaneId) -> bool) -> PlaneId {
        self.cursor.next_plane()
    }
}

/// Dynamic: the plane with room whose die has the fewest queued operations; ties go to the plane
/// after the last one chosen (round robin), so an idle device still stripes.
pub struct LeastBusy {
    planes: u32,
    planes_per_die: u32,
    cursor: u32,
}

impl PlaneAllocator for LeastBusy {
    fn next_plane(&mut self, s: &Scheduler, room: &dyn Fn(PlaneId) -> bool) -> PlaneId {
        let mut best: Option<(bool, usize, PlaneId)> = None;
        for i in 0..self.planes {
            let p = (self.cursor + i) % self.planes;
            let key = (!room(p), s.die_load(p / self.planes_per_die));
            if best.is_none_or(|(r, l, _)| key < (r, l)) {
                best = Some((key.0, key.1, p));
            }
        }
        let p = best.map(|b| b.2).unwrap_or(0);
        self.cursor = (p + 1) % self.planes;
        p
    }
}

pub fn build(config: &AllocationConfig, g: &Geometry) -> Box<dyn PlaneAllocator> {
    match config {
        AllocationConfig::Static { order } => Box::new(StaticStripe {
            cursor: StripeOrder::new(order, g)
                .expect("stripe order checked by validation")
                .cursor(),
        }),
        AllocationConfig::Dynamic => Box::new(LeastBusy {
            planes: g.planes(),
            planes_per_die: g.planes_per_die,
            cursor: 0,
        }),
    }
}
