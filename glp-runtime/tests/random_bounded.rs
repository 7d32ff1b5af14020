//! Exact bounded draws and the samplers' keyed streams of `glp_runtime::random`.
//!
//! Exactness is checked over a full cycle of the input word: for narrower words (the same
//! function with `bits < 32`), every input word is tried once, and each value below the
//! bound must come out exactly `floor(2^bits / bound)` times, the rejected words numbering
//! `2^bits mod bound`. Larger bounds are checked statistically (chi-square, seed fixed).

use glp_runtime::random::{self, lemire_step, sample_stream, Stream};
use glp_testkit::stats::chi_square_probabilities;

/// Counts of each value of `0..bound` over every word of `bits` bits, and the rejections.
fn full_cycle(bound: u64, bits: u32) -> (Vec<u64>, u64) {
    let mut counts = vec![0u64; bound as usize];
    let mut rejected = 0;
    for word in 0..1u64 << bits {
        match lemire_step(word, bound, bits) {
            Some(value) => counts[value as usize] += 1,
            None => rejected += 1,
        }
    }
    (counts, rejected)
}

#[test]
fn every_value_is_equally_likely_over_a_full_cycle() {
    for bits in [1, 3, 8, 12] {
        for bound in 1..=(1u64 << bits) {
            let (counts, rejected) = full_cycle(bound, bits);
            let each = (1u64 << bits) / bound;
            assert!(counts.iter().all(|&c| c == each), "bits {bits}, bound {bound}: {counts:?}");
            assert_eq!(rejected, (1u64 << bits) % bound, "bits {bits}, bound {bound}");
        }
    }
    // 16-bit words: bounds that divide 2^16, prime ones, ones just above a power of two and
    // the largest.
    for bound in [2, 3, 7, 10, 257, 1000, 4096, 32_769, 65_535, 65_536] {
        let (counts, rejected) = full_cycle(bound, 16);
        let each = (1u64 << 16) / bound;
        assert!(counts.iter().all(|&c| c == each), "bound {bound}");
        assert_eq!(rejected, (1u64 << 16) % bound, "bound {bound}");
    }
}

/// The stream's bounded draw is the documented recipe, word for word (what CUDA reproduces).
#[test]
fn next_below_u32_consumes_words_as_documented() {
    let (seed, stream) = (0x5EED, 42);
    for bound in [1u32, 3, 1000, 1 << 31, (1 << 31) + 1, u32::MAX] {
        let mut words = Stream::new(seed, stream);
        let mut draws = Stream::new(seed, stream);
        for _ in 0..1000 {
            // The recipe: words in order, the first accepted one gives the value.
            let expected = loop {
                if let Some(v) = lemire_step(words.next_u32() as u64, bound as u64, 32) {
                    break v as u32;
                }
            };
            assert_eq!(draws.next_below_u32(bound), expected, "bound {bound}");
        }
        // Both streams consumed the same words.
        assert_eq!(words.next_u32(), draws.next_u32());
    }
}

#[test]
fn a_bound_just_above_half_the_range_rejects_about_half_the_words() {
    // 2^31 + 1: 2^32 mod bound = 2^31 - 1 words are rejected, so about 2 words per draw; the
    // draw stays in range and uniform over its halves.
    let bound = (1u32 << 31) + 1;
    let mut stream = Stream::new(7, 7);
    let mut low = 0u64;
    let n = 200_000;
    for _ in 0..n {
        let v = stream.next_below_u32(bound);
        assert!(v < bound);
        if v < bound / 2 {
            low += 1;
        }
    }
    let result = chi_square_probabilities(&[low, n - low], &[0.5, 0.5]);
    assert!(result.p_value > 1e-4, "{result:?}");
}

#[test]
fn draws_below_large_bounds_are_uniform() {
    // 1000 cells, 2 million draws (2000 expected per cell): chi-square, p >= 1e-4.
    for bound in [1000u64, 999_983] {
        let cells = 1000u64;
        let mut counts = vec![0u64; cells as usize];
        let mut stream = Stream::new(2026, bound);
        for _ in 0..2_000_000 {
            let v = stream.next_below(bound);
            assert!(v < bound);
            counts[(v * cells / bound) as usize] += 1;
        }
        // Cell c holds the values v with floor(v * cells / bound) == c.
        let probabilities: Vec<f64> = (0..cells)
            .map(|c| {
                let first = (c * bound).div_ceil(cells);
                let end = ((c + 1) * bound).div_ceil(cells);
                (end - first) as f64 / bound as f64
            })
            .collect();
        let result = chi_square_probabilities(&counts, &probabilities);
        assert!(result.p_value > 1e-4, "bound {bound}: {result:?}");
    }
}

#[test]
fn next_below_takes_64_bit_draws_above_u32() {
    let bound = (1u64 << 40) + 3;
    let mut a = Stream::new(1, 2);
    let mut b = Stream::new(1, 2);
    for _ in 0..100 {
        let v = a.next_below(bound);
        assert!(v < bound);
        assert_eq!(v, b.next_below_u64(bound));
    }
    // Below 2^32 it is the 32-bit draw.
    let mut a = Stream::new(1, 2);
    let mut b = Stream::new(1, 2);
    assert_eq!(a.next_below(1 << 32), b.next_below_u64(1 << 32));
    assert_eq!(a.next_below(12345), b.next_below_u32(12345) as u64);
}

#[test]
fn sample_streams_are_keyed_by_sample_step_and_lane() {
    let seed = 99;
    // The documented mapping, from the raw block function.
    let (sample, step, lane) = (123_456u32, 7u32, 3u32);
    let stream_word = sample as u64 | ((step as u64) << 32);
    let first = random::block(seed, stream_word, (lane as u64) << 32);
    let second = random::block(seed, stream_word, ((lane as u64) << 32) + 1);
    let mut s = sample_stream(seed, sample, step, lane);
    let words: Vec<u32> = (0..8).map(|_| s.next_u32()).collect();
    assert_eq!(words[..4], first);
    assert_eq!(words[4..], second);
    // Neighbouring keys differ.
    let word = |sample, step, lane| sample_stream(seed, sample, step, lane).next_u32();
    let base = word(sample, step, lane);
    assert_ne!(base, word(sample + 1, step, lane));
    assert_ne!(base, word(sample, step + 1, lane));
    assert_ne!(base, word(sample, step, lane + 1));
    assert_ne!(base, sample_stream(seed + 1, sample, step, lane).next_u32());
}
