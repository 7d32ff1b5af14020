// glp: the giant class of the MFL module, spliced in by its GIANTS slot (after the high class,
// whose helpers it uses): vertices of degree above glp-codegen's GIANT_DEGREE, counted exactly by many
// blocks each instead of one.
//
// A block per vertex streams a hub's row alone: on graph500-26 (a hub of about a million
// neighbours) that one block, latency-bound on its gathers, outlasts the rest of its kernel,
// and a hub whose labels overflow the shared table was then counted a second time by one block
// of the exact path. Here a batch of giants owns a global pool: giant i's table is the region
// [region_offsets[i], region_offsets[i + 1]) of nextPow2(2 * degree) slots (load factor at
// most 1/2, so an insertion always finds a slot; emptied as it is read). Per sweep and batch:
//
// 1. glp_lp_giant_claim: one thread per giant decides whether it takes part (always when
//    synchronous; asynchronous: its wave and affected flag, cleared, as glp_lp_claim);
// 2. glp_lp_giant_count: blocks take chunks of GLP_GIANT_CHUNK edges (chunk_offsets numbers
//    them giant after giant), count each chunk in a shared table (labels it refuses after
//    GLP_HIGH_PROBES probes go straight to the region) and add the table's sums to the region
//    at the chunk's end: one global atomic per distinct label of a chunk, not per edge;
// 3. glp_lp_giant_best: blocks take slices of GLP_GIANT_SLICE region slots, find the best
//    label of their slice (emptying it) and store it in `partials`; the last block of a giant
//    to finish (a counter per giant, after a fence) picks the best of its slices and finishes
//    the vertex as every block kernel does (glp_lp_block_finish).
//
// Sums of integer weights are exact in any order, so the labels equal the CPU's as in the
// other table kernels; the best candidate is a total order, so the slices' order does not
// matter.
/*{{GIANTS_STRUCT}}*/

// The giant whose range of `offsets` (count + 1 increasing prefix offsets) holds `index`.
__device__ __forceinline__ glp_u32 glp_lp_giant_of(const glp_u64* offsets, glp_u32 count, glp_u64 index) {
    glp_u32 low = 0, high = count - 1;
    while (low < high) {
        const glp_u32 mid = (low + high + 1) / 2;
        if (offsets[mid] <= index) low = mid; else high = mid - 1;
    }
    return low;
}

// A candidate as three words of `partials` (written by one block, read by another: through L2).
__device__ __forceinline__ void glp_lp_store_candidate(unsigned long long* words, const glp_lp_candidate& c) {
    words[0] = (unsigned long long)__double_as_longlong(c.score);
    words[1] = (unsigned long long)c.label | ((unsigned long long)c.tie << 32);
    words[2] = c.found ? 1ull : 0ull;
}

__device__ __forceinline__ glp_lp_candidate glp_lp_load_candidate(const unsigned long long* words) {
    glp_lp_candidate c;
    c.score = __longlong_as_double((long long)__ldcg(&words[0]));
    const unsigned long long label = __ldcg(&words[1]);
    c.label = (glp_u32)label;
    c.tie = (glp_u32)(label >> 32);
    c.found = __ldcg(&words[2]) != 0ull;
    return c;
}

extern "C" __global__ void glp_lp_giant_claim(const glp_lp_giants giants, const glp_lp_sweep sweep) {
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < giants.count) giants.active[i] = glp_lp_claim(sweep, giants.vertices[i]) ? 1u : 0u;
}

extern "C" __global__ void __launch_bounds__(GLP_HIGH_THREADS)
glp_lp_giant_count(const glp_lp_params params, const glp_lp_view view, const glp_lp_giants giants) {
    __shared__ glp_u32 keys[GLP_HIGH_TABLE];
    __shared__ double sums[GLP_HIGH_TABLE];
    const int lane = (int)(threadIdx.x & 31);
    const glp_u64 chunks = giants.chunk_offsets[giants.count];
    for (glp_u64 chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const glp_u32 i = glp_lp_giant_of(giants.chunk_offsets, giants.count, chunk);
        if (!giants.active[i]) continue; // block-uniform
        const glp_u32 v = giants.vertices[i];
        const glp_u64 begin = view.offsets[v] + (chunk - giants.chunk_offsets[i]) * GLP_GIANT_CHUNK;
        const glp_u64 end = min(view.offsets[v + 1], begin + GLP_GIANT_CHUNK);
        glp_u32* region_keys = giants.keys + giants.region_offsets[i];
        double* region_sums = giants.sums + giants.region_offsets[i];
        const glp_u64 capacity = giants.region_offsets[i + 1] - giants.region_offsets[i];
        glp_lp_block_clear(keys, sums, GLP_HIGH_TABLE);
        __syncthreads();
        for (glp_u64 base = begin; base < end; base += blockDim.x) {
            double freq;
            const glp_u32 label = glp_lp_warp_round(params, view, v, base + threadIdx.x, end, lane, &freq);
            if (label != GLP_UNLABELLED && !glp_lp_table_add(keys, sums, GLP_HIGH_TABLE, GLP_HIGH_PROBES, label, freq)) {
                glp_lp_table_add(region_keys, region_sums, capacity, capacity, label, freq);
            }
        }
        __syncthreads();
        for (int slot = threadIdx.x; slot < GLP_HIGH_TABLE; slot += blockDim.x) {
            if (keys[slot] != GLP_EMPTY_KEY) {
                glp_lp_table_add(region_keys, region_sums, capacity, capacity, keys[slot], sums[slot]);
            }
        }
        __syncthreads(); // every flush has read the table before the next chunk clears it
    }
}

extern "C" __global__ void __launch_bounds__(GLP_HIGH_THREADS)
glp_lp_giant_best(const glp_lp_params params, const glp_lp_view view, const glp_lp_giants giants,
                  const glp_lp_sweep sweep) {
    __shared__ int last;
    const glp_u64 slices = giants.region_offsets[giants.count] / GLP_GIANT_SLICE;
    for (glp_u64 slice = blockIdx.x; slice < slices; slice += gridDim.x) {
        const glp_u64 first_slot = slice * GLP_GIANT_SLICE;
        const glp_u32 i = glp_lp_giant_of(giants.region_offsets, giants.count, first_slot);
        if (!giants.active[i]) continue; // block-uniform
        const glp_u32 v = giants.vertices[i];
        const glp_lp_candidate mine =
            glp_lp_table_best(params, view, v, giants.keys + first_slot, giants.sums + first_slot, GLP_GIANT_SLICE,
                              threadIdx.x, blockDim.x, true, glp_lp_nothing());
        const glp_lp_candidate best = glp_lp_block_reduce(mine);
        const glp_u64 first = giants.region_offsets[i] / GLP_GIANT_SLICE;
        const glp_u64 count = giants.region_offsets[i + 1] / GLP_GIANT_SLICE - first;
        if (threadIdx.x == 0) {
            glp_lp_store_candidate(giants.partials + 3 * slice, best);
            __threadfence(); // the candidate is visible before the counter says so
            last = atomicAdd(&giants.done[i], 1u) == count - 1 ? 1 : 0;
        }
        __syncthreads();
        if (last) { // block-uniform: every slice of giant i is in
            __threadfence();
            glp_lp_candidate c = glp_lp_nothing();
            for (glp_u64 k = threadIdx.x; k < count; k += blockDim.x) {
                const glp_lp_candidate other = glp_lp_load_candidate(giants.partials + 3 * (first + k));
                if (glp_lp_beats(other, c)) c = other;
            }
            const glp_lp_candidate overall = glp_lp_block_reduce(c);
            if (threadIdx.x == 0) giants.done[i] = 0u;
            glp_lp_block_finish(params, view, v, overall, view.offsets[v], view.offsets[v + 1], sweep);
        }
        __syncthreads(); // `last` is rewritten for the next slice
    }
}
