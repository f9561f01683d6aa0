//! Writing traces back out, for `ssdlab convert`: any trace ssdlab reads can
//! be written in the native format (lossless) or as DiskSim ASCII.
//!
//! Native: every field of a [`Trace`] is written (the stream and content
//! columns only when the trace has them), so reading the output gives the
//! same requests, streams and fingerprints.
//!
//! DiskSim: `time_ms devno blkno bcount flags` with the time as milliseconds
//! with six decimals (exact to the ns), device 0, and 512-byte blocks. A
//! request that does not start and end on a 512-byte boundary is widened to
//! the blocks it touches (start rounded down, end up); aligned requests read
//! back unchanged. DiskSim has no discard and no stream or content fields:
//! trims are refused, streams and fingerprints are dropped.

use std::io::{self, Write};
use std::path::PathBuf;

use super::disksim::{BLOCK_BYTES, NS_PER_MS};
use super::native::{CONTENT, REQUIRED, STREAM};
use super::{Op, Trace};

/// The formats `ssdlab convert` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ConvertTarget {
    /// ssdlab's CSV (see [`super::native`]); lossless.
    Native,
    /// DiskSim ASCII (see [`super::disksim`]); 512-byte granularity, no trims.
    Disksim,
}

/// Why a trace could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// Writing the output failed.
    #[error("{}: cannot write: {source}", path.display())]
    Io {
        /// The output file.
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The target format cannot express a request.
    #[error(
        "{}: request {index} (arriving at {arrival_ns} ns) is a trim, which the DiskSim \
         ASCII format cannot express; convert to native instead",
        path.display()
    )]
    Trim {
        /// The output file.
        path: PathBuf,
        /// 0-based position of the request in the (time-sorted) trace.
        index: usize,
        /// Its arrival time.
        arrival_ns: u64,
    },
}

/// Write `trace` as `target` to `out`; `path` names the output in errors.
pub fn write_trace<W: Write>(
    trace: &Trace,
    target: ConvertTarget,
    out: W,
    path: &std::path::Path,
) -> Result<(), ConvertError> {
    let io_err = |source| ConvertError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut out = io::BufWriter::new(out);
    match target {
        ConvertTarget::Native => write_native(trace, &mut out).map_err(io_err)?,
        ConvertTarget::Disksim => {
            if let Some((index, r)) = trace
                .requests
                .iter()
                .enumerate()
                .find(|(_, r)| r.op == Op::Trim)
            {
                return Err(ConvertError::Trim {
                    path: path.to_path_buf(),
                    index,
                    arrival_ns: r.arrival_ns,
                });
            }
            write_disksim(trace, &mut out).map_err(io_err)?;
        }
    }
    out.flush().map_err(io_err)
}

fn write_native<W: Write>(trace: &Trace, out: &mut W) -> io::Result<()> {
    let has_stream = trace.has_streams();
    let has_content = trace.fingerprints.is_some();
    let mut header = REQUIRED.join(",");
    if has_stream {
        header.push(',');
        header.push_str(STREAM);
    }
    if has_content {
        header.push(',');
        header.push_str(CONTENT);
    }
    writeln!(out, "{header}")?;
    for (i, r) in trace.requests.iter().enumerate() {
        write!(
            out,
            "{},{},{},{}",
            r.arrival_ns,
            r.offset_bytes,
            r.size_bytes,
            r.op.name()
        )?;
        if has_stream {
            write!(out, ",{}", r.stream)?;
        }
        if has_content {
            write!(out, ",")?;
            for (k, fp) in trace.fingerprints(i).iter().enumerate() {
                if k > 0 {
                    write!(out, ";")?;
                }
                write!(out, "{fp}")?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

fn write_disksim<W: Write>(trace: &Trace, out: &mut W) -> io::Result<()> {
    for r in &trace.requests {
        let first = r.offset_bytes / BLOCK_BYTES;
        // The loader guarantees offset + size fits in 64 bits.
        let end = r.offset_bytes.saturating_add(r.size_bytes);
        let blocks = end.div_ceil(BLOCK_BYTES) - first;
        let flags = u8::from(r.op == Op::Read);
        writeln!(
            out,
            "{}.{:06} 0 {first} {blocks} {flags}",
            r.arrival_ns / NS_PER_MS,
            r.arrival_ns % NS_PER_MS
        )?;
    }
    Ok(())
}
