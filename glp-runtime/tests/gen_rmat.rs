//! R-MAT generator: structure, determinism, quadrant frequencies, and the number of distinct
//! edges against its exact expectation.

mod support;
use support::{assert_simple_symmetric, in_pool};

use glp_runtime::gen::{rmat, RmatParams, RmatSampler};
use glp_runtime::graph::VertexIds;
use glp_runtime::Error;

fn params(scale: u32, seed: u64) -> RmatParams {
    RmatParams { scale, seed, ..RmatParams::default() }
}

#[test]
fn graph500_defaults() {
    let p = RmatParams::default();
    assert_eq!((p.a, p.b, p.c, p.edge_factor), (0.57, 0.19, 0.19, 16));
    assert!((p.d() - 0.05).abs() < 1e-12);
    assert!(p.scramble_ids);
}

#[test]
fn shape_ids_and_symmetry() {
    let g = rmat(&params(12, 3)).unwrap();
    assert_eq!(g.num_vertices(), 1 << 12);
    assert_eq!(g.ids, VertexIds::Range { first: 0, len: 1 << 12 });
    assert!(g.symmetric);
    assert!(g.num_edges() <= (2 * 16) << 12);
    assert_simple_symmetric(&g);
}

#[test]
fn deterministic_for_a_seed_and_independent_of_thread_count() {
    let p = params(13, 77);
    let one = in_pool(1, || rmat(&p).unwrap());
    let two = in_pool(2, || rmat(&p).unwrap());
    let five = in_pool(5, || rmat(&p).unwrap());
    for g in [&two, &five] {
        assert_eq!(g.csr.offsets(), one.csr.offsets());
        assert_eq!(g.csr.targets(), one.csr.targets());
    }
    let other = rmat(&params(13, 78)).unwrap();
    assert_ne!(other.csr.targets(), one.csr.targets());
}

/// Quadrant (0 = a, 1 = b, 2 = c, 3 = d) of level `level` (0 = most significant bit).
fn quadrant(s: u32, t: u32, scale: u32, level: u32) -> usize {
    let bit = scale - 1 - level;
    (((s >> bit) & 1) << 1 | ((t >> bit) & 1)) as usize
}

#[test]
fn quadrant_frequencies_match_a_b_c_d() {
    // Every level of every edge picks a quadrant independently with probabilities a, b, c, d.
    // Scale 14 = three full random words of four levels plus two levels of a fourth.
    // Marginals over all levels: N = edges * scale choices, each frequency a binomial
    // proportion with sd sqrt(p (1 - p) / N); tolerance 6 sd. Joint frequencies of level pairs
    // (inside one word, across a word boundary, and in the partial last word) must be the
    // products p_i p_j: N = edges, tolerance 6 sd.
    let scale = 14;
    for (a, b, c) in [(0.57, 0.19, 0.19), (0.25, 0.25, 0.25), (0.45, 0.15, 0.3)] {
        let p = RmatParams { scale, edge_factor: 8, a, b, c, seed: 5, scramble_ids: true, weighted: false };
        let sampler = RmatSampler::new(&p).unwrap();
        let m = sampler.num_edges();
        let pairs = [(0u32, 1u32), (3, 4), (11, 12), (12, 13)];
        let mut marginal = [0u64; 4];
        let mut joint = vec![[0u64; 16]; pairs.len()];
        for e in 0..m {
            let (s, t) = sampler.unscrambled_edge(e);
            assert!(s < 1 << scale && t < 1 << scale);
            for level in 0..scale {
                marginal[quadrant(s, t, scale, level)] += 1;
            }
            for (k, &(l1, l2)) in pairs.iter().enumerate() {
                joint[k][quadrant(s, t, scale, l1) * 4 + quadrant(s, t, scale, l2)] += 1;
            }
        }
        let expected = [a, b, c, 1.0 - a - b - c];
        let check = |got: u64, trials: u64, p: f64, what: String| {
            let sd = (p * (1.0 - p) / trials as f64).sqrt();
            let f = got as f64 / trials as f64;
            assert!((f - p).abs() <= 6.0 * sd, "{what}: {f} vs {p} (sd {sd})");
        };
        for q in 0..4 {
            check(marginal[q], m * scale as u64, expected[q], format!("{a},{b},{c} quadrant {q}"));
        }
        for (k, &(l1, l2)) in pairs.iter().enumerate() {
            for cell in 0..16 {
                let p = expected[cell / 4] * expected[cell % 4];
                check(joint[k][cell], m, p, format!("{a},{b},{c} levels {l1},{l2} cell {cell}"));
            }
        }
    }
}

/// Exact expectation and sd of the stored (directed) edge count of a symmetrised,
/// deduplicated R-MAT graph without self loops.
///
/// The ordered pair (u, v) is drawn by one edge with probability `p(u, v) = a^na b^nb c^nc
/// d^nd`, where `na..nd` count the levels whose bit pair (u bit, v bit) is (0,0), (0,1), (1,0),
/// (1,1). The unordered pair {u, v} is present with probability `1 - (1 - p(u,v) - p(v,u))^M`
/// and contributes 2 stored edges; summing over ordered pairs u != v counts each unordered pair
/// twice, which is the stored count. Pairs share their probability with every pair of the same
/// (na, nb, nc, nd) class, of multinomial size, so the sum has O(scale^3) terms. The presence
/// indicators are negatively associated, so the variance of the unordered count is at most the
/// sum of the Bernoulli variances.
fn expected_stored_edges(scale: u32, edge_factor: u32, a: f64, b: f64, c: f64) -> (f64, f64) {
    let d = 1.0 - a - b - c;
    let m = (edge_factor as f64) * 2f64.powi(scale as i32);
    let lf: Vec<f64> = (0..=scale).map(|i| (1..=i).map(|k| (k as f64).ln()).sum()).collect();
    let pw = |x: f64, k: u32| if k == 0 { 1.0 } else { x.powi(k as i32) };
    let (mut mean, mut var) = (0.0, 0.0);
    for na in 0..=scale {
        for nb in 0..=scale - na {
            for nc in 0..=scale - na - nb {
                let nd = scale - na - nb - nc;
                if nb + nc == 0 {
                    continue; // u == v
                }
                let pairs =
                    (lf[scale as usize] - lf[na as usize] - lf[nb as usize] - lf[nc as usize] - lf[nd as usize]).exp();
                let q = pw(a, na) * pw(b, nb) * pw(c, nc) * pw(d, nd) + pw(a, na) * pw(c, nb) * pw(b, nc) * pw(d, nd);
                let present = -(m * (-q).ln_1p()).exp_m1();
                mean += pairs * present;
                var += pairs * present * (1.0 - present);
            }
        }
    }
    // var sums over ordered pairs = 2 x unordered; stored = 2 x unordered count.
    (mean, (2.0 * var).sqrt())
}

#[test]
fn stored_edge_count_matches_its_exact_expectation() {
    for (scale, a, b, c) in [(10, 0.57, 0.19, 0.19), (14, 0.57, 0.19, 0.19), (12, 0.45, 0.15, 0.3)] {
        let p = RmatParams { scale, a, b, c, seed: 11, ..RmatParams::default() };
        let g = rmat(&p).unwrap();
        let (mean, sd) = expected_stored_edges(scale, 16, a, b, c);
        let got = g.num_edges() as f64;
        assert!((got - mean).abs() < 5.0 * sd, "scale {scale}: {got} stored edges, expected {mean:.0} +- {sd:.0}");
    }
    // The literature's figure for Graph500 scale 24 (about 520.8 million stored edges) is
    // what the same formula gives.
    let (mean, _) = expected_stored_edges(24, 16, 0.57, 0.19, 0.19);
    assert!((mean / 1e6 - 520.8).abs() < 0.1, "{mean}");
}

#[test]
fn scrambling_is_an_isomorphism() {
    let plain = rmat(&RmatParams { scramble_ids: false, ..params(11, 9) }).unwrap();
    let scrambled = rmat(&params(11, 9)).unwrap();
    let sampler = RmatSampler::new(&params(11, 9)).unwrap();
    let n = 1u32 << 11;
    let mut images: Vec<u32> = (0..n).map(|v| sampler.scramble(v)).collect();
    // The heaviest raw vertex is 0 (all-a paths); scrambling moves it.
    assert!((1..n).all(|v| plain.csr.degree(0) >= plain.csr.degree(v)));
    assert_ne!(images[0], 0);
    for v in 0..n {
        let mut mapped: Vec<u32> = plain.csr.neighbors(v).iter().map(|&u| images[u as usize]).collect();
        mapped.sort_unstable();
        assert_eq!(scrambled.csr.neighbors(images[v as usize]), &mapped[..], "vertex {v}");
    }
    images.sort_unstable();
    assert!(images.iter().copied().eq(0..n), "scramble is not a permutation");
}

#[test]
fn invalid_parameters_are_rejected_with_reasons() {
    let cases: Vec<(RmatParams, &str)> = vec![
        (RmatParams { scale: 0, ..RmatParams::default() }, "scale"),
        (RmatParams { scale: 32, ..RmatParams::default() }, "scale"),
        (RmatParams { edge_factor: 0, ..RmatParams::default() }, "edge factor"),
        (RmatParams { a: -0.1, ..RmatParams::default() }, "probability a"),
        (RmatParams { b: f64::NAN, ..RmatParams::default() }, "probability b"),
        (RmatParams { a: 0.6, b: 0.3, c: 0.2, ..RmatParams::default() }, "exceed 1"),
    ];
    for (p, needle) in cases {
        match rmat(&p) {
            Err(Error::InvalidArgument(message)) => assert!(message.contains(needle), "{message}"),
            other => panic!("{p:?}: expected an invalid-argument error, got {other:?}"),
        }
    }
}

#[test]
fn weighted_graphs_keep_the_edges_and_weigh_each_undirected_edge_once_uniformly() {
    let plain = rmat(&params(12, 9)).unwrap();
    let p = RmatParams { weighted: true, ..params(12, 9) };
    let one = in_pool(1, || rmat(&p).unwrap());
    let three = in_pool(3, || rmat(&p).unwrap());
    assert_eq!(one.csr.offsets(), plain.csr.offsets());
    assert_eq!(one.csr.targets(), plain.csr.targets());
    let weights = one.csr.weights().expect("weighted");
    assert_eq!(Some(weights), three.csr.weights(), "the weights depend on the seed alone");
    assert_ne!(
        rmat(&RmatParams { weighted: true, ..params(12, 10) }).unwrap().csr.weights().unwrap()[..64],
        weights[..64]
    );

    // Both directions of an edge weigh the same; one weight per undirected edge, in [0, 1).
    let mut undirected = Vec::new();
    for u in 0..one.num_vertices() as u32 {
        for (e, &v) in one.csr.edge_range(u).zip(one.csr.neighbors(u)) {
            let back = one.csr.edge_range(v).start + one.csr.neighbors(v).binary_search(&u).expect("symmetric");
            assert_eq!(weights[e], weights[back], "{{{u}, {v}}}");
            assert!((0.0..1.0).contains(&weights[e]));
            if u < v {
                undirected.push(weights[e] as f64);
            }
        }
    }
    // Uniform on [0, 1): each decile's share is a binomial proportion (sd sqrt(0.09 / m)) and
    // the mean has sd sqrt(1 / (12 m)); tolerance 6 sd.
    let m = undirected.len() as f64;
    let mean = undirected.iter().sum::<f64>() / m;
    assert!((mean - 0.5).abs() < 6.0 * (1.0 / (12.0 * m)).sqrt(), "mean {mean} over {m} edges");
    for decile in 0..10 {
        let share = undirected.iter().filter(|&&w| (w * 10.0) as usize == decile).count() as f64 / m;
        assert!((share - 0.1).abs() < 6.0 * (0.09 / m).sqrt(), "decile {decile}: {share}");
    }
}
