//! The sample-parallel engines' kernels (`engine_kernels.cu`) and what the host shares with
//! them, generated from Rust so nothing is written twice: the launch geometry, the per-sample
//! status codes, the rule for draws without replacement, and the batch struct
//! ([`SampleBatchArgs`], with [`c_struct!`](crate::c_struct)) glp-runtime fills.

use crate::template::Template;

/// Walkers each thread of the walk kernel advances together: independent chains of reads in
/// flight per thread (one chain leaves the memory system idle between a read and the next,
/// two or more reach its rate).
pub const WALKERS_PER_THREAD: u32 = 4;

/// Threads per block of the walk kernel.
pub const WALK_THREADS: u32 = 128;

/// Threads per block of the per-sample kernel (one sample per thread).
pub const PER_SAMPLE_THREADS: u32 = 64;

/// Threads per block of the warp-per-sample kernel (four samples per block).
pub const PER_SAMPLE_WARP_THREADS: u32 = 128;

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
        /// cap_out per sample: the added vertices, their transits, steps and transit positions
        vertices: u64 => "glp_u32*",
        sources: u64 => "glp_u32*",
        out_steps: u64 => "glp_u32*",
        positions: u64 => "glp_u32*",
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

/// The kernels' `ENGINE` slot: the constants above as `#define`s, then the batch struct.
pub fn engine_cuda() -> String {
    let defines = [
        ("WALKERS", u64::from(WALKERS_PER_THREAD), "walkers per thread of glp_sample_walks"),
        ("WALK_THREADS", u64::from(WALK_THREADS), "threads per block of glp_sample_walks"),
        ("UNIQUE_ATTEMPTS", UNIQUE_ATTEMPTS, "repeats a draw without replacement may make per distinct vertex"),
        ("OVERFLOW_HISTORY", u64::from(OVERFLOW_HISTORY), "status: the history did not fit"),
        ("OVERFLOW_COMBINED", u64::from(OVERFLOW_COMBINED), "status: the combined neighbourhood did not fit"),
        ("OVERFLOW_OUT", u64::from(OVERFLOW_OUT), "status: the added vertices did not fit"),
        ("FAILED", u64::from(FAILED), "status: a hook's result the CPU engine refuses"),
    ];
    let mut text: String =
        defines.iter().map(|(name, value, doc)| format!("#define GLP_SAMPLE_{name} {value}ull // {doc}\n")).collect();
    text.push_str(&SampleBatchArgs::c_definition());
    text
}

/// The engines' kernels as written, with their slots.
pub const ENGINE_KERNELS: Template = Template::new("kinds/sample/engine_kernels.cu", include_str!("engine_kernels.cu"));

/// The entry points of [`ENGINE_KERNELS`].
pub const ENGINE_KERNEL_NAMES: [&str; 3] = ["glp_sample_walks", "glp_sample_per_sample", "glp_sample_per_sample_warp"];

/// The engines' kernels with `device_functions` (a sampler's emitted hooks) fused in.
pub fn engine_kernel_source(device_functions: &str) -> Result<String, crate::template::TemplateError> {
    ENGINE_KERNELS.fill(&[
        ("PRELUDE", crate::cuda::PRELUDE),
        ("VIEW", &super::layout::view_cuda()),
        ("ENGINE", &engine_cuda()),
        ("PROGRAM", device_functions),
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
        let source = engine_kernel_source("struct glp_sample_params { glp_u32 unused; };").unwrap();
        for name in ENGINE_KERNEL_NAMES {
            assert!(source.contains(&format!("{name}(const glp_sample_params params")), "{name} missing");
        }
        assert!(!source.contains("/*{{"));
    }
}
