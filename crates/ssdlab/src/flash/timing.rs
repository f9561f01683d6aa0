//! Latencies of one flash operation by cell mode and page type, and bus transfer time.

use strength_reduce::StrengthReducedU64;

use super::Geometry;
use crate::nand::CellMode;

/// tR and tPROG by page type (index 0 = LSB / SLC), tBERS, for one cell mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModeTiming {
    pub tr_ns: [u64; 3],
    pub tprog_ns: [u64; 3],
    pub tbers_ns: u64,
    /// Sensing a whole wordline in one command (a melded read); 0 where not given.
    pub tr_melded_ns: u64,
}

/// What a device's timing is built from, in the flash model's own terms (`device::timing` reads
/// them from `[timing]`).
#[derive(Clone, Debug, Default)]
pub struct TimingParams {
    /// Bus rate in mega-transfers per second, and bytes per transfer.
    pub channel_rate_mts: f64,
    pub channel_width_bytes: u32,
    pub ecc_decode_ns: u64,
    /// Each cell mode's times, where the device gives them.
    pub slc: Option<ModeTiming>,
    pub mlc: Option<ModeTiming>,
    pub tlc: Option<ModeTiming>,
    /// PCM's page read and write time, where the device gives them.
    pub pcm_read_write_ns: Option<(u64, u64)>,
}

#[derive(Clone, Debug)]
pub struct Timing {
    /// Indexed by `CellMode as usize` (SLC, MLC, TLC); `None` where no timing is given for the
    /// mode (validation guarantees every mode in use has one).
    modes: [Option<ModeTiming>; 3],
    /// Bytes the channel moves per microsecond (rate in MT/s × bus width).
    bytes_per_us: f64,
    pub ecc_decode_ns: u64,
    /// Timing of each region's cell mode (filled by [`Timing::for_device`]).
    regions: Vec<ModeTiming>,
    /// Bus time of 0..=codewords-per-page codewords, the sizes commands move (filled by
    /// [`Timing::for_device`]), so the hot path does no floating-point work; and the codeword
    /// size as a multiply-and-shift divisor (a hardware division on every read command cost
    /// about 1% of the steady run's samples).
    codeword_bytes: Option<StrengthReducedU64>,
    codeword_transfer_ns: Vec<u64>,
}

fn mode_index(mode: CellMode) -> usize {
    match mode {
        CellMode::Slc => 0,
        CellMode::Mlc => 1,
        CellMode::Tlc => 2,
    }
}

impl Timing {
    pub fn new(t: &TimingParams) -> Timing {
        Timing {
            modes: [t.slc, t.mlc, t.tlc],
            bytes_per_us: t.channel_rate_mts * t.channel_width_bytes as f64,
            ecc_decode_ns: t.ecc_decode_ns,
            regions: Vec::new(),
            codeword_bytes: None,
            codeword_transfer_ns: Vec::new(),
        }
    }

    /// Timing of a device: also tabulates each region's mode and the bus time of every whole
    /// number of codewords up to a page.
    pub fn for_device(t: &TimingParams, g: &Geometry) -> Timing {
        let mut timing = Timing::new(t);
        timing.regions = (g.regions.iter())
            .map(|r| r.medium.timing(&timing, t))
            .collect();
        let codewords = g.page_bytes / g.codeword_bytes.max(1);
        timing.codeword_transfer_ns = (0..=codewords as u64)
            .map(|n| timing.transfer_ns(n * g.codeword_bytes as u64))
            .collect();
        timing.codeword_bytes =
            (g.codeword_bytes > 0).then(|| StrengthReducedU64::new(g.codeword_bytes as u64));
        timing
    }

    /// Timing of region `r` (after [`Timing::for_device`]).
    pub fn region(&self, r: usize) -> &ModeTiming {
        &self.regions[r]
    }

    /// Timing of a cell mode; validation guarantees presence for every mode in use.
    pub fn mode(&self, mode: CellMode) -> ModeTiming {
        self.modes[mode_index(mode)].unwrap_or_default()
    }

    /// Time to move `bytes` over one channel, rounded to the nearest nanosecond (so that e.g.
    /// SPREAD's 2 KiB in 2.5 µs at 819.2 MT/s comes out exact).
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        if let Some(cw) = self.codeword_bytes {
            let (n, rest) = StrengthReducedU64::div_rem(bytes, cw);
            if rest == 0 {
                if let Some(&ns) = self.codeword_transfer_ns.get(n as usize) {
                    return ns;
                }
            }
        }
        (bytes as f64 * 1000.0 / self.bytes_per_us).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(rate: f64) -> TimingParams {
        TimingParams {
            channel_rate_mts: rate,
            channel_width_bytes: 1,
            ..TimingParams::default()
        }
    }

    #[test]
    fn transfer_time_is_bytes_over_rate() {
        assert_eq!(Timing::new(&cfg(400.0)).transfer_ns(4096), 10240);
        assert_eq!(Timing::new(&cfg(819.2)).transfer_ns(2048), 2500);
        assert_eq!(Timing::new(&cfg(819.2)).transfer_ns(16384), 20000);
        assert_eq!(Timing::new(&cfg(333.0)).transfer_ns(4096), 12300);
    }

    #[test]
    fn tabulated_transfer_times_equal_the_formula() {
        let g = crate::test_support::small_geometry();
        for rate in [333.0, 400.0, 819.2, 1000.0] {
            let plain = Timing::new(&cfg(rate));
            let device = Timing::for_device(&cfg(rate), &g);
            for bytes in (0..=2 * g.page_bytes as u64).step_by(512) {
                assert_eq!(
                    device.transfer_ns(bytes),
                    plain.transfer_ns(bytes),
                    "{bytes} B at {rate}"
                );
            }
        }
    }
}
