//! What data reduction did to the host's writes and reads (`compression` in the summary; present
//! when `ftl.reduction` is not `identity`).

use serde_json::{json, Value};

use crate::ftl::shape::{UnitKind, UnitShape};

#[derive(Clone, Default)]
pub struct ReductionStats {
    /// Host-written units by how they were stored.
    pub raw_units: u64,
    pub compressed_units: u64,
    pub zero_units: u64,
    pub split_units: u64,
    /// Logical bytes of those units, and the bytes stored for them.
    pub original_bytes: u64,
    pub stored_bytes: u64,
    /// Units a host read found in zero partial units only: answered from the mapping, no flash.
    pub zero_read_units: u64,
    /// Units a host read decompressed after their flash read.
    pub decompressed_units: u64,
}

impl ReductionStats {
    /// A host-written unit of `unit_bytes` is stored as `shape` (`None`: all zero).
    pub fn count(&mut self, unit_bytes: u32, shape: Option<UnitShape>) {
        self.original_bytes += unit_bytes as u64;
        let Some(s) = shape else {
            self.zero_units += 1;
            return;
        };
        self.stored_bytes += s.len as u64;
        match s.kind {
            UnitKind::Raw => self.raw_units += 1,
            UnitKind::Compressed => self.compressed_units += 1,
            UnitKind::Split => self.split_units += 1,
        }
    }

    pub fn to_json(&self) -> Value {
        let saving = (self.original_bytes > 0).then(|| {
            let s = 1.0 - self.stored_bytes as f64 / self.original_bytes as f64;
            (s * 1e4).round() / 1e4
        });
        json!({
            "saving": saving,
            "original_bytes": self.original_bytes,
            "stored_bytes": self.stored_bytes,
            "units": {
                "compressed": self.compressed_units,
                "raw": self.raw_units,
                "zero": self.zero_units,
                "split": self.split_units,
            },
            "zero_read_units": self.zero_read_units,
            "decompressed_units": self.decompressed_units,
        })
    }
}
