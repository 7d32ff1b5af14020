use glp::edge::{EdgeProgram, EdgeView, SUM};
use glp::graph::VertexId;

struct Residuals;

#[glp::edge_program]
impl EdgeProgram for Residuals {
    type Value = (f64, f64);
    type Message = (f64, f64);

    fn combine(&self) -> u32 {
        SUM
    }

    fn init(&self, _view: &EdgeView<'_>, _v: VertexId) -> (f64, f64) {
        (1.0, 0.0)
    }

    fn edge(&self, view: &EdgeView<'_>, _from: VertexId, _to: VertexId, value: (f64, f64), _weight: f64) -> (bool, (f64, f64)) {
        (true, (value.0, view.aggregated()))
    }

    fn apply(&self, _view: &EdgeView<'_>, _v: VertexId, old: (f64, f64), combined: (f64, f64)) -> (f64, f64) {
        (old.0 + combined.0, old.1)
    }
}

fn main() {}
