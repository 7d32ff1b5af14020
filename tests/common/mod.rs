//! Helpers the integration tests share: data files, graph loading, and the GPU and NVRTC
//! skips. Each test crate uses a part of them.
#![allow(dead_code)]

use glp::device::Gpu;
use glp::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A file of the shared data folder: `GLP_DATA_DIR` (the GPU machine gets a copy, see
/// `scripts/gpu-check.sh`), else `../shared/data`.
pub fn data(name: &str) -> PathBuf {
    let dir = std::env::var_os("GLP_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"));
    dir.join(name)
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

/// The first GPU, or `None` with a message when there is none; `GLP_REQUIRE_GPU=1` turns the
/// skip into a failure.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::open(0) {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            assert!(std::env::var("GLP_REQUIRE_GPU").map_or(true, |v| v != "1"), "GLP_REQUIRE_GPU=1 but: {e}");
            eprintln!("{test}: skipped, no GPU ({e}); set GLP_REQUIRE_GPU=1 to fail instead");
            None
        }
    }
}

/// A rayon pool of `threads` threads.
pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}
