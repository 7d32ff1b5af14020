//! The sketch strategies on the GPU (`--mfl mg2 .. mg32`, `mg` = `mg8`, `bm`): each vertex's
//! neighbour labels go through a weighted Misra-Gries sketch of k slots or a weighted
//! Boyer-Moore vote held in registers, so the strategy needs no table: its extra memory is the
//! two degree-class vertex lists (4 bytes per vertex). The kernels, the rules and why they
//! equal the CPU twins ([`crate::lp::sketch`]) bit for bit under the synchronous schedule:
//! glp-codegen's `lp_kernels/sketch_kernels.cuh`.
//!
//! Degree classes: below [`SKETCH_HIGH_DEGREE`] neighbours a tile of k lanes per vertex
//! (a thread for Boyer-Moore) in blocks of 32 threads; from there a block of 256 threads per
//! vertex whose partial sketches are merged in a fixed order.
//!
//! Sketches estimate the weighted count of a label, so they serve only variants whose
//! `label_score` is `freq` ([`crate::lp::sketch::check_eligible`], checked by `run_gpu`).

use super::sort::VertexList;
use super::SweepLaunch;
use crate::device::{Gpu, Kernel, Module, Shape};
use crate::error::Result;
use crate::graph::{Csr, VertexId};
use crate::lp::sketch::Sketch;
use glp_codegen::lp_kernels::sketch::{
    sketch_kernel_names, SKETCH_HIGH_DEGREE, SKETCH_HIGH_THREADS, SKETCH_LOW_THREADS,
};

/// Which sketch kernel serves which vertex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SketchPlan {
    /// The sketch.
    pub sketch: Sketch,
    /// Degree below [`SKETCH_HIGH_DEGREE`]: a tile per vertex.
    pub low: Vec<VertexId>,
    /// The others: a block per vertex.
    pub high: Vec<VertexId>,
}

impl SketchPlan {
    /// The plan of `sketch` for `csr`.
    pub fn new(csr: &Csr, sketch: Sketch) -> SketchPlan {
        let (high, low) =
            (0..csr.num_vertices() as VertexId).partition(|&v| csr.degree(v) as u64 >= SKETCH_HIGH_DEGREE);
        SketchPlan { sketch, low, high }
    }
}

/// The strategy's device buffers: the class lists.
pub(super) struct SketchState {
    sketch: Sketch,
    low: VertexList,
    high: VertexList,
}

impl SketchState {
    pub(super) fn upload(gpu: &Gpu, plan: &SketchPlan) -> Result<SketchState> {
        Ok(SketchState {
            sketch: plan.sketch,
            low: VertexList::upload(gpu, &plan.low)?,
            high: VertexList::upload(gpu, &plan.high)?,
        })
    }
}

/// The low- and high-degree kernels of every sketch (in the MFL module).
pub(super) struct SketchKernels {
    kernels: Vec<(Sketch, Kernel, Kernel)>,
}

impl SketchKernels {
    pub(super) fn load(module: &Module) -> Result<SketchKernels> {
        let kernels = Sketch::ALL
            .into_iter()
            .map(|s| {
                let [low, high] = sketch_kernel_names(s.slots());
                Ok((s, module.kernel(&low)?, module.kernel(&high)?))
            })
            .collect::<Result<_>>()?;
        Ok(SketchKernels { kernels })
    }

    /// One sweep: every vertex's label from its sketch, written through `sweep` and counted.
    pub(super) fn propagate(&self, launch: &SweepLaunch<'_>, state: &SketchState) -> Result<()> {
        let gpu = launch.gpu;
        let (_, low, high) = self
            .kernels
            .iter()
            .find(|(s, _, _)| *s == state.sketch)
            .ok_or_else(|| crate::Error::invalid(format!("no kernels for the sketch {}", state.sketch.name())))?;
        // glp_lp_sketch_{low,high}_<suffix>(params, view, vertices, count, sweep)
        let args = |l: &VertexList| launch.class_args(&l.vertices, 0..l.count as usize).value(launch.sweep);
        if state.low.count > 0 {
            let lanes = u64::from(state.low.count) * u64::from(state.sketch.slots());
            gpu.launch(low, Shape::covering(lanes, SKETCH_LOW_THREADS)?, &args(&state.low))?;
        }
        if state.high.count > 0 {
            let threads = u64::from(state.high.count) * u64::from(SKETCH_HIGH_THREADS);
            gpu.launch(high, Shape::covering(threads, SKETCH_HIGH_THREADS)?, &args(&state.high))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_split_at_the_high_degree_bound() {
        // Vertex i has degree degrees[i] (all edges to vertex 0).
        let degrees = [0u64, 1, 127, 128, 129, 5000];
        let mut offsets = vec![0u64];
        for d in degrees {
            offsets.push(offsets.last().unwrap() + d);
        }
        let csr = Csr::new(offsets.clone(), vec![0; *offsets.last().unwrap() as usize], None).unwrap();
        let plan = SketchPlan::new(&csr, Sketch::BoyerMoore);
        assert_eq!(plan.low, vec![0, 1, 2]);
        assert_eq!(plan.high, vec![3, 4, 5]);
    }
}
