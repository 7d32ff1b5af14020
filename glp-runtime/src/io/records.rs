//! Parallel parsing of line-per-record formats straight into the final id buffer.
//!
//! Edge lists, CSV, `.e` files and Matrix Market files hold at most a fixed number of edges
//! per line (one; two for skew-symmetric matrices). So the parser first counts the lines of
//! every chunk (a `memchr` pass, several GB/s), which bounds the chunk's edges, as does its
//! size: a line with an edge takes at least [`MIN_RECORD_BYTES`] bytes, so input of blank
//! lines cannot make the buffer larger than the file's bytes allow. It then lays out one
//! zero-initialised buffer with a region per chunk (all sources, then all targets, then the
//! declared vertices, as [`ParsedGraph::ids`] wants them), and lets every chunk write its
//! edges into its own region in parallel. Comment and blank lines leave gaps, which one
//! ordered pass of `copy_within` closes afterwards; the usual file (comments only before the
//! first data line, which is where parsing starts) has none.
//!
//! Compared with per-chunk vectors followed by a concatenation, this writes every id once
//! instead of twice and needs half the peak memory; fresh memory is expensive (each new page
//! is a fault), so the copy avoided is a measurable part of loading time.

use super::assemble::{ParsedGraph, VertexSet};
use super::progress::Progress;
use super::text::{Fault, Lines, Text};
use crate::error::Result;
use crate::memory::{close_gaps, try_zeroed};
use rayon::prelude::*;
use std::ops::Range;

/// The fewest bytes of a line that holds an edge: two one-digit ids, a separator and a line
/// end (the input's last line may lack its line end, hence the `+ 1` where this is used).
const MIN_RECORD_BYTES: usize = 4;

/// Where one chunk writes its edges.
#[derive(Debug)]
pub(crate) struct EdgeSink<'s> {
    sources: &'s mut [u64],
    targets: &'s mut [u64],
    weights: &'s mut [f32],
    len: usize,
}

impl EdgeSink<'_> {
    /// Appends an edge (`weight` when the input is weighted); `at` is the offset of its line,
    /// reported should the chunk hold more edges than its lines allow (a bug, never a panic).
    #[inline]
    pub(crate) fn push(&mut self, at: usize, source: u64, target: u64, weight: Option<f32>) -> Result<(), Fault> {
        let i = self.len;
        let (Some(s), Some(t)) = (self.sources.get_mut(i), self.targets.get_mut(i)) else {
            return Err(Fault::new(at, "internal error: more edges than the line count of this part allows"));
        };
        *s = source;
        *t = target;
        if let (Some(w), Some(slot)) = (weight, self.weights.get_mut(i)) {
            *slot = w;
        }
        self.len += 1;
        Ok(())
    }

    /// Edges written so far.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// What [`parse_records`] produces besides the edges.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout<'d> {
    /// Most edges one line can hold.
    pub edges_per_line: usize,
    /// Whether edges carry weights.
    pub weighted: bool,
    /// Ids appended after the endpoints (a `.v` file's vertices).
    pub declared: &'d [u64],
    /// How to read the vertex set.
    pub vertices: VertexSet,
}

/// Parses `range` of `text` in parallel chunks with `parse`, which writes at most
/// `layout.edges_per_line` edges per line into its sink.
pub(crate) fn parse_records<'a, F>(
    text: Text<'a>,
    range: Range<usize>,
    layout: Layout<'_>,
    progress: &Progress,
    parse: F,
) -> Result<ParsedGraph>
where
    F: Fn(Lines<'a>, &mut EdgeSink<'_>) -> Result<(), Fault> + Sync,
{
    let Layout { edges_per_line, weighted, declared, vertices } = layout;
    let chunks = text.chunks(range);
    let capacities: Vec<usize> = chunks
        .par_iter()
        .map(|r| text.count_lines(r.clone()).min((r.len() + 1) / MIN_RECORD_BYTES) * edges_per_line)
        .collect();
    let bound: usize = capacities.iter().sum();
    let mut ids: Vec<u64> = try_zeroed(2 * bound + declared.len(), "the parsed vertex ids")?;
    let mut weights: Vec<f32> = try_zeroed(if weighted { bound } else { 0 }, "the parsed weights")?;

    let counts = {
        let (sources, rest) = ids.split_at_mut(bound);
        let targets = &mut rest[..bound];
        let sinks = split_regions(sources, targets, &mut weights, &capacities);
        let results: Vec<Result<usize, Fault>> = chunks
            .into_par_iter()
            .zip(sinks)
            .map(|(piece, mut sink)| {
                let bytes = piece.len() as u64;
                let result = parse(text.lines_in(piece), &mut sink).map(|()| sink.len());
                progress.inc(bytes);
                result
            })
            .collect();
        // Chunks are in input order and each stops at its first fault: the first error met
        // is the first fault of the input.
        results.into_iter().collect::<Result<Vec<usize>, Fault>>().map_err(|fault| text.error(fault))?
    };

    let edges: usize = counts.iter().sum();
    close_gaps(&mut ids, &capacities, &counts, 0, 0);
    close_gaps(&mut ids, &capacities, &counts, bound, edges);
    ids.truncate(2 * edges);
    ids.extend_from_slice(declared);
    let weights = weighted.then(|| {
        close_gaps(&mut weights, &capacities, &counts, 0, 0);
        weights.truncate(edges);
        weights
    });
    Ok(ParsedGraph { ids, edges, weights, vertices })
}

/// Splits the buffers into one sink per chunk, of the chunk's capacity.
fn split_regions<'s>(
    mut sources: &'s mut [u64],
    mut targets: &'s mut [u64],
    mut weights: &'s mut [f32],
    capacities: &[usize],
) -> Vec<EdgeSink<'s>> {
    let mut sinks = Vec::with_capacity(capacities.len());
    for &capacity in capacities {
        let (s, s_rest) = std::mem::take(&mut sources).split_at_mut(capacity);
        let (t, t_rest) = std::mem::take(&mut targets).split_at_mut(capacity);
        let w_len = capacity.min(weights.len());
        let (w, w_rest) = std::mem::take(&mut weights).split_at_mut(w_len);
        sinks.push(EdgeSink { sources: s, targets: t, weights: w, len: 0 });
        (sources, targets, weights) = (s_rest, t_rest, w_rest);
    }
    sinks
}
