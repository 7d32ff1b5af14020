//! Declared sizes and decompression against the memory budget (issue 11, part 4): nothing is
//! allocated for a declared count before it is checked, and the error says what was declared
//! and what is available. Every test in this binary runs under `GLP_MEMORY_LIMIT=64M` (a
//! budget of 67.1 MB), set once before any load.

mod io_support;

use glp_runtime::error::Error;
use glp_runtime::graph::{Csr, Graph, VertexIds};
use glp_runtime::io::{load_graph, load_graph_from_bytes, write_glpg};
use io_support::*;
use std::io::Write;
use std::sync::Once;

/// Sets the budget for the whole binary (every test calls it first; the value never changes).
fn budget() {
    static SET: Once = Once::new();
    // SAFETY (edition 2021: `set_var` is safe, but it races with C code reading the
    // environment): this binary's tests set the same value before loading anything.
    SET.call_once(|| std::env::set_var("GLP_MEMORY_LIMIT", "64M"));
}

#[test]
fn a_matrix_market_size_line_beyond_memory_is_refused_before_allocating() {
    budget();
    // The 77-byte file: 3e9 declared (isolated) vertices need 16 bytes each to build.
    let text = b"%%MatrixMarket matrix coordinate pattern general\n3000000000 3000000000 1\n1 2\n";
    let (line, column, message) = parse_error(load_graph_from_bytes("big.mtx", text, &quiet()).unwrap_err());
    assert_eq!((line, column), (2, 1));
    for needle in ["declares 3000000000 vertices", "48.0 GB", "67.1 MB of memory is available", "GLP_MEMORY_LIMIT=64M"]
    {
        assert!(message.contains(needle), "{message}");
    }
    // 5 million vertices need 80 MB: refused; 1 million (16 MB) load, all of them.
    let text = b"%%MatrixMarket matrix coordinate pattern general\n5000000 5000000 1\n1 2\n";
    let (_, _, message) = parse_error(load_graph_from_bytes("m.mtx", text, &quiet()).unwrap_err());
    assert!(message.contains("80.0 MB"), "{message}");
    let text = b"%%MatrixMarket matrix coordinate pattern general\n1000000 1000000 1\n1 2\n";
    let graph = load_graph_from_bytes("m.mtx", text, &quiet()).unwrap();
    assert_eq!((graph.num_vertices(), graph.num_edges()), (1_000_000, 2));
}

#[test]
fn decompression_stops_at_the_budget() {
    budget();
    // 72 MiB of line ends compress to a few kB: a decompression bomb for a 64 MiB budget.
    let bomb = vec![b'\n'; 72 << 20];
    let gz = {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(&bomb).unwrap();
        encoder.finish().unwrap()
    };
    let zst = zstd::encode_all(&bomb[..], 1).unwrap();
    let bz2 = {
        let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        encoder.write_all(&bomb).unwrap();
        encoder.finish().unwrap()
    };
    let xz = {
        let mut writer = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(0)).unwrap();
        writer.write_all(&bomb).unwrap();
        writer.finish().unwrap()
    };
    drop(bomb);
    for (name, packed) in [("gzip", gz), ("zstd", zst), ("bzip2", bz2), ("xz", xz)] {
        assert!(packed.len() < 1 << 20, "{name}: {} bytes", packed.len());
        let message = format_error(load_graph_from_bytes("bomb", &packed, &quiet()).unwrap_err());
        assert!(
            message.starts_with(&format!("decompressing this {name} stream: the data exceeds the 67.1 MB")),
            "{message}"
        );
        assert!(message.contains("decompression bomb"), "{message}");
    }
}

#[test]
fn a_glpg_payload_beyond_memory_is_refused() {
    budget();
    // 9 million isolated vertices: 72 MB of offsets, a consistent file larger than the budget.
    let graph =
        Graph { csr: Csr::empty(9_000_000), ids: VertexIds::Range { first: 0, len: 9_000_000 }, symmetric: true };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.glpg");
    write_glpg(&graph, &path).unwrap();
    let error = load_graph(&path, &quiet()).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, Error::TooLarge(_)), "{error:?}");
    assert!(message.contains("loading 9000000 vertices and 0 edges: needs 72.0 MB"), "{message}");
}

#[test]
fn parse_buffers_are_checked_against_the_budget() {
    budget();
    // 10 million edges need 160 MB of ids while parsing: more than the budget allows.
    let text = b"1 2\n".repeat(10_000_000);
    let error = load_graph_from_bytes("many", &text, &quiet()).unwrap_err();
    assert!(matches!(&error, Error::TooLarge(m) if m.contains("cannot allocate the parsed vertex ids")), "{error}");
    // The buffer is sized by what the bytes can hold (an edge takes at least 4), not by the
    // line count: 5 MiB of blank lines would have asked for 84 MB by their line count.
    let mut text = vec![b'\n'; 5 << 20];
    text.extend_from_slice(b"1 2\n");
    assert_eq!(load_graph_from_bytes("blank", &text, &quiet()).unwrap().num_edges(), 2);
}
