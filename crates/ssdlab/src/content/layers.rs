//! How `[content]` tables from different places combine: the preset's, then a named workload's
//! (each shipped PR-SSD workload carries the mix of real files its data is made of), then the
//! user's (the config file's `[content]` and `--set content.…`, merged as every other section
//! is). Later layers win, but not key by key for every key: which bytes units get is one choice.
//!
//! - A layer that **names the bytes** — sets `source`, `dir` or `mix` — replaces the byte choice
//!   of the layers below it whole: their `source`, `dir`, `mix` and `alignment_bytes` are
//!   dropped. So `--set content.dir=my/files` over a workload's mix cuts the user's files, not a
//!   mix with a directory in it, and `source = "synthetic"` drops a mix of files.
//! - Every other key (the zero-unit options, `alignment_bytes` alone) merges key by key, so
//!   `--set content.partial_zero_fraction=0.06` keeps the workload's mix and adds partly zero
//!   units.
//!
//! A value that is not a table (a mistyped `--set content=5`) replaces what is below it, so the
//! config's own type check reports it.

/// Keys that name the bytes units get.
const NAMES_THE_BYTES: [&str; 3] = ["source", "dir", "mix"];

/// Keys dropped from the layers below one that names the bytes: the byte choice and the
/// alignment of its files.
const BYTE_CHOICE: [&str; 4] = ["source", "dir", "mix", "alignment_bytes"];

/// Whether a `[content]` layer names the bytes (sets `source`, `dir` or `mix`).
pub fn names_the_bytes(layer: &toml::Value) -> bool {
    layer
        .as_table()
        .is_some_and(|t| NAMES_THE_BYTES.iter().any(|k| t.contains_key(*k)))
}

/// `over` laid on `base` by the rule in the module doc; either may be absent.
pub fn lay(base: Option<toml::Value>, over: Option<toml::Value>) -> Option<toml::Value> {
    let Some(over) = over else {
        return base;
    };
    match (base, over) {
        (Some(toml::Value::Table(mut below)), toml::Value::Table(above)) => {
            if names_the_bytes(&toml::Value::Table(above.clone())) {
                below.retain(|k, _| !BYTE_CHOICE.contains(&k));
            }
            below.extend(above);
            Some(toml::Value::Table(below))
        }
        (_, over) => Some(over),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Option<toml::Value> {
        Some(toml::Value::Table(
            toml::from_str(text).expect("valid TOML"),
        ))
    }

    #[test]
    fn naming_the_bytes_replaces_the_byte_choice_below() {
        let workload = t(
            "mix = [{ files = ['archives/*'], fraction = 1.0 }]\nalignment_bytes = 512\n\
                          zero_unit_fraction = 0.1",
        );
        assert_eq!(
            lay(workload.clone(), t("dir = 'mine'")),
            t("dir = 'mine'\nzero_unit_fraction = 0.1")
        );
        assert_eq!(
            lay(workload.clone(), t("source = 'synthetic'")),
            t("source = 'synthetic'\nzero_unit_fraction = 0.1")
        );
    }

    #[test]
    fn other_keys_merge_one_by_one() {
        let workload = t("mix = [{ files = ['archives/*'], fraction = 1.0 }]");
        assert_eq!(
            lay(workload.clone(), t("partial_zero_fraction = 0.06")),
            t("mix = [{ files = ['archives/*'], fraction = 1.0 }]\npartial_zero_fraction = 0.06")
        );
        assert_eq!(
            lay(workload.clone(), t("alignment_bytes = 1")),
            t("mix = [{ files = ['archives/*'], fraction = 1.0 }]\nalignment_bytes = 1")
        );
        assert_eq!(lay(workload.clone(), None), workload);
        assert_eq!(lay(None, workload.clone()), workload);
        assert_eq!(
            lay(workload, Some(toml::Value::Integer(5))),
            Some(toml::Value::Integer(5))
        );
    }
}
