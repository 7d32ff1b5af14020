//! The synchronous (bulk-synchronous, double-buffered) schedule of GLP and LDBC CDLP.
//!
//! Each iteration first lets every vertex pick the label it shows (`pick_label`, reading the
//! labels the previous iteration produced), then computes every vertex's next label from
//! the shown labels only. The result does not depend on the thread count or order.

use super::tally::{PassCounts, TallyPool};
use super::variant::{LpVariant, View};
use super::{timed, IterationStats, LpOutcome, TieBreak};
use crate::graph::{Csr, VertexId};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::time::Instant;

pub(super) fn run<V: LpVariant>(csr: &Csr, variant: &V, max_iterations: u32, ties: TieBreak) -> LpOutcome {
    let n = csr.num_vertices();
    let pool = TallyPool::new(n);
    let initial = |v: usize| AtomicU32::new(variant.initial_label(v as VertexId));
    let shown: Vec<AtomicU32> = (0..n).into_par_iter().map(initial).collect();
    let next: Vec<AtomicU32> = (0..n).into_par_iter().map(initial).collect();

    let start = Instant::now();
    let mut iterations = Vec::new();
    let mut converged = false;
    for iteration in 0..max_iterations {
        let (counts, time) = timed(|| {
            let previous = View::new(csr, &next, iteration);
            shown.par_iter().enumerate().for_each(|(v, slot)| {
                let label = variant.pick_label(&previous, v as VertexId, next[v].load(Relaxed));
                slot.store(label, Relaxed);
            });
            let view = View::new(csr, &shown, iteration);
            pool.for_each_chunk(n, |tally, vertices| {
                let mut counts = PassCounts::default();
                for v in vertices {
                    let current = shown[v as usize].load(Relaxed);
                    let label = match tally.best_label(csr, variant, &view, v, ties) {
                        Some(best) => variant.update_vertex(&view, v, current, best.label, best.score),
                        None => current,
                    };
                    next[v as usize].store(label, Relaxed);
                    counts.changed += u64::from(label != current);
                    counts.processed += 1;
                }
                counts
            })
        });
        iterations.push(IterationStats {
            changed: counts.changed,
            processed: counts.processed,
            pick_less: false,
            time,
        });
        if counts.changed == 0 {
            converged = true;
            break;
        }
    }
    let elapsed = start.elapsed();
    LpOutcome { labels: next.into_iter().map(AtomicU32::into_inner).collect(), iterations, converged, elapsed }
}
