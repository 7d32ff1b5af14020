// ----- the transit-parallel engine (NextDoor's scheduling), one step at a time -----
//
// A step of every sample of the batch whose state is in the arena, scheduled by transit
// rather than by sample. An *entry* is one (sample, transit position) of the step; its
// *lanes* are the draws the CPU engine makes from that transit (the step's sample size, or
// the transit's degree for ALL_NEIGHBOURS), numbered from its *slot*: the lanes of the
// sample's earlier transits, which is also the first draw's stream lane. The step:
// 1. glp_transit_count: each sample's lanes (an overflow past its region stops it), and a
//    histogram of the entries by transit;
// 2. glp_transit_scan_*: the histogram becomes where each transit's entries start;
// 3. glp_transit_scatter: the entries, sorted by transit (the scheduling index);
// 4. glp_transit_classify: transits by the threads their entries need (entries x the next
//    power of two >= the lanes, 1 per entry without replacement, whose draws are
//    sequential): sub-warp (< 32), block (32..1024) and grid (> 1024, split into chunks of
//    at most 1024 threads' entries, a block each);
// 5. glp_transit_draw_small (sub-warp transits: a thread per entry, the entries of a transit
//    on neighbouring threads, whose reads of its row share L1) and glp_transit_draw_large
//    (a block per chunk, the transit's row copied to shared memory when it fits and is read
//    often enough to pay the copy): every lane's draw into the sample's dense slots, NONE
//    where it drew nothing;
// 6. glp_transit_gather: each sample's slots in lane order become its record (the same
//    compaction as the warp engine's), then its next level.
// Every draw is keyed by (seed, sample, step, lane) exactly as on the CPU, so the order in
// which threads run them changes nothing.

// Inclusive prefix sum of x over the warp's lanes.
__device__ __forceinline__ glp_u64 glp_warp_inclusive_sum(glp_u64 x, glp_u32 lane_id) {
#pragma unroll
    for (glp_u32 offset = 1u; offset < 32u; offset <<= 1u) {
        const glp_u64 y = __shfl_up_sync(0xFFFFFFFFu, x, offset);
        if (lane_id >= offset) x += y;
    }
    return x;
}

// The lanes of transit t at this step (0: no draw at all, no entry).
__device__ __forceinline__ glp_u64 glp_transit_lanes(const glp_sample_view& graph, const glp_sample_batch& b,
                                                     glp_u32 step, glp_u32 t) {
    const glp_u32 size = b.sizes[step];
    return size == GLP_SAMPLE_ALL_NEIGHBOURS ? glp_sample_degree(graph, t) : (glp_u64)size;
}

// The warp-per-sample kernels' prologue: the warp's sample k, its lane, the sample's region s
// as the last kernel left it and its transits [t_begin, t_end) at this step; the warp leaves
// when it has no sample or the sample has stopped.
#define GLP_TRANSIT_RUNNING_SAMPLE                                                  \
    const glp_u64 k = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) / 32ull; \
    const glp_u32 lane_id = threadIdx.x & 31u;                                      \
    if (k >= b.samples) return;                                                     \
    glp_engine_sample s = glp_engine_resume(b, k);                                  \
    if (s.status != 0u) return;                                                     \
    const glp_u64 t_begin = s.starts[ts.step], t_end = s.starts[ts.step + 1u];

// Step 1: each running sample's lanes (overflow when its dense slots would not fit its output
// region) and the histogram of its entries by transit.
extern "C" __global__ void glp_transit_count(const glp_sample_view graph, const glp_sample_batch b,
                                             const glp_transit_step ts) {
    GLP_TRANSIT_RUNNING_SAMPLE
    glp_u64 lanes = 0ull, entries = 0ull;
    for (glp_u64 pos = t_begin + lane_id; pos < t_end; pos += 32ull) {
        const glp_u64 l = glp_transit_lanes(graph, b, ts.step, s.history[pos]);
        lanes += l;
        entries += l > 0ull;
    }
#pragma unroll
    for (glp_u32 offset = 16u; offset > 0u; offset >>= 1u) {
        lanes += __shfl_xor_sync(0xFFFFFFFFu, lanes, offset);
        entries += __shfl_xor_sync(0xFFFFFFFFu, entries, offset);
    }
    if (lanes > b.cap_out) {
        if (lane_id == 0u) b.status[k] = (glp_u32)GLP_SAMPLE_OVERFLOW_OUT;
        return;
    }
    if (lane_id == 0u) {
        ts.step_lanes[k] = lanes;
        if (entries > 0ull) atomicAdd(&ts.counters[GLP_TRANSIT_COUNTER_ENTRIES], (glp_u32)entries);
    }
    for (glp_u64 pos = t_begin + lane_id; pos < t_end; pos += 32ull) {
        const glp_u32 t = s.history[pos];
        if (glp_transit_lanes(graph, b, ts.step, t) > 0ull) atomicAdd(&ts.counts[t], 1u);
    }
}

// Step 2: counts[0, n) becomes its exclusive prefix sum. Tiles of GLP_TRANSIT_SCAN_TILE
// values are scanned by a block each, their totals scanned by one block, then added back.
// Exclusive scan of the block's per-thread sums; the block's total in *total.
__device__ __forceinline__ glp_u32 glp_block_exclusive_sum(glp_u32 x, glp_u32* total) {
    __shared__ glp_u32 warp_sums[32];
    const glp_u32 lane_id = threadIdx.x & 31u, warp = threadIdx.x / 32u;
    glp_u32 inclusive = x;
#pragma unroll
    for (glp_u32 offset = 1u; offset < 32u; offset <<= 1u) {
        const glp_u32 y = __shfl_up_sync(0xFFFFFFFFu, inclusive, offset);
        if (lane_id >= offset) inclusive += y;
    }
    if (lane_id == 31u) warp_sums[warp] = inclusive;
    __syncthreads();
    if (warp == 0u) {
        const glp_u32 warps = blockDim.x / 32u;
        glp_u32 w = lane_id < warps ? warp_sums[lane_id] : 0u;
#pragma unroll
        for (glp_u32 offset = 1u; offset < 32u; offset <<= 1u) {
            const glp_u32 y = __shfl_up_sync(0xFFFFFFFFu, w, offset);
            if (lane_id >= offset) w += y;
        }
        if (lane_id < warps) warp_sums[lane_id] = w;  // inclusive over warps
    }
    __syncthreads();
    const glp_u32 before = (warp == 0u ? 0u : warp_sums[warp - 1u]) + inclusive - x;
    *total = warp_sums[blockDim.x / 32u - 1u];
    __syncthreads();
    return before;
}

// Scans tile `tile` of values[0, n) in place (exclusive, starting from carry); returns the
// tile's total.
__device__ __forceinline__ glp_u32 glp_scan_tile(glp_u32* values, glp_u64 n, glp_u64 tile, glp_u32 carry) {
    const glp_u64 base = tile * GLP_TRANSIT_SCAN_TILE + (glp_u64)threadIdx.x * GLP_TRANSIT_SCAN_ITEMS;
    glp_u32 own[GLP_TRANSIT_SCAN_ITEMS];
    glp_u32 sum = 0u;
#pragma unroll
    for (int i = 0; i < GLP_TRANSIT_SCAN_ITEMS; ++i) {
        own[i] = base + i < n ? values[base + i] : 0u;
        sum += own[i];
    }
    glp_u32 total;
    glp_u32 running = carry + glp_block_exclusive_sum(sum, &total);
#pragma unroll
    for (int i = 0; i < GLP_TRANSIT_SCAN_ITEMS; ++i) {
        if (base + i < n) values[base + i] = running;
        running += own[i];
    }
    return total;
}

// A block per tile of counts, its total to tile_sums.
extern "C" __global__ void __launch_bounds__(GLP_TRANSIT_SCAN_THREADS)
glp_transit_scan_tiles(const glp_transit_step ts) {
    const glp_u32 total = glp_scan_tile(ts.counts, ts.num_vertices, blockIdx.x, 0u);
    if (threadIdx.x == 0u) ts.tile_sums[blockIdx.x] = total;
}

// The tiles' totals, scanned by one block, tile after tile.
extern "C" __global__ void __launch_bounds__(GLP_TRANSIT_SCAN_THREADS)
glp_transit_scan_totals(const glp_transit_step ts, const glp_u64 tiles) {
    glp_u32 carry = 0u;
    for (glp_u64 tile = 0ull; tile * GLP_TRANSIT_SCAN_TILE < tiles; ++tile) {
        carry += glp_scan_tile(ts.tile_sums, tiles, tile, carry);
    }
}

extern "C" __global__ void glp_transit_scan_add(const glp_transit_step ts) {
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ts.num_vertices) ts.counts[i] += ts.tile_sums[i / GLP_TRANSIT_SCAN_TILE];
}

// Step 3: every entry of every running sample to its place among its transit's (after which
// counts[t] is where t's entries end), with its sample, position and slot.
extern "C" __global__ void glp_transit_scatter(const glp_sample_view graph, const glp_sample_batch b,
                                               const glp_transit_step ts) {
    GLP_TRANSIT_RUNNING_SAMPLE
    glp_u64 slot_base = 0ull;
    for (glp_u64 chunk = t_begin; chunk < t_end; chunk += 32ull) {
        const glp_u64 pos = chunk + lane_id;
        const glp_u32 t = pos < t_end ? s.history[pos] : GLP_SAMPLE_NONE;
        const glp_u64 lanes = pos < t_end ? glp_transit_lanes(graph, b, ts.step, t) : 0ull;
        const glp_u64 inclusive = glp_warp_inclusive_sum(lanes, lane_id);
        if (lanes > 0ull) {
            const glp_u32 p = atomicAdd(&ts.counts[t], 1u);
            ts.entry_samples[p] = (glp_u32)k;
            ts.entry_positions[p] = (glp_u32)(pos - t_begin);
            ts.entry_transits[p] = t;
            ts.entry_slots[p] = slot_base + inclusive - lanes;
        }
        slot_base += __shfl_sync(0xFFFFFFFFu, inclusive, 31);
    }
}

// The threads transit t's c entries need: c x the next power of two >= its lanes (at most
// 1024), or c when the step draws without replacement (an entry's draws are sequential).
__device__ __forceinline__ glp_u64 glp_transit_threads(glp_u64 c, glp_u64 lanes, bool unique) {
    if (unique) return c;
    glp_u64 width = 1ull;
    while (width < lanes && width < GLP_TRANSIT_CHUNK_THREADS) width <<= 1u;
    return c * width;
}

// Transit v's entries: [begin, end) of the sorted entries (counts as glp_transit_scatter left
// it).
__device__ __forceinline__ glp_u64 glp_transit_entries_of(const glp_transit_step& ts, glp_u32 v, glp_u64* begin) {
    *begin = v == 0u ? 0ull : ts.counts[v - 1u];
    return ts.counts[v] - *begin;
}

// Step 4: the block and grid transits' chunks (a chunk: a transit and a range of its entries
// that needs at most GLP_TRANSIT_CHUNK_THREADS threads), and the count of each class.
extern "C" __global__ void glp_transit_classify(const glp_sample_view graph, const glp_sample_batch b,
                                                const glp_transit_step ts) {
    const glp_u64 v = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= ts.num_vertices) return;
    glp_u64 begin;
    const glp_u64 c = glp_transit_entries_of(ts, (glp_u32)v, &begin);
    if (c == 0ull) return;
    const bool unique = b.unique_steps[ts.step] != 0;
    const glp_u64 lanes = glp_transit_lanes(graph, b, ts.step, (glp_u32)v);
    const glp_u64 threads = glp_transit_threads(c, lanes, unique);
    if (threads < 32ull) {
        atomicAdd(&ts.counters[GLP_TRANSIT_COUNTER_SUB_WARP], 1u);
        return;
    }
    const glp_u64 per_chunk = threads <= GLP_TRANSIT_CHUNK_THREADS ? c : max(1ull, GLP_TRANSIT_CHUNK_THREADS / (threads / c));
    const glp_u64 chunks = (c + per_chunk - 1ull) / per_chunk;
    atomicAdd(&ts.counters[chunks == 1ull ? GLP_TRANSIT_COUNTER_BLOCK : GLP_TRANSIT_COUNTER_GRID], 1u);
    const glp_u64 first = atomicAdd(&ts.counters[GLP_TRANSIT_COUNTER_CHUNKS], (glp_u32)chunks);
    for (glp_u64 q = 0ull; q < chunks; ++q) {
        ts.chunk_transits[first + q] = (glp_u32)v;
        ts.chunk_firsts[first + q] = (glp_u32)(begin + q * per_chunk);
        ts.chunk_counts[first + q] = (glp_u32)min(per_chunk, c - q * per_chunk);
    }
}

// Draws lanes [j_begin, j_end) of sorted entry p (transit t, `lanes` lanes) into its sample's
// dense slots, as the CPU engine draws them; without replacement, the whole entry at once.
// `view` is the graph's view, with the transit's row cached or not.
__device__ void glp_transit_draw(const glp_sample_params& params, glp_sample_view view, const glp_sample_batch& b,
                                 const glp_transit_step& ts, glp_u64 seed, glp_u32 t, glp_u64 p, glp_u64 j_begin,
                                 glp_u64 j_end, bool unique) {
    const glp_u32 step = ts.step;
    const glp_u64 k = ts.entry_samples[p];
    const glp_u32 pos = ts.entry_positions[p];
    const glp_u64 slot = ts.entry_slots[p];
    const glp_engine_sample s = glp_engine_region(b, k);
    glp_sample_stream stream;
    glp_engine_view(b, k, s, view, stream);
    view.step = step;
    view.history_levels = step + 1u;
    glp_u32* dense = ts.dense_vertices + k * b.cap_out + slot;
    glp_u32* dense_positions = ts.dense_positions + k * b.cap_out + slot;
    const glp_u64 distinct = !unique ? ~0ull
                             : b.rows_distinct
                                 ? glp_sample_degree(view, t)
                                 : glp_engine_distinct_sorted(glp_sample_row(view, t), glp_sample_degree(view, t));
    glp_u64 added = 0ull;
    bool stopped = false;
    for (glp_u64 j = j_begin; j < j_end; ++j) {
        glp_u32 out = GLP_SAMPLE_NONE;
        const glp_u64 lane = slot + j;
        if (!stopped && added < distinct) {
            if (lane > 0xFFFFFFFFull) {
                atomicOr(&b.status[k], (glp_u32)GLP_SAMPLE_FAILED);
                stopped = true;
            } else {
                stream = glp_sample_stream_new(seed, s.sample, step, (glp_u32)lane);
                glp_u64 attempts = 0ull;
                for (;;) {
                    const glp_u32 v = glp_sample_next(params, view, s.sample, t, (glp_u32)j, step);
                    if (v == GLP_SAMPLE_NONE) break;
                    if (!glp_engine_is_neighbour(view, t, v)) {
                        atomicOr(&b.status[k], (glp_u32)GLP_SAMPLE_FAILED);
                        stopped = true;
                        break;
                    }
                    if (unique && glp_engine_holds(dense, 0ull, j, v)) {
                        if (++attempts > GLP_SAMPLE_UNIQUE_ATTEMPTS * (distinct + 1ull)) {  // exhausted
                            stopped = true;
                            break;
                        }
                        continue;
                    }
                    out = v;
                    ++added;
                    break;
                }
            }
        }
        dense[j] = out;
        dense_positions[j] = pos;
    }
}

// Step 5, sub-warp transits: a thread per entry, all its lanes.
extern "C" __global__ void glp_transit_draw_small(const glp_sample_params params, const glp_sample_view graph,
                                                  const glp_sample_batch b, const glp_transit_step ts,
                                                  const glp_u64 seed, const glp_u64 entries) {
    const glp_u64 p = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= entries) return;
    const glp_u32 t = ts.entry_transits[p];
    glp_u64 begin;
    const glp_u64 c = glp_transit_entries_of(ts, t, &begin);
    const bool unique = b.unique_steps[ts.step] != 0;
    const glp_u64 lanes = glp_transit_lanes(graph, b, ts.step, t);
    if (glp_transit_threads(c, lanes, unique) >= 32ull) return;  // a chunk's
    glp_sample_view view = graph;
    view.cached_row = nullptr;  // no row cached: known to the compiler
    glp_transit_draw(params, view, b, ts, seed, t, p, 0ull, lanes, unique);
}

// Step 5, block and grid transits: a block per chunk, the transit's row in shared memory when
// it fits and the chunk reads it often enough (a draw reads one 32-byte sector at random, the
// copy reads the row in full: worth it below 8 entries per draw).
extern "C" __global__ void __launch_bounds__(GLP_TRANSIT_BLOCK_THREADS)
glp_transit_draw_large(const glp_sample_params params, const glp_sample_view graph, const glp_sample_batch b,
                       const glp_transit_step ts, const glp_u64 seed) {
    __shared__ glp_u32 row[GLP_TRANSIT_SHARED_ROW];
    const glp_u64 chunk = blockIdx.x;
    const glp_u32 t = ts.chunk_transits[chunk];
    const glp_u64 first = ts.chunk_firsts[chunk], count = ts.chunk_counts[chunk];
    const bool unique = b.unique_steps[ts.step] != 0;
    const glp_u64 lanes = glp_transit_lanes(graph, b, ts.step, t);
    const glp_u64 per = unique ? 1ull : lanes;  // items per entry
    const glp_u64 items = count * per;
    const glp_u64 d = glp_sample_degree(graph, t);
    glp_sample_view view = graph;
    if (d > 0ull && d <= GLP_TRANSIT_SHARED_ROW && d <= 8ull * items) {
        const glp_u32* source = glp_sample_row(graph, t);
        for (glp_u64 e = threadIdx.x; e < d; e += blockDim.x) row[e] = source[e];
        view.cached_row = row;
        view.cached_vertex = t;
        view.cached_degree = (glp_u32)d;
    }
    __syncthreads();
    for (glp_u64 f = threadIdx.x; f < items; f += blockDim.x) {
        const glp_u64 p = first + f / per;
        if (unique) {
            glp_transit_draw(params, view, b, ts, seed, t, p, 0ull, lanes, true);
        } else {
            const glp_u64 j = f % per;
            glp_transit_draw(params, view, b, ts, seed, t, p, j, j + 1ull, false);
        }
    }
}

// Step 6: each running sample's dense slots, in lane order, appended to its record (NONE
// left out, compacted with ballots), then its next level.
extern "C" __global__ void glp_transit_gather(const glp_sample_batch b, const glp_transit_step ts) {
    GLP_TRANSIT_RUNNING_SAMPLE
    const glp_u32 step = ts.step;
    const glp_u64 added_start = s.len;
    if (t_begin < t_end) {
        const glp_u64 lanes = ts.step_lanes[k];
        const glp_u32* dense = ts.dense_vertices + k * b.cap_out;
        const glp_u32* dense_positions = ts.dense_positions + k * b.cap_out;
        const unsigned below = (1u << lane_id) - 1u;
        for (glp_u64 chunk = 0ull; chunk < lanes; chunk += 32ull) {
            const glp_u64 i = chunk + lane_id;
            const glp_u32 v = i < lanes ? dense[i] : GLP_SAMPLE_NONE;
            const unsigned keep = __ballot_sync(0xFFFFFFFFu, v != GLP_SAMPLE_NONE);
            const glp_u64 kept = (glp_u64)__popc(keep);
            if (s.len + kept > b.cap_out) {
                s.status = (glp_u32)GLP_SAMPLE_OVERFLOW_OUT;
                break;
            }
            if (v != GLP_SAMPLE_NONE) {
                const glp_u32 pos = dense_positions[i];
                glp_engine_add(s, s.len + (glp_u64)__popc(keep & below), v, s.history[t_begin + pos], pos);
            }
            s.len += kept;
        }
    }
    glp_engine_finish_step_warp<false>(b, s, step, t_begin, t_end, added_start, lane_id);
    if (lane_id == 0u) glp_engine_store(b, k, s, step, step + 1u);
}
