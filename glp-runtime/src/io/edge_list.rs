//! Edge lists: SNAP-style text, CSV with a header, and LDBC `.e` files.
//!
//! A data line is `source target [weight] [anything else...]`.
//!
//! **Weightedness is decided once, from the first data line**: if its third field is numeric
//! (an integer, a decimal, or `nan`/`inf`, which then fail as non-finite weights), the file is
//! weighted and every line must have a finite numeric weight there; otherwise the third and
//! later fields are ignored on every line. This reads `u v w` weighted lists, `u v` lists, and
//! the LFR files' `u<TAB>v<TAB>{}` lines (the `{}` is an empty attribute dictionary) with one
//! rule, and a weighted file that lost a weight on some line is an error, not a silently
//! unweighted graph. Fields after the weight are ignored (timestamps and the like).
//!
//! **CSV**: fields are separated by commas. The first data line is a header when any of its
//! fields is not numeric (e.g. `id_1,id_2`); it must then have at least two columns. A first
//! line of numbers is data (a header-less CSV).

use super::assemble::{assemble, EdgeChunk, ParsedGraph, VertexSet};
use super::progress::Progress;
use super::text::{Dialect, Fault, Lines, Text};
use crate::error::{Error, Result};
use crate::graph::{BuildOptions, Graph};

const SOURCE: &str = "a source vertex id";
const TARGET: &str = "a target vertex id";

/// Parses the edge list in `text`. The vertex set is the ids that appear; `require_edges`
/// makes an input without any edge an error (an `.e` file may be empty when its `.v` file
/// lists isolated vertices).
pub(crate) fn parse(text: Text<'_>, dialect: Dialect, require_edges: bool, progress: &Progress) -> Result<ParsedGraph> {
    let mut lines = text.lines();
    let mut first = lines.next_data();
    if dialect == Dialect::Csv {
        if let Some(header) = first.filter(|line| line.fields(Dialect::Csv).any_non_numeric()) {
            let columns = header.fields(Dialect::Csv).count_rest();
            if columns < 2 {
                return Err(text.error_at(
                    header.offset(),
                    format!(
                        "bad header: expected at least two columns (source and target, e.g. `id_1,id_2`), found {columns}"
                    ),
                ));
            }
            first = lines.next_data();
        }
    }
    let Some(first) = first else {
        if require_edges {
            return Err(text.error_at(
                text.end(),
                "empty input: expected edges (lines `source target [weight]`), found no data line",
            ));
        }
        return Ok(ParsedGraph { chunks: Vec::new(), weighted: false, vertices: VertexSet::Appearing });
    };
    let mut fields = first.fields(dialect);
    let weighted = fields.next_token().is_some()
        && fields.next_token().is_some()
        && fields.next_token().is_some_and(|third| third.is_numeric());
    let weight_what = format!(
        "a weight (the file is weighted: the third column of its first data line, line {}, is a number)",
        text.position(first.offset()).line
    );
    progress.bytes_stage("parsing", (text.len() - first.offset()) as u64);
    let chunks = text.parse_chunks(first.offset()..text.len(), progress, |lines| {
        parse_chunk(lines, dialect, weighted.then_some(weight_what.as_str()))
    })?;
    Ok(ParsedGraph { chunks, weighted, vertices: VertexSet::Appearing })
}

/// Parses one chunk; `weight` names the weight column when the file is weighted.
fn parse_chunk(lines: Lines<'_>, dialect: Dialect, weight: Option<&str>) -> Result<EdgeChunk, Fault> {
    let mut chunk = EdgeChunk::default();
    // Room for lines of 8 bytes on average, so that typical chunks never reallocate (the
    // untouched part of an over-estimate costs address space only).
    let estimate = lines.remaining() / 8 + 16;
    chunk.sources.reserve(estimate);
    chunk.targets.reserve(estimate);
    if weight.is_some() {
        chunk.weights.reserve(estimate);
    }
    for line in lines {
        if !line.is_data() {
            continue;
        }
        let mut fields = line.fields(dialect);
        chunk.sources.push(fields.id(SOURCE)?);
        chunk.targets.push(fields.id(TARGET)?);
        if let Some(what) = weight {
            chunk.weights.push(fields.expect(what)?.weight("a weight")?);
        }
    }
    Ok(chunk)
}

/// Loads an edge list or CSV file: parses, relabels the ids that appear, builds.
pub(crate) fn load(text: Text<'_>, dialect: Dialect, build: &BuildOptions, progress: &Progress) -> Result<Graph> {
    let parsed = parse(text, dialect, true, progress)?;
    progress.stage("building");
    assemble(parsed, build, build.symmetrise, |_| Error::invalid("edge lists declare no vertex set"))
}
