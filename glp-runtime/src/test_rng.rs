//! The unit tests' generator of test graphs and inputs: a 64-bit LCG (Knuth's MMIX
//! constants), deterministic from its seed, read from its high bits. Not the samplers' random
//! numbers (those are Philox streams, `crate::random`).

/// A 64-bit linear congruential generator: the state after each step is `state * a + c`.
pub(crate) struct Lcg(pub u64);

impl Lcg {
    /// The next state.
    fn step(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0
    }

    /// A value in `0..n` (`n > 0`) from the state's top 31 bits (slightly biased: for tests).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        (self.step() >> 33) % n
    }

    /// [`Lcg::below`] for a `u32` bound.
    pub(crate) fn below_u32(&mut self, n: u32) -> u32 {
        self.below(u64::from(n)) as u32
    }

    /// A 32-bit word: the state's high half.
    pub(crate) fn word(&mut self) -> u32 {
        (self.step() >> 32) as u32
    }
}
