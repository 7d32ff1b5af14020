//! Where `glp sample` and `glp bench sample` run: the CPU engine, or a GPU engine over a
//! graph placed once ([`Sampling`]), with the GPU's options (`--engine`, `--device-memory`,
//! `--placement`) and the batch size; runs are streamed to a sink batch by batch
//! ([`Sampling::run_streamed`]), or gathered whole ([`Sampling::run`]), with a progress bar.

use super::backend::{choose_backend, Backend, BackendArg};
use super::progress::SampleBar;
use super::sample::App;
use clap::{Args, ValueEnum};
use glp_runtime::device::Gpu;
use glp_runtime::sample::engine::default_batch_samples;
use glp_runtime::sample::gpu::{self, DeviceSampleGraph, GpuEngine, GpuSampleConfig, GpuSampleStats, Placement};
use glp_runtime::sample::{sink, InitialSamples, SampleGraph, SampleOutcome, SampleSink, StreamSummary};
use glp_runtime::{Error, Result};

/// Samples per batch of `glp sample` on a GPU by default (fewer when the device memory
/// holds fewer): a batch of 100-step walks is 400 MiB of vertices, enough to keep the GPU
/// busy, while the host, which holds about three batches as outcomes, stays within a few
/// GiB.
pub const GPU_BATCH_SAMPLES: u64 = 1 << 20;

/// `--engine` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// Threads own samples: walkers, several per thread, or one sample per thread
    Sp,
    /// Threads own transits (NextDoor's scheduling)
    Tp,
    /// The engine the run's statistics favour (today: sp)
    Auto,
}

impl EngineArg {
    /// The runtime's engine.
    pub fn engine(self) -> GpuEngine {
        match self {
            EngineArg::Sp => GpuEngine::SampleParallel,
            EngineArg::Tp => GpuEngine::TransitParallel,
            EngineArg::Auto => GpuEngine::Auto,
        }
    }

    /// The value as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            EngineArg::Sp => "sp",
            EngineArg::Tp => "tp",
            EngineArg::Auto => "auto",
        }
    }
}

/// `--placement` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlacementArg {
    /// device when the graph takes at most three quarters of --device-memory, else partitions
    Auto,
    /// The whole graph in device memory
    Device,
    /// Edges in pinned host memory, read over the bus where they do not fit
    ZeroCopy,
    /// Edges in pinned host memory, copied to the device partition by partition for walks
    /// (read over the bus by the other samplers)
    Partitions,
}

impl PlacementArg {
    /// The runtime's placement.
    pub fn placement(self) -> Placement {
        match self {
            PlacementArg::Auto => Placement::Auto,
            PlacementArg::Device => Placement::Device,
            PlacementArg::ZeroCopy => Placement::ZeroCopy,
            PlacementArg::Partitions => Placement::Partitions,
        }
    }
}

/// The GPU's memory option.
#[derive(Debug, Clone, Args)]
pub struct DeviceMemoryArg {
    /// The most device memory a GPU run may use, the graph included: bytes, or with a K, M,
    /// G or T suffix (powers of 1024); a graph that does not fit keeps its edges in host
    /// memory (--placement) [default: nine tenths of what is free]
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub device_memory: Option<u64>,
}

/// The first GPU option a command line set, by its flag (`None`: none): `--backend cpu` with
/// one is an error.
pub fn gpu_option(
    engines: &[EngineArg],
    device_memory: &DeviceMemoryArg,
    placements: &[PlacementArg],
) -> Option<&'static str> {
    if engines.iter().any(|&e| e != EngineArg::Auto) {
        Some("--engine")
    } else if device_memory.device_memory.is_some() {
        Some("--device-memory")
    } else if placements.iter().any(|&p| p != PlacementArg::Auto) {
        Some("--placement")
    } else {
        None
    }
}

/// A byte count: digits, optionally followed by K, M, G or T (powers of 1024; a trailing `B`
/// or `iB` is accepted).
pub fn parse_bytes(text: &str) -> std::result::Result<u64, String> {
    let trimmed = text.trim();
    let upper = trimmed.to_ascii_uppercase();
    let body = upper.strip_suffix("IB").or_else(|| upper.strip_suffix('B')).unwrap_or(&upper);
    let (digits, shift) = match body.chars().last() {
        Some('K') => (&body[..body.len() - 1], 10),
        Some('M') => (&body[..body.len() - 1], 20),
        Some('G') => (&body[..body.len() - 1], 30),
        Some('T') => (&body[..body.len() - 1], 40),
        _ => (body, 0),
    };
    let value: u64 =
        digits.parse().map_err(|_| format!("`{text}`: expected a byte count such as 2000000000, 512M or 2G"))?;
    value
        .checked_mul(1u64 << shift)
        .filter(|&bytes| bytes > 0)
        .ok_or_else(|| format!("`{text}`: expected a byte count from 1 to {} (16 EiB)", u64::MAX))
}

/// Where samples are computed: the CPU, or a GPU holding the graph.
pub enum Sampling<'g> {
    Cpu,
    Gpu(Box<GpuSampling<'g>>),
}

/// A GPU and the graph placed on it.
pub struct GpuSampling<'g> {
    pub gpu: Gpu,
    pub graph: DeviceSampleGraph<'g>,
}

/// A run's samples, and what the GPU measured when one ran it.
pub struct SampleRun {
    pub outcome: SampleOutcome,
    pub gpu: Option<GpuSampleStats>,
}

/// What a streamed run reports: its summary, and what the GPU measured when one ran it.
pub struct StreamedRun {
    pub summary: StreamSummary,
    pub gpu: Option<GpuSampleStats>,
}

/// How a run samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    pub seed: u64,
    /// The GPU's engine.
    pub engine: EngineArg,
    /// The GPU's memory budget, the graph included (`None`: most of what is free).
    pub device_memory: Option<u64>,
    /// The most samples per batch (`None`: the CPU engine's default; on a GPU, as many as the
    /// device memory holds).
    pub batch_samples: Option<u64>,
}

impl RunOptions {
    /// The GPU engines' configuration these options describe.
    pub fn gpu_config(&self) -> GpuSampleConfig {
        GpuSampleConfig {
            seed: self.seed,
            engine: self.engine.engine(),
            device_memory: self.device_memory,
            batch_samples: self.batch_samples,
            walk_packing: None,
        }
    }

    /// The CPU engine's batch size: the one given, else its default.
    fn cpu_batch_samples(&self) -> usize {
        self.batch_samples.map_or(default_batch_samples(), |n| usize::try_from(n).unwrap_or(usize::MAX))
    }
}

impl<'g> Sampling<'g> {
    /// The backend `requested` (auto: a GPU when one opens), the graph placed on the GPU as
    /// `placement` says within `device_memory`. `gpu_options` says whether the command line
    /// set a GPU option (an error on the CPU).
    pub fn open(
        requested: BackendArg,
        graph: &'g SampleGraph<'g>,
        gpu_options: Option<&str>,
        placement: PlacementArg,
        device_memory: Option<u64>,
    ) -> Result<Self> {
        match choose_backend(requested)? {
            Backend::Cpu => {
                if let (BackendArg::Cpu, Some(option)) = (requested, gpu_options) {
                    return Err(Error::invalid(format!(
                        "{option} chooses how the GPU samples; --backend cpu runs the CPU engine"
                    )));
                }
                Ok(Sampling::Cpu)
            }
            Backend::Gpu(gpu) => {
                let graph = DeviceSampleGraph::place(&gpu, graph, placement.placement(), device_memory)?;
                Ok(Sampling::Gpu(Box::new(GpuSampling { gpu, graph })))
            }
        }
    }

    /// `cpu` or `gpu`.
    pub fn name(&self) -> &'static str {
        match self {
            Sampling::Cpu => "cpu",
            Sampling::Gpu(_) => "gpu",
        }
    }

    /// The GPU's name, or `None` on the CPU.
    pub fn device(&self) -> Option<String> {
        match self {
            Sampling::Cpu => None,
            Sampling::Gpu(on) => Some(on.gpu.info().name.clone()),
        }
    }

    /// `glp sample`'s batch size when `--batch-samples` is not given.
    pub fn default_batch_samples(&self) -> u64 {
        match self {
            Sampling::Cpu => default_batch_samples() as u64,
            Sampling::Gpu(_) => GPU_BATCH_SAMPLES,
        }
    }

    /// Runs `app` from `initial`, handing the samples to `sink` batch by batch, drawing a
    /// progress bar.
    pub fn run_streamed(
        &self,
        app: &App,
        host: &SampleGraph<'_>,
        initial: &InitialSamples,
        options: &RunOptions,
        sink: &mut SampleSink<'_>,
    ) -> Result<StreamedRun> {
        let bar = SampleBar::new(app.name(), initial.len() as u64);
        let mut sink = |batch: SampleOutcome| {
            let done = batch.first + batch.num_samples() as u64;
            sink(batch)?;
            bar.done(done);
            Ok(())
        };
        match self {
            Sampling::Cpu => {
                let summary = app.run_streamed(host, initial, options.seed, options.cpu_batch_samples(), &mut sink)?;
                Ok(StreamedRun { summary, gpu: None })
            }
            Sampling::Gpu(on) => {
                let (stats, summary) =
                    gpu::run_streamed(&on.gpu, &on.graph, app.compiled(), initial, &options.gpu_config(), &mut sink)?;
                Ok(StreamedRun { summary, gpu: Some(stats) })
            }
        }
    }

    /// Runs `app` from `initial`, its samples gathered into one outcome, drawing a progress
    /// bar: on the CPU batch by batch straight into the outcome
    /// ([`glp_runtime::sample::run_gathered`]), on a GPU in batches as large as the device
    /// memory holds, appended as they arrive. `check` is called on this thread before each
    /// batch is gathered (on the CPU, after it was); its error stops the run.
    pub fn gather(
        &self,
        app: &App,
        host: &SampleGraph<'_>,
        initial: &InitialSamples,
        options: &RunOptions,
        check: &mut (dyn FnMut() -> Result<()> + Send),
    ) -> Result<SampleRun> {
        match self {
            Sampling::Cpu => {
                let bar = SampleBar::new(app.name(), initial.len() as u64);
                let mut progress = |done| {
                    check()?;
                    bar.done(done);
                    Ok(())
                };
                let outcome =
                    app.run_gathered(host, initial, options.seed, options.cpu_batch_samples(), &mut progress)?;
                Ok(SampleRun { outcome, gpu: None })
            }
            Sampling::Gpu(_) => {
                let (outcome, gpu) = sink::collect(initial, |sink| {
                    let mut checked = |batch: SampleOutcome| {
                        check()?;
                        sink(batch)
                    };
                    let run = self.run_streamed(app, host, initial, options, &mut checked)?;
                    Ok((run.gpu, run.summary))
                })?;
                Ok(SampleRun { outcome, gpu })
            }
        }
    }

    /// [`Sampling::gather`] with the options of a run that nothing interrupts.
    pub fn run(
        &self,
        app: &App,
        host: &SampleGraph<'_>,
        initial: &InitialSamples,
        seed: u64,
        engine: EngineArg,
        device_memory: Option<u64>,
    ) -> Result<SampleRun> {
        let options = RunOptions { seed, engine, device_memory, batch_samples: None };
        self.gather(app, host, initial, &options, &mut || Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_take_binary_suffixes_and_refuse_the_rest() {
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert_eq!(parse_bytes("2G"), Ok(2 << 30));
        assert_eq!(parse_bytes("512m"), Ok(512 << 20));
        assert_eq!(parse_bytes("4KiB"), Ok(4096));
        assert_eq!(parse_bytes("1TB"), Ok(1 << 40));
        for bad in ["", "G", "-1", "1.5G", "0", "99999999999T", "2X"] {
            assert!(parse_bytes(bad).is_err(), "{bad:?} accepted");
        }
    }
}
