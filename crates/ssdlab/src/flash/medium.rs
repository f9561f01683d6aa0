//! What a region's cells are made of, as a model the rest of the engine asks rather than names:
//! what a read, a program and an erase cost (time: [`Medium::timing`]; energy:
//! [`Medium::energy`]), whether the medium erases, whether it stores shaped units, and how its
//! slots are handed out ([`Slots`]). NAND flash in a cell mode and phase-change memory are the
//! two models; outside this file (and the FTL's in-place slots, `ftl/in_place.rs`) nothing asks
//! which a region is, only what it does.

use super::geometry::MAX_DIE_SETS;
use super::timing::{ModeTiming, Timing, TimingParams};
use crate::nand::CellMode;

/// What a region's blocks are made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Medium {
    /// NAND flash run in a cell mode: written a page at a time into erased pages, erased a block
    /// at a time.
    Flash(CellMode),
    /// Phase-change memory: written in place, a unit at a time, never erased (ROSA, Cho et al.,
    /// §2: "PCM supports in-place updates").
    Pcm,
}

/// How a medium hands out the places its data goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Slots {
    /// Pages are appended to erased blocks; a unit's update goes to a new page, and GC gathers a
    /// block's valid units before erasing it (NAND).
    AppendErase,
    /// A slot is rewritten where it is, a unit at a time, and a slot a unit has left takes the
    /// next unit going there: nothing to gather, nothing to erase (PCM).
    InPlace,
}

/// What an operation's array phase costs in energy (the bus's per byte is the device's, counted
/// apart by whoever moves the bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArrayEnergy {
    /// The array draws a power for the phase's time (NAND): mW × ns = pJ, a read's scaled by the
    /// read policy's sensing current.
    PowerTime {
        read_mw: f64,
        program_mw: f64,
        erase_mw: f64,
    },
    /// Each bit read or written costs its energy (PCM): a page's, in pJ; a read of part of a
    /// page its share.
    PerPage { read_pj: f64, write_pj: f64 },
}

/// What a device's operations cost in energy: each die set's array phases (its medium's
/// [`ArrayEnergy`], indexed as `Geometry::die_sets`; a set the device lacks repeats the
/// first), and the bus's per byte moved either way.
#[derive(Clone, Debug)]
pub struct DeviceEnergy {
    pub by_die_set: [ArrayEnergy; MAX_DIE_SETS],
    pub transfer_pj_per_byte: f64,
}

/// What [`Medium::energy`] is built from, in the flash model's own terms (`device/` reads them
/// from `[energy]`).
#[derive(Clone, Copy, Debug, Default)]
pub struct EnergyParams {
    pub read_power_mw: f64,
    pub program_power_mw: f64,
    pub erase_power_mw: f64,
    /// PCM's energy of reading and of writing a whole page, pJ.
    pub pcm_page_pj: (f64, f64),
}

impl Medium {
    /// The medium's name (the summary's section of a medium beside the flash's: `pcm`).
    pub fn name(self) -> &'static str {
        match self {
            Medium::Flash(mode) => mode.name(),
            Medium::Pcm => "pcm",
        }
    }

    /// The NAND cell mode, where the medium is NAND: what the error model, page types and
    /// wordlines are defined by.
    pub fn cell_mode(self) -> Option<CellMode> {
        match self {
            Medium::Flash(mode) => Some(mode),
            Medium::Pcm => None,
        }
    }

    /// How its slots are handed out.
    #[inline]
    pub fn slots(self) -> Slots {
        match self {
            Medium::Flash(_) => Slots::AppendErase,
            Medium::Pcm => Slots::InPlace,
        }
    }

    /// Whether a slot is rewritten where it is ([`Slots::InPlace`]).
    #[inline]
    pub fn rewrites_in_place(self) -> bool {
        self.slots() == Slots::InPlace
    }

    /// Whether its blocks are erased (and so cleaned by GC, which keeps blocks free for it).
    #[inline]
    pub fn erases(self) -> bool {
        self.slots() == Slots::AppendErase
    }

    /// Whether it stores units shaped by data reduction (compressed, packed, split): a slot
    /// rewritten in place holds one unit as written, at its place in the page, since
    /// compressing it would not let the slot hold two and a rewrite of any size keeps its place.
    #[inline]
    pub fn stores_shaped_units(self) -> bool {
        self.slots() == Slots::AppendErase
    }

    /// Its operations' times: a cell mode's (the device's `timing.<mode>`), or PCM's one page
    /// time each way, whatever the page type, and nothing to erase.
    pub fn timing(self, timing: &Timing, t: &TimingParams) -> ModeTiming {
        match self {
            Medium::Flash(mode) => timing.mode(mode),
            Medium::Pcm => {
                let (read_ns, write_ns) = t.pcm_read_write_ns.unwrap_or((0, 0));
                ModeTiming {
                    tr_ns: [read_ns; 3],
                    tprog_ns: [write_ns; 3],
                    tbers_ns: 0,
                    tr_melded_ns: 0,
                }
            }
        }
    }

    /// Its operations' energy.
    pub fn energy(self, e: &EnergyParams) -> ArrayEnergy {
        match self {
            Medium::Flash(_) => ArrayEnergy::PowerTime {
                read_mw: e.read_power_mw,
                program_mw: e.program_power_mw,
                erase_mw: e.erase_power_mw,
            },
            Medium::Pcm => ArrayEnergy::PerPage {
                read_pj: e.pcm_page_pj.0,
                write_pj: e.pcm_page_pj.1,
            },
        }
    }
}

impl ArrayEnergy {
    /// A read's sensing: `sense_ns` at `sense_current` times the normal current, `sensed_bytes`
    /// of a page of `page_bytes`.
    #[inline]
    pub fn read_pj(
        &self,
        sense_ns: u64,
        sense_current: f64,
        sensed_bytes: u32,
        page_bytes: u32,
    ) -> f64 {
        match *self {
            ArrayEnergy::PowerTime { read_mw, .. } => read_mw * sense_ns as f64 * sense_current,
            ArrayEnergy::PerPage { read_pj, .. } => {
                read_pj * sensed_bytes as f64 / page_bytes as f64
            }
        }
    }

    /// A page's program of `array_ns` (a page written in place is written whole: its lines).
    #[inline]
    pub fn program_pj(&self, array_ns: u64) -> f64 {
        match *self {
            ArrayEnergy::PowerTime { program_mw, .. } => program_mw * array_ns as f64,
            ArrayEnergy::PerPage { write_pj, .. } => write_pj,
        }
    }

    /// A block's erase of `array_ns` (a medium that does not erase is never asked).
    pub fn erase_pj(&self, array_ns: u64) -> f64 {
        match *self {
            ArrayEnergy::PowerTime { erase_mw, .. } => erase_mw * array_ns as f64,
            ArrayEnergy::PerPage { .. } => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcm_rewrites_in_place_and_never_erases_nand_appends() {
        let nand = Medium::Flash(CellMode::Tlc);
        assert!(nand.erases() && nand.stores_shaped_units() && !nand.rewrites_in_place());
        assert!(!Medium::Pcm.erases() && !Medium::Pcm.stores_shaped_units());
        assert!(Medium::Pcm.rewrites_in_place() && Medium::Pcm.cell_mode().is_none());
    }

    #[test]
    fn energy_by_time_or_by_bit() {
        let e = EnergyParams {
            read_power_mw: 2.0,
            program_power_mw: 3.0,
            erase_power_mw: 4.0,
            pcm_page_pj: (100.0, 1000.0),
        };
        let nand = Medium::Flash(CellMode::Slc).energy(&e);
        assert_eq!(nand.read_pj(10, 0.5, 4096, 16384), 10.0);
        assert_eq!(nand.program_pj(10), 30.0);
        assert_eq!(nand.erase_pj(10), 40.0);
        let pcm = Medium::Pcm.energy(&e);
        assert_eq!(
            pcm.read_pj(10, 1.0, 4096, 16384),
            25.0,
            "a quarter page's bits"
        );
        assert_eq!(
            pcm.program_pj(10),
            1000.0,
            "a page's bits, whatever the time"
        );
    }
}
