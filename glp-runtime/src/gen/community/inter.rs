//! Edges between communities: a configuration model over every slot's external stubs.
//!
//! External degrees are realised exactly, never exceeded, so a vertex's final degree is at
//! most the degree it drew (and `max_degree` holds for the final, symmetrised graph). An
//! earlier design let each slot send half of its external stubs to targets drawn in
//! proportion to external degree and receive "about as many": the receipts were random, and a
//! vertex of degree 100 could end with 111.
//!
//! The external stubs, slot `s` owning `external[s]` of them (`W` in all, numbered in slot
//! order), are shuffled by the seeded [`Bijection`] of `0..W` of stream
//! `stream::id(INTER_COMMUNITY, 0)`, and edge `j` joins the stubs the bijection maps `2j` and
//! `2j + 1` to (when `W` is odd, the stub of `W - 1` stays unpaired: one slot loses one
//! external edge). A stub's slot is found in O(1) from the prefix sums of the external
//! degrees and a guide table (Chen and Asau 1974): entry `j` holds the slot containing stub
//! `floor(j * W / n)`, so a lookup lands one or two slots from its answer on average. Every
//! edge is computed on its own, in parallel, and lands at its index.
//!
//! A pair whose two stubs belong to the same community (a self pair included) is not an
//! external edge. Such pairs are repaired in one sequential pass in edge order (stream
//! `stream::id(INTER_COMMUNITY, 1)`), as LFR rewires: for a pair `(u, v)` inside community
//! `C`, draw a random edge `(x, y)` (and a random orientation) with neither endpoint in `C`
//! and replace both by `(u, y), (x, v)`, which keeps every degree and makes both edges
//! external (the drawn edge may itself be an unrepaired pair of another community: it is
//! repaired too). Their expected share is the sum over communities of the squared share of
//! external stubs, well below 1% with the default sizes. A pair that finds no partner in
//! [`REPAIR_ATTEMPTS`] tries (only when one community holds most external stubs) stays an
//! internal edge; repeated pairs (about `k_u k_v / W` per pair) are collapsed when the graph
//! is built. Both only lower degrees.

use super::super::bijection::Bijection;
use super::super::stream;
use super::layout::Layout;
use crate::random::Stream;
use rayon::prelude::*;

/// Tries to find a partner edge for one pair inside a community.
pub(super) const REPAIR_ATTEMPTS: usize = 100;

/// The slot owning each external stub: prefix sums of the external degrees and the guide
/// table over them.
pub(super) struct StubSlots {
    /// `prefix[t]` = sum of external degrees of slots `0..t`; length `n + 1`.
    prefix: Vec<u64>,
    /// `guide[j]` = the slot `t` with `prefix[t] <= floor(j * total / n) < prefix[t + 1]`.
    guide: Vec<u32>,
}

impl StubSlots {
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
        StubSlots { prefix, guide }
    }

    /// Number of stubs, `W`.
    pub fn total(&self) -> u64 {
        *self.prefix.last().unwrap_or(&0)
    }

    /// Number of edges [`StubSlots::generate`] writes: `floor(W / 2)`.
    pub fn num_edges(&self) -> usize {
        (self.total() / 2) as usize
    }

    /// The slot owning stub `x < W`.
    #[inline]
    fn slot_of(&self, x: u64) -> u32 {
        let n = self.guide.len() as u128;
        let j = (x as u128 * n / self.total() as u128) as usize;
        let mut t = self.guide[j] as usize;
        while self.prefix[t + 1] <= x {
            t += 1;
        }
        t as u32
    }

    /// Writes the [`StubSlots::num_edges`] edges between communities into `sources` and
    /// `targets` (of that length), as slots.
    pub fn generate(&self, layout: &Layout, seed: u64, sources: &mut [u32], targets: &mut [u32]) {
        debug_assert_eq!(sources.len(), self.num_edges());
        if sources.is_empty() {
            return;
        }
        let shuffle = Bijection::new(self.total(), seed, stream::id(stream::INTER_COMMUNITY, 0));
        sources.par_iter_mut().zip(targets.par_iter_mut()).enumerate().for_each(|(j, (s, t))| {
            *s = self.slot_of(shuffle.apply(2 * j as u64));
            *t = self.slot_of(shuffle.apply(2 * j as u64 + 1));
        });
        repair(layout, seed, sources, targets);
    }
}

/// Turns the pairs inside one community into external edges by swaps (see the module docs).
fn repair(layout: &Layout, seed: u64, sources: &mut [u32], targets: &mut [u32]) {
    let community = |slot: u32| layout.community_of(slot as usize);
    let inside: Vec<usize> =
        (0..sources.len()).into_par_iter().filter(|&e| community(sources[e]) == community(targets[e])).collect();
    let mut draws = Stream::new(seed, stream::id(stream::INTER_COMMUNITY, 1));
    let m = sources.len() as u64;
    for e in inside {
        let (u, v) = (sources[e], targets[e]);
        let own = community(u);
        if community(v) != own {
            continue; // repaired as the partner of an earlier pair
        }
        for _ in 0..REPAIR_ATTEMPTS {
            let other = draws.next_below_u64(m) as usize;
            let (mut x, mut y) = (sources[other], targets[other]);
            if draws.next_bool() {
                std::mem::swap(&mut x, &mut y);
            }
            if community(x) != own && community(y) != own {
                (sources[e], targets[e]) = (u, y);
                (sources[other], targets[other]) = (x, v);
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stub_is_used_once_and_pairs_leave_their_community() {
        // Eight communities of 4 slots; external degrees 0..=5 cyclically (W = 76, even). No
        // community holds more than 14 of the 76 stubs, so a pair inside one finds a partner
        // edge outside it with probability above (62/76)^2 per try.
        let layout = Layout { sizes: vec![4; 8], starts: (0..=8).map(|c| 4 * c).collect() };
        let external: Vec<u32> = (0..32).map(|s| s % 6).collect();
        let mut prefix = vec![0u64];
        for &k in &external {
            prefix.push(prefix.last().unwrap() + k as u64);
        }
        let stubs = StubSlots::new(prefix);
        assert_eq!((stubs.total(), stubs.num_edges()), (76, 38));
        for seed in 0..50 {
            let (mut s, mut t) = (vec![0; 38], vec![0; 38]);
            stubs.generate(&layout, seed, &mut s, &mut t);
            let mut degree = vec![0u32; 32];
            for (&a, &b) in s.iter().zip(&t) {
                degree[a as usize] += 1;
                degree[b as usize] += 1;
            }
            assert_eq!(degree, external, "seed {seed}: each slot keeps exactly its external degree");
            let inside = s.iter().zip(&t).filter(|(&a, &b)| a / 4 == b / 4).count();
            assert_eq!(inside, 0, "seed {seed}: a pair inside a community was left");
        }
    }

    #[test]
    fn stub_lookup_matches_the_prefix_sums() {
        let external = [3u32, 0, 0, 7, 1, 0, 2];
        let mut prefix = vec![0u64];
        for &k in &external {
            prefix.push(prefix.last().unwrap() + k as u64);
        }
        let stubs = StubSlots::new(prefix);
        let expected: Vec<u32> =
            external.iter().enumerate().flat_map(|(s, &k)| std::iter::repeat_n(s as u32, k as usize)).collect();
        let got: Vec<u32> = (0..stubs.total()).map(|x| stubs.slot_of(x)).collect();
        assert_eq!(got, expected);
    }
}
