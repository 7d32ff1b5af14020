//! Ground-truth readers against the shared data, checked with a naive std-only parse.

mod io_support;

use glp_runtime::community::{GroundTruth, UNLABELLED};
use glp_runtime::graph::{Graph, VertexIds};
use glp_runtime::io::{
    load_graph, read_ground_truth, read_ground_truth_as, read_ground_truth_from_bytes, read_ground_truth_from_bytes_as,
    TruthFormat,
};
use io_support::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

fn partition(truth: GroundTruth) -> Vec<u32> {
    match truth {
        GroundTruth::Partition(p) => p,
        GroundTruth::Cover(_) => panic!("expected a partition"),
    }
}

fn cover(truth: GroundTruth) -> Vec<Vec<u32>> {
    match truth {
        GroundTruth::Cover(c) => c.communities,
        GroundTruth::Partition(_) => panic!("expected a cover"),
    }
}

/// Naive `vertex label...` parse: original id -> labels; `skip` header lines.
fn naive_labels(name: &str, comma: bool, skip: usize) -> Vec<(u64, Vec<String>)> {
    naive_records(&read_data(name), comma)
        .into_iter()
        .skip(skip)
        .map(|r| (r[0].parse().unwrap(), r[1..].to_vec()))
        .collect()
}

#[test]
fn email_eu_core_departments() {
    let graph = load_graph(&data("email-Eu-core.txt"), &quiet()).unwrap();
    let file = read_ground_truth(&data("email-Eu-core-department-labels.txt"), &graph.ids).unwrap();
    assert_eq!(file.unknown_ids, 0);
    let labels = partition(file.truth);
    assert_eq!(labels.len(), 1005);
    assert_eq!(labels.iter().collect::<BTreeSet<_>>().len(), 42);
    for (id, label) in naive_labels("email-Eu-core-department-labels.txt", false, 0) {
        assert_eq!(labels[graph.ids.dense(id).unwrap() as usize], label[0].parse::<u32>().unwrap());
    }
}

/// Checks a community file against a naive parse mapped through the graph's ids.
fn check_communities(graph: &Graph, name: &str, count: usize) {
    let file = read_ground_truth(&data(name), &graph.ids).unwrap();
    let communities = cover(file.truth);
    assert_eq!(communities.len(), count);
    let mut unknown = 0;
    let mut expected = Vec::new();
    for record in naive_records(&read_data(name), false) {
        let mut members = BTreeSet::new();
        for id in record {
            match graph.ids.dense(id.parse().unwrap()) {
                Some(v) => {
                    members.insert(v);
                }
                None => unknown += 1,
            }
        }
        expected.push(members.into_iter().collect::<Vec<_>>());
    }
    assert_eq!(file.unknown_ids, unknown);
    assert_eq!(communities, expected);
}

#[test]
fn com_dblp_communities() {
    let graph = load_graph(&data("com-dblp.edges.gz"), &quiet()).unwrap();
    check_communities(&graph, "com-dblp.all.cmty.txt.gz", 13_477);
}

#[test]
fn lfr_communities() {
    let graph = load_graph(&data("lfr/LFR_N50000_ad5_mc50_mu0.1.edges.gz"), &quiet()).unwrap();
    let count = naive_records(&read_data("lfr/LFR_N50000_ad5_mc50_mu0.1.cmty.txt.gz"), false).len();
    check_communities(&graph, "lfr/LFR_N50000_ad5_mc50_mu0.1.cmty.txt.gz", count);
    // Every LFR vertex is in some community.
    let file = read_ground_truth(&data("lfr/LFR_N50000_ad5_mc50_mu0.1.cmty.txt.gz"), &graph.ids).unwrap();
    let covered: BTreeSet<u32> = cover(file.truth).into_iter().flatten().collect();
    assert_eq!(covered.len(), 50_000);
}

#[test]
fn github_target_csv() {
    let graph = load_graph(&data("github.edges.csv.xz"), &quiet()).unwrap();
    let file = read_ground_truth(&data("github.target.csv"), &graph.ids).unwrap();
    assert_eq!(file.unknown_ids, 0);
    let labels = partition(file.truth);
    assert_eq!(naive_records(&read_data("github.target.csv"), true)[0], ["id", "target"]);
    let records = naive_labels("github.target.csv", true, 1);
    assert_eq!(records.len(), 37_700);
    for (id, label) in &records {
        assert_eq!(labels[graph.ids.dense(*id).unwrap() as usize], label[0].parse::<u32>().unwrap());
    }
}

#[test]
fn text_labels_are_numbered_in_sorted_order() {
    let graph = load_graph(&data("polbooks.edges"), &quiet()).unwrap();
    let labels = partition(read_ground_truth(&data("polbooks.labels"), &graph.ids).unwrap().truth);
    let code = |s: &str| ["c", "l", "n"].iter().position(|x| *x == s).unwrap() as u32;
    for (id, label) in naive_labels("polbooks.labels", false, 0) {
        assert_eq!(labels[graph.ids.dense(id).unwrap() as usize], code(&label[0]));
    }
}

#[test]
fn vertices_without_a_label_stay_unlabelled() {
    let graph = load_graph(&data("citeseer.edges"), &quiet()).unwrap();
    let file = read_ground_truth(&data("citeseer.labels"), &graph.ids).unwrap();
    let labels = partition(file.truth);
    let naive = naive_labels("citeseer.labels", false, 0);
    let names: BTreeSet<&String> = naive.iter().flat_map(|(_, l)| l.first()).collect();
    let names: Vec<&String> = names.into_iter().collect();
    assert_eq!(names.len(), 6);
    let mut unlabelled = 0;
    for (id, label) in &naive {
        let got = labels[graph.ids.dense(*id).unwrap() as usize];
        match label.first() {
            Some(name) => assert_eq!(got, names.iter().position(|n| *n == name).unwrap() as u32),
            None => {
                assert_eq!(got, UNLABELLED);
                unlabelled += 1;
            }
        }
    }
    assert_eq!(unlabelled, 527);
}

#[test]
fn ids_missing_from_the_graph_are_counted() {
    let graph = load_graph(&data("polblogs.edges"), &quiet()).unwrap();
    let file = read_ground_truth(&data("polblogs.labels"), &graph.ids).unwrap();
    let naive = naive_labels("polblogs.labels", false, 0);
    let unknown = naive.iter().filter(|(id, _)| graph.ids.dense(*id).is_none()).count();
    assert_eq!(unknown, 1490 - 1224);
    assert_eq!(file.unknown_ids, unknown as u64);
    let labels = partition(file.truth);
    for (id, label) in &naive {
        if let Some(v) = graph.ids.dense(*id) {
            assert_eq!(labels[v as usize], label[0].parse::<u32>().unwrap());
        }
    }
}

/// Naive multi-label cover: communities by sorted numeric label.
fn naive_cover(name: &str, ids: &VertexIds) -> Vec<Vec<u32>> {
    let mut by_label: BTreeMap<u64, BTreeSet<u32>> = BTreeMap::new();
    for (id, labels) in naive_labels(name, false, 0) {
        for label in labels {
            by_label.entry(label.parse().unwrap()).or_default().insert(ids.dense(id).unwrap());
        }
    }
    by_label.into_values().map(|s| s.into_iter().collect()).collect()
}

#[test]
fn multi_label_files_are_covers() {
    // Several labels on a line.
    let ppi = load_graph(&data("ppi.edgelist.xz"), &quiet()).unwrap();
    let communities = cover(read_ground_truth(&data("ppi-labels.txt"), &ppi.ids).unwrap().truth);
    assert_eq!(communities.len(), 50);
    assert_eq!(communities, naive_cover("ppi-labels.txt", &ppi.ids));
    // A vertex on several lines, declared multi-label by the header comment.
    let blog = load_graph(&data("blogcatalog.edges.xz"), &quiet()).unwrap();
    let communities = cover(read_ground_truth(&data("blogcatalog.labels.xz"), &blog.ids).unwrap().truth);
    assert_eq!(communities.len(), 39);
    assert_eq!(communities, naive_cover("blogcatalog.labels.xz", &blog.ids));
    // Read as a partition on request, it is an error.
    let result = read_ground_truth_as(&data("blogcatalog.labels.xz"), &blog.ids, Some(TruthFormat::Labels));
    let message = parse_error(result.expect_err("blogcatalog is not a partition")).2;
    assert!(message.contains("a partition gives each vertex one label"), "{message}");
    let result = read_ground_truth_as(&data("ppi-labels.txt"), &ppi.ids, Some(TruthFormat::Labels));
    let (line, column, message) = parse_error(result.expect_err("ppi is not a partition"));
    assert_eq!((line, column), (1, 5));
    assert!(message.contains("unexpected extra column `15`"), "{message}");
}

#[test]
fn conflicting_labels_in_a_partition() {
    let ids = VertexIds::Range { first: 1, len: 3 };
    let error = read_ground_truth_from_bytes("t.labels", b"1 a\n2 b\n# c\n1 a\n3 b\n1 c\n", &ids).unwrap_err();
    let (line, column, message) = parse_error(error);
    assert_eq!((line, column), (6, 3));
    assert!(message.contains("vertex 1 has label `c` here but `a` on line 1"), "{message}");
    // The same label twice is fine.
    let file = read_ground_truth_from_bytes("t.labels", b"1 5\n1 5\n3 2\n", &ids).unwrap();
    assert_eq!(partition(file.truth), vec![5, UNLABELLED, 2]);
    // In a CSV too.
    let error = read_ground_truth_from_bytes("t.csv", b"id,target\n1,0\n1,1\n", &ids).unwrap_err();
    assert_eq!(parse_error(error).0, 3);
}

#[test]
fn csv_columns_by_name_or_position() {
    let ids = VertexIds::Range { first: 0, len: 3 };
    let named = b"name,target,id,extra\nx,7,2,q\ny,8,0,r\n";
    let file = read_ground_truth_from_bytes("t.csv", named, &ids).unwrap();
    assert_eq!(partition(file.truth), vec![8, UNLABELLED, 7]);
    let positional = b"vertex,group\n0,3\n1,4\n9,5\n";
    let file = read_ground_truth_from_bytes("t.csv", positional, &ids).unwrap();
    assert_eq!(file.unknown_ids, 1);
    assert_eq!(partition(file.truth), vec![3, 4, UNLABELLED]);
    // Detected by its comma without a `.csv` name.
    let file = read_ground_truth_from_bytes("t", positional, &ids).unwrap();
    assert_eq!(partition(file.truth), vec![3, 4, UNLABELLED]);

    let error = read_ground_truth_from_bytes("t.csv", b"id\n1\n", &ids).unwrap_err();
    assert_eq!(parse_error(error).0, 1);
    let error = read_ground_truth_from_bytes("t.csv", b"0,1\n1,2\n", &ids).unwrap_err();
    assert!(parse_error(error).2.contains("bad header"));
    let (line, column, message) =
        parse_error(read_ground_truth_from_bytes("t.csv", b"id,x,target\n1\n", &ids).unwrap_err());
    assert_eq!((line, column), (2, 2));
    assert!(message.contains("missing column: expected column 2 of the header (line 1), `x`"), "{message}");
    let (line, column, message) =
        parse_error(read_ground_truth_from_bytes("t.csv", b"id,x,target\n1,2\n", &ids).unwrap_err());
    assert_eq!((line, column), (2, 4));
    assert!(message.contains("missing column: expected a label (column 3, `target`)"), "{message}");
    // A row with more fields than the header is mangled, not read in part.
    let (line, column, message) =
        parse_error(read_ground_truth_from_bytes("t.csv", b"id,target\n0,1\n1,2,3\n", &ids).unwrap_err());
    assert_eq!((line, column), (3, 5));
    assert!(message.contains("unexpected extra column `3`: the header (line 1) has 2 columns"), "{message}");
    let (line, column, _) = parse_error(read_ground_truth_from_bytes("t.csv", b"id,target\n1,\n", &ids).unwrap_err());
    assert_eq!((line, column), (2, 3));
}

#[test]
fn bad_ground_truth_files() {
    let ids = VertexIds::Range { first: 0, len: 3 };
    let (line, column, message) = parse_error(read_ground_truth_from_bytes("t.cmty", b"0 1\n2 x\n", &ids).unwrap_err());
    assert_eq!((line, column), (2, 3));
    assert!(message.contains("expected a member vertex id"));
    let (line, column, _) =
        parse_error(read_ground_truth_from_bytes("t.labels", b"0 1\r\n-1 1\r\n", &ids).unwrap_err());
    assert_eq!((line, column), (2, 1));
    let (_, _, message) = parse_error(read_ground_truth_from_bytes("t.labels", b"# nothing\n", &ids).unwrap_err());
    assert!(message.contains("empty input"));
}

#[test]
fn explicit_layouts_and_gzip() {
    let ids = VertexIds::Range { first: 0, len: 4 };
    let text = b"0 1\n1 1\n2 0\n";
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(text).unwrap();
    let gz = encoder.finish().unwrap();
    let plain = read_ground_truth_from_bytes("x.labels", text, &ids).unwrap();
    let zipped = read_ground_truth_from_bytes("x.labels", &gz, &ids).unwrap();
    assert_eq!(plain, zipped);
    assert_eq!(partition(plain.truth), vec![1, 1, 0, UNLABELLED]);
    // The same text as communities: each line is a community of two vertices.
    let communities = read_ground_truth_from_bytes_as("x", text, &ids, Some(TruthFormat::Communities)).unwrap();
    assert_eq!(cover(communities.truth), vec![vec![0, 1], vec![1], vec![0, 2]]);
    // As multi-label: one community per label, numbered by sorted label.
    let multi = read_ground_truth_from_bytes_as("x", text, &ids, Some(TruthFormat::MultiLabels)).unwrap();
    assert_eq!(cover(multi.truth), vec![vec![2], vec![0, 1]]);
}
