//! The column schema of edge lists (issue 11, part 3): decided once per file from the CSV
//! header, `LoadOptions::columns` or the first data line, and held on every line. Inputs are
//! written inline; expected edges and error positions are worked out by hand (1-based line and
//! column, the column in bytes).

mod io_support;

use glp_runtime::error::Error;
use glp_runtime::graph::Graph;
use glp_runtime::io::{load_graph_from_bytes, load_ldbc_from_bytes, Columns, Format, LoadOptions};
use io_support::*;

const EDGES: Option<Format> = Some(Format::EdgeList);
const CSV: Option<Format> = Some(Format::Csv);

/// Loads `text` as `format` with the input kept as it is (directed, duplicates and loops kept).
fn load(format: Option<Format>, columns: Option<&str>, text: &str) -> Result<Graph, Error> {
    let columns = columns.map(|c| c.parse::<Columns>().unwrap());
    load_graph_from_bytes("g", text.as_bytes(), &LoadOptions { format, columns, ..exact() })
}

/// The graph's edges as (source, target) in original ids, sorted.
fn pairs(graph: &Graph) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    for v in 0..graph.num_vertices() as u32 {
        for &t in graph.csr.neighbors(v) {
            out.push((graph.ids.original(v), graph.ids.original(t)));
        }
    }
    out.sort_unstable();
    out
}

/// The graph's weighted edges as (source, target, weight) in original ids, sorted.
fn weighted(graph: &Graph) -> Vec<(u64, u64, f32)> {
    let mut out = Vec::new();
    for v in 0..graph.num_vertices() as u32 {
        for (u, w) in weighted_row(graph, v) {
            out.push((graph.ids.original(v), u, w));
        }
    }
    out.sort_by_key(|e| (e.0, e.1));
    out
}

/// Asserts that loading fails at `line`:`column` with a message containing every needle.
fn fails_at(format: Option<Format>, columns: Option<&str>, text: &str, line: u64, column: u64, needles: &[&str]) {
    let error = load(format, columns, text).expect_err(text);
    assert!(error.to_string().starts_with("g:"), "the error does not name the file: {error}");
    let (l, c, message) = parse_error(error);
    assert_eq!((l, c), (line, column), "position for {text:?}: {message}");
    for needle in needles {
        assert!(message.contains(needle), "message {message:?} lacks {needle:?}");
    }
}

#[test]
fn the_first_data_line_decides_the_columns_of_every_line() {
    // The cases: a mangled weight on the first line no longer makes the file
    // unweighted, and extra columns are no longer dropped.
    fails_at(EDGES, None, "0 1 1.0O\n1 2 5.0\n", 1, 5, &["expected a weight (a number) or a data dict", "`1.0O`"]);
    fails_at(EDGES, None, "1 27 1. 00000\n", 1, 9, &["unexpected extra column `00000`"]);
    // Every later line is held to the first one's columns.
    fails_at(EDGES, None, "# w\n0 1 1.0\n1 2\n", 3, 4, &["missing column: expected a weight", "line 2"]);
    fails_at(EDGES, None, "0 1\n1 2 5.0\n", 2, 5, &["unexpected extra column `5.0`", "`source target`", "line 1"]);
    fails_at(EDGES, None, "0 1 2.0\n1 2 x\n", 2, 5, &["expected a weight (a number), found `x`"]);
    fails_at(EDGES, None, "0 1 2.0\n1 2 3 4\n", 2, 7, &["unexpected extra column `4`", "`source target weight`"]);
    // A numeric third column is a weight (read, not dropped).
    let graph = load(EDGES, None, "10 00 84\n").unwrap();
    assert_eq!(weighted(&graph), vec![(10, 0, 84.0)]);
    let graph = load(EDGES, None, "1 2\r\n2 3\r\n").unwrap();
    assert_eq!(pairs(&graph), vec![(1, 2), (2, 3)]);
}

#[test]
fn data_dicts_read_their_weight_and_nothing_else() {
    // networkx's write_edgelist: the weight key is read, other keys are skipped.
    let text = "0 1 {'weight': 3.0}\n1 2 {'weight': 2, 'color': 'red, blue'}\n2 0 {\"weight\": 0.5}\n";
    assert_eq!(weighted(&load(EDGES, None, text).unwrap()), vec![(0, 1, 3.0), (1, 2, 2.0), (2, 0, 0.5)]);
    // Detected as an edge list although the dicts hold commas.
    let detected = load(None, None, "0 1 {'weight': 1, 'c': 2}\n").unwrap();
    assert_eq!(weighted(&detected), vec![(0, 1, 1.0)]);
    // LFR's `{}` and dicts without a weight: unweighted.
    let lfr = load(EDGES, None, "0\t1\t{}\n1\t2\t{}\n").unwrap();
    assert!(!lfr.csr.is_weighted());
    assert_eq!(pairs(&lfr), vec![(0, 1), (1, 2)]);
    let plain = load(EDGES, None, "0 1 {'color': 'red'}\n1 2 {}\n").unwrap();
    assert!(!plain.csr.is_weighted());
    // The same dicts in a CSV file.
    assert_eq!(weighted(&load(CSV, None, "0,1,{'weight': 2.5, 'c': 'x'}\n").unwrap()), vec![(0, 1, 2.5)]);
    // A dict must agree with the first one about the weight, and be well formed.
    fails_at(EDGES, None, "0 1 {'weight': 3.0}\n1 2 {}\n", 2, 5, &["no `weight`, unlike the first", "line 1"]);
    fails_at(EDGES, None, "0 1 {}\n1 2 {'weight': 1}\n", 2, 16, &["has a `weight`, unlike the first"]);
    fails_at(EDGES, None, "0 1 {'weight': 3.0\n", 1, 19, &["malformed data dict", "`,` or `}`"]);
    fails_at(EDGES, None, "0 1 {'weight': 'x'}\n", 1, 16, &["expected a number as the data dict's `weight`"]);
    fails_at(EDGES, None, "0 1 {'weight': inf}\n", 1, 16, &["not a finite"]);
    fails_at(EDGES, None, "0 1 {}\n1 2\n", 2, 4, &["missing column", "`source target {...}`"]);
    fails_at(EDGES, None, "0 1 {}\n1 2 3\n", 2, 5, &["expected a data dict `{...}`, found `3`"]);
}

#[test]
fn csv_columns_are_chosen_by_header_name() {
    // The case: `weight,src,dst` no longer swaps the columns.
    let graph = load(CSV, None, "weight,src,dst\n3,1,2\n4,2,3\n").unwrap();
    assert_eq!(weighted(&graph), vec![(1, 2, 3.0), (2, 3, 4.0)]);
    // Any order, any case, quotes around names.
    assert_eq!(pairs(&load(CSV, None, "Target,SOURCE\n1,2\n").unwrap()), vec![(2, 1)]);
    let quoted = load(CSV, None, "\"from\",\"to\",\"value\"\n7,8,0.25\n").unwrap();
    assert_eq!(weighted(&quoted), vec![(7, 8, 0.25)]);
    assert_eq!(pairs(&load(CSV, None, "id_1,id_2\n5,6\n").unwrap()), vec![(5, 6)]);
    // Without a header, columns are positional; a bad weight on the first line is a bad weight.
    assert_eq!(weighted(&load(CSV, None, "1,2,0.5\n2,3,1.5\n").unwrap()), vec![(1, 2, 0.5), (2, 3, 1.5)]);
    fails_at(CSV, None, "1,2,1.0O\n", 1, 5, &["expected a weight (a number) or a data dict"]);
    // Unknown and repeated names, missing roles, and lines that do not match the header.
    fails_at(
        CSV,
        None,
        "src,dst,type\n1,2,x\n",
        1,
        9,
        &["unknown column name `type` (column 3)", "source: source/src/from", "weight: weight/w/value"],
    );
    fails_at(
        CSV,
        None,
        "src,from\n1,2\n",
        1,
        5,
        &["`from` (column 2) and `src` (column 1) both name the source column"],
    );
    fails_at(CSV, None, "weight,src\n1,2\n", 1, 1, &["no target column"]);
    fails_at(CSV, None, "src,dst,weight\n1,2\n", 2, 4, &["missing column: expected a weight (column 3, `weight`)"]);
    fails_at(
        CSV,
        None,
        "src,dst\n1,2,3\n",
        2,
        5,
        &["unexpected extra column `3`", "the header (line 1) has 2 columns"],
    );
    fails_at(CSV, None, "w,src,dst\n1,2\n", 2, 4, &["found 2 columns, expected 3"]);
    fails_at(CSV, None, "w,src,dst\n1,2,3,4\n", 2, 7, &["unexpected extra column `4`"]);
    fails_at(CSV, None, "w,src,dst\nx,2,3\n", 2, 1, &["expected a weight (column 1, `w`) (a number), found `x`"]);
}

#[test]
fn chosen_columns_override_the_file() {
    // By name: other columns are ignored, as asked.
    assert_eq!(pairs(&load(CSV, Some("c,a"), "a,b,c\n1,2,3\n").unwrap()), vec![(3, 1)]);
    assert_eq!(weighted(&load(CSV, Some("C,a,b"), "a,b,c\n1,2,3\n").unwrap()), vec![(3, 1, 2.0)]);
    // By index, in a whitespace file: every line still has the first line's column count.
    let text = "5 1 2 0.5\n6 2 3 0.25\n";
    assert_eq!(weighted(&load(EDGES, Some("1,2,3"), text).unwrap()), vec![(1, 2, 0.5), (2, 3, 0.25)]);
    fails_at(EDGES, Some("1,2,3"), "5 1 2 0.5\n6 2 3\n", 2, 6, &["found 3 columns, expected 4"]);
    // Indices also pick from a CSV header; names need one.
    assert_eq!(pairs(&load(CSV, Some("1,0"), "x,y\n1,2\n").unwrap()), vec![(2, 1)]);
    fails_at(EDGES, Some("src,dst"), "1 2\n", 1, 1, &["no header line", "0-based column indices"]);
    fails_at(EDGES, Some("0,2"), "1 2\n", 1, 1, &["index 2", "the first data line has 2 columns"]);
    fails_at(CSV, Some("a,d"), "a,b\n1,2\n", 1, 1, &["`d`, which the header lacks", "`a`, `b`"]);
    // Formats without columns refuse the option.
    let mtx = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n";
    let error = load(Some(Format::MatrixMarket), Some("0,1"), mtx).unwrap_err();
    assert!(matches!(&error, Error::InvalidArgument(m) if m.contains("not in a mtx file")), "{error}");
}

#[test]
fn ldbc_edge_files_follow_the_same_rules() {
    let error = load_ldbc_from_bytes("g", b"1\n2\n3\n", b"1 2 0.5\n2 3\n", &quiet()).unwrap_err();
    assert!(error.to_string().starts_with("g.e:2:4: missing column: expected a weight"), "{error}");
    let graph = load_ldbc_from_bytes("g", b"1\n2\n3\n", b"1 2 0.5\n2 3 1.5\n", &exact()).unwrap();
    assert_eq!(weighted(&graph), vec![(1, 2, 0.5), (2, 3, 1.5)]);
}
