// The label propagation view on the GPU: what hooks read, and the intrinsics generated code
// calls (`view.label(u)` becomes `glp_lp_label(view, u)`). Semantics match glp-runtime's
// `lp::View` method for method; see its docs for the contracts.
/*{{CONSTANTS}}*/

/*{{VIEW_STRUCT}}*/

// Ids a hook passes to the view are checked: the first id out of range is recorded in
// view.fault as (method, id) for the host to report (glp-runtime's `VIEW_METHODS`), and the
// method returns a neutral value; the run then stops with an error, as on the CPU.
/*{{FAULTS}}*/
// (Inline and given the record's address only: a call taking the view by reference would
// make every thread copy the view to local memory.)
__device__ __forceinline__ void glp_lp_fault(glp_u64* fault, glp_u64 method, glp_u64 id) {
    if (fault && atomicCAS(&fault[0], 0ull, method) == 0ull) fault[1] = id;
}
// A hook whose loops ran past the budget records code GLP_VIEW_LOOP_SITE + site (the loop's
// index in glp-codegen's `loop_sites`, from 1) and id = hook << 32 | vertex.
#define GLP_VIEW_LOOP_SITE 256ull
__device__ __forceinline__ glp_u64 glp_lp_loop_budget(const glp_lp_view& view) { return view.loop_budget; }
__device__ __forceinline__ void glp_lp_loop_fault(const glp_lp_view& view, glp_u32 site, glp_u32 hook, glp_u32 v) {
    glp_lp_fault(view.fault, GLP_VIEW_LOOP_SITE + site, ((glp_u64)hook << 32) | v);
}
__device__ __forceinline__ bool glp_lp_vertex_ok(const glp_lp_view& view, glp_u64 method, glp_u32 v) {
    if (v < view.num_vertices) return true;
    glp_lp_fault(view.fault, method, v);
    return false;
}

// The vertex order. The device may hold the vertices in another order than the graph's (by
// degree: glp-runtime's `VertexOrder`): the engine's arrays of vertex state (labels, offsets)
// are then indexed by device position, while hooks see and pass the graph's ids, so that a
// variant gives the same labels in either order. Arrays the host fills per vertex (seeds,
// vertex weights, label memory) and per label (the histogram) stay in graph ids.
// The graph's id of device position p.
__device__ __forceinline__ glp_u32 glp_lp_graph_id(const glp_lp_view& view, glp_u32 p) {
    return view.graph_ids ? view.graph_ids[p] : p;
}
// The device position of the graph's vertex u (u < num_vertices).
__device__ __forceinline__ glp_u32 glp_lp_position(const glp_lp_view& view, glp_u32 u) {
    return view.positions ? view.positions[u] : u;
}

__device__ __forceinline__ glp_u32 glp_lp_label(const glp_lp_view& view, glp_u32 u) {
    return glp_lp_vertex_ok(view, GLP_VIEW_LABEL, u) ? view.labels[glp_lp_position(view, u)] : GLP_UNLABELLED;
}
__device__ __forceinline__ glp_u32 glp_lp_next_label(const glp_lp_view& view, glp_u32 u) {
    return glp_lp_vertex_ok(view, GLP_VIEW_NEXT_LABEL, u) ? view.next_labels[glp_lp_position(view, u)] : GLP_UNLABELLED;
}
__device__ __forceinline__ glp_u64 glp_lp_degree(const glp_lp_view& view, glp_u32 v) {
    if (!glp_lp_vertex_ok(view, GLP_VIEW_DEGREE, v)) return 0ull;
    const glp_u32 p = glp_lp_position(view, v);
    return view.offsets[p + 1] - view.offsets[p];
}
__device__ __forceinline__ glp_u32 glp_lp_num_vertices(const glp_lp_view& view) { return view.num_vertices; }
__device__ __forceinline__ glp_u32 glp_lp_iteration(const glp_lp_view& view) { return view.iteration; }
__device__ __forceinline__ double glp_lp_edge_weight(const glp_lp_view& view, glp_u64 e) {
    if (e >= view.num_edges) {
        glp_lp_fault(view.fault, GLP_VIEW_EDGE_WEIGHT, e);
        return 1.0;
    }
    return view.edge_weights ? (double)view.edge_weights[e] : 1.0;
}
__device__ __forceinline__ double glp_lp_vertex_weight(const glp_lp_view& view, glp_u32 v) {
    if (!glp_lp_vertex_ok(view, GLP_VIEW_VERTEX_WEIGHT, v)) return 1.0;
    return view.vertex_weights ? (double)view.vertex_weights[v] : 1.0;
}
__device__ __forceinline__ void glp_lp_count_label(const glp_lp_view& view, glp_u32 l) {
    // Labels outside the histogram (only UNLABELLED for valid hooks) are not counted, as on the CPU.
    if (l < view.num_vertices && view.histogram) atomicAdd(&view.histogram[l], 1u);
}
__device__ __forceinline__ glp_u32 glp_lp_global_count(const glp_lp_view& view, glp_u32 l) {
    return (l >= view.num_vertices || !view.histogram) ? 0u : view.histogram[l];
}
// A vertex moved from label `from` to label `to` in place (asynchronous sweep): one count
// leaves `from` (never below zero) and joins `to`, as the CPU's `move_in_histogram`.
__device__ __forceinline__ void glp_lp_histogram_move(const glp_lp_view& view, glp_u32 from, glp_u32 to) {
    if (!view.histogram) return;
    if (from < view.num_vertices) {
        glp_u32 seen = view.histogram[from];
        while (seen != 0u) {
            const glp_u32 before = atomicCAS(&view.histogram[from], seen, seen - 1u);
            if (before == seen) break;
            seen = before;
        }
    }
    if (to < view.num_vertices) atomicAdd(&view.histogram[to], 1u);
}
__device__ __forceinline__ glp_u32 glp_lp_seed_label(const glp_lp_view& view, glp_u32 v) {
    if (!glp_lp_vertex_ok(view, GLP_VIEW_SEED_LABEL, v)) return GLP_UNLABELLED;
    return view.seeds ? view.seeds[v] : GLP_UNLABELLED;
}
// Random draws: Philox4x32-10 with key = random_seed (low word first) and counter =
// (v, iteration, draw, 0). u32: word 0. f64: (word0 | word1 << 32) >> 11, times 2^-53.
__device__ __forceinline__ glp_u32 glp_lp_random_u32(const glp_lp_view& view, glp_u32 v, glp_u32 draw) {
    return glp_philox4x32_10(v, view.iteration, draw, 0u, (glp_u32)view.random_seed, (glp_u32)(view.random_seed >> 32)).x[0];
}
__device__ __forceinline__ double glp_lp_random_f64(const glp_lp_view& view, glp_u32 v, glp_u32 draw) {
    const glp_philox_out b = glp_philox4x32_10(v, view.iteration, draw, 0u, (glp_u32)view.random_seed, (glp_u32)(view.random_seed >> 32));
    const glp_u64 x = (glp_u64)b.x[0] | ((glp_u64)b.x[1] << 32);
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

// Label memory: GLP_LABEL_MEMORY_SLOTS slots of (label, f32 weight) per vertex; occupied
// slots are 0..len, an empty slot has label GLP_UNLABELLED and weight 0. The rules (slot
// order, f32 additions, f64 totals added in slot order) are those of glp-runtime's
// `View::memory_*`, so CPU and GPU memories stay identical.
__device__ __forceinline__ double glp_lp_memory_total(const glp_u32* labels, const float* weights) {
    double total = 0.0;
    for (int i = 0; i < GLP_LABEL_MEMORY_SLOTS && labels[i] != GLP_UNLABELLED; ++i) total += (double)weights[i];
    return total;
}
__device__ __forceinline__ void glp_lp_memory_add(const glp_lp_view& view, glp_u32 v, glp_u32 l, double weight) {
    if (!view.memory_labels) return;
    glp_u32* labels = view.memory_labels + (glp_u64)v * GLP_LABEL_MEMORY_SLOTS;
    float* weights = view.memory_weights + (glp_u64)v * GLP_LABEL_MEMORY_SLOTS;
    const float w = (float)weight;
    if (l == GLP_UNLABELLED || !(w > 0.0f)) return;
    int len = GLP_LABEL_MEMORY_SLOTS;
    for (int i = 0; i < GLP_LABEL_MEMORY_SLOTS; ++i) {
        if (labels[i] == l) { weights[i] = weights[i] + w; return; }
        if (labels[i] == GLP_UNLABELLED) { len = i; break; }
    }
    if (len < GLP_LABEL_MEMORY_SLOTS) { labels[len] = l; weights[len] = w; return; }
    int victim = 0;
    for (int i = 1; i < GLP_LABEL_MEMORY_SLOTS; ++i) {
        if (weights[i] < weights[victim] || (weights[i] == weights[victim] && labels[i] > labels[victim])) victim = i;
    }
    if (w > weights[victim]) { labels[victim] = l; weights[victim] = w; }
}
__device__ __forceinline__ void glp_lp_memory_prune(const glp_lp_view& view, glp_u32 v, double min_fraction) {
    if (!view.memory_labels) return;
    glp_u32* labels = view.memory_labels + (glp_u64)v * GLP_LABEL_MEMORY_SLOTS;
    float* weights = view.memory_weights + (glp_u64)v * GLP_LABEL_MEMORY_SLOTS;
    const double cut = min_fraction * glp_lp_memory_total(labels, weights);
    int kept = 0;
    for (int i = 0; i < GLP_LABEL_MEMORY_SLOTS && labels[i] != GLP_UNLABELLED; ++i) {
        if ((double)weights[i] < cut) continue;
        labels[kept] = labels[i];
        weights[kept] = weights[i];
        ++kept;
    }
    for (int i = kept; i < GLP_LABEL_MEMORY_SLOTS; ++i) { labels[i] = GLP_UNLABELLED; weights[i] = 0.0f; }
}
__device__ __forceinline__ glp_u32 glp_lp_memory_pick(const glp_lp_view& view, glp_u32 v, double r) {
    if (!view.memory_labels) return GLP_UNLABELLED;
    const glp_u32* labels = view.memory_labels + (glp_u64)v * GLP_LABEL_MEMORY_SLOTS;
    const float* weights = view.memory_weights + (glp_u64)v * GLP_LABEL_MEMORY_SLOTS;
    const double total = glp_lp_memory_total(labels, weights);
    double acc = 0.0;
    glp_u32 picked = GLP_UNLABELLED;
    for (int i = 0; i < GLP_LABEL_MEMORY_SLOTS && labels[i] != GLP_UNLABELLED; ++i) {
        picked = labels[i];
        acc += (double)weights[i] / total;
        if (r < acc) break;
    }
    return picked;
}
__device__ __forceinline__ glp_u32 glp_lp_memory_len(const glp_lp_view& view, glp_u32 v) {
    if (!view.memory_labels) return 0u;
    const glp_u32* labels = view.memory_labels + (glp_u64)v * GLP_LABEL_MEMORY_SLOTS;
    glp_u32 len = 0;
    while (len < GLP_LABEL_MEMORY_SLOTS && labels[len] != GLP_UNLABELLED) ++len;
    return len;
}
__device__ __forceinline__ glp_u32 glp_lp_memory_label(const glp_lp_view& view, glp_u32 v, glp_u32 slot) {
    if (!view.memory_labels || slot >= GLP_LABEL_MEMORY_SLOTS) return GLP_UNLABELLED;
    return view.memory_labels[(glp_u64)v * GLP_LABEL_MEMORY_SLOTS + slot];
}
__device__ __forceinline__ double glp_lp_memory_weight(const glp_lp_view& view, glp_u32 v, glp_u32 slot) {
    if (!view.memory_weights || slot >= GLP_LABEL_MEMORY_SLOTS) return 0.0;
    return (double)view.memory_weights[(glp_u64)v * GLP_LABEL_MEMORY_SLOTS + slot];
}
