//! ssdlab: a fast, faithful, extensible discrete-event SSD simulator.
//!
//! The engine: `config` (typed TOML), `event_queue` (time-ordered events, below both the device
//! and the engine), `flash` (geometry, timing, timed dies and channels), `nand` (the words both
//! name), `device` (the flash built from the config, and the validation that needs it), `ftl`
//! (mapping, write buffer, GC, and the policies the papers vary), `sim` (the event loop), `trace`
//! (parsers), `workload` (generators and named workloads), `stats` (summaries). `run` ties them into one call.

pub mod bench;
pub mod cli;
pub mod codec;
pub mod codec_study;
pub mod config;
pub mod content;
pub mod data_cache;
pub mod device;
pub mod error;
pub mod event_queue;
pub mod experiment;
pub mod firmware;
pub mod flash;
pub mod ftl;
pub mod host_interface;
pub mod nand;
pub mod permutation;
pub mod run;
pub mod sim;
pub mod stats;
pub mod trace;
pub mod workload;

#[cfg(test)]
mod test_support;

pub use config::Config;
pub use error::Error;
pub use run::{simulate, RunResult};
pub use sim::{RunOptions, Simulation};

/// The crate version, written into every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
