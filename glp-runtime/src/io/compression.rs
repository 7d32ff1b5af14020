//! Compressed inputs: recognised by their magic bytes, decompressed whole into memory.
//!
//! | compression | magic bytes | decoder |
//! |---|---|---|
//! | gzip | `1f 8b` | [`flate2::read::MultiGzDecoder`] (every member of `cat a.gz b.gz`, `pigz`, `bgzip`) |
//! | zstd | `28 b5 2f fd` | [`zstd::stream::read::Decoder`] (every frame) |
//! | xz | `fd 37 7a 58 5a 00` | [`lzma_rust2::XzReader`] (every stream) |
//! | bzip2 | `BZh1`..`BZh9` | [`bzip2::read::MultiBzDecoder`] (every stream) |
//!
//! The name of a file plays no part: a compressed file without its suffix and a plain file
//! with one both read correctly. Archives and compressors glp does not read (zip, 7z, lz4,
//! lzip) are recognised too and refused with an error that names them and says how to
//! unpack them, instead of being parsed as text.
//!
//! The whole stream is decompressed into memory because the parsers split their input into
//! chunks for parallel parsing and so need random access. The output is bounded by the memory
//! budget ([`crate::memory::available_memory`]): a stream that expands beyond it (a
//! decompression bomb, or simply an input too large for the machine) is an error naming the
//! budget, never a process killed for memory. The xz decoder's dictionary is held to the same
//! budget. A corrupt or truncated stream is an error, never a shorter input.

use super::input::read_bounded;
use super::progress::Progress;
use crate::error::{Error, Result};
use crate::memory::available_memory;
use std::path::Path;

/// A compression glp decompresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    Gzip,
    Zstd,
    Xz,
    Bzip2,
}

impl Compression {
    /// The compression `bytes` start with, if any glp reads.
    pub(crate) fn detect(bytes: &[u8]) -> Option<Compression> {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            Some(Compression::Gzip)
        } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Compression::Zstd)
        } else if bytes.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Some(Compression::Xz)
        } else if bytes.len() >= 4 && bytes.starts_with(b"BZh") && (b'1'..=b'9').contains(&bytes[3]) {
            Some(Compression::Bzip2)
        } else {
            None
        }
    }

    /// The compression's usual name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
        }
    }
}

/// Archives and compressions recognised but not read: (magic, name, how to unpack).
const UNREAD: [(&[u8], &str, &str); 4] = [
    (b"PK\x03\x04", "a zip archive", "unzip it"),
    (b"7z\xbc\xaf\x27\x1c", "a 7z archive", "extract it with `7z x`"),
    (b"\x04\x22\x4d\x18", "lz4-compressed", "decompress it with `lz4 -d`"),
    (b"LZIP", "lzip-compressed", "decompress it with `lzip -d`"),
];

/// Fails when `bytes` start like an archive or a compression glp does not read.
pub(crate) fn refuse_unread(name: &Path, bytes: &[u8]) -> Result<()> {
    match UNREAD.iter().find(|(magic, _, _)| bytes.starts_with(magic)) {
        Some((_, what, how)) => Err(Error::format(
            name,
            format!("the file is {what}, which glp does not read: {how} first (glp reads plain text, gzip, zstd, xz and bzip2)"),
        )),
        None => Ok(()),
    }
}

/// Decompresses `compressed` (a whole `compression` stream, possibly of several members),
/// within the memory budget.
pub(crate) fn decompress(
    name: &Path,
    compression: Compression,
    compressed: &[u8],
    progress: &Progress,
) -> Result<Vec<u8>> {
    progress.bytes_stage("decompressing", compressed.len() as u64);
    let limit = available_memory()?;
    let hint = size_hint(compression, compressed);
    let source = progress.wrap_read(compressed);
    let what = format!("decompressing this {} stream", compression.name());
    let corrupt =
        |e: std::io::Error| Error::format(name, format!("corrupt or truncated {} stream: {e}", compression.name()));
    match compression {
        Compression::Gzip => read_bounded(name, &what, flate2::read::MultiGzDecoder::new(source), hint, limit, corrupt),
        Compression::Zstd => {
            let mut decoder = zstd::stream::read::Decoder::new(source).map_err(corrupt)?;
            // The window a frame asks for (up to 2^31 bytes with `--long=31`) is held to the
            // budget too.
            if let Some(bytes) = limit {
                let log = (63 - bytes.max(1).leading_zeros()).clamp(10, 31);
                decoder.window_log_max(log).map_err(corrupt)?;
            }
            read_bounded(name, &what, decoder, hint, limit, corrupt)
        }
        Compression::Xz => {
            // The dictionary a stream asks for counts against the budget too (in KiB).
            let dictionary_limit = limit.map_or(u32::MAX, |bytes| (bytes / 1024).min(u32::MAX as u64 - 1) as u32);
            let decoder = lzma_rust2::XzReader::new_mem_limit(source, true, dictionary_limit);
            read_bounded(name, &what, decoder, hint, limit, corrupt)
        }
        Compression::Bzip2 => read_bounded(name, &what, bzip2::read::MultiBzDecoder::new(source), hint, limit, corrupt),
    }
}

/// A capacity guess for the output: gzip's last member records its size modulo 2^32 in its
/// trailer (right for the usual single-member file below 4 GiB, harmless otherwise); the other
/// formats get a ratio typical of text. Never more than 64 times the input.
fn size_hint(compression: Compression, compressed: &[u8]) -> usize {
    let bound = compressed.len().saturating_mul(64);
    let guess = match compression {
        Compression::Gzip => compressed
            .len()
            .checked_sub(4)
            .map(|at| u32::from_le_bytes([compressed[at], compressed[at + 1], compressed[at + 2], compressed[at + 3]]))
            .map_or(0, |size| size as usize),
        _ => compressed.len().saturating_mul(4),
    };
    guess.min(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes_name_the_compression() {
        assert_eq!(Compression::detect(b"\x1f\x8b\x08"), Some(Compression::Gzip));
        assert_eq!(Compression::detect(b"\x28\xb5\x2f\xfd\x00"), Some(Compression::Zstd));
        assert_eq!(Compression::detect(b"\xfd7zXZ\x00\x00"), Some(Compression::Xz));
        assert_eq!(Compression::detect(b"BZh91AY&SY"), Some(Compression::Bzip2));
        assert_eq!(Compression::detect(b"BZh0"), None);
        assert_eq!(Compression::detect(b"BZ"), None);
        assert_eq!(Compression::detect(b"1 2\n"), None);
    }

    #[test]
    fn archives_are_refused_by_name() {
        let error = refuse_unread(Path::new("g.zip"), b"PK\x03\x04rest").unwrap_err().to_string();
        assert!(error.contains("zip archive") && error.contains("unzip"), "{error}");
        assert!(refuse_unread(Path::new("g"), b"0 1\n").is_ok());
    }
}
