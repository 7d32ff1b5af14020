//! A renumbering of a graph's vertices by degree, highest first, and a CSR's rows in it.
//!
//! Engines that gather (a pull reads the value of every sender of every receiver, label
//! propagation counts every neighbour's label) read a vertex's value once per edge at it. On
//! power-law graphs most of those reads go to the few vertices of highest degree, which a
//! random numbering (Graph500's R-MAT scrambles its ids) spreads over the whole value array:
//! every read then misses the cache once the array exceeds it. Numbered first, the hubs' values
//! share cache lines and stay in the cache, and a sorted row lists its hubs first. This is the
//! "degree sort" of the graph reordering literature: the cheapest order to compute (one sort by
//! degree) and on skewed graphs most of the gain of the costly ones.
//!
//! The order is an engine's private business: results keep the graph's ids. An engine holds
//! its arrays in the order's positions, gives its hooks [`DegreeOrder::graph_ids`] of them, and
//! puts its results back in graph order ([`DegreeOrder::to_graph_order`]).

use super::{Csr, VertexId};
use crate::error::Result;
use crate::memory::try_zeroed;
use rayon::prelude::*;

/// Vertices renumbered by decreasing degree, equal degrees by increasing id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DegreeOrder {
    /// The graph's id of the vertex at each position.
    graph_ids: Vec<VertexId>,
    /// The position of each of the graph's vertices (the inverse of `graph_ids`).
    positions: Vec<VertexId>,
    /// The vertices of nonzero degree, which the order numbers first.
    with_edges: usize,
}

/// Entries a task of [`DegreeOrder::permute`] renumbers, at least (whole rows, so a hub's row
/// may make a larger task). Tasks are cut by entries, not rows: the order puts the hubs first,
/// and the first few thousand rows of an R-MAT graph hold a third of its edges.
const ENTRIES_PER_TASK: u64 = 1 << 18;

impl DegreeOrder {
    /// The order of `num_vertices` vertices by decreasing `degree(v)`, ties by increasing id.
    pub fn by_degree(num_vertices: usize, degree: impl Fn(VertexId) -> u64 + Sync) -> Result<Self> {
        let mut keyed: Vec<(u64, VertexId)> = try_zeroed(num_vertices, "the vertex order's sort keys")?;
        keyed.par_iter_mut().enumerate().for_each(|(v, key)| *key = (u64::MAX - degree(v as VertexId), v as VertexId));
        keyed.par_sort_unstable();
        let with_edges = keyed.partition_point(|&(key, _)| key != u64::MAX); // keys of degree 0 sort last
        let graph_ids: Vec<VertexId> = keyed.into_par_iter().map(|(_, v)| v).collect();
        let mut positions: Vec<VertexId> = try_zeroed(num_vertices, "the vertex order's positions")?;
        for (position, &v) in graph_ids.iter().enumerate() {
            positions[v as usize] = position as VertexId;
        }
        Ok(DegreeOrder { graph_ids, positions, with_edges })
    }

    /// Host bytes the order of `csr`'s vertices and [`DegreeOrder::permute`]'s copy of it
    /// take (the sort keys, both mappings, the renumbered offsets, entries and weights).
    pub fn bytes_to_permute(csr: &Csr) -> u64 {
        let n = csr.num_vertices() as u64;
        let entry = if csr.weights().is_some() { 8 } else { 4 };
        n * 24 + (n + 1) * 8 + csr.num_edges() * entry
    }

    /// The graph's id of the vertex at each position.
    pub fn graph_ids(&self) -> &[VertexId] {
        &self.graph_ids
    }

    /// The position of each of the graph's vertices.
    pub fn positions(&self) -> &[VertexId] {
        &self.positions
    }

    /// How many vertices have a nonzero degree: positions `0..with_edges()` hold them all.
    pub fn with_edges(&self) -> usize {
        self.with_edges
    }

    /// `csr` in this order: row `p` is the row of the vertex at position `p`, its entries
    /// renumbered to positions and sorted (weights moved with their entries).
    ///
    /// Errors: `csr` has another vertex count than the order; memory for the copy.
    pub fn permute(&self, csr: &Csr) -> Result<Csr> {
        let n = self.graph_ids.len();
        if csr.num_vertices() != n {
            return Err(crate::error::Error::invalid(format!(
                "internal: a vertex order of {n} vertices for a graph of {}",
                csr.num_vertices()
            )));
        }
        let mut offsets: Vec<u64> = try_zeroed(n + 1, "the reordered rows' offsets")?;
        for (p, &v) in self.graph_ids.iter().enumerate() {
            offsets[p + 1] = offsets[p] + csr.degree(v) as u64;
        }
        let m = csr.num_edges() as usize;
        let mut targets: Vec<VertexId> = try_zeroed(m, "the reordered rows")?;
        let mut weights: Option<Vec<f32>> =
            csr.weights().map(|_| try_zeroed(m, "the reordered rows' weights")).transpose()?;
        // Tasks of consecutive positions and about ENTRIES_PER_TASK entries, each owning its
        // rows' slices.
        let mut tasks = Vec::with_capacity((m as u64 / ENTRIES_PER_TASK) as usize + 1);
        let (mut rest_targets, mut rest_weights) = (&mut targets[..], weights.as_deref_mut());
        let mut first = 0;
        while first < n {
            let limit = offsets[first] + ENTRIES_PER_TASK;
            let end = first + offsets[first + 1..].partition_point(|&o| o < limit) + 1;
            let end = end.min(n);
            let len = (offsets[end] - offsets[first]) as usize;
            let (t, tail) = rest_targets.split_at_mut(len);
            rest_targets = tail;
            let w = match rest_weights.take() {
                Some(all) => {
                    let (w, tail) = all.split_at_mut(len);
                    rest_weights = Some(tail);
                    Some(w)
                }
                None => None,
            };
            tasks.push((first..end, t, w));
            first = end;
        }
        tasks.into_par_iter().for_each(|(positions, targets, mut weights)| {
            let base = offsets[positions.start];
            let mut pairs: Vec<(VertexId, f32)> = Vec::new();
            for p in positions {
                let v = self.graph_ids[p];
                let row = (offsets[p] - base) as usize..(offsets[p + 1] - base) as usize;
                let out = &mut targets[row.clone()];
                for (slot, &t) in out.iter_mut().zip(csr.neighbors(v)) {
                    *slot = self.positions[t as usize];
                }
                match (weights.as_deref_mut(), csr.weights()) {
                    (Some(w_out), Some(w_in)) => {
                        pairs.clear();
                        pairs.extend(out.iter().copied().zip(w_in[csr.edge_range(v)].iter().copied()));
                        pairs.sort_unstable_by_key(|&(t, _)| t);
                        for ((t, w), (slot_t, slot_w)) in pairs.iter().zip(out.iter_mut().zip(&mut w_out[row])) {
                            *slot_t = *t;
                            *slot_w = *w;
                        }
                    }
                    _ => out.sort_unstable(),
                }
            }
        });
        Ok(Csr::from_sorted_parts(offsets, targets, weights))
    }

    /// `values` indexed by position, indexed by the graph's ids.
    pub fn to_graph_order<T: Clone + Send + Sync>(&self, values: &[T]) -> Vec<T> {
        self.positions.par_iter().map(|&p| values[p as usize].clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The undirected graph of `n` vertices and `edges` (each stored both ways, rows sorted),
    /// with the edges' weights when `weighted`.
    fn undirected(n: usize, edges: &[(u32, u32, f32)], weighted: bool) -> Csr {
        let mut rows: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n];
        for &(a, b, w) in edges {
            rows[a as usize].push((b, w));
            rows[b as usize].push((a, w));
        }
        let mut offsets = vec![0u64];
        let (mut targets, mut weights) = (Vec::new(), Vec::new());
        for row in &mut rows {
            row.sort_by_key(|&(t, _)| t);
            targets.extend(row.iter().map(|&(t, _)| t));
            weights.extend(row.iter().map(|&(_, w)| w));
            offsets.push(targets.len() as u64);
        }
        Csr::new(offsets, targets, weighted.then_some(weights)).unwrap()
    }

    /// A weighted graph with degrees 1, 3, 2, 3, 1 (vertex 0..5): a path 0-1-2-3 and 1-3, 3-4.
    fn graph() -> Csr {
        undirected(5, &[(0, 1, 1.0), (1, 2, 2.0), (2, 3, 3.0), (1, 3, 4.0), (3, 4, 5.0)], true)
    }

    #[test]
    fn vertices_go_by_decreasing_degree_then_id() {
        let csr = graph();
        let order = DegreeOrder::by_degree(csr.num_vertices(), |v| csr.degree(v) as u64).unwrap();
        // Degrees 1, 3, 2, 3, 1: vertices 1 and 3 (3), 2 (2), 0 and 4 (1).
        assert_eq!(order.graph_ids(), &[1, 3, 2, 0, 4]);
        for (p, &v) in order.graph_ids().iter().enumerate() {
            assert_eq!(order.positions()[v as usize] as usize, p);
        }
    }

    /// `csr` permuted by its degree order: each permuted row, mapped back to graph ids, is the
    /// original row with its weights, and is sorted.
    fn check_permutation(csr: &Csr) -> DegreeOrder {
        let order = DegreeOrder::by_degree(csr.num_vertices(), |v| csr.degree(v) as u64).unwrap();
        let permuted = order.permute(csr).unwrap();
        assert_eq!(permuted.num_edges(), csr.num_edges());
        let weight = |c: &Csr, e: usize| c.weights().map(|w| w[e]);
        for v in 0..csr.num_vertices() as VertexId {
            let p = order.positions()[v as usize];
            let mut back: Vec<(u32, Option<f32>)> = permuted
                .edge_range(p)
                .map(|e| (order.graph_ids()[permuted.targets()[e] as usize], weight(&permuted, e)))
                .collect();
            back.sort_by_key(|&(t, _)| t);
            let original: Vec<(u32, Option<f32>)> =
                csr.edge_range(v).map(|e| (csr.targets()[e], weight(csr, e))).collect();
            assert_eq!(back, original, "vertex {v}");
            assert!(permuted.neighbors(p).windows(2).all(|w| w[0] < w[1]), "row {p} sorted");
        }
        order
    }

    #[test]
    fn permuted_rows_hold_the_same_weighted_edges_renumbered() {
        let order = check_permutation(&graph());
        assert_eq!(order.to_graph_order(&[10, 11, 12, 13, 14]), vec![13, 10, 12, 11, 14]);
    }

    #[test]
    fn rows_longer_than_a_task_and_many_short_ones_are_renumbered() {
        // Vertex 0 joined to every other of 600,288 vertices (a row of twice ENTRIES_PER_TASK
        // and more), and a path through the others: tasks of one long row, then of many.
        let n = 2 * ENTRIES_PER_TASK as u32 + 76_000;
        let mut edges: Vec<(u32, u32, f32)> = (1..n).map(|v| (0, v, 0.0)).collect();
        edges.extend((1..n - 1).map(|v| (v, v + 1, 0.0)));
        let order = check_permutation(&undirected(n as usize, &edges, false));
        assert_eq!(order.graph_ids()[0], 0, "the hub first");
    }

    #[test]
    fn empty_graphs_isolated_vertices_and_weights_across_tasks_are_renumbered() {
        let empty = check_permutation(&Csr::empty(0));
        assert!(empty.graph_ids().is_empty());
        // Isolated vertices (no edges at all) keep their id order, last.
        let isolated = check_permutation(&Csr::empty(5));
        assert_eq!(isolated.graph_ids(), &[0, 1, 2, 3, 4]);
        // A weighted path of 2 * ENTRIES_PER_TASK vertices, every other one isolated (several
        // tasks, weights moved with their entries, the isolated vertices last).
        let n = 2 * ENTRIES_PER_TASK as u32;
        let edges: Vec<(u32, u32, f32)> = (0..n - 2).step_by(2).map(|v| (v, v + 2, v as f32 * 0.5)).collect();
        let order = check_permutation(&undirected(n as usize, &edges, true));
        let first_isolated = order.graph_ids().iter().position(|&v| v % 2 == 1).unwrap();
        assert!(order.graph_ids()[first_isolated..].iter().all(|&v| v % 2 == 1));
        assert_eq!(order.with_edges(), first_isolated, "the positions of the vertices with edges");
        assert_eq!(order.with_edges(), (n / 2) as usize, "every even vertex has an edge, no odd one");
    }

    #[test]
    fn a_graph_of_another_size_is_refused() {
        let csr = graph();
        let order = DegreeOrder::by_degree(3, |_| 0).unwrap();
        assert!(order.permute(&csr).unwrap_err().to_string().contains("internal"));
    }
}
