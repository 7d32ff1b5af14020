//! The fields of a line: splitting (whitespace or CSV), ids, weights, and the faults that
//! name what was expected.

use super::super::WeightRule;
use super::digits::{leading_digits, MAX_FAST_DIGITS};
use super::lines::{is_blank, Line};
use super::Fault;

/// Longest token quoted verbatim in an error message.
const QUOTE_LIMIT: usize = 40;

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

    /// The token as a finite f32 edge weight (or matrix value) that `rule` allows.
    pub(crate) fn weight(&self, what: &str, rule: WeightRule) -> Result<f32, Fault> {
        match self.as_str().map(str::parse::<f32>) {
            Some(Ok(w)) if w.is_finite() => {
                rule.check(w)
                    .map_err(|why| Fault::new(self.offset, format!("{what} `{}` is negative: {why}", self.quoted())))?;
                Ok(w)
            }
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
    /// The fields of `line`.
    pub(super) fn new(line: Line<'a>, dialect: Dialect) -> Self {
        Fields { line, pos: 0, dialect, done: false }
    }

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

    /// The rest of the line from the next field on, trailing blanks trimmed (a data dict,
    /// which may hold separators); `None` at the end of the line. Consumes the line.
    pub(crate) fn rest(&mut self) -> Option<Token<'a>> {
        if self.done {
            return None;
        }
        let text = self.line.text;
        let mut start = self.pos.min(text.len());
        while start < text.len() && is_blank(text[start]) {
            start += 1;
        }
        let end = text.len() - text[start..].iter().rev().take_while(|&&b| is_blank(b)).count();
        self.pos = text.len();
        self.done = true;
        (start < end).then(|| Token { bytes: &text[start..end], offset: self.line.offset + start })
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
}

#[cfg(test)]
mod tests {
    use super::super::Text;
    use super::*;
    use std::path::Path;

    fn text(bytes: &[u8]) -> Text<'_> {
        Text::new(Path::new("t"), bytes)
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
        assert_eq!(tok(b"2.5").weight("w", WeightRule::Any), Ok(2.5));
        assert_eq!(tok(b"-2.5").weight("w", WeightRule::Any), Ok(-2.5));
        assert_eq!(tok(b"-0").weight("w", WeightRule::NonNegative), Ok(-0.0));
        assert!(tok(b"-2.5").weight("w", WeightRule::NonNegative).unwrap_err().message.contains("non-negative"));
        assert!(tok(b"nan").weight("w", WeightRule::Any).unwrap_err().message.contains("finite"));
        assert!(tok(b"nan").is_numeric() && !tok(b"{}").is_numeric());
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
