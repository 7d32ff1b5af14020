//! Graph ingestion: text formats, compressed inputs, the binary `.glpg` format, ground truth
//! and seeds.
//!
//! # Formats
//!
//! | [`Format`] | CLI name | input |
//! |---|---|---|
//! | [`Format::MatrixMarket`] | `mtx` | Matrix Market coordinate: pattern / integer / real, general / symmetric / skew-symmetric |
//! | [`Format::EdgeList`] | `edges` | SNAP-style `source target`, `source target weight` or `source target {data dict}` lines |
//! | [`Format::Csv`] | `csv` | the same with commas, columns chosen by a header's names (`src,dst,weight`) |
//! | [`Format::LdbcAdjacency`] | `adj` | LDBC validation adjacency lists `v n1 n2 ...` |
//! | [`Format::LdbcVertexEdge`] | `ldbc` | LDBC Graphalytics `.v` + `.e` pairs |
//! | [`Format::Glpg`] | `glpg` | glp's binary CSR format (see [`write_glpg`]) |
//!
//! Any of them may be compressed with gzip, zstd, xz or bzip2, recognised by their magic
//! bytes, not by the name (multi-member streams are read whole); zip, 7z, lz4 and lzip inputs
//! are recognised and refused with a message that says how to unpack them. Each variant of
//! [`Format`] documents its rules.
//!
//! The path `-` ([`STDIN_PATH`]) reads standard input, for graphs (every format but an LDBC
//! pair, detected from the content), ground truth and seeds; errors call it `<stdin>`, and it
//! can be read once per process.
//!
//! ## Detection
//!
//! An explicit [`LoadOptions::format`] always wins. Otherwise the first matching rule applies
//! (names compared case-insensitively after dropping a compression suffix: `.gz`, `.zst`,
//! `.zstd`, `.xz`, `.bz2`; content means the decompressed bytes):
//!
//! 1. the path names an LDBC pair: it ends in `.v` or `.e` and both `<stem>.v` and
//!    `<stem>.e` exist, or it is a stem (not a file itself) whose `.v` and `.e` files exist
//!    -> [`Format::LdbcVertexEdge`];
//! 2. content starts with the `.glpg` magic -> [`Format::Glpg`];
//! 3. content starts with `%%MatrixMarket` -> [`Format::MatrixMarket`];
//! 4. the name ends in `.glpg` -> [`Format::Glpg`], `.mtx` -> [`Format::MatrixMarket`],
//!    `.csv` -> [`Format::Csv`] (a wrong magic or banner is then reported as such);
//! 5. the name ends in `-input` (the LDBC validation sets) or `.adj` ->
//!    [`Format::LdbcAdjacency`];
//! 6. the first data line has a comma before any `{` (a data dict may hold commas) ->
//!    [`Format::Csv`];
//! 7. otherwise [`Format::EdgeList`].
//!
//! ## Text
//!
//! Every text format shares one tokenizer: LF, CRLF and CR-only line ends (mixed too), a
//! missing final line end, `#` and `%` comment lines and blank lines skipped, fields split on
//! runs of spaces and tabs (commas for CSV, with spaces around fields trimmed).
//!
//! Every line is read whole: a field beyond those a format defines is an error naming the
//! line, never ignored. Edge lists decide their column schema once per file (from the CSV
//! header, [`LoadOptions::columns`], or the first data line) and hold every line to it; the
//! rules are in [`Columns`]' module, `columns`.
//!
//! # Pipeline
//!
//! ```text
//! file / stdin --mmap / read / decompress--> bytes --detect--> header, schema (sequential)
//!      --parallel chunks at line boundaries--> original ids per chunk
//!      --relabel (dense by increasing original id)--> EdgeList --build_csr(BuildOptions)--> Graph
//! ```
//!
//! Vertex sets: Matrix Market declares `1..=n` (all exist); a `.v` file declares the set
//! exactly; edge lists, CSV and adjacency lists have the ids that appear (adjacency lines of
//! a lone vertex included). Parsing runs on the rayon pool; errors carry byte offsets that
//! become line and column only when reported, so the fast path never counts lines.
//!
//! # Memory
//!
//! No input of `n` bytes makes glp allocate far more than its content needs. Text parsers
//! size their buffers from what the bytes can hold (an edge takes at least 4 bytes: at most
//! 20 bytes of ids and weights per input byte, 4 for typical files), never from a declared
//! count; declared counts (a Matrix Market size line, a `.glpg` header) are checked against
//! the file's size and against the memory budget ([`crate::memory::available_memory`]:
//! available memory, a cgroup's limit, or `GLP_MEMORY_LIMIT`) before anything is allocated
//! for them, and decompression stops at the budget. Exceeding it
//! is an error that says what was declared or needed and what is available, not a process
//! killed by the kernel.
//!
//! # Errors
//!
//! Malformed input is an [`crate::Error`] naming the file, line and column and what
//! was expected there: a bad header, a non-numeric or negative id, an index outside the
//! declared range, a NaN or infinite weight (or a negative one under
//! [`WeightRule::NonNegative`]), a missing or extra column, a data dict that is not well
//! formed, an empty or truncated file (a Matrix Market file with fewer entries than declared,
//! a cut compressed stream). Loading never returns a partial graph; nothing panics on user
//! input. `.glpg` files report wrong magic, unsupported version, non-zero reserved bytes,
//! checksum mismatch, truncation and inconsistent counts.
//!
//! # Progress
//!
//! A progress bar is drawn on standard error while loading when it is a terminal and
//! [`LoadOptions::progress`] is true; it is silent otherwise.
//!
//! # Ground truth
//!
//! [`read_ground_truth`] reads label files, SNAP community files and CSV target files (plain
//! or compressed) into a partition or a cover in dense ids; see [`TruthFormat`].
//!
//! # Seeds
//!
//! [`read_seeds`] reads `vertex label` seed files for seeded label propagation (strict: an
//! unknown vertex or a conflicting label is an error); see [`SeedFile`].
//!
//! # Modules
//!
//! `input` (mmap, stdin, bounded reads), `compression` (magic bytes, decoders), `text` (the
//! shared tokenizer, lazy positions, parallel chunks), `detect`, one module per format
//! (`matrix_market`, `edge_list` for edge lists and CSV with `columns` for their schema and
//! `data_dict` for networkx's trailing dicts, `ldbc`, `glpg`), `records` (parallel parsing of
//! line-per-edge formats straight into one id buffer), `assemble` (vertex sets, relabelling,
//! CSR build: shared by every text format), `truth`, `seeds`, `progress`.

mod assemble;
mod columns;
mod compression;
mod data_dict;
mod detect;
mod edge_list;
mod glpg;
mod input;
mod ldbc;
mod matrix_market;
mod progress;
mod records;
mod roots;
mod seeds;
mod text;
mod truth;

pub use columns::{Column, Columns, SOURCE_NAMES, TARGET_NAMES, WEIGHT_NAMES};
pub use glpg::write_glpg;
pub use input::STDIN_PATH;
pub use progress::draws_progress;
pub use roots::{read_roots, read_roots_from_bytes};
pub use seeds::{read_seeds, read_seeds_from_bytes, SeedFile};
pub use truth::{
    read_ground_truth, read_ground_truth_as, read_ground_truth_from_bytes, read_ground_truth_from_bytes_as, TruthFile,
    TruthFormat,
};

use crate::error::{Error, Result};
use crate::graph::{BuildOptions, Graph};
use progress::Progress;
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use text::{Dialect, Text};

/// A graph file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Matrix Market coordinate (`.mtx`): `%%MatrixMarket matrix coordinate <field>
    /// <symmetry>` with field `pattern` (unweighted), `integer` or `real` (weighted) and
    /// symmetry `general`, `symmetric` or `skew-symmetric`. The size line `n n nnz` declares
    /// the vertices `1..=n` (isolated ones included; an index outside is an error) and exactly
    /// `nnz` entries (fewer or more is an error). A `symmetric` file is always symmetrised,
    /// whatever [`BuildOptions::symmetrise`] says: it stores one triangle of an undirected
    /// graph. A `skew-symmetric` file gets both directions, the reverse with the negated value.
    /// The dense `array` format, `complex` and `hermitian` matrices and non-square matrices are
    /// errors.
    MatrixMarket,
    /// SNAP-style edge list, one edge per line. **The first data line decides the columns
    /// of every line** (unless [`LoadOptions::columns`] chooses them): `source target`
    /// (unweighted), `source target weight` (weighted: the third field is a number; `nan` and
    /// `inf` then fail as non-finite), or `source target {data dict}` (networkx's
    /// `write_edgelist`, LFR's `{}`: weighted when the first dict has a `weight` key, whose
    /// value is read; other keys are ignored). A line with a different number of columns, a
    /// weight that does not parse, a fourth column, or a third that is neither a number nor
    /// a dict is an error at its line and column. The vertices are the ids that appear.
    EdgeList,
    /// Comma-separated edge list. The first data line is a header when its first or second
    /// field is not a number; columns are then chosen by name (source: `source`, `src`,
    /// `from`, `id_1`, ...; target: `target`, `dst`, `to`, `id_2`, ...; weight: `weight`, `w`,
    /// `value`; case-insensitive, in any order; see [`SOURCE_NAMES`], [`TARGET_NAMES`],
    /// [`WEIGHT_NAMES`]), an unknown name is an error listing the names understood, and every
    /// line has the header's number of fields. Without a header, columns are positional as
    /// in [`Format::EdgeList`]. [`LoadOptions::columns`] overrides both.
    Csv,
    /// LDBC Graphalytics adjacency lists (the validation sets' `*-input` files): lines
    /// `v n1 n2 ...` for edges `v -> ni`; a line with a lone `v` declares an isolated vertex,
    /// which is kept. The vertices are the ids that start a line or appear as neighbours.
    LdbcAdjacency,
    /// LDBC Graphalytics `.v` + `.e` pair: the `.v` file lists one vertex id per line and
    /// declares the vertex set exactly (an `.e` endpoint missing from it is an error at its
    /// line and column); the `.e` file is an edge list, optionally weighted (same rules as
    /// [`Format::EdgeList`]). Named by either file or their common stem; either may be
    /// compressed. Not readable from standard input.
    LdbcVertexEdge,
    /// glp's binary CSR format (see [`write_glpg`]): loads exactly as written, so
    /// [`LoadOptions::build`] does not apply.
    Glpg,
}

impl Format {
    /// Every format, in the order of the CLI names.
    pub const ALL: [Format; 6] = [
        Format::MatrixMarket,
        Format::EdgeList,
        Format::Csv,
        Format::LdbcAdjacency,
        Format::LdbcVertexEdge,
        Format::Glpg,
    ];

    /// The name the command line uses: `mtx`, `edges`, `csv`, `adj`, `ldbc` or `glpg`.
    pub fn name(self) -> &'static str {
        match self {
            Format::MatrixMarket => "mtx",
            Format::EdgeList => "edges",
            Format::Csv => "csv",
            Format::LdbcAdjacency => "adj",
            Format::LdbcVertexEdge => "ldbc",
            Format::Glpg => "glpg",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    /// Parses a CLI name (see [`Format::name`]).
    fn from_str(s: &str) -> Result<Self> {
        Format::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            Error::invalid(format!("unknown graph format `{s}` (expected one of {})", names.join(", ")))
        })
    }
}

/// Which edge weights a load accepts. Weights are always finite; this says whether they may
/// be negative. The check runs where each weight is parsed, so a refused weight is an error
/// at its file, line and column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum WeightRule {
    /// Any finite weight (signed graphs exist: `glp info` and `glp convert` take them).
    #[default]
    Any,
    /// Non-negative weights only: label propagation, sampling in proportion to weights,
    /// shortest paths (SSSP) and the community quality metrics (modularity, conductance) are
    /// defined for them.
    NonNegative,
}

impl WeightRule {
    /// `Ok` when the rule allows the finite weight `w`; else the reason a negative weight is
    /// refused, for messages that say `` "... `w` is negative: REASON" ``.
    pub fn check(self, w: f32) -> std::result::Result<(), &'static str> {
        match self {
            WeightRule::NonNegative if w < 0.0 => {
                Err("label propagation, weighted sampling and shortest paths need non-negative edge weights (as do modularity and conductance)")
            }
            _ => Ok(()),
        }
    }
}

/// How [`load_graph`] reads a graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOptions {
    /// The input's format; `None` detects it (see the module docs).
    pub format: Option<Format>,
    /// Symmetrisation, self loops and duplicate edges. Ignored for `.glpg` files, which hold
    /// an already built graph and load exactly as written.
    pub build: BuildOptions,
    /// Draw a progress bar on standard error (only when it is a terminal).
    pub progress: bool,
    /// The source, target and weight columns of an edge list (CSV, whitespace, an LDBC `.e`
    /// file), overriding the header names and the first data line; `None` decides from the
    /// file. Chosen columns must exist on every line; others are ignored. Any other format
    /// refuses it.
    pub columns: Option<Columns>,
    /// The weights accepted.
    pub weights: WeightRule,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: None,
            build: BuildOptions::default(),
            progress: true,
            columns: None,
            weights: WeightRule::Any,
        }
    }
}

/// Loads the graph at `path` (any supported format, plain or compressed; `-` reads standard
/// input).
///
/// An LDBC `.v`/`.e` pair may be named by either file or by their common stem.
pub fn load_graph(path: &Path, options: &LoadOptions) -> Result<Graph> {
    let progress = Progress::new(options.progress);
    let ldbc_pair = || ldbc::vertex_edge_pair(path).is_some();
    let named_pair = || {
        let name = detect::plain_name(path);
        !input::is_stdin(path) && (name.ends_with(".v") || name.ends_with(".e") || !path.exists()) && ldbc_pair()
    };
    match options.format {
        Some(Format::LdbcVertexEdge) => return ldbc::load_vertex_edge_files(path, options, &progress),
        None if named_pair() => return ldbc::load_vertex_edge_files(path, options, &progress),
        _ => {}
    }
    let bytes = input::read_file(path, &progress)?;
    let name = input::display_name(path);
    let format = options.format.unwrap_or_else(|| detect::detect(name, &bytes));
    load_text(format, Text::new(name, &bytes), options, &progress)
}

/// Loads a graph from `bytes` (plain or compressed), for example a graph bundled into the binary.
/// `name` is used for format detection and error messages. A `.v`/`.e` pair needs both
/// files: use [`load_ldbc_from_bytes`].
pub fn load_graph_from_bytes(name: &str, bytes: &[u8], options: &LoadOptions) -> Result<Graph> {
    let path = Path::new(name);
    let progress = Progress::new(options.progress);
    let bytes = input::decode_bytes(path, bytes, &progress)?;
    let format = options.format.unwrap_or_else(|| detect::detect(path, &bytes));
    load_text(format, Text::new(path, &bytes), options, &progress)
}

/// Loads an LDBC `.v`/`.e` pair from the bytes of both files (each plain or compressed); errors
/// name them `<name>.v` and `<name>.e`. [`LoadOptions::format`] is ignored.
pub fn load_ldbc_from_bytes(name: &str, vertices: &[u8], edges: &[u8], options: &LoadOptions) -> Result<Graph> {
    let (vertex_name, edge_name) = (format!("{name}.v"), format!("{name}.e"));
    let (vertex_path, edge_path) = (Path::new(&vertex_name), Path::new(&edge_name));
    let progress = Progress::new(options.progress);
    let vertices = input::decode_bytes(vertex_path, vertices, &progress)?;
    let edges = input::decode_bytes(edge_path, edges, &progress)?;
    ldbc::load_vertex_edge(Text::new(vertex_path, &vertices), Text::new(edge_path, &edges), options, &progress)
}

fn load_text(format: Format, text: Text<'_>, options: &LoadOptions, progress: &Progress) -> Result<Graph> {
    if let (Some(columns), Format::MatrixMarket | Format::LdbcAdjacency | Format::Glpg) = (&options.columns, format) {
        return Err(Error::invalid(format!(
            "{}: columns ({columns}) can be chosen in edge lists and CSV files, not in a {format} file",
            text.name().display()
        )));
    }
    match format {
        Format::MatrixMarket => matrix_market::load(text, options, progress),
        Format::EdgeList => edge_list::load(text, Dialect::Whitespace, options, progress),
        Format::Csv => edge_list::load(text, Dialect::Csv, options, progress),
        Format::LdbcAdjacency => ldbc::load_adjacency(text, &options.build, progress),
        Format::Glpg => glpg::read(text.name(), text.bytes(), options.weights),
        Format::LdbcVertexEdge => Err(Error::invalid(format!(
            "{}: an LDBC .v/.e pair needs both files; load it by path or with load_ldbc_from_bytes",
            text.name().display()
        ))),
    }
}
