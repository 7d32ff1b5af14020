//! The CPU reference engine: synchronous iterations on rayon, each vertex pulling its
//! messages row by row.
//!
//! An iteration reads the values of the previous one only (a vertex's new value never feeds
//! another's in the same iteration), every vertex combines its messages in the order of its
//! rows (in-edges by ascending source, then out-edges by ascending target), and the sum
//! `view.aggregated()` adds fixed blocks of vertices in vertex order: the values are the
//! same on every thread count, sums included. With a frontier, a vertex that receives no
//! message keeps its value (`apply` is not called: Pregel's halted vertex), so that an engine
//! applies only the vertices its messages reached.

use super::{Combinable, EdgeGraph, EdgeProgram, EdgeView, BOTH, IN, OUT, SUM};
use crate::error::{Error, Result};
use crate::graph::{Csr, VertexId};
use rayon::prelude::*;

/// What a run needs besides the program and the graph.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EdgeConfig {
    /// The source vertex `view.source()` gives (dense id), if any.
    pub source: Option<VertexId>,
    /// The most iterations, in place of the program's [`EdgeProgram::iterations`].
    pub iterations: Option<u32>,
}

/// A run's result.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeOutcome<V> {
    /// Each vertex's value, by dense id.
    pub values: Vec<V>,
    /// The iterations run.
    pub iterations: u32,
    /// Whether the last iteration changed no vertex (else the run stopped at its limit).
    pub converged: bool,
}

/// One finished iteration, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IterationReport {
    /// The iteration, from 0.
    pub iteration: u32,
    /// The vertices whose value changed in it.
    pub changed: u64,
    /// How it ran: `cpu` (the CPU engine), `edges` (the edge-centric engine), `push` or
    /// `pull` (the frontier engine).
    pub step: &'static str,
}

/// Vertices per block of the `aggregate` sum: the blocks are summed in parallel, then in
/// order, so the sum does not depend on the thread count.
const AGGREGATE_BLOCK: usize = 4096;

/// Runs `program` on `graph` (see the module docs); `observer` sees each iteration as it ends.
///
/// Errors: a schedule hook out of its range (`combine`, `direction`), a weighted program on
/// a graph without weights, a source that is not a vertex, or a hook's failure
/// ([`EdgeProgram::failure`]).
pub fn run<P: EdgeProgram + ?Sized>(
    program: &P,
    graph: &EdgeGraph<'_>,
    config: &EdgeConfig,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<EdgeOutcome<P::Value>> {
    let schedule = Schedule::of(program, graph, config)?;
    let n = graph.num_vertices();
    let start = EdgeView::new(graph, config.source);
    let mut values: Vec<P::Value> = (0..n as VertexId).into_par_iter().map(|v| program.init(&start, v)).collect();
    check(program)?;
    let mut active: Vec<bool> = if schedule.frontier { vec![true; n] } else { Vec::new() };
    let mut iteration = 0;
    while iteration < schedule.limit {
        let aggregated = aggregate(program, &start, &values);
        let view = start.at(iteration, aggregated);
        let step = Step { program, graph, view, schedule: &schedule, values: &values, active: &active };
        let (next, changed): (Vec<P::Value>, Vec<bool>) =
            (0..n as VertexId).into_par_iter().map(|v| step.vertex(v)).unzip();
        check(program)?;
        let count = changed.par_iter().filter(|&&c| c).count() as u64;
        values = next;
        if schedule.frontier {
            active = changed;
        }
        observer(&IterationReport { iteration, changed: count, step: "cpu" });
        iteration += 1;
        if count == 0 {
            return Ok(EdgeOutcome { values, iterations: iteration, converged: true });
        }
    }
    Ok(EdgeOutcome { values, iterations: iteration, converged: false })
}

/// The program's schedule hooks, checked (every engine's).
pub(super) struct Schedule<M> {
    pub combine: u32,
    pub direction: u32,
    pub frontier: bool,
    pub limit: u32,
    pub identity: M,
}

impl<M> Schedule<M> {
    pub(super) fn of<P: EdgeProgram<Message = M> + ?Sized>(
        program: &P,
        graph: &EdgeGraph<'_>,
        config: &EdgeConfig,
    ) -> Result<Self> {
        let name = program.name();
        let combine = program.combine();
        let direction = program.direction();
        let weighted = program.weighted();
        let (frontier, limit, identity) = (program.frontier(), program.iterations(), program.identity());
        check(program)?;
        if combine > SUM {
            return Err(Error::invalid(format!(
                "`{name}`: `combine` returned {combine}; expected MIN ({}), MAX ({}) or SUM ({SUM})",
                super::MIN,
                super::MAX
            )));
        }
        if direction > BOTH {
            return Err(Error::invalid(format!(
                "`{name}`: `direction` returned {direction}; expected OUT ({OUT}), IN ({IN}) or BOTH ({BOTH})"
            )));
        }
        if weighted && !graph.out_edges().is_weighted() {
            return Err(Error::invalid(format!(
                "`{name}` reads edge weights, and the graph has none (give a weighted edge list: `source target weight`)"
            )));
        }
        if limit == 0 && config.iterations.is_none() {
            return Err(Error::invalid(format!(
                "`{name}`: `iterations` returned 0; a run makes at least one iteration"
            )));
        }
        if let Some(source) = config.source.filter(|&s| s as usize >= graph.num_vertices()) {
            return Err(Error::invalid(format!(
                "source vertex {source} is not a vertex of the graph ({} vertices)",
                graph.num_vertices()
            )));
        }
        Ok(Schedule { combine, direction, frontier, limit: config.iterations.unwrap_or(limit), identity })
    }
}

/// The program's failure, if a hook recorded one.
pub(super) fn check<P: EdgeProgram + ?Sized>(program: &P) -> Result<()> {
    program.failure().map_or(Ok(()), Err)
}

/// The sum of `aggregate` over every vertex, in fixed blocks summed in order.
fn aggregate<P: EdgeProgram + ?Sized>(program: &P, view: &EdgeView<'_>, values: &[P::Value]) -> f64 {
    let blocks: Vec<f64> = values
        .par_chunks(AGGREGATE_BLOCK)
        .enumerate()
        .map(|(block, chunk)| {
            let first = block * AGGREGATE_BLOCK;
            chunk.iter().enumerate().map(|(i, &x)| program.aggregate(view, (first + i) as VertexId, x)).sum::<f64>()
        })
        .collect();
    blocks.into_iter().sum()
}

/// One iteration's inputs.
struct Step<'s, 'g, P: EdgeProgram + ?Sized> {
    program: &'s P,
    graph: &'s EdgeGraph<'g>,
    view: EdgeView<'s>,
    schedule: &'s Schedule<P::Message>,
    values: &'s [P::Value],
    /// Per vertex, whether its edges are processed (empty without a frontier: all are).
    active: &'s [bool],
}

impl<P: EdgeProgram + ?Sized> Step<'_, '_, P> {
    /// Vertex `v`'s new value and whether it changed.
    fn vertex(&self, v: VertexId) -> (P::Value, bool) {
        let mut combined: Option<P::Message> = None;
        if self.schedule.direction != IN {
            self.pull(self.graph.in_edges(), v, &mut combined);
        }
        if self.schedule.direction != OUT {
            self.pull(self.graph.out_edges(), v, &mut combined);
        }
        let old = self.values[v as usize];
        if self.schedule.frontier && combined.is_none() {
            // With a frontier, a vertex that receives no message keeps its value.
            return (old, false);
        }
        let new = self.program.apply(&self.view, v, old, combined.unwrap_or(self.schedule.identity));
        (new, self.program.changed(old, new))
    }

    /// Combines into `combined` the messages the vertices of `v`'s row of `edges` send it.
    fn pull(&self, edges: &Csr, v: VertexId, combined: &mut Option<P::Message>) {
        let weights = edges.neighbor_weights(v);
        for (i, &from) in edges.neighbors(v).iter().enumerate() {
            if !self.active.is_empty() && !self.active[from as usize] {
                continue;
            }
            let weight = weights.map_or(1.0, |w| f64::from(w[i]));
            let (send, message) = self.program.edge(&self.view, from, v, self.values[from as usize], weight);
            if send {
                *combined = Some(match *combined {
                    Some(acc) => acc.combine(message, self.schedule.combine),
                    None => message,
                });
            }
        }
    }
}
