//! Edges between communities: degree-proportional targets outside the source's community.
//!
//! Slot `s` with external degree `k` sends `floor(k / 2)` edges, plus one more when `k` is
//! odd and a coin says so (word 0 of stream `stream::id(INTER_COMMUNITY, s)`, top bit), so it
//! sends `k / 2` on average and receives about as many: each edge picks its target with
//! probability proportional to external degree among the slots of *other* communities. The
//! pick is exact, with no rejection: with `W` the prefix sums of external degrees over slots
//! and `[W_lo, W_hi)` the source community's share, draw `x` uniform in
//! `0..W_total - (W_hi - W_lo)`, skip the own share (`x += W_hi - W_lo` when `x >= W_lo`), and
//! take the slot `t` with `W[t] <= x < W[t + 1]`. The search starts from a guide table
//! (Chen and Asau 1974): entry `j` holds the slot containing position
//! `floor(j * W_total / n)`, so a draw lands one or two slots from its answer on average and
//! the lookup costs O(1) memory accesses instead of a binary search over all slots.
//!
//! Repeated pairs (both endpoints drawing each other) are rare, about `k_u k_v / W_total` per
//! pair, and are collapsed when the graph is built.

use super::super::stream;
use crate::random::Stream;
use rayon::prelude::*;

/// Number of edges slot `s` with external degree `external` sends.
#[inline]
pub(super) fn emitted(s: usize, external: u32, seed: u64) -> u32 {
    emission_count(&mut Stream::new(seed, stream::id(stream::INTER_COMMUNITY, s as u64)), external)
}

/// `external / 2`, plus the coin of the stream's first word when `external` is odd.
#[inline]
fn emission_count(draws: &mut Stream, external: u32) -> u32 {
    let coin = draws.next_u32() >> 31;
    external / 2 + (external & 1 & coin)
}

/// Prefix sums of the external degrees and the guide table over them.
pub(super) struct TargetSampler {
    /// `prefix[t]` = sum of external degrees of slots `0..t`; length `n + 1`.
    prefix: Vec<u64>,
    /// `guide[j]` = the slot `t` with `prefix[t] <= floor(j * total / n) < prefix[t + 1]`.
    guide: Vec<u32>,
}

impl TargetSampler {
    pub fn new(prefix: Vec<u64>) -> Self {
        let n = prefix.len() - 1;
        let total = prefix[n];
        let guide = if total == 0 {
            Vec::new()
        } else {
            (0..n)
                .into_par_iter()
                .map(|j| {
                    let position = (j as u128 * total as u128 / n as u128) as u64;
                    // Slots whose range starts at or before `position`, minus one.
                    (prefix[1..].partition_point(|&w| w <= position)) as u32
                })
                .collect()
        };
        TargetSampler { prefix, guide }
    }

    pub fn total(&self) -> u64 {
        *self.prefix.last().unwrap_or(&0)
    }

    /// The slot containing weight position `x < total`.
    #[inline]
    fn slot_at(&self, x: u64) -> u32 {
        let n = self.guide.len() as u128;
        let j = (x as u128 * n / self.total() as u128) as usize;
        let mut t = self.guide[j] as usize;
        while self.prefix[t + 1] <= x {
            t += 1;
        }
        t as u32
    }

    /// Writes the edges sent by the slots `slots` of one community into `sources`/`targets`
    /// (lengths: the sum of their [`emitted`] counts). With no external weight outside the
    /// community, an edge becomes a self loop, which the build drops.
    pub fn generate(
        &self,
        slots: std::ops::Range<usize>,
        external: &[u32],
        seed: u64,
        sources: &mut [u32],
        targets: &mut [u32],
    ) {
        let (own_lo, own_hi) = (self.prefix[slots.start], self.prefix[slots.end]);
        let own = own_hi - own_lo;
        let others = self.total() - own;
        let mut k = 0;
        for s in slots {
            let mut draws = Stream::new(seed, stream::id(stream::INTER_COMMUNITY, s as u64));
            let count = emission_count(&mut draws, external[s]);
            for _ in 0..count {
                sources[k] = s as u32;
                targets[k] = if others == 0 {
                    s as u32
                } else {
                    let mut x = draws.next_below_u64(others);
                    if x >= own_lo {
                        x += own;
                    }
                    self.slot_at(x)
                };
                k += 1;
            }
        }
        debug_assert_eq!(k, sources.len());
    }
}
