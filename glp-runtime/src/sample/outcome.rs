//! What a sampling run produces, whole or batch by batch, and the walks shape other tools
//! read (one row of vertices per sample); the subgraph shape is in [`super::subgraphs`].

use super::roots::InitialSamples;
use crate::error::{Error, Result};
use crate::graph::VertexId;
use std::ops::Range;
use std::time::Duration;

/// Samples of a run, in sample order: the whole run (what [`super::run`] returns), or one
/// batch of it (what a streamed run hands its sink, [`super::SampleSink`]). It holds the
/// run's samples `first..first + num_samples()`; its sample `i` (the run's `first + i`) has
/// the roots `roots[root_offsets[i]..root_offsets[i + 1]]` and added the vertices
/// `vertices[offsets[i]..offsets[i + 1]]`, in the order of the steps (within a step: transit
/// by transit, draw by draw); `sources[j]` is the transit `vertices[j]` was drawn from (the
/// sampled edge is `sources[j] -> vertices[j]`) and `steps[j]` the step that added it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampleOutcome {
    /// The run's index of the first sample held (0 for a whole run).
    pub first: u64,
    /// Row offsets of the roots (`samples + 1` entries).
    pub root_offsets: Vec<u64>,
    /// The roots of every sample.
    pub roots: Vec<VertexId>,
    /// Row offsets of the added vertices (`samples + 1` entries).
    pub offsets: Vec<u64>,
    /// The added vertices.
    pub vertices: Vec<VertexId>,
    /// The transit each added vertex was drawn from.
    pub sources: Vec<VertexId>,
    /// The step that added each vertex.
    pub steps: Vec<u32>,
    /// Time of the sampling itself (a whole run's; zero in a batch).
    pub elapsed: Duration,
}

/// One sample of an outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleRef<'a> {
    /// Its roots.
    pub roots: &'a [VertexId],
    /// The vertices it added.
    pub vertices: &'a [VertexId],
    /// The transit of each added vertex.
    pub sources: &'a [VertexId],
    /// The step of each added vertex.
    pub steps: &'a [u32],
}

impl SampleOutcome {
    /// An outcome for the initial samples `samples` of `initial`, with their roots and no
    /// sample recorded yet: [`SampleOutcome::push`] records them in order.
    pub(super) fn with_roots_of(initial: &InitialSamples, samples: Range<usize>) -> Self {
        let (root_offsets, roots) = initial.parts();
        let base = root_offsets[samples.start];
        let end = root_offsets[samples.end];
        SampleOutcome {
            first: samples.start as u64,
            root_offsets: root_offsets[samples.start..=samples.end].iter().map(|&o| o - base).collect(),
            roots: roots[base as usize..end as usize].to_vec(),
            offsets: vec![0],
            ..SampleOutcome::default()
        }
    }

    /// Appends the next sample's record.
    pub(super) fn push(&mut self, vertices: &[VertexId], sources: &[VertexId], steps: &[u32]) {
        self.vertices.extend_from_slice(vertices);
        self.sources.extend_from_slice(sources);
        self.steps.extend_from_slice(steps);
        self.offsets.push(self.vertices.len() as u64);
    }

    /// Appends `batch`, the samples that follow this outcome's (its `first` is this one's
    /// `first + num_samples()`): gathers a streamed run's batches into one outcome. Errors
    /// when `batch` does not follow, or holds no more recorded samples than root rows.
    pub fn append(&mut self, batch: SampleOutcome) -> Result<()> {
        let next = self.first + self.num_samples() as u64;
        if batch.first != next || batch.offsets.len() != batch.root_offsets.len() {
            return Err(Error::invalid(format!(
                "internal: a batch of samples from {} appended after the samples {}..{next}",
                batch.first, self.first
            )));
        }
        if self.num_samples() == 0 {
            *self = SampleOutcome { first: self.first, elapsed: self.elapsed, ..batch };
            return Ok(());
        }
        let (root_base, base) = (self.roots.len() as u64, self.vertices.len() as u64);
        self.root_offsets.extend(batch.root_offsets[1..].iter().map(|&o| o + root_base));
        self.roots.extend_from_slice(&batch.roots);
        self.offsets.extend(batch.offsets[1..].iter().map(|&o| o + base));
        self.vertices.extend_from_slice(&batch.vertices);
        self.sources.extend_from_slice(&batch.sources);
        self.steps.extend_from_slice(&batch.steps);
        Ok(())
    }

    /// Number of samples.
    pub fn num_samples(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Vertices added by all samples (NextDoor's "sampled vertices"; roots excluded).
    pub fn sampled_vertices(&self) -> u64 {
        self.vertices.len() as u64
    }

    /// Sample `i` of this outcome (the run's `first + i`).
    pub fn sample(&self, i: usize) -> SampleRef<'_> {
        let r = self.root_offsets[i] as usize..self.root_offsets[i + 1] as usize;
        let a = self.offsets[i] as usize..self.offsets[i + 1] as usize;
        SampleRef {
            roots: &self.roots[r],
            vertices: &self.vertices[a.clone()],
            sources: &self.sources[a.clone()],
            steps: &self.steps[a],
        }
    }

    /// The samples as walks: row `i` is sample `i`'s roots followed by the vertices it added,
    /// padded with `None` to the longest row. Returns the row length and the rows. Panics,
    /// as any allocation does, when they do not fit in memory ([`SampleOutcome::walk_rows`]
    /// says so instead).
    pub fn walks(&self) -> (usize, Vec<Option<VertexId>>) {
        self.walk_rows(Some, None).expect("walk rows that fit in memory")
    }

    /// [`SampleOutcome::walks`] with each vertex as `vertex(v)` and the padding as `padding`,
    /// an error (not an abort) when the padded rows do not fit in memory: walks of very
    /// different lengths pad to the longest.
    pub fn walk_rows<T: Clone>(&self, vertex: impl Fn(VertexId) -> T, padding: T) -> Result<(usize, Vec<T>)> {
        let width = (0..self.num_samples())
            .map(|i| {
                let s = self.sample(i);
                s.roots.len() + s.vertices.len()
            })
            .max()
            .unwrap_or(0);
        let entries = width.saturating_mul(self.num_samples());
        let mut rows = Vec::new();
        rows.try_reserve_exact(entries).map_err(|_| {
            Error::TooLarge(format!(
                "{} walks padded to the longest ({width} vertices) take {entries} entries, more than memory holds",
                self.num_samples()
            ))
        })?;
        for i in 0..self.num_samples() {
            let s = self.sample(i);
            rows.extend(s.roots.iter().chain(s.vertices).map(|&v| vertex(v)));
            rows.resize(rows.len() + width - s.roots.len() - s.vertices.len(), padding.clone());
        }
        Ok((width, rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_holds_its_samples_roots_and_appends_after_the_samples_before() {
        // Samples with roots [1, 2], [3], [4, 5, 6].
        let initial = InitialSamples::groups(vec![0, 2, 3, 6], vec![1, 2, 3, 4, 5, 6], 10).unwrap();
        let mut first = SampleOutcome::with_roots_of(&initial, 0..1);
        first.push(&[7, 8], &[1, 7], &[0, 1]);
        let mut rest = SampleOutcome::with_roots_of(&initial, 1..3);
        assert_eq!((rest.first, &rest.root_offsets, &rest.roots), (1, &vec![0, 1, 4], &vec![3, 4, 5, 6]));
        rest.push(&[9], &[3], &[0]);
        rest.push(&[], &[], &[]);
        assert_eq!(rest.sample(0).roots, [3]);
        assert_eq!(rest.sample(1).roots, [4, 5, 6]);
        // Out of order: refused.
        let mut empty = SampleOutcome::with_roots_of(&initial, 0..0);
        assert!(empty.append(rest.clone()).is_err());
        empty.append(first).unwrap();
        empty.append(rest).unwrap();
        assert_eq!(empty.root_offsets, [0, 2, 3, 6]);
        assert_eq!(empty.roots, [1, 2, 3, 4, 5, 6]);
        assert_eq!(empty.offsets, [0, 2, 3, 3]);
        assert_eq!(empty.vertices, [7, 8, 9]);
        assert_eq!(empty.sources, [1, 7, 3]);
        assert_eq!(empty.steps, [0, 1, 0]);
        assert_eq!(empty.num_samples(), 3);
    }
}
