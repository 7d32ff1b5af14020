//! A sampler's hooks on one sample's step, called one by one: the draws another engine (the
//! GPU's reference kernels, `glp_codegen::kinds::sample::REFERENCE_KERNEL`) must reproduce
//! exactly, draw for draw.
//!
//! A [`StepState`] is what a hook call sees of its sample: the roots and the transits of
//! every step so far (the last list is the current step's). [`step_draws`] calls `next` for
//! each transit and lane, and for a collective sampler `combined_weight` for each entry of
//! the combined neighbourhood and `next_entry` for each lane, with the view and random
//! streams the engine gives them ((seed, sample, step, lane), Philox, exact draws).

use super::edges::SampleGraph;
use super::sampler::Sampler;
use super::view::{SampleState, SampleView, SortedCombined};
use crate::error::{Error, Result};
use crate::graph::VertexId;

/// One sample at one step, as its hooks see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepState {
    /// The sample's roots.
    pub roots: Vec<VertexId>,
    /// The transits of steps `0..=step`, one list per step (at least one list; the last is
    /// the current step's).
    pub levels: Vec<Vec<VertexId>>,
}

/// The parts of a step's state in the flat layout views read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatState {
    pub roots: Vec<VertexId>,
    pub sorted_roots: Vec<VertexId>,
    /// The levels one after the other.
    pub history: Vec<VertexId>,
    /// Where each level starts, then the end (`levels + 1` entries).
    pub history_starts: Vec<u64>,
    /// The combined neighbourhood: the current transits' rows one after the other.
    pub combined: Vec<VertexId>,
    /// The position (in the current transits) of each entry's transit.
    pub combined_sources: Vec<u32>,
    /// The same vertices sorted (for `combined_count`).
    pub combined_sorted: Vec<VertexId>,
}

impl StepState {
    /// The state at step 0 of a sample with `roots`: the roots are the transits.
    pub fn at_roots(roots: Vec<VertexId>) -> Self {
        StepState { levels: vec![roots.clone()], roots }
    }

    /// The step the state is at.
    pub fn step(&self) -> u32 {
        self.levels.len().saturating_sub(1) as u32
    }

    /// The current step's transits.
    pub fn transits(&self) -> &[VertexId] {
        self.levels.last().map_or(&[], Vec::as_slice)
    }

    /// The state in the flat layout, the combined neighbourhood taken from `graph`.
    ///
    /// Errors: no level, or a vertex that is not one of the graph's.
    pub fn flatten(&self, graph: &SampleGraph<'_>) -> Result<FlatState> {
        let csr = graph.csr();
        let n = csr.num_vertices();
        if self.levels.is_empty() {
            return Err(Error::invalid("a step state needs the transits of at least one step"));
        }
        let all = self.roots.iter().chain(self.levels.iter().flatten());
        if let Some(v) = all.copied().find(|&v| v as usize >= n) {
            return Err(Error::invalid(format!("vertex {v} of the step state is not one of the graph's {n}")));
        }
        let mut history_starts = vec![0u64];
        let mut history = Vec::new();
        for level in &self.levels {
            history.extend_from_slice(level);
            history_starts.push(history.len() as u64);
        }
        let mut combined = Vec::new();
        let mut combined_sources = Vec::new();
        for (pos, &t) in self.transits().iter().enumerate() {
            combined.extend_from_slice(csr.neighbors(t));
            combined_sources.extend(std::iter::repeat_n(pos as u32, csr.degree(t)));
        }
        let mut sorted_roots = self.roots.clone();
        sorted_roots.sort_unstable();
        let mut combined_sorted = combined.clone();
        combined_sorted.sort_unstable();
        Ok(FlatState {
            roots: self.roots.clone(),
            sorted_roots,
            history,
            history_starts,
            combined,
            combined_sources,
            combined_sorted,
        })
    }
}

/// What the hooks gave on one step (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct StepDraws {
    /// `next(view, sample, transit, lane, step)` for each transit (in order) and lane.
    pub next: Vec<Vec<VertexId>>,
    /// `combined_weight` of each entry of the combined neighbourhood (collective samplers;
    /// empty otherwise).
    pub weights: Vec<f64>,
    /// `next_entry(view, sample, lane, step)` for each lane (collective samplers; empty
    /// otherwise).
    pub entries: Vec<u64>,
}

/// The hooks' draws for `lanes` lanes of `sample`'s step `state` under `seed` (see the
/// module docs); `collective` says whether to call the collective hooks.
///
/// Errors: an invalid state ([`StepState::flatten`]) or a hook failure.
pub fn step_draws<S: Sampler + ?Sized>(
    graph: &SampleGraph<'_>,
    sampler: &S,
    state: &StepState,
    (seed, sample, lanes): (u64, u32, u32),
    collective: bool,
) -> Result<StepDraws> {
    let flat = state.flatten(graph)?;
    let step = state.step();
    let history_starts: Vec<usize> =
        flat.history_starts[..flat.history_starts.len() - 1].iter().map(|&s| s as usize).collect();
    let sorted = SortedCombined::default();
    let base = SampleState {
        roots: &flat.roots,
        sorted_roots: &flat.sorted_roots,
        history: &flat.history,
        history_starts: &history_starts,
        combined: &[],
        combined_sources: &[],
        combined_prefix: &[],
        combined_sorted: &sorted,
    };
    let view = SampleView::new(graph, base, seed, sample, step);
    let mut next = Vec::new();
    for &transit in state.transits() {
        let mut row = Vec::with_capacity(lanes as usize);
        for lane in 0..lanes {
            view.start_lane(lane);
            row.push(sampler.next(&view, sample, transit, lane, step));
        }
        next.push(row);
    }
    let (mut weights, mut entries) = (Vec::new(), Vec::new());
    if collective {
        let with_combined = SampleState { combined: &flat.combined, combined_sources: &flat.combined_sources, ..base };
        let view = SampleView::new(graph, with_combined, seed, sample, step);
        let transits = state.transits();
        for (i, &v) in flat.combined.iter().enumerate() {
            let t = transits[flat.combined_sources[i] as usize];
            weights.push(sampler.combined_weight(&view, sample, t, v, step));
        }
        let prefix = inclusive_prefix(&weights);
        let view =
            SampleView::new(graph, SampleState { combined_prefix: &prefix, ..with_combined }, seed, sample, step);
        for lane in 0..lanes {
            view.start_lane(lane);
            entries.push(sampler.next_entry(&view, sample, lane, step));
        }
    }
    if let Some(error) = sampler.failure() {
        return Err(error);
    }
    Ok(StepDraws { next, weights, entries })
}

/// The inclusive prefix sums of `weights`, summed left to right (as the engine sums them).
pub fn inclusive_prefix(weights: &[f64]) -> Vec<f64> {
    let mut sum = 0.0;
    weights
        .iter()
        .map(|w| {
            sum += w;
            sum
        })
        .collect()
}
