//! The frontier engine: an iteration reads only the rows its frontier needs, pushing from a
//! sparse frontier and pulling into every receiver from a dense one (Beamer's
//! direction-optimising BFS, generalised to any edge program).
//!
//! - **Push** (a sparse frontier, the vertices that changed in the iteration before, as a
//!   list): the frontier's rows of the push CSRs, a warp per 32 vertices sharing their edges
//!   among its lanes, rows longer than `SMALL_ROW` in chunks of `CHUNK` edges a warp each;
//!   messages combined into `combined` with the program's atomics, each receiver listed once
//!   (a stamp per vertex); then `apply` on the listed receivers only. Valid because a
//!   frontier program's vertex without messages keeps its value; a program without a
//!   frontier never pushes.
//! - **Pull** (a dense frontier, and every iteration of a program without one): a group of
//!   `PULL_GROUP` lanes per receiver reads its pull rows coalesced (one lane for a program
//!   that writes `settled`, whose receivers mostly stop at their first messages), rows longer
//!   than `PULL_SMALL` cut into chunks of `CHUNK` edges, a warp each, combined into the
//!   receiver with the program's atomics (a hub's row spread over the whole device), taking
//!   the messages of the active senders, a few edges per lane in flight at once
//!   (`PULL_UNROLL`); a program that writes `settled` has its settled receivers skipped and
//!   each receiver stops at the round of messages that settles it (Beamer's bottom-up step).
//!   New values are staged, then committed, when other receivers read the old ones (`edge`
//!   reads its receiver), else written in place.
//!
//! When `edge` reads only its sender (no `receiver` facility), a sender's message is computed
//! once: a push skips the rows of senders that send none, and a pull reads a bit per edge
//! (whether the sender sends: an array the L2 cache holds) and the message of a sender that sends,
//! instead of the sender's value and what `edge` reads with it (PageRank's degree). Those
//! messages are computed before the pull by a thread per vertex, or from a sparse frontier
//! (fewer than 1/[`LISTED_SEND`] of the vertices) by a thread per listed vertex.
//!
//! The direction: push while the frontier's edges are at most 1/[`ALPHA`] of the push rows'
//! edges, then pull until the frontier has fewer than 1/[`BETA`] of the vertices (Beamer's
//! thresholds; the frontier's edges stand for the unexplored edges, which a program does not
//! define). The first iteration's frontier is every vertex; with sender messages it is only
//! the vertices that send (BFS: the source), listed on the device, so BFS starts by pushing
//! from its source alone.
//!
//! The counters the host reads and the lists the kernels build (the next frontier, long
//! rows) grow by one atomic per block: atomics on one address serialise at the L2, and one
//! per warp cost a pull on R-MAT 24 about a millisecond. The kernels over every vertex (the
//! senders' pass and the pull) give a block [`TRIPS`] strides of its threads and append after
//! the last, without a barrier between strides.

use super::{Engine, Run, ENGINE_THREADS};
use crate::device::{DeviceBuffer, KernelArgs, Shape};
use crate::edge::{CompiledEdgeProgram, IterationReport};
use crate::error::{Error, Result};
use glp_codegen::kinds::edge::frontier::{
    CHANGED, CHUNK, CHUNKS_A, FRONTIER, LIST_SENDERS, NEXT_EDGES, PULL_GROUP, RECEIVER, SENDERS, SENDER_EDGES, SETTLED,
    TRIPS,
};
use glp_codegen::kinds::edge::layout::FrontierArgs;
use glp_codegen::kinds::edge::{kernels, RECEIVER_FEATURE, SETTLED_FEATURE};

/// Pull once the frontier's edges exceed 1/`ALPHA` of the edges a push could read.
const ALPHA: u64 = 14;
/// Push again once the frontier holds fewer than 1/`BETA` of the vertices.
const BETA: u64 = 24;
/// Before a pull, the senders' messages are computed for the frontier's list, a thread per
/// listed vertex, when it holds fewer than 1/`LISTED_SEND` of the vertices, and otherwise by a
/// thread per vertex: a listed vertex's reads and writes land anywhere (about a sector each),
/// a vertex of the dense pass costs the few bytes of its stamp. BFS on R-MAT 24 (degree
/// order) pulls three times, the dense pass 100-120 µs each (H200).
const LISTED_SEND: u64 = 8;
/// The most blocks of a kernel that strides over a count only the device holds.
const STRIDED_BLOCKS: u64 = 1024;

/// Runs the iterations of `run` with `engine` ([`Engine::Frontier`], [`Engine::Push`] or
/// [`Engine::Pull`]); returns how many ran and whether the last changed nothing.
pub(super) fn iterate<P: CompiledEdgeProgram + ?Sized>(
    run: &mut Run<'_, P>,
    engine: Engine,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<(u32, bool)> {
    if engine == Engine::Push && !run.frontier {
        return Err(Error::invalid(format!(
            "`{}` has no frontier, so every vertex takes `apply` in every iteration, which only a pull gives: \
             use the frontier engine or pull",
            run.program.name()
        )));
    }
    let gpu = run.gpu;
    let n = run.num_vertices() as usize;
    let features = run.program.features();
    let receiver = features.contains(&RECEIVER_FEATURE);
    // Lanes per receiver of a pull: one where receivers mostly stop at their first messages.
    let width = if features.contains(&SETTLED_FEATURE) { 1u32 } else { PULL_GROUP as u32 };
    let flags = (if run.frontier { FRONTIER } else { 0 })
        | (if receiver { RECEIVER } else { 0 })
        | (if features.contains(&SETTLED_FEATURE) { SETTLED } else { 0 });
    let device = run.device;
    let pull = device.pull_rows(run.direction, run.op)?;
    let push = match run.frontier && engine != Engine::Pull {
        true => device.push_rows(run.direction, run.op)?,
        false => Vec::new(),
    };
    // A directed graph's in- and out-rows hold the same edges: a push reads as many as a pull.
    let push_edges = device.edges_read(run.direction, run.op)?;

    // The run's arrays (those a program without a frontier or an engine that never pushes
    // does not read are not allocated).
    let pushes = !push.is_empty();
    let sized = |used: bool, len: usize| if used { len } else { 0 };
    // A pull reads other vertices' values only when `edge` reads its receiver: then its new
    // values are staged and committed, else written in place.
    let staged: DeviceBuffer<u8> = gpu.alloc_zeros("staged values", sized(receiver, n * run.value.size))?;
    let mut sending: DeviceBuffer<u32> = gpu.alloc_zeros("sending vertices", sized(!receiver, n.div_ceil(32)))?;
    let messages: DeviceBuffer<u8> = gpu.alloc_zeros("sender messages", sized(!receiver, n * run.message.size()))?;
    let changed_at: DeviceBuffer<u32> = gpu.alloc_zeros("change stamps", n)?;
    let received_at: DeviceBuffer<u32> = gpu.alloc_zeros("message stamps", n)?;
    let touched: DeviceBuffer<u32> = gpu.alloc_zeros("touched vertices", sized(pushes, n))?;
    let mut queues: [DeviceBuffer<u32>; 2] = [gpu.alloc_zeros("frontier", n)?, gpu.alloc_zeros("next frontier", n)?];
    let big: DeviceBuffer<u32> = gpu.alloc_zeros("long pull rows", n)?;
    // Chunks of long rows (more than CHUNK / 2 edges): at most 2 * edges / CHUNK of a pass.
    let pulled: u64 = pull.iter().map(|r| r.rows.count).sum();
    let chunk_capacity = push.iter().map(|r| r.rows.count).chain([pulled]).max().unwrap_or(0) * 2 / CHUNK + 1;
    let chunks: DeviceBuffer<u64> = gpu.alloc_zeros("long push rows' chunks", chunk_capacity as usize)?;
    let push_offsets = |i: usize| push.get(i).map_or(0, |r| r.offsets.device_ptr());
    let counters = run.status.device_ptr();
    let counter = |i: usize| counters + 8 * i as u64;
    // The vertices a pull and its senders' pass cover: for a program with a frontier only the
    // first positions, which hold every vertex with an edge (in degree order the others come
    // last: R-MAT's isolated vertices), as a vertex without edges neither sends nor receives
    // and keeps its value; every vertex takes `apply` in a program without one. (BFS on
    // R-MAT 24, degree order, H200: 1.70 -> 1.35 ms.)
    let receivers = if run.frontier { device.vertices_with_edges() } else { n };
    // The view numbers vertices in 32 bits (Run::new), so `receivers <= n` fits.
    let receivers = receivers as u32;
    let mut state = FrontierArgs {
        values: run.values.device_ptr(),
        combined: run.combined.device_ptr(),
        staged: staged.device_ptr(),
        sending: sending.device_ptr(),
        messages: messages.device_ptr(),
        senders: 0,
        changed_at: changed_at.device_ptr(),
        received_at: received_at.device_ptr(),
        touched: touched.device_ptr(),
        queue_out: 0,
        big: big.device_ptr(),
        chunks: chunks.device_ptr(),
        counters,
        push_offsets_a: push_offsets(0),
        push_offsets_b: push_offsets(1),
        op: run.op,
        flags,
        stamp: 0,
        receivers,
    };
    // The per-vertex kernels' blocks take TRIPS strides of their threads (glp_frontier_trip).
    let tripping = |threads: u64| Shape::covering(threads.div_ceil(TRIPS).max(1), ENGINE_THREADS);
    let strided = |upper: u64| -> Result<Shape> {
        let blocks = upper.div_ceil(u64::from(ENGINE_THREADS)).clamp(1, STRIDED_BLOCKS);
        Shape::covering(blocks * u64::from(ENGINE_THREADS), ENGINE_THREADS)
    };
    let rows_args = |args: KernelArgs, i: usize| match pull.get(i) {
        Some(r) => args.buffer(r.offsets).buffer(&r.rows.entries).value(r.rows.weights_ptr()),
        None => args.value(0u64).value(0u64).value(0u64),
    };

    run.init(0)?;
    // The frontier: every vertex in the first iteration (`all`), then a list in queues[0].
    let (mut all, mut frontier_len, mut frontier_edges) = (true, n as u64, push_edges);
    let mut pulling = false;
    let (mut iteration, mut converged) = (0, false);
    while iteration < run.limit && !converged {
        let view = run.begin(iteration)?;
        state.stamp = iteration + 1;
        state.queue_out = queues[1].device_ptr();
        let mut sent_ready = false;
        if all && run.frontier && !receiver && engine != Engine::Pull {
            // The first frontier: its senders only (BFS: the source alone), listed for a push.
            let listing = FrontierArgs { flags: flags | LIST_SENDERS, senders: queues[0].device_ptr(), ..state };
            run.launch(kernels::SEND, tripping(u64::from(receivers))?, &run.with_view(view).value(listing))?;
            let status = gpu.download(&run.status)?;
            run.faults.check(&status)?;
            (all, frontier_len, frontier_edges, sent_ready) = (false, status[SENDERS], status[SENDER_EDGES], true);
        }
        pulling = match engine {
            Engine::Push => false,
            Engine::Pull => true,
            _ if !run.frontier => true,
            _ if pulling => frontier_len * BETA >= n as u64,
            _ => frontier_edges * ALPHA > push_edges,
        };
        if pulling {
            if !receiver && !sent_ready {
                if run.frontier && !all && frontier_len * LISTED_SEND < n as u64 {
                    // Only the listed vertices changed: their messages, a thread each.
                    gpu.zero(&mut sending)?;
                    let args = run.with_view(view).value(state).buffer(&queues[0]).value(frontier_len);
                    run.launch(kernels::SEND_LISTED, Shape::covering(frontier_len.max(1), ENGINE_THREADS)?, &args)?;
                } else {
                    run.launch(kernels::SEND, tripping(u64::from(receivers))?, &run.with_view(view).value(state))?;
                }
            }
            let args = || rows_args(rows_args(run.with_view(view).value(state), 0), 1);
            let threads = u64::from(receivers) * u64::from(width);
            run.launch(kernels::PULL, tripping(threads)?, &args().value(width))?;
            run.launch(kernels::PULL_CHUNKS, strided(chunk_capacity * 32)?, &args())?;
            run.launch(kernels::PULL_FINISH, strided(n as u64)?, &run.with_view(view).value(state))?;
            if receiver {
                run.launch(kernels::COMMIT, strided(n as u64)?, &KernelArgs::new().value(state))?;
            }
        } else {
            let count = if all { n as u64 } else { frontier_len };
            let list = if all { 0 } else { queues[0].device_ptr() };
            for (i, rows) in push.iter().enumerate() {
                let csr = |args: KernelArgs| {
                    args.buffer(rows.offsets).buffer(&rows.rows.entries).value(rows.rows.weights_ptr())
                };
                let args = csr(run.with_view(view).value(state)).value(list).value(count).value(counter(CHUNKS_A + i));
                run.launch(kernels::PUSH, Shape::covering(count, ENGINE_THREADS)?, &args)?;
                let args = csr(run.with_view(view).value(state)).value(counter(CHUNKS_A + i));
                run.launch(kernels::PUSH_CHUNKS, strided(chunk_capacity * 32)?, &args)?;
            }
            run.launch(kernels::APPLY_TOUCHED, strided(n as u64)?, &run.with_view(view).value(state))?;
        }
        let record = run.end(iteration, if pulling { "pull" } else { "push" }, observer)?;
        queues.swap(0, 1);
        (all, frontier_len, frontier_edges) = (false, record[CHANGED], record[NEXT_EDGES]);
        iteration += 1;
        converged = record[CHANGED] == 0;
    }
    Ok((iteration, converged))
}
