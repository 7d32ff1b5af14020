//! What sampler hooks read: the graph, the sample's history and the random streams.

use super::edges::SampleGraph;
use super::sampler::{NONE, NONE_ENTRY};
use crate::graph::VertexId;
use crate::random::{sample_stream, Stream};
use std::cell::{Cell, RefCell};

/// The sample's state the engine hands to a view.
#[derive(Debug, Clone, Copy)]
pub(super) struct SampleState<'s> {
    /// The sample's roots, in the order given.
    pub roots: &'s [VertexId],
    /// The same, sorted (for [`SampleView::is_root`]).
    pub sorted_roots: &'s [VertexId],
    /// The transits of steps `0..=step`, one list after the other.
    pub history: &'s [VertexId],
    /// Where each step's transits start in `history` (`step + 1` entries).
    pub history_starts: &'s [usize],
    /// Collective samplers: the combined neighbourhood's vertices.
    pub combined: &'s [VertexId],
    /// The position (in this step's transits) of the transit each entry comes from.
    pub combined_sources: &'s [u32],
    /// The inclusive prefix sums of the entries' weights.
    pub combined_prefix: &'s [f64],
    /// The combined neighbourhood's vertices sorted, built on first use in the step
    /// ([`SampleView::combined_count`], the engine's distinct count of draws without
    /// replacement).
    pub combined_sorted: &'s SortedCombined,
}

/// The combined neighbourhood's vertices in ascending order, sorted once per step and only
/// when something asks (a sampler that never counts entries pays nothing): O(entries log
/// entries) once, then O(log entries) per [`SortedCombined::count`].
#[derive(Debug, Default)]
pub(super) struct SortedCombined {
    vertices: RefCell<Vec<VertexId>>,
    ready: Cell<bool>,
}

impl SortedCombined {
    /// Forgets the previous step's neighbourhood.
    pub fn reset(&self) {
        self.ready.set(false);
    }

    /// `f` of `combined` sorted (sorted on the first call since [`SortedCombined::reset`]).
    fn with<R>(&self, combined: &[VertexId], f: impl FnOnce(&[VertexId]) -> R) -> R {
        if !self.ready.get() {
            let mut vertices = self.vertices.borrow_mut();
            vertices.clear();
            vertices.extend_from_slice(combined);
            vertices.sort_unstable();
            self.ready.set(true);
        }
        f(&self.vertices.borrow())
    }

    /// How many entries of `combined` hold `v`.
    pub fn count(&self, combined: &[VertexId], v: VertexId) -> u64 {
        self.with(combined, |sorted| {
            let start = sorted.partition_point(|&x| x < v);
            let end = start + sorted[start..].partition_point(|&x| x == v);
            (end - start) as u64
        })
    }

    /// The number of distinct vertices of `combined`.
    pub fn distinct(&self, combined: &[VertexId]) -> u64 {
        self.with(combined, distinct_in_sorted)
    }
}

/// Number of distinct values of a sorted slice.
pub(super) fn distinct_in_sorted(values: &[VertexId]) -> u64 {
    if values.is_empty() {
        return 0;
    }
    1 + values.windows(2).filter(|w| w[0] != w[1]).count() as u64
}

/// The context of a hook call: one sample at one step, drawing with one lane's random
/// stream. Every method takes and returns scalars (the compiler's subset); positions past
/// the end give [`NONE`] (vertices), 0 (counts, weights) or `false`, never a panic.
#[derive(Debug)]
pub struct SampleView<'a> {
    graph: &'a SampleGraph<'a>,
    state: SampleState<'a>,
    seed: u64,
    sample: u32,
    step: u32,
    stream: RefCell<Stream>,
    /// The last edge [`SampleView::edge`] read, `(source, target)`: a hook result equal to it
    /// is a neighbour of its transit without a search (the engines' check of `next`).
    last_edge: Cell<(VertexId, VertexId)>,
    /// The last membership test [`SampleView::contains`] made, `(v, u)`: what the walk engine
    /// watches to learn whether a hook tests its candidates against the walk's previous
    /// vertex ([`super::prefetch::TestPrediction`]).
    last_test: Cell<(VertexId, VertexId)>,
}

impl<'a> SampleView<'a> {
    pub(super) fn new(graph: &'a SampleGraph<'a>, state: SampleState<'a>, seed: u64, sample: u32, step: u32) -> Self {
        SampleView::with_stream(graph, state, seed, sample, step, sample_stream(seed, sample, step, 0))
    }

    /// [`SampleView::new`] with lane 0's stream given: `sample_stream(seed, sample, step, 0)`,
    /// drawn ahead or not.
    pub(super) fn with_stream(
        graph: &'a SampleGraph<'a>,
        state: SampleState<'a>,
        seed: u64,
        sample: u32,
        step: u32,
        stream: Stream,
    ) -> Self {
        SampleView {
            graph,
            state,
            seed,
            sample,
            step,
            stream: RefCell::new(stream),
            last_edge: Cell::new((NONE, NONE)),
            last_test: Cell::new((NONE, NONE)),
        }
    }

    /// Whether a hook of this view read the edge `source -> target` ([`SampleView::edge`]):
    /// then `target` is a neighbour of `source`, known without a search.
    #[inline]
    pub(super) fn read_edge(&self, source: VertexId, target: VertexId) -> bool {
        self.last_edge.get() == (source, target)
    }

    /// The last membership test a hook of this view made, `(v, u)` of its
    /// [`SampleView::contains`] (`(NONE, NONE)` before any).
    #[inline]
    pub(super) fn last_test(&self) -> (VertexId, VertexId) {
        self.last_test.get()
    }

    /// Starts the random stream of draw `lane` (every random number a hook call draws comes
    /// from the stream of (seed, sample, step, lane), in call order).
    #[inline]
    pub(super) fn start_lane(&self, lane: u32) {
        self.start_lane_with(sample_stream(self.seed, self.sample, self.step, lane));
    }

    /// [`SampleView::start_lane`] with the lane's stream given: `sample_stream(seed, sample,
    /// step, lane)`, drawn ahead or not (an engine that fills several lanes' blocks at once).
    #[inline]
    pub(super) fn start_lane_with(&self, stream: Stream) {
        *self.stream.borrow_mut() = stream;
    }

    // ----- the graph -----

    /// Number of vertices.
    #[inline]
    pub fn num_vertices(&self) -> u32 {
        self.graph.csr().num_vertices() as u32
    }

    /// Number of stored edges (for the interpreter's loop budget; not a hook's method).
    #[inline]
    pub(crate) fn num_edges(&self) -> u64 {
        self.graph.csr().num_edges()
    }

    /// Out-degree of `v` (0 for an id that is not a vertex).
    #[inline]
    pub fn degree(&self, v: VertexId) -> u64 {
        if v as usize >= self.graph.csr().num_vertices() {
            return 0;
        }
        self.graph.csr().degree(v) as u64
    }

    /// Neighbour `i` of `v` in ascending order; [`NONE`] when `i >= degree(v)`.
    #[inline]
    pub fn edge(&self, v: VertexId, i: u64) -> VertexId {
        if i >= self.degree(v) {
            return NONE;
        }
        let u = self.graph.csr().neighbors(v)[i as usize];
        self.last_edge.set((v, u));
        u
    }

    /// Weight of edge `i` of `v` (1 on unweighted graphs; 0 past the end).
    #[inline]
    pub fn edge_weight(&self, v: VertexId, i: u64) -> f64 {
        if i >= self.degree(v) {
            return 0.0;
        }
        self.graph.edge_weight(v, i)
    }

    /// Sum of the weights of edges `0..=i` of `v` (cached prefix sums, O(1)); the total
    /// past the end.
    #[inline]
    pub fn weight_prefix(&self, v: VertexId, i: u64) -> f64 {
        let d = self.degree(v);
        if d == 0 {
            return 0.0;
        }
        self.graph.weight_prefix(v, i.min(d - 1))
    }

    /// Sum of the weights of `v`'s edges.
    #[inline]
    pub fn total_weight(&self, v: VertexId) -> f64 {
        if self.degree(v) == 0 {
            return 0.0;
        }
        self.graph.total_weight(v)
    }

    /// The largest weight of `v`'s edges (cached; 0 without edges).
    #[inline]
    pub fn max_weight(&self, v: VertexId) -> f64 {
        if self.degree(v) == 0 {
            return 0.0;
        }
        self.graph.max_weight(v)
    }

    /// The edge of `v` whose weight interval holds `x`, i.e. the smallest `i` with
    /// `weight_prefix(v, i) > x` (binary search); `degree(v)` when `x >= total_weight(v)`.
    /// With `x` uniform in `[0, total_weight(v))` it is an edge drawn in proportion to its
    /// weight.
    #[inline]
    pub fn weighted_edge(&self, v: VertexId, x: f64) -> u64 {
        if self.degree(v) == 0 {
            return 0;
        }
        self.graph.weighted_edge(v, x)
    }

    /// Whether `u` is a neighbour of `v` (binary search in `v`'s sorted row).
    #[inline]
    pub fn contains(&self, v: VertexId, u: VertexId) -> bool {
        self.last_test.set((v, u));
        self.degree(v) > 0 && self.graph.contains(v, u)
    }

    // ----- the sample -----

    /// Number of the sample's roots.
    #[inline]
    pub fn root_count(&self) -> u32 {
        self.state.roots.len() as u32
    }

    /// Root `i` of the sample ([`NONE`] past the end).
    #[inline]
    pub fn root(&self, i: u32) -> VertexId {
        self.state.roots.get(i as usize).copied().unwrap_or(NONE)
    }

    /// Whether `v` is one of the sample's roots (binary search).
    #[inline]
    pub fn is_root(&self, v: VertexId) -> bool {
        self.state.sorted_roots.binary_search(&v).is_ok()
    }

    /// Transits `back` steps ago: `back = 1` is the current step's transits (at step 0, the
    /// roots), `back = 2` the previous step's, and so on; returns how many there are (0 for
    /// `back = 0` or a step before step 0).
    #[inline]
    pub fn previous_count(&self, back: u32) -> u32 {
        match self.history_range(back) {
            Some(range) => range.len() as u32,
            None => 0,
        }
    }

    /// Transit `pos` of the step `back` steps ago (see [`SampleView::previous_count`]):
    /// NextDoor's `prevVertex`. For a walk, `previous_vertex(1, 0)` is the current vertex
    /// and `previous_vertex(2, 0)` the one before; [`NONE`] when there is none.
    #[inline]
    pub fn previous_vertex(&self, back: u32, pos: u32) -> VertexId {
        match self.history_range(back) {
            Some(range) if (pos as usize) < range.len() => self.state.history[range.start + pos as usize],
            _ => NONE,
        }
    }

    fn history_range(&self, back: u32) -> Option<std::ops::Range<usize>> {
        let starts = self.state.history_starts;
        let steps = starts.len();
        if back == 0 || back as usize > steps {
            return None;
        }
        let level = steps - back as usize;
        let end = starts.get(level + 1).copied().unwrap_or(self.state.history.len());
        Some(starts[level]..end)
    }

    /// Number of the current step's transits (`previous_count(1)`).
    #[inline]
    pub fn transit_count(&self) -> u32 {
        self.previous_count(1)
    }

    /// Transit `pos` of the current step (`previous_vertex(1, pos)`).
    #[inline]
    pub fn transit(&self, pos: u32) -> VertexId {
        self.previous_vertex(1, pos)
    }

    // ----- the combined neighbourhood (collective samplers) -----

    /// Entries of the combined neighbourhood: the rows of the step's transits one after the
    /// other (a vertex adjacent to two transits appears twice). 0 for individual samplers.
    #[inline]
    pub fn combined_len(&self) -> u64 {
        self.state.combined.len() as u64
    }

    /// The vertex of entry `i` ([`NONE`] past the end).
    #[inline]
    pub fn combined_vertex(&self, i: u64) -> VertexId {
        self.state.combined.get(i as usize).copied().unwrap_or(NONE)
    }

    /// The transit entry `i` comes from (the edge's other end; [`NONE`] past the end).
    #[inline]
    pub fn combined_transit(&self, i: u64) -> VertexId {
        match self.state.combined_sources.get(i as usize) {
            Some(&pos) => self.transit(pos),
            None => NONE,
        }
    }

    /// How many entries of the combined neighbourhood hold `v`: the number of the step's
    /// transits adjacent to `v` (counted with repetition when a transit appears twice); 0
    /// when none is, and for individual samplers. The engine sorts the neighbourhood once per
    /// step on the first call (O(entries log entries)); each call is then a binary search
    /// (O(log entries)), so weighing every entry by its count costs O(entries log entries)
    /// in all, where testing `contains` against every transit costs O(entries x transits x
    /// log degree). FastGCN divides a vertex's weight among its entries with it.
    #[inline]
    pub fn combined_count(&self, v: VertexId) -> u64 {
        self.state.combined_sorted.count(self.state.combined, v)
    }

    /// Sum of the entries' weights ([`super::Sampler::combined_weight`]).
    #[inline]
    pub fn combined_total(&self) -> f64 {
        self.state.combined_prefix.last().copied().unwrap_or(0.0)
    }

    /// An entry drawn in proportion to its weight: one [`SampleView::random_f64`] `r`, then
    /// the smallest `i` whose inclusive prefix sum exceeds `r * combined_total()` (binary
    /// search); [`NONE_ENTRY`] when the total is 0.
    #[inline]
    pub fn combined_pick(&self) -> u64 {
        let total = self.combined_total();
        if total <= 0.0 {
            return NONE_ENTRY;
        }
        let x = self.random_f64() * total;
        let i = self.state.combined_prefix.partition_point(|&p| p <= x);
        if i >= self.state.combined.len() {
            NONE_ENTRY
        } else {
            i as u64
        }
    }

    // ----- random numbers -----

    /// A uniform integer in `0..n`, exact (Lemire's method: [`Stream::next_below`]); 0, with
    /// no draw, when `n` is 0.
    #[inline(always)]
    pub fn random_below(&self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        self.stream.borrow_mut().next_below(n)
    }

    /// A uniform `f64` in `[0, 1)` (53 bits, [`Stream::next_f64`]).
    #[inline]
    pub fn random_f64(&self) -> f64 {
        self.stream.borrow_mut().next_f64()
    }

    /// A uniform `u32` ([`Stream::next_u32`]).
    #[inline]
    pub fn random_u32(&self) -> u32 {
        self.stream.borrow_mut().next_u32()
    }

    /// The step being sampled, from 0.
    #[inline]
    pub fn step(&self) -> u32 {
        self.step
    }
}
