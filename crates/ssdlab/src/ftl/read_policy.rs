//! How a set of wanted codewords on one physical page is read: what is sensed, for how long, at
//! what array current, and what crosses the bus. One policy per read mode the papers compare:
//! `full` (pageFTL), `dma` (dynamic DMA, dmaFTL), `partial` (PR-SSD's NAND partial read) and
//! `subpage` (SPREAD's subpage-parallel read, spFTL). The read path hands a policy the union of
//! the codewords every requester of the page wants (see `sim/read.rs`), when the die starts the
//! command.

use crate::config::{Meld, ReadPolicyConfig, DEFAULT_READ_AHEAD_STREAMS};

/// What the read path knows about one page read.
#[derive(Clone, Copy, Debug)]
pub struct PageRead {
    /// Sensing time of the whole page (tR of its cell mode and page type).
    pub tr_full_ns: u64,
    pub page_bytes: u32,
    pub codeword_bytes: u32,
    /// Bit i set = codeword i of the page is wanted (by host requests or GC copies). Never 0.
    pub wanted: u64,
}

/// Codewords set in each byte of a `wanted` mask.
const CODEWORDS_IN_BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).count_ones() as u8;
        i += 1;
    }
    t
};

impl PageRead {
    /// The codewords wanted. (By table for pages of up to 8 codewords, every preset's: the
    /// x86-64 baseline the engine is built for has no population-count instruction, and the
    /// software count cost every read command 20 instructions, 0.8% of the steady benchmark.)
    #[inline]
    pub fn wanted_codewords(&self) -> u32 {
        match self.wanted < 256 {
            true => CODEWORDS_IN_BYTE[self.wanted as usize] as u32,
            false => self.wanted.count_ones(),
        }
    }

    fn codewords_per_page(&self) -> u32 {
        self.page_bytes / self.codeword_bytes
    }
}

/// The timed shape of one read command.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadPlan {
    pub sense_ns: u64,
    pub sensed_bytes: u32,
    pub transfer_bytes: u32,
    /// Array current while sensing, relative to a normal full-page read (1.0). Sensing energy is
    /// `energy.read_power_mw × sense_ns × sense_current` (see `stats::Energy`).
    pub sense_current: f64,
}

pub trait ReadPolicy: Send {
    fn plan(&self, read: &PageRead) -> ReadPlan;
    /// Whether a read command should sense a whole wordline at once (a melded read) when
    /// `wanted` of its `pages` pages are wanted by queued reads. No policy but `melded` melds.
    fn melds(&self, _wanted: u32, _pages: u32) -> bool {
        false
    }
    /// The window (KiB) ahead of a stream read in order whose pages count as wanted, and the
    /// streams tracked at once; None: only queued reads count (every policy but `melded`).
    fn read_ahead(&self) -> Option<ReadAheadWindow> {
        None
    }
}

/// How far the read path looks ahead of streams read in order (`ftl/read_ahead.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadAheadWindow {
    pub kib: u32,
    pub streams: u32,
}

/// Melded pages (melded-pages.txt §2): a wordline whose every page queued reads want is sensed
/// in one command and moved whole; any other read as `pages` shapes it. Melding fewer pages
/// than the wordline holds would sense the whole wordline for part of it (§2.4: "reading an
/// entire melded-page when only a part of it is used ... has a negative impact").
pub struct MeldedRead {
    /// Every read of a multi-page wordline melds (`meld = "always"`), not only those that want
    /// all its pages.
    pub always: bool,
    pub pages: Box<dyn ReadPolicy>,
    /// A stream read in order wants the pages ahead of it too (§2.2), if set.
    pub read_ahead: Option<ReadAheadWindow>,
}

impl ReadPolicy for MeldedRead {
    fn plan(&self, r: &PageRead) -> ReadPlan {
        self.pages.plan(r)
    }
    fn melds(&self, wanted: u32, pages: u32) -> bool {
        pages > 1 && (self.always || wanted == pages)
    }
    fn read_ahead(&self) -> Option<ReadAheadWindow> {
        self.read_ahead
    }
}

/// pageFTL: sense the whole page and move the whole page.
pub struct FullRead;

impl ReadPolicy for FullRead {
    fn plan(&self, r: &PageRead) -> ReadPlan {
        ReadPlan {
            sense_ns: r.tr_full_ns,
            sensed_bytes: r.page_bytes,
            transfer_bytes: r.page_bytes,
            sense_current: 1.0,
        }
    }
}

/// dmaFTL: sense the whole page, move only the wanted codewords (dynamic DMA, SPREAD §V.A).
pub struct DmaRead;

impl ReadPolicy for DmaRead {
    fn plan(&self, r: &PageRead) -> ReadPlan {
        ReadPlan {
            transfer_bytes: r.wanted_codewords() * r.codeword_bytes,
            ..FullRead.plan(r)
        }
    }
}

/// PR-SSD's NAND partial read (pr-ssd.txt §2.3, §4.2.3): when every wanted codeword lies in one
/// aligned partial-read unit (4 KiB of a 16 KiB page), only that unit is sensed, 20% faster and
/// at 40% less current, and only it moves; when the wanted data spans more than one unit the page
/// is read normally (§4.2.3: "If the partial bitmap ... includes multiple 1s, the request is served
/// by a full-page read operation rather than multiple partial read operations").
pub struct PartialRead {
    /// Codewords per partial-read unit.
    pub unit_codewords: u32,
    /// Sensing time of a partial read relative to the full page's: 1 − 0.20 (§2.3).
    pub tr_factor: f64,
    /// Array current of a partial read relative to a normal read: 1 − 0.40 (§2.3).
    pub current: f64,
}

impl ReadPolicy for PartialRead {
    fn plan(&self, r: &PageRead) -> ReadPlan {
        let first = r.wanted.trailing_zeros() / self.unit_codewords;
        let last = (63 - r.wanted.leading_zeros()) / self.unit_codewords;
        if first != last {
            return FullRead.plan(r);
        }
        let unit_bytes = self.unit_codewords * r.codeword_bytes;
        ReadPlan {
            sense_ns: (r.tr_full_ns as f64 * self.tr_factor).round() as u64,
            sensed_bytes: unit_bytes,
            transfer_bytes: unit_bytes,
            sense_current: self.current,
        }
    }
}

/// SPREAD's subpage-parallel read (spread.txt §III.B): one command senses exactly the wanted
/// codewords, in any pattern (the valid bitmap), and moves only them. tR depends on how many
/// codewords are sensed, not where they are (Table I: 35, 45, …, 99 µs for 2, 4, …, 16 KiB).
pub struct SubpageRead {
    /// tR by number of codewords sensed (index n − 1), for a page whose full tR is the last entry.
    /// A page whose full tR differs (another page type or cell mode) scales the row by
    /// `tr_full / last` (our choice: the paper gives one row, for uniform TLC timing).
    pub tr_by_codewords_ns: Vec<u64>,
    /// Share of the sensing current that does not depend on how many bitlines are sensed
    /// (wordline drivers, bias): the rest scales with the sensed fraction. Our assumption,
    /// calibrated so a quarter page draws 0.6× (PR-SSD §2.3's partial read): 0.35 / 0.75.
    pub fixed_current_share: f64,
}

impl ReadPolicy for SubpageRead {
    fn plan(&self, r: &PageRead) -> ReadPlan {
        let n = r.wanted_codewords();
        let table = &self.tr_by_codewords_ns;
        let full = table[table.len() - 1];
        let row = table[n as usize - 1];
        let sense_ns = if r.tr_full_ns == full {
            row
        } else {
            (row as u128 * r.tr_full_ns as u128 / full as u128) as u64
        };
        let fraction = n as f64 / r.codewords_per_page() as f64;
        ReadPlan {
            sense_ns,
            sensed_bytes: n * r.codeword_bytes,
            transfer_bytes: n * r.codeword_bytes,
            sense_current: self.fixed_current_share + (1.0 - self.fixed_current_share) * fraction,
        }
    }
}

/// A read of exactly the wanted codewords whose sensing time and current scale with the share
/// of the page's bitlines sensed. Sensing charges the bitlines it reads and waits for them to
/// settle; the wordline's set-up and the bias around it take their time and current however
/// many bitlines are read (spread.txt §III.B's Table I is close to such a line: 10 µs a 2 KiB
/// codeword above 25 µs), so tR × (fixed + (1 − fixed) × n / N) for n of N codewords, and the
/// current likewise. Unlike `subpage`'s table, one share serves every page type, cell mode and
/// codeword count: each page type's own tR is scaled.
pub struct ProportionalRead {
    pub fixed_tr_share: f64,
    pub fixed_current_share: f64,
}

impl ReadPolicy for ProportionalRead {
    fn plan(&self, r: &PageRead) -> ReadPlan {
        let n = r.wanted_codewords();
        let sensed = n as f64 / r.codewords_per_page() as f64;
        let share = |fixed: f64| fixed + (1.0 - fixed) * sensed;
        ReadPlan {
            sense_ns: (r.tr_full_ns as f64 * share(self.fixed_tr_share)).round() as u64,
            sensed_bytes: n * r.codeword_bytes,
            transfer_bytes: n * r.codeword_bytes,
            sense_current: share(self.fixed_current_share),
        }
    }
}

/// The policy the config names (validated: the subpage table has one entry per codeword, the
/// partial unit is a whole number of codewords).
pub fn build(config: &ReadPolicyConfig, codeword_bytes: u32) -> Box<dyn ReadPolicy> {
    match config {
        ReadPolicyConfig::Full => Box::new(FullRead),
        ReadPolicyConfig::Dma => Box::new(DmaRead),
        ReadPolicyConfig::Partial {
            unit_kib,
            tr_reduction,
            current_reduction,
        } => Box::new(PartialRead {
            unit_codewords: unit_kib * 1024 / codeword_bytes,
            tr_factor: 1.0 - tr_reduction,
            current: 1.0 - current_reduction,
        }),
        ReadPolicyConfig::Subpage {
            tr_by_codewords_ns,
            fixed_current_share,
        } => Box::new(SubpageRead {
            tr_by_codewords_ns: tr_by_codewords_ns.clone(),
            fixed_current_share: *fixed_current_share,
        }),
        ReadPolicyConfig::Proportional {
            fixed_tr_share,
            fixed_current_share,
        } => Box::new(ProportionalRead {
            fixed_tr_share: *fixed_tr_share,
            fixed_current_share: *fixed_current_share,
        }),
        ReadPolicyConfig::Melded {
            meld,
            pages,
            read_ahead_kib,
            read_ahead_streams,
        } => Box::new(MeldedRead {
            always: *meld == Meld::Always,
            pages: build(pages, codeword_bytes),
            read_ahead: (*read_ahead_kib > 0).then(|| ReadAheadWindow {
                kib: *read_ahead_kib,
                streams: read_ahead_streams.unwrap_or(DEFAULT_READ_AHEAD_STREAMS),
            }),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SPREAD's page: 16 KiB, 8 codewords of 2 KiB, full tR 99 µs (Table I).
    fn read(wanted: u64) -> PageRead {
        PageRead {
            tr_full_ns: 99_000,
            page_bytes: 16384,
            codeword_bytes: 2048,
            wanted,
        }
    }

    #[test]
    fn wanted_codewords_counts_every_mask() {
        for wanted in (1..1024u64).chain([u64::MAX, 1 << 63, 0x8000_0000_0000_00ff]) {
            assert_eq!(
                read(wanted).wanted_codewords(),
                wanted.count_ones(),
                "{wanted:#x}"
            );
        }
    }

    fn policy(name: &str) -> Box<dyn ReadPolicy> {
        let config: ReadPolicyConfig =
            toml::from_str(&format!("policy = \"{name}\"")).expect("policy");
        build(&config, 2048)
    }

    #[test]
    fn full_read_senses_and_moves_the_whole_page() {
        let p = FullRead.plan(&read(0b0000_1100));
        assert_eq!(
            (p.sense_ns, p.sensed_bytes, p.transfer_bytes),
            (99_000, 16384, 16384)
        );
        assert_eq!(p.sense_current, 1.0);
    }

    #[test]
    fn dma_read_senses_the_page_and_moves_only_wanted_codewords() {
        let p = DmaRead.plan(&read(0b1000_0101));
        assert_eq!(
            (p.sense_ns, p.sensed_bytes, p.transfer_bytes),
            (99_000, 16384, 6144)
        );
    }

    #[test]
    fn partial_read_senses_one_unit_faster_and_falls_back_for_two() {
        let p = policy("partial");
        // Codewords 2 and 3 are the second 4 KiB unit: 0.8 × 99 µs, 4 KiB sensed and moved.
        let one = p.plan(&read(0b0000_1100));
        assert_eq!(
            (one.sense_ns, one.sensed_bytes, one.transfer_bytes),
            (79_200, 4096, 4096)
        );
        assert!((one.sense_current - 0.6).abs() < 1e-12);
        // One codeword still senses (and moves) its whole unit.
        assert_eq!(p.plan(&read(0b0100_0000)).sensed_bytes, 4096);
        // Codewords 1 and 2 straddle two units: a full read.
        let two = p.plan(&read(0b0000_0110));
        assert_eq!(two, FullRead.plan(&read(0b0000_0110)));
        assert_eq!(
            p.plan(&read(0b1000_0001)),
            FullRead.plan(&read(0b1000_0001))
        );
    }

    #[test]
    fn subpage_read_follows_table_one_by_codewords_sensed() {
        let p = policy("subpage");
        let table = [35, 45, 55, 65, 75, 85, 95, 99];
        for n in 1..=8u32 {
            // Any pattern of n codewords: contiguous from the top, or every other one.
            let contiguous = (1u64 << n) - 1;
            const EVERY_OTHER_FIRST: [u32; 8] = [0, 2, 4, 6, 1, 3, 5, 7];
            let scattered = (0..n as usize).fold(0u64, |m, i| m | 1 << EVERY_OTHER_FIRST[i]);
            for wanted in [contiguous << (8 - n), scattered] {
                let plan = p.plan(&read(wanted));
                assert_eq!(plan.sense_ns, table[n as usize - 1] * 1000, "{wanted:#b}");
                assert_eq!(plan.sensed_bytes, n * 2048);
                assert_eq!(plan.transfer_bytes, n * 2048);
            }
        }
        // Whole page: the full read's cost and current.
        let all = p.plan(&read(0xff));
        assert_eq!(all.sense_ns, 99_000);
        assert!((all.sense_current - 1.0).abs() < 1e-12);
        // A quarter of the page draws what PR-SSD's partial read draws.
        assert!((p.plan(&read(0b11)).sense_current - 0.6).abs() < 1e-3);
    }

    /// The default share is the least-squares line through Table I; sensing n of 8 codewords
    /// takes 99 µs × (13/45 + 32/45 × n/8), every page type its own tR scaled alike.
    #[test]
    fn proportional_default_fits_table_one() {
        let table = [35.0, 45.0, 55.0, 65.0, 75.0, 85.0, 95.0, 99.0];
        let (mut xy, mut xx) = (0.0, 0.0);
        for (i, t) in table.iter().enumerate() {
            let n = (i + 1) as f64;
            let (x, y) = (99.0 * (1.0 - n / 8.0), t - 99.0 * n / 8.0);
            xy += x * y;
            xx += x * x;
        }
        let p = policy("proportional");
        let one = p.plan(&read(0b1));
        let fit = xy / xx;
        assert_eq!(
            one.sense_ns,
            (99_000.0 * (fit + (1.0 - fit) / 8.0)).round() as u64
        );
        assert_eq!(one.sense_ns, 37_400);
        assert_eq!((one.sensed_bytes, one.transfer_bytes), (2048, 2048));
        // Within 4.8 µs of every entry of the row.
        for (i, t) in table.iter().enumerate() {
            let got = p.plan(&read((1u64 << (i + 1)) - 1)).sense_ns as f64 / 1000.0;
            assert!(
                (got - t).abs() <= 4.8 + 1e-9,
                "{} codewords: {got} µs",
                i + 1
            );
        }
        // The whole page: a full read's time and current; a quarter: PR-SSD's 0.6× current.
        let all = p.plan(&read(0xff));
        assert_eq!(all.sense_ns, 99_000);
        assert!((all.sense_current - 1.0).abs() < 1e-12);
        assert!((p.plan(&read(0b11)).sense_current - 0.6).abs() < 1e-3);
        // An MSB page twice as slow senses one codeword in twice the time.
        let slow = PageRead {
            tr_full_ns: 198_000,
            ..read(0b1)
        };
        assert_eq!(p.plan(&slow).sense_ns, 74_800);
    }

    #[test]
    fn subpage_read_scales_the_row_for_a_slower_page_type() {
        let p = policy("subpage");
        let slow = PageRead {
            tr_full_ns: 198_000,
            ..read(0b1)
        };
        assert_eq!(p.plan(&slow).sense_ns, 70_000);
    }
}
