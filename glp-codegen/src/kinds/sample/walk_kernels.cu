// glp: the walk engines' kernels (see engine_kernels.cu, whose WALKS slot they fill): walks
// with several walkers per thread over the CSR or packed edges, one walker per thread for hooks
// that loop, the partitioned walks of graphs whose edges stay in host memory, the packing of
// edges with their targets' rows, and the walks' rows of input ids for outputs that stay on
// the device.

// The hook's vertex v for a step at transit t of sample `sample`, checked: a vertex that is
// not a neighbour of its transit stops the walk (GLP_SAMPLE_NONE) and records the smallest
// such sample in *failed_sample (the host replays it on the CPU for the message).
__device__ __forceinline__ glp_u32 glp_walk_checked(const glp_sample_view& view, glp_u32 sample, glp_u32 t, glp_u32 v,
                                                    glp_u64* failed_sample) {
    if (v != GLP_SAMPLE_NONE && !glp_engine_is_neighbour(view, t, v)) {
        atomicMin(failed_sample, (glp_u64)sample);
        return GLP_SAMPLE_NONE;
    }
    return v;
}

// The vertex step `step` of a walk (sample `sample`, at transit t, its view's history and roots
// set) moves to: the hook's vertex, GLP_SAMPLE_NONE when the walk stops. A draw without
// replacement (`unique`) from an empty row stops it before the hook runs: the CPU engine does
// not make it. (That test written as a function of its own takes the W-walker kernels 21 PTX
// instructions more: keep it inline.)
__device__ __forceinline__ glp_u32 glp_walk_next(const glp_sample_params& params, glp_sample_view& view,
                                                 glp_u32 sample, glp_u32 t, glp_u32 step, bool unique,
                                                 glp_u64* failed_sample) {
    if (unique && glp_sample_degree(view, t) == 0ull) return GLP_SAMPLE_NONE;
    view.history_levels = step + 1u;
    view.step = step;
    return glp_walk_checked(view, sample, t, glp_sample_next(params, view, sample, t, 0u, step), failed_sample);
}

// A packed walker's row: v's offset and degree from the offsets (v < num_vertices; the host
// packs only graphs whose degrees fit 32 bits).
__device__ __forceinline__ void glp_walk_row(const glp_sample_view& graph, glp_u32 v, glp_u64& offset, glp_u32& degree) {
    offset = 0ull;
    degree = 0u;
    if (v >= graph.num_vertices) return;
    offset = graph.offsets[v];
    degree = (glp_u32)(graph.offsets[v + 1u] - offset);
}

// Walks from `count` roots: the walk in slot i is sample samples[i], from roots[i], copied to
// walks[i] (row 0); its vertex at level l (after step l - 1) goes to walks[l * count + i],
// GLP_SAMPLE_NONE once it has stopped (rows after that are left as they were: the host reads a
// walk up to its first NONE). A thread whose walkers have all stopped leaves.
// PACKING (glp_sample_walks_packed over glp_sample_pack_edges's array, glp_sample_walks_narrow
// over glp_sample_pack_edges_narrow's): a walker keeps its transit's row (offset, degree) in
// registers, the view's known row, taken from the packed edge it arrived by, so a step is one
// 16-byte (8-byte) read instead of the offsets' read and then the edge's. The plain kernel's
// hooks read the offsets.
#define GLP_WALKS_PLAIN 0
#define GLP_WALKS_PACKED 1
#define GLP_WALKS_NARROW 2

// The view of the walker in slot i: the graph's, with the packed edges of PACKING and the
// walker's roots and history. Its row, stream and step are set per step.
template <int PACKING>
__device__ __forceinline__ glp_sample_view glp_walk_view(const glp_sample_view& graph, const void* packed,
                                                         glp_u32 target_bits, glp_u32 offset_bits,
                                                         const glp_u32* roots, glp_u32* walks, glp_u32 count,
                                                         glp_u64 i) {
    glp_sample_view view = graph;
    view.cached_row = nullptr;  // known to the compiler: the checks fold away
    view.packed_edges = PACKING == GLP_WALKS_PACKED ? (const uint4*)packed : nullptr;
    view.packed_narrow = PACKING == GLP_WALKS_NARROW ? (const glp_u64*)packed : nullptr;
    view.known_rows = 0u;  // rows the packed kernels know come with their packed edges
    view.packed_target_bits = target_bits;
    view.packed_offset_bits = offset_bits;
    view.prior_vertex = GLP_SAMPLE_NONE;  // none: known to the compiler
    view.roots = roots + i;
    view.sorted_roots = roots + i;
    view.root_count = 1u;
    view.history = walks + i;
    view.walk_stride = count;
    view.walk_mask = ~0ull;
    return view;
}

// v's row for a graph of fewer than 2^32 edges: its offset and degree from the offsets' low
// words, so that the compiler knows the offset's high word is 0 (one register, not two).
__device__ __forceinline__ void glp_walk_row32(const glp_sample_view& graph, glp_u32 v, glp_u64& offset, glp_u32& degree) {
    offset = 0ull;
    degree = 0u;
    if (v >= graph.num_vertices) return;
    const glp_u32* low = (const glp_u32*)graph.offsets;
    const glp_u32 first = low[2ull * v];
    offset = first;
    degree = low[2ull * v + 2ull] - first;
}

// After a step from t to v (not GLP_SAMPLE_NONE) with `stream`: v's row, from the packed edge
// the hook read when it was that edge, else from the offsets.
__device__ __forceinline__ void glp_walk_arrive(const glp_sample_view& graph, const glp_sample_stream& stream,
                                                glp_u32 t, glp_u32 v, glp_u64& offset, glp_u32& degree) {
    if (stream.last_source == t && stream.last_target == v && stream.last_offset != ~0ull) {
        offset = stream.last_offset;
        degree = stream.last_degree;
    } else {
        glp_walk_row(graph, v, offset, degree);
    }
}

// With one walker per thread (hooks that loop, on packed edges: node2vec beyond L2) a walker
// also keeps the vertex before its transit and that vertex's row, the view's prior row, and
// the membership test finds the drawn vertex's row in the packed edge: a second-order step
// reads neither the walk nor the offsets (H100, node2vec p=2 q=0.5: R-MAT 22 30.5 -> 26.5 ms
// against the plain kernel).
template <int PACKING, int W>
__device__ __forceinline__ void glp_walks(const glp_sample_params& params, const glp_sample_view& graph, glp_u64 seed,
                                          const glp_u32* __restrict__ samples, glp_u32 count, glp_u32 steps,
                                          const unsigned char* __restrict__ unique_steps,
                                          const glp_u32* __restrict__ roots, glp_u32* walks, glp_u64* failed_sample,
                                          const void* __restrict__ packed, glp_u32 target_bits,
                                          glp_u32 offset_bits) {
    constexpr bool PACKED = PACKING != GLP_WALKS_PLAIN;
    constexpr bool PRIOR = PACKED && W == 1;
    const glp_u64 base = (glp_u64)blockIdx.x * blockDim.x * W + threadIdx.x;
    glp_u32 current[W], sample[W], prior[W];
    glp_u64 row_offset[W], prior_offset[W];
    glp_u32 row_degree[W], prior_degree[W];
#pragma unroll
    for (int w = 0; w < W; ++w) {
        const glp_u64 i = base + (glp_u64)w * blockDim.x;
        current[w] = i < count ? roots[i] : GLP_SAMPLE_NONE;
        sample[w] = i < count ? samples[i] : 0u;
        if (i < count) walks[i] = current[w];
        if (PACKED) glp_walk_row(graph, current[w], row_offset[w], row_degree[w]);
        prior[w] = GLP_SAMPLE_NONE;
        prior_offset[w] = 0ull;
        prior_degree[w] = 0u;
    }
    for (glp_u32 step = 0; step < steps; ++step) {
        const bool unique = unique_steps[step] != 0;
        glp_u32 next[W];
#pragma unroll
        for (int w = 0; w < W; ++w) {
            const glp_u64 i = base + (glp_u64)w * blockDim.x;
            const glp_u32 t = current[w];
            next[w] = GLP_SAMPLE_NONE;
            if (t == GLP_SAMPLE_NONE) continue;  // a stopped walk
            glp_sample_stream stream = glp_sample_stream_new(seed, sample[w], step, 0u);
            glp_sample_view view = glp_walk_view<PACKING>(graph, packed, target_bits, offset_bits, roots, walks, count, i);
            view.known_vertex = t;
            view.known_offset = row_offset[w];
            view.known_degree = row_degree[w];
            if (PRIOR) {
                view.prior_vertex = prior[w];
                view.prior_offset = prior_offset[w];
                view.prior_degree = prior_degree[w];
            }
            view.stream = &stream;
            const glp_u32 v = glp_walk_next(params, view, sample[w], t, step, unique, failed_sample);
            next[w] = v;
            if (PACKED && v != GLP_SAMPLE_NONE) {
                if (PRIOR) {
                    prior[w] = t;
                    prior_offset[w] = row_offset[w];
                    prior_degree[w] = row_degree[w];
                }
                glp_walk_arrive(graph, stream, t, v, row_offset[w], row_degree[w]);
            }
        }
        bool running = false;
#pragma unroll
        for (int w = 0; w < W; ++w) {
            const glp_u64 i = base + (glp_u64)w * blockDim.x;
            if (current[w] != GLP_SAMPLE_NONE && i < count) walks[(glp_u64)(step + 1u) * count + i] = next[w];
            current[w] = next[w];
            running |= next[w] != GLP_SAMPLE_NONE;
        }
        if (!running) return;
    }
}

// Walks whose hooks loop (node2vec's rejection) over the CSR of a graph in L2, one walker per
// thread, as glp_walks writes them, one round at a time: a round runs one iteration of the
// hook's loop (glp_sample_next_resume: the hook split by glp-codegen's `cuda::resumable`),
// and a walker whose step ended writes its vertex and begins its next step in the next round
// while the others go on, so that no lane waits for the longest draw of its warp. On a graph
// in L2 the kernel is bound by issuing, and lanes idle in a warp-synchronous step cost most
// (node2vec p=2 q=0.5 on com-DBLP: a step's 1.6 attempts took its warp 6.4 rounds, 8.5 of 32
// lanes active; resumed, 14.2 active and 1.85 -> 1.24 G warp instructions, 2.87 -> 2.61 ms,
// H200). Beyond L2 the walks are bound by memory and the packed kernels stay warp-synchronous:
// a warp's walkers drift apart here, so its step-major writes cover several rows (R-MAT 22,
// resumed: 17x the L2 write sectors, 21.7 -> 27.5 ms). A round computes its walker's next
// Philox block at one place (glp_sample_stream_ahead) rather than at each draw that empties the
// buffer, and a walker keeps the vertex before its transit in a register rather than reading
// it back from the walk at each step (same PTX through the kernel cache, alternated three
// times, H200: 2.60 -> 2.41 ms, then 2.09 ms; bounding the kernel to 56 registers for a ninth
// block per SM lost, 2.56-2.81 ms, and so did a branch-free membership search, which gives up
// the early exit of a found vertex, 2.34 against 2.09 ms, and one that reads the last 8 or 16
// entries of its search at once, 2.38 and 2.47 ms). A thread takes its walks from a counter
// (`next_walk`, zeroed by the host): its warp's first 32 with one atomic, then one each time
// a walk ends, so that no lane idles until its block's slowest walk ends and no last partial
// wave of blocks runs alone (2.09 -> 2.03 ms, alternated three times, H200). A walker keeps
// its transit's row and the prior vertex's in registers (KNOWN_ROWS), read from the offsets
// once as it arrives, where an attempt had read the transit's offsets three times (the
// edge's bound check, its row, the weight's bound check) and a membership
// test the prior vertex's before its search (ncu: the loads the kernel waited on most after
// the search's): 1.95 -> 1.76 ms (H200, medians of 9, alternated twice, the same walks as the
// CPU's). Both rows take it from 64 to 72 registers and an 8-byte spill (7 blocks per SM,
// not 8) and still win:
// the transit's row alone stays at 64 and gave 1.79 ms, both bounded to 64 registers spill
// 44 bytes and gave 1.92 ms. (On an H100: 2.11 -> 1.79 ms.) Reading each drawn candidate's
// row as the hook reads its edge, so that an accepted candidate's row is in registers when
// its walker arrives (no read at the step's end), did not pay: 80 registers, 1.79 -> 1.98 ms;
// bounded to 72 (a 12-byte spill) 1.91 ms (H100, medians of 9, alternated three times, the
// same walks): the kernel is bound by its instructions more than by that read's latency.
template <bool KNOWN_ROWS>
__device__ __forceinline__ void glp_walks_resumable(const glp_sample_params& params, const glp_sample_view& graph,
                                                    glp_u64 seed, const glp_u32* __restrict__ samples, glp_u32 count,
                                                    glp_u32 steps, const unsigned char* __restrict__ unique_steps,
                                                    const glp_u32* __restrict__ roots, glp_u32* walks,
                                                    glp_u64* failed_sample, glp_u32* next_walk) {
    // A warp takes its first 32 walks together (one atomic, consecutive slots), then each
    // walker that ends takes the next untaken one.
    const unsigned lane = threadIdx.x & 31u;
    glp_u32 first = 0u;
    if (lane == 0u) first = atomicAdd(next_walk, 32u);
    glp_u32 i = __shfl_sync(0xFFFFFFFFu, first, 0) + lane;
    if (i >= count) return;
    glp_sample_stream stream;
    glp_sample_next_frame frame;
    // The hook's locals fixed by its parameters (node2vec's biases), set once per walker
    // rather than at every step's _begin (1.80 -> 1.73 ms, H100, alternated three times).
    glp_sample_next_fixed(params, frame);
    // The walker's transit is the view's known vertex, the vertex before it its prior vertex.
    // With KNOWN_ROWS (a graph of fewer than 2^32 edges: offsets of 32 bits) their rows too,
    // kept in registers from step to step (known_rows): the hook's reads of the transit's row
    // and its membership tests in the prior row read no offsets.
    glp_sample_view view;
    glp_u32 sample = 0u, step = 0u;
    bool begin = true;
    auto start = [&]() {  // walk i from its root
        view = glp_walk_view<GLP_WALKS_PLAIN>(graph, nullptr, 0u, 0u, roots, walks, count, i);
        view.known_rows = KNOWN_ROWS ? 1u : 0u;
        view.stream = &stream;
        sample = samples[i];
        view.known_vertex = roots[i];
        walks[i] = view.known_vertex;
        if (KNOWN_ROWS) glp_walk_row32(graph, view.known_vertex, view.known_offset, view.known_degree);
        step = 0u;
        begin = true;
    };
    start();
    while (true) {
        const glp_u32 t = view.known_vertex;
        if (step >= steps || t == GLP_SAMPLE_NONE) {  // the walk ended: the next untaken one
            i = atomicAdd(next_walk, 1u);
            if (i >= count) return;
            start();
            continue;
        }
        glp_u32 v = GLP_SAMPLE_NONE;
        bool finished = false;
        if (begin) {
            stream = glp_sample_stream_new(seed, sample, step, 0u);
            view.history_levels = step + 1u;
            view.step = step;
            finished = unique_steps[step] != 0 && glp_sample_degree(view, t) == 0ull;  // as glp_walk_next
        }
        if (!finished) {
            glp_sample_stream_ahead(stream);  // the round's Philox block, at one place
            finished = glp_sample_next_resume(params, view, sample, t, 0u, step, frame, begin, v);
        }
        begin = finished;
        if (!finished) continue;
        v = glp_walk_checked(view, sample, t, v, failed_sample);
        walks[(glp_u64)(step + 1u) * count + i] = v;
        view.prior_vertex = t;
        view.known_vertex = v;
        if (KNOWN_ROWS) {
            view.prior_offset = view.known_offset;
            view.prior_degree = view.known_degree;
            glp_walk_row32(graph, v, view.known_offset, view.known_degree);
        }
        ++step;
    }
}

// The walk kernels' parameters, and glp_walks's arguments from them.
#define GLP_WALK_KERNEL_PARAMS                                                                          \
    const glp_sample_params params, const glp_sample_view graph, const glp_u64 seed,                    \
        const glp_u32* __restrict__ samples, const glp_u32 count, const glp_u32 steps,                  \
        const unsigned char* __restrict__ unique_steps, const glp_u32* __restrict__ roots, glp_u32* walks, \
        glp_u64* failed_sample
#define GLP_WALK_KERNEL_ARGS params, graph, seed, samples, count, steps, unique_steps, roots, walks, failed_sample

extern "C" __global__ void __launch_bounds__(GLP_SAMPLE_WALK_THREADS) glp_sample_walks(GLP_WALK_KERNEL_PARAMS) {
    glp_walks<GLP_WALKS_PLAIN, GLP_SAMPLE_WALKERS>(GLP_WALK_KERNEL_ARGS, nullptr, 0u, 0u);
}

// Walks whose hooks loop (node2vec's rejection): a draw is a loop of data-dependent length, so
// a thread's walkers would run one after the other whatever the unrolling; one walker per
// thread, run one loop iteration per round (glp_walks_resumable).
extern "C" __global__ void __launch_bounds__(GLP_SAMPLE_WALK_THREADS)
glp_sample_walks_single(GLP_WALK_KERNEL_PARAMS, glp_u32* next_walk) {
    glp_walks_resumable<true>(GLP_WALK_KERNEL_ARGS, next_walk);
}

// The same for a graph of 2^32 edges or more: the rows are read from the offsets at each use.
extern "C" __global__ void __launch_bounds__(GLP_SAMPLE_WALK_THREADS)
glp_sample_walks_single_offsets(GLP_WALK_KERNEL_PARAMS, glp_u32* next_walk) {
    glp_walks_resumable<false>(GLP_WALK_KERNEL_ARGS, next_walk);
}

extern "C" __global__ void __launch_bounds__(GLP_SAMPLE_WALK_THREADS)
glp_sample_walks_packed(GLP_WALK_KERNEL_PARAMS, const uint4* __restrict__ packed) {
    glp_walks<GLP_WALKS_PACKED, GLP_SAMPLE_WALKERS>(GLP_WALK_KERNEL_ARGS, packed, 0u, 0u);
}

extern "C" __global__ void __launch_bounds__(GLP_SAMPLE_WALK_THREADS)
glp_sample_walks_narrow(GLP_WALK_KERNEL_PARAMS, const glp_u64* __restrict__ packed, const glp_u32 target_bits,
                        const glp_u32 offset_bits) {
    glp_walks<GLP_WALKS_NARROW, GLP_SAMPLE_WALKERS>(GLP_WALK_KERNEL_ARGS, packed, target_bits, offset_bits);
}

// The packed kernels with one walker per thread, for hooks that loop (register-bounded for
// GLP_SAMPLE_PACKED_SINGLE_WALK_BLOCKS blocks per SM: their walkers keep two rows).
extern "C" __global__ void __launch_bounds__(GLP_SAMPLE_WALK_THREADS, GLP_SAMPLE_PACKED_SINGLE_WALK_BLOCKS)
glp_sample_walks_packed_single(GLP_WALK_KERNEL_PARAMS, const uint4* __restrict__ packed) {
    glp_walks<GLP_WALKS_PACKED, 1>(GLP_WALK_KERNEL_ARGS, packed, 0u, 0u);
}

extern "C" __global__ void __launch_bounds__(GLP_SAMPLE_WALK_THREADS, GLP_SAMPLE_PACKED_SINGLE_WALK_BLOCKS)
glp_sample_walks_narrow_single(GLP_WALK_KERNEL_PARAMS, const glp_u64* __restrict__ packed, const glp_u32 target_bits,
                               const glp_u32 offset_bits) {
    glp_walks<GLP_WALKS_NARROW, 1>(GLP_WALK_KERNEL_ARGS, packed, target_bits, offset_bits);
}

// ----- walks resumed launch after launch over a ring of rows (the ring engine) -----
// Over a graph whose edges stay in host memory (the partitions placement), the graph's edges are
// cut into partitions; the host copies them to the device one after the other (or lets a launch
// read a sparse one over the bus), and each launch advances every walk whose transit's row is
// readable (a resident partition, or the one visited) until it leaves, so that one copy serves
// every walk waiting there. A graph in device memory (no partition table) is one partition,
// always readable: walks declared too long for a matrix of every level. A walk keeps its state between launches:
// its level in levels[i] (once it has stopped, the last row it wrote: the row of its
// GLP_SAMPLE_NONE, or steps), the partition of its transit's row in parts[i]
// (GLP_WALK_EMPTY_ROW for an empty row, GLP_SAMPLE_NONE once stopped: a launch skips the walks
// of other partitions reading 4 bytes), and its last rows in a ring of ring_mask + 1 rows
// (level l of slot i at ring[(l & ring_mask) * count + i]), which the host downloads as rows
// complete. A hook that reads its walk further back than the ring keeps records
// GLP_SAMPLE_HISTORY_FAULT (the host runs the batch again with every row kept).
#define GLP_WALK_EMPTY_ROW 0xFFFFFFFEu

// The partition of t's row (GLP_WALK_EMPTY_ROW when t has no edge: nothing to read; 0 for a
// graph in device memory, one partition).
__device__ __forceinline__ glp_u32 glp_walk_partition(const glp_sample_view& view, glp_u32 t) {
    const glp_u64 offset = view.offsets[t];
    if (view.offsets[t + 1u] == offset) return GLP_WALK_EMPTY_ROW;
    return glp_sample_partition_table(view) == nullptr ? 0u : (glp_u32)(offset >> view.partition_shift);
}

// Whether a walk whose row is in partition p can step now: p is in device memory (every row of
// a graph without a partition table), or is the partition this launch reads over the bus
// (bus_partition; ~0: none), or the row is empty.
__device__ __forceinline__ bool glp_walk_readable(const glp_sample_view& view, glp_u32 p, glp_u64 bus_partition) {
    const glp_u64* table = glp_sample_partition_table(view);
    return p == GLP_WALK_EMPTY_ROW || table == nullptr || (table[p] & 1ull) == 0ull || (glp_u64)p == bus_partition;
}

// Slot i's walk starts: its root at level 0 (stopped at once when there is no step).
extern "C" __global__ void glp_sample_walks_partitioned_start(const glp_sample_view graph,
                                                           const glp_u32* __restrict__ roots, const glp_u32 count,
                                                           const glp_u32 steps, glp_u32* ring, glp_u32* levels,
                                                           glp_u32* parts) {
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    ring[i] = roots[i];
    levels[i] = 0u;
    parts[i] = steps == 0u ? GLP_SAMPLE_NONE : glp_walk_partition(graph, roots[i]);
}

// Advances each walk while its row is readable and its level is below level_cap (the ring's
// last free row: the host keeps level_cap <= steps). Rows of other vertices a hook reads
// (node2vec's history) come from wherever the partition table says, over the bus if need be.
extern "C" __global__ void __launch_bounds__(GLP_SAMPLE_WALK_THREADS)
glp_sample_walks_partitioned(const glp_sample_params params, const glp_sample_view graph, const glp_u64 seed,
                             const glp_u32* __restrict__ samples, const glp_u32 count, const glp_u32 steps,
                             const unsigned char* __restrict__ unique_steps, const glp_u32* __restrict__ roots,
                             glp_u32* ring, const glp_u32 ring_mask, glp_u32* levels, glp_u32* parts,
                             const glp_u32 level_cap, const glp_u64 bus_partition, glp_u64* failed_sample) {
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    glp_u32 p = parts[i];
    if (p == GLP_SAMPLE_NONE || !glp_walk_readable(graph, p, bus_partition)) return;
    glp_u32 level = levels[i];
    if (level >= level_cap) return;
    const glp_u32 sample = samples[i];
    glp_u32 t = ring[(glp_u64)(level & ring_mask) * count + i];
    glp_sample_view view = graph;
    view.cached_row = nullptr;
    view.packed_edges = nullptr;
    view.packed_narrow = nullptr;
    view.known_rows = 0u;
    view.roots = roots + i;
    view.sorted_roots = roots + i;
    view.root_count = 1u;
    view.history = ring + i;
    view.walk_stride = count;
    view.walk_mask = ring_mask;
    view.prior_vertex = GLP_SAMPLE_NONE;  // the history is read from the ring
    bool stopped = false;
    while (level < level_cap && glp_walk_readable(graph, p, bus_partition)) {
        glp_sample_stream stream = glp_sample_stream_new(seed, sample, level, 0u);
        view.stream = &stream;
        const glp_u32 v = glp_walk_next(params, view, sample, t, level, unique_steps[level] != 0, failed_sample);
        ring[(glp_u64)((level + 1u) & ring_mask) * count + i] = v;
        level += 1u;
        if (v == GLP_SAMPLE_NONE) {
            stopped = true;
            break;
        }
        t = v;
        p = glp_walk_partition(graph, t);
    }
    levels[i] = level;
    parts[i] = stopped || level >= steps ? GLP_SAMPLE_NONE : p;
}

// The partitioned walks' state for the host: waiting[p] += the running walks whose transit's
// row is in partition p (p < partitions), waiting[partitions] = min(itself, the lowest level
// of a running walk), waiting[partitions + 1] += the running walks at an empty row,
// waiting[partitions + 2] = max(itself, the highest level of any walk: the rows written).
extern "C" __global__ void glp_sample_walks_waiting(const glp_u32* __restrict__ levels,
                                                    const glp_u32* __restrict__ parts, const glp_u32 count,
                                                    const glp_u32 partitions, glp_u32* waiting) {
    __shared__ glp_u32 per_partition[GLP_SAMPLE_MAX_PARTITIONS];
    for (glp_u32 p = threadIdx.x; p < partitions; p += blockDim.x) per_partition[p] = 0u;
    __syncthreads();
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    const glp_u32 highest = __reduce_max_sync(0xFFFFFFFFu, i < count ? levels[i] : 0u);
    if ((threadIdx.x & 31u) == 0u && highest != 0u) atomicMax(&waiting[partitions + 2u], highest);
    if (i < count) {
        const glp_u32 p = parts[i];
        if (p != GLP_SAMPLE_NONE) {
            atomicMin(&waiting[partitions], levels[i]);
            if (p == GLP_WALK_EMPTY_ROW) atomicAdd(&waiting[partitions + 1u], 1u);
            else atomicAdd(&per_partition[p], 1u);
        }
    }
    __syncthreads();
    for (glp_u32 p = threadIdx.x; p < partitions; p += blockDim.x) {
        if (per_partition[p] != 0u) atomicAdd(&waiting[p], per_partition[p]);
    }
}

// Rows first_row..first_row + rows of the walks in columns alive[0..width) (ascending), out of
// the ring (row l of column c at ring[(l & ring_mask) * count + c]), row-major into out: the rows
// the host downloads, of the walks still running only.
extern "C" __global__ void glp_sample_walk_window(const glp_u32* __restrict__ ring, const glp_u64 count,
                                                  const glp_u32 ring_mask, const glp_u32 first_row, const glp_u32 rows,
                                                  const glp_u32* __restrict__ alive, const glp_u64 width,
                                                  glp_u32* __restrict__ out) {
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (glp_u64)rows * width) return;
    const glp_u64 r = i / width;
    out[i] = ring[(glp_u64)((first_row + (glp_u32)r) & ring_mask) * count + alive[i - r * width]];
}

// The packed edges of glp_sample_walks: for edge e, its target, the target's degree and the
// target's offset (low word, high word). The host builds them when every degree fits 32 bits.
extern "C" __global__ void glp_sample_pack_edges(const glp_sample_view graph, uint4* packed, const glp_u64 edges) {
    const glp_u64 e = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= edges) return;
    const glp_u32 u = graph.targets[e];
    const glp_u64 offset = graph.offsets[u];
    packed[e] = make_uint4(u, (glp_u32)(graph.offsets[u + 1u] - offset), (glp_u32)offset, (glp_u32)(offset >> 32));
}

// The same in one word per edge (glp_sample_walks_narrow): target | offset << target_bits |
// degree << (target_bits + offset_bits). The host builds them when the three fit 64 bits.
extern "C" __global__ void glp_sample_pack_edges_narrow(const glp_sample_view graph, glp_u64* packed, const glp_u64 edges,
                                                        const glp_u32 target_bits, const glp_u32 offset_bits) {
    const glp_u64 e = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= edges) return;
    const glp_u32 u = graph.targets[e];
    const glp_u64 offset = graph.offsets[u];
    const glp_u64 degree = graph.offsets[u + 1u] - offset;
    packed[e] = (glp_u64)u | (offset << target_bits) | (degree << (target_bits + offset_bits));
}

// A batch of walks as rows of input ids, on the device (the zero-copy output of the Python
// package): walk j of the batch (column columns[j] of the step-major matrix of `batch`
// columns, the batch's samples; one warp each) into row first + j of `out` (rows of `rows` entries), each vertex
// as its input id (ids[v], or first_id + v without a table) up to the walk's first NONE and
// -1 from there on (the kernels leave a stopped walk's later levels unwritten); the longest
// walk's length into *longest, and the vertices the walks added (their roots apart) into *added.
extern "C" __global__ void glp_sample_walk_rows(const glp_u32* __restrict__ walks, const glp_u64 batch,
                                                const glp_u32* __restrict__ columns, const glp_u64 count,
                                                const glp_u32 rows, const glp_u64 first, const glp_u64 first_id,
                                                const glp_u64* __restrict__ ids, glp_i64* out, glp_u32* longest,
                                                glp_u64* added) {
    const glp_u64 j = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) / 32ull;
    const glp_u32 lane_id = threadIdx.x & 31u;
    if (j >= count) return;  // whole warps: j is the warp's
    const glp_u64 column = columns[j];
    glp_i64* row = out + (first + j) * (glp_u64)rows;
    bool stopped = false;
    glp_u32 length = rows;
    for (glp_u32 base = 0u; base < rows; base += 32u) {
        const glp_u32 level = base + lane_id;
        const glp_u32 v = !stopped && level < rows ? walks[(glp_u64)level * batch + column] : GLP_SAMPLE_NONE;
        const unsigned ends = __ballot_sync(0xFFFFFFFFu, level < rows && v == GLP_SAMPLE_NONE);
        const glp_u32 end = ends != 0u ? (glp_u32)__ffs(ends) - 1u : 32u;  // this chunk's first NONE
        if (level < rows) row[level] = stopped || lane_id >= end ? (glp_i64)-1 : (glp_i64)(ids != nullptr ? ids[v] : first_id + v);
        if (!stopped && ends != 0u) length = base + end;
        stopped = stopped || ends != 0u;
    }
    if (lane_id == 0u) {
        atomicMax(longest, length);
        atomicAdd((unsigned long long*)added, (unsigned long long)(length - 1u));
    }
}
