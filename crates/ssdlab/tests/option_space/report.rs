//! The figures of a sample: how many draws were refused (by key), stopped, passed, failed; how
//! often each value of the main policies ran; and the failures grouped into classes (the same
//! check and message, numbers aside), each with the first seed's command.

use std::collections::BTreeMap;
use std::ops::Range;
use std::time::Duration;

use super::coverage::{leaves, spelled};
use super::draw::Draw;
use super::outcome::{Judged, Outcome};

/// The keys whose values the report counts among the runs that passed.
const TALLIED: [&str; 14] = [
    "geometry.cell_mode",
    "ftl.read_policy.policy",
    "ftl.reduction.policy",
    "ftl.split.policy",
    "ftl.partial_program.policy",
    "ftl.placement.policy",
    "ftl.migration.policy",
    "ftl.gc_victim.policy",
    "ftl.allocation.policy",
    "ftl.partial_write",
    "reliability.model",
    "host.mode",
    "scheduler.multiplane",
    "content.source",
];

struct Class {
    runs: u64,
    /// The first seed, and the last (a run counts once per class, however many messages).
    seed: u64,
    last: u64,
    detail: String,
    command: String,
}

pub struct Report {
    seeds: Range<u64>,
    /// Refusals by key: how many, and the first one's reason.
    refused: BTreeMap<String, (u64, String)>,
    stopped: u64,
    passed: u64,
    failed: u64,
    passed_with: BTreeMap<(String, String), u64>,
    classes: BTreeMap<(String, String), Class>,
    slowest: Vec<(Duration, u64)>,
    /// Runs that armed each check, for every check some run considered.
    armed: BTreeMap<&'static str, u64>,
}

/// A message with its numbers taken out, so that one defect's runs fall in one class.
pub fn class_of(detail: &str) -> String {
    let mut out = String::new();
    for c in detail.chars() {
        match c.is_ascii_digit() {
            true if out.ends_with('#') => {}
            true => out.push('#'),
            false => out.push(c),
        }
    }
    out.replace("#.#", "#").chars().take(160).collect()
}

impl Report {
    pub fn new(seeds: Range<u64>) -> Report {
        Report {
            seeds,
            refused: BTreeMap::new(),
            stopped: 0,
            passed: 0,
            failed: 0,
            passed_with: BTreeMap::new(),
            classes: BTreeMap::new(),
            slowest: Vec::new(),
            armed: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, draw: &Draw, judged: Judged, took: Duration) {
        self.slowest.push((took, draw.seed));
        self.slowest.sort_by(|a, b| b.cmp(a));
        self.slowest.truncate(5);
        let keep_files = matches!(judged.outcome, Outcome::Failed(_));
        for check in &judged.considered {
            self.armed.entry(check).or_default();
        }
        for check in &judged.armed {
            *self.armed.entry(check).or_default() += 1;
        }
        match judged.outcome {
            Outcome::Refused(key, reason) => self.refused.entry(key).or_insert((0, reason)).0 += 1,
            Outcome::Stopped => self.stopped += 1,
            Outcome::Passed(config) => {
                self.passed += 1;
                let mut l = Vec::new();
                leaves(&config, "", &mut l);
                for (key, v) in l {
                    if TALLIED.contains(&key.as_str()) {
                        *self.passed_with.entry((key, spelled(&v))).or_default() += 1;
                    }
                }
            }
            Outcome::Failed(failures) => {
                self.failed += 1;
                for f in failures {
                    let c = self
                        .classes
                        .entry((f.check.to_string(), class_of(&f.detail)))
                        .or_insert_with(|| Class {
                            runs: 1,
                            seed: draw.seed,
                            last: draw.seed,
                            detail: f.detail.clone(),
                            command: judged.command.clone(),
                        });
                    if c.last != draw.seed {
                        c.runs += 1;
                        c.last = draw.seed;
                    }
                }
            }
        }
        if !keep_files {
            for f in &judged.files {
                let _ = std::fs::remove_file(f);
            }
        }
    }

    pub fn failure_classes(&self) -> usize {
        self.classes.len()
    }

    /// The checks some run considered and none armed: checks that proved nothing.
    pub fn never_armed(&self) -> Vec<&'static str> {
        self.armed
            .iter()
            .filter(|(_, n)| **n == 0)
            .map(|(c, _)| *c)
            .collect()
    }

    pub fn print(&self, took: Duration) {
        let total = self.seeds.end - self.seeds.start;
        let refused: u64 = self.refused.values().map(|(n, _)| n).sum();
        println!(
            "option space: seeds {:?} ({total} draws) in {:.1} s: {} passed, {refused} refused, \
             {} stopped (ftl.unmapped_read = \"error\"), {} failed",
            self.seeds,
            took.as_secs_f64(),
            self.passed,
            self.stopped,
            self.failed
        );
        let mut by_count: Vec<_> = self.refused.iter().collect();
        by_count.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
        println!("refused, by key (with the first reason):");
        for (key, (n, reason)) in by_count {
            println!("  {key} {n}: {reason}");
        }
        let mut key = "";
        let mut line = String::new();
        for ((k, v), n) in &self.passed_with {
            if k != key {
                if !line.is_empty() {
                    println!("{line}");
                }
                line = format!("passed, by {k}:");
                key = k;
            }
            line.push_str(&format!(" {v} {n},"));
        }
        if !line.is_empty() {
            println!("{line}");
        }
        let slow: Vec<String> = self
            .slowest
            .iter()
            .map(|(d, s)| format!("seed {s} {:.2} s", d.as_secs_f64()))
            .collect();
        println!("slowest: {}", slow.join(", "));
        let armed: Vec<String> = self.armed.iter().map(|(c, n)| format!("{c} {n}")).collect();
        println!("runs that armed each check: {}", armed.join(", "));
        println!("failure classes: {}", self.classes.len());
        for ((check, _), c) in &self.classes {
            println!(
                "- [{check}] {} ({} run{}; first seed {})\n  {}",
                c.detail,
                c.runs,
                if c.runs == 1 { "" } else { "s" },
                c.seed,
                c.command
            );
        }
    }
}
