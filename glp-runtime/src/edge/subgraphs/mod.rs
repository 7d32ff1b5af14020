//! Graphs beyond the device's memory: WolfGraph's subgraphs and its Concatenated Edge List
//! (CEL), planned on the host for every engine.
//!
//! # The method
//!
//! The vertex values stay on the device; the edges ([`CarriedEdges`]: sender, receiver and
//! weight per edge, in the in-memory engines' order) are cut into equal **subgraphs** of
//! consecutive edges, sized so that an edge buffer holds one (WolfGraph's Eq. 1 with headroom:
//! two buffers, so that the next piece is copied while one is processed). How a program runs
//! on them depends on what its combine allows (`Mode::of`):
//!
//! - [`Mode::LocalConvergence`] (WolfGraph), for a program with a frontier, an idempotent
//!   combine (min, max), no iteration limit and hooks that read neither the iteration nor the
//!   aggregate (BFS, SSSP, WCC, SSWP): an outer iteration
//!   runs each subgraph in turn to local convergence (its edges' iterations until none of its
//!   receivers changes); the run stops after an outer iteration that changed no vertex. With
//!   the CEL each subgraph also carries the edges of the subgraphs already processed in the
//!   outer iteration whose senders are its receivers (one hop further, so that what the
//!   subgraph changes travels on without waiting for the next outer iteration); a CEL larger
//!   than an edge buffer is cut into pieces ([`Piece`]), run one after the other. Edges
//!   processed again and values reached in another order give the same values only for a
//!   combine that ignores repeats and a program that moves each value one way (its fixpoint),
//!   so the mode is refused to the others.
//! - [`Mode::Streamed`], for every other program (sums: PageRank): each iteration streams
//!   every subgraph through the edge kernel, its messages combined on the device, then
//!   applies once: the in-memory engine's iterations exactly, the graph copied once an
//!   iteration.
//!
//! A subgraph's edges are the edge list's, in order: no pre-processing beyond the edge list.
//! On a symmetric graph's list (each edge's reverse in it, in receiver order) a subgraph's CEL
//! is the reverses of its own edges whose senders come before its first receiver: one scan,
//! every such edge an edge of the paper's CEL (a receiver whose row a subgraph boundary cuts
//! may miss some; the CEL only saves outer iterations, the values do not depend on it). On
//! other lists the CEL's mapping array ([`SentBy`]: each vertex's edges as a sender) is built
//! once per run and finds every such edge.
//!
//! [`run_on_cpu`] runs the local convergence schedule on the CPU: the reference of the GPU's
//! (values, outer iterations), and the method's worked example (WolfGraph's Table 1) as a test.

mod carried;
mod cel;
mod cpu;

pub use carried::CarriedEdges;
pub use cel::{Piece, Pieces, SentBy};
pub use cpu::run_on_cpu;

use super::engine::Schedule;
use super::{is_idempotent, CompiledEdgeProgram, EdgeConfig, EdgeGraph, EdgeOutcome};
use crate::error::{Error, Result};
use glp_codegen::kinds::edge::{AGGREGATE_FEATURE, ITERATION_FEATURE};
use std::ops::Range;

/// The most subgraphs a run cuts a graph into.
pub const MAX_SUBGRAPHS: u64 = 1 << 16;

/// How subgraphs are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubgraphPlan {
    /// Edges per subgraph (the last holds the rest).
    pub subgraph_edges: u64,
    /// The most edges a piece holds: an edge buffer's capacity.
    pub piece_edges: u64,
    /// Whether each subgraph carries its Concatenated Edge List.
    pub cel: bool,
}

impl SubgraphPlan {
    /// `edges` edges cut into `count` subgraphs of equal size; with the CEL an edge buffer
    /// holds twice a subgraph (half for its concatenated edges).
    ///
    /// Errors: `count` 0.
    pub fn split(edges: u64, count: u64, cel: bool) -> Result<Self> {
        if count == 0 {
            return Err(Error::invalid("a graph is cut into at least 1 subgraph"));
        }
        if count > edges.max(1) {
            return Err(Error::invalid(format!(
                "{count} subgraphs of a graph of {edges} edges: give at most {}",
                edges.max(1)
            )));
        }
        let subgraph_edges = edges.div_ceil(count).max(1);
        Ok(SubgraphPlan { subgraph_edges, piece_edges: if cel { 2 * subgraph_edges } else { subgraph_edges }, cel })
    }

    /// The subgraphs an edge buffer of `buffer_edges` edges holds: a subgraph fills it, or
    /// half of it with the CEL (the other half for the concatenated edges).
    ///
    /// Errors: a buffer of fewer than 2 edges.
    pub fn fitting(buffer_edges: u64, cel: bool) -> Result<Self> {
        if buffer_edges < 2 {
            return Err(Error::invalid(format!("an edge buffer of {buffer_edges} edges holds no subgraph")));
        }
        let subgraph_edges = if cel { buffer_edges / 2 } else { buffer_edges };
        Ok(SubgraphPlan { subgraph_edges, piece_edges: buffer_edges, cel })
    }

    /// The plan, checked for an edge list of `edges` edges: at most [`MAX_SUBGRAPHS`]
    /// subgraphs (each holds buffers of its own), and pieces that hold a subgraph.
    pub fn checked(self, edges: u64) -> Result<Self> {
        let count = self.subgraphs(edges);
        if count > MAX_SUBGRAPHS {
            return Err(Error::invalid(format!(
                "{count} subgraphs of {} edges each: at most {MAX_SUBGRAPHS} (give more device memory)",
                self.subgraph_edges
            )));
        }
        if self.piece_edges < self.subgraph_edges || self.subgraph_edges == 0 {
            return Err(Error::invalid(format!(
                "pieces of {} edges cannot hold subgraphs of {}",
                self.piece_edges, self.subgraph_edges
            )));
        }
        Ok(self)
    }

    /// Subgraph `s`'s own edges in an edge list of `edges` edges.
    pub fn own(&self, s: u64, edges: u64) -> Range<u64> {
        (s * self.subgraph_edges).min(edges)..((s + 1) * self.subgraph_edges).min(edges)
    }

    /// The pieces of a subgraph whose own edges are `own` and whose CEL holds `appended`
    /// edges: the own edges and the CEL's first ones, then the CEL's others in pieces of
    /// [`SubgraphPlan::piece_edges`]; each as its own edges and its range of the CEL.
    pub fn cut(&self, own: Range<u64>, appended: usize) -> Vec<(Range<u64>, Range<usize>)> {
        let capacity = (self.piece_edges as usize).max(1);
        let first = capacity.saturating_sub((own.end - own.start) as usize).min(appended);
        let mut pieces = vec![(own.clone(), 0..first)];
        let mut at = first;
        while at < appended {
            let end = (at + capacity).min(appended);
            pieces.push((own.end..own.end, at..end));
            at = end;
        }
        pieces
    }

    /// The number of subgraphs of an edge list of `edges` edges (at least 1).
    pub fn subgraphs(&self, edges: u64) -> u64 {
        edges.div_ceil(self.subgraph_edges).max(1)
    }
}

/// How a program runs on subgraphs (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Each subgraph to local convergence, with or without the CEL.
    LocalConvergence,
    /// Every subgraph streamed through each iteration, applied once.
    Streamed,
}

impl Mode {
    /// The mode of a program of `schedule`: local convergence where it gives the in-memory
    /// values, streamed otherwise. `cel` asks for the CEL (`None`: where it is allowed).
    ///
    /// Errors: the CEL asked for a program it would give other values (`name` in the message).
    pub(in crate::edge) fn of<M>(
        name: &str,
        schedule: &Schedule<M>,
        features: &[&str],
        cel: Option<bool>,
    ) -> Result<(Mode, bool)> {
        let local = local_convergence(schedule, features);
        match (local, cel) {
            (Ok(()), cel) => Ok((Mode::LocalConvergence, cel.unwrap_or(true))),
            (Err(why), Some(true)) => Err(Error::invalid(format!(
                "`{name}`: the concatenated edge list (CEL) runs each subgraph to local convergence and applies \
                 some edges twice in an outer iteration, which gives the in-memory values only for a program with a \
                 frontier, a min or max combine and no iteration limit; {why}. Run it without the CEL: its \
                 subgraphs then stream through every iteration"
            ))),
            (Err(_), _) => Ok((Mode::Streamed, false)),
        }
    }
}

/// Whether `program` may run on `graph` with `config` with the CEL ([`Mode::LocalConvergence`]).
///
/// Errors: the program's schedule hooks out of range ([`super::run`]'s).
pub fn cel_allowed<P: CompiledEdgeProgram + ?Sized>(
    program: &P,
    graph: &EdgeGraph<'_>,
    config: &EdgeConfig,
) -> Result<bool> {
    let schedule = Schedule::of(program, graph, config)?;
    Ok(local_convergence(&schedule, program.features()).is_ok())
}

/// Whether a program of `schedule` whose hooks use `features` may run each subgraph to local
/// convergence, or why not.
fn local_convergence<M>(schedule: &Schedule<M>, features: &[&str]) -> std::result::Result<(), &'static str> {
    if !is_idempotent(schedule.combine) {
        Err("this program sums its messages (a message applied twice counts twice)")
    } else if !schedule.frontier {
        Err("this program has no frontier (every vertex applies every iteration)")
    } else if schedule.limit != u32::MAX {
        Err("this run has an iteration limit (an outer iteration is not an iteration)")
    } else if features.contains(&ITERATION_FEATURE) {
        Err("its hooks read `view.iteration()` (an outer iteration is not an iteration)")
    } else if features.contains(&AGGREGATE_FEATURE) {
        Err("its hooks read `view.aggregated()` (a sum over every vertex between two iterations)")
    } else {
        Ok(())
    }
}

/// What a run on subgraphs did besides its values.
#[derive(Debug, Clone, PartialEq)]
pub struct SubgraphOutcome<V> {
    /// The values; `iterations` counts outer iterations (in streamed mode, iterations).
    pub outcome: EdgeOutcome<V>,
    pub mode: Mode,
    /// The subgraphs and whether they carried their CEL.
    pub plan: SubgraphPlan,
    pub subgraphs: u64,
    /// Pieces processed (over every outer iteration).
    pub pieces: u64,
    /// Edges loaded (copied to the device, on a GPU), the CEL's included.
    pub edges_loaded: u64,
    /// Iterations of the pieces' edges, over every piece (streamed mode: one per piece).
    pub local_iterations: u64,
}
