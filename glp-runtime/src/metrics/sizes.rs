//! Community count and size distribution.
//!
//! Sizes count vertices. [`UNLABELLED`](crate::community::UNLABELLED) vertices are singleton
//! communities (as in modularity and conductance) and are also counted on their own, so a
//! reader can tell "many singletons" from "many vertices no label reached". The histogram has
//! power-of-two bins `[1, 1], [2, 3], [4, 7], ...` up to the bin of the largest community,
//! empty bins included, so its shape reads directly.

use super::slots::CommunitySlots;
use super::totals::CommunityTotals;
use rayon::prelude::*;
use serde::Serialize;

/// One bin of the size histogram: communities with `min_size <= size <= max_size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SizeBin {
    /// Smallest size in the bin (a power of two).
    pub min_size: u64,
    /// Largest size in the bin (the next power of two, minus one).
    pub max_size: u64,
    /// Communities whose size falls in the bin.
    pub count: u64,
}

/// Count and size distribution of the communities of a partition.
///
/// With no vertex at all every field is 0 and the histogram is empty.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeStats {
    /// Vertices in the partition.
    pub vertices: u64,
    /// Vertices with no label, each counted as a singleton community.
    pub unlabelled: u64,
    /// Non-empty communities.
    pub count: u64,
    /// Communities of one vertex (unlabelled vertices included).
    pub singletons: u64,
    /// Size of the smallest community.
    pub min: u64,
    /// Size of the largest community.
    pub max: u64,
    /// Mean size: vertices / communities.
    pub mean: f64,
    /// Median size; the mean of the two middle sizes when the count is even.
    pub median: f64,
    /// Power-of-two histogram of the sizes.
    pub histogram: Vec<SizeBin>,
}

/// Size statistics of the partition `labels` (one label per vertex; labels may take any value).
pub fn size_stats(labels: &[u32]) -> SizeStats {
    let slots = CommunitySlots::new(labels);
    let mut size = vec![0u32; slots.len()];
    slots.for_each_vertex(labels, |_, s| size[s] += 1);
    from_slot_sizes(&size, slots.unlabelled() as u64)
}

/// Size statistics from per-community sums.
pub(crate) fn size_stats_of(totals: &CommunityTotals) -> SizeStats {
    from_slot_sizes(&totals.size, totals.slots.unlabelled() as u64)
}

fn from_slot_sizes(slot_sizes: &[u32], unlabelled: u64) -> SizeStats {
    let mut sizes: Vec<u32> = slot_sizes.par_iter().copied().filter(|&s| s > 0).collect();
    sizes.par_sort_unstable();
    let count = sizes.len();
    let vertices: u64 = sizes.iter().map(|&s| s as u64).sum();
    if count == 0 {
        return SizeStats {
            vertices,
            unlabelled,
            count: 0,
            singletons: 0,
            min: 0,
            max: 0,
            mean: 0.0,
            median: 0.0,
            histogram: Vec::new(),
        };
    }
    let median = if count % 2 == 1 {
        sizes[count / 2] as f64
    } else {
        (sizes[count / 2 - 1] as f64 + sizes[count / 2] as f64) / 2.0
    };
    let max = sizes[count - 1] as u64;
    let bins = (u64::BITS - max.leading_zeros()) as usize;
    let mut histogram: Vec<SizeBin> =
        (0..bins).map(|k| SizeBin { min_size: 1 << k, max_size: (1 << (k + 1)) - 1, count: 0 }).collect();
    for &s in &sizes {
        histogram[(u32::BITS - 1 - s.leading_zeros()) as usize].count += 1;
    }
    SizeStats {
        vertices,
        unlabelled,
        count: count as u64,
        singletons: sizes.partition_point(|&s| s == 1) as u64,
        min: sizes[0] as u64,
        max,
        mean: vertices as f64 / count as f64,
        median,
        histogram,
    }
}
