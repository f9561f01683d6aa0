//! Named parameters of a config: values that say where a config sits in a sweep (`migration_share
//! = 0.04`, `pcm_params = "pcm3"`), written as columns of `results.csv` beside its label, so that
//! several configs may share a label (the paper's scheme name) and differ by their parameters.
//! A `sweep` declares a parameter's values and the config key each sets; a config with sweeps
//! stands for the cross product of their values (the first sweep outermost), each point a config
//! of its own with the parameters and the overrides of its values.

use serde::{Deserialize, Serialize};

use super::spec::{ConfigSpec, WorkloadSpec};
use crate::error::Error;

/// One swept parameter of a config: its name (a column of `results.csv`), its values in order,
/// and what each value sets: the value itself written to a config key (`key`, as `set` gives
/// it), or, one table per value, overrides of their own (`set`: a value standing for several
/// keys, or in other units, e.g. `layout = "16x4"` for 16 channels of 2 ways).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub param: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set: Vec<toml::Table>,
    pub values: Vec<toml::Value>,
}

impl Sweep {
    /// The overrides of value `n`.
    fn overrides(&self, n: usize) -> toml::Table {
        match &self.key {
            Some(k) => toml::Table::from_iter([(k.clone(), self.values[n].clone())]),
            None => self.set[n].clone(),
        }
    }

    /// Every config key the sweep sets, in order of first appearance.
    fn keys(&self) -> Vec<&String> {
        let mut keys: Vec<&String> = Vec::new();
        for k in self
            .key
            .iter()
            .chain(self.set.iter().flat_map(|t| t.keys()))
        {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys
    }
}

/// Columns of `results.csv` before the parameters; a parameter may not take their names.
const FIXED_COLUMNS: [&str; 3] = ["config", "workload", "seed"];

/// A parameter's value as it is written into `results.csv` and a config's name: a string as it
/// is, a number as Rust prints it (the shortest text that reads back the same value).
pub fn text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => other.to_string(),
    }
}

/// The name of a config with parameters, `label[a=1,b=x]` (the parameters in name order), by
/// which charts, baselines and paper figures refer to it and its runs are filed; its label alone
/// without parameters.
pub fn point_name(label: &str, params: &toml::Table) -> String {
    if params.is_empty() {
        return label.to_string();
    }
    let list: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("{k}={}", text(v)))
        .collect();
    format!("{label}[{}]", list.join(","))
}

/// The parameter names of the configs, in order of first appearance (each config's in name
/// order): the columns `results.csv` gives them.
pub fn columns(configs: &[ConfigSpec]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in configs {
        for k in c.params.keys() {
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
    }
    names
}

/// Check the parameters and sweeps of a config or a workload (`of`: "config" or "workload";
/// `at` gives the key of one of its fields, `configs[1].sweep`).
fn check_sweeps(
    at: &dyn Fn(&str) -> String,
    of: &str,
    own_params: &toml::Table,
    own_set: &toml::Table,
    sweeps: &[Sweep],
    metrics: &[String],
) -> Result<(), Error> {
    for (k, v) in own_params {
        check_name(&at(&format!("params.{k}")), k, metrics)?;
        check_value(&at(&format!("params.{k}")), v)?;
    }
    for (j, s) in sweeps.iter().enumerate() {
        let key = |k: &str| at(&format!("sweep[{j}].{k}"));
        check_name(&key("param"), &s.param, metrics)?;
        if own_params.contains_key(&s.param) || sweeps[..j].iter().any(|o| o.param == s.param) {
            return Err(Error::config(
                &key("param"),
                format!("`{}` is already a parameter of this {of}", s.param),
            ));
        }
        match (&s.key, s.set.is_empty()) {
            (Some(k), true) if k.is_empty() => {
                return Err(Error::config(&key("key"), "must name a config key"))
            }
            (Some(_), true) => {}
            (None, false) if s.set.len() != s.values.len() => {
                return Err(Error::config(
                    &key("set"),
                    format!(
                        "{} tables for {} values: one table of overrides per value",
                        s.set.len(),
                        s.values.len()
                    ),
                ))
            }
            (None, false) => {
                if let Some(n) = s.set.iter().position(toml::Table::is_empty) {
                    return Err(Error::config(
                        &key(&format!("set[{n}]")),
                        "must set some config key",
                    ));
                }
            }
            _ => {
                return Err(Error::config(
                    &key("key"),
                    "give exactly one of `key` (each value written to it) and `set` (a \
                     table of overrides per value)",
                ))
            }
        }
        // The sweep's value would be overwritten by the config's own, or overwrite it.
        let which = if s.key.is_some() { "key" } else { "set" };
        for k in s.keys() {
            if own_set.contains_key(k) || sweeps[..j].iter().any(|o| o.keys().contains(&k)) {
                return Err(Error::config(
                    &key(which),
                    format!("`{k}` is also set by this {of}'s `set` or another sweep"),
                ));
            }
        }
        if s.values.is_empty() {
            return Err(Error::config(&key("values"), "must not be empty"));
        }
        for (n, v) in s.values.iter().enumerate() {
            check_value(&key(&format!("values[{n}]")), v)?;
            if s.values[..n].contains(v) {
                return Err(Error::config(
                    &key(&format!("values[{n}]")),
                    format!("`{}` is listed twice", text(v)),
                ));
            }
        }
    }
    Ok(())
}

/// The points of sweeps, the first outermost: each the parameters and overrides its values add.
fn points(sweeps: &[Sweep]) -> Vec<(toml::Table, toml::Table)> {
    let mut points = vec![(toml::Table::new(), toml::Table::new())];
    for s in sweeps {
        points = points
            .into_iter()
            .flat_map(|(params, set)| {
                s.values.iter().enumerate().map(move |(n, v)| {
                    let (mut params, mut set) = (params.clone(), set.clone());
                    params.insert(s.param.clone(), v.clone());
                    set.extend(s.overrides(n));
                    (params, set)
                })
            })
            .collect();
    }
    points
}

/// Replace every config that has sweeps by its points; check names and values. Errors name the
/// key as written (`configs[1].sweep[0].values[2]`).
pub fn expand(configs: Vec<ConfigSpec>, metrics: &[String]) -> Result<Vec<ConfigSpec>, Error> {
    let mut points: Vec<(usize, ConfigSpec)> = Vec::new();
    for (i, c) in configs.into_iter().enumerate() {
        let at = |k: &str| format!("configs[{i}].{k}");
        check_sweeps(&at, "config", &c.params, &c.set, &c.sweep, metrics)?;
        let expanded: Vec<ConfigSpec> = self::points(&c.sweep)
            .into_iter()
            .map(|(params, set)| {
                let mut q = ConfigSpec {
                    sweep: Vec::new(),
                    ..c.clone()
                };
                q.params.extend(params);
                q.set.extend(set);
                q
            })
            .collect();
        for p in expanded {
            if let Some((first, _)) = points
                .iter()
                .find(|(_, o)| o.label == p.label && o.params == p.params)
            {
                let what = match p.params.is_empty() {
                    true => format!("`{}` is used twice", p.label),
                    false => format!(
                        "`{}` is also configs[{first}]'s: configs that share a label need \
                         parameters that tell them apart",
                        p.name()
                    ),
                };
                return Err(Error::config(&at("label"), what));
            }
            points.push((i, p));
        }
    }
    Ok(points.into_iter().map(|(_, p)| p).collect())
}

/// Replace every workload that has sweeps by its points, each labelled by its label and the
/// swept parameters (`Office[state=steady]`), with those parameters beside its own and the
/// overrides of its values after its own `set`; check names and values. Errors name the key as
/// written (`workloads[0].sweep[0].values[1]`).
pub fn expand_workloads(
    workloads: Vec<WorkloadSpec>,
    metrics: &[String],
) -> Result<Vec<WorkloadSpec>, Error> {
    let mut out = Vec::new();
    for (i, w) in workloads.into_iter().enumerate() {
        let at = |k: &str| format!("workloads[{i}].{k}");
        check_sweeps(&at, "workload", &w.params, &w.set, &w.sweep, metrics)?;
        if w.sweep.is_empty() {
            out.push(w);
            continue;
        }
        for (params, set) in points(&w.sweep) {
            let mut p = WorkloadSpec {
                label: point_name(&w.label, &params),
                sweep: Vec::new(),
                ..w.clone()
            };
            p.params.extend(params);
            p.set.extend(set);
            out.push(p);
        }
    }
    Ok(out)
}

/// A parameter name: a column of `results.csv` beside the fixed ones and the metrics, and part
/// of file names.
pub(super) fn check_name(key: &str, name: &str, metrics: &[String]) -> Result<(), Error> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(Error::config(
            key,
            format!("`{name}`: a parameter name is letters, digits and `_`"),
        ));
    }
    if FIXED_COLUMNS.contains(&name) || metrics.iter().any(|m| m == name) {
        return Err(Error::config(
            key,
            format!("`{name}` is already a column of results.csv"),
        ));
    }
    Ok(())
}

/// A parameter value: a string, number or boolean that a file name and a CSV cell can hold.
pub(super) fn check_value(key: &str, v: &toml::Value) -> Result<(), Error> {
    let ok = match v {
        toml::Value::String(s) => {
            !s.is_empty() && !s.contains(['/', '\\', ',', '=', '[', ']', '"', '\n'])
        }
        toml::Value::Integer(_) | toml::Value::Boolean(_) => true,
        toml::Value::Float(f) => f.is_finite(),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::config(
            key,
            format!(
                "`{v}`: a parameter value is a number, a boolean or a non-empty string without \
                 / \\ , = [ ] \""
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::experiment::Experiment;

    const HEAD: &str = "name = \"e\"\nmetrics = [\"iops\"]\n\
        [[workloads]]\nlabel = \"w\"\nworkload = \"spread-kv\"\n";

    fn prepared(configs: &str) -> Result<Experiment, String> {
        let e: Experiment =
            toml::from_str(&format!("{HEAD}{configs}")).map_err(|e| e.to_string())?;
        e.prepare().map_err(|e| e.to_string())
    }

    const SWEPT: &str = "[[configs]]\nlabel = \"Baseline\"\nparams = { share = 0.0 }\n\
        sweep = [{ param = \"set\", key = \"timing.pcm.set\", values = [\"pcm1\", \"pcm5\"] }]\n\
        [[configs]]\nlabel = \"ROSA\"\nset = { \"ftl.level1_gc.policy\" = \"read_intensity\" }\n\
        sweep = [{ param = \"share\", key = \"ftl.level1_gc.budget_share\", values = [0.04, 0.2] },\n\
                 { param = \"set\", key = \"timing.pcm.set\", values = [\"pcm1\", \"pcm5\"] }]\n";

    #[test]
    fn sweeps_expand_into_named_configs_that_share_a_label() {
        let e = prepared(SWEPT).expect("valid");
        let names: Vec<String> = e.configs.iter().map(|c| c.name()).collect();
        assert_eq!(
            names,
            [
                "Baseline[set=pcm1,share=0]",
                "Baseline[set=pcm5,share=0]",
                "ROSA[set=pcm1,share=0.04]",
                "ROSA[set=pcm5,share=0.04]",
                "ROSA[set=pcm1,share=0.2]",
                "ROSA[set=pcm5,share=0.2]",
            ]
        );
        // Each point sets its values' keys, beside the config's own overrides.
        let last = &e.configs[5];
        assert_eq!(last.set["ftl.level1_gc.budget_share"].as_float(), Some(0.2));
        assert_eq!(last.set["timing.pcm.set"].as_str(), Some("pcm5"));
        assert_eq!(
            last.set["ftl.level1_gc.policy"].as_str(),
            Some("read_intensity")
        );
        assert!(e.configs.iter().all(|c| c.sweep.is_empty()));
        assert_eq!(last.name.as_deref(), Some("ROSA[set=pcm5,share=0.2]"));
        assert_eq!(e.param_columns(), ["set", "share"]);
        // Preparing again (as validate does) changes nothing.
        let again = e.clone().prepare().expect("valid");
        assert_eq!(again.configs.len(), 6);
    }

    #[test]
    fn configs_without_parameters_keep_their_label_as_name_and_add_no_column() {
        let e = prepared("[[configs]]\nlabel = \"a\"\n[[configs]]\nlabel = \"b\"\n").unwrap();
        assert_eq!(e.configs[0].name(), "a");
        assert!(e.configs[0].name.is_none());
        assert!(e.param_columns().is_empty());
        let json = serde_json::to_string(&e).unwrap();
        assert!(
            !json.contains("params") && !json.contains("sweep"),
            "{json}"
        );
    }

    #[test]
    fn duplicate_points_and_bad_parameters_are_refused_naming_the_key() {
        let cases = [
            // A label used twice without parameters to tell the configs apart.
            ("[[configs]]\nlabel = \"a\"\n[[configs]]\nlabel = \"a\"\n", "configs[1].label", "used twice"),
            // Two configs at the same point.
            (
                "[[configs]]\nlabel = \"a\"\nparams = { p = 1 }\n[[configs]]\nlabel = \"a\"\nparams = { p = 1 }\n",
                "configs[1].label",
                "also configs[0]'s",
            ),
            // A sweep repeating a value, or a parameter the config already has.
            (
                "[[configs]]\nlabel = \"a\"\nsweep = [{ param = \"p\", key = \"seed\", values = [1, 1] }]\n",
                "configs[0].sweep[0].values[1]",
                "listed twice",
            ),
            (
                "[[configs]]\nlabel = \"a\"\nparams = { p = 1 }\nsweep = [{ param = \"p\", key = \"seed\", values = [2] }]\n",
                "configs[0].sweep[0].param",
                "already a parameter",
            ),
            // A sweep's key also in the config's own overrides.
            (
                "[[configs]]\nlabel = \"a\"\nset = { seed = 3 }\nsweep = [{ param = \"p\", key = \"seed\", values = [2] }]\n",
                "configs[0].sweep[0].key",
                "also set",
            ),
            (
                "[[configs]]\nlabel = \"a\"\nsweep = [{ param = \"p\", key = \"seed\", values = [] }]\n",
                "configs[0].sweep[0].values",
                "must not be empty",
            ),
            // Names that are columns already, or not names.
            ("[[configs]]\nlabel = \"a\"\nparams = { seed = 1 }\n", "configs[0].params.seed", "already a column"),
            ("[[configs]]\nlabel = \"a\"\nparams = { iops = 1 }\n", "configs[0].params.iops", "already a column"),
            ("[[configs]]\nlabel = \"a\"\nparams = { \"a b\" = 1 }\n", "configs[0].params.a b", "letters, digits"),
            // Values a CSV cell and a file name cannot hold plainly.
            ("[[configs]]\nlabel = \"a\"\nparams = { p = \"x/y\" }\n", "configs[0].params.p", "non-empty string"),
            ("[[configs]]\nlabel = \"a\"\nparams = { p = [1] }\n", "configs[0].params.p", "a number"),
        ];
        for (configs, key, why) in cases {
            let e = prepared(configs).expect_err(configs);
            assert!(
                e.contains(&format!("`{key}`")) && e.contains(why),
                "{configs}: {e}"
            );
        }
        // An unknown field of a sweep is refused by name.
        let e = prepared(
            "[[configs]]\nlabel = \"a\"\nsweep = [{ param = \"p\", keys = \"seed\", values = [1] }]\n",
        )
        .expect_err("unknown field");
        assert!(e.contains("keys"), "{e}");
    }

    #[test]
    fn lines_charts_need_a_numeric_x_and_one_config_per_point() {
        let chart = |extra: &str| {
            prepared(&format!(
                "{SWEPT}[[charts]]\nname = \"c\"\nkind = \"lines\"\nmetrics = [\"iops\"]\n{extra}"
            ))
        };
        chart("x = \"share\"\nseries = \"set\"\nnormalized_to = \"Baseline[set=pcm5,share=0]\"\n")
            .expect("valid");
        chart("x = \"share\"\nwhere = { set = \"pcm1\" }\n").expect("valid");
        let refused = [
            ("", "charts[0].x", "needs the parameter"),
            ("x = \"set\"\n", "charts[0].x", "needs a number"),
            ("x = \"nope\"\n", "charts[0].x", "not a parameter"),
            // Two configs per point of one line: pcm1 and pcm5 at each share.
            ("x = \"share\"\n", "charts[0].configs", "same point"),
            (
                "x = \"share\"\nseries = \"set\"\nnormalized_to = \"ROSA\"\n",
                "charts[0].normalized_to",
                "no config",
            ),
            (
                "x = \"share\"\nwhere = { set = \"pcm9\" }\n",
                "charts[0].where",
                "no config",
            ),
        ];
        for (extra, key, why) in refused {
            let e = chart(extra).expect_err(extra);
            assert!(
                e.contains(&format!("`{key}`")) && e.contains(why),
                "{extra}: {e}"
            );
        }
        let e = prepared(&format!(
            "{SWEPT}[[charts]]\nname = \"c\"\nmetrics = [\"iops\"]\nx = \"share\"\n"
        ))
        .expect_err("bars with x");
        assert!(
            e.contains("`charts[0].x`") && e.contains("only a `lines` chart"),
            "{e}"
        );
    }
}
