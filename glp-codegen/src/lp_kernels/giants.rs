//! The giant class of the MFL kernels (`giant_kernels.cuh`, spliced into the module by its
//! `GIANTS` slot): vertices of degree above [`GIANT_DEGREE`], counted exactly by many blocks
//! each, and the batches a run's giants are planned into.
//!
//! The high class gives a vertex one block; a hub of a million neighbours (graph500-26 has
//! one) then keeps that block streaming its row long after the rest of the kernel is done,
//! and when its labels overflow the shared table the exact path counts it again with one
//! block. Giants skip both: every sweep, blocks take chunks of [`GIANT_CHUNK`] edges of any
//! giant of a batch, pre-count them in a shared table and add the sums to the giant's region
//! of a global pool (`table_capacity(degree)` slots); then blocks take slices of
//! [`GIANT_SLICE`] slots, and the last block of each giant picks its label from the slices'
//! best. No sketch: every giant is counted exactly once per sweep. A batch's regions fit in
//! [`GIANT_POOL_BYTES`] (a giant that needs more is a batch of its own), so a run holds one
//! pool, reused batch after batch.

use super::mfl::{table_capacity, HIGH_THREADS, TABLE_SLOT_BYTES};
use crate::template::{Template, TemplateError};

/// Vertices of degree above this are giants (and leave the high class). At this degree one
/// block takes 256 rounds of its threads over the row; a region of 2^18 slots (3 MiB).
pub const GIANT_DEGREE: u64 = 65_536;
/// Edges of one work unit of the counting kernel (32 rounds of a block's threads).
pub const GIANT_CHUNK: u64 = 8192;
/// Region slots of one work unit of the best-label kernel.
pub const GIANT_SLICE: u64 = 4096;
/// Bytes of global memory one batch's regions may take (a giant needing more is alone).
pub const GIANT_POOL_BYTES: u64 = 2 << 30;
/// Most blocks of the giant kernels (enough to fill the largest GPUs several times over).
pub const GIANT_MAX_BLOCKS: u64 = 4096;

// Every giant's region is a whole number of slices (regions are powers of two of at least
// 2 * (GIANT_DEGREE + 1) slots), and a chunk is a whole number of a block's rounds.
const _: () = assert!(GIANT_SLICE.is_power_of_two() && GIANT_SLICE <= 2 * GIANT_DEGREE);
const _: () = assert!(GIANT_CHUNK.is_multiple_of(HIGH_THREADS as u64));

crate::c_struct! {
    /// One batch of giants, the argument of the giant kernels (declared once: glp-runtime
    /// fills this struct, the kernels read the C definition generated from it).
    pub struct LpGiantArgs => "glp_lp_giants" {
        /// the batch's giants
        vertices: u64 => "const glp_u32*",
        /// count + 1 prefix offsets of their regions in the pool, in slots
        region_offsets: u64 => "const glp_u64*",
        /// count + 1 prefix offsets of their chunks of GLP_GIANT_CHUNK edges
        chunk_offsets: u64 => "const glp_u64*",
        /// per giant: 1 when it takes part in this sweep (glp_lp_giant_claim)
        active: u64 => "glp_u32*",
        /// per giant: slices finished this sweep (the last block resets it)
        done: u64 => "glp_u32*",
        /// three words per slice: its best candidate
        partials: u64 => "unsigned long long*",
        /// the pool's keys (empty: GLP_EMPTY_KEY)
        keys: u64 => "glp_u32*",
        /// the pool's sums
        sums: u64 => "double*",
        /// giants in the batch
        count: u32 => "glp_u32",
        /// unused: keeps the struct a multiple of 8 bytes without tail padding
        padding: u32 => "glp_u32",
    }
}

/// Words of `partials` per slice.
pub const PARTIAL_WORDS: u64 = 3;

/// The giant kernels, with the batch struct's slot.
const GIANT_KERNELS: Template = Template::new("lp_kernels/giant_kernels.cuh", include_str!("giant_kernels.cuh"));

/// The text of the MFL module's `GIANTS` slot: the bounds as macros, then the kernels with the
/// batch struct.
pub fn giant_kernels_cuda() -> Result<String, TemplateError> {
    let kernels = GIANT_KERNELS.fill(&[("GIANTS_STRUCT", &LpGiantArgs::c_definition())])?;
    Ok(format!("#define GLP_GIANT_CHUNK {GIANT_CHUNK}ull\n#define GLP_GIANT_SLICE {GIANT_SLICE}ull\n{kernels}"))
}

/// The giant kernels' names (every one is in the MFL module).
pub const GIANT_KERNEL_NAMES: [&str; 3] = ["glp_lp_giant_claim", "glp_lp_giant_count", "glp_lp_giant_best"];

/// One batch of giants as the kernels read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GiantBatch {
    /// The giants, in the order given to [`giant_batches`].
    pub vertices: Vec<u32>,
    /// `vertices.len() + 1` prefix offsets of their regions, in slots.
    pub region_offsets: Vec<u64>,
    /// `vertices.len() + 1` prefix offsets of their chunks.
    pub chunk_offsets: Vec<u64>,
}

impl GiantBatch {
    /// Slots of the batch's regions.
    pub fn slots(&self) -> u64 {
        self.region_offsets.last().copied().unwrap_or(0)
    }

    /// Slices of the batch's regions.
    pub fn slices(&self) -> u64 {
        self.slots() / GIANT_SLICE
    }

    /// Chunks of the batch's rows.
    pub fn chunks(&self) -> u64 {
        self.chunk_offsets.last().copied().unwrap_or(0)
    }
}

/// `giants` (vertex, degree > [`GIANT_DEGREE`]) cut into consecutive batches whose regions
/// fit in [`GIANT_POOL_BYTES`] (a giant whose region alone exceeds it is a batch of its own).
pub fn giant_batches(giants: &[(u32, u64)]) -> Vec<GiantBatch> {
    let budget = GIANT_POOL_BYTES / TABLE_SLOT_BYTES;
    let mut batches: Vec<GiantBatch> = Vec::new();
    for &(vertex, degree) in giants {
        debug_assert!(degree > GIANT_DEGREE, "a giant of degree {degree}");
        let slots = table_capacity(degree);
        let fits = batches.last().is_some_and(|b| b.slots() + slots <= budget);
        if !fits {
            batches.push(GiantBatch { vertices: Vec::new(), region_offsets: vec![0], chunk_offsets: vec![0] });
        }
        let batch = batches.last_mut().expect("a batch was just pushed");
        batch.vertices.push(vertex);
        batch.region_offsets.push(batch.slots() + slots);
        batch.chunk_offsets.push(batch.chunks() + degree.div_ceil(GIANT_CHUNK));
    }
    batches
}

/// What the run's buffers shared by `batches` must hold: the most slots, slices and giants
/// of any batch.
pub fn largest_batch(batches: &[GiantBatch]) -> (u64, u64, u64) {
    let most = |f: fn(&GiantBatch) -> u64| batches.iter().map(f).max().unwrap_or(0);
    (most(GiantBatch::slots), most(GiantBatch::slices), most(|b| b.vertices.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_hold_every_giant_once_with_regions_of_whole_slices_within_the_budget() {
        let giants: Vec<(u32, u64)> =
            [(7, GIANT_DEGREE + 1), (3, 100_000), (9, 1 << 20), (1, 1 << 27), (4, 70_000)].to_vec();
        let batches = giant_batches(&giants);
        let listed: Vec<u32> = batches.iter().flat_map(|b| b.vertices.iter().copied()).collect();
        assert_eq!(listed, vec![7, 3, 9, 1, 4]);
        // The 2^27-degree giant needs 2^28 slots (3 GiB): a batch of its own.
        assert_eq!(batches.len(), 3);
        assert_eq!(batches[1].vertices, vec![1]);
        let budget = GIANT_POOL_BYTES / TABLE_SLOT_BYTES;
        let mut k = 0;
        for batch in &batches {
            assert!(batch.vertices.len() == 1 || batch.slots() <= budget);
            for (i, _) in batch.vertices.iter().enumerate() {
                let degree = giants[k].1;
                let region = batch.region_offsets[i + 1] - batch.region_offsets[i];
                assert!(region >= 2 * degree && region.is_multiple_of(GIANT_SLICE));
                let chunks = batch.chunk_offsets[i + 1] - batch.chunk_offsets[i];
                assert!(chunks * GIANT_CHUNK >= degree && (chunks - 1) * GIANT_CHUNK < degree);
                k += 1;
            }
        }
        let (slots, slices, count) = largest_batch(&batches);
        assert_eq!(slots, 1 << 28);
        assert_eq!(slices, (1 << 28) / GIANT_SLICE);
        assert_eq!(count, 3);
        assert!(giant_batches(&[]).is_empty());
        assert_eq!(largest_batch(&[]), (0, 0, 0));
    }

    #[test]
    fn the_slot_text_defines_the_bounds_the_struct_and_every_kernel() {
        let text = giant_kernels_cuda().unwrap();
        assert!(text.contains("#define GLP_GIANT_CHUNK 8192ull\n"));
        assert!(text.contains(&format!("\n{}\n", LpGiantArgs::c_definition())));
        assert!(!text.contains("/*{{"));
        for name in GIANT_KERNEL_NAMES {
            assert!(text.contains(&format!("{name}(")), "{name}");
        }
        // Eight pointers then two 4-byte words, no padding.
        assert_eq!(std::mem::size_of::<LpGiantArgs>(), 8 * 8 + 2 * 4);
    }
}
