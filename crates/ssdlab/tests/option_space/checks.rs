//! What every accepted run must show in its summary (docs/results.md): the requests it was
//! given all complete and add up; the metrics mean what the docs say; a technique that is on
//! acts wherever the workload (`facts.rs`) gives it work, and one that can never act is a
//! refusal the validation missed.

use serde_json::Value;

use ssdlab::config::{
    Config, HostProtocol, MigrationConfig, PartialProgramConfig, PlacementConfig, ReadPolicyConfig,
    ReductionConfig, ReliabilityConfig, SplitConfig,
};
use ssdlab::content::ContentConfig;
use ssdlab::flash::Geometry;

use super::facts::Facts;

/// One assertion a run broke: which, and the numbers.
#[derive(Clone, Debug)]
pub struct Failure {
    pub check: &'static str,
    pub detail: String,
}

fn n(s: &Value, path: &str) -> u64 {
    path.split('.')
        .fold(s, |v, k| &v[k])
        .as_u64()
        .unwrap_or_else(|| panic!("summary key `{path}` is not a count"))
}

/// The checks of an accepted run's summary `s`.
pub fn check(config: &Config, f: &Facts, s: &Value) -> Vec<Failure> {
    let mut out = Vec::new();
    let mut fail = |check: &'static str, detail: String| out.push(Failure { check, detail });
    let g = Geometry::new(config);
    let ftl = &config.ftl;

    let violations = n(s, "integrity.violations");
    if violations > 0 {
        for m in s["integrity"]["messages"].as_array().into_iter().flatten() {
            fail("integrity", m.as_str().unwrap_or_default().to_string());
        }
    }

    // Every request completes, and the units the summary counts are the units asked for.
    let asked = (f.requests, f.reads, f.writes, f.trims);
    let done = (
        n(s, "requests.count"),
        n(s, "requests.read"),
        n(s, "requests.write"),
        n(s, "requests.trim"),
    );
    if asked != done {
        fail(
            "requests complete",
            format!("(count, read, write, trim) asked {asked:?}, completed {done:?}"),
        );
    }
    let trimmed = (
        n(s, "trim_units.unmapped"),
        n(s, "trim_units.partly_trimmed"),
    );
    if trimmed != (f.trimmed_whole, f.trimmed_part) {
        fail(
            "trim units add up",
            format!(
                "trims cover {} units whole and {} in part; summary {trimmed:?}",
                f.trimmed_whole, f.trimmed_part
            ),
        );
    }
    let zero_reads = s["compression"]["zero_read_units"].as_u64().unwrap_or(0);
    let read_units = n(s, "read_units.flash")
        + n(s, "read_units.buffer_hit")
        + n(s, "read_units.unmapped")
        + zero_reads;
    if read_units != f.read_units {
        fail(
            "read units add up",
            format!(
                "reads cover {} units; flash + buffer_hit + unmapped + zero_read_units = \
                 {read_units}",
                f.read_units
            ),
        );
    }

    // Metrics: RAF counts host reads only; the flash never holds more than it has.
    if f.reads == 0 && n(s, "bytes.sensed_for_host") > 0 {
        fail(
            "RAF counts host reads only",
            format!(
                "no host read, yet bytes.sensed_for_host = {} (flash_ops.read.host = {})",
                n(s, "bytes.sensed_for_host"),
                n(s, "flash_ops.read.host")
            ),
        );
    }
    let compress = matches!(ftl.reduction, ReductionConfig::Compress { .. });
    let (logical, physical) = (
        n(s, "capacity.logical_bytes"),
        n(s, "capacity.physical_bytes"),
    );
    if !compress && logical > physical {
        fail(
            "stores no more than the flash holds",
            format!(
                "units stored as written, logical {logical} bytes > physical {physical} bytes \
                 (ftl.max_units_per_page = {})",
                ftl.max_units_per_page
            ),
        );
    }

    // Which regions host writes reach, and how many units a region's pages hold.
    let region = |name: &str| g.regions.iter().position(|r| r.name == name);
    let host_region = match &ftl.placement {
        PlacementConfig::SingleRegion => Some(0),
        PlacementConfig::Cache { region: r } | PlacementConfig::Levels { region: r } => region(r),
    };
    let slots_of = |i: usize| {
        let r = &g.regions[i];
        r.blocks_per_plane as u64
            * r.pages_per_block as u64
            * g.planes() as u64
            * g.slots_per_page as u64
    };
    let zero_units = s["compression"]["units"]["zero"].as_u64().unwrap_or(0);
    let coalesced = n(s, "write_buffer.coalesced_units");

    // GC acts when the data written cannot fit otherwise.
    if let Some(host) = host_region {
        let written = n(s, "precondition.units_written")
            + f.write_units.saturating_sub(coalesced + zero_units);
        let gcs = n(s, "gc.invocations") + n(s, "precondition.gc_invocations");
        if written > slots_of(host) && gcs == 0 {
            fail(
                "GC runs when the writes outgrow the flash",
                format!(
                    "{written} units written into region `{}` of {} slots, 0 GC invocations",
                    g.regions[host].name,
                    slots_of(host)
                ),
            );
        }
    }

    // Data reduction.
    if let ReductionConfig::Compress {
        failure_threshold_saving,
        ..
    } = &ftl.reduction
    {
        let c = &s["compression"]["units"];
        let stored: u64 = ["compressed", "raw", "zero", "split"]
            .iter()
            .map(|k| c[k].as_u64().unwrap_or(0))
            .sum();
        if stored != f.write_units {
            fail(
                "compression counts every written unit",
                format!(
                    "writes cover {} units; compressed + raw + zero + split = {stored}",
                    f.write_units
                ),
            );
        }
        let redundant = match &config.content {
            ContentConfig::Synthetic(sy) => sy.mix.iter().all(|m| m.compressibility >= 0.9),
            ContentConfig::Corpus(_) => false,
        };
        let compressed = c["compressed"].as_u64().unwrap_or(0);
        if redundant && *failure_threshold_saving <= 0.5 && stored > zero_units && compressed == 0 {
            fail(
                "compression acts",
                format!(
                    "content at least 90% redundant, {} units stored, 0 compressed",
                    stored - zero_units
                ),
            );
        }
    }
    if let Some(width) = ftl.split.width() {
        let units = &s["compression"]["units"];
        let failed = units["raw"].as_u64().unwrap_or(0) + units["split"].as_u64().unwrap_or(0);
        let limit = match &ftl.split {
            SplitConfig::Decision {
                max_request_kib: 0, ..
            } => config.geometry.channels as u64 * g.page_bytes as u64 / width as u64,
            SplitConfig::Decision {
                max_request_kib, ..
            } => *max_request_kib as u64 * 1024,
            _ => u64::MAX,
        };
        if failed > 0
            && f.largest_write <= limit
            && f.largest_read <= limit
            && n(s, "split.buffers") == 0
        {
            fail(
                "split acts",
                format!(
                    "{failed} units failed compression, every write and read is within the \
                     split limit, yet no split buffer was programmed across channels ({} fell \
                     back to normal pages)",
                    n(s, "split.fallbacks")
                ),
            );
        }
    }

    // Placement by heat.
    if let PlacementConfig::Levels { .. } = ftl.placement {
        let placed = s["placement"]["host_units"].as_u64().unwrap_or(0);
        if placed != f.write_units - zero_units {
            fail(
                "levels place every written unit",
                format!(
                    "writes cover {} units ({zero_units} all zero); placement.host_units = \
                     {placed}",
                    f.write_units
                ),
            );
        }
        let demotes = matches!(ftl.migration, MigrationConfig::Degrade { .. });
        let zeroes = config.content.zeros().zero_unit_fraction > 0.0 && compress;
        let hot = s["placement"]["hot_units"].as_u64().unwrap_or(0);
        if f.written_thrice && !demotes && !zeroes && hot == 0 {
            fail(
                "levels act",
                "a unit is written three times, 0 units placed in the Hot stream".to_string(),
            );
        }
    }

    // Migration: data written beyond the region it leaves must have left it.
    if let MigrationConfig::Evict {
        from_region,
        to_region,
    }
    | MigrationConfig::Degrade {
        from_region,
        to_region,
    } = &ftl.migration
    {
        let from = region(from_region);
        if f.writes > 0 && from.is_some() && from != host_region {
            fail(
                "migration can act",
                format!(
                    "migration from `{from_region}` to `{to_region}`, but host writes go to \
                     `{}`: no write reaches `{from_region}`",
                    host_region.map_or("?", |h| g.regions[h].name.as_str())
                ),
            );
        }
        let zeroes = config.content.zeros().zero_unit_fraction > 0.0 && compress;
        let copied = n(s, "gc.copied_units") + n(s, "precondition.gc_copied_units");
        if let Some(i) = from.filter(|_| !zeroes && from == host_region) {
            if f.live_units > slots_of(i) && copied == 0 {
                fail(
                    "migration acts",
                    format!(
                        "{} units hold data, more than the {} slots of `{from_region}`, yet GC \
                         copied none out",
                        f.live_units,
                        slots_of(i)
                    ),
                );
            }
        }
    }

    // Partial programming.
    if !ftl.partial_program.is_none() && f.writes > 0 {
        let programs = s["flash_ops"]["program"]["partial"].as_u64().unwrap_or(0);
        let in_place = s["flash_ops"]["program"]["in_place_update"]
            .as_u64()
            .unwrap_or(0);
        let host_nop = host_region.map_or(1, |h| g.regions[h].nop);
        let policy = match ftl.partial_program {
            PartialProgramConfig::Share { .. } => "share",
            _ => "intra_page_update",
        };
        if host_nop < 2 || g.slots_per_page < 2 {
            fail(
                "partial programming can act",
                format!(
                    "ftl.partial_program = {policy}, but host writes go to pages of {} slot(s) \
                     with nop {host_nop}: no page can be programmed in part",
                    g.slots_per_page
                ),
            );
        } else if f.open_loop && f.lone_writes >= 4 && programs == 0 {
            fail(
                "partial programming acts",
                format!(
                    "ftl.partial_program = {policy}, {} single-unit writes in a row each alone \
                     in time (write_buffer_timeout_ns = {}), 0 partial programs",
                    f.lone_writes, ftl.write_buffer_timeout_ns
                ),
            );
        }
        if policy == "intra_page_update"
            && host_nop >= 2
            && g.slots_per_page >= 2
            && f.open_loop
            && f.lone_writes_to_one_unit >= 4
            && in_place == 0
        {
            fail(
                "intra-page update acts",
                format!(
                    "{} writes in a row of one unit, each alone in time \
                     (write_buffer_timeout_ns = {}), 0 in-place updates",
                    f.lone_writes_to_one_unit, ftl.write_buffer_timeout_ns
                ),
            );
        }
    }

    // Read-modify-write of partial writes.
    let zero_free = !compress || {
        let z = config.content.zeros();
        z.zero_unit_fraction == 0.0 && z.partial_zero_fraction == 0.0
    };
    if ftl.partial_write == ssdlab::config::PartialWrite::ReadModifyWrite
        && f.partial_write_over_flash
        && zero_free
        && s["write_buffer"]["merge_read_units"].as_u64() == Some(0)
    {
        fail(
            "read-modify-write acts",
            "a write covers part of a unit whose only copy is on flash, 0 merge reads".to_string(),
        );
    }

    // Read policies, where every host read wants less than a page and no reads were merged.
    let flash_reads = n(s, "read_units.flash");
    let (sensed, moved) = (n(s, "bytes.sensed"), n(s, "bytes.read_transferred"));
    let page = g.page_bytes as u64;
    let codeword = g.codeword_bytes as u64;
    let alone = flash_reads > 0 && !compress && n(s, "merged_reads") == 0;
    let read_ops = n(s, "flash_ops.read.total");
    match &ftl.read_policy {
        ReadPolicyConfig::Full if moved != sensed => fail(
            "full reads move what they sense",
            format!("sensed {sensed} bytes, moved {moved}"),
        ),
        ReadPolicyConfig::Dma
            if alone && f.reads_want_less_than_a_page(codeword, page) && moved >= sensed =>
        {
            fail(
                "DMA reads move less than they sense",
                format!("every host read wants less than a page; sensed {sensed}, moved {moved}"),
            )
        }
        ReadPolicyConfig::Partial { unit_kib, .. }
            if alone && f.reads_within(*unit_kib as u64 * 1024) && sensed >= read_ops * page =>
        {
            fail(
                "partial reads sense less than a page",
                format!(
                    "every host read lies in one {unit_kib} KiB partial-read unit; {read_ops} \
                     read commands sensed {sensed} bytes"
                ),
            )
        }
        ReadPolicyConfig::Subpage { .. }
            if alone
                && f.reads_want_less_than_a_page(codeword, page)
                && sensed >= read_ops * page =>
        {
            fail(
                "subpage reads sense less than a page",
                format!(
                    "every host read wants less than a page; {read_ops} read commands sensed \
                     {sensed} bytes"
                ),
            )
        }
        _ => {}
    }

    // The error model sees every host flash read.
    if let ReliabilityConfig::PowerLaw(_) = config.reliability {
        if flash_reads > 0 && s["reliability"]["reads"].as_u64().unwrap_or(0) == 0 {
            fail(
                "the error model acts",
                format!("{flash_reads} units read from flash, reliability.reads = 0"),
            );
        }
    }

    // Switches that are off leave their counters at 0; the host link carries what crosses it.
    if !config.scheduler.merge_reads && n(s, "merged_reads") > 0 {
        fail(
            "merge_reads = false merges nothing",
            format!("merged_reads = {}", n(s, "merged_reads")),
        );
    }
    if !ftl.wear_leveling.enabled && n(s, "wear_leveling.invocations") > 0 {
        fail(
            "wear levelling off moves nothing",
            format!(
                "wear_leveling.invocations = {}",
                n(s, "wear_leveling.invocations")
            ),
        );
    }
    let link = &s["utilization"]["host_link"];
    let busy = link["to_device"].as_f64().unwrap_or(0.0) + link["to_host"].as_f64().unwrap_or(0.0);
    if config.host_interface.protocol == HostProtocol::None && busy > 0.0 {
        fail(
            "no host link is never busy",
            format!("protocol none, host_link busy {busy}"),
        );
    }
    out
}
