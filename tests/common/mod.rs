//! Helpers the integration tests of the `glp` package share: graph loading from the test
//! kit's data files, the GPU skip, graph builders and label comparisons. Each test crate uses
//! a part of them.
#![allow(dead_code)]

use glp::device::Gpu;
use glp::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A data file's path (the test kit's lookup: the repository's data folder, then
/// `GLP_DATA_DIR`).
pub fn data(name: &str) -> PathBuf {
    glp_testkit::data::path(name)
}

/// Loads a data file with `duplicates` (symmetrised, no self loops).
pub fn load_with(name: &str, duplicates: DuplicateEdges) -> Graph {
    let options = LoadOptions {
        progress: false,
        build: BuildOptions { duplicates, ..BuildOptions::default() },
        ..LoadOptions::default()
    };
    glp::io::load_graph(&data(name), &options).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Loads a data file with the default options.
pub fn load(name: &str) -> Graph {
    load_with(name, DuplicateEdges::Collapse)
}

/// `vertex label` pairs of a whitespace-separated file.
pub fn read_pairs(path: &Path) -> BTreeMap<u64, u64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut t = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            (t.next().unwrap(), t.next().unwrap())
        })
        .collect()
}

/// The first GPU, or `None` after a skip message when there is none (`GLP_REQUIRE_GPU=1`
/// turns the skip into a failure).
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::open(0) {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            glp_testkit::switch::skip(test, glp_testkit::switch::Need::Gpu, &format!("no GPU ({e})"));
            None
        }
    }
}

/// A rayon pool of `threads` threads.
pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

/// A copy of `csr` with integer edge weights 1..=4 that are symmetric (w(u,v) = w(v,u)).
pub fn with_integer_weights(csr: &Csr) -> Csr {
    let mut weights = Vec::with_capacity(csr.num_edges() as usize);
    for v in 0..csr.num_vertices() as u32 {
        for &u in csr.neighbors(v) {
            weights.push((1 + (u ^ v) % 4) as f32);
        }
    }
    Csr::new(csr.offsets().to_vec(), csr.targets().to_vec(), Some(weights)).unwrap()
}

/// A path 0 - 1 - 2 - 3 with a triangle 3 - 4 - 5, and 6 -> 2 directed (a vertex whose only
/// edge leads on, and none leads to it), weighted: a small graph where walks hit a dead end.
pub fn small_with_dead_end() -> Csr {
    let rows: [&[u32]; 7] = [&[1], &[0, 2], &[1, 3], &[2, 4, 5], &[3, 5], &[3, 4], &[2]];
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    for row in rows {
        targets.extend_from_slice(row);
        offsets.push(targets.len() as u64);
    }
    let weights = (0..targets.len()).map(|e| (e % 3 + 1) as f32).collect();
    Csr::new(offsets, targets, Some(weights)).unwrap()
}

/// A directed binary tree of `n` vertices, its edges leading away from vertex 0 (i -> 2i + 1,
/// 2i + 2): about half its vertices are sinks, so a sample from a vertex near the leaves
/// runs out of transits before its last step.
pub fn out_tree(n: u32) -> Csr {
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    for v in 0..n {
        targets.extend([2 * v + 1, 2 * v + 2].into_iter().filter(|&child| child < n));
        offsets.push(targets.len() as u64);
    }
    Csr::new(offsets, targets, None).unwrap()
}

/// A tree whose edges lead away from its root (vertex 0), level by level: each vertex of
/// level `l` has `children[l]` children (numbered level after level), the last level's none.
pub fn levelled_out_tree(children: &[u32]) -> Csr {
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    let (mut level_start, mut level_len, mut next) = (0u32, 1u32, 1u32);
    for &per_vertex in children {
        for _ in level_start..level_start + level_len {
            targets.extend(next..next + per_vertex);
            next += per_vertex;
            offsets.push(targets.len() as u64);
        }
        (level_start, level_len) = (level_start + level_len, level_len * per_vertex);
    }
    offsets.extend(std::iter::repeat_n(targets.len() as u64, level_len as usize));
    Csr::new(offsets, targets, None).unwrap()
}

/// Whether some sample of `outcome` added vertices up to step `step` and none after it: a
/// sample that ran out of transits (on [`out_tree`]) when `step` is not the sampler's last.
pub fn some_sample_stops_after(outcome: &glp::sample::SampleOutcome, step: u32) -> bool {
    (0..outcome.num_samples()).any(|i| outcome.sample(i).steps.iter().max() == Some(&step))
}

/// A directed graph of `n` vertices: vertex `i < hubs.len()` has degree `hubs[i]`, the others
/// cycle through `small`. Neighbours are drawn with a fixed-seed generator (repeats kept), every
/// other one among `spread` vertices next to `v % span`, so labels repeat and tie.
pub fn degree_mix(hubs: &[u64], small: &[u64], n: u64, seed: u64, span: u64, spread: u64) -> Csr {
    let mut state = seed;
    let mut random = move |bound: u64| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % bound
    };
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    for v in 0..n {
        let degree = if (v as usize) < hubs.len() { hubs[v as usize] } else { small[v as usize % small.len()] };
        let mut row: Vec<u32> = (0..degree)
            .map(|k| if k % 2 == 0 { random(n) as u32 } else { (v % span + random(spread)) as u32 })
            .collect();
        row.sort_unstable();
        targets.extend(row);
        offsets.push(targets.len() as u64);
    }
    Csr::new(offsets, targets, None).unwrap()
}

/// The undirected graph of `edges` on `n` vertices: each edge both ways, rows sorted, built
/// by the library's own CSR builder (default options: symmetrised, no self-loops, repeats
/// collapsed).
pub fn undirected(n: usize, edges: &[(u32, u32)]) -> Csr {
    let (sources, targets) = edges.iter().copied().unzip();
    let list = glp::graph::EdgeList { num_vertices: n, sources, targets, weights: None };
    glp::graph::build_csr(&list, &glp::graph::BuildOptions::default()).unwrap()
}

/// Asserts that the GPU's labels equal the reference's, naming how many differ and the first.
pub fn assert_same_labels(context: &str, csr: &Csr, gpu: &[u32], reference: &[u32]) {
    if gpu != reference {
        let differ = gpu.iter().zip(reference).filter(|(a, b)| a != b).count();
        let first = gpu.iter().zip(reference).position(|(a, b)| a != b).unwrap_or(gpu.len().min(reference.len()));
        panic!(
            "{context}: {differ} labels differ (of {} and {}); first at vertex {first} (degree {}): GPU {:?} reference {:?}",
            gpu.len(),
            reference.len(),
            csr.degree(first as u32),
            gpu.get(first),
            reference.get(first)
        );
    }
}

/// Graphs with ground truth for the asynchronous quality checks: email-Eu-core, LFR 50k mu 0.3,
/// com-DBLP, and a planted partition with hubs of the high class (degrees up to 3000).
pub fn graphs_with_truth() -> Vec<(String, Csr, GroundTruth)> {
    let mut graphs = Vec::new();
    for (graph, truth) in [
        ("email-Eu-core.txt", "email-Eu-core-department-labels.txt"),
        ("lfr/LFR_N50000_ad5_mc50_mu0.3.edges.gz", "lfr/LFR_N50000_ad5_mc50_mu0.3.cmty.txt.gz"),
        ("com-dblp.edges.gz", "com-dblp.all.cmty.txt.gz"),
    ] {
        let g = load(graph);
        let t = glp::io::read_ground_truth(&data(truth), &g.ids).unwrap();
        graphs.push((graph.to_string(), g.csr, t.truth));
    }
    let (planted, truth) = glp::gen::planted_partition(&glp::gen::CommunityParams {
        num_vertices: 100_000,
        max_degree: 3000,
        max_community: 5000,
        ..glp::gen::CommunityParams::default()
    })
    .unwrap();
    graphs.push(("planted-100k".into(), planted.csr, GroundTruth::Partition(truth)));
    graphs
}

/// The labels of a naive synchronous label propagation written independently of the engines,
/// the reference of the variants' tests: labels start as vertex ids; every iteration, each
/// vertex sums `vote(u)` per label over its neighbours `u` (a vote of 0 still makes the label a
/// candidate), scores each candidate with `score(counts, own, label, votes)` (`counts`: how
/// many vertices show each label at the iteration start, `own`: the vertex's label), and takes
/// the highest score, ties to the smallest label; a vertex without neighbours keeps its label.
/// Stops when no label changes, or after `iterations`.
pub fn naive_synchronous_lp(
    csr: &Csr,
    iterations: u32,
    vote: impl Fn(u32) -> f64,
    score: impl Fn(&BTreeMap<u32, u32>, u32, u32, f64) -> f64,
) -> Vec<u32> {
    let n = csr.num_vertices() as u32;
    let mut labels: Vec<u32> = (0..n).collect();
    for _ in 0..iterations {
        let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
        for &l in &labels {
            *counts.entry(l).or_default() += 1;
        }
        let next: Vec<u32> = (0..n)
            .map(|v| {
                let mut votes: BTreeMap<u32, f64> = BTreeMap::new();
                for &u in csr.neighbors(v) {
                    *votes.entry(labels[u as usize]).or_default() += vote(u);
                }
                let own = labels[v as usize];
                let mut best: Option<(f64, u32)> = None;
                for (&label, &total) in &votes {
                    let s = score(&counts, own, label, total);
                    if best.is_none_or(|(b, _)| s > b) {
                        best = Some((s, label));
                    }
                }
                best.map_or(own, |(_, label)| label)
            })
            .collect();
        if next == labels {
            break;
        }
        labels = next;
    }
    labels
}

/// The size of the largest community of `labels`.
pub fn largest_community(labels: &[u32]) -> usize {
    let mut sizes: BTreeMap<u32, usize> = BTreeMap::new();
    for &l in labels {
        *sizes.entry(l).or_default() += 1;
    }
    sizes.into_values().max().unwrap_or(0)
}

/// The graphs of the asynchronous LLP gamma sweep (both backends): football, com-DBLP and a
/// 20,000-vertex planted partition.
pub fn llp_sweep_graphs() -> [(&'static str, Csr); 3] {
    let (planted, _) = glp::gen::planted_partition(&glp::gen::CommunityParams {
        num_vertices: 20_000,
        ..glp::gen::CommunityParams::default()
    })
    .unwrap();
    [("football", load("football.edges").csr), ("com-DBLP", load("com-dblp.edges.gz").csr), ("planted", planted.csr)]
}

/// The bundled graph's file in the repository.
pub const BUNDLED_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/email-Eu-core.txt");

/// The `glp` binary the tests run: `GLP_BIN` when set (a GPU machine without a Rust toolchain
/// runs the test binaries built elsewhere against the `glp` that travelled with them,
/// `scripts/gpu-check.sh`), else the one cargo built for the tests.
pub fn glp_binary() -> std::ffi::OsString {
    std::env::var_os("GLP_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_glp").into())
}

/// Runs the `glp` binary ([`glp_binary`]).
pub fn glp(args: &[&str]) -> Output {
    Command::new(glp_binary()).args(args).output().expect("the glp binary runs")
}

/// A command's standard output, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A command's standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The only `error: ` line of a failed run.
pub fn error_line(run: &Output) -> String {
    assert!(!run.status.success(), "the run succeeded: {}", stderr(run));
    let err = stderr(run);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    errors[0].to_string()
}

/// Each edge program value's scalars, per vertex.
pub fn value_scalars<V: glp::edge::VertexValue>(values: &[V]) -> Vec<Vec<glp_codegen::ir::ScalarValue>> {
    values
        .iter()
        .map(|v| {
            let mut scalars = Vec::new();
            v.for_each_scalar(&mut |s| scalars.push(s));
            scalars
        })
        .collect()
}

/// Asserts that `got`'s values are `expected`'s (both per vertex, [`value_scalars`]): bit for
/// bit, or for a program that sums (`sums`) within 1e-9 relative for `f64` and 1e-5 for `f32`.
pub fn assert_values_agree(
    context: &str,
    expected: &[Vec<glp_codegen::ir::ScalarValue>],
    got: &[Vec<glp_codegen::ir::ScalarValue>],
    sums: bool,
) {
    use glp_codegen::ir::ScalarValue;
    assert_eq!(got.len(), expected.len(), "{context}: vertices");
    let close = |a: &ScalarValue, b: &ScalarValue| match (a, b) {
        (ScalarValue::F64(x), ScalarValue::F64(y)) if sums => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        (ScalarValue::F32(x), ScalarValue::F32(y)) if sums => (x - y).abs() <= 1e-5 * x.abs().max(y.abs()),
        _ => a.to_bits() == b.to_bits(),
    };
    let differ: Vec<usize> = (0..expected.len())
        .filter(|&v| expected[v].len() != got[v].len() || !expected[v].iter().zip(&got[v]).all(|(a, b)| close(a, b)))
        .collect();
    assert!(
        differ.is_empty(),
        "{context}: {} vertices differ, the first {}: expected {:?}, got {:?}",
        differ.len(),
        differ[0],
        expected[differ[0]],
        got[differ[0]]
    );
}
