//! A batch of walks on the host as the walk engines download it, and its samples from there.
//!
//! The kernels leave walks step-major: row `l` holds every walk's vertex at level `l` (row 0
//! the roots), a walk ends at its first NONE, and what a row holds past a walk's end is never
//! read. The walk engine ([`super::walks`]) downloads its matrix whole: one [`RowWindow`] of
//! every walk. The ring engine ([`super::ring_walks`]) downloads rows as every walk passes
//! them, and once a quarter of the walks of its window have ended it starts a window of the
//! others ([`WindowCollector`]; the device gathers their rows, `glp_sample_walk_window`): a
//! batch whose longest walk is twenty times the mean (PPR stopping at random) then costs
//! about what its walks hold, not the longest walk's rows for every walk.

use crate::error::Result;
use crate::graph::VertexId;
use crate::sample::outcome::SampleOutcome;
use crate::sample::roots::InitialSamples;
use crate::sample::sampler::NONE;
use rayon::prelude::*;

/// Walks per tile of the conversion to samples (a tile of 100-step walks is 400 KiB: it stays
/// in the host's cache while it is transposed).
const TILE: usize = 1024;

/// A batch of walks as the kernels left them: the walks of samples `first..`, sample
/// `first + j`'s in column `columns[j]`, in windows of rows one after the other (the first
/// holds every column from row 0).
pub(super) struct WalkBatch {
    pub first: u64,
    pub columns: Vec<u32>,
    pub windows: Vec<RowWindow>,
}

/// Rows `first_row..` of the walks in columns `alive` (ascending), row-major: the row
/// `first_row + r` of column `alive[k]` at `entries[r * alive.len() + k]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RowWindow {
    pub first_row: usize,
    pub alive: Vec<u32>,
    pub entries: Vec<VertexId>,
}

impl RowWindow {
    /// The step-major matrix of `count` walks (rows of `count` entries), from row 0.
    pub fn matrix(count: usize, entries: Vec<VertexId>) -> Self {
        RowWindow { first_row: 0, alive: (0..count as u32).collect(), entries }
    }

    fn rows(&self) -> usize {
        self.entries.len().checked_div(self.alive.len()).unwrap_or(0)
    }

    /// Where column `c` of a batch of `count` walks lies in a row (`None`: its walk ended
    /// before the window).
    fn position(&self, count: usize, c: u32) -> Option<usize> {
        if self.alive.len() == count {
            Some(c as usize)
        } else {
            self.alive.binary_search(&c).ok()
        }
    }
}

/// Calls `f(vertex)` for each vertex column `c`'s walk (of a batch of `count`) added, up to
/// its first NONE.
#[inline]
fn for_each_step(windows: &[RowWindow], count: usize, c: u32, mut f: impl FnMut(VertexId)) {
    for window in windows {
        let Some(k) = window.position(count, c) else { return };
        let width = window.alive.len();
        for (r, row) in window.entries.chunks_exact(width).enumerate() {
            let (level, v) = (window.first_row + r, row[k]);
            if level > 0 {
                if v == NONE {
                    return;
                }
                f(v);
            }
        }
    }
}

/// The samples of `batch` as an outcome.
pub(super) fn outcome_of(initial: &InitialSamples, batch: WalkBatch) -> Result<SampleOutcome> {
    let (first, count) = (batch.first as usize, batch.columns.len());
    let mut outcome = SampleOutcome::with_roots_of(initial, first..first + count);
    append_walks(&mut outcome, &batch.windows, &batch.columns)?;
    Ok(outcome)
}

/// Appends the walks of `windows` to `outcome`, the batch's `j`-th sample's in column
/// `columns[j]`: each walk's vertices up to its first NONE (drawn from the vertex before, at
/// the step before: the outcome's records are the walks' own, [`SampleOutcome::set_walks`]).
fn append_walks(outcome: &mut SampleOutcome, windows: &[RowWindow], columns: &[u32]) -> Result<()> {
    let count = columns.len();
    let lengths: Vec<usize> = columns
        .par_iter()
        .with_min_len(TILE)
        .map(|&c| {
            let mut length = 0;
            for_each_step(windows, count, c, |_| length += 1);
            length
        })
        .collect();
    let start = outcome.vertices.len();
    let added: usize = lengths.iter().sum();
    outcome.vertices.resize(start + added, NONE);
    let mut offset = start as u64;
    for &length in &lengths {
        offset += length as u64;
        outcome.offsets.push(offset);
    }
    // Split the new entries by tile of walks and fill the tiles in parallel.
    let mut tiles = Vec::new();
    let mut vertices = &mut outcome.vertices[start..];
    for (tile_lengths, tile_columns) in lengths.chunks(TILE).zip(columns.chunks(TILE)) {
        let size: usize = tile_lengths.iter().sum();
        let (v, rest) = std::mem::take(&mut vertices).split_at_mut(size);
        vertices = rest;
        tiles.push((tile_columns, v));
    }
    tiles.into_par_iter().for_each(|(tile_columns, v)| {
        let mut at = 0;
        for &c in tile_columns {
            for_each_step(windows, count, c, |vertex| {
                v[at] = vertex;
                at += 1;
            });
        }
    });
    outcome.set_walks()
}

/// The windows of a batch of `count` walks as the ring engine downloads their rows, row after
/// row from row 0: a window holds the columns of the walks that ran at its first row, and a
/// new one starts once a quarter of them have ended ([`WindowCollector::narrow`]).
pub(super) struct WindowCollector {
    windows: Vec<RowWindow>,
    /// Per column of the last window, whether its walk has not met its NONE yet.
    running: Vec<bool>,
    running_count: usize,
}

impl WindowCollector {
    pub fn new(count: usize) -> Self {
        WindowCollector {
            windows: vec![RowWindow::matrix(count, Vec::new())],
            running: vec![true; count],
            running_count: count,
        }
    }

    /// The columns of the window the next rows go to.
    pub fn alive(&self) -> &[u32] {
        &self.windows.last().expect("a collector holds a window").alive
    }

    /// The row the next rows start at.
    pub fn next_row(&self) -> usize {
        let window = self.windows.last().expect("a collector holds a window");
        window.first_row + window.rows()
    }

    /// Appends `rows` rows of the last window's columns, filled by `download` (row-major, as
    /// [`RowWindow::entries`]), and notes the walks that end in them.
    pub fn download_rows(&mut self, rows: usize, download: impl FnOnce(&mut [VertexId]) -> Result<()>) -> Result<()> {
        let next_row = self.next_row();
        let window = self.windows.last_mut().expect("a collector holds a window");
        let width = window.alive.len();
        let at = window.entries.len();
        window.entries.resize(at + rows * width, NONE);
        download(&mut window.entries[at..])?;
        for (r, row) in window.entries[at..].chunks_exact(width).enumerate() {
            if next_row + r == 0 {
                continue; // the roots
            }
            for (running, &v) in self.running.iter_mut().zip(row) {
                if *running && v == NONE {
                    *running = false;
                    self.running_count -= 1;
                }
            }
        }
        Ok(())
    }

    /// Starts a window of the walks still running when a quarter of the last window's have
    /// ended (and some run); whether it did.
    pub fn narrow(&mut self) -> bool {
        let width = self.alive().len();
        if self.running_count == 0 || self.running_count * 4 > width * 3 {
            return false;
        }
        let first_row = self.next_row();
        let alive: Vec<u32> =
            self.alive().iter().zip(&self.running).filter(|&(_, &running)| running).map(|(&c, _)| c).collect();
        self.running = vec![true; alive.len()];
        self.windows.push(RowWindow { first_row, alive, entries: Vec::new() });
        true
    }

    /// The batch's windows (those that hold rows).
    pub fn finish(self) -> Vec<RowWindow> {
        self.windows.into_iter().filter(|w| !w.entries.is_empty()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_major_matrix_becomes_rows_up_to_each_walks_first_none() {
        // Three walks of two steps: 0 -> 5 -> 6; 1 -> 7 -> NONE; 2 -> NONE, in columns 1, 0
        // and 2; rows past a walk's first NONE hold stale values, never read.
        let matrix = vec![1, 0, 2, 7, 5, NONE, NONE, 6, 9];
        let initial = InitialSamples::given(vec![0, 1, 2], 10).unwrap();
        let mut outcome = SampleOutcome::with_roots_of(&initial, 0..3);
        append_walks(&mut outcome, &[RowWindow::matrix(3, matrix)], &[1, 0, 2]).unwrap();
        assert_eq!(outcome.offsets, [0, 2, 3, 3]);
        assert_eq!(outcome.vertices, [5, 6, 7]);
        assert_eq!(*outcome.sources(), [0, 5, 1]);
        assert_eq!(*outcome.steps(), [0, 1, 0]);
    }

    /// Walks of random lengths downloaded a few rows at a time through a collector give the
    /// samples of their whole matrix, and the windows narrow as walks end.
    #[test]
    fn windows_of_the_running_walks_give_the_whole_matrixs_samples() {
        let (count, rows) = (40usize, 60usize);
        // Column c's walk: vertices 1000 * c + level, ending after a few steps, one walk in
        // eight after fifty or more (as PPR's lengths: most short, a few long); stale values
        // past the end.
        let length = |c: usize| if c.is_multiple_of(8) { 50 + c % 9 } else { c % 11 };
        let value = |l: usize, c: usize| if l == length(c) + 1 { NONE } else { (1000 * c + l) as VertexId };
        let matrix: Vec<VertexId> = (0..rows).flat_map(|l| (0..count).map(move |c| value(l, c))).collect();
        let columns: Vec<u32> = (0..count as u32).rev().collect();
        let initial = InitialSamples::given(columns.iter().map(|&c| 1000 * c).collect(), 40_000).unwrap();
        let mut whole = SampleOutcome::with_roots_of(&initial, 0..count);
        append_walks(&mut whole, &[RowWindow::matrix(count, matrix.clone())], &columns).unwrap();

        let mut collector = WindowCollector::new(count);
        let mut row = 0;
        for take in [1, 3, 2, 5, 4].into_iter().cycle() {
            let take = take.min(rows - row);
            let alive = collector.alive().to_vec();
            collector
                .download_rows(take, |out| {
                    for (r, out_row) in out.chunks_exact_mut(alive.len()).enumerate() {
                        for (slot, &c) in out_row.iter_mut().zip(&alive) {
                            *slot = matrix[(row + r) * count + c as usize];
                        }
                    }
                    Ok(())
                })
                .unwrap();
            row += take;
            collector.narrow();
            if row == rows {
                break;
            }
        }
        let windows = collector.finish();
        assert!(windows.len() > 3, "{} windows", windows.len());
        let held: usize = windows.iter().map(|w| w.entries.len()).sum();
        assert!(held < matrix.len() / 2, "{held} entries held of {}", matrix.len());
        let mut windowed = SampleOutcome::with_roots_of(&initial, 0..count);
        append_walks(&mut windowed, &windows, &columns).unwrap();
        assert_eq!(windowed.offsets, whole.offsets);
        assert_eq!(windowed.vertices, whole.vertices);
        // Each walk its own length, independently of the code under test.
        for (j, &c) in columns.iter().enumerate() {
            assert_eq!(whole.offsets[j + 1] - whole.offsets[j], length(c as usize).min(rows - 1) as u64);
        }
    }
}
