//! The edge program kind: WolfGraph's vertex values, edge function, combine and apply, and
//! the edge view's methods.
//!
//! The hooks mirror glp-runtime's `edge::EdgeProgram` trait method for method (the
//! conformance tests run every built-in program natively and on the interpreter and compare
//! the values).

use crate::ir::Scalar::{Bool, F64, U32, U64};
use crate::program::kind::{DeclaredType, HookArg, HookRet, HookSpec, IntrinsicSpec, KindSpec, NamedConstant, Neutral};

/// Hook indices, in [`EDGE_KIND`]'s order.
pub const COMBINE: usize = 0;
pub const DIRECTION: usize = 1;
pub const FRONTIER: usize = 2;
pub const ITERATIONS: usize = 3;
pub const WEIGHTED: usize = 4;
pub const INIT: usize = 5;
pub const EDGE: usize = 6;
pub const APPLY: usize = 7;
pub const CHANGED: usize = 8;
pub const AGGREGATE: usize = 9;
pub const SETTLED: usize = 10;

/// Declared type indices, in [`EDGE_KIND`]'s order.
pub const VALUE: usize = 0;
pub const MESSAGE: usize = 1;

/// The facility of an `edge` hook that reads its receiver (`to`) or the edge's weight: without
/// it, a sender's message is the same on each of its edges, and an engine computes it once
/// per sender (a sender that sends none skips its edges unread).
pub const RECEIVER_FEATURE: &str = "receiver";
/// The facility of a program that writes `settled`: the frontier engine skips receivers
/// whose value is settled and stops pulling a receiver's messages once it settles.
pub const SETTLED_FEATURE: &str = "settled";
/// The facility of a program whose hooks read `view.iteration()`: subgraphs run to local
/// convergence, whose outer iteration is not an iteration, refuse it.
pub const ITERATION_FEATURE: &str = "iteration";
/// The facility of a program whose `apply` reads `view.aggregated()`: the engines sum
/// `aggregate` before each iteration, and subgraphs run to local convergence refuse it.
pub const AGGREGATE_FEATURE: &str = "aggregate";

/// The hooks that receive the view.
const VIEW_HOOKS: &[usize] = &[INIT, EDGE, APPLY, AGGREGATE];
/// `aggregated` is the sum `aggregate` gives, so only `apply` reads it.
const AFTER_AGGREGATE: &[usize] = &[APPLY];

const VIEW: (&str, HookArg) = ("view", HookArg::Context);
const V: (&str, HookArg) = ("v", HookArg::Scalar(U32));
const VALUE_ARG: HookArg = HookArg::Declared(VALUE);

// The kind's constants, which the runtime's edge program API re-exports.

/// `combine`: the smallest message (idempotent).
pub const MIN: u32 = 0;
/// `combine`: the largest message (idempotent).
pub const MAX: u32 = 1;
/// `combine`: the sum of the messages (not idempotent: a message applied twice counts
/// twice).
pub const SUM: u32 = 2;
/// `direction`: an edge `u -> w` carries `u`'s value to `w`.
pub const OUT: u32 = 0;
/// `direction`: an edge `u -> w` carries `w`'s value to `u`.
pub const IN: u32 = 1;
/// `direction`: both (weakly connected components of a directed graph).
pub const BOTH: u32 = 2;
/// `view.source()` of a run without a source vertex.
pub const NO_SOURCE: u32 = u32::MAX;

/// Whether combine `combine` gives the same result when a message is combined again (min,
/// max): the rule by which an engine that may apply an edge twice (subgraphs run to local
/// convergence and their concatenated edge lists, for graphs beyond device memory) refuses
/// the others.
pub fn is_idempotent(combine: u32) -> bool {
    matches!(combine, MIN | MAX)
}

/// A method of the view: name, arguments, result, hooks, facility, doc.
const fn method(
    name: &'static str,
    args: &'static [crate::ir::Scalar],
    ret: crate::ir::Scalar,
    allowed_in: &'static [usize],
    feature: Option<&'static str>,
    doc: &'static str,
) -> IntrinsicSpec {
    IntrinsicSpec { name, args, ret: Some(ret), allowed_in, own_vertex_arg: None, feature, doc }
}

const fn constant(name: &'static str, value: u32, doc: &'static str) -> NamedConstant {
    NamedConstant { name, ty: U32, value: value as u64, doc }
}

/// A schedule hook: no view, no argument, evaluated once a run on the host.
const fn schedule(name: &'static str, ret: crate::ir::Scalar, doc: &'static str) -> HookSpec {
    HookSpec {
        name,
        args: &[],
        ret: HookRet::Scalar(ret),
        vertex_arg: None,
        neutral: &[Neutral::Zero],
        resumable: false,
        doc,
    }
}

/// The edge program kind.
pub static EDGE_KIND: KindSpec = KindSpec {
    description: "edge program",
    noun: "program",
    trait_name: "EdgeProgram",
    context_type: "EdgeView",
    type_aliases: &[("VertexId", U32)],
    declared_types: &[
        DeclaredType {
            name: "Value",
            tuple: true,
            doc: "a vertex's value: a scalar or a tuple of scalars (`type Value = u64;`, `type Value = (f64, f64);`)",
        },
        DeclaredType {
            name: "Message",
            tuple: false,
            doc: "what an edge carries to its target, combined there by `combine`: a scalar (`type Message = f64;`)",
        },
    ],
    constants: &[
        constant("MIN", MIN, "`combine`: the smallest message"),
        constant("MAX", MAX, "`combine`: the largest message"),
        constant("SUM", SUM, "`combine`: the sum of the messages"),
        constant("OUT", OUT, "`direction`: an edge carries its source's value to its target"),
        constant("IN", IN, "`direction`: an edge carries its target's value to its source"),
        constant("BOTH", BOTH, "`direction`: both ways"),
        constant("NO_SOURCE", NO_SOURCE, "`view.source()` of a run without a source (u32::MAX)"),
    ],
    hooks: &[
        schedule("combine", U32, "MIN, MAX or SUM: how the messages a vertex receives in an iteration combine; no default"),
        schedule("direction", U32, "OUT, IN or BOTH: which way edges carry values; default: OUT"),
        schedule(
            "frontier",
            Bool,
            "whether an iteration processes only the edges out of the vertices that changed in the previous one, a vertex that receives no message keeping its value; default: false",
        ),
        schedule(
            "iterations",
            U32,
            "the most iterations a run makes (it also stops when no vertex changed); default: u32::MAX",
        ),
        schedule("weighted", Bool, "whether the program reads edge weights (a run refuses a graph without); default: false"),
        HookSpec {
            name: "init",
            args: &[VIEW, V],
            ret: HookRet::Declared(VALUE),
            vertex_arg: Some(1),
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "the value of vertex v before the first iteration; no default",
        },
        HookSpec {
            name: "edge",
            args: &[
                VIEW,
                ("from", HookArg::Scalar(U32)),
                ("to", HookArg::Scalar(U32)),
                ("value", VALUE_ARG),
                ("weight", HookArg::Scalar(F64)),
            ],
            ret: HookRet::Optional(MESSAGE),
            vertex_arg: Some(2),
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "the message the edge from `from` (whose value is `value`) carries to `to`, as (true, message), or (false, _) for none; no default",
        },
        HookSpec {
            name: "apply",
            args: &[VIEW, V, ("old", VALUE_ARG), ("combined", HookArg::Declared(MESSAGE))],
            ret: HookRet::Declared(VALUE),
            vertex_arg: Some(1),
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "v's new value from its old one and the combined messages (the combine's identity when none came); no default",
        },
        HookSpec {
            name: "changed",
            args: &[("old", VALUE_ARG), ("new", VALUE_ARG)],
            ret: HookRet::Scalar(Bool),
            vertex_arg: None,
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "whether a vertex whose value went from `old` to `new` changed (the run goes on while one did); default: old != new",
        },
        HookSpec {
            name: "aggregate",
            args: &[VIEW, V, ("value", VALUE_ARG)],
            ret: HookRet::Scalar(F64),
            vertex_arg: Some(1),
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "v's share of the sum `view.aggregated()` gives `apply`, summed over every vertex before each iteration; default: 0",
        },
        HookSpec {
            name: "settled",
            args: &[("value", VALUE_ARG)],
            ret: HookRet::Scalar(Bool),
            vertex_arg: None,
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "whether a vertex whose value is `value` is settled: no later message changes it, and the first message \
                  that settles a vertex settles it as all of that iteration's messages would (BFS: a reached vertex); \
                  the frontier engine then skips settled receivers and stops pulling a receiver's messages once it \
                  settles; default: false",
        },
    ],
    intrinsics: &[
        method("num_vertices", &[], U32, VIEW_HOOKS, None, "the number of vertices"),
        method("out_degree", &[U32], U64, VIEW_HOOKS, None, "the out-degree of v (0 for an id that is not a vertex)"),
        method("in_degree", &[U32], U64, VIEW_HOOKS, None, "the in-degree of v (0 for an id that is not a vertex)"),
        method(
            "source",
            &[],
            U32,
            VIEW_HOOKS,
            Some("source"),
            "the run's source vertex (a program that reads it needs one), NO_SOURCE without one",
        ),
        method(
            "iteration",
            &[],
            U32,
            VIEW_HOOKS,
            Some(ITERATION_FEATURE),
            "the iteration being run, from 0 (0 in init)",
        ),
        method(
            "aggregated",
            &[],
            F64,
            AFTER_AGGREGATE,
            Some(AGGREGATE_FEATURE),
            "the sum of `aggregate` over every vertex's value before this iteration, in vertex order",
        ),
    ],
    default_hooks: DEFAULT_HOOKS,
    c_prefix: "glp_edge_",
    state_hint: "a vertex's state is its `Value` (declare `type Value = ...;`), passed to the hooks and returned by `apply`",
    helpers: false,
    host_methods: &["name", "identity"],
};

/// The default hooks. `combine`, `init`, `edge` and `apply` have none: every program says
/// them. The runtime's `EdgeProgram` trait has the same defaults.
pub const DEFAULT_HOOKS: &str = r#"
impl EdgeProgram for Defaults {
    fn direction(&self) -> u32 { OUT }
    fn frontier(&self) -> bool { false }
    fn iterations(&self) -> u32 { u32::MAX }
    fn weighted(&self) -> bool { false }
    fn changed(&self, old: Self::Value, new: Self::Value) -> bool { old != new }
    fn aggregate(&self, view: &EdgeView<'_>, v: VertexId, value: Self::Value) -> f64 { 0.0 }
    fn settled(&self, value: Self::Value) -> bool { false }
}
"#;
