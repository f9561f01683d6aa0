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
    },
}

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
        if let ReadPolicyConfig::Melded { pages } = self {
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
