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

use super::assemble::{assemble, ParsedGraph, VertexSet};
use super::progress::Progress;
use super::records::{parse_records, EdgeSink, Layout};
use super::text::{Dialect, Fault, Lines, Text};
use crate::error::{Error, Result};
use crate::graph::{BuildOptions, Graph};

const SOURCE: &str = "a source vertex id";
const TARGET: &str = "a target vertex id";

/// Parses the edge list in `text`, appending `declared` after the endpoints in the id buffer
/// for a vertex set of kind `vertices`. `require_edges` makes an input without any edge an
/// error (an `.e` file may be empty when its `.v` file lists isolated vertices).
pub(crate) fn parse(
    text: Text<'_>,
    dialect: Dialect,
    require_edges: bool,
    declared: &[u64],
    vertices: VertexSet,
    progress: &Progress,
) -> Result<ParsedGraph> {
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
        return Ok(ParsedGraph { ids: declared.to_vec(), edges: 0, weights: None, vertices });
    };
    let mut fields = first.fields(dialect);
    let weighted = fields.next_token().is_some()
        && fields.next_token().is_some()
        && fields.next_token().is_some_and(|third| third.is_numeric());
    let weight_what = format!(
        "a weight (the file is weighted: the third column of its first data line, line {}, is a number)",
        text.position(first.offset()).line
    );
    let weight = weighted.then_some(weight_what.as_str());
    let body = first.offset()..text.len();
    progress.bytes_stage("parsing", body.len() as u64);
    let layout = Layout { edges_per_line: 1, weighted, declared, vertices };
    parse_records(text, body, layout, progress, |lines, sink| parse_chunk(lines, dialect, weight, sink))
}

/// Parses one chunk into `sink`; `weight` names the weight column when the file is weighted.
/// Unweighted whitespace lines of two ids take [`Lines::next_id_pair`]; any other line
/// (comments, extra columns, CSV, weights, malformed ones) the general path.
fn parse_chunk(
    mut lines: Lines<'_>,
    dialect: Dialect,
    weight: Option<&str>,
    sink: &mut EdgeSink<'_>,
) -> Result<(), Fault> {
    let fast = dialect == Dialect::Whitespace && weight.is_none();
    loop {
        if fast {
            while let Some((at, source, target)) = lines.next_id_pair() {
                sink.push(at, source, target, None)?;
            }
        }
        let Some(line) = lines.next() else { return Ok(()) };
        if !line.is_data() {
            continue;
        }
        let mut fields = line.fields(dialect);
        let source = fields.id(SOURCE)?;
        let target = fields.id(TARGET)?;
        let weight = match weight {
            Some(what) => Some(fields.expect(what)?.weight("a weight")?),
            None => None,
        };
        sink.push(line.offset(), source, target, weight)?;
    }
}

/// Loads an edge list or CSV file: parses, relabels the ids that appear, builds.
pub(crate) fn load(text: Text<'_>, dialect: Dialect, build: &BuildOptions, progress: &Progress) -> Result<Graph> {
    let parsed = parse(text, dialect, true, &[], VertexSet::Appearing, progress)?;
    progress.stage("building");
    assemble(parsed, build, build.symmetrise, |_| Error::invalid("edge lists declare no vertex set"))
}
