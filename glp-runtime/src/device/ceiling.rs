//! The GPU's memory ceilings, measured (`glp bench probe`): what the memory system serves when
//! every request goes to a random place, the bound of graph sampling and of every other
//! traversal that follows edges, and what moves between host and device. Benchmarks report
//! their rates as a fraction of it ([`Ceiling::for_array_bytes`], [`Ceiling::best`]).
//!
//! Random reads in device memory, on every array size of [`LADDER`] that fits (8 MiB,
//! resident in L2, to 4 GiB; the others are reported as skipped, with the free memory):
//! - *dependent chains*: every thread follows `k` independent chains (`i = next[i]`) through
//!   an array holding one random cycle ([`cycle`], built on the device), for `k` in
//!   [`CHAINS`]: a random walk step is one such read, and `k` is the number of walkers a thread
//!   keeps in flight;
//! - *independent reads*: every thread reads random positions none of which waits on
//!   another: the most the memory system serves, the ceiling.
//!
//! Host memory ([`HostMemory`]): the copy rate from pinned host memory to the device, and
//! zero-copy reads of pinned host memory by a kernel, random 4-byte words (reads/s) and random
//! 4 KiB blocks (bytes/s), the rates of a graph left in host memory. Beside them, the
//! device-to-device copy bandwidth ([`Gpu::copy_bandwidth`]).
//!
//! Rates are over the kernel's (or copy's) time from CUDA events: the best of [`REPEATS`]
//! runs of about 10 ms each, calibrated to that length first. [`measure_quick`] measures the independent reads
//! only, once each, in well under a second, for a benchmark that wants its ceiling in the
//! same run.

pub mod cycle;
mod host;
mod sizes;
mod timing;

pub use sizes::{Tier, HEADROOM, LADDER};

use super::{cache, DeviceBuffer, Gpu, Kernel, KernelArgs, Shape};
use crate::error::{Error, Result};
use cycle::Permutation;
use serde::Serialize;

/// Chains per thread measured.
pub const CHAINS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// Measured runs per rate (the best counts).
pub const REPEATS: usize = 3;

/// Threads of a launch: 1,024 blocks of 256, about 2,000 per SM on 132-SM parts (H100,
/// H200): every SM full.
const SHAPE: Shape = Shape { blocks: 1024, threads: 256 };
const THREADS: u64 = 1024 * 256;

/// The seed of the random cycle.
const SEED: u64 = 0x5EED;

/// The kernels' source.
const SOURCE: &str = include_str!("ceiling.cu");

/// One rate of random reads in device memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CeilingRow {
    /// The array's size.
    pub bytes: u64,
    /// Where its reads are served from.
    pub tier: Tier,
    /// Chains per thread, or `None` for independent reads.
    pub chains: Option<u32>,
    /// Reads per second.
    pub reads_per_s: f64,
}

/// An array size of [`LADDER`] not measured, and why (it does not fit in the free memory).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkippedSize {
    pub bytes: u64,
    pub reason: String,
}

/// What the device gets from pinned host memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostMemory {
    /// The pinned buffer's size (1 GiB, or less where the host refused to pin as much).
    pub pinned_bytes: u64,
    /// Host-to-device copy of the whole buffer, bytes per second; `None` when the device
    /// could not hold the copy (a note says so).
    pub copy_bytes_per_s: Option<f64>,
    /// Independent random 4-byte reads of the buffer by a kernel (zero-copy), reads per
    /// second.
    pub random_reads_per_s: f64,
    /// Random 4 KiB blocks read whole by a kernel (zero-copy), bytes per second.
    pub block_bytes_per_s: f64,
}

/// What [`measure`] or [`measure_quick`] found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ceiling {
    /// The device's L2 size, which sets each array's [`Tier`].
    pub l2_bytes: u64,
    /// Random reads in device memory, in [`LADDER`] order.
    pub rows: Vec<CeilingRow>,
    /// Sizes not measured.
    pub skipped: Vec<SkippedSize>,
    /// Device-to-device copies, bytes read plus bytes written per second (not measured
    /// quickly).
    pub device_copy_bytes_per_s: Option<f64>,
    /// Pinned host memory (not measured quickly, or the host refused to pin any: a note says).
    pub host: Option<HostMemory>,
    /// What was not measured and why, beyond the skipped sizes.
    pub notes: Vec<String>,
}

impl Ceiling {
    /// The most reads per second of any pattern on the arrays of the tier named `tier` (`L2`,
    /// `L2+DRAM`, `DRAM`): the ceiling there.
    pub fn best(&self, tier: &str) -> Option<f64> {
        self.rows.iter().filter(|r| r.tier.name() == tier).map(|r| r.reads_per_s).reduce(f64::max)
    }

    /// The independent-read ceiling for random reads in an array of `bytes`: the rate
    /// measured on the smallest size at least as large, else on the largest size measured;
    /// `None` when no size was measured.
    pub fn for_array_bytes(&self, bytes: u64) -> Option<f64> {
        let independent = || self.rows.iter().filter(|r| r.chains.is_none());
        independent()
            .filter(|r| r.bytes >= bytes)
            .min_by_key(|r| r.bytes)
            .or_else(|| independent().max_by_key(|r| r.bytes))
            .map(|r| r.reads_per_s)
    }
}

/// What one measurement covers.
struct Plan {
    /// Chains per thread measured (none: independent reads only, and no cycle to build).
    chains: &'static [u32],
    repeats: usize,
    /// Milliseconds one measured run takes.
    target_ms: f64,
    /// Whether copies and pinned host memory are measured.
    transfers: bool,
}

const FULL: Plan = Plan { chains: &CHAINS, repeats: REPEATS, target_ms: 10.0, transfers: true };
const QUICK: Plan = Plan { chains: &[], repeats: 1, target_ms: 5.0, transfers: false };

/// Measures every pattern on every size of [`LADDER`] that fits, the copies and pinned host
/// memory (a few seconds on an H100).
///
/// Errors: NVRTC or the GPU's errors. A size that does not fit, or pinned memory the host
/// refuses, is reported in the result, not an error.
pub fn measure(gpu: &Gpu) -> Result<Ceiling> {
    measure_with(gpu, &FULL)
}

/// Measures independent reads only, one run each, on every size of [`LADDER`] that fits:
/// enough for [`Ceiling::for_array_bytes`] and [`Ceiling::best`], in well under a second
/// once the kernels are in the PTX cache (the first run on a machine compiles them).
pub fn measure_quick(gpu: &Gpu) -> Result<Ceiling> {
    measure_with(gpu, &QUICK)
}

/// [`measure_quick`] and pinned host memory's rates (the copy, zero-copy reads): what a
/// benchmark of a graph kept in host memory compares with.
pub fn measure_quick_with_host(gpu: &Gpu) -> Result<Ceiling> {
    measure_with(gpu, &Plan { transfers: true, ..QUICK })
}

/// The probe's kernels and the sink every thread writes its folded reads to.
struct Probe<'a> {
    gpu: &'a Gpu,
    gather: Kernel,
    chase: Vec<(u32, Kernel)>,
    cycle: Kernel,
    blocks: Kernel,
    sink: DeviceBuffer<u32>,
}

fn measure_with(gpu: &Gpu, plan: &Plan) -> Result<Ceiling> {
    let probe = Probe::load(gpu)?;
    let l2_bytes = l2_bytes(gpu)?;
    let mut ceiling = Ceiling { l2_bytes, ..Ceiling::default() };
    if plan.transfers {
        ceiling.device_copy_bytes_per_s = Some(gpu.copy_bandwidth(1 << 30)?);
        let (host, notes) = host::measure(&probe, plan)?;
        ceiling.host = host;
        ceiling.notes.extend(notes);
    }
    for bytes in LADDER {
        match probe.array(bytes)? {
            Ok(array) => {
                let tier = Tier::of(bytes, l2_bytes);
                ceiling.rows.extend(
                    probe.random_reads(&array, plan)?.into_iter().map(|(chains, reads_per_s)| CeilingRow {
                        bytes,
                        tier,
                        chains,
                        reads_per_s,
                    }),
                );
            }
            Err(reason) => ceiling.skipped.push(SkippedSize { bytes, reason }),
        }
    }
    Ok(ceiling)
}

/// The device's L2 size in bytes.
fn l2_bytes(gpu: &Gpu) -> Result<u64> {
    let attribute = cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE;
    let bytes = gpu.context().attribute(attribute).map_err(|e| Error::Gpu(format!("reading the L2 size: {e}")))?;
    Ok(bytes.max(0) as u64)
}

impl<'a> Probe<'a> {
    fn load(gpu: &'a Gpu) -> Result<Probe<'a>> {
        let ptx = cache::ptx_for("ceiling.cu", SOURCE, &gpu.arch())?;
        let module = gpu.load_module("ceiling.cu", &ptx)?;
        let chase = CHAINS
            .iter()
            .map(|&k| Ok((k, module.kernel(&format!("glp_ceiling_chase_{k}"))?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Probe {
            gpu,
            gather: module.kernel("glp_ceiling_gather")?,
            chase,
            cycle: module.kernel("glp_ceiling_cycle")?,
            blocks: module.kernel("glp_ceiling_blocks")?,
            sink: gpu.alloc_zeros("the probe's sink", THREADS as usize)?,
        })
    }

    /// A zeroed array of `bytes` on the device, or why there is no room for it.
    fn array(&self, bytes: u64) -> Result<std::result::Result<DeviceBuffer<u32>, String>> {
        // Buffers dropped before are back in the free figure after a synchronisation.
        self.gpu.synchronize()?;
        let (free, _) = self.gpu.memory_info()?;
        if let Err(reason) = sizes::fits(bytes, free) {
            return Ok(Err(reason));
        }
        match self.gpu.alloc_zeros("the probe's array", (bytes / 4) as usize) {
            Ok(array) => Ok(Ok(array)),
            Err(e @ Error::GpuOutOfMemory { .. }) => Ok(Err(e.to_string())),
            Err(e) => Err(e),
        }
    }

    /// Writes the random cycle of [`cycle`] into `array` (a power of two of words).
    fn build_cycle(&self, array: &DeviceBuffer<u32>) -> Result<()> {
        let bits = sizes::word_bits(array.bytes())
            .ok_or_else(|| Error::Gpu(format!("a cycle needs a power of two of words, not {} bytes", array.bytes())))?;
        let permutation = Permutation::new(bits, SEED);
        let args = KernelArgs::new().buffer(array).value(bits).bytes(&permutation.kernel_bytes());
        self.gpu.launch(&self.cycle, SHAPE, &args)
    }

    /// Reads per second of each pattern of `plan` on `array`: `(Some(k), rate)` for `k`
    /// dependent chains per thread, then `(None, rate)` for independent reads.
    fn random_reads(&self, array: &DeviceBuffer<u32>, plan: &Plan) -> Result<Vec<(Option<u32>, f64)>> {
        let mut rates = Vec::new();
        if !plan.chains.is_empty() {
            self.build_cycle(array)?;
        }
        for (k, kernel) in self.chase.iter().filter(|(k, _)| plan.chains.contains(k)) {
            rates.push((Some(*k), self.reads(kernel, array.device_ptr(), array.len() as u32, u64::from(*k), plan)?));
        }
        rates.push((None, self.reads(&self.gather, array.device_ptr(), array.len() as u32, 1, plan)?));
        Ok(rates)
    }

    /// Reads per second of `kernel` (`glp_ceiling_chase_K` or `glp_ceiling_gather`, reading
    /// `per_thread_step` words per thread per step) over the `words` words at `address`.
    fn reads(&self, kernel: &Kernel, address: u64, words: u32, per_thread_step: u64, plan: &Plan) -> Result<f64> {
        timing::per_second(self.gpu, plan.target_ms, plan.repeats, THREADS * per_thread_step, |steps| {
            let args = KernelArgs::new().value(address).value(words).value(steps).buffer(&self.sink);
            self.gpu.launch(kernel, SHAPE, &args)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(bytes: u64, tier: Tier, chains: Option<u32>, reads_per_s: f64) -> CeilingRow {
        CeilingRow { bytes, tier, chains, reads_per_s }
    }

    /// Two sizes measured (8 MiB in L2, 512 MiB in DRAM), one pattern beating the
    /// independent reads on the first.
    fn two_sizes() -> Ceiling {
        let mib = 1 << 20;
        Ceiling {
            rows: vec![
                row(8 * mib, Tier::L2, Some(1), 140.0),
                row(8 * mib, Tier::L2, None, 130.0),
                row(512 * mib, Tier::Dram, Some(1), 30.0),
                row(512 * mib, Tier::Dram, None, 33.0),
            ],
            ..Ceiling::default()
        }
    }

    #[test]
    fn an_array_gets_the_independent_rate_of_the_nearest_size_above_it() {
        let ceiling = two_sizes();
        let mib = 1 << 20;
        assert_eq!(ceiling.for_array_bytes(0), Some(130.0));
        assert_eq!(ceiling.for_array_bytes(8 * mib), Some(130.0), "a measured size is its own");
        assert_eq!(ceiling.for_array_bytes(8 * mib + 1), Some(33.0));
        assert_eq!(ceiling.for_array_bytes(512 * mib), Some(33.0));
        assert_eq!(ceiling.for_array_bytes(100 << 30), Some(33.0), "beyond the ladder: the largest size");
        assert_eq!(Ceiling::default().for_array_bytes(1), None);
    }

    #[test]
    fn the_best_of_a_tier_is_its_fastest_pattern() {
        let ceiling = two_sizes();
        assert_eq!(ceiling.best("L2"), Some(140.0));
        assert_eq!(ceiling.best("DRAM"), Some(33.0));
        assert_eq!(ceiling.best("L2+DRAM"), None);
    }

    /// Without NVRTC the test skips (or fails with `GLP_REQUIRE_NVRTC=1`).
    #[test]
    fn the_kernels_compile_for_ampere_and_hopper() {
        if !super::super::nvrtc::available() {
            let why = "NVRTC cannot be loaded (install it, or add its lib folder to LD_LIBRARY_PATH)";
            glp_testkit::switch::skip(
                "the_kernels_compile_for_ampere_and_hopper",
                glp_testkit::switch::Need::Nvrtc,
                why,
            );
            return;
        }
        let mut kernels: Vec<String> = CHAINS.iter().map(|k| format!("glp_ceiling_chase_{k}")).collect();
        kernels.extend(["glp_ceiling_gather", "glp_ceiling_cycle", "glp_ceiling_blocks"].map(String::from));
        for arch in ["sm_80", "sm_90"] {
            let ptx = super::super::nvrtc::compile_ptx("ceiling.cu", SOURCE, arch).unwrap_or_else(|e| panic!("{e}"));
            for kernel in &kernels {
                assert!(ptx.contains(&format!(".entry {kernel}(")), "{arch}: no kernel {kernel}");
            }
        }
    }

    /// On a GPU, the cycle the device builds is the host twin's, word for word.
    #[test]
    fn the_device_builds_the_host_twins_cycle() {
        let gpu = match Gpu::open(0) {
            Ok(gpu) => gpu,
            Err(e) => {
                glp_testkit::switch::skip(
                    "the_device_builds_the_host_twins_cycle",
                    glp_testkit::switch::Need::Gpu,
                    &e.to_string(),
                );
                return;
            }
        };
        let probe = Probe::load(&gpu).unwrap();
        for bits in [0, 1, 5, 12, 21] {
            let array: DeviceBuffer<u32> = gpu.alloc_zeros("cycle", 1 << bits).unwrap();
            probe.build_cycle(&array).unwrap();
            let expected = Permutation::new(bits, SEED).cycle();
            assert!(gpu.download(&array).unwrap() == expected, "2^{bits} words: the device's cycle differs");
        }
    }
}
