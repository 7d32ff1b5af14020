// glp: the sample-parallel sampling engines, a sampler's hooks fused in. Both compute exactly
// what glp-runtime's CPU engine (`sample::engine`) computes, draw for draw: the same hooks on
// the same view, random streams keyed by (seed, sample, step, lane), the same rules for draws
// without replacement, NONE, dead ends and next transits. They differ in how samples map to
// threads:
// - glp_sample_walks: walks (one root, one draw per step): GLP_SAMPLE_WALKERS walkers per
//   thread, each step of every walker before the next step, so a thread keeps that many
//   independent chains of reads in flight; the walks are written step-major (row l holds the
//   vertex of every walk at level l, coalesced) and double as the walkers' history;
// - glp_sample_per_sample: any sampler, one thread per sample running the CPU engine's loop
//   over its steps, its state in a per-sample region of the batch's arena.
/*{{PRELUDE}}*/
/*{{VIEW}}*/
/*{{ENGINE}}*/
/*{{PROGRAM}}*/

// Whether v, which `next` drew from transit t, is a neighbour of t: O(1) when it is the last
// edge the hook read (every built-in sampler's case), else a binary search in t's row.
__device__ __forceinline__ bool glp_engine_is_neighbour(const glp_sample_view& view, glp_u32 t, glp_u32 v) {
    return (view.stream->last_source == t && view.stream->last_target == v) || glp_sample_contains(view, t, v);
}

// Walks from `count` roots: sample first_sample + i starts at roots[i], copied to walks[i]
// (row 0), and its vertex
// at level l (after step l - 1) goes to walks[l * count + i], GLP_SAMPLE_NONE once it has
// stopped. A draw that is not a neighbour of its transit stops the walk and records the
// smallest such sample in *failed_sample (the host replays it on the CPU for the message).
extern "C" __global__ void __launch_bounds__(GLP_SAMPLE_WALK_THREADS)
glp_sample_walks(const glp_sample_params params, const glp_sample_view graph, const glp_u64 seed,
                 const glp_u32 first_sample, const glp_u32 count, const glp_u32 steps,
                 const unsigned char* __restrict__ unique_steps, const glp_u32* __restrict__ roots, glp_u32* walks,
                 glp_u64* failed_sample) {
    const glp_u64 base = (glp_u64)blockIdx.x * blockDim.x * GLP_SAMPLE_WALKERS + threadIdx.x;
    glp_u32 current[GLP_SAMPLE_WALKERS];
#pragma unroll
    for (int w = 0; w < GLP_SAMPLE_WALKERS; ++w) {
        const glp_u64 i = base + (glp_u64)w * blockDim.x;
        current[w] = i < count ? roots[i] : GLP_SAMPLE_NONE;
        if (i < count) walks[i] = current[w];
    }
    for (glp_u32 step = 0; step < steps; ++step) {
        const bool unique = unique_steps[step] != 0;
        glp_u32 next[GLP_SAMPLE_WALKERS];
#pragma unroll
        for (int w = 0; w < GLP_SAMPLE_WALKERS; ++w) {
            const glp_u64 i = base + (glp_u64)w * blockDim.x;
            const glp_u32 t = current[w];
            next[w] = GLP_SAMPLE_NONE;
            // A stopped walk, or a draw without replacement from an empty row (which the
            // CPU engine does not make).
            if (t == GLP_SAMPLE_NONE || (unique && glp_sample_degree(graph, t) == 0ull)) continue;
            const glp_u32 sample = first_sample + (glp_u32)i;
            glp_sample_stream stream = glp_sample_stream_new(seed, sample, step, 0u);
            glp_sample_view view = graph;
            view.roots = walks + i;
            view.sorted_roots = walks + i;
            view.root_count = 1u;
            view.history = walks + i;
            view.walk_stride = count;
            view.history_levels = step + 1u;
            view.step = step;
            view.stream = &stream;
            glp_u32 v = glp_sample_next(params, view, sample, t, 0u, step);
            if (v != GLP_SAMPLE_NONE && !glp_engine_is_neighbour(view, t, v)) {
                atomicMin(failed_sample, (glp_u64)sample);
                v = GLP_SAMPLE_NONE;
            }
            next[w] = v;
        }
#pragma unroll
        for (int w = 0; w < GLP_SAMPLE_WALKERS; ++w) {
            const glp_u64 i = base + (glp_u64)w * blockDim.x;
            if (i < count) walks[(glp_u64)(step + 1u) * count + i] = next[w];
            current[w] = next[w];
        }
    }
}

// ----- one thread per sample -----

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

// Sorts values[0, n) ascending in place (heap sort: O(n log n), no extra memory).
__device__ void glp_engine_heap_sort(glp_u32* values, glp_u64 n) {
    if (n < 2ull) return;
    for (glp_u64 start = n / 2ull; start-- > 0ull;) {
        glp_u64 root = start;
        for (;;) {
            glp_u64 child = 2ull * root + 1ull;
            if (child >= n) break;
            if (child + 1ull < n && values[child] < values[child + 1ull]) ++child;
            if (values[root] >= values[child]) break;
            const glp_u32 swap = values[root]; values[root] = values[child]; values[child] = swap;
            root = child;
        }
    }
    for (glp_u64 end = n - 1ull; end > 0ull; --end) {
        const glp_u32 top = values[0]; values[0] = values[end]; values[end] = top;
        glp_u64 root = 0ull;
        for (;;) {
            glp_u64 child = 2ull * root + 1ull;
            if (child >= end) break;
            if (child + 1ull < end && values[child] < values[child + 1ull]) ++child;
            if (values[root] >= values[child]) break;
            const glp_u32 swap = values[root]; values[root] = values[child]; values[child] = swap;
            root = child;
        }
    }
}

// The distinct values of a sorted row, from the graph (rows may repeat a neighbour).
__device__ __forceinline__ glp_u64 glp_engine_row_distinct(const glp_sample_view& view, const glp_sample_batch& b,
                                                           glp_u32 t) {
    const glp_u64 d = glp_sample_degree(view, t);
    return b.rows_distinct ? d : glp_engine_distinct_sorted(view.targets + view.offsets[t], d);
}

// Sample sample_ids[k] for k < b.samples, from its roots, as the CPU engine's `sample_one`:
// its record (vertices, sources, steps, and the position of each vertex's transit) goes to
// its region of the arena, its length to lengths[k], and status[k] is 0, an overflow bit
// (the region was too small: the host runs the sample again with a larger one) or
// GLP_SAMPLE_FAILED (a hook's result the CPU engine refuses: the host replays it there).
extern "C" __global__ void glp_sample_per_sample(const glp_sample_params params, const glp_sample_view graph,
                                                 const glp_sample_batch b, const glp_u64 seed) {
    const glp_u64 k = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= b.samples) return;
    const glp_u32 sample = b.sample_ids[k];
    glp_u32* history = b.history + k * b.cap_history;
    glp_u64* starts = b.history_starts + k * ((glp_u64)b.steps + 2ull);
    glp_u32* combined = b.combined + k * b.cap_combined;
    glp_u32* combined_sources = b.combined_sources + k * b.cap_combined;
    double* combined_prefix = b.combined_prefix + k * b.cap_combined;
    glp_u32* combined_sorted = b.combined_sorted ? b.combined_sorted + k * b.cap_combined : nullptr;
    glp_u32* out_vertices = b.vertices + k * b.cap_out;
    glp_u32* out_sources = b.sources + k * b.cap_out;
    glp_u32* out_steps = b.out_steps + k * b.cap_out;
    glp_u32* out_positions = b.positions + k * b.cap_out;
    const glp_u64 r0 = b.root_offsets[k], r1 = b.root_offsets[k + 1ull];
    const glp_u64 root_count = r1 - r0;
    glp_u64 len = 0ull;
    glp_u32 status = 0u;
    if (root_count > b.cap_history) {
        b.status[k] = GLP_SAMPLE_OVERFLOW_HISTORY;
        b.lengths[k] = 0ull;
        return;
    }
    for (glp_u64 r = 0ull; r < root_count; ++r) history[r] = b.roots[r0 + r];
    starts[0] = 0ull;
    starts[1] = root_count;
    glp_sample_stream stream = glp_sample_stream_new(seed, sample, 0u, 0u);
    glp_sample_view view = graph;
    view.roots = b.roots + r0;
    view.sorted_roots = b.sorted_roots + r0;
    view.root_count = (glp_u32)root_count;
    view.history = history;
    view.history_starts = starts;
    view.stream = &stream;
    for (glp_u32 step = 0u; step < b.steps && status == 0u; ++step) {
        const glp_u64 t_begin = starts[step], t_end = starts[step + 1u];
        if (t_begin == t_end) break;
        view.step = step;
        view.history_levels = step + 1u;
        const glp_u32 size = b.sizes[step];
        const bool unique = b.unique_steps[step] != 0;
        const glp_u64 added_start = len;
        if (b.collective) {
            glp_u64 n = 0ull;
            for (glp_u64 pos = t_begin; pos < t_end && status == 0u; ++pos) {
                const glp_u32 t = history[pos];
                const glp_u64 d = glp_sample_degree(view, t);
                if (n + d > b.cap_combined) { status = GLP_SAMPLE_OVERFLOW_COMBINED; break; }
                const glp_u32* row = view.targets + view.offsets[t];
                for (glp_u64 e = 0ull; e < d; ++e) {
                    combined[n + e] = row[e];
                    combined_sources[n + e] = (glp_u32)(pos - t_begin);
                }
                n += d;
            }
            if (status != 0u) break;
            view.combined = combined;
            view.combined_sources = combined_sources;
            view.combined_len = n;
            view.combined_prefix = nullptr;
            view.combined_sorted = nullptr;
            if (combined_sorted && (b.sort_combined || unique)) {
                for (glp_u64 e = 0ull; e < n; ++e) combined_sorted[e] = combined[e];
                glp_engine_heap_sort(combined_sorted, n);
                view.combined_sorted = combined_sorted;
            }
            double sum = 0.0;
            for (glp_u64 e = 0ull; e < n; ++e) {
                const glp_u32 t = history[t_begin + combined_sources[e]];
                const double w = glp_sample_combined_weight(params, view, sample, t, combined[e], step);
                if (!(isfinite(w) && w >= 0.0)) { status = GLP_SAMPLE_FAILED; break; }
                sum += w;
                combined_prefix[e] = sum;
            }
            if (status != 0u) break;
            view.combined_prefix = combined_prefix;
            const glp_u64 lanes = size == GLP_SAMPLE_ALL_NEIGHBOURS ? n : (glp_u64)size;
            const glp_u64 distinct = unique ? glp_engine_distinct_sorted(combined_sorted, n) : ~0ull;
            bool exhausted = false;
            for (glp_u64 lane = 0ull; lane < lanes && status == 0u; ++lane) {
                if (exhausted || len - added_start >= distinct) break;
                if (lane > 0xFFFFFFFFull) { status = GLP_SAMPLE_FAILED; break; }
                stream = glp_sample_stream_new(seed, sample, step, (glp_u32)lane);
                glp_u64 attempts = 0ull;
                for (;;) {
                    const glp_u64 e = glp_sample_next_entry(params, view, sample, (glp_u32)lane, step);
                    if (e == GLP_SAMPLE_NONE_ENTRY) break;
                    if (e >= n) { status = GLP_SAMPLE_FAILED; break; }
                    const glp_u32 v = combined[e];
                    if (unique && glp_engine_holds(out_vertices, added_start, len, v)) {
                        if (++attempts > GLP_SAMPLE_UNIQUE_ATTEMPTS * (distinct + 1ull)) { exhausted = true; break; }
                        continue;
                    }
                    if (len >= b.cap_out) { status = GLP_SAMPLE_OVERFLOW_OUT; break; }
                    const glp_u32 pos = combined_sources[e];
                    out_vertices[len] = v;
                    out_sources[len] = history[t_begin + pos];
                    out_steps[len] = step;
                    out_positions[len] = pos;
                    ++len;
                    break;
                }
            }
        } else {
            view.combined = nullptr;
            view.combined_sources = nullptr;
            view.combined_prefix = nullptr;
            view.combined_sorted = nullptr;
            view.combined_len = 0ull;
            glp_u64 lane_base = 0ull;
            for (glp_u64 pos = t_begin; pos < t_end && status == 0u; ++pos) {
                const glp_u32 t = history[pos];
                const glp_u64 d = glp_sample_degree(view, t);
                const glp_u64 lanes = size == GLP_SAMPLE_ALL_NEIGHBOURS ? d : (glp_u64)size;
                const glp_u64 distinct = unique ? glp_engine_row_distinct(view, b, t) : ~0ull;
                const glp_u64 neighbourhood_start = len;
                bool exhausted = false;
                for (glp_u64 j = 0ull; j < lanes && status == 0u; ++j) {
                    if (exhausted || len - neighbourhood_start >= distinct) break;
                    const glp_u64 lane = lane_base + j;
                    if (lane > 0xFFFFFFFFull) { status = GLP_SAMPLE_FAILED; break; }
                    stream = glp_sample_stream_new(seed, sample, step, (glp_u32)lane);
                    glp_u64 attempts = 0ull;
                    for (;;) {
                        const glp_u32 v = glp_sample_next(params, view, sample, t, (glp_u32)j, step);
                        if (v == GLP_SAMPLE_NONE) break;
                        if (!glp_engine_is_neighbour(view, t, v)) { status = GLP_SAMPLE_FAILED; break; }
                        if (unique && glp_engine_holds(out_vertices, neighbourhood_start, len, v)) {
                            if (++attempts > GLP_SAMPLE_UNIQUE_ATTEMPTS * (distinct + 1ull)) { exhausted = true; break; }
                            continue;
                        }
                        if (len >= b.cap_out) { status = GLP_SAMPLE_OVERFLOW_OUT; break; }
                        out_vertices[len] = v;
                        out_sources[len] = t;
                        out_steps[len] = step;
                        out_positions[len] = (glp_u32)(pos - t_begin);
                        ++len;
                        break;
                    }
                }
                lane_base += lanes;
            }
        }
        if (status != 0u || step + 1u == b.steps) break;
        // The next step's transits, appended to the history as its next level.
        glp_u64 next_end = t_end;
        if (b.replace) {
            if (len > added_start) {
                if (t_end + (t_end - t_begin) > b.cap_history) { status = GLP_SAMPLE_OVERFLOW_HISTORY; break; }
                for (glp_u64 pos = t_begin; pos < t_end; ++pos) history[next_end++] = history[pos];
                for (glp_u64 a = added_start; a < len; ++a) history[t_end + out_positions[a]] = out_vertices[a];
            }
        } else {
            for (glp_u64 a = added_start; a < len; ++a) {
                const glp_u32 v = out_vertices[a];
                if (glp_engine_holds(history, t_end, next_end, v)) continue;
                if (next_end >= b.cap_history) { status = GLP_SAMPLE_OVERFLOW_HISTORY; break; }
                history[next_end++] = v;
            }
        }
        starts[step + 2u] = next_end;
    }
    b.status[k] = status;
    b.lengths[k] = len;
}
