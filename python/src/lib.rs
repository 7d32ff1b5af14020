//! `glp._glp`: the native half of glp's Python package.
//!
//! Python calls reach the same Rust layer as the command line (`glp::cli`'s engine, sampler
//! and backend modules): there is no second implementation of anything, so a Python call and
//! the `glp` command with the same arguments give the same labels and the same samples.
//! This crate only converts: arrays in (NumPy, checked: an id outside the graph is a
//! `ValueError` naming its position), arrays out (NumPy arrays that own the vectors the
//! engines built), options by name, and errors into Python exceptions (`errors`).
//!
//! Long calls (loading, label propagation, sampling) run without the GIL. Label propagation
//! and sampling run on a thread of their own while the calling thread, where Python runs its
//! signal handlers, watches for Ctrl-C (`errors::interruptible`); the engine stops at its
//! next iteration or batch (CPU or GPU) and the call raises `KeyboardInterrupt`. Outputs kept
//! on the GPU (walks and subgraphs for PyTorch), which fit in the device's memory and take
//! seconds at most, run to their end first.
//!
//! The Python half (`python/glp/`) gives the API its Pythonic shape: input types (torch,
//! SciPy, NetworkX, PyG), result classes, torch outputs, the mini-batch loader.

mod arrays;
mod dlpack;
mod errors;
mod graph;
mod lp;
mod options;
mod sample;

use pyo3::prelude::*;

/// The `glp` binary's allocator, for the same reasons (ARCHITECTURE.md, "Memory"); the NumPy
/// arrays that own the engines' vectors free them through it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Silences notices and progress bars (`glp --quiet`); warnings stay.
#[pyfunction]
fn set_quiet(quiet: bool) {
    glp::cli::console::set_quiet(quiet);
}

#[pymodule]
fn _glp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<graph::PyGraph>()?;
    m.add_class::<dlpack::DeviceArray>()?;
    m.add_class::<sample::SampleRecords>()?;
    m.add_function(wrap_pyfunction!(lp::label_propagation, m)?)?;
    m.add_function(wrap_pyfunction!(lp::modularity, m)?)?;
    m.add_function(wrap_pyfunction!(lp::nmi, m)?)?;
    m.add_function(wrap_pyfunction!(lp::ari, m)?)?;
    m.add_function(wrap_pyfunction!(lp::overlapping_nmi, m)?)?;
    m.add_function(wrap_pyfunction!(sample::sample, m)?)?;
    m.add_function(wrap_pyfunction!(set_quiet, m)?)?;
    let compile_error = py.get_type::<errors::CompileError>();
    // Where a compile error points: set on every raised one (`None` for an error of the whole
    // file); `None` here for one raised by Python code.
    for name in ["file", "line", "column"] {
        compile_error.setattr(name, py.None())?;
    }
    m.add("CompileError", compile_error)?;
    m.add("GpuOutOfMemory", py.get_type::<errors::GpuOutOfMemory>())?;
    m.add("GpuError", py.get_type::<errors::GpuError>())?;
    Ok(())
}
