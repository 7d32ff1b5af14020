//! The binary `.glpg` format: round trips and every kind of corruption.

mod io_support;

use glp_runtime::graph::{Csr, Graph, VertexIds};
use glp_runtime::io::{load_graph, load_graph_from_bytes, write_glpg, Format, LoadOptions, WeightRule};
use io_support::*;
use std::path::Path;

fn assert_same_graph(a: &Graph, b: &Graph) {
    assert_eq!(a.csr, b.csr);
    assert_eq!(a.ids, b.ids);
    assert_eq!(a.symmetric, b.symmetric);
}

fn round_trip(graph: &Graph, dir: &Path, name: &str) -> Vec<u8> {
    let path = dir.join(name);
    write_glpg(graph, &path).unwrap();
    assert!(!dir.join(format!("{name}.partial")).exists());
    let back = load_graph(&path, &quiet()).unwrap();
    assert_same_graph(graph, &back);
    std::fs::read(&path).unwrap()
}

#[test]
fn round_trips_keep_the_graph_exactly() {
    let dir = tempfile::tempdir().unwrap();
    // Range ids, symmetric, unweighted.
    let karate = load_graph(&data("karate.mtx"), &quiet()).unwrap();
    let bytes = round_trip(&karate, dir.path(), "karate.glpg");
    // Header, offsets (35 x 8), targets (156 x 4, already a multiple of 8).
    assert_eq!(bytes.len(), 64 + 35 * 8 + 156 * 4);
    // Sparse ids (a table), gzip source.
    let dblp = load_graph(&data("com-dblp.edges.gz"), &quiet()).unwrap();
    round_trip(&dblp, dir.path(), "dblp.glpg");
    // Weighted, directed, odd edge count (padding after targets and weights).
    let ppi = load_graph(&data("ppi.edgelist.xz"), &exact()).unwrap();
    assert!(ppi.csr.is_weighted() && !ppi.symmetric && ppi.num_edges() % 2 == 1);
    round_trip(&ppi, dir.path(), "ppi.glpg");
    // Empty graph.
    let empty = Graph { csr: Csr::empty(0), ids: VertexIds::Range { first: 0, len: 0 }, symmetric: true };
    round_trip(&empty, dir.path(), "empty.glpg");
}

#[test]
fn glpg_ignores_build_options_and_loads_from_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let directed = load_graph(&data("ldbc-validation/cdlp/dir-input"), &exact()).unwrap();
    let path = dir.path().join("named-anything.bin");
    write_glpg(&directed, &path).unwrap();
    // Detected by its magic despite the name; default (symmetrising) options are ignored.
    let back = load_graph(&path, &quiet()).unwrap();
    assert_same_graph(&directed, &back);
    let bytes = std::fs::read(&path).unwrap();
    let from_bytes = load_graph_from_bytes("g", &bytes, &quiet()).unwrap();
    assert_same_graph(&directed, &from_bytes);
    // Unaligned bytes read correctly too.
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&bytes);
    let from_unaligned = load_graph_from_bytes("g", &shifted[1..], &quiet()).unwrap();
    assert_same_graph(&directed, &from_unaligned);
}

/// The bytes of a small weighted graph with an id table.
fn sample() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let graph = load_graph_from_bytes("g", b"10 20 0.5\n20 30 1.5\n30 10 2.5\n", &exact()).unwrap();
    let path = dir.path().join("g.glpg");
    write_glpg(&graph, &path).unwrap();
    std::fs::read(&path).unwrap()
}

fn load_fails(bytes: &[u8]) -> String {
    let options = LoadOptions { format: Some(Format::Glpg), ..quiet() };
    let error = load_graph_from_bytes("c.glpg", bytes, &options).unwrap_err();
    assert!(error.to_string().starts_with("c.glpg: "), "{error}");
    format_error(error)
}

#[test]
fn layout_matches_the_documented_format() {
    let bytes = sample();
    assert_eq!(&bytes[..8], &[0x89, b'G', b'L', b'P', b'G', 0x0d, 0x0a, 0x1a]);
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 1);
    assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 1 | 4); // weighted, id table
    assert_eq!(u64::from_le_bytes(bytes[16..24].try_into().unwrap()), 3);
    assert_eq!(u64::from_le_bytes(bytes[24..32].try_into().unwrap()), 3);
    // offsets 4 x 8, targets 3 x 4 padded to 16, weights the same, ids 3 x 8.
    let payload = 32 + 16 + 16 + 24;
    assert_eq!(u64::from_le_bytes(bytes[40..48].try_into().unwrap()), payload);
    assert_eq!(bytes.len() as u64, 64 + payload);
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&bytes[..48]);
    hasher.update(&bytes[64..]);
    assert_eq!(u32::from_le_bytes(bytes[48..52].try_into().unwrap()), hasher.finalize());
    // Weights section: 0.5, 1.5, 2.5 as little-endian f32 at 64 + 32 + 16.
    let w: Vec<f32> = (0..3).map(|i| f32::from_le_bytes(bytes[112 + 4 * i..116 + 4 * i].try_into().unwrap())).collect();
    assert_eq!(w, [0.5, 1.5, 2.5]);
    let ids: Vec<u64> =
        (0..3).map(|i| u64::from_le_bytes(bytes[128 + 8 * i..136 + 8 * i].try_into().unwrap())).collect();
    assert_eq!(ids, [10, 20, 30]);
}

#[test]
fn corruption_is_detected() {
    let good = sample();

    let mut magic = good.clone();
    magic[1] = b'X';
    assert!(load_fails(&magic).contains("wrong magic"));

    let mut version = good.clone();
    version[8] = 2;
    assert!(load_fails(&version).contains("unsupported .glpg version 2"));

    let mut payload = good.clone();
    let last = payload.len() - 1;
    payload[last] ^= 1;
    assert!(load_fails(&payload).contains("checksum mismatch"));

    let mut header = good.clone();
    header[32] ^= 1; // first id field: covered by the checksum too
    assert!(load_fails(&header).contains("checksum mismatch"));

    assert!(load_fails(&good[..good.len() - 8]).contains("truncated file"));
    assert!(load_fails(&good[..40]).contains("shorter than the 64-byte header"));
    assert!(load_fails(&[]).contains("shorter than the 64-byte header"));

    let mut longer = good.clone();
    longer.extend_from_slice(&[0; 8]);
    assert!(load_fails(&longer).contains("trailing data"));

    let mut counts = good.clone();
    counts[24] = 5; // 5 edges: the targets section grows by 8 bytes
    assert!(load_fails(&counts).contains("inconsistent counts"));

    let mut huge = good.clone();
    huge[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(load_fails(&huge).contains("inconsistent counts"));

    let mut flags = good.clone();
    flags[12] |= 8;
    assert!(load_fails(&flags).contains("unknown flags"));

    // A directed graph (10 -> 20 -> 30 -> 10) whose header claims symmetry.
    let mut symmetric = good.clone();
    symmetric[12] |= 2;
    reseal(&mut symmetric);
    assert!(load_fails(&symmetric).contains("marks the graph symmetric, but some edge has no reverse"));

    // Consistent sizes and a valid checksum, but a target outside 0..n.
    let mut target = good.clone();
    target[96..100].copy_from_slice(&7u32.to_le_bytes());
    reseal(&mut target);
    assert!(load_fails(&target).contains("inconsistent graph data"));

    // Ids out of order.
    let mut ids = good.clone();
    ids[128..136].copy_from_slice(&99u64.to_le_bytes());
    reseal(&mut ids);
    assert!(load_fails(&ids).contains("inconsistent id table"));

    // A non-finite weight.
    let mut weight = good;
    weight[112..116].copy_from_slice(&f32::NAN.to_le_bytes());
    reseal(&mut weight);
    assert!(load_fails(&weight).contains("non-finite weight"));
}

#[test]
fn a_glpg_name_with_other_content_reports_the_magic() {
    let error = load_graph_from_bytes("g.glpg", b"1 2\n", &quiet()).unwrap_err();
    assert!(format_error(error).contains("wrong magic"));
}

#[test]
fn reserved_header_bytes_must_be_zero() {
    // Bytes 52..64 are reserved: a non-zero one means a newer or corrupt file, even with a
    // valid checksum (which does not cover them).
    for at in [52, 57, 63] {
        let mut bytes = sample();
        bytes[at] = 0x01;
        let message = load_fails(&bytes);
        assert!(message.contains(&format!("reserved header byte {at} is 0x01")), "{message}");
        assert!(message.contains("newer glp"), "{message}");
    }
}

#[test]
fn negative_weights_load_unless_refused() {
    // 10 -> 20 weighs -0.5 (the first weight, at 64 + 32 + 16).
    let mut bytes = sample();
    bytes[112..116].copy_from_slice(&(-0.5f32).to_le_bytes());
    reseal(&mut bytes);
    let graph = load_graph_from_bytes("s.glpg", &bytes, &quiet()).unwrap();
    assert_eq!(weighted_row(&graph, 0), vec![(20, -0.5)]);
    let options = LoadOptions { weights: WeightRule::NonNegative, ..quiet() };
    let message = format_error(load_graph_from_bytes("s.glpg", &bytes, &options).unwrap_err());
    assert!(message.contains("the weight of edge 10 -> 20, -0.5, is negative"), "{message}");
    assert!(
        message.contains("label propagation, weighted sampling and shortest paths need non-negative edge weights"),
        "{message}"
    );
}
