//! The host interface: NVMe commands and their data crossing a PCIe link, as MQSim models it
//! (Tavakkol et al., FAST 2018; `src/host/PCIe_Link.h`, `src/ssd/Host_Interface_NVMe.cpp`).
//!
//! The link has one serial resource per direction, each serving its messages in the order they
//! are sent (like a flash channel, a direction is just the time it next falls free). A message is
//! cut into transaction-layer packets of at most `tlp_max_payload_bytes`, each carrying the TLP
//! header, the data-link overhead and the physical framing; its bytes are spread over the lanes,
//! and a lane moves `GT/s × encoding / 8` bytes per ns for its PCIe generation. A memory read
//! request (the device asking for host memory) is one header-only packet.
//!
//! One command's exchanges, in NVMe's order:
//! 1. the host rings the submission-queue tail doorbell (a 2-byte write to the device);
//! 2. the device fetches the 64-byte submission-queue entry (a read request up, its completion
//!    down);
//! 3. a write fetches its data the same way, a trim its one 16-byte range (Dataset Management);
//!    the device holds the command from then on;
//! 4. once the command is done, a read's data goes up to host memory, then the 16-byte
//!    completion-queue entry; the host sees the completion when that entry has arrived, and
//!    rings the completion-queue head doorbell (2 bytes down, off the request's path).
//!
//! MQSim models the same messages but no trim; the trim's range fetch is ours. Interrupts are
//! not modelled (nor are they in MQSim).

use crate::config::{HostInterfaceConfig, HostProtocol};
use crate::trace::Op;

/// NVMe's submission- and completion-queue entries, a doorbell write, and one Dataset
/// Management range (NVM Express Base Specification 1.3, §4.2, §4.6, §3.1; NVM Command Set).
const SQE_BYTES: u64 = 64;
const CQE_BYTES: u64 = 16;
const DOORBELL_BYTES: u64 = 2;
const DSM_RANGE_BYTES: u64 = 16;
/// A memory read request's own payload field, as MQSim counts it (`PCIe_Link.h`).
const READ_REQUEST_BYTES: u64 = 4;

/// One direction of the link.
#[derive(Clone, Copy, Default)]
struct Direction {
    free_at: u64,
    busy_ns: u64,
}

impl Direction {
    /// Send a message of `ns` from `at` or when the direction falls free; returns when it ends.
    fn send(&mut self, at: u64, ns: u64) -> u64 {
        self.free_at = self.free_at.max(at) + ns;
        self.busy_ns += ns;
        self.free_at
    }
}

pub struct HostInterface {
    /// False for `protocol = "none"`: commands and data cross in no time.
    timed: bool,
    /// Lanes, packet payload and the time fraction's denominator are powers of two: their
    /// divisions are shifts (a division per packet count, lane share and rounding took more time
    /// than the rest of a request's link model).
    lanes_log2: u32,
    max_payload_log2: u32,
    /// Header, data-link and framing bytes of every packet.
    packet_overhead: u64,
    /// ns per byte on one lane, as the fraction `ns_num / 2^ns_den_log2`.
    ns_num: u64,
    ns_den_log2: u32,
    /// The fixed-size messages' times: a doorbell write, a memory read request, the submission
    /// and completion entries, a Dataset Management range.
    doorbell_ns: u64,
    read_request_ns: u64,
    sqe_ns: u64,
    cqe_ns: u64,
    dsm_range_ns: u64,
    to_device: Direction,
    to_host: Direction,
}

impl HostInterface {
    /// `config` must be validated (a known generation; lanes and payload size powers of two).
    pub fn new(config: &HostInterfaceConfig) -> HostInterface {
        let (ns_num, ns_den) = lane_ns_per_byte(config.pcie_generation).unwrap_or((1, 1));
        let mut link = HostInterface {
            timed: config.protocol == HostProtocol::Nvme,
            lanes_log2: config.pcie_lanes.max(1).ilog2(),
            max_payload_log2: config.tlp_max_payload_bytes.max(1).ilog2(),
            packet_overhead: (config.tlp_header_bytes
                + config.dllp_overhead_bytes
                + config.framing_overhead_bytes) as u64,
            ns_num,
            ns_den_log2: ns_den.ilog2(),
            doorbell_ns: 0,
            read_request_ns: 0,
            sqe_ns: 0,
            cqe_ns: 0,
            dsm_range_ns: 0,
            to_device: Direction::default(),
            to_host: Direction::default(),
        };
        link.doorbell_ns = link.data_ns(DOORBELL_BYTES);
        link.read_request_ns = link.wire_ns(link.packet_overhead + READ_REQUEST_BYTES);
        link.sqe_ns = link.data_ns(SQE_BYTES);
        link.cqe_ns = link.data_ns(CQE_BYTES);
        link.dsm_range_ns = link.data_ns(DSM_RANGE_BYTES);
        link
    }

    /// Time on the link of `bytes` on the wire, spread over the lanes.
    fn wire_ns(&self, bytes: u64) -> u64 {
        let per_lane = (bytes + (1 << self.lanes_log2) - 1) >> self.lanes_log2;
        (per_lane * self.ns_num + (1 << self.ns_den_log2) - 1) >> self.ns_den_log2
    }

    /// Time of a message carrying `payload` bytes (a memory write, or a read's completion).
    fn data_ns(&self, payload: u64) -> u64 {
        let max_payload = 1 << self.max_payload_log2;
        let (full, rest) = (
            payload >> self.max_payload_log2,
            payload & (max_payload - 1),
        );
        let mut bytes = full * (max_payload + self.packet_overhead);
        if rest > 0 {
            bytes += rest + self.packet_overhead;
        }
        self.wire_ns(bytes)
    }

    /// The device reads host memory from `at`: its request up, then `data_ns` of data down.
    fn fetch(&mut self, at: u64, data_ns: u64) -> u64 {
        let asked = self.to_host.send(at, self.read_request_ns);
        self.to_device.send(asked, data_ns)
    }

    /// The host submits a command of `op` on `bytes` at `at`; returns when the device holds the
    /// command and, for a write or a trim, its data (steps 1–3 above).
    pub fn submit(&mut self, at: u64, op: Op, bytes: u64) -> u64 {
        if !self.timed {
            return at;
        }
        let rung = self.to_device.send(at, self.doorbell_ns);
        let fetched = self.fetch(rung, self.sqe_ns);
        match op {
            Op::Read => fetched,
            Op::Write => self.fetch(fetched, self.data_ns(bytes)),
            Op::Trim => self.fetch(fetched, self.dsm_range_ns),
        }
    }

    /// The device finished a command of `op` on `bytes` at `at`; returns when the host sees its
    /// completion (step 4).
    pub fn complete(&mut self, at: u64, op: Op, bytes: u64) -> u64 {
        if !self.timed {
            return at;
        }
        let data_up = match op {
            Op::Read => self.to_host.send(at, self.data_ns(bytes)),
            Op::Write | Op::Trim => at,
        };
        let seen = self.to_host.send(data_up, self.cqe_ns);
        self.to_device.send(seen, self.doorbell_ns);
        seen
    }

    /// Time each direction spent moving messages: (to the device, to the host).
    pub fn busy_ns(&self) -> (u64, u64) {
        (self.to_device.busy_ns, self.to_host.busy_ns)
    }
}

/// ns per byte on one lane of PCIe generation `generation`, as a fraction: 2.5 and 5 GT/s with
/// 8b/10b encoding (generations 1, 2), 8, 16 and 32 GT/s with 128b/130b (3, 4, 5) (PCI Express
/// Base Specification 5.0, §4.2). `None` for another generation.
pub fn lane_ns_per_byte(generation: u32) -> Option<(u64, u64)> {
    // A byte is 8 bits; 8b/10b sends 10 bits for them, 128b/130b 8 × 130 / 128.
    match generation {
        1 => Some((4, 1)),
        2 => Some((2, 1)),
        3 => Some((130, 128)),
        4 => Some((130, 256)),
        5 => Some((130, 512)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen3_x4() -> HostInterfaceConfig {
        HostInterfaceConfig::default()
    }

    #[test]
    fn a_message_is_cut_into_packets_with_their_overheads() {
        let link = HostInterface::new(&gen3_x4());
        // 4 KiB in 32 packets of 128 + 28 bytes = 4992 bytes, 1248 per lane, × 130 / 128 ns.
        assert_eq!(link.data_ns(4096), (1248u64 * 130).div_ceil(128));
        // 16 bytes: one packet of 44 bytes, 11 per lane.
        assert_eq!(link.data_ns(16), (11u64 * 130).div_ceil(128));
        // A read request: 28 + 4 bytes, 8 per lane.
        assert_eq!(link.read_request_ns, (8u64 * 130).div_ceil(128));
        // 1 MiB on PCIe 1 x1 with 4 KiB packets: 256 × 4124 bytes at 4 ns each.
        let wide = HostInterface::new(&HostInterfaceConfig {
            pcie_generation: 1,
            pcie_lanes: 1,
            tlp_max_payload_bytes: 4096,
            ..gen3_x4()
        });
        assert_eq!(wide.data_ns(1 << 20), 256 * 4124 * 4);
    }

    #[test]
    fn a_write_fetches_its_data_and_a_read_sends_it_back() {
        let mut link = HostInterface::new(&gen3_x4());
        let doorbell = link.data_ns(DOORBELL_BYTES);
        let sqe = link.read_request_ns + link.data_ns(SQE_BYTES);
        let data = link.read_request_ns + link.data_ns(8192);
        assert_eq!(link.submit(0, Op::Write, 8192), doorbell + sqe + data);
        // A read submitted later, once the link is free, does not fetch data.
        assert_eq!(
            link.submit(100_000, Op::Read, 8192),
            100_000 + doorbell + sqe
        );
        let up = link.data_ns(8192) + link.data_ns(CQE_BYTES);
        assert_eq!(link.complete(200_000, Op::Read, 8192), 200_000 + up);
        assert_eq!(
            link.complete(300_000, Op::Write, 8192),
            300_000 + link.data_ns(CQE_BYTES)
        );
    }

    #[test]
    fn messages_in_one_direction_queue_behind_each_other() {
        let mut link = HostInterface::new(&gen3_x4());
        let one = link.complete(0, Op::Read, 1 << 20);
        // A second read completing at the same time waits for the first's data to go up.
        let two = link.complete(0, Op::Read, 4096);
        assert!(two > one, "{two} <= {one}");
        let (_, up) = link.busy_ns();
        assert_eq!(two, up, "the direction was never idle");
    }

    #[test]
    fn wider_and_newer_links_are_faster_and_none_takes_no_time() {
        let ns = |generation, lanes| {
            let c = HostInterfaceConfig {
                pcie_generation: generation,
                pcie_lanes: lanes,
                ..gen3_x4()
            };
            HostInterface::new(&c).data_ns(1 << 20)
        };
        assert!(ns(3, 8) < ns(3, 4) && ns(4, 4) < ns(3, 4) && ns(3, 4) < ns(2, 4));
        // Gen2 is twice Gen1's rate per lane.
        assert_eq!(ns(2, 1), ns(1, 2));
        let mut none = HostInterface::new(&HostInterfaceConfig {
            protocol: HostProtocol::None,
            ..gen3_x4()
        });
        assert_eq!(none.submit(5, Op::Write, 1 << 20), 5);
        assert_eq!(none.complete(7, Op::Read, 1 << 20), 7);
    }
}
