//! The synchronous (bulk-synchronous) schedule of GLP and LDBC CDLP.
//!
//! Three label arrays: `previous` (the labels the last iteration produced, GLP's `Lnext`,
//! read by [`View::next_label`]), `shown` (GLP's `L`, read by [`View::label`]) and `output`.
//! Each iteration resets the histogram (when the run has one), lets every vertex pick the
//! label it shows (only with a custom `pick_label`; otherwise `shown` is `previous` itself and
//! nothing is copied), then computes every vertex's next label from the shown labels into
//! `output`, which becomes `previous` for the next iteration. The result does not depend on
//! the thread count or order. The run stops when an iteration changes no label (output equal
//! to previous) or at the cap; runs with label memory or random numbers always go to the cap
//! (their state is not only the labels).

use super::sketch::Sketch;
use super::tally::{PassCounts, TallyPool};
use super::variant::{LpVariant, View};
use super::view::Facilities;
use super::{timed, IterationStats, LpInputs, LpOutcome, TieBreak};
use crate::community::UNLABELLED;
use crate::error::Result;
use crate::graph::{Csr, VertexId};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::time::Instant;

pub(super) fn run<V: LpVariant>(
    csr: &Csr,
    variant: &V,
    max_iterations: u32,
    ties: TieBreak,
    facilities: &Facilities<'_>,
    sketch: Option<Sketch>,
    inputs: &LpInputs<'_>,
) -> Result<LpOutcome> {
    let n = csr.num_vertices();
    let custom_pick = facilities.features().custom_pick_label;
    let may_stop = labels_are_the_state(facilities);
    let pool = TallyPool::new(n, sketch);
    let mut previous = initial_labels(csr, variant, facilities)?;
    let mut output: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(UNLABELLED)).collect();
    let shown: Vec<AtomicU32> =
        if custom_pick { (0..n).into_par_iter().map(|_| AtomicU32::new(UNLABELLED)).collect() } else { Vec::new() };

    let start = Instant::now();
    let mut iterations = Vec::new();
    let mut converged = false;
    for iteration in 0..max_iterations {
        let (counts, time) = timed(|| {
            facilities.reset_histogram();
            let shown: &[AtomicU32] = if custom_pick {
                let view = View::new(csr, &shown, &previous, iteration, facilities);
                shown.par_iter().enumerate().for_each(|(v, slot)| {
                    slot.store(variant.pick_label(&view, v as VertexId), Relaxed);
                });
                &shown
            } else {
                &previous
            };
            let view = View::new(csr, shown, &previous, iteration, facilities);
            pool.for_each_chunk(n, |tally, vertices| {
                let mut counts = PassCounts::default();
                for v in vertices {
                    let before = previous[v as usize].load(Relaxed);
                    let label = match tally.best_label(csr, variant, &view, v, ties) {
                        Some(best) => variant.update_vertex(&view, v, best.label, best.score),
                        None => before,
                    };
                    output[v as usize].store(label, Relaxed);
                    counts.changed += u64::from(label != before);
                    counts.processed += 1;
                }
                counts
            })
        });
        std::mem::swap(&mut previous, &mut output);
        let stats = IterationStats { changed: counts.changed, processed: counts.processed, pick_less: false, time };
        inputs.observe(iteration, &stats)?;
        iterations.push(stats);
        if let Some(error) = variant.failure() {
            return Err(error);
        }
        if may_stop && counts.changed == 0 {
            converged = true;
            break;
        }
    }
    let elapsed = start.elapsed();
    let labels = previous.into_iter().map(AtomicU32::into_inner).collect();
    Ok(LpOutcome { labels, memberships: None, iterations, converged, elapsed })
}

/// Whether the labels are the whole state of a run, so that an iteration that changes no
/// label means the next one would not either. Not so with label memory (memories keep
/// evolving while labels stand still) or random numbers (the next draws differ): such runs go
/// to the iteration cap, as the GLP paper runs SLP (20 iterations).
pub(super) fn labels_are_the_state(facilities: &Facilities<'_>) -> bool {
    let features = facilities.features();
    !features.label_memory && !features.random
}

/// Every vertex's `initial_label`, computed once (the hook may set up the vertex's own
/// facilities, so it must not run twice). The view shows [`UNLABELLED`] everywhere. Fails
/// with the variant's [`LpVariant::failure`].
pub(super) fn initial_labels<V: LpVariant>(
    csr: &Csr,
    variant: &V,
    facilities: &Facilities<'_>,
) -> Result<Vec<AtomicU32>> {
    let n = csr.num_vertices();
    let labels: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(UNLABELLED)).collect();
    let view = View::new(csr, &labels, &labels, 0, facilities);
    let initial = (0..n as VertexId).into_par_iter().map(|v| AtomicU32::new(variant.initial_label(&view, v))).collect();
    match variant.failure() {
        Some(error) => Err(error),
        None => Ok(initial),
    }
}
