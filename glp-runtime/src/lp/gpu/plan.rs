//! Degree classes: which kernel serves which vertex, planned once per graph and strategy.

use super::{MflStrategy, SketchPlan, SortPlan};
use crate::graph::{Csr, VertexId};
use glp_codegen::lp_kernels::giants::{giant_batches, GiantBatch, GIANT_DEGREE};
use glp_codegen::lp_kernels::mfl::{
    exact_pool, low_tile, table_capacity, HIGH_OVERFLOW_DEGREE, LOW_DEGREE_LIMIT, LOW_TILES, MID_MAX_DEGREE,
};

/// The vertices of each kernel class, and the global table layout the classes need.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassPlan {
    /// Low class, one list per tile width of [`LOW_TILES`] (same order).
    pub low: Vec<Vec<VertexId>>,
    /// Middle class (a warp per vertex, shared table).
    pub mid: Vec<VertexId>,
    /// High class (a block per vertex) up to [`HIGH_OVERFLOW_DEGREE`], whose labels all fit
    /// the shared table.
    pub high: Vec<VertexId>,
    /// High class above [`HIGH_OVERFLOW_DEGREE`] (hubs: the shared table and the sketch, may
    /// be deferred to the exact kernel).
    pub hubs: Vec<VertexId>,
    /// Both, by id (what asynchronous sweeps give the hub kernel).
    pub high_and_hubs: Vec<VertexId>,
    /// Giants (degree above [`GIANT_DEGREE`]: many blocks per vertex), in batches whose
    /// regions fit the giant pool.
    pub giants: Vec<GiantBatch>,
    /// High vertices that may be deferred to the exact kernel (degree above
    /// [`HIGH_OVERFLOW_DEGREE`]), and the largest of their degrees.
    pub high_deferrable: u64,
    pub high_max_degree: u64,
    /// G-Hash: every vertex with a global table region.
    pub global: Vec<VertexId>,
    /// Offsets of the G-Hash regions (`global.len() + 1` entries).
    pub global_regions: Vec<u64>,
    /// G-Sort: every vertex, bucketed by segment size (no other class is used).
    pub sort: Option<SortPlan>,
    /// The sketch strategies: every vertex, by degree (no other class is used).
    pub sketch: Option<SketchPlan>,
    /// nu-LPA's hash tables: a warp per vertex, over all vertices (no other class is used).
    pub nu_hash: bool,
}

impl ClassPlan {
    /// The plan of `strategy` for `csr`.
    pub fn new(csr: &Csr, strategy: MflStrategy) -> ClassPlan {
        let mut plan = ClassPlan { low: vec![Vec::new(); LOW_TILES.len()], ..ClassPlan::default() };
        let n = csr.num_vertices() as VertexId;
        match strategy {
            MflStrategy::Global => {
                plan.global = (0..n).collect();
                plan.global_regions = regions(csr, &plan.global);
            }
            MflStrategy::Sort => plan.sort = Some(SortPlan::new(csr)),
            MflStrategy::Sketch(sketch) => plan.sketch = Some(SketchPlan::new(csr, sketch)),
            MflStrategy::NuHash => plan.nu_hash = true,
            MflStrategy::Glp | MflStrategy::Smem => {
                let mut giants = Vec::new();
                for v in 0..n {
                    let degree = csr.degree(v) as u64;
                    if degree < LOW_DEGREE_LIMIT && strategy == MflStrategy::Glp {
                        let tile = low_tile(degree);
                        let index = LOW_TILES.iter().position(|&t| t == tile).expect("tiles cover the low class");
                        plan.low[index].push(v);
                    } else if degree <= MID_MAX_DEGREE {
                        plan.mid.push(v);
                    } else if degree > GIANT_DEGREE {
                        giants.push((v, degree));
                    } else if degree > HIGH_OVERFLOW_DEGREE {
                        plan.hubs.push(v);
                        plan.high_and_hubs.push(v);
                        plan.high_deferrable += 1;
                        plan.high_max_degree = plan.high_max_degree.max(degree);
                    } else {
                        plan.high.push(v);
                        plan.high_and_hubs.push(v);
                    }
                }
                plan.giants = giant_batches(&giants);
            }
        }
        plan
    }

    /// The exact path's pool: (blocks, slots per block region), see [`exact_pool`].
    pub fn exact_pool(&self) -> (u64, u64) {
        exact_pool(self.high_max_degree, self.high_deferrable)
    }

    /// Slots of the G-Hash table.
    pub fn global_table_slots(&self) -> u64 {
        self.global_regions.last().copied().unwrap_or(0)
    }
}

/// Prefix offsets of per-vertex table regions: [`table_capacity`] slots for each vertex of
/// `vertices`.
fn regions(csr: &Csr, vertices: &[VertexId]) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(vertices.len() + 1);
    let mut total = 0u64;
    offsets.push(0);
    for &v in vertices {
        total += table_capacity(csr.degree(v) as u64);
        offsets.push(total);
    }
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A star with `leaves` leaves plus isolated vertices: every vertex lands in exactly one
    /// class, by its degree.
    fn star(leaves: u32, isolated: u32) -> Csr {
        let n = leaves + 1 + isolated;
        let mut offsets = vec![0u64, u64::from(leaves)];
        let mut targets: Vec<u32> = (1..=leaves).collect();
        for _ in 0..leaves {
            targets.push(0);
            offsets.push(targets.len() as u64);
        }
        for _ in 0..isolated {
            offsets.push(targets.len() as u64);
        }
        assert_eq!(offsets.len() as u32, n + 1);
        Csr::new(offsets, targets, None).unwrap()
    }

    #[test]
    fn classes_follow_the_degree_bounds() {
        let cases = [
            (5u32, "low"),
            (31, "low"),
            (32, "mid"),
            (128, "mid"),
            (129, "high"),
            (1024, "high"),
            (1025, "hub"),
            (2000, "hub"),
        ];
        for (leaves, class) in cases {
            let csr = star(leaves, 2);
            let plan = ClassPlan::new(&csr, MflStrategy::Glp);
            let in_low = plan.low.iter().any(|l| l.contains(&0));
            assert_eq!(
                (in_low, plan.mid.contains(&0), plan.high.contains(&0), plan.hubs.contains(&0)),
                (class == "low", class == "mid", class == "high", class == "hub"),
                "{leaves}"
            );
            // Leaves (degree 1) use tiles of 1 lane, isolated vertices too.
            assert_eq!(plan.low[0].len(), leaves as usize + 2);
            let total: usize =
                plan.low.iter().map(Vec::len).sum::<usize>() + plan.mid.len() + plan.high.len() + plan.hubs.len();
            assert_eq!(plan.high_and_hubs.contains(&0), class == "high" || class == "hub");
            assert_eq!(total, csr.num_vertices());
            let deferrable = u64::from(leaves as u64 > HIGH_OVERFLOW_DEGREE);
            assert_eq!(plan.high_deferrable, deferrable);
            assert_eq!(plan.exact_pool(), if deferrable == 1 { (1, table_capacity(leaves as u64)) } else { (0, 0) });
            let smem = ClassPlan::new(&csr, MflStrategy::Smem);
            assert!(smem.low.iter().all(Vec::is_empty));
            assert_eq!(smem.mid.len() + smem.high.len() + smem.hubs.len(), csr.num_vertices());
        }
    }

    /// Vertices above the giant bound leave the high class for the giant batches, and the
    /// exact pool is sized by the high class alone.
    #[test]
    fn giants_leave_the_high_class() {
        for (leaves, giant) in [(GIANT_DEGREE, false), (GIANT_DEGREE + 1, true)] {
            let csr = star(leaves as u32, 0);
            let plan = ClassPlan::new(&csr, MflStrategy::Glp);
            let batched: Vec<VertexId> = plan.giants.iter().flat_map(|b| b.vertices.iter().copied()).collect();
            assert_eq!((plan.hubs.contains(&0), batched == vec![0]), (!giant, giant), "{leaves}");
            assert_eq!(plan.high_deferrable, u64::from(!giant));
            assert_eq!(plan.exact_pool().0, u64::from(!giant));
            let smem = ClassPlan::new(&csr, MflStrategy::Smem);
            assert_eq!(smem.giants, plan.giants);
        }
    }

    #[test]
    fn g_hash_gives_every_vertex_a_region_of_twice_its_degree() {
        let csr = star(100, 1);
        let plan = ClassPlan::new(&csr, MflStrategy::Global);
        assert_eq!(plan.global.len(), csr.num_vertices());
        assert_eq!(plan.global_regions[1] - plan.global_regions[0], 256);
        assert_eq!(plan.global_regions[2] - plan.global_regions[1], 2);
        assert_eq!(plan.global_table_slots(), 256 + 100 * 2);
    }
}
