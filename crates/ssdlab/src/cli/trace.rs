//! `ssdlab trace-info` and `ssdlab convert`: traces on their own (see docs/traces.md).

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::trace::convert::{write_trace, ConvertError, ConvertTarget};
use crate::trace::info::TraceInfo;
use crate::trace::{load_trace_as, BlkparseEvent, LoadOptions, Trace, TraceFormat};

use super::out;

/// How to read a trace file.
#[derive(clap::Args, Debug)]
pub(super) struct ReadArgs {
    /// Trace format (default: detected from the first lines).
    #[arg(long, value_enum)]
    format: Option<TraceFormat>,
    /// blkparse only: the event that marks a request's arrival (queue or dispatch).
    #[arg(long, value_enum, value_name = "EVENT")]
    blkparse_event: Option<BlkparseEvent>,
}

impl ReadArgs {
    /// Load the whole trace at `path`, without a capacity check; returns it
    /// with the format it was read as (detected if not given).
    fn load(&self, path: &Path) -> Result<(Trace, TraceFormat), Error> {
        let opts = LoadOptions {
            format: self.format,
            blkparse_event: self.blkparse_event.unwrap_or_default(),
            ..LoadOptions::default()
        };
        Ok(load_trace_as(path, &opts)?)
    }
}

#[derive(clap::Args, Debug)]
pub(super) struct TraceInfoArgs {
    /// The trace (plain, gzip or zstd).
    file: PathBuf,
    #[command(flatten)]
    read: ReadArgs,
    /// Print the statistics as JSON on stdout, and nothing else.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
pub(super) struct ConvertArgs {
    /// The trace to read (plain, gzip or zstd).
    input: PathBuf,
    #[command(flatten)]
    read: ReadArgs,
    /// Output format.
    #[arg(long, value_enum)]
    to: ConvertTarget,
    /// Output file (plain text; `-` for stdout).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
}

pub(super) fn trace_info(a: TraceInfoArgs) -> Result<i32, Error> {
    let (file, read, json) = (&a.file, &a.read, a.json);
    let (trace, format) = read.load(file)?;
    let info = TraceInfo::of(&trace, format);
    if json {
        out(&(serde_json::to_string_pretty(&info).unwrap_or_default() + "\n"));
    } else {
        out(&info.to_text());
    }
    Ok(0)
}

pub(super) fn convert(a: ConvertArgs) -> Result<i32, Error> {
    let (input, read, to, output) = (&a.input, &a.read, a.to, a.output.as_path());
    let (trace, _) = read.load(input)?;
    if output == Path::new("-") {
        write_trace(&trace, to, std::io::stdout().lock(), output)?;
    } else {
        let file = std::fs::File::create(output).map_err(|source| ConvertError::Io {
            path: output.to_path_buf(),
            source,
        })?;
        write_trace(&trace, to, file, output)?;
    }
    Ok(0)
}
