//! Which keys a run's user gave, in a config file or in overrides, so that a limit several keys
//! make together is blamed on a key the user set rather than on one the preset did
//! (`ftl.gc_reserved_blocks = 200` was blamed on `ftl.gc_threshold`).

use super::overrides::override_key;
use crate::error::Error;

#[derive(Debug, Default)]
pub(crate) struct Given {
    /// Dotted keys of the overrides, and of the file; a table or an array given whole stands
    /// for every key inside it.
    sets: Vec<String>,
    file: Vec<String>,
}

impl Given {
    /// The keys a config file's `table` sets, and those of `sets` (`--set` overrides).
    pub fn new(table: Option<&toml::Table>, sets: &[String]) -> Given {
        let mut file = Vec::new();
        if let Some(t) = table {
            leaves(t, "", &mut file);
        }
        let sets = sets
            .iter()
            .filter_map(|s| override_key(s))
            .map(String::from);
        Given {
            sets: sets.collect(),
            file,
        }
    }

    /// Whether the user gave `key` (`geometry.regions[1].nop`), or a table or array holding it.
    pub fn gives(&self, key: &str) -> bool {
        holds(&self.sets, key) || holds(&self.file, key)
    }

    /// The error of a limit that several keys make together: the first of `blamed` and
    /// `others` (each a key and the reason, put as that key's) that an override gave, else the
    /// first the file gave, else `blamed`.
    pub fn blame(&self, blamed: (String, String), others: Vec<(String, String)>) -> Error {
        let mut culprits = vec![blamed];
        culprits.extend(others);
        let by = |keys: &[String]| culprits.iter().position(|(k, _)| holds(keys, k));
        let i = by(&self.sets).or_else(|| by(&self.file)).unwrap_or(0);
        let (key, reason) = culprits.swap_remove(i);
        Error::config(&key, reason)
    }
}

/// Whether `keys` hold `key`, themselves or as a table or array around it.
fn holds(keys: &[String], key: &str) -> bool {
    keys.iter().any(|g| {
        key.strip_prefix(g.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
    })
}

/// The dotted keys of `table`'s values that are not tables, under `prefix`.
fn leaves(table: &toml::Table, prefix: &str, out: &mut Vec<String>) {
    for (k, v) in table {
        let key = match prefix {
            "" => k.clone(),
            p => format!("{p}.{k}"),
        };
        match v {
            toml::Value::Table(t) => leaves(t, &key, out),
            _ => out.push(key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_is_blamed_on_the_key_the_user_gave() {
        let file: toml::Table = toml::from_str("[ftl]\ngc_threshold = 0.9\n").unwrap();
        let sets = ["geometry.regions=[]".to_string()];
        let given = Given::new(Some(&file), &sets);
        assert!(given.gives("ftl.gc_threshold") && given.gives("geometry.regions[1].nop"));
        assert!(!given.gives("ftl.gc_threshold_x") && !given.gives("ftl"));
        let culprit = |k: &str| (k.to_string(), format!("{k} is why"));
        let blame = |g: &Given| {
            g.blame(
                culprit("ftl.overprovisioning_ratio"),
                vec![
                    culprit("ftl.gc_reserved_blocks"),
                    culprit("ftl.gc_threshold"),
                ],
            )
            .to_string()
        };
        assert!(blame(&given).starts_with("config key `ftl.gc_threshold`"));
        // An override before the file.
        let sets = ["ftl.gc_reserved_blocks=9".to_string()];
        let e = blame(&Given::new(Some(&file), &sets));
        assert!(e.starts_with("config key `ftl.gc_reserved_blocks`"), "{e}");
        // Nothing the user gave: the first.
        let e = blame(&Given::default());
        assert!(
            e.starts_with("config key `ftl.overprovisioning_ratio`"),
            "{e}"
        );
    }
}
