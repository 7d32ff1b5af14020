//! The column schema of an edge list: which fields of a line are the source, the target and
//! the weight, decided once per file and enforced on every line.
//!
//! # Rules
//!
//! The schema comes from, in order:
//!
//! 1. [`LoadOptions::columns`](super::LoadOptions::columns) (`--columns SRC,DST[,WEIGHT]`):
//!    columns by header name (CSV with a header) or 0-based index. Every line must have the
//!    header's number of fields (or the first data line's, without a header); fields not
//!    chosen are ignored, as asked.
//! 2. A CSV header (a first data line with a field that is not a number): every name must be
//!    one glp understands ([`SOURCE_NAMES`], [`TARGET_NAMES`], [`WEIGHT_NAMES`], compared
//!    case-insensitively, quotes around a name dropped), naming each role at most once, source
//!    and target required. Columns are taken by name, in any order (`weight,src,dst` works). An
//!    unknown name is an error that lists the names understood.
//! 3. The first data line (whitespace edge lists, header-less CSV):
//!    - `source target`: unweighted;
//!    - `source target weight`, the third field a number (`nan` and `inf` included, which
//!      then fail as non-finite weights): weighted;
//!    - `source target {...}`: a data dict to the end of the line (networkx's
//!      `write_edgelist`, LFR's `{}`, see [`super::data_dict`]): weighted when the first
//!      line's dict has a `weight` key;
//!    - anything else is an error at that line: a third field that is neither a number nor a
//!      dict, or a fourth field.
//!
//! Every data line then has exactly the schema's fields: one more or one fewer is an error at
//! that line and column, and so is a weight that does not parse, a dict without the `weight`
//! the first one had, or with a `weight` the first one lacked. A file is never read as
//! something other than what its first lines say, and a line is never partly read.

use super::data_dict::parse_data_dict;
use super::text::{quote, Dialect, Fault, Line, Lines, Text, Token};
use super::WeightRule;
use crate::error::{Error, Remedy, Result};
use std::fmt;
use std::str::FromStr;

/// Header names of the source column (compared case-insensitively).
pub const SOURCE_NAMES: [&str; 11] =
    ["source", "src", "from", "u", "id_1", "id1", "source_id", "src_id", "from_id", "node1", "node_1"];
/// Header names of the target column.
pub const TARGET_NAMES: [&str; 11] =
    ["target", "dst", "to", "v", "id_2", "id2", "target_id", "dst_id", "to_id", "node2", "node_2"];
/// Header names of the weight column.
pub const WEIGHT_NAMES: [&str; 4] = ["weight", "w", "value", "edge_weight"];

/// One column of an edge list: its 0-based index or its header name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Column {
    /// 0-based position on the line.
    Index(usize),
    /// A name of the CSV header (compared case-insensitively).
    Name(String),
}

/// The columns holding the source, the target and (optionally) the weight of each edge:
/// [`LoadOptions::columns`](super::LoadOptions::columns), `--columns SRC,DST[,WEIGHT]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Columns {
    /// The source vertex column.
    pub source: Column,
    /// The target vertex column.
    pub target: Column,
    /// The weight column; `None` reads the file unweighted.
    pub weight: Option<Column>,
}

impl FromStr for Column {
    type Err = Error;

    /// Digits are an index, anything else a name.
    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim();
        if s.is_empty() {
            return Err(Error::invalid("empty column: expected a header name or a 0-based index"));
        }
        if s.bytes().all(|b| b.is_ascii_digit()) {
            let index = s.parse().map_err(|_| Error::invalid(format!("column index `{s}` is too large")))?;
            Ok(Column::Index(index))
        } else {
            Ok(Column::Name(s.to_string()))
        }
    }
}

impl FromStr for Columns {
    type Err = Error;

    /// Parses `SRC,DST[,WEIGHT]`, each a header name or a 0-based index.
    fn from_str(s: &str) -> Result<Self> {
        let parts: Vec<&str> = s.split(',').collect();
        if !(2..=3).contains(&parts.len()) {
            return Err(Error::invalid(format!(
                "`{s}`: expected SRC,DST or SRC,DST,WEIGHT (header names or 0-based column indices)"
            )));
        }
        let columns = Columns {
            source: parts[0].parse()?,
            target: parts[1].parse()?,
            weight: parts.get(2).map(|p| p.parse()).transpose()?,
        };
        let chosen = [Some(&columns.source), Some(&columns.target), columns.weight.as_ref()];
        let chosen: Vec<&Column> = chosen.into_iter().flatten().collect();
        if (1..chosen.len()).any(|i| chosen[..i].iter().any(|c| same_column(c, chosen[i]))) {
            return Err(Error::invalid(format!("`{s}`: a column is chosen twice")));
        }
        Ok(columns)
    }
}

fn same_column(a: &Column, b: &Column) -> bool {
    match (a, b) {
        (Column::Name(x), Column::Name(y)) => x.eq_ignore_ascii_case(y),
        _ => a == b,
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Column::Index(i) => write!(f, "{i}"),
            Column::Name(name) => f.write_str(name),
        }
    }
}

impl fmt::Display for Columns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.source, self.target)?;
        match &self.weight {
            Some(weight) => write!(f, ",{weight}"),
            None => Ok(()),
        }
    }
}

/// The fields of every data line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `source target`.
    Pair,
    /// `source target weight`.
    Weighted,
    /// `source target {data dict}`; `weighted` when the dicts carry `weight`.
    Dict { weighted: bool },
    /// `fields` fields, of which the source, the target and the weight are picked.
    Picked { fields: usize, source: usize, target: usize, weight: Option<usize> },
}

/// How every data line of one file is read, with the words its errors use.
#[derive(Debug, Clone)]
pub(crate) struct Schema {
    pub shape: Shape,
    pub rule: WeightRule,
    pub source_what: String,
    pub target_what: String,
    pub weight_what: String,
    /// What a line holds and where that was decided, for column-count errors.
    pub layout: String,
}

impl Schema {
    /// Whether edges carry weights.
    pub(crate) fn weighted(&self) -> bool {
        match self.shape {
            Shape::Pair => false,
            Shape::Weighted => true,
            Shape::Dict { weighted } => weighted,
            Shape::Picked { weight, .. } => weight.is_some(),
        }
    }

    /// Reads one data line: source, target and weight (when weighted). `row` is scratch
    /// space for [`Shape::Picked`].
    pub(crate) fn read<'a>(
        &self,
        line: Line<'a>,
        dialect: Dialect,
        row: &mut Vec<Token<'a>>,
    ) -> Result<(u64, u64, Option<f32>), Fault> {
        let mut fields = line.fields(dialect);
        match self.shape {
            Shape::Pair | Shape::Weighted | Shape::Dict { .. } => {
                let source = fields.id(&self.source_what)?;
                let target = fields.id(&self.target_what)?;
                let weight = match self.shape {
                    Shape::Weighted => Some(fields.expect(&self.weight_what)?.weight("a weight", self.rule)?),
                    Shape::Dict { weighted } => {
                        let Some(rest) = fields.rest() else {
                            return Err(Fault::new(line.end_offset(), format!("missing column: {}", self.layout)));
                        };
                        if rest.bytes.first() != Some(&b'{') {
                            return Err(Fault::new(
                                rest.offset,
                                format!("expected a data dict `{{...}}`, found `{}`: {}", rest.quoted(), self.layout),
                            ));
                        }
                        match (parse_data_dict(rest)?.weight, weighted) {
                            (Some(w), true) => Some(w.weight("the data dict's `weight`", self.rule)?),
                            (None, false) => None,
                            (Some(w), false) => {
                                return Err(Fault::new(
                                    w.offset,
                                    format!("this data dict has a `weight`, unlike the first: {}", self.layout),
                                ))
                            }
                            (None, true) => {
                                return Err(Fault::new(
                                    rest.offset,
                                    format!("this data dict has no `weight`, unlike the first: {}", self.layout),
                                ))
                            }
                        }
                    }
                    _ => None,
                };
                fields.expect_end(&self.layout)?;
                Ok((source, target, weight))
            }
            Shape::Picked { fields: count, source, target, weight } => {
                row.clear();
                while let Some(token) = fields.next_token() {
                    if row.len() == count {
                        return Err(Fault::new(
                            token.offset,
                            format!("unexpected extra column `{}`: {}", token.quoted(), self.layout),
                        ));
                    }
                    row.push(token);
                }
                if row.len() < count {
                    return Err(Fault::new(
                        line.end_offset(),
                        format!("missing column: found {} columns, expected {count}: {}", row.len(), self.layout),
                    ));
                }
                let s = row[source].id(&self.source_what)?;
                let t = row[target].id(&self.target_what)?;
                let w = weight.map(|w| row[w].weight(&self.weight_what, self.rule)).transpose()?;
                Ok((s, t, w))
            }
        }
    }
}

/// The header of a CSV file: its first data line, when its first or second field is not a
/// number (a line that starts with two numbers is data, whatever follows: a bad weight there
/// is reported as such, not as a bad header).
pub(crate) fn csv_header<'a>(first: Option<Line<'a>>) -> Option<Line<'a>> {
    first.filter(|line| {
        let mut fields = line.fields(Dialect::Csv);
        let mut leading = || fields.next_token().is_some_and(|t| !t.is_numeric());
        leading() || leading()
    })
}

/// Decides the schema of an edge list (see the module docs). `header` is the CSV header line,
/// `first` the first data line after it; with neither, there is no data and no schema.
pub(crate) fn decide(
    text: Text<'_>,
    dialect: Dialect,
    header: Option<Line<'_>>,
    first: Option<Line<'_>>,
    columns: Option<&Columns>,
    rule: WeightRule,
) -> Result<Option<Schema>> {
    if let Some(header) = header {
        return from_header(text, header, dialect, columns, rule).map(Some);
    }
    let Some(first) = first else { return Ok(None) };
    match columns {
        Some(columns) => from_indices(text, first, dialect, columns, rule),
        None => from_first_line(text, first, dialect, rule),
    }
    .map(Some)
}

/// Rules 1 and 2: columns by the header's names, or chosen by name or index.
fn from_header(
    text: Text<'_>,
    header: Line<'_>,
    dialect: Dialect,
    columns: Option<&Columns>,
    rule: WeightRule,
) -> Result<Schema> {
    let names: Vec<Token<'_>> = tokens(header, dialect);
    let line = text.position(header.offset()).line;
    let picked = match columns {
        Some(columns) => pick_named(text, header, &names, columns)?,
        None => pick_by_header(text, header, &names)?,
    };
    let origin = format!("the header (line {line}) has {} columns", names.len());
    Ok(picked_schema(picked, names.len(), rule, &origin, Some(&names)))
}

/// Rule 1 without a header: columns chosen by index among the first data line's.
fn from_indices(
    text: Text<'_>,
    first: Line<'_>,
    dialect: Dialect,
    columns: &Columns,
    rule: WeightRule,
) -> Result<Schema> {
    let line = text.position(first.offset()).line;
    let count = tokens(first, dialect).len();
    let index = |column: &Column| match column {
        Column::Index(i) if *i < count => Ok(*i),
        Column::Index(i) => Err(text.error_at(
            first.offset(),
            format!("the columns chosen ({columns}) include index {i}, but the first data line has {count} columns"),
        )),
        Column::Name(name) => Err(text.error_at(
            first.offset(),
            format!(
                "the columns chosen ({columns}) name `{name}`, but the file has no header line to find names in: give \
                 0-based column indices"
            ),
        )),
    };
    let picked = (index(&columns.source)?, index(&columns.target)?, columns.weight.as_ref().map(index).transpose()?);
    let origin = format!("the first data line (line {line}) has {count} columns");
    Ok(picked_schema(picked, count, rule, &origin, None))
}

/// Rule 3: `source target`, `source target weight` or `source target {dict}`, as the first
/// data line has it.
fn from_first_line(text: Text<'_>, first: Line<'_>, dialect: Dialect, rule: WeightRule) -> Result<Schema> {
    let line = text.position(first.offset()).line;
    let found = tokens(first, dialect);
    let decided = format!("decided by the first data line, line {line}");
    let schema = |shape: Shape, layout: &str, weight_what: String| Schema {
        shape,
        rule,
        source_what: "a source vertex id".to_string(),
        target_what: "a target vertex id".to_string(),
        weight_what,
        layout: format!("every line is `{layout}` ({decided})"),
    };
    if found.get(2).is_some_and(|t| t.bytes.first() == Some(&b'{')) {
        let mut fields = first.fields(dialect);
        let _ = (fields.next_token(), fields.next_token());
        let dict = fields.rest().map(parse_data_dict).transpose().map_err(|f| text.error(f))?;
        let weighted = dict.is_some_and(|d| d.weight.is_some());
        let layout = if weighted { "source target {'weight': w, ...}" } else { "source target {...}" };
        return Ok(schema(Shape::Dict { weighted }, layout, "a weight".into()));
    }
    match found.len() {
        0..=2 => Ok(schema(Shape::Pair, "source target", String::new())),
        3 if found[2].is_numeric() => {
            let weight_what = format!("a weight (the file is weighted: its first data line, line {line}, has one)");
            Ok(schema(Shape::Weighted, "source target weight", weight_what))
        }
        3 => Err(text.error_at(
            found[2].offset,
            format!(
                "expected a weight (a number) or a data dict `{{...}}` in the third column, found `{}`",
                found[2].quoted()
            ),
        )),
        _ => Err(text
            .error_at(
                found[3].offset,
                format!(
                    "unexpected extra column `{}`: an edge list line is `source target`, `source target weight` or \
                 `source target {{data dict}}` (an LDBC adjacency list `vertex neighbour...` is format `adj`)",
                    found[3].quoted()
                ),
            )
            .with_remedy(Remedy::ChooseColumns)),
    }
}

/// Every field of `line`.
fn tokens<'a>(line: Line<'a>, dialect: Dialect) -> Vec<Token<'a>> {
    let mut fields = line.fields(dialect);
    std::iter::from_fn(|| fields.next_token()).collect()
}

/// A header name without surrounding quotes.
fn unquoted(name: &[u8]) -> &[u8] {
    match name {
        [b'"', inner @ .., b'"'] | [b'\'', inner @ .., b'\''] => inner,
        _ => name,
    }
}

/// (source, target, weight) column indices.
type Picked = (usize, usize, Option<usize>);

/// Columns by the header's names (rule 2).
fn pick_by_header(text: Text<'_>, header: Line<'_>, names: &[Token<'_>]) -> Result<Picked> {
    let mut roles: [Option<usize>; 3] = [None; 3];
    let lists: [&[&str]; 3] = [&SOURCE_NAMES, &TARGET_NAMES, &WEIGHT_NAMES];
    for (i, name) in names.iter().enumerate() {
        let bare = unquoted(name.bytes);
        let Some(role) = lists.iter().position(|list| list.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(bare)))
        else {
            return Err(text
                .error_at(
                    name.offset,
                    format!(
                        "bad header: unknown column name `{}` (column {}); the names understood are {}",
                        name.quoted(),
                        i + 1,
                        names_understood()
                    ),
                )
                .with_remedy(Remedy::ChooseColumns));
        };
        if let Some(earlier) = roles[role] {
            return Err(text.error_at(
                name.offset,
                format!(
                    "bad header: `{}` (column {}) and `{}` (column {}) both name the {} column",
                    name.quoted(),
                    i + 1,
                    names[earlier].quoted(),
                    earlier + 1,
                    ["source", "target", "weight"][role]
                ),
            ));
        }
        roles[role] = Some(i);
    }
    match roles {
        [Some(source), Some(target), weight] => Ok((source, target, weight)),
        _ => {
            let missing = if roles[0].is_none() { "source" } else { "target" };
            Err(text.error_at(
                header.offset(),
                format!("bad header: no {missing} column; the names understood are {}", names_understood()),
            ))
        }
    }
}

/// Columns `--columns` chose, by header name or index (rule 1 with a header).
fn pick_named(text: Text<'_>, header: Line<'_>, names: &[Token<'_>], columns: &Columns) -> Result<Picked> {
    let index = |column: &Column| match column {
        Column::Index(i) if *i < names.len() => Ok(*i),
        Column::Index(i) => Err(text.error_at(
            header.offset(),
            format!("the columns chosen ({columns}) include index {i}, but the header has {} columns", names.len()),
        )),
        Column::Name(name) => {
            names.iter().position(|t| unquoted(t.bytes).eq_ignore_ascii_case(name.as_bytes())).ok_or_else(|| {
                let found: Vec<String> = names.iter().map(|t| format!("`{}`", t.quoted())).collect();
                text.error_at(
                    header.offset(),
                    format!(
                        "the columns chosen ({columns}) name `{name}`, which the header lacks (it has {})",
                        found.join(", ")
                    ),
                )
            })
        }
    };
    Ok((index(&columns.source)?, index(&columns.target)?, columns.weight.as_ref().map(index).transpose()?))
}

/// The schema of picked columns; plain `source target [weight]` layouts keep their fast shapes.
fn picked_schema(picked: Picked, fields: usize, rule: WeightRule, origin: &str, names: Option<&[Token<'_>]>) -> Schema {
    let (source, target, weight) = picked;
    let shape = match (fields, source, target, weight) {
        (2, 0, 1, None) => Shape::Pair,
        (3, 0, 1, Some(2)) => Shape::Weighted,
        _ => Shape::Picked { fields, source, target, weight },
    };
    let column = |i: usize| match names {
        Some(names) => format!("column {}, `{}`", i + 1, quote(unquoted(names[i].bytes))),
        None => format!("column {}", i + 1),
    };
    Schema {
        shape,
        rule,
        source_what: format!("a source vertex id ({})", column(source)),
        target_what: format!("a target vertex id ({})", column(target)),
        weight_what: weight.map(|w| format!("a weight ({})", column(w))).unwrap_or_default(),
        layout: format!("every line has {fields} columns ({origin})"),
    }
}

/// The understood header names, for messages.
fn names_understood() -> String {
    let list = |names: &[&str]| names.join("/");
    format!("source: {}; target: {}; weight: {}", list(&SOURCE_NAMES), list(&TARGET_NAMES), list(&WEIGHT_NAMES))
}

/// The data lines of a chunk, read through `schema`, each handed to `edge`.
pub(crate) fn read_lines<'a>(
    lines: Lines<'a>,
    dialect: Dialect,
    schema: &Schema,
    mut edge: impl FnMut(usize, u64, u64, Option<f32>) -> Result<(), Fault>,
) -> Result<(), Fault> {
    let mut row = Vec::new();
    for line in lines {
        if line.is_data() {
            let (source, target, weight) = schema.read(line, dialect, &mut row)?;
            edge(line.offset(), source, target, weight)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_parse_names_and_indices() {
        let c: Columns = "src, dst ,2".parse().unwrap();
        assert_eq!(c.source, Column::Name("src".into()));
        assert_eq!(c.target, Column::Name("dst".into()));
        assert_eq!(c.weight, Some(Column::Index(2)));
        assert_eq!(c.to_string(), "src,dst,2");
        assert!("a".parse::<Columns>().is_err());
        assert!("a,b,c,d".parse::<Columns>().is_err());
        assert!("1,1".parse::<Columns>().is_err());
        assert!("Src,src".parse::<Columns>().is_err());
        assert!("a,".parse::<Columns>().is_err());
    }

    /// The errors that choosing columns fixes carry that remedy and name no command-line
    /// flag; a front end names its own (`with_flags`).
    #[test]
    fn column_errors_offer_choosing_columns_without_naming_a_flag() {
        use crate::error::Remedy;
        use crate::io::{load_graph_from_bytes, Format, LoadOptions};
        let load = |format, text: &str| {
            let options = LoadOptions { format: Some(format), ..LoadOptions::default() };
            load_graph_from_bytes("g", text.as_bytes(), &options).unwrap_err()
        };
        let remedy = " (choose the source, target and optional weight columns, by header name or 0-based index)";
        let flagged = " (choose columns with --columns SRC,DST[,WEIGHT], names or 0-based indices)";
        let header = load(Format::Csv, "cost,a,b\n2,1,2\n");
        let extra = load(Format::EdgeList, "0 1 2 3\n");
        let cases = [
            (header, "g:1:1: bad header: unknown column name `cost` (column 1); the names understood are "),
            (extra, "g:1:7: unexpected extra column `3`: an edge list line is `source target`, "),
        ];
        for (error, start) in cases {
            assert!(matches!(error, Error::Parse { remedy: Some(Remedy::ChooseColumns), .. }), "{error:?}");
            let plain = error.to_string();
            assert!(plain.starts_with(start) && plain.ends_with(remedy), "{plain}");
            assert!(!plain.contains("--"), "{plain}");
            let cli = error.with_flags(|_| "--columns");
            assert_eq!(cli, format!("{}{flagged}", plain.strip_suffix(remedy).unwrap()));
        }
        // Errors without a remedy read the same either way.
        let weight = load(Format::EdgeList, "0 1 x\n");
        assert!(matches!(weight, Error::Parse { remedy: None, .. }), "{weight:?}");
        assert_eq!(weight.with_flags(|_| "--columns"), weight.to_string());
    }
}
