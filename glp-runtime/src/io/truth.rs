//! Ground-truth readers: label files, SNAP community files and CSV target files.
//!
//! Layouts ([`TruthFormat`]) and how one is picked when none is given:
//!
//! 1. **Communities** (`*.cmty*`, e.g. `com-dblp.all.cmty.txt.gz`): one community per line,
//!    members separated by tabs or spaces -> [`GroundTruth::Cover`].
//! 2. **CSV targets** (`*.csv`, or a first line with a comma, e.g. `github.target.csv`): a
//!    header naming the columns, then one row per vertex with the header's number of
//!    columns. The vertex id is the column named `id` (else the first), the label the column
//!    named `target` (else the last); names are matched case-insensitively; other columns are
//!    not read -> [`GroundTruth::Partition`].
//! 3. **Labels** (everything else, e.g. `email-Eu-core-department-labels.txt`,
//!    `football.labels`): lines `vertex label`. A line with a vertex and no label marks the
//!    vertex as explicitly unlabelled (`citeseer.labels` has such lines). The file is
//!    **multi-label** ([`TruthFormat::MultiLabels`], a cover with one community per label) when
//!    a line carries several labels (`ppi-labels.txt`: `vertex label label...`) or a comment
//!    before the first data line says `multi-label` (`blogcatalog.labels`, which repeats a
//!    vertex on several lines instead); otherwise it is a partition, and a vertex listed twice
//!    with different labels is an error.
//!
//! Label values: when every label is an integer below `u32::MAX`, a partition keeps the
//! values as they are (department 7 stays label 7); otherwise labels are numbered by sorted
//! order of their text (`c`, `l`, `n` -> 0, 1, 2). Cover communities are numbered by sorted
//! label (numeric order for integer labels), one per distinct label.
//!
//! Ids are original vertex ids, mapped through [`VertexIds::dense`]. An entry whose id is not
//! a vertex of the graph is skipped and counted in [`TruthFile::unknown_ids`] so that the
//! caller can warn; a community none of whose members is in the graph is left out (its
//! members are counted). Vertices no entry mentions are [`UNLABELLED`] in a partition and in
//! no community of a cover.

use super::detect::strip_compression_suffix;
use super::input::{decode_bytes, display_name, read_file};
use super::progress::Progress;
use super::text::{Dialect, Text, Token};
use crate::community::{Cover, GroundTruth, UNLABELLED};
use crate::error::Result;
use crate::graph::{VertexId, VertexIds};
use std::path::Path;

/// Ground truth read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruthFile {
    /// The partition or cover, in dense vertex ids.
    pub truth: GroundTruth,
    /// Entries whose id is not a vertex of the graph (skipped; worth a warning).
    pub unknown_ids: u64,
}

/// The layout of a ground-truth file.
///
/// When [`read_ground_truth`] is given none, the layout is [`TruthFormat::Communities`] for a
/// name containing `.cmty`, [`TruthFormat::CsvTargets`] for a `.csv` name or a first line with
/// a comma, else a label file: [`TruthFormat::MultiLabels`] when a line carries several labels
/// or a comment before the first data line says `multi-label`, [`TruthFormat::Labels`]
/// otherwise.
///
/// Label values: when every label is an integer below `u32::MAX`, a partition keeps the values
/// (department 7 stays label 7); otherwise labels are numbered in sorted order of their text
/// (`c`, `l`, `n` -> 0, 1, 2). Cover communities are numbered by sorted label (numeric order for
/// integer labels), one per distinct label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TruthFormat {
    /// `vertex label` lines (`email-Eu-core-department-labels.txt`, `football.labels`): a
    /// partition. A line with a vertex and no label leaves it unlabelled; a vertex listed twice
    /// with different labels is an error.
    Labels,
    /// `vertex label label...` lines, a vertex possibly on several lines (`ppi-labels.txt`,
    /// `blogcatalog.labels`): a cover with one community per label.
    MultiLabels,
    /// One community per line, members separated by spaces or tabs (SNAP `.cmty` files): a
    /// cover. A community none of whose members is in the graph is left out.
    Communities,
    /// CSV with a header (`github.target.csv`): the vertex id is the column named `id` (else
    /// the first), the label the column named `target` (else the last), names matched
    /// case-insensitively; every row has the header's number of columns: a partition.
    CsvTargets,
}

/// Reads the ground-truth file at `path` (plain or compressed; `-` reads standard input),
/// detecting its layout (see
/// [`TruthFormat`]). Ids are original vertex ids mapped through [`VertexIds::dense`]; entries
/// whose id is not a vertex are skipped and counted in [`TruthFile::unknown_ids`].
pub fn read_ground_truth(path: &Path, ids: &VertexIds) -> Result<TruthFile> {
    read_ground_truth_as(path, ids, None)
}

/// Reads ground truth from `bytes` (plain or compressed); `name` is used for layout detection and
/// error messages.
pub fn read_ground_truth_from_bytes(name: &str, bytes: &[u8], ids: &VertexIds) -> Result<TruthFile> {
    read_ground_truth_from_bytes_as(name, bytes, ids, None)
}

/// [`read_ground_truth`] with an explicit layout (`None` detects it).
pub fn read_ground_truth_as(path: &Path, ids: &VertexIds, format: Option<TruthFormat>) -> Result<TruthFile> {
    let input = read_file(path, &Progress::hidden())?;
    parse(Text::new(display_name(path), &input), ids, format)
}

/// [`read_ground_truth_from_bytes`] with an explicit layout (`None` detects it).
pub fn read_ground_truth_from_bytes_as(
    name: &str,
    bytes: &[u8],
    ids: &VertexIds,
    format: Option<TruthFormat>,
) -> Result<TruthFile> {
    let path = Path::new(name);
    let bytes = decode_bytes(path, bytes, &Progress::hidden())?;
    parse(Text::new(path, &bytes), ids, format)
}

fn parse(text: Text<'_>, ids: &VertexIds, format: Option<TruthFormat>) -> Result<TruthFile> {
    if text.lines().next_data().is_none() {
        return Err(text.error_at(text.end(), "empty input: expected ground-truth entries, found no data line"));
    }
    match format.unwrap_or_else(|| detect(text)) {
        TruthFormat::Communities => communities(text, ids),
        TruthFormat::CsvTargets => csv_targets(text, ids),
        TruthFormat::Labels if format.is_none() => labels(text, ids, LabelMode::Detect),
        TruthFormat::Labels => labels(text, ids, LabelMode::Partition),
        TruthFormat::MultiLabels => labels(text, ids, LabelMode::Cover),
    }
}

/// Picks the layout: by name for community files, by name or first line for CSV, else a
/// label file (single- or multi-label is decided while reading it).
fn detect(text: Text<'_>) -> TruthFormat {
    let name = text.name().file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
    let name = strip_compression_suffix(&name);
    let first_is_csv = text.lines().next_data().is_some_and(|line| line.text().contains(&b','));
    if name.contains(".cmty") {
        TruthFormat::Communities
    } else if name.ends_with(".csv") || first_is_csv {
        TruthFormat::CsvTargets
    } else {
        TruthFormat::Labels
    }
}

/// One label of one vertex: the dense vertex and the label's token.
struct Assignment<'a> {
    vertex: VertexId,
    label: Token<'a>,
}

fn communities(text: Text<'_>, ids: &VertexIds) -> Result<TruthFile> {
    let mut cover = Vec::new();
    let mut unknown_ids = 0u64;
    for line in text.lines().filter(|l| l.is_data()) {
        let mut fields = line.fields(Dialect::Whitespace);
        let mut members = Vec::new();
        while let Some(token) = fields.next_token() {
            let id = token.id("a member vertex id").map_err(|f| text.error(f))?;
            match ids.dense(id) {
                Some(v) => members.push(v),
                None => unknown_ids += 1,
            }
        }
        members.sort_unstable();
        members.dedup();
        if !members.is_empty() {
            cover.push(members);
        }
    }
    Ok(TruthFile { truth: GroundTruth::Cover(Cover { communities: cover }), unknown_ids })
}

/// Whether a label file is read as a partition, a cover, or as its content says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LabelMode {
    Partition,
    Cover,
    Detect,
}

fn labels(text: Text<'_>, ids: &VertexIds, mode: LabelMode) -> Result<TruthFile> {
    let mut assignments = Vec::new();
    let mut unknown_ids = 0u64;
    let mut several_on_a_line = false;
    for line in text.lines().filter(|l| l.is_data()) {
        let mut fields = line.fields(Dialect::Whitespace);
        let id = fields.id("a vertex id").map_err(|f| text.error(f))?;
        let vertex = ids.dense(id);
        if vertex.is_none() {
            unknown_ids += 1;
        }
        let mut count = 0;
        while let Some(label) = fields.next_token() {
            count += 1;
            if count > 1 && mode == LabelMode::Partition {
                return Err(text.error_at(
                    label.offset,
                    format!("unexpected extra column `{}`: a partition gives one label per vertex", label.quoted()),
                ));
            }
            if let Some(vertex) = vertex {
                assignments.push(Assignment { vertex, label });
            }
        }
        several_on_a_line |= count > 1;
    }
    let cover = match mode {
        LabelMode::Partition => false,
        LabelMode::Cover => true,
        LabelMode::Detect => several_on_a_line || header_says_multi_label(text),
    };
    let truth = if cover {
        GroundTruth::Cover(cover_of(&assignments))
    } else {
        GroundTruth::Partition(partition_of(text, ids, &assignments)?)
    };
    Ok(TruthFile { truth, unknown_ids })
}

/// Whether a comment before the first data line mentions `multi-label`.
fn header_says_multi_label(text: Text<'_>) -> bool {
    text.lines()
        .take_while(|line| !line.is_data())
        .filter(|line| line.is_comment())
        .any(|line| line.text().to_ascii_lowercase().windows(11).any(|w| w == b"multi-label"))
}

fn csv_targets(text: Text<'_>, ids: &VertexIds) -> Result<TruthFile> {
    let mut lines = text.lines();
    let Some(header) = lines.next_data() else {
        return Err(text.error_at(text.end(), "empty input: expected a header line such as `id,target`"));
    };
    let names: Vec<Token<'_>> = {
        let mut fields = header.fields(Dialect::Csv);
        std::iter::from_fn(|| fields.next_token()).collect()
    };
    if names.len() < 2 || names.iter().all(|t| t.is_numeric()) {
        return Err(text.error_at(
            header.offset(),
            "bad header: expected a header line naming at least a vertex id and a label column (e.g. `id,target`)",
        ));
    }
    let column = |name: &str| names.iter().position(|t| t.bytes.eq_ignore_ascii_case(name.as_bytes()));
    let id_column = column("id").unwrap_or(0);
    let label_column = column("target").unwrap_or(names.len() - 1);
    if id_column == label_column {
        return Err(text.error_at(
            names[id_column].offset,
            "bad header: the vertex id column (`id`, else the first) is also the label column (`target`, else the last)",
        ));
    }
    let id_what = format!("a vertex id (column {}, `{}`)", id_column + 1, names[id_column].quoted());
    let label_what = format!("a label (column {}, `{}`)", label_column + 1, names[label_column].quoted());
    let columns = names.len();
    let header_line = text.position(header.offset()).line;
    let mut assignments = Vec::new();
    let mut unknown_ids = 0u64;
    let mut row = Vec::with_capacity(columns);
    for line in lines.filter(|l| l.is_data()) {
        let mut fields = line.fields(Dialect::Csv);
        row.clear();
        // Every row has the header's columns: one more or fewer is a mangled row.
        while row.len() < columns {
            let what = match row.len() {
                i if i == id_column => id_what.clone(),
                i if i == label_column => label_what.clone(),
                i => format!("column {} of the header (line {header_line}), `{}`", i + 1, names[i].quoted()),
            };
            row.push(fields.expect(&what).map_err(|f| text.error(f))?);
        }
        fields
            .expect_end(&format!("the header (line {header_line}) has {columns} columns"))
            .map_err(|f| text.error(f))?;
        let id = row[id_column].id(&id_what).map_err(|f| text.error(f))?;
        let label = row[label_column];
        if label.bytes.is_empty() {
            return Err(text.error_at(label.offset, format!("expected {label_what}, found an empty field")));
        }
        match ids.dense(id) {
            Some(vertex) => assignments.push(Assignment { vertex, label }),
            None => unknown_ids += 1,
        }
    }
    let partition = partition_of(text, ids, &assignments)?;
    Ok(TruthFile { truth: GroundTruth::Partition(partition), unknown_ids })
}

/// Label numbering: integer values as they are, or ranks of the sorted label texts.
struct LabelCodes<'a> {
    /// Sorted distinct label texts, when some label is not an integer below `u32::MAX`.
    texts: Option<Vec<&'a [u8]>>,
}

impl<'a> LabelCodes<'a> {
    fn new(assignments: &[Assignment<'a>]) -> Self {
        let numeric = assignments.iter().all(|a| integer_label(a.label).is_some());
        let texts = (!numeric).then(|| {
            let mut texts: Vec<&[u8]> = assignments.iter().map(|a| a.label.bytes).collect();
            texts.sort_unstable();
            texts.dedup();
            texts
        });
        LabelCodes { texts }
    }

    /// The code of `label` (one of the labels the codes were made from).
    fn code(&self, label: Token<'_>) -> u32 {
        match &self.texts {
            Some(texts) => texts.binary_search(&label.bytes).map_or(UNLABELLED, |i| i as u32),
            None => integer_label(label).unwrap_or(UNLABELLED),
        }
    }
}

/// The label as an integer below [`UNLABELLED`], if it is one (digits only).
fn integer_label(label: Token<'_>) -> Option<u32> {
    if label.bytes.is_empty() || !label.bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    label.as_str()?.parse::<u32>().ok().filter(|&v| v < UNLABELLED)
}

fn partition_of(text: Text<'_>, ids: &VertexIds, assignments: &[Assignment<'_>]) -> Result<Vec<u32>> {
    let codes = LabelCodes::new(assignments);
    let mut partition = vec![UNLABELLED; ids.len()];
    let mut first: Vec<Option<usize>> = vec![None; ids.len()];
    for (i, a) in assignments.iter().enumerate() {
        let v = a.vertex as usize;
        let code = codes.code(a.label);
        match first[v] {
            None => {
                partition[v] = code;
                first[v] = Some(i);
            }
            Some(j) if partition[v] != code => {
                let earlier = assignments[j].label;
                return Err(text.error_at(
                    a.label.offset,
                    format!(
                        "vertex {} has label `{}` here but `{}` on line {}: a partition gives each vertex one \
                         label (read the file as multi-label for overlapping labels)",
                        ids.original(a.vertex),
                        a.label.quoted(),
                        earlier.quoted(),
                        text.position(earlier.offset).line
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(partition)
}

fn cover_of(assignments: &[Assignment<'_>]) -> Cover {
    let codes = LabelCodes::new(assignments);
    let mut distinct: Vec<u32> = assignments.iter().map(|a| codes.code(a.label)).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let mut communities = vec![Vec::new(); distinct.len()];
    for a in assignments {
        if let Ok(c) = distinct.binary_search(&codes.code(a.label)) {
            communities[c].push(a.vertex);
        }
    }
    for members in &mut communities {
        members.sort_unstable();
        members.dedup();
    }
    Cover { communities }
}
