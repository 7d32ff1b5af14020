//! Community assignments shared by ground-truth readers, generators, engines and metrics.

use crate::graph::VertexId;

/// Label of a vertex that has no community (no ground truth, or not reached by seeded LP).
pub const UNLABELLED: u32 = u32::MAX;

/// A cover: possibly overlapping communities, each a list of dense vertex ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cover {
    /// The communities; each lists its members once, ascending.
    pub communities: Vec<Vec<VertexId>>,
}

/// Ground truth as files give it: one label per vertex, or overlapping communities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroundTruth {
    /// Label of each dense vertex; [`UNLABELLED`] where the file gives none.
    Partition(Vec<u32>),
    /// Overlapping communities (SNAP `.cmty` files, multi-label files).
    Cover(Cover),
}
