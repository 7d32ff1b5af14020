//! LDBC Graphalytics inputs: vertex/edge file pairs and the adjacency lists of the validation
//! sets.
//!
//! - **`.v` + `.e`**: the `.v` file lists one vertex id per line and declares the vertex set
//!   (isolated vertices included); the `.e` file is an edge list (`source target [weight]`,
//!   parsed by [`super::edge_list`], so weightedness follows the same first-line rule). An edge
//!   endpoint missing from the `.v` file is an error at its line and column in the `.e` file.
//!   A pair is named by either file or by their common stem (`example-directed` for
//!   `example-directed.v` + `example-directed.e`); each file may be compressed (`.gz`, `.zst`,
//!   `.xz`, `.bz2`, recognised by content). A pair cannot come from standard input.
//! - **Adjacency lists** (`cdlp/dir-input`, ...): each line is `v n1 n2 ...`, edges `v -> ni`.
//!   A line with a lone `v` declares an isolated vertex, which is kept. The vertex set is every
//!   id that starts a line or appears as a neighbour.

use super::assemble::{assemble, EdgeChunk, ParsedGraph, VertexSet};
use super::detect::{strip_compression_suffix, COMPRESSION_SUFFIXES};
use super::edge_list;
use super::input::{is_stdin, read_file, Input};
use super::progress::Progress;
use super::text::{Dialect, Fault, Lines, Text};
use super::LoadOptions;
use crate::error::{Error, Result};
use crate::graph::{BuildOptions, Graph};
use std::path::{Path, PathBuf};

/// Loads an adjacency-list file.
pub(crate) fn load_adjacency(text: Text<'_>, build: &BuildOptions, progress: &Progress) -> Result<Graph> {
    if text.lines().next_data().is_none() {
        return Err(text.error_at(text.end(), "empty input: expected adjacency lines `vertex neighbour...`"));
    }
    progress.bytes_stage("parsing", text.len() as u64);
    let chunks = text.parse_chunks(text.content(), progress, parse_adjacency_chunk)?;
    let parsed = ParsedGraph::from_chunks(chunks, VertexSet::Appearing);
    progress.stage("building");
    assemble(parsed, build, build.symmetrise, |_| Error::invalid("adjacency lists declare no vertex set"))
}

fn parse_adjacency_chunk(lines: Lines<'_>) -> Result<EdgeChunk, Fault> {
    let mut chunk = EdgeChunk::default();
    for line in lines {
        if !line.is_data() {
            continue;
        }
        let mut fields = line.fields(Dialect::Whitespace);
        let vertex = fields.id("a vertex id")?;
        chunk.vertices.push(vertex);
        while let Some(token) = fields.next_token() {
            chunk.sources.push(vertex);
            chunk.targets.push(token.id("a neighbour vertex id")?);
        }
    }
    Ok(chunk)
}

/// The `.v` and `.e` files of the pair `path` names (either file, or their common stem), when
/// both exist. Each may carry a compression suffix ([`COMPRESSION_SUFFIXES`]).
pub(crate) fn vertex_edge_pair(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let name = path.file_name()?.to_str()?;
    let plain = strip_compression_suffix(name);
    let stem = plain.strip_suffix(".v").or_else(|| plain.strip_suffix(".e")).unwrap_or(plain);
    let find = |ext: &str| {
        std::iter::once(String::new())
            .chain(COMPRESSION_SUFFIXES.iter().map(|s| s.to_string()))
            .map(|suffix| path.with_file_name(format!("{stem}.{ext}{suffix}")))
            .find(|p| p.is_file())
    };
    Some((find("v")?, find("e")?))
}

/// Loads the `.v`/`.e` pair `path` names.
pub(crate) fn load_vertex_edge_files(path: &Path, options: &LoadOptions, progress: &Progress) -> Result<Graph> {
    if is_stdin(path) {
        return Err(Error::invalid(
            "an LDBC .v/.e pair cannot be read from standard input: name the files (or their common stem)",
        ));
    }
    let (vertex_path, edge_path) = vertex_edge_pair(path).ok_or_else(|| {
        Error::format(path, "an LDBC vertex/edge pair needs both files `<name>.v` and `<name>.e` next to each other")
    })?;
    let vertices: Input = read_file(&vertex_path, progress)?;
    let edges: Input = read_file(&edge_path, progress)?;
    load_vertex_edge(Text::new(&vertex_path, &vertices), Text::new(&edge_path, &edges), options, progress)
}

/// Loads a `.v`/`.e` pair from their texts.
pub(crate) fn load_vertex_edge(
    vertices: Text<'_>,
    edges: Text<'_>,
    options: &LoadOptions,
    progress: &Progress,
) -> Result<Graph> {
    let build = &options.build;
    progress.bytes_stage("parsing", vertices.len() as u64);
    let declared: Vec<u64> = vertices.parse_chunks(vertices.content(), progress, parse_vertex_chunk)?.concat();
    if declared.is_empty() {
        return Err(vertices.error_at(vertices.end(), "empty vertex file: expected one vertex id per line"));
    }
    let parsed =
        edge_list::parse(edges, Dialect::Whitespace, false, &declared, VertexSet::Declared, options, progress)?;
    drop(declared);
    progress.stage("building");
    assemble(parsed, build, build.symmetrise, |bad| {
        let line = edges.nth_data_line(edges.content(), bad.edge);
        let offset = line.map_or(edges.len(), |line| {
            let mut fields = line.fields(Dialect::Whitespace);
            let source = fields.next_token();
            let target = fields.next_token();
            let token = if bad.is_target { target } else { source };
            token.map_or(line.offset(), |t| t.offset)
        });
        let role = if bad.is_target { "target" } else { "source" };
        edges.error_at(
            offset,
            format!("{role} vertex {} is not declared in the vertex file {}", bad.id, vertices.name().display()),
        )
    })
}

fn parse_vertex_chunk(lines: Lines<'_>) -> Result<Vec<u64>, Fault> {
    let mut ids = Vec::new();
    for line in lines {
        if !line.is_data() {
            continue;
        }
        let mut fields = line.fields(Dialect::Whitespace);
        ids.push(fields.id("a vertex id")?);
        fields.expect_end("a vertex file holds one vertex id per line")?;
    }
    Ok(ids)
}
