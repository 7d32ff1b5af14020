// The phases every label propagation module has: initial labels and the pick phase, one
// thread per vertex (v is a device position; the hooks get the graph's id).
extern "C" __global__ void glp_lp_initial(const glp_lp_params params, const glp_lp_view view, glp_u32* next_labels) {
    const glp_u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= view.num_vertices) return;
    next_labels[v] = glp_lp_initial_label(params, view, glp_lp_graph_id(view, v));
}

extern "C" __global__ void glp_lp_pick(const glp_lp_params params, const glp_lp_view view, glp_u32* shown) {
    const glp_u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= view.num_vertices) return;
    shown[v] = glp_lp_pick_label(params, view, glp_lp_graph_id(view, v));
}
