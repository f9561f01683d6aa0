//! Range checks shared by the sections' validations, so that the same kind of mistake reads the
//! same whichever key it is in.

use crate::error::Error;

/// A count or size of at least 1.
pub(crate) fn positive(key: &str, v: u64) -> Result<(), Error> {
    if v == 0 {
        Err(Error::config(key, "must be at least 1 (got 0)"))
    } else {
        Ok(())
    }
}

/// A finite number above 0 (a rate or a scale).
pub(crate) fn positive_real(key: &str, v: f64) -> Result<(), Error> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(Error::config(key, format!("must be positive (got {v})")))
    }
}

/// A share in [0, 1), or in (0, 1) when `lo_open`.
pub(crate) fn fraction(key: &str, v: f64, lo_open: bool) -> Result<(), Error> {
    let ok = v.is_finite() && v < 1.0 && if lo_open { v > 0.0 } else { v >= 0.0 };
    if ok {
        Ok(())
    } else {
        let range = if lo_open { "(0, 1)" } else { "[0, 1)" };
        Err(Error::config(key, format!("must be in {range} (got {v})")))
    }
}

/// A share in [0, 1], both ends included.
pub(crate) fn closed_fraction(key: &str, v: f64) -> Result<(), Error> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(Error::config(key, format!("must be in [0, 1] (got {v})")))
    }
}

/// The longest duration a device key (`*_ns`, outside the flows) may give: 2^40 ns, about 18
/// minutes, where the longest any preset gives is a second (a level-1 GC interval). With
/// arrivals held within 2^62 ns (`sim/flow_checks.rs`), it would take millions of such waits
/// end to end after the last arrival to carry the 64-bit clock past its end: time cannot wrap.
pub const MAX_DURATION_NS: u64 = 1 << 40;

/// Every `*_ns` value of the config echo `config` (but the flows', whose arrivals the
/// simulation checks against their own limit) within [`MAX_DURATION_NS`], naming the first that
/// is not.
pub(super) fn durations(config: &serde_json::Value) -> Result<(), Error> {
    fn walk(key: &str, v: &serde_json::Value) -> Result<(), Error> {
        match v {
            serde_json::Value::Object(m) => m.iter().try_for_each(|(k, v)| {
                let key = match key.is_empty() {
                    true => k.clone(),
                    false => format!("{key}.{k}"),
                };
                match (k.ends_with("_ns"), v.as_u64()) {
                    (true, Some(ns)) if ns > MAX_DURATION_NS => Err(Error::config(
                        &key,
                        format!(
                            "{ns} ns is past the longest duration a device key may give, 2^40 \
                             ns (about 18 minutes): longer waits could carry the simulated \
                             clock past its 64 bits"
                        ),
                    )),
                    _ if k == "flows" && key == "flows" => Ok(()),
                    _ => walk(&key, v),
                }
            }),
            serde_json::Value::Array(items) => {
                (items.iter().enumerate()).try_for_each(|(i, v)| walk(&format!("{key}[{i}]"), v))
            }
            _ => Ok(()),
        }
    }
    walk("", config)
}
