//! Which stream a generated request belongs to ([`StreamRule`]): the id a host would give it in
//! NVMe's streams directive, so that placement can keep a stream's writes together.

use super::StreamRule;
use crate::error::Error;

/// The stream id of a request starting `offset_bytes` into the working set, under a validated
/// rule.
#[inline]
pub(super) fn id_of(rule: &StreamRule, offset_bytes: u64) -> u16 {
    match rule {
        // Validation bounds the last extent's id by u16::MAX.
        StreamRule::PerExtent { extent_bytes } => (offset_bytes / extent_bytes + 1) as u16,
    }
}

/// Check a rule over a working set of `working_set_bytes`; errors name `key`'s parameter.
///
/// Ids past 65,535 are refused rather than wrapped: a wrapped id would give two extents one
/// stream, and two HDFS blocks written at once would then share open blocks and wordlines,
/// which distinct stream ids exist to prevent (melded-pages.txt §2.3). The working set bounds
/// every id, so the refusal comes before the run.
pub(super) fn validate(rule: &StreamRule, key: &str, working_set_bytes: u64) -> Result<(), Error> {
    match rule {
        StreamRule::PerExtent { extent_bytes: 0 } => Err(Error::config(
            &format!("{key}.extent_bytes"),
            "must be positive",
        )),
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
