//! Helpers shared by the `io_*` integration tests: data files (the test kit's), load options,
//! and a naive reference parser written with std only (no code of the crate under test).

#![allow(dead_code)]

pub mod compress;

use glp_runtime::error::Error;
use glp_runtime::graph::{BuildOptions, DuplicateEdges, Graph};
use glp_runtime::io::LoadOptions;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// A data file's path (the test kit's lookup: the repository's data folder, then
/// `GLP_DATA_DIR`).
pub fn data(name: &str) -> PathBuf {
    glp_testkit::data::path(name)
}

/// The path an LDBC vertex/edge pair is loaded by: its common stem (`NAME` for `NAME.v` and
/// `NAME.e`), found through the test kit's lookup of the `.v` file (the stem itself is no file).
pub fn ldbc_pair(stem: &str) -> PathBuf {
    data(&format!("{stem}.v")).with_extension("")
}

/// A data file's bytes, decompressed (the test kit's).
pub fn read_data(name: &str) -> Vec<u8> {
    glp_testkit::data::read(name)
}

/// Default build options, no progress bar.
pub fn quiet() -> LoadOptions {
    LoadOptions { progress: false, ..LoadOptions::default() }
}

/// Build options that keep the input as it is: no symmetrisation, self loops and duplicates
/// kept.
pub fn exact() -> LoadOptions {
    LoadOptions {
        build: BuildOptions { symmetrise: false, drop_self_loops: false, duplicates: DuplicateEdges::Keep },
        ..quiet()
    }
}

/// Data lines of a text, split into fields: lines end at `\r\n`, `\r` or `\n`; blank lines and
/// lines starting with `#` or `%` are skipped; fields split on whitespace, or on commas when
/// `comma` is set.
pub fn naive_records(bytes: &[u8], comma: bool) -> Vec<Vec<String>> {
    let text = String::from_utf8(bytes.to_vec()).unwrap().replace("\r\n", "\n").replace('\r', "\n");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('%'))
        .map(|l| {
            if comma {
                l.split(',').map(|f| f.trim().to_string()).collect()
            } else {
                l.split_whitespace().map(str::to_string).collect()
            }
        })
        .collect()
}

/// The undirected simple graph of the first two fields of `records`: original id ->
/// sorted distinct neighbours, self loops dropped, every appearing id present.
pub fn naive_undirected(records: &[Vec<String>]) -> BTreeMap<u64, BTreeSet<u64>> {
    let mut adjacency: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    for r in records {
        let (u, v): (u64, u64) = (r[0].parse().unwrap(), r[1].parse().unwrap());
        adjacency.entry(u).or_default();
        adjacency.entry(v).or_default();
        if u != v {
            adjacency.get_mut(&u).unwrap().insert(v);
            adjacency.get_mut(&v).unwrap().insert(u);
        }
    }
    adjacency
}

/// The graph's rows in original ids.
pub fn rows(graph: &Graph) -> BTreeMap<u64, Vec<u64>> {
    (0..graph.num_vertices() as u32)
        .map(|v| (graph.ids.original(v), graph.csr.neighbors(v).iter().map(|&t| graph.ids.original(t)).collect()))
        .collect()
}

/// Asserts that `graph` is the undirected simple graph `expected`.
pub fn assert_same_undirected(graph: &Graph, expected: &BTreeMap<u64, BTreeSet<u64>>) {
    assert_eq!(graph.num_vertices(), expected.len());
    let stored: usize = expected.values().map(BTreeSet::len).sum();
    assert_eq!(graph.num_edges(), stored as u64);
    let got = rows(graph);
    for (id, neighbours) in expected {
        let row = &got[id];
        assert!(row.iter().copied().eq(neighbours.iter().copied()), "row of vertex {id}: {row:?} vs {neighbours:?}");
    }
}

/// Line, column and message of a parse error (panics on another error kind).
pub fn parse_error(error: Error) -> (u64, u64, String) {
    match error {
        Error::Parse { position, message, .. } => (position.line, position.column, message),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

/// Message of a whole-file format error (panics on another error kind).
pub fn format_error(error: Error) -> String {
    match error {
        Error::Format { message, .. } => message,
        other => panic!("expected a format error, got {other:?}"),
    }
}

/// Row `v` of a weighted graph as (input id of the target, weight) pairs.
pub fn weighted_row(graph: &Graph, v: u32) -> Vec<(u64, f32)> {
    let weights = graph.csr.neighbor_weights(v).expect("a weighted graph");
    graph.csr.neighbors(v).iter().zip(weights).map(|(&t, &w)| (graph.ids.original(t), w)).collect()
}

/// Rewrites a `.glpg` file's CRC-32 (over bytes 0..48 and 64..) so that a deliberately
/// inconsistent file, or a mutant, reaches the checks behind the checksum. Files shorter than
/// the 64-byte header are left as they are.
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() >= 64 {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&bytes[..48]);
        hasher.update(&bytes[64..]);
        let crc = hasher.finalize();
        bytes[48..52].copy_from_slice(&crc.to_le_bytes());
    }
}
