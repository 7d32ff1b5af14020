//! The G-Sort baseline (`--mfl sort`): each iteration gathers every edge's neighbour label
//! and weight into a per-edge array NL in global memory, sorts each vertex's segment of NL by
//! label, and scans the sorted runs for the most frequent label. The kernels and why they are
//! exact: glp-codegen's `lp_kernels/sort_kernels.cuh`; the segment-size classes:
//! [`glp_codegen::lp_kernels::sort`].
//!
//! Here: the plan that buckets vertices by segment size ([`SortPlan`]), the device buffers
//! (NL and the large segments' merge scratch, both counted as the strategy's table memory),
//! and the launches.

use super::SweepLaunch;
use crate::device::{DeviceBuffer, Gpu, Kernel, KernelArgs, Module, Shape};
use crate::error::Result;
use crate::graph::{Csr, VertexId};
use glp_codegen::lp_kernels::mfl::{low_tile, LOW_TILES};
use glp_codegen::lp_kernels::sort::{
    SORT_BLOCK_MAX, SORT_BLOCK_THREADS, SORT_LARGE_THREADS, SORT_THREADS, SORT_TILE_MAX,
};

/// Which sort kernel serves which vertex, by segment size (degree).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SortPlan {
    /// Degree at most [`SORT_TILE_MAX`]: one list per tile width of [`LOW_TILES`] (same
    /// order), a vertex in the narrowest tile that holds its segment (degree 0 and 1 in tile
    /// 1, which needs no sort).
    pub tiles: Vec<Vec<VertexId>>,
    /// Degree above [`SORT_TILE_MAX`], at most [`SORT_BLOCK_MAX`]: a block sorts the segment
    /// in shared memory.
    pub block: Vec<VertexId>,
    /// Degree above [`SORT_BLOCK_MAX`]: a block sorts tiles and merges them in global memory.
    pub large: Vec<VertexId>,
    /// Offsets of the large vertices' scratch regions, one entry per edge of theirs
    /// (`large.len() + 1` entries).
    pub scratch_offsets: Vec<u64>,
}

impl SortPlan {
    /// The plan for `csr`.
    pub fn new(csr: &Csr) -> SortPlan {
        let mut plan =
            SortPlan { tiles: vec![Vec::new(); LOW_TILES.len()], scratch_offsets: vec![0], ..SortPlan::default() };
        let mut scratch = 0u64;
        for v in 0..csr.num_vertices() as VertexId {
            let degree = csr.degree(v) as u64;
            if degree <= SORT_TILE_MAX {
                let tile = low_tile(degree);
                let index = LOW_TILES.iter().position(|&t| t == tile).expect("the tiles reach SORT_TILE_MAX");
                plan.tiles[index].push(v);
            } else if degree <= SORT_BLOCK_MAX {
                plan.block.push(v);
            } else {
                plan.large.push(v);
                scratch += degree;
                plan.scratch_offsets.push(scratch);
            }
        }
        plan
    }

    /// Entries of the merge scratch (the large vertices' edges).
    pub fn scratch_len(&self) -> u64 {
        self.scratch_offsets.last().copied().unwrap_or(0)
    }
}

/// A class's vertex list on the device (the sketch strategies use it too).
pub(super) struct VertexList {
    pub(super) vertices: DeviceBuffer<u32>,
    pub(super) count: u32,
}

impl VertexList {
    pub(super) fn upload(gpu: &Gpu, vertices: &[VertexId]) -> Result<VertexList> {
        // The engine runs at most 2^32 - 2 vertices, so every count fits.
        Ok(VertexList { vertices: gpu.upload("degree classes", vertices)?, count: vertices.len() as u32 })
    }
}

/// The baseline's device buffers.
pub(super) struct SortState {
    tiles: Vec<VertexList>,
    block: VertexList,
    large: VertexList,
    scratch_offsets: DeviceBuffer<u64>,
    /// NL: one label per edge.
    nl_labels: DeviceBuffer<u32>,
    /// NL: one weight per edge (one unused element with unit weights, which are not stored).
    nl_weights: DeviceBuffer<f64>,
    scratch_labels: DeviceBuffer<u32>,
    scratch_weights: DeviceBuffer<f64>,
    num_edges: u64,
}

impl SortState {
    /// Uploads `plan` and allocates NL and the scratch for a graph of `num_edges` edges;
    /// `unit_weights` as the module was compiled (no weight arrays then).
    pub(super) fn upload(gpu: &Gpu, plan: &SortPlan, num_edges: u64, unit_weights: bool) -> Result<SortState> {
        let weights = |entries: u64| if unit_weights { 0 } else { entries as usize };
        let scratch = plan.scratch_len();
        Ok(SortState {
            tiles: plan.tiles.iter().map(|t| VertexList::upload(gpu, t)).collect::<Result<_>>()?,
            block: VertexList::upload(gpu, &plan.block)?,
            large: VertexList::upload(gpu, &plan.large)?,
            scratch_offsets: gpu.upload("degree classes", &plan.scratch_offsets)?,
            nl_labels: gpu.alloc_zeros("the neighbour label array NL", num_edges as usize)?,
            nl_weights: gpu.alloc_zeros("the neighbour label array NL", weights(num_edges))?,
            scratch_labels: gpu.alloc_zeros("the segmented sort's merge buffer", scratch as usize)?,
            scratch_weights: gpu.alloc_zeros("the segmented sort's merge buffer", weights(scratch))?,
            num_edges,
        })
    }

    /// Bytes of NL and the merge scratch: the baseline's per-edge working memory.
    pub(super) fn table_bytes(&self) -> u64 {
        self.nl_labels.bytes() + self.nl_weights.bytes() + self.scratch_labels.bytes() + self.scratch_weights.bytes()
    }
}

/// The baseline's kernels (in the MFL module).
pub(super) struct SortKernels {
    gather: Kernel,
    tiles: Kernel,
    block: Kernel,
    large: Kernel,
    count: Kernel,
}

impl SortKernels {
    pub(super) fn load(module: &Module) -> Result<SortKernels> {
        Ok(SortKernels {
            gather: module.kernel("glp_lp_sort_gather")?,
            tiles: module.kernel("glp_lp_sort_tiles")?,
            block: module.kernel("glp_lp_sort_block")?,
            large: module.kernel("glp_lp_sort_large")?,
            count: module.kernel("glp_lp_sort_count")?,
        })
    }

    /// One iteration's MFL for every vertex: gather, sort, count; writes `out` and adds the
    /// changed labels to `changed`.
    pub(super) fn propagate(&self, launch: &SweepLaunch<'_>, state: &SortState) -> Result<()> {
        let gpu = launch.gpu;
        let nl = |args: KernelArgs| args.buffer(&state.nl_labels).buffer(&state.nl_weights);
        if state.num_edges > 0 {
            // glp_lp_sort_gather(params, view, num_edges, nl_labels, nl_weights)
            let args = nl(launch.hook_args().value(state.num_edges));
            gpu.launch(&self.gather, Shape::covering(state.num_edges, SORT_THREADS)?, &args)?;
        }
        let list = |l: &VertexList| KernelArgs::new().value(launch.view).buffer(&l.vertices).value(l.count);
        // Tile 1 holds segments of at most one entry: already sorted.
        for (l, tile) in state.tiles.iter().zip(LOW_TILES).filter(|(l, t)| l.count > 0 && *t > 1) {
            // glp_lp_sort_tiles(view, vertices, count, tile, nl_labels, nl_weights)
            let shape = Shape::covering(u64::from(l.count) * u64::from(tile), SORT_THREADS)?;
            gpu.launch(&self.tiles, shape, &nl(list(l).value(tile)))?;
        }
        if state.block.count > 0 {
            // glp_lp_sort_block(view, vertices, count, nl_labels, nl_weights)
            let shape = block_per_vertex(state.block.count, SORT_BLOCK_THREADS)?;
            gpu.launch(&self.block, shape, &nl(list(&state.block)))?;
        }
        if state.large.count > 0 {
            // glp_lp_sort_large(view, vertices, count, scratch_offsets, nl_labels, nl_weights,
            //                   scratch_labels, scratch_weights)
            let args = nl(list(&state.large).buffer(&state.scratch_offsets))
                .buffer(&state.scratch_labels)
                .buffer(&state.scratch_weights);
            gpu.launch(&self.large, block_per_vertex(state.large.count, SORT_LARGE_THREADS)?, &args)?;
        }
        // Count: each tile class with its tile, larger segments with a warp.
        let warp = LOW_TILES[LOW_TILES.len() - 1];
        let counted = state.tiles.iter().zip(LOW_TILES).chain([(&state.block, warp), (&state.large, warp)]);
        for (l, tile) in counted.filter(|(l, _)| l.count > 0) {
            // glp_lp_sort_count(params, view, vertices, count, tile, nl_labels, nl_weights, sweep)
            let args = launch.class_args(&l.vertices, 0..l.count as usize).value(tile);
            let shape = Shape::covering(u64::from(l.count) * u64::from(tile), SORT_THREADS)?;
            gpu.launch(&self.count, shape, &nl(args).value(launch.sweep))?;
        }
        Ok(())
    }
}

/// One block of `threads` per vertex of a list of `count`.
fn block_per_vertex(count: u32, threads: u32) -> Result<Shape> {
    Shape::covering(u64::from(count) * u64::from(threads), threads)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph whose vertex `i` has degree `degrees[i]` (every edge to vertex 0).
    fn with_degrees(degrees: &[u64]) -> Csr {
        let mut offsets = vec![0u64];
        for d in degrees {
            offsets.push(offsets.last().unwrap() + d);
        }
        let targets = vec![0; *offsets.last().unwrap() as usize];
        Csr::new(offsets, targets, None).unwrap()
    }

    #[test]
    fn segments_are_bucketed_by_size_at_the_bounds() {
        // Vertex:        0  1  2  3  4  5  6   7   8   9   10    11    12
        let degrees = [0, 1, 2, 3, 4, 5, 16, 17, 32, 33, 2048, 2049, 5000];
        let plan = SortPlan::new(&with_degrees(&degrees));
        // Tiles 1, 2, 4, 8, 16, 32: degree <= tile, above half of it.
        assert_eq!(plan.tiles, vec![vec![0, 1], vec![2], vec![3, 4], vec![5], vec![6], vec![7, 8]]);
        assert_eq!(plan.block, vec![9, 10]);
        assert_eq!(plan.large, vec![11, 12]);
        // Scratch regions of the large vertices' degrees.
        assert_eq!(plan.scratch_offsets, vec![0, 2049, 7049]);
        assert_eq!(plan.scratch_len(), 7049);
    }

    #[test]
    fn an_empty_graph_has_nothing_to_sort() {
        let plan = SortPlan::new(&Csr::empty(0));
        assert!(plan.tiles.iter().all(Vec::is_empty) && plan.tiles.len() == LOW_TILES.len());
        assert!(plan.block.is_empty() && plan.large.is_empty());
        assert_eq!((plan.scratch_offsets.as_slice(), plan.scratch_len()), (&[0u64][..], 0));
        let isolated = SortPlan::new(&Csr::empty(3));
        assert_eq!(isolated.tiles[0], vec![0, 1, 2]);
    }
}
