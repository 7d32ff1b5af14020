//! NumPy's `.npy` format (version 1.0) for integer arrays, and `.npz` archives of several.
//!
//! A `.npy` file is the magic `\x93NUMPY`, the version bytes `1 0`, a little-endian `u16`
//! header length, an ASCII header (a Python dict literal: `{'descr': '<i8', 'fortran_order':
//! False, 'shape': (ROWS, COLS), }`) padded with spaces and ended by `\n` so that the data
//! starts at a multiple of 64 bytes, then the values, little-endian, row after row. An `.npz`
//! file is a zip archive of `.npy` files named after the arrays (stored, not compressed, as
//! `numpy.savez` writes them): `numpy.load` opens it as a dictionary of arrays.

use crate::error::{Error, Result};
use std::io::Write as _;

/// An `int64` array of `shape` (row-major) as a `.npy` file.
///
/// Errors when the number of values is not the product of the shape.
pub fn npy_i64(shape: &[usize], values: &[i64]) -> Result<Vec<u8>> {
    let count: usize = shape.iter().product();
    if count != values.len() {
        return Err(Error::invalid(format!("internal: {} values for the shape {shape:?}", values.len())));
    }
    let dims = match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut header = format!("{{'descr': '<i8', 'fortran_order': False, 'shape': {dims}, }}");
    // magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut bytes = Vec::with_capacity(10 + header.len() + 8 * values.len());
    bytes.extend_from_slice(b"\x93NUMPY\x01\x00");
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    Ok(bytes)
}

/// An `.npz` archive of `(name, .npy bytes)` entries, each stored as `NAME.npy`.
pub fn npz(arrays: &[(&str, Vec<u8>)]) -> Result<Vec<u8>> {
    let fail = |e: &dyn std::fmt::Display| Error::invalid(format!("writing an .npz archive: {e}"));
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(arrays.iter().any(|(_, b)| b.len() as u64 >= u32::MAX as u64));
    for (name, bytes) in arrays {
        zip.start_file(format!("{name}.npy"), options).map_err(|e| fail(&e))?;
        zip.write_all(bytes).map_err(|e| fail(&e))?;
    }
    Ok(zip.finish().map_err(|e| fail(&e))?.into_inner())
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
