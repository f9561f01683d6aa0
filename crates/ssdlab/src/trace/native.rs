//! ssdlab's own trace format: CSV with a header line naming the columns.
//!
//! ```text
//! arrival_ns,offset_bytes,size_bytes,op,stream,content
//! 0,1048576,8192,write,3,d6c75ba46e82326fefa545b57a12e221;88b93b628d84082186026d9da044f173
//! 1500,0,4096,read,,
//! ```
//!
//! - The header is required and must be the first line that is not blank or
//!   a `#` comment: `arrival_ns,offset_bytes,size_bytes,op`, optionally
//!   followed by `stream`, then optionally `content` (in that order).
//! - `arrival_ns`, `offset_bytes`, `size_bytes`: integers, ns and bytes;
//!   `size_bytes` must be positive. Times need not start at 0 nor be sorted
//!   (the loader rebases and sorts, as for every format).
//! - `op`: `read`, `write` or `trim` (any case).
//! - `stream` (optional column, optional value): the request's stream id, 0 to 65,535 (NVMe's
//!   stream identifier is 16 bits); empty, or 0, for none.
//! - `content` (optional column, optional value): the request's content
//!   fingerprints ([`super::Fingerprint`]), one per 4 KiB block
//!   (`size_bytes.div_ceil(4096)` of them), each 1 to 32 hex digits, joined
//!   by `;`; empty for none. Blocks with equal fingerprints get equal content.
//!
//! Fields are not quoted (no field can hold a comma); spaces around them are
//! ignored. Blank lines and lines starting with `#` carry no request.

use super::{
    parse_stream, parse_u64, quote_field, zero_size, FieldError, Fingerprint, LineParser, Op,
    RawRequest, FINGERPRINT_BLOCK_BYTES,
};

/// The columns every native file has, in order.
pub const REQUIRED: [&str; 4] = ["arrival_ns", "offset_bytes", "size_bytes", "op"];
/// The optional stream column's name.
pub const STREAM: &str = "stream";
/// The optional content column's name.
pub const CONTENT: &str = "content";

/// Parser for [`super::TraceFormat::Native`].
#[derive(Clone, Debug, Default)]
pub struct NativeParser {
    /// `(has stream, has content)` once the header is read.
    columns: Option<(bool, bool)>,
    /// The fingerprints of the request last returned.
    fingerprints: Vec<Fingerprint>,
}

/// The optional columns a header line declares, or why it is not a header.
fn read_header(line: &str) -> Result<(bool, bool), FieldError> {
    let cols: Vec<&str> = line.split(',').map(str::trim).collect();
    let extra = cols.get(REQUIRED.len()..).unwrap_or(&[]);
    let optional = match extra {
        [] => Some((false, false)),
        [s] if *s == STREAM => Some((true, false)),
        [c] if *c == CONTENT => Some((false, true)),
        [s, c] if *s == STREAM && *c == CONTENT => Some((true, true)),
        _ => None,
    };
    match optional {
        Some(o) if cols.get(..REQUIRED.len()) == Some(&REQUIRED[..]) => Ok(o),
        _ => Err(FieldError::new(
            "header",
            format!(
                "{} is not `{}` followed by the optional columns `{STREAM}` and then `{CONTENT}`",
                quote_field(line),
                REQUIRED.join(",")
            ),
        )),
    }
}

impl LineParser for NativeParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        self.fingerprints.clear();
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(None);
        }
        let Some((has_stream, has_content)) = self.columns else {
            self.columns = Some(read_header(line)?);
            return Ok(None);
        };
        let mut names: Vec<&'static str> = REQUIRED.to_vec();
        names.extend(has_stream.then_some(STREAM));
        names.extend(has_content.then_some(CONTENT));
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != names.len() {
            let field = names.get(f.len()).or(names.last()).copied().unwrap_or("op");
            let what = if f.len() < names.len() {
                "missing"
            } else {
                "unexpected data after this field"
            };
            return Err(FieldError::new(
                field,
                format!(
                    "{what}: line has {} comma-separated fields, the header names {}",
                    f.len(),
                    names.len()
                ),
            ));
        }
        let field = |i: usize| f.get(i).copied().unwrap_or("");
        let ts_ns = parse_u64("arrival_ns", field(0))?;
        let offset_bytes = parse_u64("offset_bytes", field(1))?;
        let size_bytes = parse_u64("size_bytes", field(2))?;
        if size_bytes == 0 {
            return Err(zero_size("size_bytes", field(2)));
        }
        let op_text = field(3);
        let op = [Op::Read, Op::Write, Op::Trim]
            .into_iter()
            .find(|op| op_text.eq_ignore_ascii_case(op.name()))
            .ok_or_else(|| {
                FieldError::new(
                    "op",
                    format!("{} is not read, write or trim", quote_field(op_text)),
                )
            })?;
        let mut next = 4;
        let mut stream = 0;
        if has_stream {
            let text = field(next);
            next += 1;
            if !text.is_empty() {
                stream = parse_stream(STREAM, text)?;
            }
        }
        if has_content && !field(next).is_empty() {
            let text = field(next);
            for part in text.split(';') {
                self.fingerprints
                    .push(Fingerprint::from_hex(CONTENT, part)?);
            }
            let want = size_bytes.div_ceil(FINGERPRINT_BLOCK_BYTES);
            if self.fingerprints.len() as u64 != want {
                let got = self.fingerprints.len();
                self.fingerprints.clear();
                return Err(FieldError::new(
                    CONTENT,
                    format!(
                        "{got} fingerprints for {size_bytes} bytes; a request needs one per \
                         {FINGERPRINT_BLOCK_BYTES}-byte block ({want})"
                    ),
                ));
            }
        }
        Ok(Some(RawRequest {
            ts_ns,
            offset_bytes,
            size_bytes,
            op,
            stream,
        }))
    }

    fn offset_field(&self) -> &'static str {
        "offset_bytes"
    }

    fn size_field(&self) -> &'static str {
        "size_bytes"
    }

    fn fingerprints(&self) -> &[Fingerprint] {
        &self.fingerprints
    }
}
