//! Edge-list ingestion throughput, end to end (file -> Graph). Ignored by default: run with
//!
//! ```text
//! cargo test --release -p glp-runtime --test io_throughput -- --ignored --nocapture
//! ```
//!
//! It writes two edge lists of about `GLP_BENCH_MB` megabytes (default 400) to the system temp
//! directory (kept for the next run when `GLP_BENCH_KEEP` is set): one in SNAP layout (lines
//! grouped by source, heavy-tailed degrees, random targets) and one of uniformly random edges
//! in random order (the worst case for memory locality). Each is loaded a few times with two
//! build settings; the best wall time is reported as MB/s with the process CPU time, which
//! shows how much of the machine the run got. The loaded graph is checked against counts
//! computed while generating, so the printed numbers are for correct loads.

mod support;
use glp_testkit::rng::SplitMix;

use glp_runtime::graph::{BuildOptions, DuplicateEdges};
use glp_runtime::io::{load_graph, Format, LoadOptions};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// A generated benchmark file and what it contains.
struct Input {
    path: PathBuf,
    edges: u64,
    vertices: u64,
}

/// Writes (or reuses) an edge list of about `megabytes`; `grouped` selects the SNAP layout.
fn generate(megabytes: u64, grouped: bool) -> Input {
    let layout = if grouped { "grouped" } else { "random" };
    let path = std::env::temp_dir().join(format!("glp-bench-{megabytes}mb-{layout}.edges"));
    let counts_path = path.with_extension("counts");
    if let Ok(counts) = std::fs::read_to_string(&counts_path) {
        let numbers: Vec<u64> = counts.split_whitespace().filter_map(|s| s.parse().ok()).collect();
        if numbers.len() == 2 && path.exists() {
            return Input { path, edges: numbers[0], vertices: numbers[1] };
        }
    }
    let id_space = 8_000_000u64;
    let mut rng = SplitMix(42);
    let mut seen = vec![false; id_space as usize];
    let mut edges = 0u64;
    let target = megabytes << 20;
    let mut out = std::io::BufWriter::with_capacity(1 << 22, std::fs::File::create(&path).unwrap());
    writeln!(out, "# benchmark graph ({layout}), ids below {id_space}").unwrap();
    let mut written = 0u64;
    let mut source = 0u64;
    let mut left = 0u64;
    while written < target {
        let u = if grouped {
            // Pareto-distributed out-degrees (mean about 6), sources in increasing order.
            while left == 0 {
                source = (source + 1) % id_space;
                left = (2.0 / (1.0 - rng.unit()).powf(1.0 / 1.5)).min(1e5) as u64;
            }
            left -= 1;
            source
        } else {
            rng.next_u64() % id_space
        };
        let v = rng.next_u64() % id_space;
        seen[u as usize] = true;
        seen[v as usize] = true;
        let line = format!("{u}\t{v}\n");
        out.write_all(line.as_bytes()).unwrap();
        written += line.len() as u64;
        edges += 1;
    }
    out.flush().unwrap();
    let vertices = seen.iter().filter(|&&s| s).count() as u64;
    std::fs::write(&counts_path, format!("{edges} {vertices}")).unwrap();
    Input { path, edges, vertices }
}

/// User + system CPU seconds of this process so far (from /proc; 0 where unavailable).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

#[test]
#[ignore = "benchmark: writes large files to the temp directory; run explicitly in release mode"]
fn edge_list_throughput() {
    let megabytes: u64 = std::env::var("GLP_BENCH_MB").ok().and_then(|s| s.parse().ok()).unwrap_or(400);
    for grouped in [true, false] {
        let started = Instant::now();
        let input = generate(megabytes, grouped);
        let bytes = std::fs::metadata(&input.path).unwrap().len();
        eprintln!(
            "{}: {} MB, {} edges, {} vertices (ready in {:.1?})",
            input.path.display(),
            bytes >> 20,
            input.edges,
            input.vertices,
            started.elapsed()
        );
        let keep = BuildOptions { symmetrise: false, drop_self_loops: false, duplicates: DuplicateEdges::Keep };
        for (label, build) in
            [("directed, keep duplicates", keep), ("default: symmetrise, collapse", BuildOptions::default())]
        {
            let options =
                LoadOptions { format: Some(Format::EdgeList), build, progress: false, ..LoadOptions::default() };
            let mut best = (f64::INFINITY, 0.0);
            for _ in 0..3 {
                let (start, cpu) = (Instant::now(), cpu_seconds());
                let graph = load_graph(&input.path, &options).unwrap();
                let wall = start.elapsed().as_secs_f64();
                if wall < best.0 {
                    best = (wall, cpu_seconds() - cpu);
                }
                assert_eq!(graph.num_vertices() as u64, input.vertices);
                if !build.symmetrise {
                    assert_eq!(graph.num_edges(), input.edges);
                }
            }
            eprintln!(
                "  {label}: best {:.2} s wall ({:.2} s CPU) = {:.0} MB/s",
                best.0,
                best.1,
                bytes as f64 / 1e6 / best.0
            );
        }
        if std::env::var_os("GLP_BENCH_KEEP").is_none() {
            std::fs::remove_file(&input.path).unwrap();
            std::fs::remove_file(input.path.with_extension("counts")).unwrap();
        }
    }
}
