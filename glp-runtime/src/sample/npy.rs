//! NumPy's `.npy` format (version 1.0) for integer arrays, and `.npz` archives of several.
//!
//! A `.npy` file is the magic `\x93NUMPY`, the version bytes `1 0`, a little-endian `u16`
//! header length, an ASCII header (a Python dict literal: `{'descr': '<i8', 'fortran_order':
//! False, 'shape': (ROWS, COLS), }`) padded with spaces and ended by `\n` so that the data
//! starts at a multiple of 64 bytes, then the values, little-endian, row after row. An `.npz`
//! file is a zip archive of `.npy` files named after the arrays (stored, not compressed, as
//! `numpy.savez` writes them): `numpy.load` opens it as a dictionary of arrays.

use crate::error::{Error, Result};
use std::io::{Seek, Write};

/// An `int64` array of `shape` (row-major) as a `.npy` file.
///
/// Errors when the number of values is not the product of the shape.
pub fn npy_i64(shape: &[usize], values: &[i64]) -> Result<Vec<u8>> {
    let count: usize = shape.iter().product();
    if count != values.len() {
        return Err(Error::invalid(format!("internal: {} values for the shape {shape:?}", values.len())));
    }
    let mut bytes = npy_header_i64(shape);
    bytes.reserve(8 * values.len());
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    Ok(bytes)
}

/// The bytes of a `.npy` file of `int64` values of `shape` that come before the values:
/// magic, version, header length and header. Its length is a multiple of 64, which never
/// grows when a dimension shrinks.
pub fn npy_header_i64(shape: &[usize]) -> Vec<u8> {
    let dims = match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut header = format!("{{'descr': '<i8', 'fortran_order': False, 'shape': {dims}, }}");
    // magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut bytes = Vec::with_capacity(10 + header.len());
    bytes.extend_from_slice(b"\x93NUMPY\x01\x00");
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes
}

/// An `.npz` archive of `(name, .npy bytes)` entries, each stored as `NAME.npy`.
pub fn npz(arrays: &[(&str, Vec<u8>)]) -> Result<Vec<u8>> {
    let largest = arrays.iter().map(|(_, bytes)| bytes.len() as u64).max().unwrap_or(0);
    let mut archive = NpzWriter::new(std::io::Cursor::new(Vec::new()), largest);
    for (name, bytes) in arrays {
        archive.start(name)?;
        archive.write_all(bytes).map_err(|e| npz_error(&e))?;
    }
    Ok(archive.finish()?.into_inner())
}

/// An `.npz` archive written entry by entry into a file (or any seekable writer), for arrays
/// too large to hold: [`NpzWriter::start`] an entry, write its `.npy` bytes, start the next;
/// [`npz`] is the same archive built in memory.
pub struct NpzWriter<W: Write + Seek> {
    zip: zip::ZipWriter<W>,
    options: zip::write::SimpleFileOptions,
}

fn npz_error(e: &dyn std::fmt::Display) -> Error {
    Error::invalid(format!("writing an .npz archive: {e}"))
}

impl<W: Write + Seek> NpzWriter<W> {
    /// An archive into `out` whose largest entry has `largest` bytes (entries of 4 GiB and
    /// more take zip64 records, which are chosen before an entry starts).
    pub fn new(out: W, largest: u64) -> Self {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(largest >= u32::MAX as u64);
        NpzWriter { zip: zip::ZipWriter::new(out), options }
    }

    /// Starts the entry `NAME.npy`: what is written next is its bytes.
    pub fn start(&mut self, name: &str) -> Result<()> {
        self.zip.start_file(format!("{name}.npy"), self.options).map_err(|e| npz_error(&e))
    }

    /// Ends the last entry and writes the archive's directory; returns the writer.
    pub fn finish(self) -> Result<W> {
        self.zip.finish().map_err(|e| npz_error(&e))
    }
}

impl<W: Write + Seek> Write for NpzWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.zip.write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.zip.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_header_and_data_follow_the_format() {
        let bytes = npy_i64(&[2, 3], &[1, 2, 3, 4, 5, -1]).unwrap();
        assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
        assert!(header.starts_with("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }"), "{header}");
        assert!(header.ends_with('\n'));
        let data = &bytes[10 + header_len..];
        assert_eq!(data.len(), 48);
        assert_eq!(i64::from_le_bytes(data[40..48].try_into().unwrap()), -1);
        let one_d = npy_i64(&[4], &[0, 0, 0, 0]).unwrap();
        assert!(std::str::from_utf8(&one_d[10..70]).unwrap().contains("'shape': (4,)"));
        assert!(npy_i64(&[2, 2], &[1]).is_err());
    }
}
