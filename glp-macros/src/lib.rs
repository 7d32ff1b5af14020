//! # glp-macros: thin procedural macros
//!
//! Each macro parses its input, hands it to `glp-codegen`, and returns the generated tokens
//! or the compiler's spanned errors. No lowering logic lives here (the sqlx model: a thin
//! proc-macro crate over a normal library).

use proc_macro::TokenStream;

/// Compiles a label propagation variant: put it on `impl LpVariant for YourStruct`.
///
/// The impl is kept as written (each hook and helper marked `#[inline(always)]`, so that the engines'
/// loops inline the hooks); the macro adds an impl of `glp::lp::CompiledVariant` with the
/// CUDA device functions of the hooks, the features they use and the parameter values.
/// `#[glp::lp_variant(debug)]` prints the generated CUDA while compiling.
#[proc_macro_attribute]
pub fn lp_variant(attr: TokenStream, item: TokenStream) -> TokenStream {
    glp_codegen::kinds::lp::expand_attribute(attr.into(), item.into()).into()
}

/// Compiles a graph sampler: put it on `impl Sampler for YourStruct`.
///
/// The impl is kept as written (each hook and helper marked `#[inline(always)]`, so that the engines'
/// loops inline the hooks); the macro adds an impl of `glp::sample::CompiledSampler` with
/// the CUDA device functions of the hooks, the view facilities they use and the parameter
/// values. The trait's host methods (`validate`, `name`, `failure`) stay ordinary Rust.
/// `#[glp::sampler(debug)]` prints the generated CUDA while compiling.
#[proc_macro_attribute]
pub fn sampler(attr: TokenStream, item: TokenStream) -> TokenStream {
    glp_codegen::kinds::sample::expand_attribute(attr.into(), item.into()).into()
}

/// Compiles an edge program: put it on `impl EdgeProgram for YourStruct`.
///
/// The impl is kept as written (each hook marked `#[inline(always)]`), with `identity` (the
/// combine's identity for the message type) added unless written; the macro adds an impl of
/// `glp::edge::CompiledEdgeProgram` with the CUDA device functions of the hooks, the view
/// facilities they use and the parameter values. `#[glp::edge_program(debug)]` prints the
/// generated CUDA while compiling.
#[proc_macro_attribute]
pub fn edge_program(attr: TokenStream, item: TokenStream) -> TokenStream {
    glp_codegen::kinds::edge::expand_attribute(attr.into(), item.into()).into()
}
