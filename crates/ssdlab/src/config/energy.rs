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
    /// PCM's energy per bit of a page read and written (with `geometry.pcm`): PCM's cells cost
    /// energy per bit, not power × time. Default (absent): Lee et al., ISCA '09, array plus row
    /// buffer, 2.47 + 0.93 pJ read and 16.82 + 1.02 pJ written (docs/pcm-parameters.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcm_read_pj_per_bit: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcm_write_pj_per_bit: Option<f64>,
}

/// Lee et al.'s PCM energies per bit, read and written (see [`EnergyConfig`]).
pub const PCM_READ_PJ_PER_BIT: f64 = 2.47 + 0.93;
pub const PCM_WRITE_PJ_PER_BIT: f64 = 16.82 + 1.02;

impl EnergyConfig {
    /// PCM's energy of reading and of writing a page of `page_bytes`, in pJ.
    pub fn pcm_page_pj(&self, page_bytes: u32) -> (f64, f64) {
        let bits = page_bytes as f64 * 8.0;
        (
            bits * self.pcm_read_pj_per_bit.unwrap_or(PCM_READ_PJ_PER_BIT),
            bits * self.pcm_write_pj_per_bit.unwrap_or(PCM_WRITE_PJ_PER_BIT),
        )
    }
}

impl Default for EnergyConfig {
    fn default() -> Self {
        EnergyConfig {
            read_power_mw: 82.5,
            program_power_mw: 82.5,
            erase_power_mw: 82.5,
            transfer_pj_per_byte: 45.0,
            pcm_read_pj_per_bit: None,
            pcm_write_pj_per_bit: None,
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
            (
                "energy.pcm_read_pj_per_bit",
                self.pcm_read_pj_per_bit.unwrap_or(0.0),
            ),
            (
                "energy.pcm_write_pj_per_bit",
                self.pcm_write_pj_per_bit.unwrap_or(0.0),
            ),
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
