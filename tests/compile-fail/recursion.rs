use glp::prelude::*;

struct Variant;

#[glp::lp_variant]
impl LpVariant for Variant {
    fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
        if freq > 1.0 {
            self.label_score(view, v, label, freq - 1.0)
        } else {
            freq
        }
    }
}

fn main() {}
