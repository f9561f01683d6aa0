//! What a flow must satisfy before it is replayed, checked in one pass over its requests when
//! the simulation is built (never per event): every request lies within the logical capacity,
//! and every arrival, scaled by the flow's time scale, lies within [`MAX_ARRIVAL_NS`].

use crate::config::{Config, ReplayMode};
use crate::error::Error;
use crate::ftl::Ftl;
use crate::trace::OutOfRange;

use super::Flow;

/// The latest time a request may arrive: 2^62 ns, about 146 years. The clock counts
/// nanoseconds in a u64 (about 584 years); the three quarters of it above the limit are left
/// for the device to finish the work that the last arrivals bring (and for the arrivals that
/// level-1 GC holds back, `technique/level1.rs`), so that no sum of times wraps. A trace or generator
/// whose scaled arrivals pass it is refused, naming the key that took it there.
pub const MAX_ARRIVAL_NS: u64 = 1 << 62;

/// [`MAX_ARRIVAL_NS`] and why, as errors say it.
const LIMIT_TEXT: &str = "past the limit of 2^62 ns (about 146 years) that arrivals must stay \
     within (the rest of the clock's 64 bits is left for the device to finish the work)";

/// Check flow `index` of `config` (built into `f`) against the capacity of `ftl` and the
/// arrival limit.
pub(super) fn check_flow(
    index: usize,
    f: &mut Flow,
    ftl: &Ftl,
    config: &Config,
) -> Result<(), Error> {
    let capacity = ftl.host_units as u64 * ftl.geometry.unit_bytes as u64;
    let offset = f.offset_bytes;
    let mut bad = None;
    let mut last_arrival_ns = 0;
    let mut i = 0u64;
    f.for_each_unit_range(1, |_, _, r| {
        i += 1;
        // A zero-length request still touches the unit it points at.
        let end = r.offset_bytes + offset + r.size_bytes.max(1);
        if end > capacity && bad.is_none() {
            bad = Some((i, end));
        }
        last_arrival_ns = last_arrival_ns.max(r.arrival_ns);
    });
    if let Some((i, end)) = bad {
        return Err(capacity_error(index, f, config, (i, end), capacity));
    }
    if f.mode == ReplayMode::Open {
        check_arrivals(index, f, config, last_arrival_ns)?;
    }
    Ok(())
}

/// Request `i` of flow `index` ends at byte `end`, past the capacity: blame what placed it
/// there. A generator's requests lie within its working set above the flow's offset, so the
/// working set is blamed when it alone is larger than the device (`host.out_of_range` folds
/// the addresses a trace file gives, never a generator's: that would change the address
/// distribution the generator was given), else the offset. A trace's addresses were checked
/// (or folded) against the capacity above the flow's offset when it was read.
fn capacity_error(
    index: usize,
    f: &Flow,
    config: &Config,
    (i, end): (u64, u64),
    capacity: u64,
) -> Error {
    let offset = f.offset_bytes;
    let generator = config.flows.get(index).and_then(|fl| fl.generator.as_ref());
    match generator {
        Some(g) if g.working_set_bytes > capacity => {
            let wrap = match config.host.out_of_range {
                OutOfRange::Wrap => {
                    " (host.out_of_range = \"wrap\" folds the addresses of trace files, not a \
                     generator's)"
                }
                OutOfRange::Error => "",
            };
            Error::config(
                &format!("flows[{index}].generator.working_set_bytes"),
                format!(
                    "flow `{}`'s working set of {} bytes is larger than the logical capacity \
                     of {capacity} bytes{wrap}: give it at most {capacity} bytes (less its \
                     offset_bytes), or the device more capacity",
                    f.name, g.working_set_bytes,
                ),
            )
        }
        Some(g) => Error::config(
            &format!("flows[{index}].offset_bytes"),
            format!(
                "flow `{}`'s working set of {} bytes from offset {offset} ends past the logical \
                 capacity of {capacity} bytes: the offset can be at most {}",
                f.name,
                g.working_set_bytes,
                capacity - g.working_set_bytes
            ),
        ),
        None => Error::config(
            &format!("flows[{index}].offset_bytes"),
            format!(
                "flow `{}` request {i} ends at byte {end} with offset {offset}, past the logical \
                 capacity of {capacity} bytes",
                f.name
            ),
        ),
    }
}

/// The last arrival of flow `index`, `last_arrival_ns` before scaling, must stay within
/// [`MAX_ARRIVAL_NS`] once scaled (as the engine scales it: `sim/host.rs`, in floating point).
/// The scale is blamed when it takes arrivals that fit past the limit; else the source is.
fn check_arrivals(
    index: usize,
    f: &Flow,
    config: &Config,
    last_arrival_ns: u64,
) -> Result<(), Error> {
    let limit = MAX_ARRIVAL_NS as f64;
    let scaled = last_arrival_ns as f64 * f.time_scale;
    if scaled <= limit {
        return Ok(());
    }
    let flow = config.flows.get(index);
    let source = match flow.and_then(|fl| fl.trace.as_ref()) {
        Some(path) => format!("trace `{}`", path.display()),
        None => format!("flow `{}`", f.name),
    };
    if last_arrival_ns <= MAX_ARRIVAL_NS && f.time_scale > 1.0 {
        let key = match flow.and_then(|fl| fl.time_scale) {
            Some(_) => format!("flows[{index}].time_scale"),
            None => "host.time_scale".to_string(),
        };
        return Err(Error::config(
            &key,
            format!(
                "{} scales the arrivals of {source}, whose last request comes at {:.3} s, to \
                 {scaled:.3e} ns, {LIMIT_TEXT}: this flow takes a scale of at most {:.3e}",
                f.time_scale,
                last_arrival_ns as f64 / 1e9,
                limit / last_arrival_ns as f64
            ),
        ));
    }
    let key = match flow.and_then(|fl| fl.generator.as_ref()) {
        Some(g) if g.start_ns > MAX_ARRIVAL_NS => format!("flows[{index}].generator.start_ns"),
        Some(g) if g.duration_ns.is_some() => format!("flows[{index}].generator.duration_ns"),
        Some(_) => format!("flows[{index}].generator.arrival"),
        None => format!("flows[{index}].trace"),
    };
    Err(Error::config(
        &key,
        format!(
            "the last request of {source} arrives at {last_arrival_ns} ns (scaled by {}: \
             {scaled:.3e} ns), {LIMIT_TEXT}",
            f.time_scale
        ),
    ))
}
