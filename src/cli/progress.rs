//! The command line's progress bars: one line per label propagation or edge program iteration, one per
//! generator phase, one over the samples of a sampling run. Drawn with indicatif on standard
//! error when [`console::draws_progress`] says so, and cleared when done, so that the summary
//! that follows starts on a clean line; otherwise every call is a no-op.

use super::console;
use glp_runtime::gen::Phase;
use glp_runtime::lp::IterationStats;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// A bar over the iterations of one label propagation run.
pub struct IterationBar {
    bar: Option<ProgressBar>,
    vertices: usize,
}

impl IterationBar {
    /// A bar for a run of at most `max_iterations` on `vertices` vertices (`u32::MAX`: until
    /// the run converges, a count without a bar).
    pub fn new(max_iterations: u32, vertices: usize) -> Self {
        let bar = console::draws_progress().then(|| {
            let bounded = max_iterations < u32::MAX;
            let bar =
                ProgressBar::with_draw_target(bounded.then_some(max_iterations as u64), ProgressDrawTarget::stderr());
            let template =
                if bounded { "{prefix:>14} [{bar:20}] {pos:>2}/{len} {msg}" } else { "{prefix:>14} {pos:>4} {msg}" };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix("iterations");
            bar.tick();
            bar
        });
        IterationBar { bar, vertices }
    }

    /// Reports iteration `iteration` (from 0) as ended: the engines' observer.
    pub fn iteration(&self, iteration: u32, stats: &IterationStats) {
        self.step(iteration, stats.changed, stats.time, if stats.pick_less { ", pick-less" } else { "" });
    }

    /// Reports iteration `iteration` (from 0) as ended after `time`, having changed
    /// `changed` vertices; `note` follows on the line.
    pub fn step(&self, iteration: u32, changed: u64, time: Duration, note: &str) {
        if let Some(bar) = &self.bar {
            let share = 100.0 * changed as f64 / self.vertices.max(1) as f64;
            bar.set_message(format!("| {changed} changed ({share:.2}%), {:.1} ms{note}", time.as_secs_f64() * 1e3));
            bar.set_position(iteration as u64 + 1);
        }
    }
}

impl Drop for IterationBar {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A spinner naming the current step of a command made of phases (`glp gen`).
pub struct PhaseSpinner {
    bar: Option<ProgressBar>,
}

impl PhaseSpinner {
    /// A spinner for `what` (`planted`, `rmat`).
    pub fn new(what: &'static str) -> Self {
        let bar = console::draws_progress().then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template("{prefix:>14} {spinner} {msg} ({elapsed})") {
                bar.set_style(style);
            }
            bar.set_prefix(what);
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        PhaseSpinner { bar }
    }

    /// A generator phase began: the generators' callback.
    pub fn phase(&self, phase: Phase) {
        self.step(phase.describe());
    }

    /// A step of the command itself began (`writing FILE`).
    pub fn step(&self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.to_string());
        }
    }
}

impl Drop for PhaseSpinner {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A bar over the samples of one sampling run.
pub struct SampleBar {
    bar: Option<ProgressBar>,
}

impl SampleBar {
    /// A bar for a run of `samples` samples of `what` (the sampler's name).
    pub fn new(what: &str, samples: u64) -> Self {
        let bar = console::draws_progress().then(|| {
            let bar = ProgressBar::with_draw_target(Some(samples), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template("{prefix:>14} [{bar:20}] {pos}/{len} samples ({per_sec})") {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix(what.to_string());
            bar.tick();
            bar
        });
        SampleBar { bar }
    }

    /// `done` samples are complete: the engine's observer.
    pub fn done(&self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }
}

impl Drop for SampleBar {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
