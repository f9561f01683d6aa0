//! Tagged tables: `{ policy = "all", width = 4 }`, a tag key naming the variant beside the
//! variant's parameters (the FTL's policies, `reliability.model`).
//!
//! serde's internally tagged enums read such a table through a buffer of its own, which loses
//! where a value came from (a wrong type inside `ftl.split` was reported "in `ftl.split`"), and
//! read a variant without parameters without looking at the other keys (`{ policy = "greedy",
//! wieght = 1 }` was accepted, the typo dropped; serde issue 2123). So each such enum derives
//! serde's externally tagged form as inherent functions (`#[serde(remote = "Self")]`: `{ all = {
//! width = 4 } }`), and [`tagged_table!`] gives it `Serialize` and `Deserialize` through
//! [`serialize`] and [`deserialize`], which move the tag between the two forms. Every parameter
//! is then read by TOML's own deserializer, which names its key, and a variant that takes no
//! parameters refuses any key given with it.

use serde::de::Error as _;
use serde::ser::{Error as _, SerializeMap};
use serde::{Deserialize, Deserializer, Serializer};

/// `Serialize` and `Deserialize` for enums tagged by `$tag` whose derives are
/// `#[serde(remote = "Self")]` (externally tagged, as inherent functions).
macro_rules! tagged_table {
    ($tag:literal: $($ty:ident),+ $(,)?) => {$(
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::config::tagged::serialize(self, $tag, $ty::serialize, s)
            }
        }
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::config::tagged::deserialize(
                    d,
                    $tag,
                    $crate::config::tagged::variants($ty::deserialize),
                    $ty::deserialize,
                )
            }
        }
    )+};
}
pub(crate) use tagged_table;

/// Write `value` as one table: `tag` naming its variant, then the variant's parameters in their
/// order (`external` writes the externally tagged form).
pub(crate) fn serialize<T, S: Serializer>(
    value: &T,
    tag: &str,
    external: fn(&T, serde_json::value::Serializer) -> serde_json::Result<serde_json::Value>,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde_json::Value;
    let (name, parameters) = match external(value, serde_json::value::Serializer) {
        Ok(Value::String(name)) => (name, serde_json::Map::new()),
        Ok(Value::Object(outer)) => match outer.into_iter().next() {
            Some((name, Value::Object(parameters))) => (name, parameters),
            _ => {
                return Err(S::Error::custom(
                    "a tagged variant is a table of parameters",
                ))
            }
        },
        Ok(_) => return Err(S::Error::custom("a tagged variant is a name or a table")),
        Err(e) => return Err(S::Error::custom(e)),
    };
    let mut map = s.serialize_map(Some(parameters.len() + 1))?;
    map.serialize_entry(tag, &name)?;
    for (key, value) in &parameters {
        map.serialize_entry(key, &Absent(value))?;
    }
    map.end()
}

/// A parameter as its variant wrote it, a `None` (JSON's null) written as `None` again: JSON
/// writes it as null, TOML, which has no null, leaves the key out.
struct Absent<'a>(&'a serde_json::Value);

impl serde::Serialize for Absent<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        use serde_json::Value;
        match self.0 {
            Value::Null => s.serialize_none(),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Absent(item))?;
                }
                seq.end()
            }
            Value::Object(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, &Absent(value))?;
                }
                map.end()
            }
            v => v.serialize(s),
        }
    }
}

/// Read a table whose `tag` names one of `variants` into the externally tagged form `external`
/// reads. An error inside the table ends with the key it is about (`in `width``), which
/// [`crate::error::Error::toml`] joins to the table's own key.
pub(crate) fn deserialize<'de, D: Deserializer<'de>, T>(
    d: D,
    tag: &str,
    variants: &'static [&'static str],
    external: fn(toml::Value) -> Result<T, toml::de::Error>,
) -> Result<T, D::Error> {
    let mut parameters = toml::Table::deserialize(d)?;
    let in_tag = |e: toml::de::Error| D::Error::custom(format!("{}\nin `{tag}`", e.message()));
    let name = match parameters.remove(tag) {
        Some(toml::Value::String(name)) => name,
        Some(other) => {
            return Err(in_tag(toml::de::Error::custom(format!(
                "invalid type: {}, expected a variant name ({})",
                other.type_str(),
                variants.join(", ")
            ))))
        }
        None => return Err(D::Error::custom(format!("missing field `{tag}`"))),
    };
    if !variants.contains(&name.as_str()) {
        return Err(in_tag(toml::de::Error::unknown_variant(&name, variants)));
    }
    // Only a variant without parameters can be read from its bare name.
    if let Ok(bare) = external(toml::Value::String(name.clone())) {
        return match parameters.keys().next() {
            None => Ok(bare),
            Some(key) => Err(D::Error::custom(format!(
                "unknown field `{key}`: {tag} `{name}` takes no parameters"
            ))),
        };
    }
    let external_form = toml::Table::from_iter([(name, toml::Value::Table(parameters))]);
    external(toml::Value::Table(external_form))
        .map_err(|e| D::Error::custom(e.to_string().trim_end()))
}

/// The variant names an externally tagged enum's derived `Deserialize` (`external`) accepts.
pub(crate) fn variants<T>(
    external: fn(VariantNames) -> Result<T, Names>,
) -> &'static [&'static str] {
    match external(VariantNames) {
        Err(Names(names)) => names,
        Ok(_) => &[],
    }
}

/// A deserializer that has no data: it only learns, from the enum's request, the names of its
/// variants.
pub(crate) struct VariantNames;

/// The names [`VariantNames`] learnt (its "error").
#[derive(Debug)]
pub(crate) struct Names(&'static [&'static str]);

impl std::fmt::Display for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "variants {:?}", self.0)
    }
}

impl std::error::Error for Names {}

impl serde::de::Error for Names {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        Names(&[])
    }
}

impl<'de> Deserializer<'de> for VariantNames {
    type Error = Names;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Names> {
        Err(Names(&[]))
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Names> {
        Err(Names(variants))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use crate::config::*;

    /// The tags the config's tagged tables are read by.
    const TAGS: [&str; 2] = ["policy", "model"];

    /// A tagged table: its key, its tag, and a preset whose config has it (where a variant set
    /// at its key is read as the presets' own are).
    struct Table {
        key: String,
        tag: &'static str,
        preset: &'static str,
    }

    /// What `preset` with `set` is refused with.
    fn refusal(preset: &str, set: &str) -> String {
        match Config::resolve(preset, None, &[set.to_string()]) {
            Ok(_) => panic!("{preset}: `{set}` is accepted"),
            Err(e) => e.to_string(),
        }
    }

    /// The names an error lists after its "expected": a section's keys, when it refuses an
    /// unknown one; a tag's variants, when it refuses an unknown name.
    fn expected(error: &str) -> Vec<String> {
        let Some((_, list)) = error.split_once("expected ") else {
            return Vec::new();
        };
        let list = list.lines().next().unwrap_or("");
        (list.split('`').skip(1).step_by(2))
            .map(str::to_string)
            .collect()
    }

    /// The key of `k` inside the table at `key` ("" for the config).
    fn inside(key: &str, k: &str) -> String {
        match key {
            "" => k.to_string(),
            key => format!("{key}.{k}"),
        }
    }

    /// Every tagged table of `preset`'s config `v` (the table at `key`) joins `tables`: those
    /// its echo writes, and those a section leaves out of it while off, found by asking each key
    /// the section names and the echo lacks for a tag of an unknown variant.
    fn walk(preset: &'static str, v: &serde_json::Value, key: &str, tables: &mut Vec<Table>) {
        let Some(map) = v.as_object() else { return };
        let known = |tables: &Vec<Table>, key: &str| tables.iter().any(|t| t.key == key);
        let tag = TAGS
            .into_iter()
            .find(|t| map.get(*t).is_some_and(|t| t.is_string()));
        match tag {
            Some(tag) if !known(tables, key) => tables.push(Table {
                key: key.to_string(),
                tag,
                preset,
            }),
            Some(_) => {}
            None => {
                let keys = expected(&refusal(preset, &format!("{}=1", inside(key, "wieght"))));
                assert!(!keys.is_empty(), "{preset}: `{key}` names none of its keys");
                for k in keys.iter().filter(|k| !map.contains_key(k.as_str())) {
                    let k = inside(key, k);
                    for tag in TAGS {
                        let e = refusal(preset, &format!("{k}={{ {tag} = \"wieght\" }}"));
                        if !known(tables, &k) && e.ends_with(&format!("in `{k}.{tag}`")) {
                            tables.push(Table {
                                key: k.clone(),
                                tag,
                                preset,
                            });
                        }
                    }
                }
            }
        }
        for (k, v) in map {
            walk(preset, v, &inside(key, k), tables);
        }
    }

    /// A key given with any variant of any tagged table that the variant does not take is
    /// refused, naming it and the table: variants without parameters too (serde's own internally
    /// tagged enums drop it). The tables are every one the presets' configs have, written or
    /// left out while off, and the variants each one's tag names when it refuses an unknown one.
    #[test]
    fn every_variant_of_every_tagged_table_refuses_a_key_it_does_not_take() {
        let mut tables = Vec::new();
        for preset in preset_names() {
            let json = Config::resolve(preset, None, &[]).unwrap().to_json();
            walk(preset, &json, "", &mut tables);
        }
        // (Some tables are on in no preset: found only where their section leaves them out.)
        let written = |t: &Table| {
            preset_names().iter().any(|p| {
                let json = Config::resolve(p, None, &[]).unwrap().to_json();
                t.key.split('.').try_fold(&json, |v, k| v.get(k)).is_some()
            })
        };
        assert!(tables.iter().any(|t| !written(t)), "no table left out");
        for Table { key, tag, preset } in tables {
            let unknown = refusal(preset, &format!("{key}={{ {tag} = \"wieght\" }}"));
            let variants = expected(&unknown);
            assert!(variants.len() >= 2, "{key}: {unknown}");
            for variant in variants {
                let set = format!("{key}={{ {tag} = \"{variant}\", wieght = 1 }}");
                let e = refusal(preset, &set);
                assert!(
                    e.contains("unknown field `wieght`") && e.contains(&format!("in `{key}`")),
                    "{preset}: {set}: {e}"
                );
            }
        }
    }

    /// A value of the wrong type inside a tagged table names its whole key; an unknown variant,
    /// the tag's.
    #[test]
    fn errors_inside_a_tagged_table_name_the_whole_key() {
        let e = |set: &str| {
            Config::resolve("ipu", None, &[set.to_string()])
                .unwrap_err()
                .to_string()
        };
        let width = e("ftl.split={policy=\"all\", width=-4}");
        assert!(
            width.ends_with("expected u32\nin `ftl.split.width`"),
            "{width}"
        );
        let epsilon = e("reliability.slc.epsilon=\"small\"");
        assert!(
            epsilon.ends_with("in `reliability.slc.epsilon`"),
            "{epsilon}"
        );
        let policy = e("ftl.gc_victim.policy=\"oldest\"");
        assert!(policy.contains("unknown variant `oldest`"), "{policy}");
        assert!(policy.ends_with("in `ftl.gc_victim.policy`"), "{policy}");
        // A generator's distributions are tagged tables too (`kind`).
        let uniform = e(
            "flows=[{workload=\"ipu-ts0\", generator={address={kind=\"uniform\", \
                         exponent=0.9}}}]",
        );
        assert!(
            uniform.contains("unknown field `exponent`: kind `uniform` takes no parameters"),
            "{uniform}"
        );
        let missing = e("ftl.split.width=4");
        assert!(
            missing.ends_with("missing field `policy`\nin `ftl.split`"),
            "{missing}"
        );
    }

    /// A tagged table is written as serde's internally tagged enums wrote it, so that results'
    /// config echoes are unchanged: the tag, then the variant's parameters; and every preset's
    /// config reads back from its echo unchanged.
    #[test]
    fn tagged_tables_are_written_as_they_are_read() {
        let sets = [
            "ftl.partial_program={policy=\"share\", merge_threshold_pages=2}".to_string(),
            "ftl.gc_victim.policy=\"isr\"".to_string(),
        ];
        let c = Config::resolve(
            "ipu",
            Some(std::path::Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../experiments/ipu/device.toml"
            ))),
            &[
                sets.to_vec(),
                vec![
                    "ftl.placement={policy=\"cache\", region=\"slc\"}".into(),
                    "ftl.migration={policy=\"evict\", from_region=\"slc\", to_region=\"main\"}"
                        .into(),
                ],
            ]
            .concat(),
        )
        .unwrap();
        let json = c.to_json();
        assert_eq!(
            json["ftl"]["partial_program"].to_string(),
            r#"{"policy":"share","merge_threshold_pages":2}"#
        );
        assert_eq!(json["ftl"]["gc_victim"].to_string(), r#"{"policy":"isr"}"#);
        assert_eq!(
            json["ftl"]["migration"].to_string(),
            r#"{"policy":"evict","from_region":"slc","to_region":"main"}"#
        );
        assert_eq!(json["reliability"]["model"], "power_law");
        // (TOML has no null: an absent key is None.)
        fn without_nulls(v: &serde_json::Value) -> serde_json::Value {
            match v {
                serde_json::Value::Object(m) => (m.iter())
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), without_nulls(v)))
                    .collect(),
                v => v.clone(),
            }
        }
        for preset in preset_names() {
            let config = Config::resolve(preset, None, &[]).unwrap();
            let json = config.to_json();
            let again: Config = serde_json::from_value(without_nulls(&json)).unwrap();
            assert_eq!(again.to_json(), json, "{preset}");
            let text = toml::to_string(&config).unwrap();
            let again = Config::from_toml_str(&text, preset).unwrap();
            assert_eq!(again.to_json(), json, "{preset}");
        }
    }
}
