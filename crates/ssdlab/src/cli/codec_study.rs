//! `ssdlab codec-study`: the command-line face of [`crate::codec_study`].

use std::path::PathBuf;

use crate::codec::{CodecConfig, CODEC_NAMES, MAX_INPUT_BYTES, UNIT_BYTES};
use crate::codec_study::{self as study, StudyOptions};
use crate::content::ContentSource;
use crate::error::Error;

use super::DeviceArgs;

/// Measure every codec's compression ratio on real files (PR-SSD Fig. 8), or on the units a
/// `[content]` source gives (with --units).
#[derive(clap::Args, Debug)]
pub struct CodecStudyArgs {
    /// Files or directories (walked recursively; files sorted by path).
    #[arg(
        required_unless_present = "units",
        conflicts_with = "units",
        value_name = "PATH"
    )]
    paths: Vec<PathBuf>,
    /// Study N units of the content the config (--preset, --config, --set) and --workload give
    /// written logical units 0..N, instead of files.
    #[arg(long, value_name = "N")]
    units: Option<u32>,
    /// With --units: the device whose [content] and mapping unit to use.
    #[command(flatten)]
    device: DeviceArgs,
    /// With --units: a named workload whose [content] applies (under the config's own).
    #[arg(long, value_name = "NAME", requires = "units")]
    workload: Vec<String>,
    /// Unit size in KiB (a 4 KiB multiple; a file's last unit is padded with zeros). Default: 4
    /// for files, the config's mapping unit with --units.
    #[arg(long)]
    unit_kib: Option<u32>,
    /// Codec to study (repeatable): dpc, fpc, fpc128, bdi, bdi128, lz4, zstd, a DPC
    /// configuration such as dpc-g64-p2-n2, or FPC with segments such as fpc-s8. Default:
    /// dpc, fpc, fpc128, bdi, bdi128, lz4, zstd (plus the sweep with --dpc-sweep).
    #[arg(long = "codec", value_name = "NAME")]
    codecs: Vec<String>,
    /// Add every DPC configuration of Fig. 8: granularity 32-1024 B, pattern 1/2/4/8 B, one or
    /// two patterns (48 codecs).
    #[arg(long)]
    dpc_sweep: bool,
    /// Granularity of the `dpc` codec in bytes (32-1024).
    #[arg(long, value_name = "BYTES")]
    dpc_granularity_bytes: Option<u32>,
    /// Pattern size of the `dpc` codec in bytes (1, 2, 4, 8).
    #[arg(long, value_name = "BYTES")]
    dpc_pattern_bytes: Option<u32>,
    /// Dominant patterns per unit of the `dpc` codec (1 or 2).
    #[arg(long, value_name = "N")]
    dpc_patterns: Option<u32>,
    /// Partial-zero filter unit of the `dpc` codec in bytes.
    #[arg(long, value_name = "BYTES")]
    dpc_zero_filter_bytes: Option<u32>,
    /// Saving below which compression fails, for every codec (default 0.10).
    #[arg(long, value_name = "FRACTION")]
    failure_threshold_saving: Option<f64>,
    /// Also measure compression and decompression throughput (use a release build).
    #[arg(long)]
    bench: bool,
    /// Print the results as JSON on stdout, and nothing else.
    #[arg(long)]
    json: bool,
}

/// What `--units` studies: units of a resolved config's content.
struct ContentUnits {
    source: Box<dyn ContentSource>,
    /// The config's mapping unit, the default unit size.
    mapping_unit_kib: u32,
    /// How the report names the units.
    label: String,
    count: u32,
}

impl ContentUnits {
    /// The content of the device and workloads the arguments name, if `--units` was given.
    fn of(a: &CodecStudyArgs) -> Result<Option<ContentUnits>, Error> {
        let Some(count) = a.units else {
            return Ok(None);
        };
        let config = a.device.resolve_with_workloads(&a.workload)?;
        let mut label = format!("content of {}", config.name);
        if !a.workload.is_empty() {
            label.push_str(&format!(" × {}", a.workload.join(" + ")));
        }
        label.push_str(&format!(" (lpn 0..{count}, version 0)"));
        Ok(Some(ContentUnits {
            source: crate::content::build(&config.content, config.seed)?,
            mapping_unit_kib: config.ftl.mapping_unit_kib,
            label,
            count,
        }))
    }
}

/// Run the study and print it; returns the exit code (errors are exit 2 in the caller).
pub fn run(a: CodecStudyArgs) -> Result<i32, Error> {
    let content = ContentUnits::of(&a)?;
    let unit_kib = a
        .unit_kib
        .or(content.as_ref().map(|c| c.mapping_unit_kib))
        .unwrap_or(4);
    let unit_bytes = unit_kib as usize * 1024;
    if unit_bytes == 0 || !unit_bytes.is_multiple_of(UNIT_BYTES) || unit_bytes > MAX_INPUT_BYTES {
        return Err(Error::config(
            "--unit-kib",
            format!("{unit_kib} is not a positive multiple of 4 up to 1024"),
        ));
    }
    let names: Vec<String> = if a.codecs.is_empty() {
        CODEC_NAMES.iter().map(|s| s.to_string()).collect()
    } else {
        a.codecs.clone()
    };
    let mut codecs = Vec::new();
    for name in names {
        let mut config = CodecConfig::from_name(&name)?;
        if let (CodecConfig::Dpc(d), "dpc") = (&mut config, name.as_str()) {
            d.granularity_bytes = a.dpc_granularity_bytes.unwrap_or(d.granularity_bytes);
            d.pattern_bytes = a.dpc_pattern_bytes.unwrap_or(d.pattern_bytes);
            d.patterns = a.dpc_patterns.unwrap_or(d.patterns);
            d.zero_filter_bytes = a.dpc_zero_filter_bytes.unwrap_or(d.zero_filter_bytes);
        }
        codecs.push((name, config));
    }
    if a.dpc_sweep {
        codecs.extend(study::dpc_sweep());
    }
    for (_, config) in &mut codecs {
        if let Some(t) = a.failure_threshold_saving {
            config.set_failure_threshold(t);
        }
        config.validate()?;
    }
    let options = StudyOptions {
        unit_bytes,
        codecs,
        bench: a.bench,
    };
    let report = match &content {
        None => study::run(&a.paths, &options)?,
        Some(c) => study::run_content(c.source.as_ref(), &c.label, c.count, &options)?,
    };
    if a.json {
        let text = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
        super::out(&text);
    } else {
        super::out(&study::render_text(&report));
    }
    Ok(0)
}
