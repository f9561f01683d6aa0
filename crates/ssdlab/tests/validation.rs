//! The cross-validation's runs (docs/validation.md): the `mqsim` preset on the committed traces
//! MQSim was run on must give exactly the figures `scripts/validation.py` pinned in
//! `validation/ssdlab.json`. A model change that moves one fails here; rerun the script, and
//! explain the change in docs/validation.md.

mod common;

use std::process::{Child, Command, Stdio};

use serde_json::Value;

fn at<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(v, |v, k| &v[k])
}

#[test]
fn the_mqsim_preset_keeps_its_pinned_figures() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let pins: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{root}/validation/ssdlab.json")).unwrap(),
    )
    .unwrap();
    let runs: Vec<(&String, &Value)> = pins["runs"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, r)| r["pinned"] == true)
        .collect();
    assert!(runs.len() >= 5, "the five inputs are pinned");
    // The runs are independent: all at once.
    let children: Vec<Child> = runs
        .iter()
        .map(|(_, r)| {
            let args: Vec<&str> = r["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            Command::new(env!("CARGO_BIN_EXE_ssdlab"))
                .current_dir(root)
                .args(&args)
                .arg("--json")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut moved = Vec::new();
    for ((name, r), child) in runs.iter().zip(children) {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
        for (path, pinned) in r["figures"].as_object().unwrap() {
            let now = at(&summary, path);
            let now = if now.is_null() { &Value::Null } else { now };
            if now != pinned {
                moved.push(format!("{name} {path}: pinned {pinned}, now {now}"));
            }
        }
    }
    assert!(
        moved.is_empty(),
        "figures moved (rerun scripts/validation.py and explain in docs/validation.md):\n{}",
        moved.join("\n")
    );
}
