//! Community labels -> dense accumulator slots.
//!
//! Per-community sums (sizes, volumes, cut weights) live in arrays indexed by a *slot*. Label
//! propagation produces labels that are vertex ids (`< n`), so the label itself is the slot:
//! no hashing, no sorting. Labels that are larger (a ground-truth file with sparse ids) are
//! compacted through the sorted list of distinct labels (a binary search per vertex). Every
//! [`UNLABELLED`] vertex is its own singleton community: it gets a slot of its own after the
//! labelled slots, in vertex order. That is the only reading of "no community" under which
//! modularity and conductance are defined for every vertex. [`LabelIndex`] is the labelled
//! part alone, which comparisons between partitions (where unlabelled vertices are skipped)
//! use.

use crate::community::UNLABELLED;
use rayon::prelude::*;
use serde::Serialize;

/// Which community a per-community result belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum CommunityKey {
    /// The community of every vertex carrying this label.
    Label(u32),
    /// The singleton community of this [`UNLABELLED`] vertex.
    Unlabelled(u32),
}

/// Dense indices `0..len()` for the labels of one partition, [`UNLABELLED`] excluded.
#[derive(Debug, Clone)]
pub(crate) struct LabelIndex {
    /// Sorted distinct labels when some label is `>= n`; `None` when labels are indices.
    distinct: Option<Vec<u32>>,
    /// The largest label + 1, or the number of distinct labels.
    len: usize,
}

impl LabelIndex {
    /// Indices for `labels` (one label per vertex).
    pub(crate) fn new(labels: &[u32]) -> Self {
        let largest = labels.par_iter().with_min_len(1 << 12).copied().filter(|&l| l != UNLABELLED).max();
        match largest {
            None => LabelIndex { distinct: None, len: 0 },
            Some(l) if (l as usize) < labels.len() => LabelIndex { distinct: None, len: l as usize + 1 },
            Some(_) => {
                let mut distinct: Vec<u32> = labels.par_iter().copied().filter(|&l| l != UNLABELLED).collect();
                distinct.par_sort_unstable();
                distinct.dedup();
                LabelIndex { len: distinct.len(), distinct: Some(distinct) }
            }
        }
    }

    /// Number of indices (some may be carried by no vertex when labels index directly).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Index of a label that some vertex carries (not [`UNLABELLED`]).
    #[inline]
    pub(crate) fn index(&self, label: u32) -> usize {
        match &self.distinct {
            None => label as usize,
            // Every label was inserted into `distinct`, so the search finds it.
            Some(distinct) => distinct.binary_search(&label).unwrap_or_else(|i| i),
        }
    }

    /// The label of an index.
    #[inline]
    pub(crate) fn label(&self, index: usize) -> u32 {
        match &self.distinct {
            None => index as u32,
            Some(distinct) => distinct[index],
        }
    }
}

/// How the communities of one partition map to slots `0..len()`: the labelled communities'
/// [`LabelIndex`], then one slot per unlabelled vertex.
#[derive(Debug, Clone)]
pub(crate) struct CommunitySlots {
    labels: LabelIndex,
    /// The unlabelled vertices, ascending; vertex `unlabelled[k]` has slot `labels.len() + k`.
    unlabelled: Vec<u32>,
}

impl CommunitySlots {
    /// Slots for `labels` (one label per vertex).
    pub(crate) fn new(labels: &[u32]) -> Self {
        let unlabelled: Vec<u32> = if labels.par_iter().any(|&l| l == UNLABELLED) {
            (0..labels.len() as u32).into_par_iter().filter(|&v| labels[v as usize] == UNLABELLED).collect()
        } else {
            Vec::new()
        };
        CommunitySlots { labels: LabelIndex::new(labels), unlabelled }
    }

    /// Number of slots.
    pub(crate) fn len(&self) -> usize {
        self.labels.len() + self.unlabelled.len()
    }

    /// Number of slots of labelled communities (`0..labelled_slots()`, before unlabelled ones).
    pub(crate) fn labelled_slots(&self) -> usize {
        self.labels.len()
    }

    /// Number of unlabelled vertices.
    pub(crate) fn unlabelled(&self) -> usize {
        self.unlabelled.len()
    }

    /// Calls `f(vertex, slot)` for every vertex, in increasing vertex order. `labels` must be
    /// the slice the slots were built from.
    pub(crate) fn for_each_vertex(&self, labels: &[u32], mut f: impl FnMut(usize, usize)) {
        let mut next_unlabelled = self.labels.len();
        for (v, &label) in labels.iter().enumerate() {
            let slot = if label == UNLABELLED {
                next_unlabelled += 1;
                next_unlabelled - 1
            } else {
                self.labels.index(label)
            };
            f(v, slot);
        }
    }

    /// The community a slot stands for.
    pub(crate) fn key(&self, slot: usize) -> CommunityKey {
        if slot < self.labels.len() {
            CommunityKey::Label(self.labels.label(slot))
        } else {
            CommunityKey::Unlabelled(self.unlabelled[slot - self.labels.len()])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots_of(labels: &[u32]) -> Vec<usize> {
        let slots = CommunitySlots::new(labels);
        let mut out = Vec::new();
        slots.for_each_vertex(labels, |_, s| out.push(s));
        out
    }

    #[test]
    fn dense_labels_are_their_own_slots_and_unlabelled_vertices_follow() {
        let labels = [2, UNLABELLED, 0, 2, UNLABELLED];
        // Largest label 2 < n = 5: slots 0..3 are labels, then one slot per unlabelled vertex.
        assert_eq!(slots_of(&labels), vec![2, 3, 0, 2, 4]);
        let slots = CommunitySlots::new(&labels);
        assert_eq!(slots.len(), 5);
        assert_eq!(slots.key(2), CommunityKey::Label(2));
        assert_eq!(slots.key(4), CommunityKey::Unlabelled(4));
    }

    #[test]
    fn sparse_labels_are_compacted_in_label_order() {
        let labels = [900, 7, 900, UNLABELLED];
        // Distinct labels [7, 900] -> slots 0, 1; the unlabelled vertex 3 gets slot 2.
        assert_eq!(slots_of(&labels), vec![1, 0, 1, 2]);
        let slots = CommunitySlots::new(&labels);
        assert_eq!(slots.key(1), CommunityKey::Label(900));
        assert_eq!(slots.key(2), CommunityKey::Unlabelled(3));
    }
}
