//! Buffers kept from one batch of a run to the next, so that the next batch's tasks fill
//! memory already in use rather than fresh pages.

use std::sync::Mutex;

/// Buffers a batch's tasks filled, kept once their samples were appended for the next batch's
/// tasks to fill: a task's buffers allocated afresh for each batch were fresh pages for the
/// kernel to zero, the records written into memory the allocator had just handed back (k-hop
/// 25,10 on com-DBLP, one thread, `perf`: the kernel's page zeroing 2.1% and 3.3% of the samples
/// -> 1.1% and 1.1%, 320 -> 270 page faults with 2 threads).
pub(super) struct Spare<T>(Mutex<Vec<T>>);

/// Empties a kept `buffer` for its next task, with room for at least `entries`.
pub(super) fn emptied_with_room<T>(buffer: &mut Vec<T>, entries: usize) {
    buffer.clear();
    buffer.reserve(entries);
}

impl<T> Spare<T> {
    pub(super) fn new() -> Self {
        Spare(Mutex::new(Vec::new()))
    }

    /// A kept buffer, if any.
    pub(super) fn take(&self) -> Option<T> {
        self.0.lock().ok()?.pop()
    }

    /// Keeps `buffers` for later batches.
    pub(super) fn keep(&self, buffers: impl IntoIterator<Item = T>) {
        if let Ok(mut spare) = self.0.lock() {
            spare.extend(buffers);
        }
    }
}
