//! Getting an input's bytes into memory: memory-mapped plain files, standard input, and
//! fully decompressed streams.
//!
//! Compressed inputs are recognised by their magic bytes, never by the file name (see
//! [`super::compression`]); a corrupt or truncated stream is an error, never a shorter input.
//!
//! Plain files are memory-mapped: the parsers then read the page cache directly, with no copy.
//! Inputs that cannot be mapped (pipes, `<(zcat ...)`, special files, empty files) are read
//! instead, as is standard input: the path `-` names it ([`STDIN_PATH`]), errors call it
//! `<stdin>`, and it can be read once per process (a second `-` is an error, not an empty
//! input). Every read into memory is bounded by the memory budget
//! ([`crate::memory::available_memory`]).

use super::compression::{decompress, refuse_unread, Compression};
use super::progress::Progress;
use crate::error::{Error, Result};
use crate::memory::{available_memory, format_bytes, limit_note};
use memmap2::{Mmap, MmapOptions};
use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The path that names standard input.
pub const STDIN_PATH: &str = "-";

/// The name errors give standard input.
const STDIN_NAME: &str = "<stdin>";

/// Whether standard input has been read by this process.
static STDIN_TAKEN: AtomicBool = AtomicBool::new(false);

/// The bytes of an input, decompressed when it was compressed.
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

/// Whether `path` names standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN_PATH
}

/// The name errors report for `path`: `<stdin>` for standard input, else the path.
pub(crate) fn display_name(path: &Path) -> &Path {
    if is_stdin(path) {
        Path::new(STDIN_NAME)
    } else {
        path
    }
}

/// Reads the input at `path` (`-` for standard input), decompressing it when it is
/// compressed.
pub(crate) fn read_file(path: &Path, progress: &Progress) -> Result<Input> {
    let name = display_name(path);
    let raw = if is_stdin(path) { read_stdin()? } else { map_or_read(path)? };
    match Compression::detect(&raw) {
        Some(compression) => Ok(Input::Owned(decompress(name, compression, &raw, progress)?)),
        None => {
            refuse_unread(name, &raw)?;
            Ok(raw)
        }
    }
}

/// `bytes`, decompressed when they are compressed.
pub(crate) fn decode_bytes<'a>(name: &Path, bytes: &'a [u8], progress: &Progress) -> Result<Cow<'a, [u8]>> {
    match Compression::detect(bytes) {
        Some(compression) => Ok(Cow::Owned(decompress(name, compression, bytes, progress)?)),
        None => {
            refuse_unread(name, bytes)?;
            Ok(Cow::Borrowed(bytes))
        }
    }
}

fn read_stdin() -> Result<Input> {
    let name = Path::new(STDIN_NAME);
    if STDIN_TAKEN.swap(true, Ordering::SeqCst) {
        return Err(Error::invalid(
            "standard input can be read only once: `-` names more than one input (give the others as files)",
        ));
    }
    let limit = available_memory()?;
    let stdin = std::io::stdin().lock();
    let bytes = read_bounded(name, "reading standard input", stdin, 0, limit, |e| Error::io(name, e))?;
    Ok(Input::Owned(bytes))
}

fn map_or_read(path: &Path) -> Result<Input> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let metadata = file.metadata().map_err(|e| Error::io(path, e))?;
    if metadata.len() > 0 && metadata.is_file() {
        // SAFETY: the map is read-only and private to this process. As with every file
        // mapping, another process truncating or rewriting the file while glp reads it would
        // change the bytes under us (or raise SIGBUS on truncation); glp documents that input
        // files must not be modified while they are being loaded, like any reader of files.
        if let Ok(map) = unsafe { MmapOptions::new().populate().map(&file) } {
            return Ok(Input::Mapped(map));
        }
    }
    let hint = usize::try_from(metadata.len()).unwrap_or(0);
    let bytes = read_bounded(path, "reading this file", file, hint, available_memory()?, |e| Error::io(path, e))?;
    Ok(Input::Owned(bytes))
}

/// Reads `reader` to its end into memory, holding the result to `limit` bytes (the memory
/// budget; `None` for none): more is an error naming `what` and the budget, never a process
/// killed for memory. `hint` is the expected size (a capacity to start with); `fail` turns a
/// read error into the caller's error. The buffer grows by doubling, never past the limit.
pub(crate) fn read_bounded(
    name: &Path,
    what: &str,
    mut reader: impl Read,
    hint: usize,
    limit: Option<u64>,
    fail: impl Fn(std::io::Error) -> Error,
) -> Result<Vec<u8>> {
    let cap = limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    let exceeded = || {
        Error::format(
            name,
            format!(
                "{what}: the data exceeds the {} of memory available{} (a decompression bomb, or an input too \
                 large for this machine)",
                format_bytes(cap as u64),
                limit_note()
            ),
        )
    };
    let no_memory =
        |bytes: usize| Error::format(name, format!("{what}: cannot allocate {} of memory", format_bytes(bytes as u64)));
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve_exact(hint.min(cap)).map_err(|_| no_memory(hint.min(cap)))?;
    loop {
        if out.len() == out.capacity() {
            if out.len() >= cap {
                // At the limit: the input must end here.
                let mut probe = [0u8; 1];
                return match read_retrying(&mut reader, &mut probe).map_err(&fail)? {
                    0 => Ok(out),
                    _ => Err(exceeded()),
                };
            }
            let step = out.capacity().max(1 << 16).min(cap - out.len());
            out.try_reserve_exact(step).map_err(|_| no_memory(out.len() + step))?;
        }
        let spare = out.capacity() - out.len();
        // `take` stops at the spare capacity, so the buffer never reallocates here.
        let read = (&mut reader).take(spare as u64).read_to_end(&mut out).map_err(&fail)?;
        if read < spare {
            return Ok(out);
        }
    }
}

/// One `read`, retried when interrupted.
fn read_retrying(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounded(data: &[u8], hint: usize, limit: Option<u64>) -> Result<Vec<u8>> {
        read_bounded(Path::new("t"), "reading t", data, hint, limit, |e| Error::io("t", e))
    }

    #[test]
    fn bounded_reads_stop_at_the_limit() {
        let data: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        for hint in [0, 10, 200_000, 1 << 30] {
            assert_eq!(bounded(&data, hint, None).unwrap(), data);
            assert_eq!(bounded(&data, hint, Some(200_000)).unwrap(), data);
            let error = bounded(&data, hint, Some(199_999)).unwrap_err().to_string();
            assert!(error.contains("exceeds the 200.0 kB of memory available"), "{error}");
        }
        assert_eq!(bounded(b"", 0, Some(0)).unwrap(), b"");
        assert!(bounded(b"x", 0, Some(0)).is_err());
    }
}
