//! Strict reference readers, written from the formats' documented rules with std only (and
//! the decompression and checksum crates): single-threaded, line by line, no fast paths.
//! Each returns the vertex set and the edges a loader must produce for an input it accepts,
//! or `Err` with the rule the input breaks. They share nothing with the code under test.

use glp_runtime::community::{Cover, GroundTruth, UNLABELLED};
use glp_runtime::graph::VertexIds;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

/// The memory budget the mutation tests run under (`GLP_MEMORY_LIMIT=64M`).
pub const BUDGET: u64 = 64 << 20;

/// One edge in original ids: source, target, weight bits.
pub type Edge = (u64, u64, Option<u32>);

/// What a graph holds: runs of consecutive vertex ids `(first, count)` and the sorted edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    pub vertices: Vec<(u64, u64)>,
    pub edges: Vec<Edge>,
}

type Verdict<T> = Result<T, String>;

/// Runs of consecutive ids in the sorted, distinct `ids`.
pub fn runs(ids: impl IntoIterator<Item = u64>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for id in ids {
        match out.last_mut() {
            Some((first, count)) if *first + *count == id => *count += 1,
            _ => out.push((id, 1)),
        }
    }
    out
}

fn content(vertices: Vec<(u64, u64)>, mut edges: Vec<Edge>) -> Content {
    edges.sort_unstable();
    Content { vertices, edges }
}

// ---- text ----

/// Lines after a UTF-8 byte order mark, split at `\r\n`, `\r` and `\n`.
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                out.push(&bytes[start..i]);
                start = i + 1;
            }
            b'\r' => {
                out.push(&bytes[start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn first_visible(line: &[u8]) -> Option<u8> {
    line.iter().copied().find(|&b| !blank(b))
}

fn is_data(line: &[u8]) -> bool {
    first_visible(line).is_some_and(|b| b != b'#' && b != b'%')
}

fn is_comment(line: &[u8]) -> bool {
    matches!(first_visible(line), Some(b'#' | b'%'))
}

fn data_lines(bytes: &[u8]) -> Vec<&[u8]> {
    lines(bytes).into_iter().filter(|l| is_data(l)).collect()
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !blank(*first) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !blank(*last) {
            break;
        }
        s = rest;
    }
    s
}

/// Whitespace fields.
fn tokens(line: &[u8]) -> Vec<&[u8]> {
    line.split(|&b| blank(b)).filter(|t| !t.is_empty()).collect()
}

/// CSV fields, trimmed (empty ones kept).
fn csv_fields(line: &[u8]) -> Vec<&[u8]> {
    line.split(|&b| b == b',').map(trim).collect()
}

/// A vertex id: ASCII digits only, below 2^64.
fn id(token: &[u8]) -> Verdict<u64> {
    if token.is_empty() || !token.iter().all(u8::is_ascii_digit) {
        return Err(format!("not an id: {:?}", String::from_utf8_lossy(token)));
    }
    token
        .iter()
        .try_fold(0u64, |acc, &d| acc.checked_mul(10)?.checked_add((d - b'0') as u64))
        .ok_or("id overflow".into())
}

/// A finite f32 (Rust's float syntax).
fn weight(token: &[u8]) -> Verdict<f32> {
    let w: f32 = std::str::from_utf8(token).ok().and_then(|s| s.parse().ok()).ok_or("not a number")?;
    if w.is_finite() {
        Ok(w)
    } else {
        Err("non-finite weight".into())
    }
}

fn numeric(token: &[u8]) -> bool {
    std::str::from_utf8(token).is_ok_and(|s| s.parse::<f64>().is_ok())
}

// ---- data dicts ----

/// The `weight` of a data dict (the rest of a line from its `{`), per the documented grammar:
/// `{` [entry (`,` entry)* [`,`]] `}` and nothing after; an entry is `key : value`; a value
/// is a quoted string, a balanced bracket group, or a bare word optionally followed by a
/// bracket group; the `weight` key's value is a number or a call of one.
fn dict_weight(text: &[u8]) -> Verdict<Option<f32>> {
    let mut i = 0;
    let skip_blanks = |i: &mut usize| {
        while *i < text.len() && blank(text[*i]) {
            *i += 1;
        }
    };
    if text.first() != Some(&b'{') {
        return Err("no dict".into());
    }
    i += 1;
    skip_blanks(&mut i);
    let mut weight = None;
    let mut seen_weight = false;
    if text.get(i) != Some(&b'}') {
        loop {
            let key = dict_value(text, &mut i)?;
            skip_blanks(&mut i);
            if text.get(i) != Some(&b':') {
                return Err("no colon".into());
            }
            i += 1;
            skip_blanks(&mut i);
            let value = dict_value(text, &mut i)?;
            if key == b"'weight'" || key == b"\"weight\"" {
                if seen_weight {
                    return Err("weight twice".into());
                }
                seen_weight = true;
                weight = Some(dict_number(value)?);
            }
            skip_blanks(&mut i);
            match text.get(i) {
                Some(b',') => {
                    i += 1;
                    skip_blanks(&mut i);
                    if text.get(i) == Some(&b'}') {
                        break;
                    }
                }
                Some(b'}') => break,
                _ => return Err("no comma".into()),
            }
        }
    }
    i += 1; // the closing brace
    skip_blanks(&mut i);
    if i != text.len() {
        return Err("text after the dict".into());
    }
    Ok(weight)
}

fn dict_value<'a>(text: &'a [u8], i: &mut usize) -> Verdict<&'a [u8]> {
    let start = *i;
    match text.get(*i) {
        Some(b'\'' | b'"') => skip_string(text, i)?,
        Some(b'[' | b'(' | b'{') => skip_group(text, i)?,
        _ => {
            while *i < text.len() && !blank(text[*i]) && !b",:}])([{'\"".contains(&text[*i]) {
                *i += 1;
            }
            if *i == start {
                return Err("no value".into());
            }
            if text.get(*i) == Some(&b'(') {
                skip_group(text, i)?;
            }
        }
    }
    Ok(&text[start..*i])
}

fn skip_string(text: &[u8], i: &mut usize) -> Verdict<()> {
    let quote = text[*i];
    *i += 1;
    while *i < text.len() {
        let b = text[*i];
        *i += if b == b'\\' { 2 } else { 1 };
        if b == quote {
            return Ok(());
        }
    }
    Err("unterminated string".into())
}

fn skip_group(text: &[u8], i: &mut usize) -> Verdict<()> {
    let mut stack = Vec::new();
    while *i < text.len() {
        match text[*i] {
            b'\'' | b'"' => {
                skip_string(text, i)?;
                continue;
            }
            b'[' => stack.push(b']'),
            b'(' => stack.push(b')'),
            b'{' => stack.push(b'}'),
            close @ (b']' | b')' | b'}') if stack.pop() != Some(close) => return Err("unbalanced".into()),
            _ => {}
        }
        *i += 1;
        if stack.is_empty() {
            return Ok(());
        }
    }
    Err("unbalanced".into())
}

fn dict_number(value: &[u8]) -> Verdict<f32> {
    let inner = match (value.iter().position(|&b| b == b'('), value.last()) {
        (Some(open), Some(b')')) => &value[open + 1..value.len() - 1],
        _ => value,
    };
    let number = trim(inner);
    if number.is_empty() || !number.iter().all(|&b| b.is_ascii_alphanumeric() || b".+-_".contains(&b)) {
        return Err("weight is not a number".into());
    }
    weight(number)
}

// ---- edge lists ----

/// How every line of an edge list is read.
enum Schema {
    /// `fields` fields: source, target and weight at these positions.
    Fixed { fields: usize, source: usize, target: usize, weight: Option<usize> },
    /// `source target {dict}`, weighted or not.
    Dict { weighted: bool },
}

const SOURCE: [&str; 11] =
    ["source", "src", "from", "u", "id_1", "id1", "source_id", "src_id", "from_id", "node1", "node_1"];
const TARGET: [&str; 11] =
    ["target", "dst", "to", "v", "id_2", "id2", "target_id", "dst_id", "to_id", "node2", "node_2"];
const WEIGHT: [&str; 4] = ["weight", "w", "value", "edge_weight"];

fn unquote(name: &[u8]) -> &[u8] {
    if name.len() >= 2 && (name[0] == b'"' || name[0] == b'\'') && name[name.len() - 1] == name[0] {
        &name[1..name.len() - 1]
    } else {
        name
    }
}

fn header_schema(names: &[&[u8]]) -> Verdict<Schema> {
    let mut roles: [Option<usize>; 3] = [None; 3];
    for (i, name) in names.iter().enumerate() {
        let name = unquote(name);
        let role = [&SOURCE[..], &TARGET[..], &WEIGHT[..]]
            .iter()
            .position(|list| list.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(name)))
            .ok_or("unknown header name")?;
        if roles[role].replace(i).is_some() {
            return Err("a role named twice".into());
        }
    }
    match roles {
        [Some(source), Some(target), weight] => Ok(Schema::Fixed { fields: names.len(), source, target, weight }),
        _ => Err("no source or target column".into()),
    }
}

/// A line's source and target fields and the rest of it (trimmed; `None` when empty).
type TwoAndRest<'a> = (&'a [u8], &'a [u8], Option<&'a [u8]>);

/// Source, target and the rest of the line.
fn split_two(line: &[u8], csv: bool) -> Option<TwoAndRest<'_>> {
    if csv {
        let mut parts = line.splitn(3, |&b| b == b',');
        let (a, b, rest) = (parts.next()?, parts.next()?, parts.next());
        Some((trim(a), trim(b), rest.map(trim).filter(|r| !r.is_empty())))
    } else {
        let mut i = 0;
        let mut next = || {
            while i < line.len() && blank(line[i]) {
                i += 1;
            }
            let start = i;
            while i < line.len() && !blank(line[i]) {
                i += 1;
            }
            (start < i).then(|| &line[start..i])
        };
        let (a, b) = (next()?, next()?);
        let rest = trim(&line[i..]);
        Some((a, b, (!rest.is_empty()).then_some(rest)))
    }
}

/// An edge list: whitespace or CSV, as the format docs and the `columns` module state.
pub fn edge_list<'a>(bytes: &'a [u8], csv: bool, require_edges: bool) -> Verdict<Vec<Edge>> {
    let data = data_lines(bytes);
    let split = |line: &'a [u8]| if csv { csv_fields(line) } else { tokens(line) };
    let mut body = &data[..];
    let mut schema = None;
    if csv && !data.is_empty() {
        let first = split(data[0]);
        let header = first.iter().take(2).any(|t| !numeric(t));
        if header {
            schema = Some(header_schema(&first)?);
            body = &data[1..];
        }
    }
    let Some(&first) = body.first() else {
        return if require_edges { Err("no edges".into()) } else { Ok(Vec::new()) };
    };
    let schema = match schema {
        Some(schema) => schema,
        None => {
            let fields = split(first);
            if fields.len() >= 3 && fields[2].first() == Some(&b'{') {
                let (_, _, rest) = split_two(first, csv).ok_or("no dict")?;
                Schema::Dict { weighted: dict_weight(rest.ok_or("no dict")?)?.is_some() }
            } else {
                match fields.len() {
                    0..=2 => Schema::Fixed { fields: 2, source: 0, target: 1, weight: None },
                    3 if numeric(fields[2]) => Schema::Fixed { fields: 3, source: 0, target: 1, weight: Some(2) },
                    _ => return Err("a third column that is not a weight, or a fourth".into()),
                }
            }
        }
    };
    let mut edges = Vec::new();
    for &line in body {
        match schema {
            Schema::Fixed { fields, source, target, weight: w } => {
                let f = split(line);
                if f.len() != fields {
                    return Err("column count".into());
                }
                let (s, t) = (id(f[source])?, id(f[target])?);
                let w = w.map(|w| weight(f[w])).transpose()?;
                edges.push((s, t, w.map(f32::to_bits)));
            }
            Schema::Dict { weighted } => {
                let (a, b, rest) = split_two(line, csv).ok_or("missing column")?;
                let (s, t) = (id(a)?, id(b)?);
                let w = dict_weight(rest.ok_or("no dict")?)?;
                if w.is_some() != weighted {
                    return Err("dict weight presence differs".into());
                }
                edges.push((s, t, w.map(f32::to_bits)));
            }
        }
    }
    Ok(edges)
}

/// An edge list's graph: the ids that appear.
pub fn edge_list_graph(bytes: &[u8], csv: bool) -> Verdict<Content> {
    let edges = edge_list(bytes, csv, true)?;
    let ids: BTreeSet<u64> = edges.iter().flat_map(|&(s, t, _)| [s, t]).collect();
    Ok(content(runs(ids), edges))
}

// ---- Matrix Market ----

/// A Matrix Market coordinate file, read as symmetric, skew-symmetric or general.
pub fn matrix_market(bytes: &[u8]) -> Verdict<Content> {
    let all = lines(bytes);
    let banner = tokens(all.first().ok_or("empty")?);
    let word = |i: usize, w: &str| banner.get(i).is_some_and(|t| t.eq_ignore_ascii_case(w.as_bytes()));
    if banner.len() != 5 || !word(0, "%%MatrixMarket") || !word(1, "matrix") || !word(2, "coordinate") {
        return Err("banner".into());
    }
    let field = ["pattern", "integer", "real"].iter().position(|w| word(3, w)).ok_or("field")?;
    let symmetry = ["general", "symmetric", "skew-symmetric"].iter().position(|w| word(4, w)).ok_or("symmetry")?;
    let rest = &all[1..];
    let size_at = rest.iter().position(|l| is_data(l)).ok_or("no size line")?;
    let size = tokens(rest[size_at]);
    if size.len() != 3 {
        return Err("size line".into());
    }
    let (rows, columns, entries) = (id(size[0])?, id(size[1])?, id(size[2])?);
    if rows != columns || rows > u32::MAX as u64 {
        return Err("size".into());
    }
    // Bytes after the size line: find where it ends in the input.
    let body_len = bytes_after_line(bytes, rest[size_at]);
    if entries > (body_len as u64 + 1) / 4 {
        return Err("more entries than the bytes can hold".into());
    }
    if rows * 16 > BUDGET {
        return Err("vertices beyond the memory budget".into());
    }
    let mut edges = Vec::new();
    let mut found = 0u64;
    for line in rest[size_at + 1..].iter().filter(|l| is_data(l)) {
        let t = tokens(line);
        if t.len() != if field == 0 { 2 } else { 3 } {
            return Err("entry columns".into());
        }
        let (r, c) = (id(t[0])?, id(t[1])?);
        if r == 0 || c == 0 || r > rows || c > rows {
            return Err("index out of range".into());
        }
        let value = match field {
            0 => None,
            1 => Some(std::str::from_utf8(t[2]).ok().and_then(|s| s.parse::<i64>().ok()).ok_or("integer")? as f32),
            _ => Some(weight(t[2])?),
        };
        found += 1;
        edges.push((r, c, value.map(f32::to_bits)));
        match symmetry {
            1 if r != c => edges.push((c, r, value.map(f32::to_bits))),
            2 if r == c => return Err("skew diagonal".into()),
            2 => edges.push((c, r, value.map(|v| (-v).to_bits()))),
            _ => {}
        }
    }
    if found != entries {
        return Err("entry count".into());
    }
    Ok(content(if rows > 0 { vec![(1, rows)] } else { vec![] }, edges))
}

/// Bytes of `bytes` after the line `line` (a subslice of it) and its line end.
fn bytes_after_line(bytes: &[u8], line: &[u8]) -> usize {
    let end = line.as_ptr() as usize - bytes.as_ptr() as usize + line.len();
    let skip = match (bytes.get(end), bytes.get(end + 1)) {
        (Some(b'\r'), Some(b'\n')) => 2,
        (Some(b'\r' | b'\n'), _) => 1,
        _ => 0,
    };
    bytes.len() - end - skip
}

// ---- LDBC ----

/// An LDBC adjacency list.
pub fn adjacency(bytes: &[u8]) -> Verdict<Content> {
    let data = data_lines(bytes);
    if data.is_empty() {
        return Err("empty".into());
    }
    let mut ids = BTreeSet::new();
    let mut edges = Vec::new();
    for line in data {
        let t = tokens(line);
        let v = id(t[0])?;
        ids.insert(v);
        for n in &t[1..] {
            let n = id(n)?;
            ids.insert(n);
            edges.push((v, n, None));
        }
    }
    Ok(content(runs(ids), edges))
}

/// An LDBC `.v`/`.e` pair.
pub fn ldbc_pair(vertices: &[u8], edges: &[u8]) -> Verdict<Content> {
    let mut declared = BTreeSet::new();
    for line in data_lines(vertices) {
        let t = tokens(line);
        if t.len() != 1 {
            return Err("vertex line".into());
        }
        declared.insert(id(t[0])?);
    }
    if declared.is_empty() {
        return Err("no vertices".into());
    }
    let edges = edge_list(edges, false, false)?;
    if edges.iter().any(|(s, t, _)| !declared.contains(s) || !declared.contains(t)) {
        return Err("undeclared endpoint".into());
    }
    Ok(content(runs(declared), edges))
}

// ---- .glpg ----

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// A `.glpg` file, checked field by field as its layout table says.
pub fn glpg(b: &[u8]) -> Verdict<Content> {
    if b.len() < 64 || b[..8] != [0x89, b'G', b'L', b'P', b'G', 0x0d, 0x0a, 0x1a] || le32(b, 8) != 1 {
        return Err("header".into());
    }
    let (flags, n, m, first, payload) = (le32(b, 12), le64(b, 16), le64(b, 24), le64(b, 32), le64(b, 40));
    if flags > 7 || b[52..64].iter().any(|&x| x != 0) || n > u32::MAX as u64 {
        return Err("flags, reserved bytes or n".into());
    }
    let pad = |x: u128| x.div_ceil(8) * 8;
    let (n128, m128) = (n as u128, m as u128);
    let sizes = [
        (n128 + 1) * 8,
        pad(m128 * 4),
        if flags & 1 != 0 { pad(m128 * 4) } else { 0 },
        if flags & 4 != 0 { n128 * 8 } else { 0 },
    ];
    let total: u128 = sizes.iter().sum();
    if total != payload as u128 || b.len() as u128 != 64 + total {
        return Err("sizes".into());
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&b[..48]);
    crc.update(&b[64..]);
    if crc.finalize() != le32(b, 48) {
        return Err("checksum".into());
    }
    if payload > BUDGET {
        return Err("beyond the memory budget".into());
    }
    let (n, m) = (n as usize, m as usize);
    let offsets: Vec<u64> = (0..=n).map(|i| le64(b, 64 + 8 * i)).collect();
    let targets_at = 64 + sizes[0] as usize;
    let weights_at = targets_at + sizes[1] as usize;
    let ids_at = weights_at + sizes[2] as usize;
    if offsets[0] != 0 || offsets[n] != m as u64 || offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err("offsets".into());
    }
    let ids: Vec<u64> = if flags & 4 != 0 {
        let table: Vec<u64> = (0..n).map(|i| le64(b, ids_at + 8 * i)).collect();
        if table.windows(2).any(|w| w[0] >= w[1]) {
            return Err("id table order".into());
        }
        table
    } else {
        if n > 0 && first.checked_add(n as u64 - 1).is_none() {
            return Err("id range".into());
        }
        (0..n as u64).map(|i| first + i).collect()
    };
    let mut edges = Vec::new();
    for v in 0..n {
        let row: Vec<u32> = (offsets[v]..offsets[v + 1]).map(|e| le32(b, targets_at + 4 * e as usize)).collect();
        if row.iter().any(|&t| t as usize >= n) || row.windows(2).any(|w| w[0] > w[1]) {
            return Err("targets".into());
        }
        for (k, &t) in row.iter().enumerate() {
            let e = offsets[v] as usize + k;
            let w = (flags & 1 != 0).then(|| le32(b, weights_at + 4 * e));
            if w.is_some_and(|w| !f32::from_bits(w).is_finite()) {
                return Err("weight".into());
            }
            edges.push((ids[v], ids[t as usize], w));
        }
    }
    Ok(content(runs(ids), edges))
}

// ---- compression ----

/// The input layer: decompress by magic bytes (whole, every member), refuse the archives glp
/// does not read, pass plain bytes through.
pub fn decompress(bytes: &[u8]) -> Verdict<Vec<u8>> {
    let mut out = Vec::new();
    let result = if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut out)
    } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        zstd::stream::read::Decoder::new(bytes).and_then(|mut d| d.read_to_end(&mut out))
    } else if bytes.starts_with(b"\xfd7zXZ\x00") {
        lzma_rust2::XzReader::new(bytes, true).read_to_end(&mut out)
    } else if bytes.len() >= 4 && bytes.starts_with(b"BZh") && (b'1'..=b'9').contains(&bytes[3]) {
        bzip2::read::MultiBzDecoder::new(bytes).read_to_end(&mut out)
    } else {
        let unread: [&[u8]; 4] = [b"PK\x03\x04", b"7z\xbc\xaf\x27\x1c", b"\x04\x22\x4d\x18", b"LZIP"];
        if unread.iter().any(|magic| bytes.starts_with(magic)) {
            return Err("an archive glp does not read".into());
        }
        return Ok(bytes.to_vec());
    };
    result.map_err(|e| format!("stream: {e}"))?;
    if out.len() as u64 > BUDGET {
        return Err("beyond the memory budget".into());
    }
    Ok(out)
}

// ---- ground truth and seeds ----

/// Ground truth for a graph with vertex ids `ids`, its layout chosen by `name` and content as
/// the `truth` module's docs say.
pub fn ground_truth(name: &str, bytes: &[u8], ids: &VertexIds) -> Verdict<(GroundTruth, u64)> {
    let data = data_lines(bytes);
    if data.is_empty() {
        return Err("empty".into());
    }
    if name.contains(".cmty") {
        let mut cover = Vec::new();
        let mut unknown = 0;
        for line in data {
            let mut members = BTreeSet::new();
            for t in tokens(line) {
                match ids.dense(id(t)?) {
                    Some(v) => {
                        members.insert(v);
                    }
                    None => unknown += 1,
                }
            }
            if !members.is_empty() {
                cover.push(members.into_iter().collect());
            }
        }
        return Ok((GroundTruth::Cover(Cover { communities: cover }), unknown));
    }
    if name.ends_with(".csv") || data[0].contains(&b',') {
        let names = csv_fields(data[0]);
        if names.len() < 2 || names.iter().all(|n| numeric(n)) {
            return Err("header".into());
        }
        let find = |w: &str| names.iter().position(|n| n.eq_ignore_ascii_case(w.as_bytes()));
        let (idc, labelc) = (find("id").unwrap_or(0), find("target").unwrap_or(names.len() - 1));
        if idc == labelc {
            return Err("same column".into());
        }
        let mut assignments = Vec::new();
        let mut unknown = 0;
        for line in &data[1..] {
            let f = csv_fields(line);
            if f.len() != names.len() {
                return Err("row length".into());
            }
            let v = id(f[idc])?;
            if f[labelc].is_empty() {
                return Err("empty label".into());
            }
            match ids.dense(v) {
                Some(v) => assignments.push((v, f[labelc])),
                None => unknown += 1,
            }
        }
        return Ok((GroundTruth::Partition(partition(ids, &assignments)?), unknown));
    }
    let mut assignments = Vec::new();
    let mut unknown = 0;
    let mut several = false;
    for line in &data {
        let t = tokens(line);
        let v = id(t[0])?;
        let dense = ids.dense(v);
        if dense.is_none() {
            unknown += 1;
        }
        several |= t.len() > 2;
        if let Some(v) = dense {
            assignments.extend(t[1..].iter().map(|&label| (v, label)));
        }
    }
    let declared = lines(bytes)
        .into_iter()
        .take_while(|l| !is_data(l))
        .any(|l| is_comment(l) && l.to_ascii_lowercase().windows(11).any(|w| w == b"multi-label"));
    if several || declared {
        let codes = codes(&assignments);
        let distinct: BTreeSet<u32> = assignments.iter().map(|a| codes(a.1)).collect();
        let mut communities: BTreeMap<u32, BTreeSet<u32>> =
            distinct.into_iter().map(|c| (c, BTreeSet::new())).collect();
        for &(v, label) in &assignments {
            communities.get_mut(&codes(label)).unwrap().insert(v);
        }
        let cover = communities.into_values().map(|m| m.into_iter().collect()).collect();
        return Ok((GroundTruth::Cover(Cover { communities: cover }), unknown));
    }
    Ok((GroundTruth::Partition(partition(ids, &assignments)?), unknown))
}

/// Label codes: the integer when every label is digits below `u32::MAX`, else the rank of
/// the label's text among the distinct texts.
fn codes<'a>(assignments: &[(u32, &'a [u8])]) -> impl Fn(&[u8]) -> u32 + 'a {
    let integer = |l: &[u8]| -> Option<u32> {
        if l.is_empty() || !l.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(l).ok()?.parse::<u32>().ok().filter(|&v| v < UNLABELLED)
    };
    let numeric = assignments.iter().all(|a| integer(a.1).is_some());
    let texts: Vec<&'a [u8]> = assignments.iter().map(|a| a.1).collect::<BTreeSet<_>>().into_iter().collect();
    move |l: &[u8]| {
        if numeric {
            integer(l).unwrap()
        } else {
            texts.iter().position(|t| *t == l).unwrap() as u32
        }
    }
}

fn partition(ids: &VertexIds, assignments: &[(u32, &[u8])]) -> Verdict<Vec<u32>> {
    let codes = codes(assignments);
    let mut labels = vec![None; ids.len()];
    for &(v, label) in assignments {
        let code = codes(label);
        match labels[v as usize] {
            Some(c) if c != code => return Err("two labels for one vertex".into()),
            _ => labels[v as usize] = Some(code),
        }
    }
    Ok(labels.into_iter().map(|l| l.unwrap_or(UNLABELLED)).collect())
}

/// Seeds: `vertex label` lines, strict.
pub fn seeds(bytes: &[u8], ids: &VertexIds) -> Verdict<Vec<u32>> {
    let mut given: BTreeMap<u32, u64> = BTreeMap::new();
    let data = data_lines(bytes);
    if data.is_empty() {
        return Err("empty".into());
    }
    for line in data {
        let t = tokens(line);
        if t.len() != 2 {
            return Err("columns".into());
        }
        let (v, label) = (id(t[0])?, id(t[1])?);
        let v = ids.dense(v).ok_or("unknown vertex")?;
        if given.insert(v, label).is_some_and(|earlier| earlier != label) {
            return Err("two labels".into());
        }
    }
    // Each file label becomes the smallest dense vertex carrying it.
    let mut smallest: BTreeMap<u64, u32> = BTreeMap::new();
    for (&v, &label) in &given {
        smallest.entry(label).or_insert(v);
    }
    Ok((0..ids.len() as u32).map(|v| given.get(&v).map_or(UNLABELLED, |l| smallest[l])).collect())
}
