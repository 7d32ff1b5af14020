use glp::prelude::*;

struct Variant;

#[glp::lp_variant]
impl LpVariant for Variant {
    fn label_score(&self, view: &View<'_>, _v: VertexId, label: Label, freq: f64) -> f64 {
        view.count_label(label);
        freq
    }
}

fn main() {}
