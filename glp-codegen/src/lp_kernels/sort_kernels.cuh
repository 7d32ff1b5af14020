// ---- G-Sort baseline: gather, segmented sort, count ------------------------------------------
//
// The baseline GLP compares against (G-Sort): the most frequent label found by sorting. Every
// iteration runs, on one stream:
//
// 1. glp_lp_sort_gather, one thread per edge e: the edge's vertex v is found by a binary search
//    over the CSR offsets (narrowed to the vertices of the block's edges), and
//    (NL_label[e], NL_weight[e]) = load_neighbor(v, targets[e], e). NL has one entry per edge,
//    in global memory: the baseline's working memory.
// 2. the segmented sort: each vertex's segment NL[offsets[v], offsets[v+1]) by label, the
//    weight travelling with its label, by segment size:
//    - degree <= 1: nothing to do;
//    - degree <= 32, glp_lp_sort_tiles: a tile of T lanes (T = next power of two, the low
//      class's tiles, several segments per warp) runs a bitonic network in registers with
//      xor shuffles;
//    - degree <= GLP_SORT_BLOCK_MAX, glp_lp_sort_block: a block per segment, bitonic sort in
//      shared memory over the next power of two entries;
//    - larger, glp_lp_sort_large: a block per segment sorts tiles of GLP_SORT_BLOCK_MAX
//      entries in shared memory, then merges runs pairwise in global memory, pass after pass
//      (widths 2048, 4096, ...), between NL and a scratch buffer of the segment's size; the
//      tiles are written where the last pass leaves the result in NL. A merge moves each entry
//      to its rank: an entry at index i of the left run goes to i plus the number of right-run
//      labels smaller than its label; one of the right run to its index there plus the number
//      of left-run labels not larger (binary searches).
// 3. glp_lp_sort_count, the same tiles per vertex (a warp for degrees above 32): the tile walks
//    the sorted segment in windows of T entries; an entry starts a run when its label differs
//    from the previous entry's, ends one when it differs from the next's; a segmented scan
//    sums each run's weights within the window, and the sum of a run that crosses the window's
//    end is carried into the next window. The entry ending a run scores it with label_score;
//    each lane keeps its best candidate (glp_lp_beats), the tile reduces them, and
//    glp_lp_finish applies update_vertex (or keeps the label when no run had a label).
//
// Why it is exact (equal to the CPU engine's synchronous MFL):
// - load_neighbor is called once per edge with the arguments the CPU gives it, so NL holds each
//   vertex's multiset of (label, weight) pairs.
// - Sorting permutes each segment: every network step exchanges two entries, and the merge
//   ranks are a bijection (ties go left run first). The in-register and shared sorts pad to a
//   power of two with GLP_UNLABELLED labels, which sort last; only the segment's length is
//   written back, so at most a real GLP_UNLABELLED entry is replaced by padding, and
//   GLP_UNLABELLED entries are no candidate.
// - In the sorted segment each label is exactly one run, so label_score sees every distinct
//   label once with the sum of its weights, as on the CPU. The sums are f64 additions in a
//   different order than the CPU's, exact for integer weights (the engine's exactness
//   contract); with unit weights (GLP_UNIT_WEIGHTS) no weight is stored and a run sums ones.
// - glp_lp_beats is a total order (found, then higher score, then smaller tie key), so the best
//   run does not depend on which lane saw it first.

// One vertex's segment in one buffer pair: entry i is (labels[first + i], weights[first + i]).
// With unit weights the weights are never read or written (the buffer may be a placeholder).
struct glp_lp_sort_segment {
    glp_u32* labels;
    double* weights;
    glp_u64 first;
};

__device__ __forceinline__ glp_lp_sort_segment glp_lp_sort_at(glp_lp_sort_segment s, glp_u64 offset) {
    s.first += offset;
    return s;
}

__device__ __forceinline__ glp_u32 glp_lp_sort_label(const glp_lp_sort_segment& s, glp_u64 i) {
    return s.labels[s.first + i];
}

__device__ __forceinline__ double glp_lp_sort_weight(const glp_lp_sort_segment& s, glp_u64 i) {
#ifdef GLP_UNIT_WEIGHTS
    (void)s; (void)i;
    return 1.0;
#else
    return s.weights[s.first + i];
#endif
}

__device__ __forceinline__ void glp_lp_sort_store(const glp_lp_sort_segment& s, glp_u64 i, glp_u32 label,
                                                  double weight) {
    s.labels[s.first + i] = label;
#ifdef GLP_UNIT_WEIGHTS
    (void)weight;
#else
    s.weights[s.first + i] = weight;
#endif
}

__device__ __forceinline__ glp_u64 glp_lp_sort_min(glp_u64 a, glp_u64 b) { return a < b ? a : b; }

// The vertex owning edge e: the largest u in [lo, hi] with offsets[u] <= e (given
// offsets[lo] <= e; vertices without edges are skipped since a later vertex has the same offset).
__device__ __forceinline__ glp_u32 glp_lp_edge_owner(const glp_u64* offsets, glp_u32 lo, glp_u32 hi, glp_u64 e) {
    while (lo < hi) {
        const glp_u32 mid = lo + (hi - lo + 1u) / 2u;
        if (offsets[mid] <= e) {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    return lo;
}

// ---- 1. gather ---------------------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(GLP_SORT_THREADS)
glp_lp_sort_gather(const glp_lp_params params, const glp_lp_view view, glp_u64 num_edges, glp_u32* nl_labels,
                   double* nl_weights) {
    __shared__ glp_u32 owners[2];
    const glp_u64 first = (glp_u64)blockIdx.x * blockDim.x;
    if (first >= num_edges) return; // block-uniform
    const glp_u64 last = glp_lp_sort_min(first + blockDim.x, num_edges) - 1;
    const glp_u32 top = view.num_vertices - 1u; // num_edges > 0, so there is a vertex
    if (threadIdx.x == 0) owners[0] = glp_lp_edge_owner(view.offsets, 0u, top, first);
    if (threadIdx.x == blockDim.x - 1) owners[1] = glp_lp_edge_owner(view.offsets, 0u, top, last);
    __syncthreads();
    const glp_u64 e = first + threadIdx.x;
    if (e > last) return;
    const glp_u32 v = glp_lp_edge_owner(view.offsets, owners[0], owners[1], e);
    const glp_tuple_u32_f64 c = glp_lp_neighbor(params, view, v, e);
    const glp_lp_sort_segment nl = {nl_labels, nl_weights, 0ull};
    glp_lp_sort_store(nl, e, c._0, c._1);
}

// ---- 2. segmented sort -------------------------------------------------------------------------

// A bitonic compare-exchange with lane ^ j: this lane keeps the smaller of the two labels when
// `keep_smaller`, else the larger, with its weight. Every lane of the warp must call it.
__device__ __forceinline__ void glp_lp_sort_exchange(glp_u32& label, double& weight, int j, bool keep_smaller) {
    const glp_u32 other = __shfl_xor_sync(GLP_FULL_MASK, label, j);
#ifdef GLP_UNIT_WEIGHTS
    const double other_weight = weight;
#else
    const double other_weight = __shfl_xor_sync(GLP_FULL_MASK, weight, j);
#endif
    if (keep_smaller ? other < label : other > label) {
        label = other;
        weight = other_weight;
    }
}

// Segments of 2..=32 entries: a tile of `tile` lanes (a power of two >= the degree, the same
// for the whole launch) per vertex, several vertices per warp.
extern "C" __global__ void __launch_bounds__(GLP_SORT_THREADS)
glp_lp_sort_tiles(const glp_lp_view view, const glp_u32* vertices, glp_u32 count, glp_u32 tile,
                  glp_u32* nl_labels, double* nl_weights) {
    const glp_u64 thread = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    const glp_u32 tile_lane = (threadIdx.x & 31u) & (tile - 1u);
    const glp_u64 slot = thread / tile;
    const bool active = slot < count;
    // The whole warp stays to the end: every shuffle takes all 32 lanes.
    const glp_u32 v = active ? vertices[slot] : 0u;
    const glp_u64 begin = active ? view.offsets[v] : 0ull;
    const glp_u64 degree = active ? view.offsets[v + 1] - begin : 0ull;
    const glp_lp_sort_segment segment = {nl_labels, nl_weights, begin};
    const bool holds = (glp_u64)tile_lane < degree;
    glp_u32 label = holds ? glp_lp_sort_label(segment, tile_lane) : GLP_UNLABELLED;
    double weight = holds ? glp_lp_sort_weight(segment, tile_lane) : 0.0;
    for (glp_u32 k = 2; k <= tile; k <<= 1) {
        for (glp_u32 j = k >> 1; j > 0; j >>= 1) {
            // Ascending blocks of k (the last one is the whole tile): the lower lane of a pair
            // keeps the smaller label; descending blocks the other way round.
            const bool ascending = (tile_lane & k) == 0;
            const bool lower = (tile_lane & j) == 0;
            glp_lp_sort_exchange(label, weight, (int)j, lower == ascending);
        }
    }
    if (holds) glp_lp_sort_store(segment, tile_lane, label, weight);
}

// Sorts the entries [0, len) of `src` by label into `dst` (which may be `src`), len <=
// GLP_SORT_BLOCK_MAX: a bitonic sort in shared memory over the next power of two entries,
// padded with GLP_UNLABELLED labels (which sort last and are not written back). Every thread
// of the block must call it; it ends with the block synchronised.
__device__ void glp_lp_sort_shared(const glp_lp_sort_segment& src, const glp_lp_sort_segment& dst, glp_u32 len) {
    __shared__ glp_u32 labels[GLP_SORT_BLOCK_MAX];
#ifndef GLP_UNIT_WEIGHTS
    __shared__ double weights[GLP_SORT_BLOCK_MAX];
#endif
    glp_u32 n = 1;
    while (n < len) n <<= 1;
    for (glp_u32 i = threadIdx.x; i < n; i += blockDim.x) {
        labels[i] = i < len ? glp_lp_sort_label(src, i) : GLP_UNLABELLED;
#ifndef GLP_UNIT_WEIGHTS
        weights[i] = i < len ? glp_lp_sort_weight(src, i) : 0.0;
#endif
    }
    __syncthreads();
    for (glp_u32 k = 2; k <= n; k <<= 1) {
        for (glp_u32 j = k >> 1; j > 0; j >>= 1) {
            // Pair i compares entries a and a + j, a being i with a zero bit inserted at j.
            for (glp_u32 i = threadIdx.x; i < n / 2; i += blockDim.x) {
                const glp_u32 a = ((i & ~(j - 1u)) << 1) | (i & (j - 1u));
                const glp_u32 b = a | j;
                const bool ascending = (a & k) == 0;
                const glp_u32 la = labels[a];
                const glp_u32 lb = labels[b];
                if (ascending ? la > lb : la < lb) {
                    labels[a] = lb;
                    labels[b] = la;
#ifndef GLP_UNIT_WEIGHTS
                    const double w = weights[a];
                    weights[a] = weights[b];
                    weights[b] = w;
#endif
                }
            }
            __syncthreads();
        }
    }
    for (glp_u32 i = threadIdx.x; i < len; i += blockDim.x) {
#ifdef GLP_UNIT_WEIGHTS
        glp_lp_sort_store(dst, i, labels[i], 1.0);
#else
        glp_lp_sort_store(dst, i, labels[i], weights[i]);
#endif
    }
    __syncthreads(); // the shared arrays are free again, the stores visible to the block
}

// Segments of 33..=GLP_SORT_BLOCK_MAX entries: a block per vertex, sorted in shared memory.
extern "C" __global__ void __launch_bounds__(GLP_SORT_BLOCK_THREADS)
glp_lp_sort_block(const glp_lp_view view, const glp_u32* vertices, glp_u32 count, glp_u32* nl_labels,
                  double* nl_weights) {
    const glp_u64 slot = blockIdx.x;
    if (slot >= count) return; // block-uniform
    const glp_u32 v = vertices[slot];
    const glp_u64 begin = view.offsets[v];
    const glp_lp_sort_segment segment = {nl_labels, nl_weights, begin};
    glp_lp_sort_shared(segment, segment, (glp_u32)(view.offsets[v + 1] - begin));
}

// The first index in [lo, hi) of sorted `s` whose label is > key (`after_equal`) or >= key:
// the number of labels < key (<= key) there, plus lo.
__device__ __forceinline__ glp_u64 glp_lp_sort_rank(const glp_lp_sort_segment& s, glp_u64 lo, glp_u64 hi,
                                                    glp_u32 key, bool after_equal) {
    while (lo < hi) {
        const glp_u64 mid = lo + (hi - lo) / 2;
        const glp_u32 label = glp_lp_sort_label(s, mid);
        if (after_equal ? label <= key : label < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// One merge pass over a segment of `len` entries: the sorted runs of `width` entries of `src`
// are merged pairwise into sorted runs of 2 * width in `dst`; a last unpaired run is copied.
// Every thread of the block must call it; it ends with the block synchronised.
__device__ void glp_lp_sort_merge_pass(const glp_lp_sort_segment& src, const glp_lp_sort_segment& dst, glp_u64 len,
                                       glp_u64 width) {
    for (glp_u64 i = threadIdx.x; i < len; i += blockDim.x) {
        const glp_u64 start = i / (2 * width) * (2 * width);
        const glp_u64 middle = glp_lp_sort_min(start + width, len);
        const glp_u64 stop = glp_lp_sort_min(start + 2 * width, len);
        const glp_u32 label = glp_lp_sort_label(src, i);
        // Left run [start, middle): after the right run's smaller labels; right run
        // [middle, stop): after the left run's labels that are not larger.
        const glp_u64 to = i < middle ? i + (glp_lp_sort_rank(src, middle, stop, label, false) - middle)
                                      : (i - middle) + glp_lp_sort_rank(src, start, middle, label, true);
        glp_lp_sort_store(dst, to, label, glp_lp_sort_weight(src, i));
    }
    __syncthreads();
}

// Segments of more than GLP_SORT_BLOCK_MAX entries: a block per vertex; `scratch_offsets[slot]`
// is the start of the vertex's scratch region (as many entries as its degree).
extern "C" __global__ void __launch_bounds__(GLP_SORT_LARGE_THREADS)
glp_lp_sort_large(const glp_lp_view view, const glp_u32* vertices, glp_u32 count, const glp_u64* scratch_offsets,
                  glp_u32* nl_labels, double* nl_weights, glp_u32* scratch_labels, double* scratch_weights) {
    const glp_u64 slot = blockIdx.x;
    if (slot >= count) return; // block-uniform
    const glp_u32 v = vertices[slot];
    const glp_u64 begin = view.offsets[v];
    const glp_u64 degree = view.offsets[v + 1] - begin;
    const glp_u64 tiles = (degree + GLP_SORT_BLOCK_MAX - 1) / GLP_SORT_BLOCK_MAX;
    int passes = 0;
    while ((1ull << passes) < tiles) ++passes;
    const glp_lp_sort_segment buffers[2] = {{nl_labels, nl_weights, begin},
                                            {scratch_labels, scratch_weights, scratch_offsets[slot]}};
    // Pass p reads buffers[(passes - p) & 1] and writes the other: the tiles go to
    // buffers[passes & 1], so the last pass writes NL.
    for (glp_u64 t = 0; t < tiles; ++t) {
        const glp_u64 first = t * GLP_SORT_BLOCK_MAX;
        const glp_u32 len = (glp_u32)glp_lp_sort_min(degree - first, GLP_SORT_BLOCK_MAX);
        glp_lp_sort_shared(glp_lp_sort_at(buffers[0], first), glp_lp_sort_at(buffers[passes & 1], first), len);
    }
    for (int p = 0; p < passes; ++p) {
        glp_lp_sort_merge_pass(buffers[(passes - p) & 1], buffers[(passes - p - 1) & 1], degree,
                               (glp_u64)GLP_SORT_BLOCK_MAX << p);
    }
}

// ---- 3. count ----------------------------------------------------------------------------------

// The inclusive sum of `x` over the lanes [run_start, tile_lane] of this lane's tile (the
// lanes of its run in this window). Every lane of the warp must call it with the same `tile`.
__device__ __forceinline__ double glp_lp_sort_run_sum(double x, glp_u32 tile_lane, glp_u32 run_start, glp_u32 tile) {
    for (glp_u32 offset = 1; offset < tile; offset <<= 1) {
        const double before = __shfl_up_sync(GLP_FULL_MASK, x, offset);
        if (tile_lane >= run_start + offset) x += before;
    }
    return x;
}

// The MFL of every vertex of `vertices` from its sorted segment: a tile of `tile` lanes per
// vertex (a power of two, the same for the whole launch), walking the segment in windows of
// `tile` entries. Writes the label through the sweep and counts. (Asynchronous sweeps read
// the labels gathered at the sweep's start: the baseline gathers before it sorts.)
extern "C" __global__ void __launch_bounds__(GLP_SORT_THREADS)
glp_lp_sort_count(const glp_lp_params params, const glp_lp_view view, const glp_u32* vertices, glp_u32 count,
                  glp_u32 tile, glp_u32* nl_labels, double* nl_weights, const glp_lp_sweep sweep) {
    const glp_u64 thread = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    const glp_u32 lane = threadIdx.x & 31u;
    const glp_u32 tile_lane = lane & (tile - 1u);
    const glp_u32 tile_first = lane - tile_lane;
    const glp_u32 tile_bits = tile == 32u ? GLP_FULL_MASK : (1u << tile) - 1u;
    const glp_u64 slot = thread / tile;
    // The whole warp stays to the end: every shuffle and vote takes all 32 lanes.
    const bool in_range = slot < count;
    const glp_u32 v = in_range ? vertices[slot] : 0u;
    const glp_lp_group group = {GLP_FULL_MASK, (int)tile_first, (int)tile_lane, (int)tile};
    const bool active = glp_lp_group_claim(sweep, group, in_range, v);
    const glp_u64 begin = active ? view.offsets[v] : 0ull;
    const glp_u64 end = active ? view.offsets[v + 1] : 0ull;
    const glp_lp_sort_segment segment = {nl_labels, nl_weights, 0ull};
    // Every tile of the warp takes as many windows as the warp's longest segment needs.
    glp_u64 windows = (end - begin + tile - 1) / tile;
    for (int offset = 16; offset > 0; offset /= 2) {
        const glp_u64 other = __shfl_xor_sync(GLP_FULL_MASK, windows, offset);
        windows = other > windows ? other : windows;
    }
    glp_lp_candidate mine = glp_lp_nothing();
    double carry = 0.0; // the sum so far of the run open at the end of the previous window
    for (glp_u64 w = 0; w < windows; ++w) {
        const glp_u64 e = begin + w * tile + tile_lane;
        const bool valid = e < end;
        const glp_u32 label = valid ? glp_lp_sort_label(segment, e) : GLP_UNLABELLED;
        // Lanes past the end are runs of their own, of nothing.
        const bool starts = !valid || e == begin || glp_lp_sort_label(segment, e - 1) != label;
        const bool ends = valid && (e + 1 == end || glp_lp_sort_label(segment, e + 1) != label);
        double x = valid ? glp_lp_sort_weight(segment, e) : 0.0;
        if (tile_lane == 0 && !starts) x += carry;
        // The tile's run starts, its first lane counting as one (the carry holds what came before).
        const glp_u32 starts_here = ((__ballot_sync(GLP_FULL_MASK, starts) >> tile_first) & tile_bits) | 1u;
        const glp_u32 up_to_me = tile_lane == 31u ? GLP_FULL_MASK : (2u << tile_lane) - 1u;
        const glp_u32 run_start = 31u - (glp_u32)__clz(starts_here & up_to_me);
        const double sum = glp_lp_sort_run_sum(x, tile_lane, run_start, tile);
        if (ends && label != GLP_UNLABELLED) {
            const glp_lp_candidate c = glp_lp_score(params, view, v, label, sum);
            if (glp_lp_beats(c, mine)) mine = c;
        }
        carry = __shfl_sync(GLP_FULL_MASK, sum, (int)(tile_first + tile - 1u));
    }
    const glp_lp_candidate best = glp_lp_reduce(mine, (int)tile);
    glp_lp_group_finish(params, view, group, active, v, best, begin, end, sweep);
}
