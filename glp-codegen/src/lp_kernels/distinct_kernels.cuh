// The first synchronous sweep from labels all distinct (glp-codegen's
// `kinds::lp::properties::distinct_first_sweep` says for which variants, glp-runtime's
// `lp::gpu` docs when the engine takes it): every neighbour's label occurs once in a vertex's
// row, so every label has frequency 1 and score 1, and the tie rule alone picks the most
// frequent label: with ties to the smallest label, the neighbours' minimum. Two kernels
// replace the class kernels' counting: an edge-parallel minimum of the neighbours' labels into
// `sweep.out` (filled with GLP_UNLABELLED before), then a vertex pass that finishes every
// vertex as the class kernels do (glp_lp_finish: update_vertex on the minimum scored with
// frequency 1, or the label kept by a vertex without neighbours) and counts the changes.
// glp_lp_edge_owner comes from the SORT slot, spliced before this one.

// Lanes of the warp holding edges of the same row (rows are contiguous runs of lanes) reduce
// their labels to the row's first lane, which takes it into out[v] with one atomicMin.
extern "C" __global__ void __launch_bounds__(GLP_SORT_THREADS)
glp_lp_distinct_min(const glp_lp_params params, const glp_lp_view view, glp_u64 num_edges,
                    const glp_lp_sweep sweep) {
    __shared__ glp_u32 owners[2];
    const glp_u64 first = (glp_u64)blockIdx.x * blockDim.x;
    if (first >= num_edges) return; // block-uniform
    const glp_u64 last = (first + blockDim.x < num_edges ? first + blockDim.x : num_edges) - 1;
    const glp_u32 top = view.num_vertices - 1u; // num_edges > 0, so there is a vertex
    if (threadIdx.x == 0) owners[0] = glp_lp_edge_owner(view.offsets, 0u, top, first);
    if (threadIdx.x == blockDim.x - 1) owners[1] = glp_lp_edge_owner(view.offsets, 0u, top, last);
    __syncthreads();
    const glp_u64 e = first + threadIdx.x;
    const bool in_range = e <= last;
    // GLP_UNLABELLED is no vertex (the engine takes at most 2^32 - 2).
    const glp_u32 v = in_range ? glp_lp_edge_owner(view.offsets, owners[0], owners[1], e) : GLP_UNLABELLED;
    glp_u32 label = in_range ? glp_lp_neighbor(params, view, v, e)._0 : GLP_UNLABELLED;
    const int lane = (int)(threadIdx.x & 31);
    // After the step of `offset`, a lane holds the minimum of its row's lanes among the next
    // 2 * offset (rows are contiguous, so a lane of another row ends the run).
    for (int offset = 1; offset < 32; offset *= 2) {
        const glp_u32 other = __shfl_down_sync(GLP_FULL_MASK, label, offset);
        const glp_u32 other_v = __shfl_down_sync(GLP_FULL_MASK, v, offset);
        if (lane + offset < 32 && other_v == v && other < label) label = other;
    }
    const glp_u32 before = __shfl_up_sync(GLP_FULL_MASK, v, 1);
    const bool row_first = in_range && (lane == 0 || before != v);
    if (row_first && label != GLP_UNLABELLED) atomicMin(&sweep.out[v], label);
}

extern "C" __global__ void glp_lp_distinct_finish(const glp_lp_params params, const glp_lp_view view,
                                                  const glp_lp_sweep sweep) {
    const glp_u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    bool changed = false;
    if (v < view.num_vertices) {
        const glp_u32 least = sweep.out[v];
        const glp_lp_candidate best = least == GLP_UNLABELLED ? glp_lp_nothing() : glp_lp_score(params, view, v, least, 1.0);
        changed = glp_lp_finish(params, view, v, best, sweep);
    }
    glp_lp_count(sweep, false, changed); // every lane of the warp calls it
}
