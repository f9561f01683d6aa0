//! What each policy needs of the device and of the other policies: every policy table (and
//! each section whose keys act only in some devices) implements [`Needs`] here, and
//! [`with_needs`] asks them all in one place, in one order, once each section has passed its own
//! checks and the device's geometry is built (they need it: a region's cell mode, wordlines and
//! blocks, the device's raw capacity; `config/` builds no device). A policy that could not act in
//! the device it is given (a partial program on pages of one unit, a migration out of a region no
//! write reaches) is refused here, naming its key and why, instead of being accepted and doing
//! nothing; a new technique brings its checks by implementing [`Needs`] and joining
//! [`with_needs`]. (The parameters of a technique that is off are accepted unused, as a grid of
//! runs keeps them while it switches the technique: `wear_leveling.threshold_erases` without wear
//! levelling, the preconditioning's `pattern`, `overwrite_fraction`, `write_request_kib` and
//! `write_size` without a fill or a split decision.)

use crate::config::checks::{closed_fraction, fraction, positive};
use crate::config::{
    share_of_blocks, AllocationConfig, Config, DataCacheConfig, GcVictimConfig, HostStreamsConfig,
    IdleGcConfig, Level1GcConfig, Level1Granularity, MappingCacheConfig, MigrationConfig,
    PartialProgramConfig, PlacementConfig, ReadPolicyConfig, ReductionConfig, ReplayMode,
    SchedulerConfig, SplitConfig, SuspensionConfig, WriteAck, DEFAULT_READ_AHEAD_STREAMS,
    MAX_READ_AHEAD_KIB, MAX_READ_AHEAD_STREAMS,
};
use crate::error::Error;
use crate::flash::{Geometry, StripeOrder};
use crate::nand::CellMode;

/// The device and the placement of data as the policies see them at validation.
pub(super) struct Device<'a> {
    pub config: &'a Config,
    /// The device's arithmetic (safe to build once the slot count is checked).
    pub geometry: &'a Geometry,
    /// The region every host write goes to (`ftl.placement`).
    pub host_region: usize,
    /// The regions GC moves data from and to (`ftl.migration`), if it moves any.
    pub migration: Option<(usize, usize)>,
}

impl Device<'_> {
    /// Resolve the regions `config`'s placement and migration name.
    pub fn new<'a>(config: &'a Config, geometry: &'a Geometry) -> Result<Device<'a>, Error> {
        let names = config.geometry.region_names();
        Ok(Device {
            config,
            geometry,
            host_region: config.ftl.placement.region(&names)?,
            migration: config.ftl.migration.regions(&names)?,
        })
    }

    pub fn region_name(&self, region: usize) -> &str {
        &self.geometry.regions[region].name
    }

    /// Mapping units an uncompressed page holds.
    pub fn units_per_page(&self) -> u32 {
        self.geometry.units_per_page
    }

    pub fn unit_bytes(&self) -> u64 {
        self.geometry.unit_bytes as u64
    }

    pub fn page_bytes(&self) -> u64 {
        self.geometry.page_bytes as u64
    }
}

/// A policy's needs of the device and of the other policies.
pub(super) trait Needs {
    /// Ok if the policy can act in `device`; else an error naming its key and why not.
    fn needs(&self, device: &Device) -> Result<(), Error>;

    /// The blocks it holds open in every pool of `config`'s device beside the host's and GC's
    /// own, if any: GC keeps them free or open with its threshold and its reserve
    /// ([`kept_free_blocks`]), and the capacity checks count them and say whose they are.
    fn open_blocks(&self, _config: &Config) -> Option<OpenBlocks> {
        None
    }
}

/// Blocks a policy holds open in every pool (each written by a stream of its own).
pub(crate) struct OpenBlocks {
    pub blocks: u32,
    /// The key that sets them.
    pub key: &'static str,
    /// What they are, in a phrase of a refusal ("a block open for each of …").
    pub what: String,
}

/// The blocks every policy of `config` holds open ([`Needs::open_blocks`]), in the order the
/// policies are asked.
pub(crate) fn open_blocks(config: &Config) -> Vec<OpenBlocks> {
    (with_needs(config).into_iter())
        .filter_map(|p| p.open_blocks(config))
        .collect()
}

/// Blocks of a pool of `blocks` GC keeps free or open: its threshold, the reserved blocks, the
/// two open blocks (host and GC), and those the policies hold open ([`Needs::open_blocks`]).
pub(crate) fn kept_free_blocks(config: &Config, blocks: u32) -> u32 {
    let f = &config.ftl;
    let held: u32 = open_blocks(config).iter().map(|o| o.blocks).sum();
    f.gc_threshold_blocks(blocks) + f.gc_reserved_blocks + 2 + held
}

/// Every policy and section with needs, in the order their refusals are reported.
pub(super) fn with_needs(config: &Config) -> Vec<&dyn Needs> {
    let f = &config.ftl;
    vec![
        &f.read_policy,
        &f.reduction,
        &f.split,
        &f.partial_program,
        &f.migration,
        &f.level1_gc,
        &f.idle_gc,
        &f.host_streams,
        &f.allocation,
        &f.gc_victim,
        &f.mapping_cache,
        &config.scheduler,
        &config.data_cache,
    ]
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
            ..
        } = self
        {
            read_ahead_needs(*read_ahead_kib, *read_ahead_streams, page_bytes)?;
            if let ReadPolicyConfig::Melded { .. } = **pages {
                return Err(Error::config(
                    "ftl.read_policy.pages.policy",
                    "shapes the reads `melded` does not meld, page by page: it cannot be \
                     `melded` again (use full, dma, partial, subpage or proportional)",
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
            ReadPolicyConfig::Proportional {
                fixed_tr_share,
                fixed_current_share,
            } => {
                closed_fraction("ftl.read_policy.fixed_tr_share", *fixed_tr_share)?;
                closed_fraction("ftl.read_policy.fixed_current_share", *fixed_current_share)?;
                if *fixed_tr_share == 1.0 && *fixed_current_share == 1.0 {
                    return Err(Error::config(
                        "ftl.read_policy.fixed_tr_share",
                        "1, with fixed_current_share = 1, senses any part of a page in a whole \
                         page's time and at its current: that is `dma` (lower a share)",
                    ));
                }
                Ok(())
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
                    "tracks streams read in order for the pages read ahead of them, and \
                     read_ahead_kib = 0 reads none ahead (got {n} streams): set read_ahead_kib \
                     or leave the streams out"
                ),
            ));
        }
        return Ok(());
    }
    if (kib as u64 * 1024) < page_bytes || kib > MAX_READ_AHEAD_KIB {
        return Err(Error::config(
            key,
            format!(
                "must be 0 (no read-ahead) or from a page ({} KiB) to {MAX_READ_AHEAD_KIB} KiB: \
                 a stream's pages ahead within the window are sensed with the wordline it \
                 reads, got {kib}",
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
        .filter_map(|r| r.medium.cell_mode().filter(|m| m.bits_per_cell() > 1))
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

/// The policy's values against the mapping unit and the page they live in, and the merge limit
/// compression packs pages to.
impl Needs for ReductionConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        let (unit_bytes, page_bytes) = (d.unit_bytes(), d.page_bytes());
        let ReductionConfig::Compress {
            failure_threshold_saving,
            partial_zero_filter,
            partial_unit_kib,
            align_bytes,
            ..
        } = self
        else {
            return Ok(());
        };
        if d.config.ftl.max_units_per_page == 0 {
            return Err(Error::config(
                "ftl.max_units_per_page",
                "compression merges units into pages: give the merge limit, 1 to 64 (PR-SSD \
                 §4.4.1: 12)",
            ));
        }
        fraction(
            "ftl.reduction.failure_threshold_saving",
            *failure_threshold_saving,
            false,
        )?;
        if let Some(codec) = self.codec() {
            codec?;
        }
        let key = "ftl.reduction.partial_unit_kib";
        positive(key, *partial_unit_kib as u64)?;
        let partial = *partial_unit_kib as u64 * 1024;
        if !unit_bytes.is_multiple_of(partial) || unit_bytes / partial > 16 {
            return Err(Error::config(
                key,
                format!(
                    "{partial_unit_kib} KiB must divide the {} KiB mapping unit into at most 16 \
                     partial units (one bit each in the zero bitmap)",
                    unit_bytes / 1024
                ),
            ));
        }
        // The codecs read whole 4 KiB units (`codec::UNIT_BYTES`): what they are given, the
        // mapping unit or its non-zero partial units, must be made of them, or every unit would
        // be stored raw with compression on.
        let codec_unit = crate::codec::UNIT_BYTES as u64;
        if !unit_bytes.is_multiple_of(codec_unit) {
            return Err(Error::config(
                "ftl.mapping_unit_kib",
                format!(
                    "{} KiB is no whole number of the codecs' {} KiB input units: compression \
                     could store no unit compressed",
                    unit_bytes / 1024,
                    codec_unit / 1024
                ),
            ));
        }
        if *partial_zero_filter && !partial.is_multiple_of(codec_unit) {
            return Err(Error::config(
                key,
                format!(
                    "{partial_unit_kib} KiB with the partial-zero filter hands the codec the \
                     unit's non-zero partial units, which must be whole {} KiB input units",
                    codec_unit / 1024
                ),
            ));
        }
        if *partial_zero_filter && unit_bytes == partial {
            return Err(Error::config(
                "ftl.reduction.partial_zero_filter",
                format!(
                    "filters the all-zero partial units of a unit, but a {partial_unit_kib} KiB \
                     partial unit is the whole mapping unit (a wholly zero unit is dropped \
                     anyway): use a smaller ftl.reduction.partial_unit_kib"
                ),
            ));
        }
        if *align_bytes == 0 || !page_bytes.is_multiple_of(*align_bytes as u64) {
            return Err(Error::config(
                "ftl.reduction.align_bytes",
                format!("{align_bytes} must be at least 1 and divide the {page_bytes}-byte page"),
            ));
        }
        // Shapes keep a unit's offset and length in 16 bits each.
        if page_bytes > 1 << 16 {
            return Err(Error::config(
                "ftl.reduction.policy",
                format!(
                    "compression needs pages of at most 64 KiB (the page is {} KiB)",
                    page_bytes / 1024
                ),
            ));
        }
        Ok(())
    }
}

/// Against the device: the width must be two or more distinct channels, cut the (logical and
/// physical) page into its partial units, and fit the page's slots.
impl Needs for SplitConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        let channels = d.geometry.channels;
        let (page_bytes, unit_bytes) = (d.page_bytes(), d.unit_bytes());
        let partial_bytes = d.config.ftl.reduction.partial_unit_bytes();
        let slots_per_page = d.geometry.slots_per_page as u64;
        let Some(width) = self.width() else {
            return Ok(());
        };
        let Some(partial) = partial_bytes else {
            return Err(Error::config(
                "ftl.split.policy",
                "splits the pages whose compression failed: it needs ftl.reduction.policy = \
                 \"compress\"",
            ));
        };
        if unit_bytes != page_bytes {
            return Err(Error::config(
                "ftl.split.policy",
                format!(
                    "splits logical pages the size of a physical page (§4.3): set \
                     ftl.mapping_unit_kib = {}",
                    page_bytes / 1024
                ),
            ));
        }
        if width < 2 || width > channels || width as u64 > slots_per_page {
            return Err(Error::config(
                "ftl.split.width",
                format!(
                    "{width} must be 2 or more and at most the {channels} channels (each part \
                     of a split page on its own channel) and the {slots_per_page} units a page \
                     holds (ftl.max_units_per_page)"
                ),
            ));
        }
        if page_bytes != width as u64 * partial {
            return Err(Error::config(
                "ftl.split.width",
                format!(
                    "{width} parts of {} KiB (ftl.reduction.partial_unit_kib) do not make the \
                     {} KiB page",
                    partial / 1024,
                    page_bytes / 1024
                ),
            ));
        }
        if let SplitConfig::Decision { lru_entries, .. } = self {
            if *lru_entries == 0 {
                return Err(Error::config("ftl.split.lru_entries", "must be at least 1"));
            }
        }
        Ok(())
    }
}

/// Partial programs fill the erased slots of pages host writes left partly filled: they need
/// such pages (more than one unit to a page, a write buffer that programs a page before it is
/// full) in a region whose pages take more than one program, and subpages that hold whole
/// codewords.
impl Needs for PartialProgramConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        if self.is_none() {
            return Ok(());
        }
        let key = "ftl.partial_program.policy";
        let regions = &d.geometry.regions;
        if regions.iter().all(|r| r.nop < 2) {
            return Err(Error::config(
                key,
                "no region's pages take partial programs: give one a `nop` above 1 \
                 (geometry.regions[].nop)",
            ));
        }
        if regions[d.host_region].nop < 2 {
            let host = d.region_name(d.host_region);
            let partial: Vec<&str> = regions
                .iter()
                .filter(|r| r.nop > 1)
                .map(|r| r.name.as_str())
                .collect();
            return Err(Error::config(
                key,
                format!(
                    "host writes go to region `{host}` (ftl.placement), whose pages are \
                     programmed once (nop 1), and no host write reaches the region(s) whose pages \
                     take partial programs ({}): send host writes there (ftl.placement = {{ \
                     policy = \"cache\", region = \"{}\" }})",
                    partial.join(", "),
                    partial[0]
                ),
            ));
        }
        // A program writes whole subpages, each a run of codewords with their ECC: the unit
        // when units are stored as written, the partial unit when they are shaped (compressed
        // units are packed into a program's subpages as into a page).
        let reduction = &d.config.ftl.reduction;
        if let Some(subpage) = reduction.partial_unit_bytes() {
            let subpages = d.page_bytes() / subpage;
            if subpages < 2 {
                return Err(Error::config(
                    "ftl.reduction.partial_unit_kib",
                    format!(
                        "partial programs write whole subpages, a partial unit ({} KiB) each \
                         when units are compressed, and the {} KiB page holds one: no page is \
                         ever programmed in part; use a smaller partial unit",
                        subpage / 1024,
                        d.page_bytes() / 1024
                    ),
                ));
            }
            if let Some(align) = reduction.align_bytes().filter(|&a| subpage % a as u64 != 0) {
                return Err(Error::config(
                    "ftl.reduction.align_bytes",
                    format!(
                        "{align} does not divide the {subpage}-byte partial unit, the subpage a \
                         later partial program packs its units from: they would lose their \
                         alignment"
                    ),
                ));
            }
            if let PartialProgramConfig::Share {
                merge_threshold_pages: 1..,
            } = self
            {
                return Err(Error::config(
                    "ftl.partial_program.merge_threshold_pages",
                    "MGA's merging gathers a logical page's units, stored as written, into one \
                     page, but compressed units pack in any number a page: use 0 (no merging) \
                     with compression, or ftl.reduction.policy = \"identity\"",
                ));
            }
        }
        if d.geometry.slots_per_page < 2 {
            return Err(Error::config(
                key,
                format!(
                    "a {} KiB page holds one {} KiB mapping unit: there is no subpage to program \
                     after the first, so no page is ever programmed in part; use a mapping unit \
                     smaller than the page (ftl.mapping_unit_kib)",
                    d.page_bytes() / 1024,
                    d.unit_bytes() / 1024
                ),
            ));
        }
        if d.config.ftl.write_buffer_timeout_ns == 0 {
            return Err(Error::config(
                key,
                "the write buffer programs only full pages (ftl.write_buffer_timeout_ns = 0), so \
                 no page is ever programmed in part: set ftl.write_buffer_timeout_ns above 0 (a \
                 partly filled page is then programmed that long after its first unit; the \
                 `ipu` preset's 1 ns programs each request's units as they arrive)",
            ));
        }
        let units = d.units_per_page();
        match self {
            PartialProgramConfig::Share {
                merge_threshold_pages,
            } if *merge_threshold_pages >= units => Err(Error::config(
                "ftl.partial_program.merge_threshold_pages",
                format!(
                    "{merge_threshold_pages} never merges: a logical page of {units} units \
                     lies on at most {units} pages; give at most {} (or 0: no merging)",
                    units - 1
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// GC moves data out of the blocks of a region that data is in: the region host writes go to.
impl Needs for MigrationConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        match d.migration {
            Some((from, _)) if from != d.host_region => {
                let (from, host) = (d.region_name(from), d.region_name(d.host_region));
                Err(Error::config(
                    "ftl.migration.from_region",
                    format!(
                        "no write reaches region `{from}`: host writes go to `{host}` \
                         (ftl.placement) and GC moves none into `{from}`, so its GC never runs; \
                         migrate from `{host}`, or send host writes to `{from}` (ftl.placement = \
                         {{ policy = \"cache\", region = \"{from}\" }})"
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// Level 1 moves data between flash and PCM: the device needs PCM, and level 1 must run before
/// the conventional GC does.
impl Needs for Level1GcConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        let Level1GcConfig::ReadIntensity {
            free_threshold,
            budget_share,
            granularity,
            ..
        } = *self
        else {
            return Ok(());
        };
        if !d.geometry.rewrites_in_place_anywhere() {
            return Err(Error::config(
                "ftl.level1_gc.policy",
                "moves read-hot data into PCM, and the device has none (geometry.pcm)",
            ));
        }
        // A block-granular invocation moves a whole block's valid units: a budget below a
        // block's worth could never move one. (Unit by unit, a unit's worth moves one.)
        let g = d.geometry;
        let budget = (budget_share * g.physical_units() as f64).floor() as u64;
        let (least, what) = match granularity {
            Level1Granularity::Block => (
                g.regions[0].pages_per_block as u64 * g.units_per_page as u64,
                "of a flash block, which level 1 moves at a time",
            ),
            Level1Granularity::Unit => (1, "level 1 moves at least"),
        };
        if budget < least {
            return Err(Error::config(
                "ftl.level1_gc.budget_share",
                format!(
                    "{budget_share} of the raw capacity is {budget} units, less than the {least} \
                     {what}: it would never move any"
                ),
            ));
        }
        let gc = d.config.ftl.gc_threshold;
        if free_threshold <= gc {
            return Err(Error::config(
                "ftl.level1_gc.free_threshold",
                format!(
                    "{free_threshold} is not above ftl.gc_threshold = {gc}: the conventional GC \
                     would keep the free blocks above it and level 1 would never run for want of \
                     room"
                ),
            ));
        }
        Ok(())
    }
}

/// Reordering lays a stream's pages out along wordlines: the cells host writes go to must hold
/// several bits (a wordline of several pages).
impl Needs for HostStreamsConfig {
    /// Each stream kept apart writes a block of its own on every plane, in each of the
    /// placement's write streams.
    fn open_blocks(&self, config: &Config) -> Option<OpenBlocks> {
        let n = self.max_open();
        (n > 0).then(|| OpenBlocks {
            blocks: n * config.ftl.placement.write_streams(),
            key: "ftl.host_streams.max_open",
            what: format!("a block open for each of the {n} host streams kept apart"),
        })
    }

    fn needs(&self, d: &Device) -> Result<(), Error> {
        if !self.reorders() {
            return Ok(());
        }
        let regions = &d.geometry.regions;
        let written = match d.config.ftl.placement {
            PlacementConfig::Oblivious { flash: None, .. } => (0..regions.len()).collect(),
            // (PCM's share is written a unit at a time, with no wordline.)
            PlacementConfig::Oblivious { .. } => vec![d.host_region],
            _ => vec![d.host_region],
        };
        // Where the program order fills wordlines one after another (one-shot), a stream's
        // pages land on shared wordlines as they come: reordering would change nothing.
        let in_order = |r: usize| {
            let (wl, pages) = (&regions[r].wordlines, regions[r].pages_per_block);
            (0..pages).all(|p| wl.rank(p) == p)
        };
        if written
            .iter()
            .all(|&r| regions[r].wordlines.levels() >= 2 && in_order(r))
        {
            return Err(Error::config(
                "ftl.host_streams.policy",
                format!(
                    "\"wordlines\" reorders a stream's pages onto wordlines, and region `{}`, \
                     where host writes go, programs its wordlines one after another \
                     (geometry.program_order): pages written in order already share them (use \
                     \"separate\")",
                    d.region_name(written[0])
                ),
            ));
        }
        if written.iter().all(|&r| regions[r].wordlines.levels() < 2) {
            return Err(Error::config(
                "ftl.host_streams.policy",
                format!(
                    "\"wordlines\" lays a stream's pages out along wordlines, and the cells of \
                     region `{}`, where host writes go, hold one bit (one page a wordline): \
                     nothing to reorder (use \"separate\")",
                    d.region_name(written[0])
                ),
            ));
        }
        Ok(())
    }
}

/// A static order names each level of the device once.
impl Needs for AllocationConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        match self {
            AllocationConfig::Static { order }
                if StripeOrder::new(order, &d.geometry.die_sets[0]).is_none() =>
            {
                Err(Error::config(
                    "ftl.allocation.order",
                    format!("`{order}` is not a permutation of C, W, D, P"),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// ISR differs from greedy only by the subpages partial programming leaves erased.
impl Needs for GcVictimConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        match self {
            GcVictimConfig::Isr if d.config.ftl.partial_program.is_none() => Err(Error::config(
                "ftl.gc_victim.policy",
                "`isr` ranks blocks by the invalid share of their written subpages, leaving out \
                 the subpages partial programming left erased; without partial programs \
                 (ftl.partial_program) every subpage is written and it picks greedy's victims: \
                 use `greedy`, or set ftl.partial_program",
            )),
            GcVictimConfig::RandomizedGreedy {
                sample_size: Some(0),
            } => Err(Error::config(
                "ftl.gc_victim.sample_size",
                "must be at least 1 (got 0): a choice needs a candidate",
            )),
            _ => Ok(()),
        }
    }
}

/// Idle GC cleans early only if its threshold is above the foreground GC's in some flash region
/// (a pool's counts are whole blocks: a share only a little above `ftl.gc_threshold` may round to
/// the same count), and only for a host that is ever idle: a closed-loop flow keeps its queue
/// depth of requests in flight from its first arrival to its last.
impl Needs for IdleGcConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        let IdleGcConfig::WhenIdle { free_threshold, .. } = *self else {
            return Ok(());
        };
        let ftl = &d.config.ftl;
        let flash = (d.geometry.regions.iter()).filter(|r| r.medium.erases());
        if !flash.clone().any(|r| {
            share_of_blocks(free_threshold, r.blocks_per_plane)
                > ftl.gc_threshold_blocks(r.blocks_per_plane)
        }) {
            let r = flash
                .max_by_key(|r| r.blocks_per_plane)
                .expect("a flash region");
            let n = r.blocks_per_plane;
            return Err(Error::config(
                "ftl.idle_gc.free_threshold",
                format!(
                    "{free_threshold} starts idle GC under {} free blocks of region `{}`'s {n} \
                     a plane (and no more in any other region), where foreground GC already \
                     starts under {} (ftl.gc_threshold = {}, ftl.gc_reserved_blocks = {}): it \
                     would never clean early; raise it",
                    share_of_blocks(free_threshold, n),
                    r.name,
                    ftl.gc_threshold_blocks(n),
                    ftl.gc_threshold,
                    ftl.gc_reserved_blocks,
                ),
            ));
        }
        let host = &d.config.host;
        let flows = &d.config.flows;
        if !flows.is_empty() && flows.iter().all(|f| f.replay(host).0 == ReplayMode::Closed) {
            return Err(Error::config(
                "ftl.idle_gc.policy",
                "`when_idle` cleans while the host has no request in flight, and every flow \
                 replays closed-loop, keeping its queue depth of requests in flight until its \
                 last: the host is never idle (replay a flow open-loop, at its trace times)",
            ));
        }
        Ok(())
    }
}

/// The CMT holds an entry, and a translation page (a mapping unit) holds one.
impl Needs for MappingCacheConfig {
    /// A mapping table on flash writes its translation pages in a stream of their own.
    fn open_blocks(&self, _config: &Config) -> Option<OpenBlocks> {
        (!self.is_all()).then(|| OpenBlocks {
            blocks: 1,
            key: "ftl.mapping_cache.policy",
            what: "a block open for the mapping table's translation pages".to_string(),
        })
    }

    fn needs(&self, d: &Device) -> Result<(), Error> {
        let MappingCacheConfig::Demand {
            capacity_kib,
            entry_bytes,
            translation_entry_bytes,
        } = self
        else {
            return Ok(());
        };
        positive("ftl.mapping_cache.capacity_kib", *capacity_kib)?;
        if let Some(b) = entry_bytes {
            positive("ftl.mapping_cache.entry_bytes", *b as u64)?;
        }
        let unit = d.unit_bytes();
        if let Some(b) = translation_entry_bytes {
            positive("ftl.mapping_cache.translation_entry_bytes", *b as u64)?;
            if *b as u64 > unit {
                return Err(Error::config(
                    "ftl.mapping_cache.translation_entry_bytes",
                    format!("a translation page is one mapping unit ({unit} bytes), too small for an entry of {b}"),
                ));
            }
        }
        let sizes = self.sizes(d.geometry.physical_units(), d.geometry.unit_bytes);
        if sizes.is_some_and(|s| s.cmt_entries == 0) {
            return Err(Error::config(
                "ftl.mapping_cache.capacity_kib",
                "holds no entry of the cached mapping table",
            ));
        }
        Ok(())
    }
}

/// Multi-plane commands join operations on the planes of one die. Suspension serves the reads
/// a die has queued ahead of its other work.
impl Needs for SchedulerConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        if self.multiplane && d.geometry.planes_per_die < 2 {
            return Err(Error::config(
                "scheduler.multiplane",
                "joins operations on different planes of a die into one command, but a die has \
                 one plane (geometry.planes_per_die = 1)",
            ));
        }
        if let SuspensionConfig::ForReads {
            program_suspend_ns,
            erase_suspend_ns,
            max_per_operation,
            ..
        } = self.suspension
        {
            if program_suspend_ns.is_none() && erase_suspend_ns.is_none() {
                return Err(Error::config(
                    "scheduler.suspension",
                    "suspends neither programs nor erases: give program_suspend_ns, \
                     erase_suspend_ns or both (or policy = \"none\")",
                ));
            }
            if let Some(n) = max_per_operation {
                positive("scheduler.suspension.max_per_operation", n as u64)?;
            }
            if !self.read_priority {
                return Err(Error::config(
                    "scheduler.suspension",
                    "lets a read interrupt the program or erase its die is running, yet without \
                     scheduler.read_priority the read would still wait for every operation \
                     queued before it: set read_priority = true",
                ));
            }
        }
        Ok(())
    }
}

/// Cached reads need room for a mapping unit; a write cache acknowledges a write once its data
/// is in DRAM, which a write acknowledged on program contradicts.
impl Needs for DataCacheConfig {
    fn needs(&self, d: &Device) -> Result<(), Error> {
        if let Some(kib) = self.read_capacity_kib() {
            let unit_kib = d.config.ftl.mapping_unit_kib as u64;
            if kib < unit_kib {
                return Err(Error::config(
                    "data_cache.capacity_kib",
                    format!("must hold at least one mapping unit ({unit_kib} KiB), got {kib}"),
                ));
            }
        }
        if self.caches_writes() && d.config.ftl.write_ack == WriteAck::Program {
            return Err(Error::config(
                "data_cache.policy",
                "a write cache acknowledges a write once its data is in DRAM, but \
                 ftl.write_ack = \"program\" acknowledges it only once programmed: choose one",
            ));
        }
        Ok(())
    }
}
