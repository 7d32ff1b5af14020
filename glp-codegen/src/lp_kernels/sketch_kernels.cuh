// ---- Memory-efficient MFL: Misra-Gries and Boyer-Moore sketches, nu-LPA's hash tables --------
//
// nu-LPA's sketch paper (nuMG8-LPA, nuBM-LPA) replaces the per-vertex tables of the most
// frequent label (MFL) search with a sketch of k (label, weight) slots held in registers, so
// the extra memory is O(|V|) (the degree-class vertex lists) instead of O(|E|). A sketch only
// estimates the weighted count of a label, so these kernels serve variants whose label_score
// is exactly `freq` (the engine checks; glp-codegen's `score_is_frequency`).
//
// Determinism. The GPU equals the CPU twins (glp-runtime's `lp::sketch`) bit for bit under the
// synchronous schedule because the order in which (label, weight) pairs enter a sketch is
// fixed:
// - a tile of K lanes owns one sketch, lane s holding slot s; the tile takes its edges one at
//   a time in increasing edge order (lane j loads edge base + j of each chunk of K edges, then
//   the chunk's pairs are broadcast one by one). Every ballot and shuffle uses the tile's
//   mask (never the whole warp's unless K == 32), so tiles of one warp run independently.
// - low degree (< GLP_SKETCH_HIGH_DEGREE in the planner): one tile per vertex, all its edges.
// - high degree: a block of GLP_SKETCH_HIGH_THREADS threads, T = threads / K tiles. The block
//   walks the adjacency in rounds of `threads` edges; in each round tile t takes the K edges
//   [begin + round + t*K, begin + round + (t+1)*K), so tile t's edges are those whose index i
//   in the adjacency has (i / K) % T == t, in increasing order. Then tile 0 alone merges
//   tiles 1, 2, ..., T-1 in that order, each tile's slots in slot order 0..K-1, skipping
//   slots of weight <= 0, by accumulating them like edges. The paper merges the partial
//   sketches concurrently in "shared" mode with atomics and retry loops, whose result depends
//   on timing; the serial merge is a deliberate deviation for reproducibility (it costs
//   (T-1)*K accumulations per high-degree vertex).
// - sums are f64 (exact for integer weights in any case) and every decision is a comparison
//   of the same f64 values on both sides.
//
// Weighted Misra-Gries (Algorithm 2, the non-shared path). A slot is occupied when its weight
// is > 0, empty otherwise (weight 0, or below after a subtraction: the pitfall "empty means
// weight == 0" with stale labels kept, extended to negative residuals, which the paper's rule
// would keep as occupied slots that can never win yet block a free slot; dropping them is the
// classic Misra-Gries rule). Accumulating (c, w):
//   1. if an occupied slot holds c, it adds w;
//   2. else, if a slot is empty, the lowest-index empty slot becomes (c, w);
//   3. else every slot subtracts w (slots falling to <= 0 become empty).
// The pick (sketchMaxKey): the occupied slot of highest weight, equal weights to the lowest
// slot index (the first maximum of a scan in slot order); none when no slot is occupied (the
// vertex keeps its label, as when no neighbour gives a label). Slots fill in the order labels
// arrive, so ties go to the label that took its slot first, close to GVE-LPA's first-seen
// rule; the engine's smaller-label rule cascades the smallest labels through an in-order
// asynchronous sweep (measured on the CPU twin, LFR 50k: modularity 0.04 for mg8 with it).
// No rescan (the paper's single scan): the slot's weight is the score passed to update_vertex.
//
// Weighted Boyer-Moore (Algorithm 3, k = 1): one (candidate, weight), initially (none, 0).
// Accumulating (c, w): if c is the candidate, the weight adds w; else if the weight is > w it
// subtracts w; else (the paper's tie rule: a tie replaces the candidate) the candidate becomes
// (c, w). The paper starts from (own label, 0), which gives the same candidate for positive
// weights. Low degree: a thread per vertex (a tile of one lane); high degree: every thread of
// the block keeps a candidate over its edges (the tiling above with K = 1), and thread 0
// merges threads 1..255 in order by the same rule, skipping candidates of weight <= 0 (the
// paper reduces with a max instead). The pick: the candidate if its weight is > 0.
//
// Weights are expected to be positive (unit or edge weights); zero or negative weights go
// through the same rules, identically on CPU and GPU, with no heavy-hitter meaning.
//
// nu-LPA's hash tables (`hash`, exact, the memory baseline): vertex v's table lives at
// 2 * offsets[v] in one global key array and one value array (2 slots per edge), with
// capacity H = nextPow2(degree) - 1 (the power of two strictly greater than the degree, so
// H >= degree); a key is label + 1, 0 meaning empty, so the arrays start as zeros and are
// zeroed again as they are read. Probing is hybrid quadratic-double: position p0 = key mod H,
// p(t+1) = p(t) + d(t) mod H with d(0) = 1 and d(t+1) = 2 d(t) + (key mod
// GLP_NU_HASH_SECONDARY) mod H (a growing step that differs per key); after GLP_NU_HASH_PROBES
// probes a linear scan from the last position covers every slot, so a label always finds its
// slot or a free one (H >= distinct labels). A warp per vertex adds with atomics (sums of
// integer weights are exact in any order) and then scans the table for the best label by the
// engine's rule (highest score, equal scores to the smaller tie key), so it equals the CPU
// engine like the other exact strategies. Values are f64 (12 bytes per slot, 24 per edge; the
// paper's f32 values take 16 per edge).

// One slot of a sketch, held by one lane of its tile.
struct glp_sk_slot {
    glp_u32 label;
    double weight;
};

__device__ __forceinline__ glp_sk_slot glp_sk_empty() {
    glp_sk_slot s;
    s.label = GLP_UNLABELLED;
    s.weight = 0.0;
    return s;
}

// The mask of the K-lane tile starting at warp lane `tile_first`.
template <int K>
__device__ __forceinline__ glp_u32 glp_sk_mask(int tile_first) {
    return K == 32 ? GLP_FULL_MASK : (((1u << K) - 1u) << tile_first);
}

// A tile's view of itself: its mask, first warp lane and this lane's slot.
struct glp_sk_tile {
    glp_u32 mask;
    int first;
    int lane;
};

// Misra-Gries accumulate of (c, w): every lane of the tile calls it with the same pair.
template <int K>
__device__ __forceinline__ void glp_sk_mg_add(glp_sk_slot& slot, const glp_sk_tile& tile, glp_u32 c, double w) {
    const bool occupied = slot.weight > 0.0;
    const bool holds = occupied && slot.label == c;
    if ((__ballot_sync(tile.mask, holds) & tile.mask) != 0u) { // tile-uniform
        if (holds) slot.weight += w;
        return;
    }
    const glp_u32 empty = (__ballot_sync(tile.mask, !occupied) & tile.mask) >> tile.first;
    if (empty != 0u) { // tile-uniform
        if (tile.lane == __ffs(empty) - 1) {
            slot.label = c;
            slot.weight = w;
        }
        return;
    }
    slot.weight -= w;
}

// Boyer-Moore accumulate of (c, w) (a tile of one lane).
__device__ __forceinline__ void glp_sk_bm_add(glp_sk_slot& slot, glp_u32 c, double w) {
    if (slot.label == c) {
        slot.weight += w;
    } else if (slot.weight > w) {
        slot.weight -= w;
    } else {
        slot.label = c;
        slot.weight = w;
    }
}

template <int K, bool BM>
__device__ __forceinline__ void glp_sk_add(glp_sk_slot& slot, const glp_sk_tile& tile, glp_u32 c, double w) {
    if (BM) {
        glp_sk_bm_add(slot, c, w);
    } else {
        glp_sk_mg_add<K>(slot, tile, c, w);
    }
}

// Feeds the tile's sketch with the edges [base, min(base + K, end)) of v, in order (none when
// base >= end). Every lane of the tile calls it with the same base and end.
template <int K, bool BM>
__device__ __forceinline__ void glp_sk_feed(const glp_lp_params& params, const glp_lp_view& view, glp_u32 v,
                                            glp_u64 base, glp_u64 end, const glp_sk_tile& tile, glp_sk_slot& slot) {
    if (base >= end) return; // tile-uniform
    glp_u32 label = GLP_UNLABELLED;
    double weight = 0.0;
    const glp_u64 e = base + (glp_u64)tile.lane;
    if (e < end) {
        const glp_tuple_u32_f64 c = glp_lp_neighbor(params, view, v, e);
        label = c._0;
        weight = c._1;
    }
    const int n = end - base < (glp_u64)K ? (int)(end - base) : K;
    for (int j = 0; j < n; ++j) {
        const glp_u32 c = __shfl_sync(tile.mask, label, tile.first + j);
        const double w = __shfl_sync(tile.mask, weight, tile.first + j);
        if (c != GLP_UNLABELLED) glp_sk_add<K, BM>(slot, tile, c, w); // tile-uniform
    }
}

// The tile's pick: the occupied slot of highest weight, equal weights to the lowest slot
// index, its weight as the score; every lane of the tile ends with it.
template <int K>
__device__ __forceinline__ glp_lp_candidate glp_sk_best(const glp_sk_slot& slot, const glp_sk_tile& tile) {
    glp_lp_candidate c = glp_lp_nothing();
    if (slot.weight > 0.0) {
        c.score = slot.weight;
        c.label = slot.label;
        c.tie = slot.label; // unused: the slot index breaks ties
        c.found = true;
    }
    int index = tile.lane;
    for (int offset = K / 2; offset > 0; offset /= 2) {
        const glp_lp_candidate other = glp_lp_shfl(tile.mask, c, (tile.first + tile.lane) ^ offset);
        const int other_index = __shfl_xor_sync(tile.mask, index, offset);
        if (other.found && (!c.found || other.score > c.score || (other.score == c.score && other_index < index))) {
            c = other;
            index = other_index;
        }
    }
    return c;
}

// The score update_vertex receives: label_score of the picked slot's weight (the weight
// itself for the variants sketches serve).
__device__ __forceinline__ glp_lp_candidate glp_sk_scored(const glp_lp_params& params, const glp_lp_view& view,
                                                          glp_u32 v, glp_lp_candidate best) {
    if (best.found) best.score = glp_lp_label_score(params, view, glp_lp_graph_id(view, v), best.label, best.score);
    return best;
}

// Low degree: a tile of K lanes per vertex, 32 / K tiles per warp.
template <int K, bool BM>
__device__ __forceinline__ void glp_sk_low(const glp_lp_params& params, const glp_lp_view& view,
                                           const glp_u32* vertices, glp_u32 count, const glp_lp_sweep& sweep) {
    const glp_u64 thread = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = (int)(threadIdx.x & 31);
    glp_sk_tile tile;
    tile.lane = lane & (K - 1);
    tile.first = lane - tile.lane;
    tile.mask = glp_sk_mask<K>(tile.first);
    const glp_u64 index = thread / K;
    // The whole warp stays to the end: glp_lp_count takes all 32 lanes.
    const bool in_range = index < count;
    const glp_u32 v = in_range ? vertices[index] : 0u;
    const glp_lp_group group = {tile.mask, tile.first, tile.lane, K};
    const bool active = glp_lp_group_claim(sweep, group, in_range, v);
    const glp_u64 begin = active ? view.offsets[v] : 0ull;
    const glp_u64 end = active ? view.offsets[v + 1] : 0ull;
    glp_sk_slot slot = glp_sk_empty();
    for (glp_u64 base = begin; base < end; base += K) glp_sk_feed<K, BM>(params, view, v, base, end, tile, slot);
    const glp_lp_candidate best = glp_sk_scored(params, view, v, glp_sk_best<K>(slot, tile));
    glp_lp_group_finish(params, view, group, active, v, best, begin, end, sweep);
}

// High degree: a block per vertex, GLP_SKETCH_HIGH_THREADS / K partial sketches merged into
// tile 0's in tile order.
template <int K, bool BM>
__device__ __forceinline__ void glp_sk_high(const glp_lp_params& params, const glp_lp_view& view,
                                            const glp_u32* vertices, glp_u32 count, const glp_lp_sweep& sweep) {
    __shared__ glp_u32 labels[GLP_SKETCH_HIGH_THREADS];
    __shared__ double weights[GLP_SKETCH_HIGH_THREADS];
    __shared__ int claimed;
    const glp_u64 index = blockIdx.x;
    if (index >= count) return; // block-uniform
    const glp_u32 v = vertices[index];
    if (threadIdx.x == 0) claimed = (int)glp_lp_claim(sweep, v);
    __syncthreads();
    if (!claimed) return; // block-uniform
    const int lane = (int)(threadIdx.x & 31);
    const int tile_index = (int)threadIdx.x / K;
    const int tiles = GLP_SKETCH_HIGH_THREADS / K;
    glp_sk_tile tile;
    tile.lane = lane & (K - 1);
    tile.first = lane - tile.lane;
    tile.mask = glp_sk_mask<K>(tile.first);
    const glp_u64 begin = view.offsets[v];
    const glp_u64 end = view.offsets[v + 1];
    glp_sk_slot slot = glp_sk_empty();
    for (glp_u64 round = begin; round < end; round += GLP_SKETCH_HIGH_THREADS) {
        glp_sk_feed<K, BM>(params, view, v, round + (glp_u64)tile_index * K, end, tile, slot);
    }
    labels[threadIdx.x] = slot.label;
    weights[threadIdx.x] = slot.weight;
    __syncthreads();
    glp_lp_candidate best = glp_lp_nothing();
    if (tile_index == 0) { // lanes 0..K-1 of warp 0
        for (int g = 1; g < tiles; ++g) {
            for (int j = 0; j < K; ++j) {
                const double w = weights[g * K + j];
                if (w > 0.0) glp_sk_add<K, BM>(slot, tile, labels[g * K + j], w); // tile-uniform
            }
        }
        best = glp_sk_scored(params, view, v, glp_sk_best<K>(slot, tile));
    }
    glp_lp_block_finish(params, view, v, best, begin, end, sweep);
}

#define GLP_SKETCH_KERNELS(SUFFIX, K, BM)                                                                   \
    extern "C" __global__ void __launch_bounds__(GLP_SKETCH_LOW_THREADS)                                    \
        glp_lp_sketch_low_##SUFFIX(const glp_lp_params params, const glp_lp_view view,                      \
                                   const glp_u32* vertices, glp_u32 count, const glp_lp_sweep sweep) {      \
        glp_sk_low<K, BM>(params, view, vertices, count, sweep);                                            \
    }                                                                                                       \
    extern "C" __global__ void __launch_bounds__(GLP_SKETCH_HIGH_THREADS)                                   \
        glp_lp_sketch_high_##SUFFIX(const glp_lp_params params, const glp_lp_view view,                     \
                                    const glp_u32* vertices, glp_u32 count, const glp_lp_sweep sweep) {     \
        glp_sk_high<K, BM>(params, view, vertices, count, sweep);                                           \
    }
GLP_SKETCH_KERNELS(mg2, 2, false)
GLP_SKETCH_KERNELS(mg4, 4, false)
GLP_SKETCH_KERNELS(mg8, 8, false)
GLP_SKETCH_KERNELS(mg16, 16, false)
GLP_SKETCH_KERNELS(mg32, 32, false)
GLP_SKETCH_KERNELS(bm, 1, true)

// ---- nu-LPA's per-vertex hash tables ----------------------------------------------------------

// Adds `weight` to `label`'s slot of the table (keys, sums) of `capacity` slots (>= 1), with
// hybrid quadratic-double probing, then a linear scan; keys are label + 1 (0: empty).
__device__ __forceinline__ void glp_nh_add(glp_u32* keys, double* sums, glp_u64 capacity, glp_u32 label,
                                           double weight) {
    const glp_u32 key = label + 1u;
    glp_u64 p = key % capacity;
    glp_u64 step = 1 % capacity;
    const glp_u64 extra = key % GLP_NU_HASH_SECONDARY;
    for (glp_u64 t = 0; t < GLP_NU_HASH_PROBES + capacity; ++t) {
        glp_u32 found = keys[p];
        if (found == 0u) found = atomicCAS(&keys[p], 0u, key);
        if (found == 0u || found == key) {
            atomicAdd(&sums[p], weight);
            return;
        }
        if (t + 1 < GLP_NU_HASH_PROBES) {
            p = (p + step) % capacity;
            step = (2 * step + extra) % capacity;
        } else {
            p = (p + 1) % capacity; // linear: the last `capacity` probes visit every slot
        }
    }
}

extern "C" __global__ void __launch_bounds__(GLP_NU_HASH_THREADS)
glp_lp_nu_hash(const glp_lp_params params, const glp_lp_view view, glp_u32* table_keys, double* table_sums,
               const glp_lp_sweep sweep) {
    const glp_u64 warp = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = (int)(threadIdx.x & 31);
    if (warp >= view.num_vertices) return; // warp-uniform
    const glp_u32 v = (glp_u32)warp;
    const glp_lp_group group = {GLP_FULL_MASK, 0, lane, 32};
    if (!glp_lp_group_claim(sweep, group, true, v)) return; // warp-uniform
    const glp_u64 begin = view.offsets[v];
    const glp_u64 end = view.offsets[v + 1];
    const glp_u64 degree = end - begin;
    // nextPow2(degree) - 1, the power of two strictly greater than the degree.
    const glp_u64 capacity = degree == 0 ? 0ull : (1ull << (64 - __clzll(degree))) - 1ull;
    glp_u32* keys = table_keys + 2 * begin;
    double* sums = table_sums + 2 * begin;
    for (glp_u64 e = begin + (glp_u64)lane; e < end; e += 32) {
        const glp_tuple_u32_f64 c = glp_lp_neighbor(params, view, v, e);
        if (c._0 != GLP_UNLABELLED) glp_nh_add(keys, sums, capacity, c._0, c._1);
    }
    __syncwarp();
    // Keys are label + 1; the slots are emptied as they are read.
    const glp_lp_candidate mine =
        glp_lp_table_best<1u>(params, view, v, keys, sums, capacity, (glp_u64)lane, 32, true, glp_lp_nothing());
    glp_lp_group_finish(params, view, group, true, v, glp_lp_reduce(mine, 32), begin, end, sweep);
}
