//! # glp-codegen: the glp compiler
//!
//! An ordinary library (no procedural-macro machinery) that lowers the accepted Rust subset
//! to a typed IR, validates it, and emits deterministic CUDA C device functions that kernel
//! templates fuse into kernels. It also hosts the IR interpreter the CPU backend uses for
//! programs loaded at run time.
//!
//! Pipeline (see `DESIGN.md` section 2):
//!
//! ```text
//! syn impl --frontend--> IR (+ inference variables) --typeck--> typed IR --validate-->
//!     +--cuda--> device functions --template--> .cu kernel source (NVRTC at run time)
//!     +--interp--> values on the CPU (programs loaded at run time)
//! ```
//!
//! This crate depends on no other glp crate; `glp-macros` and `glp-runtime` depend on it.

pub mod cuda;
pub mod diag;
pub mod frontend;
pub mod init;
pub mod interp;
pub mod ir;
pub mod kind;
pub mod lp;
pub mod template;
pub mod typeck;
pub mod validate;
pub mod visit;

use diag::Diagnostics;
use frontend::FieldDecl;
use ir::Program;
use kind::KindSpec;

/// A program that passed every check.
pub struct Compiled {
    pub program: Program,
    /// Where each parameter is first read (the macro points rustc's check of the inferred
    /// parameter types there).
    pub param_spans: Vec<proc_macro2::Span>,
}

/// Lowers, type-checks and validates one annotated impl for program kind `kind`. All errors
/// of the item come back together.
pub fn compile_impl(
    kind: &KindSpec,
    item: &syn::ItemImpl,
    fields: Option<&[FieldDecl]>,
) -> Result<Compiled, Diagnostics> {
    let mut lowered = frontend::lower_impl(kind, item, fields);
    typeck::check(kind, &mut lowered);
    if lowered.diagnostics.errors.is_empty() {
        let errors = validate::validate(kind, &lowered.program);
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
    Ok(Compiled { program: lowered.program, param_spans })
}
