//! The controller's firmware as a timed resource: `timing.firmware_cores` cores, each host
//! command holding one for `timing.firmware_ns` once it is in the device (after the host
//! interface). Under load, commands queue for a core, so the firmware bounds the throughput as
//! well as adding latency. SimpleSSD models firmware on cores the same way (its HIL, ICL and FTL
//! latencies charged on the controller's CPU cores); MQSim charges none.
//!
//! With 0 cores (the default) the firmware time is latency only, as if every command had a core
//! of its own. A command takes the core that falls free first, in the order commands reach the
//! firmware; a core serves one command at a time.

/// The firmware's cores and what they did.
pub struct Firmware {
    ns: u64,
    /// When each core falls free; empty for latency-only firmware.
    free_at: Vec<u64>,
    pub stats: FirmwareStats,
}

/// The firmware's counters (they start over at the statistics window's boundary).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FirmwareStats {
    pub commands: u64,
    /// Time the cores spent on commands, summed over the cores.
    pub busy_ns: u64,
    /// Time commands waited for a core, summed over the commands.
    pub wait_ns: u64,
}

impl Firmware {
    /// Firmware of `cores` cores (0: latency only) taking `ns` a command.
    pub fn new(cores: u32, ns: u64) -> Firmware {
        Firmware {
            ns,
            free_at: vec![0; cores as usize],
            stats: FirmwareStats::default(),
        }
    }

    /// Whether commands hold cores (the summary then reports them).
    pub fn has_cores(&self) -> bool {
        !self.free_at.is_empty()
    }

    pub fn cores(&self) -> usize {
        self.free_at.len()
    }

    /// A command is in the device at `at`: returns when the firmware has done with it.
    pub fn serve(&mut self, at: u64) -> u64 {
        let Some(core) = (0..self.free_at.len()).min_by_key(|&c| self.free_at[c]) else {
            return at + self.ns;
        };
        let start = self.free_at[core].max(at);
        self.free_at[core] = start + self.ns;
        self.stats.commands += 1;
        self.stats.busy_ns += self.ns;
        self.stats.wait_ns += start - at;
        start + self.ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_cores_the_firmware_time_is_latency_only() {
        let mut f = Firmware::new(0, 5_000);
        assert_eq!((f.serve(0), f.serve(0), f.serve(10)), (5_000, 5_000, 5_010));
        assert!(!f.has_cores() && f.stats == FirmwareStats::default());
    }

    #[test]
    fn commands_queue_for_the_cores() {
        let mut f = Firmware::new(2, 100);
        // Two cores take the first two at once; the third waits for the first to fall free.
        assert_eq!([f.serve(0), f.serve(0), f.serve(0)], [100, 100, 200]);
        // An idle core starts a later command at once.
        assert_eq!(f.serve(500), 600);
        let s = f.stats;
        assert_eq!((s.commands, s.busy_ns, s.wait_ns), (4, 400, 100));
    }
}
