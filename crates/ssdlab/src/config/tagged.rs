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
    use super::*;
    use crate::config::*;

    /// Every tagged table of a config: its key, its tag, its variants.
    fn tables() -> Vec<(&'static str, &'static str, &'static [&'static str])> {
        vec![
            (
                "ftl.allocation",
                "policy",
                variants(AllocationConfig::deserialize),
            ),
            (
                "ftl.gc_victim",
                "policy",
                variants(GcVictimConfig::deserialize),
            ),
            (
                "ftl.read_policy",
                "policy",
                variants(ReadPolicyConfig::deserialize),
            ),
            (
                "ftl.reduction",
                "policy",
                variants(ReductionConfig::deserialize),
            ),
            ("ftl.split", "policy", variants(SplitConfig::deserialize)),
            (
                "ftl.partial_program",
                "policy",
                variants(PartialProgramConfig::deserialize),
            ),
            (
                "ftl.placement",
                "policy",
                variants(PlacementConfig::deserialize),
            ),
            (
                "ftl.level1_gc",
                "policy",
                variants(Level1GcConfig::deserialize),
            ),
            (
                "ftl.host_streams",
                "policy",
                variants(HostStreamsConfig::deserialize),
            ),
            ("ftl.idle_gc", "policy", variants(IdleGcConfig::deserialize)),
            // (Tables inside tables: a melded read's other reads, an oblivious placement's
            // flash share.)
            (
                "ftl.read_policy.pages",
                "policy",
                variants(ReadPolicyConfig::deserialize),
            ),
            (
                "ftl.placement.flash",
                "policy",
                variants(PlacementConfig::deserialize),
            ),
            (
                "ftl.migration",
                "policy",
                variants(MigrationConfig::deserialize),
            ),
            (
                "reliability",
                "model",
                variants(ReliabilityConfig::deserialize),
            ),
            (
                "scheduler.suspension",
                "policy",
                variants(SuspensionConfig::deserialize),
            ),
            (
                "data_cache",
                "policy",
                variants(DataCacheConfig::deserialize),
            ),
            (
                "ftl.mapping_cache",
                "policy",
                variants(MappingCacheConfig::deserialize),
            ),
        ]
    }

    /// The keys of the tables in `v` that carry a tag, `policy` or `model`.
    fn tagged_keys(v: &serde_json::Value, path: &str, out: &mut Vec<String>) {
        let Some(map) = v.as_object() else { return };
        if ["policy", "model"]
            .iter()
            .any(|t| map.get(*t).is_some_and(|t| t.is_string()))
        {
            out.push(path.to_string());
        }
        for (k, v) in map {
            let key = match path {
                "" => k.clone(),
                p => format!("{p}.{k}"),
            };
            tagged_keys(v, &key, out);
        }
    }

    /// A key given with any variant of any tagged table that the variant does not take is
    /// refused, naming it and the table: variants without parameters too (serde's own internally
    /// tagged enums drop it). The walk covers every tagged table the presets write.
    #[test]
    fn every_variant_of_every_tagged_table_refuses_a_key_it_does_not_take() {
        let tables = tables();
        for preset in preset_names() {
            let mut keys = Vec::new();
            tagged_keys(
                &Config::resolve(preset, None, &[]).unwrap().to_json(),
                "",
                &mut keys,
            );
            for key in keys {
                assert!(
                    tables.iter().any(|t| t.0 == key),
                    "{preset}: `{key}` is not walked"
                );
            }
        }
        for (key, tag, variants) in tables {
            assert!(variants.len() >= 2, "{key}: {variants:?}");
            for variant in variants {
                let inner = format!("{{ {tag} = \"{variant}\", wieght = 1 }}");
                let set = match key.rsplit_once('.') {
                    Some(("ftl.read_policy", "pages")) => {
                        format!("ftl.read_policy={{ policy = \"melded\", pages = {inner} }}")
                    }
                    Some(("ftl.placement", "flash")) => {
                        format!("ftl.placement={{ policy = \"oblivious\", flash = {inner} }}")
                    }
                    _ => format!("{key}={inner}"),
                };
                let e = Config::resolve("ipu", None, std::slice::from_ref(&set))
                    .unwrap_err()
                    .to_string();
                assert!(
                    e.contains("unknown field `wieght`") && e.contains(&format!("in `{key}`")),
                    "{set}: {e}"
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
