// glp: reference sampler kernels: one sample's step, one thread per draw lane (or per entry
// of the combined neighbourhood), with a sampler's hooks fused in. They run the hooks on the
// GPU on exactly the state the CPU engine would give them (the view of one sample at one
// step, random streams keyed by seed, sample, step and lane), so a test can compare every
// draw with the CPU's; the sampling engines batch many samples and steps per launch.
/*{{PRELUDE}}*/
/*{{VIEW}}*/
/*{{PROGRAM}}*/

// Individual samplers: out[lane] = next(view, sample, transit, lane, step) for lanes 0..lanes.
extern "C" __global__ void glp_sample_next_lanes(const glp_sample_params params, glp_sample_view view, glp_u64 seed,
                                                 glp_u32 sample, glp_u32 transit, glp_u32 lanes, glp_u32* out) {
    const glp_u32 lane = blockIdx.x * blockDim.x + threadIdx.x;
    if (lane >= lanes) return;
    glp_sample_stream stream = glp_sample_stream_new(seed, sample, view.step, lane);
    view.stream = &stream;
    out[lane] = glp_sample_next(params, view, sample, transit, lane, view.step);
}

// Collective samplers: out[i] = combined_weight(view, sample, combined_transit(i),
// combined_vertex(i), step) for every entry i of the combined neighbourhood.
extern "C" __global__ void glp_sample_combined_weights(const glp_sample_params params, glp_sample_view view,
                                                       glp_u32 sample, double* out) {
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= view.combined_len) return;
    glp_sample_stream unused = glp_sample_stream_new(0ull, sample, view.step, 0u);
    view.stream = &unused;
    out[i] = glp_sample_combined_weight(params, view, sample, glp_sample_combined_transit(view, i),
                                        glp_sample_combined_vertex(view, i), view.step);
}

// Collective samplers: out[lane] = next_entry(view, sample, lane, step) for lanes 0..lanes
// (view.combined_prefix holds the prefix sums of the weights above).
extern "C" __global__ void glp_sample_entry_lanes(const glp_sample_params params, glp_sample_view view, glp_u64 seed,
                                                  glp_u32 sample, glp_u32 lanes, glp_u64* out) {
    const glp_u32 lane = blockIdx.x * blockDim.x + threadIdx.x;
    if (lane >= lanes) return;
    glp_sample_stream stream = glp_sample_stream_new(seed, sample, view.step, lane);
    view.stream = &stream;
    out[lane] = glp_sample_next_entry(params, view, sample, lane, view.step);
}
