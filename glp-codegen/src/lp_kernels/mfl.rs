//! The GPU engine's label propagation kernels (`mfl_kernels.cu`) with a variant fused in, and
//! the degree-class thresholds the kernels and the engine's planner share.
//!
//! | class | degree | kernel | work unit | label table |
//! |---|---|---|---|---|
//! | low | `< 32` | `glp_lp_low_<T>` | a tile of `T` = next power of two lanes | none: `__match_any_sync` groups lanes, shuffles sum and reduce |
//! | middle | `32..=128` | `glp_lp_mid` | a warp | per-warp shared table of 256 slots (never full) |
//! | high | `129..=1024` | `glp_lp_high` | a block of 256 threads | shared table of `nextPow2(2 * degree)` slots (at most 2048), never full |
//! | high, hubs | `1025..=65536` | `glp_lp_hub` (asynchronous sweeps: the whole high class, by id) | a block of 256 threads | shared table of 2048 slots; a count-min sketch of 4 x 512 counters takes the labels the table refuses after 32 probes |
//! | hubs, deferred | `1025..=65536` | `glp_lp_high_exact` | a block of 256 threads, looping over the deferred vertices | the shared table plus the block's region of a bounded global pool |
//! | giant | `> 65536` | `glp_lp_giant_count`, `glp_lp_giant_best` ([`super::giants`]) | blocks of 256 threads taking chunks of 8192 edges, then slices of 4096 slots | a shared table per chunk, flushed into the giant's global region |
//!
//! Why these bounds: below 32 neighbours a warp-wide vote finds equal labels in one
//! instruction, and packing several vertices per warp keeps lanes busy (most vertices of
//! real graphs are here). From 32 to 128 neighbours a warp streams the adjacency in 1 to 4
//! rounds and a 256-slot table (3 KiB of shared memory per warp, 8 warps per block) holds every
//! distinct label at a load factor of at most 1/2. Above 128 a block streams the adjacency;
//! 2048 shared slots (24 KiB) keep every vertex of degree up to 1024 exact in shared memory,
//! and `glp_lp_high` clears and scans only the `nextPow2(2 * degree)` slots a vertex needs,
//! without the sketch's shared memory (which would hold the kernel to 5 blocks of 256 threads
//! per SM instead of 8).
//!
//! Larger vertices (hubs) may meet more distinct labels than fit (early iterations, when labels are
//! still vertex ids). As in GLP's Procedure SharedMemBigNodes, the labels the table refuses go
//! to a count-min sketch (16 KiB: the table and the sketch fill 40 of the 48 KiB of static
//! shared memory). The sketch only over-estimates a label's frequency (weights are checked to
//! be non-negative), so when the variant's score is non-decreasing in the frequency
//! (`glp_lp_score_monotone`, proven by the compiler, possibly under conditions on the
//! parameters checked at run time) the best score the sketch can give a refused label bounds
//! its true best score. If the table's best candidate beats that bound (equal scores included:
//! the bound carries its label for the tie rule), it is the MFL and the vertex is done in
//! shared memory. Otherwise, or with a negative weight, or a score not proven monotone (the
//! exact path of non-monotone variants), the vertex is deferred: `glp_lp_high_exact` re-counts
//! it with the shared table and a global region taking the refused labels, so every result is
//! exact. The regions come from a pool of at most [`EXACT_POOL_BYTES`] (or one region, if the
//! largest vertex needs more), not from per-edge memory: the blocks of the exact kernel (up
//! to [`EXACT_MAX_BLOCKS`], as many as the pool holds regions for the largest vertex) take
//! the deferred vertices in turn. Vertices above 65536 neighbours (giants) are neither: many
//! blocks count each of them straight into a global region ([`super::giants`]), so that no
//! block streams a million-edge row alone and no giant is counted twice.

use crate::kinds::lp::{layout::view_cuda, PHASE_KERNELS_CUDA};
use crate::template::{Template, TemplateError};

/// Vertices of degree below this are in the low class.
pub const LOW_DEGREE_LIMIT: u64 = 32;
/// Vertices of degree up to this (and at least [`LOW_DEGREE_LIMIT`]) are in the middle class.
pub const MID_MAX_DEGREE: u64 = 128;
/// Slots of the per-warp table of the middle class.
pub const MID_TABLE: u64 = 256;
/// Warps (vertices) per block of the middle-class kernel.
pub const MID_WARPS_PER_BLOCK: u32 = 8;
/// Slots of the shared table of the high class.
pub const HIGH_TABLE: u64 = 2048;
/// Threads per block of the high-class kernel.
pub const HIGH_THREADS: u32 = 256;
/// Probes into the shared table before a label goes to the global region.
pub const HIGH_PROBES: u64 = 32;
/// High-class vertices of degree above this may meet more labels than the shared table
/// holds: their refused labels go to the count-min sketch, and they may be deferred.
pub const HIGH_OVERFLOW_DEGREE: u64 = HIGH_TABLE / 2;
/// Rows (hash functions) of the high class's count-min sketch.
pub const SKETCH_ROWS: u64 = 4;
/// Counters per row of the sketch (a power of two; multiply-shift hashing).
pub const SKETCH_WIDTH: u64 = 512;
/// Bytes of global memory the exact path's pool of table regions may take (one region of
/// 12 bytes per slot per block of `glp_lp_high_exact`), unless a single region needs more.
pub const EXACT_POOL_BYTES: u64 = 2 << 30;
/// Most blocks of the exact path (about as many as the largest GPUs hold at once: 8 per SM
/// at 256 threads and 25 KiB of shared memory each).
pub const EXACT_MAX_BLOCKS: u64 = 1024;
/// Bytes of one global table slot (u32 key, f64 sum).
pub const TABLE_SLOT_BYTES: u64 = 12;
/// Threads per block of the G-Hash kernel (a warp per vertex).
pub const GLOBAL_THREADS: u32 = 256;
/// The tile widths of the low class, one kernel each (`glp_lp_low_<T>`).
pub const LOW_TILES: [u32; 6] = [1, 2, 4, 8, 16, 32];

// The middle-class table holds every distinct label at load factor 1/2; the tables' slot
// counts are powers of two (the kernels mask instead of dividing).
const _: () = assert!(MID_TABLE >= 2 * MID_MAX_DEGREE && MID_TABLE.is_power_of_two() && HIGH_TABLE.is_power_of_two());
// The sketch's hashing takes the top log2(width) bits; its kernel has four row multipliers.
const _: () = assert!(SKETCH_WIDTH.is_power_of_two() && SKETCH_ROWS >= 1 && SKETCH_ROWS <= 4);
// Table (12 B per slot) and sketch (8 B per counter) within 48 KiB of static shared memory,
// with 1 KiB left for the block reduction.
const _: () = assert!(HIGH_TABLE * TABLE_SLOT_BYTES + SKETCH_ROWS * SKETCH_WIDTH * 8 <= 47 * 1024);

crate::c_struct! {
    /// One sweep of the class kernels over the vertices, the argument every class kernel
    /// takes after the view (declared once: glp-runtime fills this struct, the kernels read
    /// the C definition generated from it).
    pub struct LpSweepArgs => "glp_lp_sweep" {
        /// where labels go: the output array, or the labels (in place)
        out: u64 => "glp_u32*",
        /// per-vertex affected flags (asynchronous); null: synchronous
        affected: u64 => "unsigned char*",
        /// words: labels changed, vertices processed (asynchronous), the view's fault record
        /// (two words), high vertices deferred, settled by the sketch (`layout::counters`)
        counters: u64 => "unsigned long long*",
        /// nonzero: a vertex may only move to a smaller label
        pick_less: u32 => "glp_u32",
        /// asynchronous, nonzero: this launch sweeps only the vertices v with v / wave_size ==
        /// wave (the sweep runs in waves, one after the other)
        wave_size: u32 => "glp_u32",
        /// this launch's wave (see wave_size)
        wave: u32 => "glp_u32",
        /// nonzero: the hub kernel defers a vertex at its first refused label, without
        /// the sketch (the first synchronous sweep's: labels all distinct overflow every
        /// hub's table)
        eager_defer: u32 => "glp_u32",
    }
}

/// The first synchronous sweep from labels all distinct (`kinds::lp::properties::distinct_first_sweep`):
/// an edge-parallel minimum of the neighbours' labels, then every vertex finished.
const DISTINCT_KERNELS: &str = include_str!("distinct_kernels.cuh");

/// The distinct first sweep's kernels (in every MFL module).
pub const DISTINCT_KERNEL_NAMES: [&str; 2] = ["glp_lp_distinct_min", "glp_lp_distinct_finish"];

/// The kernel template.
pub const MFL_KERNELS: Template = Template::new("lp_kernels/mfl_kernels.cu", include_str!("mfl_kernels.cu"));

/// The tile width of a low-class vertex of degree `degree` (< [`LOW_DEGREE_LIMIT`]).
pub fn low_tile(degree: u64) -> u32 {
    degree.max(1).next_power_of_two() as u32
}

/// The exact path's pool for deferrable vertices of at most `max_degree` neighbours, `count`
/// of them: (blocks, slots per block region). No pool without deferrable vertices.
pub fn exact_pool(max_degree: u64, count: u64) -> (u64, u64) {
    if count == 0 {
        return (0, 0);
    }
    let region = table_capacity(max_degree);
    let blocks = (EXACT_POOL_BYTES / (region * TABLE_SLOT_BYTES)).clamp(1, EXACT_MAX_BLOCKS.min(count));
    (blocks, region)
}

/// Slots of a global hash table region for a vertex of degree `degree`: the next power of two
/// of at least `2 * degree` (load factor at most 1/2), 0 for isolated vertices.
pub fn table_capacity(degree: u64) -> u64 {
    if degree == 0 {
        0
    } else {
        (2 * degree).next_power_of_two()
    }
}

/// How equal scores are ordered in the exact strategies' MFL search (the sketches keep their
/// own rule, the lowest slot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TieOrder {
    /// The smaller label first.
    #[default]
    SmallestLabel,
    /// The smaller per-vertex hash of the label first (`GLP_TIES_HASHED`, the same function
    /// as glp-runtime's `TieBreak::Hashed`).
    Hashed,
}

/// The compile-time choices of a kernel module beyond the variant's hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MflOptions {
    /// Every neighbour contributes weight 1 (`kinds::lp::properties::unit_neighbor_weight`):
    /// count, don't sum.
    pub unit_weights: bool,
    /// The tie rule.
    pub ties: TieOrder,
    /// `load_neighbor` is the default hook (`kinds::lp::properties::default_load_neighbor`):
    /// the kernels read the neighbour's label at its device position themselves.
    pub default_load_neighbor: bool,
}

/// The kernel module for a variant: `device_functions` are its emitted hooks.
pub fn mfl_kernel_source(device_functions: &str, options: MflOptions) -> Result<String, TemplateError> {
    let mut config = format!(
        "#define GLP_MID_MAX_DEGREE {MID_MAX_DEGREE}\n#define GLP_MID_TABLE {MID_TABLE}\n\
         #define GLP_HIGH_TABLE {HIGH_TABLE}\n#define GLP_HIGH_THREADS {HIGH_THREADS}\n\
         #define GLP_HIGH_PROBES {HIGH_PROBES}\n#define GLP_SKETCH_ROWS {SKETCH_ROWS}\n\
         #define GLP_SKETCH_WIDTH {SKETCH_WIDTH}\n#define GLP_SKETCH_WIDTH_LOG2 {}\n",
        SKETCH_WIDTH.trailing_zeros()
    );
    config.push_str(&crate::kinds::lp::layout::sweep_counters_cuda());
    if options.unit_weights {
        config.push_str("#define GLP_UNIT_WEIGHTS 1\n");
    }
    if options.ties == TieOrder::Hashed {
        config.push_str("#define GLP_TIES_HASHED 1\n");
    }
    if options.default_load_neighbor {
        config.push_str("#define GLP_DEFAULT_LOAD_NEIGHBOR 1\n");
    }
    MFL_KERNELS.fill(&[
        ("PRELUDE", crate::cuda::PRELUDE),
        ("CONFIG", &config),
        ("VIEW", &view_cuda()),
        ("SWEEP_STRUCT", &LpSweepArgs::c_definition()),
        ("PROGRAM", device_functions),
        ("PHASES", PHASE_KERNELS_CUDA),
        ("SORT", &super::sort::sort_kernels_cuda()),
        ("DISTINCT", DISTINCT_KERNELS),
        ("SKETCH", &super::sketch::sketch_kernels_cuda()),
        ("GIANTS", &super::giants::giant_kernels_cuda()?),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_cover_the_low_class() {
        assert_eq!(low_tile(0), 1);
        assert_eq!(low_tile(1), 1);
        assert_eq!(low_tile(3), 4);
        assert_eq!(low_tile(31), 32);
        for d in 0..LOW_DEGREE_LIMIT {
            assert!(u64::from(low_tile(d)) >= d && LOW_TILES.contains(&low_tile(d)));
        }
    }

    #[test]
    fn tables_have_room_for_every_label_at_half_load() {
        assert_eq!(table_capacity(0), 0);
        assert_eq!(table_capacity(1), 2);
        assert_eq!(table_capacity(129), 512);
        for d in 1..5000 {
            assert!(table_capacity(d) >= 2 * d && table_capacity(d).is_power_of_two());
        }
    }

    #[test]
    fn the_exact_pool_is_bounded() {
        assert_eq!(exact_pool(5000, 0), (0, 0));
        // 16384-slot regions: 192 KiB each, the block cap applies.
        assert_eq!(exact_pool(5000, 5000), (EXACT_MAX_BLOCKS, 16384));
        assert_eq!(exact_pool(5000, 3), (3, 16384));
        // A hub of 2^24 neighbours: 2^25 slots, 384 MiB: five fit in 2 GiB.
        assert_eq!(exact_pool(1 << 24, 10), (5, 1 << 25));
        // A hub of 2^28 neighbours: one region of 6 GiB, above the budget.
        assert_eq!(exact_pool(1 << 28, 10), (1, 1 << 29));
        for (degree, count) in [(1025, 7), (100_000, 500), (3_000_000, 40)] {
            let (blocks, region) = exact_pool(degree, count);
            assert!(region >= 2 * degree && blocks >= 1 && blocks <= count);
            assert!(blocks == 1 || blocks * region * TABLE_SLOT_BYTES <= EXACT_POOL_BYTES);
        }
    }

    #[test]
    fn the_kernel_template_is_complete() {
        let options = MflOptions { unit_weights: true, ties: TieOrder::Hashed, default_load_neighbor: true };
        let source = mfl_kernel_source("struct glp_lp_params { int x; };", options).unwrap();
        assert!(source.contains("#define GLP_UNIT_WEIGHTS 1") && source.contains("#define GLP_TIES_HASHED 1"));
        assert!(source.contains("#define GLP_DEFAULT_LOAD_NEIGHBOR 1"));
        let plain = mfl_kernel_source("struct glp_lp_params { int x; };", MflOptions::default()).unwrap();
        assert!(!plain.contains("#define GLP_UNIT_WEIGHTS") && !plain.contains("#define GLP_TIES_HASHED"));
        assert!(!plain.contains("#define GLP_DEFAULT_LOAD_NEIGHBOR"));
        assert!(!source.contains("/*{{"));
        for t in LOW_TILES {
            assert!(source.contains(&format!("GLP_LOW_KERNEL({t})")));
        }
        for name in crate::lp_kernels::sort::SORT_KERNEL_NAMES {
            assert!(source.contains(&format!("{name}(")), "the SORT slot lacks {name}");
        }
        assert!(source.contains("GLP_SKETCH_KERNELS(mg8, 8, false)"), "the SKETCH slot is filled");
        for name in DISTINCT_KERNEL_NAMES {
            assert!(source.contains(&format!("{name}(")), "the DISTINCT slot lacks {name}");
        }
        assert!(source.contains(&format!("\n{}\n", LpSweepArgs::c_definition())), "the SWEEP_STRUCT slot is filled");
    }

    #[test]
    fn the_sweep_is_declared_from_its_table() {
        // Three pointers then four 4-byte words, no padding.
        assert_eq!(std::mem::size_of::<LpSweepArgs>(), 3 * 8 + 4 * 4);
        assert_eq!(std::mem::offset_of!(LpSweepArgs, wave), 3 * 8 + 2 * 4);
        let definition = LpSweepArgs::c_definition();
        assert!(definition.starts_with("// One sweep of the class kernels"), "{definition}");
        assert!(definition.contains("\nstruct glp_lp_sweep {\n    glp_u32* out; "), "{definition}");
        assert!(definition.contains("\n    unsigned long long* counters;   // words: labels changed,"), "{definition}");
        assert_eq!(std::mem::offset_of!(LpSweepArgs, eager_defer), 3 * 8 + 3 * 4);
        assert!(definition.contains("\n    glp_u32 eager_defer; "), "{definition}");
        assert!(definition.ends_with("hub's table)\n};"), "{definition}");
    }
}
