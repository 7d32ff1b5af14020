//! What can go wrong while a program runs.

use crate::ir::Location;
use std::borrow::Cow;
use std::fmt;

/// An error raised while interpreting a program. Arithmetic errors are the cases where
/// Rust panics even in a release build; they carry the location of the offending operator.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeError {
    /// Integer `/` by zero.
    DivideByZero { location: Location },
    /// Integer `%` by zero.
    RemainderByZero { location: Location },
    /// `MIN / -1` on a signed integer.
    DivideOverflow { location: Location },
    /// `MIN % -1` on a signed integer.
    RemainderOverflow { location: Location },
    /// An error of the embedder's [`super::Host`]; the interpreter fills in the location of
    /// the call when the host left it out.
    Host { message: String, location: Option<Location> },
    /// A loop iteration past the call's step budget ([`super::Host::loop_budget`]); the
    /// location is the loop's.
    LoopBudget { budget: u64, location: Location },
    /// The embedder called the interpreter wrongly: unknown function, wrong number or types
    /// of arguments or parameters.
    BadCall { message: String },
    /// The program is not well typed (an IR that did not come from the type checker), or a
    /// host returned a value of the wrong type.
    IllTyped { message: String, location: Location },
}

impl RuntimeError {
    /// An error of the host, without a location.
    pub fn host(message: impl Into<String>) -> RuntimeError {
        RuntimeError::Host { message: message.into(), location: None }
    }

    /// Where in the source it happened, when known.
    pub fn location(&self) -> Option<Location> {
        match self {
            RuntimeError::DivideByZero { location }
            | RuntimeError::RemainderByZero { location }
            | RuntimeError::DivideOverflow { location }
            | RuntimeError::RemainderOverflow { location }
            | RuntimeError::LoopBudget { location, .. }
            | RuntimeError::IllTyped { location, .. } => Some(*location),
            RuntimeError::Host { location, .. } => *location,
            RuntimeError::BadCall { .. } => None,
        }
    }

    /// What went wrong, without the location (Rust's panic message for the arithmetic errors).
    pub fn message(&self) -> Cow<'_, str> {
        Cow::Borrowed(match self {
            RuntimeError::DivideByZero { .. } => "attempt to divide by zero",
            RuntimeError::RemainderByZero { .. } => "attempt to calculate the remainder with a divisor of zero",
            RuntimeError::DivideOverflow { .. } => "attempt to divide with overflow",
            RuntimeError::RemainderOverflow { .. } => "attempt to calculate the remainder with overflow",
            RuntimeError::LoopBudget { budget, .. } => return Cow::Owned(loop_budget_message(*budget)),
            RuntimeError::Host { message, .. } => message,
            RuntimeError::BadCall { message } => message,
            RuntimeError::IllTyped { message, .. } => message,
        })
    }
}

/// What [`RuntimeError::LoopBudget`] says (also the GPU's message for a hook whose loops ran
/// out).
pub fn loop_budget_message(budget: u64) -> String {
    format!(
        "this loop ran past the step budget: the loops of one call may run {budget} iterations in all \
         (a loop that never ends?)"
    )
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = self.message();
        match self.location() {
            // Columns are stored 0-based; people count from 1.
            Some(l) => write!(f, "{}:{}: {message}", l.line, l.column + 1),
            None => f.write_str(&message),
        }
    }
}

impl std::error::Error for RuntimeError {}
