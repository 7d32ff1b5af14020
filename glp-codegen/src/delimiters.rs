//! Where the delimiters of a source text go wrong, for files that do not parse.
//!
//! syn's lexer reports an unclosed `{` where it gave up (often the end of the file, or the
//! next item), which says little about where the mistake is. When parsing fails,
//! [`check`] scans the text the way Rust's lexer matches delimiters and names the first
//! problem at its own position: a `(`, `[` or `{` never closed (also when a closing
//! delimiter of another kind comes first), a closing delimiter with nothing open, or a string
//! literal or block comment that runs to the end of the file.
//!
//! Which `{` is never closed is a guess when several are left open at the end: a missing
//! `}` makes every later `}` close the delimiter one level further out, so the first pair
//! whose `}` starts a line indented like the *enclosing* delimiter's line (not like its own
//! opening line) is taken to be the one missing its `}` (rustc's lexer uses the same clue). Without
//! such a pair, the innermost delimiter left open is named. The scan skips what is not code: line and block comments
//! (block comments nest, as in Rust), string and byte string literals with their escapes, raw
//! strings (`r"..."`, `r#"..."#`, `br"..."`), and character literals (told from lifetimes
//! such as `'_` by their closing quote).

/// One delimiter problem, at a 1-based line and a 0-based column (in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelimiterError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    pub help: Option<String>,
}

/// An open delimiter and where it is.
#[derive(Debug, Clone, Copy)]
struct Open {
    delimiter: char,
    line: usize,
    column: usize,
    /// The indentation (leading whitespace, in characters) of its line.
    indent: usize,
}

/// The first delimiter problem of `source`, if any (see the module docs).
pub fn check(source: &str) -> Option<DelimiterError> {
    Scanner::new(source).run()
}

fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

struct Scanner {
    chars: Vec<char>,
    i: usize,
    line: usize,
    column: usize,
    /// Indentation of each line (0-based index).
    indents: Vec<usize>,
}

impl Scanner {
    fn new(source: &str) -> Scanner {
        let indents = source.lines().map(|l| l.chars().take_while(|c| c.is_whitespace()).count()).collect();
        Scanner { chars: source.chars().collect(), i: 0, line: 1, column: 0, indents }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 0;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn indent(&self, line: usize) -> usize {
        self.indents.get(line.wrapping_sub(1)).copied().unwrap_or(0)
    }

    fn run(mut self) -> Option<DelimiterError> {
        let mut stack: Vec<Open> = Vec::new();
        // The first pair whose closing delimiter starts a line indented like the line of the
        // delimiter enclosing the pair, not like its own opening line: the mark of a missing
        // closing delimiter (the one found closes the enclosing delimiter's line instead).
        let mut suspect: Option<Suspect> = None;
        while let Some(c) = self.peek(0) {
            let (line, column) = (self.line, self.column);
            match c {
                '/' if self.peek(1) == Some('/') => self.skip_line(),
                '/' if self.peek(1) == Some('*') => {
                    if !self.skip_block_comment() {
                        return Some(error(line, column, "this block comment is never closed (`*/`)", None));
                    }
                }
                '"' => {
                    self.bump();
                    if !self.skip_quoted('"') {
                        return Some(error(line, column, "this string literal is never closed", None));
                    }
                }
                'r' | 'b' if self.raw_string_start().is_some() => {
                    if !self.skip_raw_string() {
                        return Some(error(line, column, "this raw string literal is never closed", None));
                    }
                }
                'b' if self.peek(1) == Some('"') => {
                    self.bump();
                    self.bump();
                    if !self.skip_quoted('"') {
                        return Some(error(line, column, "this byte string literal is never closed", None));
                    }
                }
                '\'' => self.skip_char_or_lifetime(),
                '(' | '[' | '{' => {
                    stack.push(Open { delimiter: c, line, column, indent: self.indent(line) });
                    self.bump();
                }
                ')' | ']' | '}' => {
                    let Some(open) = stack.pop() else {
                        let message = format!("unexpected closing delimiter `{c}`: nothing is open here");
                        return Some(error(line, column, &message, None));
                    };
                    if closing(open.delimiter) != c {
                        let help =
                            format!("a `{c}` at {line}:{} comes before its `{}`", column + 1, closing(open.delimiter));
                        return Some(never_closed(open, Some(help)));
                    }
                    let indent = self.indent(line);
                    let starts_line = column == indent;
                    if let (None, true, Some(parent)) = (&suspect, starts_line && indent != open.indent, stack.last()) {
                        if parent.indent == indent {
                            suspect = Some(Suspect { open, parent: *parent, line, column });
                        }
                    }
                    self.bump();
                }
                _ => {
                    self.bump();
                }
            }
        }
        let innermost = *stack.last()?;
        Some(match suspect {
            Some(s) => {
                let help = format!(
                    "the `{}` at {}:{} is indented like line {}, so it seems to close the `{}` there: this `{}` \
                     lacks its own",
                    closing(s.open.delimiter),
                    s.line,
                    s.column + 1,
                    s.parent.line,
                    s.parent.delimiter,
                    s.open.delimiter
                );
                never_closed(s.open, Some(help))
            }
            None => {
                let help = stack.iter().rev().nth(1).map(|outer| {
                    format!(
                        "the `{}` at {}:{} around it is not closed either",
                        outer.delimiter,
                        outer.line,
                        outer.column + 1
                    )
                });
                never_closed(innermost, help)
            }
        })
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                return;
            }
            self.bump();
        }
    }

    /// Skips a (nested) block comment; false if the text ends inside it.
    fn skip_block_comment(&mut self) -> bool {
        let mut depth = 0usize;
        while let Some(c) = self.peek(0) {
            if c == '/' && self.peek(1) == Some('*') {
                depth += 1;
                self.bump();
            } else if c == '*' && self.peek(1) == Some('/') {
                depth -= 1;
                self.bump();
                if depth == 0 {
                    self.bump();
                    return true;
                }
            }
            self.bump();
        }
        false
    }

    /// Skips to after the closing `quote` of a literal whose opening quote was consumed,
    /// honouring backslash escapes; false if the text ends first.
    fn skip_quoted(&mut self, quote: char) -> bool {
        while let Some(c) = self.bump() {
            if c == '\\' {
                self.bump();
            } else if c == quote {
                return true;
            }
        }
        false
    }

    /// At `r"`, `r#`+`"`, `br"` or `br#`+`"`: the number of `#`s.
    fn raw_string_start(&self) -> Option<usize> {
        let prefix = match (self.peek(0), self.peek(1)) {
            (Some('r'), _) => 1,
            (Some('b'), Some('r')) => 2,
            _ => return None,
        };
        // Inside an identifier (`bar"` is no raw string).
        if self.i.checked_sub(1).is_some_and(|p| self.chars[p].is_alphanumeric() || self.chars[p] == '_') {
            return None;
        }
        let mut hashes = 0;
        while self.peek(prefix + hashes) == Some('#') {
            hashes += 1;
        }
        (self.peek(prefix + hashes) == Some('"')).then_some(hashes)
    }

    /// Skips a raw string; false if the text ends inside it.
    fn skip_raw_string(&mut self) -> bool {
        let Some(hashes) = self.raw_string_start() else { return false };
        while self.peek(0) != Some('"') {
            self.bump();
        }
        self.bump();
        loop {
            match self.bump() {
                None => return false,
                Some('"') if (0..hashes).all(|k| self.peek(k) == Some('#')) => {
                    for _ in 0..hashes {
                        self.bump();
                    }
                    return true;
                }
                Some(_) => {}
            }
        }
    }

    /// Skips a character literal (`'x'`, `'\n'`, `'\''`) or the quote of a lifetime or label.
    fn skip_char_or_lifetime(&mut self) {
        self.bump();
        match (self.peek(0), self.peek(1)) {
            (Some('\\'), _) => {
                self.skip_quoted('\'');
            }
            (Some(c), Some('\'')) if c != '\n' => {
                self.bump();
                self.bump();
            }
            // A lifetime or label: the name is ordinary text.
            _ => {}
        }
    }
}

/// A pair closed by a delimiter indented like the enclosing delimiter's line.
#[derive(Debug, Clone, Copy)]
struct Suspect {
    open: Open,
    parent: Open,
    /// Where the closing delimiter is.
    line: usize,
    column: usize,
}

fn never_closed(open: Open, help: Option<String>) -> DelimiterError {
    error(open.line, open.column, &format!("this `{}` is never closed", open.delimiter), help)
}

fn error(line: usize, column: usize, message: &str, help: Option<String>) -> DelimiterError {
    DelimiterError { line, column, message: message.to_string(), help }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(source: &str) -> Option<(usize, usize, String)> {
        check(source).map(|e| (e.line, e.column, e.message))
    }

    #[test]
    fn balanced_text_has_no_problem() {
        assert_eq!(at("fn f() { let a = [1, (2)]; }"), None);
        assert_eq!(at("fn f<'a>(v: &View<'_>) -> char { '{' }"), None);
        assert_eq!(at("let s = \"}\\\"{\"; let r = r#\"}\"# ; let b = b\"(\"; let c = '\\'';"), None);
        assert_eq!(at("/* { /* } */ ( */ // {\nfn f() {}"), None);
        assert_eq!(at("let x = br##\"]\"#\"##;"), None);
    }

    #[test]
    fn the_first_problem_is_named_where_it_is() {
        assert_eq!(at("fn f() {\n    g(1;\n}\n"), Some((2, 5, "this `(` is never closed".into())));
        assert_eq!(at("fn f() {}\n}"), Some((2, 0, "unexpected closing delimiter `}`: nothing is open here".into())));
        assert_eq!(at("fn f() {\n  let s = \"x;\n}"), Some((2, 10, "this string literal is never closed".into())));
        assert_eq!(at("/* /* */"), Some((1, 0, "this block comment is never closed (`*/`)".into())));
        assert_eq!(at("a {\n  b {\n  }\n"), Some((1, 2, "this `{` is never closed".into())));
    }
}
