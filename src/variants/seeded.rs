//! Seeded label propagation.

use crate::community::UNLABELLED;
use crate::graph::VertexId;
use crate::lp::{Label, LpFeatures, LpVariant, View};

/// Seeded label propagation (the fraud-detection pipeline of GLP sections 1 and 6.5): known
/// accounts carry seed labels, every other vertex starts unlabelled and takes no label until
/// a labelled neighbour reaches it, and seeds never change. Labels only spread from seeds, so
/// every final label is a seed label and vertices no seed can reach stay [`UNLABELLED`].
///
/// Seeds come from [`crate::lp::LpInputs::seeds`] (the CLI reads them with
/// [`crate::io::read_seeds`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Seeded;

impl Seeded {
    /// The optional facilities the hooks use: seeds.
    pub const FEATURES: LpFeatures = LpFeatures { seeds: true, ..super::Classic::FEATURES };
}

impl LpVariant for Seeded {
    /// The seed label, or [`UNLABELLED`] (an unlabelled vertex shows nothing).
    #[inline]
    fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label {
        view.seed_label(v)
    }

    /// A seeded vertex keeps its seed; any other takes the best label it hears.
    #[inline]
    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, _score: f64) -> Label {
        let seed = view.seed_label(v);
        if seed != UNLABELLED {
            return seed;
        }
        best
    }
}
