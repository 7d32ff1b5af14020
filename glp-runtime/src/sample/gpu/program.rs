//! What every GPU module of a sampler shares: its hooks fused into a kernel template and
//! compiled (NVRTC, through the PTX cache), its parameter block, and the errors of the loops
//! of its hooks that ran past their budget.

use crate::device::{cache, param_block, Gpu, KernelArg, Module};
use crate::error::{Error, Result};
use crate::program::LoopSite;
use crate::sample::compiled::CompiledSampler;
use glp_codegen::kinds::sample::layout::SampleViewArgs;
use glp_codegen::kinds::sample::SAMPLE_KIND;
use glp_codegen::loops::decode_loop_fault;

// SAFETY: `SampleViewArgs` is declared with glp-codegen's `c_struct!`, which makes it
// `#[repr(C)]` and generates the kernels' `glp_sample_view` from the same table, checking at
// compile time that it has no padding and that every field is as wide as its C type (device
// pointers are `u64` addresses): the layout of `glp_sample_view`, byte for byte.
unsafe impl KernelArg for SampleViewArgs {}

/// A sampler's module on a GPU, with what its launches and errors need.
pub(super) struct SamplerModule {
    pub module: Module,
    /// The parameter block (`glp_sample_params`), the kernels' first argument.
    pub params: Vec<u8>,
    name: String,
    loop_sites: Vec<LoopSite>,
    /// The sampler's own loop step budget ([`CompiledSampler::loop_budget`]).
    loop_budget: Option<u64>,
}

impl SamplerModule {
    /// `sampler`'s hooks fused by `fuse` (a kinds::sample template's filler) into the module
    /// named `<sampler>_<what>.cu`, compiled and loaded.
    pub fn load(
        gpu: &Gpu,
        sampler: &dyn CompiledSampler,
        what: &str,
        fuse: impl FnOnce(&str) -> std::result::Result<String, glp_codegen::template::TemplateError>,
    ) -> Result<Self> {
        let source =
            fuse(sampler.device_functions()).map_err(|e| Error::KernelCompile(format!("the sampler {what}: {e}")))?;
        let name = format!("{}_{what}.cu", sampler.name());
        let ptx = cache::ptx_for(&name, &source, &gpu.arch())?;
        Ok(SamplerModule {
            module: gpu.load_module(&name, &ptx)?,
            params: param_block(&sampler.param_values()),
            name: sampler.name().to_string(),
            loop_sites: sampler.loop_sites(),
            loop_budget: sampler.loop_budget(),
        })
    }

    /// `view` (a graph's) with the sampler's loop step budget when it sets one, as the CPU
    /// engine runs it.
    pub fn budgeted(&self, view: SampleViewArgs) -> SampleViewArgs {
        SampleViewArgs { loop_budget: self.loop_budget.unwrap_or(view.loop_budget), ..view }
    }

    /// The error of a loop fault record (`[code, id]` as the view's `fault` holds it), or
    /// `None` when no loop ran out; `budget` is the view's, `place` says where the hooks ran
    /// ("for sample 3 at step 2").
    pub fn loop_fault(&self, record: &[u64], budget: u64, place: &str) -> Option<Error> {
        let fault = decode_loop_fault(*record.first()?, *record.get(1)?)?;
        let hook = SAMPLE_KIND.hooks.get(fault.hook).map_or("a hook", |h| h.name);
        let site = match self.loop_sites.get(fault.site.wrapping_sub(1)) {
            Some(site) => format!("{}:{}:{}", site.file, site.line, site.column),
            None => format!("loop site {}", fault.site),
        };
        Some(Error::Program(format!(
            "{}\n  --> {site}\n   = note: in `{hook}` of `{}`, {place} on the GPU",
            glp_codegen::interp::loop_budget_message(budget),
            self.name,
        )))
    }
}
