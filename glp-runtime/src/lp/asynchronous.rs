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
//! With one label array, `label(u) == next_label(u)`. A custom `pick_label` runs over all
//! vertices at the start of each iteration (after the histogram reset), before the in-place
//! sweep: its result replaces the vertex's label, a vertex whose label it changes marks its
//! neighbours affected, and a histogram it builds is the one of the iteration start, which
//! the sweep then keeps in step with its moves (a vertex moving from `a` to `b` takes one
//! from `a`'s count and adds one to `b`'s; [`View::global_count`]). Picks are not counted as
//! changes for the tolerance. Runs
//! with label memory or random numbers ignore the tolerance and go to the cap (their state is
//! not only the labels).

use super::sketch::Sketch;
use super::synchronous::{initial_labels, labels_are_the_state};
use super::tally::{PassCounts, TallyPool};
use super::variant::{LpVariant, View};
use super::view::Facilities;
use super::{timed, IterationStats, LpConfig, LpInputs, LpOutcome};
use crate::error::Result;
use crate::graph::{Csr, VertexId};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

#[allow(clippy::too_many_arguments)] // the schedule's parameters, unpacked by the caller
pub(super) fn run<V: LpVariant>(
    csr: &Csr,
    variant: &V,
    config: &LpConfig,
    pick_less_every: u32,
    tolerance: f64,
    facilities: &Facilities<'_>,
    sketch: Option<Sketch>,
    inputs: &LpInputs<'_>,
) -> Result<LpOutcome> {
    let n = csr.num_vertices();
    let custom_pick = facilities.features().custom_pick_label;
    let may_stop = labels_are_the_state(facilities);
    let pool = TallyPool::new(n, sketch);
    let labels = initial_labels(csr, variant, facilities)?;
    let affected: Vec<AtomicBool> = (0..n).into_par_iter().map(|_| AtomicBool::new(true)).collect();

    let start = Instant::now();
    let mut iterations = Vec::new();
    let mut converged = false;
    for iteration in 0..config.max_iterations {
        let pick_less = pick_less_every != 0 && iteration % pick_less_every == 0;
        let view = View::new(csr, &labels, &labels, iteration, facilities);
        let (counts, time) = timed(|| {
            facilities.reset_histogram();
            if custom_pick {
                (0..n as VertexId).into_par_iter().for_each(|v| {
                    let picked = variant.pick_label(&view, v);
                    if labels[v as usize].swap(picked, Relaxed) != picked {
                        for &u in csr.neighbors(v) {
                            affected[u as usize].store(true, Relaxed);
                        }
                    }
                });
            }
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
                    let label = variant.update_vertex(&view, v, best.label, best.score);
                    if label != current && (!pick_less || label < current) {
                        labels[v as usize].store(label, Relaxed);
                        facilities.move_in_histogram(current, label);
                        counts.changed += 1;
                        for &u in csr.neighbors(v) {
                            affected[u as usize].store(true, Relaxed);
                        }
                    }
                }
                counts
            })
        });
        let stats = IterationStats { changed: counts.changed, processed: counts.processed, pick_less, time };
        inputs.observe(iteration, &stats)?;
        iterations.push(stats);
        if let Some(error) = variant.failure() {
            return Err(error);
        }
        if may_stop && !pick_less && counts.changed as f64 <= tolerance * n as f64 {
            converged = true;
            break;
        }
    }
    let elapsed = start.elapsed();
    let labels = labels.into_iter().map(|l| l.into_inner()).collect();
    Ok(LpOutcome { labels, memberships: None, iterations, converged, elapsed })
}
