//! The local convergence schedule on the CPU: the GPU's reference and the method's worked
//! example.

use super::{CarriedEdges, Mode, Pieces, SubgraphOutcome, SubgraphPlan};
use crate::edge::engine::{check, Schedule};
use crate::edge::{
    Combinable, CompiledEdgeProgram, EdgeConfig, EdgeGraph, EdgeOutcome, EdgeProgram, EdgeView, IterationReport,
};
use crate::error::{Error, Result};
use crate::graph::VertexId;

/// Runs `program` on `graph` cut into the subgraphs of `plan` over `list` (the edges
/// `graph`'s run pulls, [`CarriedEdges::pulled`], or the same edges in another order), each run
/// to local convergence ([`Mode::LocalConvergence`]); `observer` sees each outer iteration
/// (`changed`: the changes of all its local iterations). A local iteration is synchronous:
/// its messages read the values before it. The hooks' view has the outer iteration and, for
/// `aggregated`, the sum before it.
///
/// Errors: the CPU engine's ([`crate::edge::run`]), a program local convergence does not
/// serve (`Mode::of`) and an edge list of another vertex count.
pub fn run_on_cpu<P: CompiledEdgeProgram + ?Sized>(
    program: &P,
    graph: &EdgeGraph<'_>,
    list: &CarriedEdges,
    plan: SubgraphPlan,
    config: &EdgeConfig,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<SubgraphOutcome<P::Value>> {
    let schedule = Schedule::of(program, graph, config)?;
    let plan = plan.checked(list.len())?;
    if Mode::of(program.name(), &schedule, program.features(), Some(plan.cel))?.0 != Mode::LocalConvergence {
        return Err(Error::invalid(format!(
            "`{}`: the CPU runs subgraphs to local convergence only, which needs a program with a frontier, a min or max combine and no iteration limit",
            program.name()
        )));
    }
    if list.num_vertices() != graph.num_vertices() {
        return Err(Error::invalid(format!(
            "an edge list of {} vertices for a graph of {}",
            list.num_vertices(),
            graph.num_vertices()
        )));
    }
    let n = graph.num_vertices();
    let start = EdgeView::new(graph, config.source);
    let mut values: Vec<P::Value> = (0..n as VertexId).map(|v| program.init(&start, v)).collect();
    check(program)?;
    let mut pieces = Pieces::new(list, plan);
    let subgraphs = pieces.subgraphs();
    let mut local = Local { program, schedule: &schedule, combined: vec![None; n], active: vec![false; n] };
    let (mut outer, mut totals) = (0u32, (0u64, 0u64, 0u64));
    loop {
        let aggregated = (0..n).map(|v| program.aggregate(&start, v as VertexId, values[v])).sum();
        let view = start.at(outer, aggregated);
        let mut changed = 0;
        for s in 0..subgraphs {
            let (cel, subgraph) = pieces.of_subgraph(s)?;
            for piece in subgraph {
                let edges: Vec<_> = piece.edges(list, &cel).collect();
                let (iterations, count) = local.converge(&view, &edges, &mut values)?;
                totals = (totals.0 + 1, totals.1 + piece.len(), totals.2 + iterations);
                changed += count;
            }
        }
        observer(&IterationReport { iteration: outer, changed, step: "subgraphs" });
        outer += 1;
        if changed == 0 {
            break;
        }
    }
    Ok(SubgraphOutcome {
        outcome: EdgeOutcome { values, iterations: outer, converged: true },
        mode: Mode::LocalConvergence,
        plan,
        subgraphs,
        pieces: totals.0,
        edges_loaded: totals.1,
        local_iterations: totals.2,
    })
}

/// One piece's local iterations.
struct Local<'p, P: EdgeProgram + ?Sized> {
    program: &'p P,
    schedule: &'p Schedule<P::Message>,
    /// Per vertex, its combined messages of the iteration (reset after each).
    combined: Vec<Option<P::Message>>,
    /// Per vertex, whether it changed in the iteration before (its edges carry messages).
    active: Vec<bool>,
}

impl<P: EdgeProgram + ?Sized> Local<'_, P> {
    /// Runs `edges` to local convergence from `values`: the first iteration's senders are all
    /// of them, each later one's those that changed. Returns the iterations and the changes.
    fn converge(
        &mut self,
        view: &EdgeView<'_>,
        edges: &[(VertexId, VertexId, f64)],
        values: &mut [P::Value],
    ) -> Result<(u64, u64)> {
        let (mut iterations, mut changes, mut first) = (0u64, 0u64, true);
        loop {
            let mut touched = Vec::new();
            for &(from, to, weight) in edges {
                if !first && !self.active[from as usize] {
                    continue;
                }
                let (send, message) = self.program.edge(view, from, to, values[from as usize], weight);
                if send {
                    let slot = &mut self.combined[to as usize];
                    *slot = Some(match *slot {
                        Some(acc) => acc.combine(message, self.schedule.combine),
                        None => {
                            touched.push(to);
                            message
                        }
                    });
                }
            }
            check(self.program)?;
            self.active.iter_mut().for_each(|a| *a = false);
            let mut changed = 0;
            for &v in &touched {
                let combined = self.combined[v as usize].take().unwrap_or(self.schedule.identity);
                let old = values[v as usize];
                let new = self.program.apply(view, v, old, combined);
                values[v as usize] = new;
                if self.program.changed(old, new) {
                    self.active[v as usize] = true;
                    changed += 1;
                }
            }
            check(self.program)?;
            iterations += 1;
            changes += changed;
            first = false;
            if changed == 0 {
                return Ok((iterations, changes));
            }
        }
    }
}
