//! `[geometry.pcm]` and `[timing.pcm]`: phase-change memory beside the flash (ROSA, Cho et al.,
//! rosa-pcm-hybrid.txt §2): PCM devices of their own on every channel, sharing its bus with the
//! flash dies but not their queues, written in place (no erase, no GC), a read and a write time
//! per page.

use serde::{Deserialize, Serialize};

use super::checks::{fraction, positive};
use crate::error::Error;

/// The name of the region PCM's blocks form (placement and migration name it).
pub const PCM_REGION: &str = "pcm";

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcmConfig {
    /// PCM's share of the device's raw capacity, both media together (ROSA §2: 20%, "based on
    /// the study by Kim et al.", FAST'14). Its blocks per PCM plane are derived from it.
    #[serde(default = "default_capacity_share")]
    pub capacity_share: f64,
    /// PCM devices on each channel, numbered after every flash die. Each has the flash dies'
    /// planes (banks that work in parallel), pages per block and page size (ROSA §3: "Both
    /// devices have 192 4KB pages per block").
    #[serde(default = "one")]
    pub dies_per_channel: u32,
}

fn default_capacity_share() -> f64 {
    0.2
}

fn one() -> u32 {
    1
}

impl PcmConfig {
    pub(super) fn validate(&self) -> Result<(), Error> {
        fraction("geometry.pcm.capacity_share", self.capacity_share, true)?;
        positive(
            "geometry.pcm.dies_per_channel",
            self.dies_per_channel as u64,
        )
    }

    /// Blocks in each PCM plane: PCM takes `capacity_share` of the flash's `flash_blocks` and
    /// its own together, spread over `pcm_planes` planes (rounded to the nearest block).
    pub fn blocks_per_plane(&self, flash_blocks: u64, pcm_planes: u64) -> u64 {
        let s = self.capacity_share;
        (s / (1.0 - s) * flash_blocks as f64 / pcm_planes as f64).round() as u64
    }
}

/// PCM's read and write time per page: one of the named sets, or both times.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcmTiming {
    /// `pcm1` … `pcm5` ([`PCM_SETS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_ns: Option<u64>,
}

/// ROSA's five PCM parameter sets (§3, Fig. 2): the paper gives only their span, read 2.5–30 µs
/// and write 25–300 µs, "taken from prior work [4, 6, 7]", not the pairs. Ours
/// (docs/presets.md § `rosa`): five pairs at the write/read ratio of 10 the span's two ends share,
/// read 2.5, 5, 10, 20 and 30 µs. PCM1's read and write (27.5 µs) match §3's overhead figure of
/// 192 page reads and writes in 5.28 ms.
pub const PCM_SETS: [(&str, u64, u64); 5] = [
    ("pcm1", 2_500, 25_000),
    ("pcm2", 5_000, 50_000),
    ("pcm3", 10_000, 100_000),
    ("pcm4", 20_000, 200_000),
    ("pcm5", 30_000, 300_000),
];

impl PcmTiming {
    /// The read and write time of a page (validated).
    pub fn read_write_ns(&self) -> (u64, u64) {
        match &self.set {
            Some(name) => PCM_SETS
                .iter()
                .find(|(n, ..)| n == name)
                .map_or((0, 0), |&(_, r, w)| (r, w)),
            None => (self.read_ns.unwrap_or(0), self.write_ns.unwrap_or(0)),
        }
    }

    pub(super) fn validate(&self) -> Result<(), Error> {
        match (&self.set, self.read_ns, self.write_ns) {
            (Some(name), None, None) => match PCM_SETS.iter().any(|(n, ..)| n == name) {
                true => Ok(()),
                false => Err(Error::config(
                    "timing.pcm.set",
                    format!(
                        "unknown PCM parameter set `{name}`; the sets are {}",
                        PCM_SETS.map(|s| s.0).join(", ")
                    ),
                )),
            },
            (Some(_), ..) => Err(Error::config(
                "timing.pcm.set",
                "names both times: give a set or read_ns and write_ns, not both",
            )),
            (None, Some(r), Some(w)) => {
                positive("timing.pcm.read_ns", r)?;
                positive("timing.pcm.write_ns", w)
            }
            (None, None, _) => Err(Error::config(
                "timing.pcm.read_ns",
                "missing: give it and write_ns, or a set (pcm1 … pcm5)",
            )),
            (None, Some(_), None) => Err(Error::config(
                "timing.pcm.write_ns",
                "missing: give it and read_ns, or a set (pcm1 … pcm5)",
            )),
        }
    }
}

impl super::Config {
    /// PCM in the device: its timing given (and only then), its reads decoded by a model of
    /// its own, and host writes reach it. Each refusal says what PCM cannot do and why. (PCM
    /// stores each unit as written in a slot of its own, taken again once the unit leaves:
    /// pages of any number of units, and compression on the flash, work; `ftl/pcm.rs`.)
    pub(super) fn validate_pcm(&self) -> Result<(), Error> {
        use super::{PlacementConfig, ReliabilityConfig};
        let f = &self.ftl;
        let Some(_) = &self.geometry.pcm else {
            if f.placement.flash().is_some() {
                return Err(Error::config(
                    "ftl.placement.flash",
                    "places the flash's share of the addresses apart from PCM's, and the device \
                     has no PCM (geometry.pcm): use that placement as ftl.placement itself",
                ));
            }
            let e = &self.energy;
            let key = match (
                &self.timing.pcm,
                e.pcm_read_pj_per_bit,
                e.pcm_write_pj_per_bit,
            ) {
                (Some(_), ..) => "timing.pcm",
                (_, Some(_), _) => "energy.pcm_read_pj_per_bit",
                (_, _, Some(_)) => "energy.pcm_write_pj_per_bit",
                _ => return Ok(()),
            };
            return Err(Error::config(
                key,
                "is PCM's, and the device has none (geometry.pcm)",
            ));
        };
        if self.timing.pcm.is_none() {
            return Err(Error::config(
                "timing.pcm",
                "missing: the device has PCM (geometry.pcm); give a set (pcm1 … pcm5) or read_ns \
                 and write_ns",
            ));
        }
        if !matches!(self.reliability, ReliabilityConfig::Fixed) {
            return Err(Error::config(
                "reliability.model",
                "the power-law error model is NAND's (program/erase wear, disturb, retention), \
                 and PCM's reads would be decoded by it: use `fixed` with PCM",
            ));
        }
        if !matches!(f.placement, PlacementConfig::Oblivious { .. }) {
            return Err(Error::config(
                "ftl.placement.policy",
                "no host write reaches PCM: with PCM, place data over both media (`oblivious`)",
            ));
        }
        Ok(())
    }
}
