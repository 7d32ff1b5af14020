// rustc would also warn that the block is unnecessary (it wraps no unsafe operation); only
// glp's error matters here.
#![allow(unused_unsafe)]

use glp::prelude::*;

struct Variant;

#[glp::lp_variant]
impl LpVariant for Variant {
    fn label_score(&self, _view: &View<'_>, _v: VertexId, _label: Label, freq: f64) -> f64 {
        unsafe { freq }
    }
}

fn main() {}
