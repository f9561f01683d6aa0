//! `[data_cache]`: the controller's DRAM in front of the FTL (`crate::data_cache`), its
//! `policy` one of MQSim's caching modes (`Caching_Mode` in `src/ssd/Data_Cache_Manager_Base.h`).

use serde::{Deserialize, Serialize};

use super::checks::positive;
use super::tagged::tagged_table;
use crate::error::Error;

/// Which host data the DRAM holds. Left out: the write buffer is ideal (writes are acknowledged
/// and buffered units read back in no time) and no read is served from DRAM.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum DataCacheConfig {
    #[default]
    Off,
    /// Units read from flash stay in DRAM (least recently used out) and later reads of them are
    /// served from it; writes go past it (MQSim's `READ_CACHE`).
    Read {
        capacity_kib: u64,
        #[serde(default)]
        dram: DramConfig,
    },
    /// Written data lands in DRAM and is acknowledged once there; it stays until its program
    /// completes, and reads of it are served from DRAM (MQSim's `WRITE_CACHE`). Its room is the
    /// write buffer's (`ftl.write_buffer_units`).
    Write {
        #[serde(default)]
        dram: DramConfig,
    },
    /// Both (MQSim's `WRITE_READ_CACHE`).
    ReadWrite {
        capacity_kib: u64,
        #[serde(default)]
        dram: DramConfig,
    },
}

tagged_table!("policy": DataCacheConfig);

/// The DRAM's timing: one channel, serving one access at a time in arrival order. The defaults
/// are MQSim's `ssdconfig.xml` (lines 20-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramConfig {
    /// Bytes of one row: an access longer than a row opens each row it touches.
    #[serde(default = "default_row_bytes")]
    pub row_bytes: u32,
    /// Bus clock; the bus moves `bus_bytes` on both edges of it (DDR). MQSim names this its
    /// `Data_Cache_DRAM_Data_Rate` but times a transfer as two per period of it
    /// (`Data_Cache_Manager_Base.h`, `estimate_dram_access_time`): the same figures.
    #[serde(default = "default_clock_mhz")]
    pub clock_mhz: u32,
    /// Bus width (MQSim's `Data_Cache_DRAM_Data_Busrt_Size`).
    #[serde(default = "default_bus_bytes")]
    pub bus_bytes: u32,
    /// Row activation to column command.
    #[serde(default = "default_t13")]
    pub trcd_ns: u64,
    /// Column command to data.
    #[serde(default = "default_t13")]
    pub tcl_ns: u64,
    /// Closing one row before opening the next.
    #[serde(default = "default_t13")]
    pub trp_ns: u64,
}

fn default_row_bytes() -> u32 {
    8192
}
fn default_clock_mhz() -> u32 {
    100
}
fn default_bus_bytes() -> u32 {
    1
}
fn default_t13() -> u64 {
    13
}

impl Default for DramConfig {
    fn default() -> Self {
        DramConfig {
            row_bytes: default_row_bytes(),
            clock_mhz: default_clock_mhz(),
            bus_bytes: default_bus_bytes(),
            trcd_ns: default_t13(),
            tcl_ns: default_t13(),
            trp_ns: default_t13(),
        }
    }
}

impl DataCacheConfig {
    pub fn is_off(&self) -> bool {
        *self == DataCacheConfig::Off
    }

    pub fn dram(&self) -> Option<&DramConfig> {
        match self {
            DataCacheConfig::Off => None,
            DataCacheConfig::Read { dram, .. }
            | DataCacheConfig::Write { dram }
            | DataCacheConfig::ReadWrite { dram, .. } => Some(dram),
        }
    }

    /// Room for the data reads bring in, if reads are cached.
    pub fn read_capacity_kib(&self) -> Option<u64> {
        match self {
            DataCacheConfig::Read { capacity_kib, .. }
            | DataCacheConfig::ReadWrite { capacity_kib, .. } => Some(*capacity_kib),
            _ => None,
        }
    }

    pub fn caches_writes(&self) -> bool {
        matches!(
            self,
            DataCacheConfig::Write { .. } | DataCacheConfig::ReadWrite { .. }
        )
    }

    pub fn validate(&self) -> Result<(), Error> {
        let Some(d) = self.dram() else {
            return Ok(());
        };
        positive("data_cache.dram.row_bytes", d.row_bytes as u64)?;
        positive("data_cache.dram.clock_mhz", d.clock_mhz as u64)?;
        positive("data_cache.dram.bus_bytes", d.bus_bytes as u64)?;
        Ok(())
    }
}
