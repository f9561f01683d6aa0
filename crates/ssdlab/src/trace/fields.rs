//! Reading one field of a trace line: numbers with their units, splitting, and errors that name
//! the field and quote the text. Shared by every parser.

/// Why one field of one line could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {reason}")]
pub struct FieldError {
    /// The field's name as the format documents it (e.g. `Size`, `start_sector`).
    pub field: &'static str,
    /// What is wrong with it, quoting the offending text.
    pub reason: String,
}

impl FieldError {
    /// A new error about `field`.
    pub fn new(field: &'static str, reason: impl Into<String>) -> Self {
        FieldError {
            field,
            reason: reason.into(),
        }
    }
}

/// Longest field text quoted verbatim in an error message.
const MAX_QUOTED_CHARS: usize = 48;

/// `s` quoted and escaped for an error message, cut after a few dozen chars.
pub fn quote_field(s: &str) -> String {
    match s.char_indices().nth(MAX_QUOTED_CHARS) {
        None => format!("{s:?}"),
        Some((cut, _)) => format!("{:?}...", s.get(..cut).unwrap_or(s)),
    }
}

/// Parse a non-negative decimal integer (ASCII digits only, no sign, no
/// spaces). The error names `field` and quotes the text.
pub fn parse_u64(field: &'static str, s: &str) -> Result<u64, FieldError> {
    let bytes = s.as_bytes();
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return Err(FieldError::new(
            field,
            format!("{} is not a non-negative integer", quote_field(s)),
        ));
    }
    let mut v: u64 = 0;
    for &b in bytes {
        v = match v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
        {
            Some(v) => v,
            None => {
                return Err(FieldError::new(
                    field,
                    format!("{} is too large (maximum {})", quote_field(s), u64::MAX),
                ))
            }
        };
    }
    Ok(v)
}

/// Multiply a parsed value by its unit (e.g. 512 B per sector), naming
/// `field` if the result does not fit in 64 bits.
pub fn scale_u64(
    field: &'static str,
    text: &str,
    value: u64,
    unit: u64,
) -> Result<u64, FieldError> {
    value.checked_mul(unit).ok_or_else(|| {
        FieldError::new(
            field,
            format!(
                "{} is too large: {value} x {unit} overflows 64 bits",
                quote_field(text)
            ),
        )
    })
}

/// The error for a size field that parsed as 0.
pub fn zero_size(field: &'static str, text: &str) -> FieldError {
    FieldError::new(
        field,
        format!(
            "{} is a zero-length request; sizes must be positive",
            quote_field(text)
        ),
    )
}

/// Split `parts` (the fields of one line, already separated) into exactly
/// `N` fields named `names`; `separator` describes how they are separated
/// (e.g. `"comma-separated"`) in the error, which names the first missing
/// field or, for extra data, the last field.
pub fn split_fields<'a, const N: usize>(
    parts: impl Iterator<Item = &'a str>,
    names: &[&'static str; N],
    separator: &str,
) -> Result<[&'a str; N], FieldError> {
    let mut f = [""; N];
    let mut n = 0usize;
    for part in parts {
        match f.get_mut(n) {
            Some(slot) => *slot = part,
            None => {
                let last = names.last().copied().unwrap_or("line");
                return Err(FieldError::new(
                    last,
                    format!(
                        "unexpected data after this field: line has more than {N} \
                         {separator} fields, expected {N}"
                    ),
                ));
            }
        }
        n += 1;
    }
    if let Some(&missing) = names.get(n) {
        return Err(FieldError::new(
            missing,
            format!("missing: line has {n} {separator} fields, expected {N}"),
        ));
    }
    Ok(f)
}

/// Parse a non-negative decimal integer no larger than `max` (for fields a
/// tool stores in a narrower C type). The error names `field`.
pub fn parse_u64_max(field: &'static str, s: &str, max: u64) -> Result<u64, FieldError> {
    let v = parse_u64(field, s)?;
    if v > max {
        return Err(FieldError::new(
            field,
            format!("{} is too large (maximum {max})", quote_field(s)),
        ));
    }
    Ok(v)
}

/// Parse a stream id: a non-negative decimal integer that fits NVMe's 16-bit stream
/// identifier (0 is no stream). The error names `field`.
pub fn parse_stream(field: &'static str, s: &str) -> Result<u16, FieldError> {
    Ok(parse_u64_max(field, s, u64::from(u16::MAX))? as u16)
}

/// Fraction digits read by [`parse_decimal_ns`]; later ones are below any
/// unit's nanosecond and ignored.
const MAX_FRACTION_DIGITS: usize = 20;

/// Parse a non-negative plain decimal number (`12`, `12.5`, `.5`, `12.`; no
/// sign, no exponent) given in a unit of `unit_ns` nanoseconds (1e6 for
/// milliseconds, 1e9 for seconds) and return it in ns, rounded to the
/// nearest ns. Exact: no binary floating point is involved.
pub fn parse_decimal_ns(field: &'static str, s: &str, unit_ns: u64) -> Result<u64, FieldError> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return Err(FieldError::new(
            field,
            format!("{} is not a non-negative decimal number", quote_field(s)),
        ));
    }
    let too_large = || {
        FieldError::new(
            field,
            format!("{} is too large for a 64-bit ns clock", quote_field(s)),
        )
    };
    let whole = if int.is_empty() {
        0
    } else {
        parse_u64(field, int).map_err(|_| too_large())?
    };
    let mut ns = whole.checked_mul(unit_ns).ok_or_else(too_large)?;
    let frac = frac.get(..MAX_FRACTION_DIGITS).unwrap_or(frac);
    if !frac.is_empty() {
        // num < 10^20 and den <= 10^20: u128 holds num * unit_ns for any
        // unit up to 10^18 ns; the checked product covers the rest.
        let num: u128 = frac.parse().map_err(|_| too_large())?;
        let den = 10u128.pow(frac.len() as u32);
        let scaled = num.checked_mul(u128::from(unit_ns)).ok_or_else(too_large)?;
        let part = (scaled + den / 2) / den;
        let part = u64::try_from(part).map_err(|_| too_large())?;
        ns = ns.checked_add(part).ok_or_else(too_large)?;
    }
    Ok(ns)
}
