//! `ssdlab run --out DIR --log-requests[=FORMAT]`: the request log as `requests.csv` or
//! `requests.parquet` (columns and types in `docs/results.md`, "Request log").

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, Int32Type, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use crate::error::Error;
use crate::sim::{Column, RequestRecord};
use crate::trace::Op;

/// The file format of the request log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum LogFormat {
    /// `requests.csv`: a header line, then one line per request.
    Csv,
    /// `requests.parquet`: typed columns, zstd-compressed.
    Parquet,
}

/// Rows per Parquet row group: the writer holds a row group's pages in memory until it ends.
/// pyarrow's default size.
const ROW_GROUP_ROWS: usize = 1 << 20;

/// Write `rows` into `dir` as `requests.csv` or `requests.parquet`.
pub(super) fn write(dir: &Path, rows: &[RequestRecord], format: LogFormat) -> Result<(), Error> {
    let streams = RequestRecord::any_stream(rows);
    match format {
        LogFormat::Csv => write_csv(&dir.join("requests.csv"), rows, streams),
        LogFormat::Parquet => {
            let p = dir.join("requests.parquet");
            write_parquet(&p, rows, streams).map_err(|e| {
                let e = match e {
                    ParquetError::External(e) => match e.downcast::<std::io::Error>() {
                        Ok(e) => *e,
                        Err(e) => std::io::Error::other(e),
                    },
                    e => std::io::Error::other(e),
                };
                Error::io(&p, e)
            })
        }
    }
}

fn write_csv(p: &Path, rows: &[RequestRecord], streams: bool) -> Result<(), Error> {
    let mut w = csv::Writer::from_path(p).map_err(|e| Error::io(p, e.into()))?;
    w.write_record(RequestRecord::columns(streams))
        .map_err(|e| Error::io(p, e.into()))?;
    for row in rows {
        w.write_record(row.fields(streams))
            .map_err(|e| Error::io(p, e.into()))?;
    }
    w.flush().map_err(|e| Error::io(p, e))
}

/// How a log column is stored: the 64-bit ones as INT64 (signed, as pandas and most readers
/// prefer; no value of the log reaches 2^63), `flow` and `stream` as INT32 marked unsigned 32 and
/// 16 bits wide, `op` as a string (dictionary-encoded: three values).
fn parquet_type(c: Column) -> (PhysicalType, Option<LogicalType>) {
    match c.bits() {
        None => (PhysicalType::BYTE_ARRAY, Some(LogicalType::String)),
        Some(64) => (PhysicalType::INT64, None),
        Some(bits) => (
            PhysicalType::INT32,
            Some(LogicalType::integer(bits as i8, false)),
        ),
    }
}

fn write_parquet(p: &Path, rows: &[RequestRecord], streams: bool) -> Result<(), ParquetError> {
    let columns = RequestRecord::log_columns(streams);
    let fields = columns
        .iter()
        .map(|&c| {
            let (physical, logical) = parquet_type(c);
            Type::primitive_type_builder(c.name(), physical)
                .with_repetition(Repetition::REQUIRED)
                .with_logical_type(logical)
                .build()
                .map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Type::group_type_builder("requests")
        .with_fields(fields)
        .build()?;
    // ssdlab's name and version rather than the library's: the file's bytes depend only on the
    // run and the version of ssdlab (no timestamp is written).
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
        .set_created_by(format!("ssdlab {}", crate::VERSION))
        .build();
    let file = BufWriter::new(File::create(p)?);
    let mut w = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(properties))?;
    let names: Vec<ByteArray> = Op::ALL.iter().map(|op| op.name().into()).collect();
    for group in rows.chunks(ROW_GROUP_ROWS) {
        let mut g = w.next_row_group()?;
        for &c in columns {
            let mut column = g
                .next_column()?
                .ok_or_else(|| ParquetError::General(format!("no column `{}`", c.name())))?;
            let values = group.iter().map(|r| c.value(r));
            match parquet_type(c).0 {
                PhysicalType::INT64 => {
                    let v: Vec<i64> = values.map(|v| v as i64).collect();
                    column.typed::<Int64Type>().write_batch(&v, None, None)?;
                }
                // An unsigned integer as Parquet stores it: the same bits in an INT32.
                PhysicalType::INT32 => {
                    let v: Vec<i32> = values.map(|v| v as u32 as i32).collect();
                    column.typed::<Int32Type>().write_batch(&v, None, None)?;
                }
                _ => {
                    let v: Vec<ByteArray> = values.map(|v| names[v as usize].clone()).collect();
                    column
                        .typed::<ByteArrayType>()
                        .write_batch(&v, None, None)?;
                }
            }
            column.close()?;
        }
        g.close()?;
    }
    w.close()?;
    Ok(())
}
