//! `ssdlab trace-info` and `ssdlab convert`: traces on their own (see docs/traces.md).

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::trace::columns::SpecError;
use crate::trace::convert::{write_trace, ConvertError, ConvertTarget};
use crate::trace::info::TraceInfo;
use crate::trace::{
    load_trace_as, BlkparseEvent, Caller, ColumnsSpec, LoadOptions, Trace, TraceFormat,
};

use super::out;

/// How to read a trace file.
#[derive(clap::Args, Debug)]
pub(super) struct ReadArgs {
    /// Trace format (default: detected from the first lines; `columns` with --columns).
    #[arg(long, value_enum)]
    pub format: Option<TraceFormat>,
    /// The columns of a `columns` trace, e.g. 'time_ms=1 offset_bytes=3 size_bytes=4 op=5
    /// read=1 write=0' (implies --format columns; keys in docs/traces.md).
    #[arg(long, value_name = "SPEC")]
    columns: Option<String>,
    /// blkparse only: the event that marks a request's arrival: q (queued), d (dispatched) or
    /// c (completed). Default: the first of Q, D, C the file holds.
    #[arg(long, value_enum, value_name = "EVENT")]
    pub blkparse_event: Option<BlkparseEvent>,
}

impl ReadArgs {
    /// The format asked for: `--format`, or `columns` with `--columns`.
    pub fn format(&self) -> Result<Option<TraceFormat>, Error> {
        match (self.format, &self.columns) {
            (Some(f), Some(_)) if f != TraceFormat::Columns => Err(columns_error(SpecError {
                key: "columns".to_string(),
                reason: format!("describes a `columns` trace; it does not go with --format {f}"),
            })),
            (None, Some(_)) => Ok(Some(TraceFormat::Columns)),
            (format, _) => Ok(format),
        }
    }

    /// `--columns`, read and checked (errors name the `key=value` part).
    pub fn columns(&self) -> Result<Option<ColumnsSpec>, Error> {
        self.columns
            .as_deref()
            .map(|text| {
                let spec = ColumnsSpec::from_cli(text)?;
                spec.parser()?;
                Ok(spec)
            })
            .transpose()
            .map_err(columns_error)
    }

    /// Load the whole trace at `path`, without a capacity check; returns it
    /// with the format it was read as (detected if not given).
    fn load(&self, path: &Path) -> Result<(Trace, TraceFormat), Error> {
        let opts = LoadOptions {
            format: self.format()?,
            blkparse_event: self.blkparse_event,
            columns: self
                .columns
                .as_deref()
                .map(|text| ColumnsSpec::from_cli(text)?.parser())
                .transpose()
                .map_err(columns_error)?,
            caller: Caller::Cli,
            ..LoadOptions::default()
        };
        let (trace, format) = load_trace_as(path, &opts)?;
        if let (None, Some(event)) = (self.blkparse_event, trace.blkparse_event) {
            say_chosen_event(path, event);
        }
        Ok((trace, format))
    }
}

/// A mistake in `--columns`.
fn columns_error(source: SpecError) -> Error {
    Error::Columns {
        option: "--columns".to_string(),
        source,
    }
}

/// Tell (on stderr) which blkparse event was read when none was given.
pub(super) fn say_chosen_event(path: &Path, event: BlkparseEvent) {
    eprintln!(
        "ssdlab: {}: read blkparse `{}` events, the first of Q, D, C the file holds \
         (choose with --blkparse-event)",
        path.display(),
        event.action()
    );
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
