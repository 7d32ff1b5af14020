//! Which engine runs each step ([`Plan`]): what `--engine` asked for, and `auto`'s choice from
//! cheap statistics of each step, known before it runs: how many entries (sample, transit)
//! the step has, how many vertices they can fall on, and whether the graph stays in L2.
//!
//! The transit-parallel step pays for its scheduling index (a histogram, a scan over every
//! vertex, a scatter, a classification, one host round trip) and wins back by sharing a
//! transit's row among its entries: a row read once into shared memory or L1 instead of once
//! per draw. That pays only when entries crowd onto few transits and the rows are not in L2
//! already; walks (one transit per walker) never share enough.

use super::steps::StepEngine;
use super::GpuEngine;
use crate::sample::sampler::ALL_NEIGHBOURS;
use crate::sample::schedule::Schedule;

/// Entries per vertex with an edge, on average, from which a step goes transit-parallel.
/// Measured with `glp bench sample --engine sp,tp` on an H100 (R-MAT 22, k-hop 25,10): at 42
/// and 104 entries per vertex (4M and 10M samples) the transit-parallel second step took 2.6
/// and 2.4 times the whole sample-parallel run's second step (its scheduling index 27-41% of
/// it, the draws' scattered slot writes most of the rest); walks lose 60 times. No benchmark
/// app comes near this bound, so `auto` runs them sample-parallel; beyond it, where a few
/// hubs carry every sample, the shared-memory rows are the better bet.
pub(super) const TRANSIT_SHARING: f64 = 1024.0;

/// How a run's steps execute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Plan {
    /// Every step sample-parallel, in one launch per batch (the walk kernel for walks).
    Fused,
    /// One step at a time, each on its engine.
    Steps(Vec<StepEngine>),
}

/// What the choice reads about the graph.
#[derive(Debug, Clone, Copy)]
pub(super) struct GraphStats {
    /// Vertices with at least one edge.
    pub active_vertices: u64,
    /// Edges per vertex with an edge, on average.
    pub mean_degree: f64,
    /// Whether the graph's arrays fit in the device's L2 cache.
    pub fits_l2: bool,
}

/// The plan for `engine` over `samples` samples of at most `roots` roots each.
pub(super) fn plan(engine: GpuEngine, schedule: &Schedule, samples: u64, roots: u64, graph: GraphStats) -> Plan {
    let steps = schedule.sizes.len();
    match engine {
        GpuEngine::SampleParallel => Plan::Fused,
        // Collective steps draw from each sample's own combined neighbourhood: no transit is
        // shared, and they stay sample-parallel.
        GpuEngine::TransitParallel if schedule.collective => Plan::Steps(vec![StepEngine::Sample; steps]),
        GpuEngine::TransitParallel => Plan::Steps(vec![StepEngine::Transit; steps]),
        GpuEngine::Auto => {
            let engines = auto_steps(schedule, samples, roots, graph);
            if engines.iter().all(|&e| e == StepEngine::Sample) {
                Plan::Fused
            } else {
                Plan::Steps(engines)
            }
        }
    }
}

/// `auto`'s engine for each step: transit-parallel where the step's expected entries per
/// active vertex reach [`TRANSIT_SHARING`] on a graph larger than L2.
fn auto_steps(schedule: &Schedule, samples: u64, roots: u64, graph: GraphStats) -> Vec<StepEngine> {
    let sample_parallel = vec![StepEngine::Sample; schedule.sizes.len()];
    if schedule.collective || graph.fits_l2 || graph.active_vertices == 0 {
        return sample_parallel;
    }
    let mut transits = roots as f64; // per sample, expected
    schedule
        .sizes
        .iter()
        .map(|&size| {
            let entries = samples as f64 * transits;
            let engine = if entries / graph.active_vertices as f64 >= TRANSIT_SHARING {
                StepEngine::Transit
            } else {
                StepEngine::Sample
            };
            let draws = if size == ALL_NEIGHBOURS { graph.mean_degree } else { f64::from(size) };
            transits = if schedule.replace { roots as f64 } else { transits * draws };
            engine
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(sizes: Vec<u32>, replace: bool) -> Schedule {
        Schedule::of_sizes(&sizes, false, replace)
    }

    const LARGE: GraphStats = GraphStats { active_vertices: 1_000_000, mean_degree: 30.0, fits_l2: false };

    #[test]
    fn walks_stay_sample_parallel_and_fuse() {
        // One walker per vertex: one entry per vertex at every step.
        let walk = schedule(vec![1; 80], true);
        assert_eq!(plan(GpuEngine::Auto, &walk, 1_000_000, 1, LARGE), Plan::Fused);
    }

    #[test]
    fn k_hop_goes_transit_parallel_where_its_fan_out_crowds_the_transits() {
        // 50M samples on 1M vertices: step 0 has 50 entries per vertex, step 1 has 1250.
        let k_hop = schedule(vec![25, 10], false);
        let expected = Plan::Steps(vec![StepEngine::Sample, StepEngine::Transit]);
        assert_eq!(plan(GpuEngine::Auto, &k_hop, 50_000_000, 1, LARGE), expected);
        // The same on a graph held in L2: the rows are cached already.
        let small = GraphStats { fits_l2: true, ..LARGE };
        assert_eq!(plan(GpuEngine::Auto, &k_hop, 50_000_000, 1, small), Plan::Fused);
        // A sample per vertex (the benchmark's k-hop) stays sample-parallel: 25 per vertex.
        assert_eq!(plan(GpuEngine::Auto, &k_hop, 1_000_000, 1, LARGE), Plan::Fused);
    }

    #[test]
    fn the_asked_engine_is_obeyed_and_collective_steps_stay_sample_parallel() {
        let k_hop = schedule(vec![25, 10], false);
        assert_eq!(plan(GpuEngine::SampleParallel, &k_hop, 1_000_000, 1, LARGE), Plan::Fused);
        assert_eq!(plan(GpuEngine::TransitParallel, &k_hop, 1, 1, LARGE), Plan::Steps(vec![StepEngine::Transit; 2]));
        let layer = Schedule { collective: true, ..k_hop };
        assert_eq!(plan(GpuEngine::TransitParallel, &layer, 1, 1, LARGE), Plan::Steps(vec![StepEngine::Sample; 2]));
        assert_eq!(plan(GpuEngine::Auto, &layer, 1_000_000, 1, LARGE), Plan::Fused);
    }
}
