//! Seed-label files for seeded label propagation: `vertex label` lines.
//!
//! Layout: one `vertex label` pair per line, fields separated by spaces or tabs; `#` and `%`
//! comment lines and blank lines are skipped (the tokenizer every text reader shares). The
//! vertex is an original vertex id of the graph, mapped through [`VertexIds::dense`]; the
//! label is any integer in `0..2^64` (an account class, a case number...).
//!
//! Strict, because seeds steer the whole result: a vertex that is not in the graph, a token
//! that is not a non-negative integer, a missing label, an extra column, a vertex listed twice
//! with different labels, and a file without any entry are errors naming file, line and
//! column. A vertex listed twice with the same label is accepted.
//!
//! Internal labels: the engines' labels are dense vertex ids, so each distinct file label is
//! represented by the smallest dense vertex carrying it; [`SeedFile::value`] maps an internal
//! label back to the file's value for output.

use super::input::{decode_bytes, display_name, read_file};
use super::progress::Progress;
use super::text::{Dialect, Text};
use crate::community::UNLABELLED;
use crate::error::Result;
use crate::graph::{VertexId, VertexIds};
use std::collections::BTreeMap;
use std::path::Path;

/// Seed labels read from a file, in the engines' label space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedFile {
    /// The internal seed label of each dense vertex ([`UNLABELLED`] when the file gives
    /// none): the smallest dense vertex carrying the same file label.
    pub labels: Vec<u32>,
    /// Internal label -> file label, ascending by internal label.
    values: Vec<(u32, u64)>,
}

impl SeedFile {
    /// The file's value of internal label `label` (a label of [`SeedFile::labels`] or one an
    /// engine propagated from them); `None` for [`UNLABELLED`] or any other label.
    pub fn value(&self, label: u32) -> Option<u64> {
        self.values.binary_search_by_key(&label, |&(l, _)| l).ok().map(|i| self.values[i].1)
    }

    /// Number of seeded vertices.
    pub fn seeded(&self) -> usize {
        self.labels.iter().filter(|&&l| l != UNLABELLED).count()
    }

    /// Number of distinct seed labels.
    pub fn distinct_labels(&self) -> usize {
        self.values.len()
    }
}

/// Reads the seed file at `path` (plain or compressed; `-` reads standard input) for a graph with vertex ids `ids`.
pub fn read_seeds(path: &Path, ids: &VertexIds) -> Result<SeedFile> {
    let input = read_file(path, &Progress::hidden())?;
    parse(Text::new(display_name(path), &input), ids)
}

/// Reads seeds from `bytes` (plain or compressed); `name` is used in error messages.
pub fn read_seeds_from_bytes(name: &str, bytes: &[u8], ids: &VertexIds) -> Result<SeedFile> {
    let path = Path::new(name);
    let bytes = decode_bytes(path, bytes, &Progress::hidden())?;
    parse(Text::new(path, &bytes), ids)
}

fn parse(text: Text<'_>, ids: &VertexIds) -> Result<SeedFile> {
    // File label of each dense vertex, with the offset of the label token for messages.
    let mut given: Vec<Option<(u64, usize)>> = vec![None; ids.len()];
    let mut entries = 0usize;
    for line in text.lines().filter(|l| l.is_data()) {
        let mut fields = line.fields(Dialect::Whitespace);
        let id_token = fields.expect("a vertex id").map_err(|f| text.error(f))?;
        let id = id_token.id("a vertex id").map_err(|f| text.error(f))?;
        let label_token = fields.expect("a seed label (a non-negative integer)").map_err(|f| text.error(f))?;
        let label = label_token.id("a seed label").map_err(|f| text.error(f))?;
        fields.expect_end("a seed line holds `vertex label`").map_err(|f| text.error(f))?;
        let Some(v) = ids.dense(id) else {
            return Err(text.error_at(id_token.offset, format!("vertex {id} is not a vertex of the graph")));
        };
        match given[v as usize] {
            Some((earlier, at)) if earlier != label => {
                return Err(text.error_at(
                    label_token.offset,
                    format!(
                        "vertex {id} has seed label {label} here but {earlier} on line {}: a vertex has one seed label",
                        text.position(at).line
                    ),
                ));
            }
            Some(_) => {}
            None => given[v as usize] = Some((label, label_token.offset)),
        }
        entries += 1;
    }
    if entries == 0 {
        return Err(text.error_at(text.end(), "empty input: expected `vertex label` seed lines, found no data line"));
    }
    // Dense vertices ascend, so the first vertex met with a label is the smallest.
    let mut internal: BTreeMap<u64, u32> = BTreeMap::new();
    let labels = given
        .iter()
        .enumerate()
        .map(|(v, g)| g.map_or(UNLABELLED, |(value, _)| *internal.entry(value).or_insert(v as VertexId)))
        .collect();
    let mut values: Vec<(u32, u64)> = internal.into_iter().map(|(value, l)| (l, value)).collect();
    values.sort_unstable();
    Ok(SeedFile { labels, values })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    /// Vertex ids 10, 20, 30, 40, 50 (dense 0..5).
    fn ids() -> VertexIds {
        VertexIds::from_sorted(vec![10, 20, 30, 40, 50])
    }

    #[test]
    fn labels_become_their_smallest_vertex_and_map_back() {
        let text = b"# seeds\n40 7\n20\t18446744073709551615\n\n% more\n50 7\r\n40 7\n";
        let seeds = read_seeds_from_bytes("s.txt", text, &ids()).unwrap();
        // Label 7 is carried by dense 3 (id 40) and 4 (id 50): internal label 3.
        assert_eq!(seeds.labels, vec![UNLABELLED, 1, UNLABELLED, 3, 3]);
        assert_eq!(seeds.value(3), Some(7));
        assert_eq!(seeds.value(1), Some(u64::MAX));
        assert_eq!(seeds.value(0), None);
        assert_eq!(seeds.value(UNLABELLED), None);
        assert_eq!((seeds.seeded(), seeds.distinct_labels()), (3, 2));
    }

    fn error_of(text: &[u8]) -> (u64, u64, String) {
        match read_seeds_from_bytes("s.txt", text, &ids()) {
            Err(Error::Parse { position, message, .. }) => (position.line, position.column, message),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn bad_lines_name_line_and_column() {
        let (line, col, msg) = error_of(b"10 1\n99 2\n");
        assert_eq!((line, col), (2, 1));
        assert!(msg.contains("99 is not a vertex"), "{msg}");
        let (line, col, msg) = error_of(b"10 1\n20 x2\n");
        assert_eq!((line, col), (2, 4));
        assert!(msg.contains("seed label"), "{msg}");
        let (line, col, msg) = error_of(b"10 -3\n");
        assert_eq!((line, col), (1, 4));
        assert!(msg.contains("negative"), "{msg}");
        let (line, col, msg) = error_of(b"10 1\n20\n");
        assert_eq!((line, col), (2, 3));
        assert!(msg.contains("missing column"), "{msg}");
        let (line, col, msg) = error_of(b"10 1 5\n");
        assert_eq!((line, col), (1, 6));
        assert!(msg.contains("extra column"), "{msg}");
        let (line, col, msg) = error_of(b"10 1\n20 2\n10 3\n");
        assert_eq!((line, col), (3, 4));
        assert!(msg.contains("on line 1"), "{msg}");
        let (line, _, msg) = error_of(b"# nothing\n");
        assert_eq!(line, 1);
        assert!(msg.contains("empty input"), "{msg}");
    }
}
