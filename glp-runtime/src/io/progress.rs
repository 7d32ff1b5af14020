//! The loading progress bar.
//!
//! One bar per load, drawn on standard error only when [`draws_progress`] says so: when it is
//! a terminal and progress was asked for (`LoadOptions::progress`), so logs and pipes stay
//! clean. [`draws_progress`] is glp's one decision about progress output: the command line
//! asks it before drawing its iteration and generation bars too.
//! Stages ("decompressing", "parsing", "building") reuse the same bar; byte counts advance per
//! parsed chunk, so updates cost nothing measurable.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal as _;

/// Whether progress is drawn: when `requested` (not silenced: `LoadOptions::progress`, the
/// command line's `--quiet`) and standard error is a terminal. Nothing is drawn into pipes,
/// files or logs.
pub fn draws_progress(requested: bool) -> bool {
    requested && std::io::stderr().is_terminal()
}

const BYTES_TEMPLATE: &str = "{msg:>14} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})";
const SPINNER_TEMPLATE: &str = "{msg:>14} {spinner} {elapsed}";

/// Progress of one load.
#[derive(Debug)]
pub(crate) struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar on standard error when [`draws_progress`]`(enabled)`, else hidden.
    pub(crate) fn new(enabled: bool) -> Self {
        let bar = if draws_progress(enabled) {
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        Progress { bar }
    }

    /// A bar that never draws.
    pub(crate) fn hidden() -> Self {
        Progress::new(false)
    }

    /// Starts a stage that processes `total` bytes.
    pub(crate) fn bytes_stage(&self, message: &'static str, total: u64) {
        if let Ok(style) = ProgressStyle::with_template(BYTES_TEMPLATE) {
            self.bar.set_style(style.progress_chars("=> "));
        }
        self.bar.set_length(total);
        self.bar.set_position(0);
        self.bar.set_message(message);
    }

    /// Starts a stage without a byte count.
    pub(crate) fn stage(&self, message: &'static str) {
        if let Ok(style) = ProgressStyle::with_template(SPINNER_TEMPLATE) {
            self.bar.set_style(style);
        }
        self.bar.set_message(message);
        self.bar.tick();
    }

    /// Advances the current byte stage.
    pub(crate) fn inc(&self, bytes: u64) {
        self.bar.inc(bytes);
    }

    /// Wraps a reader so that reading advances the current byte stage.
    pub(crate) fn wrap_read<R: std::io::Read>(&self, read: R) -> impl std::io::Read {
        self.bar.wrap_read(read)
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
