//! `[ftl.read_policy]`: how much of a page a read senses and moves (docs/read-modes.md).

use serde::{Deserialize, Serialize};

use super::tagged::tagged_table;

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
    /// A read of the wanted codewords alone whose sensing time and current scale with the share
    /// of the page's bitlines sensed, above a share that does not (wordline set-up and bias):
    /// tR × (`fixed_tr_share` + (1 − share) × wanted / codewords), one number for any page,
    /// page type and codeword count where `subpage` takes a row of Table I per device.
    Proportional {
        /// Share of a page's tR spent whatever is sensed. Default 13/45 ≈ 0.289: the
        /// least-squares fit of this line to SPREAD's Table I (spread.txt §III.B: 35, 45, …,
        /// 95, 99 µs for 1 … 8 codewords of 2 KiB; within 4.8 µs of every entry).
        #[serde(default = "default_fixed_tr_share")]
        fixed_tr_share: f64,
        /// Share of the sensing current drawn whatever is sensed (our assumption, as
        /// `subpage`'s: 0.35 / 0.75, so a quarter page draws PR-SSD §2.3's 0.6×).
        #[serde(default = "default_fixed_current_share")]
        fixed_current_share: f64,
    },
    /// Melded pages (melded-pages.txt §2, §2.4): when queued reads want every page of a
    /// wordline (or, with `meld = "always"`, whenever one is read), the wordline is sensed in
    /// one command (`timing.<mode>.tr_melded_ns`) and all its pages move; any other read is
    /// shaped by `pages`.
    Melded {
        /// When a wordline is melded.
        #[serde(default)]
        meld: Meld,
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

/// When a melded read policy senses a whole wordline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Meld {
    /// When every page of it is wanted, by queued reads or a stream read ahead (§2.4:
    /// "reading an entire melded-page when only a part of it is used to fulfill a read request
    /// has a negative impact on the read performance").
    #[default]
    AllWanted,
    /// Every read of a page of a multi-page wordline, wanted or not (the abstract: "melded-pages
    /// are read in their entirety"; §2: "when a read request arrives, the entire melded-page is
    /// read in one command cycle"): the pages no read wants cross the bus and are dropped.
    Always,
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
/// The least-squares fit of tR(n) = tR(8) × (f + (1 − f) × n / 8) to spread.txt Table I's
/// 35, 45, 55, 65, 75, 85, 95, 99 µs: f = Σ x·y / Σ x² with x = 99 (1 − n/8), y = tR(n) − 99 n/8,
/// which is 13/45 (the test `proportional_default_fits_table_one` recomputes it).
fn default_fixed_tr_share() -> f64 {
    13.0 / 45.0
}
fn default_fixed_current_share() -> f64 {
    0.35 / 0.75
}
fn default_melded_pages() -> Box<ReadPolicyConfig> {
    Box::new(ReadPolicyConfig::Full)
}
