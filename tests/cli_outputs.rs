//! End-to-end tests of the `glp` binary's outputs: paths checked before any work, `-` for
//! standard output, write errors, closed pipes, links, devices and FIFOs, and a quiet
//! standard error on a pipe.

mod common;

use common::{error_line, glp, stderr, stdout, BUNDLED_FILE};
use std::path::Path;
use std::process::{Command, Output};

/// `glp ARGS` with standard output sent to `stdout`.
fn glp_to(args: &[&str], stdout: std::process::Stdio) -> Output {
    Command::new(common::glp_binary()).args(args).stdout(stdout).output().expect("the glp binary runs")
}

/// The files of a directory, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn output_paths_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing/labels.tsv");
    let line = error_line(&glp(&["lp", "--backend", "cpu", "--out", missing.to_str().unwrap()]));
    let parent = dir.path().join("missing");
    assert_eq!(line, format!("error: --out {}: the directory {} does not exist", missing.display(), parent.display()));
    let line = error_line(&glp(&["lp", "--backend", "cpu", "--out", dir.path().to_str().unwrap()]));
    assert_eq!(line, format!("error: --out {}: is a directory", dir.path().display()));

    // The case: the ground truth's directory is missing. Checked before generating,
    // so the graph is not written either.
    let graph = dir.path().join("g.glpg");
    let truth = dir.path().join("missing/t");
    let run = glp(&[
        "gen",
        "planted",
        "--vertices",
        "3000",
        "--out",
        graph.to_str().unwrap(),
        "--truth",
        truth.to_str().unwrap(),
    ]);
    assert!(error_line(&run).starts_with(&format!("error: --truth {}: the directory", truth.display())));
    assert!(!stderr(&run).contains("wrote"), "{}", stderr(&run));
    let same = glp(&["gen", "planted", "--out", graph.to_str().unwrap(), "--truth", graph.to_str().unwrap()]);
    assert!(error_line(&same).contains("name the same output"));
    let to_stdout = glp(&["gen", "rmat", "--scale", "4", "--out", "-", "--seed", "1"]);
    assert!(to_stdout.status.success(), "{}", stderr(&to_stdout));
    let planted_to_stdout = glp(&["gen", "planted", "--vertices", "3000", "--out", "-"]);
    assert!(error_line(&planted_to_stdout).contains("--truth"));
    assert_eq!(files_in(dir.path()), Vec::<String>::new(), "nothing written, no temporary left");
}

#[test]
fn write_errors_on_standard_output_are_errors_and_leave_no_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let labels = dir.path().join("labels.tsv");
    for args in [
        vec!["lp", "--backend", "cpu"],
        vec!["lp", "--backend", "cpu", "--json", "--out", labels.to_str().unwrap()],
        vec!["info"],
        vec!["info", "--json"],
        vec!["convert", BUNDLED_FILE, "-"],
    ] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let run = glp_to(&args, full.into());
        assert_eq!(error_line(&run), "error: standard output: No space left on device (os error 28)", "{args:?}");
        // The report could not be written: the labels file is not committed either.
        assert_eq!(files_in(dir.path()), Vec::<String>::new(), "{args:?}");
    }
}

#[test]
fn a_closed_pipe_on_standard_output_ends_quietly() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.glpg");
    // About 800 KB of ground truth on standard output: more than a pipe holds, so glp is still
    // writing when the reader goes.
    let mut child = Command::new(common::glp_binary())
        .args(["gen", "planted", "--vertices", "80000", "--out", graph.to_str().unwrap(), "--truth", "-"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert_eq!(first.split('\t').count(), 2, "{first}");
    let run = child.wait_with_output().unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(!stderr(&run).contains("error"), "{}", stderr(&run));
    // The reader stopped reading, which is no failure: the other output is complete.
    let written = glp::io::load_graph(&graph, &glp::io::LoadOptions { progress: false, ..Default::default() }).unwrap();
    assert_eq!(written.num_vertices(), 80000);
}

#[test]
fn dash_sends_labels_to_standard_output_and_the_report_to_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("labels.tsv");
    let to_file = glp(&["lp", "--backend", "cpu", "--json", "--out", file.to_str().unwrap()]);
    assert!(to_file.status.success(), "{}", stderr(&to_file));
    let to_stdout = glp(&["lp", "--backend", "cpu", "--json", "--out", "-"]);
    assert!(to_stdout.status.success(), "{}", stderr(&to_stdout));
    assert_eq!(stdout(&to_stdout), std::fs::read_to_string(&file).unwrap());
    let report: serde_json::Value = serde_json::from_str(&stderr(&to_stdout)).unwrap();
    let expected: serde_json::Value = serde_json::from_str(&stdout(&to_file)).unwrap();
    assert_eq!(report["quality"]["modularity"], expected["quality"]["modularity"]);

    // Binary output to a pipe: the bytes of the file.
    let glpg = dir.path().join("g.glpg");
    assert!(glp(&["convert", BUNDLED_FILE, glpg.to_str().unwrap()]).status.success());
    let piped = glp(&["convert", BUNDLED_FILE, "-"]);
    assert!(piped.status.success(), "{}", stderr(&piped));
    assert_eq!(piped.stdout, std::fs::read(&glpg).unwrap());
}

#[cfg(unix)]
#[test]
fn links_are_followed_devices_and_fifos_written_in_place() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let expected = dir.path().join("expected.glpg");
    assert!(glp(&["convert", BUNDLED_FILE, expected.to_str().unwrap()]).status.success());
    let expected = std::fs::read(&expected).unwrap();

    // A link: its target is replaced, the link stays a link (also when dangling).
    let target = dir.path().join("target.glpg");
    let link = dir.path().join("link.glpg");
    std::os::unix::fs::symlink("target.glpg", &link).unwrap();
    for _ in 0..2 {
        let run = glp(&["convert", BUNDLED_FILE, link.to_str().unwrap()]);
        assert!(run.status.success(), "{}", stderr(&run));
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), expected);
    }
    // A replaced file keeps its permissions.
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    assert!(glp(&["convert", BUNDLED_FILE, target.to_str().unwrap()]).status.success());
    assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o640);

    // A FIFO is opened and written, not replaced.
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let run = glp(&["convert", BUNDLED_FILE, fifo.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(reader.join().unwrap(), expected);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());

    // A character device is written in place.
    let run = glp(&["lp", "--backend", "cpu", "--out", "/dev/null"]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    let mut names = files_in(dir.path());
    names.retain(|n| n.starts_with('.'));
    assert!(names.is_empty(), "temporary files left: {names:?}");
}

// ---- Messages, progress and quality warnings ----------------------------------------------

#[test]
fn standard_error_stays_clean_on_a_pipe_and_quiet_keeps_only_warnings() {
    // No progress drawn into a pipe: a plain run says nothing on standard error.
    let run = glp(&["lp", "--backend", "cpu"]);
    assert!(run.status.success());
    assert_eq!(stderr(&run), "");
    // The CPU fallback notice and the `wrote` lines go with --quiet; warnings stay.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.glpg");
    let gen = glp(&["gen", "rmat", "--scale", "6", "--out", out.to_str().unwrap()]);
    assert!(gen.status.success());
    assert!(stderr(&gen).starts_with(&format!("wrote {} (64 vertices", out.display())), "{}", stderr(&gen));
    let quiet = glp(&["--quiet", "gen", "rmat", "--scale", "6", "--out", out.to_str().unwrap()]);
    assert!(quiet.status.success());
    assert_eq!(stderr(&quiet), "");
    let quiet = glp(&["lp", "-q", "--backend", "auto", "--threads", "100000"]);
    assert!(quiet.status.success());
    let err = stderr(&quiet);
    assert!(!err.contains("notice"), "{err}");
    assert!(err.starts_with("warning: --threads 100000 capped at "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
