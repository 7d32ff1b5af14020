//! A sampler's hooks on the GPU, draw by draw: its device functions fused into the sampler
//! reference kernels (`glp_codegen::kinds::sample::REFERENCE_KERNEL`), run on one sample's
//! step with the view the CPU engine would give the hooks ([`crate::sample::probe`]), so that
//! every draw can be compared with the CPU's.

use super::graph::DeviceSampleGraph;
use super::program::SamplerModule;
use crate::device::{Gpu, Kernel, KernelArgs, Shape};
use crate::error::Result;
use crate::sample::compiled::CompiledSampler;
use crate::sample::probe::{inclusive_prefix, StepDraws, StepState};
use glp_codegen::kinds::sample::layout::SampleViewArgs;
use glp_codegen::kinds::sample::reference_kernel_source;

/// Threads per block of the reference kernels.
const THREADS: u32 = 128;

/// A sampler's reference kernels, compiled and loaded.
pub struct ReferenceKernels {
    module: SamplerModule,
    next: Kernel,
    weights: Kernel,
    entries: Kernel,
}

impl ReferenceKernels {
    /// Compiles `sampler`'s hooks into the reference kernels for `gpu` (NVRTC, through the
    /// PTX cache) and loads them.
    pub fn new(gpu: &Gpu, sampler: &dyn CompiledSampler) -> Result<Self> {
        let module = SamplerModule::load(gpu, sampler, "reference", reference_kernel_source)?;
        Ok(ReferenceKernels {
            next: module.module.kernel("glp_sample_next_lanes")?,
            weights: module.module.kernel("glp_sample_combined_weights")?,
            entries: module.module.kernel("glp_sample_entry_lanes")?,
            module,
        })
    }

    /// The hooks' draws on the GPU for `lanes` lanes of `sample`'s step `state` under
    /// `seed`: what [`crate::sample::probe::step_draws`] computes on the CPU, computed by the
    /// sampler's CUDA (`collective`: the collective hooks too).
    ///
    /// Errors: an invalid state, the GPU's errors, a hook whose loops ran past the budget.
    pub fn step_draws(
        &self,
        gpu: &Gpu,
        graph: &DeviceSampleGraph<'_>,
        state: &StepState,
        (seed, sample, lanes): (u64, u32, u32),
        collective: bool,
    ) -> Result<StepDraws> {
        let flat = state.flatten(graph.host())?;
        // Buffers of at least one element, so that every pointer is a live allocation.
        let upload_u32 = |what: &str, data: &[u32]| gpu.upload(what, if data.is_empty() { &[0u32][..] } else { data });
        let roots = upload_u32("roots", &flat.roots)?;
        let sorted_roots = upload_u32("sorted roots", &flat.sorted_roots)?;
        let history = upload_u32("history", &flat.history)?;
        let history_starts = gpu.upload("history starts", &flat.history_starts)?;
        let combined = upload_u32("combined neighbourhood", &flat.combined)?;
        let combined_sources = upload_u32("combined sources", &flat.combined_sources)?;
        let combined_sorted = upload_u32("combined, sorted", &flat.combined_sorted)?;
        let fault = gpu.alloc_zeros::<u64>("fault record", 2)?;
        let mut view = SampleViewArgs {
            roots: roots.device_ptr(),
            sorted_roots: sorted_roots.device_ptr(),
            history: history.device_ptr(),
            history_starts: history_starts.device_ptr(),
            fault: fault.device_ptr(),
            root_count: flat.roots.len() as u32,
            history_levels: state.levels.len() as u32,
            step: state.step(),
            ..self.module.budgeted(graph.view())
        };
        let lane_shape = Shape::covering(u64::from(lanes), THREADS)?;
        let mut next = Vec::new();
        let out = gpu.alloc_zeros::<u32>("draws", lanes.max(1) as usize)?;
        for &transit in state.transits() {
            let args = KernelArgs::new()
                .bytes(&self.module.params)
                .value(view)
                .value(seed)
                .value(sample)
                .value(transit)
                .value(lanes)
                .buffer(&out);
            gpu.launch(&self.next, lane_shape, &args)?;
            let mut row = gpu.download(&out)?;
            row.truncate(lanes as usize);
            next.push(row);
        }
        let (mut weights, mut entries) = (Vec::new(), Vec::new());
        if collective {
            view.combined = combined.device_ptr();
            view.combined_sources = combined_sources.device_ptr();
            view.combined_sorted = combined_sorted.device_ptr();
            view.combined_len = flat.combined.len() as u64;
            let out = gpu.alloc_zeros::<f64>("combined weights", flat.combined.len().max(1))?;
            let args = KernelArgs::new().bytes(&self.module.params).value(view).value(sample).buffer(&out);
            gpu.launch(&self.weights, Shape::covering(flat.combined.len() as u64, THREADS)?, &args)?;
            weights = gpu.download(&out)?;
            weights.truncate(flat.combined.len());
            let prefix = inclusive_prefix(&weights);
            let prefix_buffer =
                gpu.upload("combined prefix sums", if prefix.is_empty() { &[0.0][..] } else { &prefix })?;
            view.combined_prefix = prefix_buffer.device_ptr();
            let out = gpu.alloc_zeros::<u64>("entries", lanes.max(1) as usize)?;
            let args = KernelArgs::new()
                .bytes(&self.module.params)
                .value(view)
                .value(seed)
                .value(sample)
                .value(lanes)
                .buffer(&out);
            gpu.launch(&self.entries, lane_shape, &args)?;
            entries = gpu.download(&out)?;
            entries.truncate(lanes as usize);
        }
        let record = gpu.download(&fault)?;
        let place = format!("for sample {sample} at step {}", state.step());
        if let Some(error) = self.module.loop_fault(&record, view.loop_budget, &place) {
            return Err(error);
        }
        Ok(StepDraws { next, weights, entries })
    }
}
