//! A sampler's hooks on the GPU: its device functions fused into the sampler reference
//! kernels (`glp_codegen::kinds::sample::REFERENCE_KERNEL`), run on one sample's step with
//! the view the CPU engine would give the hooks ([`super::probe`]), so that every draw can be
//! compared with the CPU's. The sampling engines build on the same device graph, view and
//! module.

use super::compiled::CompiledSampler;
use super::edges::SampleGraph;
use super::probe::{inclusive_prefix, StepDraws, StepState};
use crate::device::{cache, param_block, DeviceBuffer, DeviceGraph, Gpu, Kernel, KernelArg, KernelArgs, Module, Shape};
use crate::error::{Error, Result};
use glp_codegen::kinds::sample::layout::SampleViewArgs;
use glp_codegen::kinds::sample::{reference_kernel_source, SAMPLE_KIND};
use glp_codegen::loops::{decode_loop_fault, default_loop_budget};

// SAFETY: `SampleViewArgs` is declared with glp-codegen's `c_struct!`, which makes it
// `#[repr(C)]` and generates the kernels' `glp_sample_view` from the same table, checking at
// compile time that it has no padding and that every field is as wide as its C type (device
// pointers are `u64` addresses): the layout of `glp_sample_view`, byte for byte.
unsafe impl KernelArg for SampleViewArgs {}

/// Threads per block of the reference kernels.
const THREADS: u32 = 128;

/// A graph on the GPU with what sampler views read besides the CSR: the weights' prefix
/// sums and per-vertex maxima on weighted graphs.
pub struct DeviceSampleGraph<'g> {
    graph: DeviceGraph<'g>,
    weight_prefix: Option<DeviceBuffer<f64>>,
    max_weights: Option<DeviceBuffer<f32>>,
}

impl<'g> DeviceSampleGraph<'g> {
    /// Uploads `graph` (its CSR, weights, prefix sums and maxima).
    pub fn upload(gpu: &Gpu, graph: &SampleGraph<'g>) -> Result<Self> {
        let weight_prefix = graph.weight_prefixes().map(|p| gpu.upload("weight prefix sums", p)).transpose()?;
        let max_weights = graph.max_weights().map(|m| gpu.upload("maximum weights", m)).transpose()?;
        Ok(DeviceSampleGraph { graph: DeviceGraph::upload(gpu, graph.csr(), true)?, weight_prefix, max_weights })
    }

    /// The view of the graph alone (no sample).
    fn view(&self) -> SampleViewArgs {
        let csr = self.graph.csr();
        SampleViewArgs {
            offsets: self.graph.offsets_ptr(),
            targets: self.graph.targets_ptr(),
            edge_weights: self.graph.weights_ptr(),
            weight_prefix: self.weight_prefix.as_ref().map_or(0, DeviceBuffer::device_ptr),
            max_weights: self.max_weights.as_ref().map_or(0, DeviceBuffer::device_ptr),
            num_vertices: csr.num_vertices() as u32,
            loop_budget: default_loop_budget(csr.num_vertices() as u64, csr.num_edges()),
            ..SampleViewArgs::default()
        }
    }
}

/// A sampler's reference kernels, compiled and loaded.
pub struct ReferenceKernels {
    _module: Module,
    next: Kernel,
    weights: Kernel,
    entries: Kernel,
    params: Vec<u8>,
    /// The sampler's name and loops, for the error of a loop that ran out.
    name: String,
    loop_sites: Vec<crate::program::LoopSite>,
}

impl ReferenceKernels {
    /// Compiles `sampler`'s hooks into the reference kernels for `gpu` (NVRTC, through the
    /// PTX cache) and loads them.
    pub fn new(gpu: &Gpu, sampler: &dyn CompiledSampler) -> Result<Self> {
        let source = reference_kernel_source(sampler.device_functions())
            .map_err(|e| Error::KernelCompile(format!("the sampler reference kernels: {e}")))?;
        let name = format!("{}_reference.cu", sampler.name());
        let ptx = cache::ptx_for(&name, &source, &gpu.arch())?;
        let module = gpu.load_module(&name, &ptx)?;
        Ok(ReferenceKernels {
            next: module.kernel("glp_sample_next_lanes")?,
            weights: module.kernel("glp_sample_combined_weights")?,
            entries: module.kernel("glp_sample_entry_lanes")?,
            _module: module,
            params: param_block(&sampler.param_values()),
            name: sampler.name().to_string(),
            loop_sites: sampler.loop_sites(),
        })
    }

    /// The hooks' draws on the GPU for `lanes` lanes of `sample`'s step `state` under
    /// `seed`: what [`super::probe::step_draws`] computes on the CPU, computed by the
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
        let host_graph = SampleGraph::new(graph.graph.csr())?;
        let flat = state.flatten(&host_graph)?;
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
            ..graph.view()
        };
        let lane_shape = Shape::covering(u64::from(lanes), THREADS)?;
        let mut next = Vec::new();
        let out = gpu.alloc_zeros::<u32>("draws", lanes.max(1) as usize)?;
        for &transit in state.transits() {
            let args = KernelArgs::new()
                .bytes(&self.params)
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
            let args = KernelArgs::new().bytes(&self.params).value(view).value(sample).buffer(&out);
            gpu.launch(&self.weights, Shape::covering(flat.combined.len() as u64, THREADS)?, &args)?;
            weights = gpu.download(&out)?;
            weights.truncate(flat.combined.len());
            let prefix = inclusive_prefix(&weights);
            let prefix_buffer =
                gpu.upload("combined prefix sums", if prefix.is_empty() { &[0.0][..] } else { &prefix })?;
            view.combined_prefix = prefix_buffer.device_ptr();
            let out = gpu.alloc_zeros::<u64>("entries", lanes.max(1) as usize)?;
            let args =
                KernelArgs::new().bytes(&self.params).value(view).value(seed).value(sample).value(lanes).buffer(&out);
            gpu.launch(&self.entries, lane_shape, &args)?;
            entries = gpu.download(&out)?;
            entries.truncate(lanes as usize);
        }
        let record = gpu.download(&fault)?;
        if let Some(fault) = decode_loop_fault(record[0], record[1]) {
            let hook = SAMPLE_KIND.hooks.get(fault.hook).map_or("a hook", |h| h.name);
            let place = match self.loop_sites.get(fault.site.wrapping_sub(1)) {
                Some(site) => format!("{}:{}:{}", site.file, site.line, site.column),
                None => format!("loop site {}", fault.site),
            };
            return Err(Error::Program(format!(
                "{}\n  --> {place}\n   = note: in `{hook}` of `{}`, for sample {sample} at step {} on the GPU",
                glp_codegen::interp::loop_budget_message(graph.view().loop_budget),
                self.name,
                state.step()
            )));
        }
        Ok(StepDraws { next, weights, entries })
    }
}
