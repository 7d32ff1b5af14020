// The edge-centric engine's kernels (WolfGraph), after the program's hooks (glp_edge_*), its
// declared types (glp_edge_value, glp_edge_message) and the view. An iteration is
//   [glp_edge_aggregate_values]  the sum of `aggregate` over the vertices (programs that read it)
//   glp_edge_edges               every edge's message, combined per receiver: one kernel, one
//                                pass per edge array (in-edges, out-edges for IN and BOTH)
//   glp_edge_apply_values        every vertex's new value from its combined messages
// The host reads the count of changed vertices (and a hook's loop fault) after each iteration.
// Every kernel runs blocks of GLP_EDGE_THREADS threads (a multiple of 32: the warp-wide
// ballots and shuffles below take every lane); GLP_EDGE_THREADS and GLP_EDGE_BLOCK_EDGES are
// defined before this file from glp-codegen's constants (kinds::edge::ENGINE_THREADS, ...).

// The identity of combine `op` for a message type (the overload is chosen by the unused
// second argument's type): the type's largest value for MIN, its lowest for MAX, 0 for SUM,
// as the CPU engine's `Identity`.
__device__ __forceinline__ glp_u32 glp_edge_identity(glp_u32 op, glp_u32) {
    return op == GLP_EDGE_MIN ? 0xFFFFFFFFu : 0u;
}
__device__ __forceinline__ glp_i32 glp_edge_identity(glp_u32 op, glp_i32) {
    return op == GLP_EDGE_MIN ? (glp_i32)0x7FFFFFFF : op == GLP_EDGE_MAX ? (glp_i32)0x80000000u : 0;
}
__device__ __forceinline__ glp_u64 glp_edge_identity(glp_u32 op, glp_u64) {
    return op == GLP_EDGE_MIN ? 0xFFFFFFFFFFFFFFFFull : 0ull;
}
__device__ __forceinline__ glp_i64 glp_edge_identity(glp_u32 op, glp_i64) {
    return op == GLP_EDGE_MIN ? (glp_i64)0x7FFFFFFFFFFFFFFFll
                              : op == GLP_EDGE_MAX ? (glp_i64)0x8000000000000000ull : (glp_i64)0;
}
__device__ __forceinline__ float glp_edge_identity(glp_u32 op, float) {
    return op == GLP_EDGE_MIN ? __int_as_float(0x7F800000) : op == GLP_EDGE_MAX ? __int_as_float((int)0xFF800000u) : 0.0f;
}
__device__ __forceinline__ double glp_edge_identity(glp_u32 op, double) {
    return op == GLP_EDGE_MIN   ? __longlong_as_double(0x7FF0000000000000ll)
           : op == GLP_EDGE_MAX ? __longlong_as_double((long long)0xFFF0000000000000ull)
                                : 0.0;
}

// Block-wide reductions: every thread of the block calls them at the same point (they hold
// barriers), so a kernel that uses them returns early only a whole block at a time. Counting
// into one global counter with a block's single atomic rather than a warp's: same-address
// atomics serialise at the L2, about one per clock, which a warp per 32 vertices of a large
// graph turns into milliseconds.
#define GLP_FULL_WARP 0xFFFFFFFFu

// The sum of every thread's `x` over the block, on thread 0 (the others get partial sums).
template <typename T>
__device__ __forceinline__ T glp_block_sum(T x) {
    __shared__ T warps[32];
    for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_down_sync(GLP_FULL_WARP, x, offset);
    if ((threadIdx.x & 31u) == 0u) warps[threadIdx.x >> 5] = x;
    __syncthreads();
    if (threadIdx.x < 32u) {
        x = threadIdx.x < (blockDim.x >> 5) ? warps[threadIdx.x] : T(0);
        for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_down_sync(GLP_FULL_WARP, x, offset);
    }
    __syncthreads();  // warps[] free for the next call
    return x;
}

// Adds every thread's `x` to *total: one atomicAdd per block (none for a zero sum).
__device__ __forceinline__ void glp_block_add(glp_u64* total, glp_u64 x) {
    x = glp_block_sum(x);
    if (threadIdx.x == 0u && x != 0ull) atomicAdd((unsigned long long*)total, (unsigned long long)x);
}

// Appends `v` where `take` to list[*count ...]: one atomicAdd per block, the block's entries
// in thread order.
__device__ __forceinline__ void glp_block_append(glp_u32* list, glp_u64* count, bool take, glp_u32 v) {
    __shared__ glp_u32 before[32];  // the block's entries before each warp's
    __shared__ glp_u64 base;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned ballot = __ballot_sync(GLP_FULL_WARP, take);
    if (lane == 0u) before[threadIdx.x >> 5] = __popc(ballot);
    __syncthreads();
    if (threadIdx.x < 32u) {
        const glp_u32 own = threadIdx.x < (blockDim.x >> 5) ? before[threadIdx.x] : 0u;
        glp_u32 inclusive = own;
        for (unsigned offset = 1; offset < 32; offset <<= 1) {
            const glp_u32 up = __shfl_up_sync(GLP_FULL_WARP, inclusive, offset);
            if (lane >= offset) inclusive += up;
        }
        before[threadIdx.x] = inclusive - own;
        const glp_u32 total = __shfl_sync(GLP_FULL_WARP, inclusive, 31);
        if (threadIdx.x == 0u) base = total ? atomicAdd((unsigned long long*)count, (unsigned long long)total) : 0ull;
    }
    __syncthreads();
    if (take) list[base + before[threadIdx.x >> 5] + __popc(ballot & ((1u << lane) - 1u))] = v;
    __syncthreads();  // before[] and base free for the next call
}

// glp_block_append for a kernel whose block takes several trips (at most 64) over its
// vertices: bit t of a thread's `noted` says it appends entry(t) in trip t, and the block
// appends every trip's entries at once after its last trip, with one atomicAdd instead of one
// per trip and no barrier between trips (a warp runs on while another waits on memory). A
// warp's entries go trip by trip, its lanes in order within a trip (coalesced writes).
template <typename Entry>
__device__ __forceinline__ void glp_block_append_trips(glp_u32* list, glp_u64* count, glp_u64 noted, glp_u32 trips,
                                                       Entry entry) {
    __shared__ glp_u32 before[32];  // the block's entries before each warp's
    __shared__ glp_u64 base;
    const unsigned lane = threadIdx.x & 31u;
    const glp_u32 warp_total = __reduce_add_sync(GLP_FULL_WARP, (glp_u32)__popcll(noted));
    if (lane == 0u) before[threadIdx.x >> 5] = warp_total;
    __syncthreads();
    if (threadIdx.x < 32u) {
        const glp_u32 own = threadIdx.x < (blockDim.x >> 5) ? before[threadIdx.x] : 0u;
        glp_u32 inclusive = own;
        for (unsigned offset = 1; offset < 32; offset <<= 1) {
            const glp_u32 up = __shfl_up_sync(GLP_FULL_WARP, inclusive, offset);
            if (lane >= offset) inclusive += up;
        }
        before[threadIdx.x] = inclusive - own;
        const glp_u32 total = __shfl_sync(GLP_FULL_WARP, inclusive, 31);
        if (threadIdx.x == 0u) base = total ? atomicAdd((unsigned long long*)count, (unsigned long long)total) : 0ull;
    }
    __syncthreads();
    if (warp_total != 0u) {
        glp_u64 at = base + before[threadIdx.x >> 5];
        for (glp_u32 t = 0; t < trips; ++t) {
            const bool take = (noted >> t) & 1ull;
            const unsigned ballot = __ballot_sync(GLP_FULL_WARP, take);
            if (take) list[at + __popc(ballot & ((1u << lane) - 1u))] = entry(t);
            at += __popc(ballot);
        }
    }
    __syncthreads();  // before[] and base free for the next call
}

// Every vertex's first value; the combined messages start at the identity and every vertex
// is active (a frontier's first iteration processes every edge).
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS) glp_edge_init_values(const glp_edge_params params, const glp_edge_view view,
                                                glp_edge_value* values, glp_edge_message* combined,
                                                unsigned char* active, const glp_u32 op) {
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= view.num_vertices) return;
    const glp_u32 v = (glp_u32)i;
    values[v] = glp_edge_init(params, view, glp_edge_graph_id(view, v));
    combined[v] = glp_edge_identity(op, glp_edge_message{});
    if (active) active[v] = 1;
}

// The sum of `aggregate` over the vertices, into *sum (zeroed by the host): one atomicAdd per
// block. The order of the additions differs from the CPU engine's (fixed blocks in vertex
// order): sums agree to rounding.
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS) glp_edge_aggregate_values(const glp_edge_params params, const glp_edge_view view,
                                                     const glp_edge_value* __restrict__ values, double* sum) {
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    const glp_u32 v = (glp_u32)i;
    const double x = glp_block_sum(i < view.num_vertices ? glp_edge_aggregate(params, view, glp_edge_graph_id(view, v), values[v]) : 0.0);
    if (threadIdx.x == 0u && x != 0.0) atomicAdd(sum, x);
}

// One edge block: GLP_EDGE_BLOCK_EDGES consecutive edges of an edge array ordered
// by receiver (a CSR's rows expanded: `receivers[e]` is the row of entry e, `senders[e]` the
// vertex in it), one thread per edge at a time with coalesced reads of the senders,
// receivers and weights. A message goes to the block's shared-memory slot of its receiver
// (the block's receivers are consecutive ids from the first one's: slot = receiver - first,
// with shared atomics), or to the receiver's global slot when its id lies beyond the block's
// slots (vertices without edges in between); then, in the same kernel (shared memory does not
// outlive it), the slots that received a message are flushed into the global combined
// messages with the program's combine. With a frontier (`active`), only the edges of the
// senders that changed in the iteration before carry a message, and every receiver's
// `received_at` becomes `stamp` (iteration + 1), which `apply` reads.
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS)
glp_edge_edges(const glp_edge_params params, const glp_edge_view view, const glp_u32* __restrict__ senders,
               const glp_u32* __restrict__ receivers, const float* __restrict__ weights, const glp_u64 edges,
               const unsigned char* __restrict__ active, const glp_edge_value* __restrict__ values,
               glp_edge_message* combined, glp_u32* received_at, const glp_u32 stamp, const glp_u32 op) {
    __shared__ glp_edge_message slots[GLP_EDGE_BLOCK_EDGES];
    __shared__ glp_u32 got[GLP_EDGE_BLOCK_EDGES];  // whether slot i took a message
    const glp_u32 capacity = GLP_EDGE_BLOCK_EDGES;
    const glp_u64 first = (glp_u64)blockIdx.x * capacity;
    if (first >= edges) return;  // the whole block: no thread reaches a barrier
    const glp_u64 end = first + capacity < edges ? first + capacity : edges;
    const glp_u32 base = receivers[first];
    const glp_edge_message identity = glp_edge_identity(op, glp_edge_message{});
    for (glp_u32 i = threadIdx.x; i < capacity; i += blockDim.x) {
        slots[i] = identity;
        got[i] = 0;
    }
    __syncthreads();
    for (glp_u64 e = first + threadIdx.x; e < end; e += blockDim.x) {
        const glp_u32 from = senders[e];
        if (active && !active[from]) continue;
        const glp_u32 to = receivers[e];
        const double weight = weights ? (double)weights[e] : 1.0;
        const auto sent = glp_edge_edge(params, view, glp_edge_graph_id(view, from), glp_edge_graph_id(view, to), values[from], weight);
        if (!sent._0) continue;
        const glp_u32 local = to - base;
        if (local < capacity) {
            glp_edge_atomic_combine(op, &slots[local], sent._1);
            atomicOr(&got[local], 1u);
        } else {
            glp_edge_atomic_combine(op, &combined[to], sent._1);
            if (received_at) received_at[to] = stamp;
        }
    }
    __syncthreads();
    for (glp_u32 i = threadIdx.x; i < capacity; i += blockDim.x) {
        if (!got[i]) continue;
        glp_edge_atomic_combine(op, &combined[base + i], slots[i]);
        if (received_at) received_at[base + i] = stamp;
    }
}

// Every vertex's new value from its combined messages (the identity when none came): apply,
// then whether it changed (counted into *changed, zeroed by the host; a frontier's next
// active vertices); the combined messages go back to the identity for the next iteration.
// With a frontier, a vertex no message reached in this iteration keeps its value.
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS) glp_edge_apply_values(const glp_edge_params params, const glp_edge_view view,
                                                 glp_edge_value* values, glp_edge_message* combined,
                                                 unsigned char* active, const glp_u32* received_at,
                                                 const glp_u32 stamp, const glp_u32 op, glp_u64* changed) {
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    const glp_u32 v = (glp_u32)i;
    bool did = false;
    if (i < view.num_vertices && received_at && received_at[v] != stamp) {
        active[v] = 0;  // a frontier program's vertex without messages keeps its value
    } else if (i < view.num_vertices) {
        const glp_edge_value old = values[v];
        const glp_edge_message c = combined[v];
        const glp_edge_value next = glp_edge_apply(params, view, glp_edge_graph_id(view, v), old, c);
        did = glp_edge_changed(params, old, next);
        values[v] = next;
        combined[v] = glp_edge_identity(op, c);
        if (active) active[v] = did ? 1 : 0;
    }
    glp_block_add(changed, did ? 1ull : 0ull);
}
