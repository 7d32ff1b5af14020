//! Dense relabelling of input vertex ids and the mapping back.
//!
//! Input ids are any u64 values (sparse, large, starting at 0 or 1). glp numbers vertices
//! `0..n` in increasing order of their original id, so the smallest original id gets 0; this
//! keeps "smallest label" tie rules meaning the same on both sides of the mapping.

use super::csr::VertexId;
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// Original id of every dense vertex, ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VertexIds {
    /// Vertex `v` had id `first + v` (the common dense case, stored in O(1)).
    Range {
        /// Original id of vertex 0.
        first: u64,
        /// Number of vertices.
        len: usize,
    },
    /// Vertex `v` had id `table[v]`; the table is strictly increasing.
    Table(Vec<u64>),
}

impl VertexIds {
    /// Builds the mapping from strictly increasing original ids, compressing a contiguous
    /// run to [`VertexIds::Range`].
    pub fn from_sorted(ids: Vec<u64>) -> Self {
        debug_assert!(ids.windows(2).all(|w| w[0] < w[1]));
        match (ids.first(), ids.last()) {
            (Some(&first), Some(&last)) if last - first + 1 == ids.len() as u64 => {
                VertexIds::Range { first, len: ids.len() }
            }
            (None, _) => VertexIds::Range { first: 0, len: 0 },
            _ => VertexIds::Table(ids),
        }
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        match self {
            VertexIds::Range { len, .. } => *len,
            VertexIds::Table(t) => t.len(),
        }
    }

    /// Whether there is no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Original id of dense vertex `v`.
    #[inline]
    pub fn original(&self, v: VertexId) -> u64 {
        match self {
            VertexIds::Range { first, .. } => first + v as u64,
            VertexIds::Table(t) => t[v as usize],
        }
    }

    /// Dense id of original id `id`, if that vertex exists.
    pub fn dense(&self, id: u64) -> Option<VertexId> {
        match self {
            VertexIds::Range { first, len } => {
                (id >= *first && id - first < *len as u64).then(|| (id - first) as VertexId)
            }
            VertexIds::Table(t) => t.binary_search(&id).ok().map(|i| i as VertexId),
        }
    }
}

/// Result of [`relabel`]: dense endpoints and the mapping back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relabelled {
    /// Dense ids, one per input id, in input order.
    pub dense: Vec<VertexId>,
    /// Original id of each dense vertex.
    pub ids: VertexIds,
}

/// Relabels `raw` ids densely by increasing original id.
///
/// Runs in O(len + max id) with a direct table when the largest id is small compared with
/// the input (the usual case, including com-DBLP's sparse ids), and in O(len log len) with a
/// sort otherwise. Errors when more than 2^32 - 1 distinct ids occur.
pub fn relabel(raw: &[u64]) -> Result<Relabelled> {
    let Some(&max) = raw.par_iter().max() else {
        return Ok(Relabelled { dense: Vec::new(), ids: VertexIds::from_sorted(Vec::new()) });
    };
    let direct_limit = (raw.len() as u64).saturating_mul(4).max(1 << 24);
    if max < direct_limit && max < u32::MAX as u64 {
        relabel_direct(raw, max as usize)
    } else {
        relabel_sorted(raw)
    }
}

fn too_many(distinct: usize) -> Error {
    Error::TooLarge(format!("{distinct} distinct vertex ids exceed the u32 vertex id range"))
}

fn relabel_direct(raw: &[u64], max: usize) -> Result<Relabelled> {
    let rank: Vec<AtomicU32> = (0..=max).map(|_| AtomicU32::new(0)).collect();
    raw.par_iter().for_each(|&id| rank[id as usize].store(1, Ordering::Relaxed));
    let mut ids = Vec::new();
    let mut next = 0u32;
    for (id, slot) in rank.iter().enumerate() {
        if slot.load(Ordering::Relaxed) != 0 {
            slot.store(next, Ordering::Relaxed);
            next += 1;
            ids.push(id as u64);
        }
    }
    let dense = raw.par_iter().map(|&id| rank[id as usize].load(Ordering::Relaxed)).collect();
    Ok(Relabelled { dense, ids: VertexIds::from_sorted(ids) })
}

fn relabel_sorted(raw: &[u64]) -> Result<Relabelled> {
    let mut ids = raw.to_vec();
    ids.par_sort_unstable();
    ids.dedup();
    if ids.len() > u32::MAX as usize {
        return Err(too_many(ids.len()));
    }
    let dense = raw.par_iter().map(|id| ids.binary_search(id).map_or(0, |i| i as VertexId)).collect();
    Ok(Relabelled { dense, ids: VertexIds::from_sorted(ids) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_ranks_in_original_order() {
        let r = relabel(&[40, 7, 40, 1000, 7]).unwrap();
        assert_eq!(r.dense, vec![1, 0, 1, 2, 0]);
        assert_eq!(r.ids, VertexIds::Table(vec![7, 40, 1000]));
        assert_eq!(r.ids.dense(1000), Some(2));
        assert_eq!(r.ids.dense(8), None);
    }

    #[test]
    fn huge_sparse_ids_take_the_sorting_path() {
        let r = relabel(&[u64::MAX - 1, 3, 1 << 40]).unwrap();
        assert_eq!(r.dense, vec![2, 0, 1]);
        assert_eq!(r.ids.original(2), u64::MAX - 1);
    }

    #[test]
    fn contiguous_ids_compress_to_a_range() {
        let r = relabel(&[5, 6, 7, 6]).unwrap();
        assert_eq!(r.ids, VertexIds::Range { first: 5, len: 3 });
        assert_eq!(r.ids.original(2), 7);
        assert_eq!(r.ids.dense(4), None);
    }
}
