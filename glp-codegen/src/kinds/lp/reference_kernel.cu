// glp: reference label propagation kernels (one thread per vertex), the synchronous
// schedule of GLP with a variant's hooks fused in. The MFL search is exhaustive over the
// vertex's neighbourhood (quadratic in its degree), so these kernels are the correctness
// baseline the tuned MFL kernel classes are compared with, not a fast path.
/*{{PRELUDE}}*/
/*{{VIEW}}*/
/*{{PROGRAM}}*/

/*{{PHASES}}*/

// Highest score wins, equal scores go to the smallest label (the CPU engine's
// synchronous rule). Vertices without a labelled neighbour keep their label.
extern "C" __global__ void glp_lp_update(const glp_lp_params params, const glp_lp_view view, glp_u32* out,
                                         unsigned long long* changed) {
    const glp_u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= view.num_vertices) return;
    const glp_u64 begin = view.offsets[v];
    const glp_u64 end = view.offsets[v + 1];
    bool found = false;
    glp_u32 best = GLP_UNLABELLED;
    double best_score = 0.0;
    for (glp_u64 e = begin; e < end; ++e) {
        const glp_tuple_u32_f64 first = glp_lp_load_neighbor(params, view, v, view.targets[e], e);
        if (first._0 == GLP_UNLABELLED) continue;
        // Count each label once, at its first occurrence.
        bool seen = false;
        for (glp_u64 f = begin; f < e && !seen; ++f) {
            seen = glp_lp_load_neighbor(params, view, v, view.targets[f], f)._0 == first._0;
        }
        if (seen) continue;
        double freq = 0.0;
        for (glp_u64 f = e; f < end; ++f) {
            const glp_tuple_u32_f64 other = glp_lp_load_neighbor(params, view, v, view.targets[f], f);
            if (other._0 == first._0) freq += other._1;
        }
        const double score = glp_lp_label_score(params, view, v, first._0, freq);
        if (!found || score > best_score || (score == best_score && first._0 < best)) {
            found = true;
            best = first._0;
            best_score = score;
        }
    }
    const glp_u32 current = view.next_labels[v];
    const glp_u32 label = found ? glp_lp_update_vertex(params, view, v, best, best_score) : current;
    out[v] = label;
    if (label != current) atomicAdd(changed, 1ull);
}
