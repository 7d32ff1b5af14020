//! Vertex degrees and their placement into communities.
//!
//! Each vertex `i` (a draw index, not yet a slot) draws its degree `d` from the bounded power
//! law and its external degree `k = floor(mu * d + U)` (stochastic rounding, so that
//! `E[k] = mu * d` exactly and the mixing fraction is right on average); its internal degree
//! is `d - k`. Both come from stream `stream::id(VERTEX_DEGREE, i)`: the first `f64` for the
//! degree, the second for the rounding.
//!
//! A vertex with internal degree `k_in` only fits in a community of more than `k_in` members.
//! As in LFR, vertices are assigned to communities so that this holds:
//!
//! - *constrained* vertices (`k_in >=` the smallest community size) are taken by decreasing
//!   `k_in` (ties by index) and each gets a uniformly random free slot among the slots of the
//!   communities large enough for it, by a Fisher–Yates pass over the slot array where
//!   vertex `r` swaps position `r` with a uniform position in `r..fitting(k_in)`. Since
//!   `fitting` grows as `k_in` decreases and every earlier swap stayed inside a smaller
//!   prefix, positions `r..fitting` hold exactly the free fitting slots. (If none is left,
//!   too many hubs for the large communities, the vertex takes any free slot and its internal
//!   degree is later capped at its community size minus one, the excess becoming external.)
//! - the other vertices fit anywhere: the `u`-th of them (by index) takes the slot at position
//!   `h + u`. Their degrees are independent and identically distributed given that they are
//!   unconstrained, so a fixed assignment is as random as a shuffled one.
//!
//! The pass over constrained vertices is sequential (one stream, `PLACEMENT`), O(h) for the
//! h constrained vertices; everything else is parallel.

use super::super::power_law::PowerLaw;
use super::super::{stream, try_zeroed};
use super::layout::Layout;
use crate::error::Result;
use crate::random::Stream;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// Internal and external degree of every slot.
#[derive(Debug)]
pub(super) struct SlotDegrees {
    pub internal: Vec<u32>,
    pub external: Vec<u32>,
}

/// Degree, external degree of drawn vertex `i`.
#[inline]
fn draw_vertex(i: usize, law: &PowerLaw, max_degree: u32, mixing: f64, seed: u64) -> (u32, u32) {
    let mut draws = Stream::new(seed, stream::id(stream::VERTEX_DEGREE, i as u64));
    let degree = (law.sample(draws.next_f64()) as u32).clamp(1, max_degree);
    let external = ((mixing * degree as f64 + draws.next_f64()) as u32).min(degree);
    (degree, external)
}

/// Draws the degrees of `n` vertices and places them on the slots of `layout`.
pub(super) fn place(layout: &Layout, law: &PowerLaw, max_degree: u32, mixing: f64, seed: u64) -> Result<SlotDegrees> {
    let n = *layout.starts.last().unwrap_or(&0);
    let mut degree: Vec<u32> = try_zeroed(n, "vertex degrees")?;
    let mut external: Vec<u32> = try_zeroed(n, "vertex external degrees")?;
    degree.par_iter_mut().zip(external.par_iter_mut()).enumerate().for_each(|(i, (d, k))| {
        (*d, *k) = draw_vertex(i, law, max_degree, mixing, seed);
    });
    let internal_of = |i: usize| degree[i] - external[i];

    // Constrained vertices, by index (for counting) and by decreasing internal degree.
    let smallest = layout.smallest();
    let constrained: Vec<u32> =
        (0..n).into_par_iter().filter(|&i| internal_of(i) >= smallest).map(|i| i as u32).collect();
    let mut order = constrained.clone();
    order.par_sort_unstable_by_key(|&i| (std::cmp::Reverse(internal_of(i as usize)), i));

    // Fisher–Yates over slot positions for the constrained vertices.
    let mut slot_at: Vec<u32> = try_zeroed(n, "the slot permutation")?;
    slot_at.par_iter_mut().enumerate().for_each(|(p, s)| *s = p as u32);
    let mut draws = Stream::new(seed, stream::id(stream::PLACEMENT, 0));
    for (r, &i) in order.iter().enumerate() {
        let fitting = layout.slots_fitting(internal_of(i as usize));
        let end = if fitting > r { fitting } else { n };
        let j = r + draws.next_below_u64((end - r) as u64) as usize;
        slot_at.swap(r, j);
    }

    // Scatter each vertex's degrees to its slot (slot_at is a permutation: distinct targets).
    let h = order.len();
    let mut internal_by_slot: Vec<u32> = try_zeroed(n, "slot internal degrees")?;
    let mut external_by_slot: Vec<u32> = try_zeroed(n, "slot external degrees")?;
    {
        let internal_cells = as_atomic(&mut internal_by_slot);
        let external_cells = as_atomic(&mut external_by_slot);
        slot_at.par_iter().enumerate().for_each(|(p, &slot)| {
            let i = if p < h { order[p] as usize } else { unconstrained_vertex(p - h, &constrained) };
            internal_cells[slot as usize].store(internal_of(i), Ordering::Relaxed);
            external_cells[slot as usize].store(external[i], Ordering::Relaxed);
        });
    }
    Ok(SlotDegrees { internal: internal_by_slot, external: external_by_slot })
}

/// Index of the `u`-th vertex (from 0) that is not in `constrained` (sorted, distinct).
///
/// Before `constrained[j]` there are `constrained[j] - j` unconstrained vertices, a
/// non-decreasing sequence; the answer is `u` plus the number of constrained vertices before
/// it, i.e. those with `constrained[j] - j <= u`.
#[inline]
fn unconstrained_vertex(u: usize, constrained: &[u32]) -> usize {
    let (mut lo, mut hi) = (0usize, constrained.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if constrained[mid] as usize - mid <= u {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let before = lo;
    u + before
}

fn as_atomic(data: &mut [u32]) -> &[AtomicU32] {
    // SAFETY: AtomicU32 has the same size, alignment and bit validity as u32 (documented by
    // std), and the exclusive borrow guarantees no other access while the atomic view lives.
    unsafe { &*(data as *mut [u32] as *const [AtomicU32]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unconstrained_vertices_are_the_complement() {
        let constrained = [0u32, 3, 4, 9];
        let expected: Vec<usize> = (0..12).filter(|i| !constrained.contains(&(*i as u32))).collect();
        let got: Vec<usize> = (0..expected.len()).map(|u| unconstrained_vertex(u, &constrained)).collect();
        assert_eq!(got, expected);
    }
}
