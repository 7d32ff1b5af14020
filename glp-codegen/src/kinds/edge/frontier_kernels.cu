// The frontier engine's kernels, after the edge-centric engine's (whose init and aggregate
// kernels it shares) and the run's state `glp_frontier_state` (kinds::edge::layout::FrontierArgs). The graph is a CSR per way that
// values travel: push rows list a sender's receivers, pull rows a receiver's senders. An
// iteration is either
//   push (a sparse frontier): glp_frontier_push over the frontier's rows, rows longer than
//        GLP_FRONTIER_SMALL_ROW split into chunks for glp_frontier_push_chunks; messages
//        combined into `combined` with the program's atomics, each receiver listed once in
//        `touched` (its `received_at` stamp); then glp_frontier_apply_touched;
//   pull (a dense frontier, and every iteration of a program without one):
//        [glp_frontier_send: every active sender's message, once, when `edge` reads only its
//        sender: a `sending` bit per vertex and `messages`; glp_frontier_send_listed for a
//        sparse frontier, a thread per listed vertex]; glp_frontier_pull, a group of
//        lanes per receiver, rows longer than GLP_FRONTIER_PULL_SMALL cut into chunks for
//        glp_frontier_pull_chunks (a warp each, combined with atomics) and applied by
//        glp_frontier_pull_finish. When `edge` reads only its sender a pull reads no other
//        vertex's value, so new values go straight into `values`; otherwise other receivers
//        read the old ones, so they are staged and written by glp_frontier_commit.
// Both end with the changed vertices in `queue_out` (the next frontier), their `changed_at`
// stamp (iteration + 1: a sender is active in iteration i when its stamp is i, so that every
// vertex is active in iteration 0) and the counters the host reads to choose the next
// iteration's direction. Counters and lists grow by one atomic per block (glp_block_add,
// glp_block_append), so the kernels that use them stride over a count the device holds a
// block at a time (every thread of a block takes the same trips); the kernels over every
// vertex (glp_frontier_send, glp_frontier_pull) give a block GLP_FRONTIER_TRIPS strides of
// its threads and append once after them (glp_block_append_trips); a push's inner loops, whose
// trips differ between warps, append a warp at a time (a long row's chunk at once).

// Appends `v` where `take` to list[*count ...]: one atomicAdd per warp. Every lane calls it.
__device__ __forceinline__ void glp_frontier_append(glp_u32* list, glp_u64* count, bool take, glp_u32 v) {
    const unsigned ballot = __ballot_sync(GLP_FULL_WARP, take);
    if (ballot == 0u) return;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned leader = __ffs(ballot) - 1u;
    glp_u64 base = 0;
    if (lane == leader) base = atomicAdd((unsigned long long*)count, (unsigned long long)__popc(ballot));
    base = __shfl_sync(GLP_FULL_WARP, base, leader);
    if (take) list[base + __popc(ballot & ((1u << lane) - 1u))] = v;
}

// glp_frontier_append for a warp's loop of `rounds` (at most 64): bit r of a lane's `noted`
// says it appends entry(r) in round r, and the warp appends every round's entries with one
// atomicAdd (atomics on one address serialise: a hub's push appended a warp per 32 edges).
// Every lane calls it.
template <typename Entry>
__device__ __forceinline__ void glp_frontier_append_rounds(glp_u32* list, glp_u64* count, glp_u64 noted,
                                                           glp_u32 rounds, Entry entry) {
    const glp_u32 total = __reduce_add_sync(GLP_FULL_WARP, (glp_u32)__popcll(noted));
    if (total == 0u) return;
    const unsigned lane = threadIdx.x & 31u;
    glp_u64 at = 0;
    if (lane == 0u) at = atomicAdd((unsigned long long*)count, (unsigned long long)total);
    at = __shfl_sync(GLP_FULL_WARP, at, 0);
    for (glp_u32 r = 0; r < rounds; ++r) {
        const bool take = (noted >> r) & 1ull;
        const unsigned ballot = __ballot_sync(GLP_FULL_WARP, take);
        if (take) list[at + __popc(ballot & ((1u << lane) - 1u))] = entry(r);
        at += __popc(ballot);
    }
}
static_assert(GLP_FRONTIER_CHUNK / 32 <= 64, "a chunk's rounds are noted in a 64-bit mask");

// The edges `v` pushes along in an iteration: its rows of the push CSRs (0 in a run that
// never pushes).
__device__ __forceinline__ glp_u64 glp_frontier_push_degree(const glp_frontier_state& s, glp_u32 v) {
    if (!s.push_offsets_a) return 0;
    glp_u64 d = s.push_offsets_a[v + 1] - s.push_offsets_a[v];
    if (s.push_offsets_b) d += s.push_offsets_b[v + 1] - s.push_offsets_b[v];
    return d;
}

// The warp-uniform start of a thread's strided loop over a count the device holds, the
// block-uniform one (every thread of a block takes the same trips, as glp_block_append
// needs), and the stride.
__device__ __forceinline__ glp_u64 glp_frontier_warp_first() {
    return (glp_u64)blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
}
__device__ __forceinline__ glp_u64 glp_frontier_block_first() { return (glp_u64)blockIdx.x * blockDim.x; }
__device__ __forceinline__ glp_u64 glp_frontier_stride() { return (glp_u64)gridDim.x * blockDim.x; }

// The thread index of this thread's trip `t` in a kernel whose block takes
// GLP_FRONTIER_TRIPS strides of its threads over consecutive positions (one atomic per block
// for its lists and counts: glp_block_append_trips).
static_assert(GLP_FRONTIER_TRIPS <= 64, "a trip's entries are noted in a 64-bit mask");
__device__ __forceinline__ glp_u64 glp_frontier_trip(glp_u32 t) {
    return ((glp_u64)blockIdx.x * GLP_FRONTIER_TRIPS + t) * blockDim.x + threadIdx.x;
}

// Whether sender `u` sends a message this iteration (its bit of `sending`).
__device__ __forceinline__ bool glp_frontier_sends(const glp_frontier_state& s, glp_u32 u) {
    return (s.sending[u >> 5] >> (u & 31u)) & 1u;
}

// A message delivered to `to` where `has`: combined with the program's atomic; whether it is
// `to`'s first of the iteration (the caller lists `to` in `touched`).
__device__ __forceinline__ bool glp_frontier_deliver(const glp_frontier_state& s, bool has, glp_u32 to,
                                                     glp_edge_message m) {
    if (!has) return false;
    glp_edge_atomic_combine(s.op, &s.combined[to], m);
    return s.received_at[to] != s.stamp && atomicExch(&s.received_at[to], s.stamp) != s.stamp;
}

// The message of edge `e` (sender `u`, receiver `to`) where the sender sends one: the
// sender's own when `edge` reads only its sender (`sender_send`, `sender_message`).
__device__ __forceinline__ bool glp_frontier_message(const glp_edge_params& params, const glp_edge_view& view,
                                                     const glp_frontier_state& s, glp_u32 u, glp_u32 to,
                                                     const float* __restrict__ weights, glp_u64 e,
                                                     glp_edge_message& m) {
    if (!(s.flags & GLP_FRONTIER_RECEIVER)) return true;  // m is the sender's message
    const auto sent = glp_edge_edge(params, view, glp_edge_graph_id(view, u), glp_edge_graph_id(view, to), s.values[u], weights ? (double)weights[e] : 1.0);
    m = sent._1;
    return sent._0;
}

// Push: the rows of the frontier's vertices (`frontier[0..count)`, or every vertex when null)
// in one CSR. A warp takes 32 vertices and shares their edges among its lanes (a scan of the
// degrees, each lane finding its edge's row by binary search over the lanes); a row longer
// than GLP_FRONTIER_SMALL_ROW is listed in chunks of GLP_FRONTIER_CHUNK edges instead.
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS)
glp_frontier_push(const glp_edge_params params, const glp_edge_view view, const glp_frontier_state s,
                  const glp_u64* __restrict__ offsets, const glp_u32* __restrict__ targets,
                  const float* __restrict__ weights, const glp_u32* __restrict__ frontier, const glp_u64 count,
                  glp_u64* chunk_count) {
    const unsigned lane = threadIdx.x & 31u;
    for (glp_u64 first = glp_frontier_warp_first(); first < count; first += glp_frontier_stride()) {
        const glp_u64 i = first + lane;
        glp_u32 u = 0;
        glp_u64 begin = 0, degree = 0;
        glp_edge_message m = glp_edge_identity(s.op, glp_edge_message{});
        if (i < count) {
            u = frontier ? frontier[i] : (glp_u32)i;
            begin = offsets[u];
            degree = offsets[u + 1] - begin;
            if (!(s.flags & GLP_FRONTIER_RECEIVER) && degree > 0) {
                const auto sent = glp_edge_edge(params, view, glp_edge_graph_id(view, u), glp_edge_graph_id(view, u), s.values[u], 1.0);
                m = sent._1;
                if (!sent._0) degree = 0;
            }
            if (degree > GLP_FRONTIER_SMALL_ROW) {
                const glp_u64 chunks = (degree + GLP_FRONTIER_CHUNK - 1) / GLP_FRONTIER_CHUNK;
                const glp_u64 at = atomicAdd((unsigned long long*)chunk_count, (unsigned long long)chunks);
                for (glp_u64 c = 0; c < chunks; ++c) s.chunks[at + c] = ((glp_u64)u << 32) | c;
                degree = 0;
            }
        }
        const glp_u32 own = (glp_u32)degree;
        glp_u32 inclusive = own;
        for (unsigned offset = 1; offset < 32; offset <<= 1) {
            const glp_u32 before = __shfl_up_sync(GLP_FULL_WARP, inclusive, offset);
            if (lane >= offset) inclusive += before;
        }
        const glp_u32 total = __shfl_sync(GLP_FULL_WARP, inclusive, 31);
        for (glp_u32 base = 0; base < total; base += 32) {
            const glp_u32 k = base + lane;
            // The row of edge k: the lanes whose inclusive sums are <= k come before it.
            unsigned owner = 0;
            for (unsigned step = 16; step > 0; step >>= 1) {
                if (__shfl_sync(GLP_FULL_WARP, inclusive, owner + step - 1) <= k) owner += step;
            }
            const glp_u32 start = __shfl_sync(GLP_FULL_WARP, inclusive - own, owner);
            const glp_u64 row = __shfl_sync(GLP_FULL_WARP, begin, owner);
            const glp_u32 from = __shfl_sync(GLP_FULL_WARP, u, owner);
            glp_edge_message message = __shfl_sync(GLP_FULL_WARP, m, owner);
            bool has = false;
            glp_u32 to = 0;
            if (k < total) {
                const glp_u64 e = row + (k - start);
                to = targets[e];
                has = glp_frontier_message(params, view, s, from, to, weights, e, message);
            }
            glp_frontier_append(s.touched, &s.counters[GLP_FRONTIER_TOUCHED], glp_frontier_deliver(s, has, to, message), to);
        }
    }
}

// Push, long rows: a warp per chunk of GLP_FRONTIER_CHUNK edges of one row (entries
// `vertex << 32 | chunk`, *chunk_count of them), its receivers listed in `touched` once a
// chunk (glp_frontier_append_rounds).
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS)
glp_frontier_push_chunks(const glp_edge_params params, const glp_edge_view view, const glp_frontier_state s,
                         const glp_u64* __restrict__ offsets, const glp_u32* __restrict__ targets,
                         const float* __restrict__ weights, const glp_u64* chunk_count) {
    const unsigned lane = threadIdx.x & 31u;
    const glp_u64 count = *chunk_count;
    const glp_u64 warps = glp_frontier_stride() >> 5;
    for (glp_u64 c = glp_frontier_warp_first() >> 5; c < count; c += warps) {
        const glp_u64 entry = s.chunks[c];
        const glp_u32 u = (glp_u32)(entry >> 32);
        const glp_u64 begin = offsets[u] + (entry & 0xFFFFFFFFull) * GLP_FRONTIER_CHUNK;
        const glp_u64 row_end = offsets[u + 1];
        const glp_u64 end = begin + GLP_FRONTIER_CHUNK < row_end ? begin + GLP_FRONTIER_CHUNK : row_end;
        glp_edge_message m = glp_edge_identity(s.op, glp_edge_message{});
        if (!(s.flags & GLP_FRONTIER_RECEIVER)) m = glp_edge_edge(params, view, glp_edge_graph_id(view, u), glp_edge_graph_id(view, u), s.values[u], 1.0)._1;
        glp_u64 first = 0;  // bit r: this lane's edge of round r is its receiver's first message
        glp_u32 rounds = 0;
        for (glp_u64 e0 = begin; e0 < end; e0 += 32, ++rounds) {
            const glp_u64 e = e0 + lane;
            bool has = false;
            glp_u32 to = 0;
            glp_edge_message message = m;
            if (e < end) {
                to = targets[e];
                has = glp_frontier_message(params, view, s, u, to, weights, e, message);
            }
            if (glp_frontier_deliver(s, has, to, message)) first |= 1ull << rounds;
        }
        glp_frontier_append_rounds(s.touched, &s.counters[GLP_FRONTIER_TOUCHED], first, rounds,
                                   [&](glp_u32 r) { return targets[begin + 32u * r + lane]; });
    }
}

// After a push: every touched vertex's `apply` (its combined messages back to the identity);
// the changed ones get their new value and stamp and join the next frontier.
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS)
glp_frontier_apply_touched(const glp_edge_params params, const glp_edge_view view, const glp_frontier_state s) {
    const glp_u64 count = s.counters[GLP_FRONTIER_TOUCHED];
    glp_u64 degrees = 0;
    for (glp_u64 first = glp_frontier_block_first(); first < count; first += glp_frontier_stride()) {
        const glp_u64 i = first + threadIdx.x;
        bool did = false;
        glp_u32 v = 0;
        if (i < count) {
            v = s.touched[i];
            const glp_edge_value old = s.values[v];
            const glp_edge_message c = s.combined[v];
            s.combined[v] = glp_edge_identity(s.op, c);
            const glp_edge_value next = glp_edge_apply(params, view, glp_edge_graph_id(view, v), old, c);
            did = glp_edge_changed(params, old, next);
            if (did) {
                s.values[v] = next;
                s.changed_at[v] = s.stamp;
                degrees += glp_frontier_push_degree(s, v);
            }
        }
        glp_block_append(s.queue_out, &s.counters[GLP_FRONTIER_CHANGED], did, v);
    }
    glp_block_add(&s.counters[GLP_FRONTIER_NEXT_EDGES], degrees);
}

// Before a pull, when `edge` reads only its sender: the message of every vertex a pull covers
// (`s.receivers`), once (none from an inactive vertex), its bit of `sending` (a warp writes
// its 32 vertices' word) and the count of senders; with GLP_FRONTIER_LIST_SENDERS (the first
// frontier, for a push) the senders listed in `senders` and the edges they push along
// counted. A block takes GLP_FRONTIER_TRIPS strides of its threads (glp_frontier_trip).
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS)
glp_frontier_send(const glp_edge_params params, const glp_edge_view view, const glp_frontier_state s) {
    const glp_u64 first = glp_frontier_trip(0);
    glp_u64 sends = 0, edges = 0, listed = 0;
    for (glp_u32 t = 0; t < GLP_FRONTIER_TRIPS; ++t) {
        const glp_u64 i = first + (glp_u64)t * blockDim.x;
        if (i - (threadIdx.x & 31u) >= s.receivers) break;  // the whole warp is past the end
        bool send = false;
        if (i < s.receivers) {
            const glp_u32 u = (glp_u32)i;
            if (!(s.flags & GLP_FRONTIER_FRONTIER) || s.changed_at[u] == view.iteration) {
                const auto sent = glp_edge_edge(params, view, glp_edge_graph_id(view, u), glp_edge_graph_id(view, u), s.values[u], 1.0);
                send = sent._0;
                if (send) s.messages[u] = sent._1;
            }
        }
        const unsigned ballot = __ballot_sync(GLP_FULL_WARP, send);
        if ((threadIdx.x & 31u) == 0u) s.sending[i >> 5] = ballot;
        if (send) {
            sends += 1;
            listed |= 1ull << t;
            if (s.flags & GLP_FRONTIER_LIST_SENDERS) edges += glp_frontier_push_degree(s, (glp_u32)i);
        }
    }
    if (s.flags & GLP_FRONTIER_LIST_SENDERS) {
        glp_block_append_trips(s.senders, &s.counters[GLP_FRONTIER_SENDERS], listed, GLP_FRONTIER_TRIPS,
                               [&](glp_u32 t) { return (glp_u32)(first + (glp_u64)t * blockDim.x); });
        glp_block_add(&s.counters[GLP_FRONTIER_SENDER_EDGES], edges);
    } else {
        glp_block_add(&s.counters[GLP_FRONTIER_SENDERS], sends);
    }
}

// glp_frontier_send for a sparse frontier: the messages of the vertices `frontier[0..count)`
// lists (those that changed in the iteration before, each once: every other vertex is
// inactive and sends nothing), their bits set in `sending`, which the host zeroed, and the
// senders counted. A thread per listed vertex instead of one per vertex.
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS)
glp_frontier_send_listed(const glp_edge_params params, const glp_edge_view view, const glp_frontier_state s,
                         const glp_u32* __restrict__ frontier, const glp_u64 count) {
    const glp_u64 i = (glp_u64)blockIdx.x * blockDim.x + threadIdx.x;
    bool send = false;
    if (i < count) {
        const glp_u32 u = frontier[i];
        const auto sent = glp_edge_edge(params, view, glp_edge_graph_id(view, u), glp_edge_graph_id(view, u), s.values[u], 1.0);
        send = sent._0;
        if (send) {
            s.messages[u] = sent._1;
            atomicOr(&s.sending[u >> 5], 1u << (u & 31u));
        }
    }
    glp_block_add(&s.counters[GLP_FRONTIER_SENDERS], send ? 1ull : 0ull);
}

// A receiver's messages combined so far.
struct glp_frontier_acc {
    glp_edge_message message;
    bool got;
};

// Message `m` combined into `acc`.
__device__ __forceinline__ void glp_frontier_take(glp_u32 op, glp_frontier_acc& acc, const glp_edge_message& m) {
    acc.message = acc.got ? glp_edge_combine(op, acc.message, m) : m;
    acc.got = true;
}

// A receiver's pull rows: `da` senders from `a0` in CSR a, then those of CSR b from `b0`
// (none where `senders_b` is null).
struct glp_frontier_rows {
    const glp_u32* __restrict__ senders_a;
    const float* __restrict__ weights_a;
    glp_u64 a0, da;
    const glp_u32* __restrict__ senders_b;
    const float* __restrict__ weights_b;
    glp_u64 b0, db;
};

__device__ __forceinline__ glp_frontier_rows glp_frontier_rows_of(glp_u32 v, const glp_u64* __restrict__ offsets_a,
                                                                  const glp_u32* __restrict__ senders_a,
                                                                  const float* __restrict__ weights_a,
                                                                  const glp_u64* __restrict__ offsets_b,
                                                                  const glp_u32* __restrict__ senders_b,
                                                                  const float* __restrict__ weights_b) {
    glp_frontier_rows r{senders_a, weights_a, offsets_a[v], 0, senders_b, weights_b, 0, 0};
    r.da = offsets_a[v + 1] - r.a0;
    if (offsets_b) {
        r.b0 = offsets_b[v];
        r.db = offsets_b[v + 1] - r.b0;
    }
    return r;
}

// Whether `acc` settles a receiver whose value is `old` (never without `settled`).
__device__ __forceinline__ bool glp_frontier_settles(const glp_edge_params& params, const glp_edge_view& view,
                                                     const glp_frontier_state& s, glp_u32 v,
                                                     const glp_edge_value& old, const glp_frontier_acc& acc) {
    return (s.flags & GLP_FRONTIER_SETTLED) && acc.got &&
           glp_edge_settled(params, glp_edge_apply(params, view, glp_edge_graph_id(view, v), old, acc.message));
}

// One round of a receiver's pull: the edges k0 + j * stride (j < GLP_FRONTIER_PULL_UNROLL)
// below `end` of its rows taken into `acc`, their senders loaded first and then (when `edge`
// reads only its sender) their `sending` bits, so that a lane has every load of a round in
// flight at once instead of a chain of dependent reads per edge (`all_send`: every vertex
// sends, the bits unread). A lane stops taking messages once its own settle the receiver
// (`old`), as every message of the iteration would.
__device__ __forceinline__ void glp_frontier_pull_round(const glp_edge_params& params, const glp_edge_view& view,
                                                        const glp_frontier_state& s, glp_u32 v,
                                                        const glp_edge_value& old, const glp_frontier_rows& r,
                                                        glp_u64 k0, glp_u64 stride, glp_u64 end, bool all_send,
                                                        glp_frontier_acc& acc) {
    glp_u32 from[GLP_FRONTIER_PULL_UNROLL];
    glp_u64 at[GLP_FRONTIER_PULL_UNROLL];
    bool take[GLP_FRONTIER_PULL_UNROLL];
#pragma unroll
    for (unsigned j = 0; j < GLP_FRONTIER_PULL_UNROLL; ++j) {
        const glp_u64 k = k0 + j * stride;
        take[j] = k < end;
        at[j] = k < r.da ? r.a0 + k : r.b0 + (k - r.da);
        from[j] = take[j] ? (k < r.da ? r.senders_a[at[j]] : r.senders_b[at[j]]) : 0u;
    }
    const bool settling = s.flags & GLP_FRONTIER_SETTLED;
    if (!(s.flags & GLP_FRONTIER_RECEIVER)) {
        if (!all_send) {
#pragma unroll
            for (unsigned j = 0; j < GLP_FRONTIER_PULL_UNROLL; ++j) take[j] = take[j] && glp_frontier_sends(s, from[j]);
        }
        if (!settling) {  // every message of the round, their loads in flight together
            glp_edge_message m[GLP_FRONTIER_PULL_UNROLL];
#pragma unroll
            for (unsigned j = 0; j < GLP_FRONTIER_PULL_UNROLL; ++j) m[j] = take[j] ? s.messages[from[j]] : acc.message;
#pragma unroll
            for (unsigned j = 0; j < GLP_FRONTIER_PULL_UNROLL; ++j) {
                if (take[j]) glp_frontier_take(s.op, acc, m[j]);
            }
            return;
        }
#pragma unroll
        for (unsigned j = 0; j < GLP_FRONTIER_PULL_UNROLL; ++j) {
            if (!take[j]) continue;
            glp_frontier_take(s.op, acc, s.messages[from[j]]);
            if (glp_frontier_settles(params, view, s, v, old, acc)) return;
        }
        return;
    }
#pragma unroll
    for (unsigned j = 0; j < GLP_FRONTIER_PULL_UNROLL; ++j) {
        const glp_u32 u = from[j];
        if (!take[j] || ((s.flags & GLP_FRONTIER_FRONTIER) && s.changed_at[u] != view.iteration)) continue;
        const float* weights = k0 + j * stride < r.da ? r.weights_a : r.weights_b;
        const auto sent = glp_edge_edge(params, view, glp_edge_graph_id(view, u), glp_edge_graph_id(view, v), s.values[u], weights ? (double)weights[at[j]] : 1.0);
        if (!sent._0) continue;
        glp_frontier_take(s.op, acc, sent._1);
        if (settling && glp_frontier_settles(params, view, s, v, old, acc)) return;
    }
}

// A receiver's new value when it changed (a frontier program's receiver without messages
// keeps its value): staged when `edge` reads its receiver (other receivers read the old
// value), else written with its stamp; whether it changed.
__device__ __forceinline__ bool glp_frontier_finish(const glp_edge_params& params, const glp_edge_view& view,
                                                    const glp_frontier_state& s, glp_u32 v,
                                                    const glp_edge_value& old, const glp_frontier_acc& acc) {
    if ((s.flags & GLP_FRONTIER_FRONTIER) && !acc.got) return false;
    const glp_edge_message c = acc.got ? acc.message : glp_edge_identity(s.op, acc.message);
    const glp_edge_value next = glp_edge_apply(params, view, glp_edge_graph_id(view, v), old, c);
    if (!glp_edge_changed(params, old, next)) return false;
    if (s.flags & GLP_FRONTIER_RECEIVER) {
        s.staged[v] = next;
    } else {
        s.values[v] = next;
        s.changed_at[v] = s.stamp;
    }
    return true;
}

// The edges a vertex a pull changed pushes along, counted where its value was written (the
// commit counts the staged ones).
__device__ __forceinline__ glp_u64 glp_frontier_written_degree(const glp_frontier_state& s, bool did, glp_u32 v) {
    return did && !(s.flags & GLP_FRONTIER_RECEIVER) ? glp_frontier_push_degree(s, v) : 0ull;
}

// `acc` combined over the `width` lanes of a group (`mask`: the group's lanes; every lane of
// the group gets the result: a butterfly, so that sums are the same on every lane).
__device__ __forceinline__ glp_frontier_acc glp_frontier_group_combine(glp_u32 op, glp_frontier_acc acc,
                                                                       unsigned mask, unsigned width) {
    for (unsigned offset = width >> 1; offset > 0; offset >>= 1) {
        const glp_edge_message m = __shfl_xor_sync(mask, acc.message, offset);
        const bool got = __shfl_xor_sync(mask, acc.got ? 1 : 0, offset) != 0;
        if (got) glp_frontier_take(op, acc, m);
    }
    return acc;
}

// Whether every vertex a pull covers sends a message this iteration (glp_frontier_send
// counted them; a sender outside the covered positions has no edge and reads no bit).
__device__ __forceinline__ bool glp_frontier_all_send(const glp_frontier_state& s) {
    return !(s.flags & GLP_FRONTIER_RECEIVER) && s.counters[GLP_FRONTIER_SENDERS] == s.receivers;
}

// Pull: a group of `width` lanes per receiver (a power of two up to 32: GLP_FRONTIER_PULL_GROUP,
// or 1 for a program that writes `settled`, whose receivers mostly stop at their first
// messages), striding its rows of the pull CSRs (a, then b when not null) in rounds of
// glp_frontier_pull_round so that a group reads its rows coalesced; settled receivers
// skipped, and a receiver stops after the round that settles it. Receivers with more than
// GLP_FRONTIER_PULL_SMALL edges are listed in `big` and their edges in chunks of
// GLP_FRONTIER_CHUNK (glp_frontier_pull_chunks); for a program that writes `settled` the group
// first pulls a long row's first chunk itself (a hub mostly settles there, and listing every
// chunk of every hub cost more than pulling them) and lists the rest only when that does not
// settle it, its messages so far combined into `combined`. A block takes GLP_FRONTIER_TRIPS
// strides of its threads over the receivers `s.receivers` covers (glp_frontier_trip), and
// lists its changed and long-row receivers after its last trip.
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS)
glp_frontier_pull(const glp_edge_params params, const glp_edge_view view, const glp_frontier_state s,
                  const glp_u64* __restrict__ offsets_a, const glp_u32* __restrict__ senders_a,
                  const float* __restrict__ weights_a, const glp_u64* __restrict__ offsets_b,
                  const glp_u32* __restrict__ senders_b, const float* __restrict__ weights_b,
                  const glp_u32 width) {
    const unsigned lane = threadIdx.x & 31u;
    const unsigned member = lane & (width - 1u);
    const unsigned mask = (width == 32u ? GLP_FULL_WARP : ((1u << width) - 1u)) << (lane & ~(width - 1u));
    const bool all_send = glp_frontier_all_send(s);
    const bool settling = s.flags & GLP_FRONTIER_SETTLED;
    const auto receiver = [&](glp_u32 t) { return (glp_u32)(glp_frontier_trip(t) / width); };
    glp_u64 changed = 0, long_rows = 0, degrees = 0;  // bit t: trip t's receiver changed, is long
    for (glp_u32 t = 0; t < GLP_FRONTIER_TRIPS; ++t) {
        const glp_u64 i = glp_frontier_trip(t) / width;
        if (i >= s.receivers) break;  // a group's lanes leave together
        const glp_u32 v = (glp_u32)i;
        const glp_edge_value old = s.values[v];
        if (settling && glp_edge_settled(params, old)) continue;
        const glp_frontier_rows r =
            glp_frontier_rows_of(v, offsets_a, senders_a, weights_a, offsets_b, senders_b, weights_b);
        const glp_u64 total = r.da + r.db;
        const bool long_row = total > GLP_FRONTIER_PULL_SMALL;
        // The edges the group pulls itself: a short row, or a settling program's first chunk.
        const glp_u64 own = settling ? (total < GLP_FRONTIER_CHUNK ? total : GLP_FRONTIER_CHUNK)
                                     : long_row ? 0 : total;
        glp_frontier_acc acc{glp_edge_identity(s.op, glp_edge_message{}), false};
        bool settled = false;
        // k0 is the group's (its lanes take the same rounds, as the shuffles need).
        for (glp_u64 k0 = 0; k0 < own; k0 += (glp_u64)width * GLP_FRONTIER_PULL_UNROLL) {
            glp_frontier_pull_round(params, view, s, v, old, r, k0 + member, width, own, all_send, acc);
            if (settling && glp_frontier_settles(params, view, s, v, old, glp_frontier_group_combine(s.op, acc, mask, width))) {
                settled = true;
                break;
            }
        }
        acc = glp_frontier_group_combine(s.op, acc, mask, width);
        if (member != 0u) continue;
        if (own < total && !settled) {
            long_rows |= 1ull << t;
            if (acc.got) {  // stamped after its messages, as glp_frontier_pull_chunks reads them
                glp_edge_atomic_combine(s.op, &s.combined[v], acc.message);
                __threadfence();
                s.received_at[v] = s.stamp;
            }
            const glp_u64 first_chunk = own / GLP_FRONTIER_CHUNK;  // own is 0 or one chunk here
            const glp_u64 chunks = (total + GLP_FRONTIER_CHUNK - 1) / GLP_FRONTIER_CHUNK - first_chunk;
            const glp_u64 at = atomicAdd((unsigned long long*)&s.counters[GLP_FRONTIER_CHUNKS_A],
                                         (unsigned long long)chunks);
            for (glp_u64 c = 0; c < chunks; ++c) s.chunks[at + c] = ((glp_u64)v << 32) | (first_chunk + c);
        } else if (glp_frontier_finish(params, view, s, v, old, acc)) {
            changed |= 1ull << t;
            degrees += glp_frontier_written_degree(s, true, v);
        }
    }
    glp_block_append_trips(s.big, &s.counters[GLP_FRONTIER_BIG], long_rows, GLP_FRONTIER_TRIPS, receiver);
    glp_block_append_trips(s.queue_out, &s.counters[GLP_FRONTIER_CHANGED], changed, GLP_FRONTIER_TRIPS, receiver);
    glp_block_add(&s.counters[GLP_FRONTIER_NEXT_EDGES], degrees);
}

// Pull, long rows: a warp per chunk of GLP_FRONTIER_CHUNK edges of a receiver's rows (a, then
// b; entries `receiver << 32 | chunk`), its messages combined over the warp and into the
// receiver's `combined` with the program's atomic, the receiver stamped; a settling receiver's
// chunk stops after the round that settles it, and is skipped when the messages other chunks
// delivered already settle it.
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS)
glp_frontier_pull_chunks(const glp_edge_params params, const glp_edge_view view, const glp_frontier_state s,
                         const glp_u64* __restrict__ offsets_a, const glp_u32* __restrict__ senders_a,
                         const float* __restrict__ weights_a, const glp_u64* __restrict__ offsets_b,
                         const glp_u32* __restrict__ senders_b, const float* __restrict__ weights_b) {
    const unsigned lane = threadIdx.x & 31u;
    const glp_u64 count = s.counters[GLP_FRONTIER_CHUNKS_A];
    const glp_u64 warps = glp_frontier_stride() >> 5;
    const bool all_send = glp_frontier_all_send(s);
    for (glp_u64 c = glp_frontier_warp_first() >> 5; c < count; c += warps) {
        const glp_u64 entry = s.chunks[c];
        const glp_u32 v = (glp_u32)(entry >> 32);
        const glp_edge_value old = s.values[v];
        // Another chunk of the receiver already delivered messages that settle it: its stamp is
        // written after its messages with a fence between, so they are read in that order with
        // a fence between; lane 0 decides for the warp, whose lanes must take the same chunks
        // (the shuffles below).
        bool skip = false;
        if (lane == 0u && (s.flags & GLP_FRONTIER_SETTLED)) {
            const bool stamped = *(volatile const glp_u32*)&s.received_at[v] == s.stamp;
            __threadfence();
            skip = stamped && glp_frontier_settles(params, view, s, v, old,
                                                   glp_frontier_acc{*(volatile const glp_edge_message*)&s.combined[v], true});
        }
        if (__shfl_sync(GLP_FULL_WARP, skip, 0)) continue;
        const glp_frontier_rows r =
            glp_frontier_rows_of(v, offsets_a, senders_a, weights_a, offsets_b, senders_b, weights_b);
        const glp_u64 begin = (entry & 0xFFFFFFFFull) * GLP_FRONTIER_CHUNK;
        const glp_u64 end = begin + GLP_FRONTIER_CHUNK < r.da + r.db ? begin + GLP_FRONTIER_CHUNK : r.da + r.db;
        glp_frontier_acc acc{glp_edge_identity(s.op, glp_edge_message{}), false};
        for (glp_u64 k0 = begin; k0 < end; k0 += 32ull * GLP_FRONTIER_PULL_UNROLL) {
            glp_frontier_pull_round(params, view, s, v, old, r, k0 + lane, 32, end, all_send, acc);
            if ((s.flags & GLP_FRONTIER_SETTLED) &&
                glp_frontier_settles(params, view, s, v, old, glp_frontier_group_combine(s.op, acc, GLP_FULL_WARP, 32u))) {
                break;
            }
        }
        acc = glp_frontier_group_combine(s.op, acc, GLP_FULL_WARP, 32u);
        if (lane == 0u && acc.got) {
            glp_edge_atomic_combine(s.op, &s.combined[v], acc.message);
            __threadfence();
            if (s.received_at[v] != s.stamp) s.received_at[v] = s.stamp;
        }
    }
}

// After the chunks: each long-row receiver's combined messages (back to the identity) applied;
// the changed ones written (or staged) and listed.
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS)
glp_frontier_pull_finish(const glp_edge_params params, const glp_edge_view view, const glp_frontier_state s) {
    const glp_u64 count = s.counters[GLP_FRONTIER_BIG];
    glp_u64 degrees = 0;
    for (glp_u64 first = glp_frontier_block_first(); first < count; first += glp_frontier_stride()) {
        const glp_u64 i = first + threadIdx.x;
        bool did = false;
        glp_u32 v = 0;
        if (i < count) {
            v = s.big[i];
            glp_frontier_acc acc{glp_edge_identity(s.op, glp_edge_message{}), false};
            if (s.received_at[v] == s.stamp) {
                acc = glp_frontier_acc{s.combined[v], true};
                s.combined[v] = glp_edge_identity(s.op, acc.message);
            }
            did = glp_frontier_finish(params, view, s, v, s.values[v], acc);
            degrees += glp_frontier_written_degree(s, did, v);
        }
        glp_block_append(s.queue_out, &s.counters[GLP_FRONTIER_CHANGED], did, v);
    }
    glp_block_add(&s.counters[GLP_FRONTIER_NEXT_EDGES], degrees);
}

// After a pull whose values were staged (`edge` reads its receiver): the changed vertices'
// staged values and stamps, and the edges they push along.
extern "C" __global__ void __launch_bounds__(GLP_EDGE_THREADS)
glp_frontier_commit(const glp_frontier_state s) {
    const glp_u64 count = s.counters[GLP_FRONTIER_CHANGED];
    glp_u64 degrees = 0;
    for (glp_u64 i = glp_frontier_block_first() + threadIdx.x; i < count; i += glp_frontier_stride()) {
        const glp_u32 v = s.queue_out[i];
        s.values[v] = s.staged[v];
        s.changed_at[v] = s.stamp;
        degrees += glp_frontier_push_degree(s, v);
    }
    glp_block_add(&s.counters[GLP_FRONTIER_NEXT_EDGES], degrees);
}
