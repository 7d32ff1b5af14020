// The edge program view on the GPU: what hooks read, and the intrinsics generated code calls
// (`view.out_degree(v)` becomes `glp_edge_out_degree(view, v)`). Semantics match
// glp-runtime's `edge::EdgeView` method for method: ids that are not vertices have degree 0.
/*{{CONSTANTS}}*/

/*{{VIEW_STRUCT}}*/

// A hook whose loops ran past the budget records [GLP_EDGE_LOOP_SITE + site, hook << 32 |
// vertex] in view.fault (the loop's index in glp-codegen's `loop_sites`, from 1), the first
// only; the run then stops with an error, as on the CPU.
#define GLP_EDGE_LOOP_SITE 256ull
__device__ __forceinline__ glp_u64 glp_edge_loop_budget(const glp_edge_view& view) { return view.loop_budget; }
__device__ __forceinline__ void glp_edge_loop_fault(const glp_edge_view& view, glp_u32 site, glp_u32 hook, glp_u32 v) {
    if (view.fault && atomicCAS(&view.fault[0], 0ull, GLP_EDGE_LOOP_SITE + site) == 0ull) {
        view.fault[1] = ((glp_u64)hook << 32) | v;
    }
}

// Vertex ids. The engines index their arrays by device vertex; the device may hold the
// vertices in another order than the graph's (glp-runtime's `VertexOrder`: by degree, so that
// the most read values share cache lines). Hooks see only the graph's ids: the engines pass
// glp_edge_graph_id of their vertices, and the view's methods take graph ids back to device
// vertices. A hook that does not read a vertex argument costs no load (the compiler drops it).
__device__ __forceinline__ glp_u32 glp_edge_graph_id(const glp_edge_view& view, glp_u32 d) {
    return view.graph_ids ? view.graph_ids[d] : d;
}
__device__ __forceinline__ glp_u32 glp_edge_device_vertex(const glp_edge_view& view, glp_u32 v) {
    return view.device_vertices ? view.device_vertices[v] : v;
}

__device__ __forceinline__ glp_u32 glp_edge_num_vertices(const glp_edge_view& view) { return view.num_vertices; }
__device__ __forceinline__ glp_u64 glp_edge_out_degree(const glp_edge_view& view, glp_u32 v) {
    if (v >= view.num_vertices) return 0ull;
    const glp_u32 d = glp_edge_device_vertex(view, v);
    return view.out_offsets[d + 1] - view.out_offsets[d];
}
__device__ __forceinline__ glp_u64 glp_edge_in_degree(const glp_edge_view& view, glp_u32 v) {
    if (v >= view.num_vertices) return 0ull;
    const glp_u32 d = glp_edge_device_vertex(view, v);
    return view.in_offsets[d + 1] - view.in_offsets[d];
}
__device__ __forceinline__ glp_u32 glp_edge_source(const glp_edge_view& view) { return view.source; }
__device__ __forceinline__ glp_u32 glp_edge_iteration(const glp_edge_view& view) { return view.iteration; }
__device__ __forceinline__ double glp_edge_aggregated(const glp_edge_view& view) { return view.aggregated; }

// A message combined into a vertex's slot by the program's combine (GLP_EDGE_MIN, _MAX or
// _SUM), as the CPU engine's `Combinable` combines: integers add wrapping, floats' min and
// max by compare-and-swap on their bits (no native atomic), floats' sums with atomicAdd.
__device__ __forceinline__ void glp_edge_atomic_combine(glp_u32 op, glp_u32* slot, glp_u32 m) {
    if (op == GLP_EDGE_MIN) atomicMin(slot, m); else if (op == GLP_EDGE_MAX) atomicMax(slot, m); else atomicAdd(slot, m);
}
__device__ __forceinline__ void glp_edge_atomic_combine(glp_u32 op, glp_i32* slot, glp_i32 m) {
    if (op == GLP_EDGE_MIN) atomicMin(slot, m); else if (op == GLP_EDGE_MAX) atomicMax(slot, m); else atomicAdd(slot, m);
}
__device__ __forceinline__ void glp_edge_atomic_combine(glp_u32 op, glp_u64* slot, glp_u64 m) {
    if (op == GLP_EDGE_MIN) atomicMin(slot, m); else if (op == GLP_EDGE_MAX) atomicMax(slot, m); else atomicAdd(slot, m);
}
__device__ __forceinline__ void glp_edge_atomic_combine(glp_u32 op, glp_i64* slot, glp_i64 m) {
    if (op == GLP_EDGE_MIN) atomicMin(slot, m);
    else if (op == GLP_EDGE_MAX) atomicMax(slot, m);
    else atomicAdd((glp_u64*)slot, (glp_u64)m);
}
__device__ __forceinline__ void glp_edge_atomic_combine(glp_u32 op, float* slot, float m) {
    if (op == GLP_EDGE_SUM) { atomicAdd(slot, m); return; }
    int* bits = (int*)slot;
    int old = *bits;
    while (true) {
        const float current = __int_as_float(old);
        const float next = op == GLP_EDGE_MIN ? fminf(current, m) : fmaxf(current, m);
        if (__float_as_int(next) == old) return;
        const int seen = atomicCAS(bits, old, __float_as_int(next));
        if (seen == old) return;
        old = seen;
    }
}
__device__ __forceinline__ void glp_edge_atomic_combine(glp_u32 op, double* slot, double m) {
    if (op == GLP_EDGE_SUM) { atomicAdd(slot, m); return; }
    glp_u64* bits = (glp_u64*)slot;
    glp_u64 old = *bits;
    while (true) {
        const double current = __longlong_as_double((long long)old);
        const double next = op == GLP_EDGE_MIN ? fmin(current, m) : fmax(current, m);
        const glp_u64 want = (glp_u64)__double_as_longlong(next);
        if (want == old) return;
        const glp_u64 seen = atomicCAS(bits, old, want);
        if (seen == old) return;
        old = seen;
    }
}

// Two messages combined by the program's combine, in registers (the engines' reductions), as
// the atomics above and the CPU engine's `Combinable` combine them.
__device__ __forceinline__ glp_u32 glp_edge_combine(glp_u32 op, glp_u32 a, glp_u32 b) {
    return op == GLP_EDGE_MIN ? min(a, b) : op == GLP_EDGE_MAX ? max(a, b) : a + b;
}
__device__ __forceinline__ glp_i32 glp_edge_combine(glp_u32 op, glp_i32 a, glp_i32 b) {
    return op == GLP_EDGE_MIN ? min(a, b) : op == GLP_EDGE_MAX ? max(a, b) : (glp_i32)((glp_u32)a + (glp_u32)b);
}
__device__ __forceinline__ glp_u64 glp_edge_combine(glp_u32 op, glp_u64 a, glp_u64 b) {
    return op == GLP_EDGE_MIN ? min(a, b) : op == GLP_EDGE_MAX ? max(a, b) : a + b;
}
__device__ __forceinline__ glp_i64 glp_edge_combine(glp_u32 op, glp_i64 a, glp_i64 b) {
    return op == GLP_EDGE_MIN ? min(a, b) : op == GLP_EDGE_MAX ? max(a, b) : (glp_i64)((glp_u64)a + (glp_u64)b);
}
__device__ __forceinline__ float glp_edge_combine(glp_u32 op, float a, float b) {
    return op == GLP_EDGE_MIN ? fminf(a, b) : op == GLP_EDGE_MAX ? fmaxf(a, b) : a + b;
}
__device__ __forceinline__ double glp_edge_combine(glp_u32 op, double a, double b) {
    return op == GLP_EDGE_MIN ? fmin(a, b) : op == GLP_EDGE_MAX ? fmax(a, b) : a + b;
}
