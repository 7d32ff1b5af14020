use glp::prelude::*;

struct Variant;

#[glp::lp_variant]
impl LpVariant for Variant {
    fn label_score(&self, _view: &View<'_>, _v: VertexId, _label: Label, freq: f64) -> f64 {
        let mut total = 0.0;
        for x in [1.0, 2.0].iter() {
            total += x;
        }
        freq + total
    }
}

fn main() {}
