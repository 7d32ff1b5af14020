//! The GPU's random-access ceiling, measured (`glp bench probe`): what the memory system
//! serves when every request goes to a random place, the bound of graph sampling and of every
//! other traversal that follows edges. Benchmarks report their rates as a fraction of it.
//!
//! Two patterns over an array holding one random cycle of `n` words (`next[i]` is the word
//! after `i`, so chains never fall into a short loop), one run per array size (resident in
//! L2, and far larger than any L2):
//! - *dependent chains*: every thread follows `k` independent chains (`i = next[i]`), for
//!   `k` in [`CHAINS`]: a random walk step is one such read, and `k` is the number of walkers
//!   a thread keeps in flight;
//! - *independent reads*: every thread reads random positions none of which waits on
//!   another: the most the memory system serves, the ceiling.
//!
//! Rates are reads per second over the kernel's time (CUDA events), best of
//! [`REPEATS`] runs after a warm-up.

use super::{cache, DeviceBuffer, Gpu, KernelArgs, Shape};
use crate::error::Result;
use crate::random::Stream;

/// Chains per thread measured.
pub const CHAINS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// Runs per measurement (the best counts).
pub const REPEATS: usize = 3;

/// Threads of a launch: 1,024 blocks of 256, about 2,000 per SM on 132-SM parts (H100,
/// H200): every SM full.
const BLOCKS: u32 = 1024;
const THREADS: u32 = 256;

/// Reads per measurement in all (2^28: tens of milliseconds at the ceiling).
const READS: u64 = 1 << 28;

/// The kernels' source.
const SOURCE: &str = include_str!("ceiling.cu");

/// An array size probed: its name and bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArraySize {
    /// `L2` or `DRAM`.
    pub name: &'static str,
    pub bytes: u64,
}

/// The sizes probed: 8 MiB (resident in the L2 of every recent GPU: 40 MB on an A100, 50 MB
/// on an H100) and 512 MiB (ten times any L2).
pub const SIZES: [ArraySize; 2] =
    [ArraySize { name: "L2", bytes: 8 << 20 }, ArraySize { name: "DRAM", bytes: 512 << 20 }];

/// One measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct CeilingRow {
    /// The array size's name ([`SIZES`]).
    pub array: &'static str,
    pub bytes: u64,
    /// Chains per thread, or `None` for independent reads.
    pub chains: Option<u32>,
    /// Reads per second.
    pub reads_per_s: f64,
}

/// What [`measure`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Ceiling {
    pub rows: Vec<CeilingRow>,
}

impl Ceiling {
    /// The most reads per second of any pattern on the array named `array` (`L2`, `DRAM`):
    /// the ceiling there.
    pub fn best(&self, array: &str) -> Option<f64> {
        self.rows.iter().filter(|r| r.array == array).map(|r| r.reads_per_s).reduce(f64::max)
    }
}

/// Measures every pattern on every size of [`SIZES`].
///
/// Errors: NVRTC or the GPU's errors, an array beyond the GPU's free memory.
pub fn measure(gpu: &Gpu) -> Result<Ceiling> {
    let ptx = cache::ptx_for("ceiling.cu", SOURCE, &gpu.arch())?;
    let module = gpu.load_module("ceiling.cu", &ptx)?;
    let gather = module.kernel("glp_ceiling_gather")?;
    let chase = CHAINS.iter().map(|k| module.kernel(&format!("glp_ceiling_chase_{k}"))).collect::<Result<Vec<_>>>()?;
    let shape = Shape { blocks: BLOCKS, threads: THREADS };
    let threads = u64::from(BLOCKS) * u64::from(THREADS);
    let sink: DeviceBuffer<u32> = gpu.alloc_zeros("probe sink", threads as usize)?;
    let mut rows = Vec::new();
    for size in SIZES {
        let n = (size.bytes / 4) as u32;
        let array = gpu.upload("probe cycle", &random_cycle(n, 0x5EED))?;
        let time = |kernel: &super::Kernel, per_thread_per_step: u64| -> Result<f64> {
            let steps = (READS / (threads * per_thread_per_step)).max(1) as u32;
            let args = KernelArgs::new().buffer(&array).value(n).value(steps).buffer(&sink);
            gpu.launch(kernel, shape, &args)?;
            let mut best = f64::INFINITY;
            for _ in 0..REPEATS {
                let start = gpu.record()?;
                gpu.launch(kernel, shape, &args)?;
                let end = gpu.record()?;
                best = best.min(gpu.elapsed_ms(&start, &end)?);
            }
            let reads = threads * per_thread_per_step * u64::from(steps);
            Ok(reads as f64 / (best.max(1e-6) * 1e-3))
        };
        for (k, kernel) in CHAINS.iter().zip(&chase) {
            let reads_per_s = time(kernel, u64::from(*k))?;
            rows.push(CeilingRow { array: size.name, bytes: size.bytes, chains: Some(*k), reads_per_s });
        }
        let reads_per_s = time(&gather, 1)?;
        rows.push(CeilingRow { array: size.name, bytes: size.bytes, chains: None, reads_per_s });
    }
    Ok(Ceiling { rows })
}

/// A random cyclic permutation of `0..n` (Sattolo's algorithm): following `next` from any
/// word visits all `n` before it returns.
pub fn random_cycle(n: u32, seed: u64) -> Vec<u32> {
    let mut next: Vec<u32> = (0..n).collect();
    let mut stream = Stream::new(seed, 0);
    for i in (1..n as usize).rev() {
        let j = stream.next_below_u32(i as u32) as usize;
        next.swap(i, j);
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_random_cycle_visits_every_word_once() {
        for n in [1u32, 2, 3, 10, 1000] {
            let next = random_cycle(n, 7);
            let mut seen = vec![false; n as usize];
            let mut at = 0u32;
            for _ in 0..n {
                assert!(!seen[at as usize], "n = {n}: word {at} visited twice");
                seen[at as usize] = true;
                at = next[at as usize];
            }
            assert_eq!(at, 0, "n = {n}: the cycle closes after n steps");
            assert!(seen.iter().all(|&s| s));
        }
    }
}
