//! Variants compiled from source at run time (`glp lp --variant my_variant.rs`) and run by
//! the CPU engines on the IR interpreter.
//!
//! An [`InterpretedVariant`] is a [`LoadedProgram`] (file, parameters, failure latch; shared
//! by every kind) of the label propagation kind, and an [`LpVariant`] like any other: the engines call its hooks
//! with the same arguments, in the same order, as they would call a native variant's, and
//! each hook runs the lowered program on [`glp_codegen::interp`] with the view's methods
//! mapped to the real [`View`]. The interpreter has Rust's (release build) semantics, so a
//! variant gives bit for bit the labels (and label memories) of the same Rust compiled
//! natively, on every schedule and thread count where the engine itself is deterministic
//! (`tests/interpreted_variants.rs` checks it for every built-in variant on real graphs).
//!
//! # Hook contracts this relies on
//!
//! - The engines call every hook through `&self` from several rayon threads at once; the
//!   interpreter is shared (`Sync`) and each call has its own frame, so a hook is a pure
//!   function of its arguments, the parameters and what it reads through the view.
//! - A label a hook returns (`initial_label`, `pick_label`, the label of `load_neighbor`,
//!   `update_vertex`) is a dense vertex id below the vertex count or [`UNLABELLED`]: the
//!   engines index per-label tables with it. Native Rust is trusted to keep this; a source
//!   file is not, and any other label stops the run with an error.
//! - View methods are given vertex ids below the vertex count and edge ids below the edge
//!   count (native code would panic on an index); out of range, the run stops with an error.
//!   `count_label` / `global_count` take any label (others than vertex ids are ignored / 0),
//!   `memory_*` only the hook's own vertex (the compiler checks it), `random_*` any vertex.
//! - Hooks cannot return an error, so a failing call (division by zero, a bad label, an id
//!   out of range) records the first failure and returns a neutral value; every later call
//!   of this variant returns a neutral value at once without running. The engines call
//!   [`LpVariant::failure`] after the initial labels and after every iteration and end the
//!   run with the error, which names the file, line and column, shows the source line with a
//!   caret, and says which hook failed on which vertex in which iteration. Reporting clears
//!   it: the variant can run again.
//! - Every loop iteration of a hook call counts against a step budget
//!   ([`glp_codegen::loops`]): by default [`glp_codegen::kinds::lp::default_loop_budget`] of the
//!   graph the view shows, or the variant's own ([`InterpretedVariant::with_loop_budget`], on
//!   the GPU too). A hook that runs past it (a loop that never ends) is such a failure, at the
//!   loop's line and column.
//! - Hooks the source does not write are the trait's defaults. They are run natively (the
//!   default hooks' source is classic LP, which `DEFAULT_HOOKS` in glp-codegen and the trait
//!   agree on), unless [`InterpretedVariant::interpret_default_hooks`] asks for the
//!   interpreter.

use super::compiled::{failure_note, CompiledVariant};
use super::variant::{EdgeId, Label, LpVariant, View};
use crate::community::UNLABELLED;
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::program::{host_arg as arg, method_table, HookFailure, LoadedProgram, LoopSite};
use glp_codegen::interp::{Host, RuntimeError, Value};
use glp_codegen::ir::{FunctionId, IntrinsicId, ParamDecl, ScalarValue};
use glp_codegen::kinds::lp::{
    LoopFault, LpFeatures, LpProgram, INITIAL_LABEL, LABEL_SCORE, LOAD_NEIGHBOR, LP_KIND, PICK_LABEL, UPDATE_VERTEX,
};
use std::fmt;
use std::sync::OnceLock;

/// Compiles the label propagation variant in `source`, the text of the file named `file` in
/// messages (a struct whose fields are the parameters and one `impl LpVariant for` it; see
/// [`crate::program::compile`]).
pub fn compile_variant(file: &str, source: &str) -> Result<LpProgram> {
    crate::program::compile(&LP_KIND, file, source).map(LpProgram::new)
}

/// A label propagation variant compiled at run time and run on the IR interpreter (see the
/// module docs for the contracts it relies on). `Sync`: one value serves every engine thread.
/// A clone has no pending failure.
#[derive(Clone)]
pub struct InterpretedVariant {
    /// The program, its parameters, file and failure latch.
    loaded: LoadedProgram,
    /// The features its hooks use.
    features: LpFeatures,
    /// Per hook index: the function to interpret, `None` to run the trait's default natively.
    hooks: [Option<FunctionId>; 5],
    /// Per intrinsic id of [`LP_KIND`]: the view method it is.
    methods: Vec<Option<Method>>,
    /// CUDA of the hooks, emitted on first request.
    cuda: OnceLock<String>,
}

impl InterpretedVariant {
    /// `program` with its parameters' values, in [`glp_codegen::ir::Program::params`]
    /// order. Messages name the program (no source file).
    ///
    /// Errors: not one value per parameter, or a value of another type than its parameter.
    pub fn new(program: LpProgram, params: Vec<ScalarValue>) -> Result<Self> {
        Ok(InterpretedVariant::of_loaded(LoadedProgram::new(program.program, params)?))
    }

    fn of_loaded(loaded: LoadedProgram) -> Self {
        let features = LpFeatures::of(loaded.program());
        let methods = method_table(&LP_KIND, &Method::ALL);
        let mut variant = InterpretedVariant { loaded, features, hooks: [None; 5], methods, cuda: OnceLock::new() };
        variant.select_hooks(false);
        variant
    }

    /// Compiles the variant in `source` (the text of the file named `file` in messages) and
    /// sets its parameters from `NAME=VALUE` strings ([`LoadedProgram::from_source`]; a
    /// parameter error is [`Error::Parameter`]).
    pub fn from_source<S: AsRef<str>>(file: &str, source: &str, assignments: &[S]) -> Result<Self> {
        Ok(InterpretedVariant::of_loaded(LoadedProgram::from_source(&LP_KIND, file, source, assignments)?))
    }

    /// The interpreted twin of a compiled variant: its stored source
    /// ([`CompiledVariant::program_source`]) compiled again, with its parameter values.
    pub fn of_kernel<K: CompiledVariant + ?Sized>(kernel: &K) -> Result<Self> {
        let file = format!("<{}>", kernel.name());
        let program = crate::program::compile(&LP_KIND, &file, kernel.program_source())?;
        let loaded = LoadedProgram::new(program, kernel.param_values())?.with_source(&file, kernel.program_source());
        Ok(InterpretedVariant::of_loaded(loaded))
    }

    /// Names `file` and shows lines of `source` (the text the program was compiled from) in
    /// runtime errors.
    pub fn with_source(mut self, file: &str, source: &str) -> Self {
        self.loaded = self.loaded.with_source(file, source);
        self
    }

    /// Lets each hook call run `budget` loop iterations in all (on the CPU and the GPU)
    /// instead of the default for the graph ([`CompiledVariant::loop_budget`]).
    pub fn with_loop_budget(mut self, budget: u64) -> Self {
        self.loaded = self.loaded.with_loop_budget(budget);
        self
    }

    /// Whether the hooks the source leaves out (the trait's defaults) run on the interpreter
    /// too, from the default hooks' source, instead of natively (the default). Slower; for
    /// checking the interpreter against the native defaults.
    pub fn interpret_default_hooks(mut self, interpret: bool) -> Self {
        self.select_hooks(interpret);
        self
    }

    fn select_hooks(&mut self, interpret_defaults: bool) {
        for (hook, slot) in self.hooks.iter_mut().enumerate() {
            *slot = self.loaded.hook_function(hook, interpret_defaults);
        }
    }

    /// The loaded program (IR, parameters, file).
    pub fn loaded(&self) -> &LoadedProgram {
        &self.loaded
    }

    /// The parameters' values, in declaration order.
    pub fn params(&self) -> &[ScalarValue] {
        self.loaded.params()
    }

    /// Runs hook `hook` (function `f`) for vertex `v`; `None` after a failure (this one or an
    /// earlier one).
    #[inline]
    fn call(&self, hook: usize, f: FunctionId, view: &View<'_>, v: VertexId, args: &[Value]) -> Option<Value> {
        let host = ViewHost { view, methods: &self.methods };
        let graph = (u64::from(view.num_vertices()), view.num_edges());
        self.loaded.call(host, graph, f, args, (hook, v, view.iteration()))
    }

    /// Runs a hook that returns a label and checks the label. Never inlined, nor are the
    /// other interpreted paths: the hooks left to the native defaults stay small enough to
    /// inline into the engines' loops.
    #[inline(never)]
    fn label_hook(&self, hook: usize, f: FunctionId, view: &View<'_>, v: VertexId, args: &[Value]) -> Option<Label> {
        let value = self.call(hook, f, view, v, args)?;
        match value.as_u32() {
            Some(label) => self.checked_label(hook, f, view, v, label),
            None => {
                self.fail(hook, view, v, self.ill_typed(f, "a label (u32)", value));
                None
            }
        }
    }

    /// `label` when it is a vertex id or [`UNLABELLED`]; otherwise a failure.
    #[inline]
    fn checked_label(&self, hook: usize, f: FunctionId, view: &View<'_>, v: VertexId, label: Label) -> Option<Label> {
        if label == UNLABELLED || label < view.num_vertices() {
            return Some(label);
        }
        let message = format!(
            "`{}` returned label {label}, which is neither a vertex id (below {}) nor UNLABELLED: labels index \
             per-vertex tables",
            LP_KIND.hooks[hook].name,
            view.num_vertices()
        );
        let location = Some(self.loaded.function_location(f));
        self.fail(hook, view, v, RuntimeError::Host { message, location });
        None
    }

    fn ill_typed(&self, f: FunctionId, what: &str, value: Value) -> RuntimeError {
        RuntimeError::IllTyped {
            message: format!("expected {what}, the hook returned {value:?}"),
            location: self.loaded.function_location(f),
        }
    }

    /// Records a failure unless one is already recorded.
    #[cold]
    fn fail(&self, hook: usize, view: &View<'_>, v: VertexId, error: RuntimeError) {
        self.loaded.fail(HookFailure { hook, vertex: v, iteration: view.iteration(), error });
    }

    /// The error the engines return for `failure`: message, location with the source line
    /// and a caret, and which hook failed where (`place`: empty, or where it ran).
    fn render(&self, failure: &HookFailure, place: &str) -> Error {
        let name = &self.loaded.program().name;
        let note = failure_note(name, failure.hook, failure.vertex, failure.iteration, place);
        self.loaded.render(failure, &note)
    }
}

impl fmt::Debug for InterpretedVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.loaded.debug_fields(f, "InterpretedVariant").field("features", &self.features).finish_non_exhaustive()
    }
}

impl InterpretedVariant {
    #[inline(never)]
    fn interpreted_load_neighbor(
        &self,
        f: FunctionId,
        view: &View<'_>,
        v: VertexId,
        u: VertexId,
        edge: EdgeId,
    ) -> (Label, f64) {
        const NOTHING: (Label, f64) = (UNLABELLED, 0.0);
        let args = [Value::Context, v.into(), u.into(), edge.into()];
        let Some(value) = self.call(LOAD_NEIGHBOR, f, view, v, &args) else { return NOTHING };
        match (value.field(0).and_then(Value::as_u32), value.field(1).and_then(Value::as_f64)) {
            (Some(label), Some(weight)) => match self.checked_label(LOAD_NEIGHBOR, f, view, v, label) {
                Some(label) => (label, weight),
                None => NOTHING,
            },
            _ => {
                self.fail(LOAD_NEIGHBOR, view, v, self.ill_typed(f, "a (label, weight) pair", value));
                NOTHING
            }
        }
    }

    #[inline(never)]
    fn interpreted_label_score(&self, f: FunctionId, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
        let args = [Value::Context, v.into(), label.into(), freq.into()];
        match self.call(LABEL_SCORE, f, view, v, &args) {
            None => freq,
            Some(value) => value.as_f64().unwrap_or_else(|| {
                self.fail(LABEL_SCORE, view, v, self.ill_typed(f, "a score (f64)", value));
                freq
            }),
        }
    }
}

/// The trait's default hooks, for the hooks a source leaves out.
struct Defaults;
impl LpVariant for Defaults {}

impl LpVariant for InterpretedVariant {
    #[inline]
    fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label {
        match self.hooks[INITIAL_LABEL] {
            None => Defaults.initial_label(view, v),
            Some(f) => self.label_hook(INITIAL_LABEL, f, view, v, &[Value::Context, v.into()]).unwrap_or(UNLABELLED),
        }
    }

    #[inline]
    fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
        match self.hooks[PICK_LABEL] {
            None => Defaults.pick_label(view, v),
            Some(f) => self.label_hook(PICK_LABEL, f, view, v, &[Value::Context, v.into()]).unwrap_or(UNLABELLED),
        }
    }

    #[inline]
    fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {
        match self.hooks[LOAD_NEIGHBOR] {
            None => Defaults.load_neighbor(view, v, u, edge),
            Some(f) => self.interpreted_load_neighbor(f, view, v, u, edge),
        }
    }

    #[inline]
    fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
        match self.hooks[LABEL_SCORE] {
            None => Defaults.label_score(view, v, label, freq),
            Some(f) => self.interpreted_label_score(f, view, v, label, freq),
        }
    }

    #[inline]
    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {
        match self.hooks[UPDATE_VERTEX] {
            None => Defaults.update_vertex(view, v, best, score),
            Some(f) => {
                let args = [Value::Context, v.into(), best.into(), score.into()];
                self.label_hook(UPDATE_VERTEX, f, view, v, &args).unwrap_or(best)
            }
        }
    }

    fn failure(&self) -> Option<Error> {
        self.loaded.take_failure().map(|f| self.render(&f, ""))
    }
}

impl CompiledVariant for InterpretedVariant {
    fn name(&self) -> &str {
        &self.loaded.program().name
    }

    fn device_functions(&self) -> &str {
        self.cuda.get_or_init(|| glp_codegen::kinds::lp::device_functions(self.loaded.program()))
    }

    /// The source the variant was compiled from (empty when built from a program alone).
    fn program_source(&self) -> &str {
        self.loaded.source()
    }

    fn features(&self) -> LpFeatures {
        self.features
    }

    fn unit_neighbor_weight(&self) -> bool {
        glp_codegen::kinds::lp::properties::unit_neighbor_weight(self.loaded.program())
    }

    fn score_is_frequency(&self) -> bool {
        glp_codegen::kinds::lp::properties::score_is_frequency(self.loaded.program())
    }

    fn default_load_neighbor(&self) -> bool {
        glp_codegen::kinds::lp::properties::default_load_neighbor(self.loaded.program())
    }

    fn distinct_first_sweep(&self) -> bool {
        glp_codegen::kinds::lp::properties::distinct_first_sweep(self.loaded.program())
    }

    fn param_decls(&self) -> Vec<ParamDecl> {
        self.loaded.program().params.clone()
    }

    fn param_values(&self) -> Vec<ScalarValue> {
        self.loaded.params().to_vec()
    }

    fn loop_sites(&self) -> Vec<LoopSite> {
        self.loaded.loop_sites()
    }

    fn loop_budget(&self) -> Option<u64> {
        self.loaded.loop_budget()
    }

    /// The message of the same failure on the CPU (with the source line and a caret).
    fn loop_fault_error(&self, fault: LoopFault, iteration: u32, budget: u64) -> Error {
        let Some((_, location)) = self.loaded.loop_locations().into_iter().nth(fault.site.wrapping_sub(1)) else {
            return Error::Program(format!("`{}`: a loop fault at unknown loop site {}", self.name(), fault.site));
        };
        let error = RuntimeError::LoopBudget { budget, location };
        let failure = HookFailure { hook: fault.hook, vertex: fault.vertex, iteration, error };
        self.render(&failure, " on the GPU")
    }
}

/// The view's methods, as the compiler's intrinsics name them ([`LP_KIND`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Label,
    NextLabel,
    Degree,
    NumVertices,
    Iteration,
    EdgeWeight,
    VertexWeight,
    CountLabel,
    GlobalCount,
    MemoryAdd,
    MemoryPrune,
    MemoryPick,
    MemoryLen,
    MemoryLabel,
    MemoryWeight,
    SeedLabel,
    RandomU32,
    RandomF64,
}

impl Method {
    const ALL: [(&'static str, Method); 18] = [
        ("label", Method::Label),
        ("next_label", Method::NextLabel),
        ("degree", Method::Degree),
        ("num_vertices", Method::NumVertices),
        ("iteration", Method::Iteration),
        ("edge_weight", Method::EdgeWeight),
        ("vertex_weight", Method::VertexWeight),
        ("count_label", Method::CountLabel),
        ("global_count", Method::GlobalCount),
        ("memory_add", Method::MemoryAdd),
        ("memory_prune", Method::MemoryPrune),
        ("memory_pick", Method::MemoryPick),
        ("memory_len", Method::MemoryLen),
        ("memory_label", Method::MemoryLabel),
        ("memory_weight", Method::MemoryWeight),
        ("seed_label", Method::SeedLabel),
        ("random_u32", Method::RandomU32),
        ("random_f64", Method::RandomF64),
    ];
}

/// The interpreter's [`Host`] for one hook call: the intrinsics go to `view`, with the
/// argument checks native code gets from indexing (as errors instead of panics).
struct ViewHost<'v, 'a> {
    view: &'v View<'a>,
    methods: &'v [Option<Method>],
}

impl ViewHost<'_, '_> {
    fn u32(&self, args: &[Value], i: usize) -> Result<u32, RuntimeError> {
        arg(args, i, Value::as_u32, "u32")
    }

    fn f64(&self, args: &[Value], i: usize) -> Result<f64, RuntimeError> {
        arg(args, i, Value::as_f64, "f64")
    }

    /// Argument `i`, a vertex id below the vertex count.
    fn vertex(&self, args: &[Value], i: usize) -> Result<VertexId, RuntimeError> {
        let v = self.u32(args, i)?;
        let n = self.view.num_vertices();
        if v < n {
            Ok(v)
        } else {
            let what = if v == UNLABELLED { " (UNLABELLED)".to_string() } else { String::new() };
            Err(RuntimeError::host(format!("vertex id {v}{what} out of range: the graph has {n} vertices")))
        }
    }

    /// Argument `i`, an edge id below the stored edge count.
    fn edge(&self, args: &[Value], i: usize) -> Result<EdgeId, RuntimeError> {
        let e = arg(args, i, Value::as_u64, "u64")?;
        let m = self.view.num_edges();
        if e < m {
            Ok(e)
        } else {
            Err(RuntimeError::host(format!("edge id {e} out of range: the graph has {m} stored edges")))
        }
    }
}

impl Host for ViewHost<'_, '_> {
    fn intrinsic(&self, id: IntrinsicId, args: &[Value]) -> Result<Value, RuntimeError> {
        let Some(method) = self.methods.get(id as usize).copied().flatten() else {
            let name = LP_KIND.intrinsics.get(id as usize).map_or("?", |i| i.name);
            return Err(RuntimeError::host(format!("the CPU view has no method `{name}`")));
        };
        let view = self.view;
        Ok(match method {
            Method::Label => view.label(self.vertex(args, 0)?).into(),
            Method::NextLabel => view.next_label(self.vertex(args, 0)?).into(),
            Method::Degree => view.degree(self.vertex(args, 0)?).into(),
            Method::NumVertices => view.num_vertices().into(),
            Method::Iteration => view.iteration().into(),
            Method::EdgeWeight => view.edge_weight(self.edge(args, 0)?).into(),
            Method::VertexWeight => view.vertex_weight(self.vertex(args, 0)?).into(),
            Method::CountLabel => {
                view.count_label(self.u32(args, 0)?);
                Value::Unit
            }
            Method::GlobalCount => view.global_count(self.u32(args, 0)?).into(),
            Method::MemoryAdd => {
                view.memory_add(self.vertex(args, 0)?, self.u32(args, 1)?, self.f64(args, 2)?);
                Value::Unit
            }
            Method::MemoryPrune => {
                view.memory_prune(self.vertex(args, 0)?, self.f64(args, 1)?);
                Value::Unit
            }
            Method::MemoryPick => view.memory_pick(self.vertex(args, 0)?, self.f64(args, 1)?).into(),
            Method::MemoryLen => view.memory_len(self.vertex(args, 0)?).into(),
            Method::MemoryLabel => view.memory_label(self.vertex(args, 0)?, self.u32(args, 1)?).into(),
            Method::MemoryWeight => view.memory_weight(self.vertex(args, 0)?, self.u32(args, 1)?).into(),
            Method::SeedLabel => view.seed_label(self.vertex(args, 0)?).into(),
            Method::RandomU32 => view.random_u32(self.u32(args, 0)?, self.u32(args, 1)?).into(),
            Method::RandomF64 => view.random_f64(self.u32(args, 0)?, self.u32(args, 1)?).into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_method_of_the_compiler_is_mapped_and_the_variant_is_sync() {
        let names: Vec<&str> = LP_KIND.intrinsics.iter().map(|i| i.name).collect();
        let mapped: Vec<&str> = Method::ALL.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, mapped, "the view methods of glp-codegen's LP kind and the host's table");
        fn check<T: Send + Sync>() {}
        check::<InterpretedVariant>();
    }
}
