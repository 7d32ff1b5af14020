//! What glp says on standard error besides errors: warnings, notices and progress, and the
//! global `--quiet` that silences all but warnings.
//!
//! - Warnings (`warning: ...`) are about the result (ignored ground-truth ids, a ground truth
//!   that covers few vertices, a capped option): always printed.
//! - Notices (`notice: ...`, the CPU fallback of `--backend auto`) and status lines (`wrote
//!   FILE ...`) report what happened: silenced by `--quiet`.
//! - Progress bars (loading, LP iterations, generation phases) are drawn only where
//!   [`draws_progress`](glp_runtime::io::draws_progress) allows: standard error is a terminal
//!   and `--quiet` was not given.
//!
//! Standard error failing to take a message is not worth failing a command for: such write
//! errors are ignored here (errors themselves are printed by `main`).

use std::fmt::Display;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Sets the global `--quiet`.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether progress may be drawn (not `--quiet`); the runtime adds the terminal test.
pub fn progress_requested() -> bool {
    !QUIET.load(Ordering::Relaxed)
}

/// Whether progress bars are drawn now.
pub fn draws_progress() -> bool {
    glp_runtime::io::draws_progress(progress_requested())
}

/// Prints `warning: MESSAGE` (always).
pub fn warning(message: impl Display) {
    let _ = writeln!(std::io::stderr().lock(), "warning: {message}");
}

/// Prints `notice: MESSAGE` unless `--quiet`.
pub fn notice(message: impl Display) {
    status(format_args!("notice: {message}"));
}

/// Prints a status line (`wrote FILE ...`) unless `--quiet`.
pub fn status(line: impl Display) {
    if progress_requested() {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}

/// Prints a report on standard error: the summary or JSON of a command whose standard output
/// carries its data (`--out -`). Not silenced: it was asked for.
pub fn report(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
