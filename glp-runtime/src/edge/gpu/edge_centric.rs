//! The edge-centric engine (WolfGraph): every iteration processes every edge.
//!
//! An iteration:
//!
//! 1. the sum of `aggregate` over the vertices, when the program reads it ([`Run::begin`]);
//! 2. `glp_edge_edges` over each pull CSR's rows expanded (see [`super::placed`]): a block of
//!    `BLOCK_EDGES` consecutive edges, one thread per edge at a time (coalesced reads), each
//!    message combined into the block's shared-memory slot of its receiver (the block's
//!    receivers are consecutive ids: slot = receiver - the block's first) with shared
//!    atomics, then the slots flushed into the global combined messages with the program's
//!    combine (WolfGraph's two phases fused, since shared memory does not outlive a kernel);
//!    a receiver beyond the slots (vertices without edges in between) takes its messages in
//!    global memory directly. With a frontier, only the edges of the senders that changed in
//!    the iteration before carry a message (every edge is still read: the frontier engine is
//!    the one that reads only the active rows), and each receiver is stamped;
//! 3. `glp_edge_apply_values`: every vertex's `apply` and `changed` (with a frontier, only
//!    the stamped receivers'), counted; the run stops after an iteration that changed no
//!    vertex, or at its iteration limit, as on the CPU.

use super::{EdgeArrays, FrontierBuffers, Run};
use crate::edge::{CompiledEdgeProgram, IterationReport};
use crate::error::Result;

/// Runs the iterations of `run`; returns how many ran and whether the last changed nothing.
pub(super) fn iterate<P: CompiledEdgeProgram + ?Sized>(
    run: &mut Run<'_, P>,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<(u32, bool)> {
    let buffers = FrontierBuffers::new(run, run.frontier)?;
    run.init(buffers.at(0).active)?; // every vertex active in the first iteration
    let device = run.device;
    let passes = device.pull_rows(run.direction, run.op)?;
    let (mut iteration, mut converged) = (0, false);
    while iteration < run.limit && !converged {
        let view = run.begin(iteration)?;
        let frontier = buffers.at(iteration + 1);
        for pass in &passes {
            let Some(receivers) = &pass.rows.receivers else {
                return Err(crate::error::Error::invalid(
                    "internal: the device graph was placed without the edge-centric engine's arrays",
                ));
            };
            let edges = EdgeArrays {
                senders: pass.rows.entries.device_ptr(),
                receivers: receivers.device_ptr(),
                weights: pass.rows.weights_ptr(),
                count: pass.rows.count,
            };
            run.launch_edges(view, edges, frontier)?;
        }
        run.launch_apply(view, frontier)?;
        let record = run.end(iteration, "edges", observer)?;
        iteration += 1;
        converged = record[0] == 0;
    }
    Ok((iteration, converged))
}
