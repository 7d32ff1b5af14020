//! Modularity, conductance, community sizes and the quality report, checked against values
//! computed by hand on small graphs and against naive implementations written here from the
//! textbook definitions.

mod support;
use glp_testkit::rng::SplitMix;

use glp_runtime::community::{Cover, GroundTruth, UNLABELLED};
use glp_runtime::graph::Csr;
use glp_runtime::metrics::{conductance, modularity, size_stats, CommunityKey, QualityReport, SizeBin};

const U: u32 = UNLABELLED;

/// Undirected graph stored in both directions, rows sorted; self loops stored once.
fn undirected(n: usize, edges: &[(u32, u32)], weights: Option<&[f32]>) -> Csr {
    let mut entries: Vec<(u32, u32, f32)> = Vec::new();
    for (i, &(u, v)) in edges.iter().enumerate() {
        let w = weights.map_or(1.0, |w| w[i]);
        entries.push((u, v, w));
        if u != v {
            entries.push((v, u, w));
        }
    }
    entries.sort_by_key(|e| (e.0, e.1));
    let mut offsets = vec![0u64; n + 1];
    for e in &entries {
        offsets[e.0 as usize + 1] += 1;
    }
    for v in 0..n {
        offsets[v + 1] += offsets[v];
    }
    let targets = entries.iter().map(|e| e.1).collect();
    let weights = weights.map(|_| entries.iter().map(|e| e.2).collect());
    Csr::new(offsets, targets, weights).expect("test graph is valid")
}

/// Two triangles {0,1,2} and {3,4,5} joined by the bridge 2-3.
/// Degrees 2,2,3,3,2,2; m = 7 edges, 2m = 14 stored entries.
fn two_triangles() -> Csr {
    undirected(6, &[(0, 1), (0, 2), (1, 2), (3, 4), (3, 5), (4, 5), (2, 3)], None)
}

/// The same shape with weights: 0-1:1, 0-2:2, 1-2:3, 3-4:1, 3-5:1, 4-5:1, bridge 2-3:0.5.
/// Weighted degrees: d0 = 1+2 = 3, d1 = 1+3 = 4, d2 = 2+3+0.5 = 5.5, d3 = 1+1+0.5 = 2.5,
/// d4 = 2, d5 = 2; 2m = 2 * (1+2+3+1+1+1+0.5) = 19.
fn weighted_triangles() -> Csr {
    undirected(6, &[(0, 1), (0, 2), (1, 2), (3, 4), (3, 5), (4, 5), (2, 3)], Some(&[1.0, 2.0, 3.0, 1.0, 1.0, 1.0, 0.5]))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

macro_rules! assert_close {
    ($a:expr, $b:expr) => {{
        let (a, b): (f64, f64) = ($a, $b);
        assert!(close(a, b), "{} = {a} but expected {b}", stringify!($a));
    }};
}

/// The stored CSR as a dense matrix A (A[u][v] = stored weight of u -> v).
fn dense_matrix(csr: &Csr) -> Vec<Vec<f64>> {
    let n = csr.num_vertices();
    let mut a = vec![vec![0.0; n]; n];
    for u in 0..n as u32 {
        for (k, &v) in csr.neighbors(u).iter().enumerate() {
            a[u as usize][v as usize] += csr.neighbor_weights(u).map_or(1.0, |w| w[k] as f64);
        }
    }
    a
}

/// Community of each vertex with unlabelled vertices made singletons: (label, vertex) keys.
fn community_of(labels: &[u32], v: usize) -> (u32, usize) {
    if labels[v] == U {
        (U, v)
    } else {
        (labels[v], usize::MAX)
    }
}

/// Q = 1/2m sum_ij (A_ij - k_i k_j / 2m) delta(c_i, c_j), term by term over all pairs.
fn naive_modularity(csr: &Csr, labels: &[u32]) -> f64 {
    let a = dense_matrix(csr);
    let n = a.len();
    let k: Vec<f64> = a.iter().map(|row| row.iter().sum()).collect();
    let two_m: f64 = k.iter().sum();
    let mut q = 0.0;
    for i in 0..n {
        for j in 0..n {
            if community_of(labels, i) == community_of(labels, j) {
                q += a[i][j] - k[i] * k[j] / two_m;
            }
        }
    }
    q / two_m
}

/// Conductance of the community containing vertex `v`, from sets: cut / min(vol, 2m - vol).
fn naive_conductance(csr: &Csr, labels: &[u32], v: usize) -> Option<f64> {
    let a = dense_matrix(csr);
    let n = a.len();
    let inside: Vec<bool> = (0..n).map(|u| community_of(labels, u) == community_of(labels, v)).collect();
    let (mut cut, mut vol, mut total) = (0.0, 0.0, 0.0);
    for i in 0..n {
        for j in 0..n {
            total += a[i][j];
            if inside[i] {
                vol += a[i][j];
                if !inside[j] {
                    cut += a[i][j];
                }
            }
        }
    }
    let denominator = f64::min(vol, total - vol);
    (denominator > 0.0).then(|| cut / denominator)
}

#[test]
fn modularity_of_two_triangles_by_hand() {
    let g = two_triangles();
    // {0,1,2}, {3,4,5}: each has 3 internal edges, sigma_c = 6 stored entries, and
    // Sigma_c = 2+2+3 = 7. Q = 2 * (6/14 - (7/14)^2) = 2 * (3/7 - 1/4) = 5/14.
    assert_close!(modularity(&g, &[0, 0, 0, 1, 1, 1]).unwrap(), 5.0 / 14.0);
    // One community: sigma = Sigma = 14, Q = 14/14 - 1 = 0.
    assert_close!(modularity(&g, &[4; 6]).unwrap(), 0.0);
    // Singletons: no internal entry, Q = -(2^2+2^2+3^2+3^2+2^2+2^2)/14^2 = -34/196 = -17/98.
    assert_close!(modularity(&g, &[0, 1, 2, 3, 4, 5]).unwrap(), -17.0 / 98.0);
    // Unlabelled vertices are singletons: {0,1,2}, {3}, {4}, {5}:
    // Q = 6/14 - (7^2 + 3^2 + 2^2 + 2^2)/14^2 = 84/196 - 66/196 = 9/98.
    assert_close!(modularity(&g, &[0, 0, 0, U, U, U]).unwrap(), 9.0 / 98.0);
    // The same partition written with sparse label values gives the same number.
    assert_close!(modularity(&g, &[4_000_000_000, 4_000_000_000, 4_000_000_000, 7, 7, 7]).unwrap(), 5.0 / 14.0);
}

#[test]
fn modularity_of_weighted_triangles_by_hand() {
    let g = weighted_triangles();
    // {0,1,2}: sigma = 2*(1+2+3) = 12, Sigma = 3+4+5.5 = 12.5.
    // {3,4,5}: sigma = 2*(1+1+1) = 6,  Sigma = 2.5+2+2 = 6.5.
    // Q = (12+6)/19 - (12.5^2 + 6.5^2)/19^2 = 18/19 - 198.5/361 = (342 - 198.5)/361 = 143.5/361.
    assert_close!(modularity(&g, &[0, 0, 0, 1, 1, 1]).unwrap(), 143.5 / 361.0);
}

#[test]
fn self_loops_are_counted_once() {
    // Edge 0-1 and a self loop at 0, stored once: rows 0 -> [0, 1], 1 -> [0]; 2m = 3,
    // degree(0) = 2 (loop once + edge), degree(1) = 1.
    let g = undirected(2, &[(0, 1), (0, 0)], None);
    assert_eq!(g.num_edges(), 3);
    // {0}: sigma = 1 (the loop), Sigma = 2; {1}: sigma = 0, Sigma = 1.
    // Q = 1/3 - (2/3)^2 - (1/3)^2 = 3/9 - 4/9 - 1/9 = -2/9.
    assert_close!(modularity(&g, &[0, 1]).unwrap(), -2.0 / 9.0);
    // An unlabelled vertex's loop is inside its singleton: same value.
    assert_close!(modularity(&g, &[U, 1]).unwrap(), -2.0 / 9.0);
    // {0,1}: sigma = Sigma = 3: Q = 1 - 1 = 0.
    assert_close!(modularity(&g, &[0, 0]).unwrap(), 0.0);
}

#[test]
fn modularity_matches_the_pairwise_definition_on_random_graphs() {
    let mut rng = SplitMix(7);
    for trial in 0..40 {
        let n = 2 + rng.below(30) as usize;
        let m = rng.below(3 * n as u64) as usize;
        let edges: Vec<(u32, u32)> = (0..m).map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32)).collect();
        let weights: Vec<f32> = (0..m).map(|_| (1 + rng.below(8)) as f32 / 4.0).collect();
        let weighted = trial % 2 == 1;
        let g = undirected(n, &edges, weighted.then_some(&weights[..]));
        let communities = 1 + rng.below(6);
        let labels: Vec<u32> = (0..n)
            .map(|_| match rng.below(8) {
                0 => U,
                _ => rng.below(communities) as u32 * 3,
            })
            .collect();
        if g.num_edges() == 0 {
            assert_eq!(modularity(&g, &labels).unwrap(), 0.0);
            continue;
        }
        let expected = naive_modularity(&g, &labels);
        let q = modularity(&g, &labels).unwrap();
        assert!((q - expected).abs() < 1e-12, "trial {trial}: {q} vs naive {expected}");
    }
}

#[test]
fn modularity_is_identical_with_one_thread_and_many() {
    // A weighted graph large enough to be split across threads: the digits must not change.
    let mut rng = SplitMix(11);
    let n = 50_000;
    let edges: Vec<(u32, u32)> = (0..200_000).map(|_| (rng.below(n) as u32, rng.below(n) as u32)).collect();
    let weights: Vec<f32> = (0..edges.len()).map(|_| rng.below(1000) as f32 / 7.0).collect();
    let g = undirected(n as usize, &edges, Some(&weights));
    let labels: Vec<u32> = (0..n).map(|v| (v / 37) as u32).collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| (modularity(&g, &labels).unwrap(), conductance(&g, &labels).unwrap()))
    };
    let (q1, c1) = run(1);
    let (q4, c4) = run(4);
    assert_eq!(q1.to_bits(), q4.to_bits());
    assert_eq!(c1, c4);
}

#[test]
fn empty_graphs_and_bad_input() {
    // No edge: 2m = 0, modularity defined as 0.
    assert_eq!(modularity(&Csr::empty(3), &[0, 1, 1]).unwrap(), 0.0);
    let g = two_triangles();
    assert!(modularity(&g, &[0, 0, 0]).is_err(), "3 labels for 6 vertices");
    let negative = undirected(2, &[(0, 1)], Some(&[-1.0]));
    let err = modularity(&negative, &[0, 0]).unwrap_err().to_string();
    assert!(err.contains("negative weight"), "{err}");
    assert!(conductance(&negative, &[0, 0]).is_err());
}

#[test]
fn conductance_of_two_triangles_by_hand() {
    let g = two_triangles();
    let c = conductance(&g, &[0, 0, 0, 1, 1, 1]).unwrap();
    // Each triangle: cut = 1 (the bridge), vol = 7, vol of the rest = 14 - 7 = 7: phi = 1/7.
    assert_eq!(c.communities.len(), 2);
    for (k, community) in c.communities.iter().enumerate() {
        assert_eq!(community.community, CommunityKey::Label(k as u32));
        assert_eq!((community.size, community.volume, community.cut), (3, 7.0, 1.0));
        assert_close!(community.conductance.unwrap(), 1.0 / 7.0);
    }
    assert_close!(c.summary.mean.unwrap(), 1.0 / 7.0);
    assert_close!(c.summary.size_weighted_mean.unwrap(), 1.0 / 7.0);

    // {0,1,2}, and 3, 4, 5 unlabelled singletons:
    // {0,1,2}: 1/min(7, 7) = 1/7; {3}: cut 3, vol 3, rest 11: 3/3 = 1; {4}, {5}: 2/2 = 1.
    // mean = (1/7 + 3)/4 = 11/14; size-weighted = (3 * 1/7 + 1 + 1 + 1)/6 = 4/7.
    let c = conductance(&g, &[0, 0, 0, U, U, U]).unwrap();
    let keys: Vec<CommunityKey> = c.communities.iter().map(|x| x.community).collect();
    use CommunityKey::{Label, Unlabelled};
    assert_eq!(keys, vec![Label(0), Unlabelled(3), Unlabelled(4), Unlabelled(5)]);
    assert_close!(c.summary.mean.unwrap(), 11.0 / 14.0);
    assert_close!(c.summary.size_weighted_mean.unwrap(), 4.0 / 7.0);
    assert_close!(c.summary.min.unwrap(), 1.0 / 7.0);
    assert_close!(c.summary.max.unwrap(), 1.0);
    assert_eq!((c.summary.communities, c.summary.undefined), (4, 0));
}

#[test]
fn conductance_of_weighted_triangles_by_hand() {
    let c = conductance(&weighted_triangles(), &[0, 0, 0, 1, 1, 1]).unwrap();
    // {0,1,2}: cut 0.5, vol 12.5, rest 19 - 12.5 = 6.5: phi = 0.5/6.5 = 1/13.
    // {3,4,5}: cut 0.5, vol 6.5, rest 12.5: phi = 0.5/6.5 = 1/13.
    assert_eq!(c.communities[0].volume, 12.5);
    assert_eq!(c.communities[1].volume, 6.5);
    for community in &c.communities {
        assert_close!(community.conductance.unwrap(), 1.0 / 13.0);
    }
}

#[test]
fn conductance_is_undefined_without_volume_inside_or_outside() {
    // Triangle 0-1-2 plus the isolated vertex 3.
    let g = undirected(4, &[(0, 1), (1, 2), (0, 2)], None);
    // {0,1,2} holds all 6 stored entries: vol(rest) = 0 -> undefined.
    // {3} has no edge: vol = 0 -> undefined.
    let c = conductance(&g, &[0, 0, 0, 1]).unwrap();
    assert!(c.communities.iter().all(|x| x.conductance.is_none()));
    assert_eq!((c.summary.communities, c.summary.undefined), (2, 2));
    assert_eq!((c.summary.mean, c.summary.min, c.summary.max), (None, None, None));
    // {0,1}, {2}, {3}: {0,1}: cut 2 (0-2, 1-2), vol 4, rest 2 -> 2/2 = 1;
    // {2}: cut 2, vol 2, rest 4 -> 1; {3} undefined. Mean over defined: 1.
    let c = conductance(&g, &[0, 0, 2, 3]).unwrap();
    assert_eq!(c.summary.undefined, 1);
    assert_close!(c.summary.mean.unwrap(), 1.0);
}

#[test]
fn conductance_matches_sets_on_random_graphs() {
    let mut rng = SplitMix(3);
    for trial in 0..30 {
        let n = 2 + rng.below(25) as usize;
        let edges: Vec<(u32, u32)> =
            (0..2 * n).map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32)).collect();
        let weights: Vec<f32> = (0..edges.len()).map(|_| (1 + rng.below(5)) as f32 * 0.75).collect();
        let g = undirected(n, &edges, (trial % 2 == 0).then_some(&weights[..]));
        let labels: Vec<u32> = (0..n).map(|_| if rng.below(6) == 0 { U } else { rng.below(4) as u32 }).collect();
        let c = conductance(&g, &labels).unwrap();
        for community in &c.communities {
            let v = match community.community {
                CommunityKey::Label(l) => labels.iter().position(|&x| x == l).unwrap(),
                CommunityKey::Unlabelled(v) => v as usize,
            };
            let expected = naive_conductance(&g, &labels, v);
            match (community.conductance, expected) {
                (Some(a), Some(b)) => assert!((a - b).abs() < 1e-12, "trial {trial}: {a} vs {b}"),
                (a, b) => assert_eq!(a, b, "trial {trial}"),
            }
        }
    }
}

#[test]
fn size_statistics_by_hand() {
    // Communities: label 5 -> 4 vertices, label 1 -> 1, label 9 -> 2, label 0 -> 1,
    // plus 2 unlabelled singletons. Sizes sorted: 1, 1, 1, 1, 2, 4 (count 6).
    let labels = [5, 5, 1, 9, 5, U, 9, 0, 5, U];
    let s = size_stats(&labels);
    assert_eq!((s.vertices, s.unlabelled, s.count, s.singletons), (10, 2, 6, 4));
    assert_eq!((s.min, s.max), (1, 4));
    // mean = 10 / 6; median of an even count = (1 + 1) / 2 = 1.
    assert_close!(s.mean, 10.0 / 6.0);
    assert_close!(s.median, 1.0);
    // Bins [1,1]: four communities; [2,3]: one (size 2); [4,7]: one (size 4).
    let bin = |min_size, max_size, count| SizeBin { min_size, max_size, count };
    assert_eq!(s.histogram, vec![bin(1, 1, 4), bin(2, 3, 1), bin(4, 7, 1)]);

    // Sizes 3, 5, 9 (odd count): median 5, bins [1,1]:0 [2,3]:1 [4,7]:1 [8,15]:1.
    let mut labels = vec![0u32; 3];
    labels.extend([1; 5]);
    labels.extend([2; 9]);
    let s = size_stats(&labels);
    assert_close!(s.median, 5.0);
    assert_eq!(s.histogram, vec![bin(1, 1, 0), bin(2, 3, 1), bin(4, 7, 1), bin(8, 15, 1)]);
    assert_eq!(s.singletons, 0);

    let s = size_stats(&[]);
    assert_eq!((s.count, s.max, s.mean), (0, 0, 0.0));
    assert!(s.histogram.is_empty());
}

#[test]
fn report_bundles_every_metric() {
    let g = two_triangles();
    let labels = [0, 0, 0, 1, 1, 1];
    // Ground truth {0,1,2,3}, {4,5}: compared with the found partition, cells
    // (0,a) = 3, (1,a) = 1, (1,b) = 2 over N = 6; ARI: index = C(3,2) + C(2,2) = 4,
    // A = 2 C(3,2) = 6, B = C(4,2) + C(2,2) = 7, T = 15, expected = 42/15 = 2.8,
    // ARI = (4 - 2.8)/(6.5 - 2.8) = 1.2/3.7 = 12/37.
    let truth = GroundTruth::Partition(vec![7, 7, 7, 7, 8, 8]);
    let report = QualityReport::new(&g, &labels, Some(&truth)).unwrap();
    assert_close!(report.modularity, 5.0 / 14.0);
    assert_eq!(report.communities.count, 2);
    assert_close!(report.conductance.mean.unwrap(), 1.0 / 7.0);
    assert_close!(report.ari.unwrap().value, 12.0 / 37.0);
    assert_eq!(report.nmi.unwrap().compared, 6);
    assert!(report.overlapping_nmi.is_none());
    assert_eq!((report.vertices, report.stored_edges, report.total_weight), (6, 14, 14.0));

    // Cover ground truth equal to the found communities: overlapping NMI 1.
    let cover = GroundTruth::Cover(Cover { communities: vec![vec![0, 1, 2], vec![3, 4, 5]] });
    let report = QualityReport::new(&g, &labels, Some(&cover)).unwrap();
    assert_eq!(report.overlapping_nmi.unwrap().nmi_max, 1.0);
    // It does not overlap, so it is a partition too: NMI and ARI 1.
    assert_close!(report.nmi.as_ref().unwrap().value, 1.0);
    assert_close!(report.ari.as_ref().unwrap().value, 1.0);
    // An overlapping cover gets no partition comparison.
    let overlapping = GroundTruth::Cover(Cover { communities: vec![vec![0, 1, 2, 3], vec![3, 4, 5]] });
    assert!(QualityReport::new(&g, &labels, Some(&overlapping)).unwrap().nmi.is_none());

    // Serialises to JSON with every field named.
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["modularity"].as_f64().unwrap(), report.modularity);
    assert_eq!(json["communities"]["histogram"][1]["count"], 2);
    assert_eq!(json["overlapping_nmi"]["nmi_max"], 1.0);

    // A ground-truth partition of the wrong length is an error, not a panic.
    assert!(QualityReport::new(&g, &labels, Some(&GroundTruth::Partition(vec![0; 5]))).is_err());
    // A cover naming a vertex outside the graph too.
    let outside = GroundTruth::Cover(Cover { communities: vec![vec![0, 6]] });
    assert!(QualityReport::new(&g, &labels, Some(&outside)).is_err());
}
