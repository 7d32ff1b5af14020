//! Large allocations that fail with an error instead of aborting, and compacting buffers
//! filled region by region.

use crate::error::{Error, Result};

/// A vector of `len` zero values, or [`Error::TooLarge`] naming `what` when memory cannot
/// hold it.
///
/// The memory comes from the allocator's zeroed allocation (`calloc`), so large vectors are
/// mapped lazily and zeroed by the kernel page by page as they are first written: threads
/// that fill the vector in parallel then also share the page faults, instead of one thread
/// writing every byte twice.
pub fn try_zeroed<T: bytemuck::Zeroable>(len: usize, what: &str) -> Result<Vec<T>> {
    let too_large =
        || Error::TooLarge(format!("cannot allocate {what}: {len} entries of {} bytes", std::mem::size_of::<T>()));
    let layout = std::alloc::Layout::array::<T>(len).map_err(|_| too_large())?;
    if layout.size() == 0 {
        let mut v = Vec::new();
        v.resize_with(len, T::zeroed);
        return Ok(v);
    }
    // SAFETY: the layout has a non-zero size (checked above).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if ptr.is_null() {
        return Err(too_large());
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `[T; len]`,
    // so capacity `len` matches; all `len` elements are initialised, because all-zero bytes
    // are a valid `T` (`Zeroable`).
    Ok(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

/// Moves the filled part (the first `counts[i]` values) of every region of `buffer`
/// (regions of `capacities` laid out from `from`) to be contiguous from `to` (`to <= from`).
/// Every move goes left, so moving the regions in order never overwrites data still to be
/// moved. Parallel producers that fill regions sized by an upper bound use it to compact.
pub(crate) fn close_gaps<T: Copy>(buffer: &mut [T], capacities: &[usize], counts: &[usize], from: usize, to: usize) {
    let (mut src, mut dst) = (from, to);
    for (&capacity, &count) in capacities.iter().zip(counts) {
        if src != dst {
            buffer.copy_within(src..src + count, dst);
        }
        src += capacity;
        dst += count;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_vectors_are_zero_and_absurd_sizes_are_errors() {
        let v: Vec<u64> = try_zeroed(1000, "test").unwrap();
        assert_eq!(v.len(), 1000);
        assert!(v.iter().all(|&x| x == 0));
        let empty: Vec<u32> = try_zeroed(0, "test").unwrap();
        assert!(empty.is_empty());
        let huge = try_zeroed::<u64>(usize::MAX / 4, "a huge table");
        assert!(matches!(huge, Err(Error::TooLarge(m)) if m.contains("a huge table")));
    }
}
