//! `[timing]`: the bus, the controller's fixed costs, and tR / tPROG / tBERS of each cell mode.

use serde::{Deserialize, Serialize};

use super::checks::{positive, positive_real};
use super::pcm::PcmTiming;
use crate::error::Error;
use crate::nand::CellMode;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
    /// Channel (bus) rate in mega-transfers per second.
    pub channel_rate_mts: f64,
    pub channel_width_bytes: u32,
    /// Exposed ECC decode latency after the last codeword of a read arrives (decoding of earlier
    /// codewords overlaps the transfer).
    pub ecc_decode_ns: u64,
    /// Controller firmware time per host command, charged once when the command arrives.
    pub firmware_ns: u64,
    /// The controller's cores running the firmware (`firmware.rs`): each command holds one for
    /// `firmware_ns`, so commands queue for them under load. 0 (the default): the firmware time
    /// is latency only, as if every command had a core of its own.
    #[serde(default, skip_serializing_if = "latency_only")]
    pub firmware_cores: u32,
    #[serde(default)]
    pub slc: Option<SlcTiming>,
    #[serde(default)]
    pub mlc: Option<MlcTiming>,
    #[serde(default)]
    pub tlc: Option<TlcTiming>,
    /// PCM's page read and write time (with `geometry.pcm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcm: Option<PcmTiming>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlcTiming {
    pub tr_ns: u64,
    pub tprog_ns: u64,
    pub tbers_ns: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MlcTiming {
    pub tr_lsb_ns: u64,
    pub tr_msb_ns: u64,
    pub tprog_lsb_ns: u64,
    pub tprog_msb_ns: u64,
    pub tbers_ns: u64,
    /// Sensing every page of a wordline in one command (melded read): the read levels of all
    /// its pages applied once (melded-pages.txt §3.1.1: X + 3Y for MLC's two pages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tr_melded_ns: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlcTiming {
    pub tr_lsb_ns: u64,
    pub tr_csb_ns: u64,
    pub tr_msb_ns: u64,
    pub tprog_lsb_ns: u64,
    pub tprog_csb_ns: u64,
    pub tprog_msb_ns: u64,
    pub tbers_ns: u64,
    /// Sensing the LSB, CSB and MSB pages of a wordline in one command (melded read,
    /// melded-pages.txt §3.1.1: X + 7Y = 166 µs, against X + Y, X + 2Y, X + 4Y for one page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tr_melded_ns: Option<u64>,
}

/// No firmware cores: the firmware time is latency only (and the key is left out of the
/// resolved config, which then reads as before the key existed).
fn latency_only(cores: &u32) -> bool {
    *cores == 0
}

impl SlcTiming {
    fn named_times(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("tr_ns", self.tr_ns),
            ("tprog_ns", self.tprog_ns),
            ("tbers_ns", self.tbers_ns),
        ]
    }
}

impl MlcTiming {
    fn named_times(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("tr_lsb_ns", self.tr_lsb_ns),
            ("tr_msb_ns", self.tr_msb_ns),
            ("tprog_lsb_ns", self.tprog_lsb_ns),
            ("tprog_msb_ns", self.tprog_msb_ns),
            ("tbers_ns", self.tbers_ns),
        ]
        .into_iter()
        .chain(self.tr_melded_ns.map(|ns| ("tr_melded_ns", ns)))
        .collect()
    }
}

impl TlcTiming {
    fn named_times(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("tr_lsb_ns", self.tr_lsb_ns),
            ("tr_csb_ns", self.tr_csb_ns),
            ("tr_msb_ns", self.tr_msb_ns),
            ("tprog_lsb_ns", self.tprog_lsb_ns),
            ("tprog_csb_ns", self.tprog_csb_ns),
            ("tprog_msb_ns", self.tprog_msb_ns),
            ("tbers_ns", self.tbers_ns),
        ]
        .into_iter()
        .chain(self.tr_melded_ns.map(|ns| ("tr_melded_ns", ns)))
        .collect()
    }
}

impl TimingConfig {
    /// The bus moves data. ECC decode and firmware time may be 0: a model that leaves them out
    /// (melded's Table 3 has no room for either).
    pub(super) fn validate(&self) -> Result<(), Error> {
        positive_real("timing.channel_rate_mts", self.channel_rate_mts)?;
        positive(
            "timing.channel_width_bytes",
            self.channel_width_bytes as u64,
        )?;
        if self.firmware_cores > 0 && self.firmware_ns == 0 {
            return Err(Error::config(
                "timing.firmware_cores",
                "cores serve the firmware's time per command, and timing.firmware_ns is 0: \
                 give the firmware a time, or leave its cores out",
            ));
        }
        match &self.pcm {
            Some(pcm) => pcm.validate(),
            None => Ok(()),
        }
    }

    /// The table of a cell mode that blocks use: present, and no read, program or erase time is
    /// 0 (a NAND array operation takes time; a 0 is a slip that would make the die's work free
    /// and the results silently wrong).
    pub(super) fn validate_mode(&self, mode: CellMode) -> Result<(), Error> {
        let times = match mode {
            CellMode::Slc => self.slc.as_ref().map(SlcTiming::named_times),
            CellMode::Mlc => self.mlc.as_ref().map(MlcTiming::named_times),
            CellMode::Tlc => self.tlc.as_ref().map(TlcTiming::named_times),
        };
        let Some(times) = times else {
            return Err(Error::config(
                &format!("timing.{}", mode.name()),
                "missing: blocks use this cell mode",
            ));
        };
        for (name, ns) in times {
            positive(&format!("timing.{}.{name}", mode.name()), ns)?;
        }
        Ok(())
    }

    /// The melded read time of a multi-level cell mode, if given.
    pub fn tr_melded_ns(&self, mode: CellMode) -> Option<u64> {
        match mode {
            CellMode::Slc => None,
            CellMode::Mlc => self.mlc.as_ref()?.tr_melded_ns,
            CellMode::Tlc => self.tlc.as_ref()?.tr_melded_ns,
        }
    }
}
