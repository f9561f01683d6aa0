//! Column layouts: one reader for every format whose lines are a row of fields, each field one
//! value in one unit.
//!
//! A [`Columns`] value says what each column holds (time, address, size, operation, stream id,
//! a number checked but not interpreted, or nothing read) and how fields are separated; [`Columns::parse`]
//! reads a line by it. The DiskSim family (MQSim, SSDsim, DiskSim, FlashSim) are fixed layouts of
//! the five columns `time device address size type`, which agree on the order but not on the
//! units nor on how the type is coded; the `columns` format is a layout a user describes
//! ([`ColumnsSpec`], compiled by [`ColumnsSpec::layout`]) and reads with [`ColumnsParser`].
//!
//! Blank lines and lines starting with `#` carry no request. Field errors name the column by
//! its layout's name for it (the fixed formats' own field names, or the user's key, such as
//! `offset_bytes`).

mod spec;

use std::borrow::Cow;

pub use spec::{ColumnsSpec, SpecError};

use super::{
    parse_decimal_ns, parse_stream, parse_u64, parse_u64_max, quote_field, scale_u64, zero_size,
    FieldError, LineParser, Op, RawRequest,
};

/// How the fields of a line are separated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Separator {
    /// Any run of spaces or tabs; leading and trailing ones are ignored.
    Whitespace,
    /// Each occurrence of this character (so two in a row make an empty field); spaces and tabs
    /// around a field are ignored.
    Char(char),
}

impl Separator {
    /// How error messages describe it (`whitespace-separated`, `","-separated`).
    fn describe(self) -> String {
        match self {
            Separator::Whitespace => "whitespace-separated".to_string(),
            Separator::Char(c) => format!("{:?}-separated", c.to_string()),
        }
    }
}

/// How a time column is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// An integer count of nanoseconds (a fraction is refused, not truncated).
    IntegerNs,
    /// A plain decimal number in units of this many ns (1e6: milliseconds), read exactly.
    Decimal(u64),
}

/// How an operation column codes the request type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpCoding {
    /// Each listed text is that operation; any other text is refused. Matched exactly.
    Values(Cow<'static, [(Cow<'static, str>, Op)]>),
    /// Hexadecimal flags (optional `0x`), bit 0 set = read, clear = write (DiskSim's `READ`).
    HexFlagsBit0Read,
}

/// What one column holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// The arrival time.
    Time(Clock),
    /// The start address, in units of this many bytes.
    Offset { unit_bytes: u64 },
    /// The length, in units of this many bytes; must be positive.
    Size { unit_bytes: u64 },
    /// The request type.
    Op(OpCoding),
    /// The stream id, 0 to 65,535 (0: no stream).
    Stream,
    /// A non-negative integer that is checked but not interpreted (the DiskSim family's device).
    Number,
}

/// One column a layout reads: its name in error messages and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub role: Role,
}

/// A column layout. Reading a line does not allocate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// Columns 1, 2, ... up to the last one read; `None` for a column that is not read.
    pub columns: Cow<'static, [Option<Column>]>,
    pub separator: Separator,
    /// Whether a line may have more fields than `columns` (a described layout ignores them) or
    /// must have exactly these (the DiskSim family).
    pub extra_fields: bool,
    /// Largest value of an address, size or number column (SSDsim reads them into C `int`s);
    /// `u64::MAX` for no limit.
    pub max_field: u64,
}

/// The fields of one line, as the separator splits them.
enum Fields<'a> {
    Whitespace(std::str::SplitAsciiWhitespace<'a>),
    Char(std::str::Split<'a, char>),
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match self {
            Fields::Whitespace(s) => s.next(),
            Fields::Char(s) => s.next().map(|f| f.trim_matches([' ', '\t'])),
        }
    }
}

/// A request as its columns are read, before all are in.
#[derive(Default)]
struct Partial {
    ts_ns: Option<u64>,
    offset_bytes: Option<u64>,
    size_bytes: Option<u64>,
    op: Option<Op>,
    /// Stream 0 (none) unless a stream column says otherwise.
    stream: u16,
}

impl Partial {
    /// The request, once every part is in. A layout lacking a time, address, size or
    /// operation column ([`ColumnsSpec::layout`] and the fixed formats never build one) is
    /// refused rather than given a made-up value.
    fn complete(self) -> Result<RawRequest, FieldError> {
        let lacks = |part: &str| {
            FieldError::new("columns", format!("the column layout has no {part} column"))
        };
        Ok(RawRequest {
            ts_ns: self.ts_ns.ok_or_else(|| lacks("time"))?,
            offset_bytes: self.offset_bytes.ok_or_else(|| lacks("address"))?,
            size_bytes: self.size_bytes.ok_or_else(|| lacks("size"))?,
            op: self.op.ok_or_else(|| lacks("operation"))?,
            stream: self.stream,
        })
    }
}

impl Columns {
    /// Read one line; `Ok(None)` for a blank or `#` line.
    ///
    /// A line with too few fields (or, for a fixed layout, too many) is refused naming the first
    /// missing (or the last) column before any field's value is looked at; otherwise the first
    /// malformed field, in column order, is named.
    pub fn parse(&self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return Ok(None);
        }
        let fields = match self.separator {
            Separator::Whitespace => Fields::Whitespace(line.split_ascii_whitespace()),
            Separator::Char(c) => Fields::Char(line.split(c)),
        };
        let mut request = Partial::default();
        let mut first_error = None;
        let mut count = 0usize;
        for text in fields {
            match self.columns.get(count) {
                Some(Some(column)) if first_error.is_none() => {
                    if let Err(e) = self.read(column, text, &mut request) {
                        first_error = Some(e);
                    }
                }
                Some(_) => {}
                None if self.extra_fields => break,
                None => return Err(self.extra_data()),
            }
            count += 1;
        }
        if let Some(missing) = self
            .columns
            .get(count..)
            .and_then(|rest| rest.iter().flatten().next())
        {
            let expected = self.columns.len();
            let at_least = if self.extra_fields { "at least " } else { "" };
            return Err(FieldError::new(
                missing.name,
                format!(
                    "missing: line has {count} {} fields, expected {at_least}{expected}",
                    self.separator.describe()
                ),
            ));
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        request.complete().map(Some)
    }

    /// Read one field into `request`.
    fn read(&self, column: &Column, text: &str, request: &mut Partial) -> Result<(), FieldError> {
        let name = column.name;
        match &column.role {
            Role::Time(Clock::IntegerNs) => request.ts_ns = Some(parse_u64(name, text)?),
            Role::Time(Clock::Decimal(unit_ns)) => {
                request.ts_ns = Some(parse_decimal_ns(name, text, *unit_ns)?)
            }
            Role::Offset { unit_bytes } => {
                let units = parse_u64_max(name, text, self.max_field)?;
                request.offset_bytes = Some(scale_u64(name, text, units, *unit_bytes)?);
            }
            Role::Size { unit_bytes } => {
                let units = parse_u64_max(name, text, self.max_field)?;
                if units == 0 {
                    return Err(zero_size(name, text));
                }
                request.size_bytes = Some(scale_u64(name, text, units, *unit_bytes)?);
            }
            Role::Op(coding) => request.op = Some(read_op(name, text, coding)?),
            Role::Stream => request.stream = parse_stream(name, text)?,
            Role::Number => {
                parse_u64_max(name, text, self.max_field)?;
            }
        }
        Ok(())
    }

    /// The error for a field past the last column of a fixed layout.
    fn extra_data(&self) -> FieldError {
        let n = self.columns.len();
        let last = self
            .columns
            .iter()
            .flatten()
            .last()
            .map_or("line", |c| c.name);
        FieldError::new(
            last,
            format!(
                "unexpected data after this field: line has more than {n} {} fields, \
                 expected {n}",
                self.separator.describe()
            ),
        )
    }

    /// The name of the column with `role`'s kind, for the loader's messages.
    fn name_of(&self, is_role: fn(&Role) -> bool, fallback: &'static str) -> &'static str {
        self.columns
            .iter()
            .flatten()
            .find(|c| is_role(&c.role))
            .map_or(fallback, |c| c.name)
    }

    /// Name of the address column.
    pub fn offset_field(&self) -> &'static str {
        self.name_of(|r| matches!(r, Role::Offset { .. }), "offset")
    }

    /// Name of the size column.
    pub fn size_field(&self) -> &'static str {
        self.name_of(|r| matches!(r, Role::Size { .. }), "size")
    }
}

/// Read an operation field by its coding.
fn read_op(name: &'static str, text: &str, coding: &OpCoding) -> Result<Op, FieldError> {
    match coding {
        OpCoding::Values(codes) => codes
            .iter()
            .find(|(code, _)| code.as_ref() == text)
            .map(|(_, op)| *op)
            .ok_or_else(|| {
                let listed: Vec<String> = codes
                    .iter()
                    .map(|(code, op)| format!("{code} ({})", op.name()))
                    .collect();
                let list = match listed.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    None => "a listed code".to_string(),
                };
                FieldError::new(name, format!("{} is not {list}", quote_field(text)))
            }),
        OpCoding::HexFlagsBit0Read => {
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
                        name,
                        format!(
                            "{} is not a 32-bit hexadecimal flags word",
                            quote_field(text)
                        ),
                    )
                })?;
            Ok(if flags & 1 == 1 { Op::Read } else { Op::Write })
        }
    }
}

/// The DiskSim family's type coding: `0` = write, `1` = read.
pub(crate) const ZERO_WRITE_ONE_READ: OpCoding = OpCoding::Values(Cow::Borrowed(&[
    (Cow::Borrowed("0"), Op::Write),
    (Cow::Borrowed("1"), Op::Read),
]));

/// A column of a fixed layout.
pub(crate) const fn column(name: &'static str, role: Role) -> Option<Column> {
    Some(Column { name, role })
}

/// Define the unit parser type of a fixed layout (the DiskSim family): lines are read by the
/// layout, whose address and size columns name the fields of capacity errors.
macro_rules! fixed_layout_parser {
    ($(#[$meta:meta])* $name:ident, $layout:path) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;

        impl $crate::trace::LineParser for $name {
            fn parse_line(
                &mut self,
                line: &str,
            ) -> Result<Option<$crate::trace::RawRequest>, $crate::trace::FieldError> {
                $layout.parse(line)
            }

            fn offset_field(&self) -> &'static str {
                $layout.offset_field()
            }

            fn size_field(&self) -> &'static str {
                $layout.size_field()
            }
        }
    };
}
pub(crate) use fixed_layout_parser;

/// Parser for [`super::TraceFormat::Columns`]: a described layout, after its header lines.
#[derive(Clone, Debug)]
pub struct ColumnsParser {
    layout: Columns,
    /// Lines at the top of the file that are skipped whatever they hold.
    header_lines: u64,
    /// Lines read so far.
    lines: u64,
}

impl ColumnsParser {
    /// A parser reading lines by `layout` once `header_lines` lines are skipped.
    pub fn new(layout: Columns, header_lines: u64) -> ColumnsParser {
        ColumnsParser {
            layout,
            header_lines,
            lines: 0,
        }
    }
}

impl LineParser for ColumnsParser {
    fn parse_line(&mut self, line: &str) -> Result<Option<RawRequest>, FieldError> {
        self.lines += 1;
        if self.lines <= self.header_lines {
            return Ok(None);
        }
        self.layout.parse(line)
    }

    fn offset_field(&self) -> &'static str {
        self.layout.offset_field()
    }

    fn size_field(&self) -> &'static str {
        self.layout.size_field()
    }
}

/// The parser [`super::TraceFormat::Columns`] gets without a description: it refuses every
/// line, since nothing says what the columns hold.
#[derive(Clone, Copy, Debug, Default)]
pub struct Undescribed;

impl LineParser for Undescribed {
    fn parse_line(&mut self, _line: &str) -> Result<Option<RawRequest>, FieldError> {
        Err(FieldError::new(
            "columns",
            "the `columns` format needs a description of the file's columns",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heimdall() -> Columns {
        let spec =
            ColumnsSpec::from_cli("time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0")
                .unwrap_or_else(|e| panic!("{e}"));
        spec.layout().unwrap_or_else(|e| panic!("{e}"))
    }

    fn read(layout: &Columns, line: &str) -> Result<Option<RawRequest>, FieldError> {
        layout.parse(line)
    }

    #[test]
    fn a_described_layout_reads_its_columns_in_their_units() {
        let l = heimdall();
        let r = read(&l, "12.5 0 11562803200 4096 1").unwrap().unwrap();
        assert_eq!(
            (r.ts_ns, r.offset_bytes, r.size_bytes, r.op),
            (12_500_000, 11_562_803_200, 4096, Op::Read)
        );
        // Extra fields past the last column read are ignored; so is the unread device column.
        let r = read(&l, "0.000 dev7 512 1024 0 trailing words")
            .unwrap()
            .unwrap();
        assert_eq!((r.offset_bytes, r.size_bytes, r.op), (512, 1024, Op::Write));
        assert_eq!(read(&l, "   ").unwrap(), None);
        assert_eq!(read(&l, "# comment").unwrap(), None);
    }

    #[test]
    fn errors_name_the_users_keys() {
        let l = heimdall();
        let e = read(&l, "0.5 0 100 4096 2").unwrap_err();
        assert_eq!(e.field, "op");
        assert!(
            e.reason.contains("\"2\" is not 1 (read) or 0 (write)"),
            "{e}"
        );
        let e = read(&l, "0.5 0 100 0 1").unwrap_err();
        assert_eq!(e.field, "size_bytes");
        let e = read(&l, "-1 0 100 8 1").unwrap_err();
        assert_eq!(e.field, "time_ms");
        // Too few fields: named before any value is looked at.
        let e = read(&l, "x 0 100").unwrap_err();
        assert_eq!(e.field, "size_bytes");
        assert!(e
            .reason
            .contains("line has 3 whitespace-separated fields, expected at least 5"));
    }

    #[test]
    fn a_stream_column_gives_each_request_its_id_up_to_16_bits() {
        let spec =
            ColumnsSpec::from_cli("time_ns=1 offset_bytes=2 size_bytes=3 op=4 write=W stream=6")
                .unwrap();
        let l = spec.layout().unwrap();
        let r = read(&l, "10 4096 8192 W dev 65535").unwrap().unwrap();
        assert_eq!((r.offset_bytes, r.stream), (4096, 65_535));
        let e = read(&l, "10 4096 8192 W dev 65536").unwrap_err();
        assert_eq!(e.field, "stream");
        assert!(
            e.reason.contains("\"65536\" is too large (maximum 65535)"),
            "{e}"
        );
        assert_eq!(read(&l, "10 4096 8192 W dev").unwrap_err().field, "stream");
        // Without the key, every request is stream 0 (none).
        assert_eq!(read(&heimdall(), "0 0 0 8 1").unwrap().unwrap().stream, 0);
        // A stream column is a column like the others: not one already taken.
        let e =
            ColumnsSpec::from_cli("time_ns=1 offset_bytes=2 size_bytes=3 op=4 write=W stream=3")
                .unwrap()
                .layout()
                .unwrap_err();
        assert_eq!(e.key, "stream");
    }

    #[test]
    fn a_character_separator_keeps_empty_fields_and_trims_spaces() {
        let spec = ColumnsSpec::from_cli(
            "separator=, time_us=1 op=2 size_bytes=4 offset_sectors=5 read=R write=W",
        )
        .unwrap();
        let l = spec.layout().unwrap();
        let r = read(&l, "5633898368802, W ,2a,512,42932745")
            .unwrap()
            .unwrap();
        assert_eq!(
            (r.ts_ns, r.offset_bytes, r.size_bytes, r.op),
            (5_633_898_368_802_000, 42_932_745 * 512, 512, Op::Write)
        );
        // `,,` is an empty size field, not a skipped one.
        let e = read(&l, "1,R,2a,,8").unwrap_err();
        assert_eq!(e.field, "size_bytes");
        let e = read(&l, "1,R,2a,8").unwrap_err();
        assert!(e.reason.contains("4 \",\"-separated fields"), "{e}");
    }

    #[test]
    fn header_lines_are_skipped_whatever_they_hold() {
        let spec = ColumnsSpec::from_cli(
            "header_lines=2 time_s=1 offset_bytes=2 size_bytes=3 op=4 trim=T",
        )
        .unwrap();
        let mut p = spec.parser().unwrap();
        assert_eq!(p.parse_line("time offset size op").unwrap(), None);
        assert_eq!(p.parse_line("").unwrap(), None);
        let r = p.parse_line("1.5 0 4096 T").unwrap().unwrap();
        assert_eq!((r.ts_ns, r.op), (1_500_000_000, Op::Trim));
        assert_eq!(
            p.parse_line("time offset size op").unwrap_err().field,
            "time_s"
        );
        assert_eq!(
            (p.offset_field(), p.size_field()),
            ("offset_bytes", "size_bytes")
        );
    }
}
