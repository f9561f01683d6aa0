//! A failure's shortest reproduction: drop the draw's overrides (the preset's values return),
//! keeping each drop after which the run still fails in the same class, until none can go. What
//! is left is what the failure needs.

use super::outcome::{command, run, Judged, Outcome};
use super::report::class_of;

/// Whether `preset` with `sets` fails with `check` and a message of `class`.
fn fails_alike(
    preset: &str,
    sets: &[String],
    invalid: Option<&str>,
    check: &str,
    class: &str,
) -> bool {
    let mut judged = Judged::new(preset, sets);
    match run(preset, sets, invalid, &mut judged) {
        Outcome::Failed(failures) => failures
            .iter()
            .any(|f| f.check == check && class_of(&f.detail) == class),
        _ => false,
    }
}

/// The fewest of `sets` with which `preset` still fails as `check` with a message of `class`,
/// as a command. Halves of the overrides are dropped first, then quarters, down to one at a
/// time, so that a long list shrinks in few runs.
pub fn minimise(
    preset: &str,
    sets: &[String],
    invalid: Option<&str>,
    check: &str,
    class: &str,
) -> String {
    // (The override that sets a key invalid on purpose is the failure itself: it stays.)
    let carries_invalid = |set: &String| {
        let key = set.split_once('=').map_or("", |(k, _)| k);
        invalid.is_some_and(|k| {
            k.strip_prefix(key)
                .is_some_and(|rest| rest.starts_with(['.', '[']))
        })
    };
    let mut kept = sets.to_vec();
    let mut chunk = kept.len().div_ceil(2).max(1);
    loop {
        let mut start = 0;
        while start < kept.len() {
            let end = (start + chunk).min(kept.len());
            let fewer: Vec<String> = kept[..start].iter().chain(&kept[end..]).cloned().collect();
            let droppable = !kept[start..end].iter().any(carries_invalid);
            if droppable && fails_alike(preset, &fewer, invalid, check, class) {
                kept = fewer;
            } else {
                start = end;
            }
        }
        if chunk == 1 {
            return command(preset, &kept);
        }
        chunk = chunk.div_ceil(2);
    }
}

/// The preset and overrides of a command as `command` writes it (`--set 'k=v'` each).
pub fn parse_command(text: &str) -> (String, Vec<String>) {
    let preset = text
        .split_once("--preset ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .unwrap_or("default")
        .to_string();
    let sets = text
        .split("--set '")
        .skip(1)
        .filter_map(|part| part.split_once('\'').map(|(set, _)| set.to_string()))
        .collect();
    (preset, sets)
}
