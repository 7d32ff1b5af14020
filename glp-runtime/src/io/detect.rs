//! Format detection when [`LoadOptions::format`](super::LoadOptions::format) is not given.
//!
//! The rules are listed in the [`io`](super) module docs. Rule 1 (LDBC `.v`/`.e` siblings)
//! needs the file system and is applied by [`super::load_graph`]; this module applies rules 2
//! to 7, which look only at the name and the decompressed content, so that they work for
//! bytes without a file too.

use super::glpg;
use super::text::Text;
use super::Format;
use std::path::Path;

/// The name of `path` in lower case without a compression suffix (`.gz`, `.zst`, `.xz`,
/// `.bz2`).
pub(crate) fn plain_name(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    strip_compression_suffix(&name).to_string()
}

/// `name` without a compression suffix.
pub(crate) fn strip_compression_suffix(name: &str) -> &str {
    COMPRESSION_SUFFIXES.iter().find_map(|suffix| name.strip_suffix(suffix)).unwrap_or(name)
}

/// File-name suffixes of compressed files, dropped before the name's extension is looked at.
pub(crate) const COMPRESSION_SUFFIXES: [&str; 5] = [".gz", ".zst", ".zstd", ".xz", ".bz2"];

/// Detects the format of `content` named `name` (rules 2 to 7).
pub(crate) fn detect(name: &Path, content: &[u8]) -> Format {
    let text = Text::new(name, content);
    let content = &content[text.content_start()..];
    if glpg::has_magic(content) {
        return Format::Glpg;
    }
    if content.len() >= 14 && content[..14].eq_ignore_ascii_case(b"%%MatrixMarket") {
        return Format::MatrixMarket;
    }
    let plain = plain_name(name);
    let by_name = [(".glpg", Format::Glpg), (".mtx", Format::MatrixMarket), (".csv", Format::Csv)]
        .into_iter()
        .chain([("-input", Format::LdbcAdjacency), (".adj", Format::LdbcAdjacency)])
        .find(|(suffix, _)| plain.ends_with(suffix));
    if let Some((_, format)) = by_name {
        return format;
    }
    // A comma inside a trailing data dict (`0 1 {'weight': 1, 'color': 'red'}`) does not make
    // a CSV file.
    let first = text.lines().next_data();
    let comma_before_dict = |line: &[u8]| line.iter().take_while(|&&b| b != b'{').any(|&b| b == b',');
    if first.is_some_and(|line| comma_before_dict(line.text())) {
        return Format::Csv;
    }
    Format::EdgeList
}
