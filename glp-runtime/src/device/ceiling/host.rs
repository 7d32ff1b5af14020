//! Pinned host memory as the device sees it: the host-to-device copy rate, and zero-copy
//! reads by a kernel through the buffer's device mapping, random words and random 4 KiB
//! blocks (the rates of a graph that stays in host memory).
//!
//! The buffer is 1 GiB, far beyond any cache on the way; where the host refuses to pin that
//! much (its memory budget, the driver), half as much is tried, down to 64 MiB, and a note
//! says what was refused.

use super::{timing, HostMemory, Plan, Probe, SHAPE, THREADS};
use crate::device::KernelArgs;
use crate::error::{Error, Result};
use crate::memory::format_bytes;

/// The pinned buffer's size tried first, and the smallest tried.
const PINNED_BYTES: u64 = 1 << 30;
const PINNED_MIN_BYTES: u64 = 64 << 20;

/// A block read whole: 4 KiB (`GLP_CEILING_BLOCK_WORDS` 16-byte words in `ceiling.cu`).
const BLOCK_BYTES: u64 = 4096;

/// The sizes tried for the pinned buffer, largest first: halving from [`PINNED_BYTES`] to
/// [`PINNED_MIN_BYTES`].
pub(super) fn pinned_sizes() -> impl Iterator<Item = u64> {
    std::iter::successors(Some(PINNED_BYTES), |&b| Some(b / 2)).take_while(|&b| b >= PINNED_MIN_BYTES)
}

/// The host memory's rates, or `None` with a note when no buffer could be pinned; notes for
/// what else was not measured.
pub(super) fn measure(probe: &Probe, plan: &Plan) -> Result<(Option<HostMemory>, Vec<String>)> {
    let gpu = probe.gpu;
    let mut notes = Vec::new();
    let mut refused = None;
    let pinned = pinned_sizes().find_map(|bytes| {
        match gpu.alloc_pinned::<u32>("the probe's host buffer", (bytes / 4) as usize) {
            Ok(buffer) => Some(buffer),
            Err(e) => {
                refused = Some(e);
                None
            }
        }
    });
    let Some(pinned) = pinned else {
        let why = refused.map(|e| e.to_string()).unwrap_or_default();
        notes.push(format!(
            "pinned host memory not measured: the host refused to pin {} or less down to {}: {why}",
            format_bytes(PINNED_BYTES),
            format_bytes(PINNED_MIN_BYTES)
        ));
        return Ok((None, notes));
    };
    if pinned.bytes() < PINNED_BYTES {
        notes.push(format!(
            "pinned host memory: {} pinned, the host refused {}",
            format_bytes(pinned.bytes()),
            format_bytes(pinned.bytes() * 2)
        ));
    }
    let copy_bytes_per_s = match gpu.alloc_zeros::<u32>("the probe's copy of the host buffer", pinned.len()) {
        Ok(mut copy) => {
            gpu.write_pinned(&mut copy, &pinned)?;
            let mut best = f64::INFINITY;
            for _ in 0..plan.repeats {
                let start = gpu.record()?;
                gpu.write_pinned(&mut copy, &pinned)?;
                let end = gpu.record()?;
                best = best.min(gpu.elapsed_ms(&start, &end)?);
            }
            Some(pinned.bytes() as f64 / (best.max(1e-6) * 1e-3))
        }
        Err(e @ Error::GpuOutOfMemory { .. }) => {
            notes.push(format!("host-to-device copy not measured: {e}"));
            None
        }
        Err(e) => return Err(e),
    };
    let words = u32::try_from(pinned.len()).map_err(|_| Error::Gpu("the pinned buffer exceeds 2^32 words".into()))?;
    let random_reads_per_s = probe.reads(&probe.gather, pinned.device_ptr(), words, 1, plan)?;
    let blocks = (pinned.bytes() / BLOCK_BYTES) as u32;
    let warps = THREADS / 32;
    let block_bytes_per_s = timing::per_second(gpu, plan.target_ms, plan.repeats, warps * BLOCK_BYTES, |steps| {
        let args = KernelArgs::new().value(pinned.device_ptr()).value(blocks).value(steps).buffer(&probe.sink);
        gpu.launch(&probe.blocks, SHAPE, &args)
    })?;
    Ok((
        Some(HostMemory { pinned_bytes: pinned.bytes(), copy_bytes_per_s, random_reads_per_s, block_bytes_per_s }),
        notes,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_sizes_halve_from_a_gib_to_64_mib() {
        let mib = 1 << 20;
        assert_eq!(pinned_sizes().collect::<Vec<_>>(), [1024 * mib, 512 * mib, 256 * mib, 128 * mib, 64 * mib]);
    }
}
