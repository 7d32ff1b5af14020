//! Malformed inputs: every error names the file, line and column and says what was expected.
//! Inputs are written by the tests; positions are counted by hand (1-based, column in bytes).

mod io_support;

use glp_runtime::error::Error;
use glp_runtime::io::{load_graph, load_graph_from_bytes, load_ldbc_from_bytes, Format, LoadOptions, WeightRule};
use io_support::*;
use std::io::Write;

/// Loads `text` as `format` and returns the parse error's line, column and message.
fn fails(format: Format, text: &str) -> (u64, u64, String) {
    let options = LoadOptions { format: Some(format), ..quiet() };
    match load_graph_from_bytes("bad", text.as_bytes(), &options) {
        Ok(graph) => panic!("loaded {} vertices from malformed input {text:?}", graph.num_vertices()),
        Err(e) => {
            assert!(e.to_string().starts_with("bad:"), "error does not name the file: {e}");
            parse_error(e)
        }
    }
}

fn assert_error(format: Format, text: &str, line: u64, column: u64, needle: &str) {
    let (l, c, message) = fails(format, text);
    assert_eq!((l, c), (line, column), "position for {text:?}: {message}");
    assert!(message.contains(needle), "message {message:?} lacks {needle:?}");
}

const MTX: Format = Format::MatrixMarket;
const EDGES: Format = Format::EdgeList;

#[test]
fn matrix_market_headers() {
    assert_error(MTX, "1 2\n", 1, 1, "bad header: expected the banner");
    assert_error(MTX, "", 1, 1, "found an empty file");
    assert_error(MTX, "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, 23, "`array`");
    assert_error(MTX, "%%MatrixMarket matrix coordinate complex general\n", 1, 34, "complex");
    assert_error(MTX, "%%MatrixMarket matrix coordinate real hermitian\n", 1, 39, "expected `general`");
    assert_error(MTX, "%%MatrixMarket vector coordinate real general\n", 1, 16, "expected `matrix`");
    assert_error(MTX, "%%MatrixMarket matrix coordinate real\n", 1, 38, "missing column: expected the symmetry");
    assert_error(
        MTX,
        "%%MatrixMarket matrix coordinate real general\n% only comments\n",
        2,
        16,
        "expected the size line",
    );
    assert_error(
        MTX,
        "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n",
        2,
        3,
        "non-square matrix (3 x 4)",
    );
    assert_error(MTX, "%%MatrixMarket matrix coordinate pattern general\n3 x 1\n", 2, 3, "the number of columns");
    assert_error(
        MTX,
        "%%MatrixMarket matrix coordinate pattern general\n3 3\n",
        2,
        4,
        "expected the number of entries",
    );
}

#[test]
fn matrix_market_entries() {
    let head = "%%MatrixMarket matrix coordinate real general\n3 3 2\n";
    assert_error(MTX, &format!("{head}1 2 1.0\n3 4 2.0\n"), 4, 3, "column index 4 is outside 1..=3");
    assert_error(MTX, &format!("{head}0 2 1.0\n"), 3, 1, "row index 0 is outside 1..=3");
    assert_error(MTX, &format!("{head}1 2 1.0\n2 3 nan\n"), 4, 5, "not a finite");
    assert_error(MTX, &format!("{head}1 2 1.0\n2 3 inf\n"), 4, 5, "not a finite");
    assert_error(MTX, &format!("{head}1 2 1.0\n2 3\n"), 4, 4, "missing column: expected a real value");
    assert_error(MTX, &format!("{head}1 2 1.0\n2 3 4 5\n"), 4, 7, "unexpected extra column `5`");
    assert_error(MTX, &format!("{head}1 -2 1.0\n"), 3, 3, "found the negative number `-2`");
    // Fewer entries than declared: a truncated file, reported at its end.
    assert_error(MTX, &format!("{head}1 2 1.0\n"), 3, 8, "declares 2 entries, found 1");
    // More entries than declared: reported at the first extra one.
    assert_error(MTX, &format!("{head}1 2 1.0\n2 3 1\n%c\n3 1 1\n"), 6, 1, "more entries than the 2");
    let int = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n";
    assert_error(MTX, int, 3, 5, "expected an integer value (an integer)");
    let skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n";
    assert_error(MTX, skew, 3, 1, "no diagonal entries");
}

#[test]
fn edge_list_tokens() {
    assert_error(EDGES, "1 2\n3 x\n", 2, 3, "expected a target vertex id (a non-negative integer), found `x`");
    assert_error(EDGES, "1 2\r\n-3 4\r\n", 2, 1, "expected a source vertex id, found the negative number `-3`");
    assert_error(EDGES, "1 2\n3\n", 2, 2, "missing column: expected a target vertex id");
    assert_error(EDGES, "# c\n1\t2\n4\t99999999999999999999\n", 3, 3, "exceeds the largest id");
    assert_error(EDGES, "1 2 {}\n3 4.5 {}\n", 2, 3, "found `4.5`");
    // CR-only line ends count lines too.
    assert_error(EDGES, "1 2\r3 4\r5 z\r", 3, 3, "found `z`");
}

#[test]
fn edge_list_weights() {
    assert_error(EDGES, "1 2 0.5\n2 3 NaN\n", 2, 5, "not a finite 32-bit number");
    assert_error(EDGES, "1 2 0.5\n2 3 -inf\n", 2, 5, "not a finite");
    assert_error(EDGES, "1 2 0.5\n2 3 1e39\n", 2, 5, "not a finite");
    assert_error(EDGES, "#h\n1 2 0.5\n2 3\n", 3, 4, "missing column: expected a weight (the file is weighted");
    assert_error(EDGES, "#h\n1 2 0.5\n2 3\n", 3, 4, "first data line, line 2");
    assert_error(EDGES, "1 2 0.5\n2 3 heavy\n", 2, 5, "expected a weight (a number), found `heavy`");
    // A first line with NaN is weighted (NaN is numeric) and so an error, not ignored.
    assert_error(EDGES, "1 2 nan\n", 1, 5, "not a finite");
}

#[test]
fn empty_inputs() {
    assert_error(EDGES, "", 1, 1, "empty input");
    assert_error(EDGES, "# only a comment\n\n", 2, 1, "empty input");
    assert_error(Format::Csv, "id_1,id_2\n", 1, 10, "empty input");
    assert_error(Format::LdbcAdjacency, "\n", 1, 1, "empty input");
}

#[test]
fn csv_problems() {
    assert_error(Format::Csv, "source\n1\n", 1, 1, "bad header: no target column");
    assert_error(Format::Csv, "src,dst\n1,2\n3\n", 3, 2, "missing column: expected a target vertex id");
    assert_error(
        Format::Csv,
        "src,dst\n1,2\n3, ,\n",
        3,
        4,
        "expected a target vertex id (column 2, `dst`), found an empty field",
    );
    assert_error(Format::Csv, "src,dst\n1,2\n3;4\n", 3, 1, "found `3;4`");
}

#[test]
fn adjacency_problems() {
    assert_error(Format::LdbcAdjacency, "1 2 3\n2 1\n3 one\n", 3, 3, "expected a neighbour vertex id");
    assert_error(Format::LdbcAdjacency, "1 2 3\n-2 1\n", 2, 1, "found the negative number `-2`");
}

#[test]
fn ldbc_endpoint_missing_from_vertex_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.v"), "1\n2\n3\n").unwrap();
    std::fs::write(dir.path().join("g.e"), "1 2 0.5\n2 3 0.5\n3 17 0.5\n").unwrap();
    let error = load_graph(&dir.path().join("g"), &quiet()).unwrap_err();
    assert!(error.to_string().contains("g.e:3:3:"), "{error}");
    let (line, column, message) = parse_error(error);
    assert_eq!((line, column), (3, 3));
    assert!(message.contains("target vertex 17 is not declared in the vertex file"), "{message}");

    let error = load_ldbc_from_bytes("h", b"1\n2\n", b"9 1\n", &quiet()).unwrap_err();
    assert!(error.to_string().starts_with("h.e:1:1: source vertex 9"), "{error}");
    let error = load_ldbc_from_bytes("h", b"1\nx\n", b"1 1\n", &quiet()).unwrap_err();
    assert!(error.to_string().starts_with("h.v:2:1: expected a vertex id"), "{error}");
    let error = load_ldbc_from_bytes("h", b"1 2\n", b"1 1\n", &quiet()).unwrap_err();
    assert!(error.to_string().starts_with("h.v:1:3: unexpected extra column"), "{error}");
    let error = load_ldbc_from_bytes("h", b"", b"", &quiet()).unwrap_err();
    assert!(error.to_string().contains("empty vertex file"), "{error}");
    // A pair named by a stem with a missing `.e` file.
    std::fs::write(dir.path().join("lonely.v"), "1\n").unwrap();
    let error =
        load_graph(&dir.path().join("lonely.v"), &LoadOptions { format: Some(Format::LdbcVertexEdge), ..quiet() })
            .unwrap_err();
    assert!(format_error(error).contains("needs both files"));
}

#[test]
fn broken_gzip_is_an_error_not_a_shorter_graph() {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let text: String = (0..20_000).map(|i| format!("{i} {}\n", i + 1)).collect();
    encoder.write_all(text.as_bytes()).unwrap();
    let compressed = encoder.finish().unwrap();
    let truncated = &compressed[..compressed.len() / 2];
    let error = load_graph_from_bytes("cut.edges.gz", truncated, &quiet()).unwrap_err();
    assert!(format_error(error).contains("corrupt or truncated gzip stream"));
    let mut corrupt = compressed.clone();
    let at = corrupt.len() - 6;
    corrupt[at] ^= 0xff; // inside the CRC-32 trailer
    let error = load_graph_from_bytes("bad.edges.gz", &corrupt, &quiet()).unwrap_err();
    assert!(format_error(error).contains("corrupt or truncated gzip stream"));
}

#[test]
fn missing_file_is_an_io_error_naming_it() {
    let missing = std::env::temp_dir().join("glp-io-errors-no-such-file.txt");
    let error = load_graph(&missing, &quiet()).unwrap_err();
    assert!(matches!(error, Error::Io { .. }));
    assert!(error.to_string().contains("no-such-file.txt"));
}

#[test]
fn errors_in_later_chunks_are_positioned_exactly() {
    // Several parallel chunks; the first error (in input order) is reported, with its line
    // counted over CRLF line ends.
    let mut text = String::new();
    let mut lines = 0u64;
    while text.len() < 10 << 20 {
        text.push_str("123456 654321\r\n");
        lines += 1;
    }
    let good = text.clone();
    text.push_str("1 2\r\n7 x8\r\n");
    text.push_str(&good);
    text.push_str("bad\r\n");
    let (line, column, message) = fails(EDGES, &text);
    assert_eq!((line, column), (lines + 2, 3), "{message}");
    assert!(message.contains("found `x8`"));
}

#[test]
fn long_tokens_are_shortened_in_messages() {
    let long = "y".repeat(500);
    let (_, _, message) = fails(EDGES, &format!("1 {long}\n"));
    assert!(message.len() < 200 && message.contains("..."), "{message}");
}

/// Loads `text` as `format` refusing negative weights, and returns the parse error's line,
/// column and message.
fn refused(format: Format, text: &str) -> (u64, u64, String) {
    let options = LoadOptions { format: Some(format), weights: WeightRule::NonNegative, ..quiet() };
    parse_error(load_graph_from_bytes("bad", text.as_bytes(), &options).unwrap_err())
}

#[test]
fn negative_weights_are_refused_at_their_line_when_asked() {
    // Accepted by default (signed graphs exist): `info` and `convert` read them.
    let signed = load_graph_from_bytes("g", b"1 2 -2.5\n2 3 1\n", &exact()).unwrap();
    assert_eq!(weighted_row(&signed, 0), vec![(2, -2.5)]);
    // Refused where they are parsed under WeightRule::NonNegative, in every text format.
    let cases = [
        (EDGES, "1 2 0.5\n2 3 -2.5\n", 2, 5, "a weight `-2.5` is negative"),
        (Format::Csv, "src,dst,weight\n1,2,-1\n", 2, 5, "a weight `-1` is negative"),
        (EDGES, "1 2 {'weight': -3}\n", 1, 16, "the data dict's `weight` `-3` is negative"),
        (
            MTX,
            "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -0.5\n",
            3,
            5,
            "a real value `-0.5` is negative",
        ),
        (MTX, "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 -4\n", 3, 5, "value `-4` is negative"),
        (
            MTX,
            "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 4\n",
            3,
            1,
            "(1, 2) of this skew-symmetric entry, -4, is negative",
        ),
    ];
    for (format, text, line, column, needle) in cases {
        let (l, c, message) = refused(format, text);
        assert_eq!((l, c), (line, column), "{text:?}: {message}");
        assert!(message.contains(needle), "{message}");
        assert!(
            message.contains("label propagation, weighted sampling and shortest paths need non-negative edge weights"),
            "{message}"
        );
    }
    // Zero, -0 and a pattern skew-symmetric file are fine.
    let options = LoadOptions { weights: WeightRule::NonNegative, ..exact() };
    let zero = load_graph_from_bytes("g", b"1 2 0\n2 3 -0\n", &options).unwrap();
    assert_eq!(zero.num_edges(), 2);
    let pattern = "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n";
    assert_eq!(load_graph_from_bytes("g", pattern.as_bytes(), &options).unwrap().num_edges(), 2);
}

#[test]
fn matrix_market_entry_counts_must_fit_the_file() {
    // 1,000,000 declared entries cannot fit in the 4 bytes after the size line.
    let text = "%%MatrixMarket matrix coordinate pattern general\n3 3 1000000\n1 2\n";
    assert_error(MTX, text, 2, 1, "declares 1000000 entries, but the 4 bytes after it hold at most 1");
    // A file that could hold them but does not is truncated.
    let text = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2           \n";
    assert_error(MTX, text, 3, 15, "truncated file: the size line (line 2) declares 2 entries, found 1");
}
