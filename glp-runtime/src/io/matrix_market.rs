//! Matrix Market coordinate files (`.mtx`).
//!
//! Accepted: `%%MatrixMarket matrix coordinate <field> <symmetry>` with field `pattern`
//! (unweighted), `integer` or `real` (weighted), and symmetry `general`, `symmetric` or
//! `skew-symmetric` (banner words are case-insensitive). Rejected with a clear message: the
//! dense `array` format, `complex` and `hermitian` matrices, and non-square matrices (a graph's
//! adjacency matrix is square).
//!
//! The size line `n n nnz` declares the vertices `1..=n`, all of which exist (isolated ones
//! included); an index outside is an error at its line and column. The number of entries must
//! be exactly `nnz`: fewer means a truncated file, more a corrupt one, and neither loads.
//!
//! Symmetry: a `symmetric` file stores one triangle of an undirected graph, so it is always
//! symmetrised, whatever [`BuildOptions::symmetrise`] says (the option is about directed
//! inputs). A `skew-symmetric` file stores `a_ij` for `a_ji = -a_ij`: both directions are
//! added explicitly, the reverse with the negated value, and the build does not symmetrise
//! again. Both load as symmetric graphs.
//!
//! Declared sizes are checked before anything is allocated for them: `nnz` against what the
//! bytes after the size line can hold (an entry takes at least 4 bytes, `i j` and a line end),
//! and `n` against the memory budget ([`crate::memory::available_memory`]): the vertices
//! `1..=n` all exist, so building the graph needs [`BUILD_BYTES_PER_VERTEX`] bytes for each
//! even when the file holds one entry; an `n` that does not fit is an error at the size line
//! saying what was declared, what it needs and what is available.
//!
//! Values and [`WeightRule::NonNegative`]: a negative value is an error at its line; so is
//! any non-zero value of a `skew-symmetric` file, whose mirror entry is its negation.

use super::assemble::{assemble, VertexSet};
use super::progress::Progress;
use super::records::{parse_records, EdgeSink, Layout};
use super::text::{quote, Dialect, Fault, Fields, Lines, Text, Token};
use super::{LoadOptions, WeightRule};
use crate::error::Result;
use crate::graph::{BuildOptions, Graph};
use crate::memory::{available_memory, format_bytes, limit_note};

/// Bytes the CSR build needs per vertex, edges aside: the row offsets and the degree counts
/// (8 bytes each), alive together.
pub(crate) const BUILD_BYTES_PER_VERTEX: u64 = 16;

/// The fewest bytes an entry takes: `i j` and a line end.
const MIN_ENTRY_BYTES: u64 = 4;

const BANNER: &str = "%%MatrixMarket matrix coordinate <field> <symmetry>";

/// Entry values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Pattern,
    Integer,
    Real,
}

/// How the stored entries relate to the whole matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Symmetry {
    General,
    Symmetric,
    SkewSymmetric,
}

/// The header: banner and size line.
#[derive(Debug)]
struct Header {
    field: Field,
    symmetry: Symmetry,
    n: u64,
    entries: u64,
    size_line: u64,
    body_start: usize,
}

/// Loads a Matrix Market file.
pub(crate) fn load(text: Text<'_>, options: &LoadOptions, progress: &Progress) -> Result<Graph> {
    let build = &options.build;
    let header = parse_header(text)?;
    progress.bytes_stage("parsing", (text.len() - header.body_start) as u64);
    let body = header.body_start..text.len();
    let skew = header.symmetry == Symmetry::SkewSymmetric;
    let layout = Layout {
        edges_per_line: if skew { 2 } else { 1 },
        weighted: header.field != Field::Pattern,
        declared: &[],
        vertices: VertexSet::Range { first: 1, len: header.n as usize },
    };
    let rule = options.weights;
    let parsed =
        parse_records(text, body.clone(), layout, progress, |lines, sink| parse_chunk(lines, &header, rule, sink))?;
    let found = if skew { parsed.edges / 2 } else { parsed.edges } as u64;
    if found < header.entries {
        return Err(text.error_at(
            text.end(),
            format!(
                "truncated file: the size line (line {}) declares {} entries, found {found}",
                header.size_line, header.entries
            ),
        ));
    }
    if found > header.entries {
        let extra = text.nth_data_line(body, header.entries as usize).map_or(text.len(), |line| line.offset());
        return Err(text.error_at(
            extra,
            format!("more entries than the {} the size line (line {}) declares", header.entries, header.size_line),
        ));
    }
    let build = match header.symmetry {
        Symmetry::General => *build,
        Symmetry::Symmetric => BuildOptions { symmetrise: true, ..*build },
        Symmetry::SkewSymmetric => BuildOptions { symmetrise: false, ..*build },
    };
    let symmetric = build.symmetrise || header.symmetry != Symmetry::General;
    progress.stage("building");
    // The parser checked every index against 1..=n, so no endpoint can be undeclared.
    assemble(parsed, &build, symmetric, |bad| {
        text.error_at(0, format!("internal error: entry {} has an index outside the declared range", bad.edge + 1))
    })
}

fn parse_header(text: Text<'_>) -> Result<Header> {
    let mut lines = text.lines();
    let banner = lines
        .next()
        .filter(|line| line.text().len() >= 14 && line.text()[..14].eq_ignore_ascii_case(b"%%MatrixMarket"));
    let Some(banner) = banner else {
        let found =
            text.lines().next().map_or_else(|| "an empty file".to_string(), |l| format!("`{}`", quote(l.text())));
        return Err(text.error_at(0, format!("bad header: expected the banner `{BANNER}`, found {found}")));
    };
    let mut words = banner.fields(Dialect::Whitespace);
    let fault = |f: Fault| text.error(f);
    let first = words.expect("the `%%MatrixMarket` banner").map_err(fault)?;
    if !word_is(first, "%%MatrixMarket") {
        return Err(text.error_at(
            first.offset,
            format!("bad header: expected the banner `{BANNER}`, found `{}`", first.quoted()),
        ));
    }
    let object = words.expect("the object `matrix`").map_err(fault)?;
    if !word_is(object, "matrix") {
        return Err(text.error_at(object.offset, format!("bad header: expected `matrix`, found `{}`", object.quoted())));
    }
    let format = words.expect("the format `coordinate`").map_err(fault)?;
    if word_is(format, "array") {
        return Err(text.error_at(
            format.offset,
            "dense `array` Matrix Market files are not supported: a graph needs the sparse `coordinate` format",
        ));
    }
    if !word_is(format, "coordinate") {
        return Err(
            text.error_at(format.offset, format!("bad header: expected `coordinate`, found `{}`", format.quoted()))
        );
    }
    let field_token = words.expect("the field (`pattern`, `integer` or `real`)").map_err(fault)?;
    let field = match () {
        _ if word_is(field_token, "pattern") => Field::Pattern,
        _ if word_is(field_token, "integer") => Field::Integer,
        _ if word_is(field_token, "real") => Field::Real,
        _ if word_is(field_token, "complex") => {
            return Err(text.error_at(
                field_token.offset,
                "complex matrices are not supported: edge weights are real (use `pattern`, `integer` or `real`)",
            ))
        }
        _ => {
            return Err(text.error_at(
                field_token.offset,
                format!("bad header: expected `pattern`, `integer` or `real`, found `{}`", field_token.quoted()),
            ))
        }
    };
    let symmetry_token = words.expect("the symmetry (`general`, `symmetric` or `skew-symmetric`)").map_err(fault)?;
    let symmetry = match () {
        _ if word_is(symmetry_token, "general") => Symmetry::General,
        _ if word_is(symmetry_token, "symmetric") => Symmetry::Symmetric,
        _ if word_is(symmetry_token, "skew-symmetric") => Symmetry::SkewSymmetric,
        _ => {
            return Err(text.error_at(
                symmetry_token.offset,
                format!(
                    "bad header: expected `general`, `symmetric` or `skew-symmetric`, found `{}`",
                    symmetry_token.quoted()
                ),
            ))
        }
    };
    words.expect_end(&format!("the banner is `{BANNER}`")).map_err(fault)?;

    let Some(size) = lines.next_data() else {
        return Err(text.error_at(text.end(), "truncated file: expected the size line `rows columns entries`"));
    };
    let mut fields = size.fields(Dialect::Whitespace);
    let rows = fields.id("the number of rows").map_err(fault)?;
    let columns_token = fields.expect("the number of columns").map_err(fault)?;
    let columns = columns_token.id("the number of columns").map_err(fault)?;
    let entries = fields.id("the number of entries").map_err(fault)?;
    fields.expect_end("the size line is `rows columns entries`").map_err(fault)?;
    if rows != columns {
        return Err(text.error_at(
            columns_token.offset,
            format!("non-square matrix ({rows} x {columns}): a graph's adjacency matrix is square"),
        ));
    }
    if rows > u32::MAX as u64 {
        return Err(text.error_at(size.offset(), format!("{rows} vertices exceed the u32 vertex id range")));
    }
    let body_start = lines.offset();
    let room = (text.len() - body_start) as u64 + 1;
    if entries > room / MIN_ENTRY_BYTES {
        return Err(text.error_at(
            size.offset(),
            format!(
                "the size line declares {entries} entries, but the {} bytes after it hold at most {} (an entry takes at \
                 least {MIN_ENTRY_BYTES} bytes): the file is truncated or the size line is wrong",
                room - 1,
                room / MIN_ENTRY_BYTES
            ),
        ));
    }
    let needed = rows * BUILD_BYTES_PER_VERTEX;
    if let Some(available) = available_memory()?.filter(|&available| needed > available) {
        return Err(text.error_at(
            size.offset(),
            format!(
                "the size line declares {rows} vertices, which need {} to build; {} of memory is available{}",
                format_bytes(needed),
                format_bytes(available),
                limit_note()
            ),
        ));
    }
    Ok(Header { field, symmetry, n: rows, entries, size_line: text.position(size.offset()).line, body_start })
}

fn word_is(token: Token<'_>, word: &str) -> bool {
    token.bytes.eq_ignore_ascii_case(word.as_bytes())
}

/// Parses the entries of one chunk into `sink` (both directions of a skew-symmetric entry).
fn parse_chunk(lines: Lines<'_>, header: &Header, rule: WeightRule, sink: &mut EdgeSink<'_>) -> Result<(), Fault> {
    let shape = match header.field {
        Field::Pattern => "a pattern entry is `row column`",
        _ => "an entry is `row column value`",
    };
    for line in lines {
        if !line.is_data() {
            continue;
        }
        let mut fields = line.fields(Dialect::Whitespace);
        let row = index(&mut fields, "a row index", header.n)?;
        let column = index(&mut fields, "a column index", header.n)?;
        let value = match header.field {
            Field::Pattern => None,
            Field::Integer => {
                let token = fields.expect("an integer value")?;
                let value = token.integer("an integer value")? as f32;
                rule.check(value).map_err(|why| {
                    Fault::new(token.offset, format!("value `{}` is negative: {why}", token.quoted()))
                })?;
                Some(value)
            }
            Field::Real => Some(fields.expect("a real value")?.weight("a real value", rule)?),
        };
        fields.expect_end(shape)?;
        sink.push(line.offset(), row, column, value)?;
        if header.symmetry == Symmetry::SkewSymmetric {
            if row == column {
                return Err(Fault::new(
                    line.offset(),
                    format!("skew-symmetric matrices have no diagonal entries, found ({row}, {column})"),
                ));
            }
            let mirror = value.map(|v| -v);
            if let Some((v, why)) = mirror.and_then(|v| rule.check(v).err().map(|why| (v, why))) {
                return Err(Fault::new(
                    line.offset(),
                    format!("the mirror entry ({column}, {row}) of this skew-symmetric entry, {v}, is negative: {why}"),
                ));
            }
            sink.push(line.offset(), column, row, mirror)?;
        }
    }
    Ok(())
}

/// The next field as a 1-based index in `1..=n`.
fn index(fields: &mut Fields<'_>, what: &str, n: u64) -> Result<u64, Fault> {
    let token = fields.expect(what)?;
    let value = token.id(what)?;
    if value == 0 || value > n {
        return Err(Fault::new(
            token.offset,
            format!("{what} {value} is outside 1..={n} (the size line declares a {n} x {n} matrix)"),
        ));
    }
    Ok(value)
}
