//! The random cycle the dependent chains follow, built on the device in one pass.
//!
//! A chain (`i = next[i]`) must never fall into a short loop, or it would read the same few
//! words from cache after a while; so `next` holds one cycle through all `n` words. Sattolo's
//! algorithm draws such a cycle uniformly, but on the host, one cache-missing swap after
//! another: seconds for 512 MiB and tens of seconds for 4 GiB, plus the upload. The probe
//! builds the cycle on the device instead, from a keyed permutation `p` of `0..n`
//! ([`Permutation`], `n = 2^bits`): the cycle visits `p(0), p(1), ..., p(n - 1)` and returns
//! to `p(0)`, that is `next[p(j)] = p(j + 1 mod n)`. It is one cycle through every word
//! whatever `p` is, so a chain starting anywhere never repeats a word before `n` steps, and
//! every `next[p(j)]` is written by one thread on its own: 4 GiB is one pass of scattered
//! writes (`glp_ceiling_cycle` in `ceiling.cu`, the device twin of [`Permutation::apply`]).
//!
//! `p` is [`ROUNDS`] rounds of `x -> x * m mod 2^bits` (`m` odd), `x -> x ^ (x >> s)`
//! (`s = ceil(bits / 2)`) and `x -> x + c mod 2^bits`: each a bijection of `bits`-bit
//! integers, so their composition is one; `m` and `c` come from a seed (Philox). It is not a
//! cryptographic permutation and needs not be one: what the probe needs is that successive
//! words of a chain land in unrelated cache lines and DRAM pages, as they would in a uniform
//! random cycle, which the tests check. An affine map (`i -> a * i + b mod n`, a full cycle
//! for the right `a` and `b`) would be cheaper still, but its successive positions differ by
//! one stride pattern whose low bits repeat with short periods: regular, not random, access.
//!
//! Independent reads need no cycle at all: `glp_ceiling_gather` hashes its positions.

use crate::random::Stream;

/// Rounds of the permutation (`GLP_CEILING_ROUNDS` in `ceiling.cu`).
pub const ROUNDS: usize = 3;

/// A keyed permutation of `0..2^bits` (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    bits: u32,
    /// Odd multipliers, one per round.
    mul: [u64; ROUNDS],
    /// Addends, one per round.
    add: [u64; ROUNDS],
}

impl Permutation {
    /// The permutation of `0..2^bits` keyed by `seed`; `bits` is at most 32.
    pub fn new(bits: u32, seed: u64) -> Permutation {
        assert!(bits <= 32, "a permutation of 2^{bits} words: at most 2^32 are addressed by 32-bit words");
        let mut stream = Stream::new(seed, 0);
        let mul = std::array::from_fn(|_| stream.next_u64() | 1);
        let add = std::array::from_fn(|_| stream.next_u64());
        Permutation { bits, mul, add }
    }

    /// `n = 2^bits`, the words permuted.
    pub fn words(&self) -> u64 {
        1 << self.bits
    }

    /// The image of `x` (in `0..n`).
    pub fn apply(&self, x: u64) -> u64 {
        let mask = self.words() - 1;
        let shift = self.bits.div_ceil(2);
        let mut x = x & mask;
        for round in 0..ROUNDS {
            x = x.wrapping_mul(self.mul[round]) & mask;
            x ^= x >> shift;
            x = x.wrapping_add(self.add[round]) & mask;
        }
        x
    }

    /// The `GlpCeilingRounds` struct of `ceiling.cu`, passed to `glp_ceiling_cycle` by value:
    /// the multipliers, then the addends, each a little-endian `u64`.
    pub fn kernel_bytes(&self) -> Vec<u8> {
        self.mul.iter().chain(&self.add).flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The cycle on the host: `next[p(j)] = p(j + 1 mod n)`, what `glp_ceiling_cycle`
    /// writes on the device.
    pub fn cycle(&self) -> Vec<u32> {
        let n = self.words();
        let mut next = vec![0u32; n as usize];
        for j in 0..n {
            next[self.apply(j) as usize] = self.apply((j + 1) % n) as u32;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permutation_is_a_bijection_of_every_width() {
        for bits in 0..=16 {
            for seed in [1, 0x5EED] {
                let p = Permutation::new(bits, seed);
                let mut hit = vec![false; p.words() as usize];
                for x in 0..p.words() {
                    let y = p.apply(x);
                    assert!(y < p.words(), "bits {bits}: p({x}) = {y} is out of range");
                    assert!(!hit[y as usize], "bits {bits}, seed {seed}: {y} is the image of two words");
                    hit[y as usize] = true;
                }
            }
        }
    }

    #[test]
    fn the_cycle_visits_every_word_once_before_it_returns() {
        for bits in 0..=16 {
            let next = Permutation::new(bits, 7).cycle();
            let n = next.len();
            let mut seen = vec![false; n];
            let mut at = 0u32;
            for step in 0..n {
                assert!(!seen[at as usize], "bits {bits}: word {at} visited again at step {step}: a short loop");
                seen[at as usize] = true;
                at = next[at as usize];
            }
            assert_eq!(at, 0, "bits {bits}: the cycle closes after n = {n} steps");
        }
    }

    /// Successive words of a chain fall in different 128-byte lines (32 words) and 2 MiB
    /// pages about as often as in a uniform random cycle: with 2^20 words, a step stays
    /// within 32 words with probability about 63 / 2^20 (about 63 of 2^20 steps), and within
    /// a page of 2^19 words half the time (the array is two pages).
    #[test]
    fn successive_words_of_the_cycle_are_scattered() {
        let bits = 20;
        let next = Permutation::new(bits, 0x5EED).cycle();
        let n = next.len() as u64;
        let (mut near, mut same_page, mut distance) = (0u64, 0u64, 0u64);
        let mut at = 0u32;
        for _ in 0..n {
            let to = next[at as usize];
            let d = u64::from(at.abs_diff(to));
            near += u64::from(d < 32);
            same_page += u64::from(at >> 19 == to >> 19);
            distance += d;
            at = to;
        }
        assert!(near < 200, "{near} of {n} steps stay within a cache line's reach");
        let half = n / 2;
        assert!(same_page.abs_diff(half) < half / 50, "{same_page} of {n} steps stay in their 2 MiB page");
        // The mean distance between two uniform points of 0..n is n / 3.
        let mean = distance as f64 / n as f64;
        assert!((mean / (n as f64 / 3.0) - 1.0).abs() < 0.01, "mean step {mean} for n = {n}");
    }

    #[test]
    fn the_kernel_struct_is_the_multipliers_then_the_addends() {
        let p = Permutation::new(10, 3);
        let bytes = p.kernel_bytes();
        assert_eq!(bytes.len(), 2 * ROUNDS * 8);
        let word = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap());
        for r in 0..ROUNDS {
            assert_eq!(word(r), p.mul[r]);
            assert_eq!(word(r) & 1, 1, "multiplier {r} is odd");
            assert_eq!(word(ROUNDS + r), p.add[r]);
        }
    }
}
