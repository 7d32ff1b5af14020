//! `glp sample` writes its outputs batch by batch (`--batch-samples`): the files are the same
//! whatever the batch size, and a run that fails after some batches were written leaves no
//! output behind (an existing file untouched) and reports the error the whole run gives.

mod common;

use common::{glp, stderr, stdout};
use std::path::Path;

/// The bytes `glp sample ARGS --out FILE` writes with `extra` options.
fn output(dir: &Path, name: &str, args: &[&str], extra: &[&str]) -> Vec<u8> {
    let path = dir.join(name);
    let path = path.to_str().unwrap();
    let run = glp(&[&["sample"], args, &["--out", path], extra].concat());
    assert!(run.status.success(), "{args:?} {extra:?}: {}", stderr(&run));
    std::fs::read(path).unwrap()
}

#[test]
fn outputs_are_the_same_files_whatever_the_batch_size() {
    let dir = tempfile::tempdir().unwrap();
    let runs: [(&str, &[&str]); 6] = [
        ("w.npy", &["deepwalk", "--walk-length", "12", "--seed", "3"]),
        // PPR's walks have many lengths: batches narrower than the longest row are padded at the end.
        ("p.npy", &["ppr", "--termination", "0.5", "--walk-length", "60", "--seed", "5"]),
        ("p.npz", &["ppr", "--termination", "0.5", "--walk-length", "60", "--seed", "5"]),
        ("k.npz", &["khop", "--fanouts", "5,3", "--roots-random", "300", "--seed", "4"]),
        ("l.npz", &["layer", "--layer-size", "16", "--seed", "4"]),
        ("k.txt", &["khop", "--fanouts", "5,3", "--roots-random", "300", "--seed", "4"]),
    ];
    for (name, args) in runs {
        let whole = output(dir.path(), name, args, &[]);
        assert!(whole.len() > 1000, "{name}: {} bytes", whole.len());
        for batch in ["1", "13"] {
            let batched = output(dir.path(), name, args, &["--batch-samples", batch]);
            assert!(batched == whole, "{name} in batches of {batch}");
        }
    }
    // Standard output too.
    let args = ["sample", "node2vec", "--roots-random", "40", "--out", "-"];
    let whole = glp(&args);
    let batched = glp(&[&args[..], &["--batch-samples", "3"]].concat());
    assert!(whole.status.success() && batched.status.success(), "{}", stderr(&batched));
    assert_eq!(stdout(&whole).lines().count(), 40);
    assert_eq!(stdout(&batched), stdout(&whole));
}

/// DeepWalk, except that sample 37 returns its own transit, which is not a neighbour.
const FAILS_AT_37: &str = r#"
use glp::graph::VertexId;
use glp::sample::{SampleView, Sampler, NONE};

pub struct FailsAt37 {
    pub length: u32,
}

impl Sampler for FailsAt37 {
    fn steps(&self) -> u32 {
        self.length
    }

    fn sample_size(&self, _step: u32) -> u32 {
        1
    }

    fn next(&self, view: &SampleView<'_>, sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        let degree = view.degree(transit);
        if degree == 0 {
            return NONE;
        }
        if sample == 37 {
            return transit;
        }
        view.edge(transit, view.random_below(degree))
    }
}
"#;

#[test]
fn a_run_that_fails_after_some_batches_leaves_no_output_and_gives_the_whole_runs_error() {
    let dir = tempfile::tempdir().unwrap();
    let sampler = dir.path().join("fails_at_37.rs");
    std::fs::write(&sampler, FAILS_AT_37).unwrap();
    let sampler = sampler.to_str().unwrap();
    let existing = dir.path().join("old.npy");
    std::fs::write(&existing, "the previous output").unwrap();
    let error_line = |out: &Path, batch: &[&str]| {
        let args = [&["sample", sampler, "--param", "length=5", "--out", out.to_str().unwrap()][..], batch].concat();
        let run = glp(&args);
        assert!(!run.status.success(), "{args:?} succeeded");
        let err = stderr(&run);
        assert!(!err.contains("panicked"), "{err}");
        err.lines().find(|l| l.starts_with("error:")).unwrap_or_else(|| panic!("no error line: {err}")).to_string()
    };
    // One batch (the default holds all 1005 samples): the error of the whole run.
    let whole = error_line(&existing, &[]);
    assert!(whole.contains("sampler `FailsAt37`: `next` returned vertex"), "{whole}");
    assert!(whole.contains("which is not a neighbour of its transit"), "{whole}");
    assert!(whole.contains("(sample 37, step 0, lane 0)"), "{whole}");
    // Batches of 4: nine batches were written before sample 37's failed.
    for name in ["old.npy", "new.npy", "new.npz", "new.txt"] {
        let line = error_line(&dir.path().join(name), &["--batch-samples", "4"]);
        assert_eq!(line, whole, "{name}");
    }
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "the previous output");
    let mut names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["fails_at_37.rs", "old.npy"], "no output and no temporary file is left");
}

#[test]
fn the_batch_size_is_checked_and_documented() {
    let run = glp(&["sample", "deepwalk", "--batch-samples", "0"]);
    assert!(!run.status.success());
    assert!(stderr(&run).contains("error: --batch-samples must be at least 1"), "{}", stderr(&run));
    let help = glp(&["sample", "--help"]);
    let text = stdout(&help);
    assert!(text.contains("--batch-samples <N>"), "{text}");
    assert!(text.contains("batch by batch"), "{text}");
}
