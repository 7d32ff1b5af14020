//! An opened GPU: its context and stream, typed device buffers with memory accounting,
//! pinned host buffers, and CUDA-event timing.
//!
//! Every allocation goes through [`Gpu::alloc_zeros`] / [`Gpu::upload`], which check the
//! device's free memory first and fail with [`Error::GpuOutOfMemory`] (what, how much was
//! needed, how much is free, how much glp holds) instead of a bare driver error. The bytes
//! glp holds are counted so a run can report its device memory.
//!
//! [`Gpu::alloc_pinned`] gives page-locked host memory mapped into the device's address space
//! ([`PinnedHostBuffer`]): host-to-device copies from it run at the bus's speed
//! ([`Gpu::write_pinned`]), and kernels read it directly over the bus (zero-copy) through
//! [`PinnedHostBuffer::device_ptr`]. It is checked against the host's memory budget
//! ([`crate::memory::ensure_available`]) first, since pinned pages cannot be swapped out.

use super::{probe, GpuInfo};
use crate::error::{Error, Result};
use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaSlice, CudaStream, DeviceRepr, DriverError, PinnedHostSlice, ValidAsZeroBits,
};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// An opened CUDA device with one stream (all of glp's work on a device is ordered on it).
/// A clone is the same device, stream and memory count (a handle, not a second context).
#[derive(Clone)]
pub struct Gpu {
    info: GpuInfo,
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    held: Arc<AtomicU64>,
    /// The modules loaded on the device, by name and PTX ([`Gpu::load_module`]).
    modules: Arc<std::sync::Mutex<std::collections::HashMap<(String, String), super::Module>>>,
}

/// A typed device buffer; its bytes are counted in [`Gpu::held_bytes`] until it drops.
pub struct DeviceBuffer<T> {
    slice: CudaSlice<T>,
    bytes: u64,
    held: Arc<AtomicU64>,
}

/// Page-locked host memory mapped into the device's address space: the source of the fastest
/// host-to-device copies, and memory that kernels read directly over the bus (zero-copy).
pub struct PinnedHostBuffer<T> {
    slice: PinnedHostSlice<T>,
    device_ptr: u64,
    /// The host address of the first element (an address, so the buffer stays `Send` as the
    /// slice is).
    host: usize,
    /// The end of the last copy queued from it by [`super::CopyStream::copy_from`], which
    /// [`PinnedHostBuffer::as_mut_slice`] and dropping the buffer wait for.
    pub(super) in_flight: Option<CudaEvent>,
}

/// Maps a driver error of `what` to [`Error::Gpu`].
pub(crate) fn gpu_error(what: &str) -> impl FnOnce(DriverError) -> Error + '_ {
    move |e| Error::Gpu(format!("{what}: {e}"))
}

impl Gpu {
    /// The loaded modules (a poisoned lock still holds valid modules).
    pub(crate) fn modules(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<(String, String), super::Module>> {
        self.modules.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Opens device `ordinal` after probing (never panics without CUDA).
    pub fn open(ordinal: usize) -> Result<Gpu> {
        let gpus = probe()?;
        let info = gpus.get(ordinal).cloned().ok_or_else(|| {
            Error::GpuUnavailable(format!("no CUDA device {ordinal}: this machine has {}", gpus.len()))
        })?;
        let context = CudaContext::new(ordinal)
            .map_err(|e| Error::GpuUnavailable(format!("cannot open device {ordinal}: {e}")))?;
        let stream = context.default_stream();
        Ok(Gpu { info, context, stream, held: Arc::new(AtomicU64::new(0)), modules: Arc::default() })
    }

    /// What the driver reports about the device.
    pub fn info(&self) -> &GpuInfo {
        &self.info
    }

    /// `sm_XY` of the device, the NVRTC target.
    pub fn arch(&self) -> String {
        format!("sm_{}{}", self.info.compute_capability.0, self.info.compute_capability.1)
    }

    /// The stream all work is ordered on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// Bytes glp holds on the device now.
    pub fn held_bytes(&self) -> u64 {
        self.held.load(Relaxed)
    }

    /// (free, total) device memory in bytes.
    pub fn memory_info(&self) -> Result<(u64, u64)> {
        let (free, total) = self.context.mem_get_info().map_err(gpu_error("cannot read device memory"))?;
        Ok((free as u64, total as u64))
    }

    fn reserve(&self, what: &str, bytes: u64) -> Result<()> {
        if bytes <= self.memory_info()?.0 {
            return Ok(());
        }
        // Dropped buffers are freed in stream order into the driver's memory pool, which hands
        // their memory back to the device at the next synchronization: until then the free
        // figure misses them (measured: 134 GB of dropped tables still missing on an H200).
        self.synchronize()?;
        let (free, total) = self.memory_info()?;
        if bytes > free {
            return Err(self.out_of_memory(what, bytes, free, total));
        }
        Ok(())
    }

    fn out_of_memory(&self, what: &str, needed: u64, free: u64, total: u64) -> Error {
        Error::GpuOutOfMemory {
            what: what.to_string(),
            needed,
            free,
            total,
            held: self.held_bytes(),
            hint: "; try a strategy that needs less memory (glp, or the sketches mg8 and bm, hold no per-edge \
                   table), or the CPU"
                .into(),
        }
    }

    fn wrap<T>(&self, slice: CudaSlice<T>) -> DeviceBuffer<T> {
        let bytes = (slice.len() * std::mem::size_of::<T>()) as u64;
        self.held.fetch_add(bytes, Relaxed);
        DeviceBuffer { slice, bytes, held: self.held.clone() }
    }

    fn allocation_error(&self, what: &str, bytes: u64, e: DriverError) -> Error {
        if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            let (free, total) = self.memory_info().unwrap_or((0, self.info.total_memory));
            return self.out_of_memory(what, bytes, free, total);
        }
        Error::Gpu(format!("allocating {what} ({bytes} bytes): {e}"))
    }

    /// A zeroed buffer of `len` elements, `what` naming it in errors.
    pub fn alloc_zeros<T: DeviceRepr + ValidAsZeroBits>(&self, what: &str, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = (len.max(1) * std::mem::size_of::<T>()) as u64;
        self.reserve(what, bytes)?;
        let slice = self.stream.alloc_zeros::<T>(len.max(1)).map_err(|e| self.allocation_error(what, bytes, e))?;
        Ok(self.wrap(slice))
    }

    /// A buffer holding a copy of `data`.
    pub fn upload<T: DeviceRepr>(&self, what: &str, data: &[T]) -> Result<DeviceBuffer<T>> {
        let bytes = std::mem::size_of_val(data) as u64;
        self.reserve(what, bytes)?;
        let slice = if data.is_empty() {
            // SAFETY: a one-element buffer never read (its length is recorded as 1 but no
            // kernel is given a count above 0 for it).
            unsafe { self.stream.alloc::<T>(1) }
        } else {
            self.stream.clone_htod(data)
        }
        .map_err(|e| self.allocation_error(what, bytes, e))?;
        Ok(self.wrap(slice))
    }

    /// Overwrites `buffer` with `data` (same length).
    pub fn write<T: DeviceRepr>(&self, buffer: &mut DeviceBuffer<T>, data: &[T]) -> Result<()> {
        if data.len() != buffer.len() {
            return Err(Error::Gpu(format!("writing {} elements into a buffer of {}", data.len(), buffer.len())));
        }
        self.stream.memcpy_htod(data, &mut buffer.slice).map_err(gpu_error("host-to-device copy"))
    }

    /// Overwrites `buffer` with the pinned `data` (same length): a copy at the bus's speed,
    /// queued on the stream, where [`Gpu::write`] from pageable memory has the driver stage
    /// the bytes through a pinned buffer of its own first.
    pub fn write_pinned<T: DeviceRepr>(&self, buffer: &mut DeviceBuffer<T>, data: &PinnedHostBuffer<T>) -> Result<()> {
        if data.len() != buffer.len() {
            return Err(Error::Gpu(format!("writing {} elements into a buffer of {}", data.len(), buffer.len())));
        }
        self.stream.memcpy_htod(&data.slice, &mut buffer.slice).map_err(gpu_error("host-to-device copy"))
    }

    /// `len` zeroed elements of page-locked host memory mapped into the device's address
    /// space, `what` naming them in errors.
    ///
    /// Errors: [`Error::TooLarge`] when the host's memory budget cannot hold them,
    /// [`Error::Gpu`] when the driver refuses to pin them.
    pub fn alloc_pinned<T: DeviceRepr + ValidAsZeroBits>(&self, what: &str, len: usize) -> Result<PinnedHostBuffer<T>> {
        let len = len.max(1);
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .filter(|&b| b < isize::MAX as usize)
            .ok_or_else(|| Error::TooLarge(format!("cannot pin {what}: {len} elements overflow the address space")))?;
        crate::memory::ensure_available(bytes as u64, || format!("cannot pin {what} in host memory"))?;
        let pinning = |e: DriverError| Error::Gpu(format!("pinning {what} ({bytes} bytes of host memory): {e}"));
        self.context.bind_to_thread().map_err(pinning)?;
        let slice = pinned_zeroed::<T>(&self.context, len).map_err(pinning)?;
        let device_ptr = mapped_device_ptr(&slice).map_err(pinning)?;
        let host = slice.as_ptr().map_err(pinning)? as usize;
        Ok(PinnedHostBuffer { slice, device_ptr, host, in_flight: None })
    }

    /// Copies `buffer` to the host.
    pub fn download<T: DeviceRepr + Default + Clone>(&self, buffer: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.stream.clone_dtoh(&buffer.slice).map_err(gpu_error("device-to-host copy"))
    }

    /// Copies `buffer[start..start + destination.len()]` to `destination`.
    pub fn download_into<T: DeviceRepr>(
        &self,
        buffer: &DeviceBuffer<T>,
        start: usize,
        destination: &mut [T],
    ) -> Result<()> {
        let Some(view) = buffer.slice.try_slice(start..start + destination.len()) else {
            return Err(Error::Gpu(format!(
                "reading elements {start}..{} of a device buffer of {}",
                start + destination.len(),
                buffer.len()
            )));
        };
        self.stream.memcpy_dtoh(&view, destination).map_err(gpu_error("device-to-host copy"))?;
        self.synchronize()
    }

    /// Sets every byte of `buffer` to zero.
    pub fn zero<T: DeviceRepr + ValidAsZeroBits>(&self, buffer: &mut DeviceBuffer<T>) -> Result<()> {
        self.stream.memset_zeros(&mut buffer.slice).map_err(gpu_error("memset"))
    }

    /// Copies `src` into `dst` on the device (same length).
    pub fn copy<T: DeviceRepr>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        self.stream.memcpy_dtod(&src.slice, &mut dst.slice).map_err(gpu_error("device-to-device copy"))
    }

    /// Waits for all queued work; surfaces asynchronous kernel faults.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(gpu_error("kernel execution"))
    }

    /// An event recorded now on the stream, for [`Gpu::elapsed_ms`].
    pub fn record(&self) -> Result<CudaEvent> {
        self.stream
            .record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(gpu_error("recording an event"))
    }

    /// Milliseconds between two recorded events (waits for `end`).
    pub fn elapsed_ms(&self, start: &CudaEvent, end: &CudaEvent) -> Result<f64> {
        end.synchronize().map_err(gpu_error("kernel execution"))?;
        start.elapsed_ms(end).map(f64::from).map_err(gpu_error("reading event times"))
    }
}

impl<T> DeviceBuffer<T> {
    /// Elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// Whether the buffer has no element.
    pub fn is_empty(&self) -> bool {
        self.slice.is_empty()
    }

    /// Bytes on the device.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The device address, for kernel arguments.
    pub fn device_ptr(&self) -> u64 {
        let (ptr, _sync) = cudarc::driver::DevicePtr::device_ptr(&self.slice, self.slice.stream());
        ptr
    }

    /// The underlying cudarc slice.
    pub fn slice(&self) -> &CudaSlice<T> {
        &self.slice
    }
}

impl<T> PinnedHostBuffer<T> {
    /// Elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// Whether the buffer has no element.
    pub fn is_empty(&self) -> bool {
        self.slice.is_empty()
    }

    /// Bytes of host memory.
    pub fn bytes(&self) -> u64 {
        self.slice.num_bytes() as u64
    }

    /// The address kernels read the host memory through (zero-copy), for kernel arguments.
    pub fn device_ptr(&self) -> u64 {
        self.device_ptr
    }

    /// The host address of the first element.
    pub(super) fn host_ptr(&self) -> *const T {
        // The pinned slice's pointer, as allocated; `as_ptr` would wait for its event, which
        // glp never records (copies from it are ordered by the caller's events).
        self.host as *const T
    }
}

impl<T: ValidAsZeroBits> PinnedHostBuffer<T> {
    /// The elements, to fill from the host (waits for copies from the buffer queued by
    /// [`Gpu::write_pinned`] and [`super::CopyStream::copy_from`]).
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait_for_copies()?;
        self.slice.as_mut_slice().map_err(gpu_error("reading pinned host memory"))
    }
}

impl<T> PinnedHostBuffer<T> {
    /// Waits for the copy from the buffer still in flight, if any.
    fn wait_for_copies(&mut self) -> Result<()> {
        if let Some(event) = self.in_flight.take() {
            event.synchronize().map_err(gpu_error("copying pinned host memory to the device"))?;
        }
        Ok(())
    }
}

impl<T> Drop for PinnedHostBuffer<T> {
    fn drop(&mut self) {
        // A copy must not read freed memory. An error here means the context is broken, and
        // then nothing more runs on it.
        let _ = self.wait_for_copies();
    }
}

/// `len` elements of page-locked host memory allocated with `CU_MEMHOSTALLOC_DEVICEMAP`,
/// every byte zeroed. The context must be current on this thread.
fn pinned_zeroed<T: DeviceRepr + ValidAsZeroBits>(
    context: &Arc<CudaContext>,
    len: usize,
) -> std::result::Result<PinnedHostSlice<T>, DriverError> {
    // SAFETY: `alloc_pinned_with_flags` returns `len` elements of uninitialised host memory
    // (its only unsafety), whose size the caller checked against overflow and `isize::MAX`;
    // every one of its `len * size_of::<T>()` bytes is zeroed before the slice is returned,
    // through the pointer the allocation returned, and all-zero bytes are a valid `T`
    // (`ValidAsZeroBits`).
    unsafe {
        let mut slice = context.alloc_pinned_with_flags::<T>(len, sys::CU_MEMHOSTALLOC_DEVICEMAP)?;
        std::ptr::write_bytes(slice.as_mut_ptr()?, 0, len);
        Ok(slice)
    }
}

/// The device address of mapped pinned memory. The context must be current on this thread.
fn mapped_device_ptr<T: ValidAsZeroBits>(slice: &PinnedHostSlice<T>) -> std::result::Result<u64, DriverError> {
    let host = slice.as_ptr()? as *mut std::ffi::c_void;
    let mut device: sys::CUdeviceptr = 0;
    // SAFETY: `host` is the start of a live allocation made by `cuMemHostAlloc` with
    // `CU_MEMHOSTALLOC_DEVICEMAP` in the current context (`pinned_zeroed`), which `slice`
    // keeps alive for the call; the driver writes one `CUdeviceptr` to `device`, a valid
    // place for it; the flags must be 0.
    unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host, 0) }.result()?;
    Ok(device)
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        self.held.fetch_sub(self.bytes, Relaxed);
    }
}

impl Gpu {
    /// The device-to-device copy bandwidth in bytes per second (bytes read plus bytes
    /// written), measured with CUDA events on a buffer of `bytes` (clamped to a quarter of the
    /// free memory), best of three copies after a warm-up.
    pub fn copy_bandwidth(&self, bytes: u64) -> Result<f64> {
        let (free, _) = self.memory_info()?;
        let words = (bytes.min(free / 4) / 4).max(1) as usize;
        let src: DeviceBuffer<u32> = self.alloc_zeros("the bandwidth probe", words)?;
        let mut dst: DeviceBuffer<u32> = self.alloc_zeros("the bandwidth probe", words)?;
        self.copy(&src, &mut dst)?;
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let start = self.record()?;
            self.copy(&src, &mut dst)?;
            let end = self.record()?;
            best = best.min(self.elapsed_ms(&start, &end)?);
        }
        Ok(2.0 * (words * 4) as f64 / (best / 1e3))
    }
}
