//! The asynchronous schedule of nu-LPA / GVE-LPA.
//!
//! Labels are updated in place, so a vertex sees the labels its neighbours already took in
//! this iteration (faster convergence, nondeterministic with several threads). A vertex is
//! processed only while "affected": all vertices are at the start, and a vertex that changes
//! label marks its neighbours. Iterations with `iteration % pick_less_every == 0` (the first
//! included) are Pick-Less: a vertex may only move to a smaller label, which breaks the
//! label swaps between neighbours that otherwise stall convergence. The run stops after a
//! non-Pick-Less iteration that changed at most `tolerance * n` vertices, or at the cap.
//!
//! `pick_label` is not called: with one label array there is no previous buffer to pick from.

use super::tally::{PassCounts, TallyPool};
use super::variant::{LpVariant, View};
use super::{timed, IterationStats, LpConfig, LpOutcome};
use crate::graph::{Csr, VertexId};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::time::Instant;

pub(super) fn run<V: LpVariant>(
    csr: &Csr,
    variant: &V,
    config: &LpConfig,
    pick_less_every: u32,
    tolerance: f64,
) -> LpOutcome {
    let n = csr.num_vertices();
    let pool = TallyPool::new(n);
    let labels: Vec<AtomicU32> =
        (0..n).into_par_iter().map(|v| AtomicU32::new(variant.initial_label(v as VertexId))).collect();
    let affected: Vec<AtomicBool> = (0..n).into_par_iter().map(|_| AtomicBool::new(true)).collect();

    let start = Instant::now();
    let mut iterations = Vec::new();
    let mut converged = false;
    for iteration in 0..config.max_iterations {
        let pick_less = pick_less_every != 0 && iteration % pick_less_every == 0;
        let view = View::new(csr, &labels, iteration);
        let (counts, time) = timed(|| {
            pool.for_each_chunk(n, |tally, vertices| {
                let mut counts = PassCounts::default();
                for v in vertices {
                    if !affected[v as usize].load(Relaxed) {
                        continue;
                    }
                    affected[v as usize].store(false, Relaxed);
                    counts.processed += 1;
                    let Some(best) = tally.best_label(csr, variant, &view, v, config.ties) else { continue };
                    let current = labels[v as usize].load(Relaxed);
                    let label = variant.update_vertex(&view, v, current, best.label, best.score);
                    if label != current && (!pick_less || label < current) {
                        labels[v as usize].store(label, Relaxed);
                        counts.changed += 1;
                        for &u in csr.neighbors(v) {
                            affected[u as usize].store(true, Relaxed);
                        }
                    }
                }
                counts
            })
        });
        iterations.push(IterationStats { changed: counts.changed, processed: counts.processed, pick_less, time });
        if !pick_less && counts.changed as f64 <= tolerance * n as f64 {
            converged = true;
            break;
        }
    }
    let elapsed = start.elapsed();
    LpOutcome { labels: labels.into_iter().map(AtomicU32::into_inner).collect(), iterations, converged, elapsed }
}
