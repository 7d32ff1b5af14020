//! Loading the real graphs of the shared data directory, checked against published counts
//! and against a naive std-only parse of the same files.

mod io_support;

use glp_runtime::graph::{BuildOptions, VertexIds};
use glp_runtime::io::{load_graph, load_graph_from_bytes, load_ldbc_from_bytes, Format, LoadOptions};
use io_support::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

#[test]
fn karate_mtx_is_the_symmetric_karate_club() {
    let graph = load_graph(&data("karate.mtx"), &quiet()).unwrap();
    assert_eq!(graph.num_vertices(), 34);
    assert_eq!(graph.num_edges(), 156);
    assert!(graph.symmetric);
    assert_eq!(graph.ids, VertexIds::Range { first: 1, len: 34 });
    // Naive parse: skip the banner/comments and the size line, then `row col` pairs.
    let records = naive_records(&read_data("karate.mtx"), false);
    assert_eq!(records[0], ["34", "34", "78"]);
    assert_same_undirected(&graph, &naive_undirected(&records[1..]));
    // A symmetric file is symmetrised even when the options say not to.
    let directed = load_graph(&data("karate.mtx"), &LoadOptions { build: exact().build, ..quiet() }).unwrap();
    assert_eq!(directed.num_edges(), 156);
}

#[test]
fn email_eu_core_with_crlf_line_ends() {
    let bytes = read_data("email-Eu-core.txt");
    assert!(bytes.windows(2).any(|w| w == b"\r\n"), "the file is expected to use CRLF");
    let records = naive_records(&bytes, false);
    let graph = load_graph(&data("email-Eu-core.txt"), &quiet()).unwrap();
    assert_eq!(graph.num_vertices(), 1005);
    assert_same_undirected(&graph, &naive_undirected(&records));

    // Directed and exact: every line is one stored edge, rows are the lines' targets.
    let exact_graph = load_graph(&data("email-Eu-core.txt"), &exact()).unwrap();
    assert_eq!(exact_graph.num_edges(), 25571);
    assert_eq!(records.len(), 25571);
    let mut expected: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for r in &records {
        expected.entry(r[0].parse().unwrap()).or_default().push(r[1].parse().unwrap());
    }
    let got = rows(&exact_graph);
    for (id, targets) in expected.iter_mut() {
        targets.sort_unstable();
        assert_eq!(&got[id], targets, "row of {id}");
    }
}

#[test]
fn com_dblp_gzip_with_sparse_ids() {
    let graph = load_graph(&data("com-dblp.edges.gz"), &quiet()).unwrap();
    assert_eq!(graph.num_vertices(), 317_080);
    assert_eq!(graph.num_edges(), 2 * 1_049_866);
    assert!(matches!(graph.ids, VertexIds::Table(_)));
    assert_eq!(graph.ids.original(graph.num_vertices() as u32 - 1), 425_956);
    assert_same_undirected(&graph, &naive_undirected(&naive_records(&read_data("com-dblp.edges.gz"), false)));
}

#[test]
fn lfr_files_with_a_braces_column_are_unweighted() {
    let name = "lfr/LFR_N50000_ad5_mc50_mu0.1.edges.gz";
    let records = naive_records(&read_data(name), false);
    assert!(records.iter().all(|r| r.len() == 3 && r[2] == "{}"));
    let graph = load_graph(&data(name), &quiet()).unwrap();
    assert!(!graph.csr.is_weighted());
    assert_eq!(graph.num_vertices(), 50_000);
    assert_same_undirected(&graph, &naive_undirected(&records));
}

#[test]
fn github_csv_with_header() {
    let records = naive_records(&read_data("github.edges.csv.xz"), true);
    assert_eq!(records[0], ["id_1", "id_2"]);
    let graph = load_graph(&data("github.edges.csv.xz"), &quiet()).unwrap();
    assert_eq!(graph.num_vertices(), 37_700);
    assert_same_undirected(&graph, &naive_undirected(&records[1..]));
}

#[test]
fn weighted_edge_list() {
    let records = naive_records(&read_data("ppi.edgelist.xz"), false);
    let graph = load_graph(&data("ppi.edgelist.xz"), &exact()).unwrap();
    assert!(graph.csr.is_weighted());
    assert_eq!(graph.num_edges(), records.len() as u64);
    let mut expected: BTreeMap<u64, Vec<(u64, f32)>> = BTreeMap::new();
    for r in &records {
        expected.entry(r[0].parse().unwrap()).or_default().push((r[1].parse().unwrap(), r[2].parse().unwrap()));
    }
    for (id, mut edges) in expected {
        edges.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let v = graph.ids.dense(id).unwrap();
        assert_eq!(weighted_row(&graph, v), edges, "row of {id}");
    }
}

/// Checks an LDBC adjacency-list file exactly: rows equal the lines, lone vertices kept.
fn check_adjacency(name: &str) {
    let records = naive_records(&read_data(name), false);
    let graph = load_graph(&data(name), &exact()).unwrap();
    let mut expected: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for r in &records {
        let ids: Vec<u64> = r.iter().map(|f| f.parse().unwrap()).collect();
        for &n in &ids[1..] {
            expected.entry(n).or_default();
        }
        let row = expected.entry(ids[0]).or_default();
        row.extend(&ids[1..]);
        row.sort_unstable();
    }
    assert_eq!(rows(&graph), expected, "{name}");
}

#[test]
fn ldbc_adjacency_lists() {
    for name in [
        "ldbc-validation/cdlp/dir-input",
        "ldbc-validation/cdlp/undir-input",
        "ldbc-validation/wcc/dir-input",
        "ldbc-validation/bfs/undir-input",
        "ldbc-validation/pr/dir-input",
        "ldbc-validation/example/example-directed-input",
    ] {
        check_adjacency(name);
    }
    // `4` and `10` are lone vertices on their own lines: they must exist.
    let graph = load_graph(&data("ldbc-validation/example/example-directed-input"), &quiet()).unwrap();
    assert_eq!(graph.num_vertices(), 10);
    // The cdlp input has no final newline.
    assert!(!read_data("ldbc-validation/cdlp/dir-input").ends_with(b"\n"));
}

/// Checks an LDBC `.v`/`.e` pair exactly: vertices from `.v`, rows and weights from `.e`.
fn check_vertex_edge(stem: &str) {
    let vertices: BTreeSet<u64> =
        naive_records(&read_data(&format!("{stem}.v")), false).iter().map(|r| r[0].parse().unwrap()).collect();
    let edges = naive_records(&read_data(&format!("{stem}.e")), false);
    let mut expected: BTreeMap<u64, Vec<(u64, f32)>> = vertices.iter().map(|&v| (v, Vec::new())).collect();
    for r in &edges {
        expected.get_mut(&r[0].parse().unwrap()).unwrap().push((r[1].parse().unwrap(), r[2].parse().unwrap()));
    }
    for path in [ldbc_pair(stem), data(&format!("{stem}.v")), data(&format!("{stem}.e"))] {
        let graph = load_graph(&path, &exact()).unwrap();
        assert_eq!(graph.num_vertices(), vertices.len());
        for (id, row) in &mut expected {
            row.sort_by_key(|a| a.0);
            let v = graph.ids.dense(*id).unwrap();
            let got: Vec<(u64, f32)> = graph
                .csr
                .neighbors(v)
                .iter()
                .zip(graph.csr.neighbor_weights(v).unwrap())
                .map(|(&t, &w)| (graph.ids.original(t), w))
                .collect();
            assert_eq!(&got, row, "{stem}: row of {id}");
        }
    }
}

#[test]
fn ldbc_vertex_edge_pairs() {
    check_vertex_edge("ldbc-validation/example/example-directed");
    check_vertex_edge("ldbc-validation/example/example-undirected");
    check_vertex_edge("ldbc-validation/sssp/dir-input");
    check_vertex_edge("ldbc-validation/sssp/undir-input");
    // example-undirected.v starts at 2: vertex 1 does not exist.
    let graph = load_graph(&ldbc_pair("ldbc-validation/example/example-undirected"), &quiet()).unwrap();
    assert_eq!(graph.ids, VertexIds::Range { first: 2, len: 9 });

    let v = read_data("ldbc-validation/example/example-directed.v");
    let e = read_data("ldbc-validation/example/example-directed.e");
    let from_bytes = load_ldbc_from_bytes("example-directed", &v, &e, &exact()).unwrap();
    let from_file = load_graph(&ldbc_pair("ldbc-validation/example/example-directed"), &exact()).unwrap();
    assert_eq!(from_bytes.csr, from_file.csr);
    assert_eq!(from_bytes.ids, from_file.ids);
}

#[test]
fn isolated_vertices_of_a_vertex_file_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.v"), "10\n20\n30\n40\n").unwrap();
    std::fs::write(dir.path().join("g.e"), "10 20\n").unwrap();
    let graph = load_graph(&dir.path().join("g.e"), &quiet()).unwrap();
    assert_eq!(graph.ids, VertexIds::Table(vec![10, 20, 30, 40]));
    assert_eq!(graph.num_edges(), 2);
    assert_eq!(graph.csr.degree(2), 0);
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn gzip_and_plain_load_the_same_graph() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["email-Eu-core.txt", "karate.mtx", "github.edges.csv.xz", "ldbc-validation/cdlp/dir-input"] {
        let plain = read_data(name);
        let file_name = name.rsplit('/').next().unwrap();
        // Compressed under the same name (no `.gz`): detection must use the magic bytes.
        let single = dir.path().join(file_name);
        std::fs::write(&single, gzip(&plain)).unwrap();
        // Two members, as `cat a.gz b.gz` makes: both halves must be read.
        let cut = plain.len() / 2;
        let cut = cut + plain[cut..].iter().position(|&b| b == b'\n').unwrap() + 1;
        let multi = dir.path().join(format!("multi-{file_name}.gz"));
        let mut two = gzip(&plain[..cut]);
        two.extend(gzip(&plain[cut..]));
        std::fs::write(&multi, two).unwrap();

        let expected = load_graph(&data(name), &quiet()).unwrap();
        let format = if name.ends_with("-input") { Some(Format::LdbcAdjacency) } else { None };
        for path in [&single, &multi] {
            let graph = load_graph(path, &LoadOptions { format, ..quiet() }).unwrap();
            assert_eq!(graph.csr, expected.csr, "{}", path.display());
            assert_eq!(graph.ids, expected.ids);
        }
        let graph = load_graph_from_bytes(file_name, &gzip(&plain), &LoadOptions { format, ..quiet() }).unwrap();
        assert_eq!(graph.csr, expected.csr);
    }
}

#[test]
fn cr_only_and_mixed_line_ends_read_like_lf() {
    let records = naive_records(&read_data("football.edges"), false);
    let lf: String = records.iter().map(|r| format!("{}\t{}\n", r[0], r[1])).collect();
    let cr = lf.replace('\n', "\r");
    let mixed: String =
        records.iter().enumerate().map(|(i, r)| format!("{} {}{}", r[0], r[1], ["\n", "\r\n", "\r"][i % 3])).collect();
    let with_comments = format!("# comment\r\n% another\r\r\n\n{}", mixed.trim_end());
    let expected = load_graph_from_bytes("lf.edges", lf.as_bytes(), &quiet()).unwrap();
    assert_same_undirected(&expected, &naive_undirected(&records));
    for (name, text) in [("cr", &cr), ("mixed", &mixed), ("comments", &with_comments)] {
        let graph = load_graph_from_bytes(name, text.as_bytes(), &quiet()).unwrap();
        assert_eq!(graph.csr, expected.csr, "{name}");
        assert_eq!(graph.ids, expected.ids, "{name}");
    }
}

#[test]
fn large_inputs_parse_in_many_chunks_like_one() {
    // Over 4 MiB, so the parser splits it into several parallel chunks; CRLF ends make some
    // split points fall inside a line end.
    let mut text = String::from("# generated\r\n");
    let mut expected: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    let mut x = 12345u64;
    while text.len() < 9 << 20 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let (u, v) = ((x >> 33) % 50_000, (x >> 13) % 50_000);
        text.push_str(&format!("{u}\t{v}\t{{}}\r\n"));
        expected.entry(u).or_default();
        expected.entry(v).or_default();
        if u != v {
            expected.get_mut(&u).unwrap().insert(v);
            expected.get_mut(&v).unwrap().insert(u);
        }
    }
    let graph = load_graph_from_bytes("big.edges", text.as_bytes(), &quiet()).unwrap();
    assert_same_undirected(&graph, &expected);
}

#[test]
fn comments_and_blank_lines_between_edges_across_chunks() {
    // Weighted, over 4 MiB, with comment and blank lines scattered through every chunk: the
    // parser's per-chunk regions have gaps that must close without losing or moving edges.
    let mut text = String::new();
    let mut expected: Vec<(u64, u64, f32)> = Vec::new();
    let mut x = 99u64;
    let mut i = 0u64;
    while text.len() < 13 << 20 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        match (x >> 60) % 8 {
            0 => text.push_str("# a comment line in the middle\n"),
            1 => text.push_str("\n   \t\n"),
            _ => {
                let (u, v, w) = ((x >> 20) % 70_000, (x >> 40) % 70_000, ((x >> 8) % 1000) as f32 / 8.0);
                text.push_str(&format!("{u} {v} {w}\n"));
                expected.push((u, v, w));
            }
        }
        i += 1;
    }
    assert!(i > 500_000);
    let graph = load_graph_from_bytes("gaps.edges", text.as_bytes(), &exact()).unwrap();
    assert_eq!(graph.num_edges(), expected.len() as u64);
    let mut by_source: BTreeMap<u64, Vec<(u64, f32)>> = BTreeMap::new();
    for &(u, v, w) in &expected {
        by_source.entry(u).or_default().push((v, w));
        by_source.entry(v).or_default();
    }
    assert_eq!(graph.num_vertices(), by_source.len());
    for (u, mut row) in by_source {
        row.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let d = graph.ids.dense(u).unwrap();
        assert_eq!(weighted_row(&graph, d), row, "row of {u}");
    }
}

#[test]
fn detection_picks_each_format() {
    // Each of these loads with detection exactly as with the explicit format.
    for (name, format) in [
        ("karate.mtx", Format::MatrixMarket),
        ("email-Eu-core.txt", Format::EdgeList),
        ("github.edges.csv.xz", Format::Csv),
        ("ldbc-validation/cdlp/dir-input", Format::LdbcAdjacency),
        ("lfr/LFR_N50000_ad5_mc50_mu0.5.edges.gz", Format::EdgeList),
    ] {
        let detected = load_graph(&data(name), &quiet()).unwrap();
        let explicit = load_graph(&data(name), &LoadOptions { format: Some(format), ..quiet() }).unwrap();
        assert_eq!(detected.csr, explicit.csr, "{name}");
    }
    // A CSV without the `.csv` name is found by its comma.
    let graph = load_graph_from_bytes("noext", b"src,dst\n1,2\n2,3\n", &quiet()).unwrap();
    assert_eq!(graph.num_edges(), 4);
    // The explicit format wins over the name.
    let graph =
        load_graph_from_bytes("x.mtx", b"1 2\n", &LoadOptions { format: Some(Format::EdgeList), ..quiet() }).unwrap();
    assert_eq!(graph.num_edges(), 2);
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let csv = load_graph_from_bytes("t.csv", b"\xEF\xBB\xBFid_1,id_2\r\n5,6\r\n", &quiet()).unwrap();
    assert_eq!(rows(&csv), BTreeMap::from([(5, vec![6]), (6, vec![5])]));
    let edges = load_graph_from_bytes("t", b"\xEF\xBB\xBF5 6\n", &quiet()).unwrap();
    assert_eq!(edges.csr, csv.csr);
    let mtx = load_graph_from_bytes(
        "t",
        b"\xEF\xBB\xBF%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
        &quiet(),
    );
    assert_eq!(mtx.unwrap().ids, VertexIds::Range { first: 1, len: 2 });
    let adjacency = load_graph_from_bytes("x-input", b"\xEF\xBB\xBF5 6\n7\n", &quiet()).unwrap();
    assert_eq!(adjacency.num_vertices(), 3);
}

#[test]
fn progress_enabled_off_a_terminal_loads_the_same() {
    // Test output is captured, so standard error is not a terminal: the bar stays hidden.
    let with_bar = load_graph(&data("com-dblp.edges.gz"), &LoadOptions::default()).unwrap();
    let without = load_graph(&data("com-dblp.edges.gz"), &quiet()).unwrap();
    assert_eq!(with_bar.csr, without.csr);
}

#[test]
fn format_names_round_trip() {
    for format in Format::ALL {
        assert_eq!(format.name().parse::<Format>().unwrap(), format);
    }
    assert_eq!("mtx".parse::<Format>().unwrap(), Format::MatrixMarket);
    assert_eq!("ldbc".parse::<Format>().unwrap(), Format::LdbcVertexEdge);
    assert!("gml".parse::<Format>().unwrap_err().to_string().contains("expected one of mtx, edges"));
}

#[test]
fn build_options_apply() {
    // 1->2 twice, 2->1, 3->3.
    let text = b"1 2\n1 2\n2 1\n3 3\n";
    let keep = load_graph_from_bytes("g", text, &exact()).unwrap();
    assert_eq!(rows(&keep), BTreeMap::from([(1, vec![2, 2]), (2, vec![1]), (3, vec![3])]));
    let default = load_graph_from_bytes("g", text, &quiet()).unwrap();
    assert_eq!(rows(&default), BTreeMap::from([(1, vec![2]), (2, vec![1]), (3, vec![])]));
    let build = BuildOptions { symmetrise: true, drop_self_loops: false, ..Default::default() };
    let with_loop = load_graph_from_bytes("g", text, &LoadOptions { build, ..quiet() }).unwrap();
    assert_eq!(rows(&with_loop), BTreeMap::from([(1, vec![2]), (2, vec![1]), (3, vec![3])]));
    assert!(with_loop.symmetric && !keep.symmetric);
}

#[test]
fn matrix_market_fields_and_symmetries() {
    let load = |text: &str| load_graph_from_bytes("m.mtx", text.as_bytes(), &exact()).unwrap();
    let general = load("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 0.5\n3 1 -2e1\n");
    assert_eq!(rows(&general), BTreeMap::from([(1, vec![2]), (2, vec![]), (3, vec![1])]));
    assert_eq!(general.csr.weights().unwrap(), &[0.5, -20.0]);
    let integer = load("%%MatrixMarket MATRIX Coordinate INTEGER Symmetric\n% c\n2 2 1\n2 1 7\n");
    assert_eq!(rows(&integer), BTreeMap::from([(1, vec![2]), (2, vec![1])]));
    assert_eq!(integer.csr.weights().unwrap(), &[7.0, 7.0]);
    let skew = load("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n% middle\n\n3 2 -1.5\n");
    assert_eq!(rows(&skew), BTreeMap::from([(1, vec![2]), (2, vec![1, 3]), (3, vec![2])]));
    assert_eq!(skew.csr.weights().unwrap(), &[-3.0, 3.0, 1.5, -1.5]);
    assert!(skew.symmetric);
    // Isolated vertices of the declared 1..=n exist.
    let isolated = load("%%MatrixMarket matrix coordinate pattern general\n5 5 1\n1 2\n");
    assert_eq!(isolated.num_vertices(), 5);
}
