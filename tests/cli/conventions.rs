//! What every command shares: bad arguments are one clear error each, never a panic, and
//! JSON reports give times in milliseconds (`_ms` fields).

use crate::common::{glp, stderr, stdout};

#[test]
fn bad_arguments_are_errors_not_panics() {
    for args in [
        vec!["lp", "--threads", "0"],
        vec!["lp", "--tolerance", "2"],
        vec!["lp", "/nonexistent/graph.txt"],
        vec!["info", "/nonexistent/graph.txt"],
        vec!["bench", "lp", "--repeat", "0"],
        // GPU kernel strategies have no CPU form: refused, not silently replaced.
        vec!["bench", "lp", "--mfl", "glp,smem", "--repeat", "1"],
        vec!["lp", "--backend", "cpu", "--mfl", "hash"],
        vec!["bench", "compile", "--repeat", "0"],
        vec!["gen", "planted", "--mu", "1.5", "--out", "/tmp/never.glpg"],
        vec!["lp", "--iterations", "0"],
        vec!["bench", "lp", "--iterations", "0"],
        vec!["lp", "--tolerance", "nan"],
        vec!["gen", "rmat", "--scale", "60", "--out", "/tmp/never.glpg"],
        vec!["gen", "rmat", "--edge-factor", "0", "--out", "/tmp/never.glpg"],
        vec!["bench", "lp", "--rmat", "40"],
    ] {
        let run = glp(&args);
        assert!(!run.status.success(), "{args:?} succeeded");
        assert!(stderr(&run).lines().any(|l| l.starts_with("error: ")), "{args:?}: {}", stderr(&run));
        assert!(!stderr(&run).contains("panicked"), "{args:?}: {}", stderr(&run));
        // Each message appears once (no cause repeated on a "caused by" line; clap's usage
        // errors end with a blank line and a pointer to --help).
        let err = stderr(&run);
        let lines: Vec<&str> =
            err.lines().filter(|l| !l.trim().is_empty()).map(|l| l.trim_start_matches("  caused by: ")).collect();
        for (i, line) in lines.iter().enumerate() {
            assert!(lines[i + 1..].iter().all(|later| !line.contains(later)), "{args:?}: {err}");
        }
    }
}

#[test]
fn json_times_are_milliseconds_in_ms_fields() {
    /// Every key of `value`, recursively.
    fn keys(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    out.push(k.clone());
                    keys(v, out);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("edges.txt");
    std::fs::write(&edges, "1 2\n2 3\n3 1\n3 4\n").unwrap();
    let runs = [
        (vec!["lp", "--backend", "cpu", "--json"], vec!["time_ms"]),
        (vec!["bench", "lp", "--repeat", "1", "--json"], vec!["prepare_ms", "median_ms", "min_ms", "runs_ms"]),
        (vec!["bench", "load", edges.to_str().unwrap(), "--repeat", "1", "--json"], vec!["median_ms", "min_ms"]),
        (vec!["info", "--json"], vec![]),
    ];
    for (args, required) in runs {
        let run = glp(&args);
        assert!(run.status.success(), "{args:?}: {}", stderr(&run));
        let mut all = Vec::new();
        keys(&serde_json::from_str(&stdout(&run)).unwrap(), &mut all);
        for key in &required {
            assert!(all.iter().any(|k| k == key), "{args:?}: no {key} in {all:?}");
        }
        // Seconds nowhere: the only `_s` fields are rates (per second).
        let seconds: Vec<&String> = all.iter().filter(|k| k.ends_with("_s") && !k.ends_with("per_s")).collect();
        assert!(seconds.is_empty(), "{args:?}: {seconds:?}");
    }
}
