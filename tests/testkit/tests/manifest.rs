//! The data folder's manifest against the folder: every file it lists is there with the
//! SHA-256 it gives, and every file there is listed.

use glp_testkit::data::repository_dir;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// `file -> SHA-256` of every table row of the manifest whose first cell is a backquoted path
/// and whose last cell is 64 hexadecimal digits.
fn manifest_entries(text: &str) -> BTreeMap<String, String> {
    let mut entries = BTreeMap::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
        let (Some(first), Some(last)) = (cells.first(), cells.last()) else { continue };
        let Some(file) = first.strip_prefix('`').and_then(|f| f.strip_suffix('`')) else { continue };
        if last.len() == 64 && last.bytes().all(|b| b.is_ascii_hexdigit()) {
            let previous = entries.insert(file.to_string(), last.to_ascii_lowercase());
            assert!(previous.is_none(), "{file} is listed twice");
        }
    }
    entries
}

/// Every file below `dir`, as a path relative to `root` with `/` separators.
fn files_below(root: &Path, dir: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_below(root, &path, found);
        } else {
            let relative = path.strip_prefix(root).unwrap();
            found.push(relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"));
        }
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_data_file_is_listed_with_its_checksum() {
    let dir = repository_dir();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.md")).unwrap();
    let entries = manifest_entries(&manifest);
    assert!(entries.len() > 30, "the manifest lists {} files", entries.len());
    let mut present = Vec::new();
    files_below(&dir, &dir, &mut present);
    present.retain(|f| f != "MANIFEST.md");
    let unlisted: Vec<&String> = present.iter().filter(|f| !entries.contains_key(*f)).collect();
    assert!(unlisted.is_empty(), "files in data/ missing from its MANIFEST.md: {unlisted:?}");
    for (file, expected) in &entries {
        let bytes = std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("{file}, listed in MANIFEST.md: {e}"));
        assert_eq!(&sha256_hex(&bytes), expected, "{file}: its SHA-256 differs from MANIFEST.md's");
    }
}

#[test]
fn manifest_rows_are_read_as_written() {
    let text = "| file | SHA-256 |\n|---|---|\n| `a/b.txt` | origin | ".to_string()
        + &"AB".repeat(32)
        + " |\n| `c` | not a checksum |\n| plain | "
        + &"0".repeat(64)
        + " |\n";
    let entries = manifest_entries(&text);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries["a/b.txt"], "ab".repeat(32));
    // The standard example of FIPS 180-4.
    assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
