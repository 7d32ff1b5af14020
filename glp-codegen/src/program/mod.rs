//! The generic program layer: everything a program kind needs besides its own hooks and
//! context, written once for every kind.
//!
//! - [`kind`]: the description of a kind ([`kind::KindSpec`]) the whole compiler reads;
//! - [`compile_impl`]: the pipeline (front end, type check, validation) on one annotated impl;
//! - [`source`]: the same from a source file at run time, with rustc-style diagnostics;
//! - [`features`]: which optional runtime facilities of the kind's context a program uses;
//! - [`expand`]: the attribute macros' scaffolding (options, parameter blocks, loop sites),
//!   which a kind's own expansion (`kinds/<kind>/expand.rs`) completes with its trait impl.
//!
//! Nothing here names a particular kind.

pub mod expand;
pub mod features;
pub mod kind;
pub mod source;

use crate::diag::Diagnostics;
use crate::frontend::FieldDecl;
use crate::ir::Program;
use kind::KindSpec;

/// A program that passed every check.
pub struct Compiled {
    pub program: Program,
    /// Where each parameter is first read (the macro points rustc's check of the inferred
    /// parameter types there).
    pub param_spans: Vec<proc_macro2::Span>,
    /// The tokens' spans, indexed by [`crate::ir::SpanId`] (the macro points at loops with
    /// them).
    pub spans: Vec<proc_macro2::Span>,
}

/// Lowers, type-checks and validates one annotated impl for program kind `kind`. All errors
/// of the item come back together.
pub fn compile_impl(
    kind: &KindSpec,
    item: &syn::ItemImpl,
    fields: Option<&[FieldDecl]>,
) -> Result<Compiled, Diagnostics> {
    let mut lowered = crate::frontend::lower_impl(kind, item, fields);
    crate::typeck::check(kind, &mut lowered);
    if lowered.diagnostics.errors.is_empty() {
        let errors = crate::validate::validate(kind, &lowered.program);
        lowered.diagnostics.errors.extend(errors);
    }
    if !lowered.diagnostics.errors.is_empty() {
        return Err(lowered.diagnostics);
    }
    let spans = &lowered.diagnostics.spans;
    let param_spans = lowered
        .param_uses
        .iter()
        .map(|s| spans.get(s.0 as usize).copied().unwrap_or_else(proc_macro2::Span::call_site))
        .collect();
    Ok(Compiled { program: lowered.program, param_spans, spans: spans.clone() })
}
