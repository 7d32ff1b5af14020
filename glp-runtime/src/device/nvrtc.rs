//! Compiling generated CUDA with NVRTC, without ever panicking when NVRTC is missing.
//!
//! NVRTC needs no GPU, so this works (and CI tests it) on machines without one. Kernels are
//! compiled with `--fmad=false`: fused multiply-adds round differently from the separate
//! multiply and add the CPU backend performs, and glp's GPU results must equal the CPU's.
//! A failure returns NVRTC's log and the line-numbered source, which is what one needs to
//! see the problem in generated code.

use crate::error::{Error, Result};
use cudarc::nvrtc::{self as safe, sys};

/// The options every glp kernel is compiled with, besides the architecture.
pub const KERNEL_OPTIONS: &[&str] = &["--fmad=false", "--std=c++17"];

/// The complete NVRTC option list for `arch`: `--gpu-architecture=ARCH` then
/// [`KERNEL_OPTIONS`]. [`compile_ptx`] passes exactly this list, and the kernel cache
/// ([`super::cache`]) hashes it into its keys, so a change of options can never serve PTX
/// compiled with the old ones.
pub fn compile_options(arch: &str) -> Vec<String> {
    std::iter::once(format!("--gpu-architecture={arch}")).chain(KERNEL_OPTIONS.iter().map(|s| s.to_string())).collect()
}

/// Whether the NVRTC library can be loaded.
pub fn available() -> bool {
    // SAFETY: `is_culib_present` only tries to dlopen the NVRTC library under its known
    // names and drops the handle; it calls no NVRTC function.
    unsafe { sys::is_culib_present() }
}

/// NVRTC's version (major, minor).
pub fn version() -> Result<(i32, i32)> {
    require()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is present (checked above); nvrtcVersion writes two ints through
    // the pointers, which point at live locals.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| Error::KernelCompile(format!("cannot read the NVRTC version: {e:?}")))?;
    Ok((major, minor))
}

fn require() -> Result<()> {
    if available() {
        Ok(())
    } else {
        Err(Error::KernelCompile(
            "NVRTC (libnvrtc.so) is not installed or not on the library path; install the CUDA toolkit or \
             `pip install nvidia-cuda-nvrtc==13.0.*` and add its lib folder to LD_LIBRARY_PATH"
                .into(),
        ))
    }
}

/// Compiles `source` for `arch` (`"sm_90"`) and returns the PTX text.
pub fn compile_ptx(name: &str, source: &str, arch: &str) -> Result<String> {
    require()?;
    if source.contains('\0') || name.contains('\0') || arch.contains('\0') {
        return Err(Error::KernelCompile(format!(
            "{name}: the kernel's source, name or architecture contains a NUL byte"
        )));
    }
    let options =
        safe::CompileOptions { options: compile_options(arch), name: Some(name.to_string()), ..Default::default() };
    match safe::compile_ptx_with_opts(source, options) {
        Ok(ptx) => Ok(ptx.to_src()),
        Err(safe::CompileError::CompileError { log, .. }) => Err(Error::KernelCompile(format!(
            "NVRTC could not compile {name} for {arch}:\n{}\n--- generated source ---\n{}",
            log.to_string_lossy().trim_end(),
            numbered(source)
        ))),
        Err(e) => Err(Error::KernelCompile(format!("NVRTC failed on {name} for {arch}: {e:?}"))),
    }
}

/// `source` with line numbers, as NVRTC's log refers to them.
pub fn numbered(source: &str) -> String {
    let width = source.lines().count().to_string().len();
    source.lines().enumerate().map(|(i, line)| format!("{:>width$} | {line}\n", i + 1)).collect()
}
