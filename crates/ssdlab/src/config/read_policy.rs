//! `[ftl.read_policy]`: how much of a page a read senses and moves (docs/read-modes.md).

use serde::{Deserialize, Serialize};

use super::checks::{closed_fraction, fraction, positive};
use super::needs::{Device, Needs};
use super::tagged::tagged_table;
use super::CellMode;
use crate::error::Error;
use crate::flash::Medium;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum ReadPolicyConfig {
    /// Sense the whole page, move the whole page over the bus (pageFTL).
    Full,
    /// Sense the whole page, move only the wanted codewords (dynamic DMA, dmaFTL).
    #[default]
    Dma,
    /// PR-SSD's NAND partial read (pr-ssd.txt §2.3): wanted data within one aligned unit is
    /// sensed alone, faster and at lower current, and only the unit moves; otherwise a full read.
    Partial {
        /// Partial-read unit (§2.3: "most manufacturers provide a 4 KB partial read").
        #[serde(default = "default_partial_unit_kib")]
        unit_kib: u32,
        /// tR saved by a partial read (§2.3: "reduce the latency by 20%").
        #[serde(default = "default_partial_tr_reduction")]
        tr_reduction: f64,
        /// Sensing current saved (§2.3: "reduce the current consumption by 40%").
        #[serde(default = "default_partial_current_reduction")]
        current_reduction: f64,
    },
    /// SPREAD's subpage-parallel read (spread.txt §III.B): sense and move exactly the wanted
    /// codewords in one command; tR by the number of codewords sensed.
    Subpage {
        /// tR for 1, 2, … codewords sensed, one entry per codeword of a page; the last is the
        /// full page's (Table I: 35 … 99 µs for 2 … 16 KiB). Pages whose full tR differs scale it.
        #[serde(default = "default_subpage_tr")]
        tr_by_codewords_ns: Vec<u64>,
        /// Share of the sensing current independent of how many bitlines are sensed (our
        /// assumption: 0.35 / 0.75, so a quarter page draws PR-SSD §2.3's 0.6×).
        #[serde(default = "default_fixed_current_share")]
        fixed_current_share: f64,
    },
    /// Melded pages (melded-pages.txt §2, §2.4): when queued reads want every page of a
    /// wordline, the wordline is sensed in one command (`timing.<mode>.tr_melded_ns`) and all
    /// its pages move; any other read is shaped by `pages`.
    Melded {
        /// The policy of the reads that are not melded (§2.4: small reads lose with melding).
        #[serde(default = "default_melded_pages")]
        pages: Box<ReadPolicyConfig>,
        /// How far ahead of a stream read in order (a read that starts where one of the
        /// stream's ended) a wordline's pages count as wanted: a wordline whose pages queued
        /// reads want in part is melded when this stream will read the rest within so many KiB,
        /// and those pages wait in controller memory for its reads (§2.2: "the scheduler can
        /// predict read patterns"). 0: only queued reads count.
        #[serde(default = "default_read_ahead_kib")]
        read_ahead_kib: u32,
        /// Streams read in order tracked at once (default 8); controller memory holds
        /// `read_ahead_kib` for each. Only with `read_ahead_kib` > 0.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        read_ahead_streams: Option<u32>,
    },
}

/// Ours (the paper is silent): 2 MiB, two stripes of the widest page the paper sweeps (64
/// parallel units × 16 KiB = 1 MiB a stripe): a stream written by `ftl.host_streams =
/// "wordlines"` has a wordline's other pages one and two stripes further on.
fn default_read_ahead_kib() -> u32 {
    2048
}

/// Ours: as many streams as a DataNode serves HDFS blocks to at once, with room to spare.
pub const DEFAULT_READ_AHEAD_STREAMS: u32 = 8;
/// Most read-ahead streams tracked (each read compares its start with every one's).
pub const MAX_READ_AHEAD_STREAMS: u32 = 64;
/// Most KiB read ahead of one stream: a 256 MiB HDFS block.
pub const MAX_READ_AHEAD_KIB: u32 = 256 * 1024;

tagged_table!("policy": ReadPolicyConfig);

fn default_partial_unit_kib() -> u32 {
    4
}
fn default_partial_tr_reduction() -> f64 {
    0.20
}
fn default_partial_current_reduction() -> f64 {
    0.40
}
/// spread.txt Table I, tR row.
fn default_subpage_tr() -> Vec<u64> {
    vec![
        35_000, 45_000, 55_000, 65_000, 75_000, 85_000, 95_000, 99_000,
    ]
}
fn default_fixed_current_share() -> f64 {
    0.35 / 0.75
}
fn default_melded_pages() -> Box<ReadPolicyConfig> {
    Box::new(ReadPolicyConfig::Full)
}

/// The policy's parameters, against the page and codeword size it reads: every policy but `full`
/// reads less than a page, which a page of one codeword cannot.
impl Needs for ReadPolicyConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        let (page_bytes, codeword_bytes) = (d.page_bytes(), d.geometry.codeword_bytes as u64);
        if let ReadPolicyConfig::Melded {
            pages,
            read_ahead_kib,
            read_ahead_streams,
        } = self
        {
            read_ahead_needs(*read_ahead_kib, *read_ahead_streams, page_bytes)?;
            if let ReadPolicyConfig::Melded { .. } = **pages {
                return Err(Error::config(
                    "ftl.read_policy.pages.policy",
                    "shapes the reads `melded` does not meld, page by page: it cannot be \
                     `melded` again (use full, dma, partial or subpage)",
                ));
            }
            return melded_needs(d).and_then(|()| pages.needs(d));
        }
        if page_bytes == codeword_bytes && !matches!(self, ReadPolicyConfig::Full) {
            return Err(Error::config(
                "ftl.read_policy.policy",
                format!(
                    "a page of one {codeword_bytes}-byte codeword is sensed and moved whole: \
                     use `full` (or smaller codewords, geometry.codeword_size_bytes)"
                ),
            ));
        }
        match self {
            ReadPolicyConfig::Full | ReadPolicyConfig::Dma | ReadPolicyConfig::Melded { .. } => {
                Ok(())
            }
            ReadPolicyConfig::Partial {
                unit_kib,
                tr_reduction,
                current_reduction,
            } => {
                let key = "ftl.read_policy.unit_kib";
                positive(key, *unit_kib as u64)?;
                let unit = *unit_kib as u64 * 1024;
                if !unit.is_multiple_of(codeword_bytes)
                    || !page_bytes.is_multiple_of(unit)
                    || unit == page_bytes
                {
                    return Err(Error::config(
                        key,
                        format!(
                            "a partial-read unit of {unit_kib} KiB must be whole \
                             {codeword_bytes}-byte codewords and divide the {} KiB page into \
                             two or more parts",
                            page_bytes / 1024
                        ),
                    ));
                }
                fraction("ftl.read_policy.tr_reduction", *tr_reduction, false)?;
                fraction(
                    "ftl.read_policy.current_reduction",
                    *current_reduction,
                    false,
                )
            }
            ReadPolicyConfig::Subpage {
                tr_by_codewords_ns,
                fixed_current_share,
            } => {
                let key = "ftl.read_policy.tr_by_codewords_ns";
                let codewords = page_bytes / codeword_bytes;
                if tr_by_codewords_ns.len() as u64 != codewords {
                    return Err(Error::config(
                        key,
                        format!(
                            "needs one tR per number of codewords sensed, {codewords} for a {} \
                             KiB page of {codeword_bytes}-byte codewords (got {})",
                            page_bytes / 1024,
                            tr_by_codewords_ns.len()
                        ),
                    ));
                }
                if tr_by_codewords_ns[0] == 0 || tr_by_codewords_ns.windows(2).any(|w| w[1] < w[0])
                {
                    return Err(Error::config(
                        key,
                        "must be positive and never decrease: sensing more codewords cannot be faster",
                    ));
                }
                closed_fraction("ftl.read_policy.fixed_current_share", *fixed_current_share)
            }
        }
    }
}

/// Read-ahead: off, or a window of at least a page and at most [`MAX_READ_AHEAD_KIB`], over 1 to
/// [`MAX_READ_AHEAD_STREAMS`] streams; the stream count only where there is a window.
fn read_ahead_needs(kib: u32, streams: Option<u32>, page_bytes: u64) -> Result<(), Error> {
    let key = "ftl.read_policy.read_ahead_kib";
    if kib == 0 {
        if let Some(n) = streams {
            return Err(Error::config(
                "ftl.read_policy.read_ahead_streams",
                format!(
                    "tracks streams read in order for the pages read ahead of them, and                      read_ahead_kib = 0 reads none ahead (got {n} streams): set read_ahead_kib                      or leave the streams out"
                ),
            ));
        }
        return Ok(());
    }
    if (kib as u64 * 1024) < page_bytes || kib > MAX_READ_AHEAD_KIB {
        return Err(Error::config(
            key,
            format!(
                "must be 0 (no read-ahead) or from a page ({} KiB) to {MAX_READ_AHEAD_KIB} KiB:                  a stream's pages ahead within the window are sensed with the wordline it                  reads, got {kib}",
                page_bytes / 1024
            ),
        ));
    }
    let n = streams.unwrap_or(DEFAULT_READ_AHEAD_STREAMS);
    if !(1..=MAX_READ_AHEAD_STREAMS).contains(&n) {
        return Err(Error::config(
            "ftl.read_policy.read_ahead_streams",
            format!("must be 1 to {MAX_READ_AHEAD_STREAMS} (streams read in order tracked at once), got {n}"),
        ));
    }
    Ok(())
}

/// A melded read senses the pages of one wordline at once: some flash region must hold more
/// than one bit a cell (an SLC-mode region's wordline is one page), and each multi-level mode in
/// use must say how long the whole wordline takes to sense.
fn melded_needs(d: &Device) -> Result<(), Error> {
    let modes: Vec<CellMode> = (d.geometry.regions.iter())
        .filter_map(|r| match r.medium {
            Medium::Flash(mode) if mode.bits_per_cell() > 1 => Some(mode),
            _ => None,
        })
        .collect();
    if modes.is_empty() {
        return Err(Error::config(
            "ftl.read_policy.policy",
            "`melded` senses every page of a wordline at once, and the device's cells hold one \
             bit (SLC, or SLC-mode regions only): a wordline is one page, there is nothing to \
             meld",
        ));
    }
    for mode in modes {
        if d.config.timing.tr_melded_ns(mode).is_none_or(|ns| ns == 0) {
            return Err(Error::config(
                &format!("timing.{}.tr_melded_ns", mode.name()),
                "is needed by ftl.read_policy `melded`: the time to sense a whole wordline of \
                 the mode in one command (melded-pages.txt §3.1.1: X + 7Y for TLC)",
            ));
        }
    }
    Ok(())
}
