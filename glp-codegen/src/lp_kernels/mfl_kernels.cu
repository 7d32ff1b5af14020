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
// - glp_lp_high: a block per vertex of degree <= GLP_HIGH_TABLE / 2, a shared-memory hash
//   table of room for all its labels;
// - glp_lp_hub: a block per larger vertex, the shared table of GLP_HIGH_TABLE entries plus a
//   count-min sketch for the labels it refuses (GLP's Procedure SharedMemBigNodes); when the
//   sketch cannot prove the table's best label is the vertex's MFL, the vertex is deferred to
//   glp_lp_high_exact: a block re-counts it with the shared table and a global
//   region of a bounded pool (exact: every label lives in one of the two tables);
// - glp_lp_giant_*: vertices of degree above 65536 (giants::GIANT_DEGREE), counted by many blocks each into
//   a global region (the GIANTS slot; giant_kernels.cuh);
// - glp_lp_global: the G-Hash baseline, a warp per vertex counting in its global table region;
// - glp_lp_distinct_*: the first synchronous sweep from labels all distinct, a minimum
//   (distinct_kernels.cuh).
//
// The MFL rule everywhere: highest score, equal scores to the smaller tie key (the label, or
// with GLP_TIES_HASHED a hash of vertex and label: glp_lp_tie_key); a vertex no
// neighbour gives a label keeps its label.
//
// Vertex order: the kernels index vertex state by device position (`v` below); hooks, tie keys
// and labels are in the graph's ids (the view header says how the two orders meet), so a run
// on a graph held by degree gives the labels of a run in the graph's order. Labels are summed in f64; sums of integer weights
// are exact in any order, so every kernel equals the CPU engine on unit or integer weights.
//
// Schedules (glp_lp_sweep): synchronous sweeps write every vertex's label to a separate
// output array; asynchronous ones (nu-LPA) update labels in place, process only vertices
// whose affected flag is set (clearing it), mark the neighbours of a vertex that moved, and
// in Pick-Less sweeps let a vertex move only to a smaller label.
/*{{PRELUDE}}*/
/*{{CONFIG}}*/
/*{{VIEW}}*/
/*{{PROGRAM}}*/

#define GLP_FULL_MASK 0xFFFFFFFFu
#define GLP_EMPTY_KEY 0xFFFFFFFFu

/*{{SWEEP_STRUCT}}*/
// GLP_COUNTER_DEFERRED and GLP_COUNTER_SETTLED (indices into `counters`) come in the CONFIG block.

// A candidate of the MFL search. `found` is false for "no candidate", which every real
// candidate beats. `tie` orders equal scores, the smaller first: the label itself, or with
// GLP_TIES_HASHED a per-vertex bijection of it (glp_lp_tie_key).
struct glp_lp_candidate {
    double score;
    glp_u32 label;
    glp_u32 tie;
    bool found;
};

// The tie key of `label` at vertex v (the graph's id). GLP_TIES_HASHED: xor with a multiple of v, then the
// murmur3 finaliser's multiply-xorshift steps, exactly glp-runtime's `tie_hash`
// (TieBreak::Hashed); otherwise the label (TieBreak::SmallestLabel).
__device__ __forceinline__ glp_u32 glp_lp_tie_key(glp_u32 v, glp_u32 label) {
#ifdef GLP_TIES_HASHED
    const glp_u32 x = (label ^ (v * 0x9E3779B9u)) * 0x85EBCA6Bu;
    return (x ^ (x >> 13)) * 0xC2B2AE35u;
#else
    (void)v;
    return label;
#endif
}

__device__ __forceinline__ glp_lp_candidate glp_lp_nothing() {
    glp_lp_candidate c;
    c.score = 0.0;
    c.label = GLP_UNLABELLED;
    c.tie = GLP_UNLABELLED;
    c.found = false;
    return c;
}

// Whether `a` beats `b`: found beats not found, then higher score, then smaller tie key (a
// total order: the tie key is a bijection of the label).
__device__ __forceinline__ bool glp_lp_beats(const glp_lp_candidate& a, const glp_lp_candidate& b) {
    if (!a.found) return false;
    if (!b.found) return true;
    return a.score > b.score || (a.score == b.score && a.tie < b.tie);
}

// Lane `lane`'s candidate (`mask` holds both lanes).
__device__ __forceinline__ glp_lp_candidate glp_lp_shfl(glp_u32 mask, const glp_lp_candidate& c, int lane) {
    glp_lp_candidate other;
    other.score = __shfl_sync(mask, c.score, lane);
    other.label = __shfl_sync(mask, c.label, lane);
#ifdef GLP_TIES_HASHED
    other.tie = __shfl_sync(mask, c.tie, lane);
#else
    other.tie = other.label;
#endif
    other.found = __shfl_sync(mask, (int)c.found, lane) != 0;
    return other;
}

// The best candidate of the lanes `lane ^ offset` for offset < width (width a power of two
// <= 32): every lane of each aligned group of `width` lanes ends with the group's best.
__device__ __forceinline__ glp_lp_candidate glp_lp_reduce(glp_lp_candidate c, int width) {
    const int lane = (int)(threadIdx.x & 31);
    for (int offset = width / 2; offset > 0; offset /= 2) {
        const glp_lp_candidate other = glp_lp_shfl(GLP_FULL_MASK, c, lane ^ offset);
        if (glp_lp_beats(other, c)) c = other;
    }
    return c;
}

// The candidate `label` with summed weight `freq` at the vertex of device position v, scored
// by the variant.
__device__ __forceinline__ glp_lp_candidate glp_lp_score(const glp_lp_params& params, const glp_lp_view& view,
                                                         glp_u32 v, glp_u32 label, double freq) {
    const glp_u32 id = glp_lp_graph_id(view, v);
    glp_lp_candidate c;
    c.score = glp_lp_label_score(params, view, id, label, freq);
    c.label = label;
    c.tie = glp_lp_tie_key(id, label);
    c.found = true;
    return c;
}

// Ends vertex v's sweep: update_vertex on the best candidate (or keep the label when there
// is none; in a Pick-Less sweep also when the new label is larger), write the label (in place:
// only when it changed, and the histogram follows the move); returns whether it changed.
__device__ __forceinline__ bool glp_lp_finish(const glp_lp_params& params, const glp_lp_view& view, glp_u32 v,
                                              const glp_lp_candidate& best, const glp_lp_sweep& sweep) {
    const glp_u32 current = view.next_labels[v];
    glp_u32 label =
        best.found ? glp_lp_update_vertex(params, view, glp_lp_graph_id(view, v), best.label, best.score) : current;
    if (sweep.pick_less && label > current) label = current;
    if (!sweep.affected) {
        sweep.out[v] = label;
    } else if (label != current) {
        sweep.out[v] = label;
        glp_lp_histogram_move(view, current, label);
    }
    return label != current;
}

// Adds the warp's changed (and, asynchronous, processed) flags to the sweep's counters (one
// atomic per warp and counter). Every lane of the warp must call it.
__device__ __forceinline__ void glp_lp_count(const glp_lp_sweep& sweep, bool processed_here, bool changed_here) {
    const glp_u32 changed = __ballot_sync(GLP_FULL_MASK, changed_here);
    if ((threadIdx.x & 31) == 0 && changed != 0) atomicAdd(&sweep.counters[0], (unsigned long long)__popc(changed));
    if (sweep.affected) {
        const glp_u32 processed = __ballot_sync(GLP_FULL_MASK, processed_here);
        if ((threadIdx.x & 31) == 0 && processed != 0) {
            atomicAdd(&sweep.counters[1], (unsigned long long)__popc(processed));
        }
    }
}

// Whether v belongs to this launch's wave (every vertex does when the sweep has no waves).
__device__ __forceinline__ bool glp_lp_in_wave(const glp_lp_sweep& sweep, glp_u32 v) {
    return sweep.wave_size == 0 || v / sweep.wave_size == sweep.wave;
}

// Whether v takes part in the sweep: always when synchronous; asynchronous, when it belongs
// to this wave and its flag is set, which this clears. One thread per vertex calls it and
// shares the answer.
__device__ __forceinline__ bool glp_lp_claim(const glp_lp_sweep& sweep, glp_u32 v) {
    if (!sweep.affected) return true;
    if (!glp_lp_in_wave(sweep, v) || !sweep.affected[v]) return false;
    sweep.affected[v] = 0;
    return true;
}

// Asynchronous: marks the neighbours of a vertex that moved affected, edges first, first +
// stride, ... of [first, end).
__device__ __forceinline__ void glp_lp_mark_neighbors(const glp_lp_sweep& sweep, const glp_lp_view& view, glp_u64 first,
                                                      glp_u64 end, glp_u64 stride) {
    for (glp_u64 e = first; e < end; e += stride) sweep.affected[view.targets[e]] = 1;
}

// The lanes serving one vertex: a tile (several per warp) or a whole warp. `mask` holds the
// lanes of its shuffles (the warp's, or the tile's own), `leader` is its first lane, and this
// lane is number `rank` of `size`.
struct glp_lp_group {
    glp_u32 mask;
    int leader;
    int rank;
    int size;
};

// Whether the group's vertex v takes part in the sweep (`in_range`: the group has a vertex):
// the leader claims it and the group learns the answer. Every lane of `group.mask` calls.
__device__ __forceinline__ bool glp_lp_group_claim(const glp_lp_sweep& sweep, const glp_lp_group& group, bool in_range,
                                                   glp_u32 v) {
    if (!sweep.affected) return in_range;
    const int claimed = in_range && group.rank == 0 ? (int)glp_lp_claim(sweep, v) : 0;
    return __shfl_sync(group.mask, claimed, group.leader) != 0;
}

// Ends the sweep of the group's vertex v (`active`: claimed; its edges [begin, end)): the
// leader finishes it with `best`, the group marks the neighbours of a vertex that moved
// (asynchronous), the warp counts. Every lane of the warp calls.
__device__ __forceinline__ void glp_lp_group_finish(const glp_lp_params& params, const glp_lp_view& view,
                                                    const glp_lp_group& group, bool active, glp_u32 v,
                                                    const glp_lp_candidate& best, glp_u64 begin, glp_u64 end,
                                                    const glp_lp_sweep& sweep) {
    const bool leads = active && group.rank == 0;
    const bool changed_here = leads && glp_lp_finish(params, view, v, best, sweep);
    if (sweep.affected && __shfl_sync(group.mask, (int)changed_here, group.leader) != 0) {
        glp_lp_mark_neighbors(sweep, view, begin + (glp_u64)group.rank, end, (glp_u64)group.size);
    }
    glp_lp_count(sweep, leads, changed_here);
}

// Sum of `weight` over the lanes in `same_label` (a __match_any_sync mask), in lane order (edge
// order): every lane of the warp must call it with the same `first` and `width`.
__device__ __forceinline__ double glp_lp_group_sum(glp_u32 same_label, double weight, int first, int width) {
#ifdef GLP_UNIT_WEIGHTS
    (void)weight; (void)first; (void)width;
    return (double)__popc(same_label);
#else
    double sum = 0.0;
    for (int k = 0; k < width; ++k) {
        const double w = __shfl_sync(GLP_FULL_MASK, weight, first + k);
        if ((same_label >> (first + k)) & 1u) sum += w;
    }
    return sum;
#endif
}

// The label and weight the neighbour across edge e gives the vertex of device position v. The
// default hook, `(view.label(u), 1.0)` (GLP_DEFAULT_LOAD_NEIGHBOR), is the neighbour's shown
// label, read at its position in either order; another hook gets the graph's ids of both ends
// (and the edge's index in the device's rows, which is what the view's edge methods take).
__device__ __forceinline__ glp_tuple_u32_f64 glp_lp_neighbor(const glp_lp_params& params, const glp_lp_view& view,
                                                             glp_u32 v, glp_u64 e) {
    const glp_u32 u = view.targets[e];
#ifdef GLP_DEFAULT_LOAD_NEIGHBOR
    (void)params;
    (void)v;
    glp_tuple_u32_f64 c;
    c._0 = view.labels[u];
    c._1 = 1.0;
    return c;
#else
    return glp_lp_load_neighbor(params, view, glp_lp_graph_id(view, v), glp_lp_graph_id(view, u), e);
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
                                           const glp_u32* vertices, glp_u32 count, const glp_lp_sweep& sweep) {
    const glp_u64 thread = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = (int)(threadIdx.x & 31);
    const int tile_lane = lane & (TILE - 1);
    const int tile_first = lane - tile_lane;
    const glp_u64 slot = thread / TILE;
    // The whole warp stays to the end: every shuffle below takes all 32 lanes.
    const bool in_range = slot < count;
    const glp_u32 v = in_range ? vertices[slot] : 0u;
    const glp_lp_group group = {GLP_FULL_MASK, tile_first, tile_lane, TILE};
    const bool active = glp_lp_group_claim(sweep, group, in_range, v);
    const glp_u64 begin = active ? view.offsets[v] : 0ull;
    const glp_u64 degree = active ? view.offsets[v + 1] - begin : 0ull;
    glp_u32 label = GLP_UNLABELLED;
    double weight = 0.0;
    if ((glp_u64)tile_lane < degree) {
        const glp_u64 e = begin + (glp_u64)tile_lane;
        const glp_tuple_u32_f64 c = glp_lp_neighbor(params, view, v, e);
        label = c._0;
        weight = c._1;
    }
    // Lanes of the same tile with the same label (the tile number keeps tiles apart).
    const unsigned long long key = ((unsigned long long)(lane / TILE) << 32) | label;
    const glp_u32 same_label = __match_any_sync(GLP_FULL_MASK, key);
    const double freq = glp_lp_group_sum(same_label, weight, tile_first, TILE);
    glp_lp_candidate mine = glp_lp_nothing();
    if (label != GLP_UNLABELLED && (int)(__ffs(same_label) - 1) == lane) mine = glp_lp_score(params, view, v, label, freq);
    const glp_lp_candidate best = glp_lp_reduce(mine, TILE);
    glp_lp_group_finish(params, view, group, active, v, best, begin, begin + degree, sweep);
}

#define GLP_LOW_KERNEL(T)                                                                                   \
    extern "C" __global__ void glp_lp_low_##T(const glp_lp_params params, const glp_lp_view view,           \
                                              const glp_u32* vertices, glp_u32 count,                       \
                                              const glp_lp_sweep sweep) {                                   \
        glp_lp_low<T>(params, view, vertices, count, sweep);                                                \
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
// another table: a label is inserted in at most one, since slots never empty during a
// sweep, so every later search for it walks the same full slots).
__device__ __forceinline__ bool glp_lp_table_add(glp_u32* keys, double* sums, glp_u64 capacity, glp_u64 probes,
                                                 glp_u32 label, double weight) {
    glp_u64 slot = glp_lp_hash(label) & (capacity - 1);
    for (glp_u64 i = 0; i < probes; ++i) {
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

// The best of `best` and the labels in the table's slots first, first + stride, ... below
// `capacity`; with `clear`, every slot read is emptied for the next sweep. KEY_BIAS is what a
// key adds to its label: 0 in GLP's tables (empty: GLP_EMPTY_KEY), 1 in nu-LPA's (empty: 0).
template <glp_u32 KEY_BIAS = 0u>
__device__ __forceinline__ glp_lp_candidate glp_lp_table_best(const glp_lp_params& params, const glp_lp_view& view,
                                                              glp_u32 v, glp_u32* keys, double* sums, glp_u64 capacity,
                                                              glp_u64 first, glp_u64 stride, bool clear,
                                                              glp_lp_candidate best) {
    const glp_u32 empty = KEY_BIAS == 0u ? GLP_EMPTY_KEY : 0u;
    for (glp_u64 i = first; i < capacity; i += stride) {
        const glp_u32 key = keys[i];
        if (key == empty) continue;
        const glp_lp_candidate c = glp_lp_score(params, view, v, key - KEY_BIAS, sums[i]);
        if (glp_lp_beats(c, best)) best = c;
        if (clear) {
            keys[i] = empty;
            sums[i] = 0.0;
        }
    }
    return best;
}

// Empties a shared table (the threads of the block split the slots; no barrier).
__device__ __forceinline__ void glp_lp_block_clear(glp_u32* keys, double* sums, int capacity) {
    for (int i = threadIdx.x; i < capacity; i += blockDim.x) {
        keys[i] = GLP_EMPTY_KEY;
        sums[i] = 0.0;
    }
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
        const glp_tuple_u32_f64 c = glp_lp_neighbor(params, view, v, e);
        label = c._0;
        weight = c._1;
    }
    const glp_u32 same_label = __match_any_sync(GLP_FULL_MASK, label);
    *freq = glp_lp_group_sum(same_label, weight, 0, 32);
    return (int)(__ffs(same_label) - 1) == lane ? label : GLP_UNLABELLED;
}

// ---- middle degree: a warp per vertex, shared-memory table ---------------------------------

#define GLP_MID_WARPS 8

extern "C" __global__ void __launch_bounds__(GLP_MID_WARPS * 32)
glp_lp_mid(const glp_lp_params params, const glp_lp_view view, const glp_u32* vertices, glp_u32 count,
           const glp_lp_sweep sweep) {
    __shared__ glp_u32 table_keys[GLP_MID_WARPS][GLP_MID_TABLE];
    __shared__ double table_sums[GLP_MID_WARPS][GLP_MID_TABLE];
    const int warp = (int)(threadIdx.x >> 5);
    const int lane = (int)(threadIdx.x & 31);
    const glp_u64 slot = (glp_u64)blockIdx.x * GLP_MID_WARPS + (glp_u64)warp;
    if (slot >= count) return; // warp-uniform
    const glp_u32 v = vertices[slot];
    const glp_lp_group group = {GLP_FULL_MASK, 0, lane, 32};
    if (!glp_lp_group_claim(sweep, group, true, v)) return; // warp-uniform
    glp_u32* keys = table_keys[warp];
    double* sums = table_sums[warp];
    for (int i = lane; i < GLP_MID_TABLE; i += 32) {
        keys[i] = GLP_EMPTY_KEY;
        sums[i] = 0.0;
    }
    __syncwarp();
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
    const glp_lp_candidate mine =
        glp_lp_table_best(params, view, v, keys, sums, GLP_MID_TABLE, lane, 32, false, glp_lp_nothing());
    glp_lp_group_finish(params, view, group, true, v, glp_lp_reduce(mine, 32), begin, end, sweep);
}

// ---- block-wide helpers --------------------------------------------------------------------

// The best candidate of the block (every thread must call; blockDim.x a multiple of 32, at
// most 1024). Thread 0's result is the block's.
__device__ __forceinline__ glp_lp_candidate glp_lp_block_reduce(glp_lp_candidate c) {
    __shared__ glp_lp_candidate warp_best[32];
    const int warp = (int)(threadIdx.x >> 5);
    const int lane = (int)(threadIdx.x & 31);
    c = glp_lp_reduce(c, 32);
    if (lane == 0) warp_best[warp] = c;
    __syncthreads();
    if (warp == 0) {
        const int warps = (int)(blockDim.x >> 5);
        c = lane < warps ? warp_best[lane] : glp_lp_nothing();
        c = glp_lp_reduce(c, 32);
    }
    __syncthreads();
    return c;
}

// Block-wide end of vertex v's sweep (every thread calls; thread 0's `best` is the block's):
// thread 0 finishes and counts, and asynchronous sweeps mark the neighbours of a vertex that
// moved with the whole block.
__device__ __forceinline__ void glp_lp_block_finish(const glp_lp_params& params, const glp_lp_view& view, glp_u32 v,
                                                    const glp_lp_candidate& best, glp_u64 begin, glp_u64 end,
                                                    const glp_lp_sweep& sweep) {
    __shared__ int moved;
    if (threadIdx.x == 0) {
        moved = (int)glp_lp_finish(params, view, v, best, sweep);
        if (moved) atomicAdd(&sweep.counters[0], 1ull);
        if (sweep.affected) atomicAdd(&sweep.counters[1], 1ull);
    }
    if (sweep.affected) {
        __syncthreads();
        if (moved) glp_lp_mark_neighbors(sweep, view, begin + threadIdx.x, end, blockDim.x);
        __syncthreads(); // `moved` is rewritten for the block's next vertex
    }
}

// ---- high degree: a block per vertex, shared table + count-min sketch ----------------------

// Bucket of `label` in row `row` of the sketch: multiply-shift hashing, one odd multiplier
// per row (none equal to the table's, so rows and table collide independently).
__device__ __forceinline__ glp_u32 glp_lp_sketch_bucket(glp_u32 label, int row) {
    const glp_u32 multipliers[4] = {0x85EBCA77u, 0xC2B2AE3Du, 0x27D4EB2Fu, 0x165667B1u};
    return (label * multipliers[row & 3]) >> (32 - GLP_SKETCH_WIDTH_LOG2);
}

#define GLP_SKETCH_USED 1
#define GLP_SKETCH_INVALID 2

// Procedure SharedMemBigNodes, in two kernels. Vertices of degree up to GLP_HIGH_TABLE / 2
// have room for all their labels in a table of nextPow2(2 * degree) slots, which is all a
// block clears and scans for them; glp_lp_high takes only those, without the sketch (whose
// 16 KiB of shared memory would cap it at 5 blocks of 256 threads per SM). glp_lp_hub carries
// the sketch and takes larger vertices (hubs, up to the giant class; asynchronous sweeps give
// it the whole high class, see glp-runtime's `launch_high`): a hub's labels go to the shared
// table, and those it refuses after GLP_HIGH_PROBES probes to the count-min sketch. The sketch never under-counts a label of
// non-negative weights, so after each round the sketch's estimate of every label added in
// that round is an upper bound of its final sum once the label's last occurrence is in, and
// with a score non-decreasing in its frequency (glp_lp_score_monotone) the best estimated
// candidate bounds every refused label's true candidate. If the table's best beats that
// bound it is the MFL; otherwise (or a refused weight was negative or NaN, or the score is
// not provably monotone) the vertex is appended to `deferred` for glp_lp_high_exact. A sweep
// with eager_defer gives up at the first refused label (as with an invalid sketch): when most
// hubs overflow, counting them here first only doubles their cost.
template <bool SKETCH>
__device__ __forceinline__ void glp_lp_high_class(const glp_lp_params& params, const glp_lp_view& view,
                                                  const glp_u32* vertices, glp_u32 count, glp_u32* deferred,
                                                  const glp_lp_sweep& sweep) {
    __shared__ glp_u32 keys[GLP_HIGH_TABLE];
    __shared__ double sums[GLP_HIGH_TABLE];
    __shared__ double sketch[SKETCH ? GLP_SKETCH_ROWS : 1][SKETCH ? GLP_SKETCH_WIDTH : 1];
    __shared__ int claimed;
    __shared__ int sketch_state;
    __shared__ int defer;
    const glp_u64 slot = blockIdx.x;
    if (slot >= count) return; // block-uniform
    const glp_u32 v = vertices[slot];
    if (threadIdx.x == 0) {
        claimed = (int)glp_lp_claim(sweep, v);
        sketch_state = 0;
    }
    const glp_u64 begin = view.offsets[v];
    const glp_u64 end = view.offsets[v + 1];
    // Hubs use the whole table and give up on a label after GLP_HIGH_PROBES probes; the others
    // probe all of a table with room for every label at load factor 1/2.
    const bool may_overflow = SKETCH && end - begin > GLP_HIGH_TABLE / 2;
    const glp_u64 capacity = may_overflow ? GLP_HIGH_TABLE : 1ull << (64 - __clzll(2 * (end - begin) - 1));
    const glp_u64 probes = may_overflow ? GLP_HIGH_PROBES : capacity;
    glp_lp_block_clear(keys, sums, (int)capacity);
    if (may_overflow) {
        for (int i = threadIdx.x; i < GLP_SKETCH_ROWS * GLP_SKETCH_WIDTH; i += blockDim.x) (&sketch[0][0])[i] = 0.0;
    }
    __syncthreads();
    if (!claimed) return; // block-uniform
    const int lane = (int)(threadIdx.x & 31);
    const bool prune = glp_lp_score_monotone(params);
    glp_lp_candidate bound = glp_lp_nothing();
    for (glp_u64 base = begin; base < end; base += blockDim.x) {
        double freq;
        const glp_u32 label = glp_lp_warp_round(params, view, v, base + threadIdx.x, end, lane, &freq);
        const bool added = label == GLP_UNLABELLED || glp_lp_table_add(keys, sums, capacity, probes, label, freq);
        bool refused = false;
        if (SKETCH && !added) {
            refused = true;
            if (freq >= 0.0 && !sweep.eager_defer) {
                atomicOr(&sketch_state, GLP_SKETCH_USED);
                for (int row = 0; row < GLP_SKETCH_ROWS; ++row) {
                    atomicAdd(&sketch[row][glp_lp_sketch_bucket(label, row)], freq);
                }
            } else {
                atomicOr(&sketch_state, GLP_SKETCH_USED | GLP_SKETCH_INVALID);
            }
        }
        if (may_overflow && __syncthreads_or(refused)) {
            // The sketch cannot prune for this vertex: stop here, it is deferred.
            if (!prune || (sketch_state & GLP_SKETCH_INVALID)) break; // block-uniform
            if (refused) {
                double estimate = sketch[0][glp_lp_sketch_bucket(label, 0)];
                for (int row = 1; row < GLP_SKETCH_ROWS; ++row) {
                    estimate = fmin(estimate, sketch[row][glp_lp_sketch_bucket(label, row)]);
                }
                const glp_lp_candidate c = glp_lp_score(params, view, v, label, estimate);
                if (glp_lp_beats(c, bound)) bound = c;
            }
            __syncthreads(); // estimates are read before the next round adds
        }
    }
    __syncthreads();
    const glp_lp_candidate mine =
        glp_lp_table_best(params, view, v, keys, sums, capacity, threadIdx.x, blockDim.x, false, glp_lp_nothing());
    const glp_lp_candidate best = glp_lp_block_reduce(mine);
    const int state = sketch_state;
    if (state != 0) bound = glp_lp_block_reduce(bound); // block-uniform
    if (threadIdx.x == 0) {
        const bool proven = state == 0 || (state == GLP_SKETCH_USED && prune && glp_lp_beats(best, bound));
        defer = !proven;
        if (!proven) deferred[atomicAdd(&sweep.counters[GLP_COUNTER_DEFERRED], 1ull)] = v;
        if (proven && state != 0) atomicAdd(&sweep.counters[GLP_COUNTER_SETTLED], 1ull);
    }
    __syncthreads();
    if (!defer) glp_lp_block_finish(params, view, v, best, begin, end, sweep);
}

extern "C" __global__ void __launch_bounds__(GLP_HIGH_THREADS)
glp_lp_high(const glp_lp_params params, const glp_lp_view view, const glp_u32* vertices, glp_u32 count,
            const glp_lp_sweep sweep) {
    glp_lp_high_class<false>(params, view, vertices, count, nullptr, sweep);
}

extern "C" __global__ void __launch_bounds__(GLP_HIGH_THREADS)
glp_lp_hub(const glp_lp_params params, const glp_lp_view view, const glp_u32* vertices, glp_u32 count,
           glp_u32* deferred, const glp_lp_sweep sweep) {
    glp_lp_high_class<true>(params, view, vertices, count, deferred, sweep);
}

// The exact path of the high class: blocks take the deferred vertices in turn and count each
// with the shared table plus the block's own region of the global pool (`region_capacity`
// slots, room for twice the largest degree), of which a vertex uses the first
// nextPow2(2 * degree) slots for the labels the table refuses; the region is emptied as it is
// read.
extern "C" __global__ void __launch_bounds__(GLP_HIGH_THREADS)
glp_lp_high_exact(const glp_lp_params params, const glp_lp_view view, const glp_u32* deferred,
                  glp_u32* pool_keys, double* pool_sums, glp_u64 region_capacity, const glp_lp_sweep sweep) {
    __shared__ glp_u32 keys[GLP_HIGH_TABLE];
    __shared__ double sums[GLP_HIGH_TABLE];
    __shared__ int overflowed;
    glp_u32* region_keys = pool_keys + (glp_u64)blockIdx.x * region_capacity;
    double* region_sums = pool_sums + (glp_u64)blockIdx.x * region_capacity;
    const glp_u64 total = sweep.counters[GLP_COUNTER_DEFERRED];
    const int lane = (int)(threadIdx.x & 31);
    for (glp_u64 i = blockIdx.x; i < total; i += gridDim.x) {
        const glp_u32 v = deferred[i];
        // The list grows wave by wave within a sweep: earlier waves' vertices are done.
        if (!glp_lp_in_wave(sweep, v)) continue; // block-uniform
        glp_lp_block_clear(keys, sums, GLP_HIGH_TABLE);
        if (threadIdx.x == 0) overflowed = 0;
        __syncthreads();
        const glp_u64 begin = view.offsets[v];
        const glp_u64 end = view.offsets[v + 1];
        // nextPow2(2 * degree) <= region_capacity (degree >= 1 here: deferred vertices spilled).
        const glp_u64 capacity = 1ull << (64 - __clzll(2 * (end - begin) - 1));
        for (glp_u64 base = begin; base < end; base += blockDim.x) {
            double freq;
            const glp_u32 label = glp_lp_warp_round(params, view, v, base + threadIdx.x, end, lane, &freq);
            if (label != GLP_UNLABELLED && !glp_lp_table_add(keys, sums, GLP_HIGH_TABLE, GLP_HIGH_PROBES, label, freq)) {
                glp_lp_table_add(region_keys, region_sums, capacity, capacity, label, freq);
                overflowed = 1;
            }
        }
        __syncthreads();
        glp_lp_candidate mine =
            glp_lp_table_best(params, view, v, keys, sums, GLP_HIGH_TABLE, threadIdx.x, blockDim.x, false, glp_lp_nothing());
        if (overflowed) {
            mine = glp_lp_table_best(params, view, v, region_keys, region_sums, capacity, threadIdx.x, blockDim.x,
                                     true, mine);
        }
        const glp_lp_candidate best = glp_lp_block_reduce(mine);
        glp_lp_block_finish(params, view, v, best, begin, end, sweep);
    }
}

// ---- giants: many blocks per vertex (giant_kernels.cuh) ----------------------------------
/*{{GIANTS}}*/

// ---- G-Hash baseline: a warp per vertex, global table region -------------------------------

extern "C" __global__ void __launch_bounds__(256)
glp_lp_global(const glp_lp_params params, const glp_lp_view view, const glp_u32* vertices, glp_u32 count,
              const glp_u64* table_offsets, glp_u32* table_keys, double* table_sums, const glp_lp_sweep sweep) {
    const glp_u64 slot = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = (int)(threadIdx.x & 31);
    if (slot >= count) return; // warp-uniform
    const glp_u32 v = vertices[slot];
    const glp_lp_group group = {GLP_FULL_MASK, 0, lane, 32};
    if (!glp_lp_group_claim(sweep, group, true, v)) return; // warp-uniform
    const glp_u64 begin = view.offsets[v];
    const glp_u64 end = view.offsets[v + 1];
    glp_u32* keys = table_keys + table_offsets[slot];
    double* sums = table_sums + table_offsets[slot];
    const glp_u64 capacity = table_offsets[slot + 1] - table_offsets[slot];
    for (glp_u64 e = begin + (glp_u64)lane; e < end; e += 32) {
        const glp_tuple_u32_f64 c = glp_lp_neighbor(params, view, v, e);
        if (c._0 != GLP_UNLABELLED) glp_lp_table_add(keys, sums, capacity, capacity, c._0, c._1);
    }
    __syncwarp();
    const glp_lp_candidate mine =
        glp_lp_table_best(params, view, v, keys, sums, capacity, lane, 32, true, glp_lp_nothing());
    glp_lp_group_finish(params, view, group, true, v, glp_lp_reduce(mine, 32), begin, end, sweep);
}

// ---- asynchronous pick phase ---------------------------------------------------------------

// pick_label of every vertex, in place: a vertex whose label the pick changes marks its
// neighbours affected (the CPU's asynchronous schedule does the same before its sweep).
extern "C" __global__ void glp_lp_pick_in_place(const glp_lp_params params, const glp_lp_view view,
                                                const glp_lp_sweep sweep) {
    const glp_u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= view.num_vertices) return;
    const glp_u32 picked = glp_lp_pick_label(params, view, glp_lp_graph_id(view, v));
    if (picked != sweep.out[v]) {
        sweep.out[v] = picked;
        glp_lp_mark_neighbors(sweep, view, view.offsets[v], view.offsets[v + 1], 1);
    }
}
/*{{SORT}}*/
/*{{DISTINCT}}*/
/*{{SKETCH}}*/
