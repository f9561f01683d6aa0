//! `--set dotted.key=value` overrides applied to the TOML tree before deserialisation, so an
//! unknown key is reported by the same `deny_unknown_fields` check as in a file.

use crate::error::Error;

/// Apply one `a.b.c=value` override. The value is read as a TOML value (`0.05`, `true`,
/// `"text"`, `[1, 2]`, `{ policy = "greedy" }`); anything that is not valid TOML is taken as a
/// plain string, so `--set ftl.gc_victim.policy=greedy` works without quotes.
pub fn apply_override(root: &mut toml::Table, set: &str) -> Result<(), Error> {
    let (key, raw) = set.split_once('=').ok_or_else(|| Error::Override {
        set: set.to_string(),
        reason: "expected key=value".into(),
    })?;
    let key = key.trim();
    if key.is_empty() || key.split('.').any(str::is_empty) {
        return Err(Error::Override {
            set: set.to_string(),
            reason: "the key is empty or has an empty part".into(),
        });
    }
    let value = parse_value(raw.trim());
    let parts: Vec<&str> = key.split('.').collect();
    let (last, path) = parts.split_last().ok_or_else(|| Error::Override {
        set: set.to_string(),
        reason: "empty key".into(),
    })?;
    let mut table = root;
    for (i, part) in path.iter().enumerate() {
        let entry = table
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        table = match entry {
            toml::Value::Table(t) => t,
            _ => {
                return Err(Error::Override {
                    set: set.to_string(),
                    reason: format!("`{}` is not a table", parts[..=i].join(".")),
                })
            }
        };
    }
    table.insert(last.to_string(), value);
    Ok(())
}

/// The dotted key of an override (`ftl.gc_threshold` of `ftl.gc_threshold=0.05`), trimmed;
/// None without `=`.
pub(crate) fn override_key(set: &str) -> Option<&str> {
    set.split_once('=').map(|(key, _)| key.trim())
}

fn parse_value(raw: &str) -> toml::Value {
    match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(raw.into())),
        Err(_) => toml::Value::String(raw.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    #[test]
    fn sets_nested_values_with_types() -> TestResult {
        let mut t: toml::Table = toml::from_str("[ftl]\ngc_threshold = 0.1\n")?;
        apply_override(&mut t, "ftl.gc_threshold=0.05")?;
        apply_override(&mut t, "ftl.gc_victim.policy=greedy")?;
        apply_override(&mut t, "seed=7")?;
        assert_eq!(t["ftl"]["gc_threshold"].as_float(), Some(0.05));
        assert_eq!(t["ftl"]["gc_victim"]["policy"].as_str(), Some("greedy"));
        assert_eq!(t["seed"].as_integer(), Some(7));
        Ok(())
    }

    #[test]
    fn rejects_malformed_overrides() -> TestResult {
        let mut t = toml::Table::new();
        assert!(apply_override(&mut t, "novalue").is_err());
        assert!(apply_override(&mut t, "a..b=1").is_err());
        apply_override(&mut t, "a=1")?;
        let e = apply_override(&mut t, "a.b=1").err().map(|e| e.to_string());
        assert!(
            e.as_deref()
                .is_some_and(|e| e.contains("`a` is not a table")),
            "{e:?}"
        );
        Ok(())
    }
}
