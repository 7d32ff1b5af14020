//! The label propagation program kind: GLP's hooks and the view's methods.

use crate::ir::Scalar::{F64, U32, U64};
use crate::program::kind::{HookArg, HookRet, HookSpec, IntrinsicSpec, KindSpec, NamedConstant, Neutral};

/// Hook indices, in [`LP_KIND`]'s order.
pub const INITIAL_LABEL: usize = 0;
pub const PICK_LABEL: usize = 1;
pub const LOAD_NEIGHBOR: usize = 2;
pub const LABEL_SCORE: usize = 3;
pub const UPDATE_VERTEX: usize = 4;

const ALL_HOOKS: &[usize] = &[INITIAL_LABEL, PICK_LABEL, LOAD_NEIGHBOR, LABEL_SCORE, UPDATE_VERTEX];
const AFTER_INIT: &[usize] = &[PICK_LABEL, LOAD_NEIGHBOR, LABEL_SCORE, UPDATE_VERTEX];

const VIEW: (&str, HookArg) = ("view", HookArg::Context);
const V: (&str, HookArg) = ("v", HookArg::Scalar(U32));
/// The neutral label: the kernels skip it, as the CPU engines do. The hooks' neutral values
/// (returned on the GPU when their loops ran out of steps) are those glp-runtime's
/// interpreted variants return after a failure: no label, `freq` as the score, `best` as
/// the update.
const NO_LABEL: &[Neutral] = &[Neutral::Constant("UNLABELLED")];

/// The label propagation kind.
pub static LP_KIND: KindSpec = KindSpec {
    description: "label propagation variant",
    noun: "variant",
    trait_name: "LpVariant",
    context_type: "View",
    type_aliases: &[("VertexId", U32), ("Label", U32), ("EdgeId", U64)],
    declared_types: &[],
    constants: &[NamedConstant {
        name: "UNLABELLED",
        ty: U32,
        value: u32::MAX as u64,
        doc: "the label of a vertex that has none (u32::MAX)",
    }],
    hooks: &[
        HookSpec {
            name: "initial_label",
            args: &[VIEW, V],
            ret: HookRet::Scalar(U32),
            vertex_arg: Some(1),
            neutral: NO_LABEL,
            resumable: false,
            doc: "the label v starts with; default: its own id",
        },
        HookSpec {
            name: "pick_label",
            args: &[VIEW, V],
            ret: HookRet::Scalar(U32),
            vertex_arg: Some(1),
            neutral: NO_LABEL,
            resumable: false,
            doc: "the label v shows its neighbours this iteration (GLP's PickLabel); default: view.next_label(v)",
        },
        HookSpec {
            name: "load_neighbor",
            args: &[VIEW, V, ("u", HookArg::Scalar(U32)), ("edge", HookArg::Scalar(U64))],
            ret: HookRet::Pair(U32, F64),
            vertex_arg: Some(1),
            neutral: &[Neutral::Constant("UNLABELLED"), Neutral::Zero],
            resumable: false,
            doc: "the label and weight neighbour u contributes to v through edge `edge`; default: (view.label(u), 1.0)",
        },
        HookSpec {
            name: "label_score",
            args: &[VIEW, V, ("label", HookArg::Scalar(U32)), ("freq", HookArg::Scalar(F64))],
            ret: HookRet::Scalar(F64),
            vertex_arg: Some(1),
            neutral: &[Neutral::Arg(3)],
            resumable: false,
            doc: "the score of a label whose neighbours' weights sum to freq; default: freq",
        },
        HookSpec {
            name: "update_vertex",
            args: &[VIEW, V, ("best", HookArg::Scalar(U32)), ("score", HookArg::Scalar(F64))],
            ret: HookRet::Scalar(U32),
            vertex_arg: Some(1),
            neutral: &[Neutral::Arg(2)],
            resumable: false,
            doc: "the label v takes given the best-scoring label; default: best",
        },
    ],
    intrinsics: &[
        IntrinsicSpec {
            name: "label",
            args: &[U32],
            ret: Some(U32),
            allowed_in: AFTER_INIT,
            own_vertex_arg: None,
            feature: None,
            doc: "the label u shows this iteration (GLP's L)",
        },
        IntrinsicSpec {
            name: "next_label",
            args: &[U32],
            ret: Some(U32),
            allowed_in: AFTER_INIT,
            own_vertex_arg: None,
            feature: None,
            doc: "the label u was given at the end of the previous iteration (GLP's Lnext)",
        },
        IntrinsicSpec {
            name: "degree",
            args: &[U32],
            ret: Some(U64),
            allowed_in: ALL_HOOKS,
            own_vertex_arg: None,
            feature: None,
            doc: "the number of edges of v",
        },
        IntrinsicSpec {
            name: "num_vertices",
            args: &[],
            ret: Some(U32),
            allowed_in: ALL_HOOKS,
            own_vertex_arg: None,
            feature: None,
            doc: "the number of vertices",
        },
        IntrinsicSpec {
            name: "iteration",
            args: &[],
            ret: Some(U32),
            allowed_in: ALL_HOOKS,
            own_vertex_arg: None,
            feature: None,
            doc: "the current iteration, from 0",
        },
        IntrinsicSpec {
            name: "edge_weight",
            args: &[U64],
            ret: Some(F64),
            allowed_in: ALL_HOOKS,
            own_vertex_arg: None,
            feature: Some("edge_weights"),
            doc: "the weight of an edge (1 on unweighted graphs)",
        },
        IntrinsicSpec {
            name: "vertex_weight",
            args: &[U32],
            ret: Some(F64),
            allowed_in: ALL_HOOKS,
            own_vertex_arg: None,
            feature: Some("vertex_weights"),
            doc: "the weight of a vertex (1 when none are given)",
        },
        IntrinsicSpec {
            name: "count_label",
            args: &[U32],
            ret: None,
            allowed_in: &[PICK_LABEL],
            own_vertex_arg: None,
            feature: Some("histogram"),
            doc: "adds one to the label's global count (the histogram is reset every iteration)",
        },
        IntrinsicSpec {
            name: "global_count",
            args: &[U32],
            ret: Some(U32),
            allowed_in: &[LOAD_NEIGHBOR, LABEL_SCORE, UPDATE_VERTEX],
            own_vertex_arg: None,
            feature: Some("histogram"),
            doc: "the label's global count of this iteration",
        },
        IntrinsicSpec {
            name: "memory_add",
            args: &[U32, U32, F64],
            ret: None,
            allowed_in: &[INITIAL_LABEL, UPDATE_VERTEX],
            own_vertex_arg: Some(0),
            feature: Some("label_memory"),
            doc: "adds weight to a label in v's bounded label memory",
        },
        IntrinsicSpec {
            name: "memory_prune",
            args: &[U32, F64],
            ret: None,
            allowed_in: &[UPDATE_VERTEX],
            own_vertex_arg: Some(0),
            feature: Some("label_memory"),
            doc: "drops labels below a fraction of v's total memory weight",
        },
        IntrinsicSpec {
            name: "memory_pick",
            args: &[U32, F64],
            ret: Some(U32),
            allowed_in: &[PICK_LABEL],
            own_vertex_arg: Some(0),
            feature: Some("label_memory"),
            doc: "picks a label of v's memory with probability proportional to its weight, given r in [0, 1)",
        },
        IntrinsicSpec {
            name: "memory_len",
            args: &[U32],
            ret: Some(U32),
            allowed_in: &[PICK_LABEL, UPDATE_VERTEX],
            own_vertex_arg: Some(0),
            feature: Some("label_memory"),
            doc: "the number of labels in v's memory",
        },
        IntrinsicSpec {
            name: "memory_label",
            args: &[U32, U32],
            ret: Some(U32),
            allowed_in: &[PICK_LABEL, UPDATE_VERTEX],
            own_vertex_arg: Some(0),
            feature: Some("label_memory"),
            doc: "the label in a slot of v's memory",
        },
        IntrinsicSpec {
            name: "memory_weight",
            args: &[U32, U32],
            ret: Some(F64),
            allowed_in: &[PICK_LABEL, UPDATE_VERTEX],
            own_vertex_arg: Some(0),
            feature: Some("label_memory"),
            doc: "the weight in a slot of v's memory",
        },
        IntrinsicSpec {
            name: "seed_label",
            args: &[U32],
            ret: Some(U32),
            allowed_in: ALL_HOOKS,
            own_vertex_arg: None,
            feature: Some("seeds"),
            doc: "v's seed label, UNLABELLED when v has none",
        },
        IntrinsicSpec {
            name: "random_u32",
            args: &[U32, U32],
            ret: Some(U32),
            allowed_in: ALL_HOOKS,
            own_vertex_arg: None,
            feature: Some("random"),
            doc: "a random u32 for (v, iteration, draw): Philox4x32-10, identical on CPU and GPU",
        },
        IntrinsicSpec {
            name: "random_f64",
            args: &[U32, U32],
            ret: Some(F64),
            allowed_in: ALL_HOOKS,
            own_vertex_arg: None,
            feature: Some("random"),
            doc: "a random f64 in [0, 1) for (v, iteration, draw)",
        },
    ],
    default_hooks: DEFAULT_HOOKS,
    c_prefix: "glp_lp_",
    state_hint: "per-vertex state lives in the view (e.g. the label memory)",
    helpers: false,
    host_methods: &[],
};

/// The default hooks: classic label propagation. The runtime's `LpVariant` trait has the
/// same defaults (a differential test checks they agree).
pub const DEFAULT_HOOKS: &str = r#"
impl LpVariant for Defaults {
    fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label { v }
    fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label { view.next_label(v) }
    fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {
        (view.label(u), 1.0)
    }
    fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 { freq }
    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label { best }
}
"#;
