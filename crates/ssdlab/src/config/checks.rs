//! Range checks shared by the sections' validations, so that the same kind of mistake reads the
//! same whichever key it is in.

use crate::error::Error;

/// A count or size of at least 1.
pub(super) fn positive(key: &str, v: u64) -> Result<(), Error> {
    if v == 0 {
        Err(Error::config(key, "must be at least 1 (got 0)"))
    } else {
        Ok(())
    }
}

/// A finite number above 0 (a rate or a scale).
pub(super) fn positive_real(key: &str, v: f64) -> Result<(), Error> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(Error::config(key, format!("must be positive (got {v})")))
    }
}

/// A share in [0, 1), or in (0, 1) when `lo_open`.
pub(super) fn fraction(key: &str, v: f64, lo_open: bool) -> Result<(), Error> {
    let ok = v.is_finite() && v < 1.0 && if lo_open { v > 0.0 } else { v >= 0.0 };
    if ok {
        Ok(())
    } else {
        let range = if lo_open { "(0, 1)" } else { "[0, 1)" };
        Err(Error::config(key, format!("must be in {range} (got {v})")))
    }
}

/// A share in [0, 1], both ends included.
pub(super) fn closed_fraction(key: &str, v: f64) -> Result<(), Error> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(Error::config(key, format!("must be in [0, 1] (got {v})")))
    }
}
