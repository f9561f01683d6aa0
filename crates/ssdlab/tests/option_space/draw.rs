//! From a seed to a configuration: a preset, then `--set` overrides drawn over every decision the
//! config offers, on a small device of random geometry. The draws lean towards combinations the
//! validation accepts (a split FTL comes with compression and a logical page the size of the
//! physical page, partial programming with a region whose pages take it) so that most runs
//! exercise the engine, and now and then take one it should refuse, so that refusals are
//! exercised too. A draw is a pure function of its seed.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use toml::Value;

use ssdlab::config::{preset_names, preset_source};

use super::flows::FlowPlan;

/// One configuration of the option space.
pub struct Draw {
    pub seed: u64,
    pub preset: &'static str,
    /// The device's `--set` overrides, in order (the flows are added once the device's
    /// logical capacity is known: `flows.rs`).
    pub sets: Vec<String>,
    pub flows: Vec<FlowPlan>,
    /// A key the draw set on purpose that the config does not accept (an unknown key in a
    /// policy table without parameters, an empty region name): the run must be refused.
    pub invalid: Option<String>,
}

/// The codec names `ftl.reduction.codec` takes (docs/codecs.md): every codec kind, with and
/// without its options.
pub const CODECS: [&str; 10] = [
    "dpc",
    "dpc-g64-p2-n2",
    "fpc",
    "fpc128",
    "fpc-s8",
    "bdi",
    "bdi128",
    "lz4",
    "zstd",
    "dpc-g128-p1-n1",
];

/// Timing tables for the cell modes a preset has none of (the IPU preset's SLC and MLC, the
/// default preset's TLC): a region or die mode the preset lacks needs one to run.
const SLC_TIMING: &str = "{tr_ns=25000, tprog_ns=300000, tbers_ns=10000000}";
const MLC_TIMING: &str = "{tr_lsb_ns=50000, tr_msb_ns=50000, tprog_lsb_ns=900000, \
                          tprog_msb_ns=900000, tbers_ns=10000000}";
const TLC_TIMING: &str = "{tr_lsb_ns=58000, tr_csb_ns=78000, tr_msb_ns=107000, \
                          tprog_lsb_ns=558000, tprog_csb_ns=2201000, tprog_msb_ns=5001000, \
                          tbers_ns=3000000}";

/// The power-law error model, whole: the IPU preset's parameters for SLC and MLC pages; TLC
/// pages take the MLC ones (the harness needs a valid model in every mode, not a calibrated one).
const POWER_LAW: &str = "{model=\"power_law\", ecc_min_decode_ns=500, ecc_max_decode_ns=96800, \
    correctable_bits_per_codeword=80, max_read_retries=5, retry_error_divisor=2.0, \
    slc={epsilon=1.0e-5, alpha=3.9e-11, k=2.05, beta=6.28e-6, m=0.14, n=0.54, gamma=6.0e-14, \
         p=0.33, q=1.71, partial_program_disturb=2.0e-5, neighbour_program_disturb=5.0e-6}, \
    mlc={epsilon=1.0e-4, alpha=3.9e-10, k=2.05, beta=6.28e-5, m=0.14, n=0.54, gamma=3.0e-12, \
         p=0.33, q=1.71, partial_program_disturb=0.0, neighbour_program_disturb=0.0}, \
    tlc={epsilon=1.0e-4, alpha=3.9e-10, k=2.05, beta=6.28e-5, m=0.14, n=0.54, gamma=3.0e-12, \
         p=0.33, q=1.71, partial_program_disturb=0.0, neighbour_program_disturb=0.0}}";

/// Mixes `harness` salts the seed with, so that a draw's stream differs from the run's `seed`.
const SALT: u64 = 0x6f70_7469_6f6e_7370;

/// Salts the stream PCM's decisions come from (`PcmPlan`): a stream of their own, so that a
/// draw with neither PCM nor oblivious placement is the draw its seed gave before PCM existed.
const PCM_SALT: u64 = 0x7063_6d5f_6472_6177;
/// Melded reads draw from a stream of their own too, for the same reason.
const MELDED_SALT: u64 = 0x6d65_6c64_6564_5f72;
const FLASH_PLACEMENT_SALT: u64 = 0x666c_6173_685f_706c;
/// FIFO victims (docs/extending.md's first example) from a stream of their own, likewise.
const FIFO_SALT: u64 = 0x6669_666f_5f76_6963;
/// Proportional reads (docs/extending.md's second example), likewise.
const PROPORTIONAL_SALT: u64 = 0x7072_6f70_5f72_6561;
/// Idle-time GC (docs/extending.md's third example), likewise.
const IDLE_GC_SALT: u64 = 0x6964_6c65_5f67_635f;
/// The firmware's cores, likewise.
const FIRMWARE_SALT: u64 = 0x6669_726d_5f63_6f72;
/// Preconditioning's mix of write sizes, likewise.
const WRITE_SIZES_SALT: u64 = 0x7772_6974_655f_737a;
/// When a melded read melds, likewise.
const MELD_SALT: u64 = 0x6d65_6c64_5f77_6865;
/// What level 1 moves, a block or units at a time, likewise.
const LEVEL1_SALT: u64 = 0x6c65_7665_6c31_5f67;
/// The stream of MGA's two-level table.
const TWO_LEVEL_SALT: u64 = 0x7477_6f5f_6c65_766c;

/// A need of PCM's (docs/config.md, `[geometry.pcm]`) that a PCM draw leaves unmet on purpose:
/// the validation must refuse it, naming a key.
#[derive(Clone, Copy, PartialEq, Debug)]
enum PcmBreak {
    /// `[timing.pcm]` unknown, half given, or in both forms.
    Timing,
    /// `geometry.pcm` outside its range, or too small a share for a block per PCM plane.
    Share,
    /// The power-law error model.
    Reliability,
    /// A placement other than `oblivious`.
    Placement,
    /// A flash region named `pcm`.
    RegionName,
    /// A PCM energy below 0.
    Energy,
}

/// PCM and oblivious placement as a draw has them, decided first, from their own stream.
struct PcmPlan {
    /// PCM in the device (always with a preset that has it: an override cannot take it out).
    pcm: bool,
    /// The need left unmet, if any.
    broken: Option<PcmBreak>,
    /// Oblivious placement over the flash regions of a device without PCM.
    oblivious_flash: bool,
    /// `ftl.placement.run_units`, when oblivious.
    run_units: Option<u32>,
    /// A `[timing.pcm]` on a device without PCM (refused).
    stray_timing: bool,
}

impl PcmPlan {
    fn draw(q: &mut Pcg64Mcg, preset_pcm: bool) -> PcmPlan {
        let pcm = preset_pcm || chance(q, 0.15);
        let broken = chance(q, 0.15).then(|| {
            pick(
                q,
                &[
                    PcmBreak::Timing,
                    PcmBreak::Share,
                    PcmBreak::Reliability,
                    PcmBreak::Placement,
                    PcmBreak::RegionName,
                    PcmBreak::Energy,
                ],
            )
        });
        let oblivious_flash = chance(q, 0.25);
        // Mostly a block's worth (the default); now and then a unit, a few, or more than a
        // small device's every unit (all data in one region's runs).
        let run_units = match q.gen_range(0..10) {
            0..=4 => None,
            5 => Some(1),
            6 => Some(3),
            7 | 8 => Some(64),
            _ => Some(1 << 20),
        };
        PcmPlan {
            pcm,
            broken: broken.filter(|_| pcm),
            oblivious_flash,
            run_units,
            stray_timing: !pcm && chance(q, 0.01),
        }
    }

    fn breaks(&self, need: PcmBreak) -> bool {
        self.broken == Some(need)
    }
}

/// The overrides drawn so far.
#[derive(Default)]
struct Sets(Vec<String>);

impl Sets {
    fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.0.push(format!("{key}={}", value.into()));
    }
    /// A value written as TOML text (an inline table or array).
    fn raw(&mut self, key: &str, text: &str) {
        self.0.push(format!("{key}={text}"));
    }
}

fn pick<T: Copy>(r: &mut Pcg64Mcg, from: &[T]) -> T {
    from[r.gen_range(0..from.len())]
}

fn chance(r: &mut Pcg64Mcg, p: f64) -> bool {
    r.gen_bool(p)
}

/// A float rounded to two decimals, so that overrides read well.
fn cents(r: &mut Pcg64Mcg, lo: f64, hi: f64) -> f64 {
    (r.gen_range(lo..hi) * 100.0).round() / 100.0
}

fn int(n: u64) -> Value {
    Value::Integer(n as i64)
}

/// An inline table from its keys and values.
fn table(entries: &[(&str, Value)]) -> Value {
    Value::Table(
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

/// A region of the drawn device.
struct Region {
    name: &'static str,
    mode: &'static str,
    nop: u32,
}

fn bits(mode: &str) -> u32 {
    match mode {
        "slc" => 1,
        "mlc" => 2,
        _ => 3,
    }
}

pub fn draw(seed: u64) -> Draw {
    let r = &mut Pcg64Mcg::seed_from_u64(seed ^ SALT);
    let presets = preset_names();
    let preset = pick(r, &presets);
    let preset_table: toml::Table = preset_source(preset)
        .and_then(|s| s.parse().ok())
        .expect("a preset parses");
    let mut s = Sets::default();
    let mut invalid = None;
    let q = &mut Pcg64Mcg::seed_from_u64(seed ^ PCM_SALT);
    let m = &mut Pcg64Mcg::seed_from_u64(seed ^ MELDED_SALT);
    let plan = PcmPlan::draw(q, preset_table["geometry"].get("pcm").is_some());

    // Geometry: a small device.
    let preset_mode = preset_table["geometry"]["cell_mode"]
        .as_str()
        .unwrap_or("tlc");
    let modes = ["slc", "mlc", "tlc"];
    let mode = if chance(r, 0.5) {
        modes
            .into_iter()
            .find(|m| *m == preset_mode)
            .unwrap_or("tlc")
    } else {
        pick(r, &modes)
    };
    let channels = pick(r, &[1u32, 2, 2, 4]);
    let blocks = pick(r, &[24u32, 32, 48, 64, 64]);
    // Multiples of 6 suit every mode; now and then one that TLC's wordlines cannot take.
    let pages = match chance(r, 0.93) {
        true => 6 * pick(r, &[1u32, 2, 4, 8, 8, 16]),
        false => pick(r, &[4u32, 8, 16, 32]),
    };
    let ways = pick(r, &[1u32, 2]);
    let dies = pick(r, &[1u32, 2]);
    let planes = pick(r, &[1u32, 2]);
    // At most 40,000 pages: preconditioning and the oracle's sweep stay fast (halving keeps a
    // multiple of 6 one).
    let mut pages = pages;
    while channels * ways * dies * planes * blocks * pages > 40_000 && pages > 6 {
        pages /= 2;
    }
    let page_kib = pick(r, &[4u32, 8, 16, 16, 32]);
    let page = page_kib * 1024;
    let codeword = match chance(r, 0.95) {
        true => pick(r, &[512u32, 1024, 2048, 2048, 4096].map(|c| c.min(page))),
        false => pick(r, &[256u32, 512, 1024, 2048, 4096, 8192]),
    };
    s.set("geometry.cell_mode", mode);
    s.set("geometry.channels", channels);
    s.set("geometry.ways_per_channel", ways);
    s.set("geometry.dies_per_way", dies);
    s.set("geometry.planes_per_die", planes);
    s.set("geometry.blocks_per_plane", blocks);
    s.set("geometry.pages_per_block", pages);
    s.set("geometry.page_size_kib", page_kib);
    s.set("geometry.codeword_size_bytes", codeword);
    s.set(
        "geometry.program_order",
        pick(r, &["one_shot", "shadow", "simplessd"]),
    );

    // Regions: none, an SLC-mode cache beside the data, or three.
    let lower = |r: &mut Pcg64Mcg| {
        let fits: Vec<&str> = modes
            .into_iter()
            .filter(|m| bits(mode).is_multiple_of(bits(m)))
            .collect();
        pick(r, &fits)
    };
    let mut regions: Vec<Region> = Vec::new();
    let shape = pick(r, &[0u8, 0, 1, 1, 1, 2]);
    if shape >= 1 {
        let nop = pick(r, &[1u32, 2, 4, 4, 8]);
        regions.push(Region {
            name: "slc",
            mode: "slc",
            nop,
        });
        // The data region mostly in the dies' own mode (an SLC-mode one holds a third of a
        // TLC die's data: the logical capacity rarely fits).
        let main_mode = match chance(r, 0.8) {
            true => mode,
            false => lower(r),
        };
        regions.push(Region {
            name: "main",
            mode: main_mode,
            nop: 1,
        });
        if shape == 2 {
            regions.push(Region {
                name: "cold",
                mode,
                nop: 1,
            });
        }
        // Region 0 takes the writes of `single_region` placement: mostly the data region.
        if chance(r, 0.25) {
            regions.reverse();
        } else {
            regions.rotate_left(1);
        }
    }
    if !regions.is_empty() {
        let n = regions.len();
        // The cache small, a third region a quarter, the data region the rest; the last
        // region says 0 (the rest), as the config asks.
        let cache_blocks = pick(r, &[8u32, 8, 12, 16]).min(blocks / 3);
        let cold_blocks = blocks / 4;
        let main_blocks = blocks
            - regions
                .iter()
                .map(|g| match g.name {
                    "slc" => cache_blocks,
                    "cold" => cold_blocks,
                    _ => 0,
                })
                .sum::<u32>();
        let empty_name = chance(r, 0.02).then(|| r.gen_range(0..n));
        // (The name PCM's blocks take: refused.)
        let pcm_name = plan.breaks(PcmBreak::RegionName).then_some(n - 1);
        let text: Vec<String> = regions
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let count = match (i + 1 == n, g.name) {
                    (true, _) => 0,
                    (false, "slc") => cache_blocks,
                    (false, "cold") => cold_blocks,
                    (false, _) => main_blocks,
                };
                let name = match (empty_name == Some(i), pcm_name == Some(i)) {
                    (true, _) => "",
                    (false, true) => "pcm",
                    (false, false) => g.name,
                };
                let nop = match g.nop {
                    1 => String::new(),
                    n => format!(", nop={n}"),
                };
                format!(
                    "{{name=\"{name}\", cell_mode=\"{}\", blocks_per_plane={count}{nop}}}",
                    g.mode
                )
            })
            .collect();
        s.raw("geometry.regions", &format!("[{}]", text.join(", ")));
        if let Some(i) = empty_name {
            invalid = Some(format!("geometry.regions[{i}].name"));
        }
    } else {
        s.raw("geometry.regions", "[]");
    }

    // A timing table for each cell mode blocks use that the preset lacks.
    let mut used: Vec<&str> = regions.iter().map(|g| g.mode).collect();
    if used.is_empty() {
        used.push(mode);
    }
    let preset_timing = preset_table["timing"].as_table().expect("[timing]");
    // The modes in use with a timing table.
    let mut timed: Vec<&str> = Vec::new();
    for (m, text) in [
        ("slc", SLC_TIMING),
        ("mlc", MLC_TIMING),
        ("tlc", TLC_TIMING),
    ] {
        let given = used.contains(&m) && !preset_timing.contains_key(m) && chance(r, 0.97);
        if given {
            s.raw(&format!("timing.{m}"), text);
        }
        if used.contains(&m) && (preset_timing.contains_key(m) || given) {
            timed.push(m);
        }
    }

    // PCM beside the flash: its share and devices, its timing (a named set or both times) and
    // now and then its energies, each need of docs/config.md met but the one `plan` breaks.
    if plan.pcm {
        let (share, dies) = match plan.breaks(PcmBreak::Share) {
            true => match q.gen_range(0..4) {
                0 => (0.0, 1),
                1 => (1.0, 1),
                // (Less than a block per PCM plane.)
                2 => (0.0001, 1),
                _ => (0.2, 0),
            },
            false => (pick(q, &[0.1, 0.2, 0.2, 0.3, 0.5]), pick(q, &[1u64, 1, 2])),
        };
        // (Each key now and then left to its default: 0.2, one device a channel.)
        let mut entries = Vec::new();
        if share != 0.2 || chance(q, 0.5) {
            entries.push(("capacity_share", Value::Float(share)));
        }
        if dies != 1 || chance(q, 0.5) {
            entries.push(("dies_per_channel", int(dies)));
        }
        s.set("geometry.pcm", table(&entries));
        let set = |name: &str| table(&[("set", name.into())]);
        let times =
            |read: u64, write: u64| table(&[("read_ns", int(read)), ("write_ns", int(write))]);
        let timing = match plan.breaks(PcmBreak::Timing) {
            true => match q.gen_range(0..4) {
                0 => set("pcm6"),
                1 => table(&[("set", "pcm1".into()), ("read_ns", int(2_500))]),
                2 => table(&[("read_ns", int(2_500))]),
                _ => times(0, 25_000),
            },
            false => match chance(q, 0.7) {
                true => set(pick(q, &["pcm1", "pcm2", "pcm3", "pcm4", "pcm5"])),
                // (Now and then a PCM slower than the flash.)
                false => {
                    let (read, write) =
                        pick(q, &[(1_000, 10_000), (7_000, 70_000), (150_000, 3_000_000)]);
                    times(read, write)
                }
            },
        };
        s.set("timing.pcm", timing);
        let energies = [0.0, 3.4, 17.84, 250.0];
        if chance(q, 0.5) || plan.breaks(PcmBreak::Energy) {
            let read = match plan.breaks(PcmBreak::Energy) {
                true => -1.0,
                false => pick(q, &energies),
            };
            s.set("energy.pcm_read_pj_per_bit", Value::Float(read));
            s.set(
                "energy.pcm_write_pj_per_bit",
                Value::Float(pick(q, &energies)),
            );
        }
    } else if plan.stray_timing {
        s.set("timing.pcm", table(&[("set", "pcm3".into())]));
    }

    // Data reduction first: the split FTL and the mapping unit follow from it.
    let compress = chance(r, 0.4);
    let split = compress && channels >= 2 && chance(r, 0.45);
    let split_width = match split {
        true => {
            // (Each part a whole number of the codecs' 4 KiB input units.)
            let widths: Vec<u32> = [2u32, 4, 8]
                .into_iter()
                .filter(|w| *w <= channels && page_kib.is_multiple_of(4 * w))
                .collect();
            (!widths.is_empty()).then(|| pick(r, &widths))
        }
        false => None,
    };
    let unit_kib = match split_width {
        Some(_) => page_kib,
        None => {
            // (The codecs take whole 4 KiB input units.)
            let least = if compress { 4 } else { 2 };
            let fits: Vec<u32> = [2u32, 4, 4, 8, 16, 32]
                .into_iter()
                .filter(|u| {
                    *u >= least
                        && page_kib.is_multiple_of(*u)
                        && (u * 1024).is_multiple_of(codeword)
                })
                .collect();
            match fits.is_empty() || chance(r, 0.03) {
                true => pick(r, &[2u32, 4, 8]),
                false => pick(r, &fits),
            }
        }
    };
    s.set("ftl.mapping_unit_kib", unit_kib);
    let per_page = (page_kib / unit_kib).max(1);
    let mut slots = per_page;
    if compress {
        // The zero filter hands the codec whole 4 KiB input units, and needs partial units
        // smaller than the mapping unit.
        let zero_filter = chance(r, 0.5) && unit_kib >= 8;
        let partial_kib = match split_width {
            Some(w) => page_kib / w,
            None => {
                let fits: Vec<u32> = [1u32, 2, 4, 8, 16, 32]
                    .into_iter()
                    .filter(|p| unit_kib.is_multiple_of(*p) && unit_kib / p <= 16)
                    .filter(|p| !zero_filter || (p.is_multiple_of(4) && *p < unit_kib))
                    .collect();
                match fits.is_empty() {
                    true => 4,
                    false => pick(r, &fits),
                }
            }
        };
        let mut entries = vec![
            ("policy", Value::from("compress")),
            ("codec", Value::from(pick(r, &CODECS))),
            (
                "failure_threshold_saving",
                Value::Float(pick(r, &[0.0, 0.1, 0.1, 0.3])),
            ),
            ("partial_zero_filter", Value::Boolean(zero_filter)),
            ("partial_unit_kib", int(partial_kib as u64)),
            ("align_bytes", int(pick(r, &[1u64, 1, 8, 64, 512]))),
        ];
        if chance(r, 0.2) {
            entries.push(("compress_latency_ns", int(pick(r, &[0u64, 500, 20_000]))));
        }
        if chance(r, 0.2) {
            entries.push(("decompress_latency_ns", int(pick(r, &[0u64, 40, 12_000]))));
        }
        s.set("ftl.reduction", table(&entries));
        // At least the units of an uncompressed page, and the parts of a split one.
        let least = per_page.max(split_width.unwrap_or(1));
        // (Validation sizes the logical capacity by slots but the room host writes have by
        // uncompressed units, so more slots than that are mostly refused.)
        let limits: Vec<u32> = [least, least, least, least, 2 * least, 12, 64]
            .into_iter()
            .filter(|m| *m >= least && *m <= 64)
            .collect();
        slots = match chance(r, 0.95) {
            true => pick(r, &limits),
            false => 0,
        };
        s.set("ftl.max_units_per_page", slots);
        slots = slots.max(per_page);
    } else {
        s.set(
            "ftl.reduction",
            table(&[("policy", Value::from("identity"))]),
        );
        // Now and then more slots than the page holds uncompressed (issue 30 §3).
        let limit = pick(
            r,
            &[
                0u32,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                per_page,
                2 * per_page,
            ],
        );
        s.set("ftl.max_units_per_page", limit);
        slots = slots.max(limit);
    }
    match (split_width, compress && chance(r, 0.03)) {
        (Some(width), _) => {
            let policy = match chance(r, 0.5) {
                true => table(&[("policy", "all".into()), ("width", int(width as u64))]),
                false => table(&[
                    ("policy", "decision".into()),
                    ("width", int(width as u64)),
                    ("history", pick(r, &["bit", "lru"]).into()),
                    ("lru_entries", int(pick(r, &[1u64, 64, 65_536]))),
                    ("max_request_kib", int(pick(r, &[0u64, 4, 16, 64]))),
                ]),
            };
            s.set("ftl.split", policy);
        }
        // A split table where it cannot apply (the validation must say why).
        (None, true) => s.set(
            "ftl.split",
            table(&[("policy", "all".into()), ("width", int(2))]),
        ),
        (None, false) => s.set("ftl.split", table(&[("policy", "none".into())])),
    }

    // Partial programming, placement and migration, on the drawn regions.
    let nop_region = regions.iter().find(|g| g.nop > 1).map(|g| g.name);
    // Oblivious placement: PCM's need, or over the flash regions of a device without PCM (now
    // and then over its one region).
    let oblivious = match plan.pcm {
        true => !plan.breaks(PcmBreak::Placement),
        false => plan.oblivious_flash && (regions.len() >= 2 || chance(q, 0.1)),
    };
    // (Partial programming takes pages of several units, and with oblivious placement a first
    // region whose pages take it: the region validation holds host writes to. Compressed units
    // are packed into its subpages; MGA's merging gathers units stored as written.)
    let partial_fits =
        nop_region.is_some() && (!oblivious || regions.first().is_some_and(|g| g.nop > 1));
    let partial_on = partial_fits && chance(r, 0.5) || chance(r, 0.04);
    let partial = match partial_on {
        true => match chance(r, 0.5) {
            true => table(&[
                ("policy", "share".into()),
                (
                    "merge_threshold_pages",
                    int(match compress {
                        true => 0,
                        false => pick(r, &[0u64, 0, 1, 2, 3]),
                    }),
                ),
            ]),
            false => table(&[("policy", "intra_page_update".into())]),
        },
        false => table(&[("policy", "none".into())]),
    };
    s.set("ftl.partial_program", partial);
    let names: Vec<&str> = regions.iter().map(|g| g.name).collect();
    let host_region = match names.is_empty() {
        true => None,
        false => Some(match (nop_region, chance(r, 0.8)) {
            (Some(n), true) => n,
            _ => pick(r, &names),
        }),
    };
    // Partial programming mostly with writes placed where pages take it.
    let cached = match partial_on {
        true => 90,
        false => 64,
    };
    let placement = match (host_region, r.gen_range(0..100)) {
        (_, 0..=1) => Some(("cache", "nowhere")),
        (None, 2..=9) => Some((pick(r, &["cache", "levels"]), "main")),
        (Some(region), k) if k <= cached => Some((pick(r, &["cache", "levels"]), region)),
        _ => None,
    };
    // With PCM, now and then the flash's share of an oblivious placement goes where the draw
    // above says (`ftl.placement.flash`: PCM beside an SLC-mode cache or IPU's levels).
    // (From a stream of its own, so that draws without it stay as they were.)
    let fl = &mut Pcg64Mcg::seed_from_u64(seed ^ FLASH_PLACEMENT_SALT);
    let flash = match oblivious && plan.pcm && chance(fl, 0.4) {
        true => Some(match (placement, chance(fl, 0.05)) {
            // (Now and then oblivious again, refused.)
            (_, true) => table(&[("policy", "oblivious".into())]),
            (Some((policy, region)), false) => {
                table(&[("policy", policy.into()), ("region", region.into())])
            }
            (None, false) => table(&[("policy", "single_region".into())]),
        }),
        false => None,
    };
    // (Oblivious placement replaces the draw above, which keeps the stream of a draw without
    // it as it was; with `flash`, the flash's writes go where it says.)
    let placement = match &flash {
        Some(_) => placement,
        None => placement.filter(|_| !oblivious),
    };
    let with_flash = |mut t: Value| {
        if let (Some(f), Value::Table(t)) = (&flash, &mut t) {
            t.insert("flash".into(), f.clone());
        }
        t
    };
    s.set(
        "ftl.placement",
        match (oblivious, placement, plan.run_units) {
            (true, _, None) => with_flash(table(&[("policy", "oblivious".into())])),
            (true, _, Some(run)) => {
                // (Now and then 0, refused.)
                let run = match chance(q, 0.02) {
                    true => 0,
                    false => run,
                };
                with_flash(table(&[
                    ("policy", "oblivious".into()),
                    ("run_units", int(run as u64)),
                ]))
            }
            (false, Some((policy, region)), _) => {
                table(&[("policy", policy.into()), ("region", region.into())])
            }
            (false, None, _) => table(&[("policy", "single_region".into())]),
        },
    );
    // The region host writes reach (with oblivious placement, the first is the one validation
    // and migration hold them to; they reach the others too).
    let written = match placement {
        Some((_, region)) => region,
        None => names.first().copied().unwrap_or("main"),
    };
    let migrate = match (oblivious, placement) {
        (true, Some(_)) if flash.is_some() => chance(fl, 0.85),
        (true, _) => chance(r, 0.2),
        (false, Some(_)) => chance(r, 0.85),
        (false, None) => chance(r, 0.05),
    };
    // GC may move flash data into PCM, never out of it (PCM is never cleaned).
    let mut names = names;
    if plan.pcm {
        if names.is_empty() {
            names.push("main");
        }
        names.push("pcm");
    }
    let migration = match (migrate, names.len()) {
        (true, n) if n >= 2 => {
            // From the region writes reach (now and then another one).
            let from = match chance(r, 0.9) {
                true => written,
                false => pick(r, &names),
            };
            let others: Vec<&str> = names.iter().copied().filter(|n| *n != from).collect();
            table(&[
                ("policy", pick(r, &["evict", "degrade"]).into()),
                ("from_region", from.into()),
                ("to_region", pick(r, &others).into()),
            ])
        }
        (true, _) => table(&[
            ("policy", pick(r, &["evict", "degrade"]).into()),
            ("from_region", "main".into()),
            ("to_region", "slc".into()),
        ]),
        (false, _) => table(&[("policy", "none".into())]),
    };
    s.set("ftl.migration", migration);

    // IPU's ISR ranks by subpages left erased: mostly with partial programming.
    let victim = match partial_on || chance(r, 0.05) {
        true => pick(
            r,
            &[
                "greedy",
                "cost_benefit",
                "random",
                "isr",
                "randomized_greedy",
            ],
        ),
        false => pick(
            r,
            &["greedy", "cost_benefit", "random", "randomized_greedy"],
        ),
    };
    // FIFO, from its own stream (any device: it needs nothing of the others).
    let fifo = &mut Pcg64Mcg::seed_from_u64(seed ^ FIFO_SALT);
    let victim = match chance(fifo, 0.15) {
        true => "fifo",
        false => victim,
    };
    let mut victim = vec![("policy", Value::from(victim))];
    if victim[0].1.as_str() == Some("randomized_greedy") && chance(r, 0.5) {
        victim.push(("sample_size", int(pick(r, &[1u64, 2, 8]))));
    }
    s.set("ftl.gc_victim", table(&victim));
    // The policies that shape one page's read.
    let page_read_policy = |r: &mut Pcg64Mcg| match r.gen_range(0..4) {
        0 => table(&[("policy", "full".into())]),
        1 => table(&[("policy", "dma".into())]),
        2 => {
            let units: Vec<u32> = [1u32, 2, 4, 8, 16]
                .into_iter()
                .filter(|u| {
                    (u * 1024).is_multiple_of(codeword)
                        && page_kib.is_multiple_of(*u)
                        && *u < page_kib
                })
                .collect();
            let unit = match units.is_empty() {
                true => 4,
                false => pick(r, &units),
            };
            table(&[
                ("policy", "partial".into()),
                ("unit_kib", int(unit as u64)),
                ("tr_reduction", Value::Float(pick(r, &[0.0, 0.2, 0.5]))),
                ("current_reduction", Value::Float(pick(r, &[0.0, 0.4]))),
            ])
        }
        _ => {
            let n = (page / codeword).clamp(1, 64) as u64;
            let tr: Vec<Value> = (1..=n).map(|i| int(30_000 + i * 70_000 / n)).collect();
            table(&[
                ("policy", "subpage".into()),
                ("tr_by_codewords_ns", Value::Array(tr)),
                (
                    "fixed_current_share",
                    Value::Float(pick(r, &[0.0, 0.4667, 1.0])),
                ),
            ])
        }
    };
    let page_policy = page_read_policy(r);
    // Proportional reads, from their own stream: the default shares, or any of a few (both 1,
    // a whole page's time and current for any part of it: refused).
    let prop = &mut Pcg64Mcg::seed_from_u64(seed ^ PROPORTIONAL_SALT);
    let page_policy = match chance(prop, 0.12) {
        true => {
            let mut t = vec![("policy", Value::from("proportional"))];
            if chance(prop, 0.6) {
                t.push((
                    "fixed_tr_share",
                    Value::Float(pick(prop, &[0.0, 0.289, 0.5, 1.0])),
                ));
            }
            if chance(prop, 0.6) {
                t.push((
                    "fixed_current_share",
                    Value::Float(pick(prop, &[0.0, 0.4667, 1.0])),
                ));
            }
            table(&t)
        }
        false => page_policy,
    };
    let read_policy = match chance(m, 0.2) {
        // Melded reads (melded-pages.txt): whole wordlines of multi-level cells, the other reads
        // as the page policy drawn shapes them (now and then melded again: refused); each
        // multi-level mode with a timing table given its wordline sensing time (mostly: without
        // one it is refused).
        true => {
            for t in timed.iter().filter(|t| **t != "slc") {
                if chance(m, 0.95) {
                    let ns = int(pick(m, &[166_000u64, 200_000]));
                    s.set(&format!("timing.{t}.tr_melded_ns"), ns);
                }
            }
            let pages = match chance(m, 0.03) {
                true => table(&[("policy", "melded".into())]),
                false => page_policy,
            };
            let mut melded = vec![("policy", "melded".into()), ("pages", pages)];
            // Read-ahead of streams read in order: the default window, none, one of a few
            // pages, or a wide one; streams tracked now and then (without a window: refused).
            if chance(m, 0.5) {
                melded.push(("read_ahead_kib", int(pick(m, &[0u64, 16, 64, 2048]))));
            }
            if chance(m, 0.2) {
                melded.push(("read_ahead_streams", int(pick(m, &[1u64, 2, 8]))));
            }
            // When to meld, from a stream of its own (so the draws above stay as they were).
            let when = &mut Pcg64Mcg::seed_from_u64(seed ^ MELD_SALT);
            melded.push(("meld", pick(when, &["all_wanted", "always"]).into()));
            table(&melded)
        }
        false => page_policy,
    };
    s.set("ftl.read_policy", read_policy);
    // The host's streams (melded pages §2.2–2.3): ids ignored, streams apart, or apart and laid
    // out along wordlines; now and then no stream open (refused).
    // (Each stream kept apart holds a block open on every plane, which a small device's spare
    // blocks often cannot give: mostly one or two, so that the draws are not mostly refused.)
    let max_open = match chance(m, 0.02) {
        true => 0,
        false => pick(m, &[1u32, 1, 1, 2, 4, 16]),
    };
    // (Wordlines on one-bit cells are refused: drawn there now and then only.)
    let layout = match mode != "slc" || chance(m, 0.1) {
        true => "wordlines",
        false => "separate",
    };
    // A stream complete after its block (§2.3): mostly never, else after a MiB or a few.
    let complete = int(pick(m, &[0u64, 0, 1, 4]));
    let host_streams = match m.gen_range(0..10) {
        0..=6 => table(&[("policy", "shared".into())]),
        7 => table(&[
            ("policy", "separate".into()),
            ("max_open", int(max_open as u64)),
            ("complete_after_mib", complete),
        ]),
        _ => table(&[
            ("policy", layout.into()),
            ("max_open", int(max_open as u64)),
            ("complete_after_mib", complete),
        ]),
    };
    s.set("ftl.host_streams", host_streams);
    let allocation = match chance(r, 0.7) {
        true => {
            let mut order: Vec<char> = "CWDP".chars().collect();
            for i in (1..order.len()).rev() {
                order.swap(i, r.gen_range(0..=i));
            }
            table(&[
                ("policy", "static".into()),
                ("order", order.into_iter().collect::<String>().into()),
            ])
        }
        false => table(&[("policy", "dynamic".into())]),
    };
    s.set("ftl.allocation", allocation);
    // Regions leave host writes fewer blocks: they need more over-provisioning.
    let spare = match regions.is_empty() {
        true => cents(r, 0.15, 0.45),
        false => cents(r, 0.3, 0.6),
    };
    s.set("ftl.overprovisioning_ratio", Value::Float(spare));
    let gc_threshold = cents(r, 0.02, 0.15);
    s.set("ftl.gc_threshold", Value::Float(gc_threshold));
    // ROSA's level-1 GC (from PCM's stream): on in half the PCM draws that meet PCM's needs,
    // now and then with a refused value, and now and then without PCM (refused).
    let level1 = match (plan.pcm && plan.broken.is_none(), q.gen_range(0..100)) {
        (true, 0..=46) | (false, 0) => Some((
            gc_threshold + pick(q, &[0.01, 0.05, 0.2]),
            pick(q, &[10_000u64, 1_000_000, 100_000_000]),
            pick(q, &[0.01, 0.2, 1.0]),
        )),
        (true, 47..=49) => Some(match q.gen_range(0..4) {
            0 => (gc_threshold, 1_000_000, 0.2),
            1 => (gc_threshold + 0.05, 0, 0.2),
            2 => (gc_threshold + 0.05, 1_000_000, 0.0),
            _ => (gc_threshold + 0.05, 1_000_000, 1.5),
        }),
        _ => None,
    };
    s.set(
        "ftl.level1_gc",
        match level1 {
            Some((free, interval, budget)) => table(&[
                ("policy", "read_intensity".into()),
                ("free_threshold", Value::Float(free.min(0.95))),
                ("interval_ns", int(interval)),
                ("budget_share", Value::Float(budget)),
                (
                    "granularity",
                    pick(
                        &mut Pcg64Mcg::seed_from_u64(seed ^ LEVEL1_SALT),
                        &["block", "unit"],
                    )
                    .into(),
                ),
            ]),
            None => table(&[("policy", "none".into())]),
        },
    );
    // Idle-time GC, from its own stream: a check every 100 ms to 10 s (the committed excerpts
    // span up to a week: a millisecond's checks would be most of a run's events), under a
    // threshold above the foreground GC's; now and then at the foreground GC's own threshold,
    // which rounds to its block count (refused), or with a check every 0 ns (refused).
    // The firmware's cores (`firmware.rs`), from their own stream: one to four, each command
    // holding one for a time per command; now and then cores without a time (refused).
    let fw = &mut Pcg64Mcg::seed_from_u64(seed ^ FIRMWARE_SALT);
    if chance(fw, 0.2) {
        s.set("timing.firmware_cores", pick(fw, &[1u32, 2, 4]));
        let ns = match fw.gen_range(0..30) {
            0 => 0,
            _ => pick(fw, &[1_000u64, 5_000, 20_000]),
        };
        s.set("timing.firmware_ns", int(ns));
    }
    let idle = &mut Pcg64Mcg::seed_from_u64(seed ^ IDLE_GC_SALT);
    if chance(idle, 0.2) {
        let (interval, above) = match idle.gen_range(0..50) {
            0 => (0, 0.1),
            1 => (1_000_000_000, 0.0),
            _ => (
                pick(idle, &[100_000_000u64, 1_000_000_000, 10_000_000_000]),
                pick(idle, &[0.05, 0.1, 0.3]),
            ),
        };
        s.set(
            "ftl.idle_gc",
            table(&[
                ("policy", "when_idle".into()),
                ("interval_ns", int(interval)),
                (
                    "free_threshold",
                    Value::Float(((gc_threshold + above) * 100.0).round().min(95.0) / 100.0),
                ),
            ]),
        );
    } else if chance(idle, 0.1) {
        s.set("ftl.idle_gc", table(&[("policy", "none".into())]));
    }
    s.set("ftl.gc_reserved_blocks", pick(r, &[1u32, 1, 2]));
    s.set("ftl.gc_copy_window_pages", pick(r, &[0u32, 1, 4, 8, 32]));
    // A timeout only where a page holds more than one unit; without one, a buffer that can
    // hold every stream's open pages one unit short of full and one unit more (mostly).
    let timeout = match slots > 1 || chance(r, 0.05) {
        true => pick(r, &[0u64, 0, 1, 1_000, 100_000, 10_000_000]),
        false => 0,
    };
    let streams = match placement {
        Some(("levels", _)) => 3,
        _ => 1,
    };
    // (A split buffer: `width` rows of `width` parts, sealed once every row is full.)
    let short = match compress {
        true => slots - 1 + per_page - 1 + split_width.map_or(0, |w| w * w - 1),
        false => per_page - 1,
    };
    let least = match timeout == 0 && chance(r, 0.9) {
        true => streams * short + 1,
        false => 0,
    };
    s.set(
        "ftl.write_buffer_units",
        (slots * pick(r, &[1u32, 2, 4, 8])).max(least),
    );
    s.set("ftl.write_buffer_timeout_ns", int(timeout));
    s.set("ftl.write_ack", pick(r, &["buffer", "program"]));
    s.set(
        "ftl.unmapped_read",
        pick(r, &["zero", "zero", "zero", "zero", "error"]),
    );
    s.set(
        "ftl.partial_write",
        pick(r, &["overwrite", "read_modify_write"]),
    );
    s.set(
        "ftl.wear_leveling",
        table(&[
            ("enabled", Value::Boolean(chance(r, 0.7))),
            ("threshold_erases", int(pick(r, &[2u64, 5, 20, 100]))),
        ]),
    );
    let read_priority = chance(r, 0.5);
    s.set("scheduler.read_priority", read_priority);
    // Suspension serves a die's queue of reads: drawn mostly with read priority.
    if chance(r, if read_priority { 0.5 } else { 0.03 }) {
        let mut t = vec![("policy", Value::from("for_reads"))];
        let (program, erase) = match r.gen_range(0..3) {
            0 => (true, false),
            1 => (false, true),
            _ => (true, true),
        };
        if program {
            t.push(("program_suspend_ns", int(pick(r, &[0u64, 5_000, 100_000]))));
            t.push(("program_min_remaining_ns", int(pick(r, &[0u64, 0, 50_000]))));
        }
        if erase {
            t.push(("erase_suspend_ns", int(pick(r, &[0u64, 20_000, 700_000]))));
            t.push(("erase_min_remaining_ns", int(pick(r, &[0u64, 0, 700_000]))));
        }
        if chance(r, 0.5) {
            t.push(("max_per_operation", int(pick(r, &[1u64, 3]))));
        }
        s.set("scheduler.suspension", table(&t));
    } else if chance(r, 0.2) {
        s.set("scheduler.suspension", table(&[("policy", "none".into())]));
    }
    s.set(
        "scheduler.multiplane",
        chance(r, if planes > 1 { 0.5 } else { 0.05 }),
    );
    s.set("scheduler.merge_reads", chance(r, 0.7));

    // Preconditioning: fresh, filled, or GC-active (filled and aged).
    let (fill, overwrite) = match r.gen_range(0..20) {
        0..=6 => (0.0, 0.0),
        7..=11 => (cents(r, 0.2, 1.0), 0.0),
        _ => (cents(r, 0.7, 1.0), cents(r, 0.5, 2.0)),
    };
    s.set("precondition.fill_fraction", Value::Float(fill));
    s.set("precondition.overwrite_fraction", Value::Float(overwrite));
    s.set("precondition.pattern", pick(r, &["sequential", "random"]));
    s.set("precondition.trace_footprint", chance(r, 0.85));
    let request_kib = pick(r, &[0u64, 0, 4, 16, 64]);
    s.set("precondition.write_request_kib", int(request_kib));
    // Or a mix of write sizes, from a stream of its own (with a single size too now and then:
    // refused).
    let sizes = &mut Pcg64Mcg::seed_from_u64(seed ^ WRITE_SIZES_SALT);
    if chance(sizes, 0.15) && (request_kib == 0 || chance(sizes, 0.1)) {
        let fixed = |bytes: u64| table(&[("kind", "fixed".into()), ("bytes", int(bytes))]);
        let geometric = table(&[
            ("kind", "geometric".into()),
            ("mean_bytes", Value::Float(65536.0)),
            ("step_bytes", int(4096)),
            ("max_bytes", int(1 << 20)),
        ]);
        let dist = match sizes.gen_range(0..6) {
            0 => fixed(pick(sizes, &[4096u64, 16384, 131072])),
            1 => table(&[
                ("kind", "choice".into()),
                ("bytes", vec![int(4096), int(16384), int(262144)].into()),
                (
                    "weights",
                    vec![Value::Float(6.0), Value::Float(3.0), Value::Float(1.0)].into(),
                ),
            ]),
            2 => table(&[
                ("kind", "uniform".into()),
                ("min_bytes", int(4096)),
                ("max_bytes", int(131072)),
                ("step_bytes", int(4096)),
            ]),
            3 => table(&[
                ("kind", "histogram".into()),
                (
                    "bin_edges_bytes",
                    vec![int(4096), int(32768), int(262144)].into(),
                ),
                ("weights", vec![Value::Float(3.0), Value::Float(1.0)].into()),
                ("step_bytes", int(4096)),
            ]),
            4 => geometric,
            _ => table(&[
                ("kind", "mixture".into()),
                (
                    "components",
                    vec![
                        table(&[("weight", Value::Float(0.6)), ("size", fixed(4096))]),
                        table(&[("weight", Value::Float(0.4)), ("size", geometric)]),
                    ]
                    .into(),
                ),
            ]),
        };
        s.set("precondition.write_size", dist);
    }

    // The host and its link.
    let closed = match partial_on {
        true => 0.1,
        false => 0.25,
    };
    s.set(
        "host.mode",
        match chance(r, closed) {
            true => "closed",
            false => "open",
        },
    );
    s.set("host.queue_depth", pick(r, &[1u32, 4, 32]));
    s.set(
        "host.time_scale",
        Value::Float(pick(r, &[1.0, 1.0, 0.5, 4.0])),
    );
    // (A committed excerpt's flow sets "wrap": it addresses more than a small device holds.)
    s.set("host.out_of_range", pick(r, &["error", "wrap"]));
    s.set(
        "host_interface.protocol",
        pick(r, &["nvme", "nvme", "none"]),
    );
    s.set("host_interface.pcie_generation", r.gen_range(1u32..=5));
    s.set("host_interface.pcie_lanes", pick(r, &[1u32, 4, 16]));

    // Content: the corpus as the preset has it, with zero units, or a synthetic mix.
    let zero_block = pick(r, &[512u64, 1024]).min(unit_kib as u64 * 512);
    match r.gen_range(0..10) {
        0..=2 => {}
        3..=4 => s.set(
            "content",
            table(&[
                ("source", "corpus".into()),
                ("alignment_bytes", int(pick(r, &[0u64, 512, 4096]))),
                (
                    "zero_unit_fraction",
                    Value::Float(pick(r, &[0.0, 0.1, 0.3])),
                ),
                ("partial_zero_fraction", Value::Float(pick(r, &[0.0, 0.2]))),
                ("partial_zero_block_bytes", int(zero_block)),
            ]),
        ),
        _ => {
            let mix = pick(
                r,
                &[
                    "[{fraction=1.0, compressibility=0.95}]",
                    "[{fraction=0.5, compressibility=0.0}, {fraction=0.5, compressibility=0.95}]",
                    "[{fraction=1.0, compressibility=0.0}]",
                    "[{fraction=0.3, compressibility=0.5}, {fraction=0.7, compressibility=0.9}]",
                ],
            );
            s.raw(
                "content",
                &format!(
                    "{{source=\"synthetic\", mix={mix}, zero_unit_fraction={:?}, \
                     partial_zero_fraction={:?}, partial_zero_block_bytes={zero_block}}}",
                    pick(r, &[0.0, 0.0, 0.1]),
                    pick(r, &[0.0, 0.0, 0.2]),
                ),
            );
        }
    }
    // (PCM takes the fixed model: the power-law one is NAND's.)
    let power_law = match plan.pcm {
        true => plan.breaks(PcmBreak::Reliability),
        false => chance(r, 0.3),
    };
    match power_law {
        true => s.raw("reliability", POWER_LAW),
        false => s.set("reliability", table(&[("model", "fixed".into())])),
    }
    s.set("seed", r.gen_range(0u32..1000));

    // Now and then a key no config has, in a policy table whose policy takes no parameters.
    if invalid.is_none() && chance(r, 0.04) {
        let (key, text, field) = pick(
            r,
            &[
                ("ftl.gc_victim", "{policy=\"greedy\", wieght=1}", "wieght"),
                ("ftl.allocation", "{policy=\"dynamic\", wieght=1}", "wieght"),
                ("ftl.read_policy", "{policy=\"dma\", wieght=1}", "wieght"),
                (
                    "ftl.reduction",
                    "{policy=\"identity\", codec=\"lz4\"}",
                    "codec",
                ),
                ("ftl.split", "{policy=\"none\", width=4}", "width"),
                (
                    "ftl.placement",
                    "{policy=\"single_region\", region=\"slc\"}",
                    "region",
                ),
                (
                    "ftl.migration",
                    "{policy=\"none\", from_region=\"slc\"}",
                    "from_region",
                ),
                (
                    "ftl.partial_program",
                    "{policy=\"none\", merge_threshold_pages=2}",
                    "merge_threshold_pages",
                ),
                (
                    "reliability",
                    "{model=\"fixed\", epsilon=1.0e-4}",
                    "epsilon",
                ),
            ],
        );
        s.raw(key, text);
        invalid = Some(format!("{key}.{field}"));
    }

    // Partial programming needs writes alone in time, which the harness's traces have.
    let flows = (0..pick(r, &[1usize, 1, 1, 2]))
        .map(|_| FlowPlan::draw(r, partial_on))
        .collect();

    // The statistics window, drawn last so that the draws before it stay those of earlier
    // versions: mostly off; a count (now and then more than the flows hold: refused) or a
    // share; now and then both, or a share of the whole run (refused).
    let (warmup, share) = match r.gen_range(0..100) {
        0..=69 => (0, 0.0),
        70..=81 => (pick(r, &[1u64, 5, 50, 200, 1_000_000]), 0.0),
        82..=97 => (0, pick(r, &[0.001, 0.25, 0.5, 0.5, 0.9])),
        98 => (pick(r, &[1u64, 10]), 0.5),
        _ => (0, 1.0),
    };
    s.set("statistics.warmup_requests", int(warmup));
    s.set("statistics.warmup_fraction", Value::Float(share));
    // The mapping table on flash behind a CMT, from a few entries to more than the table, and
    // the DRAM data cache: drawn after the window, for the same reason.
    if chance(r, 0.25) {
        let mut t = vec![
            ("policy", Value::from("demand")),
            ("capacity_kib", int(pick(r, &[1u64, 4, 64, 4096]))),
        ];
        if chance(r, 0.3) {
            t.push(("entry_bytes", int(pick(r, &[4u64, 9, 16]))));
        }
        if chance(r, 0.3) {
            t.push(("translation_entry_bytes", int(pick(r, &[4u64, 8, 512]))));
        }
        s.set("ftl.mapping_cache", table(&t));
    } else if chance(r, 0.1) {
        s.set("ftl.mapping_cache", table(&[("policy", "all".into())]));
    }
    // MGA's two-level table, from its own stream (the key came later); with the table on flash
    // it is refused.
    let two = &mut Pcg64Mcg::seed_from_u64(seed ^ TWO_LEVEL_SALT);
    if chance(two, 0.2) {
        s.set(
            "ftl.mapping_granularity",
            pick(two, &["two_level", "two_level", "unit"]),
        );
    }
    // The DRAM data cache, in MQSim's modes, with its timing drawn about MQSim's.
    if chance(r, 0.3) {
        let policy = pick(r, &["read", "write", "read_write"]);
        let mut t = vec![("policy", Value::from(policy))];
        if policy != "write" {
            t.push(("capacity_kib", int(pick(r, &[4u64, 16, 64, 1024, 262_144]))));
        }
        if chance(r, 0.5) {
            t.push((
                "dram",
                table(&[
                    ("row_bytes", int(pick(r, &[2048u64, 8192]))),
                    ("clock_mhz", int(pick(r, &[100u64, 800]))),
                    ("bus_bytes", int(pick(r, &[1u64, 8]))),
                    ("trcd_ns", int(pick(r, &[0u64, 13]))),
                    ("tcl_ns", int(pick(r, &[0u64, 13]))),
                    ("trp_ns", int(pick(r, &[0u64, 13, 50]))),
                ]),
            ));
        }
        s.set("data_cache", table(&t));
    } else if chance(r, 0.1) {
        s.set("data_cache", table(&[("policy", "off".into())]));
    }
    Draw {
        seed,
        preset,
        sets: s.0,
        flows,
        invalid,
    }
}
