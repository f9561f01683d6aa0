//! What every accepted run must show in its summary (docs/results.md): the requests it was
//! given all complete and add up; the metrics mean what the docs say; a technique that is on
//! acts wherever the workload (`facts.rs`) gives it work, and one that can never act is a
//! refusal the validation missed. A check is armed when its condition holds (the technique is
//! on, the workload gives it work); the report counts how often each one was.

use serde_json::Value;

use ssdlab::config::{
    Config, HostProtocol, Level1GcConfig, MigrationConfig, PartialProgramConfig, PartialWrite,
    PlacementConfig, ReadPolicyConfig, ReductionConfig, ReliabilityConfig, SplitConfig, PCM_REGION,
};
use ssdlab::content::ContentConfig;
use ssdlab::flash::Medium;
use ssdlab::ftl::placement::Oblivious;
use ssdlab::trace::Op;

use super::facts::Facts;

/// One assertion a run broke: which, and the numbers.
#[derive(Clone, Debug)]
pub struct Failure {
    pub check: &'static str,
    pub detail: String,
}

/// The checks a run's config made it consider, those the run armed, and those that failed.
#[derive(Default)]
pub struct Verdict {
    pub considered: Vec<&'static str>,
    pub armed: Vec<&'static str>,
    pub failures: Vec<Failure>,
}

impl Verdict {
    /// Where `armed`, check `name`: it must `hold`, else it fails with `detail`.
    fn expect(
        &mut self,
        name: &'static str,
        armed: bool,
        holds: bool,
        detail: impl FnOnce() -> String,
    ) {
        self.considered.push(name);
        if armed {
            self.armed.push(name);
            if !holds {
                self.failures.push(Failure {
                    check: name,
                    detail: detail(),
                });
            }
        }
    }
}

/// A count of the summary, by its dotted key.
fn n(s: &Value, path: &str) -> u64 {
    path.split('.')
        .fold(s, |v, k| &v[k])
        .as_u64()
        .unwrap_or_else(|| panic!("summary key `{path}` is not a count"))
}

/// A count the summary has only while its technique is on (0 otherwise).
fn maybe(s: &Value, path: &str) -> u64 {
    path.split('.').fold(s, |v, k| &v[k]).as_u64().unwrap_or(0)
}

/// The checks of an accepted run's summary `s`.
pub fn check(config: &Config, f: &Facts, s: &Value) -> Verdict {
    let mut v = Verdict::default();
    let g = ssdlab::device::geometry(config);
    let ftl = &config.ftl;
    let compress = matches!(ftl.reduction, ReductionConfig::Compress { .. });
    let zeros = config.content.zeros();
    // All-zero units are not stored when units are compressed: they need no slot, no level.
    // Real files hold all-zero units of their own (seed 79903: a unit's third write of four).
    let stores_zero_units = compress
        && (zeros.zero_unit_fraction > 0.0 || matches!(config.content, ContentConfig::Corpus(_)));

    let messages = &s["integrity"]["messages"];
    v.expect("integrity", true, n(s, "integrity.violations") == 0, || {
        format!("{} violations: {messages}", n(s, "integrity.violations"))
    });

    // With a statistics window the first requests (in arrival order over all flows) are left
    // out: the checks of every request, and of a technique acting on the workload, hold for the
    // whole run only (the technique may have acted in the warm-up alone).
    let window = config.statistics.warmup_of(f.requests).ok().flatten();
    let whole = window.is_none();
    if let Some(warmup) = window {
        let measured = n(s, "requests.count");
        let excluded = n(s, "statistics.warmup_requests");
        v.expect(
            "the window leaves out the warm-up",
            true,
            excluded == warmup && measured == f.requests - warmup,
            || {
                format!(
                    "{} requests, a warm-up of {warmup}: statistics.warmup_requests = \
                     {excluded}, requests.count = {measured}",
                    f.requests
                )
            },
        );
        // A lone flow issues its requests in source order: the measured ones are its last.
        if let [ops] = &f.flow_ops[..] {
            let tail = &ops[warmup as usize..];
            let count = |op: Op| tail.iter().filter(|o| **o == op).count() as u64;
            let want = (count(Op::Read), count(Op::Write), count(Op::Trim));
            let got = (
                n(s, "requests.read"),
                n(s, "requests.write"),
                n(s, "requests.trim"),
            );
            v.expect(
                "the window measures a lone flow's last requests",
                true,
                got == want,
                || format!("(read, write, trim) after the warm-up {want:?}, measured {got:?}"),
            );
        }
        let (from, span, end) = (
            n(s, "statistics.measured_from_ns"),
            n(s, "statistics.measured_span_ns"),
            n(s, "sim_time_ns"),
        );
        v.expect(
            "the measured span ends the run",
            true,
            from <= end && span == end - from,
            || format!("measured from {from} ns for {span} ns, the run ends at {end} ns"),
        );
    }

    // Every request completes, and the units the summary counts are the units asked for.
    let asked = (f.requests, f.reads, f.writes, f.trims);
    let done = (
        n(s, "requests.count"),
        n(s, "requests.read"),
        n(s, "requests.write"),
        n(s, "requests.trim"),
    );
    v.expect("requests complete", whole, asked == done, || {
        format!("(count, read, write, trim) asked {asked:?}, completed {done:?}")
    });
    let trimmed = (
        n(s, "trim_units.unmapped"),
        n(s, "trim_units.partly_trimmed"),
    );
    v.expect(
        "trimmed units add up",
        whole && f.trims > 0,
        trimmed == (f.trimmed_whole, f.trimmed_part),
        || {
            format!(
                "trims cover {} units whole and {} in part; trim_units {trimmed:?}",
                f.trimmed_whole, f.trimmed_part
            )
        },
    );
    let read_units = n(s, "read_units.flash")
        + n(s, "read_units.buffer_hit")
        + n(s, "read_units.unmapped")
        + maybe(s, "compression.zero_read_units")
        + maybe(s, "data_cache.read_hit_units");
    v.expect(
        "read units add up",
        whole && f.reads > 0,
        read_units == f.read_units,
        || {
            format!(
                "reads cover {} units; flash + buffer_hit + unmapped + zero_read_units = \
                 {read_units}",
                f.read_units
            )
        },
    );

    // Metrics: RAF counts host reads only; the flash never holds more than it has.
    v.expect(
        "RAF counts host reads only",
        f.reads == 0,
        n(s, "bytes.sensed_for_host") == 0,
        || {
            format!(
                "no host read, yet bytes.sensed_for_host = {} (flash_ops.read.host = {})",
                n(s, "bytes.sensed_for_host"),
                n(s, "flash_ops.read.host")
            )
        },
    );
    let (logical, physical) = (
        n(s, "capacity.logical_bytes"),
        n(s, "capacity.physical_bytes"),
    );
    v.expect(
        "stores no more than the flash holds",
        !compress,
        logical <= physical,
        || {
            format!(
                "units stored as written, logical {logical} bytes > physical {physical} bytes \
                 (ftl.max_units_per_page = {})",
                ftl.max_units_per_page
            )
        },
    );

    // Which region host writes reach, and how many units a region's pages hold.
    let region = |name: &str| g.regions.iter().position(|r| r.name == name);
    let host_region = match &ftl.placement {
        PlacementConfig::SingleRegion => Some(0),
        PlacementConfig::Cache { region: r } | PlacementConfig::Levels { region: r } => region(r),
        // (Host writes reach every region: no single region's GC check applies.)
        PlacementConfig::Oblivious { .. } => None,
    };
    // With a placement of the flash's own, the flash region host writes reach beside PCM.
    let flash_host = match ftl.placement.flash() {
        Some(PlacementConfig::Cache { region: r } | PlacementConfig::Levels { region: r }) => {
            region(r)
        }
        Some(_) => Some(0),
        None => None,
    };
    let slots_of = |i: usize| {
        let r = &g.regions[i];
        r.blocks_per_plane as u64
            * r.pages_per_block as u64
            * r.dies.planes() as u64
            * g.slots_per_page as u64
    };
    let zero_units = maybe(s, "compression.units.zero");

    // GC acts when the data written cannot fit otherwise. (Preconditioning's count includes
    // the all-zero units that compression does not store.)
    if let Some(host) = host_region.filter(|_| !stores_zero_units) {
        let written = n(s, "precondition.units_written")
            + f.write_units
                .saturating_sub(n(s, "write_buffer.coalesced_units") + zero_units);
        let gcs = n(s, "gc.invocations") + n(s, "precondition.gc_invocations");
        v.expect(
            "GC runs when the writes outgrow the flash",
            whole && written > slots_of(host),
            gcs > 0,
            || {
                format!(
                    "{written} units written into region `{}` of {} slots, 0 GC invocations",
                    g.regions[host].name,
                    slots_of(host)
                )
            },
        );
    }

    // Data reduction.
    if let ReductionConfig::Compress {
        failure_threshold_saving,
        ..
    } = &ftl.reduction
    {
        let stored: u64 = ["compressed", "raw", "zero", "split"]
            .iter()
            .map(|k| maybe(s, &format!("compression.units.{k}")))
            .sum();
        v.expect(
            "compression counts every written unit",
            whole && f.writes > 0,
            stored == f.write_units,
            || {
                format!(
                    "writes cover {} units; compressed + raw + zero + split = {stored}",
                    f.write_units
                )
            },
        );
        let redundant = match &config.content {
            ContentConfig::Synthetic(sy) => sy.mix.iter().all(|m| m.compressibility >= 0.9),
            ContentConfig::Corpus(_) => false,
        };
        v.expect(
            "compression acts",
            redundant && *failure_threshold_saving <= 0.5 && stored > zero_units,
            maybe(s, "compression.units.compressed") > 0,
            || {
                format!(
                    "content at least 90% redundant, {} units stored, 0 compressed \
                     (ftl.mapping_unit_kib = {})",
                    stored - zero_units,
                    ftl.mapping_unit_kib
                )
            },
        );
    }
    if let Some(width) = ftl.split.width() {
        let failed = maybe(s, "compression.units.raw") + maybe(s, "compression.units.split");
        let limit = match &ftl.split {
            SplitConfig::Decision {
                max_request_kib: 0, ..
            } => config.geometry.channels as u64 * g.page_bytes as u64 / width as u64,
            SplitConfig::Decision {
                max_request_kib, ..
            } => *max_request_kib as u64 * 1024,
            _ => u64::MAX,
        };
        // (A split buffer may fall back now and then, when no pages of one type are free on
        // enough channels; every one of several falling back is the split never acting. While
        // GC cleans, a plane may have no page to give for its whole erase: a small device under
        // GC may see a few buffers in a row fall back, each for a plane GC holds (seed 9757 at
        // b19f05f: 3 of 3, in an SLC cache of 8 blocks of 6 pages cleaned 15 times).)
        let sealed = n(s, "split.buffers") + n(s, "split.fallbacks");
        let gc_holds_planes = n(s, "gc.invocations") > 0 && sealed < 32;
        // A split buffer takes `width` planes on different channels whose next pages are of
        // one type. With fewer than twice that many flash planes there is little to choose
        // from, and planes written in turn that fell out of step (pages placed by address,
        // level 1's evictions) stay out of step: none of one type may be found again (seeds
        // 50666, 81727).
        let geo = &config.geometry;
        let flash_planes =
            geo.channels * geo.ways_per_channel * geo.dies_per_way * geo.planes_per_die;
        let little_choice = flash_planes < 2 * width;
        v.expect(
            "split acts",
            sealed >= 3
                && !gc_holds_planes
                && !little_choice
                && failed > 0
                && f.largest_write <= limit
                && f.largest_read <= limit,
            n(s, "split.buffers") > 0,
            || {
                format!(
                    "{failed} units failed compression, every write and read is within the \
                     split limit, yet no split buffer was programmed across channels ({} fell \
                     back to normal pages)",
                    n(s, "split.fallbacks")
                )
            },
        );
    }

    // Placement by heat.
    if let PlacementConfig::Levels { .. } = ftl.placement {
        let placed = maybe(s, "placement.host_units");
        v.expect(
            "levels place every written unit",
            whole && f.writes > 0,
            placed == f.write_units - zero_units,
            || {
                format!(
                    "writes cover {} units ({zero_units} all zero); placement.host_units = \
                     {placed}",
                    f.write_units
                )
            },
        );
        // (GC's degrading moves a unit down a level: it may never reach Hot.)
        let demotes = matches!(ftl.migration, MigrationConfig::Degrade { .. });
        v.expect(
            "levels act",
            whole && f.written_thrice && !demotes && !stores_zero_units,
            maybe(s, "placement.hot_units") > 0,
            || "a unit is written three times, 0 units placed in the Hot stream".to_string(),
        );
    }

    // MGA's two-level table: its logical pages are page-mapped or carry subpage entries, and
    // it needs at least a page-level table's bytes (a page entry is that and a flag).
    let two_level = !config.ftl.mapping_granularity.is_unit();
    let t = &s["mapping_table"];
    v.expect(
        "two-level table adds up",
        two_level,
        maybe(s, "mapping_table.page_mapped_pages")
            + maybe(s, "mapping_table.subpage_mapped_pages")
            == maybe(s, "mapping_table.logical_pages")
            && maybe(s, "mapping_table.logical_pages") > 0
            && maybe(s, "mapping_table.bytes") >= maybe(s, "mapping_table.page_table_bytes"),
        || format!("mapping_table = {t}"),
    );

    // Migration: a write must reach the region it moves data from, and data written beyond
    // that region's room must have left it.
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
        // (With oblivious placement host writes reach every region; GC cleans the flash ones.)
        let reached = match &f.oblivious {
            Some(_) => from.is_some_and(|i| g.regions[i].medium != Medium::Pcm),
            None => from == host_region || (flash_host.is_some() && from == flash_host),
        };
        v.expect(
            "migration can act",
            f.writes > 0 && from.is_some(),
            reached,
            || {
                format!(
                    "migration from `{from_region}` to `{to_region}`, but host writes go to \
                     `{}`: no write reaches `{from_region}`",
                    host_region
                        .or(flash_host)
                        .map_or("?", |h| g.regions[h].name.as_str())
                )
            },
        );
        if let Some(i) = from.filter(|_| reached) {
            let copied = n(s, "gc.copied_units") + n(s, "precondition.gc_copied_units");
            // (With oblivious placement, the units whose address falls to the region.)
            let live = match &f.oblivious {
                Some(o) => o.live_by_region[i],
                None => f.live_units,
            };
            v.expect(
                "migration acts",
                whole && !stores_zero_units && live > slots_of(i),
                copied > 0,
                || {
                    format!(
                        "{live} units hold data in `{from_region}`, more than its {} slots, yet \
                         GC copied none out",
                        slots_of(i)
                    )
                },
            );
        }
    }

    // Oblivious placement shares the addresses out among the regions in proportion to their
    // raw capacity (docs/config.md), a run of `run_units` at a time. Counted over the logical
    // units, within a few runs: over N runs Fibonacci hashing strays from a share by under
    // 0.42 ln N runs (3,000 random shares and N from 64 to 5,000), and the last run may be cut
    // short. (Fewer runs than 64 may stray further: a run of every unit lies in one region.)
    // (With a placement of the flash's own, the flash regions share one part: not drawn.)
    if let PlacementConfig::Oblivious {
        run_units,
        flash: None,
    } = ftl.placement
    {
        let logical = n(s, "capacity.logical_bytes") / g.unit_bytes as u64;
        let run = run_units.unwrap_or(g.max_pages_per_block * g.units_per_page) as u64;
        let runs = logical.div_ceil(run);
        let placement = Oblivious::new(&g, run_units, None);
        let mut held = vec![0u64; g.regions.len()];
        for k in 0..runs {
            held[placement.region_of((k * run) as u32)] += run.min(logical - k * run);
        }
        let slack = (2.0 + (runs as f64).ln()) * run as f64;
        let share = |i: usize| g.capacity_share(i) * logical as f64;
        let off: Vec<String> = (0..held.len())
            .filter(|&i| (held[i] as f64 - share(i)).abs() > slack)
            .map(|i| {
                format!(
                    "`{}` {} units for a share of {:.0}",
                    g.regions[i].name,
                    held[i],
                    share(i)
                )
            })
            .collect();
        v.expect(
            "oblivious placement shares addresses by capacity",
            runs >= 64,
            off.is_empty(),
            || {
                format!(
                    "{logical} logical units in {runs} runs of {run}: {} (more than {slack:.0} \
                     off)",
                    off.join(", ")
                )
            },
        );
    }

    // PCM: data whose address falls to it is read and rewritten there, in place; its programs
    // cost its energy per bit; and nothing else reaches it.
    if let Some(o) = f.oblivious.as_ref().filter(|o| o.pcm.is_some()) {
        let (reads, programs, in_place) = (
            n(s, "pcm.reads"),
            n(s, "pcm.programs"),
            n(s, "pcm.in_place_writes"),
        );
        v.expect(
            "a PCM rewrite is a PCM program",
            true,
            programs >= in_place,
            || format!("pcm.in_place_writes = {in_place}, pcm.programs = {programs}"),
        );
        // (Level-1 GC moves data in and out of PCM. A compressing reduction stores an all-zero
        // unit nowhere, on neither medium: seed 67262.)
        let level1 = !ftl.level1_gc.is_none();
        v.expect(
            "PCM serves reads of the data on it",
            whole && o.reads_pcm_resident && !level1 && !stores_zero_units,
            reads > 0,
            || {
                "a host read covers a unit preconditioning put on PCM that no request writes or \
                 trims, pcm.reads = 0"
                    .to_string()
            },
        );
        v.expect(
            "PCM rewrites the data on it in place",
            whole && o.writes_pcm_resident && !level1 && !stores_zero_units,
            in_place > 0,
            || {
                "a host write covers a unit preconditioning put on PCM that no request trims, \
                 pcm.in_place_writes = 0"
                    .to_string()
            },
        );
        // (GC moving flash data into PCM would bring other addresses to it.)
        let into_pcm = match &ftl.migration {
            MigrationConfig::Evict { to_region, .. }
            | MigrationConfig::Degrade { to_region, .. } => to_region == PCM_REGION,
            MigrationConfig::None => false,
        };
        v.expect(
            "PCM reads only the data on it",
            !o.reads_pcm_addresses && !into_pcm && !level1,
            reads == 0,
            || {
                format!(
                    "no host read covers a unit whose address falls to PCM, pcm.reads = {reads}"
                )
            },
        );
        // (Lower bounds: flash's operations cost energy too; the summary rounds to 1 nJ.)
        let (read_pj, write_pj) = config.energy.pcm_page_pj(g.page_bytes);
        let uj = |k: &str| s["energy_uj"][k].as_f64().unwrap_or(0.0) + 0.0005;
        v.expect(
            "PCM programs cost PCM's energy",
            programs > 0,
            uj("program") >= programs as f64 * write_pj / 1e6,
            || {
                format!(
                    "{programs} PCM programs of {write_pj} pJ each, energy_uj.program = {}",
                    s["energy_uj"]["program"]
                )
            },
        );
        v.expect(
            "PCM reads cost PCM's energy",
            reads > 0 && matches!(ftl.read_policy, ReadPolicyConfig::Full),
            uj("read_sense") >= reads as f64 * read_pj / 1e6,
            || {
                format!(
                    "{reads} PCM page reads of {read_pj} pJ each, energy_uj.read_sense = {}",
                    s["energy_uj"]["read_sense"]
                )
            },
        );
    }

    // Level-1 GC: reported while on, and within its budget (what it moved at the statistics
    // window's boundary included).
    // The host's streams: reported while kept apart, and opened where a write has an id.
    let host_streams = s.get("host_streams");
    v.expect(
        "host streams are reported exactly while kept apart",
        true,
        host_streams.is_some() != ftl.host_streams.is_shared(),
        || {
            format!(
                "ftl.host_streams = {:?}, host_streams = {host_streams:?}",
                ftl.host_streams
            )
        },
    );
    v.expect(
        "host streams open for the writes that carry an id",
        whole && !ftl.host_streams.is_shared() && f.tagged_writes,
        maybe(s, "host_streams.opened") > 0,
        || "a write carries a stream id, 0 streams opened".to_string(),
    );
    let (opened, completed) = (
        maybe(s, "host_streams.opened"),
        maybe(s, "host_streams.completed"),
    );
    v.expect(
        "host streams complete only when a block is set, and only once opened",
        !ftl.host_streams.is_shared(),
        completed <= opened && (completed == 0 || ftl.host_streams.complete_bytes() > 0),
        || {
            format!(
                "complete after {} bytes: {opened} opened, {completed} completed",
                ftl.host_streams.complete_bytes()
            )
        },
    );

    let level1_summary = s.get("level1_gc");
    v.expect(
        "level 1 is reported exactly while on",
        true,
        level1_summary.is_some() != ftl.level1_gc.is_none(),
        || {
            format!(
                "ftl.level1_gc = {:?}, level1_gc = {level1_summary:?}",
                ftl.level1_gc
            )
        },
    );
    if let (Level1GcConfig::ReadIntensity { budget_share, .. }, Some(l1)) =
        (&ftl.level1_gc, level1_summary)
    {
        let moved = l1["units_to_pcm"].as_u64().unwrap_or(0)
            + l1["at_boundary"]["units_to_pcm"].as_u64().unwrap_or(0);
        let budget = (budget_share * g.physical_units() as f64).floor() as u64;
        v.expect(
            "level 1 moves within its budget",
            true,
            moved <= budget,
            || format!("{moved} units moved into PCM, budget {budget}"),
        );
    }

    // The firmware's cores: reported exactly while the device has them; a core serves one
    // command at a time, and the measured part's commands arrived in it.
    let fw = s.get("firmware");
    v.expect(
        "the firmware's cores are reported exactly while there are some",
        true,
        fw.is_some() == (config.timing.firmware_cores > 0),
        || {
            format!(
                "timing.firmware_cores = {}, firmware = {fw:?}",
                config.timing.firmware_cores
            )
        },
    );
    if let Some(fw) = fw {
        v.expect(
            "the firmware's cores are never over-busy and serve each measured request once",
            true,
            fw["utilization"].as_f64().is_some_and(|u| u <= 1.0)
                && n(s, "firmware.commands") == n(s, "requests.count"),
            || format!("firmware = {fw}, requests = {}", s["requests"]),
        );
    }

    // Idle-time GC: reported exactly while on; its jobs are GC invocations, started at its
    // idle checks (at most one a pool each), and its copies GC copies (a job the warm-up
    // started copies after the statistics window's boundary: no bound by the jobs counted).
    let idle = s.get("idle_gc");
    v.expect(
        "idle GC is reported exactly while on",
        true,
        idle.is_some() != ftl.idle_gc.is_none(),
        || format!("ftl.idle_gc = {:?}, idle_gc = {idle:?}", ftl.idle_gc),
    );
    if let Some(idle) = idle {
        let c = |k: &str| idle[k].as_u64().unwrap_or(0);
        let pools = g.planes() as u64 * g.regions.len() as u64;
        v.expect(
            "idle GC's jobs start at its idle checks and count as GC's",
            true,
            c("idle_checks") <= c("checks")
                && c("jobs") <= c("idle_checks") * pools
                && c("jobs") <= n(s, "gc.invocations")
                && c("copied_units") <= n(s, "gc.copied_units"),
            || format!("idle_gc = {idle}, gc = {}", s["gc"]),
        );
    }

    // Partial programming.
    if !ftl.partial_program.is_none() {
        // (With oblivious placement, the flash placement's region, else the first region:
        // validation holds host writes to it. Seed 80732: the flash's writes went to IPU's
        // levels.)
        let host_nop = (host_region.or(flash_host)).map_or(g.regions[0].nop, |h| g.regions[h].nop);
        // Lone writes are placed where their address falls: perhaps in a region of nop 1, or
        // on PCM.
        let placed = !matches!(ftl.placement, PlacementConfig::Oblivious { .. });
        let policy = match ftl.partial_program {
            PartialProgramConfig::Share { .. } => "share",
            _ => "intra_page_update",
        };
        let can = host_nop >= 2 && g.slots_per_page >= 2;
        v.expect("partial programming can act", f.writes > 0, can, || {
            format!(
                "ftl.partial_program = {policy}, but host writes go to pages of {} slot(s) \
                 with nop {host_nop}: no page can be programmed in part",
                g.slots_per_page
            )
        });
        let timeout = ftl.write_buffer_timeout_ns;
        // (MGA's merging rewrites a lone write's logical page with it: its page is not lone. A
        // compressed unit may be all zero, stored nowhere, and a split one goes to pages of
        // its own channels. A unit the size of the page that fails to compress fills it: seed
        // 94681, incompressible content.)
        let stored_alone = !stores_zero_units
            && ftl.split.width().is_none()
            && (ftl.mapping_unit_kib * 1024) < g.page_bytes;
        let merges = matches!(
            ftl.partial_program,
            PartialProgramConfig::Share { merge_threshold_pages } if merge_threshold_pages > 0
        );
        v.expect(
            "partial programming acts",
            whole && placed && can && stored_alone && !merges && f.open_loop && f.lone_writes >= 4,
            maybe(s, "flash_ops.program.partial") > 0,
            || {
                format!(
                    "ftl.partial_program = {policy}, {} single-unit writes in a row each alone \
                     in time (write_buffer_timeout_ns = {timeout}), 0 partial programs",
                    f.lone_writes
                )
            },
        );
        // (An update is made in place in the page of its old copy while it has a free slot. A lone
        // write that is not yet an update fills the erased slot of its level's last page
        // programmed in part, as MGA's sharing does: with two slots a page, each of a unit's
        // writes may fill such a page, so that its old copy's page never has a slot left, seed
        // 50376. With three or more, a page shared by one write keeps a slot for the next update
        // unless a third filled it meanwhile.)
        v.expect(
            "intra-page update acts",
            whole
                && placed
                && policy == "intra_page_update"
                && can
                && g.slots_per_page >= 3
                && stored_alone
                && f.open_loop
                && f.lone_writes_to_one_unit >= 4,
            maybe(s, "flash_ops.program.in_place_update") > 0,
            || {
                format!(
                    "{} writes in a row of one unit, each alone in time \
                     (write_buffer_timeout_ns = {timeout}), 0 in-place updates",
                    f.lone_writes_to_one_unit
                )
            },
        );
    }

    // Read-modify-write of partial writes (a unit with zero parts may need no read).
    let zero_parts =
        compress && (zeros.zero_unit_fraction > 0.0 || zeros.partial_zero_fraction > 0.0);
    v.expect(
        "read-modify-write acts",
        whole
            && ftl.partial_write == PartialWrite::ReadModifyWrite
            && f.partial_write_over_flash
            && !zero_parts,
        maybe(s, "write_buffer.merge_read_units") > 0,
        || "a write covers part of a unit whose only copy is on flash, 0 merge reads".to_string(),
    );

    // Read policies, where every host read wants less than a page, the units are stored as
    // written, and no read joined another's command.
    let flash_reads = n(s, "read_units.flash");
    let (sensed, moved) = (n(s, "bytes.sensed"), n(s, "bytes.read_transferred"));
    let page = g.page_bytes as u64;
    let codeword = g.codeword_bytes as u64;
    let alone = flash_reads > 0 && !compress && n(s, "merged_reads") == 0;
    let full_sensing = n(s, "flash_ops.read.total") * page;
    match &ftl.read_policy {
        ReadPolicyConfig::Full => v.expect(
            "full reads move what they sense",
            true,
            moved == sensed,
            || format!("sensed {sensed} bytes, moved {moved}"),
        ),
        ReadPolicyConfig::Dma => v.expect(
            "DMA reads move less than they sense",
            alone && f.reads_want_less_than_a_page(codeword, page),
            moved < sensed,
            || format!("every host read wants less than a page; sensed {sensed}, moved {moved}"),
        ),
        ReadPolicyConfig::Partial { unit_kib, .. } => v.expect(
            "partial reads sense less than a page",
            alone && f.reads_within(*unit_kib as u64 * 1024),
            sensed < full_sensing,
            || {
                format!(
                    "every host read lies in one {unit_kib} KiB partial-read unit; read \
                     commands sensed {sensed} bytes, whole pages {full_sensing}"
                )
            },
        ),
        ReadPolicyConfig::Subpage { .. } | ReadPolicyConfig::Proportional { .. } => v.expect(
            "subpage and proportional reads sense less than a page",
            alone && f.reads_want_less_than_a_page(codeword, page),
            sensed < full_sensing,
            || {
                format!(
                    "every host read wants less than a page; read commands sensed {sensed} \
                     bytes, whole pages {full_sensing}"
                )
            },
        ),
        // A melded command reads a whole wordline: two pages (MLC) or three (TLC).
        ReadPolicyConfig::Melded { read_ahead_kib, .. } => {
            let (commands, pages) = (n(s, "melded_reads.commands"), n(s, "melded_reads.pages"));
            v.expect(
                "melded reads read whole wordlines",
                s.get("melded_reads").is_some(),
                (2 * commands..=3 * commands).contains(&pages),
                || format!("{commands} melded commands read {pages} pages"),
            );
            // Pages read ahead are a melded command's pages no queued read wanted: at most all
            // but one of each; a read finds a page read ahead only if some was (in the window,
            // unless a warm-up left out the commands that read them: seed 45113).
            let ahead = s["melded_reads"]
                .get("ahead_pages")
                .and_then(|a| a.as_u64());
            let hits = maybe(s, "melded_reads.ahead_hits");
            let warmed_up =
                (config.statistics.warmup_of(f.requests).ok().flatten()).is_some_and(|w| w > 0);
            v.expect(
                "pages are read ahead only with a window, and within melded reads",
                s.get("melded_reads").is_some(),
                ahead.is_some() == (*read_ahead_kib > 0)
                    && ahead
                        .is_none_or(|a| a <= pages - commands && (a > 0 || hits == 0 || warmed_up)),
                || {
                    format!(
                        "read_ahead_kib = {read_ahead_kib}: {ahead:?} pages read ahead, {hits} \
                         hits, by {commands} melded commands of {pages} pages"
                    )
                },
            )
        }
    }

    // The error model sees every host flash read.
    v.expect(
        "the error model acts",
        matches!(config.reliability, ReliabilityConfig::PowerLaw(_)) && flash_reads > 0,
        maybe(s, "reliability.reads") > 0,
        || format!("{flash_reads} units read from flash, reliability.reads = 0"),
    );

    // Suspension: reported exactly while on; a kind it may not suspend is never suspended, and
    // no operation is suspended more often than allowed.
    let suspension = ssdlab::device::suspension(&config.scheduler.suspension);
    v.expect(
        "suspensions are reported exactly while on",
        true,
        s["flash_ops"]["program"].get("suspended").is_some() == suspension.is_some(),
        || format!("suspension {suspension:?}, flash_ops {}", s["flash_ops"]),
    );
    if let Some(rules) = suspension {
        for (kind, rule) in [("program", rules.program), ("erase", rules.erase)] {
            let ops = n(s, &format!("flash_ops.{kind}.total"));
            let most = rule.map_or(0, |r| ops.saturating_mul(r.max_per_operation as u64));
            let suspended = n(s, &format!("flash_ops.{kind}.suspended"));
            // (A window would count the suspensions of operations issued before it.)
            v.expect(
                "no operation is suspended more often than allowed",
                config.statistics.is_off(),
                suspended <= most,
                || format!("{suspended} {kind} suspensions of {ops} {kind}s, rule {rule:?}"),
            );
        }
    }

    // The data cache: reported exactly while on; only a read cache serves reads it brought in,
    // and a write cache takes in every byte written (and reads of buffered data).
    let cache = &config.data_cache;
    v.expect(
        "the data cache is reported exactly while on",
        true,
        s.get("data_cache").is_some() != cache.is_off(),
        || format!("data_cache {cache:?}, summary {:?}", s.get("data_cache")),
    );
    v.expect(
        "only a read cache serves reads from DRAM",
        cache.read_capacity_kib().is_none(),
        maybe(s, "data_cache.read_hit_units") == 0,
        || format!("{} read hits", maybe(s, "data_cache.read_hit_units")),
    );
    v.expect(
        "a write cache takes in every byte written",
        cache.caches_writes() && config.statistics.is_off(),
        maybe(s, "data_cache.dram.bytes") >= n(s, "write_bytes"),
        || {
            format!(
                "{} DRAM bytes, {} written",
                maybe(s, "data_cache.dram.bytes"),
                n(s, "write_bytes")
            )
        },
    );

    v.expect(
        "a read cache capped at the logical capacity pushes no unit out",
        s["data_cache"]["capped"] == true,
        maybe(s, "data_cache.evicted_units") == 0,
        || format!("data_cache {:?}", s.get("data_cache")),
    );

    // A mapping table on flash: its operations and its CMT reported exactly while it is; each
    // changed entry pushed out writes one translation page, and a CMT capped at the whole
    // table pushes none out.
    let on_flash = !config.ftl.mapping_cache.is_all();
    v.expect(
        "mapping operations are reported exactly while the table is on flash",
        true,
        s["flash_ops"]["read"].get("mapping").is_some() == on_flash
            && s.get("mapping_cache").is_some() == on_flash,
        || format!("flash_ops {}", s["flash_ops"]),
    );
    v.expect(
        "each changed entry pushed out writes its translation page",
        on_flash,
        maybe(s, "mapping_cache.page_writes") == maybe(s, "mapping_cache.dirty_evictions"),
        || format!("mapping_cache {:?}", s.get("mapping_cache")),
    );
    v.expect(
        "a CMT capped at the whole table pushes no changed entry out",
        s["mapping_cache"]["capped"] == true,
        maybe(s, "mapping_cache.dirty_evictions") == 0,
        || format!("mapping_cache {:?}", s.get("mapping_cache")),
    );

    // Switches that are off leave their counters at 0.
    v.expect(
        "merge_reads = false merges nothing",
        !config.scheduler.merge_reads,
        n(s, "merged_reads") == 0,
        || format!("merged_reads = {}", n(s, "merged_reads")),
    );
    v.expect(
        "wear levelling off moves nothing",
        !ftl.wear_leveling.enabled,
        n(s, "wear_leveling.invocations") == 0,
        || {
            format!(
                "wear_leveling.invocations = {}",
                n(s, "wear_leveling.invocations")
            )
        },
    );
    let link = &s["utilization"]["host_link"];
    let busy = link["to_device"].as_f64().unwrap_or(0.0) + link["to_host"].as_f64().unwrap_or(0.0);
    v.expect(
        "no host link is never busy",
        config.host_interface.protocol == HostProtocol::None,
        busy == 0.0,
        || format!("protocol none, host_link busy {busy}"),
    );
    v
}
