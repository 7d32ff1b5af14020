//! End-to-end tests of the `glp` binary: `glp lp` with its variants, the graph-file commands
//! and `glp bench`. Every expected value is computed here from the input files with
//! independent code (or read from the LDBC reference outputs).
//!
//! One test binary (`cargo test --test cli`), one module per command:
//!
//! - `lp`: `glp lp`, its labels, reports, schedules and backends;
//! - `variants`: `--variant NAME`, the built-in variants and their options;
//! - `variant_files`: `--variant FILE.rs`, variants in source files and their errors;
//! - `graph_files`: `glp info`, `glp convert` and `glp gen`;
//! - `bench`: `glp bench lp`, `compile` and `probe`;
//! - `conventions`: what every command shares (argument errors, JSON times in ms).
//!
//! The other commands have binaries of their own (`tests/cli_*.rs`).

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod conventions;
mod graph_files;
mod lp;
mod variant_files;
mod variants;

use std::collections::BTreeMap;
use std::path::Path;

/// `vertex label...` lines of an --out file, labels as text.
fn read_rows(path: &Path) -> BTreeMap<u64, Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut t = l.split('\t');
            (t.next().unwrap().parse().unwrap(), t.map(str::to_string).collect())
        })
        .collect()
}
