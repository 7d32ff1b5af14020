//! Deterministic parallel sums.
//!
//! Floating-point addition is not associative, and rayon's `sum` splits work adaptively, so
//! its result can change in the last bits from one run to the next. Metrics must print the
//! same digits every time: these helpers cut the index range into chunks of a fixed size
//! (independent of the thread count), sum each chunk sequentially, and add the chunk sums in
//! order.

use rayon::prelude::*;

/// Indices per chunk: large enough that scheduling costs little, small enough that a sum of
/// ten thousand logarithms still spreads over the threads.
const CHUNK: usize = 1 << 12;

/// `f(0) + f(1) + ... + f(len - 1)`, in parallel, with a result that depends only on `len`
/// and `f`.
pub(crate) fn deterministic_sum(len: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    let chunks = len.div_ceil(CHUNK);
    let partial: Vec<f64> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let end = ((c + 1) * CHUNK).min(len);
            (c * CHUNK..end).map(&f).sum::<f64>()
        })
        .collect();
    partial.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_integers_exactly_across_chunk_boundaries() {
        // 0 + 1 + ... + (n - 1) = n (n - 1) / 2 for a length spanning several chunks.
        let n = 3 * CHUNK + 17;
        assert_eq!(deterministic_sum(n, |i| i as f64), (n * (n - 1) / 2) as f64);
        assert_eq!(deterministic_sum(0, |_| 1.0), 0.0);
    }
}
