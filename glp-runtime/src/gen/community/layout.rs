//! Community sizes and their layout on slots.
//!
//! Sizes are drawn one after the other from the bounded power law until they cover the `n`
//! vertices (LFR's procedure). When a draw would leave a remainder that no set of allowed
//! sizes can fill (for example 7 vertices with sizes of at least 20), it is replaced by the
//! nearest size that leaves a fillable remainder, so every size stays in `min..=max` and the
//! sizes sum to `n` exactly. Only the last few draws are ever adjusted.
//!
//! Communities are then numbered by decreasing size and laid out as contiguous ranges of
//! *slots* `0..n`: community 0 (the largest) owns slots `0..size_0`, and so on. Slots are the
//! generator's internal vertex numbering; the output ids are a seeded permutation of them. The
//! decreasing order makes "the communities larger than `k`" a prefix of the slots, which is
//! what placing high-degree vertices needs.

use super::super::power_law::PowerLaw;
use super::super::stream;
use crate::random::Stream;

/// Community sizes (decreasing) and the slot range of each.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    /// Size of community `c`, non-increasing in `c`.
    pub sizes: Vec<u32>,
    /// Community `c` owns slots `starts[c]..starts[c + 1]`; `starts[C] = n`.
    pub starts: Vec<usize>,
}

impl Layout {
    pub fn num_communities(&self) -> usize {
        self.sizes.len()
    }

    /// Slot range of community `c`.
    pub fn slots(&self, c: usize) -> std::ops::Range<usize> {
        self.starts[c]..self.starts[c + 1]
    }

    /// Community owning `slot`.
    #[inline]
    pub fn community_of(&self, slot: usize) -> u32 {
        (self.starts[1..].partition_point(|&s| s <= slot)) as u32
    }

    /// Number of slots in communities strictly larger than `internal_degree`: those slots
    /// (a prefix) are where a vertex with that many internal edges fits.
    pub fn slots_fitting(&self, internal_degree: u32) -> usize {
        self.starts[self.sizes.partition_point(|&s| s > internal_degree)]
    }

    /// Smallest community size.
    pub fn smallest(&self) -> u32 {
        self.sizes.last().copied().unwrap_or(0)
    }
}

/// Whether `x` vertices can be split into communities of sizes in `min..=max`.
pub(super) fn fillable(x: u64, min: u32, max: u32) -> bool {
    x == 0 || x.div_ceil(max as u64) <= x / min as u64
}

/// Draws the sizes for `n` vertices (`fillable(n, min, max)` must hold) and lays them out.
pub(super) fn draw(n: u64, min: u32, max: u32, exponent: f64, seed: u64) -> Layout {
    debug_assert!(fillable(n, min, max));
    let law = PowerLaw::new(min as f64, max as f64 + 1.0, exponent);
    let mut draws = Stream::new(seed, stream::id(stream::COMMUNITY_SIZES, 0));
    let mut sizes = Vec::new();
    let mut rest = n;
    while rest > 0 {
        let drawn = (law.sample(draws.next_f64()) as u64).clamp(min as u64, max as u64);
        let size = nearest_fillable_size(rest, drawn, min, max);
        sizes.push(size as u32);
        rest -= size;
    }
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let mut starts = Vec::with_capacity(sizes.len() + 1);
    let mut acc = 0usize;
    starts.push(0);
    for &s in &sizes {
        acc += s as usize;
        starts.push(acc);
    }
    Layout { sizes, starts }
}

/// The size closest to `drawn` (ties to the smaller) in `min..=min(max, rest)` that leaves a
/// fillable remainder. One exists: `rest` is fillable, and any part of a filling works.
fn nearest_fillable_size(rest: u64, drawn: u64, min: u32, max: u32) -> u64 {
    let (min, max) = (min as u64, (max as u64).min(rest));
    let drawn = drawn.clamp(min, max);
    let ok = |s: u64| (min..=max).contains(&s) && fillable(rest - s, min as u32, max as u32);
    for distance in 0..=(max - min) {
        if drawn >= distance && ok(drawn - distance) {
            return drawn - distance;
        }
        if ok(drawn + distance) {
            return drawn + distance;
        }
    }
    unreachable!("{rest} is fillable with sizes {min}..={max}, so some size leaves a fillable remainder")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_cover_n_within_bounds() {
        for &(n, min, max) in &[(1000u64, 20u32, 100u32), (47, 20, 25), (100_000, 20, 1000), (40, 20, 20)] {
            let layout = draw(n, min, max, 1.0, 9);
            assert_eq!(layout.sizes.iter().map(|&s| s as u64).sum::<u64>(), n);
            assert!(layout.sizes.iter().all(|&s| (min..=max).contains(&s)));
            assert!(layout.sizes.windows(2).all(|w| w[0] >= w[1]));
            assert_eq!(*layout.starts.last().unwrap() as u64, n);
        }
    }

    #[test]
    fn fillable_small_cases() {
        assert!(fillable(40, 20, 20));
        assert!(!fillable(30, 20, 20));
        assert!(fillable(47, 20, 25));
        assert!(!fillable(7, 20, 1000));
    }
}
