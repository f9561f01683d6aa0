//! `[statistics]`: the statistics window. A run may warm the device up on its first requests and
//! report only the rest (ROSA §3: the first half of a trace warms up, the second is measured).

use serde::{Deserialize, Serialize};

use super::checks::fraction;
use crate::error::Error;

/// Which of the run's requests are warm-up: the first `warmup_requests` in arrival order over
/// all flows, or the first `warmup_fraction` of them. Both 0 (the default): every request is
/// measured, and the section is left out of the config echo, so that runs without a window read
/// as before it existed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatisticsConfig {
    /// Requests that warm up.
    #[serde(default)]
    pub warmup_requests: u64,
    /// Share of the run's requests that warm up, in [0, 1): floor(share × requests).
    #[serde(default)]
    pub warmup_fraction: f64,
}

impl StatisticsConfig {
    /// No warm-up: every request measured.
    pub fn is_off(&self) -> bool {
        self.warmup_requests == 0 && self.warmup_fraction == 0.0
    }

    /// A count or a share, not both; a share below the whole run.
    pub(super) fn validate(&self) -> Result<(), Error> {
        fraction("statistics.warmup_fraction", self.warmup_fraction, false)?;
        if self.warmup_requests > 0 && self.warmup_fraction > 0.0 {
            return Err(Error::config(
                "statistics.warmup_fraction",
                format!(
                    "{} is set with statistics.warmup_requests = {}: the warm-up is a number of \
                     requests or a share of them, not both",
                    self.warmup_fraction, self.warmup_requests
                ),
            ));
        }
        Ok(())
    }

    /// The requests that warm up a run of `total` requests, or None with no window. An error
    /// names the key when the warm-up leaves no request to measure.
    pub fn warmup_of(&self, total: u64) -> Result<Option<u64>, Error> {
        if self.is_off() {
            return Ok(None);
        }
        let (key, n) = match self.warmup_requests {
            0 => (
                "statistics.warmup_fraction",
                share_of(self.warmup_fraction, total),
            ),
            n => ("statistics.warmup_requests", n),
        };
        if n >= total {
            return Err(Error::config(
                key,
                format!(
                    "warms up on {n} of the run's {total} requests: no request is left to \
                     measure"
                ),
            ));
        }
        Ok(Some(n))
    }
}

/// floor(`share` × `total`), for the share as written: 0.29 is stored as 0.28999…, and
/// 0.29 × 100 as 28.999…, which a plain floor would take for 28.
fn share_of(share: f64, total: u64) -> u64 {
    let x = share * total as f64;
    let nearest = x.round();
    if (x - nearest).abs() <= 1e-9 * nearest.max(1.0) {
        nearest as u64
    } else {
        x.floor() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(requests: u64, share: f64) -> StatisticsConfig {
        StatisticsConfig {
            warmup_requests: requests,
            warmup_fraction: share,
        }
    }

    #[test]
    fn a_share_is_the_floor_of_the_decimal_written() {
        assert_eq!(window(0, 0.29).warmup_of(100).unwrap(), Some(29));
        assert_eq!(window(0, 0.5).warmup_of(7).unwrap(), Some(3));
        assert_eq!(window(0, 0.5).warmup_of(1).unwrap(), Some(0));
        assert_eq!(window(0, 0.999).warmup_of(1000).unwrap(), Some(999));
        assert_eq!(window(0, 0.0).warmup_of(1000).unwrap(), None);
        assert_eq!(window(10, 0.0).warmup_of(11).unwrap(), Some(10));
    }

    #[test]
    fn a_warmup_that_leaves_nothing_to_measure_names_its_key() {
        let e = window(10, 0.0).warmup_of(10).unwrap_err().to_string();
        assert!(e.contains("`statistics.warmup_requests`"), "{e}");
        assert!(e.contains("10 of the run's 10 requests"), "{e}");
        // (0.9999 × 2 = 1.9998: one request warms up, one is measured.)
        assert_eq!(window(0, 0.9999).warmup_of(2).unwrap(), Some(1));
    }

    #[test]
    fn a_count_and_a_share_together_or_a_share_of_one_are_refused() {
        let e = window(5, 0.5).validate().unwrap_err().to_string();
        assert!(e.contains("`statistics.warmup_fraction`"), "{e}");
        assert!(e.contains("not both"), "{e}");
        for share in [1.0, -0.1, f64::NAN, 2.0] {
            let e = window(0, share).validate().unwrap_err().to_string();
            assert!(
                e.contains("`statistics.warmup_fraction`: must be in [0, 1)"),
                "{e}"
            );
        }
        window(5, 0.0).validate().unwrap();
        window(0, 0.5).validate().unwrap();
    }
}
