//! Software prefetches of the CPU engines: a sampling step is a chain of dependent reads (a
//! transit's row offsets, then a neighbour), and an engine that knows several steps' transits
//! and random words ahead of the hook calls asks the core for their lines early, so that the
//! misses of many steps overlap. A prefetch never changes a result, only when it is ready.

use super::edges::SampleGraph;
use crate::graph::{Csr, VertexId};
use crate::random::Stream;
use glp_codegen::kinds::sample::layout::SHORT_ROW;

/// The words of a step's stream from which a hook's first uniform draw among a row
/// (`random_below(degree)`, Lemire's method, whose first attempt is accepted but for a
/// fraction degree / 2^32) is predicted: the first (DeepWalk, node2vec, k-hop) and the third
/// (after a termination test's `random_f64`, PPR).
const PREDICTING_WORDS: [usize; 2] = [0, 2];

/// Draws an [`EdgePrediction`] watches before it keeps only the words that predict.
const LEARNING_DRAWS: u32 = 256;

/// Which edges of a transit's row an engine prefetches before a hook's draw: those the hook's
/// first uniform draw would read from each of [`PREDICTING_WORDS`], until [`LEARNING_DRAWS`]
/// draws have shown which words predict this sampler's draws; then only the words that
/// predicted at least a third of them. A prefetch that predicts nothing holds a line fill
/// buffer that a walk's next miss waits for: DeepWalk's hook draws from the first word alone
/// and PPR's from the third (each word fixed for every sampler: PPR on com-DBLP took 287 ms
/// instead of 246 without the third). DeepWalk with the third dropped once learnt, `glp
/// sample`, 2 threads, medians of 7 to 11 alternated with the build before: com-DBLP 279 ->
/// 273 ms, R-MAT 20 889 -> 775 ms; PPR, k-hop and node2vec the same or faster. A walk task
/// keeps one prediction for its samples (hundreds of walks of one sampler), so it learns
/// in its first rounds. A prefetch has no effect but on timing: a hook that reads otherwise
/// gets the same values.
///
/// The walk engine learns; the general engine prefetches from both words for the first lanes
/// of a long row ([`prefetch_predicted_edges`]): for k-hop, whose draws come from the first
/// word, the third's prefetches fetch more of the row for the lanes past those predicted
/// (with the third dropped, k-hop 25,10 on com-DBLP took 275 ms instead of 255, medians of
/// 11, alternated).
#[derive(Debug, Clone)]
pub(super) struct EdgePrediction {
    /// Per word of [`PREDICTING_WORDS`]: whether its edge is prefetched.
    prefetched: [bool; 2],
    /// Draws still to watch.
    learning: u32,
    /// Per word: the draws watched that read the edge it predicted.
    hits: [u32; 2],
}

impl Default for EdgePrediction {
    fn default() -> Self {
        EdgePrediction { prefetched: [true; 2], learning: LEARNING_DRAWS, hits: [0; 2] }
    }
}

impl EdgePrediction {
    /// Prefetches the edges of `t` a hook drawing from `stream` is predicted to read.
    #[inline]
    pub fn prefetch(&self, csr: &Csr, t: VertexId, stream: &Stream) {
        let Some((start, end)) = row_bounds(csr, t) else { return };
        // Written out word by word, so that each word's place in the buffer is a constant
        // (a loop over the kept words, with the word's place a variable, cost DeepWalk what
        // the dropped prefetch had saved).
        let [first, third] = self.prefetched;
        let [first_word, third_word] = PREDICTING_WORDS;
        for (kept, k) in [(first, first_word), (third, third_word)] {
            if kept {
                if let Some(predicted) = predicted_edge(start, end, stream, k) {
                    prefetch(csr.targets(), predicted as usize);
                }
            }
        }
    }

    /// Whether it still watches draws: the engine then calls [`EdgePrediction::learn`].
    #[inline]
    pub fn learning(&self) -> bool {
        self.learning > 0
    }

    /// Watches a hook's draw from `t` with `stream` (the step's, as it was before the hook
    /// drew) that gave `v`; the last draw watched decides which words stay prefetched.
    #[cold]
    pub fn learn(&mut self, csr: &Csr, t: VertexId, stream: &Stream, v: VertexId) {
        let Some((start, end)) = row_bounds(csr, t) else { return };
        if self.learning == 0 {
            return;
        }
        for (hit, &k) in self.hits.iter_mut().zip(&PREDICTING_WORDS) {
            let predicted = predicted_edge(start, end, stream, k).and_then(|e| csr.targets().get(e as usize));
            *hit += u32::from(predicted == Some(&v));
        }
        self.learning -= 1;
        if self.learning == 0 {
            self.prefetched = self.hits.map(|hits| 3 * hits >= LEARNING_DRAWS);
        }
    }
}

/// Learns from a walk task's first [`LEARNING_DRAWS`] steps whether its hook tests
/// candidates against the walk's previous vertex (`contains(previous, x)`, node2vec's bias),
/// on a graph whose rows lie beyond the caches: the walk engine then prefetches, before the
/// hook calls, what the test of each walk's first candidate will read ([`prefetch_tests`]).
/// A membership test is a chain of dependent reads of its own (the candidate's offsets, then
/// its row, or a hub's row from a guess) that the hook makes after its draw, so without
/// these prefetches its misses overlap with nothing.
///
/// Only where it pays: on a graph whose column array fits in the L3 the searched rows are
/// mostly there, and the passes over the walks cost more instructions than the misses they
/// hide (node2vec p = 2, q = 0.5 on com-DBLP, 8 MiB of edges, `glp sample`, 2 threads of the
/// development machine's AMD EPYC with 32 MiB of L3, alternated: 1672 -> 1764 ms, medians of
/// 9, 4.7% more instructions under cachegrind). Where they pay: R-MAT 20 (120 MiB of edges,
/// its hubs' rows in DRAM), 100-step walks from every vertex, 7570 -> 6420 ms (medians of 4,
/// alternated; an earlier build that prefetched from the first round 7396 -> 6371, medians
/// of 3); the same samples. A hook that tests nothing (DeepWalk, PPR) or tests other vertices
/// is not prefetched for once learnt (DeepWalk on R-MAT 20 1874 -> 1886 ms, within the
/// noise). Tried and dropped: prefetching the whole searched row of every walk whose previous
/// vertex's row is short as well (com-DBLP 1788 -> 1951 ms, medians of 7: those rows were
/// the transit's a step before and are mostly in the cache), and the edge a second attempt
/// would draw (from the fourth word; R-MAT 20 no faster).
#[derive(Debug, Clone)]
pub(super) struct TestPrediction {
    /// Whether the tests are prefetched for.
    prefetched: bool,
    /// Steps still to watch.
    learning: u32,
    /// Steps watched whose last membership test was against the walk's previous vertex.
    hits: u32,
}

impl TestPrediction {
    /// A prediction that learns where `rows_beyond_cache` (a graph whose column array lies
    /// beyond the L3), and stays off otherwise.
    pub fn new(rows_beyond_cache: bool) -> Self {
        let learning = if rows_beyond_cache { LEARNING_DRAWS } else { 0 };
        TestPrediction { prefetched: false, learning, hits: 0 }
    }

    /// Whether the engine prefetches for the tests of the walks' first candidates.
    #[inline]
    pub fn prefetched(&self) -> bool {
        self.prefetched
    }

    /// Whether it still watches steps: the engine then calls [`TestPrediction::learn`].
    #[inline]
    pub fn learning(&self) -> bool {
        self.learning > 0
    }

    /// Watches the step of a walk (its vertices up to the step's transit) whose hook's last
    /// membership test was `last_test` ([`SampleView::last_test`](super::view::SampleView::last_test));
    /// the last step watched decides. node2vec (p = 2, q = 0.5) tests in about two steps of
    /// five, so a quarter decides. A walk's first step, with no previous vertex, is not
    /// watched.
    #[cold]
    pub fn learn(&mut self, walk: &[VertexId], last_test: (VertexId, VertexId)) {
        let [.., previous, _] = *walk else { return };
        if self.learning == 0 {
            return;
        }
        self.hits += u32::from(last_test.0 == previous);
        self.learning -= 1;
        if self.learning == 0 {
            self.prefetched = 4 * self.hits >= LEARNING_DRAWS;
        }
    }
}

/// Prefetches what the membership tests of the walks `moves` (slot, previous vertex,
/// transit) will read, for those whose previous vertex has a row longer than [`SHORT_ROW`]
/// (a short row was the transit's a step before, mostly in the cache still): the row offsets
/// of the candidate a draw from the first word of the slot's stream predicts, then, a pass
/// later (the offsets on their way: which row a test searches depends on the candidate's
/// degree), the lines the test of that candidate against the previous vertex reads
/// ([`SampleGraph::prefetch_contains`]). `tested` is the passes' scratch.
pub(super) fn prefetch_tests(
    graph: &SampleGraph<'_>,
    moves: impl Iterator<Item = (usize, VertexId, VertexId)>,
    streams: &[Stream],
    tested: &mut Vec<(VertexId, VertexId)>,
) {
    let csr = graph.csr();
    tested.clear();
    tested.extend(moves.filter_map(|(slot, previous, t)| {
        if csr.degree(previous) as u64 <= SHORT_ROW {
            return None;
        }
        let (start, end) = row_bounds(csr, t)?;
        let e = predicted_edge(start, end, &streams[slot], PREDICTING_WORDS[0])?;
        let x = *csr.targets().get(e as usize)?;
        prefetch(csr.offsets(), x as usize);
        Some((previous, x))
    }));
    for &(previous, x) in tested.iter() {
        graph.prefetch_contains(previous, x);
    }
}

/// Prefetches the edges of `t` that a hook's first uniform draw would read from any of
/// [`PREDICTING_WORDS`] of `stream` (what an [`EdgePrediction`] does before it learns).
#[inline]
pub(super) fn prefetch_predicted_edges(csr: &Csr, t: VertexId, stream: &Stream) {
    EdgePrediction::default().prefetch(csr, t, stream);
}

/// The edge offset a uniform draw among the row [start, end) from word `k` of `stream`
/// reads (on the first attempt of Lemire's method), `None` for an empty row or a word past
/// the buffer.
#[inline]
fn predicted_edge(start: u64, end: u64, stream: &Stream, k: usize) -> Option<u64> {
    let word = stream.peek(k).filter(|_| end > start)?;
    Some(start + ((u64::from(word) * (end - start)) >> 32))
}

/// Prefetches the first and the last line of `t`'s row (a row of up to 16 edges lies in at
/// most two lines): the edges a draw from `t` reads whatever its random words, once the row's
/// offsets are in the cache (the engines prefetch them a pass before).
#[inline]
pub(super) fn prefetch_row(csr: &Csr, t: VertexId) {
    if let Some((start, end)) = row_bounds(csr, t).filter(|(start, end)| end > start) {
        prefetch(csr.targets(), start as usize);
        prefetch(csr.targets(), (end - 1) as usize);
    }
}

/// Whether `row` lies in at most two cache lines: [`prefetch_row`] then fetches all of it, and
/// a prefetch of the edges a draw is predicted to read (its cost: the lane's random block
/// looked up again, the row's offsets, a multiplication) only repeats it. On com-DBLP (a row
/// of 6.6 edges on average) k-hop 25,10 spent a seventh of its time on those repeats.
#[inline]
pub(super) fn lies_in_two_lines(row: &[VertexId]) -> bool {
    let Some(last) = row.last() else { return true };
    (last as *const VertexId as usize) / LINE - (row.as_ptr() as usize) / LINE < 2
}

/// Bytes in a cache line.
const LINE: usize = 64;

/// Prefetches every line of `values` (a short row: a few lines).
#[inline]
pub(super) fn prefetch_lines<T>(values: &[T]) {
    let per_line = (LINE / std::mem::size_of::<T>().max(1)).max(1);
    for i in (0..values.len()).step_by(per_line) {
        prefetch(values, i);
    }
    if let Some(last) = values.len().checked_sub(1) {
        prefetch(values, last);
    }
}

/// `t`'s row as a range of edge offsets (`None` for a vertex past the graph).
#[inline]
fn row_bounds(csr: &Csr, t: VertexId) -> Option<(u64, u64)> {
    let offsets = csr.offsets();
    let t = t as usize;
    Some((*offsets.get(t)?, *offsets.get(t + 1)?))
}

/// Asks the core to fetch `values[i]` into its cache (nothing when `i` is past the end).
#[inline]
pub(super) fn prefetch<T>(values: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(value) = values.get(i) {
        // SAFETY: a prefetch reads nothing architecturally and cannot fault; the address is
        // that of a live element of `values`.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(value as *const T as *const i8)
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (values, i);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::sampler::NONE;

    /// A graph whose first `rows` vertices have 1000 distinct neighbours each (the others
    /// none): a word predicts a draw only when it made it (two words' draws meet by chance
    /// one time in a thousand).
    fn wide_rows(rows: u32) -> Csr {
        let n = u64::from(rows) * 1000;
        let offsets = (0..=n).map(|v| v.min(u64::from(rows)) * 1000).collect();
        Csr::new(offsets, (0..n as VertexId).collect(), None).unwrap()
    }

    /// The words a prediction keeps prefetching after it watched draws from `draw`, which
    /// takes a step's stream and the transit's degree.
    fn kept_after(draw: impl Fn(&mut Stream, u64) -> u64) -> [bool; 2] {
        let csr = wide_rows(8);
        // The steps' streams with their first block drawn, as the walk engine draws them.
        let keys: Vec<(u32, u32)> = (0..LEARNING_DRAWS).map(|sample| (sample, 3)).collect();
        let mut streams = vec![Stream::new(7, 0); keys.len()];
        crate::random::sample_streams(7, 0, &keys, &mut streams);
        let mut prediction = EdgePrediction::default();
        for (draws, stream) in streams.iter().enumerate() {
            assert!(prediction.learning(), "decided after {draws} draws");
            let t = (draws % 8) as VertexId;
            let i = draw(&mut stream.clone(), csr.degree(t) as u64);
            prediction.learn(&csr, t, stream, csr.neighbors(t)[i as usize]);
        }
        assert!(!prediction.learning(), "still learning after {LEARNING_DRAWS} draws");
        prediction.prefetched
    }

    #[test]
    fn a_test_prediction_prefetches_for_hooks_that_test_against_the_previous_vertex() {
        // Walks up to their transits, the previous vertex 7 where there is one.
        let walk: [VertexId; 3] = [1, 7, 3];
        let watch = |every: u32| {
            let mut prediction = TestPrediction::new(true);
            let mut steps = 0;
            while prediction.learning() {
                // node2vec-like: steps `every`-th of which test a candidate against 7.
                let last_test = if steps % every == 0 { (7, 12) } else { (NONE, NONE) };
                prediction.learn(&walk, last_test);
                steps += 1;
                assert!(steps <= 10 * LEARNING_DRAWS, "never decided");
            }
            prediction.prefetched()
        };
        assert!(watch(1) && watch(2) && watch(4), "a quarter or more of the steps");
        assert!(!watch(5) && !watch(u32::MAX), "fewer, or none (DeepWalk)");
        // A walk's first steps have no previous vertex: not watched, however many they are.
        let mut prediction = TestPrediction::new(true);
        for _ in 0..2 * LEARNING_DRAWS {
            prediction.learn(&walk[..1], (7, 12));
        }
        assert!(prediction.learning() && !prediction.prefetched());
        // Tests against another vertex than the previous one are not predicted.
        let mut other = TestPrediction::new(true);
        while other.learning() {
            other.learn(&walk, (3, 12));
        }
        assert!(!other.prefetched());
        // Rows in the cache: it neither learns nor prefetches.
        let off = TestPrediction::new(false);
        assert!(!off.learning() && !off.prefetched());
    }

    #[test]
    fn a_prediction_keeps_the_words_that_the_hooks_draws_come_from() {
        // DeepWalk's draw: the first word.
        assert_eq!(kept_after(|stream, degree| stream.next_below(degree)), [true, false]);
        // PPR's: a termination test's f64 (two words), then the draw from the third.
        assert_eq!(
            kept_after(|stream, degree| {
                stream.next_f64();
                stream.next_below(degree)
            }),
            [false, true]
        );
        // A draw from the second word: neither predicts, neither is prefetched.
        assert_eq!(
            kept_after(|stream, degree| {
                stream.next_u32();
                stream.next_below(degree)
            }),
            [false, false]
        );
        // Before it has watched enough draws, both are.
        assert_eq!(EdgePrediction::default().prefetched, [true, true]);
    }
}
