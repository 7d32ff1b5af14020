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

/// Longest token quoted verbatim in an error message.
const QUOTE_LIMIT: usize = 40;

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
        Lines { bytes: self.bytes, pos: start, end, lf_only }
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

/// Iterator over the lines of a range of a [`Text`], without their line ends.
#[derive(Debug, Clone)]
pub(crate) struct Lines<'a> {
    bytes: &'a [u8],
    pos: usize,
    end: usize,
    /// The range holds no `\r`.
    lf_only: bool,
}

impl<'a> Lines<'a> {
    /// Offset of the next line to be returned (the end of the range when exhausted).
    pub(crate) fn offset(&self) -> usize {
        self.pos
    }

    /// The next line that is neither blank nor a comment.
    pub(crate) fn next_data(&mut self) -> Option<Line<'a>> {
        self.find(Line::is_data)
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    #[inline]
    fn next(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.end {
            return None;
        }
        let start = self.pos;
        let rest = &self.bytes[start..self.end];
        let found = if self.lf_only { memchr::memchr(b'\n', rest) } else { memchr2(b'\n', b'\r', rest) };
        match found {
            Some(i) => {
                let stop = start + i;
                self.pos = if self.bytes[stop] == b'\r' && self.bytes.get(stop + 1) == Some(&b'\n') {
                    stop + 2
                } else {
                    stop + 1
                };
                Some(Line { text: &self.bytes[start..stop], offset: start, tail: &self.bytes[start..] })
            }
            None => {
                self.pos = self.end;
                Some(Line { text: &self.bytes[start..self.end], offset: start, tail: &self.bytes[start..] })
            }
        }
    }
}

/// One line of input, without its line end.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    text: &'a [u8],
    offset: usize,
    /// The input from the line's start to its end: `text` and everything after it, so that
    /// number parsing can load 8 bytes at a time near the end of a line.
    tail: &'a [u8],
}

impl<'a> Line<'a> {
    /// The line's bytes.
    pub(crate) fn text(&self) -> &'a [u8] {
        self.text
    }

    /// Offset of the line's first byte in the whole input.
    pub(crate) fn offset(&self) -> usize {
        self.offset
    }

    /// Offset just past the line's last byte (where a missing column is reported).
    pub(crate) fn end_offset(&self) -> usize {
        self.offset + self.text.len()
    }

    /// Whether the line carries data: not blank and not a `#` or `%` comment.
    #[inline]
    pub(crate) fn is_data(&self) -> bool {
        match self.text.iter().find(|&&b| !is_blank(b)) {
            None => false,
            Some(&b) => b != b'#' && b != b'%',
        }
    }

    /// Whether the line is a comment (first non-blank byte `#` or `%`).
    pub(crate) fn is_comment(&self) -> bool {
        matches!(self.text.iter().find(|&&b| !is_blank(b)), Some(b'#' | b'%'))
    }

    /// The line's fields in `dialect`.
    #[inline]
    pub(crate) fn fields(&self, dialect: Dialect) -> Fields<'a> {
        Fields { line: *self, pos: 0, dialect, done: false }
    }
}

#[inline]
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// How a line splits into fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Fields separated by runs of spaces and tabs.
    Whitespace,
    /// Fields separated by commas, spaces and tabs around them trimmed.
    Csv,
}

/// A field of a line, with its offset for error messages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Token<'a> {
    /// The field's bytes.
    pub bytes: &'a [u8],
    /// Offset of its first byte in the whole input.
    pub offset: usize,
}

impl<'a> Token<'a> {
    /// The token for messages: lossy UTF-8, cut after [`QUOTE_LIMIT`] characters.
    pub(crate) fn quoted(&self) -> String {
        quote(self.bytes)
    }

    /// The token as UTF-8 text, if it is.
    pub(crate) fn as_str(&self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes).ok()
    }

    /// Whether the token reads as a number (integer, decimal, exponent, or `nan`/`inf`, which
    /// count as numbers so that they are reported as non-finite weights, not ignored).
    pub(crate) fn is_numeric(&self) -> bool {
        self.as_str().is_some_and(|s| s.parse::<f64>().is_ok())
    }

    /// The token as a vertex id: a non-negative decimal integer below 2^64. `what` names the
    /// field in messages ("a target vertex id").
    #[inline]
    pub(crate) fn id(&self, what: &str) -> Result<u64, Fault> {
        let b = self.bytes;
        // Fast path: up to 19 digits cannot overflow a u64.
        if !b.is_empty() && b.len() <= 19 {
            let mut value = 0u64;
            let mut ok = true;
            for &c in b {
                let digit = c.wrapping_sub(b'0');
                ok &= digit <= 9;
                value = value.wrapping_mul(10).wrapping_add(digit as u64);
            }
            if ok {
                return Ok(value);
            }
        }
        self.id_slow(what)
    }

    #[cold]
    fn id_slow(&self, what: &str) -> Result<u64, Fault> {
        let b = self.bytes;
        let all_digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
        if b.is_empty() {
            return Err(Fault::new(self.offset, format!("expected {what}, found an empty field")));
        }
        if b[0] == b'-' && all_digits(&b[1..]) {
            return Err(Fault::new(
                self.offset,
                format!(
                    "expected {what}, found the negative number `{}` (ids are non-negative integers)",
                    self.quoted()
                ),
            ));
        }
        if all_digits(b) {
            let parsed = b.iter().try_fold(0u64, |acc, &c| acc.checked_mul(10)?.checked_add((c - b'0') as u64));
            return parsed.ok_or_else(|| {
                Fault::new(self.offset, format!("{what} `{}` exceeds the largest id 2^64 - 1", self.quoted()))
            });
        }
        Err(Fault::new(self.offset, format!("expected {what} (a non-negative integer), found `{}`", self.quoted())))
    }

    /// The token as a finite f32 edge weight (or matrix value).
    pub(crate) fn weight(&self, what: &str) -> Result<f32, Fault> {
        match self.as_str().map(str::parse::<f32>) {
            Some(Ok(w)) if w.is_finite() => Ok(w),
            Some(Ok(_)) => Err(Fault::new(
                self.offset,
                format!(
                    "{what} `{}` is not a finite 32-bit number (NaN and infinite weights are not allowed)",
                    self.quoted()
                ),
            )),
            _ => Err(Fault::new(self.offset, format!("expected {what} (a number), found `{}`", self.quoted()))),
        }
    }

    /// The token as a signed integer (Matrix Market `integer` values).
    pub(crate) fn integer(&self, what: &str) -> Result<i64, Fault> {
        self.as_str()
            .and_then(|s| s.parse::<i64>().ok())
            .ok_or_else(|| Fault::new(self.offset, format!("expected {what} (an integer), found `{}`", self.quoted())))
    }
}

/// Digits [`leading_digits`] reads at most.
const MAX_FAST_DIGITS: usize = 19;

/// The value and number of the ASCII digits at the start of `bytes` (at most
/// [`MAX_FAST_DIGITS`], which cannot overflow a u64).
///
/// With 8 bytes available it classifies and converts 8 bytes at once (SWAR: SIMD within a
/// register), which removes the per-digit multiply-add dependency chain that dominates a
/// byte-at-a-time parse of typical 5-8 digit ids. Bytes after the digits are only looked at,
/// never consumed, so `bytes` may run past the end of the field.
#[inline]
pub(crate) fn leading_digits(bytes: &[u8]) -> (u64, usize) {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    let (mut value, mut count) = match bytes.first_chunk::<8>() {
        Some(word) => {
            // Each byte becomes its digit value (0..=9) or something >= 10.
            let x = u64::from_le_bytes(*word) ^ ZEROS;
            // Bit 7 of each byte: set when that byte is not a digit. Adding 0x76 to the low 7
            // bits reaches 0x80 exactly when they are >= 10, and cannot carry across bytes.
            let not_digit = (((x & 0x7f7f_7f7f_7f7f_7f7f) + 0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080;
            let count = (not_digit.trailing_zeros() / 8) as usize;
            match count {
                0 => return (0, 0),
                8 => (eight_digits(x), 8),
                // Shift the digits to the top: the vacated low bytes act as leading zeros.
                _ => return (eight_digits(x << (8 * (8 - count))), count),
            }
        }
        None => (0, 0),
    };
    while count < bytes.len().min(MAX_FAST_DIGITS) {
        let digit = bytes[count].wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value * 10 + digit as u64;
        count += 1;
    }
    (value, count)
}

/// The number whose 8 decimal digits (values 0..=9, most significant first) are the bytes of
/// `x` in little-endian order: pairs, then quadruples, then the whole, each step one
/// multiply-add over all lanes.
#[inline]
fn eight_digits(x: u64) -> u64 {
    let pairs = (x.wrapping_mul(10).wrapping_add(x >> 8)) & 0x00ff_00ff_00ff_00ff;
    let quads = (pairs.wrapping_mul(100).wrapping_add(pairs >> 16)) & 0x0000_ffff_0000_ffff;
    (quads.wrapping_mul(10_000).wrapping_add(quads >> 32)) & 0xffff_ffff
}

/// `bytes` for messages: lossy UTF-8, cut after [`QUOTE_LIMIT`] characters.
pub(crate) fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() > QUOTE_LIMIT {
        let cut: String = text.chars().take(QUOTE_LIMIT).collect();
        format!("{cut}...")
    } else {
        text.into_owned()
    }
}

/// The fields of one line, consumed left to right.
#[derive(Debug, Clone)]
pub(crate) struct Fields<'a> {
    line: Line<'a>,
    pos: usize,
    dialect: Dialect,
    done: bool,
}

impl<'a> Fields<'a> {
    /// The next field, if any.
    #[inline]
    pub(crate) fn next_token(&mut self) -> Option<Token<'a>> {
        let text = self.line.text;
        match self.dialect {
            Dialect::Whitespace => {
                let mut i = self.pos;
                while i < text.len() && is_blank(text[i]) {
                    i += 1;
                }
                if i == text.len() {
                    self.pos = i;
                    return None;
                }
                let start = i;
                while i < text.len() && !is_blank(text[i]) {
                    i += 1;
                }
                self.pos = i;
                Some(Token { bytes: &text[start..i], offset: self.line.offset + start })
            }
            Dialect::Csv => {
                if self.done {
                    return None;
                }
                let start = self.pos;
                let stop = match memchr::memchr(b',', &text[start..]) {
                    Some(i) => start + i,
                    None => {
                        self.done = true;
                        text.len()
                    }
                };
                self.pos = stop + 1;
                let mut first = start;
                let mut last = stop;
                while first < last && is_blank(text[first]) {
                    first += 1;
                }
                while last > first && is_blank(text[last - 1]) {
                    last -= 1;
                }
                Some(Token { bytes: &text[first..last], offset: self.line.offset + first })
            }
        }
    }

    /// The next field, or a fault at the end of the line saying that `what` is missing.
    #[inline]
    pub(crate) fn expect(&mut self, what: &str) -> Result<Token<'a>, Fault> {
        match self.next_token() {
            Some(token) => Ok(token),
            None => Err(self.missing(what)),
        }
    }

    #[cold]
    fn missing(&self, what: &str) -> Fault {
        Fault::new(self.line.end_offset(), format!("missing column: expected {what}"))
    }

    /// The next field as a vertex id (see [`Token::id`]).
    ///
    /// Whitespace fields take a fast path that converts digits while scanning them, so a
    /// well-formed id is read in one pass; anything else (and every CSV field) goes through
    /// [`Fields::expect`] and [`Token::id`], which produce the error messages.
    #[inline]
    pub(crate) fn id(&mut self, what: &str) -> Result<u64, Fault> {
        if self.dialect == Dialect::Whitespace {
            let text = self.line.text;
            let mut i = self.pos;
            while i < text.len() && is_blank(text[i]) {
                i += 1;
            }
            let (value, digits) = leading_digits(&self.line.tail[i..]);
            let end = i + digits;
            // At most 18 digits here (19 may continue: the slow path checks for overflow),
            // followed by the end of the line or a blank.
            if digits > 0 && digits < MAX_FAST_DIGITS && end <= text.len() && text.get(end).is_none_or(|&b| is_blank(b))
            {
                self.pos = end;
                return Ok(value);
            }
        }
        self.expect(what)?.id(what)
    }

    /// Fails when another field follows; `context` says what the line should hold.
    pub(crate) fn expect_end(&mut self, context: &str) -> Result<(), Fault> {
        match self.next_token() {
            None => Ok(()),
            Some(extra) => {
                Err(Fault::new(extra.offset, format!("unexpected extra column `{}`: {context}", extra.quoted())))
            }
        }
    }

    /// Whether any field left is not numeric (consumes them).
    pub(crate) fn any_non_numeric(mut self) -> bool {
        while let Some(token) = self.next_token() {
            if !token.is_numeric() {
                return true;
            }
        }
        false
    }

    /// Number of fields left (consumes them).
    pub(crate) fn count_rest(mut self) -> usize {
        let mut n = 0;
        while self.next_token().is_some() {
            n += 1;
        }
        n
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

    #[test]
    fn ids_and_their_faults() {
        let tok = |b: &'static [u8]| Token { bytes: b, offset: 7 };
        assert_eq!(tok(b"0").id("x"), Ok(0));
        assert_eq!(tok(b"18446744073709551615").id("x"), Ok(u64::MAX));
        assert!(tok(b"18446744073709551616").id("x").unwrap_err().message.contains("exceeds"));
        assert!(tok(b"-4").id("x").unwrap_err().message.contains("negative"));
        assert!(tok(b"4a").id("x").unwrap_err().message.contains("non-negative integer"));
        assert_eq!(tok(b"4a").id("x").unwrap_err().offset, 7);
        assert_eq!(tok(b"2.5").weight("w"), Ok(2.5));
        assert!(tok(b"nan").weight("w").unwrap_err().message.contains("finite"));
        assert!(tok(b"nan").is_numeric() && !tok(b"{}").is_numeric());
    }

    /// Byte-at-a-time reference for [`leading_digits`].
    fn naive_digits(bytes: &[u8]) -> (u64, usize) {
        let count = bytes.iter().take(MAX_FAST_DIGITS).take_while(|b| b.is_ascii_digit()).count();
        let value = bytes[..count].iter().fold(0u64, |v, &b| v * 10 + (b - b'0') as u64);
        (value, count)
    }

    #[test]
    fn leading_digits_matches_a_naive_parse() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let alphabet = b"0123456789012345678901234567890123456789 \t\r\n-{}.e,/:@\x00\xff";
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 24) as usize;
            let bytes: Vec<u8> =
                (0..len).map(|i| alphabet[((x >> (i * 2 % 60)) as usize ^ i) % alphabet.len()]).collect();
            for start in 0..bytes.len().min(3) {
                assert_eq!(leading_digits(&bytes[start..]), naive_digits(&bytes[start..]), "{bytes:?}");
            }
        }
        for text in [&b"12345678"[..], b"1234567\n", b"99999999999999999999", b"0000000000000000001 ", b"7", b""] {
            assert_eq!(leading_digits(text), naive_digits(text), "{text:?}");
        }
    }

    #[test]
    fn fast_ids_stop_at_the_field_end() {
        let t = text(b"123 4567890123\t88\n9 x");
        let mut lines = t.lines();
        let mut fields = lines.next().unwrap().fields(Dialect::Whitespace);
        assert_eq!(fields.id("a"), Ok(123));
        assert_eq!(fields.id("b"), Ok(4567890123));
        assert_eq!(fields.id("c"), Ok(88));
        assert!(fields.id("d").unwrap_err().message.contains("missing column"));
        let mut fields = lines.next().unwrap().fields(Dialect::Whitespace);
        assert_eq!(fields.id("e"), Ok(9));
        assert_eq!(fields.id("f").unwrap_err().offset, 20);
        let t = text(b"12x 5");
        let mut fields = t.lines().next().unwrap().fields(Dialect::Whitespace);
        assert!(fields.id("g").unwrap_err().message.contains("found `12x`"));
    }

    #[test]
    fn csv_fields_are_trimmed_and_may_be_empty() {
        let t = text(b" 1 , 2,,x ");
        let line = t.lines().next().unwrap();
        let mut f = line.fields(Dialect::Csv);
        let got: Vec<(&[u8], usize)> = std::iter::from_fn(|| f.next_token()).map(|t| (t.bytes, t.offset)).collect();
        assert_eq!(got, vec![(&b"1"[..], 1), (b"2", 5), (b"", 7), (b"x", 8)]);
    }
}
