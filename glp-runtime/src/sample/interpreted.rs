//! Samplers compiled from source at run time (`glp sample my_sampler.rs`) and run by the CPU
//! engine on the IR interpreter.
//!
//! An [`InterpretedSampler`] is a [`LoadedProgram`] (file, parameters, failure latch; shared
//! by every kind) of the sampler kind, and a [`Sampler`] like any other: the engine calls its
//! hooks with the same arguments, in the same order, as a native sampler's, and each hook
//! runs the lowered program on [`glp_codegen::interp`] with the view's methods mapped to the
//! real [`SampleView`]. The interpreter has Rust's (release build) semantics and the view's
//! random streams are keyed by (seed, sample, step, lane), so a sampler file gives exactly
//! the samples of the same Rust compiled natively (the conformance tests check it for every
//! built-in sampler).
//!
//! # Contracts
//!
//! - Hooks cannot return an error, so a failing call (division by zero, a loop past its step
//!   budget) records the first failure and returns `NONE` (`0` for weights and the schedule);
//!   later calls return at once. The engine asks [`Sampler::failure`] after every chunk of
//!   samples and ends the run with the error: the file, line and column with the source line
//!   and a caret, and which hook failed for which sample at which step.
//! - The view's methods never fail (positions past the end give `NONE`, 0 or `false`), so
//!   the host maps them one to one.
//! - Every loop iteration of a hook call counts against a step budget
//!   ([`glp_codegen::loops::default_loop_budget`] of the graph unless the sampler sets its own).
//! - Hooks the source does not write are the trait's defaults, run natively.
//! - Host methods ([`glp_codegen::program::kind::KindSpec::host_methods`]: `validate`,
//!   `name`, `failure`) are ordinary Rust, which the interpreter cannot run:
//!   [`InterpretedSampler::skipped_host_methods`] lists those the file writes, so that the
//!   command line can say its `validate` was not run.

use super::compiled::CompiledSampler;
use super::sampler::{Sampler, NONE, NONE_ENTRY};
use super::view::SampleView;
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::program::{host_arg as arg, method_table, HookFailure, LoadedProgram, LoopSite};
use glp_codegen::interp::{Host, RuntimeError, Value};
use glp_codegen::ir::{FunctionId, IntrinsicId, ParamDecl, ScalarValue};
use glp_codegen::kinds::sample::{
    SampleProgram, COMBINED_WEIGHT, NEXT, NEXT_ENTRY, NEXT_TRANSITS, SAMPLE_KIND, SAMPLE_SIZE, SAMPLING, STEPS, UNIQUE,
};
use std::fmt;
use std::sync::OnceLock;

/// Number of hooks of the sampler kind.
const HOOKS: usize = 8;

/// A sampler compiled at run time and run on the IR interpreter (see the module docs).
/// `Sync`: one value serves every engine thread. A clone has no pending failure.
#[derive(Clone)]
pub struct InterpretedSampler {
    loaded: LoadedProgram,
    /// Per hook index: the function to interpret, `None` to run the trait's default natively.
    hooks: [Option<FunctionId>; HOOKS],
    /// Per intrinsic id of [`SAMPLE_KIND`]: the view method it is.
    methods: Vec<Option<Method>>,
    /// The view facilities the hooks use.
    features: Vec<&'static str>,
    /// CUDA of the hooks, emitted on first request.
    cuda: OnceLock<String>,
}

impl InterpretedSampler {
    /// `program` with its parameters' values, in [`glp_codegen::ir::Program::params`] order.
    ///
    /// Errors: not one value per parameter, or a value of another type than its parameter.
    pub fn new(program: SampleProgram, params: Vec<ScalarValue>) -> Result<Self> {
        Ok(InterpretedSampler::of_loaded(LoadedProgram::new(program.program, params)?))
    }

    /// Compiles the sampler in `source` (the text of the file named `file` in messages) and
    /// sets its parameters from `NAME=VALUE` strings ([`LoadedProgram::from_source`]; a
    /// parameter error is [`Error::Parameter`]).
    pub fn from_source<S: AsRef<str>>(file: &str, source: &str, assignments: &[S]) -> Result<Self> {
        Ok(InterpretedSampler::of_loaded(LoadedProgram::from_source(&SAMPLE_KIND, file, source, assignments)?))
    }

    /// The interpreted twin of a compiled sampler: its stored source
    /// ([`CompiledSampler::program_source`]) compiled again, with its parameter values.
    pub fn of_compiled<S: CompiledSampler + ?Sized>(sampler: &S) -> Result<Self> {
        let file = format!("<{}>", sampler.name());
        let program = crate::program::compile(&SAMPLE_KIND, &file, sampler.program_source())?;
        let loaded = LoadedProgram::new(program, sampler.param_values())?.with_source(&file, sampler.program_source());
        Ok(InterpretedSampler::of_loaded(loaded))
    }

    fn of_loaded(loaded: LoadedProgram) -> Self {
        let methods = method_table(&SAMPLE_KIND, &Method::ALL);
        let features = glp_codegen::program::features::used(&SAMPLE_KIND, loaded.program()).into_iter().collect();
        let hooks = std::array::from_fn(|hook| loaded.hook_function(hook, false));
        InterpretedSampler { loaded, hooks, methods, features, cuda: OnceLock::new() }
    }

    /// Lets each hook call run `budget` loop iterations in all instead of the default for
    /// the graph.
    pub fn with_loop_budget(mut self, budget: u64) -> Self {
        self.loaded = self.loaded.with_loop_budget(budget);
        self
    }

    /// The loaded program (IR, parameters, file).
    pub fn loaded(&self) -> &LoadedProgram {
        &self.loaded
    }

    /// The host methods (`validate`, ...) the source writes, which are not run (see the
    /// module docs).
    pub fn skipped_host_methods(&self) -> &[String] {
        &self.loaded.program().host_methods
    }

    /// Runs hook `hook` (function `f`) of `sample` at `step`; `None` after a failure (this
    /// one or an earlier one). `view` is `None` for the schedule's hooks, which take none.
    fn call(
        &self,
        hook: usize,
        f: FunctionId,
        view: Option<&SampleView<'_>>,
        (sample, step): (u32, u32),
        args: &[Value],
    ) -> Option<Value> {
        let host = ViewHost { view, methods: &self.methods };
        let graph = view.map_or((0, 0), |view| (u64::from(view.num_vertices()), view.num_edges()));
        let value = self.loaded.call(host, graph, f, args, (hook, sample, step))?;
        let want = SAMPLE_KIND.hooks[hook].ret.ty(&self.loaded.program().declared_types);
        if value.has_type(&want) {
            Some(value)
        } else {
            let location = self.loaded.function_location(f);
            let error = RuntimeError::IllTyped {
                message: format!("expected a `{want}`, the hook returned {value:?}"),
                location,
            };
            self.loaded.fail(HookFailure { hook, vertex: sample, iteration: step, error });
            None
        }
    }

    /// A schedule hook (no view) returning a scalar; `fallback` after a failure.
    fn schedule<T>(&self, hook: usize, args: &[Value], get: fn(Value) -> Option<T>, fallback: T) -> T {
        match self.hooks[hook] {
            Some(f) => self.call(hook, f, None, (0, 0), args).and_then(get).unwrap_or(fallback),
            None => fallback,
        }
    }

    /// The error the engine returns for `failure`: message, location with the source line
    /// and a caret, and which hook failed for which sample at which step.
    fn render(&self, failure: &HookFailure) -> Error {
        let hook = SAMPLE_KIND.hooks.get(failure.hook).map_or("a hook", |h| h.name);
        let name = &self.loaded.program().name;
        let note = if failure.hook <= UNIQUE {
            format!("   = note: in `{hook}` of `{name}`")
        } else {
            format!("   = note: in `{hook}` of `{name}`, for sample {} at step {}", failure.vertex, failure.iteration)
        };
        self.loaded.render(failure, &note)
    }
}

impl fmt::Debug for InterpretedSampler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.loaded.debug_fields(f, "InterpretedSampler").finish_non_exhaustive()
    }
}

/// The trait's default hooks, for the hooks a source leaves out.
struct Defaults;
impl Sampler for Defaults {
    fn steps(&self) -> u32 {
        0
    }
    fn sample_size(&self, _step: u32) -> u32 {
        0
    }
}

impl Sampler for InterpretedSampler {
    /// The implementing type's name in the source.
    fn name(&self) -> &str {
        &self.loaded.program().name
    }

    fn steps(&self) -> u32 {
        self.schedule(STEPS, &[], Value::as_u32, 0)
    }

    fn sample_size(&self, step: u32) -> u32 {
        self.schedule(SAMPLE_SIZE, &[step.into()], Value::as_u32, 0)
    }

    fn sampling(&self) -> u32 {
        self.schedule(SAMPLING, &[], Value::as_u32, Defaults.sampling())
    }

    fn next_transits(&self) -> u32 {
        self.schedule(NEXT_TRANSITS, &[], Value::as_u32, Defaults.next_transits())
    }

    fn unique(&self, step: u32) -> bool {
        self.schedule(UNIQUE, &[step.into()], Value::as_bool, Defaults.unique(step))
    }

    fn next(&self, view: &SampleView<'_>, sample: u32, transit: VertexId, lane: u32, step: u32) -> VertexId {
        let Some(f) = self.hooks[NEXT] else { return Defaults.next(view, sample, transit, lane, step) };
        let args = [Value::Context, sample.into(), transit.into(), lane.into(), step.into()];
        self.call(NEXT, f, Some(view), (sample, step), &args).and_then(Value::as_u32).unwrap_or(NONE)
    }

    fn next_entry(&self, view: &SampleView<'_>, sample: u32, lane: u32, step: u32) -> u64 {
        let Some(f) = self.hooks[NEXT_ENTRY] else { return Defaults.next_entry(view, sample, lane, step) };
        let args = [Value::Context, sample.into(), lane.into(), step.into()];
        self.call(NEXT_ENTRY, f, Some(view), (sample, step), &args).and_then(Value::as_u64).unwrap_or(NONE_ENTRY)
    }

    fn combined_weight(&self, view: &SampleView<'_>, sample: u32, transit: VertexId, v: VertexId, step: u32) -> f64 {
        let Some(f) = self.hooks[COMBINED_WEIGHT] else {
            return Defaults.combined_weight(view, sample, transit, v, step);
        };
        let args = [Value::Context, sample.into(), transit.into(), v.into(), step.into()];
        self.call(COMBINED_WEIGHT, f, Some(view), (sample, step), &args).and_then(Value::as_f64).unwrap_or(0.0)
    }

    fn failure(&self) -> Option<Error> {
        self.loaded.take_failure().map(|f| self.render(&f))
    }
}

impl CompiledSampler for InterpretedSampler {
    fn device_functions(&self) -> &str {
        self.cuda.get_or_init(|| SampleProgram::new(self.loaded.program().clone()).device_functions())
    }

    /// The source the sampler was compiled from (empty when built from a program alone).
    fn program_source(&self) -> &str {
        self.loaded.source()
    }

    fn features(&self) -> &[&'static str] {
        &self.features
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
}

/// The view's methods, as the compiler's intrinsics name them ([`SAMPLE_KIND`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    NumVertices,
    Degree,
    Edge,
    EdgeWeight,
    WeightPrefix,
    TotalWeight,
    MaxWeight,
    WeightedEdge,
    Contains,
    RootCount,
    Root,
    IsRoot,
    PreviousCount,
    PreviousVertex,
    TransitCount,
    Transit,
    CombinedLen,
    CombinedVertex,
    CombinedTransit,
    CombinedCount,
    CombinedTotal,
    CombinedPick,
    RandomBelow,
    RandomF64,
    RandomU32,
    Step,
}

impl Method {
    const ALL: [(&'static str, Method); 26] = [
        ("num_vertices", Method::NumVertices),
        ("degree", Method::Degree),
        ("edge", Method::Edge),
        ("edge_weight", Method::EdgeWeight),
        ("weight_prefix", Method::WeightPrefix),
        ("total_weight", Method::TotalWeight),
        ("max_weight", Method::MaxWeight),
        ("weighted_edge", Method::WeightedEdge),
        ("contains", Method::Contains),
        ("root_count", Method::RootCount),
        ("root", Method::Root),
        ("is_root", Method::IsRoot),
        ("previous_count", Method::PreviousCount),
        ("previous_vertex", Method::PreviousVertex),
        ("transit_count", Method::TransitCount),
        ("transit", Method::Transit),
        ("combined_len", Method::CombinedLen),
        ("combined_vertex", Method::CombinedVertex),
        ("combined_transit", Method::CombinedTransit),
        ("combined_count", Method::CombinedCount),
        ("combined_total", Method::CombinedTotal),
        ("combined_pick", Method::CombinedPick),
        ("random_below", Method::RandomBelow),
        ("random_f64", Method::RandomF64),
        ("random_u32", Method::RandomU32),
        ("step", Method::Step),
    ];
}

/// The interpreter's [`Host`] for one hook call: the intrinsics go to `view`.
struct ViewHost<'v, 'a> {
    view: Option<&'v SampleView<'a>>,
    methods: &'v [Option<Method>],
}

fn u32_arg(args: &[Value], i: usize) -> Result<u32, RuntimeError> {
    arg(args, i, Value::as_u32, "u32")
}

fn u64_arg(args: &[Value], i: usize) -> Result<u64, RuntimeError> {
    arg(args, i, Value::as_u64, "u64")
}

impl Host for ViewHost<'_, '_> {
    fn intrinsic(&self, id: IntrinsicId, args: &[Value]) -> Result<Value, RuntimeError> {
        let name = SAMPLE_KIND.intrinsics.get(id as usize).map_or("?", |i| i.name);
        let (Some(method), Some(view)) = (self.methods.get(id as usize).copied().flatten(), self.view) else {
            return Err(RuntimeError::host(format!("the sample view's method `{name}` is not available here")));
        };
        Ok(match method {
            Method::NumVertices => view.num_vertices().into(),
            Method::Degree => view.degree(u32_arg(args, 0)?).into(),
            Method::Edge => view.edge(u32_arg(args, 0)?, u64_arg(args, 1)?).into(),
            Method::EdgeWeight => view.edge_weight(u32_arg(args, 0)?, u64_arg(args, 1)?).into(),
            Method::WeightPrefix => view.weight_prefix(u32_arg(args, 0)?, u64_arg(args, 1)?).into(),
            Method::TotalWeight => view.total_weight(u32_arg(args, 0)?).into(),
            Method::MaxWeight => view.max_weight(u32_arg(args, 0)?).into(),
            Method::WeightedEdge => view.weighted_edge(u32_arg(args, 0)?, arg(args, 1, Value::as_f64, "f64")?).into(),
            Method::Contains => view.contains(u32_arg(args, 0)?, u32_arg(args, 1)?).into(),
            Method::RootCount => view.root_count().into(),
            Method::Root => view.root(u32_arg(args, 0)?).into(),
            Method::IsRoot => view.is_root(u32_arg(args, 0)?).into(),
            Method::PreviousCount => view.previous_count(u32_arg(args, 0)?).into(),
            Method::PreviousVertex => view.previous_vertex(u32_arg(args, 0)?, u32_arg(args, 1)?).into(),
            Method::TransitCount => view.transit_count().into(),
            Method::Transit => view.transit(u32_arg(args, 0)?).into(),
            Method::CombinedLen => view.combined_len().into(),
            Method::CombinedVertex => view.combined_vertex(u64_arg(args, 0)?).into(),
            Method::CombinedTransit => view.combined_transit(u64_arg(args, 0)?).into(),
            Method::CombinedCount => view.combined_count(u32_arg(args, 0)?).into(),
            Method::CombinedTotal => view.combined_total().into(),
            Method::CombinedPick => view.combined_pick().into(),
            Method::RandomBelow => view.random_below(u64_arg(args, 0)?).into(),
            Method::RandomF64 => view.random_f64().into(),
            Method::RandomU32 => view.random_u32().into(),
            Method::Step => view.step().into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_method_of_the_compiler_is_mapped_and_the_sampler_is_sync() {
        let names: Vec<&str> = SAMPLE_KIND.intrinsics.iter().map(|i| i.name).collect();
        let mapped: Vec<&str> = Method::ALL.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, mapped, "the view methods of glp-codegen's sampler kind and the host's table");
        assert_eq!(SAMPLE_KIND.hooks.len(), HOOKS);
        fn check<T: Send + Sync>() {}
        check::<InterpretedSampler>();
    }
}
