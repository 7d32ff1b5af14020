//! The graph as samplers see it: the CSR plus the per-edge and per-vertex data weighted
//! samplers need, derived once per graph and cached.
//!
//! - **Prefix sums of edge weights** (one `f64` per stored edge, the running sum inside each
//!   row, inclusive): weighted draws by inverse transform, a binary search in the row,
//!   O(log degree) per draw ([`SampleGraph::weighted_edge`]). Alias tables would make a draw
//!   O(1), but need two arrays per edge and two random numbers per draw, and their output
//!   for a given random number is not the natural "the edge whose weight interval holds `x`"
//!   that a CUDA kernel reproduces trivially; the prefix sums serve node2vec's and the
//!   combined neighbourhoods' needs too.
//! - **Maximum edge weight per vertex** (one `f32` per vertex): node2vec's rejection bound.
//!
//! Both are built on first use (sequentially, inside a [`OnceLock`], so that a hook running
//! on a rayon worker can trigger the build without reentering the pool), and not at all on
//! unweighted graphs, where every weight is 1 and the sums are the edge counts.

use super::prefetch::{prefetch, prefetch_lines};
use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, VertexId};
use glp_codegen::kinds::sample::layout::SHORT_ROW;
use std::sync::OnceLock;

/// A CSR with the cached data of weighted sampling.
#[derive(Debug)]
pub struct SampleGraph<'a> {
    csr: &'a Csr,
    /// Every edge has its reverse ([`Graph::symmetric`]): membership tests search the
    /// shorter of the two rows.
    symmetric: bool,
    prefix: OnceLock<Vec<f64>>,
    max_weight: OnceLock<Vec<f32>>,
}

impl<'a> SampleGraph<'a> {
    /// The sampling view of `csr`. Errors when an edge weight is negative (weighted draws
    /// need non-negative weights).
    pub fn new(csr: &'a Csr) -> Result<Self> {
        if let Some(weights) = csr.weights() {
            if let Some(e) = weights.iter().position(|&w| w < 0.0) {
                return Err(Error::invalid(format!(
                    "edge {e} has the negative weight {}: sampling needs non-negative edge weights",
                    weights[e]
                )));
            }
        }
        Ok(SampleGraph { csr, symmetric: false, prefix: OnceLock::new(), max_weight: OnceLock::new() })
    }

    /// The sampling view of `graph` ([`SampleGraph::new`]), knowing whether it is symmetric.
    pub fn of(graph: &'a Graph) -> Result<Self> {
        Ok(SampleGraph { symmetric: graph.symmetric, ..SampleGraph::new(&graph.csr)? })
    }

    /// The sampling view of a bare CSR, symmetric when [`Csr::is_symmetric`] finds it so
    /// (one O(m) pass over the edges).
    pub fn detecting_symmetry(csr: &'a Csr) -> Result<Self> {
        Ok(SampleGraph { symmetric: csr.is_symmetric(), ..SampleGraph::new(csr)? })
    }

    /// Whether every edge has its reverse (as the loaded graph said; `false` for a bare CSR).
    #[inline]
    pub fn symmetric(&self) -> bool {
        self.symmetric
    }

    /// The CSR.
    #[inline]
    pub fn csr(&self) -> &'a Csr {
        self.csr
    }

    /// The inclusive in-row prefix sums of the weights (weighted graphs only).
    fn prefix(&self, weights: &[f32]) -> &[f64] {
        self.prefix.get_or_init(|| {
            let mut prefix = vec![0.0; weights.len()];
            for v in 0..self.csr.num_vertices() as VertexId {
                let mut sum = 0.0;
                for e in self.csr.edge_range(v) {
                    sum += weights[e] as f64;
                    prefix[e] = sum;
                }
            }
            prefix
        })
    }

    /// Weight of edge `i` of `v` (1 on unweighted graphs).
    #[inline]
    pub fn edge_weight(&self, v: VertexId, i: u64) -> f64 {
        match self.csr.weights() {
            Some(w) => w[self.csr.edge_range(v).start + i as usize] as f64,
            None => 1.0,
        }
    }

    /// Sum of the weights of edges `0..=i` of `v`.
    #[inline]
    pub fn weight_prefix(&self, v: VertexId, i: u64) -> f64 {
        match self.csr.weights() {
            Some(w) => self.prefix(w)[self.csr.edge_range(v).start + i as usize],
            None => (i + 1) as f64,
        }
    }

    /// Sum of the weights of `v`'s edges (0 without edges).
    #[inline]
    pub fn total_weight(&self, v: VertexId) -> f64 {
        let d = self.csr.degree(v) as u64;
        if d == 0 {
            0.0
        } else {
            self.weight_prefix(v, d - 1)
        }
    }

    /// The largest weight of `v`'s edges (0 without edges).
    #[inline]
    pub fn max_weight(&self, v: VertexId) -> f64 {
        match self.csr.weights() {
            Some(weights) => self.max_weight_table(weights)[v as usize] as f64,
            None if self.csr.degree(v) == 0 => 0.0,
            None => 1.0,
        }
    }

    /// The largest weight of each vertex's edges (0 without edges), built on first use.
    fn max_weight_table(&self, weights: &[f32]) -> &[f32] {
        self.max_weight.get_or_init(|| {
            (0..self.csr.num_vertices() as VertexId)
                .map(|u| self.csr.edge_range(u).map(|e| weights[e]).fold(0.0, f32::max))
                .collect()
        })
    }

    /// The inclusive prefix sums of every row's weights, edge by edge (`None` on an
    /// unweighted graph): what a GPU engine uploads for `weight_prefix` and `weighted_edge`.
    pub fn weight_prefixes(&self) -> Option<&[f64]> {
        self.csr.weights().map(|w| self.prefix(w))
    }

    /// The largest weight of each vertex's edges (`None` on an unweighted graph).
    pub fn max_weights(&self) -> Option<&[f32]> {
        self.csr.weights().map(|w| self.max_weight_table(w))
    }

    #[inline]
    pub fn weighted_edge(&self, v: VertexId, x: f64) -> u64 {
        match self.csr.weights() {
            Some(w) => {
                let range = self.csr.edge_range(v);
                self.prefix(w)[range].partition_point(|&p| p <= x) as u64
            }
            None => {
                let d = self.csr.degree(v) as u64;
                if x < 0.0 {
                    0
                } else {
                    (x.floor() as u64).min(d)
                }
            }
        }
    }

    /// Whether `u` is a neighbour of `v`: a search of `v`'s sorted row, or, when that row is
    /// longer than [`SHORT_ROW`] but at most [`HUB_ROW`] on a symmetric graph, of `u`'s when it
    /// is strictly shorter (`v` is then `u`'s neighbour exactly when `u` is `v`'s). node2vec's
    /// test of a candidate against a vertex of a few hundred edges it came from searches the
    /// candidate's short row; against a short row, or a hub's, it searches that row without
    /// reading the candidate's degree. The GPU view (`glp_sample_contains`) trades rows by
    /// the rule without the [`HUB_ROW`] bound. A row of at most [`SHORT_ROW`] edges is binary
    /// searched, a longer one from a guess ([`search_long_row`]).
    ///
    /// Always inlined: node2vec's step calls it in its rejection loop, and left to the
    /// compiler's choice it was called out of line once the long rows' branch was added.
    #[inline(always)]
    pub fn contains(&self, v: VertexId, u: VertexId) -> bool {
        let (row, key) = self.searched_row(v, u);
        search_row(row, key)
    }

    /// The row [`SampleGraph::contains`] searches for whether `u` is a neighbour of `v`, and
    /// the key it searches for there.
    #[inline(always)]
    fn searched_row(&self, v: VertexId, u: VertexId) -> (&'a [VertexId], VertexId) {
        let row = self.csr.neighbors(v);
        let n = self.csr.num_vertices();
        if self.symmetric
            && row.len() as u64 > SHORT_ROW
            && row.len() <= HUB_ROW
            && (u as usize) < n
            && self.csr.degree(u) < row.len()
        {
            return (self.csr.neighbors(u), v);
        }
        (row, u)
    }

    /// Asks the core for the lines [`SampleGraph::contains`]`(v, u)` reads first: the whole
    /// row when it is short (binary searched), the line of the first guess in a long one
    /// ([`search_long_row`]). `u`'s row offsets are read when the rule may trade rows, so an
    /// engine prefetches them a pass before.
    #[inline]
    pub fn prefetch_contains(&self, v: VertexId, u: VertexId) {
        if v as usize >= self.csr.num_vertices() {
            return;
        }
        let (row, key) = self.searched_row(v, u);
        if row.len() as u64 <= SHORT_ROW {
            prefetch_lines(row);
        } else {
            prefetch(row, long_row_guess(row, key));
        }
    }
}

/// The longest row a membership test may trade for the other vertex's shorter one: a hub's
/// row is searched in place, from a guess that lands within a line or two of the key when the
/// hub's neighbour ids are spread, where the other row costs reading that vertex's offsets and
/// then its row, two dependent misses. node2vec (p = 2, q = 0.5) on R-MAT 20, 2 threads, the
/// builds alternated twice: 7817 -> 6974 ms with this bound, 7618 -> 6720 and 7865 -> 7189
/// with every long row searched in place, which on com-DBLP (rows of up to 343 edges, whose
/// ids are not spread evenly) lost, 1201 -> 1293 ms; with the bound, com-DBLP 1257 -> 1189
/// (none of its rows reaches it). The same answers either way, so the same samples.
pub const HUB_ROW: usize = 1024;

/// Whether the sorted `row` holds `key`: a binary search of a row of at most [`SHORT_ROW`]
/// edges (four lines), [`search_long_row`] of a longer one.
#[inline(always)]
fn search_row(row: &[VertexId], key: VertexId) -> bool {
    if row.len() as u64 <= SHORT_ROW {
        return row.binary_search(&key).is_ok();
    }
    search_long_row(row, key)
}

/// Whether the sorted `row` (not empty) holds `key`, searched from where `key` would lie were
/// the row's values spread evenly between its first and last (interpolation): from that
/// guess the search gallops (1, 2, 4, ... places) until it brackets `key`, then binary
/// searches the bracket.
///
/// A binary search of a long row reads one line after another, each a miss when the row is
/// not in the cache: six of them for a row of 1,000 edges. A row's neighbour ids are spread
/// about evenly whenever ids carry no locality (generated graphs, relabelled ones), and the
/// guess then lands within a line or two of `key`. Where they are not, the gallop bounds the
/// search at about twice a binary search's probes. node2vec (p = 2, q = 0.5) on R-MAT 20,
/// 2 threads of the development machine's Intel Xeon, alternated runs: 6.67 -> 5.46 s for the
/// 64.6M steps of `glp bench sample` (9.7 -> 11.8 M steps/s), where binary searches of hub
/// rows took 70% of a step's time; the same samples (the answers are the binary search's).
///
/// Out of line: inlined into node2vec's step, its code slowed the step on graphs whose long
/// rows are rare (com-DBLP).
#[inline(never)]
fn search_long_row(row: &[VertexId], key: VertexId) -> bool {
    let n = row.len();
    let (first, last) = (row[0], row[n - 1]);
    if key <= first || key >= last {
        return key == first || key == last;
    }
    // first < key < last: the row holds two values or more, and the guess lies in 0..=n - 2.
    let guess = long_row_guess(row, key);
    match row[guess].cmp(&key) {
        std::cmp::Ordering::Equal => true,
        std::cmp::Ordering::Less => {
            // row[low] < key; the first place past it holding key or more is at most `high`
            // (row[n - 1] = last > key).
            let mut low = guess;
            let mut step = 1;
            while guess + step < n && row[guess + step] < key {
                low = guess + step;
                step *= 2;
            }
            let high = (guess + step).min(n - 1);
            row[low + 1..=high].binary_search(&key).is_ok()
        }
        std::cmp::Ordering::Greater => {
            // row[high] > key; the last place before it holding key or less is at least
            // `low` (row[0] = first < key).
            let mut high = guess;
            let mut step = 1;
            while step <= guess && row[guess - step] > key {
                high = guess - step;
                step *= 2;
            }
            let low = guess.saturating_sub(step);
            row[low..high].binary_search(&key).is_ok()
        }
    }
}

/// Where [`search_long_row`] looks first for `key` in the sorted `row` (at least two values
/// apart, `row[0] < key < row[n - 1]`; any place of the row otherwise): where `key` would
/// lie were the row's values spread evenly between its first and last.
#[inline]
fn long_row_guess(row: &[VertexId], key: VertexId) -> usize {
    let n = row.len();
    let (first, last) = (row[0], row[n - 1]);
    if n < 2 || key <= first || key >= last {
        return 0;
    }
    let fraction = f64::from(key - first) / f64::from(last - first);
    ((fraction * (n - 1) as f64) as usize).min(n - 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build_csr, BuildOptions, EdgeList, VertexIds};
    use crate::test_rng::Lcg;

    /// A symmetrised graph of 1,200 vertices, with random edges skewed towards low ids and
    /// three hubs whose rows are longer than [`SHORT_ROW`], one of them longer than [`HUB_ROW`].
    fn skewed_graph() -> Graph {
        let n = 1200u32;
        let mut rng = Lcg(0x9e37_79b9_7f4a_7c15);
        let mut next = |bound: u32| {
            let x = rng.below_u32(bound);
            x % (x % bound + 1)
        };
        // Random edges, and three hubs: one beyond HUB_ROW, two of a hundred or more edges.
        let hubs = (3..1100).map(|u| (0, u)).chain((1..200).map(|u| (2, u))).chain((50..150).map(|u| (1, u)));
        let (sources, targets) = (0..600).map(|_| (next(n), next(n))).chain(hubs).unzip();
        let edges = EdgeList { num_vertices: n as usize, sources, targets, weights: None };
        let csr = build_csr(&edges, &BuildOptions::default()).unwrap();
        Graph { csr, ids: VertexIds::Range { first: 0, len: n as usize }, symmetric: true }
    }

    /// The long rows' search agrees with a scan on rows whose values are spread evenly, packed
    /// in runs, skewed to one end, or repeated (multigraph rows), for keys in the row, between
    /// its values, at and past both ends.
    #[test]
    fn a_long_row_searched_from_a_guess_holds_what_a_scan_finds() {
        let mut rng = Lcg(0x853c_49e6_748f_ea9b);
        let mut next = |bound: u32| rng.below_u32(bound);
        let mut rows: Vec<Vec<VertexId>> = vec![
            (0..3).collect(),
            vec![7; 100],
            (0..200).map(|i| if i < 199 { 5 } else { 9 }).collect(),
            (0..300).map(|i| i * i).collect(),
            (0..300).map(|i| if i < 290 { i } else { 4_000_000_000 + i }).collect(),
            (0..400).map(|i| u32::MAX - 400 + i).collect(),
        ];
        for len in [65, 100, 1_000, 5_000] {
            rows.push((0..len).map(|_| next(1 << 20)).collect());
            rows.push((0..len).map(|_| next(len / 4 + 1) + next(3) * 1_000_000).collect());
        }
        for row in &mut rows {
            row.sort_unstable();
            let (first, last) = (row[0], row[row.len() - 1]);
            let mut keys: Vec<VertexId> =
                vec![0, first, last, first.saturating_sub(1), last.saturating_add(1), u32::MAX];
            keys.extend(row.iter().step_by(7).flat_map(|&x| [x, x.wrapping_add(1), x.wrapping_sub(1)]));
            keys.extend((0..200).map(|_| next(u32::MAX)));
            for key in keys {
                assert_eq!(
                    search_long_row(row, key),
                    row.contains(&key),
                    "{key} in a row of {} from {first} to {last}",
                    row.len()
                );
            }
        }
    }

    /// The first guess of a long row's search lies in the row, and, in a row whose values are
    /// spread evenly, within a place of the key's.
    #[test]
    fn a_long_rows_first_guess_lies_in_the_row_near_an_evenly_spread_key() {
        let even: Vec<VertexId> = (0..1000).map(|i| 5 + 7 * i).collect();
        // Keys strictly between the ends (the search answers those at the ends before guessing).
        for (i, &key) in even.iter().enumerate().take(even.len() - 1).skip(1) {
            let guess = long_row_guess(&even, key);
            assert!(guess.abs_diff(i) <= 1, "key {key} at {i}, guessed {guess}");
        }
        let mut rng = Lcg(0x2545_f491_4f6c_dd1d);
        for len in [1, 2, 3, 65, 1000] {
            let mut row: Vec<VertexId> = (0..len).map(|_| rng.below_u32(1 << 20)).collect();
            row.sort_unstable();
            for key in [0, row[0], row[len - 1], u32::MAX, rng.below_u32(1 << 20)] {
                assert!(long_row_guess(&row, key) < len, "a row of {len}, key {key}");
            }
        }
    }

    #[test]
    fn membership_on_a_symmetric_graph_is_the_row_scan_whichever_row_is_searched() {
        let graph = skewed_graph();
        assert!(graph.csr.is_symmetric());
        let sampled = SampleGraph::of(&graph).unwrap();
        assert!(sampled.symmetric());
        let n = graph.csr.num_vertices() as VertexId;
        let degrees: Vec<u64> = (0..n).map(|v| graph.csr.degree(v) as u64).collect();
        assert!(
            degrees.iter().any(|&d| d > SHORT_ROW) && degrees.iter().any(|&d| d <= SHORT_ROW),
            "rows on both sides of SHORT_ROW"
        );
        // Every way a row is chosen: a long row (up to HUB_ROW) with neighbours of a shorter
        // row (searched in theirs) and one with a row as long or longer (searched in the long
        // row itself), and a hub's row beyond HUB_ROW with shorter neighbours' rows (searched
        // in place all the same).
        let pairs = |rows: fn(u64) -> bool, keep: fn(u64, u64) -> bool| {
            (0..n)
                .filter(|&v| rows(degrees[v as usize]))
                .any(|v| graph.csr.neighbors(v).iter().any(|&u| keep(degrees[v as usize], degrees[u as usize])))
        };
        let long = |d: u64| d > SHORT_ROW && d as usize <= HUB_ROW;
        assert!(pairs(long, |dv, du| du < dv) && pairs(long, |dv, du| du >= dv), "a long row traded and kept");
        assert!(pairs(|d| d as usize > HUB_ROW, |dv, du| du < dv), "a hub's row, searched in place");
        for v in 0..n + 10 {
            for u in 0..n + 10 {
                let scanned = v < n && graph.csr.neighbors(v).contains(&u);
                if v < n {
                    assert_eq!(sampled.contains(v, u), scanned, "{v} -> {u}");
                }
                // Its prefetches read inside the graph for any ids (a panic otherwise).
                sampled.prefetch_contains(v, u);
            }
        }
    }
}
