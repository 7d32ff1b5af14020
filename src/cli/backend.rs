//! `--backend`: where a command runs, one choice for every command that can use a GPU.

use super::console;
use clap::ValueEnum;
use glp_runtime::device::Gpu;
use glp_runtime::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

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
/// when one opens and otherwise says in one line why it runs on the CPU (once per process).
pub fn choose_backend(requested: BackendArg) -> Result<Backend> {
    match requested {
        BackendArg::Cpu => Ok(Backend::Cpu),
        BackendArg::Gpu => Ok(Backend::Gpu(first_gpu()?)),
        BackendArg::Auto => {
            let reason = match first_gpu() {
                Ok(gpu) => return Ok(Backend::Gpu(gpu)),
                Err(Error::GpuUnavailable(reason)) => reason,
                Err(e) => e.to_string(),
            };
            static TOLD: AtomicBool = AtomicBool::new(false);
            if !TOLD.swap(true, Ordering::Relaxed) {
                console::notice(format_args!("running on the CPU ({reason})"));
            }
            Ok(Backend::Cpu)
        }
    }
}

/// The first GPU, opened once per process: creating a CUDA context takes a good part of a
/// second, and the Python package chooses a backend at every call (a mini-batch loader
/// calls many times). A failure to open is remembered too, as its message.
fn first_gpu() -> Result<Gpu> {
    static FIRST: OnceLock<std::result::Result<Gpu, (bool, String)>> = OnceLock::new();
    let opened = FIRST.get_or_init(|| {
        Gpu::open(0).map_err(|e| match e {
            Error::GpuUnavailable(reason) => (true, reason),
            other => (false, other.to_string()),
        })
    });
    match opened {
        Ok(gpu) => Ok(gpu.clone()),
        Err((true, reason)) => Err(Error::GpuUnavailable(reason.clone())),
        Err((false, message)) => Err(Error::Gpu(message.clone())),
    }
}
