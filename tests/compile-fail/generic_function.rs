use glp::prelude::*;

struct Variant<T>(std::marker::PhantomData<T>);

#[glp::lp_variant]
impl<T: Sync> LpVariant for Variant<T> {
    fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
        freq
    }
}

fn main() {}
