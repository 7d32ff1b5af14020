//! Metrics on real graphs of the repository's data folder: a published modularity value (Zachary's
//! karate club), cross-checks against independent implementations written here, and the
//! com-DBLP scale (about 1M undirected edges) with timings printed (`--nocapture`).
//!
//! The graphs are read by small parsers written here, independent of `glp_runtime::io`.

use glp_runtime::community::{Cover, UNLABELLED};
use glp_runtime::graph::Csr;
use glp_runtime::metrics::{modularity, nmi, overlapping_nmi, size_stats, ContingencyTable, QualityReport};
use std::collections::HashMap;
use std::time::Instant;

const U: u32 = UNLABELLED;

/// A data file's text (decompressed by the test kit).
fn read_text(name: &str) -> String {
    String::from_utf8(glp_testkit::data::read(name)).unwrap()
}

/// Lines that are not comments, split on whitespace into integers.
fn rows(text: &str) -> impl Iterator<Item = Vec<u64>> + '_ {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with('%') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(|x| x.parse::<u64>().unwrap()).collect())
}

/// Undirected simple graph: each edge once as (min, max), no self loops, no duplicates.
fn simple_edges(mut edges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    for e in edges.iter_mut() {
        *e = (e.0.min(e.1), e.0.max(e.1));
    }
    edges.retain(|e| e.0 != e.1);
    edges.sort_unstable();
    edges.dedup();
    edges
}

/// CSR storing every undirected edge in both directions, rows sorted.
fn csr_of(n: usize, edges: &[(u32, u32)]) -> Csr {
    let mut offsets = vec![0u64; n + 1];
    for &(u, v) in edges {
        offsets[u as usize + 1] += 1;
        offsets[v as usize + 1] += 1;
    }
    for v in 0..n {
        offsets[v + 1] += offsets[v];
    }
    let mut cursor = offsets.clone();
    let mut targets = vec![0u32; 2 * edges.len()];
    for &(u, v) in edges {
        targets[cursor[u as usize] as usize] = v;
        cursor[u as usize] += 1;
        targets[cursor[v as usize] as usize] = u;
        cursor[v as usize] += 1;
    }
    for v in 0..n {
        targets[offsets[v] as usize..offsets[v + 1] as usize].sort_unstable();
    }
    Csr::new(offsets, targets, None).unwrap()
}

/// Modularity from the edge list with hash maps, per community (unlabelled = singletons):
/// Q = sum_c [2 e_c / 2m - (d_c / 2m)^2] with e_c the undirected edges inside c.
fn independent_modularity(edges: &[(u32, u32)], labels: &[u32]) -> f64 {
    let community = |v: u32| if labels[v as usize] == U { (1u64 << 32) | v as u64 } else { labels[v as usize] as u64 };
    let mut inside: HashMap<u64, f64> = HashMap::new();
    let mut degree: HashMap<u64, f64> = HashMap::new();
    for &(u, v) in edges {
        *degree.entry(community(u)).or_default() += 1.0;
        *degree.entry(community(v)).or_default() += 1.0;
        if community(u) == community(v) {
            *inside.entry(community(u)).or_default() += 2.0;
        }
    }
    let two_m = 2.0 * edges.len() as f64;
    inside.values().sum::<f64>() / two_m - degree.values().map(|d| (d / two_m).powi(2)).sum::<f64>()
}

/// Pairwise modularity, Q = 1/2m sum_ij (A_ij - k_i k_j / 2m) delta(c_i, c_j), on a dense matrix.
fn pairwise_modularity(n: usize, edges: &[(u32, u32)], labels: &[u32]) -> f64 {
    let mut a = vec![vec![0.0; n]; n];
    for &(u, v) in edges {
        a[u as usize][v as usize] += 1.0;
        a[v as usize][u as usize] += 1.0;
    }
    let k: Vec<f64> = a.iter().map(|r| r.iter().sum()).collect();
    let two_m: f64 = k.iter().sum();
    let mut q = 0.0;
    for i in 0..n {
        for j in 0..n {
            if labels[i] == labels[j] {
                q += a[i][j] - k[i] * k[j] / two_m;
            }
        }
    }
    q / two_m
}

fn karate() -> (usize, Vec<(u32, u32)>) {
    let text = read_text("karate.mtx");
    let mut lines = rows(&text);
    let header = lines.next().unwrap();
    assert_eq!(header, vec![34, 34, 78]);
    let edges = lines.map(|r| (r[0] as u32 - 1, r[1] as u32 - 1)).collect();
    (34, simple_edges(edges))
}

#[test]
fn karate_club_optimal_partition_has_the_published_modularity() {
    let (n, edges) = karate();
    assert_eq!(edges.len(), 78);
    // The modularity-maximising partition of Zachary's karate club (4 communities, 1-based
    // member ids), with the published optimum Q = 0.4198 (Brandes et al., "On modularity
    // clustering", IEEE TKDE 2008; Agarwal & Kempe 2008).
    let parts: [&[u32]; 4] = [
        &[1, 2, 3, 4, 8, 12, 13, 14, 18, 20, 22],
        &[5, 6, 7, 11, 17],
        &[9, 10, 15, 16, 19, 21, 23, 27, 30, 31, 33, 34],
        &[24, 25, 26, 28, 29, 32],
    ];
    let mut labels = vec![U; n];
    for (c, part) in parts.iter().enumerate() {
        for &v in *part {
            labels[v as usize - 1] = c as u32;
        }
    }
    let g = csr_of(n, &edges);
    let q = modularity(&g, &labels).unwrap();
    // By hand (counting the edges of karate.mtx): 2m = 156; the communities hold 23, 6, 21
    // and 7 undirected edges (stored twice: 114 in all) and have degree sums 60, 16, 56, 24:
    // Q = 114/156 - (60^2 + 16^2 + 56^2 + 24^2)/156^2 = 114/156 - 7568/24336 = 0.4197896...
    assert!((q - (114.0 / 156.0 - 7568.0 / 24336.0)).abs() < 1e-12, "{q}");
    assert!((q - 0.4198).abs() < 5e-5, "{q}");
    assert!((q - pairwise_modularity(n, &edges, &labels)).abs() < 1e-12);
    let sizes = size_stats(&labels);
    assert_eq!((sizes.count, sizes.min, sizes.max), (4, 5, 12));
}

#[test]
fn football_conferences_match_independent_computations() {
    let edges = simple_edges(rows(&read_text("football.edges")).map(|r| (r[0] as u32, r[1] as u32)).collect());
    let n = 115;
    let mut labels = vec![U; n];
    for r in rows(&read_text("football.labels")) {
        labels[r[0] as usize] = r[1] as u32;
    }
    assert!(!labels.contains(&U));
    let g = csr_of(n, &edges);
    let q = modularity(&g, &labels).unwrap();
    assert!((q - pairwise_modularity(n, &edges, &labels)).abs() < 1e-12);
    assert!((q - independent_modularity(&edges, &labels)).abs() < 1e-12);
    // The report against the labels themselves: NMI = ARI = 1 with every vertex compared.
    let truth = glp_runtime::community::GroundTruth::Partition(labels.clone());
    let report = QualityReport::new(&g, &labels, Some(&truth)).unwrap();
    assert_eq!(report.nmi.unwrap().compared, n as u64);
    assert!((report.nmi.unwrap().value - 1.0).abs() < 1e-12);
    assert_eq!(report.ari.unwrap().value, 1.0);
}

/// com-DBLP: 317080 vertices (sparse ids), 1049866 edges, 13477 overlapping communities.
struct Dblp {
    n: usize,
    edges: Vec<(u32, u32)>,
    cover: Cover,
}

fn dblp() -> Dblp {
    let raw: Vec<(u64, u64)> = rows(&read_text("com-dblp.edges.gz")).map(|r| (r[0], r[1])).collect();
    let mut ids: Vec<u64> = raw.iter().flat_map(|&(u, v)| [u, v]).collect();
    ids.sort_unstable();
    ids.dedup();
    let dense = |id: u64| ids.binary_search(&id).unwrap() as u32;
    let edges = simple_edges(raw.iter().map(|&(u, v)| (dense(u), dense(v))).collect());
    let communities = rows(&read_text("com-dblp.all.cmty.txt.gz"))
        .map(|r| {
            let mut members: Vec<u32> = r.into_iter().map(dense).collect();
            members.sort_unstable();
            members.dedup();
            members
        })
        .collect();
    Dblp { n: ids.len(), edges, cover: Cover { communities } }
}

fn timed<T>(what: &str, f: impl Fn() -> T) -> T {
    // Best of three runs, so the printed time is not the cold first touch of the data.
    let mut best = f64::INFINITY;
    let mut result = None;
    for _ in 0..3 {
        let start = Instant::now();
        result = Some(f());
        best = best.min(start.elapsed().as_secs_f64());
    }
    eprintln!("{what}: {:.2} ms (best of 3, {} threads)", best * 1e3, rayon::current_num_threads());
    result.unwrap()
}

#[test]
fn dblp_scale_matches_independent_computations() {
    let d = dblp();
    assert_eq!(d.n, 317_080);
    assert_eq!(d.edges.len(), 1_049_866);
    assert_eq!(d.cover.communities.len(), 13_477);
    let g = csr_of(d.n, &d.edges);
    // Two partitions from the ground truth: each vertex's first and last community (by
    // line number); vertices in none stay unlabelled.
    let (mut first, mut last) = (vec![U; d.n], vec![U; d.n]);
    for (c, members) in d.cover.communities.iter().enumerate() {
        for &v in members {
            if first[v as usize] == U {
                first[v as usize] = c as u32;
            }
            last[v as usize] = c as u32;
        }
    }
    let q = timed("modularity (first ground-truth community)", || modularity(&g, &first).unwrap());
    let expected = independent_modularity(&d.edges, &first);
    assert!((q - expected).abs() < 1e-10, "{q} vs {expected}");
    // Labels shaped like label propagation's: vertex ids, here the smallest id among each
    // vertex and its neighbours (one step of min-label propagation).
    let min_label: Vec<u32> = (0..d.n as u32).map(|v| g.neighbors(v).iter().copied().fold(v, u32::min)).collect();
    let q = timed("modularity (vertex-id labels)", || modularity(&g, &min_label).unwrap());
    let expected = independent_modularity(&d.edges, &min_label);
    assert!((q - expected).abs() < 1e-10, "{q} vs {expected}");
    let with_truth =
        timed("nmi (vertex-id labels vs first ground-truth community)", || nmi(&min_label, &first).unwrap());
    assert!(with_truth.value > 0.0 && with_truth.value < 1.0);

    let m = timed("nmi (first vs last ground-truth community)", || nmi(&first, &last).unwrap());
    // Independent NMI from the contingency counts in a hash map.
    let mut joint: HashMap<(u32, u32), f64> = HashMap::new();
    let (mut ra, mut rb): (HashMap<u32, f64>, HashMap<u32, f64>) = (HashMap::new(), HashMap::new());
    let mut count = 0.0;
    for (&a, &b) in first.iter().zip(&last) {
        if a != U && b != U {
            *joint.entry((a, b)).or_default() += 1.0;
            *ra.entry(a).or_default() += 1.0;
            *rb.entry(b).or_default() += 1.0;
            count += 1.0;
        }
    }
    let h = |r: &HashMap<u32, f64>| r.values().map(|&x| -(x / count) * (x / count).ln()).sum::<f64>();
    let i: f64 = joint.iter().map(|(&(a, b), &x)| x / count * (count * x / (ra[&a] * rb[&b])).ln()).sum();
    let expected = i / ((h(&ra) + h(&rb)) / 2.0);
    assert!((m.value - expected).abs() < 1e-10, "{} vs {expected}", m.value);
    assert_eq!(m.compared as f64, count);

    let table = timed("contingency table (for nmi + ari)", || ContingencyTable::new(&first, &last).unwrap());
    assert_eq!(table.nmi().unwrap(), m);
    timed("quality report without ground truth", || QualityReport::new(&g, &first, None).unwrap());
    let onmi = timed("overlapping nmi (first-community partition vs ground-truth cover)", || {
        overlapping_nmi(&glp_runtime::metrics::cover_from_labels(&first), &d.cover, d.n).unwrap()
    });
    assert!(onmi.nmi_max > 0.0 && onmi.nmi_max < 1.0, "{onmi:?}");
    let itself = overlapping_nmi(&d.cover, &d.cover, d.n).unwrap();
    assert_eq!((itself.nmi_max, itself.lfk), (1.0, 1.0));
}
