// ----- a run's samples numbered as disjoint subgraphs, on the device -----
//
// The arrays of PyG's SamplerOutput (disjoint subgraphs) built where the samples are, as
// glp-runtime's host numbering (`sample::subgraphs`) builds them: every sample has its own
// copy of its vertices; a vertex's hop is that of its first appearance in its sample (its
// roots, hop 0, then its record in order, a vertex added at step s being of hop s + 1); local
// ids are numbered hop by hop over all samples, sample by sample within a hop, in order of
// first appearance within a sample; edges are listed step by step, sample by sample, in
// record order within a sample. Two kernels, a warp per sample, and a scan between them on
// the host:
// 1. glp_subgraph_hops: each sample's distinct vertices in order of first appearance, each
//    one's hop and index among the sample's vertices of that hop, its vertices per hop and
//    edges per step, and for each of its edges the distinct index of both ends and the edge's
//    index among the sample's edges of its step;
// 2. (host) the counts, scanned hop by hop over the samples, give where each sample's
//    vertices of a hop and edges of a step start;
// 3. glp_subgraph_write: node, batch, row and col.
// A sample's vertices are deduplicated in a hash table of its own (open addressing, at most
// half full), not by scanning its distinct vertices: a sample may hold a mini-batch of
// hundreds of roots and a hundred thousand vertices, where a scan is quadratic, and the
// table's size is the sample's, which shared memory would cap.

// The slot of v's probe sequence to start from, in a table of mask + 1 slots.
__device__ __forceinline__ glp_u64 glp_subgraph_hash(glp_u32 v, glp_u64 mask) {
    glp_u32 h = v;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return (glp_u64)h & mask;
}

// v's distinct index in a sample's table (an entry is index << 32 | v + 1, 0 an empty slot),
// or GLP_SAMPLE_NONE. The table is written by the sample's warp alone, the entries it reads
// before the last __syncwarp, so plain loads see them.
__device__ __forceinline__ glp_u32 glp_subgraph_lookup(const glp_u64* table, glp_u64 mask, glp_u32 v) {
    for (glp_u64 slot = glp_subgraph_hash(v, mask);; slot = (slot + 1ull) & mask) {
        const glp_u64 entry = table[slot];
        if (entry == 0ull) return GLP_SAMPLE_NONE;
        if ((glp_u32)entry == v + 1u) return (glp_u32)(entry >> 32);
    }
}

// Puts v (not in the table) with its distinct index; lanes insert distinct vertices at once.
__device__ __forceinline__ void glp_subgraph_insert(glp_u64* table, glp_u64 mask, glp_u32 v, glp_u32 index) {
    const glp_u64 entry = ((glp_u64)index << 32) | (glp_u64)(v + 1u);
    for (glp_u64 slot = glp_subgraph_hash(v, mask);; slot = (slot + 1ull) & mask) {
        if (atomicCAS((unsigned long long*)&table[slot], 0ull, (unsigned long long)entry) == 0ull) return;
    }
}

// Adds to counts[key] the lanes of `group` (the calling lanes with this lane's key, all of
// them in `lanes`), and returns how many there were before this lane: the counts before the
// lanes, plus the group's lanes below this one. Every lane of `lanes` calls it.
__device__ __forceinline__ glp_u32 glp_subgraph_rank(glp_u32* counts, glp_u32 key, unsigned lanes, glp_u32 lane_id) {
    const unsigned group = __match_any_sync(lanes, key);
    const glp_u32 before = counts[key];
    __syncwarp(lanes);
    if (lane_id == (glp_u32)__ffs(group) - 1u) counts[key] = before + (glp_u32)__popc(group);
    return before + (glp_u32)__popc(group & ((1u << lane_id) - 1u));
}

// The step of a record's entry j, given its step ends (steps > 0 of them): the first step whose
// end lies past j, searched from `from` on (a lane's entries come in order, so each lane
// resumes where its last entry's search stopped), the last step at most.
__device__ __forceinline__ glp_u32 glp_subgraph_step_of(const glp_u64* ends, glp_u32 steps, glp_u32 from, glp_u64 j) {
    while (from + 1u < steps && j >= ends[from]) ++from;
    return from;
}

// Whether a record of `length` vertices has step ends that fit it: not decreasing, the last
// its length (by the sample's warp, every lane getting the answer).
__device__ __forceinline__ bool glp_subgraph_ends_fit(const glp_u64* ends, glp_u32 steps, glp_u64 length,
                                                      glp_u32 lane_id) {
    if (steps == 0u) return length == 0ull;
    bool fit = lane_id != 0u || ends[steps - 1u] == length;
    for (glp_u32 step = lane_id + 1u; step < steps; step += 32u) fit = fit && ends[step - 1u] <= ends[step];
    return __all_sync(0xFFFFFFFFu, fit);
}

// Sample k (one warp each, k = global warp index): its entries (roots, then its record), 32
// at a time in order. An entry whose vertex an earlier entry holds (the table, then the lower
// lanes of its chunk) takes that entry's distinct index; the others are the sample's next
// distinct vertices, in lane order. Step ends that do not fit the record, or a transit its
// sample does not hold, set a GLP_SUBGRAPH_* bit of *failed (no engine records one).
extern "C" __global__ void __launch_bounds__(GLP_SUBGRAPH_THREADS) glp_subgraph_hops(const glp_subgraph_batch b) {
    const glp_u64 k = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) / 32ull;
    const glp_u32 lane_id = threadIdx.x & 31u;
    if (k >= b.samples) return;  // the whole warp
    const unsigned below = (1u << lane_id) - 1u;
    const glp_u64 first_root = b.root_offsets[k], roots = b.root_offsets[k + 1ull] - first_root;
    const glp_u64 length = b.record_lengths[k], entries = roots + length;
    const glp_u32* vertices = (const glp_u32*)b.record_vertices[k];
    const glp_u32* sources = (const glp_u32*)b.record_sources[k];
    const glp_u64* ends = (const glp_u64*)b.record_step_ends[k];
    if (!glp_subgraph_ends_fit(ends, b.steps, length, lane_id)) {
        if (lane_id == 0u) atomicOr(b.failed, GLP_SUBGRAPH_BAD_STEP_ENDS);
        return;
    }
    const glp_u64 base = b.entry_offsets[k];
    glp_u64* table = b.tables + b.table_offsets[k];
    const glp_u64 mask = b.table_offsets[k + 1ull] - b.table_offsets[k] - 1ull;
    glp_u32* node_counts = b.node_counts + k * (glp_u64)b.hops;
    glp_u32* edge_counts = b.edge_counts + k * (glp_u64)b.steps;
    glp_u32 distinct = 0u;  // the sample's distinct vertices so far (the same in every lane)
    glp_u32 step = 0u;      // the step of this lane's last entry of the record
    for (glp_u64 chunk = 0ull; chunk < entries; chunk += 32ull) {
        const glp_u64 e = chunk + lane_id;
        const bool valid = e < entries;
        glp_u32 v = GLP_SAMPLE_NONE, hop = 0u;
        if (valid && e < roots) {
            v = b.roots[first_root + e];
        } else if (valid) {
            v = vertices[e - roots];
            step = glp_subgraph_step_of(ends, b.steps, step, e - roots);
            hop = step + 1u;
        }
        glp_u32 index = valid ? glp_subgraph_lookup(table, mask, v) : GLP_SAMPLE_NONE;
        const unsigned valid_lanes = __ballot_sync(0xFFFFFFFFu, valid);
        const unsigned same = __match_any_sync(0xFFFFFFFFu, v) & valid_lanes;
        const glp_u32 leader = valid ? (glp_u32)__ffs(same) - 1u : lane_id;
        const bool fresh = valid && index == GLP_SAMPLE_NONE && leader == lane_id;
        const unsigned fresh_lanes = __ballot_sync(0xFFFFFFFFu, fresh);
        const glp_u32 fresh_index = distinct + (glp_u32)__popc(fresh_lanes & below);
        if (fresh) {
            index = fresh_index;
            const glp_u32 in_hop = glp_subgraph_rank(node_counts, hop, fresh_lanes, lane_id);
            glp_subgraph_insert(table, mask, v, index);
            b.distinct[base + index] = v;
            b.distinct_local[base + index] = ((glp_u64)hop << 32) | in_hop;
        }
        // A vertex first held by this chunk: the index of its lowest lane.
        const glp_u32 leader_index = __shfl_sync(0xFFFFFFFFu, fresh_index, leader);
        if (valid && index == GLP_SAMPLE_NONE) index = leader_index;
        distinct += (glp_u32)__popc(fresh_lanes);
        const bool edge = valid && e >= roots;
        const unsigned edge_lanes = __ballot_sync(0xFFFFFFFFu, edge);
        if (edge) {
            b.edge_ranks[base + e] = glp_subgraph_rank(edge_counts, hop - 1u, edge_lanes, lane_id);
            b.edge_rows[base + e] = index;
        }
        __syncwarp();
    }
    // Each edge's transit, among the sample's vertices (all of them, as the host looks it up).
    for (glp_u64 j = lane_id; j < length; j += 32ull) {
        glp_u32 index = glp_subgraph_lookup(table, mask, sources[j]);
        if (index == GLP_SAMPLE_NONE) {
            atomicOr(b.failed, GLP_SUBGRAPH_MISSING_TRANSIT);
            index = 0u;
        }
        b.edge_cols[base + roots + j] = index;
    }
}

// Sample k (one warp each): its distinct vertices to their local ids (node_starts: hop by
// hop, where the sample's vertices of the hop start), node and batch there, the local ids kept
// in distinct_local; then its edges to their places (edge_starts: step by step, where the
// sample's edges of the step start), row and col there.
extern "C" __global__ void __launch_bounds__(GLP_SUBGRAPH_THREADS) glp_subgraph_write(const glp_subgraph_batch b) {
    const glp_u64 k = ((glp_u64)blockIdx.x * blockDim.x + threadIdx.x) / 32ull;
    const glp_u32 lane_id = threadIdx.x & 31u;
    if (k >= b.samples) return;  // the whole warp
    const glp_u64 roots = b.root_offsets[k + 1ull] - b.root_offsets[k];
    const glp_u64 length = b.record_lengths[k];
    const glp_u64* ends = (const glp_u64*)b.record_step_ends[k];  // fit the record (glp_subgraph_hops)
    const glp_u64 base = b.entry_offsets[k];
    glp_u64 distinct = 0ull;
    for (glp_u32 hop = 0u; hop < b.hops; ++hop) distinct += b.node_counts[k * (glp_u64)b.hops + hop];
    for (glp_u64 d = lane_id; d < distinct; d += 32ull) {
        const glp_u64 local = b.distinct_local[base + d];
        const glp_u64 id = b.node_starts[(local >> 32) * b.samples + k] + (local & 0xFFFFFFFFull);
        const glp_u32 v = b.distinct[base + d];
        b.node[id] = b.ids != nullptr ? (glp_i64)b.ids[v] : (glp_i64)(b.first_id + v);
        b.batch[id] = (glp_i64)k;
        b.distinct_local[base + d] = id;
    }
    __syncwarp();
    // Each edge's step found from the ends again by glp_subgraph_hops's scan (whose answer
    // depends on the entry alone), rather than kept from it: a few reads of the sample's step
    // ends instead of 4 more bytes an entry.
    glp_u32 step = 0u;
    for (glp_u64 j = lane_id; j < length; j += 32ull) {
        const glp_u64 e = base + roots + j;
        step = glp_subgraph_step_of(ends, b.steps, step, j);
        const glp_u64 at = b.edge_starts[(glp_u64)step * b.samples + k] + b.edge_ranks[e];
        b.row[at] = (glp_i64)b.distinct_local[base + b.edge_rows[e]];
        b.col[at] = (glp_i64)b.distinct_local[base + b.edge_cols[e]];
    }
}
