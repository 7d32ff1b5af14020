//! Edge data dicts: the trailing `{...}` of networkx's `write_edgelist` and of LFR files.
//!
//! networkx writes each edge as `u v {attributes}`, the attributes being the Python `repr` of
//! a dict: `{}` for none, `{'weight': 3.0}`, `{'weight': 2, 'color': 'red'}`; the LFR
//! benchmark's files end every line with `{}`. JSON-style double quotes (`{"weight": 3.0}`)
//! are read too.
//!
//! Only the `weight` key matters: its value must be a number (an int or a float, or a
//! numpy scalar's repr such as `np.float64(3.0)`); every other key and value is skipped,
//! whatever Python literal it is (strings, numbers, `True`/`None`, nested lists, tuples and
//! dicts). A dict that is not well formed (unbalanced brackets, an unterminated string, a
//! missing `:` or `,`, text after the closing brace) is an error at the offending byte: a
//! mangled line is never half read.

use super::text::{quote, Fault, Token};

/// What a data dict holds for glp.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DataDict<'a> {
    /// The value of the `weight` key, when there is one (a number's text, to be checked as a
    /// weight by the caller).
    pub weight: Option<Token<'a>>,
}

/// Parses `token`, the rest of a line from its opening `{`.
pub(crate) fn parse_data_dict(token: Token<'_>) -> Result<DataDict<'_>, Fault> {
    // The common cases first: LFR's and networkx's empty dict.
    if token.bytes == b"{}" {
        return Ok(DataDict { weight: None });
    }
    let mut parser = Parser { bytes: token.bytes, offset: token.offset, at: 0 };
    parser.dict()
}

/// A cursor over the dict's bytes.
struct Parser<'a> {
    bytes: &'a [u8],
    /// Offset of `bytes` in the whole input.
    offset: usize,
    at: usize,
}

impl<'a> Parser<'a> {
    fn dict(&mut self) -> Result<DataDict<'a>, Fault> {
        self.expect(b'{', "`{` opening the data dict")?;
        let mut weight = None;
        self.blanks();
        if self.peek() != Some(b'}') {
            loop {
                let key_start = self.at;
                let key = self.value()?;
                let is_weight = matches!(key, b"'weight'" | b"\"weight\"");
                self.blanks();
                self.expect(b':', "`:` after a key of the data dict")?;
                self.blanks();
                let value_start = self.at;
                let value = self.value()?;
                if is_weight {
                    if weight.is_some() {
                        return Err(self.fault_at(key_start, "malformed data dict: the key `weight` appears twice"));
                    }
                    weight = Some(self.number_in(value, value_start)?);
                }
                self.blanks();
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        self.blanks();
                        if self.peek() == Some(b'}') {
                            break;
                        }
                    }
                    Some(b'}') => break,
                    _ => return Err(self.unexpected("`,` or `}` after a value of the data dict")),
                }
            }
        }
        self.expect(b'}', "`}` closing the data dict")?;
        self.blanks();
        if self.at < self.bytes.len() {
            return Err(self.unexpected("the end of the line after the data dict"));
        }
        Ok(DataDict { weight })
    }

    /// The weight's number: `value` itself, or the single argument of a call such as
    /// `np.float64(3.0)`.
    fn number_in(&self, value: &'a [u8], start: usize) -> Result<Token<'a>, Fault> {
        let (inner, inner_start) = match value.iter().position(|&b| b == b'(') {
            Some(open) if value.last() == Some(&b')') => (&value[open + 1..value.len() - 1], start + open + 1),
            _ => (value, start),
        };
        let lead = inner.iter().take_while(|&&b| is_blank(b)).count();
        let trail = inner[lead..].iter().rev().take_while(|&&b| is_blank(b)).count();
        let trimmed = &inner[lead..inner.len() - trail];
        let numeric = !trimmed.is_empty()
            && trimmed.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_'));
        if !numeric {
            return Err(self
                .fault_at(start, format!("expected a number as the data dict's `weight`, found `{}`", quote(value))));
        }
        Ok(Token { bytes: trimmed, offset: self.offset + inner_start + lead })
    }

    /// Skips one Python literal and returns its bytes: a string, a bracketed value, or an
    /// atom (number, name) optionally followed by a call's parentheses.
    fn value(&mut self) -> Result<&'a [u8], Fault> {
        let start = self.at;
        match self.peek() {
            Some(b'\'' | b'"') => self.string()?,
            Some(b'[' | b'(' | b'{') => self.bracketed()?,
            _ => {
                while self.peek().is_some_and(|b| !is_blank(b) && !b",:}])([{'\"".contains(&b)) {
                    self.at += 1;
                }
                if self.at == start {
                    return Err(self.unexpected("a value in the data dict"));
                }
                if self.peek() == Some(b'(') {
                    self.bracketed()?;
                }
            }
        }
        Ok(&self.bytes[start..self.at])
    }

    /// Skips a quoted string (backslash escapes included).
    fn string(&mut self) -> Result<(), Fault> {
        let start = self.at;
        let quote_byte = self.bytes[self.at];
        self.at += 1;
        while let Some(b) = self.peek() {
            self.at += 1;
            if b == b'\\' {
                self.at += 1;
            } else if b == quote_byte {
                return Ok(());
            }
        }
        Err(self.fault_at(start, "malformed data dict: unterminated string"))
    }

    /// Skips a balanced `[...]`, `(...)` or `{...}`, strings inside included.
    fn bracketed(&mut self) -> Result<(), Fault> {
        let start = self.at;
        let mut open: Vec<u8> = Vec::new();
        loop {
            let Some(b) = self.peek() else {
                return Err(self.fault_at(start, "malformed data dict: unbalanced brackets"));
            };
            match b {
                b'\'' | b'"' => {
                    self.string()?;
                    continue;
                }
                b'[' => open.push(b']'),
                b'(' => open.push(b')'),
                b'{' => open.push(b'}'),
                // The guard pops the innermost opening bracket; a closing one that does not match it
                // is an error, one that does falls through to the next arm.
                b']' | b')' | b'}' if open.pop() != Some(b) => {
                    return Err(self.unexpected("balanced brackets in the data dict"));
                }
                _ => {}
            }
            self.at += 1;
            if open.is_empty() {
                return Ok(());
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn blanks(&mut self) {
        while self.peek().is_some_and(is_blank) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), Fault> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.unexpected(what))
        }
    }

    fn unexpected(&self, what: &str) -> Fault {
        let found = match self.bytes.get(self.at..).filter(|rest| !rest.is_empty()) {
            Some(rest) => format!("`{}`", quote(rest)),
            None => "the end of the line".to_string(),
        };
        self.fault_at(self.at, format!("malformed data dict: expected {what}, found {found}"))
    }

    fn fault_at(&self, at: usize, message: impl Into<String>) -> Fault {
        Fault::new(self.offset + at, message)
    }
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weight_of(text: &str) -> Result<Option<String>, Fault> {
        let token = Token { bytes: text.as_bytes(), offset: 100 };
        parse_data_dict(token).map(|d| d.weight.map(|w| String::from_utf8(w.bytes.to_vec()).unwrap()))
    }

    #[test]
    fn weights_are_read_and_other_keys_skipped() {
        assert_eq!(weight_of("{}").unwrap(), None);
        assert_eq!(weight_of("{ }").unwrap(), None);
        assert_eq!(weight_of("{'weight': 3.0}").unwrap().as_deref(), Some("3.0"));
        assert_eq!(weight_of("{\"weight\": -2e3}").unwrap().as_deref(), Some("-2e3"));
        assert_eq!(weight_of("{'color': 'red, or {blue}', 'weight': 2}").unwrap().as_deref(), Some("2"));
        assert_eq!(weight_of("{'w': [1, (2, 3)], 'x': {'y': None}, 'ok': True,}").unwrap(), None);
        assert_eq!(weight_of("{'weight': np.float64(0.5)}").unwrap().as_deref(), Some("0.5"));
        assert_eq!(weight_of("{'weight': nan}").unwrap().as_deref(), Some("nan"));
        assert_eq!(weight_of("{'label': 'it\\'s'}").unwrap(), None);
        assert_eq!(weight_of("{1: 2}").unwrap(), None);
    }

    #[test]
    fn malformed_dicts_are_errors_at_their_byte() {
        for (text, at, words) in [
            ("{'weight': 3.0", 114, "`,` or `}`"),
            ("{'weight' 3.0}", 110, "`:` after a key"),
            ("{'weight': 'heavy'}", 111, "a number"),
            ("{'a': 1 'b': 2}", 108, "`,` or `}`"),
            ("{'a': [1, 2}", 111, "balanced brackets"),
            ("{'a': 'x}", 106, "unterminated string"),
            ("{} extra", 103, "the end of the line"),
            ("{'weight': 1, 'weight': 2}", 114, "twice"),
            ("{'a': }", 106, "a value"),
            ("{'weight': ()}", 111, "a number"),
        ] {
            let fault = weight_of(text).unwrap_err();
            assert_eq!(fault.offset, at, "{text}: {}", fault.message);
            assert!(fault.message.contains(words), "{text}: {}", fault.message);
        }
    }
}
