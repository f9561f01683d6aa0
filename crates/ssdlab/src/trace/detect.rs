//! Format detection by content.
//!
//! Rule: take the first [`SAMPLE_LINES`] lines that are neither blank nor
//! `#` comments, and give them, in order, to a fresh parser of every format.
//! A format accepts the sample if it reads every line without error (a
//! request or a line it skips on purpose, such as a header or a blkparse
//! event of another type). Exactly one format must accept it; otherwise the
//! error lists the formats that accepted it (ambiguous) or, for each format,
//! the first line and field it refused (none). One exception to "none": if a
//! single format reads more of the sample than every other (at least its
//! first line), that format is used, so that a file with one malformed line
//! gets that format's precise `file:line: field` error from the loader
//! instead of a list of ten refusals.
//!
//! The DiskSim family (MQSim, SSDsim, DiskSim, FlashSim) share one layout of
//! five numeric columns and differ only in units, so their files are
//! ambiguous by content and need a format named; the other formats have a
//! layout, a header or a field of their own and are told apart. The `columns`
//! format is never detected: it needs a description of the columns.

use std::io::BufRead;
use std::path::Path;

use super::load::{decompressed, next_line, open};
use super::{FieldError, LoadOptions, TraceError, TraceFormat};

/// How many non-blank, non-comment lines detection reads.
pub const SAMPLE_LINES: usize = 64;

/// The first lines of a trace, read for detection and kept so that the
/// loader can read them again.
pub(crate) struct Sample {
    /// Every byte consumed from the input, to be put back in front of it.
    bytes: Vec<u8>,
    /// `(1-based line number, text)` of the sampled lines.
    lines: Vec<(u64, String)>,
}

impl Sample {
    /// Read lines from `input` until [`SAMPLE_LINES`] non-blank, non-comment
    /// lines are in (or the input ends).
    pub fn read(input: &mut dyn BufRead, path: &Path) -> Result<Sample, TraceError> {
        let mut sample = Sample {
            bytes: Vec::new(),
            lines: Vec::new(),
        };
        let mut line_no = 0u64;
        while sample.lines.len() < SAMPLE_LINES {
            let Some(text) = next_line(input, &mut sample.bytes, line_no + 1, path)? else {
                break;
            };
            line_no += 1;
            let t = text.trim();
            if !t.is_empty() && !t.starts_with('#') {
                sample.lines.push((line_no, text.to_string()));
            }
        }
        Ok(sample)
    }

    /// The bytes read, to be read again.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The one format that accepts every sampled line (see the module doc).
    pub fn detect(&self, path: &Path, opts: &LoadOptions) -> Result<TraceFormat, TraceError> {
        let error = |reason: String| TraceError::Detect {
            path: path.to_path_buf(),
            reason,
        };
        if self.lines.is_empty() {
            return Err(error(
                "the file has no line that is neither blank nor a `#` comment".to_string(),
            ));
        }
        let mut accepted = Vec::new();
        let mut refused = Vec::new();
        // (lines read before the first refusal, format) of the refusing formats.
        let mut reach: Vec<(usize, TraceFormat)> = Vec::new();
        for format in TraceFormat::ALL {
            match self.first_refusal(format, opts) {
                None => accepted.push(format),
                Some((index, line, e)) => {
                    reach.push((index, format));
                    refused.push(format!(
                        "{format}: line {line}: field `{}`: {}",
                        e.field, e.reason
                    ));
                }
            }
        }
        let furthest = reach.iter().map(|(n, _)| *n).max().unwrap_or(0);
        let leaders: Vec<TraceFormat> = reach
            .iter()
            .filter(|(n, _)| *n == furthest && furthest > 0)
            .map(|(_, f)| *f)
            .collect();
        let names = |v: &[TraceFormat]| v.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ");
        match (accepted.as_slice(), leaders.as_slice()) {
            ([one], _) => Ok(*one),
            ([], [leader]) => Ok(*leader),
            ([], _) => Err(error(format!(
                "no format reads its first {} lines; give one with {}, or describe the \
                 columns with {}. {}",
                self.lines.len(),
                opts.caller.format_option(),
                opts.caller.columns_option(),
                refused.join("; ")
            ))),
            (many, _) => Err(error(format!(
                "its first {} lines are valid as each of {}, which would read them \
                 differently (e.g. in other units); name one with {}, or describe the \
                 columns with {}",
                self.lines.len(),
                names(many),
                opts.caller.format_option(),
                opts.caller.columns_option()
            ))),
        }
    }

    /// The first sampled line `format` refuses: its index in the sample, its
    /// line number and the error.
    fn first_refusal(
        &self,
        format: TraceFormat,
        opts: &LoadOptions,
    ) -> Option<(usize, u64, FieldError)> {
        let mut parser = format.parser(opts);
        self.lines
            .iter()
            .enumerate()
            .find_map(|(i, (line, text))| parser.parse_line(text).err().map(|e| (i, *line, e)))
    }
}

/// The format of the trace at `path`, detected from its first lines
/// (plain text, gzip or zstd).
pub fn detect_format(path: &Path, opts: &LoadOptions) -> Result<TraceFormat, TraceError> {
    let mut input = decompressed(open(path)?, path)?;
    Sample::read(&mut input, path)?.detect(path, opts)
}
