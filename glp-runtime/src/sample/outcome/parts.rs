//! Appending a batch of samples whose arrays lie in pieces ([`BatchParts`]) to an outcome, the
//! pieces copied side by side on the rayon pool.
//!
//! The CPU engine's workers leave a batch in pieces: each task's buffers (the general engine),
//! each walk's (the walk engine). Gathering them into a batch of its own and then appending
//! that batch to the run's outcome copied every vertex twice, and the second copy, on the
//! thread that hands batches on, took a core from the two workers of a 2-core machine
//! (k-hop 25,10 on com-DBLP: `glp sample`, which drops its batches, ran in 250-260 ms; the
//! same run gathered by `glp bench sample`, in about 300). [`SampleOutcome::append_parts`]
//! copies the pieces once, straight into the outcome they end in: a batch of its own when the
//! run is streamed, the run's whole outcome when it is gathered
//! ([`crate::sample::engine::run_gathered`]).

use super::{Records, SampleOutcome};
use crate::error::{Error, Result};
use crate::graph::VertexId;
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// A batch of samples in pieces: the batch's samples are the run's `first..first +
/// ends.len()`, and each array of [`SampleOutcome`] is its pieces one after the other.
pub(in crate::sample) struct BatchParts<'a> {
    /// The run's index of the batch's first sample.
    pub first: u64,
    /// The roots' row offsets, `samples + 1` of them, from any base: sample `i`'s roots are
    /// `roots[root_offsets[i] - root_offsets[0]..root_offsets[i + 1] - root_offsets[0]]`.
    pub root_offsets: &'a [u64],
    /// The batch's roots.
    pub roots: &'a [VertexId],
    /// Where each sample's added vertices end, counted from the batch's first added vertex.
    pub ends: &'a [u64],
    /// The added vertices.
    pub vertices: Vec<&'a [VertexId]>,
    /// Each added vertex's transit and step.
    pub records: RecordParts<'a>,
}

/// The records of [`BatchParts`], in pieces, as [`SampleOutcome`] holds or implies them.
pub(in crate::sample) enum RecordParts<'a> {
    /// Implied by walks.
    Walks,
    /// A transit and a step per added vertex.
    Held { sources: Vec<&'a [VertexId]>, steps: Vec<&'a [u32]> },
    /// A transit per added vertex; for each sample, the vertices it added up to the end of each
    /// of its `step_count` steps.
    Stepped { sources: Vec<&'a [VertexId]>, step_count: u32, step_ends: Vec<&'a [u64]> },
}

/// The most entries one job of [`extend_from_pieces`] copies (256 KiB of vertices): large
/// pieces are cut to it, small ones grouped up to it, so that the pool shares a batch's copy
/// out evenly whatever its pieces.
const COPY_JOB_ENTRIES: usize = 1 << 16;

impl SampleOutcome {
    /// The outcome's samples as one batch of one piece each.
    pub(super) fn as_parts(&self) -> BatchParts<'_> {
        let records = match &self.records {
            Records::Walks => RecordParts::Walks,
            Records::Held { sources, steps } => RecordParts::Held { sources: vec![sources], steps: vec![steps] },
            Records::Stepped { sources, step_count, step_ends } => {
                RecordParts::Stepped { sources: vec![sources], step_count: *step_count, step_ends: vec![step_ends] }
            }
        };
        BatchParts {
            first: self.first,
            root_offsets: &self.root_offsets,
            roots: &self.roots,
            ends: &self.offsets[1..],
            vertices: vec![&self.vertices],
            records,
        }
    }

    /// Appends `parts`, the samples that follow this outcome's, copying each piece once (see
    /// the [module docs](self)). An outcome of no sample takes the batch's kind of records;
    /// otherwise the batch's must be of the outcome's kind. Errors (an engine's bug) when the
    /// batch does not follow, when its pieces do not fit its samples (the roots their offsets,
    /// the vertices their ends, the records their vertices, the step ends a sample each their
    /// sample, walks a root each), or when its records are of another kind; the outcome is
    /// then unchanged.
    pub(in crate::sample) fn append_parts(&mut self, parts: BatchParts<'_>) -> Result<()> {
        let next = self.first + self.num_samples() as u64;
        if parts.first != next {
            return Err(Error::invalid(format!(
                "internal: a batch of samples from {} appended after the samples {}..{next}",
                parts.first, self.first
            )));
        }
        if !parts.fit() {
            return Err(Error::invalid("internal: a batch of samples whose pieces do not fit its samples"));
        }
        if self.num_samples() == 0 {
            self.records = match &parts.records {
                RecordParts::Walks => Records::Walks,
                RecordParts::Held { .. } => Records::default(),
                RecordParts::Stepped { step_count, .. } => {
                    Records::Stepped { sources: Vec::new(), step_count: *step_count, step_ends: Vec::new() }
                }
            };
        }
        if !self.records.holds_kind_of(&parts.records) {
            return Err(Error::invalid("internal: a batch of samples whose records are not of its outcome's kind"));
        }
        let (root_base, base, roots_from) =
            (self.roots.len() as u64, self.vertices.len() as u64, parts.root_offsets[0]);
        self.root_offsets.extend(parts.root_offsets[1..].iter().map(|&o| o - roots_from + root_base));
        self.roots.extend_from_slice(parts.roots);
        self.offsets.extend(parts.ends.iter().map(|&end| end + base));
        let vertices = &mut self.vertices;
        let mut copy_vertices = || extend_from_pieces(vertices, &parts.vertices);
        match (&mut self.records, &parts.records) {
            (Records::Held { sources, steps }, RecordParts::Held { sources: more_sources, steps: more_steps }) => {
                rayon::join(copy_vertices, || {
                    rayon::join(|| extend_from_pieces(sources, more_sources), || extend_from_pieces(steps, more_steps))
                });
            }
            (
                Records::Stepped { sources, step_ends, .. },
                RecordParts::Stepped { sources: more_sources, step_ends: more_ends, .. },
            ) => {
                rayon::join(copy_vertices, || extend_from_pieces(sources, more_sources));
                extend_from_pieces(step_ends, more_ends);
            }
            _ => copy_vertices(),
        }
        Ok(())
    }
}

impl Records {
    /// Whether records of `parts`'s kind append to these as they are: both walks, both held,
    /// or both step ends of as many steps.
    pub(super) fn holds_kind_of(&self, parts: &RecordParts<'_>) -> bool {
        match (self, parts) {
            (Records::Walks, RecordParts::Walks) | (Records::Held { .. }, RecordParts::Held { .. }) => true,
            (Records::Stepped { step_count, .. }, RecordParts::Stepped { step_count: more, .. }) => step_count == more,
            _ => false,
        }
    }
}

impl BatchParts<'_> {
    /// Whether the pieces fit the batch's samples ([`SampleOutcome::append_parts`]).
    pub(super) fn fit(&self) -> bool {
        let samples = self.ends.len();
        let added = total(&self.vertices);
        let roots_fit = self.root_offsets.len() == samples + 1
            && self.root_offsets.windows(2).all(|w| w[0] <= w[1])
            && self.root_offsets[samples] - self.root_offsets[0] == self.roots.len() as u64;
        let ends_fit =
            self.ends.windows(2).all(|w| w[0] <= w[1]) && self.ends.last().map_or(0, |&e| e as usize) == added;
        let records_fit = match &self.records {
            RecordParts::Walks => self.root_offsets.windows(2).all(|w| w[1] - w[0] == 1),
            RecordParts::Held { sources, steps } => total(sources) == added && total(steps) == added,
            RecordParts::Stepped { sources, step_count, step_ends } => {
                total(sources) == added && self.step_ends_fit(*step_count as usize, step_ends)
            }
        };
        roots_fit && ends_fit && records_fit
    }

    /// Whether `step_ends` holds `step_count` ends for each sample, not decreasing, the last
    /// its vertex count.
    fn step_ends_fit(&self, step_count: usize, step_ends: &[&[u64]]) -> bool {
        if step_count == 0 || total(step_ends) != self.ends.len() * step_count {
            return false;
        }
        let mut ends = step_ends.iter().flat_map(|piece| piece.iter().copied());
        let mut start = 0;
        self.ends.iter().all(|&end| {
            let mut last = 0;
            let sample_fits = (0..step_count).all(|_| {
                let step_end = ends.next().unwrap_or(u64::MAX);
                let fits = step_end >= last;
                last = step_end;
                fits
            });
            let length = end - start;
            start = end;
            sample_fits && last == length
        })
    }
}

/// Entries in all of `pieces`.
fn total<T>(pieces: &[&[T]]) -> usize {
    pieces.iter().map(|piece| piece.len()).sum()
}

/// Appends `pieces` to `dst` one after the other, copied side by side on the rayon pool in jobs
/// of about [`COPY_JOB_ENTRIES`] entries, into room reserved at once and written once.
fn extend_from_pieces<T: Copy + Send + Sync>(dst: &mut Vec<T>, pieces: &[&[T]]) {
    let count = total(pieces);
    dst.reserve(count);
    let mut room = &mut dst.spare_capacity_mut()[..count];
    let mut copies: Vec<(&mut [MaybeUninit<T>], &[T])> = Vec::with_capacity(pieces.len());
    for chunk in pieces.iter().flat_map(|piece| piece.chunks(COPY_JOB_ENTRIES)) {
        let (place, after) = std::mem::take(&mut room).split_at_mut(chunk.len());
        copies.push((place, chunk));
        room = after;
    }
    let per_job = (COPY_JOB_ENTRIES * copies.len()).div_ceil(count.max(1)).max(1);
    // (`write_copy_of_slice` would say it in one call, but is stable only past the MSRV.)
    copies.into_par_iter().with_min_len(per_job).for_each(|(place, chunk)| {
        for (slot, &value) in place.iter_mut().zip(chunk) {
            slot.write(value);
        }
    });
    // SAFETY: the places are the first `count` entries of the room reserved above, one after
    // the other (a place per chunk, as long as its chunk, the chunks `count` entries in all),
    // and every entry of each was written just above.
    unsafe { dst.set_len(dst.len() + count) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::InitialSamples;

    /// The samples of a batch of two-step samples, whose pieces [`Samples::cut`] gives.
    struct Samples<'a> {
        first: u64,
        root_offsets: &'a [u64],
        roots: &'a [VertexId],
        ends: &'a [u64],
    }

    impl<'a> Samples<'a> {
        fn cut(
            &self,
            vertices: Vec<&'a [VertexId]>,
            sources: Vec<&'a [VertexId]>,
            step_ends: Vec<&'a [u64]>,
        ) -> BatchParts<'a> {
            BatchParts {
                first: self.first,
                root_offsets: self.root_offsets,
                roots: self.roots,
                ends: self.ends,
                vertices,
                records: RecordParts::Stepped { sources, step_count: 2, step_ends },
            }
        }
    }

    /// Samples `first..` with the roots at `root_offsets` (the run's: [1, 2], [3], [4]) and
    /// their added vertices ending at `ends`.
    fn samples<'a>(first: u64, root_offsets: &'a [u64], roots: &'a [VertexId], ends: &'a [u64]) -> Samples<'a> {
        Samples { first, root_offsets, roots, ends }
    }

    #[test]
    fn pieces_append_as_the_batch_they_make_would() {
        let initial = InitialSamples::groups(vec![0, 2, 3, 4], vec![1, 2, 3, 4], 10).unwrap();
        let mut whole = SampleOutcome::with_roots_of(&initial, 0..3);
        whole.push_vertices(&[7, 8, 9]);
        whole.push_vertices(&[]);
        whole.push_vertices(&[5]);
        whole.set_step_ends(vec![1, 2, 7, 4], 2, vec![2, 3, 0, 0, 1, 1]).unwrap();
        // The first sample as one batch, the other two in pieces cut anywhere (an empty one
        // included), appended to an outcome of no sample.
        let mut gathered = SampleOutcome::empty(0);
        let first = samples(0, &[0, 2], &[1, 2], &[3]);
        gathered.append_parts(first.cut(vec![&[7, 8], &[9]], vec![&[1], &[2, 7]], vec![&[2, 3]])).unwrap();
        let rest = samples(1, &[2, 3, 4], &[3, 4], &[0, 1]);
        gathered.append_parts(rest.cut(vec![&[], &[5]], vec![&[4]], vec![&[0], &[0, 1], &[1]])).unwrap();
        assert_eq!(gathered, whole);
        assert!(matches!(gathered.records, Records::Stepped { step_count: 2, .. }));
        // The whole outcome's own parts rebuild it.
        let mut again = SampleOutcome::empty(0);
        again.append_parts(whole.as_parts()).unwrap();
        assert_eq!(again, whole);
    }

    #[test]
    fn pieces_that_do_not_fit_their_samples_are_refused_and_change_nothing() {
        let rest = samples(1, &[2, 3, 4], &[3, 4], &[0, 1]);
        let mut outcome = SampleOutcome::empty(1);
        let refused = [
            // A vertex more than the ends say.
            rest.cut(vec![&[5, 6]], vec![&[4, 4]], vec![&[0, 0, 1, 1]]),
            // A source short.
            rest.cut(vec![&[5]], vec![], vec![&[0, 0, 1, 1]]),
            // Step ends that decrease, or end short of the sample, or are one too few.
            rest.cut(vec![&[5]], vec![&[4]], vec![&[0, 0, 1, 0]]),
            rest.cut(vec![&[5]], vec![&[4]], vec![&[0, 0, 0, 0]]),
            rest.cut(vec![&[5]], vec![&[4]], vec![&[0, 0, 1]]),
        ];
        for parts in refused {
            assert!(outcome.clone().append_parts(parts).is_err());
        }
        // Not the samples that come next.
        assert!(outcome
            .clone()
            .append_parts(samples(0, &[2, 3, 4], &[3, 4], &[0, 1]).cut(vec![&[5]], vec![&[4]], vec![&[0, 0, 1, 1]]))
            .is_err());
        // Root offsets that say more roots than the batch holds.
        assert!(outcome
            .clone()
            .append_parts(samples(1, &[2, 3, 5], &[3, 4], &[0, 1]).cut(vec![&[5]], vec![&[4]], vec![&[0, 0, 1, 1]]))
            .is_err());
        // Walks of two roots a sample, and records of another kind than the outcome's.
        let walk = |root_offsets, roots| BatchParts {
            first: 1,
            root_offsets,
            roots,
            ends: &[1],
            vertices: vec![&[5]],
            records: RecordParts::Walks,
        };
        assert!(outcome.clone().append_parts(walk(&[0, 2], &[3, 4])).is_err());
        outcome.append_parts(rest.cut(vec![&[5]], vec![&[4]], vec![&[0, 0, 1, 1]])).unwrap();
        let before = outcome.clone();
        let mut walks = walk(&[0, 1], &[3]);
        walks.first = 3;
        assert!(outcome.append_parts(walks).is_err());
        assert_eq!(outcome, before);
    }

    #[test]
    fn large_pieces_are_copied_whole_and_in_order() {
        let pieces: Vec<Vec<u32>> = [0, 1, COPY_JOB_ENTRIES - 1, 3 * COPY_JOB_ENTRIES + 5, 7]
            .iter()
            .map(|&n| (0..n as u32).collect())
            .collect();
        let slices: Vec<&[u32]> = pieces.iter().map(Vec::as_slice).collect();
        let mut dst = vec![9u32; 3];
        extend_from_pieces(&mut dst, &slices);
        let expected: Vec<u32> = [vec![9; 3]].iter().chain(&pieces).flatten().copied().collect();
        assert_eq!(dst, expected);
    }
}
