// The sample view on the GPU: what sampler hooks read, and the intrinsics generated code
// calls (`view.degree(v)` becomes `glp_sample_degree(view, v)`). Semantics match
// glp-runtime's `sample::SampleView` method for method, random numbers included (the same
// Philox streams, the same exact draws), so a sample is the same on the CPU and the GPU.
// Positions past the end give GLP_SAMPLE_NONE, 0 or false, never a fault.
/*{{CONSTANTS}}*/

// The random stream of one (seed, sample, step, lane): glp-runtime's `random::Stream` at
// `sample_stream(seed, sample, step, lane)`: Philox4x32-10 keyed by the seed, counter words
// [block low, block high, stream low, stream high] with stream = sample | step << 32 and
// blocks from lane << 32, words handed out in order.
struct glp_sample_stream {
    glp_u32 key0, key1;      // the seed, low word first
    glp_u64 stream;          // sample | step << 32
    glp_u64 next_block;      // the block the buffer is refilled from
    glp_u32 word0, word1, word2, word3;  // the buffer (named words: no local-memory array)
    glp_u32 used;            // words of the buffer handed out (4: empty)
    // The block after the buffer, computed ahead (glp_sample_stream_ahead) by an engine that
    // resumes hooks: the buffer is refilled from it when set.
    glp_u32 ahead0, ahead1, ahead2, ahead3;
    bool ahead;
    // The last edge a hook read (glp_sample_edge): a draw equal to it is a neighbour of its
    // transit without a search (the engines' O(1) check of `next`'s result). When it was read
    // from the packed edges, the target's row too (last_offset ~0: not known).
    glp_u32 last_source, last_target;
    glp_u64 last_offset;
    glp_u32 last_degree;
};

__device__ __forceinline__ glp_sample_stream glp_sample_stream_new(glp_u64 seed, glp_u32 sample, glp_u32 step, glp_u32 lane) {
    glp_sample_stream s;
    s.key0 = (glp_u32)seed;
    s.key1 = (glp_u32)(seed >> 32);
    s.stream = (glp_u64)sample | ((glp_u64)step << 32);
    s.next_block = (glp_u64)lane << 32;
    s.used = 4u;
    s.ahead = false;
    s.last_source = GLP_SAMPLE_NONE;
    s.last_target = GLP_SAMPLE_NONE;
    s.last_offset = ~0ull;
    s.last_degree = 0u;
    return s;
}

// Block s.next_block of the stream's Philox counter, into w0..w3 (and the counter moves on).
__device__ __forceinline__ void glp_sample_stream_block(glp_sample_stream& s, glp_u32& w0, glp_u32& w1, glp_u32& w2,
                                                        glp_u32& w3) {
    const glp_philox_out b = glp_philox4x32_10((glp_u32)s.next_block, (glp_u32)(s.next_block >> 32), (glp_u32)s.stream,
                                               (glp_u32)(s.stream >> 32), s.key0, s.key1);
    w0 = b.x[0];
    w1 = b.x[1];
    w2 = b.x[2];
    w3 = b.x[3];
    s.next_block += 1ull;
}

// Computes the block after the buffer ahead of the draws that will take it (nothing when it
// already is): the words handed out are the same. An engine that runs a hook's loop one
// iteration per round calls it once per round, at one place: otherwise each of an
// iteration's draws (node2vec: its integer, then the two words of its f64) refills the buffer
// at a place of its own, and a warp runs Philox's 10 rounds at each place a lane needs a
// block (ncu, node2vec on com-DBLP: three copies with 17, 5 and 3 of 32 lanes active, 28% of
// the kernel's warp instructions).
__device__ __forceinline__ void glp_sample_stream_ahead(glp_sample_stream& s) {
    if (!s.ahead) {
        glp_sample_stream_block(s, s.ahead0, s.ahead1, s.ahead2, s.ahead3);
        s.ahead = true;
    }
}

__device__ __forceinline__ glp_u32 glp_sample_stream_u32(glp_sample_stream& s) {
    if (s.used == 4u) {
        if (s.ahead) {
            s.word0 = s.ahead0;
            s.word1 = s.ahead1;
            s.word2 = s.ahead2;
            s.word3 = s.ahead3;
            s.ahead = false;
        } else {
            glp_sample_stream_block(s, s.word0, s.word1, s.word2, s.word3);
        }
        s.used = 0u;
    }
    // The word by a tree of two selects on the index's bits, not a chain of three tests.
    const glp_u32 used = s.used++;
    const glp_u32 low = (used & 1u) ? s.word1 : s.word0;
    const glp_u32 high = (used & 1u) ? s.word3 : s.word2;
    return (used & 2u) ? high : low;
}

__device__ __forceinline__ glp_u64 glp_sample_stream_u64(glp_sample_stream& s) {
    const glp_u64 lo = glp_sample_stream_u32(s);
    const glp_u64 hi = glp_sample_stream_u32(s);
    return lo | (hi << 32);
}

/*{{VIEW_STRUCT}}*/

// The view's optional arrays as this module reads them. The host compiles a module for what
// its graph's view holds (glp-codegen's `ViewTraits`: GLP_SAMPLE_WEIGHTED and
// GLP_SAMPLE_HOST_EDGES, 0 when the view leaves those arrays null), so that on a graph
// without them their checks fold away (every edge read of an unweighted graph in device
// memory is then one load, with no test of the weights or the partition table).
/*{{TRAITS}}*/
__device__ __forceinline__ const float* glp_sample_edge_weights(const glp_sample_view& view) {
    return GLP_SAMPLE_WEIGHTED ? view.edge_weights : nullptr;
}
__device__ __forceinline__ const double* glp_sample_weight_prefixes(const glp_sample_view& view) {
    return GLP_SAMPLE_WEIGHTED ? view.weight_prefix : nullptr;
}
__device__ __forceinline__ const float* glp_sample_max_weights(const glp_sample_view& view) {
    return GLP_SAMPLE_WEIGHTED ? view.max_weights : nullptr;
}
__device__ __forceinline__ const glp_u64* glp_sample_partition_table(const glp_sample_view& view) {
    return GLP_SAMPLE_HOST_EDGES ? view.partitions : nullptr;
}

// A hook whose loops ran past the budget records code GLP_SAMPLE_LOOP_SITE + site (the loop's
// index in glp-codegen's `loop_sites`, from 1) and id = hook << 32 | vertex.
__device__ __forceinline__ glp_u64 glp_sample_loop_budget(const glp_sample_view& view) { return view.loop_budget; }
__device__ __forceinline__ void glp_sample_loop_fault(const glp_sample_view& view, glp_u32 site, glp_u32 hook, glp_u32 v) {
    if (view.fault && atomicCAS(&view.fault[0], 0ull, GLP_SAMPLE_LOOP_SITE + site) == 0ull) {
        view.fault[1] = ((glp_u64)hook << 32) | v;
    }
}

// ----- the graph -----
__device__ __forceinline__ glp_u32 glp_sample_num_vertices(const glp_sample_view& view) { return view.num_vertices; }
// Whether v's row is the one an engine cached in shared memory (the transit-parallel engine's
// transit, read by all the draws of a block or warp).
__device__ __forceinline__ bool glp_sample_is_cached(const glp_sample_view& view, glp_u32 v) {
    return view.cached_row != nullptr && v == view.cached_vertex;
}
// Whether this is a packed walk kernel: one whose hooks read packed edges (an edge with its
// target's row) and whose walkers keep rows in registers.
__device__ __forceinline__ bool glp_sample_walk_packed(const glp_sample_view& view) {
    return view.packed_edges != nullptr || view.packed_narrow != nullptr;
}
// Whether this kernel keeps rows in registers: the packed walk kernels, and the resumed
// one-walker kernel over the CSR (known_rows). The host's views hold 0, and the engines set 0
// in the views they build, known to the compiler, so that what follows folds away there
// (what more they would test costs their registers).
__device__ __forceinline__ bool glp_sample_rows_known(const glp_sample_view& view) {
    return glp_sample_walk_packed(view) || view.known_rows != 0u;
}
// Whether the engine knows v's row (its first edge's offset and its degree) in registers, so
// that nothing reads the offsets: the walk kernels' transit (known_*), the walk's vertex
// before it (prior_*, GLP_SAMPLE_NONE: none), and for the membership test also the target of
// the last packed edge a hook read (the stream's last_*, the row the packed edge carried).
__device__ __forceinline__ bool glp_sample_known_row(const glp_sample_view& view, glp_u32 v, glp_u64& offset,
                                                     glp_u64& degree) {
    if (!glp_sample_rows_known(view)) return false;
    if (v == view.known_vertex) {
        offset = view.known_offset;
        degree = view.known_degree;
        return true;
    }
    if (view.prior_vertex != GLP_SAMPLE_NONE && v == view.prior_vertex) {
        offset = view.prior_offset;
        degree = view.prior_degree;
        return true;
    }
    return false;
}
__device__ __forceinline__ bool glp_sample_known_row_or_drawn(const glp_sample_view& view, glp_u32 v,
                                                              glp_u64& offset, glp_u64& degree) {
    if (!glp_sample_rows_known(view)) return false;
    if (glp_sample_known_row(view, v, offset, degree)) return true;
    if (view.stream->last_offset != ~0ull && v == view.stream->last_target) {
        offset = view.stream->last_offset;
        degree = view.stream->last_degree;
        return true;
    }
    return false;
}
__device__ __forceinline__ bool glp_sample_is_known(const glp_sample_view& view, glp_u32 v) {
    return glp_sample_walk_packed(view) && v == view.known_vertex;
}
__device__ __forceinline__ glp_u64 glp_sample_degree(const glp_sample_view& view, glp_u32 v) {
    if (glp_sample_is_cached(view, v)) return view.cached_degree;
    glp_u64 offset, degree;
    if (glp_sample_known_row(view, v, offset, degree)) return degree;
    return v < view.num_vertices ? view.offsets[v + 1] - view.offsets[v] : 0ull;
}
// The offset of v's first edge in the CSR (v < num_vertices).
__device__ __forceinline__ glp_u64 glp_sample_row_offset(const glp_sample_view& view, glp_u32 v) {
    glp_u64 offset, degree;
    return glp_sample_known_row(view, v, offset, degree) ? offset : view.offsets[v];
}
// Where the CSR's edges from `offset` on are read: the targets, or for a graph whose edges stay
// in host memory, the place the partition table gives for offset's partition (a device buffer
// the engine copied the partition to, or the host memory through its mapping, marked by bit 0);
// a row is whole there from its first edge on.
__device__ __forceinline__ const glp_u32* glp_sample_edges_at(const glp_sample_view& view, glp_u64 offset) {
    const glp_u64* partitions = glp_sample_partition_table(view);
    if (partitions == nullptr) return view.targets + offset;
    const glp_u64 base = partitions[offset >> view.partition_shift] & ~1ull;
    return (const glp_u32*)base + (offset & ((1ull << view.partition_shift) - 1ull));
}
// v's neighbours (v < num_vertices): the cached row or the CSR's.
__device__ __forceinline__ const glp_u32* glp_sample_row(const glp_sample_view& view, glp_u32 v) {
    if (glp_sample_is_cached(view, v)) return view.cached_row;
    return glp_sample_edges_at(view, glp_sample_row_offset(view, v));
}
__device__ __forceinline__ glp_u32 glp_sample_edge(const glp_sample_view& view, glp_u32 v, glp_u64 i) {
    if (i >= glp_sample_degree(view, v)) return GLP_SAMPLE_NONE;
    glp_u32 u;
    if (glp_sample_is_known(view, v) && view.packed_narrow != nullptr) {  // one 8-byte read: the target and its row
        const glp_u64 e = view.packed_narrow[view.known_offset + i];
        const glp_u32 offset_shift = view.packed_target_bits;
        const glp_u32 degree_shift = offset_shift + view.packed_offset_bits;
        u = (glp_u32)(e & ((1ull << offset_shift) - 1ull));
        view.stream->last_offset = (e >> offset_shift) & ((1ull << view.packed_offset_bits) - 1ull);
        view.stream->last_degree = (glp_u32)(e >> degree_shift);
    } else if (glp_sample_is_known(view, v) && view.packed_edges != nullptr) {  // one 16-byte read: the target and its row
        const uint4 e = view.packed_edges[view.known_offset + i];
        u = e.x;
        view.stream->last_degree = e.y;
        view.stream->last_offset = (glp_u64)e.z | ((glp_u64)e.w << 32);
    } else {
        u = glp_sample_row(view, v)[i];
        view.stream->last_offset = ~0ull;
    }
    view.stream->last_source = v;
    view.stream->last_target = u;
    return u;
}
__device__ __forceinline__ double glp_sample_edge_weight(const glp_sample_view& view, glp_u32 v, glp_u64 i) {
    if (i >= glp_sample_degree(view, v)) return 0.0;
    const float* weights = glp_sample_edge_weights(view);
    return weights ? (double)weights[glp_sample_row_offset(view, v) + i] : 1.0;
}
__device__ __forceinline__ double glp_sample_weight_prefix(const glp_sample_view& view, glp_u32 v, glp_u64 i) {
    const glp_u64 d = glp_sample_degree(view, v);
    if (d == 0ull) return 0.0;
    if (i > d - 1ull) i = d - 1ull;
    const double* prefix = glp_sample_weight_prefixes(view);
    return prefix ? prefix[glp_sample_row_offset(view, v) + i] : (double)(i + 1ull);
}
__device__ __forceinline__ double glp_sample_total_weight(const glp_sample_view& view, glp_u32 v) {
    const glp_u64 d = glp_sample_degree(view, v);
    return d == 0ull ? 0.0 : glp_sample_weight_prefix(view, v, d - 1ull);
}
__device__ __forceinline__ double glp_sample_max_weight(const glp_sample_view& view, glp_u32 v) {
    if (glp_sample_degree(view, v) == 0ull) return 0.0;
    const float* max_weights = glp_sample_max_weights(view);
    return max_weights ? (double)max_weights[v] : 1.0;
}
// The first index in [begin, end) whose prefix sum exceeds x (end when none does).
__device__ __forceinline__ glp_u64 glp_sample_partition(const double* prefix, glp_u64 begin, glp_u64 end, double x) {
    glp_u64 lo = begin, hi = end;
    while (lo < hi) {
        const glp_u64 mid = lo + (hi - lo) / 2ull;
        if (prefix[mid] <= x) lo = mid + 1ull; else hi = mid;
    }
    return lo;
}
__device__ __forceinline__ glp_u64 glp_sample_weighted_edge(const glp_sample_view& view, glp_u32 v, double x) {
    const glp_u64 d = glp_sample_degree(view, v);
    if (d == 0ull) return 0ull;
    const double* prefix = glp_sample_weight_prefixes(view);
    if (prefix) {
        const glp_u64 begin = glp_sample_row_offset(view, v);
        return glp_sample_partition(prefix, begin, begin + d, x) - begin;
    }
    // Unweighted: edge floor(x), at most d (NaN and negative x give 0, as Rust's saturating cast).
    if (!(x >= 0.0)) return 0ull;
    return x >= (double)d ? d : (glp_u64)x;
}
// Whether key is among the n sorted entries of row (Index: 32-bit arithmetic where n fits it).
template <typename Index>
__device__ __forceinline__ bool glp_sample_search(const glp_u32* row, Index n, glp_u32 key) {
    Index lo = 0, hi = n;
    while (lo < hi) {
        const Index mid = lo + (hi - lo) / 2;
        const glp_u32 entry = row[mid];
        if (entry == key) return true;
        if (entry < key) lo = mid + 1; else hi = mid;
    }
    return false;
}
// Whether u is in v's row; when that row is longer than GLP_SAMPLE_SHORT_ROW on a symmetric
// graph, whether v is in u's row when that one is strictly shorter (the CPU's
// SampleGraph::contains picks the row by the same rule, but searches rows longer than its
// HUB_ROW in place: measured on the CPU only).
__device__ __forceinline__ bool glp_sample_contains(const glp_sample_view& view, glp_u32 v, glp_u32 u) {
    glp_u64 d = glp_sample_degree(view, v);
    if (d == 0ull) return false;
    const glp_u32* row = nullptr;
    if (view.symmetric && d > GLP_SAMPLE_SHORT_ROW) {
        glp_u64 u_offset, du;
        const bool known = glp_sample_known_row_or_drawn(view, u, u_offset, du);
        if (!known) du = glp_sample_degree(view, u);
        if (du < d) {
            if (du == 0ull) return false;
            row = known ? glp_sample_edges_at(view, u_offset) : glp_sample_row(view, u);
            u = v;
            d = du;
        }
    }
    if (row == nullptr) row = glp_sample_row(view, v);
    // Every row of a graph that fits a GPU takes 32-bit arithmetic.
    return d <= 0xFFFFFFFFull ? glp_sample_search(row, (glp_u32)d, u) : glp_sample_search(row, d, u);
}

// ----- the sample -----
__device__ __forceinline__ glp_u32 glp_sample_root_count(const glp_sample_view& view) { return view.root_count; }
__device__ __forceinline__ glp_u32 glp_sample_root(const glp_sample_view& view, glp_u32 i) {
    return i < view.root_count ? view.roots[i] : GLP_SAMPLE_NONE;
}
__device__ __forceinline__ bool glp_sample_is_root(const glp_sample_view& view, glp_u32 v) {
    return glp_sample_search(view.sorted_roots, view.root_count, v);
}
__device__ __forceinline__ glp_u32 glp_sample_previous_count(const glp_sample_view& view, glp_u32 back) {
    if (back == 0u || back > view.history_levels) return 0u;
    if (view.walk_stride) return 1u;
    const glp_u32 level = view.history_levels - back;
    return (glp_u32)(view.history_starts[level + 1u] - view.history_starts[level]);
}
__device__ __forceinline__ glp_u32 glp_sample_previous_vertex(const glp_sample_view& view, glp_u32 back, glp_u32 pos) {
    if (pos >= glp_sample_previous_count(view, back)) return GLP_SAMPLE_NONE;
    const glp_u32 level = view.history_levels - back;
    if (view.walk_stride) {
        // The packed walk kernels keep their walker's last two vertices in registers (a walk
        // that runs never has GLP_SAMPLE_NONE among them): no read of the walk. The resumed
        // one-walker kernel keeps the vertex before the transit (the other walk kernels set
        // GLP_SAMPLE_NONE, known to the compiler: the test folds away).
        if (glp_sample_walk_packed(view)) {
            if (back == 1u && view.known_vertex != GLP_SAMPLE_NONE) return view.known_vertex;
            if (back == 2u && view.prior_vertex != GLP_SAMPLE_NONE) return view.prior_vertex;
        } else if (back == 2u && view.prior_vertex != GLP_SAMPLE_NONE) {
            return view.prior_vertex;
        }
        // A ring of walk_mask + 1 rows (the partitioned walks') keeps the last walk_mask + 1
        // levels: an older one is gone. Record it, so that the engine runs the batch again with
        // every row kept (walk_mask all ones: never).
        if ((glp_u64)(back - 1u) > view.walk_mask) {
            if (view.fault) atomicCAS(&view.fault[0], 0ull, GLP_SAMPLE_HISTORY_FAULT);
            return GLP_SAMPLE_NONE;
        }
        return view.history[(glp_u64)(level & view.walk_mask) * view.walk_stride];
    }
    return view.history[view.history_starts[level] + pos];
}
__device__ __forceinline__ glp_u32 glp_sample_transit_count(const glp_sample_view& view) {
    return glp_sample_previous_count(view, 1u);
}
__device__ __forceinline__ glp_u32 glp_sample_transit(const glp_sample_view& view, glp_u32 pos) {
    return glp_sample_previous_vertex(view, 1u, pos);
}

// ----- random numbers -----
__device__ __forceinline__ glp_u32 glp_sample_random_u32(const glp_sample_view& view) {
    return glp_sample_stream_u32(*view.stream);
}
__device__ __forceinline__ double glp_sample_random_f64(const glp_sample_view& view) {
    return (double)(glp_sample_stream_u64(*view.stream) >> 11) * (1.0 / 9007199254740992.0);
}
// One word of the stream, and the high half of a product, at 32 or 64 bits.
__device__ __forceinline__ glp_u32 glp_sample_stream_word(glp_sample_stream& s, glp_u32) { return glp_sample_stream_u32(s); }
__device__ __forceinline__ glp_u64 glp_sample_stream_word(glp_sample_stream& s, glp_u64) { return glp_sample_stream_u64(s); }
__device__ __forceinline__ glp_u32 glp_sample_mul_high(glp_u32 a, glp_u32 b) { return __umulhi(a, b); }
__device__ __forceinline__ glp_u64 glp_sample_mul_high(glp_u64 a, glp_u64 b) { return __umul64hi(a, b); }
// Lemire's nearly divisionless draw of an exact uniform integer in 0..bound (bound > 0) from
// words of the stream: a product whose low word is at least bound is accepted without the
// threshold (2^bits mod bound < bound), the modulo taken only below bound. The threshold sits
// behind the rare branch, not before a loop (where the compiler would hoist its modulo into
// every draw). The stream is called at two places: the kernels take fewer registers than with
// one call in a loop (H200, against the form with one call: com-DBLP DeepWalk 0.38 -> 0.32 ms,
// k-hop 0.78 -> 0.72), though the four-walker packed kernels then keep the stream's words in
// local memory (16 bytes a thread: DeepWalk on R-MAT 22 6.91 -> 7.12 ms).
template <typename Word>
__device__ __forceinline__ Word glp_sample_lemire(glp_sample_stream& s, Word bound) {
    Word word = glp_sample_stream_word(s, bound);
    Word low = word * bound;
    if (low < bound) {
        const Word threshold = (Word(0) - bound) % bound;
        while (low < threshold) {
            word = glp_sample_stream_word(s, bound);
            low = word * bound;
        }
    }
    return glp_sample_mul_high(word, bound);
}
// Exact uniform integers in 0..n (glp-runtime's `Stream::next_below`): one 32-bit word per
// attempt when n fits in 32 bits, a 64-bit draw per attempt otherwise.
__device__ __forceinline__ glp_u64 glp_sample_random_below(const glp_sample_view& view, glp_u64 n) {
    if (n == 0ull) return 0ull;
    if (n <= 0xFFFFFFFFull) return glp_sample_lemire(*view.stream, (glp_u32)n);
    return glp_sample_lemire(*view.stream, n);
}
__device__ __forceinline__ glp_u32 glp_sample_step(const glp_sample_view& view) { return view.step; }

// ----- the combined neighbourhood (collective samplers) -----
__device__ __forceinline__ glp_u64 glp_sample_combined_len(const glp_sample_view& view) { return view.combined_len; }
__device__ __forceinline__ glp_u32 glp_sample_combined_vertex(const glp_sample_view& view, glp_u64 i) {
    return i < view.combined_len ? view.combined[i] : GLP_SAMPLE_NONE;
}
__device__ __forceinline__ glp_u32 glp_sample_combined_transit(const glp_sample_view& view, glp_u64 i) {
    return i < view.combined_len ? glp_sample_transit(view, view.combined_sources[i]) : GLP_SAMPLE_NONE;
}
// The entries holding v: the width of v's run in the sorted entries (0 when not built).
__device__ __forceinline__ glp_u64 glp_sample_combined_count(const glp_sample_view& view, glp_u32 v) {
    if (!view.combined_sorted) return 0ull;
    glp_u64 lo = 0ull, hi = view.combined_len;
    while (lo < hi) {  // the first entry >= v
        const glp_u64 mid = lo + (hi - lo) / 2ull;
        if (view.combined_sorted[mid] < v) lo = mid + 1ull; else hi = mid;
    }
    glp_u64 end = lo, top = view.combined_len;
    while (end < top) {  // the first entry > v
        const glp_u64 mid = end + (top - end) / 2ull;
        if (view.combined_sorted[mid] <= v) end = mid + 1ull; else top = mid;
    }
    return end - lo;
}
__device__ __forceinline__ double glp_sample_combined_total(const glp_sample_view& view) {
    return view.combined_len == 0ull ? 0.0 : view.combined_prefix[view.combined_len - 1ull];
}
__device__ __forceinline__ glp_u64 glp_sample_combined_pick(const glp_sample_view& view) {
    const double total = glp_sample_combined_total(view);
    if (total <= 0.0) return GLP_SAMPLE_NONE_ENTRY;
    const double x = glp_sample_random_f64(view) * total;
    const glp_u64 i = glp_sample_partition(view.combined_prefix, 0ull, view.combined_len, x);
    return i >= view.combined_len ? GLP_SAMPLE_NONE_ENTRY : i;
}
