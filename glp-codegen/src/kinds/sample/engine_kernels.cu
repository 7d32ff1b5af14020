// glp: the sample-parallel sampling engines, a sampler's hooks fused in. Both compute exactly
// what glp-runtime's CPU engine (`sample::engine`) computes, draw for draw: the same hooks on
// the same view, random streams keyed by (seed, sample, step, lane), the same rules for draws
// without replacement, NONE, dead ends and next transits. They differ in how samples map to
// threads:
// - glp_sample_walks(_packed): walks (one root, one draw per step): GLP_SAMPLE_WALKERS walkers per
//   thread, each step of every walker before the next step, so a thread keeps that many
//   independent chains of reads in flight; the walks are written step-major (row l holds the
//   vertex of every walk at level l, coalesced) and double as the walkers' history (in
//   walk_kernels.cu, the WALKS slot, with the one-walker kernels of hooks that loop, and the
//   walks of graphs whose edges stay in host memory);
// - glp_sample_per_sample: any sampler, one thread per sample running the CPU engine's loop
//   over its steps, its state in a per-sample region of the batch's arena;
// - glp_sample_per_sample_warp: the same with a warp per sample, whose 32 threads share the
//   draws of individual steps with replacement (k-hop's fan-outs) and the next level;
//   glp_sample_per_sample_draws is its twin for samplers that make only such steps.
// Outputs that stay on the device are built here too: walks as rows of input ids
// (glp_sample_walk_rows, with the walks), and subgraph samples as disjoint subgraphs
// (glp_subgraph_*, appended after the transit-parallel engine's kernels).
/*{{PRELUDE}}*/
/*{{VIEW}}*/
/*{{ENGINE}}*/
/*{{PROGRAM}}*/

// Whether v, which `next` drew from transit t, is a neighbour of t: O(1) when it is the last
// edge the hook read (every built-in sampler's case), else a binary search in t's row.
__device__ __forceinline__ bool glp_engine_is_neighbour(const glp_sample_view& view, glp_u32 t, glp_u32 v) {
    return (view.stream->last_source == t && view.stream->last_target == v) || glp_sample_contains(view, t, v);
}

/*{{WALKS}}*/

// ----- one sample per thread, or per warp -----

// Whether v is among values[begin, end).
__device__ __forceinline__ bool glp_engine_holds(const glp_u32* values, glp_u64 begin, glp_u64 end, glp_u32 v) {
    for (glp_u64 k = begin; k < end; ++k) {
        if (values[k] == v) return true;
    }
    return false;
}

// The number of distinct values of a sorted array.
__device__ __forceinline__ glp_u64 glp_engine_distinct_sorted(const glp_u32* values, glp_u64 n) {
    if (n == 0ull) return 0ull;
    glp_u64 distinct = 1ull;
    for (glp_u64 k = 1ull; k < n; ++k) distinct += values[k] != values[k - 1ull];
    return distinct;
}

// Moves values[root] down the max-heap values[0, end) to its place.
__device__ __forceinline__ void glp_engine_sift_down(glp_u32* values, glp_u64 root, glp_u64 end) {
    for (;;) {
        glp_u64 child = 2ull * root + 1ull;
        if (child >= end) return;
        if (child + 1ull < end && values[child] < values[child + 1ull]) ++child;
        if (values[root] >= values[child]) return;
        const glp_u32 swap = values[root];
        values[root] = values[child];
        values[child] = swap;
        root = child;
    }
}

// Sorts values[0, n) ascending in place (heap sort: O(n log n), no extra memory).
__device__ void glp_engine_heap_sort(glp_u32* values, glp_u64 n) {
    if (n < 2ull) return;
    for (glp_u64 start = n / 2ull; start-- > 0ull;) glp_engine_sift_down(values, start, n);
    for (glp_u64 end = n - 1ull; end > 0ull; --end) {
        const glp_u32 top = values[0];
        values[0] = values[end];
        values[end] = top;
        glp_engine_sift_down(values, 0ull, end);
    }
}

// One sample of a batch: its region of the arena, and how far it got.
struct glp_engine_sample {
    glp_u32 sample;  // its id (the streams' key)
    glp_u32* history;
    glp_u64* starts;
    glp_u32* combined;
    glp_u32* combined_sources;
    double* combined_prefix;
    glp_u32* combined_sorted;
    glp_u32* vertices;
    glp_u32* sources;
    glp_u32* positions;
    glp_u64* step_ends;  // where each step's vertices end in the record
    glp_u64 len;     // vertices added so far
    glp_u32 status;  // 0, overflow bits or GLP_SAMPLE_FAILED
};

// The batch's k-th sample's region of the arena, its state (len, status) not read.
__device__ __forceinline__ glp_engine_sample glp_engine_region(const glp_sample_batch& b, glp_u64 k) {
    glp_engine_sample s;
    s.sample = b.sample_ids[k];
    s.history = b.history + k * b.cap_history;
    s.starts = b.history_starts + k * ((glp_u64)b.steps + 2ull);
    s.combined = b.combined + k * b.cap_combined;
    s.combined_sources = b.combined_sources + k * b.cap_combined;
    s.combined_prefix = b.combined_prefix + k * b.cap_combined;
    s.combined_sorted = b.combined_sorted ? b.combined_sorted + k * b.cap_combined : nullptr;
    s.vertices = b.vertices + k * b.cap_out;
    s.sources = b.sources + k * b.cap_out;
    s.positions = b.positions ? b.positions + k * b.cap_out : nullptr;  // REPLACE alone reads them
    s.step_ends = b.step_ends + k * (glp_u64)b.steps;
    s.len = 0ull;
    s.status = 0u;
    return s;
}

// The view of the batch's k-th sample (region s), its stream `stream`.
__device__ __forceinline__ void glp_engine_view(const glp_sample_batch& b, glp_u64 k, const glp_engine_sample& s,
                                                glp_sample_view& view, glp_sample_stream& stream) {
    const glp_u64 r0 = b.root_offsets[k];
    view.roots = b.roots + r0;
    view.sorted_roots = b.sorted_roots + r0;
    view.root_count = (glp_u32)(b.root_offsets[k + 1ull] - r0);
    view.history = s.history;
    view.history_starts = s.starts;
    view.stream = &stream;
    view.packed_edges = nullptr;  // the walk engine's alone: known to the compiler, the checks fold away
    view.packed_narrow = nullptr;
    view.known_rows = 0u;
    view.prior_vertex = GLP_SAMPLE_NONE;  // the walk kernels' alone, as the packed edges and known rows
    view.combined = nullptr;
    view.combined_sources = nullptr;
    view.combined_prefix = nullptr;
    view.combined_sorted = nullptr;
    view.combined_len = 0ull;
}

// The same for the sample-parallel engines: no row cached (the transit-parallel engine's
// alone), known to the compiler so that the cached-row checks fold out of every draw.
__device__ __forceinline__ void glp_engine_uncached_view(const glp_sample_batch& b, glp_u64 k,
                                                         const glp_engine_sample& s, glp_sample_view& view,
                                                         glp_sample_stream& stream) {
    glp_engine_view(b, k, s, view, stream);
    view.cached_row = nullptr;
}

// The batch's k-th sample, its roots copied into its history as level 0 by the threads
// lane, lane + width, ... (width threads share the sample); view set up for it.
__device__ __forceinline__ glp_engine_sample glp_engine_begin(const glp_sample_batch& b, glp_u64 k, glp_u32 lane,
                                                             glp_u32 width, glp_sample_view& view,
                                                             glp_sample_stream& stream) {
    glp_engine_sample s = glp_engine_region(b, k);
    // The view first, on every path: were it left as the graph's on one (a sample that does
    // not fit), the compiler could not fold its cached and packed rows away, and every draw
    // would test them at run time (k-hop 25,10 on an H200: com-DBLP 0.72 -> 0.63 ms, R-MAT 22
    // 10.8 -> 9.7 ms, the draws kernel's 40-byte spill gone; the per-sample kernels of the
    // other samplers lost their 72-byte stack frames).
    stream = glp_sample_stream_new(0ull, s.sample, 0u, 0u);
    glp_engine_uncached_view(b, k, s, view, stream);
    const glp_u64 r0 = b.root_offsets[k], root_count = b.root_offsets[k + 1ull] - r0;
    if (root_count > b.cap_history) {
        s.status = GLP_SAMPLE_OVERFLOW_HISTORY;
        return s;
    }
    for (glp_u64 r = lane; r < root_count; r += width) s.history[r] = b.roots[r0 + r];
    if (lane == 0u) {
        s.starts[0] = 0ull;
        s.starts[1] = root_count;
    }
    return s;
}

// Appends v (drawn from the transit at position pos of the step) to the sample's record. A
// record holds no step per vertex: its vertices come in step order, so where each step ends
// (glp_engine_end_steps) implies them.
__device__ __forceinline__ void glp_engine_add(glp_engine_sample& s, glp_u64 at, glp_u32 v, glp_u32 transit,
                                               glp_u32 pos) {
    s.vertices[at] = v;
    s.sources[at] = transit;
    if (s.positions) s.positions[at] = pos;
}

// Steps [from, to) of the sample ended where its record ends now (one thread writes them):
// after each step it makes, and for the steps after it stopped.
__device__ __forceinline__ void glp_engine_end_steps(const glp_engine_sample& s, glp_u32 from, glp_u32 to) {
    for (glp_u32 step = from; step < to; ++step) s.step_ends[step] = s.len;
}

// What a per-sample kernel leaves of sample k as it ends (one thread): steps [from, to)
// ended where its record ends now, its status and its length, for the host or the next
// step's launch (glp_engine_resume).
__device__ __forceinline__ void glp_engine_store(const glp_sample_batch& b, glp_u64 k, const glp_engine_sample& s,
                                                 glp_u32 from, glp_u32 to) {
    glp_engine_end_steps(s, from, to);
    b.status[k] = s.status;
    b.lengths[k] = s.len;
}

// A collective step, as the CPU engine's: the combined neighbourhood of transits
// history[t_begin, t_end), its weights and prefix sums (summed left to right, as the CPU
// sums them), then the draws in lane order (without replacement: repeats drawn again).
__device__ void glp_engine_collective_step(const glp_sample_params& params, glp_sample_view& view,
                                           const glp_sample_batch& b, glp_engine_sample& s, glp_u64 seed,
                                           glp_u32 step, glp_u64 t_begin, glp_u64 t_end) {
    glp_u64 n = 0ull;
    for (glp_u64 pos = t_begin; pos < t_end; ++pos) {
        const glp_u32 t = s.history[pos];
        const glp_u64 d = glp_sample_degree(view, t);
        if (n + d > b.cap_combined) { s.status = GLP_SAMPLE_OVERFLOW_COMBINED; return; }
        const glp_u32* row = glp_sample_row(view, t);
        for (glp_u64 e = 0ull; e < d; ++e) {
            s.combined[n + e] = row[e];
            s.combined_sources[n + e] = (glp_u32)(pos - t_begin);
        }
        n += d;
    }
    const bool unique = b.unique_steps[step] != 0;
    view.combined = s.combined;
    view.combined_sources = s.combined_sources;
    view.combined_len = n;
    view.combined_prefix = nullptr;
    view.combined_sorted = nullptr;
    if (s.combined_sorted && (b.sort_combined || unique)) {
        for (glp_u64 e = 0ull; e < n; ++e) s.combined_sorted[e] = s.combined[e];
        glp_engine_heap_sort(s.combined_sorted, n);
        view.combined_sorted = s.combined_sorted;
    }
    double sum = 0.0;
    for (glp_u64 e = 0ull; e < n; ++e) {
        const glp_u32 t = s.history[t_begin + s.combined_sources[e]];
        const double w = glp_sample_combined_weight(params, view, s.sample, t, s.combined[e], step);
        if (!(isfinite(w) && w >= 0.0)) { s.status = GLP_SAMPLE_FAILED; return; }
        sum += w;
        s.combined_prefix[e] = sum;
    }
    view.combined_prefix = s.combined_prefix;
    const glp_u32 size = b.sizes[step];
    const glp_u64 lanes = size == GLP_SAMPLE_ALL_NEIGHBOURS ? n : (glp_u64)size;
    const glp_u64 distinct = unique ? glp_engine_distinct_sorted(s.combined_sorted, n) : ~0ull;
    const glp_u64 added_start = s.len;
    for (glp_u64 lane = 0ull; lane < lanes; ++lane) {
        if (s.len - added_start >= distinct) return;
        if (lane > 0xFFFFFFFFull) { s.status = GLP_SAMPLE_FAILED; return; }
        *view.stream = glp_sample_stream_new(seed, s.sample, step, (glp_u32)lane);
        glp_u64 attempts = 0ull;
        for (;;) {
            const glp_u64 e = glp_sample_next_entry(params, view, s.sample, (glp_u32)lane, step);
            if (e == GLP_SAMPLE_NONE_ENTRY) break;
            if (e >= n) { s.status = GLP_SAMPLE_FAILED; return; }
            const glp_u32 v = s.combined[e];
            if (unique && glp_engine_holds(s.vertices, added_start, s.len, v)) {
                if (++attempts > GLP_SAMPLE_UNIQUE_ATTEMPTS * (distinct + 1ull)) return;  // exhausted
                continue;
            }
            if (s.len >= b.cap_out) { s.status = GLP_SAMPLE_OVERFLOW_OUT; return; }
            const glp_u32 pos = s.combined_sources[e];
            glp_engine_add(s, s.len++, v, s.history[t_begin + pos], pos);
            break;
        }
    }
}

// An individual step by one thread, as the CPU engine's: transit by transit, draw by draw
// (without replacement: repeats drawn again, until the row's distinct vertices run out).
__device__ void glp_engine_individual_step(const glp_sample_params& params, glp_sample_view& view,
                                           const glp_sample_batch& b, glp_engine_sample& s, glp_u64 seed,
                                           glp_u32 step, glp_u64 t_begin, glp_u64 t_end) {
    const glp_u32 size = b.sizes[step];
    const bool unique = b.unique_steps[step] != 0;
    glp_u64 lane_base = 0ull;
    for (glp_u64 pos = t_begin; pos < t_end; ++pos) {
        const glp_u32 t = s.history[pos];
        const glp_u64 d = glp_sample_degree(view, t);
        const glp_u64 lanes = size == GLP_SAMPLE_ALL_NEIGHBOURS ? d : (glp_u64)size;
        glp_u64 distinct = ~0ull;
        if (unique) distinct = b.rows_distinct ? d : glp_engine_distinct_sorted(glp_sample_row(view, t), d);
        const glp_u64 neighbourhood_start = s.len;
        bool exhausted = false;
        for (glp_u64 j = 0ull; j < lanes && !exhausted; ++j) {
            if (s.len - neighbourhood_start >= distinct) break;
            const glp_u64 lane = lane_base + j;
            if (lane > 0xFFFFFFFFull) { s.status = GLP_SAMPLE_FAILED; return; }
            *view.stream = glp_sample_stream_new(seed, s.sample, step, (glp_u32)lane);
            glp_u64 attempts = 0ull;
            for (;;) {
                const glp_u32 v = glp_sample_next(params, view, s.sample, t, (glp_u32)j, step);
                if (v == GLP_SAMPLE_NONE) break;
                if (!glp_engine_is_neighbour(view, t, v)) { s.status = GLP_SAMPLE_FAILED; return; }
                if (unique && glp_engine_holds(s.vertices, neighbourhood_start, s.len, v)) {
                    if (++attempts > GLP_SAMPLE_UNIQUE_ATTEMPTS * (distinct + 1ull)) { exhausted = true; break; }
                    continue;
                }
                if (s.len >= b.cap_out) { s.status = GLP_SAMPLE_OVERFLOW_OUT; return; }
                glp_engine_add(s, s.len++, v, t, (glp_u32)(pos - t_begin));
                break;
            }
        }
        lane_base += lanes;
    }
}

// The next step's transits after a step that added s.vertices[added_start, s.len), appended
// to the history as level step + 1, by one thread: with REPLACE the transits with each added
// vertex in place of its transit (none when nothing was added), else the distinct added
// vertices in first-occurrence order.
__device__ void glp_engine_next_level(const glp_sample_batch& b, glp_engine_sample& s, glp_u32 step, glp_u64 t_begin,
                                      glp_u64 t_end, glp_u64 added_start) {
    glp_u64 next_end = t_end;
    if (b.replace) {
        if (s.len > added_start) {
            if (t_end + (t_end - t_begin) > b.cap_history) { s.status = GLP_SAMPLE_OVERFLOW_HISTORY; return; }
            for (glp_u64 pos = t_begin; pos < t_end; ++pos) s.history[next_end++] = s.history[pos];
            for (glp_u64 a = added_start; a < s.len; ++a) s.history[t_end + s.positions[a]] = s.vertices[a];
        }
    } else {
        for (glp_u64 a = added_start; a < s.len; ++a) {
            const glp_u32 v = s.vertices[a];
            if (glp_engine_holds(s.history, t_end, next_end, v)) continue;
            if (next_end >= b.cap_history) { s.status = GLP_SAMPLE_OVERFLOW_HISTORY; return; }
            s.history[next_end++] = v;
        }
    }
    s.starts[step + 2u] = next_end;
}

// One step of sample s by one thread: its draws, then (unless it is the last step) the next
// level. A step without transits leaves the next level empty.
__device__ void glp_engine_step(const glp_sample_params& params, glp_sample_view& view, const glp_sample_batch& b,
                                glp_engine_sample& s, glp_u64 seed, glp_u32 step) {
    const glp_u64 t_begin = s.starts[step], t_end = s.starts[step + 1u];
    view.step = step;
    view.history_levels = step + 1u;
    const glp_u64 added_start = s.len;
    if (t_begin < t_end) {
        if (b.collective) {
            glp_engine_collective_step(params, view, b, s, seed, step, t_begin, t_end);
        } else {
            glp_engine_individual_step(params, view, b, s, seed, step, t_begin, t_end);
        }
    }
    if (s.status == 0u && step + 1u < b.steps) glp_engine_next_level(b, s, step, t_begin, t_end, added_start);
}

// Sample sample_ids[k] for k < b.samples, one thread each, as the CPU engine's `sample_one`:
// its record (vertices, sources, the position of each vertex's transit, where each step
// ends) goes to its region of the arena, its length to lengths[k], and status[k] is 0, an overflow bit
// (the region was too small: the host runs the sample again with a larger one) or
// GLP_SAMPLE_FAILED (a hook's result the CPU engine refuses: the host replays it there).
extern "C" __global__ void glp_sample_per_sample(const glp_sample_params params, const glp_sample_view graph,
                                                 const glp_sample_batch b, const glp_u64 seed) {
    const glp_u64 k = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= b.samples) return;
    glp_sample_view view = graph;
    glp_sample_stream stream;
    glp_engine_sample s = glp_engine_begin(b, k, 0u, 1u, view, stream);
    glp_u32 step = 0u;
    for (; step < b.steps && s.status == 0u && s.starts[step] < s.starts[step + 1u]; ++step) {
        glp_engine_step(params, view, b, s, seed, step);
        glp_engine_end_steps(s, step, step + 1u);
    }
    glp_engine_store(b, k, s, step, b.steps);
}

// The draws of an individual step made by a warp, 32 lanes at a time (draws with
// replacement only: each draw is independent of the others), the added vertices compacted
// in lane order with ballots: the same record as one thread's.
__device__ void glp_engine_individual_step_warp(const glp_sample_params& params, glp_sample_view& view,
                                                const glp_sample_batch& b, glp_engine_sample& s, glp_u64 seed,
                                                glp_u32 step, glp_u64 t_begin, glp_u64 t_end, glp_u32 lane_id) {
    const glp_u32 size = b.sizes[step];
    const unsigned below = (1u << lane_id) - 1u;
    // Fixed sizes: the step's lanes are one range, lane i drawing j = i % size from transit
    // i / size; ALL_NEIGHBOURS: one range per transit. Each thread makes GLP_SAMPLE_WARP_DRAWS
    // draws at once (independent chains of reads in flight, each with its own stream), then
    // the warp compacts them round by round in lane order. Locating each round's transit rows
    // once (a lane per transit, shuffled to the draws) instead of per draw was measured and
    // lost: its registers spill (k-hop 25,10, H100: com-DBLP 0.82 -> 0.92 ms, R-MAT 22 12.5
    // -> 13.3 ms). So did giving each draw its transit's row in the view's known row, read
    // once, so that degree, edge and row_offset read no offsets (0.63 -> 0.68 ms, 10.13 ->
    // 10.93 ms: 68 bytes spilled instead of 24); dividing by the size with a multiply by its
    // reciprocal changed nothing (0.63 and 10.13 -> 10.20 ms).
    const bool all = size == GLP_SAMPLE_ALL_NEIGHBOURS;
    glp_u64 lane_base = 0ull;
    for (glp_u64 group = all ? t_begin : t_end - 1ull; group < t_end; ++group) {
        const glp_u64 lanes = all ? glp_sample_degree(view, s.history[group]) : (t_end - t_begin) * (glp_u64)size;
        for (glp_u64 chunk = 0ull; chunk < lanes; chunk += 32ull * GLP_SAMPLE_WARP_DRAWS) {
            glp_u32 v[GLP_SAMPLE_WARP_DRAWS], t[GLP_SAMPLE_WARP_DRAWS], pos[GLP_SAMPLE_WARP_DRAWS];
            bool failed = false;
#pragma unroll
            for (int q = 0; q < GLP_SAMPLE_WARP_DRAWS; ++q) {
                const glp_u64 i = chunk + 32ull * q + lane_id;
                v[q] = GLP_SAMPLE_NONE;
                t[q] = GLP_SAMPLE_NONE;
                pos[q] = 0u;
                if (i >= lanes) continue;
                const glp_u64 lane = lane_base + i;
                if (lane > 0xFFFFFFFFull) {
                    failed = true;
                    continue;
                }
                // i <= lane fits in 32 bits: a 32-bit division (a 64-bit one is a long
                // software routine, run for every draw).
                const glp_u32 quotient = all ? 0u : (glp_u32)i / size;
                const glp_u64 j = all ? i : (glp_u64)((glp_u32)i - quotient * size);
                pos[q] = all ? (glp_u32)(group - t_begin) : quotient;
                t[q] = s.history[t_begin + pos[q]];
                glp_sample_stream stream = glp_sample_stream_new(seed, s.sample, step, (glp_u32)lane);
                glp_sample_view draw = view;
                draw.stream = &stream;
                v[q] = glp_sample_next(params, draw, s.sample, t[q], (glp_u32)j, step);
                if (v[q] != GLP_SAMPLE_NONE && !glp_engine_is_neighbour(draw, t[q], v[q])) failed = true;
            }
            if (__ballot_sync(0xFFFFFFFFu, failed)) { s.status = GLP_SAMPLE_FAILED; return; }
#pragma unroll
            for (int q = 0; q < GLP_SAMPLE_WARP_DRAWS; ++q) {
                const unsigned keep = __ballot_sync(0xFFFFFFFFu, v[q] != GLP_SAMPLE_NONE);
                const glp_u64 kept = (glp_u64)__popc(keep);
                if (s.len + kept > b.cap_out) { s.status = GLP_SAMPLE_OVERFLOW_OUT; return; }
                if (v[q] != GLP_SAMPLE_NONE) {
                    glp_engine_add(s, s.len + (glp_u64)__popc(keep & below), v[q], t[q], pos[q]);
                }
                s.len += kept;
            }
        }
        lane_base += lanes;
    }
}

// The next level after a step that added s.vertices[added_start, s.len), ADDED transits, by a
// warp: each added vertex is kept when no earlier one of the step equals it, and the kept
// ones are compacted in order with ballots. The comparisons are made in registers: within a
// chunk of 32 by __match_any_sync, against the step's earlier chunks (read one coalesced load
// each) by shuffles; a thread scanning the earlier vertices in memory one by one waited on a
// read per vertex (k-hop's 25 first-hop draws: up to 24 reads in a row). k-hop 25,10 on an
// H100: com-DBLP 0.88 -> 0.82 ms, R-MAT 22 13.1 -> 12.5 ms, and fewer spilled registers.
__device__ void glp_engine_next_level_warp(const glp_sample_batch& b, glp_engine_sample& s, glp_u32 step,
                                           glp_u64 t_end, glp_u64 added_start, glp_u32 lane_id) {
    const unsigned below = (1u << lane_id) - 1u;
    glp_u64 next_end = t_end;
    for (glp_u64 chunk = added_start; chunk < s.len; chunk += 32ull) {
        const glp_u64 a = chunk + lane_id;
        const glp_u32 v = a < s.len ? s.vertices[a] : GLP_SAMPLE_NONE;  // an added vertex is never NONE
        const unsigned same = __match_any_sync(0xFFFFFFFFu, v);  // by every lane of the warp
        bool first = a < s.len && (same & below) == 0u;
        for (glp_u64 earlier = added_start; earlier < chunk; earlier += 32ull) {
            const glp_u32 w = s.vertices[earlier + lane_id];  // a whole chunk: earlier + 32 <= chunk
            for (int j = 0; j < 32; ++j) {
                if (__shfl_sync(0xFFFFFFFFu, w, j) == v) first = false;
            }
        }
        const unsigned keep = __ballot_sync(0xFFFFFFFFu, first);
        if (next_end + (glp_u64)__popc(keep) > b.cap_history) { s.status = GLP_SAMPLE_OVERFLOW_HISTORY; return; }
        if (first) s.history[next_end + (glp_u64)__popc(keep & below)] = v;
        next_end += (glp_u64)__popc(keep);
    }
    if (lane_id == 0u) s.starts[step + 2u] = next_end;
}

// After the draws of a step that added s.vertices[added_start, s.len), by a warp: the next
// level (ADDED transits shared by the warp, REPLACE levels by its first thread), unless the
// step is the last one. DRAWS_ONLY: the host runs no REPLACE sampler on that kernel.
template <bool DRAWS_ONLY>
__device__ void glp_engine_finish_step_warp(const glp_sample_batch& b, glp_engine_sample& s, glp_u32 step,
                                            glp_u64 t_begin, glp_u64 t_end, glp_u64 added_start, glp_u32 lane_id) {
    __syncwarp();
    if (s.status != 0u || step + 1u == b.steps) return;
    if (!DRAWS_ONLY && b.replace) {
        if (lane_id == 0u) glp_engine_next_level(b, s, step, t_begin, t_end, added_start);
        s.status = __shfl_sync(0xFFFFFFFFu, s.status, 0);
    } else {
        glp_engine_next_level_warp(b, s, step, t_end, added_start, lane_id);
    }
    __syncwarp();
}

// One step of sample s by a warp (lane_id): the draws of individual steps with replacement
// shared by its 32 threads, the other steps (collective, without replacement) on its first
// thread; then the next level.
template <bool DRAWS_ONLY>
__device__ void glp_engine_step_warp(const glp_sample_params& params, glp_sample_view& view,
                                     const glp_sample_batch& b, glp_engine_sample& s, glp_u64 seed, glp_u32 step,
                                     glp_u32 lane_id) {
    const glp_u64 t_begin = s.starts[step], t_end = s.starts[step + 1u];
    view.step = step;
    view.history_levels = step + 1u;
    const glp_u64 added_start = s.len;
    if (t_begin < t_end) {
        if (DRAWS_ONLY || (!b.collective && b.unique_steps[step] == 0)) {
            glp_engine_individual_step_warp(params, view, b, s, seed, step, t_begin, t_end, lane_id);
        } else {
            if (lane_id == 0u) {
                if (b.collective) {
                    glp_engine_collective_step(params, view, b, s, seed, step, t_begin, t_end);
                } else {
                    glp_engine_individual_step(params, view, b, s, seed, step, t_begin, t_end);
                }
            }
            s.len = __shfl_sync(0xFFFFFFFFu, s.len, 0);
            s.status = __shfl_sync(0xFFFFFFFFu, s.status, 0);
        }
    }
    glp_engine_finish_step_warp<DRAWS_ONLY>(b, s, step, t_begin, t_end, added_start, lane_id);
}

// Sample sample_ids[k], one warp each (k = global warp index): glp_sample_per_sample's record,
// every step by glp_engine_step_warp.
template <bool DRAWS_ONLY>
__device__ __forceinline__ void glp_per_sample_warp(const glp_sample_params& params, const glp_sample_view& graph,
                                                    const glp_sample_batch& b, glp_u64 seed) {
    const glp_u64 k = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) / 32ull;
    const glp_u32 lane_id = threadIdx.x & 31u;
    if (k >= b.samples) return;  // the whole warp
    glp_sample_view view = graph;
    glp_sample_stream stream;
    glp_engine_sample s = glp_engine_begin(b, k, lane_id, 32u, view, stream);
    // Without REPLACE no transit positions are read: none written (a store and two registers
    // fewer per draw; with the REPLACE levels left out, k-hop 25,10 on an H100: com-DBLP 0.82
    // -> 0.80 ms, R-MAT 22 12.5 -> 12.2 ms).
    if (DRAWS_ONLY) s.positions = nullptr;
    __syncwarp();
    glp_u32 step = 0u;
    for (; step < b.steps && s.status == 0u && s.starts[step] < s.starts[step + 1u]; ++step) {
        glp_engine_step_warp<DRAWS_ONLY>(params, view, b, s, seed, step, lane_id);
        if (lane_id == 0u) glp_engine_end_steps(s, step, step + 1u);
    }
    if (lane_id == 0u) glp_engine_store(b, k, s, step, b.steps);
}

extern "C" __global__ void glp_sample_per_sample_warp(const glp_sample_params params, const glp_sample_view graph,
                                                      const glp_sample_batch b, const glp_u64 seed) {
    glp_per_sample_warp<false>(params, graph, b, seed);
}

// The same for samplers whose every step is individual with replacement and whose transits
// are ADDED (k-hop's fan-outs):
// without the code of the other steps, it fits in fewer registers, bounded so that
// GLP_SAMPLE_DRAWS_WARP_BLOCKS blocks share an SM.
extern "C" __global__ void __launch_bounds__(GLP_SAMPLE_PER_SAMPLE_WARP_THREADS, GLP_SAMPLE_DRAWS_WARP_BLOCKS)
glp_sample_per_sample_draws(const glp_sample_params params, const glp_sample_view graph, const glp_sample_batch b,
                            const glp_u64 seed) {
    glp_per_sample_warp<true>(params, graph, b, seed);
}

// The records of a batch's samples packed one after the other for the host to download only
// what they hold: sample k's (one warp each) to [offsets[k], offsets[k + 1]) of vertices and
// sources; the host sets an empty range for the samples it does not take. Their step ends
// stay where they are (the host keeps the arena's).
extern "C" __global__ void glp_sample_compact_records(const glp_sample_batch b, const glp_u64* __restrict__ offsets,
                                                      glp_u32* vertices, glp_u32* sources) {
    const glp_u64 k = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) / 32ull;
    const glp_u32 lane_id = threadIdx.x & 31u;
    if (k >= b.samples) return;
    const glp_u64 from = k * b.cap_out, to = offsets[k], len = offsets[k + 1ull] - to;
    for (glp_u64 e = lane_id; e < len; e += 32ull) {
        vertices[to + e] = b.vertices[from + e];
        sources[to + e] = b.sources[from + e];
    }
}

// ----- one step at a time: engines chosen per step -----

// The batch's k-th sample's region with its state as the last kernel left it.
__device__ __forceinline__ glp_engine_sample glp_engine_resume(const glp_sample_batch& b, glp_u64 k) {
    glp_engine_sample s = glp_engine_region(b, k);
    s.len = b.lengths[k];
    s.status = b.status[k];
    return s;
}

// Starts sample sample_ids[k] (one warp each): level 0 of its history, its state cleared.
extern "C" __global__ void glp_sample_begin(const glp_sample_batch b) {
    const glp_u64 k = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) / 32ull;
    const glp_u32 lane_id = threadIdx.x & 31u;
    if (k >= b.samples) return;
    glp_sample_view view;
    glp_sample_stream stream;
    const glp_engine_sample s = glp_engine_begin(b, k, lane_id, 32u, view, stream);
    if (lane_id == 0u) {
        b.status[k] = s.status;
        b.lengths[k] = 0ull;
    }
}

// Step `step` of sample sample_ids[k] (one warp each) on the sample-parallel engine, the
// state kept in the arena between launches. A sample with a status does nothing; one without
// transits adds nothing and leaves its next level empty, its step ending where its record does.
extern "C" __global__ void glp_sample_step_warp(const glp_sample_params params, const glp_sample_view graph,
                                                const glp_sample_batch b, const glp_u64 seed, const glp_u32 step) {
    const glp_u64 k = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) / 32ull;
    const glp_u32 lane_id = threadIdx.x & 31u;
    if (k >= b.samples) return;
    glp_engine_sample s = glp_engine_resume(b, k);
    if (s.status != 0u) return;
    glp_sample_view view = graph;
    glp_sample_stream stream;
    glp_engine_uncached_view(b, k, s, view, stream);
    glp_engine_step_warp<false>(params, view, b, s, seed, step, lane_id);
    if (lane_id == 0u) glp_engine_store(b, k, s, step, step + 1u);
}
/*{{TRANSIT}}*/
/*{{SUBGRAPHS}}*/
