//! The test graphs and expected outputs: where a file is, and its bytes.
//!
//! A name is looked up in the repository's `data/` folder first, then in the folder that
//! `GLP_DATA_DIR` names (larger data a user adds; on a GPU machine that received the
//! repository without its build, the copy of `data/` that travelled with it). Names are
//! paths relative to those folders (`lfr/LFR_N50000_ad5_mc50_mu0.3.edges.gz`).

use crate::switch::{self, Need};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The variable naming the folder searched after the repository's.
pub const DATA_DIR_VARIABLE: &str = "GLP_DATA_DIR";

/// The repository's data folder (as this crate was compiled).
pub fn repository_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

/// Where `name` is: the repository's folder first, then `extra` (the `GLP_DATA_DIR` folder);
/// `None` when it is in neither.
pub fn locate(name: &str, repository: &Path, extra: Option<&Path>) -> Option<PathBuf> {
    std::iter::once(repository).chain(extra).map(|dir| dir.join(name)).find(|path| path.exists())
}

/// `name` in the repository's folder or `GLP_DATA_DIR`.
fn find(name: &str) -> Option<PathBuf> {
    let extra = std::env::var_os(DATA_DIR_VARIABLE).map(PathBuf::from);
    locate(name, &repository_dir(), extra.as_deref())
}

/// A data file the tests need: a file of the repository's `data/` folder is always there, so
/// a missing one fails the test with what to do.
pub fn path(name: &str) -> PathBuf {
    find(name).unwrap_or_else(|| {
        panic!(
            "the test data file `{name}` is neither in the repository's data folder ({}) nor in {DATA_DIR_VARIABLE}: \
             the checkout is incomplete, or the file is optional and the test should use data::path_or_skip",
            repository_dir().display()
        )
    })
}

/// An optional data file (larger than the repository keeps): its path, or `None` after a
/// skip message naming the file and `where_to_get` it (`GLP_REQUIRE_DATA=1` fails instead).
pub fn path_or_skip(test: &str, name: &str, where_to_get: &str) -> Option<PathBuf> {
    let found = find(name);
    if found.is_none() {
        let why = format!(
            "`{name}` is not in the repository's data folder nor in {DATA_DIR_VARIABLE} (get it from {where_to_get})"
        );
        switch::skip(test, Need::Data, &why);
    }
    found
}

/// The bytes of a data file, decompressed when they are gzip (`1f 8b`) or xz (`fd 37 7a 58 5a
/// 00`), for tests that parse a file independently of glp's readers.
pub fn read(name: &str) -> Vec<u8> {
    let path = path(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    decompress(&bytes)
}

/// `bytes`, decompressed when they start like a gzip or xz stream.
pub fn decompress(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut out).expect("a gzip stream");
    } else if bytes.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        lzma_rust2::XzReader::new(bytes, true).read_to_end(&mut out).expect("an xz stream");
    } else {
        out = bytes.to_vec();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_comes_before_the_extra_folder() {
        let repository = std::env::temp_dir().join(format!("glp-testkit-repo-{}", std::process::id()));
        let extra = std::env::temp_dir().join(format!("glp-testkit-extra-{}", std::process::id()));
        for dir in [&repository, &extra] {
            std::fs::create_dir_all(dir.join("sub")).unwrap();
        }
        std::fs::write(repository.join("both.txt"), "repository").unwrap();
        std::fs::write(extra.join("both.txt"), "extra").unwrap();
        std::fs::write(extra.join("sub/only-extra.txt"), "extra").unwrap();
        assert_eq!(locate("both.txt", &repository, Some(&extra)), Some(repository.join("both.txt")));
        assert_eq!(locate("sub/only-extra.txt", &repository, Some(&extra)), Some(extra.join("sub/only-extra.txt")));
        assert_eq!(locate("sub/only-extra.txt", &repository, None), None);
        assert_eq!(locate("neither.txt", &repository, Some(&extra)), None);
        for dir in [&repository, &extra] {
            std::fs::remove_dir_all(dir).unwrap();
        }
    }

    #[test]
    fn compressed_bytes_are_read_back_whole() {
        let text = b"0 1\n1 2\n".repeat(1000);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, &text).unwrap();
        assert_eq!(decompress(&gz.finish().unwrap()), text);
        assert_eq!(decompress(&text), text);
    }
}
