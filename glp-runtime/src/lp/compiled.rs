//! What the `#[glp::lp_variant]` attribute adds to a variant: its hooks compiled to CUDA and
//! the metadata engines need (features, parameters, where its loops are), next to the native
//! Rust impl.

use super::LpVariant;
use crate::error::Error;
use crate::graph::VertexId;
use crate::program::LoopSite;
pub use glp_codegen::ir::{ParamDecl, Scalar, ScalarValue};
use glp_codegen::kinds::lp::{LoopFault, LpFeatures, LP_KIND};
use std::fmt::Write as _;

/// A label propagation variant compiled by glp: the native hooks ([`LpVariant`]) plus their
/// CUDA translation and metadata. Implemented by `#[glp::lp_variant]`, and by variants
/// compiled from a source file at run time.
pub trait CompiledVariant: LpVariant {
    /// The implementing type's name.
    fn name(&self) -> &str;
    /// The hooks as CUDA device functions (the parameter struct, then one function per hook
    /// and helper).
    fn device_functions(&self) -> &str;
    /// The impl's source tokens, from which the compiler can rebuild the program (for the
    /// interpreter).
    fn program_source(&self) -> &str;
    /// The optional facilities the hooks use; engines allocate only these.
    fn features(&self) -> LpFeatures;
    /// Whether every neighbour contributes weight exactly 1 (see
    /// [`glp_codegen::kinds::lp::properties::unit_neighbor_weight`]): GPU kernels then count instead of
    /// summing weights. `false` is always correct.
    fn unit_neighbor_weight(&self) -> bool {
        false
    }
    /// Whether `label_score` is exactly the weighted count of the label (`freq`; see
    /// [`glp_codegen::kinds::lp::properties::score_is_frequency`]): only such variants may use the
    /// sketch MFL strategies, which estimate that count. `false` is always safe.
    fn score_is_frequency(&self) -> bool {
        false
    }
    /// Whether `load_neighbor` is the default hook, `(view.label(u), 1.0)` (see
    /// [`glp_codegen::kinds::lp::properties::default_load_neighbor`]): GPU kernels then read
    /// the neighbour's label themselves, so holding the vertices by degree costs no id
    /// translation per edge ([`crate::lp::gpu`]'s vertex order). `false` is always correct.
    fn default_load_neighbor(&self) -> bool {
        false
    }
    /// Whether the first synchronous sweep is decided by the tie rule alone on a graph whose
    /// rows list no target twice (see
    /// [`glp_codegen::kinds::lp::properties::distinct_first_sweep`]): the GPU engine then takes
    /// the neighbours' smallest label with one read per edge instead of counting. `false` is
    /// always correct.
    fn distinct_first_sweep(&self) -> bool {
        false
    }
    /// The parameters the hooks read, in kernel-argument order.
    fn param_decls(&self) -> Vec<ParamDecl>;
    /// The parameters' values, in the same order.
    fn param_values(&self) -> Vec<ScalarValue>;
    /// The loops of the hooks, in the order of their site codes
    /// ([`glp_codegen::loops::loop_sites`]): where the GPU's loop faults point.
    fn loop_sites(&self) -> Vec<LoopSite>;
    /// The step budget of one hook call's loops ([`glp_codegen::loops`]) the variant runs
    /// with; `None` (the default): [`glp_codegen::kinds::lp::default_loop_budget`] of the graph.
    /// Hooks compiled natively into glp run their loops as plain Rust on the CPU, without a
    /// budget; their CUDA has one.
    fn loop_budget(&self) -> Option<u64> {
        None
    }
    /// The error ending a GPU run in which hook `fault.hook`'s loops ran past `budget` steps
    /// for `fault.vertex` in `iteration`: the message, the loop's `file:line:col` and which
    /// hook ran out for which vertex.
    fn loop_fault_error(&self, fault: LoopFault, iteration: u32, budget: u64) -> Error {
        let mut text = format!("{}\n", glp_codegen::interp::loop_budget_message(budget));
        match self.loop_sites().get(fault.site.wrapping_sub(1)) {
            Some(site) => {
                let _ = writeln!(text, "  --> {}:{}:{}", site.file, site.line, site.column);
            }
            None => {
                let _ = writeln!(text, "  --> loop site {} (unknown to the variant)", fault.site);
            }
        }
        text.push_str(&crate::program::loop_budget_help());
        text.push_str(&failure_note(self.name(), fault.hook, fault.vertex, iteration, " on the GPU"));
        Error::Program(text)
    }
}

/// The last line of a hook failure's message: which hook of `variant` failed for which
/// vertex when, and `place` (empty, or where it ran).
pub(super) fn failure_note(variant: &str, hook: usize, vertex: VertexId, iteration: u32, place: &str) -> String {
    let name = LP_KIND.hooks.get(hook).map_or("a hook", |h| h.name);
    let when = if hook == glp_codegen::kinds::lp::INITIAL_LABEL {
        "before iteration 0".to_string()
    } else {
        format!("in iteration {iteration}")
    };
    format!("   = note: in `{name}` of `{variant}`, for vertex index {vertex} {when}{place}")
}
