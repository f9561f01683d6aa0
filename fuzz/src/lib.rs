//! The properties ssdlab's fuzz targets check, one module per input kind. Each target under
//! `src/bin/` is one line that hands libFuzzer's input to one of them; `scripts/fuzz.sh` builds
//! and runs the targets (docs/fuzzing.md).

pub mod config;
pub mod trace;
