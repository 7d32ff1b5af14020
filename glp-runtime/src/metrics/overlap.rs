//! Overlapping NMI of two covers (McDaid, Greene & Hurley 2011; Lancichinetti, Fortunato &
//! Kertesz 2009).
//!
//! A cover is a list of possibly overlapping communities over a universe of `N` vertices.
//! Each community `X_i` is read as a binary random variable over the universe ("is the vertex
//! in `X_i`?"). For communities `X_i` of `X` and `Y_j` of `Y`, with `a = N - |X_i u Y_j|`,
//! `b = |Y_j \ X_i|`, `c = |X_i \ Y_j|`, `d = |X_i n Y_j|` and `h(k) = -(k/N) log2(k/N)`
//! (`h(0) = 0`; entropies are in bits):
//!
//! ```text
//! H(X_i)        = h(|X_i|) + h(N - |X_i|)
//! H(X_i | Y_j)  = h(a) + h(b) + h(c) + h(d) - H(Y_j)   if h(a) + h(d) > h(b) + h(c)
//!               = H(X_i)                               otherwise
//! H(X_i | Y)    = min over j of H(X_i | Y_j)
//! H(X | Y)      = sum over i of H(X_i | Y)             H(X) = sum over i of H(X_i)
//! ```
//!
//! The condition (strict, as in both reference implementations) rejects a `Y_j` that
//! resembles the complement of `X_i` rather than `X_i`. Then:
//!
//! - **NMI_max** (McDaid et al., the `NMI<Max>` printed by their `onmi` tool and cdlib's
//!   `overlapping_normalized_mutual_information_MGH`):
//!   `I(X:Y) = (H(X) - H(X|Y) + H(Y) - H(Y|X)) / 2`, `NMI = I(X:Y) / max(H(X), H(Y))`.
//! - **LFK** (Lancichinetti et al.; cdlib's `..._LFK`):
//!   `NMI = 1 - (H_n(X|Y) + H_n(Y|X)) / 2` with `H_n(X|Y) = mean over i of
//!   H(X_i|Y) / H(X_i)`; a community spanning the whole universe (`H(X_i) = 0`) counts 1,
//!   the convention of the LFK software that `onmi` adopted.
//!
//! Edge cases: empty communities are ignored (as `onmi` does); a cover with no non-empty
//! community is an error. When every community of both covers spans the whole universe
//! (`H(X) = H(Y) = 0`), NMI_max is defined as 1. Rounding is clamped: `H(X_i|Y_j)` to
//! `[0, H(X_i)]`, both NMIs to `[0, 1]`.
//!
//! **Universe.** [`overlapping_nmi`] takes `N` from the caller: for community detection it is
//! the graph's vertex count, so vertices in neither cover count in `a` (they are correctly
//! predicted to be outside both communities). `onmi` and cdlib instead use the vertices that
//! appear in either cover; [`overlapping_nmi_covered`] does that, to reproduce their numbers.
//!
//! **Cost.** Only pairs that share a vertex are enumerated, through an inverted index (vertex
//! -> communities) of `Y`: the work is the sum over vertices of (communities of `X` containing
//! it) x (communities of `Y` containing it), in parallel over the communities of `X`. A pair
//! with `d = 0` passes the condition only if one of the two communities holds more than half
//! the universe: with `p = |X_i|/N`, `q = |Y_j|/N` both `<= 1/2` and `f(t) = -t ln t`, the
//! condition reads `f(1 - p - q) > f(p) + f(q)`, and for fixed `s = p + q` the right side is
//! concave in `p`, so smallest at `p = max(0, s - 1/2)`: for `s <= 1/2` that leaves
//! `f(1 - s) <= f(s)` (true on `[0, 1/2]`: `f(s) - f(1 - s)` is concave and 0 at both ends);
//! for `s > 1/2`, with `t = s - 1/2`, `f(1/2 - t) - f(1/2) <= t (1 + ln 1/2) < t ln 2 <=
//! f(t)`. So disjoint pairs are evaluated only when one side is such a giant community, which
//! makes the result equal to the all-pairs definition. The entropy terms come from tables of
//! `-(k/N) log2(k/N)` over the counts that can occur (see `BitsTable`), so a pair costs four
//! lookups, not four logarithms.

use super::slots::CommunitySlots;
use crate::community::{Cover, UNLABELLED};
use crate::error::{Error, Result};
use rayon::prelude::*;
use serde::Serialize;

/// Overlapping NMI of two covers, both variants and their ingredients (entropies in bits).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OverlappingNmi {
    /// McDaid, Greene & Hurley's NMI_max.
    pub nmi_max: f64,
    /// Lancichinetti, Fortunato & Kertesz's overlapping NMI.
    pub lfk: f64,
    /// Size `N` of the vertex universe.
    pub universe: u64,
    /// Non-empty communities of the first cover.
    pub communities_x: usize,
    /// Non-empty communities of the second cover.
    pub communities_y: usize,
    /// `H(X)`.
    pub entropy_x: f64,
    /// `H(Y)`.
    pub entropy_y: f64,
    /// `H(X|Y)`.
    pub conditional_x_given_y: f64,
    /// `H(Y|X)`.
    pub conditional_y_given_x: f64,
}

/// Overlapping NMI of the covers `x` and `y` over the universe of vertices `0..universe`.
///
/// Errors when a community lists a vertex `>= universe`, is not strictly ascending (a vertex
/// listed twice), or a cover has no non-empty community.
pub fn overlapping_nmi(x: &Cover, y: &Cover, universe: usize) -> Result<OverlappingNmi> {
    check_cover(x, "first", universe)?;
    check_cover(y, "second", universe)?;
    compare(x, y, universe, universe)
}

/// Overlapping NMI of `x` and `y` over the vertices that appear in either of them (the
/// universe `onmi` and cdlib use).
///
/// Errors when a community is not strictly ascending or a cover has no non-empty community.
pub fn overlapping_nmi_covered(x: &Cover, y: &Cover) -> Result<OverlappingNmi> {
    let largest = |c: &Cover| c.communities.iter().filter_map(|m| m.last().copied()).max();
    let index_len = largest(x).max(largest(y)).map_or(0, |v| v as usize + 1);
    check_cover(x, "first", index_len)?;
    check_cover(y, "second", index_len)?;
    let mut seen = vec![false; index_len];
    for &v in x.communities.iter().chain(&y.communities).flatten() {
        seen[v as usize] = true;
    }
    let covered = seen.iter().filter(|&&s| s).count();
    compare(x, y, index_len, covered)
}

/// Overlapping NMI of the partition `labels` (as a cover, see [`cover_from_labels`]) and the
/// cover `cover`, over the universe of the `labels.len()` vertices.
///
/// Errors when every vertex is unlabelled, or `cover` is malformed (see [`overlapping_nmi`]).
pub fn overlapping_nmi_of_partition(labels: &[u32], cover: &Cover) -> Result<OverlappingNmi> {
    if labels.par_iter().all(|&l| l == UNLABELLED) {
        return Err(Error::invalid("the partition labels no vertex: nothing to compare with the cover"));
    }
    overlapping_nmi(&cover_from_labels(labels), cover, labels.len())
}

/// The cover whose communities are the label classes of `labels`, ascending by label, members
/// ascending. [`UNLABELLED`] vertices belong to no community (a cover need not cover every
/// vertex).
pub fn cover_from_labels(labels: &[u32]) -> Cover {
    let slots = CommunitySlots::new(labels);
    let mut sizes = vec![0usize; slots.labelled_slots()];
    slots.for_each_vertex(labels, |v, s| {
        if labels[v] != UNLABELLED {
            sizes[s] += 1;
        }
    });
    let mut communities: Vec<Vec<u32>> = sizes.iter().map(|&size| Vec::with_capacity(size)).collect();
    slots.for_each_vertex(labels, |v, s| {
        if labels[v] != UNLABELLED {
            communities[s].push(v as u32);
        }
    });
    communities.retain(|members| !members.is_empty());
    Cover { communities }
}

fn check_cover(cover: &Cover, which: &str, universe: usize) -> Result<()> {
    let problem = cover.communities.par_iter().enumerate().find_map_first(|(i, members)| {
        if let Some(pair) = members.windows(2).find(|p| p[0] >= p[1]) {
            return Some(format!(
                "community {i} of the {which} cover is not strictly ascending ({} before {})",
                pair[0], pair[1]
            ));
        }
        match members.last() {
            Some(&v) if v as usize >= universe => {
                Some(format!("community {i} of the {which} cover has vertex {v}, outside the {universe} vertices"))
            }
            _ => None,
        }
    });
    if let Some(message) = problem {
        return Err(Error::invalid(message));
    }
    if cover.communities.iter().all(|m| m.is_empty()) {
        return Err(Error::invalid(format!("the {which} cover has no non-empty community")));
    }
    Ok(())
}

/// A cover's non-empty communities with the vertex -> communities index.
struct IndexedCover<'a> {
    communities: Vec<&'a [u32]>,
    /// `H(X_i)` of each community.
    entropy: Vec<f64>,
    /// Communities holding more than half the universe.
    giants: Vec<u32>,
    /// `members_of[offsets[v]..offsets[v + 1]]`: the communities containing vertex `v`.
    offsets: Vec<usize>,
    members_of: Vec<u32>,
}

impl<'a> IndexedCover<'a> {
    fn new(cover: &'a Cover, index_len: usize, bits: &BitsTable) -> Self {
        let universe = bits.universe;
        let communities: Vec<&[u32]> =
            cover.communities.iter().filter(|m| !m.is_empty()).map(|m| m.as_slice()).collect();
        let entropy = communities.iter().map(|m| bits.community(m.len())).collect();
        let giants = (0..communities.len() as u32).filter(|&i| 2 * communities[i as usize].len() > universe).collect();
        let mut offsets = vec![0usize; index_len + 1];
        for &v in communities.iter().copied().flatten() {
            offsets[v as usize + 1] += 1;
        }
        for v in 0..index_len {
            offsets[v + 1] += offsets[v];
        }
        let mut cursor = offsets.clone();
        let mut members_of = vec![0u32; offsets[index_len]];
        for (i, members) in communities.iter().enumerate() {
            for &v in members.iter() {
                members_of[cursor[v as usize]] = i as u32;
                cursor[v as usize] += 1;
            }
        }
        IndexedCover { communities, entropy, giants, offsets, members_of }
    }

    fn containing(&self, v: u32) -> &[u32] {
        &self.members_of[self.offsets[v as usize]..self.offsets[v as usize + 1]]
    }
}

/// `-(k/N) log2(k/N)`, 0 for `k = 0`.
fn bits(k: usize, universe: usize) -> f64 {
    if k == 0 {
        0.0
    } else {
        let p = k as f64 / universe as f64;
        -p * p.log2()
    }
}

/// [`bits`] for every count a pair of communities can produce, precomputed: with `L` the
/// largest community, the cells `b`, `c`, `d` and `|X_i|` are at most `L`, and `a` and
/// `N - |X_i|` at least `N - 2L`. Two tables of O(L) entries replace four logarithms per pair.
struct BitsTable {
    universe: usize,
    /// `bits(k)` for `k` in `0..low.len()`.
    low: Vec<f64>,
    /// `bits(k)` for `k` in `high_start..=universe`.
    high: Vec<f64>,
    high_start: usize,
}

impl BitsTable {
    fn new(universe: usize, largest: usize) -> Self {
        let low_end = (largest + 1).min(universe + 1);
        let high_start = universe.saturating_sub(2 * largest).max(low_end);
        let table = |range: std::ops::Range<usize>| range.into_par_iter().map(|k| bits(k, universe)).collect();
        BitsTable { universe, low: table(0..low_end), high: table(high_start..universe + 1), high_start }
    }

    #[inline]
    fn get(&self, k: usize) -> f64 {
        if k < self.low.len() {
            self.low[k]
        } else if k >= self.high_start {
            self.high[k - self.high_start]
        } else {
            bits(k, self.universe)
        }
    }

    /// `H(X_i)` of a community of `size` vertices.
    fn community(&self, size: usize) -> f64 {
        self.get(size) + self.get(self.universe - size)
    }
}

/// `H(X_i | Y_j)` for `|X_i| = x`, `|Y_j| = y`, `|X_i n Y_j| = d` (see the module docs).
#[inline]
fn pair_conditional(bits: &BitsTable, x: usize, y: usize, d: usize, entropy_x: f64, entropy_y: f64) -> f64 {
    let (ha, hb, hc, hd) = (bits.get(bits.universe + d - x - y), bits.get(y - d), bits.get(x - d), bits.get(d));
    if ha + hd > hb + hc {
        (ha + hb + hc + hd - entropy_y).clamp(0.0, entropy_x)
    } else {
        entropy_x
    }
}

/// `H(X_i | Y)` for every community of `x`.
fn conditionals(x: &IndexedCover, y: &IndexedCover, bits: &BitsTable) -> Vec<f64> {
    let universe = bits.universe;
    let k_y = y.communities.len();
    x.communities
        .par_iter()
        .enumerate()
        .map_init(
            || (vec![0u32; k_y], Vec::<u32>::new()),
            |(overlap, touched), (i, members)| {
                for &v in members.iter() {
                    for &j in y.containing(v) {
                        if overlap[j as usize] == 0 {
                            touched.push(j);
                        }
                        overlap[j as usize] += 1;
                    }
                }
                let size = members.len();
                let given = |j: usize| {
                    let d = overlap[j] as usize;
                    pair_conditional(bits, size, y.communities[j].len(), d, x.entropy[i], y.entropy[j])
                };
                let mut best = x.entropy[i];
                for &j in touched.iter() {
                    best = best.min(given(j as usize));
                }
                // Disjoint pairs can pass the condition only when one side is a giant.
                if 2 * size > universe {
                    for j in (0..k_y).filter(|&j| overlap[j] == 0) {
                        best = best.min(given(j));
                    }
                } else {
                    for &j in y.giants.iter().filter(|&&j| overlap[j as usize] == 0) {
                        best = best.min(given(j as usize));
                    }
                }
                for &j in touched.iter() {
                    overlap[j as usize] = 0;
                }
                touched.clear();
                best
            },
        )
        .collect()
}

fn compare(x: &Cover, y: &Cover, index_len: usize, universe: usize) -> Result<OverlappingNmi> {
    let largest = x.communities.iter().chain(&y.communities).map(|m| m.len()).max().unwrap_or(0);
    let bits = BitsTable::new(universe, largest);
    let (x, y) = (IndexedCover::new(x, index_len, &bits), IndexedCover::new(y, index_len, &bits));
    let x_given_y = conditionals(&x, &y, &bits);
    let y_given_x = conditionals(&y, &x, &bits);
    let (entropy_x, entropy_y): (f64, f64) = (x.entropy.iter().sum(), y.entropy.iter().sum());
    let (conditional_x_given_y, conditional_y_given_x): (f64, f64) = (x_given_y.iter().sum(), y_given_x.iter().sum());
    let normaliser = entropy_x.max(entropy_y);
    let nmi_max = if normaliser == 0.0 {
        1.0
    } else {
        let mutual = (entropy_x - conditional_x_given_y + entropy_y - conditional_y_given_x) / 2.0;
        (mutual / normaliser).clamp(0.0, 1.0)
    };
    let normalised_mean = |conditional: &[f64], cover: &IndexedCover| {
        let total: f64 = conditional
            .iter()
            .zip(&cover.communities)
            .zip(&cover.entropy)
            .map(|((&h, members), &hx)| if members.len() == universe { 1.0 } else { h / hx })
            .sum();
        total / conditional.len() as f64
    };
    let lfk = (1.0 - (normalised_mean(&x_given_y, &x) + normalised_mean(&y_given_x, &y)) / 2.0).clamp(0.0, 1.0);
    Ok(OverlappingNmi {
        nmi_max,
        lfk,
        universe: universe as u64,
        communities_x: x.communities.len(),
        communities_y: y.communities.len(),
        entropy_x,
        entropy_y,
        conditional_x_given_y,
        conditional_y_given_x,
    })
}
