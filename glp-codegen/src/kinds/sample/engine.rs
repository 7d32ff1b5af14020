//! The engines' kernels (`engine_kernels.cu`: sample-parallel, its walks in
//! `walk_kernels.cu`, and `transit_kernels.cu`: transit-parallel, one step at a time) and what the host shares with them, generated from
//! Rust so nothing is written twice: the launch geometry, the per-sample status codes, the
//! rule for draws without replacement, the transit-parallel step's counters, and the structs
//! glp-runtime fills ([`SampleBatchArgs`], [`TransitStepArgs`], [`SubgraphArgs`], with
//! [`c_struct!`](crate::c_struct)). `subgraph_kernels.cu` numbers a run's samples as disjoint
//! subgraphs on the device, for outputs that stay there.

use crate::template::Template;

/// Walkers each thread of the walk kernel advances together: independent chains of reads in
/// flight per thread (one chain leaves the memory system idle between a read and the next,
/// two or more reach its rate).
pub const WALKERS_PER_THREAD: u32 = 4;

/// Threads per block of the walk kernel.
pub const WALK_THREADS: u32 = 128;

/// The most partitions of a graph whose edges stay in host memory (the partitioned walks count
/// their waiting walks per partition in shared memory: 16 KiB).
pub const MAX_PARTITIONS: u32 = 4096;

/// Threads per block of the per-sample kernel (one sample per thread).
pub const PER_SAMPLE_THREADS: u32 = 64;

/// Draws each thread of the warp-per-sample kernel makes at once in an individual step with
/// replacement (k-hop's fan-outs): independent chains of reads in flight, as the walk kernel's
/// walkers. Two spill at the register bound of `glp_sample_per_sample_draws` and lose (k-hop
/// 25,10 on an H100: 1.25x to 1.35x the time on com-DBLP and R-MAT 22).
pub const WARP_DRAWS: u32 = 1;

/// Threads per block of the warp-per-sample kernel (four samples per block).
pub const PER_SAMPLE_WARP_THREADS: u32 = 128;

/// Blocks of [`PER_SAMPLE_WARP_THREADS`] per SM that `glp_sample_per_sample_draws` (the
/// warp-per-sample kernel of samplers whose steps all draw with replacement) is compiled for: a
/// register bound (64 per thread on sm_90). Its warps spend their time waiting on dependent
/// reads, so more of them in flight pay: k-hop 25,10 on R-MAT 22 took 16.4 ms at its natural
/// 86 registers (4 blocks), 14.2 ms at 6 blocks, 13.1 ms at 7 and 13.3 ms at 8, which spilled
/// more (H100). Once the draws no longer tested the cached and packed rows at run time
/// (`glp_engine_begin`), 7 blocks took 72 registers without spilling and 8 spill 24 bytes, and
/// 8 won on an H200: com-DBLP 0.63 -> 0.60 ms, R-MAT 22 9.70 -> 9.17 ms (measured with the
/// draw's division by the fan-out done by a multiply, which alone changed nothing at 7 blocks
/// and was not kept). Both changes on an H100: 0.75 -> 0.63 ms and 11.64 -> 10.13 ms.
pub const DRAWS_WARP_BLOCKS: u32 = 8;

/// Blocks of [`WALK_THREADS`] per SM that the packed walk kernels with one walker per thread
/// (hooks that loop, over packed edges: node2vec on graphs beyond L2) are compiled for: a
/// register bound (64 per thread on sm_90; 70 unbounded, without spills either way).
/// node2vec p=2 q=0.5 on R-MAT 22 took 26.5 ms unbounded, 25.3 ms at 8 blocks and 26.9 ms at
/// 10, which spills (H100).
pub const PACKED_SINGLE_WALK_BLOCKS: u32 = 8;

/// Threads per block of the transit-parallel engine's block and grid kernels.
pub const TRANSIT_BLOCK_THREADS: u32 = 256;

/// The most threads a transit's chunk needs: a transit needing more is a grid transit, its
/// entries split into chunks of this many threads' work (NextDoor's block limit). A block of
/// [`TRANSIT_BLOCK_THREADS`] runs a chunk, each thread taking several draws: 1024-thread
/// blocks would cap a hook at 64 registers.
pub const TRANSIT_CHUNK_THREADS: u32 = 1024;

/// Entries of the row a block of the transit-parallel engine copies to shared memory (16
/// KiB): longer rows are read from the CSR.
pub const TRANSIT_SHARED_ROW: u32 = 4096;

/// Threads per block of the transit-parallel scan, and values per thread.
pub const TRANSIT_SCAN_THREADS: u32 = 1024;
pub const TRANSIT_SCAN_ITEMS: u32 = 4;

/// The transit-parallel step's counters (one `u32` each, in this order): entries, sub-warp
/// transits, block transits, grid transits, chunks (of block and grid transits).
pub const TRANSIT_COUNTERS: [&str; 5] = ["ENTRIES", "SUB_WARP", "BLOCK", "GRID", "CHUNKS"];

/// A draw without replacement that repeats a vertex is made again at most this many times per
/// distinct vertex of the neighbourhood (plus this many) per draw: for a uniform draw the
/// chance that a draw which can still find a new vertex gives up is below `e^-32`. A draw
/// that gives up ends the step's draws from that neighbourhood. Every engine applies it.
pub const UNIQUE_ATTEMPTS: u64 = 32;

/// A sample's status after the per-sample kernel: its history (transits of every step) did
/// not fit its region.
pub const OVERFLOW_HISTORY: u32 = 1;
/// ... its combined neighbourhood did not fit.
pub const OVERFLOW_COMBINED: u32 = 2;
/// ... its added vertices did not fit.
pub const OVERFLOW_OUT: u32 = 4;
/// ... a hook gave a result the CPU engine refuses (a vertex that is not a neighbour of its
/// transit, an entry past the combined neighbourhood, a negative or non-finite weight, more
/// than 2^32 draws in a step): the host replays the sample on the CPU for its error.
pub const FAILED: u32 = 8;

crate::c_struct! {
    /// A batch of samples for the per-sample kernel: their roots, the schedule, and the arena
    /// where each sample keeps its state (a region of fixed capacity per sample). Device
    /// pointers are addresses, 0 for null.
    pub struct SampleBatchArgs => "glp_sample_batch" {
        /// the sample ids (stream keys) of the batch's samples
        sample_ids: u64 => "const glp_u32*",
        /// samples + 1 entries: where each sample's roots start in roots
        root_offsets: u64 => "const glp_u64*",
        /// every sample's roots, as given
        roots: u64 => "const glp_u32*",
        /// the same, each sample's sorted
        sorted_roots: u64 => "const glp_u32*",
        /// sample_size of every step
        sizes: u64 => "const glp_u32*",
        /// unique of every step (0 or 1)
        unique_steps: u64 => "const unsigned char*",
        /// cap_history per sample: the transits of every step, one level after the other
        history: u64 => "glp_u32*",
        /// steps + 2 per sample: where each level starts
        history_starts: u64 => "glp_u64*",
        /// cap_combined per sample (collective samplers; null otherwise)
        combined: u64 => "glp_u32*",
        combined_sources: u64 => "glp_u32*",
        combined_prefix: u64 => "double*",
        /// null unless a step sorts its combined neighbourhood
        combined_sorted: u64 => "glp_u32*",
        /// cap_out per sample: the added vertices, their transits and transit positions
        /// (positions only with REPLACE, which places each added vertex at its transit's
        /// position: null otherwise, and not written), each sample's in step order
        vertices: u64 => "glp_u32*",
        sources: u64 => "glp_u32*",
        positions: u64 => "glp_u32*",
        /// steps per sample: the vertices the sample had added at the end of each step (its
        /// length for the steps after it ran out of transits), which imply each added
        /// vertex's step; meaningless for a sample whose status is not 0
        step_ends: u64 => "glp_u64*",
        /// per sample: the vertices it added
        lengths: u64 => "glp_u64*",
        /// per sample: 0 or the status bits (GLP_SAMPLE_OVERFLOW_*, GLP_SAMPLE_FAILED)
        status: u64 => "glp_u32*",
        cap_history: u64 => "glp_u64",
        cap_combined: u64 => "glp_u64",
        cap_out: u64 => "glp_u64",
        samples: u32 => "glp_u32",
        steps: u32 => "glp_u32",
        /// 1: collective sampling
        collective: u32 => "glp_u32",
        /// 1: REPLACE transits
        replace: u32 => "glp_u32",
        /// 1: the hooks call combined_count (sort each step's combined neighbourhood)
        sort_combined: u32 => "glp_u32",
        /// 1: no row of the graph repeats a neighbour (a row's distinct count is its degree)
        rows_distinct: u32 => "glp_u32",
    }
}

/// Threads per block of the subgraph numbering's kernels (a warp per sample).
pub const SUBGRAPH_THREADS: u32 = 128;

/// A bit of the subgraph numbering's failure word: a record's transit is not among its
/// sample's vertices.
pub const SUBGRAPH_MISSING_TRANSIT: u32 = 1;
/// ... a record's step ends do not fit it (decreasing, or the last not its length).
pub const SUBGRAPH_BAD_STEP_ENDS: u32 = 2;

crate::c_struct! {
    /// A run's samples to number as disjoint subgraphs (`glp_subgraph_hops`, then
    /// `glp_subgraph_write`): each sample's roots and record (wherever the engine left it),
    /// the scratch each sample keeps its distinct vertices in, the counts and where each
    /// sample's part of every hop and step starts, and the outputs. An entry of a sample is
    /// one of its roots or one of its record's vertices, roots first; per-entry arrays hold a
    /// sample's entries from `entry_offsets[k]`. Device pointers are addresses, 0 for null.
    pub struct SubgraphArgs => "glp_subgraph_batch" {
        /// samples + 1 entries: where each sample's roots start in roots
        root_offsets: u64 => "const glp_u64*",
        roots: u64 => "const glp_u32*",
        /// per sample: the address of its record's vertices and transits (glp_u32 arrays), of
        /// its step ends (steps glp_u64: the vertices it had added at the end of each step),
        /// and the record's length
        record_vertices: u64 => "const glp_u64*",
        record_sources: u64 => "const glp_u64*",
        record_step_ends: u64 => "const glp_u64*",
        record_lengths: u64 => "const glp_u64*",
        /// samples + 1 entries: where each sample's entries start
        entry_offsets: u64 => "const glp_u64*",
        /// each sample's hash table (a power of two of slots from `table_offsets[k]`, at most
        /// half full), zeroed
        tables: u64 => "glp_u64*",
        table_offsets: u64 => "const glp_u64*",
        /// per entry: the sample's distinct vertices, in order of first appearance ...
        distinct: u64 => "glp_u32*",
        /// ... each one's hop << 32 | its index among the sample's vertices of that hop, then
        /// (glp_subgraph_write) its local id
        distinct_local: u64 => "glp_u64*",
        /// per entry of a record: the distinct index of the vertex drawn and of its transit,
        /// and the edge's index among the sample's edges of its step
        edge_rows: u64 => "glp_u32*",
        edge_cols: u64 => "glp_u32*",
        edge_ranks: u64 => "glp_u32*",
        /// samples x hops: each sample's vertices per hop; samples x steps: its edges per step
        /// (zeroed; glp_subgraph_hops counts them)
        node_counts: u64 => "glp_u32*",
        edge_counts: u64 => "glp_u32*",
        /// hops x samples: the local id of each sample's first vertex of each hop; steps x
        /// samples: where each sample's edges of each step start (the counts, scanned)
        node_starts: u64 => "const glp_u64*",
        edge_starts: u64 => "const glp_u64*",
        /// null, or the input id of each vertex (else first_id + v)
        ids: u64 => "const glp_u64*",
        first_id: u64 => "glp_u64",
        /// the arrays of the disjoint subgraphs
        node: u64 => "glp_i64*",
        batch: u64 => "glp_i64*",
        row: u64 => "glp_i64*",
        col: u64 => "glp_i64*",
        /// GLP_SUBGRAPH_* bits of what went wrong (zeroed)
        failed: u64 => "glp_u32*",
        samples: u64 => "glp_u64",
        steps: u32 => "glp_u32",
        /// steps + 1
        hops: u32 => "glp_u32",
    }
}

crate::c_struct! {
    /// One step of the transit-parallel engine over a batch (a [`SampleBatchArgs`]): the
    /// scheduling index and the dense slots draws go to. Capacities: `entry_capacity` entries
    /// and chunks, `num_vertices` counts, the batch's `cap_out` slots per sample.
    pub struct TransitStepArgs => "glp_transit_step" {
        /// per vertex: its entries, then where they start, then where they end
        counts: u64 => "glp_u32*",
        /// the scan's tile totals
        tile_sums: u64 => "glp_u32*",
        /// the entries sorted by transit: batch index of the sample, transit position,
        /// transit, first slot (= stream lane)
        entry_samples: u64 => "glp_u32*",
        entry_positions: u64 => "glp_u32*",
        entry_transits: u64 => "glp_u32*",
        entry_slots: u64 => "glp_u64*",
        /// cap_out per sample: each lane's draw (NONE: none), and its transit's position
        dense_vertices: u64 => "glp_u32*",
        dense_positions: u64 => "glp_u32*",
        /// per sample: the step's lanes
        step_lanes: u64 => "glp_u64*",
        /// the chunks of block and grid transits: transit, first sorted entry, entries
        chunk_transits: u64 => "glp_u32*",
        chunk_firsts: u64 => "glp_u32*",
        chunk_counts: u64 => "glp_u32*",
        /// GLP_TRANSIT_COUNTER_* (glp-codegen's TRANSIT_COUNTERS)
        counters: u64 => "glp_u32*",
        entry_capacity: u64 => "glp_u64",
        num_vertices: u32 => "glp_u32",
        step: u32 => "glp_u32",
    }
}

/// The kernels' `ENGINE` slot: the constants above as `#define`s, then the batch struct.
pub fn engine_cuda() -> String {
    let defines = [
        ("WALKERS", u64::from(WALKERS_PER_THREAD), "walkers per thread of glp_sample_walks"),
        ("WALK_THREADS", u64::from(WALK_THREADS), "threads per block of glp_sample_walks"),
        (
            "PER_SAMPLE_WARP_THREADS",
            u64::from(PER_SAMPLE_WARP_THREADS),
            "threads per block of the warp-per-sample kernels",
        ),
        ("DRAWS_WARP_BLOCKS", u64::from(DRAWS_WARP_BLOCKS), "blocks per SM glp_sample_per_sample_draws is bounded for"),
        (
            "PACKED_SINGLE_WALK_BLOCKS",
            u64::from(PACKED_SINGLE_WALK_BLOCKS),
            "blocks per SM the packed one-walker walk kernels are bounded for",
        ),
        ("MAX_PARTITIONS", u64::from(MAX_PARTITIONS), "the most partitions of a graph in host memory"),
        ("WARP_DRAWS", u64::from(WARP_DRAWS), "draws in flight per thread of glp_engine_individual_step_warp"),
        ("UNIQUE_ATTEMPTS", UNIQUE_ATTEMPTS, "repeats a draw without replacement may make per distinct vertex"),
        ("OVERFLOW_HISTORY", u64::from(OVERFLOW_HISTORY), "status: the history did not fit"),
        ("OVERFLOW_COMBINED", u64::from(OVERFLOW_COMBINED), "status: the combined neighbourhood did not fit"),
        ("OVERFLOW_OUT", u64::from(OVERFLOW_OUT), "status: the added vertices did not fit"),
        ("FAILED", u64::from(FAILED), "status: a hook's result the CPU engine refuses"),
    ];
    let subgraph = [
        ("THREADS", u64::from(SUBGRAPH_THREADS), "threads per block of the subgraph numbering"),
        ("MISSING_TRANSIT", u64::from(SUBGRAPH_MISSING_TRANSIT), "failed: a transit its sample does not hold"),
        ("BAD_STEP_ENDS", u64::from(SUBGRAPH_BAD_STEP_ENDS), "failed: a record's step ends that do not fit it"),
    ];
    let transit = [
        ("BLOCK_THREADS", u64::from(TRANSIT_BLOCK_THREADS), "threads per block of the block and grid kernels"),
        ("CHUNK_THREADS", u64::from(TRANSIT_CHUNK_THREADS), "the most threads a chunk of a transit's entries needs"),
        ("SHARED_ROW", u64::from(TRANSIT_SHARED_ROW), "entries of a row cached in shared memory"),
        ("SCAN_THREADS", u64::from(TRANSIT_SCAN_THREADS), "threads per block of the scan"),
        ("SCAN_ITEMS", u64::from(TRANSIT_SCAN_ITEMS), "values per thread of the scan"),
        ("SCAN_TILE", u64::from(TRANSIT_SCAN_THREADS * TRANSIT_SCAN_ITEMS), "values per block of the scan"),
    ];
    let mut text: String =
        defines.iter().map(|(name, value, doc)| format!("#define GLP_SAMPLE_{name} {value}ull // {doc}\n")).collect();
    for (name, value, doc) in transit {
        text.push_str(&format!("#define GLP_TRANSIT_{name} {value}ull // {doc}\n"));
    }
    for (name, value, doc) in subgraph {
        text.push_str(&format!("#define GLP_SUBGRAPH_{name} {value}u // {doc}\n"));
    }
    for (index, name) in TRANSIT_COUNTERS.iter().enumerate() {
        text.push_str(&format!("#define GLP_TRANSIT_COUNTER_{name} {index}u\n"));
    }
    text.push_str(&SampleBatchArgs::c_definition());
    text.push_str(&TransitStepArgs::c_definition());
    text.push('\n');
    text.push_str(&SubgraphArgs::c_definition());
    text
}

/// The walk engines' kernels, in [`ENGINE_KERNELS`]'s `WALKS` slot (their own file: one
/// engine each, as the transit-parallel step's).
const WALK_KERNELS: &str = include_str!("walk_kernels.cu");

/// The transit-parallel step's kernels, appended to [`ENGINE_KERNELS`] (their own file: one
/// engine each).
const TRANSIT_KERNELS: &str = include_str!("transit_kernels.cu");

/// The subgraph numbering's kernels, appended after the transit-parallel ones.
const SUBGRAPH_KERNELS: &str = include_str!("subgraph_kernels.cu");

/// The engines' kernels as written, with their slots.
pub const ENGINE_KERNELS: Template = Template::new("kinds/sample/engine_kernels.cu", include_str!("engine_kernels.cu"));

/// The entry points of [`ENGINE_KERNELS`].
pub const ENGINE_KERNEL_NAMES: [&str; 27] = [
    "glp_sample_walks",
    "glp_sample_walks_single",
    "glp_sample_walks_single_offsets",
    "glp_sample_walks_packed",
    "glp_sample_walks_narrow",
    "glp_sample_walks_packed_single",
    "glp_sample_walks_narrow_single",
    "glp_sample_pack_edges",
    "glp_sample_pack_edges_narrow",
    "glp_sample_per_sample",
    "glp_sample_per_sample_warp",
    "glp_sample_per_sample_draws",
    "glp_sample_compact_records",
    "glp_sample_walk_rows",
    "glp_sample_begin",
    "glp_sample_step_warp",
    "glp_transit_count",
    "glp_transit_scan_tiles",
    "glp_transit_scan_totals",
    "glp_transit_scan_add",
    "glp_transit_scatter",
    "glp_transit_classify",
    "glp_transit_draw_small",
    "glp_transit_draw_large",
    "glp_transit_gather",
    "glp_subgraph_hops",
    "glp_subgraph_write",
];

/// The engines' kernels with `device_functions` (a sampler's emitted hooks) fused in.
pub fn engine_kernel_source(
    device_functions: &str,
    traits: super::layout::ViewTraits,
) -> Result<String, crate::template::TemplateError> {
    ENGINE_KERNELS.fill(&[
        ("PRELUDE", crate::cuda::PRELUDE),
        ("VIEW", &super::layout::view_cuda(traits)),
        ("ENGINE", &engine_cuda()),
        ("PROGRAM", device_functions),
        ("WALKS", WALK_KERNELS),
        ("TRANSIT", TRANSIT_KERNELS),
        ("SUBGRAPHS", SUBGRAPH_KERNELS),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slot_defines_every_constant_and_the_batch_struct() {
        let text = engine_cuda();
        assert!(text.contains(&format!("#define GLP_SAMPLE_WALKERS {WALKERS_PER_THREAD}ull ")));
        assert!(text.contains("#define GLP_SAMPLE_FAILED 8ull "));
        assert!(text.contains("struct glp_sample_batch {"));
        assert!(text.contains("struct glp_subgraph_batch {"));
        assert!(text.contains(&format!("#define GLP_SUBGRAPH_THREADS {SUBGRAPH_THREADS}u ")));
        let source = engine_kernel_source(
            "struct glp_sample_params { glp_u32 unused; };",
            super::super::layout::ViewTraits::ANY,
        )
        .unwrap();
        for name in ENGINE_KERNEL_NAMES {
            assert!(
                source.contains(&format!("{name}(const ")) || source.contains(&format!("{name}(GLP_")),
                "{name} missing"
            );
        }
        assert!(!source.contains("/*{{"));
    }
}
