//! What a sampling run produces, whole or batch by batch, and the walks shape other tools
//! read (one row of vertices per sample); the subgraph shape is in [`super::subgraphs`].

use super::roots::InitialSamples;
use crate::error::{Error, Result};
use crate::graph::VertexId;
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::Range;
use std::time::Duration;

mod parts;
pub(super) use parts::{BatchParts, RecordParts};

/// The room [`SampleOutcome::reserve_like_held`] adds to its estimate, as a fraction (1 /
/// this): the first batch's density estimates the rest only roughly (PPR's walks stop at
/// random; a k-hop's first roots may have smaller rows than the rest), and an estimate short
/// by one vertex doubled the array, copying all of it on the thread that hands the batches
/// on while the workers ran (PPR on com-DBLP, 2 threads, `glp bench sample`, medians of 5
/// alternated three times: 245-257 -> 241-247 ms; the copy's page faults gone from its
/// profile).
const RESERVE_MARGIN: u128 = 8;

/// Samples of a run, in sample order: the whole run (what [`super::run`] returns), or one
/// batch of it (what a streamed run hands its sink, [`super::SampleSink`]). It holds the
/// run's samples `first..first + num_samples()`; its sample `i` (the run's `first + i`) has
/// the roots `roots[root_offsets[i]..root_offsets[i + 1]]` and added the vertices
/// `vertices[offsets[i]..offsets[i + 1]]`, in the order of the steps (within a step: transit
/// by transit, draw by draw); [`sources()`](SampleOutcome::sources)`[j]` is the transit
/// `vertices[j]` was drawn from (the sampled edge is `sources[j] -> vertices[j]`) and
/// [`steps()`](SampleOutcome::steps)`[j]` the step that added it.
///
/// Walks (one root a sample, one vertex a step) hold neither array: a walk's vertex was drawn
/// from the one before it (its root for the first) at the step of its place, so the walk
/// engines leave both implied ([`SampleOutcome::is_walks`]) and the accessors derive them.
/// Two thirds of a walk run's output are then never written (DeepWalk on com-DBLP, 2 threads,
/// gathered into one outcome: 599 -> 465 ms).
///
/// Other samples keep their sources and leave the steps implied when the sampler takes few
/// steps ([`MAX_IMPLIED_STEPS`]), whichever engine sampled them: a sample's vertices are in
/// step order, so where each step's vertices end in the sample (a few numbers a sample) says
/// the step of every vertex. k-hop 25,10 adds 275 vertices a sample and needs two such numbers, not 275 steps.
#[derive(Debug, Clone, Default)]
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
    /// Each added vertex's transit and step, held or implied.
    records: Records,
    /// Time of the sampling itself (a whole run's; zero in a batch).
    pub elapsed: Duration,
}

/// The most steps a sampler may take for an outcome to leave its samples' steps implied
/// ([`SampleOutcome`]): each sample then holds an end per step, so a sampler of many steps that
/// adds a vertex or two per step holds its steps one per vertex instead (the CPU engine then
/// records them so; the GPU's per-sample engines always write step ends, and
/// [`SampleOutcome::set_step_ends`] expands them).
pub(super) const MAX_IMPLIED_STEPS: u32 = 16;

/// How an outcome knows each added vertex's transit and step.
#[derive(Debug, Clone, PartialEq)]
enum Records {
    /// One entry per added vertex.
    Held { sources: Vec<VertexId>, steps: Vec<u32> },
    /// The sources, one per added vertex; the steps implied by `step_ends`: the vertices sample
    /// `i` added up to the end of its step `s` are its first `step_ends[i * step_count + s]`.
    Stepped { sources: Vec<VertexId>, step_count: u32, step_ends: Vec<u64> },
    /// Walks: implied by the vertices' places (see [`SampleOutcome`]).
    Walks,
}

impl Default for Records {
    fn default() -> Self {
        Records::Held { sources: Vec::new(), steps: Vec::new() }
    }
}

/// Outcomes are equal when they hold the same samples, whether their records are held or
/// implied.
impl PartialEq for SampleOutcome {
    fn eq(&self, other: &Self) -> bool {
        (self.first, &self.root_offsets, &self.roots, &self.offsets, &self.vertices, self.elapsed)
            == (other.first, &other.root_offsets, &other.roots, &other.offsets, &other.vertices, other.elapsed)
            && self.sources() == other.sources()
            && self.steps() == other.steps()
    }
}

/// One sample of an outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRef<'a> {
    /// Its roots.
    pub roots: &'a [VertexId],
    /// The vertices it added.
    pub vertices: &'a [VertexId],
    /// The transit of each added vertex.
    pub sources: Cow<'a, [VertexId]>,
    /// The step of each added vertex.
    pub steps: Cow<'a, [u32]>,
}

impl SampleOutcome {
    /// An outcome for the initial samples `samples` of `initial`, with their roots and no
    /// sample recorded yet: [`SampleOutcome::push_vertices`] records them in order.
    pub(super) fn with_roots_of(initial: &InitialSamples, samples: Range<usize>) -> Self {
        let first = samples.start as u64;
        let (root_offsets, roots) = initial.rows(samples);
        SampleOutcome {
            first,
            root_offsets: root_offsets.iter().map(|&o| o - root_offsets[0]).collect(),
            roots: roots.to_vec(),
            offsets: vec![0],
            ..SampleOutcome::default()
        }
    }

    /// An outcome of no sample, to which the run's samples from `first` on are appended
    /// ([`SampleOutcome::append`]).
    pub fn empty(first: u64) -> Self {
        SampleOutcome { first, root_offsets: vec![0], offsets: vec![0], ..SampleOutcome::default() }
    }

    /// Appends the next sample's record, its steps held (the tests' outcomes; the engines
    /// set their records at once).
    #[cfg(test)]
    pub(super) fn push(&mut self, vertices: &[VertexId], sources: &[VertexId], steps: &[u32]) {
        let (held_sources, held_steps) = self.held_records();
        held_sources.extend_from_slice(sources);
        held_steps.extend_from_slice(steps);
        self.push_vertices(vertices);
    }

    /// Appends the next sample's vertices, its records to be set with the others'
    /// ([`SampleOutcome::set_step_ends`]).
    pub(super) fn push_vertices(&mut self, vertices: &[VertexId]) {
        self.vertices.extend_from_slice(vertices);
        self.offsets.push(self.vertices.len() as u64);
    }

    /// Sets the samples' records: a transit per added vertex, and for each sample and each of
    /// the `steps` steps the number of vertices it added up to the end of that step. The
    /// steps stay implied (see [`SampleOutcome`]) for at most [`MAX_IMPLIED_STEPS`] steps,
    /// else each vertex holds its own, whichever engine sampled them. Errors (an engine's
    /// bug) when the ends do not fit the samples: `steps` ends a sample, not decreasing, the
    /// last its vertex count.
    pub(super) fn set_step_ends(&mut self, sources: Vec<VertexId>, steps: u32, step_ends: Vec<u64>) -> Result<()> {
        let per_sample = steps as usize;
        let fits = per_sample > 0
            && sources.len() == self.vertices.len()
            && step_ends.len() == self.num_samples() * per_sample
            && step_ends.chunks(per_sample).enumerate().all(|(i, ends)| {
                ends.windows(2).all(|w| w[0] <= w[1]) && ends[per_sample - 1] == self.offsets[i + 1] - self.offsets[i]
            });
        if !fits {
            return Err(Error::invalid("internal: step ends that do not fit the samples they describe"));
        }
        self.records = Records::Stepped { sources, step_count: steps, step_ends };
        if steps > MAX_IMPLIED_STEPS {
            let held_steps = self.steps().into_owned();
            if let Records::Stepped { sources, .. } = std::mem::take(&mut self.records) {
                self.records = Records::Held { sources, steps: held_steps };
            }
        }
        Ok(())
    }

    /// Marks the samples as walks, whose records are implied: each sample has one root and
    /// added a vertex per step, drawn from the vertex before it. Errors (an engine's bug)
    /// when a sample has another number of roots.
    pub(super) fn set_walks(&mut self) -> Result<()> {
        if self.root_offsets.windows(2).any(|w| w[1] - w[0] != 1) {
            return Err(Error::invalid("internal: walks whose samples do not have one root each"));
        }
        self.records = Records::Walks;
        Ok(())
    }

    /// Whether the records are implied by walks (`SampleOutcome::set_walks`).
    pub fn is_walks(&self) -> bool {
        self.records == Records::Walks
    }

    /// The records, held (those walks or step ends imply written out first).
    fn held_records(&mut self) -> (&mut Vec<VertexId>, &mut Vec<u32>) {
        if !matches!(self.records, Records::Held { .. }) {
            let steps = self.steps().into_owned();
            let sources = match std::mem::take(&mut self.records) {
                Records::Stepped { sources, .. } => sources,
                walks => {
                    self.records = walks;
                    self.sources().into_owned()
                }
            };
            self.records = Records::Held { sources, steps };
        }
        match &mut self.records {
            Records::Held { sources, steps } => (sources, steps),
            Records::Stepped { .. } | Records::Walks => unreachable!("implied records were written out above"),
        }
    }

    /// The transit each added vertex was drawn from.
    pub fn sources(&self) -> Cow<'_, [VertexId]> {
        match &self.records {
            Records::Held { sources, .. } | Records::Stepped { sources, .. } => Cow::Borrowed(sources),
            Records::Walks => {
                let mut sources = Vec::with_capacity(self.vertices.len());
                for i in 0..self.num_samples() {
                    sources.extend(self.walk_sources(i));
                }
                Cow::Owned(sources)
            }
        }
    }

    /// The step that added each vertex.
    pub fn steps(&self) -> Cow<'_, [u32]> {
        match &self.records {
            Records::Held { steps, .. } => Cow::Borrowed(steps),
            Records::Stepped { step_count, step_ends, .. } => {
                let mut expanded = Vec::with_capacity(self.vertices.len());
                for ends in step_ends.chunks(*step_count as usize) {
                    expanded.extend(steps_from_ends(ends));
                }
                Cow::Owned(expanded)
            }
            Records::Walks => {
                let mut steps = Vec::with_capacity(self.vertices.len());
                for i in 0..self.num_samples() {
                    steps.extend(0..self.added(i).len() as u32);
                }
                Cow::Owned(steps)
            }
        }
    }

    /// The vertices sample `i` added.
    pub fn added(&self, i: usize) -> &[VertexId] {
        &self.vertices[self.added_range(i)]
    }

    /// Where the vertices sample `i` added are (in `vertices` and in held records).
    fn added_range(&self, i: usize) -> Range<usize> {
        self.offsets[i] as usize..self.offsets[i + 1] as usize
    }

    /// The roots of sample `i`.
    pub fn roots_of(&self, i: usize) -> &[VertexId] {
        &self.roots[self.root_offsets[i] as usize..self.root_offsets[i + 1] as usize]
    }

    /// Calls `visit(vertex, source, step)` for each vertex sample `i` added, in order: what
    /// [`SampleOutcome::sample`] holds, without building the sources and steps an outcome
    /// leaves implied.
    pub fn for_each_added(&self, i: usize, mut visit: impl FnMut(VertexId, VertexId, u32)) {
        let range = self.added_range(i);
        let added = &self.vertices[range.clone()];
        match &self.records {
            Records::Held { sources, steps } => {
                for ((&v, &source), &step) in added.iter().zip(&sources[range.clone()]).zip(&steps[range]) {
                    visit(v, source, step);
                }
            }
            Records::Stepped { sources, step_count, step_ends } => {
                let per_sample = *step_count as usize;
                let steps = steps_from_ends(&step_ends[i * per_sample..(i + 1) * per_sample]);
                for ((&v, &source), step) in added.iter().zip(&sources[range]).zip(steps) {
                    visit(v, source, step);
                }
            }
            Records::Walks => {
                for ((step, &v), source) in added.iter().enumerate().zip(self.walk_sources(i)) {
                    visit(v, source, step as u32);
                }
            }
        }
    }

    /// A bound on the steps the samples took: at least one more than the last step that added a
    /// vertex (exactly that for held steps and walks; the sampler's step count for implied
    /// steps), 0 when none did.
    pub(super) fn steps_taken(&self) -> u32 {
        match &self.records {
            Records::Held { steps, .. } => steps.par_iter().max().map_or(0, |&last| last.saturating_add(1)),
            Records::Stepped { step_count, .. } => *step_count,
            Records::Walks => {
                let longest = self.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
                u32::try_from(longest).unwrap_or(u32::MAX)
            }
        }
    }

    /// The transits of walk `i`'s vertices: its root, then each vertex but its last.
    fn walk_sources(&self, i: usize) -> impl Iterator<Item = VertexId> + '_ {
        let added = self.added(i);
        let root = self.roots_of(i)[0];
        std::iter::once(root).chain(added.iter().copied()).take(added.len())
    }

    /// Appends `batch`, the samples that follow this outcome's (its `first` is this one's
    /// `first + num_samples()`): gathers a streamed run's batches into one outcome. Records of
    /// another kind than the outcome's are written out (held) on both sides first. Errors
    /// when `batch` does not follow or its arrays do not fit its samples.
    pub fn append(&mut self, mut batch: SampleOutcome) -> Result<()> {
        if self.num_samples() == 0 && batch.first == self.first && batch.as_parts().fit() {
            *self = SampleOutcome { first: self.first, elapsed: self.elapsed, ..batch };
            return Ok(());
        }
        if self.num_samples() > 0 && !self.records.holds_kind_of(&batch.as_parts().records) {
            self.held_records();
            batch.held_records();
        }
        self.append_parts(batch.as_parts())
    }

    /// Reserves room for `samples` more samples at the density of those held (their roots and
    /// added vertices per sample) plus a [`RESERVE_MARGIN`]th, so that a run gathered batch by
    /// batch ([`super::sink::collect`]) grows its arrays once, from its first batch, instead of
    /// copying them as they double. An estimate from what was sampled, not a bound: the arrays
    /// still grow past it if the later samples are larger, and the memory reserved beyond what
    /// they fill is never touched.
    pub(super) fn reserve_like_held(&mut self, samples: usize) {
        let held = self.num_samples();
        if held == 0 {
            return;
        }
        let scaled = |len: usize| {
            let estimate = len as u128 * samples as u128 / held as u128;
            (estimate + estimate / RESERVE_MARGIN).min(isize::MAX as u128) as usize
        };
        self.offsets.reserve(samples);
        self.root_offsets.reserve(samples);
        self.roots.reserve(scaled(self.roots.len()));
        let added = scaled(self.vertices.len());
        self.vertices.reserve(added);
        match &mut self.records {
            Records::Held { sources, steps } => {
                sources.reserve(added);
                steps.reserve(added);
            }
            Records::Stepped { sources, step_count, step_ends } => {
                sources.reserve(added);
                step_ends.reserve(samples.saturating_mul(*step_count as usize));
            }
            Records::Walks => {}
        }
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
        let a = self.added_range(i);
        let (sources, steps) = match &self.records {
            Records::Held { sources, steps } => (Cow::Borrowed(&sources[a.clone()]), Cow::Borrowed(&steps[a.clone()])),
            Records::Stepped { sources, step_count, step_ends } => {
                let per_sample = *step_count as usize;
                let ends = &step_ends[i * per_sample..(i + 1) * per_sample];
                (Cow::Borrowed(&sources[a.clone()]), Cow::Owned(steps_from_ends(ends).collect()))
            }
            Records::Walks => (Cow::Owned(self.walk_sources(i).collect()), Cow::Owned((0..a.len() as u32).collect())),
        };
        SampleRef { roots: self.roots_of(i), vertices: &self.vertices[a], sources, steps }
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
        // A row's roots and vertices, read in place (`sample` would build a walk's implied
        // sources and steps for each row).
        let row = |i: usize| self.roots_of(i).iter().chain(self.added(i));
        let width = (0..self.num_samples()).map(|i| self.roots_of(i).len() + self.added(i).len()).max().unwrap_or(0);
        let entries = width.saturating_mul(self.num_samples());
        let mut rows = Vec::new();
        rows.try_reserve_exact(entries).map_err(|_| {
            Error::TooLarge(format!(
                "{} walks padded to the longest ({width} vertices) take {entries} entries, more than memory holds",
                self.num_samples()
            ))
        })?;
        for i in 0..self.num_samples() {
            let start = rows.len();
            rows.extend(row(i).map(|&v| vertex(v)));
            rows.resize(start + width, padding.clone());
        }
        Ok((width, rows))
    }
}

/// The step of each vertex of a sample whose steps end at `ends` (the vertices it added up to
/// the end of each step): step `s` repeated `ends[s] - ends[s - 1]` times.
fn steps_from_ends(ends: &[u64]) -> impl Iterator<Item = u32> + '_ {
    let starts = std::iter::once(0).chain(ends.iter().copied());
    ends.iter()
        .zip(starts)
        .enumerate()
        .flat_map(|(step, (&end, start))| std::iter::repeat_n(step as u32, (end - start) as usize))
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
        assert_eq!(*empty.sources(), [1, 7, 3]);
        assert_eq!(*empty.steps(), [0, 1, 0]);
        assert_eq!(empty.num_samples(), 3);
    }

    #[test]
    fn step_ends_imply_the_steps_the_same_samples_hold() {
        // Samples of two steps from roots [1, 2], [3], [4]: [7, 8 | 9], [| ] (nothing), [5 | ].
        let initial = InitialSamples::groups(vec![0, 2, 3, 4], vec![1, 2, 3, 4], 10).unwrap();
        /// A sample's vertices, sources, steps and step ends.
        type Sample<'a> = (&'a [u32], &'a [u32], &'a [u32], [u64; 2]);
        let samples: [Sample; 3] =
            [(&[7, 8, 9], &[1, 2, 7], &[0, 0, 1], [2, 3]), (&[], &[], &[], [0, 0]), (&[5], &[4], &[0], [1, 1])];
        let held = |range: Range<usize>| {
            let mut outcome = SampleOutcome::with_roots_of(&initial, range.clone());
            for (vertices, sources, steps, _) in &samples[range] {
                outcome.push(vertices, sources, steps);
            }
            outcome
        };
        let implied = |range: Range<usize>| {
            let mut outcome = held(range.clone());
            let sources = outcome.sources().into_owned();
            let ends = samples[range].iter().flat_map(|s| s.3).collect();
            outcome.set_step_ends(sources, 2, ends).unwrap();
            outcome
        };
        let whole = implied(0..3);
        assert!(matches!(whole.records, Records::Stepped { .. }));
        assert_eq!(*whole.steps(), [0, 0, 1, 0]);
        assert_eq!(*whole.sources(), [1, 2, 7, 4]);
        assert_eq!(whole, held(0..3));
        assert_eq!(*whole.sample(0).steps, [0, 0, 1]);
        assert_eq!(*whole.sample(1).steps, []);
        assert_eq!(*whole.sample(2).steps, [0]);
        // Batches with implied steps append as such; a held batch after them holds every step.
        let mut gathered = SampleOutcome::empty(0);
        gathered.append(implied(0..1)).unwrap();
        gathered.reserve_like_held(2);
        gathered.append(implied(1..3)).unwrap();
        assert!(matches!(gathered.records, Records::Stepped { .. }));
        assert_eq!(gathered, held(0..3));
        let mut mixed = SampleOutcome::empty(0);
        mixed.append(implied(0..2)).unwrap();
        mixed.append(held(2..3)).unwrap();
        assert!(matches!(mixed.records, Records::Held { .. }));
        assert_eq!(mixed, held(0..3));
        // Ends that do not fit the samples: refused.
        for (steps, ends) in
            [(2, vec![2, 3, 0, 0]), (2, vec![2, 3, 0, 0, 1, 0]), (2, vec![3, 2, 0, 0, 1, 1]), (0, vec![])]
        {
            let mut outcome = held(0..3);
            let sources = outcome.sources().into_owned();
            assert!(outcome.set_step_ends(sources, steps, ends.clone()).is_err(), "{steps} {ends:?}");
        }
    }

    #[test]
    fn step_ends_of_many_steps_are_held_as_a_step_per_vertex() {
        // One sample from root 1 of MAX_IMPLIED_STEPS + 4 steps: a vertex at steps 0 and 2, two
        // at the last step, none at the others.
        let initial = InitialSamples::groups(vec![0, 1], vec![1], 10).unwrap();
        let steps = MAX_IMPLIED_STEPS + 4;
        let last = steps - 1;
        let ends: Vec<u64> = (0..steps)
            .map(|s| {
                if s == last {
                    4
                } else if s >= 2 {
                    2
                } else {
                    1
                }
            })
            .collect();
        let mut outcome = SampleOutcome::with_roots_of(&initial, 0..1);
        outcome.push_vertices(&[5, 6, 7, 8]);
        outcome.set_step_ends(vec![1, 5, 6, 6], steps, ends).unwrap();
        assert!(matches!(outcome.records, Records::Held { .. }));
        assert_eq!(*outcome.steps(), [0, 2, last, last]);
        assert_eq!(*outcome.sources(), [1, 5, 6, 6]);
    }

    #[test]
    fn walks_imply_the_records_the_same_walks_hold() {
        // Walks from roots 4, 5, 6: 4 -> 1 -> 2, 5 (no step), 6 -> 4.
        let initial = InitialSamples::given(vec![4, 5, 6], 10).unwrap();
        let held = |range: Range<usize>| {
            let mut outcome = SampleOutcome::with_roots_of(&initial, range.clone());
            let walks: [(&[u32], &[u32], &[u32]); 3] =
                [(&[1, 2], &[4, 1], &[0, 1]), (&[], &[], &[]), (&[4], &[6], &[0])];
            for (vertices, sources, steps) in &walks[range] {
                outcome.push(vertices, sources, steps);
            }
            outcome
        };
        let implied = |range: Range<usize>| {
            let mut outcome = held(range);
            outcome.records = Records::default();
            outcome.set_walks().unwrap();
            outcome
        };
        let walks = implied(0..3);
        assert!(walks.is_walks());
        assert_eq!(*walks.sources(), [4, 1, 6]);
        assert_eq!(*walks.steps(), [0, 1, 0]);
        assert_eq!(walks, held(0..3));
        assert_eq!(*walks.sample(0).sources, [4, 1]);
        assert_eq!(*walks.sample(2).steps, [0]);
        // Batches of walks append as walks; a held batch after walks holds every record.
        let mut whole = SampleOutcome::empty(0);
        whole.append(implied(0..1)).unwrap();
        whole.append(implied(1..3)).unwrap();
        assert!(whole.is_walks());
        assert_eq!(whole, held(0..3));
        let mut mixed = SampleOutcome::empty(0);
        mixed.append(implied(0..2)).unwrap();
        mixed.append(held(2..3)).unwrap();
        assert!(!mixed.is_walks());
        assert_eq!(mixed, held(0..3));
        // Samples of several roots are no walks.
        let groups = InitialSamples::groups(vec![0, 2], vec![1, 2], 10).unwrap();
        assert!(SampleOutcome::with_roots_of(&groups, 0..1).set_walks().is_err());
    }
}
