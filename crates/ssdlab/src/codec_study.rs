//! The compression-ratio study (PR-SSD Fig. 8) on real files: every codec on every file, cut into
//! units of the FTL's size, with the paper's ratio — the saving (original − stored) / original —
//! the share of all-zero units, the share of failed compressions, a round-trip check of every
//! unit, and optionally the codecs' throughput on this machine.
//!
//! A file's last unit is padded with zeros, as a file system writes the tail of a file's last
//! block; the padding is reported. Units are whole files cut in order, so the study sees the
//! corpora exactly as an SSD would store them. [`run_content`] studies instead the units a
//! `[content]` source gives written logical units (a named workload's mix of real files), as the
//! device would compress them.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use walkdir::WalkDir;

use crate::codec::{Codec, CodecConfig, DpcConfig, MAX_INPUT_BYTES, UNIT_BYTES};
use crate::content::ContentSource;
use crate::error::Error;

/// What to measure.
#[derive(Clone, Debug)]
pub struct StudyOptions {
    /// Unit size, a positive multiple of 4096.
    pub unit_bytes: usize,
    /// (name shown in the results, configuration).
    pub codecs: Vec<(String, CodecConfig)>,
    /// Report compression and decompression throughput (meaningful in a release build).
    pub bench: bool,
}

/// One codec's figures on a set of units.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub units: u64,
    pub original_bytes: u64,
    pub stored_bytes: u64,
    /// Side metadata (DPC zero bitmaps, FPC/BDI line tags), not counted in `stored_bytes`.
    pub side_bytes: u64,
    /// (original − stored) / original, PR-SSD's compression ratio.
    pub ratio: f64,
    pub failed_units: u64,
    pub failed_fraction: f64,
    pub zero_units: u64,
    pub zero_fraction: f64,
    /// Every unit decompressed to its input.
    pub roundtrip_ok: bool,
    /// Mean latency the codec's model charges per unit.
    pub model_compress_ns_per_unit: f64,
    pub model_decompress_ns_per_unit: f64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Acc {
    units: u64,
    original: u64,
    stored: u64,
    side: u64,
    failed: u64,
    zero: u64,
    roundtrip_failures: u64,
    compress_ns: u64,
    decompress_ns: u64,
    compress_wall: Duration,
    decompress_wall: Duration,
}

impl Acc {
    fn add(&mut self, other: &Acc) {
        self.units += other.units;
        self.original += other.original;
        self.stored += other.stored;
        self.side += other.side;
        self.failed += other.failed;
        self.zero += other.zero;
        self.roundtrip_failures += other.roundtrip_failures;
        self.compress_ns += other.compress_ns;
        self.decompress_ns += other.decompress_ns;
        self.compress_wall += other.compress_wall;
        self.decompress_wall += other.decompress_wall;
    }

    fn stats(&self) -> Stats {
        let per_unit = |v: u64| ratio(v as f64, self.units as f64);
        Stats {
            units: self.units,
            original_bytes: self.original,
            stored_bytes: self.stored,
            side_bytes: self.side,
            ratio: round6(ratio(
                self.original as f64 - self.stored as f64,
                self.original as f64,
            )),
            failed_units: self.failed,
            failed_fraction: round6(per_unit(self.failed)),
            zero_units: self.zero,
            zero_fraction: round6(per_unit(self.zero)),
            roundtrip_ok: self.roundtrip_failures == 0,
            model_compress_ns_per_unit: round6(per_unit(self.compress_ns)),
            model_decompress_ns_per_unit: round6(per_unit(self.decompress_ns)),
        }
    }

    fn throughput(&self) -> Throughput {
        let mb_s = |t: Duration| round6(ratio(self.original as f64 / 1e6, t.as_secs_f64()));
        Throughput {
            compress_mb_s: mb_s(self.compress_wall),
            decompress_mb_s: mb_s(self.decompress_wall),
        }
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// Six decimals keep the JSON readable and stable.
fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// Wall-clock throughput over the original bytes (MB = 10^6 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Throughput {
    pub compress_mb_s: f64,
    pub decompress_mb_s: f64,
}

/// What the data itself looks like, to explain the codecs' differences.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Profile {
    /// Order-0 entropy of the bytes (8 = random).
    pub entropy_bits_per_byte: f64,
    /// Mean share of the most frequent byte in each 128-byte unit: what default DPC removes.
    pub dominant_byte_share_128: f64,
    /// Share of bytes that are zero.
    pub zero_byte_share: f64,
}

#[derive(Clone, Debug, Default)]
struct ProfileAcc {
    histogram: Vec<u64>,
    dominant: u64,
    granules: u64,
    bytes: u64,
}

impl ProfileAcc {
    fn add_unit(&mut self, unit: &[u8]) {
        self.histogram.resize(256, 0);
        for g in unit.chunks(128) {
            let mut counts = [0u32; 256];
            for &b in g {
                counts[b as usize] += 1;
            }
            self.dominant += counts.iter().copied().max().unwrap_or(0) as u64;
            self.granules += 1;
            for (h, c) in self.histogram.iter_mut().zip(counts) {
                *h += c as u64;
            }
        }
        self.bytes += unit.len() as u64;
    }

    fn merge(&mut self, other: &ProfileAcc) {
        self.histogram.resize(256, 0);
        for (h, c) in self.histogram.iter_mut().zip(&other.histogram) {
            *h += c;
        }
        self.dominant += other.dominant;
        self.granules += other.granules;
        self.bytes += other.bytes;
    }

    fn profile(&self) -> Profile {
        let n = self.bytes as f64;
        let entropy = self
            .histogram
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / n;
                -p * p.log2()
            })
            .sum::<f64>();
        Profile {
            entropy_bits_per_byte: round6(entropy),
            dominant_byte_share_128: round6(ratio(self.dominant as f64, n)),
            zero_byte_share: round6(ratio(
                self.histogram.first().copied().unwrap_or(0) as f64,
                n,
            )),
        }
    }
}

/// One file's results.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    pub path: String,
    pub bytes: u64,
    pub units: u64,
    /// Zeros added to fill the last unit.
    pub padding_bytes: u64,
    pub profile: Profile,
    #[serde(serialize_with = "named_map")]
    pub codecs: Vec<(String, Stats)>,
}

/// One codec's results over every file.
#[derive(Clone, Debug, Serialize)]
pub struct CodecReport {
    pub config: CodecConfig,
    #[serde(flatten)]
    pub overall: Stats,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput: Option<Throughput>,
}

/// The whole study, as `ssdlab codec-study --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct StudyReport {
    pub ssdlab_version: String,
    pub unit_bytes: usize,
    pub files_studied: usize,
    pub bytes: u64,
    pub profile: Profile,
    /// Per codec name: its configuration and overall figures.
    #[serde(serialize_with = "named_map")]
    pub codecs: Vec<(String, CodecReport)>,
    pub files: Vec<FileReport>,
}

/// Serialize `(name, value)` pairs as a JSON object in their order.
fn named_map<T: Serialize, S: Serializer>(v: &[(String, T)], s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(v.len()))?;
    for (name, value) in v {
        m.serialize_entry(name, value)?;
    }
    m.end()
}

/// Every DPC configuration of Fig. 8's space: granularity 32–1024 B, pattern 1/2/4/8 B, one or
/// two patterns.
pub fn dpc_sweep() -> Vec<(String, CodecConfig)> {
    let mut out = Vec::new();
    for patterns in [1, 2] {
        for pattern_bytes in [1, 2, 4, 8] {
            for granularity_bytes in [32, 64, 128, 256, 512, 1024] {
                let c = DpcConfig {
                    granularity_bytes,
                    pattern_bytes,
                    patterns,
                    ..DpcConfig::default()
                };
                out.push((c.label(), CodecConfig::Dpc(c)));
            }
        }
    }
    out
}

/// The files under `paths` (directories walked recursively, symbolic links followed), sorted by
/// path, each once. A path that cannot be read is an error naming it.
pub fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut files = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| Error::io(p, e))?;
        if !meta.is_dir() {
            files.push(p.clone());
            continue;
        }
        for entry in WalkDir::new(p).follow_links(true) {
            let entry = entry.map_err(|e| {
                let at = e.path().unwrap_or(p).to_path_buf();
                Error::io(&at, e.into())
            })?;
            if entry.file_type().is_file() {
                files.push(entry.into_path());
            }
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// Run the study over `paths`.
pub fn run(paths: &[PathBuf], options: &StudyOptions) -> Result<StudyReport, Error> {
    let mut study = Study::new(options)?;
    for path in collect_files(paths)? {
        let content = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let units = split_units(&content, options.unit_bytes);
        let padding = units.len() * options.unit_bytes - content.len();
        let name = path.display().to_string();
        study.add_entry(&name, padding as u64, std::iter::once(units))?;
    }
    Ok(study.finish())
}

/// Units generated and studied at a time by [`run_content`] (16 MiB of 16 KiB units).
const CONTENT_BATCH_UNITS: u32 = 1024;

/// Run the study over `count` units of a content source as a workload writes them: logical units
/// 0, 1, …, count − 1, first version. Every (lpn, version) key is an independent draw of the same
/// mix, so which units a workload writes, and in which order, does not change what is drawn. The
/// units are reported as one entry named `label`.
pub fn run_content(
    source: &dyn ContentSource,
    label: &str,
    count: u32,
    options: &StudyOptions,
) -> Result<StudyReport, Error> {
    let mut study = Study::new(options)?;
    let unit = options.unit_bytes;
    let batches = (0..count)
        .step_by(CONTENT_BATCH_UNITS as usize)
        .map(|first| {
            let n = CONTENT_BATCH_UNITS.min(count - first);
            (first..first + n)
                .map(|lpn| {
                    let mut buf = vec![0u8; unit];
                    source.fill(lpn, 0, &mut buf);
                    buf
                })
                .collect()
        });
    study.add_entry(label, 0, batches)?;
    Ok(study.finish())
}

/// A study under way: the codecs, their totals, the entries (files, or a content source's units)
/// studied so far.
struct Study<'a> {
    options: &'a StudyOptions,
    codecs: Vec<(String, Box<dyn Codec>)>,
    totals: Vec<Acc>,
    profile: ProfileAcc,
    files: Vec<FileReport>,
    bytes: u64,
    scratch: Vec<u8>,
}

impl<'a> Study<'a> {
    fn new(options: &'a StudyOptions) -> Result<Study<'a>, Error> {
        let unit = options.unit_bytes;
        if unit == 0 || !unit.is_multiple_of(UNIT_BYTES) || unit > MAX_INPUT_BYTES {
            return Err(Error::config(
                "unit_bytes",
                format!("{unit} is not a positive multiple of 4096 of at most 1 MiB"),
            ));
        }
        let mut codecs = Vec::new();
        for (name, config) in &options.codecs {
            codecs.push((name.clone(), config.build()?));
        }
        Ok(Study {
            options,
            totals: vec![Acc::default(); codecs.len()],
            codecs,
            profile: ProfileAcc::default(),
            files: Vec::new(),
            bytes: 0,
            scratch: Vec::new(),
        })
    }

    /// Study one entry given as batches of units (of `options.unit_bytes`, the last `padding`
    /// bytes of the last unit being zeros added to fill it).
    fn add_entry(
        &mut self,
        name: &str,
        padding: u64,
        batches: impl Iterator<Item = Vec<Vec<u8>>>,
    ) -> Result<(), Error> {
        let mut accs = vec![Acc::default(); self.codecs.len()];
        let mut profile = ProfileAcc::default();
        let mut units = 0u64;
        let passes = if self.options.bench { BENCH_PASSES } else { 1 };
        for batch in batches {
            for u in &batch {
                profile.add_unit(u);
            }
            units += batch.len() as u64;
            for ((_, codec), acc) in self.codecs.iter_mut().zip(&mut accs) {
                let a = study_units(codec.as_mut(), &batch, &mut self.scratch, name, passes)?;
                acc.add(&a);
            }
        }
        let mut stats = Vec::new();
        for (((codec, _), acc), total) in self.codecs.iter().zip(&accs).zip(&mut self.totals) {
            total.add(acc);
            stats.push((codec.clone(), acc.stats()));
        }
        self.profile.merge(&profile);
        let bytes = units * self.options.unit_bytes as u64 - padding;
        self.bytes += bytes;
        self.files.push(FileReport {
            path: name.to_string(),
            bytes,
            units,
            padding_bytes: padding,
            profile: profile.profile(),
            codecs: stats,
        });
        Ok(())
    }

    fn finish(self) -> StudyReport {
        let codecs = self
            .options
            .codecs
            .iter()
            .zip(&self.totals)
            .map(|((name, config), acc)| {
                let report = CodecReport {
                    config: config.clone(),
                    overall: acc.stats(),
                    throughput: self.options.bench.then(|| acc.throughput()),
                };
                (name.clone(), report)
            })
            .collect();
        StudyReport {
            ssdlab_version: crate::VERSION.to_string(),
            unit_bytes: self.options.unit_bytes,
            files_studied: self.files.len(),
            bytes: self.bytes,
            profile: self.profile.profile(),
            codecs,
            files: self.files,
        }
    }
}

/// Cut `content` into units, the last padded with zeros.
fn split_units(content: &[u8], unit: usize) -> Vec<Vec<u8>> {
    content
        .chunks(unit)
        .map(|c| {
            let mut u = c.to_vec();
            u.resize(unit, 0);
            u
        })
        .collect()
}

/// Passes over each file when measuring throughput; the fastest counts, since on a shared
/// machine the slower ones measure other processes.
const BENCH_PASSES: usize = 3;

/// Compress and decompress every unit of (a batch of) one entry, timing each call; `passes` > 1
/// repeats the timing and keeps the fastest pass.
fn study_units(
    codec: &mut dyn Codec,
    units: &[Vec<u8>],
    scratch: &mut Vec<u8>,
    name: &str,
    passes: usize,
) -> Result<Acc, Error> {
    let mut acc = Acc::default();
    for pass in 0..passes {
        let (mut compress_wall, mut decompress_wall) = (Duration::ZERO, Duration::ZERO);
        for u in units {
            let started = Instant::now();
            // `run` checked the unit size, so this only fails if a codec refuses a valid unit.
            let c = codec
                .compress(u)
                .map_err(|e| Error::config("unit_bytes", format!("{name}: {e}")))?;
            compress_wall += started.elapsed();
            let started = Instant::now();
            let ok = codec.decompress_into(&c, scratch).is_ok();
            decompress_wall += started.elapsed();
            if pass > 0 {
                continue;
            }
            if !ok || scratch != u {
                acc.roundtrip_failures += 1;
            }
            acc.units += 1;
            acc.original += u.len() as u64;
            acc.stored += c.stored_bytes() as u64;
            acc.side += c.side.len() as u64;
            acc.failed += c.failed as u64;
            acc.zero += u.iter().all(|&b| b == 0) as u64;
            acc.compress_ns += c.compress_ns;
            acc.decompress_ns += c.decompress_ns;
        }
        if pass == 0 || compress_wall < acc.compress_wall {
            acc.compress_wall = compress_wall;
        }
        if pass == 0 || decompress_wall < acc.decompress_wall {
            acc.decompress_wall = decompress_wall;
        }
    }
    Ok(acc)
}

/// The study as a text table: overall figures per codec, then each file's ratio per codec.
pub fn render_text(r: &StudyReport) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let units: u64 = r.files.iter().map(|f| f.units).sum();
    let _ = writeln!(
        o,
        "codec study: {} files, {} bytes, {} units of {} KiB; entropy {:.2} bits/byte, \
         dominant byte per 128 B {:.1}%",
        r.files_studied,
        r.bytes,
        units,
        r.unit_bytes / 1024,
        r.profile.entropy_bits_per_byte,
        100.0 * r.profile.dominant_byte_share_128
    );
    let bench = r.codecs.iter().any(|(_, c)| c.throughput.is_some());
    let _ = write!(
        o,
        "{:<20} {:>7} {:>7} {:>6} {:>9} {:>12}",
        "codec", "ratio", "failed", "zero", "roundtrip", "model c/d ns"
    );
    if bench {
        let _ = write!(o, " {:>11} {:>11}", "comp MB/s", "decomp MB/s");
    }
    o.push('\n');
    for (name, c) in &r.codecs {
        let s = &c.overall;
        let _ = write!(
            o,
            "{:<20} {:>6.1}% {:>6.1}% {:>5.1}% {:>9} {:>12}",
            name,
            100.0 * s.ratio,
            100.0 * s.failed_fraction,
            100.0 * s.zero_fraction,
            if s.roundtrip_ok { "ok" } else { "FAILED" },
            format!(
                "{:.0}/{:.0}",
                s.model_compress_ns_per_unit, s.model_decompress_ns_per_unit
            )
        );
        if let Some(t) = c.throughput {
            let _ = write!(o, " {:>11.1} {:>11.1}", t.compress_mb_s, t.decompress_mb_s);
        }
        o.push('\n');
    }
    if r.codecs.len() > 8 {
        let _ = writeln!(
            o,
            "(per-file ratios of {} codecs: see --json)",
            r.codecs.len()
        );
        return o;
    }
    let width = r
        .files
        .iter()
        .map(|f| f.path.len())
        .max()
        .unwrap_or(0)
        .max(4);
    let _ = write!(o, "\nratio per file\n{:<width$}", "file");
    for (name, _) in &r.codecs {
        let _ = write!(o, " {name:>8}");
    }
    o.push('\n');
    for f in &r.files {
        let _ = write!(o, "{:<width$}", f.path);
        for (_, s) in &f.codecs {
            let _ = write!(o, " {:>7.1}%", 100.0 * s.ratio);
        }
        o.push('\n');
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(names: &[&str]) -> StudyOptions {
        StudyOptions {
            unit_bytes: 4096,
            codecs: names
                .iter()
                .map(|n| (n.to_string(), CodecConfig::from_name(n).unwrap()))
                .collect(),
            bench: false,
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ssdlab-study-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        dir
    }

    #[test]
    fn files_are_walked_recursively_and_sorted() {
        let dir = temp_dir("walk");
        std::fs::write(dir.join("sub/b"), b"x").unwrap();
        std::fs::write(dir.join("a"), b"y").unwrap();
        std::fs::write(dir.join("c"), b"z").unwrap();
        let files = collect_files(&[dir.join("c"), dir.clone()]).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|f| f.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["a", "c", "sub/b"]);
        let e = collect_files(&[dir.join("missing")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn figures_add_up() {
        let dir = temp_dir("figures");
        // One zero unit, one unit of text, a 100-byte tail padded to a unit.
        let mut content = vec![0u8; 4096];
        content.extend(b"all work and no play makes jack a dull boy ".repeat(100));
        content.truncate(3 * 4096 - 3996);
        std::fs::write(dir.join("f"), &content).unwrap();
        let r = run(std::slice::from_ref(&dir), &options(&["dpc", "lz4"])).unwrap();
        assert_eq!((r.files_studied, r.bytes), (1, content.len() as u64));
        let f = &r.files[0];
        assert_eq!((f.units, f.padding_bytes), (3, 3996));
        let (name, dpc) = &r.codecs[0];
        assert_eq!(name, "dpc");
        let s = &dpc.overall;
        assert_eq!((s.units, s.original_bytes, s.zero_units), (3, 3 * 4096, 1));
        assert!((s.zero_fraction - 1.0 / 3.0).abs() < 1e-6);
        assert!(s.roundtrip_ok);
        let expected = 1.0 - s.stored_bytes as f64 / s.original_bytes as f64;
        assert!((s.ratio - expected).abs() < 1e-6);
        assert_eq!(f.codecs[0].1, *s, "one file: file figures = overall");
        assert!(dpc.throughput.is_none());
        let json = serde_json::to_value(&r).unwrap();
        for codec in ["dpc", "lz4"] {
            for key in ["ratio", "failed_fraction", "zero_fraction", "roundtrip_ok"] {
                assert!(!json["codecs"][codec][key].is_null(), "{codec}.{key}");
            }
        }
        assert_eq!(json["codecs"]["dpc"]["config"]["granularity_bytes"], 128);
        let text = render_text(&r);
        assert!(
            text.contains("dpc") && text.contains("ratio per file"),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bench_reports_throughput() {
        let dir = temp_dir("bench");
        std::fs::write(dir.join("f"), vec![7u8; 64 * 1024]).unwrap();
        let mut o = options(&["fpc"]);
        o.bench = true;
        let r = run(std::slice::from_ref(&dir), &o).unwrap();
        let t = r.codecs[0].1.throughput.unwrap();
        assert!(t.compress_mb_s > 0.0 && t.decompress_mb_s > 0.0);
        assert!(render_text(&r).contains("comp MB/s"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sweep_covers_fig8_space() {
        let sweep = dpc_sweep();
        assert_eq!(sweep.len(), 6 * 4 * 2);
        assert!(sweep.iter().any(|(n, _)| n == "dpc-g128-p1-n1"));
        assert!(sweep.iter().all(|(_, c)| c.validate().is_ok()));
    }

    #[test]
    fn profile_of_known_bytes() {
        let mut p = ProfileAcc::default();
        let mut unit = vec![0u8; 4096];
        for (i, b) in unit.iter_mut().enumerate() {
            *b = if i % 2 == 0 { 0 } else { 1 };
        }
        p.add_unit(&unit);
        let prof = p.profile();
        assert_eq!(prof.entropy_bits_per_byte, 1.0);
        assert_eq!(prof.dominant_byte_share_128, 0.5);
        assert_eq!(prof.zero_byte_share, 0.5);
    }
}
