//! Large allocations that fail with an error instead of aborting, the memory budget they
//! are checked against, and compacting buffers filled region by region.
//!
//! # The memory budget
//!
//! Operating systems overcommit: a huge allocation usually succeeds and the process is killed
//! later, when the pages are touched. So glp checks what it is about to allocate against the
//! memory that is really available *before* allocating, and fails with an error that says
//! what was needed and what is available ([`ensure_available`]). The budget
//! ([`available_memory`]) is the smallest of:
//!
//! - `MemAvailable` of `/proc/meminfo` (Linux: free memory plus reclaimable caches);
//! - the room left under the process's cgroup v2 limit (`memory.max - memory.current`), so
//!   that containers see their own limit, not the host's memory;
//! - the `GLP_MEMORY_LIMIT` environment variable, in bytes with an optional `K`, `M`, `G` or
//!   `T` suffix (powers of 1024), to cap glp below what the machine has (shared machines,
//!   tests).
//!
//! Where none of them is known (another operating system), there is no budget and only the
//! allocator's own failure is reported. [`try_zeroed`] applies the check to every large
//! buffer; the loaders also check declared sizes (a Matrix Market size line, a `.glpg`
//! header, the output of a decompressor) against it before allocating anything for them.

use crate::error::{Error, Result};

/// A vector of `len` zero values, or [`Error::TooLarge`] naming `what` when memory cannot
/// hold it.
///
/// The memory comes from the allocator's zeroed allocation (`calloc`), so large vectors are
/// mapped lazily and zeroed by the kernel page by page as they are first written: threads
/// that fill the vector in parallel then also share the page faults, instead of one thread
/// writing every byte twice.
///
/// Buffers of [`CHECKED_BYTES`] or more are first checked against the memory budget
/// ([`ensure_available`]).
pub fn try_zeroed<T: bytemuck::Zeroable>(len: usize, what: &str) -> Result<Vec<T>> {
    let too_large =
        || Error::TooLarge(format!("cannot allocate {what}: {len} entries of {} bytes", std::mem::size_of::<T>()));
    let layout = std::alloc::Layout::array::<T>(len).map_err(|_| too_large())?;
    if layout.size() as u64 >= CHECKED_BYTES {
        ensure_available(layout.size() as u64, || format!("cannot allocate {what}"))?;
    }
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

/// Allocations from this size on are checked against the budget; smaller ones are not worth
/// reading `/proc` for.
pub const CHECKED_BYTES: u64 = 16 << 20;

/// The environment variable that caps the memory budget.
pub const MEMORY_LIMIT_VAR: &str = "GLP_MEMORY_LIMIT";

/// The memory glp may still allocate, in bytes (see the module docs); `None` when the system
/// does not say. Errors only when `GLP_MEMORY_LIMIT` is set to something that is not a size.
pub fn available_memory() -> Result<Option<u64>> {
    let limit = match std::env::var(MEMORY_LIMIT_VAR) {
        Ok(text) => Some(parse_size(&text).ok_or_else(|| {
            Error::invalid(format!(
                "{MEMORY_LIMIT_VAR}=`{text}` is not a size (expected bytes with an optional K, M, G or T suffix, e.g. 8G)"
            ))
        })?),
        Err(_) => None,
    };
    let known = [limit, mem_available(), cgroup_room()];
    Ok(known.into_iter().flatten().min())
}

/// Fails with [`Error::TooLarge`] when `bytes` exceed the memory budget: "`what()` needs X;
/// Y available". Passes when there is no budget.
pub fn ensure_available(bytes: u64, what: impl FnOnce() -> String) -> Result<()> {
    match available_memory()? {
        Some(available) if bytes > available => Err(Error::TooLarge(format!(
            "{}: needs {}, but only {} of memory is available{}",
            what(),
            format_bytes(bytes),
            format_bytes(available),
            limit_note()
        ))),
        _ => Ok(()),
    }
}

/// " (GLP_MEMORY_LIMIT=...)" when the variable is set, for messages.
pub(crate) fn limit_note() -> String {
    std::env::var(MEMORY_LIMIT_VAR).map(|v| format!(" ({MEMORY_LIMIT_VAR}={v})")).unwrap_or_default()
}

/// `bytes` for people: `512 B`, `3.2 MB`, `48.0 GB` (powers of 1000, as disk and memory
/// sizes are usually quoted).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A size such as `123`, `64K`, `512M`, `8G` or `1T` (powers of 1024; `KB`/`KiB` spellings and
/// lower case accepted).
fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let value: u64 = text[..digits].parse().ok()?;
    let shift = match text[digits..].trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    value.checked_mul(1 << shift)
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.trim_start_matches("MemAvailable:").trim().trim_end_matches("kB").trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// Room left under this process's cgroup v2 memory limit, when it has one.
fn cgroup_room() -> Option<u64> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    // cgroup v2: the single line `0::/path`.
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let max: u64 = read("memory.max")?.trim().parse().ok()?; // `max` (no limit) does not parse
    let current: u64 = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
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

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("123"), Some(123));
        assert_eq!(parse_size("64K"), Some(64 << 10));
        assert_eq!(parse_size(" 512 MiB "), Some(512 << 20));
        assert_eq!(parse_size("8g"), Some(8 << 30));
        assert_eq!(parse_size("2T"), Some(2 << 40));
        assert_eq!(parse_size("1.5G"), None);
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("99999999999T"), None);
    }

    #[test]
    fn bytes_print_in_decimal_units() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(3_200_000), "3.2 MB");
        assert_eq!(format_bytes(48_000_000_000), "48.0 GB");
    }
}
