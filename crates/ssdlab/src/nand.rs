//! What a NAND block is, in the words both the config (which names it) and the flash model
//! (which runs it) use: its cell mode and the order its wordlines' pages are programmed in. A
//! leaf below both, so that neither imports the other: `config/` holds plain values and imports
//! nothing of `flash/`, and `flash/` takes its own parameter types, built from the config by
//! `device/`. (What a region is made of, NAND in a cell mode or PCM, is the flash model's own:
//! `flash::Medium`.)

use serde::{Deserialize, Serialize};

/// Cell mode of a block. `Slc` on a TLC die is SLC mode: one page per wordline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellMode {
    Slc,
    Mlc,
    Tlc,
}

impl CellMode {
    pub fn bits_per_cell(self) -> u32 {
        match self {
            CellMode::Slc => 1,
            CellMode::Mlc => 2,
            CellMode::Tlc => 3,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            CellMode::Slc => "slc",
            CellMode::Mlc => "mlc",
            CellMode::Tlc => "tlc",
        }
    }
}

/// Order in which the pages of a multi-level block are programmed, which fixes each page's type.
/// See `docs/device-model.md` and techniques.md §0.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgramOrder {
    /// All pages of a wordline one after another (3D NAND one-shot programming):
    /// page p is wordline p / bits, type p % bits.
    OneShot,
    /// Shadow program with a one-wordline lag: L0 L1 C0 L2 C1 M0 L3 C2 M1 … (MLC: L0 L1 M0 L2 M1 …).
    Shadow,
    /// SimpleSSD/FEMU TLC page-type formula (pages 0–5 LSB, 6–7 CSB, then pairs by (p−8)/2 mod 3).
    Simplessd,
}
