//! Raw bit errors and their decoding, for `reliability.model = "power_law"`.
//!
//! A read's raw bit error rate follows the power-law model of techniques.md §0.5 (Liu et al.,
//! FAST'12, with read disturb) plus the program disturb of partial programming (§3.4, the IPU
//! slides' "program disturbance ... both in-page and on neighbouring pages"):
//!
//! RBER = ε + α·PE^k + β·PE^m·t^n + γ·PE^p·reads^q + δ_in·later_programs + δ_nb·neighbour_programs
//!
//! The expected raw bit errors of a codeword set the ECC decode time, from the minimum with none
//! to the maximum at the correction limit (§3.5: SSDsim's 0.5–96.8 µs). Past the limit the
//! controller retries the read with shifted reference voltages, each retry sensing and moving
//! the data again and failing one decode at the maximum time, until the errors are correctable or
//! the retries run out (the read is then counted uncorrectable). A retry is charged as latency
//! after the first transfer; it does not hold the die again (ours: retries are rare at the
//! wear this simulator ages devices to, and modelling them as new die commands would reorder a
//! die's queue around them).
//!
//! The counters the model needs are kept here, per slot, page and block: programs of a page
//! after each of its subpages was written, programs of its neighbouring pages after it was, and
//! reads of a block since its erase. Pages are neighbours when adjacent in their block (ours:
//! one page a wordline, as in an SLC-mode block; for MLC and TLC pages it approximates the
//! wordline's neighbours). The counters start at zero when the timed run starts: preconditioned
//! data carries its blocks' P/E cycles and the time since their last program, not their
//! disturbs.

use super::geometry::{BlockId, Geometry, PageId};
use crate::nand::CellMode;

/// The model's parameters, in the flash model's own terms (`device::error_model` reads them from
/// `[reliability]`).
#[derive(Clone, Debug, PartialEq)]
pub struct PowerLawParams {
    /// Decode time of a codeword with no raw bit error, and of one at the correction limit.
    pub ecc_min_decode_ns: u64,
    pub ecc_max_decode_ns: u64,
    /// Raw bit errors the ECC corrects in one codeword.
    pub correctable_bits_per_codeword: u32,
    /// Read retries before a read is counted uncorrectable, and by how much each divides the raw
    /// bit errors.
    pub max_read_retries: u32,
    pub retry_error_divisor: f64,
    /// The error rate's terms for each cell mode, where given (validation: every mode in use).
    pub slc: Option<RberParams>,
    pub mlc: Option<RberParams>,
    pub tlc: Option<RberParams>,
}

impl PowerLawParams {
    fn rber(&self, mode: CellMode) -> Option<&RberParams> {
        match mode {
            CellMode::Slc => self.slc.as_ref(),
            CellMode::Mlc => self.mlc.as_ref(),
            CellMode::Tlc => self.tlc.as_ref(),
        }
    }
}

/// The terms of [`rber`]'s formula (the module's) for one cell mode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RberParams {
    pub epsilon: f64,
    pub alpha: f64,
    pub k: f64,
    pub beta: f64,
    pub m: f64,
    pub n: f64,
    pub gamma: f64,
    pub p: f64,
    pub q: f64,
    /// δ_in and δ_nb.
    pub partial_program_disturb: f64,
    pub neighbour_program_disturb: f64,
}

/// What a read's bits have been through.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stress {
    /// Program/erase cycles of the block.
    pub pe_cycles: u32,
    /// Hours since the block was last programmed.
    pub retention_hours: f64,
    /// Reads of the block since its erase.
    pub block_reads: u32,
    /// Programs of the page after the subpage read was written (the most of those read).
    pub later_programs: u32,
    /// Programs of the neighbouring pages after the page was first programmed.
    pub neighbour_programs: u32,
}

/// The raw bit error rate of bits under `s`.
pub fn rber(p: &RberParams, s: &Stress) -> f64 {
    let pe = s.pe_cycles as f64;
    p.epsilon
        + p.alpha * pe.powf(p.k)
        + p.beta * pe.powf(p.m) * s.retention_hours.powf(p.n)
        + p.gamma * pe.powf(p.p) * (s.block_reads as f64).powf(p.q)
        + p.partial_program_disturb * s.later_programs as f64
        + p.neighbour_program_disturb * s.neighbour_programs as f64
}

/// How a read decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decode {
    /// Expected raw bit errors per codeword on the first sensing.
    pub errors_per_codeword: f64,
    /// Decode time, retries included.
    pub decode_ns: u64,
    pub retries: u32,
    /// Still past the correction limit after the last retry.
    pub uncorrectable: bool,
}

/// Decode codewords of `codeword_bits` read at `rber`; a retry costs `retry_ns` of sensing and
/// transfer besides its failed decode.
pub fn decode(c: &PowerLawParams, rber: f64, codeword_bits: u32, retry_ns: u64) -> Decode {
    let limit = c.correctable_bits_per_codeword as f64;
    let first = rber * codeword_bits as f64;
    let mut errors = first;
    let mut retries = 0;
    while errors > limit && retries < c.max_read_retries {
        retries += 1;
        errors /= c.retry_error_divisor;
    }
    let span = (c.ecc_max_decode_ns - c.ecc_min_decode_ns) as f64;
    let last = c.ecc_min_decode_ns + (span * (errors / limit).min(1.0)).round() as u64;
    Decode {
        errors_per_codeword: first,
        decode_ns: last + retries as u64 * (retry_ns + c.ecc_max_decode_ns),
        retries,
        uncorrectable: errors > limit,
    }
}

/// A run's error model: its parameters and the device's counters.
pub struct ErrorModel {
    params: PowerLawParams,
    pub wear: Wear,
}

impl ErrorModel {
    pub fn new(params: PowerLawParams, g: &Geometry) -> ErrorModel {
        ErrorModel {
            params,
            wear: Wear::new(g),
        }
    }

    /// A read of `page`'s `codewords` (0: all), in a block of `pe_cycles` last programmed
    /// `retention_hours` ago, a retry of which senses and moves the data again in `retry_ns`:
    /// the raw bit error rate it found and how it decoded.
    pub fn read(
        &mut self,
        g: &Geometry,
        page: PageId,
        codewords: u64,
        pe_cycles: u32,
        retention_hours: f64,
        retry_ns: u64,
    ) -> (f64, Decode) {
        let mut s = self.wear.read(g, page, codewords);
        s.pe_cycles = pe_cycles;
        s.retention_hours = retention_hours;
        let Some(mode) = g.regions[g.region_of(g.block_of_page(page))]
            .medium
            .cell_mode()
        else {
            unreachable!("validated: the error model is refused with PCM")
        };
        let p = (self.params.rber(mode))
            .unwrap_or_else(|| unreachable!("validated: every region's cell mode has parameters"));
        let r = rber(p, &s);
        (r, decode(&self.params, r, g.codeword_bytes * 8, retry_ns))
    }
}

/// The disturb and read counters of every slot, page and block.
pub struct Wear {
    later_programs: Vec<u8>,
    neighbour_programs: Vec<u8>,
    block_reads: Vec<u32>,
}

impl Wear {
    pub fn new(g: &Geometry) -> Wear {
        Wear {
            later_programs: vec![0; g.total_slots() as usize],
            neighbour_programs: vec![0; (g.blocks() * g.max_pages_per_block) as usize],
            block_reads: vec![0; g.blocks() as usize],
        }
    }

    /// A program of `page` completed, writing its slots `written` (a bitmap); `first` if it is
    /// the page's first since the erase. Its other slots and its neighbours are disturbed.
    pub fn programmed(&mut self, g: &Geometry, page: PageId, written: u64, first: bool) {
        for i in 0..g.slots_per_page {
            let c = &mut self.later_programs[g.slot_id(page, i) as usize];
            *c = match written & (1 << i) != 0 {
                true => 0,
                false => c.saturating_add(1),
            };
        }
        if first {
            self.neighbour_programs[page as usize] = 0;
        }
        let (block, index) = g.block_and_index(page);
        let pages = g.regions[g.region_of(block)].pages_per_block;
        let neighbours = [index.checked_sub(1), Some(index + 1).filter(|&n| n < pages)];
        for n in neighbours.into_iter().flatten() {
            let c = &mut self.neighbour_programs[g.page_id(block, n) as usize];
            *c = c.saturating_add(1);
        }
    }

    /// `block` was erased.
    pub fn erased(&mut self, g: &Geometry, block: BlockId) {
        self.block_reads[block as usize] = 0;
        let pages = g.page_id(block, 0)..g.page_id(block + 1, 0);
        self.neighbour_programs[pages.start as usize..pages.end as usize].fill(0);
        let slots = g.slot_id(pages.start, 0)..g.slot_id(pages.end, 0);
        self.later_programs[slots.start as usize..slots.end as usize].fill(0);
    }

    /// A read of `page`'s `codewords` (a bitmap) senses its block: the disturbs its bits carry,
    /// with the block's P/E cycles and age filled in by the caller.
    pub fn read(&mut self, g: &Geometry, page: PageId, codewords: u64) -> Stress {
        let block = g.block_of_page(page);
        self.block_reads[block as usize] = self.block_reads[block as usize].saturating_add(1);
        let per_slot = (g.unit_bytes / g.codeword_bytes).max(1);
        // The codewords of slot `i`, as a mask of the page's (up to 64) codewords; a slot past
        // the page's codewords (more slots than units: compressed units) has none of its own.
        let slot_mask = |i: u32| {
            let width = u64::MAX.checked_shr(64 - per_slot.min(64)).unwrap_or(0);
            width.checked_shl(i * per_slot).unwrap_or(0)
        };
        let later = (0..g.slots_per_page)
            .filter(|&i| codewords == 0 || codewords & slot_mask(i) != 0)
            .map(|i| self.later_programs[g.slot_id(page, i) as usize])
            .max()
            .unwrap_or(0);
        Stress {
            block_reads: self.block_reads[block as usize],
            later_programs: later as u32,
            neighbour_programs: self.neighbour_programs[page as usize] as u32,
            ..Stress::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::small_geometry;

    fn params() -> RberParams {
        RberParams {
            epsilon: 1e-6,
            alpha: 1e-9,
            k: 2.0,
            beta: 0.0,
            m: 0.0,
            n: 0.0,
            gamma: 1e-10,
            p: 0.5,
            q: 1.5,
            partial_program_disturb: 2e-5,
            neighbour_program_disturb: 1e-5,
        }
    }

    fn model() -> PowerLawParams {
        PowerLawParams {
            ecc_min_decode_ns: 500,
            ecc_max_decode_ns: 96_800,
            correctable_bits_per_codeword: 40,
            max_read_retries: 3,
            retry_error_divisor: 4.0,
            slc: Some(params()),
            mlc: None,
            tlc: None,
        }
    }

    #[test]
    fn the_error_rate_grows_with_wear_and_every_disturb() {
        let p = params();
        let base = Stress::default();
        let more = |f: &dyn Fn(&mut Stress)| {
            let mut s = base;
            f(&mut s);
            rber(&p, &s)
        };
        assert_eq!(rber(&p, &base), 1e-6);
        let mut last = rber(&p, &base);
        for pe in [1, 10, 100, 1000, 3000] {
            let r = more(&|s| s.pe_cycles = pe);
            assert!(r > last, "P/E {pe}");
            last = r;
        }
        for (f, name) in [
            (
                &(|s: &mut Stress| s.later_programs = 3) as &dyn Fn(&mut Stress),
                "in-page",
            ),
            (&|s: &mut Stress| s.neighbour_programs = 2, "neighbour"),
            (
                &|s: &mut Stress| {
                    s.pe_cycles = 100;
                    s.block_reads = 1000
                },
                "read disturb",
            ),
        ] {
            assert!(more(f) > rber(&p, &base), "{name}");
        }
        assert!(
            more(&|s| s.later_programs = 3) > more(&|s| s.later_programs = 1),
            "more later programs, more errors"
        );
    }

    #[test]
    fn decode_time_grows_with_errors_and_retries_past_the_limit() {
        let c = model();
        let clean = decode(&c, 0.0, 16384, 25_000);
        assert_eq!((clean.decode_ns, clean.retries), (500, 0));
        // Half the limit: half way between the minimum and the maximum.
        let half = decode(&c, 20.0 / 16384.0, 16384, 25_000);
        assert_eq!((half.decode_ns, half.retries), (500 + 48_150, 0));
        // Four times the limit: one retry brings it to the limit.
        let retried = decode(&c, 160.0 / 16384.0, 16384, 25_000);
        assert_eq!(retried.retries, 1);
        assert_eq!(retried.decode_ns, 96_800 + 25_000 + 96_800);
        assert!(!retried.uncorrectable);
        let lost = decode(&c, 0.5, 16384, 25_000);
        assert_eq!(lost.retries, 3);
        assert!(lost.uncorrectable);
    }

    #[test]
    fn a_partial_program_disturbs_the_page_s_older_subpages_and_its_neighbours() {
        let g = small_geometry();
        let mut w = Wear::new(&g);
        let (p0, p1) = (g.page_id(3, 0), g.page_id(3, 1));
        w.programmed(&g, p0, 0b0011, true);
        w.programmed(&g, p1, 0b1111, true);
        // The later program of p0's slot 2 disturbs slots 0 and 1, not itself.
        w.programmed(&g, p0, 0b0100, false);
        let all = u64::MAX;
        let cw = (g.unit_bytes / g.codeword_bytes) as usize;
        let slot_cws = |i: usize| ((1u64 << cw) - 1) << (i * cw);
        assert_eq!(w.read(&g, p0, slot_cws(0)).later_programs, 1);
        assert_eq!(w.read(&g, p0, slot_cws(2)).later_programs, 0);
        // p1 was disturbed by p0's later program; p0 by p1's first one.
        assert_eq!(w.read(&g, p1, all).neighbour_programs, 1);
        assert_eq!(w.read(&g, p0, all).neighbour_programs, 1);
        assert_eq!(w.read(&g, p0, all).block_reads, 5);
        w.erased(&g, 3);
        assert_eq!(
            w.read(&g, p0, all),
            Stress {
                block_reads: 1,
                ..Stress::default()
            }
        );
    }

    /// A page of 64 codewords (32 KiB in 512-byte codewords) whose 8 KiB units take 16 each, and
    /// more slots than units (compressed): the slots' codeword masks neither overflow nor reach
    /// past the page (the option-space harness found both: issue 30).
    #[test]
    fn slot_masks_span_a_page_of_64_codewords() {
        let g = crate::test_support::geometry(&[
            "geometry.page_size_kib=32",
            "geometry.codeword_size_bytes=512",
            "ftl.mapping_unit_kib=8",
            "ftl.max_units_per_page=12",
            "ftl.reduction={policy=\"compress\", codec=\"dpc\"}",
        ]);
        let mut w = Wear::new(&g);
        let page = g.page_id(3, 0);
        w.programmed(&g, page, 0b0001, true);
        w.programmed(&g, page, 0b1000, false);
        // Slot 0 (codewords 0–15) took slot 3's later program; the last codeword is slot 3's.
        assert_eq!(w.read(&g, page, 1).later_programs, 1);
        assert_eq!(w.read(&g, page, 1 << 63).later_programs, 0);
    }
}
