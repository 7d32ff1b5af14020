//! Seeded bijections of `0..n`, used to scramble vertex ids.
//!
//! Generators build graphs in an order that leaks structure into vertex ids (R-MAT puts the
//! heaviest vertices at small ids; the planted partition lays communities out as contiguous
//! ranges). Graph500 therefore scrambles ids with a pseudo-random permutation, and so do we.
//!
//! [`PowerOfTwoBijection`] permutes `0..2^bits` with four rounds of
//! `x = x * m_r + a_r (mod 2^bits); x ^= x >> ceil(bits / 2)`, with odd multipliers `m_r` and
//! offsets `a_r` drawn from Philox. Each step is invertible modulo `2^bits` (odd multipliers
//! have inverses; an xor-shift by `s >= 1` is undone by xoring the shifted value back in until
//! the shift passes the width), so the whole map is a bijection with an explicit inverse. The
//! multiplication carries low bits upward and the shift brings high bits back down, so after
//! four rounds every output bit depends on every input bit. It is not a cryptographic
//! permutation and need not be one: it only has to decorrelate ids from generation order.
//!
//! [`Bijection`] permutes an arbitrary range `0..n` by cycle walking (Black and Rogaway,
//! "Ciphers with arbitrary finite domains", 2002): apply the bijection of the next power of two
//! until the value falls below `n`. Restricting a permutation of a superset this way is a
//! permutation of `0..n`; since `2^bits < 2n`, fewer than two steps are needed on average.
//! Everything is O(1) memory and evaluated independently per element, hence in parallel.

use crate::random::Stream;

/// Number of multiply / xor-shift rounds.
const ROUNDS: usize = 4;

/// A seeded permutation of `0..2^bits` (`bits <= 64`), with its inverse.
#[derive(Debug, Clone)]
pub struct PowerOfTwoBijection {
    bits: u32,
    mask: u64,
    shift: u32,
    multipliers: [u64; ROUNDS],
    inverse_multipliers: [u64; ROUNDS],
    offsets: [u64; ROUNDS],
}

impl PowerOfTwoBijection {
    /// The permutation of `0..2^bits` chosen by `(seed, stream)`.
    ///
    /// Its parameters are the first `2 * ROUNDS` `u64` draws of [`Stream::new(seed, stream)`]:
    /// multiplier `r` is draw `2r` with its low bit set, offset `r` is draw `2r + 1`.
    ///
    /// # Panics
    /// If `bits > 64` (a caller bug: every caller derives `bits` from a `u64` range).
    pub fn new(bits: u32, seed: u64, stream: u64) -> Self {
        assert!(bits <= 64, "a bijection of 0..2^{bits} does not fit in u64");
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let mut draws = Stream::new(seed, stream);
        let mut multipliers = [0u64; ROUNDS];
        let mut offsets = [0u64; ROUNDS];
        for r in 0..ROUNDS {
            multipliers[r] = draws.next_u64() | 1;
            offsets[r] = draws.next_u64();
        }
        let inverse_multipliers = multipliers.map(inverse_mod_2_64);
        PowerOfTwoBijection { bits, mask, shift: bits.div_ceil(2).max(1), multipliers, inverse_multipliers, offsets }
    }

    /// Width of the domain: the permutation acts on `0..2^bits`.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Image of `x` (`x < 2^bits`).
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        debug_assert!(x & !self.mask == 0);
        let mut x = x;
        for r in 0..ROUNDS {
            x = x.wrapping_mul(self.multipliers[r]).wrapping_add(self.offsets[r]) & self.mask;
            x ^= x >> self.shift;
        }
        x
    }

    /// Preimage of `y` (`y < 2^bits`): `apply(invert(y)) == y`.
    #[inline]
    pub fn invert(&self, y: u64) -> u64 {
        debug_assert!(y & !self.mask == 0);
        let mut x = y;
        for r in (0..ROUNDS).rev() {
            x = undo_xor_shift(x, self.shift, self.bits);
            x = x.wrapping_sub(self.offsets[r]).wrapping_mul(self.inverse_multipliers[r]) & self.mask;
        }
        x
    }
}

/// Inverse of `y = x ^ (x >> shift)` on `bits`-bit values.
#[inline]
fn undo_xor_shift(y: u64, shift: u32, bits: u32) -> u64 {
    let mut x = y;
    let mut s = shift;
    while s < bits {
        x ^= y >> s;
        s += shift;
    }
    x
}

/// Multiplicative inverse of an odd `m` modulo 2^64 (Newton's iteration: each step doubles
/// the number of correct low bits; `m` itself is correct to 3 bits since `m * m = 1 mod 8`).
fn inverse_mod_2_64(m: u64) -> u64 {
    let mut inv = m;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(inv)));
    }
    debug_assert_eq!(m.wrapping_mul(inv), 1);
    inv
}

/// A seeded permutation of `0..n` (cycle walking over a [`PowerOfTwoBijection`]).
#[derive(Debug, Clone)]
pub struct Bijection {
    len: u64,
    inner: PowerOfTwoBijection,
}

impl Bijection {
    /// The permutation of `0..len` chosen by `(seed, stream)`.
    pub fn new(len: u64, seed: u64, stream: u64) -> Self {
        let bits = if len <= 1 { 0 } else { 64 - (len - 1).leading_zeros() };
        Bijection { len, inner: PowerOfTwoBijection::new(bits, seed, stream) }
    }

    /// Size of the domain.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the domain is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Image of `x < len`.
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        debug_assert!(x < self.len);
        let mut y = self.inner.apply(x);
        while y >= self.len {
            y = self.inner.apply(y);
        }
        y
    }

    /// Preimage of `y < len`.
    #[inline]
    pub fn invert(&self, y: u64) -> u64 {
        debug_assert!(y < self.len);
        let mut x = self.inner.invert(y);
        while x >= self.len {
            x = self.inner.invert(x);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_of_odd_numbers() {
        for m in [1u64, 3, 0x9E37_79B9_7F4A_7C15, u64::MAX] {
            assert_eq!(m.wrapping_mul(inverse_mod_2_64(m)), 1);
        }
    }

    #[test]
    fn xor_shift_is_undone() {
        for bits in 1..=64u32 {
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let shift = bits.div_ceil(2).max(1);
            for x in [0u64, 1, 0x1234_5678_9abc_def0, u64::MAX] {
                let x = x & mask;
                assert_eq!(undo_xor_shift(x ^ (x >> shift), shift, bits), x);
            }
        }
    }
}
