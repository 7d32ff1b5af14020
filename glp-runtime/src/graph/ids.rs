//! Dense relabelling of input vertex ids and the mapping back.
//!
//! Input ids are any u64 values (sparse, large, starting at 0 or 1). glp numbers vertices
//! `0..n` in increasing order of their original id, so the smallest original id gets 0; this
//! keeps "smallest label" tie rules meaning the same on both sides of the mapping.

use super::csr::VertexId;
use crate::error::{Error, Result};
use crate::memory::try_zeroed;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

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
            // `last - first` without `+ 1`: ids may span every u64 (0 and u64::MAX).
            (Some(&first), Some(&last)) if last - first == ids.len() as u64 - 1 => {
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

    /// The largest original id, if there is a vertex.
    pub fn largest(&self) -> Option<u64> {
        match self {
            VertexIds::Range { first, len } => len.checked_sub(1).map(|last| first + last as u64),
            VertexIds::Table(t) => t.last().copied(),
        }
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
    let Some((min, max)) = min_max(raw) else {
        return Ok(Relabelled { dense: Vec::new(), ids: VertexIds::from_sorted(Vec::new()) });
    };
    let direct_limit = (raw.len() as u64).saturating_mul(4).max(1 << 24);
    if max < direct_limit && max < u32::MAX as u64 {
        relabel_direct(raw, min, max as usize)
    } else {
        relabel_sorted(raw)
    }
}

/// The smallest and largest id, in one parallel pass.
fn min_max(raw: &[u64]) -> Option<(u64, u64)> {
    raw.par_chunks(1 << 16)
        .map(|chunk| chunk.iter().fold((u64::MAX, 0), |(lo, hi), &id| (lo.min(id), hi.max(id))))
        .reduce_with(|a, b| (a.0.min(b.0), a.1.max(b.1)))
}

/// `f` of every id, in parallel, into memory from [`try_zeroed`] (huge pages, no abort on
/// exhaustion).
fn map_dense(raw: &[u64], f: impl Fn(u64) -> VertexId + Sync) -> Result<Vec<VertexId>> {
    let mut dense = try_zeroed(raw.len(), "the relabelled vertex ids")?;
    dense.par_iter_mut().zip(raw).for_each(|(d, &id)| *d = f(id));
    Ok(dense)
}

fn too_many(distinct: usize) -> Error {
    Error::TooLarge(format!("{distinct} distinct vertex ids exceed the u32 vertex id range"))
}

/// Relabels through a presence bitmap over `0..=max` (one bit per possible id, so it stays
/// in cache far longer than a table of ranks): threads mark ids in one shared bitmap, and a
/// dense id is the number of present ids below it (a per-word
/// prefix count plus a popcount). When every id between the smallest and the largest is
/// present, dense ids are a plain subtraction.
fn relabel_direct(raw: &[u64], min: u64, max: usize) -> Result<Relabelled> {
    let words = max / 64 + 1;
    let shared: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
    raw.par_iter().for_each(|&id| {
        let (word, mask) = (&shared[id as usize / 64], 1u64 << (id % 64));
        // Most ids repeat: a plain load finds the bit set and skips the atomic update.
        if word.load(Ordering::Relaxed) & mask == 0 {
            word.fetch_or(mask, Ordering::Relaxed);
        }
    });
    let bits: Vec<u64> = shared.into_iter().map(AtomicU64::into_inner).collect();
    let mut rank_before_word = Vec::with_capacity(words);
    let mut present = 0u64;
    for w in &bits {
        rank_before_word.push(present as u32);
        present += w.count_ones() as u64;
    }
    if present == max as u64 - min + 1 {
        let dense = map_dense(raw, |id| (id - min) as VertexId)?;
        return Ok(Relabelled { dense, ids: VertexIds::Range { first: min, len: present as usize } });
    }
    let dense = map_dense(raw, |id| {
        let (word, bit) = (id as usize / 64, id % 64);
        rank_before_word[word] + (bits[word] & ((1u64 << bit) - 1)).count_ones()
    })?;
    let mut ids = Vec::with_capacity(present as usize);
    for (w, &word) in bits.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            ids.push((w * 64) as u64 + rest.trailing_zeros() as u64);
            rest &= rest - 1;
        }
    }
    Ok(Relabelled { dense, ids: VertexIds::from_sorted(ids) })
}

fn relabel_sorted(raw: &[u64]) -> Result<Relabelled> {
    let mut ids = raw.to_vec();
    ids.par_sort_unstable();
    ids.dedup();
    if ids.len() > u32::MAX as usize {
        return Err(too_many(ids.len()));
    }
    let dense = map_dense(raw, |id| ids.binary_search(&id).map_or(0, |i| i as VertexId))?;
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

    /// Many ids, some absent, compared with a sorted-and-deduplicated reference.
    #[test]
    fn bitmap_ranks_match_a_sorted_reference() {
        let mut x = 99u64;
        let raw: Vec<u64> = (0..200_000)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (x >> 40) % 300_000
            })
            .collect();
        let mut sorted = raw.clone();
        sorted.sort_unstable();
        sorted.dedup();
        let r = relabel(&raw).unwrap();
        for (&id, &d) in raw.iter().zip(&r.dense) {
            assert_eq!(sorted[d as usize], id);
        }
        assert_eq!(r.ids, VertexIds::Table(sorted));
    }

    #[test]
    fn contiguous_ids_compress_to_a_range() {
        let r = relabel(&[5, 6, 7, 6]).unwrap();
        assert_eq!(r.ids, VertexIds::Range { first: 5, len: 3 });
        assert_eq!(r.ids.original(2), 7);
        assert_eq!(r.ids.dense(4), None);
    }
}
