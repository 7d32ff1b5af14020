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

impl Cover {
    /// The cover as a partition of `0..n` (community index as label, [`UNLABELLED`] for
    /// vertices in no community) when no vertex is in two communities; `None` otherwise or
    /// when a member is outside `0..n`.
    pub fn as_partition(&self, n: usize) -> Option<Vec<u32>> {
        let mut labels = vec![UNLABELLED; n];
        for (c, members) in self.communities.iter().enumerate() {
            for &v in members {
                let slot = labels.get_mut(v as usize)?;
                if *slot != UNLABELLED && *slot != c as u32 {
                    return None;
                }
                *slot = c as u32;
            }
        }
        Some(labels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cover_without_overlaps_is_a_partition() {
        let cover = Cover { communities: vec![vec![0, 2], vec![3]] };
        assert_eq!(cover.as_partition(5), Some(vec![0, UNLABELLED, 0, 1, UNLABELLED]));
        let overlapping = Cover { communities: vec![vec![0, 2], vec![2, 3]] };
        assert_eq!(overlapping.as_partition(5), None);
        assert_eq!(cover.as_partition(3), None, "member 3 is outside 0..3");
    }
}

/// Ground truth as files give it: one label per vertex, or overlapping communities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroundTruth {
    /// Label of each dense vertex; [`UNLABELLED`] where the file gives none.
    Partition(Vec<u32>),
    /// Overlapping communities (SNAP `.cmty` files, multi-label files).
    Cover(Cover),
}
