//! The one tokenizer every text reader uses: line splitting, comments, fields, numbers,
//! parallel chunking and error positions.
//!
//! Design:
//!
//! - **Line ends.** A line ends at `\n`, `\r\n` or a lone `\r` (old Mac files), so LF, CRLF,
//!   CR-only and mixed files read the same. A missing final line end is fine.
//! - **Comments and blank lines.** A line whose first non-blank byte is `#` or `%` is a
//!   comment; comment and blank lines are skipped by every format (Matrix Market reads its
//!   `%%MatrixMarket` banner before that rule applies).
//! - **Byte order mark.** A leading UTF-8 BOM is skipped.
//! - **Fields.** Whitespace dialects split on runs of spaces and tabs; the CSV dialect splits on
//!   commas and trims spaces and tabs around each field (no quoting: graph CSVs hold numbers).
//! - **Positions are lazy.** Parsers report a [`Fault`] carrying a byte offset; only when a
//!   fault becomes an [`Error`] does [`Text::position`] count the line breaks before it. The
//!   fast path never counts lines, which is what lets chunks be parsed independently.
//! - **Parallelism.** [`Text::parse_chunks`] cuts the input into pieces of about
//!   [`CHUNK_BYTES`] at line boundaries, parses them on the rayon pool and returns the results
//!   in input order. The first fault in input order wins, so errors are deterministic.
//!
//! Submodules: `lines` (line splitting and classification), `fields` (fields, ids, weights
//! and their faults), `digits` (the eight-bytes-at-a-time integer conversion).

mod digits;
mod fields;
mod lines;

pub(crate) use fields::{quote, Dialect, Fields, Token};
pub(crate) use lines::{Line, Lines};

use super::progress::Progress;
use crate::error::{Error, Result, TextPosition};
use memchr::memchr2;
use rayon::prelude::*;
use std::ops::Range;
use std::path::Path;

/// Approximate bytes per parallel parse task: large enough that per-task overhead vanishes,
/// small enough for load balance and a smoothly advancing progress bar.
pub(crate) const CHUNK_BYTES: usize = 4 << 20;

/// The UTF-8 byte order mark, skipped at the start of an input.
pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A problem at a byte offset of a text input. It becomes an [`Error`] naming file, line and
/// column through [`Text::error`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault {
    /// Byte offset in the whole input.
    pub offset: usize,
    /// What was found and what was expected.
    pub message: String,
}

impl Fault {
    pub(crate) fn new(offset: usize, message: impl Into<String>) -> Self {
        Fault { offset, message: message.into() }
    }
}

/// A whole text input with the name errors report.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Text<'a> {
    name: &'a Path,
    bytes: &'a [u8],
}

impl<'a> Text<'a> {
    pub(crate) fn new(name: &'a Path, bytes: &'a [u8]) -> Self {
        Text { name, bytes }
    }

    /// The name errors report.
    pub(crate) fn name(&self) -> &'a Path {
        self.name
    }

    /// The whole input.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Offset of the end of the last line, before a final line break: where errors about a
    /// missing end of input (empty or truncated files) point.
    pub(crate) fn end(&self) -> usize {
        let b = self.bytes;
        if b.ends_with(b"\r\n") {
            b.len() - 2
        } else if b.ends_with(b"\n") || b.ends_with(b"\r") {
            b.len() - 1
        } else {
            b.len()
        }
    }

    /// Line and column (1-based, column in bytes) of byte `offset`; counts line breaks, so
    /// it is meant for the error path only.
    pub(crate) fn position(&self, offset: usize) -> TextPosition {
        let offset = offset.min(self.bytes.len());
        let before = &self.bytes[..offset];
        let mut line = 1u64;
        let mut line_start = 0usize;
        for i in memchr::memchr2_iter(b'\n', b'\r', before) {
            // The `\r` of a `\r\n` pair is not a line break of its own.
            if before[i] == b'\r' && self.bytes.get(i + 1) == Some(&b'\n') {
                continue;
            }
            line += 1;
            line_start = i + 1;
        }
        TextPosition { line, column: (offset - line_start) as u64 + 1 }
    }

    /// Turns `fault` into a parse error naming this input, line and column.
    pub(crate) fn error(&self, fault: Fault) -> Error {
        Error::parse(self.name, self.position(fault.offset), fault.message)
    }

    /// A parse error at byte `offset`.
    pub(crate) fn error_at(&self, offset: usize, message: impl Into<String>) -> Error {
        self.error(Fault::new(offset, message))
    }

    /// All lines, after a UTF-8 byte order mark if the input starts with one (spreadsheet
    /// exports often do).
    pub(crate) fn lines(&self) -> Lines<'a> {
        self.lines_in(self.content())
    }

    /// The whole input after a leading byte order mark.
    pub(crate) fn content(&self) -> Range<usize> {
        self.content_start()..self.bytes.len()
    }

    /// Offset of the first byte after a leading UTF-8 byte order mark (0 without one).
    pub(crate) fn content_start(&self) -> usize {
        if self.bytes.starts_with(UTF8_BOM) {
            UTF8_BOM.len()
        } else {
            0
        }
    }

    /// The lines of `range`, which starts at a line start.
    pub(crate) fn lines_in(&self, range: Range<usize>) -> Lines<'a> {
        let end = range.end.min(self.bytes.len());
        let start = range.start.min(end);
        // Most inputs have no `\r` at all: then a line ends at the next `\n`, which the
        // single-byte search finds faster than the two-byte one. Checking costs one `memchr`
        // pass over the range, negligible next to parsing it.
        let lf_only = memchr::memchr(b'\r', &self.bytes[start..end]).is_none();
        Lines::new(self.bytes, start, end, lf_only)
    }

    /// The `index`-th (0-based) data line of `range`; for error paths that know a record's
    /// index but not its offset.
    pub(crate) fn nth_data_line(&self, range: Range<usize>, index: usize) -> Option<Line<'a>> {
        self.lines_in(range).filter(Line::is_data).nth(index)
    }

    /// The number of lines [`Text::lines_in`] yields for `range` (which ends after a line
    /// break or at the end of the input), counted with `memchr` without splitting lines.
    pub(crate) fn count_lines(&self, range: Range<usize>) -> usize {
        let bytes = &self.bytes[range.clone()];
        let line_feeds = memchr::memchr_iter(b'\n', bytes).count();
        // A `\r` ends a line of its own unless a `\n` follows (then the pair is one break).
        let lone_returns =
            memchr::memchr_iter(b'\r', bytes).filter(|&i| self.bytes.get(range.start + i + 1) != Some(&b'\n')).count();
        let unterminated = bytes.last().is_some_and(|&b| b != b'\n' && b != b'\r');
        line_feeds + lone_returns + unterminated as usize
    }

    /// Splits `range` into pieces of about [`CHUNK_BYTES`], each ending after a line break.
    pub(crate) fn chunks(&self, range: Range<usize>) -> Vec<Range<usize>> {
        let len = range.len();
        let count = (len / CHUNK_BYTES).max(1);
        let mut pieces = Vec::with_capacity(count);
        let mut start = range.start;
        for i in 1..count {
            let target = range.start + len / count * i;
            if target < start {
                continue;
            }
            let cut = next_line_start(self.bytes, target, range.end);
            if cut >= range.end {
                break;
            }
            pieces.push(start..cut);
            start = cut;
        }
        pieces.push(start..range.end);
        pieces
    }

    /// Parses the lines of `range` in parallel chunks with `parse` and returns the chunk
    /// results in input order, or the error of the first fault in input order. Advances
    /// `progress` by the bytes of each finished chunk.
    pub(crate) fn parse_chunks<T, F>(&self, range: Range<usize>, progress: &Progress, parse: F) -> Result<Vec<T>>
    where
        T: Send,
        F: Fn(Lines<'a>) -> Result<T, Fault> + Sync,
    {
        let results: Vec<Result<T, Fault>> = self
            .chunks(range)
            .into_par_iter()
            .map(|piece| {
                let bytes = piece.len() as u64;
                let result = parse(self.lines_in(piece));
                progress.inc(bytes);
                result
            })
            .collect();
        // Each chunk stops at its first fault and chunks are in input order, so the first
        // error met here is the first fault of the input.
        results.into_iter().collect::<Result<Vec<T>, Fault>>().map_err(|fault| self.error(fault))
    }
}

/// Offset just after the first line break at or after `from` (or `end`).
fn next_line_start(bytes: &[u8], from: usize, end: usize) -> usize {
    match memchr2(b'\n', b'\r', &bytes[from..end]) {
        Some(i) => {
            let at = from + i;
            if bytes[at] == b'\r' && at + 1 < end && bytes[at + 1] == b'\n' {
                at + 2
            } else {
                at + 1
            }
        }
        None => end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &[u8]) -> Text<'_> {
        Text::new(Path::new("t"), bytes)
    }

    #[test]
    fn line_ends_of_every_kind() {
        let t = text(b"a\nb\r\nc\rd");
        let lines: Vec<&[u8]> = t.lines().map(|l| l.text()).collect();
        assert_eq!(lines, vec![&b"a"[..], b"b", b"c", b"d"]);
        // Offsets: a=0 \n=1 b=2 \r=3 \n=4 c=5 \r=6 d=7.
        assert_eq!(t.position(2), TextPosition { line: 2, column: 1 });
        assert_eq!(t.position(3), TextPosition { line: 2, column: 2 });
        assert_eq!(t.position(5), TextPosition { line: 3, column: 1 });
        assert_eq!(t.position(7), TextPosition { line: 4, column: 1 });
        assert_eq!(t.position(8), TextPosition { line: 4, column: 2 });
        assert_eq!(t.end(), 8);
        assert_eq!(text(b"x\r\n").end(), 1);
    }

    #[test]
    fn id_pairs_take_plain_lines_and_leave_the_others() {
        let t = text(b"1 2\n30\t\t4\n5 6 7\n# c\n8 9\r\n10 11\n12 13");
        let mut lines = t.lines();
        assert_eq!(lines.next_id_pair(), Some((0, 1, 2)));
        assert_eq!(lines.next_id_pair(), Some((4, 30, 4)));
        // A third column, a comment, `\r\n` and a missing line end go the general way.
        for expected in [&b"5 6 7"[..], b"# c", b"8 9"] {
            assert_eq!(lines.next_id_pair(), None);
            assert_eq!(lines.next().unwrap().text(), expected);
        }
        assert_eq!(lines.next_id_pair(), Some((25, 10, 11)));
        assert_eq!(lines.next_id_pair(), None);
        assert_eq!(lines.next().unwrap().text(), b"12 13");
    }

    #[test]
    fn line_counts_match_the_line_iterator() {
        for input in [&b""[..], b"a", b"a\n", b"a\r\nb", b"\r\r\n\n\r", b"x\ry\rz\r\n", b"\n\n"] {
            let t = text(input);
            assert_eq!(t.count_lines(0..input.len()), t.lines().count(), "{input:?}");
        }
    }

    #[test]
    fn chunks_cover_the_input_at_line_starts() {
        let mut data = Vec::new();
        for i in 0..(3 * CHUNK_BYTES / 5) {
            data.extend_from_slice(if i % 3 == 0 { b"12345\r\n".as_slice() } else { b"678\r9\n" });
        }
        let t = text(&data);
        let pieces = t.chunks(0..data.len());
        assert!(pieces.len() > 2);
        assert_eq!(pieces[0].start, 0);
        assert_eq!(pieces.last().unwrap().end, data.len());
        for w in pieces.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            let before = data[w[1].start - 1];
            assert!(before == b'\n' || (before == b'\r' && data[w[1].start] != b'\n'));
        }
    }
}
