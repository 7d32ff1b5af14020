// glp: label propagation kernels of the GPU engine, with a variant's hooks fused in.
//
// One module holds every kernel a run may launch; the engine picks them by strategy and
// degree class (see glp-runtime's `lp::gpu` docs):
//
// - glp_lp_initial / glp_lp_pick: one thread per vertex (initial_label, pick_label);
// - glp_lp_low_<T> (T = 1, 2, 4, 8, 16, 32): a tile of T lanes per vertex of degree <= T,
//   several vertices per warp; lanes holding the same label are found with
//   __match_any_sync, their weights summed in edge order with shuffles (popcount for unit
//   weights), the tile's best label found with xor shuffles;
// - glp_lp_mid: a warp per vertex of degree <= GLP_MID_MAX_DEGREE, a per-warp shared-memory
//   hash table that cannot overflow (GLP_MID_TABLE >= 2 * GLP_MID_MAX_DEGREE);
// - glp_lp_high: a block per vertex, a shared-memory hash table of GLP_HIGH_TABLE entries;
//   vertices whose distinct labels may not fit it own a region of a global hash table that
//   takes the labels the shared table refuses (exact: every label lives in one table);
// - glp_lp_global: the G-Hash baseline, a warp per vertex counting in its global table region.
//
// The MFL rule everywhere: highest score, equal scores to the smaller label; a vertex no
// neighbour gives a label keeps its label. Labels are summed in f64; sums of integer weights
// are exact in any order, so every kernel equals the CPU engine on unit or integer weights.
/*{{PRELUDE}}*/
/*{{CONFIG}}*/
/*{{VIEW}}*/
/*{{PROGRAM}}*/

#define GLP_FULL_MASK 0xFFFFFFFFu
#define GLP_EMPTY_KEY 0xFFFFFFFFu

// A candidate of the MFL search. `found` is false for "no candidate", which every real
// candidate beats.
struct glp_lp_candidate {
    double score;
    glp_u32 label;
    bool found;
};

__device__ __forceinline__ glp_lp_candidate glp_lp_nothing() {
    glp_lp_candidate c;
    c.score = 0.0;
    c.label = GLP_UNLABELLED;
    c.found = false;
    return c;
}

// Whether `a` beats `b`: found beats not found, then higher score, then smaller label.
__device__ __forceinline__ bool glp_lp_beats(const glp_lp_candidate& a, const glp_lp_candidate& b) {
    if (!a.found) return false;
    if (!b.found) return true;
    return a.score > b.score || (a.score == b.score && a.label < b.label);
}

// The best candidate of the lanes `lane ^ offset` for offset < width (width a power of two
// <= 32): every lane of each aligned group of `width` lanes ends with the group's best.
__device__ __forceinline__ glp_lp_candidate glp_lp_reduce(glp_lp_candidate c, int width) {
    for (int offset = width / 2; offset > 0; offset /= 2) {
        glp_lp_candidate other;
        other.score = __shfl_xor_sync(GLP_FULL_MASK, c.score, offset);
        other.label = __shfl_xor_sync(GLP_FULL_MASK, c.label, offset);
        other.found = __shfl_xor_sync(GLP_FULL_MASK, (int)c.found, offset) != 0;
        if (glp_lp_beats(other, c)) c = other;
    }
    return c;
}

// The candidate `label` with summed weight `freq`, scored by the variant.
__device__ __forceinline__ glp_lp_candidate glp_lp_score(const glp_lp_params& params, const glp_lp_view& view,
                                                         glp_u32 v, glp_u32 label, double freq) {
    glp_lp_candidate c;
    c.score = glp_lp_label_score(params, view, v, label, freq);
    c.label = label;
    c.found = true;
    return c;
}

// Ends vertex v's iteration: update_vertex on the best candidate (or keep the label when
// there is none), write the output label; returns whether it changed.
__device__ __forceinline__ bool glp_lp_finish(const glp_lp_params& params, const glp_lp_view& view, glp_u32 v,
                                              const glp_lp_candidate& best, glp_u32* out) {
    const glp_u32 current = view.next_labels[v];
    const glp_u32 label = best.found ? glp_lp_update_vertex(params, view, v, best.label, best.score) : current;
    out[v] = label;
    return label != current;
}

// Adds the warp's changed flags to the run's counter (one atomic per warp).
__device__ __forceinline__ void glp_lp_count_changes(bool changed_here, unsigned long long* changed) {
    const glp_u32 votes = __ballot_sync(GLP_FULL_MASK, changed_here);
    if ((threadIdx.x & 31) == 0 && votes != 0) atomicAdd(changed, (unsigned long long)__popc(votes));
}

// Sum of `weight` over the lanes of `group` (a __match_any_sync mask), in lane order (edge
// order): every lane of the warp must call it with the same `first` and `width`.
__device__ __forceinline__ double glp_lp_group_sum(glp_u32 group, double weight, int first, int width) {
#ifdef GLP_UNIT_WEIGHTS
    (void)weight; (void)first; (void)width;
    return (double)__popc(group);
#else
    double sum = 0.0;
    for (int k = 0; k < width; ++k) {
        const double w = __shfl_sync(GLP_FULL_MASK, weight, first + k);
        if ((group >> (first + k)) & 1u) sum += w;
    }
    return sum;
#endif
}

// Sets n words to value (initialises tables to empty and labels to unlabelled).
extern "C" __global__ void glp_fill_u32(glp_u32* words, glp_u64 n, glp_u32 value) {
    for (glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (glp_u64)gridDim.x * blockDim.x) {
        words[i] = value;
    }
}

/*{{PHASES}}*/

// ---- low degree: TILE lanes per vertex -----------------------------------------------------

template <int TILE>
__device__ __forceinline__ void glp_lp_low(const glp_lp_params& params, const glp_lp_view& view,
                                           const glp_u32* vertices, glp_u32 count, glp_u32* out,
                                           unsigned long long* changed) {
    const glp_u64 thread = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = (int)(threadIdx.x & 31);
    const int tile_lane = lane & (TILE - 1);
    const int tile_first = lane - tile_lane;
    const glp_u64 slot = thread / TILE;
    const bool active = slot < count;
    // The whole warp stays to the end: every shuffle below takes all 32 lanes.
    const glp_u32 v = active ? vertices[slot] : 0u;
    const glp_u64 begin = active ? view.offsets[v] : 0ull;
    const glp_u64 degree = active ? view.offsets[v + 1] - begin : 0ull;
    glp_u32 label = GLP_UNLABELLED;
    double weight = 0.0;
    if ((glp_u64)tile_lane < degree) {
        const glp_u64 e = begin + (glp_u64)tile_lane;
        const glp_tuple_u32_f64 c = glp_lp_load_neighbor(params, view, v, view.targets[e], e);
        label = c._0;
        weight = c._1;
    }
    // Lanes of the same tile with the same label (the tile number keeps tiles apart).
    const unsigned long long key = ((unsigned long long)(lane / TILE) << 32) | label;
    const glp_u32 group = __match_any_sync(GLP_FULL_MASK, key);
    const double freq = glp_lp_group_sum(group, weight, tile_first, TILE);
    glp_lp_candidate mine = glp_lp_nothing();
    if (label != GLP_UNLABELLED && (int)(__ffs(group) - 1) == lane) mine = glp_lp_score(params, view, v, label, freq);
    const glp_lp_candidate best = glp_lp_reduce(mine, TILE);
    const bool changed_here = active && tile_lane == 0 && glp_lp_finish(params, view, v, best, out);
    glp_lp_count_changes(changed_here, changed);
}

#define GLP_LOW_KERNEL(T)                                                                                   \
    extern "C" __global__ void glp_lp_low_##T(const glp_lp_params params, const glp_lp_view view,           \
                                              const glp_u32* vertices, glp_u32 count, glp_u32* out,         \
                                              unsigned long long* changed) {                                \
        glp_lp_low<T>(params, view, vertices, count, out, changed);                                         \
    }
GLP_LOW_KERNEL(1)
GLP_LOW_KERNEL(2)
GLP_LOW_KERNEL(4)
GLP_LOW_KERNEL(8)
GLP_LOW_KERNEL(16)
GLP_LOW_KERNEL(32)

// ---- hash tables ---------------------------------------------------------------------------

__device__ __forceinline__ glp_u32 glp_lp_hash(glp_u32 label) { return label * 0x9E3779B1u; }

// Finds or inserts `label` in the open-addressing table (keys, sums) of `capacity` slots (a
// power of two), probing at most `probes` slots, and adds `weight` to its sum. Returns false
// when the label is absent from the probed slots and none was free (the caller then uses
// another table: a label is inserted in at most one, since slots never empty during an
// iteration).
__device__ __forceinline__ bool glp_lp_table_add(glp_u32* keys, double* sums, glp_u32 capacity, glp_u32 probes,
                                                 glp_u32 label, double weight) {
    glp_u32 slot = glp_lp_hash(label) & (capacity - 1);
    for (glp_u32 i = 0; i < probes; ++i) {
        glp_u32 key = keys[slot];
        if (key == GLP_EMPTY_KEY) key = atomicCAS(&keys[slot], GLP_EMPTY_KEY, label);
        if (key == GLP_EMPTY_KEY || key == label) {
            atomicAdd(&sums[slot], weight);
            return true;
        }
        slot = (slot + 1) & (capacity - 1);
    }
    return false;
}

// One round of a warp streaming v's adjacency: each lane loads the neighbour of edge `e`
// (none when e >= end), lanes with equal labels are grouped, and the group's weights summed.
// Returns the label this lane leads (the group's lowest lane) with its sum in `freq`, or
// GLP_UNLABELLED when it leads none. Every lane of the warp must call it.
__device__ __forceinline__ glp_u32 glp_lp_warp_round(const glp_lp_params& params, const glp_lp_view& view, glp_u32 v,
                                                     glp_u64 e, glp_u64 end, int lane, double* freq) {
    glp_u32 label = GLP_UNLABELLED;
    double weight = 0.0;
    if (e < end) {
        const glp_tuple_u32_f64 c = glp_lp_load_neighbor(params, view, v, view.targets[e], e);
        label = c._0;
        weight = c._1;
    }
    const glp_u32 group = __match_any_sync(GLP_FULL_MASK, label);
    *freq = glp_lp_group_sum(group, weight, 0, 32);
    return (int)(__ffs(group) - 1) == lane ? label : GLP_UNLABELLED;
}

// ---- middle degree: a warp per vertex, shared-memory table ---------------------------------

#define GLP_MID_WARPS 8

extern "C" __global__ void __launch_bounds__(GLP_MID_WARPS * 32)
glp_lp_mid(const glp_lp_params params, const glp_lp_view view, const glp_u32* vertices, glp_u32 count,
           glp_u32* out, unsigned long long* changed) {
    __shared__ glp_u32 table_keys[GLP_MID_WARPS][GLP_MID_TABLE];
    __shared__ double table_sums[GLP_MID_WARPS][GLP_MID_TABLE];
    const int warp = (int)(threadIdx.x >> 5);
    const int lane = (int)(threadIdx.x & 31);
    const glp_u64 slot = (glp_u64)blockIdx.x * GLP_MID_WARPS + (glp_u64)warp;
    if (slot >= count) return; // warp-uniform
    glp_u32* keys = table_keys[warp];
    double* sums = table_sums[warp];
    for (int i = lane; i < GLP_MID_TABLE; i += 32) {
        keys[i] = GLP_EMPTY_KEY;
        sums[i] = 0.0;
    }
    __syncwarp();
    const glp_u32 v = vertices[slot];
    const glp_u64 begin = view.offsets[v];
    const glp_u64 end = view.offsets[v + 1];
    for (glp_u64 base = begin; base < end; base += 32) {
        double freq;
        const glp_u32 label = glp_lp_warp_round(params, view, v, base + (glp_u64)lane, end, lane, &freq);
        if (label != GLP_UNLABELLED) {
            glp_lp_table_add(keys, sums, GLP_MID_TABLE, GLP_MID_TABLE, label, freq);
        }
    }
    __syncwarp();
    glp_lp_candidate mine = glp_lp_nothing();
    for (int i = lane; i < GLP_MID_TABLE; i += 32) {
        if (keys[i] == GLP_EMPTY_KEY) continue;
        const glp_lp_candidate c = glp_lp_score(params, view, v, keys[i], sums[i]);
        if (glp_lp_beats(c, mine)) mine = c;
    }
    const glp_lp_candidate best = glp_lp_reduce(mine, 32);
    const bool changed_here = lane == 0 && glp_lp_finish(params, view, v, best, out);
    glp_lp_count_changes(changed_here, changed);
}

// ---- block-wide helpers --------------------------------------------------------------------

// The best candidate of the block (every thread must call; blockDim.x a multiple of 32, at
// most 1024). Thread 0's result is the block's.
__device__ __forceinline__ glp_lp_candidate glp_lp_block_reduce(glp_lp_candidate c) {
    __shared__ double scores[32];
    __shared__ glp_u32 labels[32];
    __shared__ int found[32];
    const int warp = (int)(threadIdx.x >> 5);
    const int lane = (int)(threadIdx.x & 31);
    c = glp_lp_reduce(c, 32);
    if (lane == 0) {
        scores[warp] = c.score;
        labels[warp] = c.label;
        found[warp] = (int)c.found;
    }
    __syncthreads();
    if (warp == 0) {
        const int warps = (int)(blockDim.x >> 5);
        c = glp_lp_nothing();
        if (lane < warps) {
            c.score = scores[lane];
            c.label = labels[lane];
            c.found = found[lane] != 0;
        }
        c = glp_lp_reduce(c, 32);
    }
    __syncthreads();
    return c;
}

// ---- high degree: a block per vertex, shared table, global overflow --------------------------

extern "C" __global__ void __launch_bounds__(GLP_HIGH_THREADS)
glp_lp_high(const glp_lp_params params, const glp_lp_view view, const glp_u32* vertices, glp_u32 count,
            const glp_u64* overflow_offsets, glp_u32* overflow_keys, double* overflow_sums, glp_u32* out,
            unsigned long long* changed) {
    __shared__ glp_u32 keys[GLP_HIGH_TABLE];
    __shared__ double sums[GLP_HIGH_TABLE];
    __shared__ int overflowed;
    const glp_u64 slot = blockIdx.x;
    if (slot >= count) return; // block-uniform
    for (int i = threadIdx.x; i < GLP_HIGH_TABLE; i += blockDim.x) {
        keys[i] = GLP_EMPTY_KEY;
        sums[i] = 0.0;
    }
    if (threadIdx.x == 0) overflowed = 0;
    __syncthreads();
    const glp_u32 v = vertices[slot];
    const glp_u64 begin = view.offsets[v];
    const glp_u64 end = view.offsets[v + 1];
    // Vertices whose distinct labels may outnumber half the shared table own a global region
    // of twice their degree (rounded up to a power of two); the others probe the whole shared
    // table, which always has room for them.
    const glp_u64 region = overflow_offsets[slot];
    const glp_u32 region_capacity = (glp_u32)(overflow_offsets[slot + 1] - region);
    const glp_u32 probes = region_capacity == 0 ? GLP_HIGH_TABLE : GLP_HIGH_PROBES;
    const int lane = (int)(threadIdx.x & 31);
    for (glp_u64 base = begin; base < end; base += blockDim.x) {
        double freq;
        const glp_u32 label = glp_lp_warp_round(params, view, v, base + threadIdx.x, end, lane, &freq);
        if (label != GLP_UNLABELLED) {
            if (!glp_lp_table_add(keys, sums, GLP_HIGH_TABLE, probes, label, freq)) {
                glp_lp_table_add(overflow_keys + region, overflow_sums + region, region_capacity, region_capacity,
                                 label, freq);
                overflowed = 1;
            }
        }
    }
    __syncthreads();
    glp_lp_candidate mine = glp_lp_nothing();
    for (int i = threadIdx.x; i < GLP_HIGH_TABLE; i += blockDim.x) {
        if (keys[i] == GLP_EMPTY_KEY) continue;
        const glp_lp_candidate c = glp_lp_score(params, view, v, keys[i], sums[i]);
        if (glp_lp_beats(c, mine)) mine = c;
    }
    if (overflowed) {
        // Read the global region back and empty it for the next iteration.
        for (glp_u32 i = threadIdx.x; i < region_capacity; i += blockDim.x) {
            const glp_u32 key = overflow_keys[region + i];
            if (key == GLP_EMPTY_KEY) continue;
            const glp_lp_candidate c = glp_lp_score(params, view, v, key, overflow_sums[region + i]);
            if (glp_lp_beats(c, mine)) mine = c;
            overflow_keys[region + i] = GLP_EMPTY_KEY;
            overflow_sums[region + i] = 0.0;
        }
    }
    const glp_lp_candidate best = glp_lp_block_reduce(mine);
    if (threadIdx.x == 0 && glp_lp_finish(params, view, v, best, out)) atomicAdd(changed, 1ull);
}

// ---- G-Hash baseline: a warp per vertex, global table region -------------------------------

extern "C" __global__ void __launch_bounds__(256)
glp_lp_global(const glp_lp_params params, const glp_lp_view view, const glp_u32* vertices, glp_u32 count,
              const glp_u64* table_offsets, glp_u32* table_keys, double* table_sums, glp_u32* out,
              unsigned long long* changed) {
    const glp_u64 slot = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = (int)(threadIdx.x & 31);
    if (slot >= count) return; // warp-uniform
    const glp_u32 v = vertices[slot];
    const glp_u64 begin = view.offsets[v];
    const glp_u64 end = view.offsets[v + 1];
    glp_u32* keys = table_keys + table_offsets[slot];
    double* sums = table_sums + table_offsets[slot];
    const glp_u32 capacity = (glp_u32)(table_offsets[slot + 1] - table_offsets[slot]);
    for (glp_u64 e = begin + (glp_u64)lane; e < end; e += 32) {
        const glp_tuple_u32_f64 c = glp_lp_load_neighbor(params, view, v, view.targets[e], e);
        if (c._0 != GLP_UNLABELLED) glp_lp_table_add(keys, sums, capacity, capacity, c._0, c._1);
    }
    __syncwarp();
    glp_lp_candidate mine = glp_lp_nothing();
    for (glp_u32 i = (glp_u32)lane; i < capacity; i += 32) {
        const glp_u32 key = keys[i];
        if (key == GLP_EMPTY_KEY) continue;
        const glp_lp_candidate c = glp_lp_score(params, view, v, key, sums[i]);
        if (glp_lp_beats(c, mine)) mine = c;
        keys[i] = GLP_EMPTY_KEY;
        sums[i] = 0.0;
    }
    const glp_lp_candidate best = glp_lp_reduce(mine, 32);
    const bool changed_here = lane == 0 && glp_lp_finish(params, view, v, best, out);
    glp_lp_count_changes(changed_here, changed);
}
/*{{SORT}}*/
