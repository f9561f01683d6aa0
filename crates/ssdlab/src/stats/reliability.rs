//! What reads found under the error model (`reliability` in the summary; present when
//! `reliability.model` is not `fixed`).

use serde_json::{json, Value};

use crate::flash::reliability::Decode;

#[derive(Clone, Default)]
pub struct ReliabilityStats {
    /// Flash reads for the host, and for GC and wear levelling.
    host: ReadErrors,
    internal: ReadErrors,
}

#[derive(Clone, Copy, Default)]
struct ReadErrors {
    reads: u64,
    rber_sum: f64,
    decode_ns_sum: u64,
    retries: u64,
    uncorrectable: u64,
}

impl ReadErrors {
    fn to_json(self) -> Value {
        let mean = |sum: f64| (self.reads > 0).then(|| sum / self.reads as f64);
        json!({
            "reads": self.reads,
            // The slides' "read error rate": the mean raw bit error rate a read found.
            "read_error_rate": mean(self.rber_sum),
            "ecc_decode_ns": { "mean": mean(self.decode_ns_sum as f64).map(f64::round) },
            "read_retries": self.retries,
            "uncorrectable_reads": self.uncorrectable,
        })
    }
}

impl ReliabilityStats {
    /// A flash read (for the host if `host`) found raw bit error rate `rber` and decoded so.
    pub fn count(&mut self, host: bool, rber: f64, d: &Decode) {
        let r = match host {
            true => &mut self.host,
            false => &mut self.internal,
        };
        r.reads += 1;
        r.rber_sum += rber;
        r.decode_ns_sum += d.decode_ns;
        r.retries += d.retries as u64;
        r.uncorrectable += u64::from(d.uncorrectable);
    }

    pub fn to_json(&self) -> Value {
        let mut v = self.host.to_json();
        v["internal"] = self.internal.to_json();
        v
    }
}
