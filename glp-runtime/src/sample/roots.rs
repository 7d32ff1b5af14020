//! Initial samples: the roots each sample starts from.
//!
//! Policies: one sample per vertex ([`InitialSamples::every_vertex`]), one per given root
//! ([`InitialSamples::given`]), random roots ([`InitialSamples::random`], drawn from the
//! keyed streams, so the same seed gives the same roots everywhere), and several roots per
//! sample ([`InitialSamples::groups`], or `random` with `per_sample > 1`: multi-root walks,
//! ClusterGCN's clusters).

use super::sampler::NONE;
use crate::error::{Error, Result};
use crate::graph::VertexId;
use crate::random::sample_stream;
use std::ops::Range;

/// The step number whose streams draw random roots (no sampler has that many steps).
pub const ROOT_STEP: u32 = u32::MAX;

/// The roots of every sample: sample `i` starts from `roots[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitialSamples {
    offsets: Vec<u64>,
    roots: Vec<VertexId>,
}

impl InitialSamples {
    /// One sample per vertex of a graph of `n` vertices, rooted at it.
    pub fn every_vertex(n: usize) -> Result<Self> {
        check_graph(n)?;
        check_count(n as u64)?;
        Ok(InitialSamples { offsets: (0..=n as u64).collect(), roots: (0..n as VertexId).collect() })
    }

    /// One sample per root, in the order given; every root must be a vertex below `n`.
    pub fn given(roots: Vec<VertexId>, n: usize) -> Result<Self> {
        let offsets = (0..=roots.len() as u64).collect();
        InitialSamples::groups(offsets, roots, n)
    }

    /// Sample `i` starts from the `roots[offsets[i]..offsets[i + 1]]` (at least one each).
    pub fn groups(offsets: Vec<u64>, roots: Vec<VertexId>, n: usize) -> Result<Self> {
        check_graph(n)?;
        if offsets.first() != Some(&0) || offsets.last() != Some(&(roots.len() as u64)) {
            return Err(Error::invalid("root offsets must start at 0 and end at the number of roots"));
        }
        if let Some(i) = offsets.windows(2).position(|w| w[1] <= w[0]) {
            return Err(Error::invalid(format!("sample {i} has no root")));
        }
        check_count(offsets.len() as u64 - 1)?;
        if let Some(&r) = roots.iter().find(|&&r| r as usize >= n) {
            return Err(Error::invalid(format!("root {r} is not a vertex of the graph (vertices 0..{n})")));
        }
        Ok(InitialSamples { offsets, roots })
    }

    /// `samples` samples of `per_sample` roots each, drawn uniformly (with replacement) from
    /// the `n` vertices: root `j` of sample `i` is draw `j` of the stream
    /// `sample_stream(seed, i, ROOT_STEP, 0)` ([`crate::random::Stream::next_below`]).
    pub fn random(samples: u64, per_sample: u32, n: usize, seed: u64) -> Result<Self> {
        check_graph(n)?;
        if samples == 0 || per_sample == 0 {
            return Err(Error::invalid(
                "random roots: the number of samples and of roots per sample must be at least 1",
            ));
        }
        check_count(samples)?;
        let total = samples.checked_mul(per_sample as u64).ok_or_else(|| Error::invalid("too many random roots"))?;
        crate::memory::ensure_available(total.saturating_mul(4), || format!("cannot draw {total} random roots"))?;
        let mut roots = Vec::with_capacity(total as usize);
        for i in 0..samples {
            let mut stream = sample_stream(seed, i as u32, ROOT_STEP, 0);
            for _ in 0..per_sample {
                roots.push(stream.next_below(n as u64) as VertexId);
            }
        }
        let offsets = (0..=samples).map(|i| i * per_sample as u64).collect();
        Ok(InitialSamples { offsets, roots })
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there is no sample (never, for a value built by the constructors).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every sample has exactly one root.
    pub fn one_root_each(&self) -> bool {
        self.roots.len() == self.len()
    }

    /// The roots of sample `i`.
    pub fn roots(&self, i: usize) -> &[VertexId] {
        &self.roots[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// The row offsets (`len() + 1` entries) and all roots.
    pub fn parts(&self) -> (&[u64], &[VertexId]) {
        (&self.offsets, &self.roots)
    }

    /// The roots of samples `samples`: their `samples.len() + 1` row offsets (into the roots
    /// of every sample) and their roots.
    pub(super) fn rows(&self, samples: Range<usize>) -> (&[u64], &[VertexId]) {
        let offsets = &self.offsets[samples.start..=samples.end];
        (offsets, &self.roots[offsets[0] as usize..offsets[offsets.len() - 1] as usize])
    }
}

fn check_graph(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::invalid("the graph has no vertices: there is nothing to sample"));
    }
    debug_assert!(n <= NONE as usize);
    Ok(())
}

/// Sample indices key the random streams as `u32`.
fn check_count(samples: u64) -> Result<()> {
    if samples > u32::MAX as u64 {
        return Err(Error::invalid(format!("{samples} samples: at most {} per run", u32::MAX)));
    }
    Ok(())
}
