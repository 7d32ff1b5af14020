//! Waves of an asynchronous sweep: a sweep over the vertices in several launches, one after
//! the other, so that each wave sees the labels and the label counts of the waves before it.
//!
//! A CPU sweep is nearly sequential: a few threads, each walking its chunk in vertex order,
//! so a vertex sees almost every move made before it. A GPU runs a whole graph of a few
//! hundred thousand vertices at once, so all of them decide from the labels and counts of
//! the sweep's start. Label counts couple every vertex of a label, not only neighbours: with
//! a score that reads the global histogram (LLP), many vertices join a small label at once,
//! then all leave it at once, and the sweep never settles. Measured on an H100 with LLP
//! (gamma 8 and 64, hashed ties): football (115 vertices) and a 20k-vertex planted partition
//! hit the 20-sweep cap in one wave and settle in 4-5 sweeps in 4 to 20 waves; com-DBLP,
//! LFR 50k and a 2M-vertex planted graph settle in any case. Scores that read only the
//! neighbourhood (classic, weighted, seeded) settle in one wave, so only runs with the
//! histogram sweep in [`HISTOGRAM_WAVES`] waves.
//!
//! Waves split the vertex ids into consecutive ranges (the order of the CPU's chunks). Class
//! lists are sorted by vertex id, so a wave launches a contiguous part of each list
//! ([`wave_part`]); kernels also check that a vertex they claim belongs to the wave, which
//! covers the strategies whose launches span all vertices and the deferred list of the
//! high class, which grows wave by wave.

use crate::graph::VertexId;
use glp_codegen::kinds::lp::LpFeatures;
use std::ops::Range;

/// Waves of an asynchronous sweep whose scores may read the label histogram: at most 1/16 of
/// the vertices decide from stale counts at once (4 waves sufficed on football and 20 on the
/// 20k planted graph, 3 did not; see the module docs).
pub const HISTOGRAM_WAVES: u64 = 16;

/// Vertices per wave of a sweep over `n` vertices (0: one wave, no split).
pub fn wave_size(n: usize, asynchronous: bool, features: LpFeatures) -> u32 {
    if !asynchronous || !features.histogram || n == 0 {
        return 0;
    }
    // n < 2^32 on the GPU, so the size fits.
    (n as u64).div_ceil(HISTOGRAM_WAVES) as u32
}

/// How many waves of `wave_size` vertices cover `n` vertices (1 without a split).
pub fn waves(n: usize, wave_size: u32) -> u32 {
    if wave_size == 0 {
        1
    } else {
        (n as u64).div_ceil(u64::from(wave_size)) as u32
    }
}

/// The positions of the id-sorted class list `list` whose vertices belong to wave `wave` of
/// `wave_size` vertices (all of them when `wave_size` is 0).
pub fn wave_part(list: &[VertexId], wave_size: u32, wave: u32) -> Range<usize> {
    if wave_size == 0 {
        return 0..list.len();
    }
    debug_assert!(list.is_sorted(), "class lists are sorted by vertex id");
    let first = u64::from(wave) * u64::from(wave_size);
    let end = first + u64::from(wave_size);
    list.partition_point(|&v| u64::from(v) < first)..list.partition_point(|&v| u64::from(v) < end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram() -> LpFeatures {
        LpFeatures { histogram: true, ..LpFeatures::default() }
    }

    #[test]
    fn only_asynchronous_runs_with_the_histogram_split_their_sweeps() {
        assert_eq!(wave_size(1000, true, histogram()), 63);
        assert_eq!(waves(1000, 63), 16);
        assert_eq!(wave_size(1000, false, histogram()), 0);
        assert_eq!(wave_size(1000, true, LpFeatures::default()), 0);
        assert_eq!(waves(1000, 0), 1);
        // Fewer vertices than waves: one vertex per wave.
        assert_eq!(wave_size(5, true, histogram()), 1);
        assert_eq!(waves(5, 1), 5);
        assert_eq!(wave_size(0, true, histogram()), 0);
    }

    #[test]
    fn the_parts_of_the_waves_cover_a_list_once_in_order() {
        let list: Vec<VertexId> = vec![0, 3, 4, 9, 10, 11, 25, 26, 40];
        let size = 10;
        let parts: Vec<Range<usize>> = (0..waves(41, size)).map(|w| wave_part(&list, size, w)).collect();
        assert_eq!(parts, vec![0..4, 4..6, 6..8, 8..8, 8..9]);
        for (w, part) in parts.iter().enumerate() {
            assert!(list[part.clone()].iter().all(|&v| v / size == w as u32));
        }
        assert_eq!(wave_part(&list, 0, 0), 0..list.len());
        assert_eq!(wave_part(&[], 10, 3), 0..0);
    }
}
