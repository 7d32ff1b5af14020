//! glp's errors as Python exceptions of the right type.
//!
//! | glp error | Python exception |
//! |---|---|
//! | a file that cannot be opened because it does not exist (a graph, roots, seeds, a variant or sampler file) | `FileNotFoundError` |
//! | a file glp may not read | `PermissionError` |
//! | another I/O error | `OSError` |
//! | a parse error (file, line, column), a malformed file, a bad argument, too large an input | `ValueError` |
//! | a variant or sampler file that does not compile (`glp::Error::Compile`) | `glp.CompileError(ValueError)`, with `file`, `line`, `column` (`None` for an error of the whole file) |
//! | the device out of memory | `glp.GpuOutOfMemory(MemoryError)`, with `needed`, `free`, `total`, `held` |
//! | no GPU, a GPU or kernel failure | `glp.GpuError(RuntimeError)` |
//! | a variant's or sampler's hook that failed while it ran (`glp::Error::Program`) | `RuntimeError` |
//! | Ctrl-C during a call | `KeyboardInterrupt` (the pending Python exception itself) |
//!
//! The engines' messages name the command line's options (`--walk-length`); here they name
//! the Python arguments instead ([`PYTHON_NAMES`]).

use pyo3::exceptions::{
    PyFileNotFoundError, PyMemoryError, PyOSError, PyPermissionError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::{create_exception, PyErr};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

create_exception!(_glp, CompileError, PyValueError, "A variant or sampler file that does not compile.");
create_exception!(_glp, GpuOutOfMemory, PyMemoryError, "The GPU has too little free memory for the call.");
create_exception!(_glp, GpuError, PyRuntimeError, "No usable GPU, or a failure on it.");

/// The command line's options, as the Python functions name them.
const PYTHON_NAMES: [(&str, &str); 16] = [
    ("--walk-length", "walk_length"),
    ("--fanouts", "fanouts"),
    ("--without-replacement", "replace=False"),
    ("--termination", "termination"),
    ("--layers", "layers"),
    ("--layer-size", "layer_size"),
    ("--batch-size", "batch_size"),
    ("--batch-samples", "batch_samples"),
    ("--roots-random", "roots"),
    ("--roots", "roots"),
    ("--clusters", "clusters"),
    ("--param", "params"),
    ("--seeds", "seeds"),
    ("--variant", "variant"),
    ("--mfl", "mfl"),
    ("--device-memory", "device_memory"),
];

/// `message` with the command line's options named as the Python arguments.
fn pythonic(message: &str) -> String {
    let mut text = message.to_string();
    for (flag, name) in PYTHON_NAMES {
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find(flag) {
            // A whole option only: `--roots` is not the start of `--roots-random`.
            let after = &rest[at + flag.len()..];
            let whole = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-');
            out.push_str(&rest[..at]);
            out.push_str(if whole { name } else { flag });
            rest = after;
        }
        out.push_str(rest);
        text = out;
    }
    text
}

thread_local! {
    /// A Python exception raised by a callback while this thread's call ran without the GIL
    /// (Ctrl-C's `KeyboardInterrupt`: Python runs signal handlers on the main thread, in the
    /// callbacks that thread makes), kept until the call returns to raise it in place of
    /// glp's error.
    static PENDING: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// Keeps `error` to be raised when this thread's call ends; returns the glp error that stops
/// the run.
pub fn interrupt(error: PyErr) -> glp::Error {
    let message = error.to_string();
    PENDING.with(|pending| *pending.borrow_mut() = Some(error));
    glp::Error::invalid(format!("interrupted: {message}"))
}

/// Checks for Ctrl-C (and other signals Python handles) from a thread that does not hold
/// the GIL. Python runs signal handlers on its main thread only: elsewhere this finds none.
fn check_signals() -> glp::Result<()> {
    Python::attach(|py| py.check_signals()).map_err(interrupt)
}

/// How often [`interruptible`] looks for a signal: Ctrl-C stops a run within about this much
/// and the engine's next check.
const SIGNAL_WATCH: Duration = Duration::from_millis(50);

/// A run's check for a stop, called by its engine between iterations or batches: fails once
/// [`interruptible`]'s thread has seen a signal.
pub type StopCheck<'a> = &'a (dyn Fn() -> glp::Result<()> + Sync);

/// Runs `work` without the GIL on a thread of its own while the calling thread (where Python
/// runs its signal handlers) looks for Ctrl-C every [`SIGNAL_WATCH`]. An engine checks for a
/// stop where it can stop cleanly (between LP iterations, at each batch a sampling engine
/// hands over, whether it runs on the CPU or the GPU, whose engines hand their batches over on
/// a thread of their own): once a handler has raised, `work`'s check fails, and the call
/// returns the handler's exception (`KeyboardInterrupt`) as soon as `work` has stopped.
pub fn interruptible<R: Send>(
    py: Python<'_>,
    work: impl FnOnce(StopCheck<'_>) -> glp::Result<R> + Send,
) -> glp::Result<R> {
    py.detach(|| {
        let stop = AtomicBool::new(false);
        let stop = &stop;
        std::thread::scope(|scope| {
            let (done, finished) = mpsc::channel::<()>();
            let worker = scope.spawn(move || {
                let check = || match stop.load(Ordering::Relaxed) {
                    true => Err(glp::Error::invalid("interrupted")),
                    false => Ok(()),
                };
                let result = work(&check);
                drop(done);
                result
            });
            let mut signalled = None;
            while let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(SIGNAL_WATCH) {
                if signalled.is_none() {
                    if let Err(error) = check_signals() {
                        stop.store(true, Ordering::Relaxed);
                        signalled = Some(error);
                    }
                }
            }
            let result = worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            match signalled {
                Some(error) => Err(error),
                None => result,
            }
        })
    })
}

/// The Python exception for `error`, by its variant (never by its text).
pub fn to_py(error: glp::Error) -> PyErr {
    if let Some(pending) = PENDING.with(|pending| pending.borrow_mut().take()) {
        return pending;
    }
    let message = pythonic(&error.to_string());
    match error {
        glp::Error::Io { source, .. } => match source.kind() {
            std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
            std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
            _ => PyOSError::new_err(message),
        },
        glp::Error::Compile { file, position, .. } => Python::attach(|py| {
            let exception = CompileError::new_err(message.clone());
            let value = exception.value(py);
            let set = || -> PyResult<()> {
                value.setattr("file", file)?;
                value.setattr("line", position.map(|p| p.line))?;
                value.setattr("column", position.map(|p| p.column))
            };
            set().map_or_else(|e| e, |()| exception.clone_ref(py))
        }),
        // A hook that failed while it ran (its sample and step, or vertex and iteration, and
        // its place in the source are in the message).
        glp::Error::Program(_) => PyRuntimeError::new_err(message),
        glp::Error::GpuOutOfMemory { needed, free, total, held, .. } => Python::attach(|py| {
            let exception = GpuOutOfMemory::new_err(message.clone());
            let value = exception.value(py);
            let set = || -> PyResult<()> {
                value.setattr("needed", needed)?;
                value.setattr("free", free)?;
                value.setattr("total", total)?;
                value.setattr("held", held)
            };
            set().map_or_else(|e| e, |()| exception.clone_ref(py))
        }),
        glp::Error::GpuUnavailable(_) | glp::Error::Gpu(_) | glp::Error::KernelCompile(_) => GpuError::new_err(message),
        glp::Error::Parse { .. }
        | glp::Error::Format { .. }
        | glp::Error::InvalidArgument(_)
        | glp::Error::TooLarge(_)
        | glp::Error::Parameter(_) => PyValueError::new_err(message),
    }
}

/// `Result<T, glp::Error>` into `PyResult<T>`.
pub trait IntoPy<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for glp::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
