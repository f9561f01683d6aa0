//! The `columns` format's description: which column holds the time, the address, the size, the
//! operation and optionally the stream id, in which units, how the operation is coded, the separator and the header lines.
//! One typed [`ColumnsSpec`] is read from a TOML table (a flow's `columns`), from the command
//! line's `key=value` list ([`ColumnsSpec::from_cli`]) or from a Python dict, and compiled into a
//! [`Columns`] layout by [`ColumnsSpec::layout`]. Keys carry the column's unit in their name
//! (`time_ms`, `offset_sectors`, `size_bytes`); columns are numbered from 1. Reference:
//! `docs/traces.md`, "Described columns".

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::{Clock, Column, Columns, ColumnsParser, OpCoding, Role, Separator};
use crate::trace::Op;

/// A user's description of a trace's columns (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ColumnsSpec {
    /// `"whitespace"` (the default: any run of spaces or tabs) or one character, e.g. `","`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
    /// Lines at the top of the file skipped whatever they hold (headers).
    #[serde(skip_serializing_if = "is_zero")]
    pub header_lines: u64,
    /// The arrival time's column, by unit: exactly one of these four.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ns: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_us: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_s: Option<u32>,
    /// The start address's column, by unit (sectors are 512 bytes, blocks `block_bytes`):
    /// exactly one of these three. An LBA is `offset_sectors` or `offset_blocks`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset_bytes: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset_sectors: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset_blocks: Option<u32>,
    /// The length's column, by unit: exactly one of these three.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_sectors: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_blocks: Option<u32>,
    /// Bytes per block, for `offset_blocks` and `size_blocks` (and only with them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_bytes: Option<u64>,
    /// The operation's column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<u32>,
    /// The texts of the operation column that mean a read, a write, a trim (matched exactly);
    /// any other text is refused. At least one code in all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trim: Vec<String>,
    /// The stream id's column, if the file has one (0 to 65,535; 0 is no stream).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<u32>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A mistake in a description: the key (or `key=value` part) at fault and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{key}`: {reason}")]
pub struct SpecError {
    pub key: String,
    pub reason: String,
}

impl SpecError {
    fn new(key: impl Into<String>, reason: impl Into<String>) -> SpecError {
        SpecError {
            key: key.into(),
            reason: reason.into(),
        }
    }
}

/// Bytes per sector (`offset_sectors`, `size_sectors`).
pub const SECTOR_BYTES: u64 = 512;

/// Highest column number a description may name.
pub const MAX_COLUMN: u32 = 1024;

/// Keys whose command-line value is a comma-separated list of codes.
const CODE_KEYS: [&str; 3] = ["read", "write", "trim"];

impl ColumnsSpec {
    /// Read the command line's form: `key=value` parts separated by spaces, with the TOML
    /// table's keys; `read`, `write` and `trim` take comma-separated codes (`read=R,r`), and
    /// `separator` one character or `whitespace`. Example (the Heimdall MSR cuts):
    /// `time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0`.
    pub fn from_cli(text: &str) -> Result<ColumnsSpec, SpecError> {
        let mut table = toml::Table::new();
        for part in text.split_ascii_whitespace() {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| SpecError::new(part, "expected key=value"))?;
            let typed = if CODE_KEYS.contains(&key) {
                toml::Value::Array(value.split(',').map(|c| c.into()).collect())
            } else if key == "separator" {
                value.into()
            } else {
                let n: i64 = value
                    .parse()
                    .map_err(|_| SpecError::new(part, "the value is not a whole number"))?;
                n.into()
            };
            if table.insert(key.to_string(), typed).is_some() {
                return Err(SpecError::new(part, format!("`{key}` is given twice")));
            }
        }
        if table.is_empty() {
            return Err(SpecError::new(
                "columns",
                "the description is empty; give `key=value` parts such as `time_ms=1`",
            ));
        }
        ColumnsSpec::from_table(table)
    }

    /// Read the form Python gives: a JSON object with the TOML table's keys.
    pub fn from_json(text: &str) -> Result<ColumnsSpec, SpecError> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| SpecError::new("columns", format!("not a JSON object: {e}")))?;
        let serde_json::Value::Object(map) = value else {
            return Err(SpecError::new("columns", "the description is not a dict"));
        };
        let mut table = toml::Table::new();
        for (key, v) in map {
            let v = toml::Value::try_from(&v).map_err(|e| SpecError::new(&key, e.to_string()))?;
            table.insert(key, v);
        }
        ColumnsSpec::from_table(table)
    }

    /// Deserialize a table, naming the key at fault: each key is first read alone (every key
    /// has a default), so an unknown key or a value of the wrong type is told by its name.
    fn from_table(table: toml::Table) -> Result<ColumnsSpec, SpecError> {
        // The first line of toml's message; the next ones repeat the key (`in `read``).
        let reason = |e: toml::de::Error| e.to_string().lines().next().unwrap_or("").to_string();
        for (key, value) in &table {
            let alone = toml::Table::from_iter([(key.clone(), value.clone())]);
            ColumnsSpec::deserialize(toml::Value::Table(alone))
                .map_err(|e| SpecError::new(key, reason(e)))?;
        }
        ColumnsSpec::deserialize(toml::Value::Table(table))
            .map_err(|e| SpecError::new("columns", reason(e)))
    }

    /// The layout this description states, after checking it: one column each for the time,
    /// address, size and operation (in one unit each), and at most one for the stream id, distinct column numbers from 1 to
    /// [`MAX_COLUMN`], `block_bytes` exactly when blocks are used, at least one operation code,
    /// no code twice. The error names the key at fault.
    pub fn layout(&self) -> Result<Columns, SpecError> {
        let separator = match self.separator.as_deref() {
            None | Some("whitespace") => Separator::Whitespace,
            Some(text) => {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if !(c.is_ascii_alphanumeric() || "._\r\n".contains(c)) => {
                        Separator::Char(c)
                    }
                    _ => {
                        return Err(SpecError::new(
                            "separator",
                            format!(
                                "{text:?} is not `whitespace` or one character other than a \
                                 letter, a digit, `.` or `_`"
                            ),
                        ))
                    }
                }
            }
        };
        let block = |key: &'static str| -> Result<u64, SpecError> {
            match self.block_bytes {
                Some(0) => Err(SpecError::new("block_bytes", "must be positive")),
                Some(b) => Ok(b),
                None => Err(SpecError::new(
                    "block_bytes",
                    format!("`{key}` counts blocks: give their size as `block_bytes`"),
                )),
            }
        };
        let time = exactly_one(
            "time",
            [
                ("time_ns", self.time_ns, Clock::Decimal(1)),
                ("time_us", self.time_us, Clock::Decimal(1_000)),
                ("time_ms", self.time_ms, Clock::Decimal(1_000_000)),
                ("time_s", self.time_s, Clock::Decimal(1_000_000_000)),
            ],
        )?;
        let offset = exactly_one(
            "offset",
            [
                ("offset_bytes", self.offset_bytes, 1),
                ("offset_sectors", self.offset_sectors, SECTOR_BYTES),
                ("offset_blocks", self.offset_blocks, 0),
            ],
        )?;
        let size = exactly_one(
            "size",
            [
                ("size_bytes", self.size_bytes, 1),
                ("size_sectors", self.size_sectors, SECTOR_BYTES),
                ("size_blocks", self.size_blocks, 0),
            ],
        )?;
        let uses_blocks = self.offset_blocks.is_some() || self.size_blocks.is_some();
        if self.block_bytes.is_some() && !uses_blocks {
            return Err(SpecError::new(
                "block_bytes",
                "applies only with `offset_blocks` or `size_blocks`",
            ));
        }
        let unit = |(key, column, unit): (&'static str, u32, u64)| -> Result<_, SpecError> {
            let unit_bytes = if unit == 0 { block(key)? } else { unit };
            Ok((key, column, unit_bytes))
        };
        let (offset, size) = (unit(offset)?, unit(size)?);
        let op = self
            .op
            .ok_or_else(|| SpecError::new("op", "give the operation's column as `op`"))?;
        let codes = self.codes()?;
        let placed = [
            (time.0, time.1, Role::Time(time.2)),
            (
                offset.0,
                offset.1,
                Role::Offset {
                    unit_bytes: offset.2,
                },
            ),
            (size.0, size.1, Role::Size { unit_bytes: size.2 }),
            ("op", op, Role::Op(OpCoding::Values(Cow::Owned(codes)))),
        ]
        .into_iter()
        .chain(self.stream.map(|column| ("stream", column, Role::Stream)))
        .collect::<Vec<_>>();
        let width = placed.iter().map(|p| p.1).max().unwrap_or(0);
        let mut columns: Vec<Option<Column>> = vec![None; to_index(width)];
        for (key, number, role) in placed {
            if !(1..=MAX_COLUMN).contains(&number) {
                return Err(SpecError::new(
                    key,
                    format!("column {number} is not a column number from 1 to {MAX_COLUMN}"),
                ));
            }
            let slot = columns
                .get_mut(to_index(number - 1))
                .ok_or_else(|| SpecError::new(key, "column number out of range"))?;
            if let Some(taken) = slot {
                return Err(SpecError::new(
                    key,
                    format!("column {number} is already `{}`", taken.name),
                ));
            }
            *slot = Some(Column { name: key, role });
        }
        Ok(Columns {
            columns: Cow::Owned(columns),
            separator,
            extra_fields: true,
            max_field: u64::MAX,
        })
    }

    /// A parser for files this description describes (its layout, after its header lines).
    pub fn parser(&self) -> Result<ColumnsParser, SpecError> {
        Ok(ColumnsParser::new(self.layout()?, self.header_lines))
    }

    /// The operation codes, checked: non-empty, none twice, at least one.
    fn codes(&self) -> Result<Vec<(Cow<'static, str>, Op)>, SpecError> {
        let mut codes: Vec<(Cow<'static, str>, Op)> = Vec::new();
        for (key, list, op) in [
            ("read", &self.read, Op::Read),
            ("write", &self.write, Op::Write),
            ("trim", &self.trim, Op::Trim),
        ] {
            for code in list {
                if code.is_empty() {
                    return Err(SpecError::new(key, "an operation code is empty"));
                }
                if let Some((_, other)) = codes.iter().find(|(c, _)| c == code) {
                    return Err(SpecError::new(
                        key,
                        format!("{code:?} is already a {} code", other.name()),
                    ));
                }
                codes.push((Cow::Owned(code.clone()), op));
            }
        }
        if codes.is_empty() {
            return Err(SpecError::new(
                "read",
                "give the operation codes: which texts of the `op` column mean a read, a \
                 write, a trim (`read`, `write`, `trim`)",
            ));
        }
        Ok(codes)
    }
}

/// The one key of a group (`time_ns`, `time_us`, ...) that is given, with its column and unit.
fn exactly_one<U: Copy, const N: usize>(
    group: &str,
    keys: [(&'static str, Option<u32>, U); N],
) -> Result<(&'static str, u32, U), SpecError> {
    let given: Vec<(&'static str, u32, U)> = keys
        .iter()
        .filter_map(|&(k, c, u)| c.map(|c| (k, c, u)))
        .collect();
    let names = || keys.iter().map(|k| k.0).collect::<Vec<_>>().join(", ");
    match given.as_slice() {
        [one] => Ok(*one),
        [] => Err(SpecError::new(
            group,
            format!("give the {group} column as one of {}", names()),
        )),
        [first, second, ..] => Err(SpecError::new(
            second.0,
            format!("give only one of {}: `{}` is given too", names(), first.0),
        )),
    }
}

/// A column number (at most [`MAX_COLUMN`]) as an index width.
fn to_index(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(cli: &str) -> SpecError {
        match ColumnsSpec::from_cli(cli) {
            Ok(spec) => spec.layout().expect_err(cli),
            Err(e) => e,
        }
    }

    #[test]
    fn the_command_line_and_toml_forms_give_the_same_spec() {
        let cli = ColumnsSpec::from_cli(
            "separator=, header_lines=1 time_us=1 op=2 size_bytes=4 offset_sectors=5 read=R,r write=W",
        )
        .unwrap();
        let toml: ColumnsSpec = toml::from_str(
            "separator = \",\"\nheader_lines = 1\ntime_us = 1\nop = 2\nsize_bytes = 4\n\
             offset_sectors = 5\nread = [\"R\", \"r\"]\nwrite = [\"W\"]\n",
        )
        .unwrap();
        assert_eq!(cli, toml);
        assert_eq!(cli.read, ["R", "r"]);
        // And back: the resolved config writes the same table.
        let again: ColumnsSpec = toml::from_str(&toml::to_string(&cli).unwrap()).unwrap();
        assert_eq!(again, cli);
    }

    #[test]
    fn command_line_mistakes_name_the_part() {
        assert_eq!(err("time_ms").key, "time_ms");
        let e = err("time_ms=one");
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("time_ms=one", "the value is not a whole number")
        );
        assert_eq!(err("time_ms=1 time_ms=2").key, "time_ms=2");
        let e = err("time_ms=1 colour=3");
        assert_eq!(e.key, "colour");
        assert!(e.reason.contains("unknown field `colour`"), "{e}");
        assert_eq!(err("   ").key, "columns");
        assert_eq!(err("time_ms=-1").key, "time_ms");
    }

    #[test]
    fn the_python_form_names_the_key_at_fault() {
        let spec = ColumnsSpec::from_json(
            r#"{"time_ms": 1, "offset_bytes": 3, "size_bytes": 4, "op": 5, "read": ["1"]}"#,
        )
        .unwrap();
        assert_eq!(
            spec,
            ColumnsSpec::from_cli("time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1").unwrap()
        );
        let e = ColumnsSpec::from_json(r#"{"time_ms": "1", "op": 5}"#).unwrap_err();
        assert_eq!(e.key, "time_ms");
        let e = ColumnsSpec::from_json(r#"{"read": "1"}"#).unwrap_err();
        assert_eq!(e.key, "read");
        assert_eq!(e.reason, "invalid type: string \"1\", expected a sequence");
        assert_eq!(
            ColumnsSpec::from_json(r#"{"tme_ms": 1}"#).unwrap_err().key,
            "tme_ms"
        );
        assert_eq!(ColumnsSpec::from_json("[1]").unwrap_err().key, "columns");
    }

    #[test]
    fn layout_mistakes_name_the_key() {
        let base = "offset_bytes=3 size_bytes=4 op=5 read=1 write=0";
        let e = err(base);
        assert_eq!(e.key, "time");
        assert!(
            e.reason.contains("time_ns, time_us, time_ms, time_s"),
            "{e}"
        );
        assert_eq!(err(&format!("time_ms=1 time_s=2 {base}")).key, "time_s");
        let e = err("time_ms=1 offset_bytes=3 size_bytes=3 op=5 read=1");
        assert_eq!(e.key, "size_bytes");
        assert!(
            e.reason.contains("column 3 is already `offset_bytes`"),
            "{e}"
        );
        assert_eq!(
            err("time_ms=0 offset_bytes=3 size_bytes=4 op=5 read=1").key,
            "time_ms"
        );
        assert_eq!(
            err("time_ms=1 offset_bytes=3 size_bytes=4 op=5000 read=1").key,
            "op"
        );
        assert_eq!(
            err("time_ms=1 offset_bytes=3 size_bytes=4 read=1").key,
            "op"
        );
        assert_eq!(
            err("time_ms=1 offset_bytes=3 size_bytes=4 op=5").key,
            "read"
        );
        let e = err("time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0,1");
        assert_eq!(e.key, "write");
        assert!(e.reason.contains("\"1\" is already a read code"), "{e}");
        assert_eq!(
            err("time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1,").key,
            "read"
        );
        assert_eq!(
            err(&format!("separator=ab time_ms=1 {base}")).key,
            "separator"
        );
        assert_eq!(
            err(&format!("separator=x time_ms=1 {base}")).key,
            "separator"
        );
        let e = err("time_ms=1 offset_blocks=3 size_bytes=4 op=5 read=1");
        assert_eq!(e.key, "block_bytes");
        assert!(e.reason.contains("`offset_blocks` counts blocks"), "{e}");
        assert_eq!(
            err(&format!("block_bytes=4096 time_ms=1 {base}")).key,
            "block_bytes"
        );
        assert_eq!(
            err("time_ms=1 offset_blocks=3 block_bytes=0 size_bytes=4 op=5 read=1").key,
            "block_bytes"
        );
    }

    #[test]
    fn units_come_from_the_key_names() {
        let spec = ColumnsSpec::from_cli(
            "time_s=1 offset_blocks=2 block_bytes=4096 size_sectors=3 op=4 read=r",
        )
        .unwrap();
        let l = spec.layout().unwrap();
        let r = l.parse("2.5 10 3 r").unwrap().unwrap();
        assert_eq!(
            (r.ts_ns, r.offset_bytes, r.size_bytes),
            (2_500_000_000, 40_960, 1_536)
        );
    }
}
