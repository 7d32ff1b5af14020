//! Counter-based random numbers: Philox4x32-10, shared bit for bit by the CPU and GPU code.
//!
//! Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2,
//! 3", SC 2011; the Random123 library) is a keyed bijection of 128-bit counters: the `n`-th
//! random block is `philox(counter = n, key = seed)`, computed from nothing but its inputs.
//! A thread (CPU worker or CUDA thread) that knows which item it works on can therefore draw
//! that item's numbers directly, and the result depends neither on the number of threads nor
//! on the order they run in. That is why glp uses it everywhere randomness reaches a result
//! (generators, samplers, randomised tie breaking): the GPU kernels implement the same
//! function and draw the same numbers, so CPU and GPU results can be compared exactly.
//!
//! # The mapping from (seed, stream, counter) to Philox inputs
//!
//! This is the contract the CUDA side copies; changing it changes every generated graph.
//!
//! - key words: `key = [seed as u32, (seed >> 32) as u32]` (low word first);
//! - counter words: `ctr = [counter as u32, (counter >> 32) as u32, stream as u32,
//!   (stream >> 32) as u32]`;
//! - the block is `philox4x32_10(ctr, key)`, four `u32` words `w[0..4]`.
//!
//! A `stream` names an independent sequence (a purpose and an item, e.g. "the edges of vertex
//! 17"); `counter` numbers the 128-bit blocks inside it. Each (seed, stream) pair has 2^64
//! blocks, and distinct (stream, counter) pairs never share a block.
//!
//! # Drawing values: the [`Stream`] recipe
//!
//! A [`Stream`] for `(seed, stream)` starting at block `c0` hands out the `u32` words
//! `block(c0)[0], block(c0)[1], block(c0)[2], block(c0)[3], block(c0 + 1)[0], ...` in that
//! order. Every other draw is made of whole words taken in that order:
//!
//! - `u32`: the next word;
//! - `u64`: two words, the first is the low half: `lo | (hi << 32)`;
//! - `f64` in `[0, 1)`: a `u64` `x`, then `(x >> 11) as f64 * 2^-53` (the 53 high bits, so every
//!   value is a multiple of 2^-53 and exactly representable; 1.0 is never returned);
//! - `f32` in `[0, 1)`: a `u32` `x`, then `(x >> 8) as f32 * 2^-24`;
//! - an integer in `0..bound` without modulo bias: Lemire's method ("Fast random integer
//!   generation in an interval", ACM TOMACS 2019). For `u32`: draw `x`, form the 64-bit
//!   product `m = x * bound`, `l = m mod 2^32`; if `l < bound`, compute the threshold
//!   `t = (2^32 - bound) mod bound` and, while `l < t`, draw a new `x` and recompute `m` and `l`;
//!   the result is `m >> 32`. The `u64` version is the same with `u64` draws and 128-bit
//!   products. Rejection happens with probability `< bound / 2^32` (resp. `2^64`), so the
//!   expected cost is one draw; each value of `0..bound` is exactly equally likely.
//!
//! The single step of the `u32` method, [`lemire_step`], is a pure function of one word, so its
//! exactness can be checked over every input word (a full cycle of a narrower word, see its
//! docs); [`Stream::next_below_u32`] and [`Stream::next_below`] loop over it.
//!
//! # Keyed streams of the samplers
//!
//! A sampler's random numbers are keyed by what they decide, never by who computes them:
//! [`sample_stream`]`(seed, sample, step, lane)` is the [`Stream`] of `(seed, stream = sample |
//! step << 32)` starting at block `lane << 32`. Every (sample, step, lane) therefore owns 2^32
//! blocks (2^34 words; a lane that used more would run into the next lane's blocks, which no
//! sampler comes near), and any engine (a CPU thread, a CUDA thread, the interpreter) that
//! replays the same draws in the same order gets the same numbers.
//!
//! A draw can span two blocks: a `u64` drawn after an odd number of `u32` words takes the
//! last word of one block and the first word of the next. Nothing is ever skipped or
//! realigned, so any sequence of draws is reproduced by replaying the same calls.

/// Philox4x32 round multipliers (Random123 `PHILOX_M4x32_0`, `PHILOX_M4x32_1`).
pub const PHILOX_M4X32: [u32; 2] = [0xD251_1F53, 0xCD9E_8D57];

/// Philox4x32 key schedule increments (Random123 `PHILOX_W32_0` = golden ratio,
/// `PHILOX_W32_1` = sqrt(3) - 1, as 32-bit fractions).
pub const PHILOX_W32: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];

/// Philox4x32 with `rounds` rounds; the standard generator is [`philox4x32_10`].
///
/// Random123 publishes known answers for 7 and 10 rounds; this general form lets the tests
/// check both. Round `r` (from 0) uses the key bumped `r` times by [`PHILOX_W32`].
///
/// Always inlined, so that with a constant `rounds` the rounds are unrolled: left out of line
/// (the compiler's choice under `#[inline]`), [`Stream`]'s refill ran them as a loop with a
/// branch per round, 13% of node2vec's time on the CPU.
#[inline(always)]
pub fn philox4x32(counter: [u32; 4], key: [u32; 2], rounds: u32) -> [u32; 4] {
    let mut ctr = counter;
    let mut key = key;
    for r in 0..rounds {
        if r > 0 {
            key[0] = key[0].wrapping_add(PHILOX_W32[0]);
            key[1] = key[1].wrapping_add(PHILOX_W32[1]);
        }
        ctr = philox_round(ctr, key);
    }
    ctr
}

/// The Philox4x32-10 block function: 10 rounds of [`philox4x32`].
#[inline(always)]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    philox4x32(counter, key, 10)
}

#[inline(always)]
fn philox_round(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let p0 = PHILOX_M4X32[0] as u64 * ctr[0] as u64;
    let p1 = PHILOX_M4X32[1] as u64 * ctr[2] as u64;
    let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
    let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
    [hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0]
}

/// Blocks computed side by side ([`sample_streams`], [`LaneBlocks`]): one 512-bit vector of
/// `u32` words.
pub const FILL_WIDTH: usize = 16;

/// [`FILL_WIDTH`] Philox4x32-10 evaluations side by side, word-major (`counter[w][i]` is word
/// `w` of evaluation `i`), so that each round is the same few operations on whole vectors.
#[derive(Default)]
struct PhiloxLanes {
    counter: [[u32; FILL_WIDTH]; 4],
    key: [[u32; FILL_WIDTH]; 2],
}

impl PhiloxLanes {
    /// Sets lane `i`'s counter and key words.
    #[inline(always)]
    fn set(&mut self, i: usize, counter: [u32; 4], key: [u32; 2]) {
        for (word, value) in self.counter.iter_mut().zip(counter) {
            word[i] = value;
        }
        for (word, value) in self.key.iter_mut().zip(key) {
            word[i] = value;
        }
    }

    /// Lane `i`'s four words (its block, after [`Self::blocks`]).
    #[inline(always)]
    fn lane(&self, i: usize) -> [u32; 4] {
        [self.counter[0][i], self.counter[1][i], self.counter[2][i], self.counter[3][i]]
    }

    /// Replaces every counter by its block: [`philox4x32_10`] of each (counter, key), with the
    /// widest vector instructions the CPU has (checked once, then a cached flag).
    fn blocks(&mut self) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has the feature the function is compiled for.
                unsafe { self.blocks_avx512() };
                return;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: as above.
                unsafe { self.blocks_avx2() };
                return;
            }
        }
        self.blocks_portable();
    }

    /// [`Self::blocks_portable`] on 512-bit vectors: the sixteen lanes in one register each
    /// word (the compiler's vectorisation took about as many instructions as the DeepWalk
    /// step that used its words). A round is fourteen instructions: the four 32 x 32 -> 64-bit
    /// products (two of them after a shift brings the odd words down), each pair's high and
    /// low words gathered by one masked shuffle each, the two three-way XORs as one
    /// ternary-logic instruction each, the two key increments (it was twenty with
    /// shift-and-blend gathers and two-step XORs).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn blocks_avx512(&mut self) {
        use std::arch::x86_64::*;
        /// The high and low words of `a * m` in each 32-bit lane (`m` in the low word of each
        /// 64-bit lane): the products of the even lanes and of the odd lanes (shifted down),
        /// each 64 bits wide; the high words are the odd words of the even products and of the
        /// odd products, the low words the even ones.
        #[inline(always)]
        fn mul_hi_lo(a: __m512i, m: __m512i) -> (__m512i, __m512i) {
            const EVEN: __mmask16 = 0b0101_0101_0101_0101;
            const ODD: __mmask16 = !EVEN;
            // SAFETY (of the intrinsics): AVX-512F, the enclosing function's target feature.
            unsafe {
                let even = _mm512_mul_epu32(a, m);
                let odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(a), m);
                // Word 2j of `hi` is word 2j + 1 of `even` (words 1, 1, 3, 3 of each 128 bits),
                // word 2j + 1 that of `odd`; word 2j + 1 of `lo` is word 2j of `odd`.
                let hi = _mm512_mask_shuffle_epi32::<_MM_PERM_DDBB>(odd, EVEN, even);
                let lo = _mm512_mask_shuffle_epi32::<_MM_PERM_CCAA>(even, ODD, odd);
                (hi, lo)
            }
        }
        /// `a ^ b ^ c` in one instruction (truth table 0x96).
        #[inline(always)]
        fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
            // SAFETY: as above.
            unsafe { _mm512_ternarylogic_epi32::<0x96>(a, b, c) }
        }
        let m0 = _mm512_set1_epi64(PHILOX_M4X32[0] as i64);
        let m1 = _mm512_set1_epi64(PHILOX_M4X32[1] as i64);
        let w0 = _mm512_set1_epi32(PHILOX_W32[0] as i32);
        let w1 = _mm512_set1_epi32(PHILOX_W32[1] as i32);
        // SAFETY: each load and store covers one whole 16-word array.
        let load = |words: &[u32; FILL_WIDTH]| unsafe { _mm512_loadu_si512(words.as_ptr().cast()) };
        let [mut c0, mut c1, mut c2, mut c3] = self.counter.each_ref().map(load);
        let [mut k0, mut k1] = self.key.each_ref().map(load);
        for round in 0..10 {
            if round > 0 {
                k0 = _mm512_add_epi32(k0, w0);
                k1 = _mm512_add_epi32(k1, w1);
            }
            let (hi0, lo0) = mul_hi_lo(c0, m0);
            let (hi1, lo1) = mul_hi_lo(c2, m1);
            (c0, c1, c2, c3) = (xor3(hi1, c1, k0), lo1, xor3(hi0, c3, k1), lo0);
        }
        for (words, value) in self.counter.iter_mut().zip([c0, c1, c2, c3]) {
            // SAFETY: as the loads.
            unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), value) };
        }
    }

    /// [`Self::blocks_portable`] with AVX2 written out: the compiler's vectorisation of the
    /// 32 x 32 -> 64-bit products keeps the lanes in memory and shuffles them every round
    /// (about 150 instructions a round for 16 lanes); here eight lanes stay in registers and a
    /// product's high and low words are two multiplies, three shifts and two blends.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn blocks_avx2(&mut self) {
        use std::arch::x86_64::*;
        /// The high and low words of `a * m` in each 32-bit lane (`m` in the low word of each
        /// 64-bit lane): the even lanes' products, then the odd lanes' moved down.
        #[inline(always)]
        fn mul_hi_lo(a: __m256i, m: __m256i) -> (__m256i, __m256i) {
            // SAFETY (of the intrinsics): AVX2, the enclosing function's target feature.
            unsafe {
                let even = _mm256_mul_epu32(a, m);
                let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), m);
                let hi = _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(even), odd);
                let lo = _mm256_blend_epi32::<0b1010_1010>(even, _mm256_slli_epi64::<32>(odd));
                (hi, lo)
            }
        }
        const HALF: usize = FILL_WIDTH / 2;
        let m0 = _mm256_set1_epi64x(PHILOX_M4X32[0] as i64);
        let m1 = _mm256_set1_epi64x(PHILOX_M4X32[1] as i64);
        let w0 = _mm256_set1_epi32(PHILOX_W32[0] as i32);
        let w1 = _mm256_set1_epi32(PHILOX_W32[1] as i32);
        for at in [0, HALF] {
            // SAFETY: each load and store covers words at..at + 8 of a 16-word array.
            let load = |words: &[u32; FILL_WIDTH]| unsafe { _mm256_loadu_si256(words[at..].as_ptr().cast()) };
            let [mut c0, mut c1, mut c2, mut c3] = self.counter.each_ref().map(load);
            let [mut k0, mut k1] = self.key.each_ref().map(load);
            for round in 0..10 {
                if round > 0 {
                    k0 = _mm256_add_epi32(k0, w0);
                    k1 = _mm256_add_epi32(k1, w1);
                }
                let (hi0, lo0) = mul_hi_lo(c0, m0);
                let (hi1, lo1) = mul_hi_lo(c2, m1);
                (c0, c1, c2, c3) = (
                    _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0),
                    lo1,
                    _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1),
                    lo0,
                );
            }
            for (words, value) in self.counter.iter_mut().zip([c0, c1, c2, c3]) {
                // SAFETY: as the loads.
                unsafe { _mm256_storeu_si256(words[at..].as_mut_ptr().cast(), value) };
            }
        }
    }

    /// The rounds of [`philox4x32`] on every lane, written so that the compiler vectorises
    /// them for the target features of its caller.
    #[inline(always)]
    fn blocks_portable(&mut self) {
        let [c0, c1, c2, c3] = &mut self.counter;
        let [k0, k1] = &mut self.key;
        for round in 0..10 {
            if round > 0 {
                for i in 0..FILL_WIDTH {
                    k0[i] = k0[i].wrapping_add(PHILOX_W32[0]);
                    k1[i] = k1[i].wrapping_add(PHILOX_W32[1]);
                }
            }
            for i in 0..FILL_WIDTH {
                let p0 = PHILOX_M4X32[0] as u64 * c0[i] as u64;
                let p1 = PHILOX_M4X32[1] as u64 * c2[i] as u64;
                let (w1, w3) = (c1[i], c3[i]);
                c0[i] = (p1 >> 32) as u32 ^ w1 ^ k0[i];
                c1[i] = p1 as u32;
                c2[i] = (p0 >> 32) as u32 ^ w3 ^ k1[i];
                c3[i] = p0 as u32;
            }
        }
    }
}

/// Philox key words of `seed`: `[low 32 bits, high 32 bits]`.
#[inline]
pub fn key_words(seed: u64) -> [u32; 2] {
    [seed as u32, (seed >> 32) as u32]
}

/// Philox counter words of block `counter` of `stream`:
/// `[counter low, counter high, stream low, stream high]`.
#[inline]
pub fn counter_words(stream: u64, counter: u64) -> [u32; 4] {
    [counter as u32, (counter >> 32) as u32, stream as u32, (stream >> 32) as u32]
}

/// Block `counter` of `stream` under `seed`: `philox4x32_10(counter_words(stream, counter),
/// key_words(seed))`.
#[inline]
pub fn block(seed: u64, stream: u64, counter: u64) -> [u32; 4] {
    philox4x32_10(counter_words(stream, counter), key_words(seed))
}

/// `u64` made of two words, `lo` first: `lo | (hi << 32)`.
#[inline]
pub fn u64_from_words(lo: u32, hi: u32) -> u64 {
    lo as u64 | ((hi as u64) << 32)
}

/// `f64` in `[0, 1)` from 64 random bits: `(x >> 11) * 2^-53`.
#[inline]
pub fn unit_f64(x: u64) -> f64 {
    (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `f32` in `[0, 1)` from 32 random bits: `(x >> 8) * 2^-24`.
#[inline]
pub fn unit_f32(x: u32) -> f32 {
    (x >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// A sequential reader of the words of one (seed, stream), block after block.
///
/// Cheap to create (no block is computed until the first draw), so the usual pattern is one
/// `Stream` per item of work: `Stream::new(seed, stream_of(item))`.
#[derive(Debug, Clone)]
pub struct Stream {
    key: [u32; 2],
    stream: u64,
    /// Block the buffer will be refilled from.
    next_block: u64,
    buffer: Buffer,
    /// Words of `buffer` not yet handed out (0 = empty).
    left: u8,
}

/// The words of a [`Stream`]'s buffer not yet handed out, the next in the low 32 bits of
/// `low`, as two integers rather than an array indexed by the words used: a draw is then two
/// shifts of values the compiler keeps in registers, where an indexed array kept the stream
/// in memory, every draw a load and a store of the index (node2vec on com-DBLP, 2 threads,
/// alternated three times: 1276 -> 1148 ms, DeepWalk 386 -> 359 ms). Two `u64`, not one
/// `u128`: the `u128`'s 16-byte alignment made the walk engine's copies of a stream into its
/// views stall on store forwarding (PPR 268 -> 380 ms).
#[derive(Debug, Clone, Copy)]
struct Buffer {
    low: u64,
    high: u64,
}

impl Buffer {
    const EMPTY: Buffer = Buffer { low: 0, high: 0 };

    /// The words of a block, word 0 next.
    #[inline(always)]
    fn of(words: [u32; 4]) -> Buffer {
        Buffer { low: u64_from_words(words[0], words[1]), high: u64_from_words(words[2], words[3]) }
    }

    /// Block `counter` of `stream` under `key`: out of line (a refill is rare, and its ten
    /// rounds would grow every inlined draw), its inputs and result by value so that the
    /// stream that calls it need not live in memory.
    #[inline(never)]
    fn block(stream: u64, counter: u64, key: [u32; 2]) -> Buffer {
        Buffer::of(philox4x32_10(counter_words(stream, counter), key))
    }

    /// Hands out the next word.
    #[inline(always)]
    fn take(&mut self) -> u32 {
        let word = self.low as u32;
        self.low = self.low >> 32 | self.high << 32;
        self.high >>= 32;
        word
    }

    /// The word `k` places ahead (`k < 4`), without taking it.
    #[inline]
    fn ahead(&self, k: usize) -> u32 {
        let pair = if k < 2 { self.low } else { self.high };
        (pair >> (32 * (k % 2))) as u32
    }
}

impl Stream {
    /// The stream `(seed, stream)` from its first block (counter 0).
    #[inline]
    pub fn new(seed: u64, stream: u64) -> Self {
        Stream::at(seed, stream, 0)
    }

    /// The stream `(seed, stream)` starting at block `counter`.
    #[inline]
    pub fn at(seed: u64, stream: u64, counter: u64) -> Self {
        Stream { key: key_words(seed), stream, next_block: counter, buffer: Buffer::EMPTY, left: 0 }
    }

    /// The next `u32` word.
    #[inline(always)]
    pub fn next_u32(&mut self) -> u32 {
        if self.left == 0 {
            self.refill();
        }
        self.left -= 1;
        self.buffer.take()
    }

    /// The word `k` places ahead in the buffer drawn already (`None` past it), without
    /// taking it: what an engine predicts a hook's draw from, to prefetch what it will read.
    #[inline]
    pub fn peek(&self, k: usize) -> Option<u32> {
        (k < self.left as usize).then(|| self.buffer.ahead(k))
    }

    /// Draws the next block into the buffer ([`Buffer::block`], out of line).
    #[inline(always)]
    fn refill(&mut self) {
        self.buffer = Buffer::block(self.stream, self.next_block, self.key);
        self.next_block = self.next_block.wrapping_add(1);
        self.left = 4;
    }

    /// The next `u64`: two words, low half first.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let lo = self.next_u32();
        let hi = self.next_u32();
        u64_from_words(lo, hi)
    }

    /// The next `f64` in `[0, 1)` ([`unit_f64`] of the next `u64`).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        unit_f64(self.next_u64())
    }

    /// The next `f32` in `[0, 1)` ([`unit_f32`] of the next `u32`).
    #[inline]
    pub fn next_f32(&mut self) -> f32 {
        unit_f32(self.next_u32())
    }

    /// A uniform integer in `0..bound` (Lemire's method, no modulo bias).
    ///
    /// # Panics
    /// If `bound` is 0 (an empty range, a caller bug like `rand`'s `gen_range(0..0)`).
    #[inline]
    pub fn next_below_u32(&mut self, bound: u32) -> u32 {
        assert!(bound > 0, "next_below_u32: the range 0..0 is empty");
        loop {
            if let Some(value) = lemire_step(self.next_u32() as u64, bound as u64, 32) {
                return value as u32;
            }
        }
    }

    /// A uniform integer in `0..bound` for any `bound > 0`: [`Stream::next_below_u32`] when
    /// `bound` fits in a `u32` (one word per attempt), [`Stream::next_below_u64`] otherwise
    /// (two words per attempt). The samplers' draws of a neighbour among `degree` use it.
    ///
    /// # Panics
    /// If `bound` is 0.
    #[inline]
    pub fn next_below(&mut self, bound: u64) -> u64 {
        match u32::try_from(bound) {
            Ok(small) => self.next_below_u32(small) as u64,
            Err(_) => self.next_below_u64(bound),
        }
    }

    /// A uniform integer in `0..bound` (Lemire's method on 64-bit draws, no modulo bias).
    ///
    /// Always inlined: [`Stream::next_below`] reaches it (a row of 2^32 edges or more) in every
    /// hook's draw, and called out of line it takes the stream's address, which keeps the
    /// stream in memory, stored and loaded at each draw, in every caller the compiler did not
    /// inline it into (PPR's walk loop: 11-13% of its CPU time, `perf`).
    ///
    /// # Panics
    /// If `bound` is 0.
    #[inline(always)]
    pub fn next_below_u64(&mut self, bound: u64) -> u64 {
        assert!(bound > 0, "next_below_u64: the range 0..0 is empty");
        let mut m = self.next_u64() as u128 * bound as u128;
        if (m as u64) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (m as u64) < threshold {
                m = self.next_u64() as u128 * bound as u128;
            }
        }
        (m >> 64) as u64
    }

    /// A fair coin: the top bit of the next word.
    #[inline]
    pub fn next_bool(&mut self) -> bool {
        self.next_u32() >> 31 == 1
    }
}

/// One attempt of Lemire's method with `bits`-bit words (`1 <= bits <= 32`, `1 <= bound <=
/// 2^bits`): for a uniform word `word < 2^bits`, the value `(word * bound) >> bits` when the
/// low `bits` bits `l` of the product are at least `(2^bits - bound) mod bound`, `None` (draw
/// again) otherwise.
///
/// Exactly `2^bits mod bound` words are rejected and every value of `0..bound` is the result
/// of exactly `floor(2^bits / bound)` words, which is what makes the draw exact; the tests
/// check it over every word of narrower widths. [`Stream::next_below_u32`] is this with
/// `bits = 32`. The cheap test `l < bound` comes first because `l >= bound` implies
/// acceptance: the modulo is computed only for the rare candidates.
#[inline]
pub fn lemire_step(word: u64, bound: u64, bits: u32) -> Option<u64> {
    debug_assert!((1..=32).contains(&bits) && bound >= 1 && bound <= 1u64 << bits && word < 1u64 << bits);
    let mask = (1u64 << bits) - 1;
    let product = word * bound;
    let low = product & mask;
    if low < bound {
        let threshold = ((1u64 << bits) - bound) % bound;
        if low < threshold {
            return None;
        }
    }
    Some(product >> bits)
}

/// The stream of draws of one (sample, step, lane) of a sampler run under `seed` (see the
/// module docs): stream `sample | step << 32`, from block `lane << 32`.
#[inline]
pub fn sample_stream(seed: u64, sample: u32, step: u32, lane: u32) -> Stream {
    Stream::at(seed, sample_stream_id(sample, step), lane_block(lane))
}

/// The stream of a sampler run's (sample, step): `sample | step << 32`.
#[inline]
fn sample_stream_id(sample: u32, step: u32) -> u64 {
    sample as u64 | ((step as u64) << 32)
}

/// The first block of a lane's stream: `lane << 32`.
#[inline]
fn lane_block(lane: u32) -> u64 {
    (lane as u64) << 32
}

/// The streams of [`FILL_WIDTH`] consecutive lanes of one (seed, sample, step), their first
/// blocks computed side by side: a sampling step whose draws each take a lane of their own
/// (k-hop's fan-outs) gets its streams from here, without building and filling a [`Stream`]
/// per lane first. Fewer lanes at the end of the lane range (past `u32::MAX`).
#[derive(Debug, Clone)]
pub struct LaneBlocks {
    key: [u32; 2],
    stream: u64,
    /// The lane of `words[_][0]`, and how many lanes are held.
    first: u32,
    len: u32,
    /// Word-major: `words[w][i]` is word `w` of lane `first + i`'s first block.
    words: [[u32; FILL_WIDTH]; 4],
}

impl LaneBlocks {
    /// The first blocks of lanes `first..` of (`seed`, `sample`, `step`).
    pub fn new(seed: u64, sample: u32, step: u32, first: u32) -> Self {
        let key = key_words(seed);
        let stream = sample_stream_id(sample, step);
        let len = (u64::from(u32::MAX) - u64::from(first) + 1).min(FILL_WIDTH as u64) as u32;
        let mut lanes = PhiloxLanes::default();
        for i in 0..FILL_WIDTH {
            lanes.set(i, counter_words(stream, lane_block(first.wrapping_add(i as u32))), key);
        }
        lanes.blocks();
        LaneBlocks { key, stream, first, len, words: lanes.counter }
    }

    /// Whether lane `lane`'s stream is held.
    #[inline]
    pub fn holds(&self, lane: u32) -> bool {
        lane >= self.first && lane - self.first < self.len
    }

    /// Lane `lane`'s stream ([`sample_stream`]) with its first block drawn; `lane` must be
    /// held ([`Self::holds`]).
    #[inline]
    pub fn stream(&self, lane: u32) -> Stream {
        debug_assert!(self.holds(lane));
        let i = (lane - self.first) as usize;
        Stream {
            key: self.key,
            stream: self.stream,
            next_block: lane_block(lane) + 1,
            buffer: Buffer::of([self.words[0][i], self.words[1][i], self.words[2][i], self.words[3][i]]),
            left: 4,
        }
    }
}

/// Lane `lane`'s stream ([`sample_stream`]) of each (sample, step) of `keys`, with its first
/// block drawn, into `out` (as long as `keys`): the blocks are computed [`FILL_WIDTH`] at a
/// time side by side from the keys (no [`Stream`] built first and its words gathered into
/// vectors). The CPU walk engine draws each round's blocks so.
///
/// # Panics
/// If `keys` and `out` differ in length.
pub fn sample_streams(seed: u64, lane: u32, keys: &[(u32, u32)], out: &mut [Stream]) {
    assert_eq!(keys.len(), out.len(), "sample_streams: one stream per key");
    let key = key_words(seed);
    let first = lane_block(lane);
    for (keys, out) in keys.chunks(FILL_WIDTH).zip(out.chunks_mut(FILL_WIDTH)) {
        let mut lanes = PhiloxLanes::default();
        for (i, &(sample, step)) in keys.iter().enumerate() {
            lanes.set(i, counter_words(sample_stream_id(sample, step), first), key);
        }
        lanes.blocks();
        for (i, (&(sample, step), stream)) in keys.iter().zip(out).enumerate() {
            *stream = Stream {
                key,
                stream: sample_stream_id(sample, step),
                next_block: first + 1,
                buffer: Buffer::of(lanes.lane(i)),
                left: 4,
            };
        }
    }
}

/// The private parts: the vector rounds, the lanes' blocks and the stream's buffer.
#[cfg(test)]
mod tests {
    use super::*;

    /// The AVX2 and AVX-512 rounds against the scalar block function, each where the CPU has
    /// it (`blocks` takes only the widest, so the other never runs otherwise).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_vector_rounds_give_the_scalar_blocks() {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            check_rounds(|lanes| unsafe { lanes.blocks_avx2() });
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F.
            check_rounds(|lanes| unsafe { lanes.blocks_avx512() });
        }
    }

    /// `rounds` on sixteen lanes of scattered counters and keys against [`philox4x32_10`].
    #[cfg(target_arch = "x86_64")]
    fn check_rounds(rounds: impl Fn(&mut PhiloxLanes)) {
        let mut lanes = PhiloxLanes::default();
        let mut rng = crate::test_rng::Lcg(0x9E37_79B9_7F4A_7C15);
        let mut word = move || rng.word();
        for i in 0..FILL_WIDTH {
            lanes.counter.iter_mut().for_each(|w| w[i] = word());
            lanes.key.iter_mut().for_each(|w| w[i] = word());
        }
        let expected: Vec<[u32; 4]> = (0..FILL_WIDTH)
            .map(|i| philox4x32_10(lanes.counter.map(|w| w[i]), [lanes.key[0][i], lanes.key[1][i]]))
            .collect();
        rounds(&mut lanes);
        for (i, block) in expected.iter().enumerate() {
            assert_eq!(lanes.counter.map(|w| w[i]), *block, "lane {i}");
        }
    }

    /// `peek(k)` is the word `k` draws ahead while the buffer holds it, `None` past it, and
    /// takes nothing.
    #[test]
    fn peek_sees_the_buffered_words_ahead() {
        let (seed, stream_id) = (0x5EED_u64, 42u64);
        let block = philox4x32_10(counter_words(stream_id, 0), key_words(seed));
        let mut stream = Stream::new(seed, stream_id);
        assert_eq!(stream.peek(0), None, "no block drawn yet");
        assert_eq!(stream.next_u32(), block[0]);
        for used in 1..4 {
            for k in 0..4 {
                assert_eq!(stream.peek(k), block.get(used + k).copied(), "{used} words used, {k} ahead");
            }
            assert_eq!(stream.next_u32(), block[used]);
        }
        assert_eq!(stream.peek(0), None, "the buffer is empty");
        assert_eq!(stream.next_u32(), philox4x32_10(counter_words(stream_id, 1), key_words(seed))[0]);
    }

    #[test]
    fn lane_blocks_give_each_lane_its_sample_stream() {
        for (seed, sample, step, first) in
            [(7u64, 3u32, 1u32, 0u32), (u64::MAX, u32::MAX, 2, 1000), (1, 0, 0, u32::MAX - 5)]
        {
            let blocks = LaneBlocks::new(seed, sample, step, first);
            let held = (u64::from(u32::MAX) - u64::from(first) + 1).min(FILL_WIDTH as u64);
            for i in 0..held {
                let lane = first + i as u32;
                assert!(blocks.holds(lane));
                let (mut ours, mut reference) = (blocks.stream(lane), sample_stream(seed, sample, step, lane));
                // The first block and the ones after it.
                for _ in 0..12 {
                    assert_eq!(
                        ours.next_u32(),
                        reference.next_u32(),
                        "seed {seed} sample {sample} step {step} lane {lane}"
                    );
                }
            }
            assert!(!blocks.holds(first.wrapping_sub(1)) || first == 0);
            if let Some(past) = first.checked_add(held as u32) {
                assert!(!blocks.holds(past));
            }
        }
    }
}
