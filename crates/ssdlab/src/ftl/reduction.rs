//! The data-reduction step every written unit passes through: it decides the unit's stored size
//! and the controller time it costs. Codecs (DPC, FPC, BDI, LZ4) become further policies.

use crate::config::ReductionConfig;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reduced {
    pub stored_bytes: u32,
    pub encode_ns: u64,
}

pub trait DataReduction: Send {
    /// Reduce the `version`-th write of logical unit `lpn` (`unit_bytes` long).
    fn reduce(&mut self, lpn: u32, version: u32, unit_bytes: u32) -> Reduced;
}

/// Units are stored as written.
pub struct Identity;

impl DataReduction for Identity {
    fn reduce(&mut self, _lpn: u32, _version: u32, unit_bytes: u32) -> Reduced {
        Reduced {
            stored_bytes: unit_bytes,
            encode_ns: 0,
        }
    }
}

pub fn build(config: &ReductionConfig) -> Box<dyn DataReduction> {
    match config {
        ReductionConfig::Identity => Box::new(Identity),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_keeps_size_and_costs_nothing() {
        assert_eq!(
            Identity.reduce(7, 1, 4096),
            Reduced {
                stored_bytes: 4096,
                encode_ns: 0
            }
        );
    }
}
