//! Loading compiled modules and launching kernels: the device layer's one `unsafe` launch
//! site.
//!
//! Kernel arguments are built as [`KernelArgs`]: each argument is its bytes exactly as the
//! kernel's C signature lays them out (scalars, device addresses, `#[repr(C)]` structs passed
//! by value), stored 8-byte aligned. The caller states the argument list in the same order
//! and with the same types as the kernel's `extern "C"` signature; [`Gpu::launch`] is the only
//! place that hands such a list to the driver.

use super::gpu::{gpu_error, DeviceBuffer, Gpu};
use crate::error::{Error, Result};
use cudarc::driver::{CudaFunction, CudaModule};
use std::ffi::c_void;
use std::sync::Arc;

/// A loaded module (one compiled translation unit); a clone is the same module.
#[derive(Clone)]
pub struct Module {
    module: Arc<CudaModule>,
    name: String,
}

/// A kernel of a loaded module.
pub struct Kernel {
    function: CudaFunction,
    name: String,
}

/// Kernel arguments in signature order, each stored as 8-byte-aligned words.
#[derive(Default)]
pub struct KernelArgs {
    words: Vec<Vec<u64>>,
}

/// Plain-old-data that may be copied into a kernel argument byte for byte: `#[repr(C)]`, no
/// padding that the kernel reads, no pointers to host memory.
///
/// # Safety
/// Implementors must be `#[repr(C)]` (or primitive) with the same layout as the C type of the
/// kernel parameter they are passed for.
pub unsafe trait KernelArg: Copy {}

// SAFETY: primitives have the C layout of the same-sized C types.
unsafe impl KernelArg for u32 {}
// SAFETY: as above.
unsafe impl KernelArg for u64 {}
// SAFETY: as above.
unsafe impl KernelArg for i32 {}
// SAFETY: as above.
unsafe impl KernelArg for f64 {}

impl KernelArgs {
    /// An empty list.
    pub fn new() -> Self {
        KernelArgs::default()
    }

    /// Appends a value argument.
    pub fn value<T: KernelArg>(mut self, value: T) -> Self {
        let size = std::mem::size_of::<T>();
        let mut words = vec![0u64; size.div_ceil(8).max(1)];
        // SAFETY: `words` has at least `size` bytes; `T: KernelArg` is plain data, and copying
        // its bytes (padding included) into a u64 buffer reads no uninitialised memory that
        // is used as anything but bytes the kernel ignores.
        unsafe { std::ptr::copy_nonoverlapping(&value as *const T as *const u8, words.as_mut_ptr() as *mut u8, size) };
        self.words.push(words);
        self
    }

    /// Appends raw argument bytes (a by-value struct laid out by the caller).
    pub fn bytes(mut self, bytes: &[u8]) -> Self {
        let mut words = vec![0u64; bytes.len().div_ceil(8).max(1)];
        for (i, b) in bytes.iter().enumerate() {
            words[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        self.words.push(words);
        self
    }

    /// Appends a buffer's device address.
    pub fn buffer<T>(self, buffer: &DeviceBuffer<T>) -> Self {
        self.value(buffer.device_ptr())
    }
}

/// A launch shape: grid and block sizes (one-dimensional).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub blocks: u32,
    pub threads: u32,
}

impl Shape {
    /// Enough blocks of `threads` threads for `work` threads in all.
    pub fn covering(work: u64, threads: u32) -> Result<Shape> {
        let blocks = work.div_ceil(u64::from(threads)).max(1);
        let blocks = u32::try_from(blocks)
            .ok()
            .filter(|&b| b <= i32::MAX as u32)
            .ok_or_else(|| Error::TooLarge(format!("a launch of {work} threads exceeds the grid limit")))?;
        Ok(Shape { blocks, threads })
    }
}

impl Gpu {
    /// Loads PTX compiled for this device, once per device and process: the driver turns a
    /// module's PTX into machine code when its kernels first run (milliseconds a module), so
    /// a program run again (a benchmark's repeats, the Python package's calls) reuses the
    /// module loaded the first time. Modules stay loaded while the device is open.
    pub fn load_module(&self, name: &str, ptx: &str) -> Result<Module> {
        let key = (name.to_string(), ptx.to_string());
        if let Some(module) = self.modules().get(&key) {
            return Ok(module.clone());
        }
        let module = self
            .context()
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(|e| Error::KernelCompile(format!("loading module {name}: {e}")))?;
        let module = Module { module, name: name.to_string() };
        self.modules().insert(key, module.clone());
        Ok(module)
    }

    /// Queues `kernel` with `args` on the stream.
    ///
    /// The caller guarantees `args` match the kernel's C signature (count, order, types) and
    /// that every device address in them points to a live buffer large enough for what the
    /// kernel reads and writes with the given shape; the engine code that builds the
    /// argument lists is written next to the kernels' signatures for that reason.
    pub fn launch(&self, kernel: &Kernel, shape: Shape, args: &KernelArgs) -> Result<()> {
        // A raw launch runs in the thread's current context: make it this device's, whichever
        // thread launches (the Python package runs a call's engine on a thread of its own).
        self.context().bind_to_thread().map_err(gpu_error("binding the device's context"))?;
        // The driver only reads the arguments; its signature takes mutable pointers.
        let mut pointers: Vec<*mut c_void> = args.words.iter().map(|w| w.as_ptr() as *mut c_void).collect();
        // SAFETY: the one launch site. `pointers` holds one pointer per kernel parameter, each
        // to at least as many bytes as the parameter's C type (KernelArgs' contract, stated by
        // the caller); `args` outlives the call (the driver copies the arguments before
        // cuLaunchKernel returns); the function and stream belong to this device's context, current on this thread.
        let result = unsafe {
            cudarc::driver::result::launch_kernel(
                kernel.function.cu_function(),
                (shape.blocks, 1, 1),
                (shape.threads, 1, 1),
                0,
                self.stream().cu_stream(),
                &mut pointers,
            )
        };
        result.map_err(gpu_error(&format!("launching {}", kernel.name)))
    }
}

impl Module {
    /// The kernel called `name` (an `extern "C" __global__` function).
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let function = self
            .module
            .load_function(name)
            .map_err(|e| Error::KernelCompile(format!("module {} has no kernel {name}: {e}", self.name)))?;
        Ok(Kernel { function, name: name.to_string() })
    }
}
