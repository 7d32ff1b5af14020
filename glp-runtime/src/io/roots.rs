//! Root files: one vertex id per line, the roots of `glp sample --roots FILE`.
//!
//! Layout: one original vertex id of the graph per line (mapped through
//! [`VertexIds::dense`]); `#` and `%` comment lines and blank lines are skipped (the
//! tokenizer every text reader shares). A token that is not a non-negative integer, an id
//! that is not a vertex of the graph, a second field, and a file without any id are errors
//! naming file, line and column. A vertex may be listed several times (one sample each).

use super::input::{decode_bytes, display_name, read_file};
use super::progress::Progress;
use super::text::{Dialect, Text};
use crate::error::Result;
use crate::graph::{VertexId, VertexIds};
use std::path::Path;

/// Reads the roots at `path` (plain or compressed) as dense vertex ids, in file order.
pub fn read_roots(path: &Path, ids: &VertexIds) -> Result<Vec<VertexId>> {
    let input = read_file(path, &Progress::hidden())?;
    parse(Text::new(display_name(path), &input), ids)
}

/// Reads roots from `bytes`; `name` is used in error messages.
pub fn read_roots_from_bytes(name: &str, bytes: &[u8], ids: &VertexIds) -> Result<Vec<VertexId>> {
    let path = Path::new(name);
    let bytes = decode_bytes(path, bytes, &Progress::hidden())?;
    parse(Text::new(path, &bytes), ids)
}

fn parse(text: Text<'_>, ids: &VertexIds) -> Result<Vec<VertexId>> {
    let mut roots = Vec::new();
    for line in text.lines().filter(|l| l.is_data()) {
        let mut fields = line.fields(Dialect::Whitespace);
        let token = fields.expect("a vertex id").map_err(|f| text.error(f))?;
        let id = token.id("a vertex id").map_err(|f| text.error(f))?;
        fields.expect_end("a root line holds one vertex id").map_err(|f| text.error(f))?;
        let Some(v) = ids.dense(id) else {
            return Err(text.error_at(token.offset, format!("vertex {id} is not a vertex of the graph")));
        };
        roots.push(v);
    }
    if roots.is_empty() {
        return Err(text.error_at(text.end(), "empty input: expected one vertex id per line, found no data line"));
    }
    Ok(roots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn ids() -> VertexIds {
        VertexIds::from_sorted(vec![10, 20, 30])
    }

    #[test]
    fn ids_map_to_dense_vertices_in_file_order() {
        let roots = read_roots_from_bytes("r.txt", b"# roots\n30\n10\r\n\n30\n", &ids()).unwrap();
        assert_eq!(roots, vec![2, 0, 2]);
    }

    #[test]
    fn bad_lines_are_errors_at_their_position() {
        let error = |text: &[u8]| match read_roots_from_bytes("r.txt", text, &ids()) {
            Err(Error::Parse { position, message, .. }) => (position.line, position.column, message),
            other => panic!("expected a parse error, got {other:?}"),
        };
        let (line, column, message) = error(b"10\n40\n");
        assert_eq!((line, column), (2, 1));
        assert!(message.contains("vertex 40 is not a vertex of the graph"), "{message}");
        let (line, column, message) = error(b"10\n20 5\n");
        assert_eq!((line, column), (2, 4));
        assert!(message.contains("one vertex id"), "{message}");
        let (line, _, message) = error(b"10\nx\n");
        assert_eq!(line, 2);
        assert!(message.contains("vertex id"), "{message}");
        let (_, _, message) = error(b"# nothing\n");
        assert!(message.contains("empty input"), "{message}");
    }
}
