//! Philox4x32 against published known answers, and the documented draw recipes of
//! `glp_runtime::random` checked against values computed here from the raw block function.

use glp_runtime::random::{self, philox4x32, philox4x32_10, sample_streams, Stream};

/// Parses a Random123 `kat_vectors` line body: 4 counter words, 2 key words, 4 expected words.
fn parse(line: &str) -> ([u32; 4], [u32; 2], [u32; 4]) {
    let w: Vec<u32> = line.split_whitespace().map(|x| u32::from_str_radix(x, 16).unwrap()).collect();
    assert_eq!(w.len(), 10, "{line}");
    ([w[0], w[1], w[2], w[3]], [w[4], w[5]], [w[6], w[7], w[8], w[9]])
}

/// The philox4x32 lines of the `kat_vectors` file of the Random123 distribution (D. E. Shaw
/// Research), as reproduced in DEShawResearch/Random123-Boost,
/// `libs/random/test/test_philox.cpp` ("cut-and-pasted from the kat_vectors file in the
/// original Random123 distribution").
const RANDOM123_KAT_10: [&str; 3] = [
    "00000000 00000000 00000000 00000000 00000000 00000000   6627e8d5 e169c58d bc57ac4c 9b00dbd8",
    "ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff   408f276d 41c83b0e a20bc7c6 6d5451fd",
    "243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0   d16cfe09 94fdcceb 5001e420 24126ea1",
];
const RANDOM123_KAT_7: [&str; 3] = [
    "00000000 00000000 00000000 00000000 00000000 00000000   5f6fb709 0d893f64 4f121f81 4f730a48",
    "ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff   5207ddc2 45165e59 4d8ee751 8c52f662",
    "243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0   4dfccaba 190a87f0 c47362ba b6b5242a",
];

/// Further philox4x32-10 vectors with single-bit and pi-digit inputs, from the larger
/// `examples/kat_vectors` file of girving/random123-manual (generated with Random123's
/// gentests.py); they exercise each counter and key word separately.
const EXTENDED_KAT_10: [&str; 6] = [
    "00000001 00000000 00000000 00000000   00000001 00000000   ac08141b dfc5ccbe 79c07a47 a7f66093",
    "00000000 00000000 00000001 00000000   00000001 00000000   07071c12 428264b6 3909104b 6da2bda2",
    "243f6a88 85a308d3 13198a2e 03707344   00000001 00000000   38527b8f fad9a48c 20e675c0 f2fea26a",
    "00000000 00000000 00000000 00000001   00000000 00000001   96b27e8c 28826d0f 66d958ef 081509dc",
    "452821e6 38d01377 be5466cf 34e90c6c   00000000 ffffffff   72ce44b3 b44f9b78 49af0267 726813ac",
    "00000000 00000000 00000000 80000000   00000000 80000000   f7a0b371 e51dc93d 56ce135d 1d4b5580",
];

#[test]
fn philox4x32_10_matches_random123_known_answers() {
    for line in RANDOM123_KAT_10.iter().chain(EXTENDED_KAT_10.iter()) {
        let (ctr, key, expected) = parse(line);
        assert_eq!(philox4x32_10(ctr, key), expected, "{line}");
        assert_eq!(philox4x32(ctr, key, 10), expected, "{line}");
    }
}

#[test]
fn philox4x32_7_matches_random123_known_answers() {
    for line in RANDOM123_KAT_7 {
        let (ctr, key, expected) = parse(line);
        assert_eq!(philox4x32(ctr, key, 7), expected, "{line}");
    }
}

/// The documented mapping, written out here independently of the library's helpers.
fn reference_block(seed: u64, stream: u64, counter: u64) -> [u32; 4] {
    let key = [(seed & 0xffff_ffff) as u32, (seed >> 32) as u32];
    let ctr =
        [(counter & 0xffff_ffff) as u32, (counter >> 32) as u32, (stream & 0xffff_ffff) as u32, (stream >> 32) as u32];
    philox4x32_10(ctr, key)
}

#[test]
fn block_follows_the_documented_mapping() {
    let cases = [
        (0u64, 0u64, 0u64),
        (1, 2, 3),
        (u64::MAX, 0x0123_4567_89ab_cdef, 0xffff_ffff),
        (0xdead_beef_0000_0001, 7, 1 << 32),
    ];
    for (seed, stream, counter) in cases {
        assert_eq!(random::block(seed, stream, counter), reference_block(seed, stream, counter));
    }
    // The pi-digit known answer seen through the mapping: counter words (243f6a88, 85a308d3),
    // stream words (13198a2e, 03707344), key words (a4093822, 299f31d0).
    assert_eq!(
        random::block(0x299f_31d0_a409_3822, 0x0370_7344_1319_8a2e, 0x85a3_08d3_243f_6a88),
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
    );
}

#[test]
fn stream_hands_out_words_block_after_block_across_the_counter_carry() {
    let (seed, stream, start) = (42u64, 9u64, 0xffff_fffeu64);
    let mut s = Stream::at(seed, stream, start);
    let drawn: Vec<u32> = (0..12).map(|_| s.next_u32()).collect();
    let expected: Vec<u32> = (0..3).flat_map(|b| reference_block(seed, stream, start + b)).collect();
    assert_eq!(drawn, expected);
    // Stream::new starts at block 0.
    let mut s = Stream::new(seed, stream);
    assert_eq!(s.next_u32(), reference_block(seed, stream, 0)[0]);
}

#[test]
fn sample_streams_draw_the_documented_blocks_of_their_keys() {
    // Lengths around the vector width; samples and steps of every size; lanes at both ends.
    for len in [0usize, 1, 5, 15, 16, 17, 40] {
        let keys: Vec<(u32, u32)> =
            (0..len as u32).map(|i| (i.wrapping_mul(0x9e37_79b9) ^ (i << 28), u32::MAX - i * 7)).collect();
        for (seed, lane) in [(0u64, 0u32), (u64::MAX, 3), (0x9e37_79b9_7f4a_7c15, u32::MAX)] {
            let mut streams = vec![Stream::new(0, 0); len];
            sample_streams(seed, lane, &keys, &mut streams);
            for (i, (&(sample, step), stream)) in keys.iter().zip(&mut streams).enumerate() {
                // Stream `sample | step << 32` from block `lane << 32`: its first two blocks.
                let id = u64::from(sample) | u64::from(step) << 32;
                let first = u64::from(lane) << 32;
                let expected: Vec<u32> =
                    reference_block(seed, id, first).into_iter().chain(reference_block(seed, id, first + 1)).collect();
                let drawn: Vec<u32> = (0..8).map(|_| stream.next_u32()).collect();
                assert_eq!(drawn, expected, "key {i} of {len}, seed {seed}, lane {lane}");
            }
        }
    }
}

#[test]
fn u64_and_floats_follow_the_documented_bit_recipes() {
    let (seed, stream) = (3u64, 5u64);
    let words: Vec<u32> = (0..4).flat_map(|b| reference_block(seed, stream, b)).collect();
    let mut s = Stream::new(seed, stream);
    // u32, then a u64 straddling words 1 and 2 (low word first), then f64, f32, f64.
    assert_eq!(s.next_u32(), words[0]);
    assert_eq!(s.next_u64(), words[1] as u64 + ((words[2] as u64) << 32));
    let x = words[3] as u64 + ((words[4] as u64) << 32);
    assert_eq!(s.next_f64(), (x >> 11) as f64 / 9_007_199_254_740_992.0);
    assert_eq!(s.next_f32(), (words[5] >> 8) as f32 / 16_777_216.0);
    assert_eq!(s.next_bool(), words[6] >= 0x8000_0000);
    // Extremes of the float recipes: 0 maps to 0, all ones to the largest value below 1.
    assert_eq!(random::unit_f64(0), 0.0);
    assert_eq!(random::unit_f64(u64::MAX), 1.0 - f64::EPSILON / 2.0);
    assert_eq!(random::unit_f32(u32::MAX), 1.0 - f32::EPSILON / 2.0);
}

/// A `u64` from every place in a block (both words in it, or one in it and one in the next
/// block), then another and a word: the stream's words in order, low word first.
#[test]
fn u64_draws_take_the_next_two_words_wherever_they_start() {
    let (seed, stream) = (11u64, 0x1234_5678_9abc_def0u64);
    let words: Vec<u32> = (0..4).flat_map(|b| reference_block(seed, stream, b)).collect();
    for skipped in 0..8 {
        let mut s = Stream::new(seed, stream);
        for _ in 0..skipped {
            s.next_u32();
        }
        let joined = u64::from(words[skipped]) | u64::from(words[skipped + 1]) << 32;
        assert_eq!(s.next_u64(), joined, "after {skipped} words");
        assert_eq!(s.next_u64(), u64::from(words[skipped + 2]) | u64::from(words[skipped + 3]) << 32);
        assert_eq!(s.next_u32(), words[skipped + 4], "the word after, {skipped} skipped");
    }
}

#[test]
fn bounded_draws_take_the_high_half_of_the_product() {
    // When the first product's low half is at least the bound, Lemire's method returns its
    // high half without rejection: check that against the raw words.
    let mut checked = 0;
    for stream in 0..200u64 {
        let w = reference_block(11, stream, 0);
        for bound in [1u32, 2, 3, 10, 1000, 0x8000_0001, u32::MAX] {
            let m = w[0] as u64 * bound as u64;
            if (m as u32) >= bound {
                assert_eq!(Stream::new(11, stream).next_below_u32(bound), (m >> 32) as u32);
                checked += 1;
            }
        }
        let x = w[0] as u64 | (w[1] as u64) << 32;
        for bound in [3u64, 1 << 40, u64::MAX - 5] {
            let m = x as u128 * bound as u128;
            if (m as u64) >= bound {
                assert_eq!(Stream::new(11, stream).next_below_u64(bound), (m >> 64) as u64);
                checked += 1;
            }
        }
    }
    assert!(checked > 1500);
}

#[test]
fn bounded_draws_have_no_modulo_bias() {
    // bound = 3 * 2^30: with `x % bound`, values below 2^30 would have probability 1/2 (two
    // preimages each); without bias it is 1/3. With N draws the sd of the fraction is
    // sqrt(2/9 / N) = 0.00086 for N = 300,000; the tolerance 0.005 is ~6 sd and the biased
    // value is 190 sd away.
    let n = 300_000;
    let mut s = Stream::new(7, 1);
    let bound = 3u32 << 30;
    let low = (0..n).filter(|_| {
        let v = s.next_below_u32(bound);
        assert!(v < bound);
        v < 1 << 30
    });
    let fraction = low.count() as f64 / n as f64;
    assert!((fraction - 1.0 / 3.0).abs() < 0.005, "u32: {fraction}");

    let mut s = Stream::new(7, 2);
    let bound = 3u64 << 62;
    let low = (0..n).filter(|_| {
        let v = s.next_below_u64(bound);
        assert!(v < bound);
        v < 1 << 62
    });
    let fraction = low.count() as f64 / n as f64;
    assert!((fraction - 1.0 / 3.0).abs() < 0.005, "u64: {fraction}");
}

#[test]
fn small_bounds_are_uniform() {
    // Chi-square with 9 degrees of freedom over 100,000 draws; P(chi2 > 40) < 1e-5.
    let mut s = Stream::new(123, 0);
    let mut counts = [0u64; 10];
    let n = 100_000;
    for _ in 0..n {
        counts[s.next_below_u32(10) as usize] += 1;
    }
    let expected = n as f64 / 10.0;
    let chi2: f64 = counts.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
    assert!(chi2 < 40.0, "chi2 = {chi2}, counts {counts:?}");
}

#[test]
fn unit_f64_is_uniform_on_the_unit_interval() {
    // Mean of U(0,1) is 1/2 with sd 1/sqrt(12 N) = 0.00091 for N = 100,000; tolerance 5 sd.
    // Deciles within 5 sd of 0.1 (sd sqrt(0.09 / N) = 0.00095).
    let mut s = Stream::new(5, 5);
    let n = 100_000;
    let mut sum = 0.0;
    let mut deciles = [0u64; 10];
    for _ in 0..n {
        let x = s.next_f64();
        assert!((0.0..1.0).contains(&x));
        sum += x;
        deciles[(x * 10.0) as usize] += 1;
    }
    assert!((sum / n as f64 - 0.5).abs() < 0.0046);
    for d in deciles {
        assert!((d as f64 / n as f64 - 0.1).abs() < 0.0048, "{deciles:?}");
    }
}
