//! The CUDA back end: typed IR to device functions ([`emit`], one function's statements and
//! expressions in `function.rs`), the namer that keeps
//! generated identifiers legal and distinct ([`namer`]), the step counters of loops
//! ([`loop_guard`]), hooks run one loop iteration at a time ([`resumable`]), and the prelude every kernel starts with (scalar typedefs,
//! Rust-semantics helpers, the loop step counter, Philox4x32-10).

pub mod c_struct;
pub mod emit;
mod function;
pub mod loop_guard;
pub mod namer;
pub mod resumable;

pub use emit::{c_scalar, c_type, emit_param_expr, emit_program, function_name, params_struct};

/// The prelude every generated kernel includes first.
pub const PRELUDE: &str = include_str!("prelude.cuh");
