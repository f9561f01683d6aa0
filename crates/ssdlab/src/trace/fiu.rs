//! FIU traces (SNIA IOTTA: the FIU SRCMap and IODedup home, mail and web-vm
//! traces), blkparse-derived text with one 4 KiB block per line:
//!
//! ```text
//! ts_ns pid process lba size op major minor md5
//! 89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221
//! ```
//!
//! - `ts_ns`: timestamp, integer nanoseconds (any epoch); rebased by the loader.
//! - `pid`: a non-negative integer; `process`: a name, possibly with spaces
//!   (it is what lies between `pid` and the last six fields).
//! - `lba`: start address in 512-byte sectors.
//! - `size`: length in 512-byte sectors; must be 8: each record describes one
//!   4 KiB block, so that its MD5 describes the whole request.
//! - `op`: `R` read, `W` write (either case).
//! - `major`, `minor`: device numbers; non-negative integers, not interpreted.
//! - `md5`: 32 hex digits, the MD5 of the block's content. It becomes the
//!   request's content fingerprint ([`super::Fingerprint`]): blocks with
//!   equal MD5s get equal content.
//!
//! Fields are separated by any run of spaces or tabs; blank lines and `#`
//! lines carry no request.

use super::{
    parse_u64, quote_field, scale_u64, zero_size, FieldError, Fingerprint, LineParser, Op,
    RawRequest, FINGERPRINT_BLOCK_BYTES,
};

/// Field names in column order, as used in error messages.
pub const FIELDS: [&str; 9] = [
    "ts_ns", "pid", "process", "lba", "size", "op", "major", "minor", "md5",
];

/// Bytes per sector of the `lba` and `size` fields.
pub const SECTOR_BYTES: u64 = 512;

/// The only request size FIU records have, in sectors (one 4 KiB block).
pub const BLOCK_SECTORS: u64 = FINGERPRINT_BLOCK_BYTES / SECTOR_BYTES;

/// Parser for [`super::TraceFormat::Fiu`].
#[derive(Clone, Copy, Debug, Default)]
pub struct FiuParser {
    /// The fingerprint of the request last returned.
    last: Option<Fingerprint>,
}

impl LineParser for FiuParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        self.last = None;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return Ok(None);
        }
        let f: Vec<&str> = trimmed.split_ascii_whitespace().collect();
        if f.len() < FIELDS.len() {
            let missing = FIELDS.get(f.len()).copied().unwrap_or("md5");
            return Err(FieldError::new(
                missing,
                format!(
                    "missing: line has {} whitespace-separated fields, expected at least {}",
                    f.len(),
                    FIELDS.len()
                ),
            ));
        }
        let head = f.get(..2).unwrap_or(&[]);
        let tail = f.get(f.len() - 6..).unwrap_or(&[]);
        let (&[ts, pid], &[lba, size, op, major, minor, md5]) = (head, tail) else {
            return Err(FieldError::new(
                "md5",
                "cannot split the line into its fields",
            ));
        };
        let ts_ns = parse_u64("ts_ns", ts)?;
        parse_u64("pid", pid)?;
        let start = parse_u64("lba", lba)?;
        let offset_bytes = scale_u64("lba", lba, start, SECTOR_BYTES)?;
        let sectors = parse_u64("size", size)?;
        if sectors == 0 {
            return Err(zero_size("size", size));
        }
        if sectors != BLOCK_SECTORS {
            return Err(FieldError::new(
                "size",
                format!(
                    "{} sectors: FIU records are one 4 KiB block ({BLOCK_SECTORS} sectors) \
                     with one MD5",
                    quote_field(size)
                ),
            ));
        }
        let op = match op {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            other => {
                return Err(FieldError::new(
                    "op",
                    format!("{} is not R or W", quote_field(other)),
                ))
            }
        };
        parse_u64("major", major)?;
        parse_u64("minor", minor)?;
        if md5.len() != 32 {
            return Err(FieldError::new(
                "md5",
                format!("{} is not 32 hex digits", quote_field(md5)),
            ));
        }
        self.last = Some(Fingerprint::from_hex("md5", md5)?);
        Ok(Some(RawRequest {
            ts_ns,
            offset_bytes,
            size_bytes: FINGERPRINT_BLOCK_BYTES,
            op,
            stream: 0,
        }))
    }

    fn offset_field(&self) -> &'static str {
        "lba"
    }

    fn fingerprints(&self) -> &[Fingerprint] {
        self.last.as_slice()
    }
}
