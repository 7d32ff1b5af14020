//! `--backend`: where a command runs, one choice for every command that can use a GPU.

use super::console;
use clap::ValueEnum;
use glp_runtime::device::Gpu;
use glp_runtime::{Error, Result};

/// `--backend` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// A GPU when one can run the engine, else the CPU
    Auto,
    /// The multi-threaded CPU engine
    Cpu,
    /// A CUDA GPU (an error when none can run the engine)
    Gpu,
}

/// The engine a run uses.
pub enum Backend {
    Cpu,
    Gpu(Gpu),
}

impl Backend {
    /// `cpu` or `gpu`, as reports print it.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu(_) => "gpu",
        }
    }
}

/// Picks the engine: `gpu` opens the first GPU or fails saying why; `auto` takes the GPU
/// when one opens and otherwise says in one line why it runs on the CPU.
pub fn choose_backend(requested: BackendArg) -> Result<Backend> {
    match requested {
        BackendArg::Cpu => Ok(Backend::Cpu),
        BackendArg::Gpu => Ok(Backend::Gpu(Gpu::open(0)?)),
        BackendArg::Auto => {
            let reason = match Gpu::open(0) {
                Ok(gpu) => return Ok(Backend::Gpu(gpu)),
                Err(Error::GpuUnavailable(reason)) => reason,
                Err(e) => e.to_string(),
            };
            console::notice(format_args!("running on the CPU ({reason})"));
            Ok(Backend::Cpu)
        }
    }
}
