//! Compile errors: a message, the span of the offending node, and a hint.
//!
//! The front end records, for every span id, both the `proc_macro2::Span` (so the macro can
//! point rustc at the user's tokens) and its line and column (so a file compiled at run time
//! can be reported as `file:line:col` with the source line and a caret).

use crate::ir::{Location, SpanId};
use std::fmt::Write as _;

/// One compile error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: SpanId,
    pub message: String,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(span: SpanId, message: impl Into<String>) -> Self {
        Diagnostic { span, message: message.into(), help: None }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The message and hint as one text (what `compile_error!` shows).
    pub fn text(&self) -> String {
        match &self.help {
            Some(help) => format!("{}\n  = help: {help}", self.message),
            None => self.message.clone(),
        }
    }
}

/// All errors of one item, with the spans they point into.
#[derive(Debug, Clone)]
pub struct Diagnostics {
    pub errors: Vec<Diagnostic>,
    /// Locations indexed by [`SpanId`].
    pub locations: Vec<Location>,
    /// The tokens' spans indexed by [`SpanId`] (for the macro).
    pub spans: Vec<proc_macro2::Span>,
}

impl Diagnostics {
    pub fn location(&self, span: SpanId) -> Location {
        self.locations.get(span.0 as usize).copied().unwrap_or_default()
    }

    /// The errors as rustc errors: one `compile_error!` per diagnostic at its span.
    pub fn to_syn_error(&self) -> Option<syn::Error> {
        let mut combined: Option<syn::Error> = None;
        for d in &self.errors {
            let span = self.spans.get(d.span.0 as usize).copied().unwrap_or_else(proc_macro2::Span::call_site);
            let error = syn::Error::new(span, d.text());
            match &mut combined {
                Some(c) => c.combine(error),
                None => combined = Some(error),
            }
        }
        combined
    }

    /// Renders every error as `error: ...` / `--> file:line:col` / source line / caret, the
    /// way rustc does, for programs compiled at run time.
    pub fn render(&self, file: &str, source: &str) -> String {
        let mut out = String::new();
        for d in &self.errors {
            let _ = writeln!(out, "error: {}", d.message);
            render_location(&mut out, file, source, self.location(d.span));
            if let Some(help) = &d.help {
                let _ = writeln!(out, "  = help: {help}");
            }
        }
        let n = self.errors.len();
        let _ = write!(out, "{n} error{} in {file}", if n == 1 { "" } else { "s" });
        out
    }
}

/// Appends, the way rustc shows where an error is, `  --> file:line:col` (column counted
/// from 1) and, when `source` has that line, the line with a caret under the location's
/// columns. Each line ends with a newline.
pub fn render_location(out: &mut String, file: &str, source: &str, loc: Location) {
    let _ = writeln!(out, "  --> {file}:{}:{}", loc.line, loc.column + 1);
    let Some(text) = source.lines().nth((loc.line as usize).wrapping_sub(1)) else { return };
    let gutter = loc.line.to_string();
    let pad = " ".repeat(gutter.len());
    let width = if loc.end_line == loc.line && loc.end_column > loc.column {
        (loc.end_column - loc.column) as usize
    } else {
        text.chars().count().saturating_sub(loc.column as usize).max(1)
    };
    let indent: String = text.chars().take(loc.column as usize).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{gutter} | {text}");
    let _ = writeln!(out, "{pad} | {indent}{}", "^".repeat(width));
}
