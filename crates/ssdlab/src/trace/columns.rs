//! The five-column ASCII layout shared by the DiskSim family of formats
//! (MQSim, SSDsim, DiskSim, FlashSim):
//!
//! ```text
//! time device address size type
//! ```
//!
//! The four tools agree on the column order but not on the units, nor on how
//! the type is coded; a [`Columns`] value states one tool's choices and
//! [`Columns::parse`] reads a line by them. Fields are separated by any run of
//! spaces or tabs; blank lines and lines starting with `#` carry no request.

use super::{
    parse_decimal_ns, parse_u64, parse_u64_max, quote_field, scale_u64, split_fields, zero_size,
    FieldError, Op, RawRequest,
};

/// How the time column is written.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Clock {
    /// An integer count of nanoseconds.
    IntegerNs,
    /// A plain decimal number in units of this many ns (1e6: milliseconds).
    Decimal(u64),
}

/// How the type column codes reads and writes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TypeCode {
    /// `0` = write, `1` = read; anything else is rejected.
    ZeroWriteOneRead,
    /// Hexadecimal flags (optional `0x`), bit 0 set = read, clear = write.
    HexFlagsBit0Read,
}

/// One tool's reading of the five columns.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Columns {
    /// Field names in column order, as used in error messages.
    pub fields: [&'static str; 5],
    pub clock: Clock,
    /// Bytes per unit of the address column.
    pub address_unit: u64,
    /// Bytes per unit of the size column.
    pub size_unit: u64,
    pub type_code: TypeCode,
    /// Largest value the tool can hold in the device, address and size
    /// columns (SSDsim reads them into C `int`s); `u64::MAX` for no limit.
    pub max_field: u64,
}

impl Columns {
    /// Read one line; `Ok(None)` for a blank or `#` line.
    pub fn parse(&self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return Ok(None);
        }
        let [time, device, address, size, ty] = self.fields;
        let f = split_fields(
            line.split_ascii_whitespace(),
            &self.fields,
            "whitespace-separated",
        )?;
        let ts_ns = match self.clock {
            Clock::IntegerNs => parse_u64(time, f[0])?,
            Clock::Decimal(unit_ns) => parse_decimal_ns(time, f[0], unit_ns)?,
        };
        parse_u64_max(device, f[1], self.max_field)?;
        let start = parse_u64_max(address, f[2], self.max_field)?;
        let offset_bytes = scale_u64(address, f[2], start, self.address_unit)?;
        let units = parse_u64_max(size, f[3], self.max_field)?;
        if units == 0 {
            return Err(zero_size(size, f[3]));
        }
        let size_bytes = scale_u64(size, f[3], units, self.size_unit)?;
        let op = match self.type_code {
            TypeCode::ZeroWriteOneRead => match f[4] {
                "0" => Op::Write,
                "1" => Op::Read,
                other => {
                    return Err(FieldError::new(
                        ty,
                        format!("{} is not 0 (write) or 1 (read)", quote_field(other)),
                    ))
                }
            },
            TypeCode::HexFlagsBit0Read => {
                let text = f[4];
                let hex = text
                    .strip_prefix("0x")
                    .or_else(|| text.strip_prefix("0X"))
                    .unwrap_or(text);
                let flags = (!hex.is_empty() && hex.len() <= 8)
                    .then(|| u32::from_str_radix(hex, 16).ok())
                    .flatten()
                    .filter(|_| hex.bytes().all(|b| b.is_ascii_hexdigit()))
                    .ok_or_else(|| {
                        FieldError::new(
                            ty,
                            format!(
                                "{} is not a 32-bit hexadecimal flags word",
                                quote_field(text)
                            ),
                        )
                    })?;
                if flags & 1 == 1 {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        };
        Ok(Some(RawRequest {
            ts_ns,
            offset_bytes,
            size_bytes,
            op,
            stream: None,
        }))
    }
}
