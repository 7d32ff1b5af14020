//! The G-Sort baseline's kernels (`sort_kernels.cuh`, spliced into the MFL module by its
//! `SORT` slot) and the segment-size bounds the kernels and the engine's planner share.
//!
//! Every iteration: gather each edge's neighbour label and weight into the per-edge array NL,
//! sort every vertex's segment of NL by label, then scan the sorted runs (the kernel file's
//! header gives the algorithm and why it is exact).
//!
//! | segment (degree) | sort kernel | work unit |
//! |---|---|---|
//! | `0..=1` | none (already sorted) | |
//! | `2..=32` | `glp_lp_sort_tiles` | a tile of `T` = next power of two lanes, bitonic network in registers (shuffles), several segments per warp |
//! | `33..=2048` | `glp_lp_sort_block` | a block of 256 threads, bitonic sort in shared memory |
//! | `> 2048` | `glp_lp_sort_large` | a block of 1024 threads: 2048-entry tiles sorted in shared memory, then merge passes in global memory through a scratch buffer of the segment's size |
//!
//! `glp_lp_sort_count` then scans each vertex's sorted segment with the same tiles (warps
//! above 32).

use super::mfl::LOW_TILES;

/// Segments of at most this many entries are sorted by a tile of lanes in registers (the
/// widest low-class tile: a warp).
pub const SORT_TILE_MAX: u64 = LOW_TILES[LOW_TILES.len() - 1] as u64;
/// Segments of at most this many entries are sorted in shared memory by one block; larger
/// ones are merged from tiles of this size. 2048 entries of a label and an f64 weight take
/// 24 KiB of shared memory.
pub const SORT_BLOCK_MAX: u64 = 2048;
/// Threads per block of the gather, tile-sort and count kernels.
pub const SORT_THREADS: u32 = 256;
/// Threads per block of the shared-memory segment sort.
pub const SORT_BLOCK_THREADS: u32 = 256;
/// Threads per block of the large-segment sort (a block per segment).
pub const SORT_LARGE_THREADS: u32 = 1024;

// The shared-memory sort pads segments to a power of two; the tile classes end below it.
const _: () = assert!(SORT_BLOCK_MAX.is_power_of_two() && SORT_TILE_MAX < SORT_BLOCK_MAX);

/// The sort kernels' CUDA source.
const SORT_KERNELS: &str = include_str!("sort_kernels.cuh");

/// The text of the MFL module's `SORT` slot: the bounds above as macros, then the kernels.
pub fn sort_kernels_cuda() -> String {
    format!(
        "#define GLP_SORT_BLOCK_MAX {SORT_BLOCK_MAX}\n#define GLP_SORT_THREADS {SORT_THREADS}\n\
         #define GLP_SORT_BLOCK_THREADS {SORT_BLOCK_THREADS}\n#define GLP_SORT_LARGE_THREADS {SORT_LARGE_THREADS}\n\
         {SORT_KERNELS}"
    )
}

/// The sort kernels' names (every one is in the MFL module).
pub const SORT_KERNEL_NAMES: [&str; 5] =
    ["glp_lp_sort_gather", "glp_lp_sort_tiles", "glp_lp_sort_block", "glp_lp_sort_large", "glp_lp_sort_count"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slot_text_defines_the_bounds_and_every_kernel() {
        let text = sort_kernels_cuda();
        assert!(text.contains("#define GLP_SORT_BLOCK_MAX 2048\n"));
        assert!(!text.contains("/*{{"), "the sort kernels have no slots of their own");
        for name in SORT_KERNEL_NAMES {
            assert!(text.contains(&format!("{name}(")), "{name}");
        }
    }
}
