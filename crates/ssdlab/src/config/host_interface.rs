//! `[host_interface]`: how commands and data cross between host and device
//! (`crate::host_interface`).

use serde::{Deserialize, Serialize};

use super::checks::positive;
use crate::error::Error;
use crate::host_interface::lane_ns_per_byte;

/// How commands and data cross between host and device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostProtocol {
    /// NVMe over PCIe, as MQSim models it.
    #[default]
    Nvme,
    /// No host interface: commands and data cross in no time (an ideal link, for ablations).
    None,
}

/// The host interface: NVMe over a PCIe link. The defaults are MQSim's (`PCIe_Link.h`: 4 lanes
/// of about 1 GB/s, i.e. PCIe 3; 128-byte packets; 20 + 6 + 2 bytes of overhead each).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostInterfaceConfig {
    #[serde(default)]
    pub protocol: HostProtocol,
    /// PCIe generation 1 to 5: the lane rate and encoding.
    #[serde(default = "default_pcie_generation")]
    pub pcie_generation: u32,
    #[serde(default = "default_pcie_lanes")]
    pub pcie_lanes: u32,
    /// Largest data payload of one transaction-layer packet (PCIe's Max_Payload_Size).
    #[serde(default = "default_tlp_max_payload_bytes")]
    pub tlp_max_payload_bytes: u32,
    /// Transaction-layer packet header (with its digest), as MQSim counts it.
    #[serde(default = "default_tlp_header_bytes")]
    pub tlp_header_bytes: u32,
    /// Data-link layer overhead per packet (sequence number and LCRC).
    #[serde(default = "default_dllp_overhead_bytes")]
    pub dllp_overhead_bytes: u32,
    /// Physical-layer framing per packet (start and end symbols).
    #[serde(default = "default_framing_overhead_bytes")]
    pub framing_overhead_bytes: u32,
}

fn default_pcie_generation() -> u32 {
    3
}
fn default_pcie_lanes() -> u32 {
    4
}
fn default_tlp_max_payload_bytes() -> u32 {
    128
}
fn default_tlp_header_bytes() -> u32 {
    20
}
fn default_dllp_overhead_bytes() -> u32 {
    6
}
fn default_framing_overhead_bytes() -> u32 {
    2
}

impl Default for HostInterfaceConfig {
    fn default() -> Self {
        HostInterfaceConfig {
            protocol: HostProtocol::Nvme,
            pcie_generation: default_pcie_generation(),
            pcie_lanes: default_pcie_lanes(),
            tlp_max_payload_bytes: default_tlp_max_payload_bytes(),
            tlp_header_bytes: default_tlp_header_bytes(),
            dllp_overhead_bytes: default_dllp_overhead_bytes(),
            framing_overhead_bytes: default_framing_overhead_bytes(),
        }
    }
}

/// Link widths PCIe defines (Base Specification 5.0, §4.2.4.10).
const LANE_COUNTS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// Max_Payload_Size values PCIe defines (Base Specification 5.0, §7.5.3.4).
const MAX_PAYLOADS: [u32; 6] = [128, 256, 512, 1024, 2048, 4096];

impl HostInterfaceConfig {
    pub(super) fn validate(&self) -> Result<(), Error> {
        if lane_ns_per_byte(self.pcie_generation).is_none() {
            return Err(Error::config(
                "host_interface.pcie_generation",
                format!("must be 1 to 5 (got {})", self.pcie_generation),
            ));
        }
        if !LANE_COUNTS.contains(&self.pcie_lanes) {
            return Err(Error::config(
                "host_interface.pcie_lanes",
                format!("must be one of {LANE_COUNTS:?} (got {})", self.pcie_lanes),
            ));
        }
        if !MAX_PAYLOADS.contains(&self.tlp_max_payload_bytes) {
            return Err(Error::config(
                "host_interface.tlp_max_payload_bytes",
                format!(
                    "must be one of {MAX_PAYLOADS:?} (got {})",
                    self.tlp_max_payload_bytes
                ),
            ));
        }
        // A packet without a header cannot be routed; the link-layer and framing bytes may be
        // left out to model an idealised link.
        positive(
            "host_interface.tlp_header_bytes",
            self.tlp_header_bytes as u64,
        )?;
        for (key, v) in [
            ("host_interface.tlp_header_bytes", self.tlp_header_bytes),
            (
                "host_interface.dllp_overhead_bytes",
                self.dllp_overhead_bytes,
            ),
            (
                "host_interface.framing_overhead_bytes",
                self.framing_overhead_bytes,
            ),
        ] {
            if v > 4096 {
                return Err(Error::config(
                    key,
                    format!("must be at most 4096 (got {v})"),
                ));
            }
        }
        Ok(())
    }
}
