//! The scorecard: each of a paper's claims (`[[paper.figures]]`) scored on the effect, not on the
//! ratio, and the tally of a reproduction's claims.
//!
//! A ratio of 1.9 against the paper's 2.2 reads as 14% apart, but the effect, 0.9 against 1.2,
//! is 25% short; a ratio of 1.06 against 0.95 reads as 12% apart where the effect has the
//! opposite sign. So each claim is scored by Δ = (ours − null) / (paper − null) − 1, where `null`
//! is the value of no effect (1 for a ratio, 0 for a difference, a share or a time: see
//! `PaperFigure::null`): Δ is 0 where ours has the paper's effect, −1 where ours has none, +1
//! where ours has twice as much. The sign is right where ours and the paper's lie on the same side
//! of `null`; a claim is within ±25% where |Δ| ≤ 0.25 (which implies the right sign).

use std::fmt::Write;
use std::path::PathBuf;

use serde::Serialize;

use super::report::{comparisons, num, Comparison};
use super::spec::ClaimKind;
use crate::error::Error;

/// How far from the paper's effect ours may be and still count as reproduced.
pub const WITHIN: f64 = 0.25;

/// A claim scored on the effect.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Score {
    /// (ours − null) / (paper − null) − 1. Where the paper's value is `null` itself (a claim of
    /// no effect), the effect has no scale: Δ is then ours' distance from the paper's value
    /// relative to that value (ours / paper − 1), or ours − paper where both are 0. None for a
    /// claim of order alone, which has no effect to compare.
    pub delta: Option<f64>,
    /// Ours lies on the paper's side of `null` (for a claim of no effect: within ±25%).
    pub sign_agrees: bool,
    /// |Δ| ≤ [`WITHIN`]; for a claim of order alone, that the order holds (it claims no more).
    pub within: bool,
}

/// Score a claim of order alone: that ours lies above `null` (`above`), or below it.
pub fn score_order(above: bool, ours: f64, null: f64) -> Score {
    let holds = match above {
        true => ours > null,
        false => ours < null,
    };
    Score {
        delta: None,
        sign_agrees: holds,
        within: holds,
    }
}

/// Score `ours` against the paper's `paper`, `null` being the value of no effect.
pub fn score(paper: f64, ours: f64, null: f64) -> Score {
    let (p, o) = (paper - null, ours - null);
    if p == 0.0 {
        let delta = match paper {
            0.0 => ours,
            _ => ours / paper - 1.0,
        };
        let within = delta.abs() <= WITHIN;
        return Score {
            delta: Some(delta),
            sign_agrees: within,
            within,
        };
    }
    let delta = o / p - 1.0;
    Score {
        delta: Some(delta),
        sign_agrees: o * p > 0.0,
        within: delta.abs() <= WITHIN,
    }
}

/// A reproduction's claims counted: how many of each kind, and of the results (the only claims
/// that are evidence of fidelity) how many have the right sign and how many are within ±25%.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub claims: usize,
    pub results: usize,
    pub inputs: usize,
    pub calibrated: usize,
    /// Results the grid gives no value for (`unmeasured`, or a cell without runs).
    pub unmeasured: usize,
    pub right_sign: usize,
    pub within: usize,
}

impl Tally {
    /// The tally of a paper's experiments (`sections`: each one's label and claims).
    pub fn over(sections: &[(String, Vec<Comparison>)]) -> Tally {
        let all: Vec<Comparison> = sections
            .iter()
            .flat_map(|(_, r)| r.iter().cloned())
            .collect();
        Tally::of(&all)
    }

    pub fn of(rows: &[Comparison]) -> Tally {
        let mut t = Tally {
            claims: rows.len(),
            ..Tally::default()
        };
        for r in rows {
            match r.kind {
                ClaimKind::Input => t.inputs += 1,
                ClaimKind::Calibrated => t.calibrated += 1,
                ClaimKind::Result => {
                    t.results += 1;
                    match r.score {
                        None => t.unmeasured += 1,
                        Some(s) => {
                            t.right_sign += usize::from(s.sign_agrees);
                            t.within += usize::from(s.within);
                        }
                    }
                }
            }
        }
        t
    }

    /// In a sentence: "12 claims (10 results, 2 inputs): of the 10 results, 8 have the
    /// paper's sign and 5 are within ±25% of its effect; 1 is not measured."
    pub fn sentence(&self) -> String {
        let plural = |n: usize, one: &str, many: &str| match n {
            1 => format!("1 {one}"),
            _ => format!("{n} {many}"),
        };
        let mut kinds = vec![plural(self.results, "result", "results")];
        if self.inputs > 0 {
            kinds.push(plural(self.inputs, "input", "inputs"));
        }
        if self.calibrated > 0 {
            kinds.push(format!("{} calibrated", self.calibrated));
        }
        let mut s = format!(
            "{} ({}): of the {}, {} the paper's sign and {} within ±{:.0}% of its effect",
            plural(self.claims, "claim", "claims"),
            kinds.join(", "),
            plural(self.results, "result", "results"),
            plural(self.right_sign, "has", "have"),
            match self.within {
                1 => "1 is".to_string(),
                n => format!("{n} are"),
            },
            WITHIN * 100.0
        );
        if self.unmeasured > 0 {
            let _ = write!(
                s,
                "; {} not measured",
                match self.unmeasured {
                    1 => "1 is".to_string(),
                    n => format!("{n} are"),
                }
            );
        }
        s.push('.');
        s
    }
}

/// The claims of the experiments whose outputs are in `folders` (each with its label).
pub fn read(folders: &[(String, PathBuf)]) -> Result<Vec<(String, Vec<Comparison>)>, Error> {
    (folders.iter())
        .map(|(label, out)| {
            let (e, results) = super::read_outputs(out)?;
            Ok((label.clone(), comparisons(&e, &results)))
        })
        .collect()
}

/// How the claims are scored, in a sentence for the reports.
pub const METHOD: &str = "Each claim is scored on the effect: Δ = (ours − null) / (paper − null) \
    − 1, with null the value of no effect (1 for a ratio, 0 otherwise); a claim has the right \
    sign when ours lies on the paper's side of null, and is reproduced within ±25% when |Δ| ≤ \
    0.25. Only results are evidence: inputs (the paper's parameters, checked) and calibrated \
    values (what a workload was set to match) are listed, not counted.";

/// The claims as a markdown table, failures as plainly as matches.
pub fn table(o: &mut String, rows: &[Comparison]) {
    let _ = writeln!(
        o,
        "| claim (paper's source) | kind | metric | config | workload | paper | ssdlab | Δ effect \
         | verdict | why ours differ |\n|---|---|---|---|---|---:|---:|---:|---|---|"
    );
    // One line, and no cell boundary inside: a text may span lines in its TOML.
    let cell = |t: &str| (t.split_whitespace().collect::<Vec<_>>().join(" ")).replace('|', "\\|");
    for r in rows {
        let ours = r.ours.as_ref().map_or_else(|| "—".into(), |o| num(o.value));
        let source = match r.line {
            Some(l) => format!("{} (line {l})", r.source),
            None => r.source.clone(),
        };
        let why = r
            .unmeasured
            .as_deref()
            .or(r.reason.as_deref())
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {ours} | {} | {} | {} |",
            cell(&source),
            r.kind.text(),
            cell(&r.metric),
            cell(&r.config),
            cell(&r.workload),
            r.paper_text,
            r.delta_text,
            r.verdict,
            cell(why),
        );
    }
    o.push('\n');
}

/// A paper's scorecard in markdown, for its README: the tally over all its experiments
/// (`sections`: each experiment's label and claims), then each experiment's table.
pub fn paper_markdown(sections: &[(String, Vec<Comparison>)]) -> String {
    let mut o = format!("**{}**\n\n{METHOD}\n\n", Tally::over(sections).sentence());
    // (An experiment that lists no claim, a sensitivity, gets no table.)
    let listed: Vec<_> = sections
        .iter()
        .filter(|(_, rows)| !rows.is_empty())
        .collect();
    for (label, rows) in &listed {
        if listed.len() > 1 {
            let _ = writeln!(o, "**{label}**: {}\n", Tally::of(rows).sentence());
        }
        table(&mut o, rows);
    }
    o
}

/// Δ as a table gives it: `+70%`, `−18%`.
pub fn delta_text(delta: f64) -> String {
    let pct = (delta * 100.0).round();
    match pct {
        x if x > 0.0 => format!("+{x:.0}%"),
        x if x < 0.0 => format!("−{:.0}%", -x),
        _ => "0%".into(),
    }
}

/// A claim's score in words.
pub fn verdict(score: Option<Score>) -> &'static str {
    match score {
        None => "not measured",
        Some(s) if s.delta.is_none() && s.within => "order holds",
        Some(s) if s.within => "within ±25%",
        Some(s) if s.sign_agrees => "right sign",
        Some(_) => "wrong sign",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_is_scored_on_its_effect() {
        // SPREAD's KV: 3.04× against 2.2× is +70% on the effect, not +38% on the ratio.
        let s = score(2.2, 3.04, 1.0);
        assert!((s.delta.unwrap() - 0.7).abs() < 1e-12 && s.sign_agrees && !s.within);
        // A gain against a loss: the wrong sign, however close the ratios.
        let s = score(0.95, 1.06, 1.0);
        assert!(!s.sign_agrees && !s.within && s.delta.unwrap() < -1.0);
        assert!(score(0.82, 0.85, 1.0).within);
        assert!(!score(0.82, 0.915, 1.0).within); // PR's 0.915 keeps only 47% of the effect
    }

    #[test]
    fn a_plain_value_is_scored_against_zero_and_a_claim_of_no_effect_on_its_value() {
        let s = score(183.0, 99.0, 0.0);
        assert!((s.delta.unwrap() + 84.0 / 183.0).abs() < 1e-12 && s.sign_agrees && !s.within);
        let s = score(1.0, 1.1, 1.0);
        assert!((s.delta.unwrap() - 0.1).abs() < 1e-12 && s.within && s.sign_agrees);
        assert!(!score(1.0, 1.3, 1.0).sign_agrees);
    }

    #[test]
    fn a_claim_of_order_holds_or_has_the_wrong_sign() {
        let s = score_order(true, 1.02, 1.0);
        assert!(s.within && s.sign_agrees && s.delta.is_none());
        assert_eq!(verdict(Some(s)), "order holds");
        let s = score_order(true, 0.97, 1.0);
        assert_eq!(verdict(Some(s)), "wrong sign");
        assert!(score_order(false, 0.97, 1.0).within);
    }

    #[test]
    fn deltas_are_written_with_their_sign() {
        assert_eq!(delta_text(0.704), "+70%");
        assert_eq!(delta_text(-0.188), "−19%");
        assert_eq!(delta_text(0.001), "0%");
    }
}
