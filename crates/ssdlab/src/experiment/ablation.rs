//! An ablation: configs generated from a base device and a list of techniques, each a table of
//! overrides. `[ablation]` stands for `none` (the base, every technique off), each technique
//! alone, each technique left out of the full set, and the full set, each config labelled by the
//! techniques it turns on (`compression+partial+melded`). Techniques' overrides merge deeply
//! (tables key by key); two techniques that give one key two values are refused naming both and
//! the key, unless an `[[ablation.together]]` entry says what the device does when both are on.
//! docs/experiments.md, "Ablation".

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::spec::ConfigSpec;
use crate::error::Error;

/// The `[ablation]` section of an experiment.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ablation {
    /// The base device's preset (every technique off).
    #[serde(default = "default_preset")]
    pub preset: String,
    /// Merged over the preset; relative to the experiment file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_file: Option<PathBuf>,
    /// Overrides every config of the ablation has (the base device), as `--set` gives them;
    /// a technique's overrides go after them.
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub set: toml::Table,
    /// The techniques, in the order their names appear in labels and the report.
    pub techniques: Vec<Technique>,
    /// What the device does when several techniques are on together where their overrides
    /// would disagree (or where the engine needs another value for the combination).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub together: Vec<Together>,
}

fn default_preset() -> String {
    "default".into()
}

/// One technique: a short name (a part of config labels) and the overrides that turn it on.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Technique {
    pub name: String,
    /// One line for the report's list of techniques.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub set: toml::Table,
}

/// Overrides for every config that has all of `techniques` on: each key replaces whatever those
/// techniques set at it or under it (a conflict there is settled), after their merge.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Together {
    pub techniques: Vec<String>,
    /// One line for the report: why the combination needs these values.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub set: toml::Table,
}

/// The label of the config with no technique on.
pub const NONE: &str = "none";

/// A dotted key as its parts.
type KeyPath = Vec<String>;

fn dotted(path: &[String]) -> String {
    path.join(".")
}

/// Whether `prefix` is `path` or one of the tables above it.
fn covers(prefix: &[String], path: &[String]) -> bool {
    path.len() >= prefix.len() && path[..prefix.len()] == *prefix
}

/// Overrides as a nested table, and the keys they were written at (each key replaces the value
/// there, as `--set` does; keys inside a written table are patches of it).
#[derive(Clone, Debug, Default)]
struct Overrides {
    tree: toml::Table,
    written: Vec<KeyPath>,
}

impl Overrides {
    /// Apply `key = value` as `--set key=value` applies it to a config.
    fn apply(&mut self, at: &str, key: &str, value: &toml::Value) -> Result<(), Error> {
        let path: KeyPath = key.split('.').map(str::to_string).collect();
        if path.iter().any(String::is_empty) {
            return Err(Error::config(
                at,
                format!("`{key}`: a key is dotted names, none of them empty"),
            ));
        }
        let (last, parents) = path.split_last().expect("split gives one part at least");
        let mut table = &mut self.tree;
        for (i, part) in parents.iter().enumerate() {
            let entry = table
                .entry(part.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            table = match entry {
                toml::Value::Table(t) => t,
                _ => {
                    return Err(Error::config(
                        at,
                        format!(
                            "`{key}`: `{}` is set to a value, not a table",
                            dotted(&path[..=i])
                        ),
                    ))
                }
            };
        }
        table.insert(last.clone(), value.clone());
        self.written.retain(|w| w != &path);
        self.written.push(path);
        Ok(())
    }

    fn of(at: &str, set: &toml::Table) -> Result<Overrides, Error> {
        let mut o = Overrides::default();
        for (k, v) in set {
            o.apply(at, k, v)?;
        }
        Ok(o)
    }

    fn get(&self, path: &[String]) -> Option<&toml::Value> {
        let (last, parents) = path.split_last()?;
        let mut table = &self.tree;
        for part in parents {
            table = table.get(part)?.as_table()?;
        }
        table.get(last)
    }

    /// The written keys no other written key contains, in order: applying each with the value
    /// the tree holds there gives what applying every override in turn gives.
    fn topmost(&self) -> Vec<&KeyPath> {
        self.written
            .iter()
            .filter(|p| !self.written.iter().any(|q| q != *p && covers(q, p)))
            .collect()
    }

    /// The overrides as one table of dotted keys, none inside another (so their order does not
    /// matter).
    fn flat(&self) -> toml::Table {
        self.topmost()
            .into_iter()
            .filter_map(|p| Some((dotted(p), self.get(p)?.clone())))
            .collect()
    }
}

/// Two techniques' values at one key.
#[derive(Clone, Debug)]
struct Conflict {
    path: KeyPath,
    first: usize,
    second: usize,
    values: (String, String),
}

/// Every leaf of a nested table (a value that is not a table, or an empty table), with its path.
fn leaves(table: &toml::Table, prefix: &mut KeyPath, out: &mut Vec<(KeyPath, toml::Value)>) {
    for (k, v) in table {
        prefix.push(k.clone());
        match v {
            toml::Value::Table(t) if !t.is_empty() => leaves(t, prefix, out),
            _ => out.push((prefix.clone(), v.clone())),
        }
        prefix.pop();
    }
}

/// A value as the report and errors give it: a table inline (`{ policy = "partial" }`).
fn show(v: &toml::Value) -> String {
    v.to_string()
}

impl Ablation {
    /// The label of the config with the techniques `on` (by index): their names joined by `+`
    /// in the file's order, or `none`.
    pub fn label(&self, on: &[bool]) -> String {
        let names: Vec<&str> = (self.techniques.iter().zip(on))
            .filter(|(_, on)| **on)
            .map(|(t, _)| t.name.as_str())
            .collect();
        match names.is_empty() {
            true => NONE.to_string(),
            false => names.join("+"),
        }
    }

    /// The label of technique `i` alone.
    pub fn alone(&self, i: usize) -> String {
        let on: Vec<bool> = (0..self.techniques.len()).map(|j| j == i).collect();
        self.label(&on)
    }

    /// The label of the full set without technique `i`.
    pub fn left_out(&self, i: usize) -> String {
        let on: Vec<bool> = (0..self.techniques.len()).map(|j| j != i).collect();
        self.label(&on)
    }

    /// The label of the full set.
    pub fn all(&self) -> String {
        self.label(&vec![true; self.techniques.len()])
    }

    /// The sets of techniques the ablation runs, in order: none, each alone, each left out of the
    /// full set, the full set; each set once (with one or two techniques some coincide).
    pub fn sets(&self) -> Vec<Vec<bool>> {
        let n = self.techniques.len();
        let mut sets: Vec<Vec<bool>> = vec![vec![false; n]];
        sets.extend((0..n).map(|i| (0..n).map(|j| j == i).collect()));
        sets.extend((0..n).map(|i| (0..n).map(|j| j != i).collect()));
        sets.push(vec![true; n]);
        let mut unique: Vec<Vec<bool>> = Vec::new();
        for s in sets {
            if !unique.contains(&s) {
                unique.push(s);
            }
        }
        unique
    }

    /// Names, sets and `together` entries are well formed; errors name the key.
    fn check(&self) -> Result<(), Error> {
        if self.techniques.is_empty() {
            return Err(Error::config(
                "ablation.techniques",
                "must name at least one technique",
            ));
        }
        for (i, t) in self.techniques.iter().enumerate() {
            let at = format!("ablation.techniques[{i}].name");
            let ok = !t.name.is_empty()
                && (t.name.chars()).all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !ok {
                return Err(Error::config(
                    &at,
                    format!(
                        "`{}`: a technique's name is letters, digits, `_` and `-` (labels join \
                         names with `+`)",
                        t.name
                    ),
                ));
            }
            if t.name == NONE {
                return Err(Error::config(
                    &at,
                    "`none` is the label of the config with every technique off",
                ));
            }
            if self.techniques[..i].iter().any(|o| o.name == t.name) {
                return Err(Error::config(&at, format!("`{}` is used twice", t.name)));
            }
            if t.set.is_empty() {
                return Err(Error::config(
                    &format!("ablation.techniques[{i}].set"),
                    "must set the keys that turn the technique on",
                ));
            }
        }
        for (g, entry) in self.together.iter().enumerate() {
            let at = |k: &str| format!("ablation.together[{g}].{k}");
            if entry.techniques.len() < 2 {
                return Err(Error::config(
                    &at("techniques"),
                    "names the two or more techniques the overrides are for",
                ));
            }
            for (j, name) in entry.techniques.iter().enumerate() {
                if !self.techniques.iter().any(|t| &t.name == name) {
                    return Err(Error::config(
                        &at(&format!("techniques[{j}]")),
                        format!("`{name}` is not a technique of the ablation"),
                    ));
                }
                if entry.techniques[..j].contains(name) {
                    return Err(Error::config(
                        &at(&format!("techniques[{j}]")),
                        format!("`{name}` is listed twice"),
                    ));
                }
            }
            if entry.set.is_empty() {
                return Err(Error::config(&at("set"), "must set some config key"));
            }
            let keys = Overrides::of(&at("set"), &entry.set)?.written;
            // Every entry applies to the full set: two that set one key (or a table and a key
            // in it) would leave it to their order.
            for (h, other) in self.together[..g].iter().enumerate() {
                let theirs = Overrides::of(&format!("ablation.together[{h}].set"), &other.set)?;
                for k in &keys {
                    if let Some(o) = theirs.written.iter().find(|o| covers(o, k) || covers(k, o)) {
                        return Err(Error::config(
                            &at("set"),
                            format!(
                                "`{}` overlaps `{}` of ablation.together[{h}]: both apply when \
                                 every technique is on; set each key in one entry",
                                dotted(k),
                                dotted(o)
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The overrides of the config with the techniques `on`: the common `set`, then the
    /// techniques' overrides merged deeply, then the `together` entries whose techniques are
    /// all on; one table of dotted keys, none inside another.
    fn overrides(&self, on: &[bool]) -> Result<toml::Table, Error> {
        let mut merged = Overrides::default();
        let mut owner: Vec<(KeyPath, usize)> = Vec::new();
        let mut conflicts: Vec<Conflict> = Vec::new();
        for (i, t) in self.techniques.iter().enumerate().filter(|(i, _)| on[*i]) {
            let own = Overrides::of(&format!("ablation.techniques[{i}].set"), &t.set)?;
            let mut found = Vec::new();
            leaves(&own.tree, &mut Vec::new(), &mut found);
            for (path, value) in found {
                // A value of another technique at this key, or at a key above it (a value where
                // this one needs a table), or below it (a table where this one gives a value).
                let clash = owner
                    .iter()
                    .find(|(p, _)| covers(p, &path) || covers(&path, p));
                match clash {
                    // The same value twice agrees.
                    Some((p, _)) if p == &path && merged.get(&path) == Some(&value) => {}
                    Some((p, j)) => {
                        let theirs = merged.get(p).map(show).unwrap_or_default();
                        let key = if covers(p, &path) { p } else { &path };
                        conflicts.push(Conflict {
                            path: key.clone(),
                            first: *j,
                            second: i,
                            values: (theirs, show(&value)),
                        });
                    }
                    None => {
                        merged.apply(
                            &format!("ablation.techniques[{i}].set"),
                            &dotted(&path),
                            &value,
                        )?;
                        owner.push((path, i));
                    }
                }
            }
            for w in own.written {
                if !merged.written.contains(&w) {
                    merged.written.push(w);
                }
            }
        }
        // Keys written as patches of a table another technique replaced are inside that
        // table: `topmost` keeps the table, whose merged value holds them.
        let mut result = Overrides::of("ablation.set", &self.set)?;
        for p in merged.topmost() {
            // The technique that wrote the key, for an error (a key inside a value of the
            // common `set`).
            let by = (owner.iter())
                .find(|(o, _)| covers(p, o) || covers(o, p))
                .map_or(0, |(_, i)| *i);
            if let Some(v) = merged.get(p) {
                result.apply(&format!("ablation.techniques[{by}].set"), &dotted(p), v)?;
            }
        }
        for (g, entry) in self.together.iter().enumerate() {
            let all_on = entry
                .techniques
                .iter()
                .all(|name| (self.techniques.iter().zip(on)).any(|(t, on)| *on && &t.name == name));
            if !all_on {
                continue;
            }
            let own = Overrides::of(&format!("ablation.together[{g}].set"), &entry.set)?;
            for p in &own.written {
                conflicts.retain(|c| !covers(p, &c.path));
                let v = own.get(p).expect("a written key holds its value");
                result.apply(&format!("ablation.together[{g}].set"), &dotted(p), v)?;
            }
        }
        if let Some(c) = conflicts.first() {
            let (a, b) = (
                &self.techniques[c.first].name,
                &self.techniques[c.second].name,
            );
            return Err(Error::config(
                &format!("ablation.techniques[{}].set", c.second),
                format!(
                    "techniques `{a}` and `{b}` both set `{}`, to {} and {}: give the value the \
                     device has with both on in an [[ablation.together]] entry for them, or make \
                     them agree",
                    dotted(&c.path),
                    c.values.0,
                    c.values.1
                ),
            ));
        }
        Ok(result.flat())
    }

    /// The configs of the ablation, in the order of [`Ablation::sets`], each labelled by the
    /// techniques it turns on (which it also lists, for experiment.json).
    pub fn configs(&self) -> Result<Vec<ConfigSpec>, Error> {
        self.check()?;
        self.sets()
            .into_iter()
            .map(|on| {
                let techniques = (self.techniques.iter().zip(&on))
                    .filter(|(_, on)| **on)
                    .map(|(t, _)| t.name.clone())
                    .collect();
                Ok(ConfigSpec {
                    label: self.label(&on),
                    preset: self.preset.clone(),
                    config_file: self.config_file.clone(),
                    set: self.overrides(&on)?,
                    baseline: None,
                    params: toml::Table::new(),
                    sweep: Vec::new(),
                    name: None,
                    techniques: Some(techniques),
                })
            })
            .collect()
    }

    /// Each technique's overrides, as the report lists them (`key = value`, joined by `, `).
    pub fn describe_set(set: &toml::Table) -> String {
        set.iter()
            .map(|(k, v)| format!("`{k} = {}`", show(v)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ablation(text: &str) -> Ablation {
        toml::from_str(text).expect("an ablation")
    }

    const THREE: &str = r#"
preset = "pr-ssd"
set = { "ftl.mapping_unit_kib" = 4, "ftl.read_policy" = { policy = "full" } }
[[techniques]]
name = "compression"
set = { "ftl.reduction" = { policy = "compress", codec = "dpc" }, "ftl.max_units_per_page" = 12 }
[[techniques]]
name = "partial"
set = { "ftl.read_policy" = { policy = "partial" } }
[[techniques]]
name = "melded"
set = { "ftl.read_policy" = { policy = "melded" }, "ftl.read_policy.read_ahead_kib" = 1024, "ftl.host_streams.policy" = "wordlines" }
[[together]]
techniques = ["partial", "melded"]
set = { "ftl.read_policy" = { policy = "melded", pages = { policy = "partial" }, read_ahead_kib = 1024 } }
"#;

    #[test]
    fn an_ablation_is_none_each_alone_each_left_out_and_all() {
        let a = ablation(THREE);
        let labels: Vec<String> = a
            .configs()
            .unwrap()
            .iter()
            .map(|c| c.label.clone())
            .collect();
        assert_eq!(
            labels,
            [
                "none",
                "compression",
                "partial",
                "melded",
                "partial+melded",
                "compression+melded",
                "compression+partial",
                "compression+partial+melded",
            ]
        );
        assert_eq!(a.alone(1), "partial");
        assert_eq!(a.left_out(1), "compression+melded");
        assert_eq!(a.all(), "compression+partial+melded");
        // Two techniques: left out is the other alone, each set once.
        let two = Ablation {
            techniques: a.techniques[..2].to_vec(),
            together: Vec::new(),
            ..a.clone()
        };
        let labels: Vec<String> = two
            .configs()
            .unwrap()
            .iter()
            .map(|c| c.label.clone())
            .collect();
        assert_eq!(
            labels,
            ["none", "compression", "partial", "compression+partial"]
        );
        assert_eq!(two.left_out(0), "partial");
    }

    #[test]
    fn overrides_merge_deeply_and_together_settles_a_combination() {
        let a = ablation(THREE);
        let configs = a.configs().unwrap();
        let set = |label: &str| {
            let c = configs.iter().find(|c| c.label == label).unwrap();
            toml::to_string(&c.set).unwrap()
        };
        // The base alone.
        assert_eq!(
            set("none"),
            "\"ftl.mapping_unit_kib\" = 4\n\n[\"ftl.read_policy\"]\npolicy = \"full\"\n"
        );
        // Melded's table and its patch of it are one table, replacing the base's.
        let melded = &configs[3].set;
        assert_eq!(
            melded["ftl.read_policy"].to_string(),
            "{ policy = \"melded\", read_ahead_kib = 1024 }"
        );
        assert_eq!(
            melded["ftl.host_streams.policy"].as_str(),
            Some("wordlines")
        );
        assert!(!melded.contains_key("ftl.read_policy.read_ahead_kib"));
        // Compression and melded touch other keys: both tables, merged.
        let both = &configs[5].set;
        assert_eq!(both["ftl.reduction"]["codec"].as_str(), Some("dpc"));
        assert_eq!(both["ftl.read_policy"]["policy"].as_str(), Some("melded"));
        assert_eq!(both["ftl.mapping_unit_kib"].as_integer(), Some(4));
        // Partial and melded disagree on the policy: `together` gives the device's value.
        let all = &configs[7].set;
        assert_eq!(
            all["ftl.read_policy"].to_string(),
            "{ pages = { policy = \"partial\" }, policy = \"melded\", read_ahead_kib = 1024 }"
        );
        // No key lies inside another: the order they are applied in does not matter.
        for c in &configs {
            for k in c.set.keys() {
                for o in c.set.keys().filter(|o| *o != k) {
                    assert!(!k.starts_with(&format!("{o}.")), "{}: {k} in {o}", c.label);
                }
            }
            let on = c.techniques.as_ref().unwrap();
            match on.is_empty() {
                true => assert_eq!(c.label, "none"),
                false => assert_eq!(c.label, on.join("+")),
            }
        }
    }

    #[test]
    fn two_techniques_that_disagree_are_refused_naming_both_and_the_key() {
        let mut a = ablation(THREE);
        a.together.clear();
        let e = a.configs().unwrap_err().to_string();
        assert!(
            e.contains("`ablation.techniques[2].set`")
                && e.contains("`partial` and `melded`")
                && e.contains("`ftl.read_policy.policy`")
                && e.contains("\"partial\" and \"melded\""),
            "{e}"
        );
        // A value where the other gives a table, and the same value twice (no conflict).
        let b = ablation(
            r#"
[[techniques]]
name = "a"
set = { "ftl.split" = "x", "seed" = 3 }
[[techniques]]
name = "b"
set = { "ftl.split.policy" = "all", "seed" = 3 }
"#,
        );
        let e = b.configs().unwrap_err().to_string();
        assert!(e.contains("`a` and `b` both set `ftl.split`"), "{e}");
    }

    #[test]
    fn bad_names_and_together_entries_are_refused_by_key() {
        let cases = [
            ("[[techniques]]\nname = \"a+b\"\nset = { seed = 1 }\n", "ablation.techniques[0].name", "letters"),
            ("[[techniques]]\nname = \"none\"\nset = { seed = 1 }\n", "ablation.techniques[0].name", "every technique off"),
            ("[[techniques]]\nname = \"a\"\nset = { seed = 1 }\n[[techniques]]\nname = \"a\"\nset = { seed = 1 }\n", "ablation.techniques[1].name", "twice"),
            ("[[techniques]]\nname = \"a\"\nset = {}\n", "ablation.techniques[0].set", "turn the technique on"),
            ("techniques = []\n", "ablation.techniques", "at least one"),
            ("[[techniques]]\nname = \"a\"\nset = { seed = 1 }\n[[together]]\ntechniques = [\"a\"]\nset = { seed = 2 }\n", "ablation.together[0].techniques", "two or more"),
            ("[[techniques]]\nname = \"a\"\nset = { seed = 1 }\n[[together]]\ntechniques = [\"a\", \"b\"]\nset = { seed = 2 }\n", "ablation.together[0].techniques[1]", "not a technique"),
            (
                "[[techniques]]\nname = \"a\"\nset = { seed = 1 }\n[[techniques]]\nname = \"b\"\nset = { seed = 1 }\n\
                 [[together]]\ntechniques = [\"a\", \"b\"]\nset = { \"ftl.read_policy\" = { policy = \"full\" } }\n\
                 [[together]]\ntechniques = [\"b\", \"a\"]\nset = { \"ftl.read_policy.policy\" = \"dma\" }\n",
                "ablation.together[1].set",
                "overlaps `ftl.read_policy`",
            ),
            ("[[techniques]]\nname = \"a\"\nset = { \"ftl..x\" = 1 }\n", "ablation.techniques[0].set", "none of them empty"),
        ];
        for (text, key, why) in cases {
            let e = ablation(text)
                .configs()
                .map(drop)
                .expect_err(text)
                .to_string();
            assert!(
                e.contains(&format!("`{key}`")) && e.contains(why),
                "{text}: {e}"
            );
        }
    }
}
