//! End-to-end tests of the `glp` binary's input reading: standard input, `--columns`, and
//! negative weights.

mod common;

use common::{glp, stderr, stdout};
use std::process::{Command, Output};

/// Runs glp with `input` on its standard input.
fn glp_with_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(common::glp_binary())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the glp binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from a thread so that a child that stops reading early cannot block the test.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

fn info_json(run: &Output) -> serde_json::Value {
    assert!(run.status.success(), "{}", stderr(run));
    serde_json::from_str(&stdout(run)).unwrap()
}

#[test]
fn a_graph_path_dash_reads_standard_input() {
    // A triangle and a pendant: 4 vertices, 4 undirected edges stored twice.
    let info = info_json(&glp_with_stdin(&["info", "--json", "-"], b"0 1\n1 2\n2 0\n2 3\n"));
    assert_eq!(
        (info["graph"].as_str(), info["vertices"].as_u64(), info["stored_edges"].as_u64()),
        (Some("<stdin>"), Some(4), Some(8))
    );
    // Detected from the content: CSV by its comma, .glpg by its magic.
    let csv = info_json(&glp_with_stdin(&["info", "--json", "-"], b"src,dst,weight\n5,6,2.5\n"));
    assert_eq!((csv["vertices"].as_u64(), csv["total_weight"].as_f64()), (Some(2), Some(5.0)));
    let dir = tempfile::tempdir().unwrap();
    let glpg = dir.path().join("g.glpg");
    let run = glp_with_stdin(&["convert", "-", glpg.to_str().unwrap()], b"0 1\n1 2\n2 0\n2 3\n");
    assert!(run.status.success(), "{}", stderr(&run));
    let binary = info_json(&glp_with_stdin(&["info", "--json", "-"], &std::fs::read(&glpg).unwrap()));
    assert_eq!((binary["vertices"].as_u64(), binary["stored_edges"].as_u64()), (Some(4), Some(8)));
    // Errors name it, and it can feed one input only.
    let run = glp_with_stdin(&["info", "-"], b"0 1\n1 x\n");
    assert!(stderr(&run).contains("error: <stdin>:2:3: "), "{}", stderr(&run));
    let run = glp_with_stdin(&["lp", "--backend", "cpu", "-", "--ground-truth", "-"], b"0 1\n1 2\n");
    assert!(!run.status.success());
    assert!(stderr(&run).contains("standard input can be read only once"), "{}", stderr(&run));
    // Ground truth from standard input reads as the same file does.
    let graph = dir.path().join("two.txt");
    std::fs::write(&graph, "0 1\n1 2\n2 0\n3 4\n4 5\n5 3\n2 3\n").unwrap();
    let labels = dir.path().join("two.labels");
    std::fs::write(&labels, "0 0\n1 0\n2 0\n3 1\n4 1\n5 7\n").unwrap();
    let lp = |truth: &str, input: &[u8]| -> serde_json::Value {
        let args = [
            "lp",
            "--backend",
            "cpu",
            "--json",
            "--schedule",
            "sync",
            graph.to_str().unwrap(),
            "--ground-truth",
            truth,
        ];
        info_json(&glp_with_stdin(&args, input))
    };
    let from_file = lp(labels.to_str().unwrap(), b"");
    let from_stdin = lp("-", &std::fs::read(&labels).unwrap());
    assert!(from_file["quality"]["nmi"]["value"].is_f64(), "{from_file}");
    assert_eq!(from_file["quality"], from_stdin["quality"]);
    let run = glp_with_stdin(&["info", "--format", "ldbc", "-"], b"1\n");
    assert!(stderr(&run).contains("an LDBC .v/.e pair cannot be read from standard input"), "{}", stderr(&run));
}

#[test]
fn columns_choose_edge_list_columns_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.csv");
    // Columns named outside glp's list: an error listing the names understood...
    std::fs::write(&path, "cost,a,b\n2,1,2\n3,2,3\n").unwrap();
    let run = glp(&["info", path.to_str().unwrap()]);
    assert!(!run.status.success());
    assert!(stderr(&run).contains(":1:1: bad header: unknown column name `cost`"), "{}", stderr(&run));
    // The runtime's message names no flag; the command line names its own.
    let chosen = "(choose columns with --columns SRC,DST[,WEIGHT], names or 0-based indices)\n";
    assert!(stderr(&run).ends_with(chosen), "{}", stderr(&run));
    // ...that --columns resolves: edges 1-2 (weight 2) and 2-3 (weight 3), stored twice.
    let info = info_json(&glp(&["info", "--json", "--columns", "a,b,cost", path.to_str().unwrap()]));
    assert_eq!(
        (info["vertices"].as_u64(), info["weighted"].as_bool(), info["total_weight"].as_f64()),
        (Some(3), Some(true), Some(10.0))
    );
    let info = info_json(&glp(&["info", "--json", "--columns", "2,1", path.to_str().unwrap()]));
    assert_eq!((info["weighted"].as_bool(), info["stored_edges"].as_u64()), (Some(false), Some(4)));
    let run = glp(&["info", "--columns", "a", path.to_str().unwrap()]);
    assert!(stderr(&run).contains("expected SRC,DST or SRC,DST,WEIGHT"), "{}", stderr(&run));
}

#[test]
fn lp_refuses_negative_weights_at_load_while_info_and_convert_take_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("signed.txt");
    std::fs::write(&path, "0 1 2\n1 2 -3\n").unwrap();
    // A signed graph: total stored weight (2 - 3) * 2.
    let info = info_json(&glp(&["info", "--json", path.to_str().unwrap()]));
    assert_eq!(info["total_weight"].as_f64(), Some(-2.0));
    let run = glp(&["convert", path.to_str().unwrap(), dir.path().join("signed.glpg").to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    // lp refuses it where the weight is, before running.
    for input in [path.clone(), dir.path().join("signed.glpg")] {
        let run = glp(&["lp", "--backend", "cpu", input.to_str().unwrap()]);
        assert!(!run.status.success());
        let err = stderr(&run);
        assert!(
            err.contains("label propagation, weighted sampling and shortest paths need non-negative edge weights"),
            "{err}"
        );
        if input == path {
            assert!(err.contains(&format!("error: {}:2:5: a weight `-3` is negative", path.display())), "{err}");
        } else {
            assert!(err.contains("the weight of edge 1 -> 2, -3, is negative"), "{err}");
        }
    }
}
