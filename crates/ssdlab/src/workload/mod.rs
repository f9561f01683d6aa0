//! Synthetic workloads: a generator is a flow like a trace, producing its requests on demand from
//! a few parameters (read ratio, request sizes, address distribution, sequentiality, arrival
//! process, count or duration, seed: `config/generator.rs`, with their checks). Named workloads
//! built from the papers' descriptions ship as TOML files in `workloads/`
//! (`config/workloads.rs`), each saying which numbers come from which table. A flow's requests
//! reach the engine through a [`RequestSource`] (a generator, or a trace held in memory:
//! `sim::VecSource`), defined here so that the engine imports it and this module nothing of the
//! engine.

mod address;
mod generator;
mod size;
mod updates;

use crate::trace::TraceRequest;

pub use generator::GeneratorSource;
pub(crate) use size::SizeSampler;

/// A replayable sequence of requests in arrival order.
pub trait RequestSource: Send {
    /// Requests in the whole sequence.
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Start over from the first request (the engine reads a source once to precondition the
    /// units it reads before writing, then again to replay it).
    fn rewind(&mut self);
    fn next_request(&mut self) -> Option<TraceRequest>;
}
