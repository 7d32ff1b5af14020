//! Software prefetches of the CPU engines: a sampling step is a chain of dependent reads (a
//! transit's row offsets, then a neighbour), and an engine that knows several steps' transits
//! and random words ahead of the hook calls asks the core for their lines early, so that the
//! misses of many steps overlap. A prefetch never changes a result, only when it is ready.

use crate::graph::{Csr, VertexId};
use crate::random::Stream;

/// Prefetches the edges of `t` a hook is likely to read first: a uniform draw among the row
/// (`random_below(degree)`, Lemire's method, whose first attempt is accepted but for a
/// fraction degree / 2^32) from the first word of the step's stream (DeepWalk, node2vec) or
/// from the third (after a termination test's `random_f64`, PPR). A prefetch has no effect but
/// on timing: a hook that reads otherwise gets the same values. The engines prefetch the
/// row's offsets some time before.
#[inline]
pub(super) fn prefetch_predicted_edges(csr: &Csr, t: VertexId, stream: &Stream) {
    let Some((start, end)) = row_bounds(csr, t) else { return };
    let degree = end - start;
    for k in [0, 2] {
        if let Some(word) = stream.peek(k) {
            let predicted = (u64::from(word) * degree) >> 32;
            prefetch(csr.targets(), (start + predicted) as usize);
        }
    }
}

/// Prefetches the first and the last line of `t`'s row (a row of up to 16 edges lies in at
/// most two lines): the edges a draw from `t` reads whatever its random words, once the row's
/// offsets are in the cache (the engines prefetch them a pass before).
#[inline]
pub(super) fn prefetch_row(csr: &Csr, t: VertexId) {
    if let Some((start, end)) = row_bounds(csr, t).filter(|(start, end)| end > start) {
        prefetch(csr.targets(), start as usize);
        prefetch(csr.targets(), (end - 1) as usize);
    }
}

/// Whether `row` lies in at most two cache lines: [`prefetch_row`] then fetches all of it, and
/// a prefetch of the edges a draw is predicted to read (its cost: the lane's random block
/// looked up again, the row's offsets, a multiplication) only repeats it. On com-DBLP (a row
/// of 6.6 edges on average) k-hop 25,10 spent a seventh of its time on those repeats.
#[inline]
pub(super) fn lies_in_two_lines(row: &[VertexId]) -> bool {
    const LINE: usize = 64;
    let Some(last) = row.last() else { return true };
    (last as *const VertexId as usize) / LINE - (row.as_ptr() as usize) / LINE < 2
}

/// `t`'s row as a range of edge offsets (`None` for a vertex past the graph).
#[inline]
fn row_bounds(csr: &Csr, t: VertexId) -> Option<(u64, u64)> {
    let offsets = csr.offsets();
    let t = t as usize;
    Some((*offsets.get(t)?, *offsets.get(t + 1)?))
}

/// Asks the core to fetch `values[i]` into its cache (nothing when `i` is past the end).
#[inline]
pub(super) fn prefetch<T>(values: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(value) = values.get(i) {
        // SAFETY: a prefetch reads nothing architecturally and cannot fault; the address is
        // that of a live element of `values`.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(value as *const T as *const i8)
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (values, i);
}
