//! The runtime's error type.
//!
//! Every failure a user can cause (a malformed file, a bad argument, a missing GPU) is an
//! [`Error`] value with enough context to act on: parse errors name the file, line and column
//! and what was expected there. Nothing a user can influence panics.

use std::fmt;
use std::path::{Path, PathBuf};

/// Result alias of the runtime.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A position in a text input, 1-based, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPosition {
    /// Line number, starting at 1.
    pub line: u64,
    /// Column (byte offset in the line), starting at 1.
    pub column: u64,
}

impl fmt::Display for TextPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// What the caller can do about an error by setting an option of the call that failed.
///
/// The runtime's messages name no command-line flag: a front end names its own option for
/// the remedy ([`Error::with_flags`]); `to_string()` describes the option without a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remedy {
    /// Choose the edge list's columns explicitly
    /// ([`LoadOptions::columns`](crate::io::LoadOptions::columns)).
    ChooseColumns,
}

impl Remedy {
    /// The remedy, set by `flag` when given (the command line's `--columns`).
    pub fn with_flag(self, flag: Option<&str>) -> String {
        match (self, flag) {
            (Remedy::ChooseColumns, Some(flag)) => {
                format!("choose columns with {flag} SRC,DST[,WEIGHT], names or 0-based indices")
            }
            (Remedy::ChooseColumns, None) => {
                "choose the source, target and optional weight columns, by header name or 0-based index".to_string()
            }
        }
    }

    /// The remedy as it ends a message: ` (...)`, or nothing without one.
    fn suffix(remedy: Option<Remedy>, flag: Option<&str>) -> String {
        remedy.map_or_else(String::new, |r| format!(" ({})", r.with_flag(flag)))
    }
}

/// Errors of the glp runtime.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The operating system refused a read or write.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },

    /// A text input does not follow its format.
    #[error("{}:{position}: {message}{}", path.display(), Remedy::suffix(*remedy, None))]
    Parse {
        /// The file being read.
        path: PathBuf,
        /// Where in the file.
        position: TextPosition,
        /// What was found and what was expected instead.
        message: String,
        /// What the caller can do about it, when an option of the load can (see
        /// [`Error::with_flags`]).
        remedy: Option<Remedy>,
    },

    /// A binary or whole-file input is malformed (bad magic, version, checksum, truncation,
    /// inconsistent counts).
    #[error("{}: {message}", path.display())]
    Format {
        /// The file being read.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },

    /// An argument or option value is not acceptable.
    #[error("{0}")]
    InvalidArgument(String),

    /// The graph (or another input) is valid but too large for a representation glp uses.
    #[error("{0}")]
    TooLarge(String),

    /// The GPU backend cannot be used (no driver, no device, or a device-layer failure).
    #[error("GPU unavailable: {0}")]
    GpuUnavailable(String),

    /// A CUDA call failed on a working device (launch failure, illegal address, ...).
    #[error("GPU error: {0}")]
    Gpu(String),

    /// A device allocation does not fit in the GPU's free memory.
    #[error(
        "out of GPU memory allocating {what}: needed {needed} bytes, {free} of {total} bytes free \
         (glp holds {held} bytes){hint}"
    )]
    GpuOutOfMemory {
        /// What was being allocated.
        what: String,
        /// Bytes requested.
        needed: u64,
        /// Free device memory at the time.
        free: u64,
        /// The device's memory.
        total: u64,
        /// Bytes glp had allocated on the device before the request.
        held: u64,
        /// What to try instead (starts with "; " when set).
        hint: String,
    },

    /// NVRTC is not installed, or refused to compile a generated kernel.
    #[error("{0}")]
    KernelCompile(String),

    /// A program file (a variant or sampler written in Rust, compiled at run time) that does
    /// not compile: its diagnostics as rustc renders them (`--> file:line:col`, the line, a
    /// caret), without the leading `error: ` of the first one.
    #[error("{message}")]
    Compile {
        /// The file, as the messages name it.
        file: String,
        /// Where the first diagnostic points (line and column from 1), `None` for an error of
        /// the file as a whole (no `impl ... for`, or more than one).
        position: Option<TextPosition>,
        /// The rendered diagnostics.
        message: String,
    },

    /// A program (a variant or sampler) failed while it ran: a hook's run-time error, a loop
    /// past its step budget, with where in its source.
    #[error("{0}")]
    Program(String),

    /// `NAME=VALUE` parameter strings that do not fit a program's parameters (the command
    /// line renders it with its flag: [`crate::program::ParamError::with_flag`]).
    #[error(transparent)]
    Parameter(#[from] crate::program::ParamError),
}

impl Error {
    /// This error with `hint` (starting with "; ") as its advice when it is a device
    /// out-of-memory error, whose advice depends on who runs out (a layer that knows better
    /// options than the one below it replaces the advice); any other error unchanged.
    pub fn with_hint(self, hint: impl Into<String>) -> Self {
        match self {
            Error::GpuOutOfMemory { what, needed, free, total, held, .. } => {
                Error::GpuOutOfMemory { what, needed, free, total, held, hint: hint.into() }
            }
            other => other,
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io { path: path.as_ref().to_path_buf(), source }
    }

    /// A parse error at `position` of `path`.
    pub fn parse(path: impl AsRef<Path>, position: TextPosition, message: impl Into<String>) -> Self {
        Error::Parse { path: path.as_ref().to_path_buf(), position, message: message.into(), remedy: None }
    }

    /// The error with `remedy` attached, for the errors that carry one (a parse error);
    /// others are returned as they are.
    pub fn with_remedy(self, remedy: Remedy) -> Self {
        match self {
            Error::Parse { path, position, message, .. } => {
                Error::Parse { path, position, message, remedy: Some(remedy) }
            }
            other => other,
        }
    }

    /// The message, a remedy (if any) phrased with the option `flag` names for it (the
    /// command line's flag); `to_string()` is the message without flags.
    pub fn with_flags(&self, flag: impl Fn(Remedy) -> &'static str) -> String {
        match self {
            Error::Parse { path, position, message, remedy: Some(remedy) } => {
                format!(
                    "{}:{position}: {message}{}",
                    path.display(),
                    Remedy::suffix(Some(*remedy), Some(flag(*remedy)))
                )
            }
            other => other.to_string(),
        }
    }

    /// A whole-file format error in `path`.
    pub fn format(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Error::Format { path: path.as_ref().to_path_buf(), message: message.into() }
    }

    /// An invalid argument.
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::InvalidArgument(message.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_replaces_an_out_of_memory_errors_advice_alone() {
        let oom = Error::GpuOutOfMemory {
            what: "tables".into(),
            needed: 10,
            free: 4,
            total: 16,
            held: 2,
            hint: "; the device layer's advice".into(),
        };
        assert_eq!(
            oom.with_hint("; the caller's advice").to_string(),
            "out of GPU memory allocating tables: needed 10 bytes, 4 of 16 bytes free (glp holds 2 bytes); \
             the caller's advice"
        );
        let other = Error::invalid("bad");
        assert_eq!(other.with_hint("; ignored").to_string(), Error::invalid("bad").to_string());
    }
}
