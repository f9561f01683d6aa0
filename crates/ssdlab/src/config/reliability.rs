//! `[reliability]`: how many raw bit errors a read finds and what decoding them costs
//! (`flash/reliability.rs`). `fixed` (the default) charges every read `timing.ecc_decode_ns`;
//! `power_law` computes each read's raw bit error rate from its block's wear and its page's
//! program disturb, and the ECC decode time and read retries from that (IPU, techniques.md §0.5,
//! §3.4, §3.5).

use serde::{Deserialize, Serialize};

use super::checks::{positive, positive_real};
use super::tagged::tagged_table;
use crate::error::Error;
use crate::nand::CellMode;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReliabilityConfig {
    /// Every read decodes in `timing.ecc_decode_ns`; no errors are modelled.
    #[default]
    Fixed,
    PowerLaw(Box<PowerLawConfig>),
}

tagged_table!("model": ReliabilityConfig);

/// The power-law RBER model with partial-program disturb, and a decode time that grows with
/// the errors found (techniques.md §3.5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerLawConfig {
    /// Decode time of a codeword with no raw bit error (the IPU slides' "ECC min decode time",
    /// 0.0005 ms).
    pub ecc_min_decode_ns: u64,
    /// Decode time of a codeword at the correction limit (the slides' "ECC max decode time",
    /// 0.0968 ms).
    pub ecc_max_decode_ns: u64,
    /// Raw bit errors the ECC corrects in one codeword (`geometry.codeword_size_bytes`).
    pub correctable_bits_per_codeword: u32,
    /// Read retries (each a new sensing with shifted reference voltages) before a read is
    /// counted uncorrectable.
    pub max_read_retries: u32,
    /// By how much each retry divides the raw bit errors.
    pub retry_error_divisor: f64,
    /// The model's parameters for each cell mode the device's regions use.
    #[serde(default)]
    pub slc: Option<RberConfig>,
    #[serde(default)]
    pub mlc: Option<RberConfig>,
    #[serde(default)]
    pub tlc: Option<RberConfig>,
}

/// RBER = ε + α·PE^k + β·PE^m·t^n + γ·PE^p·reads^q + δ_in·(later programs of the page) +
/// δ_nb·(programs of the neighbouring wordlines), with PE the block's program/erase cycles, t the
/// hours since the block was last programmed and reads the block's reads since its erase
/// (techniques.md §0.5 and §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RberConfig {
    pub epsilon: f64,
    pub alpha: f64,
    pub k: f64,
    #[serde(default)]
    pub beta: f64,
    #[serde(default)]
    pub m: f64,
    #[serde(default)]
    pub n: f64,
    pub gamma: f64,
    pub p: f64,
    pub q: f64,
    /// δ_in: added per partial program of the page after the subpage was written.
    pub partial_program_disturb: f64,
    /// δ_nb: added per program of an adjacent wordline after the page was written.
    pub neighbour_program_disturb: f64,
}

impl PowerLawConfig {
    /// The parameters of `mode`.
    pub fn params(&self, mode: CellMode) -> Option<&RberConfig> {
        match mode {
            CellMode::Slc => self.slc.as_ref(),
            CellMode::Mlc => self.mlc.as_ref(),
            CellMode::Tlc => self.tlc.as_ref(),
        }
    }
}

impl ReliabilityConfig {
    pub fn is_fixed(&self) -> bool {
        *self == ReliabilityConfig::Fixed
    }

    /// Check the keys, and that every cell mode of `modes` (the regions') has parameters.
    pub fn validate(&self, modes: &[CellMode]) -> Result<(), Error> {
        let ReliabilityConfig::PowerLaw(c) = self else {
            return Ok(());
        };
        positive(
            "reliability.correctable_bits_per_codeword",
            c.correctable_bits_per_codeword as u64,
        )?;
        if c.ecc_max_decode_ns < c.ecc_min_decode_ns {
            return Err(Error::config(
                "reliability.ecc_max_decode_ns",
                format!(
                    "{} is below reliability.ecc_min_decode_ns ({})",
                    c.ecc_max_decode_ns, c.ecc_min_decode_ns
                ),
            ));
        }
        if !(c.retry_error_divisor.is_finite() && c.retry_error_divisor > 1.0) {
            return Err(Error::config(
                "reliability.retry_error_divisor",
                format!("must be above 1 (got {})", c.retry_error_divisor),
            ));
        }
        for &mode in modes {
            let name = mode.name();
            let Some(r) = c.params(mode) else {
                return Err(Error::config(
                    &format!("reliability.{name}"),
                    format!("a region is {name}: give its RBER parameters"),
                ));
            };
            let terms = [
                ("epsilon", r.epsilon),
                ("alpha", r.alpha),
                ("k", r.k),
                ("beta", r.beta),
                ("m", r.m),
                ("n", r.n),
                ("gamma", r.gamma),
                ("p", r.p),
                ("q", r.q),
                ("partial_program_disturb", r.partial_program_disturb),
                ("neighbour_program_disturb", r.neighbour_program_disturb),
            ];
            for (key, v) in terms {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(Error::config(
                        &format!("reliability.{name}.{key}"),
                        format!("must be a finite number of at least 0 (got {v})"),
                    ));
                }
            }
            positive_real(&format!("reliability.{name}.epsilon"), r.epsilon)?;
        }
        Ok(())
    }
}
