//! The GPU engine's label propagation kernels (`mfl_kernels.cu`) with a variant fused in, and
//! the degree-class thresholds the kernels and the engine's planner share.
//!
//! | class | degree | kernel | work unit | label table |
//! |---|---|---|---|---|
//! | low | `< 32` | `glp_lp_low_<T>` | a tile of `T` = next power of two lanes | none: `__match_any_sync` groups lanes, shuffles sum and reduce |
//! | middle | `32..=128` | `glp_lp_mid` | a warp | per-warp shared table of 256 slots (never full) |
//! | high | `> 128` | `glp_lp_high` | a block of 256 threads | shared table of 2048 slots; a global region of `2 * degree` slots (power of two) for vertices of degree `> 1024`, taking the labels the shared table refuses after 32 probes |
//!
//! Why these bounds: below 32 neighbours a warp-wide vote finds equal labels in one
//! instruction, and packing several vertices per warp keeps lanes busy (most vertices of
//! real graphs are here). From 32 to 128 neighbours a warp streams the adjacency in 1 to 4
//! rounds and a 256-slot table (3 KiB of shared memory per warp, 8 warps per block) holds every
//! distinct label at a load factor of at most 1/2. Above 128 a block streams the adjacency;
//! 2048 shared slots (24 KiB) keep every vertex of degree up to 1024 exact in shared memory.
//! Larger vertices may meet more distinct labels than fit (early iterations, when labels are
//! still vertex ids): the labels the shared table refuses go to the vertex's global region, so
//! the result stays exact without a count-min sketch; the global memory this needs is
//! proportional to the edges of vertices of degree above 1024 only, none on graphs without
//! such vertices.

use super::LOAD_NEIGHBOR;
use crate::ir::{ExprKind, Literal, Program};
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
/// High-class vertices of degree above this own a global overflow region.
pub const HIGH_OVERFLOW_DEGREE: u64 = HIGH_TABLE / 2;
/// Threads per block of the G-Hash kernel (a warp per vertex).
pub const GLOBAL_THREADS: u32 = 256;
/// The tile widths of the low class, one kernel each (`glp_lp_low_<T>`).
pub const LOW_TILES: [u32; 6] = [1, 2, 4, 8, 16, 32];

// The middle-class table holds every distinct label at load factor 1/2; the tables' slot
// counts are powers of two (the kernels mask instead of dividing).
const _: () = assert!(MID_TABLE >= 2 * MID_MAX_DEGREE && MID_TABLE.is_power_of_two() && HIGH_TABLE.is_power_of_two());

/// The kernel template.
pub const MFL_KERNELS: Template = Template::new("lp/mfl_kernels.cu", include_str!("mfl_kernels.cu"));

/// The tile width of a low-class vertex of degree `degree` (< [`LOW_DEGREE_LIMIT`]).
pub fn low_tile(degree: u64) -> u32 {
    degree.max(1).next_power_of_two() as u32
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

/// Whether every neighbour contributes weight exactly 1 (`load_neighbor`'s body is a single
/// tuple whose weight is the literal `1.0`, as in the default hook): the kernels then count
/// with popcounts instead of summing weights. Conservative: any other body says no.
pub fn unit_neighbor_weight(program: &Program) -> bool {
    let Some(f) = program.functions.iter().find(|f| f.role.hook_index() == Some(LOAD_NEIGHBOR)) else {
        return false;
    };
    if !f.body.stmts.is_empty() {
        return false;
    }
    match f.body.tail.as_deref().map(|t| &t.kind) {
        Some(ExprKind::Tuple(items)) => {
            matches!(items.get(1).map(|e| &e.kind), Some(ExprKind::Literal(Literal::Float(w))) if *w == 1.0)
        }
        _ => false,
    }
}

/// The kernel module for a variant: `device_functions` are its emitted hooks;
/// `unit_weights` comes from [`unit_neighbor_weight`].
pub fn mfl_kernel_source(device_functions: &str, unit_weights: bool) -> Result<String, TemplateError> {
    let mut config = format!(
        "#define GLP_MID_MAX_DEGREE {MID_MAX_DEGREE}\n#define GLP_MID_TABLE {MID_TABLE}\n\
         #define GLP_HIGH_TABLE {HIGH_TABLE}\n#define GLP_HIGH_THREADS {HIGH_THREADS}\n\
         #define GLP_HIGH_PROBES {HIGH_PROBES}\n"
    );
    if unit_weights {
        config.push_str("#define GLP_UNIT_WEIGHTS 1\n");
    }
    MFL_KERNELS.fill(&[
        ("PRELUDE", crate::cuda::PRELUDE),
        ("CONFIG", &config),
        ("VIEW", super::VIEW_CUDA),
        ("PROGRAM", device_functions),
        ("PHASES", super::PHASE_KERNELS_CUDA),
        ("SORT", &super::sort::sort_kernels_cuda()),
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
    fn the_kernel_template_is_complete() {
        let source = mfl_kernel_source("struct glp_lp_params { int x; };", true).unwrap();
        assert!(source.contains("#define GLP_UNIT_WEIGHTS 1"));
        assert!(!source.contains("/*{{"));
        for t in LOW_TILES {
            assert!(source.contains(&format!("GLP_LOW_KERNEL({t})")));
        }
        for name in crate::lp::sort::SORT_KERNEL_NAMES {
            assert!(source.contains(&format!("{name}(")), "the SORT slot lacks {name}");
        }
    }
}
