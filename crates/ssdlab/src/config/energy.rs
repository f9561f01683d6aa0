//! `[energy]`: power of the array phases and energy of the bus.

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Energy of flash operations (docs/config.md § energy): an array phase costs its power × its
/// time, scaled for reads by the read policy's sensing current (a partial read draws 0.6×, pr-ssd.txt
/// §2.3); the bus costs a fixed amount per byte moved either way. The defaults are our assumption
/// for a datasheet-class NAND die: 3.3 V × 25 mA (the typical array read, program and erase current
/// of ONFI parts) = 82.5 mW, and a 1.2 V NV-DDR3 interface drawing 30 mA while moving 800 MB/s =
/// 45 pJ per byte.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EnergyConfig {
    /// Power while sensing at normal current (tR).
    pub read_power_mw: f64,
    /// Power while programming (tPROG).
    pub program_power_mw: f64,
    /// Power while erasing (tBERS).
    pub erase_power_mw: f64,
    /// Energy per byte moved over a channel (data out of reads, into programs).
    pub transfer_pj_per_byte: f64,
}

impl Default for EnergyConfig {
    fn default() -> Self {
        EnergyConfig {
            read_power_mw: 82.5,
            program_power_mw: 82.5,
            erase_power_mw: 82.5,
            transfer_pj_per_byte: 45.0,
        }
    }
}

impl EnergyConfig {
    /// Every figure is finite and not negative (0 leaves that cost out).
    pub(super) fn validate(&self) -> Result<(), Error> {
        for (key, v) in [
            ("energy.read_power_mw", self.read_power_mw),
            ("energy.program_power_mw", self.program_power_mw),
            ("energy.erase_power_mw", self.erase_power_mw),
            ("energy.transfer_pj_per_byte", self.transfer_pj_per_byte),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::config(
                    key,
                    format!("must be a finite number ≥ 0 (got {v})"),
                ));
            }
        }
        Ok(())
    }
}
