//! Latencies of one flash operation by cell mode and page type, and bus transfer time.

use crate::config::{CellMode, TimingConfig};

/// tR and tPROG by page type (index 0 = LSB / SLC), tBERS, for one cell mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModeTiming {
    pub tr_ns: [u64; 3],
    pub tprog_ns: [u64; 3],
    pub tbers_ns: u64,
}

#[derive(Clone, Debug)]
pub struct Timing {
    /// Indexed by `CellMode as usize` (SLC, MLC, TLC); `None` when the config gives no timing for
    /// the mode (validation guarantees every mode in use has one).
    modes: [Option<ModeTiming>; 3],
    /// Bytes the channel moves per microsecond (rate in MT/s × bus width).
    bytes_per_us: f64,
    pub ecc_decode_ns: u64,
    pub firmware_ns: u64,
}

fn mode_index(mode: CellMode) -> usize {
    match mode {
        CellMode::Slc => 0,
        CellMode::Mlc => 1,
        CellMode::Tlc => 2,
    }
}

impl Timing {
    pub fn new(t: &TimingConfig) -> Timing {
        let slc = t.slc.as_ref().map(|s| ModeTiming {
            tr_ns: [s.tr_ns; 3],
            tprog_ns: [s.tprog_ns; 3],
            tbers_ns: s.tbers_ns,
        });
        let mlc = t.mlc.as_ref().map(|m| ModeTiming {
            tr_ns: [m.tr_lsb_ns, m.tr_msb_ns, m.tr_msb_ns],
            tprog_ns: [m.tprog_lsb_ns, m.tprog_msb_ns, m.tprog_msb_ns],
            tbers_ns: m.tbers_ns,
        });
        let tlc = t.tlc.as_ref().map(|m| ModeTiming {
            tr_ns: [m.tr_lsb_ns, m.tr_csb_ns, m.tr_msb_ns],
            tprog_ns: [m.tprog_lsb_ns, m.tprog_csb_ns, m.tprog_msb_ns],
            tbers_ns: m.tbers_ns,
        });
        Timing {
            modes: [slc, mlc, tlc],
            bytes_per_us: t.channel_rate_mts * t.channel_width_bytes as f64,
            ecc_decode_ns: t.ecc_decode_ns,
            firmware_ns: t.firmware_ns,
        }
    }

    /// Timing of a cell mode; validation guarantees presence for every mode in use.
    pub fn mode(&self, mode: CellMode) -> ModeTiming {
        self.modes[mode_index(mode)].unwrap_or_default()
    }

    /// Time to move `bytes` over one channel, rounded to the nearest nanosecond (so that e.g.
    /// SPREAD's 2 KiB in 2.5 µs at 819.2 MT/s comes out exact).
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        (bytes as f64 * 1000.0 / self.bytes_per_us).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(rate: f64) -> TimingConfig {
        TimingConfig {
            channel_rate_mts: rate,
            channel_width_bytes: 1,
            ecc_decode_ns: 0,
            firmware_ns: 0,
            slc: None,
            mlc: None,
            tlc: None,
        }
    }

    #[test]
    fn transfer_time_is_bytes_over_rate() {
        assert_eq!(Timing::new(&cfg(400.0)).transfer_ns(4096), 10240);
        assert_eq!(Timing::new(&cfg(819.2)).transfer_ns(2048), 2500);
        assert_eq!(Timing::new(&cfg(819.2)).transfer_ns(16384), 20000);
        assert_eq!(Timing::new(&cfg(333.0)).transfer_ns(4096), 12300);
    }
}
