//! A second stream for host-to-device copies that overlap the kernels of the main stream (the
//! partitions placement copies the next partition of a graph while the last one is sampled),
//! and the events that order the two streams.

use super::gpu::{gpu_error, DeviceBuffer, Gpu, PinnedHostBuffer};
use crate::error::{Error, Result};
use cudarc::driver::{sys, CudaEvent, CudaStream, DeviceRepr};
use std::ops::Range;
use std::sync::Arc;

/// A stream of copies from pinned host memory. Its copies read sources and write destinations
/// that live at least as long as it (`'s`), and dropping it waits for them, so no copy outlives
/// its buffers. What orders a copy after the kernels that still read its destination, and
/// the kernels that read the copy after it, are events: [`CopyStream::wait_for`] an event
/// [`Gpu::record`]ed after the readers, and [`Gpu::wait_for`] one [`CopyStream::record`]ed
/// after the copy.
pub struct CopyStream<'s> {
    stream: Arc<CudaStream>,
    _buffers: std::marker::PhantomData<&'s ()>,
}

impl Gpu {
    /// A new stream for copies beside the main one.
    pub fn copy_stream<'s>(&self) -> Result<CopyStream<'s>> {
        let stream = self.context().new_stream().map_err(gpu_error("creating a copy stream"))?;
        Ok(CopyStream { stream, _buffers: std::marker::PhantomData })
    }

    /// Makes the main stream's later work wait for `event` (recorded on another stream).
    pub fn wait_for(&self, event: &CudaEvent) -> Result<()> {
        self.stream().wait(event).map_err(gpu_error("ordering the main stream after a copy"))
    }
}

impl<'s> CopyStream<'s> {
    /// Queues the copy of `source[range]` to the start of `destination`.
    ///
    /// Errors: a range past the source's end or longer than the destination.
    pub fn copy<T: DeviceRepr>(
        &self,
        source: &'s PinnedHostBuffer<T>,
        range: Range<usize>,
        destination: &'s DeviceBuffer<T>,
    ) -> Result<()> {
        // SAFETY: both outlive `'s`, hence the copy (dropping the stream waits for it).
        unsafe { self.queue(source, range, destination, 0) }
    }

    /// Queues the copy of `source[range]` to `destination` from element `at` on, and marks
    /// `source` in flight until the copy ends: its [`PinnedHostBuffer::as_mut_slice`] and its
    /// drop wait for it, so that a source made, refilled or sent to another thread while the
    /// stream copies (the pieces of a graph) is never written or freed under the copy.
    ///
    /// Errors: [`CopyStream::copy`]'s.
    pub fn copy_from<T: DeviceRepr>(
        &self,
        source: &mut PinnedHostBuffer<T>,
        range: Range<usize>,
        destination: &'s DeviceBuffer<T>,
        at: usize,
    ) -> Result<()> {
        // SAFETY: `destination` outlives `'s`; `source` is neither written (`as_mut_slice`)
        // nor freed (its drop) before the event recorded below, after the copy.
        unsafe { self.queue(source, range, destination, at) }?;
        match self.record() {
            Ok(event) => {
                source.in_flight = Some(event);
                Ok(())
            }
            Err(e) => {
                // Without the event nothing would wait for the copy: wait here.
                let _ = self.synchronize();
                Err(e)
            }
        }
    }

    /// Queues the copy of `source[range]` to `destination` from element `at` on.
    ///
    /// # Safety
    /// `source`'s memory must stay allocated and unwritten, and `destination` allocated, until
    /// the copy ends on this stream.
    unsafe fn queue<T: DeviceRepr>(
        &self,
        source: &PinnedHostBuffer<T>,
        range: Range<usize>,
        destination: &DeviceBuffer<T>,
        at: usize,
    ) -> Result<()> {
        if range.start > range.end || range.end > source.len() || at.saturating_add(range.len()) > destination.len() {
            return Err(Error::Gpu(format!(
                "copying elements {range:?} of a pinned buffer of {} into a device buffer of {} at {at}",
                source.len(),
                destination.len()
            )));
        }
        if range.is_empty() {
            return Ok(());
        }
        let bytes = range.len() * std::mem::size_of::<T>();
        // The raw copy below runs in the thread's current context.
        self.stream.context().bind_to_thread().map_err(gpu_error("binding the device's context"))?;
        // SAFETY: `source` is pinned host memory of `source.len()` elements (its host address
        // from the allocation), `range` lies inside it and `destination` holds at least
        // `at + range.len()` elements (checked above); both stay allocated until the copy ends
        // (the caller's contract); the stream belongs to the context the buffers were made
        // in, current on this thread.
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                destination.device_ptr() + (at * std::mem::size_of::<T>()) as u64,
                source.host_ptr().add(range.start) as *const std::ffi::c_void,
                bytes,
                self.stream.cu_stream(),
            )
        }
        .result()
        .map_err(gpu_error("copying pinned host memory to the device"))
    }

    /// An event recorded now on this stream with its time, for [`Gpu::elapsed_ms`].
    pub fn record_timed(&self) -> Result<CudaEvent> {
        self.stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(gpu_error("recording an event"))
    }

    /// An event recorded now on this stream: the copies queued so far.
    pub fn record(&self) -> Result<CudaEvent> {
        self.stream
            .record_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .map_err(gpu_error("recording an event"))
    }

    /// Makes this stream's later copies wait for `event` (recorded on the main stream).
    pub fn wait_for(&self, event: &CudaEvent) -> Result<()> {
        self.stream.wait(event).map_err(gpu_error("ordering a copy after the kernels"))
    }

    /// Waits for every queued copy.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(gpu_error("copying to the device"))
    }
}

impl Drop for CopyStream<'_> {
    fn drop(&mut self) {
        // The copies must not outlive their buffers (`'s`). An error here means the context is
        // broken, and then nothing more runs on it.
        let _ = self.stream.synchronize();
    }
}
