//! The sampler program kind: NextDoor's hooks and the sample view's methods.
//!
//! The hooks mirror glp-runtime's `sample::Sampler` trait method for method (a differential
//! test runs every built-in sampler natively and on the interpreter and compares the
//! samples), and the intrinsics mirror `sample::SampleView`, with the same semantics on the
//! GPU (`view.cuh`): positions past the end give `NONE`, 0 or `false`, never a fault.

use crate::ir::Scalar::{Bool, F64, U32, U64};
use crate::program::kind::{HookArg, HookRet, HookSpec, IntrinsicSpec, KindSpec, NamedConstant, Neutral};

/// Hook indices, in [`SAMPLE_KIND`]'s order.
pub const STEPS: usize = 0;
pub const SAMPLE_SIZE: usize = 1;
pub const SAMPLING: usize = 2;
pub const NEXT_TRANSITS: usize = 3;
pub const UNIQUE: usize = 4;
pub const NEXT: usize = 5;
pub const NEXT_ENTRY: usize = 6;
pub const COMBINED_WEIGHT: usize = 7;

/// The hooks that receive the view.
const VIEW_HOOKS: &[usize] = &[NEXT, NEXT_ENTRY, COMBINED_WEIGHT];
/// The hooks that draw: a combined neighbourhood's weights are a function of the
/// neighbourhood, not random.
const DRAWING_HOOKS: &[usize] = &[NEXT, NEXT_ENTRY];
/// The hooks of collective samplers, which see the combined neighbourhood.
const COLLECTIVE_HOOKS: &[usize] = &[NEXT_ENTRY, COMBINED_WEIGHT];
/// `combined_total` and `combined_pick` read the weights `combined_weight` gives, so only
/// `next_entry` may call them.
const AFTER_WEIGHTS: &[usize] = &[NEXT_ENTRY];

const VIEW: (&str, HookArg) = ("view", HookArg::Context);
const SAMPLE: (&str, HookArg) = ("sample", HookArg::Scalar(U32));
const STEP: (&str, HookArg) = ("step", HookArg::Scalar(U32));
const LANE: (&str, HookArg) = ("lane", HookArg::Scalar(U32));

// The kind's constants, which the runtime's sampler API re-exports (one definition for the
// Rust API, the compiler's table and the CUDA header generated from it).

/// The "don't add" vertex: `next` returns it to add nothing for this draw. It never becomes
/// a transit and never appears in an output.
pub const NONE: u32 = u32::MAX;
/// The "don't add" entry of `next_entry`.
pub const NONE_ENTRY: u64 = u64::MAX;
/// `sample_size` value meaning "one draw per neighbour": `degree(transit)` draws for an
/// individual sampler, the combined neighbourhood's length for a collective one; the `lane`
/// argument is then the index of the neighbour (ClusterGCN's induced subgraphs).
pub const ALL_NEIGHBOURS: u32 = u32::MAX;
/// `sampling`: each transit draws from its own neighbours (`next`).
pub const INDIVIDUAL: u32 = 0;
/// `sampling`: a sample draws from the combined neighbourhood of all its transits
/// (`next_entry`).
pub const COLLECTIVE: u32 = 1;
/// `next_transits`: the next step's transits are the distinct vertices this step added, in
/// the order they were first added (walks, k-hop, layer sampling).
pub const ADDED: u32 = 0;
/// `next_transits`: each added vertex replaces the transit it was drawn from; the other
/// transits stay (multi-root random walks).
pub const REPLACE: u32 = 1;

/// An intrinsic of the view: name, arguments, result, hooks, facility, doc.
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

/// The sampler kind.
pub static SAMPLE_KIND: KindSpec = KindSpec {
    description: "sampler",
    noun: "sampler",
    trait_name: "Sampler",
    context_type: "SampleView",
    type_aliases: &[("VertexId", U32)],
    declared_types: &[],
    constants: &[
        NamedConstant {
            name: "NONE",
            ty: U32,
            value: NONE as u64,
            doc: "the \"don't add\" vertex `next` returns (u32::MAX)",
        },
        NamedConstant {
            name: "NONE_ENTRY",
            ty: U64,
            value: NONE_ENTRY,
            doc: "the \"don't add\" entry `next_entry` returns (u64::MAX)",
        },
        NamedConstant {
            name: "ALL_NEIGHBOURS",
            ty: U32,
            value: ALL_NEIGHBOURS as u64,
            doc: "`sample_size` for one draw per neighbour (u32::MAX)",
        },
        NamedConstant { name: "INDIVIDUAL", ty: U32, value: INDIVIDUAL as u64, doc: "`sampling`: each transit's own neighbours" },
        NamedConstant {
            name: "COLLECTIVE",
            ty: U32,
            value: COLLECTIVE as u64,
            doc: "`sampling`: the combined neighbourhood of a sample's transits",
        },
        NamedConstant {
            name: "ADDED",
            ty: U32,
            value: ADDED as u64,
            doc: "`next_transits`: the distinct vertices the step added",
        },
        NamedConstant {
            name: "REPLACE",
            ty: U32,
            value: REPLACE as u64,
            doc: "`next_transits`: each added vertex replaces its transit",
        },
    ],
    hooks: &[
        HookSpec {
            name: "steps",
            args: &[],
            ret: HookRet::Scalar(U32),
            vertex_arg: None,
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "the number of steps (walk length, hops); no default",
        },
        HookSpec {
            name: "sample_size",
            args: &[STEP],
            ret: HookRet::Scalar(U32),
            vertex_arg: None,
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "the draws of a step, per transit (individual) or per sample (collective), or ALL_NEIGHBOURS; no default",
        },
        HookSpec {
            name: "sampling",
            args: &[],
            ret: HookRet::Scalar(U32),
            vertex_arg: None,
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "INDIVIDUAL or COLLECTIVE; default: INDIVIDUAL",
        },
        HookSpec {
            name: "next_transits",
            args: &[],
            ret: HookRet::Scalar(U32),
            vertex_arg: None,
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "ADDED or REPLACE; default: ADDED",
        },
        HookSpec {
            name: "unique",
            args: &[STEP],
            ret: HookRet::Scalar(Bool),
            vertex_arg: None,
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "whether a step's draws from one neighbourhood are distinct; default: false",
        },
        HookSpec {
            name: "next",
            args: &[VIEW, SAMPLE, ("transit", HookArg::Scalar(U32)), LANE, STEP],
            ret: HookRet::Scalar(U32),
            vertex_arg: Some(2),
            neutral: &[Neutral::Constant("NONE")],
            resumable: true,
            doc: "individual samplers: the neighbour of `transit` draw `lane` adds, or NONE; default: NONE",
        },
        HookSpec {
            name: "next_entry",
            args: &[VIEW, SAMPLE, LANE, STEP],
            ret: HookRet::Scalar(U64),
            vertex_arg: None,
            neutral: &[Neutral::Constant("NONE_ENTRY")],
            resumable: false,
            doc: "collective samplers: the combined neighbourhood's entry draw `lane` adds, or NONE_ENTRY; default: NONE_ENTRY",
        },
        HookSpec {
            name: "combined_weight",
            args: &[VIEW, SAMPLE, ("transit", HookArg::Scalar(U32)), ("v", HookArg::Scalar(U32)), STEP],
            ret: HookRet::Scalar(F64),
            vertex_arg: Some(3),
            neutral: &[Neutral::Zero],
            resumable: false,
            doc: "collective samplers: the weight of the entry (transit, v) for combined_pick; default: 1",
        },
    ],
    intrinsics: &[
        method("num_vertices", &[], U32, VIEW_HOOKS, None, "the number of vertices"),
        method("degree", &[U32], U64, VIEW_HOOKS, None, "the out-degree of v (0 for an id that is not a vertex)"),
        method("edge", &[U32, U64], U32, VIEW_HOOKS, None, "neighbour i of v in ascending order; NONE past the end"),
        method(
            "edge_weight",
            &[U32, U64],
            F64,
            VIEW_HOOKS,
            Some("edge_weights"),
            "the weight of edge i of v (1 on unweighted graphs, 0 past the end)",
        ),
        method(
            "weight_prefix",
            &[U32, U64],
            F64,
            VIEW_HOOKS,
            Some("weight_prefix"),
            "the sum of the weights of edges 0..=i of v (O(1)); the total past the end",
        ),
        method("total_weight", &[U32], F64, VIEW_HOOKS, Some("weight_prefix"), "the sum of the weights of v's edges"),
        method("max_weight", &[U32], F64, VIEW_HOOKS, Some("max_weight"), "the largest weight of v's edges (0 without edges)"),
        method(
            "weighted_edge",
            &[U32, F64],
            U64,
            VIEW_HOOKS,
            Some("weight_prefix"),
            "the edge of v whose weight interval holds x (binary search in the prefix sums); degree(v) when x >= total_weight(v)",
        ),
        method("contains", &[U32, U32], Bool, VIEW_HOOKS, None, "whether u is a neighbour of v (binary search)"),
        method("root_count", &[], U32, VIEW_HOOKS, None, "the number of the sample's roots"),
        method("root", &[U32], U32, VIEW_HOOKS, None, "root i of the sample (NONE past the end)"),
        method("is_root", &[U32], Bool, VIEW_HOOKS, None, "whether v is one of the sample's roots (binary search)"),
        method(
            "previous_count",
            &[U32],
            U32,
            VIEW_HOOKS,
            Some("history"),
            "the number of transits `back` steps ago (1: the current step's; 0 for back = 0 or before step 0)",
        ),
        method(
            "previous_vertex",
            &[U32, U32],
            U32,
            VIEW_HOOKS,
            Some("history"),
            "transit pos of the step `back` steps ago (NextDoor's prevVertex); NONE when there is none",
        ),
        method("transit_count", &[], U32, VIEW_HOOKS, None, "the number of the current step's transits"),
        method("transit", &[U32], U32, VIEW_HOOKS, None, "transit pos of the current step (NONE past the end)"),
        method(
            "combined_len",
            &[],
            U64,
            COLLECTIVE_HOOKS,
            Some("combined"),
            "the entries of the combined neighbourhood (the rows of the step's transits one after the other)",
        ),
        method("combined_vertex", &[U64], U32, COLLECTIVE_HOOKS, Some("combined"), "the vertex of entry i (NONE past the end)"),
        method(
            "combined_transit",
            &[U64],
            U32,
            COLLECTIVE_HOOKS,
            Some("combined"),
            "the transit entry i comes from (NONE past the end)",
        ),
        method(
            "combined_count",
            &[U32],
            U64,
            COLLECTIVE_HOOKS,
            Some("combined_count"),
            "the entries of the combined neighbourhood holding v (binary search in the entries sorted once per step)",
        ),
        method(
            "combined_total",
            &[],
            F64,
            AFTER_WEIGHTS,
            Some("combined"),
            "the sum of the entries' weights (combined_weight)",
        ),
        method(
            "combined_pick",
            &[],
            U64,
            AFTER_WEIGHTS,
            Some("combined"),
            "an entry drawn in proportion to its weight (one random_f64); NONE_ENTRY when the total is 0",
        ),
        method(
            "random_below",
            &[U64],
            U64,
            DRAWING_HOOKS,
            Some("random"),
            "a uniform integer in 0..n, exact (Lemire's method); 0, with no draw, when n is 0",
        ),
        method("random_f64", &[], F64, DRAWING_HOOKS, Some("random"), "a uniform f64 in [0, 1) (53 bits)"),
        method("random_u32", &[], U32, DRAWING_HOOKS, Some("random"), "a uniform u32"),
        method("step", &[], U32, VIEW_HOOKS, None, "the step being sampled, from 0"),
    ],
    default_hooks: DEFAULT_HOOKS,
    c_prefix: "glp_sample_",
    state_hint: "a sample's state lives in the view (its roots, history and combined neighbourhood)",
    helpers: false,
    host_methods: &["name", "validate", "failure"],
};

/// The default hooks. `steps` and `sample_size` have none: every sampler says them. The
/// runtime's `Sampler` trait has the same defaults (the conformance tests check they agree).
pub const DEFAULT_HOOKS: &str = r#"
impl Sampler for Defaults {
    fn sampling(&self) -> u32 { INDIVIDUAL }
    fn next_transits(&self) -> u32 { ADDED }
    fn unique(&self, step: u32) -> bool { false }
    fn next(&self, view: &SampleView<'_>, sample: u32, transit: VertexId, lane: u32, step: u32) -> VertexId { NONE }
    fn next_entry(&self, view: &SampleView<'_>, sample: u32, lane: u32, step: u32) -> u64 { NONE_ENTRY }
    fn combined_weight(&self, view: &SampleView<'_>, sample: u32, transit: VertexId, v: VertexId, step: u32) -> f64 {
        1.0
    }
}
"#;
