//! Compressed inputs (issue 11, part 3): gzip, zstd, xz and bzip2 are recognised by their
//! magic bytes and read whole, for graphs, ground truth and seeds; archives glp does not read
//! are named in the error. Every input is compressed here by the encoders of the same crates
//! and compared with the plain text's result.

mod io_support;

use glp_runtime::community::{GroundTruth, UNLABELLED};
use glp_runtime::io::{
    load_graph, load_graph_from_bytes, read_ground_truth, read_ground_truth_from_bytes, read_seeds,
    read_seeds_from_bytes,
};
use io_support::compress::{xz, zstd, COMPRESSIONS};
use io_support::*;
use std::io::Write;

/// A weighted edge list of a few thousand lines, with comments and CRLF line ends.
fn weighted_edge_list() -> Vec<u8> {
    let mut text = b"# a weighted graph\r\n".to_vec();
    for i in 0..3000u64 {
        writeln!(text, "{} {} {}.5\r", i, (i * 7 + 3) % 2000, i % 9).unwrap();
    }
    text
}

#[test]
fn every_compression_reads_as_the_plain_text() {
    let plain = weighted_edge_list();
    let expected = load_graph_from_bytes("g", &plain, &exact()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, compress) in COMPRESSIONS {
        let packed = compress(&plain);
        assert_ne!(packed, plain);
        let from_bytes = load_graph_from_bytes("g", &packed, &exact()).unwrap();
        assert_eq!(from_bytes.csr, expected.csr, "{name}");
        assert_eq!(from_bytes.ids, expected.ids, "{name}");
        // By content, not by name: a misleading suffix changes nothing.
        let path = dir.path().join(format!("{name}.txt"));
        std::fs::write(&path, &packed).unwrap();
        assert_eq!(load_graph(&path, &exact()).unwrap().csr, expected.csr, "{name} file");
        // Concatenated streams (`cat a b`, parallel compressors) are read whole.
        let (first, second) = plain.split_at(plain.len() / 2 + 7);
        let cut = first.iter().rposition(|&b| b == b'\n').unwrap() + 1;
        let (first, second) = (&plain[..cut], [&first[cut..], second].concat());
        let joined = [compress(first), compress(&second)].concat();
        assert_eq!(load_graph_from_bytes("g", &joined, &exact()).unwrap().csr, expected.csr, "{name} members");
    }
}

#[test]
fn matrix_market_and_ldbc_pairs_decompress_too() {
    let mtx = b"%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 4\n3 1 5\n";
    let plain = load_graph_from_bytes("m", mtx, &exact()).unwrap();
    assert_eq!(plain.num_edges(), 2);
    for (name, compress) in COMPRESSIONS {
        assert_eq!(load_graph_from_bytes("m", &compress(mtx), &exact()).unwrap().csr, plain.csr, "{name}");
    }
    // A pair with compressed members is found by its stem.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.v.xz"), xz(b"1\n2\n3\n")).unwrap();
    std::fs::write(dir.path().join("p.e.zst"), zstd(b"1 2\n2 3\n")).unwrap();
    let pair = load_graph(&dir.path().join("p"), &exact()).unwrap();
    assert_eq!(rows(&pair), [(1, vec![2]), (2, vec![3]), (3, vec![])].into_iter().collect());
}

#[test]
fn truncated_and_corrupt_streams_are_errors_naming_the_compression() {
    let plain = weighted_edge_list();
    for (name, compress) in COMPRESSIONS {
        let packed = compress(&plain);
        let cut = &packed[..packed.len() - 9];
        let message = format_error(load_graph_from_bytes("g.dat", cut, &quiet()).unwrap_err());
        assert!(message.starts_with(&format!("corrupt or truncated {name} stream")), "{name}: {message}");
        let mut flipped = packed.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x55;
        let result = load_graph_from_bytes("g.dat", &flipped, &quiet());
        // A flip inside the data fails the stream's check; it never yields another graph.
        let message = format_error(result.unwrap_err());
        assert!(message.contains(name), "{name}: {message}");
    }
}

#[test]
fn archives_glp_does_not_read_are_named() {
    for (magic, what) in [
        (&b"PK\x03\x04\x14\x00"[..], "zip archive"),
        (b"7z\xbc\xaf\x27\x1c\x00\x04", "7z archive"),
        (b"\x04\x22\x4d\x18\x64\x40", "lz4-compressed"),
        (b"LZIP\x01", "lzip-compressed"),
    ] {
        let message = format_error(load_graph_from_bytes("g", magic, &quiet()).unwrap_err());
        assert!(message.contains(what) && message.contains("first"), "{message}");
        let truth =
            read_ground_truth_from_bytes("t", magic, &glp_runtime::graph::VertexIds::Range { first: 0, len: 3 });
        assert!(format_error(truth.unwrap_err()).contains(what));
    }
}

#[test]
fn ground_truth_and_seeds_decompress() {
    let graph = load_graph_from_bytes("g", b"1 2\n2 3\n3 4\n", &quiet()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, compress) in COMPRESSIONS {
        let truth = read_ground_truth_from_bytes("labels.txt", &compress(b"1 7\n2 7\n4 9\n"), &graph.ids).unwrap();
        assert_eq!(truth.truth, GroundTruth::Partition(vec![7, 7, UNLABELLED, 9]), "{name}");
        let path = dir.path().join(format!("c-{name}.cmty.txt"));
        std::fs::write(&path, compress(b"1 2\n3 4 99\n")).unwrap();
        let cover = read_ground_truth(&path, &graph.ids).unwrap();
        match cover.truth {
            GroundTruth::Cover(cover) => assert_eq!(cover.communities, vec![vec![0, 1], vec![2, 3]], "{name}"),
            other => panic!("{name}: a community file read as {other:?}"),
        }
        assert_eq!(cover.unknown_ids, 1);
        let seeds = read_seeds_from_bytes("s", &compress(b"2 5\n4 5\n"), &graph.ids).unwrap();
        assert_eq!(seeds.labels, vec![UNLABELLED, 1, UNLABELLED, 1], "{name}");
        let path = dir.path().join(format!("seeds-{name}"));
        std::fs::write(&path, compress(b"1 8\n")).unwrap();
        assert_eq!(read_seeds(&path, &graph.ids).unwrap().value(0), Some(8), "{name}");
    }
}
