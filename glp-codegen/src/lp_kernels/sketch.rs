//! The memory-efficient MFL strategies of nu-LPA's sketch paper (`sketch_kernels.cuh`,
//! spliced into the MFL module by its `SKETCH` slot): weighted Misra-Gries sketches of `k`
//! slots (`mg2` .. `mg32`), the weighted Boyer-Moore vote (`bm`), and nu-LPA's per-vertex
//! global hash tables (`hash`), the memory baseline. Also the bounds the kernels, the
//! engine's planner and the CPU twins (glp-runtime's `lp::sketch`) share. Which variants a
//! sketch may serve is a property of the variant (`kinds::lp::properties::score_is_frequency`).
//!
//! | strategy | degree | kernel | work unit |
//! |---|---|---|---|
//! | `mg<k>` | `< 128` | `glp_lp_sketch_low_mg<k>` | a tile of `k` lanes per vertex, `32 / k` tiles per 32-thread block |
//! | `mg<k>` | `>= 128` | `glp_lp_sketch_high_mg<k>` | a block of 256 threads: `256 / k` tiles, partial sketches merged into tile 0 |
//! | `bm` | `< 128` | `glp_lp_sketch_low_bm` | a thread per vertex, 32-thread blocks |
//! | `bm` | `>= 128` | `glp_lp_sketch_high_bm` | a block of 256 threads, per-thread candidates merged by thread 0 |
//! | `hash` | all | `glp_lp_nu_hash` | a warp per vertex, its table in global memory |
//!
//! The kernel file's header gives the algorithms and the rules that make the GPU equal to the
//! CPU twins bit for bit under the synchronous schedule.

/// Vertices of at least this degree are processed by a block (the paper's `D_H`).
pub const SKETCH_HIGH_DEGREE: u64 = 128;
/// Threads per block of the high-degree sketch kernels.
pub const SKETCH_HIGH_THREADS: u32 = 256;
/// Threads per block of the low-degree sketch kernels (the paper's launch shape).
pub const SKETCH_LOW_THREADS: u32 = 32;
/// The slot counts of the Misra-Gries kernels (one low and one high kernel each).
pub const MG_SLOTS: [u32; 5] = [2, 4, 8, 16, 32];
/// The slot count `mg` stands for (nuMG8-LPA).
pub const DEFAULT_MG_SLOTS: u32 = 8;
/// Threads per block of nu-LPA's hash-table kernel (a warp per vertex).
pub const NU_HASH_THREADS: u32 = 256;
/// Probes of the hybrid quadratic-double sequence before the linear fall-back scan.
pub const NU_HASH_PROBES: u64 = 32;
/// The secondary modulus of the double-hashing term of the probe step.
pub const NU_HASH_SECONDARY: u64 = 31;

// A block is a whole number of tiles of every width; tiles never straddle a warp.
const _: () = assert!(SKETCH_HIGH_THREADS.is_multiple_of(32) && SKETCH_LOW_THREADS == 32);

/// Slots of nu-LPA's hash table for a vertex of degree `degree`: `nextPow2(degree) - 1`, the
/// power of two strictly greater than the degree (so at least `degree` slots: room for every
/// distinct label; 0 for an isolated vertex). The vertex's region has `2 * degree` slots, at
/// `2 * offsets[v]`, which always holds the capacity.
pub fn nu_hash_capacity(degree: u64) -> u64 {
    if degree == 0 {
        0
    } else {
        (degree + 1).next_power_of_two() - 1
    }
}

/// The kernel-name suffix of a Misra-Gries sketch of `slots` slots (`mg8`), or of the
/// Boyer-Moore vote (`bm`, `slots == 1`).
pub fn sketch_suffix(slots: u32) -> String {
    if slots == 1 {
        "bm".to_string()
    } else {
        format!("mg{slots}")
    }
}

/// The low- and high-degree kernel names of a sketch of `slots` slots (1: Boyer-Moore).
pub fn sketch_kernel_names(slots: u32) -> [String; 2] {
    let suffix = sketch_suffix(slots);
    [format!("glp_lp_sketch_low_{suffix}"), format!("glp_lp_sketch_high_{suffix}")]
}

/// The hash-table baseline's kernel.
pub const NU_HASH_KERNEL: &str = "glp_lp_nu_hash";

/// Every kernel of the `SKETCH` slot.
pub fn kernel_names() -> Vec<String> {
    let mut names: Vec<String> = MG_SLOTS.iter().chain(&[1]).flat_map(|&k| sketch_kernel_names(k)).collect();
    names.push(NU_HASH_KERNEL.to_string());
    names
}

/// The sketch kernels' CUDA source.
const SKETCH_KERNELS: &str = include_str!("sketch_kernels.cuh");

/// The text of the MFL module's `SKETCH` slot: the bounds above as macros, then the kernels.
pub fn sketch_kernels_cuda() -> String {
    format!(
        "#define GLP_SKETCH_HIGH_THREADS {SKETCH_HIGH_THREADS}\n#define GLP_SKETCH_LOW_THREADS {SKETCH_LOW_THREADS}\n\
         #define GLP_NU_HASH_THREADS {NU_HASH_THREADS}\n#define GLP_NU_HASH_PROBES {NU_HASH_PROBES}\n\
         #define GLP_NU_HASH_SECONDARY {NU_HASH_SECONDARY}\n{SKETCH_KERNELS}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_capacity_is_the_power_of_two_above_the_degree_less_one() {
        // nextPow2 strictly greater: 4 -> 8 - 1, 3 -> 4 - 1, 1 -> 2 - 1.
        for (degree, capacity) in [(0, 0), (1, 1), (2, 3), (3, 3), (4, 7), (7, 7), (8, 15), (128, 255)] {
            assert_eq!(nu_hash_capacity(degree), capacity, "degree {degree}");
        }
        for d in 1..3000 {
            let c = nu_hash_capacity(d);
            assert!(c >= d && c < 2 * d && (c + 1).is_power_of_two(), "{d}");
        }
    }

    #[test]
    fn the_slot_text_defines_the_bounds_and_every_kernel() {
        let text = sketch_kernels_cuda();
        assert!(text.contains("#define GLP_SKETCH_HIGH_THREADS 256\n"));
        assert!(!text.contains("/*{{"), "the sketch kernels have no slots of their own");
        let names = kernel_names();
        assert_eq!(names.len(), 2 * 6 + 1);
        for name in names.iter().filter(|n| n.as_str() != NU_HASH_KERNEL) {
            // Instantiated through GLP_SKETCH_KERNELS(suffix, ...).
            let suffix = name.rsplit('_').next().unwrap();
            assert!(text.contains(&format!("GLP_SKETCH_KERNELS({suffix},")), "{name}");
        }
        assert!(text.contains(&format!("{NU_HASH_KERNEL}(")));
    }
}
