//! Which stream a request belongs to ([`StreamRule`]): the id a host would give it in NVMe's
//! streams directive, so that placement can keep a stream's writes together. Generators draw
//! theirs from their working set; a trace flow's rule assigns ids to a trace that has none
//! (blkparse, MSR, …), from its own addresses.

use super::StreamRule;
use crate::error::Error;

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

/// The stream id of a request starting `offset_bytes` into the working set, under a validated
/// rule.
#[inline]
pub(super) fn id_of(rule: &StreamRule, offset_bytes: u64) -> u16 {
    rule.id(offset_bytes)
        .unwrap_or_else(|| unreachable!("validation bounds the last extent's id by u16::MAX"))
}

/// Check a rule that a trace's addresses will be put through; errors name `key`'s parameter.
/// Ids past 65,535 are refused when the trace is read, naming its line.
pub(crate) fn validate_for_trace(rule: &StreamRule, key: &str) -> Result<(), Error> {
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
pub(super) fn validate(rule: &StreamRule, key: &str, working_set_bytes: u64) -> Result<(), Error> {
    validate_for_trace(rule, key)?;
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
