//! Removing isolated vertices: LDBC Graphalytics' Graph500 sets are R-MAT graphs without the
//! vertices no edge touches.

use super::{Csr, Graph, VertexId, VertexIds};
use crate::error::Result;
use rayon::prelude::*;

impl Graph {
    /// The graph without its isolated vertices (no out-edge and no in-edge), the others
    /// keeping their order and their original ids; every edge is kept. LDBC's `graph500-26` is
    /// `glp gen rmat --scale 26` so reduced.
    pub fn without_isolated(&self) -> Result<Graph> {
        let n = self.num_vertices();
        let mut touched: Vec<bool> = (0..n as VertexId).into_par_iter().map(|v| self.csr.degree(v) > 0).collect();
        if !self.symmetric {
            for &t in self.csr.targets() {
                touched[t as usize] = true;
            }
        }
        // New dense id of each kept vertex (u32::MAX for the removed, which no edge names).
        let mut renumbered = vec![VertexId::MAX; n];
        let mut kept = Vec::new();
        for v in (0..n).filter(|&v| touched[v]) {
            renumbered[v] = kept.len() as VertexId;
            kept.push(v as VertexId);
        }
        let mut offsets = Vec::with_capacity(kept.len() + 1);
        offsets.push(0u64);
        for &v in &kept {
            offsets.push(offsets[offsets.len() - 1] + self.csr.degree(v) as u64);
        }
        let targets: Vec<VertexId> = self.csr.targets().par_iter().map(|&t| renumbered[t as usize]).collect();
        let weights = self.csr.weights().map(<[f32]>::to_vec);
        let ids = VertexIds::from_sorted(kept.iter().map(|&v| self.ids.original(v)).collect());
        Ok(Graph { csr: Csr::new(offsets, targets, weights)?, ids, symmetric: self.symmetric })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vertices 1 and 4 of 0..6 touch no edge (2 -> 5 is directed: 5 has an in-edge only).
    #[test]
    fn isolated_vertices_go_and_the_others_keep_their_edges_and_ids() {
        let csr = Csr::new(vec![0, 1, 1, 3, 4, 4, 4], vec![3, 0, 5, 0], Some(vec![1.0, 2.0, 3.0, 4.0])).unwrap();
        let graph = Graph { csr, ids: VertexIds::Range { first: 10, len: 6 }, symmetric: false };
        let reduced = graph.without_isolated().unwrap();
        assert_eq!(reduced.num_vertices(), 4);
        assert_eq!((0..4).map(|v| reduced.ids.original(v)).collect::<Vec<_>>(), [10, 12, 13, 15]);
        assert_eq!(reduced.csr.offsets(), [0, 1, 3, 4, 4]);
        assert_eq!(reduced.csr.targets(), [2, 0, 3, 0]);
        assert_eq!(reduced.csr.weights().unwrap(), [1.0, 2.0, 3.0, 4.0]);
        // A symmetric graph: degree alone decides.
        let star = Graph {
            csr: Csr::new(vec![0, 2, 3, 3, 4], vec![1, 3, 0, 0], None).unwrap(),
            ids: VertexIds::Range { first: 0, len: 4 },
            symmetric: true,
        };
        let reduced = star.without_isolated().unwrap();
        assert_eq!((reduced.num_vertices(), reduced.csr.targets()), (3, &[1, 2, 0, 0][..]));
        assert_eq!(reduced.ids.original(2), 3);
    }
}
