//! Synthetic workloads: a generator is a flow like a trace, producing its requests on demand from
//! a few parameters (read ratio, request sizes, address distribution, sequentiality, arrival
//! process, count or duration, seed). Named workloads built from the papers' descriptions ship as
//! TOML files in `workloads/` (see [`named`]), each saying which numbers come from which table.

mod address;
mod generator;
pub mod named;
mod size;
mod stream;
mod updates;

use serde::{Deserialize, Serialize};

use crate::config::tagged::tagged_table;
use crate::error::Error;

pub use generator::GeneratorSource;
pub(crate) use stream::validate_for_trace as validate_trace_stream_rule;

/// A generator's parameters (`[flows.generator]` in a config, `[generator]` in a workload file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorConfig {
    /// Requests to generate (exactly one of `requests` and `duration_ns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// Generate requests arriving before this time (open-loop arrivals only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ns: Option<u64>,
    /// Share of requests that are reads.
    pub read_fraction: f64,
    /// Addresses fall in `[0, working_set_bytes)` (plus the flow's `offset_bytes`).
    pub working_set_bytes: u64,
    /// Request start addresses are multiples of this.
    #[serde(default = "default_alignment_bytes")]
    pub alignment_bytes: u64,
    /// Size of every request, unless `read_size` / `write_size` say otherwise for one kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<SizeDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_size: Option<SizeDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_size: Option<SizeDist>,
    /// Where a random request lands.
    #[serde(default)]
    pub address: AddressDist,
    /// Share of reads (writes) that start at a random address; the others continue where the
    /// previous read (write) ended, as PR-SSD's Table 2 "random ratio" describes.
    #[serde(default = "one")]
    pub read_random_fraction: f64,
    #[serde(default = "one")]
    pub write_random_fraction: f64,
    /// Length of a sequential run: once a run has covered this many bytes the next request starts
    /// a new one at a random address aligned to the run length (HDFS reads and writes whole
    /// 128 MiB blocks). 0 = runs have no set length.
    #[serde(default)]
    pub sequential_run_bytes: u64,
    pub arrival: Arrival,
    /// When the first request arrives (open-loop arrivals only; the others follow at the
    /// arrival process's gaps): a flow that starts after another has finished, e.g. an HDFS
    /// block read once the block's writes have been programmed (melded-pages.txt §3.2). 0 = at
    /// the start of the run.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start_ns: u64,
    /// Random writes that rewrite data written earlier in the run, and data already rewritten
    /// (IPU's update ratio and hot writes); without it a write's start is drawn from `address`
    /// alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updates: Option<Updates>,
    /// Which stream (NVMe's streams directive) each request belongs to; without it every
    /// request is stream 0, none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamRule>,
    /// Seed of this generator; by default derived from the run's seed and the flow's index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

fn default_alignment_bytes() -> u64 {
    4096
}
fn one() -> f64 {
    1.0
}
fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A request size distribution. Sizes are bytes; `step_bytes` is the granularity of generated
/// sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    Fixed {
        bytes: u64,
    },
    /// One of `bytes`, chosen with the given relative `weights`.
    Choice {
        bytes: Vec<u64>,
        weights: Vec<f64>,
    },
    /// Uniform over `min_bytes, min_bytes + step_bytes, …, max_bytes`.
    Uniform {
        min_bytes: u64,
        max_bytes: u64,
        step_bytes: u64,
    },
    /// Bin `i` spans `[bin_edges_bytes[i], bin_edges_bytes[i+1])` and is chosen with
    /// `weights[i]`; within a bin sizes are uniform in steps of `step_bytes`.
    Histogram {
        bin_edges_bytes: Vec<u64>,
        weights: Vec<f64>,
        step_bytes: u64,
    },
    /// `min_bytes + step_bytes × G` with G geometric, so the mean is `mean_bytes` (before sizes
    /// above `max_bytes` are cut to it): for workloads known only by their mean size (PR-SSD
    /// Table 2), or the tail above a size class (IPU's requests over 8 KiB). `min_bytes` defaults
    /// to `step_bytes`.
    Geometric {
        mean_bytes: f64,
        step_bytes: u64,
        max_bytes: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_bytes: Option<u64>,
    },
    /// One of `components`, chosen with its relative `weight`, then a size drawn from it: e.g. a
    /// share of single 4 KiB requests beside a geometric tail (PR-SSD's workloads, where small
    /// requests dominate but Table 2 gives only the mean).
    Mixture {
        components: Vec<SizeComponent>,
    },
}

// Distribution tables name their kind beside its parameters, read as the config's policy
// tables are (`config/tagged.rs`): every key named in errors, unknown keys refused.
tagged_table!("kind": SizeDist, AddressDist, Arrival, StreamRule);

/// A component of a [`SizeDist::Mixture`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeComponent {
    pub weight: f64,
    pub size: SizeDist,
}

/// Where a random request starts, over the working set's aligned slots.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum AddressDist {
    #[default]
    Uniform,
    /// Zipf over slots with the given exponent (YCSB's 0.99 is common). Ranks are scattered over
    /// the working set by a seeded permutation, so hot slots are not all at its start.
    Zipf { exponent: f64 },
    /// `hot_access_fraction` of requests go to a `hot_space_fraction` share of the slots
    /// (scattered like Zipf's ranks), the rest to the other slots; uniform within each.
    HotCold {
        hot_space_fraction: f64,
        hot_access_fraction: f64,
    },
}

/// How random writes choose between new data and data written earlier in the run, counted in
/// units of `alignment_bytes` (see `updates.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Updates {
    /// Share of random writes that start on a unit written earlier in the run.
    pub update_fraction: f64,
    /// Share of random writes that start on a unit written at least twice before (IPU's Hot
    /// level, "updated ≥ 2"); the other updates start on a unit written once. At most
    /// `update_fraction`.
    pub hot_fraction: f64,
}

/// How a generated request's stream id is chosen (ids are 1 to 65,535; 0 means none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum StreamRule {
    /// One stream per `extent_bytes` of the working set: a request starting at `offset` (from
    /// the working set's start) is stream `offset / extent_bytes + 1`. With `extent_bytes` the
    /// HDFS block size, every block written is a stream of its own (melded-pages.txt §2.3).
    PerExtent { extent_bytes: u64 },
}

/// When requests arrive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum Arrival {
    /// Poisson arrivals at `iops` requests per second.
    Poisson { iops: f64 },
    /// One request every `1 / iops` seconds.
    Fixed { iops: f64 },
    /// Bursts of `burst_requests` Poisson arrivals at `iops`, separated by `idle_ns` of silence.
    Bursts {
        iops: f64,
        burst_requests: u64,
        idle_ns: u64,
    },
    /// Closed loop: `queue_depth` requests kept outstanding (the flow replays in closed mode).
    Closed { queue_depth: u32 },
}

impl GeneratorConfig {
    /// `requests` requests of `size`, uniformly random over the working set, with the other
    /// keys at their defaults (4 KiB alignment, no sequential runs, seed from the run).
    pub fn new(
        requests: u64,
        read_fraction: f64,
        working_set_bytes: u64,
        size: SizeDist,
        arrival: Arrival,
    ) -> GeneratorConfig {
        GeneratorConfig {
            requests: Some(requests),
            duration_ns: None,
            read_fraction,
            working_set_bytes,
            alignment_bytes: default_alignment_bytes(),
            size: Some(size),
            read_size: None,
            write_size: None,
            address: AddressDist::Uniform,
            read_random_fraction: one(),
            write_random_fraction: one(),
            sequential_run_bytes: 0,
            arrival,
            start_ns: 0,
            updates: None,
            stream: None,
            seed: None,
        }
    }

    /// The size distribution of reads (`read == true`) or writes.
    fn size_of(&self, read: bool) -> Option<&SizeDist> {
        let own = if read {
            &self.read_size
        } else {
            &self.write_size
        };
        own.as_ref().or(self.size.as_ref())
    }

    /// Check every parameter; errors name the key under `prefix` (e.g. `flows[0].generator`).
    pub fn validate(&self, prefix: &str) -> Result<(), Error> {
        let key = |k: &str| format!("{prefix}.{k}");
        match (self.requests, self.duration_ns) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(Error::config(
                    &key("requests"),
                    "give exactly one of `requests` and `duration_ns`",
                ))
            }
            (None, Some(_)) if matches!(self.arrival, Arrival::Closed { .. }) => {
                return Err(Error::config(
                    &key("duration_ns"),
                    "a closed-loop generator has no arrival times: give `requests` instead",
                ))
            }
            (Some(0), _) => return Err(Error::config(&key("requests"), "must be at least 1")),
            _ => {}
        }
        if self.start_ns > 0 && matches!(self.arrival, Arrival::Closed { .. }) {
            return Err(Error::config(
                &key("start_ns"),
                "a closed-loop generator has no arrival times: its requests are issued from the \
                 start of the run as others complete",
            ));
        }
        fraction(&key("read_fraction"), self.read_fraction)?;
        fraction(&key("read_random_fraction"), self.read_random_fraction)?;
        fraction(&key("write_random_fraction"), self.write_random_fraction)?;
        if self.alignment_bytes == 0 || !self.alignment_bytes.is_multiple_of(512) {
            return Err(Error::config(
                &key("alignment_bytes"),
                format!(
                    "must be a positive multiple of 512 (got {})",
                    self.alignment_bytes
                ),
            ));
        }
        if self.working_set_bytes < self.alignment_bytes {
            return Err(Error::config(
                &key("working_set_bytes"),
                format!(
                    "must be at least alignment_bytes = {} (got {})",
                    self.alignment_bytes, self.working_set_bytes
                ),
            ));
        }
        if !self
            .sequential_run_bytes
            .is_multiple_of(self.alignment_bytes)
            || self.sequential_run_bytes > self.working_set_bytes
        {
            return Err(Error::config(
                &key("sequential_run_bytes"),
                format!(
                    "must be a multiple of alignment_bytes and at most working_set_bytes (got {})",
                    self.sequential_run_bytes
                ),
            ));
        }
        for (read, name) in [(true, "read_size"), (false, "write_size")] {
            let needed = if read {
                self.read_fraction > 0.0
            } else {
                self.read_fraction < 1.0
            };
            match self.size_of(read) {
                Some(d) => {
                    let which = if self.size_of(read) == self.size.as_ref() {
                        "size"
                    } else {
                        name
                    };
                    size::validate(d, &key(which), self.working_set_bytes)?;
                }
                None if needed => {
                    return Err(Error::config(
                        &key(name),
                        "no size distribution: set `size`, or `read_size` and `write_size`",
                    ))
                }
                None => {}
            }
        }
        address::validate(&self.address, &key("address"))?;
        if let Some(u) = &self.updates {
            updates::validate(
                u,
                &key("updates"),
                self.sequential_run_bytes,
                (&key("working_set_bytes"), self.working_set_bytes),
                self.alignment_bytes,
            )?;
        }
        if let Some(rule) = &self.stream {
            stream::validate(rule, &key("stream"), self.working_set_bytes)?;
        }
        match self.arrival {
            Arrival::Poisson { iops } | Arrival::Fixed { iops } | Arrival::Bursts { iops, .. }
                if !(iops.is_finite() && iops > 0.0) =>
            {
                Err(Error::config(
                    &key("arrival.iops"),
                    format!("must be positive (got {iops})"),
                ))
            }
            Arrival::Bursts {
                burst_requests: 0, ..
            } => Err(Error::config(
                &key("arrival.burst_requests"),
                "must be at least 1",
            )),
            Arrival::Closed { queue_depth: 0 } => Err(Error::config(
                &key("arrival.queue_depth"),
                "must be at least 1",
            )),
            // A duration is turned into a count up front (by drawing the arrivals): bound it so
            // a slip of units cannot ask for trillions of requests. Bursts only add idle time,
            // so iops × duration bounds their count too.
            Arrival::Poisson { iops } | Arrival::Fixed { iops } | Arrival::Bursts { iops, .. }
                if self
                    .duration_ns
                    .is_some_and(|d| d as f64 / 1e9 * iops > MAX_REQUESTS) =>
            {
                Err(Error::config(
                    &key("duration_ns"),
                    format!(
                        "about {:.3e} requests at {iops} IOPS; at most {MAX_REQUESTS:.0e} can be \
                         generated (check the unit: nanoseconds)",
                        self.duration_ns.unwrap_or(0) as f64 / 1e9 * iops
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// Most requests a duration-bounded generator may produce (the count is drawn up front).
const MAX_REQUESTS: f64 = 1e10;

fn fraction(key: &str, x: f64) -> Result<(), Error> {
    if (0.0..=1.0).contains(&x) {
        Ok(())
    } else {
        Err(Error::config(
            key,
            format!("must be between 0 and 1 (got {x})"),
        ))
    }
}
