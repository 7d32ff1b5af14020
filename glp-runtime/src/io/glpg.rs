//! `.glpg`: glp's binary graph format, a built CSR saved for instant reloading.
//!
//! Layout (version 1), all integers little-endian, every section starting at a multiple of 8
//! bytes from the file start so that the file can be memory-mapped and each array used in
//! place:
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 8 | magic `89 'G' 'L' 'P' 'G' 0d 0a 1a` (PNG-style: catches text-mode mangling) |
//! | 8 | 4 | version (1) |
//! | 12 | 4 | flags: bit 0 weighted, bit 1 symmetric, bit 2 id table present; others 0 |
//! | 16 | 8 | n, the number of vertices |
//! | 24 | 8 | m, the number of stored (directed) edges |
//! | 32 | 8 | first original id when ids are a range (`first..first + n`), else 0 |
//! | 40 | 8 | payload length in bytes |
//! | 48 | 4 | CRC-32 (IEEE) of bytes 0..48 followed by the payload |
//! | 52 | 12 | reserved: zero (a reader fails on anything else: a newer or corrupt file) |
//! | 64 | (n+1)*8 | offsets (u64) |
//! | | m*4, padded to 8 | targets (u32) |
//! | | m*4, padded to 8 | weights (f32), when weighted |
//! | | n*8 | original ids (u64, strictly increasing), when the id table is present |
//!
//! Reading validates everything before use: length, magic, version, flags, reserved bytes,
//! that the counts give exactly the payload length and the file size (so no count can make the
//! reader allocate more than the file holds), that the payload fits the memory budget
//! ([`crate::memory::ensure_available`]), the checksum, then the CSR invariants through
//! [`Csr::new`], the id table's order, and the [`WeightRule`]. The work is proportional to the file size:
//! one checksum pass and bulk copies of each section (no per-edge parsing).
//! Padding bytes are written as zero and covered by the checksum.

use super::WeightRule;
use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, VertexIds};
use crate::memory::ensure_available;
use bytemuck::Pod;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The magic bytes that open every `.glpg` file.
pub(crate) const MAGIC: [u8; 8] = [0x89, b'G', b'L', b'P', b'G', 0x0d, 0x0a, 0x1a];
/// The version this code writes and reads.
pub(crate) const VERSION: u32 = 1;
const HEADER_BYTES: usize = 64;
/// Header bytes covered by the checksum (everything before the checksum field).
const CHECKED_HEADER_BYTES: usize = 48;
/// The reserved header bytes, zero in version 1.
const RESERVED: std::ops::Range<usize> = 52..HEADER_BYTES;
const WEIGHTED: u32 = 1;
const SYMMETRIC: u32 = 2;
const ID_TABLE: u32 = 4;
const KNOWN_FLAGS: u32 = WEIGHTED | SYMMETRIC | ID_TABLE;

/// Header fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Header {
    flags: u32,
    n: u64,
    m: u64,
    first_id: u64,
    payload: u64,
    checksum: u32,
}

impl Header {
    fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut bytes = [0u8; HEADER_BYTES];
        bytes[0..8].copy_from_slice(&MAGIC);
        bytes[8..12].copy_from_slice(&VERSION.to_le_bytes());
        bytes[12..16].copy_from_slice(&self.flags.to_le_bytes());
        bytes[16..24].copy_from_slice(&self.n.to_le_bytes());
        bytes[24..32].copy_from_slice(&self.m.to_le_bytes());
        bytes[32..40].copy_from_slice(&self.first_id.to_le_bytes());
        bytes[40..48].copy_from_slice(&self.payload.to_le_bytes());
        bytes[48..52].copy_from_slice(&self.checksum.to_le_bytes());
        bytes
    }
}

/// Bytes of each section, in file order, for `n` vertices, `m` edges and `flags`; `None`
/// when the sizes overflow.
fn section_sizes(n: u64, m: u64, flags: u32) -> Option<[u64; 4]> {
    let padded = |bytes: u64| bytes.checked_add(7).map(|b| b / 8 * 8);
    let offsets = n.checked_add(1)?.checked_mul(8)?;
    let targets = padded(m.checked_mul(4)?)?;
    let weights = if flags & WEIGHTED != 0 { targets } else { 0 };
    let ids = if flags & ID_TABLE != 0 { n.checked_mul(8)? } else { 0 };
    Some([offsets, targets, weights, ids])
}

fn le_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn le_u64(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Whether `bytes` start with the `.glpg` magic.
pub(crate) fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Reads a graph from the bytes of a `.glpg` file; `name` is reported in errors. `rule` is
/// checked on the weights.
pub(crate) fn read(name: &Path, bytes: &[u8], rule: WeightRule) -> Result<Graph> {
    let fail = |message: String| Error::format(name, message);
    let start = &bytes[..bytes.len().min(MAGIC.len())];
    if !MAGIC.starts_with(start) {
        return Err(fail(format!("not a .glpg file: wrong magic bytes {start:02x?} (expected {MAGIC:02x?})")));
    }
    if bytes.len() < HEADER_BYTES {
        return Err(fail(format!(
            "truncated file: {} bytes, shorter than the {HEADER_BYTES}-byte header",
            bytes.len()
        )));
    }
    let version = le_u32(bytes, 8);
    if version != VERSION {
        return Err(fail(format!("unsupported .glpg version {version} (this glp reads version {VERSION})")));
    }
    let header = Header {
        flags: le_u32(bytes, 12),
        n: le_u64(bytes, 16),
        m: le_u64(bytes, 24),
        first_id: le_u64(bytes, 32),
        payload: le_u64(bytes, 40),
        checksum: le_u32(bytes, 48),
    };
    if header.flags & !KNOWN_FLAGS != 0 {
        return Err(fail(format!("unknown flags {:#x} in a version {VERSION} file", header.flags & !KNOWN_FLAGS)));
    }
    if let Some(at) = bytes[RESERVED].iter().position(|&b| b != 0) {
        return Err(fail(format!(
            "reserved header byte {} is {:#04x}, not 0: the file is corrupt or was written by a newer glp",
            RESERVED.start + at,
            bytes[RESERVED.start + at]
        )));
    }
    let inconsistent = || fail(format!("inconsistent counts: {} vertices and {} edges", header.n, header.m));
    if header.n > u32::MAX as u64 {
        return Err(fail(format!("inconsistent counts: {} vertices exceed the u32 vertex id range", header.n)));
    }
    let sizes = section_sizes(header.n, header.m, header.flags).ok_or_else(inconsistent)?;
    let expected_payload = sizes.iter().try_fold(0u64, |acc, &s| acc.checked_add(s)).ok_or_else(inconsistent)?;
    if header.payload != expected_payload {
        return Err(fail(format!(
            "inconsistent counts: the header declares a payload of {} bytes, but {} vertices and {} edges need {expected_payload}",
            header.payload, header.n, header.m
        )));
    }
    let expected_len = HEADER_BYTES as u64 + expected_payload;
    let actual_len = bytes.len() as u64;
    if actual_len < expected_len {
        return Err(fail(format!("truncated file: {actual_len} bytes, the header declares {expected_len}")));
    }
    if actual_len > expected_len {
        return Err(fail(format!(
            "inconsistent counts: {actual_len} bytes, but the header declares {expected_len} (trailing data)"
        )));
    }
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&bytes[..CHECKED_HEADER_BYTES]);
    hasher.update(&bytes[HEADER_BYTES..]);
    let computed = hasher.finalize();
    if computed != header.checksum {
        return Err(fail(format!(
            "checksum mismatch: the file is corrupt (stored {:#010x}, computed {computed:#010x})",
            header.checksum
        )));
    }
    // The graph's arrays are copies of the payload.
    ensure_available(expected_payload, || {
        format!("{}: loading {} vertices and {} edges", name.display(), header.n, header.m)
    })?;

    let (n, m) = (header.n as usize, header.m as usize);
    let mut at = HEADER_BYTES;
    let mut section = |size: u64| {
        let start = at;
        at += size as usize;
        &bytes[start..at]
    };
    let offsets: Vec<u64> = read_le(section(sizes[0]), n + 1);
    let targets: Vec<u32> = read_le(section(sizes[1]), m);
    let weights: Option<Vec<f32>> = (header.flags & WEIGHTED != 0)
        .then(|| read_le::<u32>(section(sizes[2]), m).into_iter().map(f32::from_bits).collect());
    let ids = if header.flags & ID_TABLE != 0 {
        let table: Vec<u64> = read_le(section(sizes[3]), n);
        if let Some(i) = table.windows(2).position(|w| w[0] >= w[1]) {
            return Err(fail(format!("inconsistent id table: entry {} is not above entry {i}", i + 1)));
        }
        VertexIds::Table(table)
    } else {
        if n > 0 && header.first_id.checked_add(header.n - 1).is_none() {
            return Err(fail(format!("inconsistent id range: {} ids from {} overflow", header.n, header.first_id)));
        }
        VertexIds::Range { first: header.first_id, len: n }
    };
    let csr = Csr::new(offsets, targets, weights).map_err(|e| fail(format!("inconsistent graph data: {e}")))?;
    let symmetric = header.flags & SYMMETRIC != 0;
    if symmetric && !csr.is_symmetric() {
        return Err(fail(
            "inconsistent graph data: the header marks the graph symmetric, but some edge has no reverse".into(),
        ));
    }
    let graph = Graph { csr, ids, symmetric };
    check_weights(&graph, rule).map_err(fail)?;
    Ok(graph)
}

/// Fails on the first edge whose weight `rule` refuses, naming it by original ids.
fn check_weights(graph: &Graph, rule: WeightRule) -> std::result::Result<(), String> {
    let Some(weights) = graph.csr.weights() else { return Ok(()) };
    let Some(edge) = weights.iter().position(|&w| rule.check(w).is_err()) else { return Ok(()) };
    let offsets = graph.csr.offsets();
    // The source is the vertex whose row holds the edge: the last offset at or before it.
    let source = offsets.partition_point(|&o| o <= edge as u64) - 1;
    let target = graph.csr.targets()[edge];
    let why = rule.check(weights[edge]).err().unwrap_or_default();
    Err(format!(
        "the weight of edge {} -> {}, {}, is negative: {why}",
        graph.ids.original(source as u32),
        graph.ids.original(target),
        weights[edge]
    ))
}

/// Values of type `T` stored little-endian at the start of `bytes` (which need not be
/// aligned), `count` of them: one bulk copy, then a byte-order fix that is a no-op on
/// little-endian machines.
fn read_le<T: Pod + LittleEndian>(bytes: &[u8], count: usize) -> Vec<T> {
    let mut values: Vec<T> = vec![T::zeroed(); count];
    bytemuck::cast_slice_mut::<T, u8>(&mut values).copy_from_slice(&bytes[..count * std::mem::size_of::<T>()]);
    values.iter_mut().for_each(|v| *v = v.swap_le());
    values
}

/// Integers with a byte order.
trait LittleEndian: Copy {
    /// Converts between little-endian and native order (the same swap both ways; nothing on
    /// little-endian machines).
    fn swap_le(self) -> Self;
}

impl LittleEndian for u32 {
    fn swap_le(self) -> Self {
        u32::from_le(self)
    }
}

impl LittleEndian for u64 {
    fn swap_le(self) -> Self {
        u64::from_le(self)
    }
}

/// Writes `graph` to `path` as `.glpg`. The file is written under a temporary name next to
/// `path` and renamed into place at the end, so a failed write never leaves a partial file
/// under the final name.
pub fn write_glpg(graph: &Graph, path: &Path) -> Result<()> {
    let partial = partial_path(path);
    let result =
        write_to(graph, &partial).and_then(|()| std::fs::rename(&partial, path).map_err(|e| Error::io(path, e)));
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".partial");
    path.with_file_name(name)
}

fn write_to(graph: &Graph, path: &Path) -> Result<()> {
    let csr = &graph.csr;
    let (n, m) = (csr.num_vertices() as u64, csr.num_edges());
    let mut flags = 0;
    if csr.is_weighted() {
        flags |= WEIGHTED;
    }
    if graph.symmetric {
        flags |= SYMMETRIC;
    }
    let (first_id, table) = match &graph.ids {
        VertexIds::Range { first, .. } => (*first, None),
        VertexIds::Table(table) => {
            flags |= ID_TABLE;
            (0, Some(table.as_slice()))
        }
    };
    if graph.ids.len() != csr.num_vertices() {
        return Err(Error::invalid(format!(
            "cannot write {}: the graph has {} vertices but {} original ids",
            path.display(),
            csr.num_vertices(),
            graph.ids.len()
        )));
    }
    let sizes =
        section_sizes(n, m, flags).ok_or_else(|| Error::TooLarge(format!("{m} edges overflow the file size")))?;
    let mut header = Header { flags, n, m, first_id, payload: sizes.iter().sum(), checksum: 0 };

    let file = File::create(path).map_err(|e| Error::io(path, e))?;
    let io = |e| Error::io(path, e);
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(&header.encode()).map_err(io)?;
    // The checksum covers the header's first 48 bytes (which exclude the checksum field) and
    // the payload; it is computed while the payload streams out, then patched in.
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&header.encode()[..CHECKED_HEADER_BYTES]);
    write_payload(&mut Tee { hasher: &mut hasher, out: &mut out }, csr, table).map_err(io)?;
    header.checksum = hasher.finalize();
    let mut file = out.into_inner().map_err(|e| Error::io(path, e.into_error()))?;
    file.seek(SeekFrom::Start(CHECKED_HEADER_BYTES as u64)).map_err(io)?;
    file.write_all(&header.checksum.to_le_bytes()).map_err(io)?;
    file.sync_all().map_err(io)
}

/// Writes the sections after the header.
fn write_payload(out: &mut impl Write, csr: &Csr, table: Option<&[u64]>) -> std::io::Result<()> {
    write_le(out, csr.offsets())?;
    write_le(out, csr.targets())?;
    pad(out, csr.targets().len() * 4)?;
    if let Some(weights) = csr.weights() {
        let bits: &[u32] = bytemuck::cast_slice(weights);
        write_le(out, bits)?;
        pad(out, bits.len() * 4)?;
    }
    if let Some(table) = table {
        write_le(out, table)?;
    }
    Ok(())
}

/// Writes `values` little-endian: straight from memory on little-endian machines.
fn write_le<T: Pod + LittleEndian>(out: &mut impl Write, values: &[T]) -> std::io::Result<()> {
    if cfg!(target_endian = "little") {
        out.write_all(bytemuck::cast_slice(values))
    } else {
        for block in values.chunks(1 << 16) {
            let swapped: Vec<T> = block.iter().map(|v| v.swap_le()).collect();
            out.write_all(bytemuck::cast_slice(&swapped))?;
        }
        Ok(())
    }
}

fn pad(out: &mut impl Write, written: usize) -> std::io::Result<()> {
    let zeros = [0u8; 8];
    out.write_all(&zeros[..(8 - written % 8) % 8])
}

/// A writer that feeds a checksum and passes the bytes on.
struct Tee<'a, W: Write> {
    hasher: &'a mut crc32fast::Hasher,
    out: &'a mut W,
}

impl<W: Write> Write for Tee<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.out.write(buf)?;
        self.hasher.update(&buf[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
