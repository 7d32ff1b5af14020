//! Agreement of two partitions: normalised mutual information (NMI) and the adjusted Rand
//! index (ARI).
//!
//! Both compare only the vertices labelled in *both* partitions ([`UNLABELLED`] is skipped on
//! either side) and report how many that was. Label values are arbitrary `u32`s: labels
//! below `n` index the table's rows and columns directly, larger (sparse) ones go through
//! their rank among the distinct labels (see [`ContingencyTable`]). Counts are integers;
//! everything derived from them is `f64` (ARI's pair counts are combined exactly in `i128`
//! first).
//!
//! ## NMI
//!
//! With `N` compared vertices, `n_ij` the vertices with label `i` in `a` and `j` in `b`, and
//! row and column sums `a_i`, `b_j` (natural logarithms, entropies in nats):
//!
//! ```text
//! I(A;B) = sum_ij (n_ij / N) ln(N n_ij / (a_i b_j))      H(A) = sum_i (a_i / N) ln(N / a_i)
//! NMI    = I(A;B) / ((H(A) + H(B)) / 2)
//! ```
//!
//! The arithmetic mean of the entropies is scikit-learn's default
//! (`normalized_mutual_info_score`, `average_method="arithmetic"`), equal to the V-measure.
//! The alternatives (geometric mean, Strehl & Ghosh 2002; min; max) are available through
//! [`Nmi::normalised`]. Only zero terms are ever skipped (`0 ln 0 = 0`: absent cells are not
//! stored). Degenerate cases follow scikit-learn: when both partitions have a single cluster
//! (identical on the compared vertices) NMI is 1; otherwise when `I = 0` NMI is 0, which
//! covers every zero normaliser. Rounding is clamped: `I` to `[0, min(H(A), H(B))]`, NMI to
//! `[0, 1]`.
//!
//! ## ARI
//!
//! Hubert & Arabie (1985), with `C(x) = x (x - 1) / 2` pairs:
//!
//! ```text
//! index = sum_ij C(n_ij)   A = sum_i C(a_i)   B = sum_j C(b_j)   T = C(N)
//! ARI   = (index - A B / T) / ((A + B) / 2 - A B / T)
//!       = 2 (index T - A B) / (T (A + B) - 2 A B)
//! ```
//!
//! evaluated in exact integers (every term fits `i128`, as `N < 2^32`) and divided once in
//! `f64`. The denominator is 0 only when both partitions are a single cluster, both are all
//! singletons, or `N < 2`: the partitions then agree on every pair and ARI is 1, as in
//! scikit-learn.

use crate::community::UNLABELLED;
use crate::error::{Error, Result};
use rayon::prelude::*;
use serde::Serialize;

use super::slots::LabelIndex;
use super::sum::deterministic_sum;

/// Vertices per parallel task when mapping labels to rows and columns.
const CHUNK: usize = 1 << 14;

/// Rows per parallel task when counting cells.
const ROWS_PER_TASK: usize = 512;

/// Rows longer than this are sorted in parallel (a giant cluster must not serialise the pass).
const LONG_ROW: usize = 1 << 16;

/// One non-zero cell of a contingency table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Label in the first partition.
    pub a: u32,
    /// Label in the second partition.
    pub b: u32,
    /// Vertices carrying both labels.
    pub count: u64,
}

/// What one task of the row pass produces: `(column, count)` cells of its rows, end to end,
/// and the number of its cells after each of its rows.
type CountedRows = (Vec<(u32, u64)>, Vec<usize>);

/// The sparse contingency table of two partitions over the vertices labelled in both.
///
/// Built in O(n) plus the sorting of each row's column indices: labels are mapped to dense
/// row and column indices in parallel (the label itself when it is below `n`, else its rank
/// among the distinct labels), vertices are grouped by row with a sequential counting sort,
/// and each row's column indices are sorted and counted in parallel. Cells come out
/// ascending by `(a, b)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContingencyTable {
    compared: u64,
    cells: Vec<Cell>,
    /// Index in `rows` of each cell's row.
    cell_rows: Vec<u32>,
    /// Dense column index of each cell, for direct access to `column_sums`.
    cell_columns: Vec<u32>,
    rows: Vec<(u32, u64)>,
    /// Vertices per dense column index (0 for label values nobody carries).
    column_sums: Vec<u64>,
    columns: Vec<(u32, u64)>,
}

impl ContingencyTable {
    /// Counts the label pairs of `a` and `b` (one label per vertex each).
    ///
    /// Errors when the two slices differ in length or hold more than `u32::MAX` entries.
    pub fn new(a: &[u32], b: &[u32]) -> Result<Self> {
        if a.len() != b.len() {
            return Err(Error::invalid(format!("cannot compare partitions of {} and {} vertices", a.len(), b.len())));
        }
        if a.len() > u32::MAX as usize {
            return Err(Error::TooLarge(format!(
                "cannot compare partitions of {} vertices (at most 2^32 - 1)",
                a.len()
            )));
        }
        let (index_a, index_b) = (LabelIndex::new(a), LabelIndex::new(b));
        // (row, column) of every vertex labelled in both, in vertex order.
        let pairs: Vec<(u32, u32)> = a
            .par_chunks(CHUNK)
            .zip(b.par_chunks(CHUNK))
            .flat_map_iter(|(chunk_a, chunk_b)| {
                chunk_a
                    .iter()
                    .zip(chunk_b)
                    .filter(|&(&x, &y)| x != UNLABELLED && y != UNLABELLED)
                    .map(|(&x, &y)| (index_a.index(x) as u32, index_b.index(y) as u32))
            })
            .collect();
        // Counting sort by row. Sequential, O(n): atomic counters would contend on the few hot
        // counters of a partition with few, large clusters, and measured slower on the
        // workloads that matter (a partition with thousands of classes).
        let (k_a, k_b) = (index_a.len(), index_b.len());
        let mut row_start = vec![0usize; k_a + 1];
        let mut column_sums = vec![0u64; k_b];
        for &(r, c) in &pairs {
            row_start[r as usize + 1] += 1;
            column_sums[c as usize] += 1;
        }
        for r in 0..k_a {
            row_start[r + 1] += row_start[r];
        }
        let mut cursor = row_start[..k_a].to_vec();
        let mut grouped = vec![0u32; pairs.len()];
        for &(r, c) in &pairs {
            grouped[cursor[r as usize]] = c;
            cursor[r as usize] += 1;
        }
        drop((pairs, cursor));
        // Cells of each non-empty row: its column indices sorted and counted, in parallel.
        // Each task returns its cells and, per row, the number of its cells so far.
        let nonempty: Vec<u32> =
            (0..k_a as u32).into_par_iter().filter(|&r| row_start[r as usize + 1] > row_start[r as usize]).collect();
        let counted: Vec<CountedRows> = nonempty
            .par_chunks(ROWS_PER_TASK)
            .map(|rows| {
                let (mut cells, mut ends, mut row) = (Vec::new(), Vec::with_capacity(rows.len()), Vec::new());
                for &r in rows {
                    row.clear();
                    row.extend_from_slice(&grouped[row_start[r as usize]..row_start[r as usize + 1]]);
                    if row.len() > LONG_ROW {
                        row.par_sort_unstable();
                    } else {
                        row.sort_unstable();
                    }
                    for run in row.chunk_by(|x, y| x == y) {
                        cells.push((run[0], run.len() as u64));
                    }
                    ends.push(cells.len());
                }
                (cells, ends)
            })
            .collect();
        // Lay the tasks' cells end to end, each task filling its own slices in parallel.
        let total_cells: usize = counted.iter().map(|(cells, _)| cells.len()).sum();
        let mut cells = vec![Cell { a: 0, b: 0, count: 0 }; total_cells];
        let (mut cell_rows, mut cell_columns) = (vec![0u32; total_cells], vec![0u32; total_cells]);
        let mut slices = Vec::with_capacity(counted.len());
        {
            let (mut cells_left, mut rows_left, mut columns_left) =
                (&mut cells[..], &mut cell_rows[..], &mut cell_columns[..]);
            for (task_cells, _) in &counted {
                let len = task_cells.len();
                let (c, rest) = std::mem::take(&mut cells_left).split_at_mut(len);
                cells_left = rest;
                let (r, rest) = std::mem::take(&mut rows_left).split_at_mut(len);
                rows_left = rest;
                let (k, rest) = std::mem::take(&mut columns_left).split_at_mut(len);
                columns_left = rest;
                slices.push((c, r, k));
            }
        }
        slices.into_par_iter().zip(counted.par_iter()).enumerate().for_each(
            |(task, ((cells_out, rows_out, columns_out), (task_cells, ends)))| {
                let first_row = task * ROWS_PER_TASK;
                let mut start = 0;
                for (i, &end) in ends.iter().enumerate() {
                    let row = first_row + i;
                    let a = index_a.label(nonempty[row] as usize);
                    for k in start..end {
                        let (c, count) = task_cells[k];
                        cells_out[k] = Cell { a, b: index_b.label(c as usize), count };
                        rows_out[k] = row as u32;
                        columns_out[k] = c;
                    }
                    start = end;
                }
            },
        );
        let rows: Vec<(u32, u64)> = nonempty
            .par_iter()
            .map(|&r| (index_a.label(r as usize), (row_start[r as usize + 1] - row_start[r as usize]) as u64))
            .collect();
        let columns: Vec<(u32, u64)> = (0..k_b)
            .into_par_iter()
            .filter(|&c| column_sums[c] > 0)
            .map(|c| (index_b.label(c), column_sums[c]))
            .collect();
        Ok(ContingencyTable {
            compared: grouped.len() as u64,
            cells,
            cell_rows,
            cell_columns,
            rows,
            column_sums,
            columns,
        })
    }

    /// Vertices labelled in both partitions.
    pub fn compared(&self) -> u64 {
        self.compared
    }

    /// Non-zero cells, ascending by `(a, b)`.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// `(label, vertices)` of the first partition's clusters, ascending by label.
    pub fn rows(&self) -> &[(u32, u64)] {
        &self.rows
    }

    /// `(label, vertices)` of the second partition's clusters, ascending by label.
    pub fn columns(&self) -> &[(u32, u64)] {
        &self.columns
    }

    fn require_vertices(&self) -> Result<()> {
        if self.compared == 0 {
            return Err(Error::invalid("no vertex is labelled in both partitions: nothing to compare"));
        }
        Ok(())
    }

    /// Mutual information, entropies and NMI (see the module docs).
    ///
    /// Errors when no vertex is labelled in both partitions.
    pub fn nmi(&self) -> Result<Nmi> {
        self.require_vertices()?;
        let n = self.compared as f64;
        let entropy = |sums: &[(u32, u64)]| {
            deterministic_sum(sums.len(), |i| {
                let x = sums[i].1 as f64;
                x / n * (n / x).ln()
            })
            .max(0.0)
        };
        let (entropy_a, entropy_b) = (entropy(&self.rows), entropy(&self.columns));
        let mutual_information = deterministic_sum(self.cells.len(), |k| {
            let count = self.cells[k].count;
            let joint = self.compared as u128 * count as u128;
            let row_sum = self.rows[self.cell_rows[k] as usize].1 as u128;
            let independent = row_sum * self.column_sums[self.cell_columns[k] as usize] as u128;
            count as f64 / n * (joint as f64 / independent as f64).ln()
        })
        .clamp(0.0, entropy_a.min(entropy_b));
        let mut nmi = Nmi {
            value: 0.0,
            compared: self.compared,
            clusters_a: self.rows.len(),
            clusters_b: self.columns.len(),
            mutual_information,
            entropy_a,
            entropy_b,
        };
        nmi.value = nmi.normalised(NmiNormalisation::Arithmetic);
        Ok(nmi)
    }

    /// Adjusted Rand index (see the module docs).
    ///
    /// Errors when no vertex is labelled in both partitions.
    pub fn ari(&self) -> Result<Ari> {
        self.require_vertices()?;
        let pairs = |x: u64| x as i128 * (x as i128 - 1) / 2;
        // Exact integer sums: the result does not depend on the order of addition.
        let index: i128 = self.cells.par_iter().map(|c| pairs(c.count)).sum();
        let sum_a: i128 = self.rows.par_iter().map(|&(_, x)| pairs(x)).sum();
        let sum_b: i128 = self.columns.par_iter().map(|&(_, x)| pairs(x)).sum();
        let total = pairs(self.compared);
        let exact = || -> Option<(i128, i128)> {
            let numerator = index.checked_mul(total)?.checked_sub(sum_a.checked_mul(sum_b)?)?.checked_mul(2)?;
            let denominator =
                total.checked_mul(sum_a + sum_b)?.checked_sub(sum_a.checked_mul(sum_b)?.checked_mul(2)?)?;
            Some((numerator, denominator))
        };
        let value = match exact() {
            Some((_, 0)) => 1.0,
            Some((numerator, denominator)) => numerator as f64 / denominator as f64,
            // Only for more than 2^32 compared vertices: the same formula in f64.
            None => {
                let (index, sum_a, sum_b, total) = (index as f64, sum_a as f64, sum_b as f64, total as f64);
                let expected = sum_a * sum_b / total;
                (index - expected) / ((sum_a + sum_b) / 2.0 - expected)
            }
        };
        Ok(Ari { value, compared: self.compared })
    }
}

/// How mutual information is normalised into NMI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum NmiNormalisation {
    /// `I / ((H(A) + H(B)) / 2)`: scikit-learn's default, the V-measure.
    Arithmetic,
    /// `I / sqrt(H(A) H(B))`: Strehl & Ghosh (2002).
    Geometric,
    /// `I / min(H(A), H(B))`.
    Min,
    /// `I / max(H(A), H(B))`.
    Max,
}

/// Normalised mutual information of two partitions, with its ingredients.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Nmi {
    /// NMI with the arithmetic-mean normalisation.
    pub value: f64,
    /// Vertices labelled in both partitions (the only ones compared).
    pub compared: u64,
    /// Clusters of the first partition among the compared vertices.
    pub clusters_a: usize,
    /// Clusters of the second partition among the compared vertices.
    pub clusters_b: usize,
    /// `I(A; B)` in nats.
    pub mutual_information: f64,
    /// `H(A)` in nats.
    pub entropy_a: f64,
    /// `H(B)` in nats.
    pub entropy_b: f64,
}

impl Nmi {
    /// NMI under another normalisation, with the same degenerate-case rules.
    pub fn normalised(&self, normalisation: NmiNormalisation) -> f64 {
        if self.clusters_a == 1 && self.clusters_b == 1 {
            return 1.0;
        }
        if self.mutual_information == 0.0 {
            return 0.0;
        }
        let (ha, hb) = (self.entropy_a, self.entropy_b);
        let normaliser = match normalisation {
            NmiNormalisation::Arithmetic => (ha + hb) / 2.0,
            NmiNormalisation::Geometric => (ha * hb).sqrt(),
            NmiNormalisation::Min => ha.min(hb),
            NmiNormalisation::Max => ha.max(hb),
        };
        (self.mutual_information / normaliser).clamp(0.0, 1.0)
    }
}

/// Adjusted Rand index of two partitions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ari {
    /// ARI: 1 for identical partitions, 0 in expectation for random ones, can be negative.
    pub value: f64,
    /// Vertices labelled in both partitions (the only ones compared).
    pub compared: u64,
}

/// NMI (arithmetic normalisation) of the partitions `a` and `b` over the vertices labelled in
/// both.
///
/// Errors when the lengths differ or no vertex is labelled in both.
pub fn nmi(a: &[u32], b: &[u32]) -> Result<Nmi> {
    ContingencyTable::new(a, b)?.nmi()
}

/// ARI of the partitions `a` and `b` over the vertices labelled in both.
///
/// Errors when the lengths differ or no vertex is labelled in both.
pub fn ari(a: &[u32], b: &[u32]) -> Result<Ari> {
    ContingencyTable::new(a, b)?.ari()
}
