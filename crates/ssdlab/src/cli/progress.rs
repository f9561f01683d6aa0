//! The progress bar of long commands.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::sim::Phase;

/// A progress bar on stderr, shown only for runs longer than a second and only on a terminal.
/// A command in phases (preconditioning, then the replay) gives each phase its own bar.
/// `ssdlab run` and Python's `ssdlab.simulate` show it.
pub struct Progress {
    /// What is counted ("requests", "runs").
    unit: &'static str,
    started: Instant,
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Progress {
    pub fn new(unit: &'static str) -> Progress {
        Progress {
            unit,
            started: Instant::now(),
            bar: None,
            enabled: std::io::stderr().is_terminal(),
        }
    }
    pub fn update(&mut self, done: u64, total: u64) {
        if !self.enabled || self.started.elapsed() < Duration::from_secs(1) {
            return;
        }
        let elapsed = self.started.elapsed();
        let bar = self.bar.get_or_insert_with(|| {
            // Starts late (after a second): begin at the current position and time, so the rate
            // and ETA are not skewed by the requests done before the bar appeared.
            let b = ProgressBar::new(total)
                .with_position(done)
                .with_elapsed(elapsed);
            let template = format!(
                "{{elapsed_precise}} [{{bar:30}}] {{human_pos}}/{{human_len}} {}, eta {{eta}}",
                self.unit
            );
            if let Ok(style) = ProgressStyle::with_template(&template) {
                b.set_style(style.progress_chars("=> "));
            }
            b
        });
        bar.set_position(done);
    }
    /// Count `unit` from now on: the bar of the previous phase ends and the next one starts
    /// afresh (after the same one-second delay from the start of the command).
    pub fn phase(&mut self, unit: &'static str) {
        if unit != self.unit {
            self.finish();
            self.unit = unit;
        }
    }

    /// The `progress` of [`crate::run::simulate_with`]: a bar for each phase of the run.
    pub fn simulation(&mut self, phase: Phase, done: u64, total: u64) {
        self.phase(phase.counts());
        self.update(done, total);
    }

    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}
