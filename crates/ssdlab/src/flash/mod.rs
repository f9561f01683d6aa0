//! The flash device: geometry and address arithmetic, operation latencies, and the timed
//! resources (dies, channels) that serialise operations.

pub mod geometry;
pub mod reliability;
pub mod scheduler;
pub mod timing;

pub use geometry::{
    BlockId, DieId, DieSet, Geometry, Medium, PageId, PlaneId, Region, SlotId, StripeCursor,
    StripeOrder,
};
pub use scheduler::{FlashOp, OpKind, OpShaper, OpSource, Scheduler, Suspension};
pub use timing::{ModeTiming, Timing};
