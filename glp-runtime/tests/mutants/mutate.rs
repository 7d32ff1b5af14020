//! Deterministic mutants of small valid inputs: byte flips, insertions, deletions,
//! truncations, duplicated, dropped and swapped lines, swapped tokens, odd numbers in place of
//! a token (huge, negative, non-finite, empty), odd line ends, byte order marks, comments,
//! extra and missing columns. Each mutant applies one to three of them, drawn from a seeded
//! Philox stream, so a failing mutant is reproduced by its seed and index.

use glp_runtime::random::Stream;

/// Bytes worth flipping to: the separators, signs, digits and brackets the formats use, line
/// ends, and bytes that are not ASCII.
const ALPHABET: &[u8] = b"0123456789 \t\n\r#%,-+.eE{}[]()':\"xnai\x00\xff\xef\xbb\xbf";

/// Tokens that stress number parsing and declared sizes.
const ODD_TOKENS: &[&str] = &[
    "0",
    "1",
    "2",
    "7",
    "-1",
    "-0",
    "+1",
    "1.5",
    "-2.5",
    "1e3",
    "1e39",
    "1e309",
    "-1e309",
    "nan",
    "inf",
    "-inf",
    "NaN",
    "0x10",
    "00000000000000000001",
    "255",
    "65536",
    "4194304",
    "5000000",
    "4294967295",
    "4294967296",
    "3000000000",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "",
    "{}",
    "{'weight': 2}",
    "{'weight': -1}",
    "{'weight': nan}",
    "{'a': [1, {2: 3}]}",
    "{'weight': np.float64(0.5)}",
    "{",
    "'weight'",
    "src",
    "id_1",
    "weight",
    "target",
    "x",
];

/// A mutant generator for one format.
pub struct Mutator {
    stream: Stream,
}

impl Mutator {
    /// The generator for `format` (any number: each format gets its own stream).
    pub fn new(format: u64) -> Self {
        Mutator { stream: Stream::new(0x6c70_6d75_7461_6e74, format) }
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.stream.next_below_u64(n as u64) as usize
        }
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// A mutant of `seed`: one to three mutations.
    pub fn mutant(&mut self, seed: &[u8]) -> Vec<u8> {
        let mut bytes = seed.to_vec();
        let rounds = 1 + self.below(3);
        for _ in 0..rounds {
            self.mutate(&mut bytes);
        }
        bytes
    }

    /// One mutation of `bytes`, in place.
    pub fn mutate(&mut self, bytes: &mut Vec<u8>) {
        let len = bytes.len();
        match self.below(16) {
            // A byte flipped to an interesting byte, or to any byte.
            0 | 1 if len > 0 => {
                let at = self.below(len);
                bytes[at] = if self.below(4) == 0 { self.below(256) as u8 } else { self.pick(ALPHABET) };
            }
            // Bytes inserted.
            2 => {
                let at = self.below(len + 1);
                let count = 1 + self.below(3);
                for _ in 0..count {
                    let b = self.pick(ALPHABET);
                    bytes.insert(at, b);
                }
            }
            // Bytes deleted.
            3 if len > 0 => {
                let at = self.below(len);
                let count = (1 + self.below(4)).min(len - at);
                bytes.drain(at..at + count);
            }
            // Truncated.
            4 => bytes.truncate(self.below(len + 1)),
            // A line duplicated, dropped, or two lines swapped.
            5..=7 => {
                let mut lines = split_lines(bytes);
                if !lines.is_empty() {
                    let i = self.below(lines.len());
                    let j = self.below(lines.len());
                    match self.below(3) {
                        0 => {
                            let copy = lines[i].clone();
                            lines.insert(j, copy);
                        }
                        1 => {
                            lines.remove(i);
                        }
                        _ => lines.swap(i, j),
                    }
                    *bytes = lines.concat();
                }
            }
            // A token replaced by an odd one, or two tokens swapped.
            8..=10 => {
                let tokens = token_spans(bytes);
                if !tokens.is_empty() {
                    let (start, end) = self.pick(&tokens);
                    if self.below(3) == 0 {
                        let (s2, e2) = self.pick(&tokens);
                        swap_spans(bytes, (start, end), (s2, e2));
                    } else {
                        let odd = self.pick(ODD_TOKENS).as_bytes().to_vec();
                        bytes.splice(start..end, odd);
                    }
                }
            }
            // Line ends changed: all of them, or one.
            11 => {
                let text = std::mem::take(bytes);
                let replacement: &[u8] = self.pick(&[&b"\r\n"[..], b"\r", b"\n\n", b" \n", b"\t\r\n"]);
                let all = self.below(2) == 0;
                let mut done = false;
                for &b in &text {
                    if b == b'\n' && (all || (!done && self.below(3) == 0)) {
                        bytes.extend_from_slice(replacement);
                        done = true;
                    } else {
                        bytes.push(b);
                    }
                }
            }
            // A column added at the end of a line or removed.
            12 | 13 => {
                let mut lines = split_lines(bytes);
                if !lines.is_empty() {
                    let i = self.below(lines.len());
                    let line = &mut lines[i];
                    let body = line.iter().take_while(|&&b| b != b'\n' && b != b'\r').count();
                    if self.below(2) == 0 {
                        let extra: &[u8] = self.pick(&[&b" 1"[..], b"\t{}", b",1", b" 2.5", b" x", b",", b" "]);
                        for (k, &b) in extra.iter().enumerate() {
                            line.insert(body + k, b);
                        }
                    } else if let Some(cut) = line[..body].iter().rposition(|&b| b == b' ' || b == b'\t' || b == b',') {
                        line.drain(cut..body);
                    }
                    *bytes = lines.concat();
                }
            }
            // A comment, a blank line or a byte order mark.
            14 => {
                let lines = split_lines(bytes);
                let at = self.below(lines.len() + 1);
                let insert: &[u8] = self.pick(&[&b"# note\n"[..], b"% note\n", b"\n", b"  \t\n", b"#\n"]);
                let mut out: Vec<u8> = lines[..at].concat();
                out.extend_from_slice(insert);
                out.extend_from_slice(&lines[at..].concat());
                *bytes = out;
            }
            _ => {
                if self.below(2) == 0 {
                    bytes.splice(0..0, b"\xEF\xBB\xBF".iter().copied());
                } else {
                    bytes.extend_from_slice(b"\n");
                }
            }
        }
    }

    /// A binary mutant: bytes flipped, runs overwritten with interesting values, truncated or
    /// extended; header fields (8-byte words below `header`) set to odd numbers.
    pub fn binary_mutant(&mut self, seed: &[u8], header: usize) -> Vec<u8> {
        let mut bytes = seed.to_vec();
        let rounds = 1 + self.below(3);
        for _ in 0..rounds {
            let len = bytes.len();
            match self.below(6) {
                0 | 1 if len > 0 => {
                    let at = self.below(len);
                    bytes[at] ^= 1 << self.below(8);
                }
                2 if len >= 8 => {
                    let word = self.below(header.min(len) / 4) * 4;
                    let values: [u64; 10] = [0, 1, 2, 3, 7, 8, 0xff, 1 << 32, u64::MAX, u32::MAX as u64 + 1];
                    let value = self.pick(&values);
                    let width = if self.below(2) == 0 { 4 } else { 8 };
                    let end = (word + width).min(len);
                    bytes[word..end].copy_from_slice(&value.to_le_bytes()[..end - word]);
                }
                3 if len > 0 => {
                    let at = self.below(len);
                    let word = (at / 4 * 4).min(len.saturating_sub(4));
                    let value = [0u32, 1, u32::MAX, 0x7fc0_0000, 0xff80_0000, 0xbf00_0000][self.below(6)];
                    let end = (word + 4).min(len);
                    bytes[word..end].copy_from_slice(&value.to_le_bytes()[..end - word]);
                }
                4 => bytes.truncate(self.below(len + 1)),
                _ => {
                    let count = 1 + self.below(16);
                    for _ in 0..count {
                        let b = self.below(256) as u8;
                        bytes.push(b);
                    }
                }
            }
        }
        bytes
    }

    /// `seed` (a Matrix Market file) with odd numbers on its size line: the vertex count
    /// twice (square) or two different ones, and an entry count.
    pub fn size_line(&mut self, seed: &[u8]) -> Vec<u8> {
        const COUNTS: [&str; 14] = [
            "0",
            "1",
            "3",
            "4",
            "5",
            "1000",
            "1048576",
            "4194304",
            "4194305",
            "5000000",
            "3000000000",
            "4294967295",
            "4294967296",
            "18446744073709551615",
        ];
        let mut lines = split_lines(seed);
        let Some(at) = lines.iter().skip(1).position(|l| !l.starts_with(b"%")).map(|i| i + 1) else {
            return seed.to_vec();
        };
        let rows = self.pick(&COUNTS);
        let columns = if self.one_in(4) { self.pick(&COUNTS) } else { rows };
        let entries = self.pick(&["0", "1", "2", "4", "5", "6", "1000000", "18446744073709551615"]);
        lines[at] = format!("{rows} {columns} {entries}\n").into_bytes();
        lines.concat()
    }

    /// Whether to do something with probability `1 / n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// The lines of `bytes`, each with its line end.
fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            lines.push(bytes[start..=i].to_vec());
            start = i + 1;
        }
    }
    if start < bytes.len() {
        lines.push(bytes[start..].to_vec());
    }
    lines
}

/// Byte spans of the tokens (runs of bytes other than blanks, commas and line ends).
fn token_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let separator = |b: u8| matches!(b, b' ' | b'\t' | b',' | b'\n' | b'\r');
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if separator(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !separator(bytes[i]) {
            i += 1;
        }
        spans.push((start, i));
    }
    spans
}

/// Swaps two non-overlapping spans (nothing when they overlap).
fn swap_spans(bytes: &mut Vec<u8>, a: (usize, usize), b: (usize, usize)) {
    let (first, second) = if a.0 <= b.0 { (a, b) } else { (b, a) };
    if first.1 > second.0 {
        return;
    }
    let mut out = bytes[..first.0].to_vec();
    out.extend_from_slice(&bytes[second.0..second.1]);
    out.extend_from_slice(&bytes[first.1..second.0]);
    out.extend_from_slice(&bytes[first.0..first.1]);
    out.extend_from_slice(&bytes[second.1..]);
    *bytes = out;
}
