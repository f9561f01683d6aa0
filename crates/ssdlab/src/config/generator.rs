//! `[flows.generator]` (a workload file's `[generator]`): a generator's parameters and their
//! checks. The generator that draws requests from them is `workload/`'s.

use serde::{Deserialize, Serialize};

use super::tagged::tagged_table;
use crate::error::Error;

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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Updates {
    /// Share of random writes that start on a unit written earlier in the run.
    pub update_fraction: f64,
    /// Share of random writes that start on a unit written at least twice before (IPU's Hot
    /// level, "updated ≥ 2"); the other updates start on a unit written once. At most
    /// `update_fraction`.
    pub hot_fraction: f64,
    /// Share of random reads that start on a unit written earlier in the run, drawn as an
    /// update's is (default 0: reads start where the address distribution puts them). Where a
    /// workload's reads follow its writes, the data a cache holds serves them.
    #[serde(default)]
    pub read_written_fraction: f64,
    /// Share of random reads that start on a unit written at least twice before; the other reads
    /// of written data start on a unit written once. At most `read_written_fraction`.
    #[serde(default)]
    pub read_hot_fraction: f64,
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
    pub fn size_of(&self, read: bool) -> Option<&SizeDist> {
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
                    validate_size(d, &key(which), self.working_set_bytes)?;
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
        validate_address(&self.address, &key("address"))?;
        if let Some(u) = &self.updates {
            validate_updates(
                u,
                &key("updates"),
                self.sequential_run_bytes,
                (&key("working_set_bytes"), self.working_set_bytes),
                self.alignment_bytes,
            )?;
        }
        if let Some(rule) = &self.stream {
            validate_stream(rule, &key("stream"), self.working_set_bytes)?;
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

// A stream id is what a host would give a request in NVMe's streams directive, so that placement
// can keep a stream's writes together. Generators draw theirs from their working set; a trace
// flow's rule assigns ids to a trace that has none (blkparse, MSR, …), from its own addresses.
impl StreamRule {
    /// The stream id of a request starting `offset_bytes` into the rule's address space; `None`
    /// past 65,535 (NVMe's stream identifier is 16 bits, and a wrapped id would give two
    /// extents one stream). `extent_bytes` is positive (validated).
    #[inline]
    pub fn id(&self, offset_bytes: u64) -> Option<u16> {
        match self {
            StreamRule::PerExtent { extent_bytes } => {
                u16::try_from(offset_bytes / extent_bytes + 1).ok()
            }
        }
    }
}

/// Check a rule that a trace's addresses will be put through; errors name `key`'s parameter.
/// Ids past 65,535 are refused when the trace is read, naming its line.
pub(crate) fn validate_stream_for_trace(rule: &StreamRule, key: &str) -> Result<(), Error> {
    match rule {
        StreamRule::PerExtent { extent_bytes: 0 } => Err(Error::config(
            &format!("{key}.extent_bytes"),
            "must be positive",
        )),
        StreamRule::PerExtent { .. } => Ok(()),
    }
}

/// Check a rule over a working set of `working_set_bytes`; errors name `key`'s parameter.
///
/// Ids past 65,535 are refused rather than wrapped: a wrapped id would give two extents one
/// stream, and two HDFS blocks written at once would then share open blocks and wordlines,
/// which distinct stream ids exist to prevent (melded-pages.txt §2.3). The working set bounds
/// every id, so the refusal comes before the run.
fn validate_stream(rule: &StreamRule, key: &str, working_set_bytes: u64) -> Result<(), Error> {
    validate_stream_for_trace(rule, key)?;
    match rule {
        StreamRule::PerExtent { extent_bytes } => {
            let extents = working_set_bytes.div_ceil(*extent_bytes);
            if extents > u64::from(u16::MAX) {
                return Err(Error::config(
                    &format!("{key}.extent_bytes"),
                    format!(
                        "{extents} extents of {extent_bytes} bytes in the working set of \
                         {working_set_bytes} bytes, one stream each; stream ids go up to {} \
                         (NVMe's stream identifier is 16 bits, 0 is none): give larger extents",
                        u16::MAX
                    ),
                ));
            }
            Ok(())
        }
    }
}

/// Check a distribution; `key` names it in errors.
pub(crate) fn validate_size(d: &SizeDist, key: &str, working_set_bytes: u64) -> Result<(), Error> {
    let err = |what: &str, msg: String| Err(Error::config(&format!("{key}.{what}"), msg));
    let weights_ok =
        |w: &[f64]| w.iter().all(|x| x.is_finite() && *x >= 0.0) && w.iter().sum::<f64>() > 0.0;
    let largest = match d {
        SizeDist::Fixed { bytes } => {
            if *bytes == 0 {
                return err("bytes", "must be positive".into());
            }
            *bytes
        }
        SizeDist::Choice { bytes, weights } => {
            if bytes.is_empty() || bytes.len() != weights.len() {
                return err(
                    "weights",
                    format!(
                        "needs one weight per size ({} sizes, {} weights)",
                        bytes.len(),
                        weights.len()
                    ),
                );
            }
            if bytes.contains(&0) {
                return err("bytes", "sizes must be positive".into());
            }
            if !weights_ok(weights) {
                return err("weights", "must be ≥ 0 and not all 0".into());
            }
            bytes.iter().copied().max().unwrap_or(0)
        }
        SizeDist::Uniform {
            min_bytes,
            max_bytes,
            step_bytes,
        } => {
            if *step_bytes == 0 || *min_bytes == 0 || max_bytes < min_bytes {
                return err(
                    "min_bytes",
                    format!(
                        "need 0 < min_bytes ≤ max_bytes and step_bytes > 0 (got {min_bytes}, \
                         {max_bytes}, {step_bytes})"
                    ),
                );
            }
            if (max_bytes - min_bytes) % step_bytes != 0 {
                return err(
                    "max_bytes",
                    format!(
                        "max_bytes − min_bytes must be a multiple of step_bytes ({step_bytes})"
                    ),
                );
            }
            *max_bytes
        }
        SizeDist::Histogram {
            bin_edges_bytes,
            weights,
            step_bytes,
        } => {
            if bin_edges_bytes.len() < 2 || bin_edges_bytes.len() != weights.len() + 1 {
                return err(
                    "weights",
                    format!(
                        "needs one weight per bin: {} edges make {} bins, got {} weights",
                        bin_edges_bytes.len(),
                        bin_edges_bytes.len().saturating_sub(1),
                        weights.len()
                    ),
                );
            }
            if *step_bytes == 0
                || bin_edges_bytes[0] == 0
                || bin_edges_bytes.windows(2).any(|b| b[0] >= b[1])
                || bin_edges_bytes.iter().any(|e| e % step_bytes != 0)
            {
                return err(
                    "bin_edges_bytes",
                    format!("must be positive, increasing multiples of step_bytes ({step_bytes})"),
                );
            }
            if !weights_ok(weights) {
                return err("weights", "must be ≥ 0 and not all 0".into());
            }
            bin_edges_bytes.last().copied().unwrap_or(0) - step_bytes
        }
        SizeDist::Geometric {
            mean_bytes,
            step_bytes,
            max_bytes,
            min_bytes,
        } => {
            if *step_bytes == 0 {
                return err("step_bytes", "must be positive".into());
            }
            let (least, name) = match min_bytes {
                Some(0) => return err("min_bytes", "must be positive".into()),
                Some(m) => (*m, "min_bytes"),
                None => (*step_bytes, "step_bytes"),
            };
            if !(mean_bytes.is_finite() && *mean_bytes >= least as f64) {
                return err(
                    "mean_bytes",
                    format!("must be at least {name} = {least} (got {mean_bytes})"),
                );
            }
            if *max_bytes < least {
                return err("max_bytes", format!("must be at least {name} = {least}"));
            }
            *max_bytes
        }
        SizeDist::Mixture { components } => {
            let weights: Vec<f64> = components.iter().map(|c| c.weight).collect();
            if !weights_ok(&weights) {
                return err("components", "weights must be ≥ 0 and not all 0".into());
            }
            // Each component checks its own sizes against the working set.
            for (i, SizeComponent { size, .. }) in components.iter().enumerate() {
                validate_size(
                    size,
                    &format!("{key}.components[{i}].size"),
                    working_set_bytes,
                )?;
            }
            return Ok(());
        }
    };
    if largest > working_set_bytes {
        return err(
            "kind",
            format!(
                "sizes up to {largest} bytes do not fit the working set of {working_set_bytes}"
            ),
        );
    }
    Ok(())
}

/// The expected size of a distribution, in bytes (for tests of the workloads' means and of the
/// sampler's).
#[cfg(test)]
pub(crate) fn mean_bytes(d: &SizeDist) -> f64 {
    let weighted = |pairs: &mut dyn Iterator<Item = (f64, f64)>| {
        let (sum, total) = pairs.fold((0.0, 0.0), |(s, t), (x, w)| (s + x * w, t + w));
        sum / total
    };
    match d {
        SizeDist::Fixed { bytes } => *bytes as f64,
        SizeDist::Choice { bytes, weights } => {
            weighted(&mut bytes.iter().zip(weights).map(|(&b, &w)| (b as f64, w)))
        }
        SizeDist::Uniform {
            min_bytes,
            max_bytes,
            ..
        } => (min_bytes + max_bytes) as f64 / 2.0,
        SizeDist::Histogram {
            bin_edges_bytes,
            weights,
            step_bytes,
        } => weighted(&mut bin_edges_bytes.windows(2).zip(weights).map(|(b, &w)| {
            let steps = (b[1] - b[0]).div_ceil(*step_bytes);
            (
                b[0] as f64 + (steps - 1) as f64 * *step_bytes as f64 / 2.0,
                w,
            )
        })),
        SizeDist::Geometric {
            mean_bytes,
            step_bytes,
            max_bytes,
            min_bytes,
        } => {
            // Sizes are off + step × K, K = 1 + G, P(K = k) = p q^(k−1), off = min − step;
            // E[min(off + step × K, max)]: the sum over k ≤ n = ⌊(max − off) / step⌋ is
            // off (1 − q^n) + step (1 − (n+1) q^n + n q^(n+1)) / p, the rest is max q^n.
            let step = *step_bytes as f64;
            let off = min_bytes.map_or(0.0, |m| m as f64 - step);
            let p = (step / (mean_bytes - off)).min(1.0);
            let q = 1.0 - p;
            let n = ((*max_bytes as f64 - off) / step).floor() as i32;
            let n_f = f64::from(n);
            off * (1.0 - q.powi(n))
                + step * (1.0 - (n_f + 1.0) * q.powi(n) + n_f * q.powi(n + 1)) / p
                + *max_bytes as f64 * q.powi(n)
        }
        SizeDist::Mixture { components } => {
            weighted(&mut components.iter().map(|c| (mean_bytes(&c.size), c.weight)))
        }
    }
}

/// Check an address distribution; `key` names it in errors.
pub(crate) fn validate_address(d: &AddressDist, key: &str) -> Result<(), Error> {
    match d {
        AddressDist::Uniform => Ok(()),
        AddressDist::Zipf { exponent } => {
            if exponent.is_finite() && *exponent > 0.0 {
                Ok(())
            } else {
                Err(Error::config(
                    &format!("{key}.exponent"),
                    format!("must be positive (got {exponent})"),
                ))
            }
        }
        AddressDist::HotCold {
            hot_space_fraction,
            hot_access_fraction,
        } => {
            for (k, v) in [
                ("hot_space_fraction", hot_space_fraction),
                ("hot_access_fraction", hot_access_fraction),
            ] {
                if !(*v > 0.0 && *v <= 1.0) {
                    return Err(Error::config(
                        &format!("{key}.{k}"),
                        format!("must be in (0, 1] (got {v})"),
                    ));
                }
            }
            Ok(())
        }
    }
}

/// Units of the working set the update model can count (its pools hold `u32` units).
pub(crate) const MAX_UPDATE_UNITS: u64 = 1 << 32;

/// `u`, the `updates` (at `key`) of a generator whose working set is `working_set_bytes` (at
/// `working_set_key`) of `unit_bytes` units.
pub(crate) fn validate_updates(
    u: &Updates,
    key: &str,
    sequential_run_bytes: u64,
    (working_set_key, working_set_bytes): (&str, u64),
    unit_bytes: u64,
) -> Result<(), Error> {
    fraction(&format!("{key}.update_fraction"), u.update_fraction)?;
    fraction(&format!("{key}.hot_fraction"), u.hot_fraction)?;
    if u.hot_fraction > u.update_fraction {
        return Err(Error::config(
            &format!("{key}.hot_fraction"),
            format!(
                "a hot write is an update: must be at most update_fraction = {} (got {})",
                u.update_fraction, u.hot_fraction
            ),
        ));
    }
    fraction(
        &format!("{key}.read_written_fraction"),
        u.read_written_fraction,
    )?;
    fraction(&format!("{key}.read_hot_fraction"), u.read_hot_fraction)?;
    if u.read_hot_fraction > u.read_written_fraction {
        return Err(Error::config(
            &format!("{key}.read_hot_fraction"),
            format!(
                "a read of hot data is a read of written data: must be at most \
                 read_written_fraction = {} (got {})",
                u.read_written_fraction, u.read_hot_fraction
            ),
        ));
    }
    if sequential_run_bytes != 0 {
        return Err(Error::config(
            key,
            "updates rewrite units, not whole runs: needs sequential_run_bytes = 0",
        ));
    }
    let units = working_set_bytes.div_ceil(unit_bytes);
    if units > MAX_UPDATE_UNITS {
        return Err(Error::config(
            working_set_key,
            format!(
                "with updates, the generator counts the writes of every {unit_bytes}-byte unit \
                 of its working set: at most 2^32 units ({} bytes; got {units} units)",
                MAX_UPDATE_UNITS * unit_bytes
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> GeneratorConfig {
        GeneratorConfig::new(
            50_000,
            0.7,
            1 << 30,
            SizeDist::Fixed { bytes: 8192 },
            Arrival::Poisson { iops: 10_000.0 },
        )
    }

    #[test]
    fn bad_distributions_name_their_key() {
        let e = validate_size(
            &SizeDist::Choice {
                bytes: vec![4096],
                weights: vec![1.0, 2.0],
            },
            "flows[0].generator.size",
            1 << 30,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("flows[0].generator.size.weights"), "{e}");
        let e = validate_size(&SizeDist::Fixed { bytes: 1 << 31 }, "size", 1 << 30)
            .unwrap_err()
            .to_string();
        assert!(e.contains("working set"), "{e}");
        // A mixture's components are checked under their own keys.
        let small_and_tail = SizeDist::Mixture {
            components: vec![
                SizeComponent {
                    weight: 0.6,
                    size: SizeDist::Fixed { bytes: 4096 },
                },
                SizeComponent {
                    weight: 0.4,
                    size: SizeDist::Fixed { bytes: 2 << 20 },
                },
            ],
        };
        let e = validate_size(&small_and_tail, "read_size", 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(e.contains("read_size.components[1].size.kind"), "{e}");
        let e = validate_size(
            &SizeDist::Mixture {
                components: vec![SizeComponent {
                    weight: 0.0,
                    size: SizeDist::Fixed { bytes: 4096 },
                }],
            },
            "size",
            1 << 30,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("size.components"), "{e}");
        // A mean below the minimum size cannot be met.
        let e = validate_size(
            &SizeDist::Geometric {
                mean_bytes: 10000.0,
                step_bytes: 4096,
                max_bytes: 1 << 20,
                min_bytes: Some(12288),
            },
            "size",
            1 << 30,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("size.mean_bytes") && e.contains("min_bytes"),
            "{e}"
        );
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let e = validate_address(
            &AddressDist::HotCold {
                hot_space_fraction: 0.0,
                hot_access_fraction: 0.5,
            },
            "flows[1].generator.address",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("flows[1].generator.address.hot_space_fraction"),
            "{e}"
        );
    }

    #[test]
    fn hot_more_than_updates_is_rejected_by_name() {
        let e = validate_updates(
            &Updates {
                update_fraction: 0.074,
                hot_fraction: 0.085,
                ..Default::default()
            },
            "flows[0].generator.updates",
            0,
            ("ws", 1 << 30),
            4096,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("flows[0].generator.updates.hot_fraction"), "{e}");
        let e = validate_updates(
            &Updates {
                update_fraction: 0.5,
                hot_fraction: 0.1,
                read_written_fraction: 0.2,
                read_hot_fraction: 0.3,
            },
            "g.updates",
            0,
            ("ws", 1 << 30),
            4096,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("g.updates.read_hot_fraction"), "{e}");
        let e = validate_updates(
            &Updates {
                update_fraction: 0.5,
                hot_fraction: 0.1,
                ..Default::default()
            },
            "g.updates",
            1 << 20,
            ("ws", 1 << 30),
            4096,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("g.updates"), "{e}");
    }

    #[test]
    fn a_working_set_past_the_counted_units_is_rejected_by_name() {
        let u = Updates {
            update_fraction: 0.5,
            hot_fraction: 0.1,
            ..Default::default()
        };
        let ws = |bytes| ("flows[0].generator.working_set_bytes", bytes);
        validate_updates(&u, "g.updates", 0, ws(4096 << 32), 4096).expect("2^32 units fit");
        let e = validate_updates(&u, "g.updates", 0, ws((4096 << 32) + 1), 4096)
            .unwrap_err()
            .to_string();
        assert!(e.contains("flows[0].generator.working_set_bytes"), "{e}");
    }

    #[test]
    fn stream_ids_past_16_bits_are_refused_by_name() {
        let per_extent = |extent_bytes, working_set_bytes| GeneratorConfig {
            working_set_bytes,
            stream: Some(StreamRule::PerExtent { extent_bytes }),
            ..base()
        };
        // 65,535 extents are ids 1 to 65,535; one more byte of working set would be id 65,536.
        per_extent(4096, 65_535 * 4096)
            .validate("g")
            .expect("valid");
        for c in [
            per_extent(4096, 65_535 * 4096 + 4096),
            per_extent(0, 1 << 30),
        ] {
            let e = c.validate("g").unwrap_err().to_string();
            assert!(e.contains("g.stream.extent_bytes"), "{e}");
        }
        let e = per_extent(4096, 1 << 30)
            .validate("g")
            .unwrap_err()
            .to_string();
        assert!(e.contains("262144 extents") && e.contains("65535"), "{e}");
    }

    #[test]
    fn a_request_kind_without_a_size_is_rejected_by_name() {
        let c = GeneratorConfig {
            size: None,
            read_size: Some(SizeDist::Fixed { bytes: 4096 }),
            ..base()
        };
        let e = c.validate("flows[0].generator").unwrap_err().to_string();
        assert!(e.contains("flows[0].generator.write_size"), "{e}");
        let c = GeneratorConfig {
            duration_ns: Some(5),
            ..base()
        };
        let e = c.validate("g").unwrap_err().to_string();
        assert!(e.contains("g.requests"), "{e}");
        // A duration in the wrong unit (seconds read as ns × 1e9) is caught, not drawn.
        let c = GeneratorConfig {
            requests: None,
            duration_ns: Some(3_600_000_000_000_000_000),
            ..base()
        };
        let e = c.validate("g").unwrap_err().to_string();
        assert!(e.contains("g.duration_ns"), "{e}");
    }
}
