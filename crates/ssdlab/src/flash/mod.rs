//! The flash device: geometry and address arithmetic, operation latencies, and the timed
//! resources (dies, channels) that serialise operations, their commands ordered by a scheduling
//! policy ([`SchedulingPolicy`]). It takes its own parameter types ([`GeometryParams`],
//! [`TimingParams`], `reliability::PowerLawParams`, [`KindRules`]) and imports nothing of the
//! config, the FTL or the engine: `device/` builds it from the config.

pub mod geometry;
pub mod medium;
pub mod reliability;
pub mod scheduler;
pub mod scheduling;
pub mod timing;

pub use geometry::{
    BlockId, DieId, DieSet, Geometry, GeometryParams, PageId, PcmParams, PlaneId, Region,
    RegionParams, SlotId, StripeCursor, StripeOrder, MAX_DIE_SETS,
};
pub use medium::{ArrayEnergy, DeviceEnergy, EnergyParams, Medium, Slots};
pub use scheduler::{FlashOp, OpKind, OpShaper, OpSource, Scheduler};
pub use scheduling::{KindRules, SchedulingPolicy, Suspension};
pub use timing::{ModeTiming, Timing, TimingParams};
