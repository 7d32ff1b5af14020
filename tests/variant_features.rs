//! The compiler derives, from each built-in variant's hook bodies, the optional facilities
//! the engines must allocate. Expected values are read off the variants' definitions (GLP
//! Fig. 4 and the seeded/SLP contracts), not computed by the compiler.

use glp::prelude::*;

fn none() -> LpFeatures {
    LpFeatures::default()
}

#[test]
fn built_in_variants_use_exactly_the_facilities_their_hooks_read() {
    assert_eq!(Classic.features(), none(), "classic reads only labels");
    assert_eq!(Weighted.features(), LpFeatures { edge_weights: true, ..none() });
    assert_eq!(
        Llp::default().features(),
        LpFeatures { custom_pick_label: true, histogram: true, ..none() },
        "LLP counts labels in pick_label and reads the counts in label_score"
    );
    assert_eq!(Seeded.features(), LpFeatures { seeds: true, ..none() });
    let slp = Slp::default().features();
    // GLP Fig. 4's SLP weighs a neighbour by V_weight + E_weight, speaks a random label of
    // its memory and listens into that memory.
    assert_eq!(
        slp,
        LpFeatures {
            custom_pick_label: true,
            label_memory: true,
            random: true,
            vertex_weights: true,
            edge_weights: true,
            ..none()
        }
    );
}

#[test]
fn parameters_are_passed_in_declaration_order_with_their_values() {
    let llp = Llp { gamma: 8.0 };
    let decls = llp.param_decls();
    assert_eq!(decls.len(), 1);
    assert_eq!(decls[0].name, "gamma");
    assert_eq!(llp.param_values(), vec![glp::lp::ScalarValue::F64(8.0)]);
    assert!(Classic.param_decls().is_empty());
}

/// The unit-weight fast path (popcounts instead of weight sums on the GPU) is taken exactly by
/// the variants whose `load_neighbor` is the default `(label, 1.0)`; a variant whose weight
/// depends on the edge or the vertex must not take it.
#[test]
fn only_default_neighbour_weights_take_the_unit_weight_path() {
    assert!(Classic.unit_neighbor_weight(), "classic keeps the default load_neighbor");
    assert!(Llp::default().unit_neighbor_weight(), "LLP keeps the default load_neighbor");
    assert!(Seeded.unit_neighbor_weight(), "seeded keeps the default load_neighbor");
    assert!(!Weighted.unit_neighbor_weight(), "weighted reads edge weights");
    assert!(!Slp::default().unit_neighbor_weight(), "SLP weighs by vertex + edge weight");
    let program = glp_codegen::kinds::lp::compile_source(
        "struct Half; impl LpVariant for Half { fn load_neighbor(&self, view: &View<'_>, _v: VertexId, u: VertexId, \
         _e: EdgeId) -> (Label, f64) { (view.label(u), 0.5) } }",
    )
    .unwrap();
    assert!(
        !glp_codegen::kinds::lp::properties::unit_neighbor_weight(&program.program),
        "a constant weight other than 1"
    );
}

/// The GPU kernels read a neighbour's label themselves (no id translation per edge when the
/// vertices are held by degree) exactly for the variants whose `load_neighbor` is the default
/// `(view.label(u), 1.0)`.
#[test]
fn only_the_default_neighbour_load_reads_labels_in_the_kernels() {
    assert!(
        Classic.default_load_neighbor() && Llp::default().default_load_neighbor() && Seeded.default_load_neighbor()
    );
    assert!(!Weighted.default_load_neighbor(), "weighted reads edge weights");
    assert!(!Slp::default().default_load_neighbor(), "SLP weighs by vertex + edge weight");
    assert!(!Capped { cap: 3.0 }.default_load_neighbor(), "capped writes its own load_neighbor");
    let file = |name, source, params: &[&str]| glp::lp::InterpretedVariant::from_source(name, source, params).unwrap();
    assert!(file("llp.rs", include_str!("../src/variants/llp.rs"), &["gamma=2"]).default_load_neighbor());
    assert!(!file("weighted.rs", include_str!("../src/variants/weighted.rs"), &[]).default_load_neighbor());
}

/// The sketch strategies serve exactly the variants whose score is the label's weighted count:
/// those that keep the default `label_score` (LLP penalises large labels, SLP adds a random
/// tie-breaking term).
#[test]
fn only_frequency_scores_may_use_a_sketch() {
    assert!(Classic.score_is_frequency() && Weighted.score_is_frequency() && Seeded.score_is_frequency());
    assert!(!Llp::default().score_is_frequency(), "LLP's score subtracts gamma * (count - freq)");
    assert!(!Slp::default().score_is_frequency(), "SLP's score adds a random term");
}
