//! NMI, ARI and overlapping NMI, checked against values computed by hand, published examples
//! (scikit-learn's documentation) and naive implementations written here from the
//! definitions.

mod support;
use glp_testkit::rng::SplitMix;

use glp_runtime::community::{Cover, UNLABELLED};
use glp_runtime::metrics::{
    ari, cover_from_labels, nmi, overlapping_nmi, overlapping_nmi_covered, overlapping_nmi_of_partition,
    ContingencyTable, NmiNormalisation,
};
use std::collections::{BTreeMap, BTreeSet};

const U: u32 = UNLABELLED;

macro_rules! assert_close {
    ($a:expr, $b:expr) => {{
        let (a, b): (f64, f64) = ($a, $b);
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{} = {a} but expected {b}", stringify!($a));
    }};
}

// ---------------------------------------------------------------------------------------
// Naive references.

/// NMI (arithmetic) from probabilities: I = sum p_ij ln(p_ij / (p_i p_j)), H = -sum p ln p.
fn naive_nmi(a: &[u32], b: &[u32]) -> f64 {
    let pairs: Vec<(u32, u32)> = a.iter().zip(b).filter(|(&x, &y)| x != U && y != U).map(|(&x, &y)| (x, y)).collect();
    let n = pairs.len() as f64;
    let mut joint: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    let (mut pa, mut pb): (BTreeMap<u32, f64>, BTreeMap<u32, f64>) = (BTreeMap::new(), BTreeMap::new());
    for &(x, y) in &pairs {
        *joint.entry((x, y)).or_default() += 1.0 / n;
        *pa.entry(x).or_default() += 1.0 / n;
        *pb.entry(y).or_default() += 1.0 / n;
    }
    let entropy = |p: &BTreeMap<u32, f64>| -p.values().map(|&q| q * q.ln()).sum::<f64>();
    let (ha, hb) = (entropy(&pa), entropy(&pb));
    if pa.len() == 1 && pb.len() == 1 {
        return 1.0;
    }
    let i: f64 = joint.iter().map(|(&(x, y), &p)| p * (p / (pa[&x] * pb[&y])).ln()).sum();
    if i.abs() < 1e-15 {
        return 0.0;
    }
    i / ((ha + hb) / 2.0)
}

/// ARI from the pair confusion matrix (every pair of compared vertices enumerated), in the
/// form scikit-learn uses: 2 (tp tn - fn fp) / ((tp + fn)(fn + tn) + (tp + fp)(fp + tn)).
fn naive_ari(a: &[u32], b: &[u32]) -> f64 {
    let pairs: Vec<(u32, u32)> = a.iter().zip(b).filter(|(&x, &y)| x != U && y != U).map(|(&x, &y)| (x, y)).collect();
    let (mut tp, mut fp, mut fn_, mut tn) = (0f64, 0f64, 0f64, 0f64);
    for i in 0..pairs.len() {
        for j in i + 1..pairs.len() {
            match (pairs[i].0 == pairs[j].0, pairs[i].1 == pairs[j].1) {
                (true, true) => tp += 1.0,
                (false, true) => fp += 1.0,
                (true, false) => fn_ += 1.0,
                (false, false) => tn += 1.0,
            }
        }
    }
    if fn_ == 0.0 && fp == 0.0 {
        return 1.0;
    }
    2.0 * (tp * tn - fn_ * fp) / ((tp + fn_) * (fn_ + tn) + (tp + fp) * (fp + tn))
}

/// Overlapping NMI (NMI_max, LFK) over every pair of communities, from sets, following the
/// definition (McDaid et al. 2011; the all-pairs loop of cdlib's implementation).
fn naive_onmi(x: &[Vec<u32>], y: &[Vec<u32>], universe: usize) -> (f64, f64) {
    let n = universe as f64;
    let h = |k: usize| if k == 0 { 0.0 } else { -(k as f64 / n) * (k as f64 / n).log2() };
    let entropy = |c: &BTreeSet<u32>| h(c.len()) + h(universe - c.len());
    let x: Vec<BTreeSet<u32>> = x.iter().filter(|c| !c.is_empty()).map(|c| c.iter().copied().collect()).collect();
    let y: Vec<BTreeSet<u32>> = y.iter().filter(|c| !c.is_empty()).map(|c| c.iter().copied().collect()).collect();
    let given = |xs: &[BTreeSet<u32>], ys: &[BTreeSet<u32>]| -> Vec<f64> {
        xs.iter()
            .map(|xi| {
                let mut best = entropy(xi);
                for yj in ys {
                    let d = xi.intersection(yj).count();
                    let c = xi.difference(yj).count();
                    let b = yj.difference(xi).count();
                    let a = universe - xi.union(yj).count();
                    if h(a) + h(d) > h(b) + h(c) {
                        best = best.min(h(a) + h(b) + h(c) + h(d) - entropy(yj));
                    }
                }
                best
            })
            .collect()
    };
    let (hxy, hyx) = (given(&x, &y), given(&y, &x));
    let hx: f64 = x.iter().map(entropy).sum();
    let hy: f64 = y.iter().map(entropy).sum();
    let mutual = 0.5 * (hx - hxy.iter().sum::<f64>() + hy - hyx.iter().sum::<f64>());
    let nmi_max = if hx.max(hy) == 0.0 { 1.0 } else { mutual / hx.max(hy) };
    let norm = |cond: &[f64], cs: &[BTreeSet<u32>]| {
        cond.iter().zip(cs).map(|(&hc, c)| if c.len() == universe { 1.0 } else { hc / entropy(c) }).sum::<f64>()
            / cs.len() as f64
    };
    let lfk = 1.0 - 0.5 * (norm(&hxy, &x) + norm(&hyx, &y));
    (nmi_max, lfk)
}

// ---------------------------------------------------------------------------------------
// NMI and ARI.

#[test]
fn nmi_and_ari_by_hand() {
    let a = [0, 0, 0, 1, 1, 1];
    let b = [0, 0, 1, 1, 2, 2];
    // Contingency: (a0,b0) = 2, (a0,b1) = 1, (a1,b1) = 1, (a1,b2) = 2; rows 3, 3; columns 2, 2, 2.
    // I = sum (n_ij/N) ln(N n_ij / (a_i b_j)) = 2/6 ln(12/6) + 1/6 ln(6/6) + 1/6 ln(6/6)
    //   + 2/6 ln(12/6) = 2/3 ln 2 = 0.46209812037329684.
    // H(A) = ln 2 = 0.6931471805599453, H(B) = ln 3 = 1.0986122886681098.
    let m = nmi(&a, &b).unwrap();
    assert_close!(m.mutual_information, 2.0 / 3.0 * 2f64.ln());
    assert_close!(m.entropy_a, 2f64.ln());
    assert_close!(m.entropy_b, 3f64.ln());
    // Arithmetic: I / ((ln 2 + ln 3)/2) = (4/3 ln 2) / ln 6 = 0.5158037429793888.
    assert_close!(m.value, 4.0 / 3.0 * 2f64.ln() / 6f64.ln());
    assert_close!(m.value, 0.5158037429793888);
    // Geometric: I / sqrt(ln 2 ln 3) = 0.5295405780575617; min: I / ln 2 = 2/3;
    // max: I / ln 3 = 0.4206198357143049.
    assert_close!(m.normalised(NmiNormalisation::Geometric), 0.5295405780575617);
    assert_close!(m.normalised(NmiNormalisation::Min), 2.0 / 3.0);
    assert_close!(m.normalised(NmiNormalisation::Max), 0.4206198357143049);
    assert_eq!((m.compared, m.clusters_a, m.clusters_b), (6, 2, 3));
    // ARI: index = C(2,2) + C(2,2) = 2; A = C(3,2) + C(3,2) = 6; B = 3 C(2,2) = 3; T = C(6,2) = 15;
    // expected = A B / T = 18/15 = 1.2; max = (6 + 3)/2 = 4.5; ARI = 0.8 / 3.3 = 8/33.
    assert_close!(ari(&a, &b).unwrap().value, 8.0 / 33.0);
}

#[test]
fn published_examples_from_scikit_learn_documentation() {
    // adjusted_rand_score docs: [0,0,1,1] vs [0,0,1,2] is 0.57 (exactly 4/7: index 1,
    // A = 2, B = 1, T = 6, (1 - 1/3) / (3/2 - 1/3) = 4/7).
    assert_close!(ari(&[0, 0, 1, 1], &[0, 0, 1, 2]).unwrap().value, 4.0 / 7.0);
    assert_close!(ari(&[0, 0, 1, 2], &[0, 0, 1, 1]).unwrap().value, 4.0 / 7.0);
    // ... and "if classes members are completely split across different clusters, the
    // assignment is totally incomplete": [0,0,0,0] vs [0,1,2,3] gives ARI 0 and NMI 0.
    assert_close!(ari(&[0, 0, 0, 0], &[0, 1, 2, 3]).unwrap().value, 0.0);
    assert_eq!(nmi(&[0, 0, 0, 0], &[0, 1, 2, 3]).unwrap().value, 0.0);
    // Perfect labelings are 1 whatever the label values.
    assert_eq!(nmi(&[0, 0, 1, 1], &[1, 1, 0, 0]).unwrap().value, 1.0);
    assert_eq!(ari(&[0, 0, 1, 1], &[1, 1, 0, 0]).unwrap().value, 1.0);
}

#[test]
fn independent_partitions_score_zero_nmi_and_negative_ari() {
    // Every cell of [0,0,1,1] x [0,1,0,1] holds 1 = a_i b_j / N: I = 0, NMI = 0.
    // ARI: index 0, A = B = 2, T = 6, expected = 4/6; (0 - 2/3) / (2 - 2/3) = -1/2.
    assert_eq!(nmi(&[0, 0, 1, 1], &[0, 1, 0, 1]).unwrap().value, 0.0);
    assert_close!(ari(&[0, 0, 1, 1], &[0, 1, 0, 1]).unwrap().value, -0.5);
    // Larger: a = v / 10, b = v % 10 over 100 vertices: a product distribution, I = 0.
    let a: Vec<u32> = (0..100).map(|v| v / 10).collect();
    let b: Vec<u32> = (0..100).map(|v| v % 10).collect();
    assert_close!(nmi(&a, &b).unwrap().value, 0.0);
}

#[test]
fn permuted_and_identical_partitions_score_one() {
    let mut rng = SplitMix(5);
    let a: Vec<u32> = (0..500).map(|_| rng.below(17) as u32).collect();
    // b relabels a through a bijection onto sparse values (odd multiplier mod 2^32).
    let b: Vec<u32> = a.iter().map(|&x| x.wrapping_mul(2_654_435_761) ^ 0x5555).collect();
    assert!(!b.contains(&U));
    let m = nmi(&a, &b).unwrap();
    assert_close!(m.value, 1.0);
    assert_close!(m.normalised(NmiNormalisation::Min), 1.0);
    assert_eq!(ari(&a, &b).unwrap().value, 1.0);
    assert_eq!(nmi(&a, &a).unwrap().value, 1.0);
}

#[test]
fn degenerate_partitions() {
    // Both one cluster (identical): NMI 1 and ARI 1, as scikit-learn defines them.
    assert_eq!(nmi(&[3, 3, 3], &[9, 9, 9]).unwrap().value, 1.0);
    assert_eq!(ari(&[3, 3, 3], &[9, 9, 9]).unwrap().value, 1.0);
    // Both all singletons: the pair counts agree on every pair, ARI 1; NMI: I = H = ln 3.
    assert_eq!(ari(&[0, 1, 2], &[5, 6, 7]).unwrap().value, 1.0);
    assert_close!(nmi(&[0, 1, 2], &[5, 6, 7]).unwrap().value, 1.0);
    // One cluster against two: I = 0 -> NMI 0 under every normalisation (min would be 0/0).
    let m = nmi(&[1, 1, 1, 1], &[0, 0, 1, 1]).unwrap();
    assert_eq!(m.value, 0.0);
    assert_eq!(m.normalised(NmiNormalisation::Min), 0.0);
    assert_eq!(m.normalised(NmiNormalisation::Geometric), 0.0);
    // A single compared vertex: one cluster each -> 1.
    assert_eq!(nmi(&[4, U], &[8, 8]).unwrap().value, 1.0);
    assert_eq!(ari(&[4, U], &[8, 8]).unwrap().value, 1.0);
    // Nothing to compare, or mismatched lengths: errors, not numbers.
    assert!(nmi(&[U, 1], &[1, U]).is_err());
    assert!(ari(&[], &[]).is_err());
    assert!(nmi(&[0, 1], &[0]).is_err());
}

#[test]
fn unlabelled_vertices_are_skipped_and_counted() {
    // Vertices 2 (unlabelled in a) and 4 (in b) are left out; the 3 others agree exactly.
    let a = [0, 0, U, 1, 1];
    let b = [6, 6, 6, 7, U];
    let m = nmi(&a, &b).unwrap();
    assert_eq!(m.compared, 3);
    assert_close!(m.value, 1.0);
    let t = ContingencyTable::new(&a, &b).unwrap();
    assert_eq!(t.compared(), 3);
    assert_eq!(t.rows(), &[(0, 2), (1, 1)]);
    assert_eq!(t.columns(), &[(6, 2), (7, 1)]);
    assert_eq!(ari(&a, &b).unwrap().compared, 3);
}

#[test]
fn nmi_and_ari_match_naive_definitions_on_random_partitions() {
    let mut rng = SplitMix(99);
    let values = [0u32, 1, 2, 7, 1 << 20, 3_000_000_000, U - 1];
    for trial in 0..200 {
        let n = 1 + rng.below(60) as usize;
        let ka = 1 + rng.below(values.len() as u64);
        let kb = 1 + rng.below(values.len() as u64);
        let draw = |rng: &mut SplitMix, k: u64| if rng.below(10) == 0 { U } else { values[rng.below(k) as usize] };
        let a: Vec<u32> = (0..n).map(|_| draw(&mut rng, ka)).collect();
        let b: Vec<u32> = (0..n).map(|_| draw(&mut rng, kb)).collect();
        let compared = a.iter().zip(&b).filter(|(&x, &y)| x != U && y != U).count();
        if compared == 0 {
            assert!(nmi(&a, &b).is_err());
            continue;
        }
        let (m, r) = (nmi(&a, &b).unwrap(), ari(&a, &b).unwrap());
        assert!((m.value - naive_nmi(&a, &b)).abs() < 1e-12, "trial {trial}: {} vs {}", m.value, naive_nmi(&a, &b));
        assert!((r.value - naive_ari(&a, &b)).abs() < 1e-12, "trial {trial}: {} vs {}", r.value, naive_ari(&a, &b));
        assert_eq!(m.compared, compared as u64);
    }
}

// ---------------------------------------------------------------------------------------
// Overlapping NMI.

fn cover(communities: &[&[u32]]) -> Cover {
    Cover { communities: communities.iter().map(|c| c.to_vec()).collect() }
}

#[test]
fn overlapping_nmi_by_hand() {
    // Universe N = 8, X = {{0,1,2}}, Y = {{0,1,2,3}}; h(k) = -(k/8) log2(k/8).
    // Pair cells: a = 8 - |X u Y| = 4, b = |Y \ X| = 1, c = |X \ Y| = 0, d = |X n Y| = 3.
    // h(4) = 0.5, h(1) = 0.375, h(3) = 0.5306390622295665, h(5) = 0.4237949406953986.
    // Condition h(a) + h(d) = 1.0306 > h(b) + h(c) = 0.375: accepted.
    // H(X_1) = h(3) + h(5) = 0.954434002924965, H(Y_1) = h(4) + h(4) = 1.
    // H(X_1, Y_1) = h(4) + h(1) + h(0) + h(3) = 1.4056390622295665.
    // H(X|Y) = 1.40564 - 1 = 0.40563906222956647; H(Y|X) = 1.40564 - 0.95443 = 0.4512050593046014.
    // I = (0.954434 - 0.405639 + 1 - 0.451205)/2 = 0.5487949406953985 = NMI_max (max(H) = 1).
    // LFK = 1 - (0.405639/0.954434 + 0.451205/1)/2 = 0.5618950547870413.
    let r = overlapping_nmi(&cover(&[&[0, 1, 2]]), &cover(&[&[0, 1, 2, 3]]), 8).unwrap();
    assert_close!(r.entropy_x, 0.954434002924965);
    assert_close!(r.entropy_y, 1.0);
    assert_close!(r.conditional_x_given_y, 0.40563906222956647);
    assert_close!(r.conditional_y_given_x, 0.4512050593046014);
    assert_close!(r.nmi_max, 0.5487949406953985);
    assert_close!(r.lfk, 0.5618950547870413);
    assert_eq!((r.universe, r.communities_x, r.communities_y), (8, 1, 1));
}

#[test]
fn overlapping_nmi_rejects_complement_like_matches() {
    // N = 8, X = {{0,1}}, Y = {{1,...,7}}: a = 0, b = 6, c = 1, d = 1.
    // h(a) + h(d) = 0 + 0.375 is not > h(b) + h(c) = 0.311278 + 0.375: rejected both ways,
    // so H(X|Y) = H(X), H(Y|X) = H(Y): I = 0, NMI_max = 0, LFK = 1 - (1 + 1)/2 = 0.
    let r = overlapping_nmi(&cover(&[&[0, 1]]), &cover(&[&[1, 2, 3, 4, 5, 6, 7]]), 8).unwrap();
    assert_eq!((r.nmi_max, r.lfk), (0.0, 0.0));
    assert_close!(r.conditional_x_given_y, r.entropy_x);
}

#[test]
fn overlapping_nmi_accepts_disjoint_giant_matches() {
    // N = 100, X = {{0}}, Y = {{20..99}} (80 vertices, disjoint from X): a = 19, b = 80,
    // c = 1, d = 0. h(19) = 0.4552264, h(80) = 0.2575425, h(1) = 0.0664386:
    // 0.455 > 0.324, so the pair is accepted although it shares no vertex.
    let x = cover(&[&[0]]);
    let giant: Vec<u32> = (20..100).collect();
    let y = Cover { communities: vec![giant] };
    let r = overlapping_nmi(&x, &y, 100).unwrap();
    // H(X_1 | Y_1) = h(19) + h(80) + h(1) - H(Y_1), H(Y_1) = h(80) + h(20).
    let h = |k: f64| -(k / 100.0) * (k / 100.0).log2();
    let expected = h(19.0) + h(80.0) + h(1.0) - (h(80.0) + h(20.0));
    assert!(expected < r.entropy_x);
    assert_close!(r.conditional_x_given_y, expected);
    let (nmi_max, lfk) = naive_onmi(&x.communities, &y.communities, 100);
    assert_close!(r.nmi_max, nmi_max);
    assert_close!(r.lfk, lfk);
}

#[test]
fn identical_covers_score_one() {
    let x = cover(&[&[0, 1, 2, 3], &[3, 4, 5], &[5, 6, 7, 8], &[]]);
    let y = cover(&[&[5, 6, 7, 8], &[0, 1, 2, 3], &[3, 4, 5]]);
    let r = overlapping_nmi(&x, &y, 12).unwrap();
    assert_eq!((r.nmi_max, r.lfk), (1.0, 1.0));
    // The empty community is ignored.
    assert_eq!((r.communities_x, r.communities_y), (3, 3));
}

#[test]
fn overlapping_nmi_matches_all_pairs_definition_on_random_covers() {
    let mut rng = SplitMix(2024);
    for trial in 0..300 {
        let universe = 2 + rng.below(60) as usize;
        let random_cover = |rng: &mut SplitMix| -> Vec<Vec<u32>> {
            let k = 1 + rng.below(7);
            (0..k)
                .map(|_| {
                    // Sizes from tiny to the whole universe: giants exercise disjoint pairs.
                    let keep = 1 + rng.below(100);
                    let members: Vec<u32> = (0..universe as u32).filter(|_| rng.below(100) < keep).collect();
                    if members.is_empty() {
                        vec![rng.below(universe as u64) as u32]
                    } else {
                        members
                    }
                })
                .collect()
        };
        let (x, y) = (random_cover(&mut rng), random_cover(&mut rng));
        let r =
            overlapping_nmi(&Cover { communities: x.clone() }, &Cover { communities: y.clone() }, universe).unwrap();
        let (nmi_max, lfk) = naive_onmi(&x, &y, universe);
        assert!((r.nmi_max - nmi_max.clamp(0.0, 1.0)).abs() < 1e-12, "trial {trial}: {} vs {nmi_max}", r.nmi_max);
        assert!((r.lfk - lfk.clamp(0.0, 1.0)).abs() < 1e-12, "trial {trial}: {} vs {lfk}", r.lfk);
    }
}

#[test]
fn covered_universe_counts_only_vertices_in_a_cover() {
    // Vertices 0..=3 appear; 100 does too: N = 5 distinct vertices (ids need not be dense).
    let x = cover(&[&[0, 1, 2], &[100]]);
    let y = cover(&[&[0, 1], &[2, 3, 100]]);
    let r = overlapping_nmi_covered(&x, &y).unwrap();
    assert_eq!(r.universe, 5);
    // Same numbers as the dense relabelling 100 -> 4 over the universe 0..5.
    let dense = overlapping_nmi(&cover(&[&[0, 1, 2], &[4]]), &cover(&[&[0, 1], &[2, 3, 4]]), 5).unwrap();
    assert_eq!(r, dense);
    let (nmi_max, lfk) = naive_onmi(&dense_of(&[&[0, 1, 2], &[4]]), &dense_of(&[&[0, 1], &[2, 3, 4]]), 5);
    assert_close!(r.nmi_max, nmi_max);
    assert_close!(r.lfk, lfk);
}

fn dense_of(c: &[&[u32]]) -> Vec<Vec<u32>> {
    c.iter().map(|x| x.to_vec()).collect()
}

#[test]
fn partitions_become_covers() {
    let labels = [5, 2, 5, U, 2, 9];
    // Ascending labels 2, 5, 9; members ascending; the unlabelled vertex 3 is in none.
    assert_eq!(cover_from_labels(&labels).communities, vec![vec![1, 4], vec![0, 2], vec![5]]);
    // A partition compared with itself as a cover: 1.
    let as_cover = cover_from_labels(&labels);
    let r = overlapping_nmi_of_partition(&labels, &as_cover).unwrap();
    assert_eq!(r.nmi_max, 1.0);
    assert_eq!(r.universe, 6);
    let err = overlapping_nmi_of_partition(&[U, U], &as_cover).unwrap_err().to_string();
    assert!(err.contains("labels no vertex"), "{err}");
}

#[test]
fn malformed_covers_are_errors() {
    let good = cover(&[&[0, 1]]);
    let err = overlapping_nmi(&cover(&[&[0, 9]]), &good, 5).unwrap_err().to_string();
    assert!(err.contains("vertex 9") && err.contains("first cover"), "{err}");
    let err = overlapping_nmi(&good, &cover(&[&[2, 1]]), 5).unwrap_err().to_string();
    assert!(err.contains("strictly ascending") && err.contains("second cover"), "{err}");
    assert!(overlapping_nmi(&good, &cover(&[&[1, 1]]), 5).is_err());
    assert!(overlapping_nmi(&good, &cover(&[&[]]), 5).is_err());
    assert!(overlapping_nmi(&Cover::default(), &good, 5).is_err());
}
