//! Getting an input's bytes into memory: memory-mapped plain files, fully decompressed gzip.
//!
//! Gzip is recognised by its magic bytes `1f 8b`, never by the file name, so a compressed file
//! without `.gz` and a plain file named `.gz` both read correctly. Decompression uses
//! [`flate2::read::MultiGzDecoder`], which reads every member of a multi-member stream (what
//! `cat a.gz b.gz` and parallel compressors such as `pigz`/`bgzip` produce); a plain decoder
//! would silently stop after the first member. The whole stream is decompressed into memory
//! because the parsers split their input into chunks for parallel parsing and so need random
//! access; a corrupt or truncated stream is an error, never a shorter input.
//!
//! Plain files are memory-mapped: the parsers then read the page cache directly, with no copy.
//! Inputs that cannot be mapped (pipes, special files, empty files) are read instead.

use super::progress::Progress;
use crate::error::{Error, Result};
use flate2::read::MultiGzDecoder;
use memmap2::{Mmap, MmapOptions};
use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;

/// The two magic bytes that start every gzip member.
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The bytes of an input file, decompressed when it was gzip.
#[derive(Debug)]
pub(crate) enum Input {
    /// A memory-mapped plain file.
    Mapped(Mmap),
    /// Bytes read or decompressed into memory.
    Owned(Vec<u8>),
}

impl Deref for Input {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Input::Mapped(map) => map,
            Input::Owned(bytes) => bytes,
        }
    }
}

/// Whether `bytes` start like a gzip stream.
pub(crate) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// Reads the file at `path`, decompressing it when it is gzip.
pub(crate) fn read_file(path: &Path, progress: &Progress) -> Result<Input> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let raw = map_or_read(path, &file)?;
    if is_gzip(&raw) {
        progress.bytes_stage("decompressing", raw.len() as u64);
        Ok(Input::Owned(gunzip(path, &raw, progress)?))
    } else {
        Ok(raw)
    }
}

/// `bytes`, decompressed when they are gzip.
pub(crate) fn decode_bytes<'a>(name: &Path, bytes: &'a [u8], progress: &Progress) -> Result<Cow<'a, [u8]>> {
    if is_gzip(bytes) {
        progress.bytes_stage("decompressing", bytes.len() as u64);
        Ok(Cow::Owned(gunzip(name, bytes, progress)?))
    } else {
        Ok(Cow::Borrowed(bytes))
    }
}

fn map_or_read(path: &Path, file: &File) -> Result<Input> {
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len > 0 && file.metadata().map(|m| m.is_file()).unwrap_or(false) {
        // SAFETY: the map is read-only and private to this process. As with every file
        // mapping, another process truncating or rewriting the file while glp reads it would
        // change the bytes under us (or raise SIGBUS on truncation); glp documents that input
        // files must not be modified while they are being loaded, like any reader of files.
        if let Ok(map) = unsafe { MmapOptions::new().populate().map(file) } {
            return Ok(Input::Mapped(map));
        }
    }
    let mut bytes = Vec::with_capacity(len as usize);
    (&*file).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    Ok(Input::Owned(bytes))
}

fn gunzip(name: &Path, compressed: &[u8], progress: &Progress) -> Result<Vec<u8>> {
    // The last member's trailer holds its size modulo 2^32: a good capacity hint for the
    // usual single-member file, and harmless otherwise.
    let hint = compressed
        .len()
        .checked_sub(4)
        .map(|at| u32::from_le_bytes([compressed[at], compressed[at + 1], compressed[at + 2], compressed[at + 3]]))
        .map_or(0, |size| size as usize)
        .min(compressed.len().saturating_mul(64));
    let mut out = Vec::with_capacity(hint);
    MultiGzDecoder::new(progress.wrap_read(compressed))
        .read_to_end(&mut out)
        .map_err(|e| Error::format(name, format!("corrupt or truncated gzip stream: {e}")))?;
    Ok(out)
}
