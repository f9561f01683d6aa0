//! The integration tests, in one binary (built and linked once, where a binary per file took
//! a link each): each module is one concern's tests. `memory.rs` counts the heap of its own
//! process, the option-space harness has its own knobs (docs/fuzzing.md), and `validation.rs`
//! holds the engine to MQSim's figures as committed: they are binaries of their own. Run one module's tests with `cargo test -p ssdlab --test integration NAME::`.

#[path = "../common/mod.rs"]
mod common;

mod ablation;
mod bad_input;
mod codecs;
mod columns;
mod composed;
mod content;
mod differential;
mod experiment;
mod extending;
mod ipu;
mod melded;
mod nothing_to_replay;
mod pcm;
mod pr_ssd;
mod read_modes;
mod replay;
mod rosa;
mod snapshots;
mod spread_table1;
mod statistics_window;
mod timing;
mod trace_fuzz;
mod trace_parsers;
mod workloads;
