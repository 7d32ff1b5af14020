use glp::prelude::*;

struct Variant;

#[glp::lp_variant]
impl LpVariant for Variant {
    fn label_score(&self, _view: &View<'_>, _v: VertexId, _label: Label, freq: f64) -> f64 {
        let _name = "score";
        freq
    }
}

fn main() {}
