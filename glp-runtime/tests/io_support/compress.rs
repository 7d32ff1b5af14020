//! Compressors for test inputs: each of the formats glp reads, with the settings its usual
//! command line tool uses.

use std::io::Write;

/// A compressor: the whole input to one compressed stream.
pub type Compress = fn(&[u8]) -> Vec<u8>;

/// Every compression glp reads, by name.
pub const COMPRESSIONS: [(&str, Compress); 4] = [("gzip", gzip), ("zstd", zstd), ("xz", xz), ("bzip2", bzip2)];

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// zstd with a content checksum, as the `zstd` command writes by default.
pub fn zstd(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    encoder.include_checksum(true).unwrap();
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

pub fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut writer = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(1)).unwrap();
    writer.write_all(bytes).unwrap();
    writer.finish().unwrap()
}

pub fn bzip2(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}
