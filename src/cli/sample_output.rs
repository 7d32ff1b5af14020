//! `glp sample`'s output files, written batch by batch as a streamed run hands its samples
//! over ([`SampleWriter`]), so that memory holds a few batches whatever the output's size.
//!
//! The bytes are those the whole output would have (the module's tests compare them with
//! the whole-outcome encoding):
//! - text (walks: one line per walk; other samplers: one line per sampled edge) is appended
//!   batch by batch;
//! - a walks `.npy` is one row per sample padded with -1 to the longest row, whose length is
//!   only known at the end: each batch's rows are written padded to the batch's longest (so
//!   the file never outgrows the final array), and at the end the rows of the batches
//!   narrower than the longest are moved in place to their final places and padded, from the
//!   end of the file (nothing moves when every batch has the final width, as walks that never
//!   stop early have), under the final header (always 128 bytes for two dimensions);
//! - an `.npz` archive needs each array's length before its entry, so the arrays go to a
//!   spill file as batches come and the archive is assembled from it at the end: walks as
//!   the `.npy`'s rows above (padded on the way into the archive), subgraphs' arrays in
//!   segments (one per batch, hop or step and array), their local ids kept as (hop, index)
//!   until the hops' sizes are known ([`SubgraphNumbering`]). Spill files are unnamed
//!   temporary files next to the output, gone when closed.
//!
//! The output itself is a staged file of [`super::output::Outputs`]: renamed over the target
//! only when the command succeeds, removed when it fails.

use super::output::directory_of;
use super::sample::App;
use glp_runtime::graph::{Graph, VertexId};
use glp_runtime::sample::npy::{self, NpzWriter};
use glp_runtime::sample::{InitialSamples, LocalVertex, SampleOutcome, SubgraphNumbering};
use glp_runtime::{Error, Result};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Buffer size of the writers and of the spill copies.
const BUFFER: usize = 1 << 20;

/// How the samples are written, from `--out`'s extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Npy,
    Npz,
    Text,
}

impl OutputFormat {
    /// The format of `path`.
    pub fn of(path: &Path) -> OutputFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("npy") => OutputFormat::Npy,
            Some("npz") => OutputFormat::Npz,
            _ => OutputFormat::Text,
        }
    }
}

/// The input id of dense vertex `v` as NumPy's int64.
pub fn id_i64(graph: &Graph, v: VertexId) -> Result<i64> {
    let id = graph.ids.original(v);
    i64::try_from(id).map_err(|_| Error::invalid(format!("vertex id {id} does not fit NumPy's int64")))
}

/// Writes a run's samples into a file, batch by batch (see the module docs).
pub struct SampleWriter<'g> {
    graph: &'g Graph,
    /// The name I/O errors give (the output as the user named it).
    name: PathBuf,
    /// The file written.
    path: PathBuf,
    form: Form,
}

/// What a [`SampleWriter`] writes.
enum Form {
    /// Walks, one line each.
    TextWalks(BufWriter<File>),
    /// Sampled edges, one `sample<TAB>step<TAB>from<TAB>vertex` line each.
    TextEdges(BufWriter<File>),
    /// Walks as a `.npy` file: the output itself.
    Npy(WalkRows),
    /// Walks as the `walks` entry of an `.npz` archive: the rows in a spill file.
    NpzWalks(WalkRows),
    /// Subgraphs as an `.npz` archive of PyG's arrays.
    NpzSubgraphs(Box<SubgraphSpill>),
}

impl<'g> SampleWriter<'g> {
    /// A writer of `app`'s samples from `initial` on `graph` into the (new, empty) file
    /// `path` in `format`; `name` is the output as the user named it, for errors.
    pub fn create(
        path: &Path,
        name: PathBuf,
        format: OutputFormat,
        app: &App,
        graph: &'g Graph,
        initial: &InitialSamples,
    ) -> Result<Self> {
        let io = |e| Error::io(&name, e);
        // Read back too: a `.npy` may be rewritten in place at the end.
        let file = || OpenOptions::new().read(true).write(true).truncate(true).open(path).map_err(io);
        let spill = || tempfile::tempfile_in(directory_of(path)).map_err(io);
        let samples = initial.len() as u64;
        let form = match (format, app.is_walk()) {
            (OutputFormat::Text, true) => Form::TextWalks(BufWriter::with_capacity(BUFFER, file()?)),
            (OutputFormat::Text, false) => Form::TextEdges(BufWriter::with_capacity(BUFFER, file()?)),
            (OutputFormat::Npy, true) => Form::Npy(WalkRows::new(file()?, samples).map_err(io)?),
            (OutputFormat::Npy, false) => {
                return Err(Error::invalid(format!(
                    "{} samples subgraphs, which take several arrays: write them to a .npz file",
                    app.name()
                )))
            }
            (OutputFormat::Npz, true) => Form::NpzWalks(WalkRows::new(spill()?, samples).map_err(io)?),
            (OutputFormat::Npz, false) => Form::NpzSubgraphs(Box::new(SubgraphSpill::new(spill()?))),
        };
        Ok(SampleWriter { graph, name, path: path.to_path_buf(), form })
    }

    /// Writes `batch`, the samples that follow those written so far.
    pub fn write(&mut self, batch: &SampleOutcome) -> Result<()> {
        let graph = self.graph;
        let name = &self.name;
        let io = |e| Error::io(name, e);
        match &mut self.form {
            Form::TextWalks(out) => {
                let mut ids = itoa::Buffer::new();
                for i in 0..batch.num_samples() {
                    let row = batch.roots_of(i).iter().chain(batch.added(i));
                    for (k, &v) in row.enumerate() {
                        if k > 0 {
                            out.write_all(b" ").map_err(io)?;
                        }
                        out.write_all(ids.format(graph.ids.original(v)).as_bytes()).map_err(io)?;
                    }
                    out.write_all(b"\n").map_err(io)?;
                }
                Ok(())
            }
            Form::TextEdges(out) => {
                let mut line = EdgeLine::default();
                let mut written = Ok(());
                for i in 0..batch.num_samples() {
                    let sample = batch.first + i as u64;
                    batch.for_each_added(i, |v, source, step| {
                        if written.is_ok() {
                            let (from, to) = (graph.ids.original(source), graph.ids.original(v));
                            written = out.write_all(line.format(sample, step, from, to));
                        }
                    });
                }
                written.map_err(io)
            }
            Form::Npy(rows) | Form::NpzWalks(rows) => rows.write(graph, batch, name),
            Form::NpzSubgraphs(spill) => spill.write(graph, batch, name),
        }
    }

    /// Completes the file (the whole run written) and flushes it to the disk.
    pub fn finish(self) -> Result<()> {
        let io = |e| Error::io(&self.name, e);
        let file = match self.form {
            Form::TextWalks(out) | Form::TextEdges(out) => out.into_inner().map_err(|e| io(e.into_error()))?,
            Form::Npy(rows) => rows.finish_in_place().map_err(io)?,
            Form::NpzWalks(rows) => {
                let mut archive = archive(&self.path, rows.final_bytes()).map_err(io)?;
                archive.start("walks")?;
                rows.copy_into(&mut archive).map_err(io)?;
                finish_archive(archive).map_err(io)?
            }
            Form::NpzSubgraphs(spill) => spill.finish(&self.path, &self.name)?,
        };
        file.sync_all().map_err(io)
    }
}

/// An `.npz` archive into the file `path`, whose largest entry has `largest` bytes.
fn archive(path: &Path, largest: u64) -> io::Result<NpzWriter<BufWriter<File>>> {
    let file = OpenOptions::new().write(true).truncate(true).open(path)?;
    Ok(NpzWriter::new(BufWriter::with_capacity(BUFFER, file), largest))
}

/// Ends `archive` and returns its file, flushed.
fn finish_archive(archive: NpzWriter<BufWriter<File>>) -> io::Result<File> {
    let out = archive.finish().map_err(|e| io::Error::other(e.to_string()))?;
    out.into_inner().map_err(|e| e.into_error())
}

/// A text line `sample<TAB>step<TAB>from<TAB>to` formatted without `fmt` (itoa): `fmt`'s
/// machinery was most of the time of a k-hop run written as text.
#[derive(Default)]
struct EdgeLine {
    bytes: Vec<u8>,
    ids: itoa::Buffer,
}

impl EdgeLine {
    /// The line's bytes, newline included.
    fn format(&mut self, sample: u64, step: u32, from: u64, to: u64) -> &[u8] {
        self.bytes.clear();
        for (value, end) in [(sample, b'\t'), (u64::from(step), b'\t'), (from, b'\t'), (to, b'\n')] {
            self.bytes.extend_from_slice(self.ids.format(value).as_bytes());
            self.bytes.push(end);
        }
        &self.bytes
    }
}

/// Little-endian bytes of int64 values.
fn i64_bytes(values: impl Iterator<Item = i64>) -> Vec<u8> {
    concat_bytes(values.map(i64::to_le_bytes))
}

/// Values' bytes one after the other, in an array sized once (a `flat_map` of them went byte
/// by byte: its encoding of a k-hop run's subgraphs was a quarter of `glp sample`'s time).
fn concat_bytes<const N: usize>(values: impl Iterator<Item = [u8; N]>) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(values.size_hint().0.saturating_mul(N));
    values.for_each(|value| bytes.extend_from_slice(&value));
    bytes
}

/// A batch's rows in a [`WalkRows`] file: how many, and their width.
type Segment = (u64, usize);

/// Walks as a `.npy` array being written (see the module docs): a header's room, then the
/// rows batch by batch, each batch's padded with -1 to its own longest row.
struct WalkRows {
    out: BufWriter<File>,
    samples: u64,
    /// Bytes before the first row: a 2-D int64 header's, always 128 (its dict has 59 to 97
    /// characters), so the final header takes the room of the first.
    header_len: u64,
    /// The batches written.
    segments: Vec<Segment>,
    row: Vec<i64>,
}

impl WalkRows {
    /// Rows of `samples` walks into `file` (empty, readable).
    fn new(file: File, samples: u64) -> io::Result<Self> {
        let header = npy::npy_header_i64(&[samples as usize, 1]);
        let mut out = BufWriter::with_capacity(BUFFER, file);
        out.write_all(&header)?;
        Ok(WalkRows { out, samples, header_len: header.len() as u64, segments: Vec::new(), row: Vec::new() })
    }

    fn write(&mut self, graph: &Graph, batch: &SampleOutcome, name: &Path) -> Result<()> {
        let count = batch.num_samples();
        let width = (0..count).map(|i| batch.sample(i).roots.len() + batch.sample(i).vertices.len()).max();
        let Some(width) = width else { return Ok(()) };
        for i in 0..count {
            let s = batch.sample(i);
            self.row.clear();
            for &v in s.roots.iter().chain(s.vertices) {
                self.row.push(id_i64(graph, v)?);
            }
            self.row.resize(width, -1);
            self.out.write_all(&i64_bytes(self.row.iter().copied())).map_err(|e| Error::io(name, e))?;
        }
        self.segments.push((count as u64, width));
        Ok(())
    }

    /// The longest row: the final array's width.
    fn width(&self) -> usize {
        self.segments.iter().map(|&(_, width)| width).max().unwrap_or(0)
    }

    /// The final array's header, and the array's bytes.
    fn final_header(&self) -> (Vec<u8>, u64) {
        let header = npy::npy_header_i64(&[self.samples as usize, self.width()]);
        let bytes = header.len() as u64 + self.samples * self.width() as u64 * 8;
        (header, bytes)
    }

    /// The file written, flushed, positioned at the first row, the final header and the
    /// batches; errors unless every row came and the final header takes the first one's
    /// room.
    fn into_file(self) -> io::Result<(File, Vec<u8>, Vec<Segment>)> {
        let rows: u64 = self.segments.iter().map(|&(rows, _)| rows).sum();
        let (header, _) = self.final_header();
        if rows != self.samples || header.len() as u64 != self.header_len {
            return Err(io::Error::other(format!("internal: {rows} walks of {} written", self.samples)));
        }
        let mut file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(self.header_len))?;
        Ok((file, header, self.segments))
    }

    /// Bytes of the finished `.npy` array.
    fn final_bytes(&self) -> u64 {
        self.final_header().1
    }

    /// Writes the finished array (header, then every row padded to the final width) into
    /// `out`, reading the rows back from this array's file.
    fn copy_into(self, out: &mut impl Write) -> io::Result<()> {
        let width = self.width();
        let (file, header, segments) = self.into_file()?;
        let mut input = BufReader::with_capacity(BUFFER, file);
        out.write_all(&header)?;
        let padding = i64_bytes(std::iter::repeat_n(-1, width));
        let mut row = Vec::new();
        for (rows, written) in segments {
            row.resize(written * 8, 0);
            for _ in 0..rows {
                input.read_exact(&mut row)?;
                out.write_all(&row)?;
                out.write_all(&padding[written * 8..])?;
            }
        }
        Ok(())
    }

    /// Makes this array's file the finished array, in place: the header, and the rows of
    /// every batch narrower than the final width moved to their places and padded, batch by
    /// batch and block by block from the end (a row only moves towards the end, by the
    /// padding of the rows before it, so what is written never covers a row not yet read).
    /// Nothing moves when every batch has the final width. Returns the file.
    fn finish_in_place(self) -> io::Result<File> {
        let width = self.width();
        let header_len = self.header_len;
        let (mut file, header, segments) = self.into_file()?;
        let rows_bytes = |rows: u64, width: usize| rows * width as u64 * 8;
        let mut written_end = header_len + segments.iter().map(|&(rows, w)| rows_bytes(rows, w)).sum::<u64>();
        let mut final_end = header_len + segments.iter().map(|&(rows, _)| rows_bytes(rows, width)).sum::<u64>();
        file.set_len(final_end)?;
        let block_rows = (BUFFER / (width * 8)).max(1) as u64;
        let (mut block, mut padded) = (Vec::new(), Vec::new());
        for &(rows, written) in segments.iter().rev() {
            if written_end == final_end {
                break; // This batch and those before are in place.
            }
            let (written_start, final_start) =
                (written_end - rows_bytes(rows, written), final_end - rows_bytes(rows, width));
            let mut end = rows;
            while end > 0 {
                let start = end.saturating_sub(block_rows);
                block.resize(rows_bytes(end - start, written) as usize, 0);
                file.seek(SeekFrom::Start(written_start + rows_bytes(start, written)))?;
                file.read_exact(&mut block)?;
                padded.clear();
                for row in block.chunks_exact(written * 8) {
                    padded.extend_from_slice(row);
                    padded.extend(std::iter::repeat_n((-1i64).to_le_bytes(), width - written).flatten());
                }
                file.seek(SeekFrom::Start(final_start + rows_bytes(start, width)))?;
                file.write_all(&padded)?;
                end = start;
            }
            (written_end, final_end) = (written_start, final_start);
        }
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header)?;
        Ok(file)
    }
}

/// The arrays of PyG's `SamplerOutput` being gathered: the numbering, and the arrays' pieces
/// in a spill file (see the module docs).
struct SubgraphSpill {
    numbering: SubgraphNumbering,
    out: BufWriter<File>,
    /// Bytes written to the spill.
    len: u64,
    /// Each array's pieces (hop or step, array): their (offset, bytes) in the spill, in
    /// order.
    segments: BTreeMap<(Piece, usize), Vec<(u64, u64)>>,
}

/// The arrays spilled: per hop the local vertices' graph ids and samples (int64), per step
/// the edges' endpoints ([`LocalVertex`] records: hop `u32`, index `u64`, little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Piece {
    Node,
    Batch,
    Row,
    Col,
}

/// Bytes of a spilled [`LocalVertex`].
const LOCAL_VERTEX_BYTES: usize = 12;

impl SubgraphSpill {
    fn new(spill: File) -> Self {
        SubgraphSpill {
            numbering: SubgraphNumbering::new(),
            out: BufWriter::with_capacity(BUFFER, spill),
            len: 0,
            segments: BTreeMap::new(),
        }
    }

    fn append(&mut self, piece: Piece, index: usize, bytes: &[u8], name: &Path) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.out.write_all(bytes).map_err(|e| Error::io(name, e))?;
        self.segments.entry((piece, index)).or_default().push((self.len, bytes.len() as u64));
        self.len += bytes.len() as u64;
        Ok(())
    }

    fn write(&mut self, graph: &Graph, batch: &SampleOutcome, name: &Path) -> Result<()> {
        let pieces = self.numbering.add(batch)?;
        for (hop, nodes) in pieces.node.iter().enumerate() {
            let ids = nodes.iter().map(|&v| id_i64(graph, v)).collect::<Result<Vec<i64>>>()?;
            self.append(Piece::Node, hop, &i64_bytes(ids.into_iter()), name)?;
        }
        for (hop, samples) in pieces.batch.iter().enumerate() {
            self.append(Piece::Batch, hop, &i64_bytes(samples.iter().map(|&s| s as i64)), name)?;
        }
        let records = |vertices: &[LocalVertex]| -> Vec<u8> {
            concat_bytes(vertices.iter().map(|v| {
                let mut record = [0; LOCAL_VERTEX_BYTES];
                record[..4].copy_from_slice(&v.hop.to_le_bytes());
                record[4..].copy_from_slice(&v.index.to_le_bytes());
                record
            }))
        };
        for (step, rows) in pieces.row.iter().enumerate() {
            self.append(Piece::Row, step, &records(rows), name)?;
        }
        for (step, cols) in pieces.col.iter().enumerate() {
            self.append(Piece::Col, step, &records(cols), name)?;
        }
        Ok(())
    }

    /// Assembles the archive into `path` from the spill.
    fn finish(self, path: &Path, name: &Path) -> Result<File> {
        let io = |e| Error::io(name, e);
        let nodes = self.numbering.num_sampled_nodes();
        let edges = self.numbering.num_sampled_edges().to_vec();
        let starts = self.numbering.hop_starts();
        let (total_nodes, total_edges) = (nodes.iter().sum::<u64>() as usize, edges.iter().sum::<u64>() as usize);
        let array_bytes = |len: usize| npy::npy_header_i64(&[len]).len() as u64 + 8 * len as u64;
        let largest = [total_nodes, total_edges, nodes.len(), edges.len()].into_iter().map(array_bytes).max();
        let mut archive = archive(path, largest.unwrap_or(0)).map_err(io)?;
        let mut spill = self.out.into_inner().map_err(|e| io(e.into_error()))?;
        for (array, piece, parts, len) in [
            ("node", Piece::Node, nodes.len(), total_nodes),
            ("batch", Piece::Batch, nodes.len(), total_nodes),
            ("row", Piece::Row, edges.len(), total_edges),
            ("col", Piece::Col, edges.len(), total_edges),
        ] {
            archive.start(array)?;
            archive.write_all(&npy::npy_header_i64(&[len])).map_err(io)?;
            for index in 0..parts {
                for &(offset, bytes) in self.segments.get(&(piece, index)).map_or(&[][..], Vec::as_slice) {
                    spill.seek(SeekFrom::Start(offset)).map_err(io)?;
                    let mut segment = BufReader::with_capacity(BUFFER, (&mut spill).take(bytes));
                    let copied = match piece {
                        Piece::Node | Piece::Batch => io::copy(&mut segment, &mut archive).map(drop),
                        Piece::Row | Piece::Col => copy_local_ids(&mut segment, &starts, &mut archive),
                    };
                    copied.map_err(io)?;
                }
            }
        }
        for (array, counts) in [("num_sampled_nodes", &nodes), ("num_sampled_edges", &edges)] {
            archive.start(array)?;
            archive.write_all(&npy::npy_header_i64(&[counts.len()])).map_err(io)?;
            archive.write_all(&i64_bytes(counts.iter().map(|&c| c as i64))).map_err(io)?;
        }
        finish_archive(archive).map_err(io)
    }
}

/// Copies the spilled [`LocalVertex`] records of `segment` into `out` as local ids
/// (int64), from the hops' first ids `starts`.
fn copy_local_ids(mut segment: impl Read, starts: &[u64], out: &mut impl Write) -> io::Result<()> {
    let mut records = vec![0u8; LOCAL_VERTEX_BYTES * 8192];
    loop {
        let mut filled = 0;
        while filled < records.len() {
            match segment.read(&mut records[filled..])? {
                0 => break,
                n => filled += n,
            }
        }
        if filled % LOCAL_VERTEX_BYTES != 0 {
            return Err(io::Error::other("internal: a spilled local vertex cut short"));
        }
        let mut ids = Vec::with_capacity(filled / LOCAL_VERTEX_BYTES * 8);
        for record in records[..filled].chunks_exact(LOCAL_VERTEX_BYTES) {
            let (hop, index) = record.split_at(4);
            let hop = u32::from_le_bytes(hop.try_into().map_err(io::Error::other)?) as usize;
            let index = u64::from_le_bytes(index.try_into().map_err(io::Error::other)?);
            let start =
                starts.get(hop).ok_or_else(|| io::Error::other("internal: a local vertex past the last hop"))?;
            ids.extend_from_slice(&((start + index) as i64).to_le_bytes());
        }
        out.write_all(&ids)?;
        if filled < records.len() {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::sample::{initial_samples, AppParams, ClustersArg, RootsArg};
    use glp_runtime::io::{load_graph_from_bytes, LoadOptions, WeightRule};
    use glp_runtime::sample::{SampleConfig, SampleGraph};
    use std::fmt::Write as _;

    /// The encoding `glp sample` wrote from the whole outcome before it streamed, kept as it
    /// was: the reference the streamed files must equal byte for byte.
    fn encode_whole(app: &App, graph: &Graph, outcome: &SampleOutcome, format: OutputFormat) -> Result<Vec<u8>> {
        let walks = || -> Result<Vec<u8>> {
            let (width, rows) = outcome.walks();
            let values = rows.iter().map(|v| v.map_or(Ok(-1), |v| id_i64(graph, v))).collect::<Result<Vec<i64>>>()?;
            npy::npy_i64(&[outcome.num_samples(), width], &values)
        };
        match (format, app.is_walk()) {
            (OutputFormat::Npy, true) => walks(),
            (OutputFormat::Npy, false) => Err(Error::invalid("subgraphs take an .npz file")),
            (OutputFormat::Npz, true) => npy::npz(&[("walks", walks()?)]),
            (OutputFormat::Npz, false) => {
                let batch = outcome.subgraphs()?;
                let ids = batch.node.iter().map(|&v| id_i64(graph, v)).collect::<Result<Vec<i64>>>()?;
                let array = |values: &[u64]| {
                    let values: Vec<i64> = values.iter().map(|&x| x as i64).collect();
                    npy::npy_i64(&[values.len()], &values)
                };
                npy::npz(&[
                    ("node", npy::npy_i64(&[ids.len()], &ids)?),
                    ("batch", array(&batch.batch)?),
                    ("row", array(&batch.row)?),
                    ("col", array(&batch.col)?),
                    ("num_sampled_nodes", array(&batch.num_sampled_nodes)?),
                    ("num_sampled_edges", array(&batch.num_sampled_edges)?),
                ])
            }
            (OutputFormat::Text, true) => {
                let mut text = String::new();
                for i in 0..outcome.num_samples() {
                    let s = outcome.sample(i);
                    let ids: Vec<String> =
                        s.roots.iter().chain(s.vertices).map(|&v| graph.ids.original(v).to_string()).collect();
                    text.push_str(&ids.join(" "));
                    text.push('\n');
                }
                Ok(text.into_bytes())
            }
            (OutputFormat::Text, false) => {
                let mut text = String::new();
                for i in 0..outcome.num_samples() {
                    let s = outcome.sample(i);
                    for j in 0..s.vertices.len() {
                        let (from, to) = (graph.ids.original(s.sources[j]), graph.ids.original(s.vertices[j]));
                        let _ = writeln!(text, "{i}\t{}\t{from}\t{to}", s.steps[j]);
                    }
                }
                Ok(text.into_bytes())
            }
        }
    }

    fn load(text: &[u8], directed: bool) -> Graph {
        let mut options = LoadOptions { progress: false, weights: WeightRule::NonNegative, ..LoadOptions::default() };
        options.build.symmetrise = !directed;
        load_graph_from_bytes("graph.txt", text, &options).unwrap()
    }

    fn params() -> AppParams {
        AppParams {
            walk_length: 12,
            fanouts: vec![5, 3],
            without_replacement: false,
            p: 2.0,
            q: 0.5,
            termination: 0.15,
            layers: 2,
            layer_size: 16,
            file_params: Vec::new(),
        }
    }

    /// The file `app` writes in `format` with batches of `batch` samples, and the directory's
    /// other files once it is written.
    fn streamed(app: &App, graph: &Graph, initial: &InitialSamples, format: OutputFormat, batch: usize) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        File::create(&path).unwrap();
        let mut writer = SampleWriter::create(&path, path.clone(), format, app, graph, initial).unwrap();
        let sample_graph = SampleGraph::new(&graph.csr).unwrap();
        app.run_streamed(&sample_graph, initial, 11, batch, &mut |b| writer.write(&b)).unwrap();
        writer.finish().unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["out"], "no spill file is left");
        std::fs::read(&path).unwrap()
    }

    #[test]
    fn streamed_files_equal_the_whole_outcomes_bytes_in_every_format_and_batch_size() {
        let graph = load(include_bytes!("../../data/email-Eu-core.txt"), false);
        let sample_graph = SampleGraph::new(&graph.csr).unwrap();
        let cases = [
            ("deepwalk", params(), RootsArg::Random(150), 1),
            // Walks of many lengths: batches narrower than the longest row are padded at the end.
            ("ppr", AppParams { termination: 0.5, walk_length: 40, ..params() }, RootsArg::Random(150), 1),
            ("node2vec", params(), RootsArg::Random(150), 1),
            ("multi-root-walk", params(), RootsArg::Random(60), 4),
            ("khop", params(), RootsArg::Random(150), 1),
            ("layer", params(), RootsArg::Every, 40),
            ("cluster-gcn", params(), RootsArg::Every, 3),
            ("mvs", AppParams { fanouts: vec![4, 4, 4], ..params() }, RootsArg::Random(100), 1),
        ];
        for (name, params, roots, batch) in cases {
            let app = App::new(name, &params).unwrap();
            let initial = initial_samples(&app, &graph, &roots, batch, &ClustersArg::Ranges(20), 11).unwrap();
            let whole =
                glp_runtime::sample::run(&sample_graph, app.compiled(), &initial, &SampleConfig { seed: 11 }).unwrap();
            if name == "ppr" {
                let longest = |i: usize| whole.sample(i).roots.len() + whole.sample(i).vertices.len();
                assert!(longest(0) < whole.walks().0, "a batch narrower than the array: its rows move");
            }
            let formats: &[OutputFormat] = if app.is_walk() {
                &[OutputFormat::Npy, OutputFormat::Npz, OutputFormat::Text]
            } else {
                &[OutputFormat::Npz, OutputFormat::Text]
            };
            for &format in formats {
                let expected = encode_whole(&app, &graph, &whole, format).unwrap();
                for batch in [1, 7, 4096] {
                    let bytes = streamed(&app, &graph, &initial, format, batch);
                    assert!(bytes == expected, "{name} as {format:?} in batches of {batch}");
                }
            }
        }
    }

    #[test]
    fn walks_on_a_directed_path_keep_their_input_ids_and_are_padded_to_the_longest() {
        // 1000 -> 2000 -> 3000, and 3000 has no out-edge: the walks of 3 steps from every
        // vertex are 1000 2000 3000, 2000 3000 and 3000.
        let graph = load(b"1000 2000\n2000 3000\n", true);
        let app = App::new("deepwalk", &AppParams { walk_length: 3, ..params() }).unwrap();
        let initial = InitialSamples::every_vertex(3).unwrap();
        let npy_bytes = streamed(&app, &graph, &initial, OutputFormat::Npy, 1);
        assert_eq!(npy_bytes, npy::npy_i64(&[3, 3], &[1000, 2000, 3000, 2000, 3000, -1, 3000, -1, -1]).unwrap());
        let text = streamed(&app, &graph, &initial, OutputFormat::Text, 2);
        assert_eq!(String::from_utf8(text).unwrap(), "1000 2000 3000\n2000 3000\n3000\n");
        let edges = App::new("khop", &AppParams { fanouts: vec![1, 1], ..params() }).unwrap();
        let text = streamed(&edges, &graph, &initial, OutputFormat::Text, 1);
        let expected = "0\t0\t1000\t2000\n0\t1\t2000\t3000\n1\t0\t2000\t3000\n";
        assert_eq!(String::from_utf8(text).unwrap(), expected);
    }
}
