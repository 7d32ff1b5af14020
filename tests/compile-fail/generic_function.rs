use glp::prelude::*;

struct Variant<T>(std::marker::PhantomData<T>);

#[glp::lp_variant]
impl<T: Sync> LpVariant for Variant<T> {
    fn label_score(&self, _view: &View<'_>, _v: VertexId, _label: Label, freq: f64) -> f64 {
        freq
    }
}

fn main() {}
