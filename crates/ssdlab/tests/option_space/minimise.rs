//! A failure's shortest reproduction: drop the draw's overrides one at a time (the preset's value
//! returns), keeping each drop after which the run still fails in the same class, until none can
//! go. What is left is what the failure needs.

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
/// as a command.
pub fn minimise(
    preset: &str,
    sets: &[String],
    invalid: Option<&str>,
    check: &str,
    class: &str,
) -> String {
    let mut kept = sets.to_vec();
    loop {
        let before = kept.len();
        let mut i = 0;
        while i < kept.len() {
            let mut fewer = kept.clone();
            fewer.remove(i);
            // (The override that sets a key invalid on purpose is the failure itself: it
            // stays.)
            let key = kept[i].split_once('=').map_or("", |(k, _)| k);
            let carries_invalid = invalid.is_some_and(|k| {
                k.strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with(['.', '[']))
            });
            if !carries_invalid && fails_alike(preset, &fewer, invalid, check, class) {
                kept = fewer;
            } else {
                i += 1;
            }
        }
        if kept.len() == before {
            return command(preset, &kept);
        }
    }
}
