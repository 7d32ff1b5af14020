//! Edge programs compiled from source at run time (`glp run my_program.rs`) and run by the
//! CPU engine on the IR interpreter.
//!
//! An [`InterpretedEdgeProgram`] is a [`LoadedProgram`] (file, parameters, failure latch;
//! shared by every kind) of the edge program kind, and an [`EdgeProgram`] like any other:
//! the engine calls its hooks with the same arguments, in the same order, as a native
//! program's. Its values are the interpreter's ([`Value`]: the scalar or tuple the program
//! declared) and its messages scalars ([`ScalarValue`]), so one engine runs both. The
//! interpreter has Rust's (release build) semantics, so a program file gives exactly the
//! values of the same Rust compiled natively (the conformance tests check it for every
//! built-in program).
//!
//! # Contracts
//!
//! - Hooks cannot return an error, so a failing call (division by zero, a loop past its step
//!   budget, a value of the wrong type) records the first failure and returns the zero of
//!   the hook's type; later calls return at once. The engine asks [`EdgeProgram::failure`]
//!   after every phase and ends the run with the error: the file, line and column with the
//!   source line and a caret, and which hook failed for which vertex in which iteration.
//! - Hooks the source does not write run the kind's default source on the interpreter.
//! - Host methods are not run: the name is the type's (a written `name` is left out), the
//!   identity the combine's for the declared message type (a written `identity` is refused, as
//!   the attribute refuses it: no engine combines from another).

use super::{CompiledEdgeProgram, EdgeProgram, EdgeView, MAX, MIN};
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::program::{host_arg as arg, method_table, HookFailure, LoadedProgram, LoopSite};
use glp_codegen::interp::{Host, RuntimeError, Value};
use glp_codegen::ir::{FunctionId, IntrinsicId, ParamDecl, Scalar, ScalarValue};
use glp_codegen::kinds::edge::{
    EdgeIr, AGGREGATE, APPLY, CHANGED, COMBINE, DIRECTION, EDGE, EDGE_KIND, FRONTIER, INIT, ITERATIONS, MESSAGE,
    SETTLED, WEIGHTED,
};
use std::fmt;
use std::sync::OnceLock;

/// Number of hooks of the edge program kind.
const HOOKS: usize = 11;

/// An edge program compiled at run time and run on the IR interpreter (see the module docs).
/// `Sync`: one value serves every engine thread. A clone has no pending failure.
#[derive(Clone)]
pub struct InterpretedEdgeProgram {
    loaded: LoadedProgram,
    /// Per hook index: the function to interpret (the source's, or the kind's default).
    hooks: [Option<FunctionId>; HOOKS],
    /// Per intrinsic id of [`EDGE_KIND`]: the view method it is.
    methods: Vec<Option<Method>>,
    /// The view facilities the hooks use.
    features: Vec<&'static str>,
    /// The declared message type.
    message: Scalar,
    /// CUDA of the hooks, emitted on first request.
    cuda: OnceLock<String>,
}

impl InterpretedEdgeProgram {
    /// Compiles the edge program in `source` (the text of the file named `file` in messages)
    /// and sets its parameters from `NAME=VALUE` strings ([`LoadedProgram::from_source`]; a
    /// parameter error is [`Error::Parameter`]).
    pub fn from_source<S: AsRef<str>>(file: &str, source: &str, assignments: &[S]) -> Result<Self> {
        let loaded = LoadedProgram::from_source(&EDGE_KIND, file, source, assignments)?;
        if loaded.program().host_methods.iter().any(|m| m == "identity") {
            return Err(Error::invalid(format!(
                "{file}: `identity` is the combine's own (the largest value for MIN, the smallest for MAX, 0 \
                 for SUM), which glp writes: remove it"
            )));
        }
        Ok(InterpretedEdgeProgram::of_loaded(loaded))
    }

    /// The interpreted twin of a compiled program: its stored source
    /// ([`CompiledEdgeProgram::program_source`]) compiled again, with its parameter values.
    pub fn of_compiled<P: CompiledEdgeProgram + ?Sized>(program: &P) -> Result<Self> {
        let file = format!("<{}>", program.name());
        let compiled = crate::program::compile(&EDGE_KIND, &file, program.program_source())?;
        let loaded = LoadedProgram::new(compiled, program.param_values())?.with_source(&file, program.program_source());
        Ok(InterpretedEdgeProgram::of_loaded(loaded))
    }

    fn of_loaded(loaded: LoadedProgram) -> Self {
        let methods = method_table(&EDGE_KIND, &Method::ALL);
        let features = glp_codegen::kinds::edge::features(loaded.program()).into_iter().collect();
        let hooks = std::array::from_fn(|hook| loaded.hook_function(hook, true));
        // The compiler accepts only a scalar message type.
        let message = loaded.program().declared_types[MESSAGE].scalar().unwrap_or(Scalar::F64);
        InterpretedEdgeProgram { loaded, hooks, methods, features, message, cuda: OnceLock::new() }
    }

    /// The loaded program (IR, parameters, file).
    pub fn loaded(&self) -> &LoadedProgram {
        &self.loaded
    }

    /// The host methods the source writes, which are not run (see the module docs).
    pub fn skipped_host_methods(&self) -> &[String] {
        &self.loaded.program().host_methods
    }

    /// Runs hook `hook` for `vertex` in the view's iteration; the zero of the hook's type
    /// after a failure (this one or an earlier one).
    fn call(&self, hook: usize, view: Option<&EdgeView<'_>>, vertex: VertexId, args: &[Value]) -> Value {
        let declared = &self.loaded.program().declared_types;
        let want = EDGE_KIND.hooks[hook].ret.ty(declared);
        let Some(f) = self.hooks[hook] else { return Value::default_of(&want) };
        let host = ViewHost { view, methods: &self.methods };
        let graph = view.map_or((0, 0), |view| (u64::from(view.num_vertices()), 0));
        let iteration = view.map_or(0, EdgeView::iteration);
        let Some(value) = self.loaded.call(host, graph, f, args, (hook, vertex, iteration)) else {
            return Value::default_of(&want);
        };
        if value.has_type(&want) {
            return value;
        }
        let error = RuntimeError::IllTyped {
            message: format!("expected a `{want}`, the hook returned {value:?}"),
            location: self.loaded.function_location(f),
        };
        self.loaded.fail(HookFailure { hook, vertex, iteration, error });
        Value::default_of(&want)
    }

    /// The error the engine returns for `failure`: message, location with the source line
    /// and a caret, and which hook failed for which vertex in which iteration.
    fn render(&self, failure: &HookFailure) -> Error {
        let hook = EDGE_KIND.hooks.get(failure.hook).map_or("a hook", |h| h.name);
        let name = &self.loaded.program().name;
        let note = if EDGE_KIND.hooks.get(failure.hook).is_some_and(|h| h.vertex_arg.is_some()) {
            format!(
                "   = note: in `{hook}` of `{name}`, for vertex {} in iteration {}",
                failure.vertex, failure.iteration
            )
        } else {
            format!("   = note: in `{hook}` of `{name}`")
        };
        self.loaded.render(failure, &note)
    }
}

impl fmt::Debug for InterpretedEdgeProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.loaded.debug_fields(f, "InterpretedEdgeProgram").finish_non_exhaustive()
    }
}

impl EdgeProgram for InterpretedEdgeProgram {
    type Value = Value;
    type Message = ScalarValue;

    /// The implementing type's name in the source.
    fn name(&self) -> &str {
        &self.loaded.program().name
    }

    fn identity(&self) -> ScalarValue {
        let combine = self.combine();
        let (min, max) = match self.message {
            Scalar::Bool => (ScalarValue::Bool(true), ScalarValue::Bool(false)),
            Scalar::I32 => (i32::MAX.into(), i32::MIN.into()),
            Scalar::I64 => (i64::MAX.into(), i64::MIN.into()),
            Scalar::U32 => (u32::MAX.into(), u32::MIN.into()),
            Scalar::U64 => (u64::MAX.into(), u64::MIN.into()),
            Scalar::F32 => (f32::INFINITY.into(), f32::NEG_INFINITY.into()),
            Scalar::F64 => (f64::INFINITY.into(), f64::NEG_INFINITY.into()),
        };
        match combine {
            MIN => min,
            MAX => max,
            _ => ScalarValue::zero(self.message),
        }
    }

    fn combine(&self) -> u32 {
        self.call(COMBINE, None, 0, &[]).as_u32().unwrap_or(0)
    }

    fn direction(&self) -> u32 {
        self.call(DIRECTION, None, 0, &[]).as_u32().unwrap_or(0)
    }

    fn frontier(&self) -> bool {
        self.call(FRONTIER, None, 0, &[]).as_bool().unwrap_or(false)
    }

    fn iterations(&self) -> u32 {
        self.call(ITERATIONS, None, 0, &[]).as_u32().unwrap_or(0)
    }

    fn weighted(&self) -> bool {
        self.call(WEIGHTED, None, 0, &[]).as_bool().unwrap_or(false)
    }

    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> Value {
        self.call(INIT, Some(view), v, &[Value::Context, v.into()])
    }

    fn edge(
        &self,
        view: &EdgeView<'_>,
        from: VertexId,
        to: VertexId,
        value: Value,
        weight: f64,
    ) -> (bool, ScalarValue) {
        let sent = self.call(EDGE, Some(view), to, &[Value::Context, from.into(), to.into(), value, weight.into()]);
        let send = sent.field(0).and_then(Value::as_bool).unwrap_or(false);
        let message = sent.field(1).and_then(Value::as_scalar).unwrap_or(ScalarValue::zero(self.message));
        (send, message)
    }

    fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: Value, combined: ScalarValue) -> Value {
        self.call(APPLY, Some(view), v, &[Value::Context, v.into(), old, combined.into()])
    }

    fn changed(&self, old: Value, new: Value) -> bool {
        self.call(CHANGED, None, 0, &[old, new]).as_bool().unwrap_or(false)
    }

    fn aggregate(&self, view: &EdgeView<'_>, v: VertexId, value: Value) -> f64 {
        self.call(AGGREGATE, Some(view), v, &[Value::Context, v.into(), value]).as_f64().unwrap_or(0.0)
    }

    fn settled(&self, value: Value) -> bool {
        self.call(SETTLED, None, 0, &[value]).as_bool().unwrap_or(false)
    }

    fn failure(&self) -> Option<Error> {
        self.loaded.take_failure().map(|f| self.render(&f))
    }
}

impl CompiledEdgeProgram for InterpretedEdgeProgram {
    fn device_functions(&self) -> &str {
        self.cuda.get_or_init(|| EdgeIr::new(self.loaded.program().clone()).device_functions())
    }

    /// The source the program was compiled from (empty when built from a program alone).
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
}

/// The view's methods, as the compiler's intrinsics name them ([`EDGE_KIND`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    NumVertices,
    OutDegree,
    InDegree,
    Source,
    Iteration,
    Aggregated,
}

impl Method {
    const ALL: [(&'static str, Method); 6] = [
        ("num_vertices", Method::NumVertices),
        ("out_degree", Method::OutDegree),
        ("in_degree", Method::InDegree),
        ("source", Method::Source),
        ("iteration", Method::Iteration),
        ("aggregated", Method::Aggregated),
    ];
}

/// The interpreter's [`Host`] for one hook call: the intrinsics go to `view`.
struct ViewHost<'v, 'a> {
    view: Option<&'v EdgeView<'a>>,
    methods: &'v [Option<Method>],
}

impl Host for ViewHost<'_, '_> {
    fn intrinsic(&self, id: IntrinsicId, args: &[Value]) -> Result<Value, RuntimeError> {
        let name = EDGE_KIND.intrinsics.get(id as usize).map_or("?", |i| i.name);
        let (Some(method), Some(view)) = (self.methods.get(id as usize).copied().flatten(), self.view) else {
            return Err(RuntimeError::host(format!("the edge view's method `{name}` is not available here")));
        };
        Ok(match method {
            Method::NumVertices => view.num_vertices().into(),
            Method::OutDegree => view.out_degree(arg(args, 0, Value::as_u32, "u32")?).into(),
            Method::InDegree => view.in_degree(arg(args, 0, Value::as_u32, "u32")?).into(),
            Method::Source => view.source().into(),
            Method::Iteration => view.iteration().into(),
            Method::Aggregated => view.aggregated().into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_method_of_the_compiler_is_mapped_and_the_program_is_sync() {
        let names: Vec<&str> = EDGE_KIND.intrinsics.iter().map(|i| i.name).collect();
        let mapped: Vec<&str> = Method::ALL.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, mapped, "the view methods of glp-codegen's edge kind and the host's table");
        assert_eq!(EDGE_KIND.hooks.len(), HOOKS);
        fn check<T: Send + Sync>() {}
        check::<InterpretedEdgeProgram>();
    }
}
