//! Splitting a text into lines (`\n`, `\r\n` or a lone `\r` end a line) and classifying them.

use super::digits::{leading_digits, MAX_FAST_DIGITS};
use super::fields::{Dialect, Fields};
use memchr::memchr2;

/// Iterator over the lines of a range of a [`Text`](super::Text), without their line ends.
#[derive(Debug, Clone)]
pub(crate) struct Lines<'a> {
    bytes: &'a [u8],
    pos: usize,
    end: usize,
    /// The range holds no `\r`.
    lf_only: bool,
}

impl<'a> Lines<'a> {
    /// The lines of `bytes[pos..end]`; `lf_only` promises that the range holds no `\r`.
    pub(super) fn new(bytes: &'a [u8], pos: usize, end: usize, lf_only: bool) -> Self {
        Lines { bytes, pos, end, lf_only }
    }

    /// Offset of the next line to be returned (the end of the range when exhausted).
    pub(crate) fn offset(&self) -> usize {
        self.pos
    }

    /// The next line that is neither blank nor a comment.
    pub(crate) fn next_data(&mut self) -> Option<Line<'a>> {
        self.find(Line::is_data)
    }

    /// The next line's offset and two ids when the line is exactly `digits blanks digits`
    /// and a `\n` (each id at most 18 digits): the bulk of a SNAP edge list. The line is then
    /// consumed; otherwise nothing is, and the caller reads the line through the general path,
    /// which also produces the errors.
    ///
    /// This reads the line in one pass, converting digits as it scans them, where the general
    /// path looks for the line end first, classifies the line, then splits its fields.
    #[inline]
    pub(crate) fn next_id_pair(&mut self) -> Option<(usize, u64, u64)> {
        let start = self.pos;
        let (source, digits) = leading_digits(self.bytes.get(start..)?);
        let mut at = start + digits;
        if digits == 0 || digits >= MAX_FAST_DIGITS || !self.bytes.get(at).is_some_and(|&b| is_blank(b)) {
            return None;
        }
        while self.bytes.get(at).is_some_and(|&b| is_blank(b)) {
            at += 1;
        }
        let (target, digits) = leading_digits(&self.bytes[at..]);
        at += digits;
        if digits == 0 || digits >= MAX_FAST_DIGITS || at >= self.end || self.bytes[at] != b'\n' {
            return None;
        }
        self.pos = at + 1;
        Some((start, source, target))
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
    pub(super) text: &'a [u8],
    pub(super) offset: usize,
    /// The input from the line's start to its end: `text` and everything after it, so that
    /// number parsing can load 8 bytes at a time near the end of a line.
    pub(super) tail: &'a [u8],
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
        Fields::new(*self, dialect)
    }
}

/// Whether `b` separates whitespace fields (a space or a tab).
#[inline]
pub(super) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}
