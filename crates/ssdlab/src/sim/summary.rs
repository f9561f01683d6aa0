//! The JSON summary of a finished run: the host's figures over every flow, the device's, then a
//! section for each part that is on, each part giving its own where it has one.

use serde_json::{json, Value};

use crate::flash::OpKind;
use crate::stats::{round3, spread, FlowStats};

use super::Simulation;

/// `num / den` to three places, or null without a denominator.
pub(super) fn ratio(num: u64, den: u64) -> Value {
    if den == 0 {
        Value::Null
    } else {
        json!(round3(num as f64 / den as f64))
    }
}

impl Simulation {
    pub fn summary(&self) -> Value {
        let mut all = FlowStats::default();
        for f in &self.host.flows {
            all.merge(&f.stats);
        }
        let mut s = all.to_json();
        if let (Value::Object(base), Value::Object(more)) = (&mut s, self.device_json(&all)) {
            base.extend(more);
        }
        self.add_sections(&mut s);
        s
    }

    /// What the device did (`all`: every flow's figures together): its flash operations, GC,
    /// bytes, utilization, wear and integrity, its capacity and the run's configuration.
    fn device_json(&self, all: &FlowStats) -> Value {
        let d = &self.dev.stats;
        let g = &self.dev.ftl.geometry;
        // Rates are over the measured span (the whole run without a statistics window).
        let span = (self.dev.now - self.measured_from_ns()).max(1) as f64;
        let (to_device, to_host) = self.measured_link_busy_ns();
        let flows: Vec<Value> = (self.host.flows.iter())
            .map(|f| {
                let mut v = f.stats.to_json();
                v["name"] = json!(f.name);
                v
            })
            .collect();
        let erase_counts = self.measured_erase_counts();
        let mut erase = spread(erase_counts.iter().map(|&e| e as f64), 3);
        let (lo, hi) = erase_counts
            .iter()
            .fold((u32::MAX, 0), |(lo, hi), &e| (lo.min(e), hi.max(e)));
        erase["spread"] = json!(hi.saturating_sub(lo));
        let integrity = match &self.dev.ftl.oracle {
            Some(o) => json!({
                "enabled": true,
                "checked_reads": o.checked_reads,
                "swept_units": o.swept_units,
                "violations": o.violations,
                "messages": o.messages,
            }),
            None => json!({
                "enabled": false,
                "checked_reads": 0,
                "swept_units": 0,
                "violations": 0,
                "messages": [],
            }),
        };
        let unit = g.unit_bytes as u64;
        json!({
            "flows": flows,
            "flash_ops": d.ops_json(self.mapping.is_some()),
            "merged_reads": d.merged_reads,
            "energy_uj": d.energy.to_json(),
            "gc": {
                "invocations": d.gc_invocations,
                "copied_units": d.gc_copied_units,
                "busy_ns": d.gc_busy_ns,
                // SPREAD §V.B's "average elapsed time per GC".
                "mean_busy_ns": (d.gc_invocations > 0)
                    .then(|| (d.gc_busy_ns as f64 / d.gc_invocations as f64).round()),
            },
            "wear_leveling": {
                "invocations": d.wl_invocations,
                "copied_units": d.wl_copied_units,
            },
            "waf": ratio(d.programmed_bytes, all.write_bytes),
            "raf": ratio(d.host_sensed_bytes, all.read_bytes),
            "bytes": {
                "sensed": d.sensed_bytes,
                "sensed_for_host": d.host_sensed_bytes,
                "read_transferred": d.read_transfer_bytes,
                "programmed": d.programmed_bytes,
            },
            "read_units": {
                "flash": d.host_read_units_flash,
                "buffer_hit": d.buffer_hit_units,
                "unmapped": d.unmapped_read_units,
            },
            "trim_units": {
                "unmapped": d.trimmed_units,
                "partly_trimmed": d.partly_trimmed_units,
            },
            "write_buffer": {
                "coalesced_units": d.coalesced_write_units,
                "padded_slots": d.padded_slots,
                "stall_ns": d.write_stall_ns,
            },
            "utilization": {
                "die": spread(self.measured_die_busy_ns().into_iter().map(|b| b as f64 / span), 6),
                "channel": spread(
                    self.measured_channel_busy_ns().into_iter().map(|b| b as f64 / span),
                    6,
                ),
                "host_link": {
                    "to_device": (to_device as f64 / span * 1e6).round() / 1e6,
                    "to_host": (to_host as f64 / span * 1e6).round() / 1e6,
                },
            },
            "erase_count": erase,
            "integrity": integrity,
            "precondition": self.record.precondition,
            "capacity": {
                "logical_bytes": self.dev.ftl.host_units as u64 * unit,
                "physical_bytes": g.physical_bytes(),
            },
            "sim_time_ns": self.dev.now,
            "seed": self.dev.config.seed,
            "version": crate::VERSION,
            "config": self.dev.config.to_json(),
        })
    }

    /// The sections of the parts that are on, and the counters of flash commands only some
    /// devices issue.
    fn add_sections(&self, s: &mut Value) {
        let d = &self.dev.stats;
        if let Some(window) = self.window_json() {
            s["statistics"] = window;
        }
        if self.host.firmware.has_cores() {
            let f = &self.host.firmware;
            let span = (self.dev.now - self.measured_from_ns()).max(1) as f64;
            let capacity = span * f.cores() as f64;
            s["firmware"] = json!({
                "cores": f.cores(),
                "commands": f.stats.commands,
                "busy_ns": f.stats.busy_ns,
                "utilization": (f.stats.busy_ns as f64 / capacity * 1e6).round() / 1e6,
                "mean_wait_ns": ratio(f.stats.wait_ns, f.stats.commands),
            });
        }
        if let Some(c) = &self.data_cache {
            s["data_cache"] = c.summary();
        }
        if let Some(m) = &self.mapping {
            s["mapping_cache"] = m.summary(self.dev.ftl.logical_units - self.dev.ftl.host_units);
        }
        if self.dev.policies.reduction.keeps_shapes() {
            s["compression"] = d.reduction.to_json();
        }
        if self.dev.policies.split.is_some() {
            s["split"] = d.reduction.split_json();
        }
        if !self.dev.config.ftl.mapping_granularity.is_unit() {
            // MGA's two-level table, measured on the mapping as the run left it.
            s["mapping_table"] = self
                .dev
                .ftl
                .two_level_table(self.dev.ftl.host_units)
                .to_json();
        }
        if let Some(hot) = &self.writes.hot {
            // IPU's Result(3/3): the share of host writes held in the SLC-mode Hot blocks.
            s["placement"] = hot.summary();
        }
        if self.reads.errors.is_some() {
            s["reliability"] = d.reliability.to_json();
        }
        for t in self.techniques.iter() {
            s[t.section()] = t.summary();
        }
        if self.reads.commands.melds() {
            // melded-pages.txt §2: wordlines sensed in one command, and the pages they read.
            s["melded_reads"] = json!({
                "commands": d.melded_reads,
                "pages": d.melded_pages,
            });
            if self.reads.commands.reads_ahead() {
                s["melded_reads"]["ahead_pages"] = json!(d.read_ahead_pages);
                s["melded_reads"]["ahead_hits"] = json!(d.read_ahead_hits);
            } else if self.reads.policy.melds(1, 2) {
                // (Wordlines melded for part of their pages: the rest crossed the bus unwanted.)
                s["melded_reads"]["dropped_pages"] = json!(d.melded_dropped_pages);
            }
        }
        // A medium beside the flash (ROSA's PCM) has its own section: its dies' commands, and
        // the units rewritten in place (in its slots: the flash's are appended to).
        for (i, set) in self.dev.ftl.geometry.die_sets.iter().enumerate().skip(1) {
            s[set.medium.name()] = json!({
                "reads": d.die_set_reads[i],
                "programs": d.die_set_programs[i],
                "in_place_writes": d.rewrites_in_place,
            });
        }
        if !self.dev.config.scheduler.suspension.is_none() {
            // MQSim's Issued_Flash_Suspend_Program_CMD and _Erase_CMD.
            s["flash_ops"]["program"]["suspended"] = json!(d.suspensions[OpKind::Program.index()]);
            s["flash_ops"]["erase"]["suspended"] = json!(d.suspensions[OpKind::Erase.index()]);
        }
        if self.dev.policies.partial.is_some() {
            s["flash_ops"]["program"]["partial"] = json!(d.partial_programs);
            s["flash_ops"]["program"]["in_place_update"] = json!(d.in_place_updates);
            s["flash_ops"]["program"]["merged_units"] = json!(d.merged_units);
        }
        if self.dev.config.ftl.partial_write == crate::config::PartialWrite::ReadModifyWrite {
            s["write_buffer"]["merge_read_units"] = json!(d.merge_read_units);
        }
    }
}
