//! The device a config describes, built: the flash model's parameters read from the config's
//! sections (`flash/` takes its own types and imports nothing of `config/`, and `config/`
//! nothing of `flash/`), and the checks of a config that need the device's geometry, which run
//! where it is built (`validate.rs`: the whole validation, `Config::resolve` and
//! `Config::validate`). Below the FTL and the engine, which build their device here.

mod capacity;
mod needs;
mod settles;
mod validate;

pub(crate) use capacity::plane_data_room;
pub(crate) use needs::kept_free_blocks;

use crate::config::{
    Config, EnergyConfig, PcmTiming, PowerLawConfig, RberConfig, SchedulerConfig, SuspensionConfig,
    TimingConfig, MAIN_REGION, PCM_REGION,
};
use crate::flash::reliability::{ErrorModel, PowerLawParams, RberParams};
use crate::flash::scheduling::SuspendRule;
use crate::flash::{
    DeviceEnergy, EnergyParams, Geometry, GeometryParams, KindRules, ModeTiming, PcmParams,
    RegionParams, Scheduler, Suspension, Timing, TimingParams,
};

/// The geometry of a validated config's device.
pub fn geometry(config: &Config) -> Geometry {
    let g = &config.geometry;
    let regions = match g.regions.is_empty() {
        true => vec![RegionParams {
            name: MAIN_REGION.to_string(),
            cell_mode: g.cell_mode,
            blocks_per_plane: g.blocks_per_plane,
            nop: 1,
        }],
        false => {
            let mut first = 0;
            (g.regions.iter())
                .map(|r| {
                    // (The last region may take the blocks the others leave: 0.)
                    let blocks_per_plane = match r.blocks_per_plane {
                        0 => g.blocks_per_plane.saturating_sub(first),
                        n => n,
                    };
                    first += blocks_per_plane;
                    RegionParams {
                        name: r.name.clone(),
                        cell_mode: r.cell_mode,
                        blocks_per_plane,
                        nop: r.nop as u8,
                    }
                })
                .collect()
        }
    };
    let max_units = config.ftl.max_units_per_page;
    Geometry::new(&GeometryParams {
        channels: g.channels,
        ways_per_channel: g.ways_per_channel,
        dies_per_way: g.dies_per_way,
        planes_per_die: g.planes_per_die,
        blocks_per_plane: g.blocks_per_plane,
        pages_per_block: g.pages_per_block,
        page_bytes: g.page_size_kib * 1024,
        codeword_bytes: g.codeword_size_bytes,
        unit_bytes: config.ftl.mapping_unit_kib * 1024,
        // (0: automatic.)
        slots_per_page: (max_units != 0).then_some(max_units),
        cell_mode: g.cell_mode,
        program_order: g.program_order,
        regions,
        pcm: g.pcm.as_ref().map(|p| PcmParams {
            region: PCM_REGION.to_string(),
            dies_per_channel: p.dies_per_channel,
            blocks_per_plane: g.pcm_blocks_per_plane() as u32,
        }),
    })
}

/// The timing of `[timing]` on the device of `geometry`.
pub fn timing(t: &TimingConfig, geometry: &Geometry) -> Timing {
    let slc = t.slc.as_ref().map(|s| ModeTiming {
        tr_ns: [s.tr_ns; 3],
        tprog_ns: [s.tprog_ns; 3],
        tbers_ns: s.tbers_ns,
        tr_melded_ns: 0,
    });
    let mlc = t.mlc.as_ref().map(|m| ModeTiming {
        tr_ns: [m.tr_lsb_ns, m.tr_msb_ns, m.tr_msb_ns],
        tprog_ns: [m.tprog_lsb_ns, m.tprog_msb_ns, m.tprog_msb_ns],
        tbers_ns: m.tbers_ns,
        tr_melded_ns: m.tr_melded_ns.unwrap_or(0),
    });
    let tlc = t.tlc.as_ref().map(|m| ModeTiming {
        tr_ns: [m.tr_lsb_ns, m.tr_csb_ns, m.tr_msb_ns],
        tprog_ns: [m.tprog_lsb_ns, m.tprog_csb_ns, m.tprog_msb_ns],
        tbers_ns: m.tbers_ns,
        tr_melded_ns: m.tr_melded_ns.unwrap_or(0),
    });
    let params = TimingParams {
        channel_rate_mts: t.channel_rate_mts,
        channel_width_bytes: t.channel_width_bytes,
        ecc_decode_ns: t.ecc_decode_ns,
        slc,
        mlc,
        tlc,
        pcm_read_write_ns: t.pcm.as_ref().map(PcmTiming::read_write_ns),
    };
    Timing::for_device(&params, geometry)
}

/// What the device's operations cost in energy, each die set's by its medium.
pub fn energy(e: &EnergyConfig, geometry: &Geometry) -> DeviceEnergy {
    let params = EnergyParams {
        read_power_mw: e.read_power_mw,
        program_power_mw: e.program_power_mw,
        erase_power_mw: e.erase_power_mw,
        pcm_page_pj: e.pcm_page_pj(geometry.page_bytes),
    };
    DeviceEnergy {
        by_die_set: std::array::from_fn(|i| {
            let set = geometry.die_sets.get(i).unwrap_or(&geometry.die_sets[0]);
            set.medium.energy(&params)
        }),
        transfer_pj_per_byte: e.transfer_pj_per_byte,
    }
}

/// The error model of `reliability.model = "power_law"` on the device of `geometry`.
pub fn error_model(c: &PowerLawConfig, geometry: &Geometry) -> ErrorModel {
    let terms = |r: &Option<RberConfig>| {
        r.as_ref().map(|r| RberParams {
            epsilon: r.epsilon,
            alpha: r.alpha,
            k: r.k,
            beta: r.beta,
            m: r.m,
            n: r.n,
            gamma: r.gamma,
            p: r.p,
            q: r.q,
            partial_program_disturb: r.partial_program_disturb,
            neighbour_program_disturb: r.neighbour_program_disturb,
        })
    };
    let params = PowerLawParams {
        ecc_min_decode_ns: c.ecc_min_decode_ns,
        ecc_max_decode_ns: c.ecc_max_decode_ns,
        correctable_bits_per_codeword: c.correctable_bits_per_codeword,
        max_read_retries: c.max_read_retries,
        retry_error_divisor: c.retry_error_divisor,
        slc: terms(&c.slc),
        mlc: terms(&c.mlc),
        tlc: terms(&c.tlc),
    };
    ErrorModel::new(params, geometry)
}

/// The dies and channels of the device of `geometry`, their commands scheduled by the rules
/// `[scheduler]` sets.
pub fn scheduler(c: &SchedulerConfig, geometry: &Geometry) -> Scheduler {
    let rules = KindRules {
        read_priority: c.read_priority,
        max_group: match c.multiplane {
            true => geometry.planes_per_die as usize,
            false => 1,
        },
        suspension: suspension(&c.suspension),
    };
    Scheduler::new(geometry, rules)
}

/// The rules `scheduler.suspension` gives (None: nothing is suspended).
pub fn suspension(config: &SuspensionConfig) -> Option<Suspension> {
    let SuspensionConfig::ForReads {
        program_suspend_ns,
        erase_suspend_ns,
        program_min_remaining_ns,
        erase_min_remaining_ns,
        max_per_operation,
    } = *config
    else {
        return None;
    };
    let max_per_operation = max_per_operation.unwrap_or(u32::MAX);
    let rule = |latency: Option<u64>, min_remaining_ns| {
        latency.map(|latency_ns| SuspendRule {
            latency_ns,
            min_remaining_ns,
            max_per_operation,
        })
    };
    Some(Suspension {
        program: rule(program_suspend_ns, program_min_remaining_ns),
        erase: rule(erase_suspend_ns, erase_min_remaining_ns),
    })
}
