//! Edge lists: SNAP-style text, CSV, and LDBC `.e` files.
//!
//! A data line holds one edge. Which fields are the source, the target and the weight is
//! the file's column schema, decided once from the CSV header, [`LoadOptions::columns`], or
//! the first data line, and enforced on every line ([`super::columns`] states the rules).
//! Parsing is parallel over chunks; every chunk reads its lines through the one schema.
//!
//! **CSV**: fields are separated by commas. The first data line is a header when its first or
//! second field is not a number (e.g. `id_1,id_2`); columns are then chosen by the header's
//! names. A first line that starts with two numbers is data (a header-less CSV, read by
//! position).

use super::assemble::{assemble, ParsedGraph, VertexSet};
use super::columns::{csv_header, decide, read_lines, Schema, Shape};
use super::progress::Progress;
use super::records::{parse_records, EdgeSink, Layout};
use super::text::{Dialect, Fault, Lines, Text};
use super::LoadOptions;
use crate::error::{Error, Result};
use crate::graph::Graph;

/// Parses the edge list in `text`, appending `declared` after the endpoints in the id buffer
/// for a vertex set of kind `vertices`. `require_edges` makes an input without any edge an
/// error (an `.e` file may be empty when its `.v` file lists isolated vertices).
pub(crate) fn parse(
    text: Text<'_>,
    dialect: Dialect,
    require_edges: bool,
    declared: &[u64],
    vertices: VertexSet,
    options: &LoadOptions,
    progress: &Progress,
) -> Result<ParsedGraph> {
    let mut lines = text.lines();
    let mut first = lines.next_data();
    let header = if dialect == Dialect::Csv { csv_header(first) } else { None };
    if header.is_some() {
        first = lines.next_data();
    }
    let schema = decide(text, dialect, header, first, options.columns.as_ref(), options.weights)?;
    let (Some(first), Some(schema)) = (first, schema) else {
        if require_edges {
            return Err(text.error_at(
                text.end(),
                "empty input: expected edges (lines `source target [weight]`), found no data line",
            ));
        }
        return Ok(ParsedGraph { ids: declared.to_vec(), edges: 0, weights: None, vertices });
    };
    let body = first.offset()..text.len();
    progress.bytes_stage("parsing", body.len() as u64);
    let layout = Layout { edges_per_line: 1, weighted: schema.weighted(), declared, vertices };
    parse_records(text, body, layout, progress, |lines, sink| parse_chunk(lines, dialect, &schema, sink))
}

/// Parses one chunk into `sink`. Whitespace lines of two ids under the `source target`
/// schema take [`Lines::next_id_pair`]; any other line (comments, CSV, weights, malformed
/// ones) goes through the schema, which also produces the errors.
fn parse_chunk(mut lines: Lines<'_>, dialect: Dialect, schema: &Schema, sink: &mut EdgeSink<'_>) -> Result<(), Fault> {
    if dialect != Dialect::Whitespace || schema.shape != Shape::Pair {
        return read_lines(lines, dialect, schema, |at, source, target, weight| sink.push(at, source, target, weight));
    }
    let mut row = Vec::new();
    loop {
        while let Some((at, source, target)) = lines.next_id_pair() {
            sink.push(at, source, target, None)?;
        }
        let Some(line) = lines.next() else { return Ok(()) };
        if line.is_data() {
            let (source, target, weight) = schema.read(line, dialect, &mut row)?;
            sink.push(line.offset(), source, target, weight)?;
        }
    }
}

/// Loads an edge list or CSV file: parses, relabels the ids that appear, builds.
pub(crate) fn load(text: Text<'_>, dialect: Dialect, options: &LoadOptions, progress: &Progress) -> Result<Graph> {
    let parsed = parse(text, dialect, true, &[], VertexSet::Appearing, options, progress)?;
    progress.stage("building");
    let build = &options.build;
    assemble(parsed, build, build.symmetrise, |_| Error::invalid("edge lists declare no vertex set"))
}
