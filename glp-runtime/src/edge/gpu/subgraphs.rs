//! The edge-centric engine on graphs beyond the device's memory: the vertices' state on the
//! device, the edges in pieces of subgraphs ([`crate::edge::subgraphs`]: the plan, the CEL and
//! the modes), each piece copied into one of two edge buffers while the other is processed.
//!
//! A host thread builds the pieces (the CEL's gathers) into two pinned buffers, one piece
//! ahead; the device's copy stream copies a piece into the free edge buffer as soon as the
//! kernels that read that buffer last are done, and the main stream waits for the copy
//! before the piece's kernels. A piece runs in [`Mode::LocalConvergence`] as edge-centric
//! iterations until none of its receivers changes (the first with every sender active, then
//! the senders that changed), in [`Mode::Streamed`] as one edge kernel of its iteration, the
//! iteration's `apply` after its last piece. Each phase is timed: the host's builds, the copy
//! stream's copies and the main stream's kernels ([`SubgraphTimes`]).

use super::{DeviceEdgeGraph, EdgeArrays, Frontier, FrontierBuffers, Run};
use crate::device::{CopyStream, DeviceBuffer, Gpu, PinnedHostBuffer};
use crate::edge::engine::{check, Schedule};
use crate::edge::subgraphs::{CarriedEdges, Mode, Pieces, SubgraphOutcome, SubgraphPlan};
use crate::edge::{CompiledEdgeProgram, EdgeConfig, EdgeGraph, EdgeOutcome, IterationReport};
use crate::error::{Error, Result};
use crate::graph::VertexId;
use cudarc::driver::CudaEvent;
use glp_codegen::interp::Value;
use glp_codegen::kinds::edge::{frontier::COUNTERS, BLOCK_EDGES};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::time::{Duration, Instant};

/// How a run on subgraphs cuts its graph.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SubgraphOptions {
    /// The most device memory the run may use, in bytes: the vertices' state, two edge
    /// buffers and a sixteenth as headroom (the module, the driver's pools). `None`: what is
    /// free now, less a tenth.
    pub device_memory: Option<u64>,
    /// Cut the edges into this many equal subgraphs, in place of what the memory holds.
    pub subgraphs: Option<u64>,
    /// Whether subgraphs carry their CEL (`None`: where the program allows it).
    pub cel: Option<bool>,
}

/// Where a run on subgraphs spent its time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SubgraphTimes {
    /// The host building pieces: the CEL's mapping array, its gathers and the copies into the
    /// pinned buffers (overlapped with the device's work, but for the first piece).
    pub build: Duration,
    /// The copy stream copying pieces to the device.
    pub transfer: Duration,
    /// The main stream running the pieces' kernels.
    pub compute: Duration,
    /// From the first kernel to the end of the last iteration.
    pub elapsed: Duration,
    /// Bytes copied to the device.
    pub bytes_copied: u64,
    /// Device bytes the run held: the vertices' state and the edge buffers.
    pub device_bytes: u64,
}

/// A sixteenth of the budget is left for what glp does not allocate itself.
const HEADROOM_SHARE: u64 = 16;

/// Whether `program` runs on `graph` in memory within `budget` device bytes: the edge-centric
/// engine's arrays (each edge's sender, receiver and weight), the row offsets and the
/// vertices' state (at most 32 bytes a vertex), with the headroom of a run on subgraphs.
pub fn fits_in_memory<P: CompiledEdgeProgram + ?Sized>(
    program: &P,
    graph: &EdgeGraph<'_>,
    config: &EdgeConfig,
    budget: u64,
) -> Result<bool> {
    let schedule = Schedule::of(program, graph, config)?;
    let weight = if program.weighted() || graph.out_edges().is_weighted() { 4 } else { 0 };
    let edges = graph.edges_read(schedule.direction, schedule.combine)? * (8 + weight);
    let vertices = graph.num_vertices() as u64 * (16 + 32);
    Ok(edges + vertices <= budget - budget / HEADROOM_SHARE)
}

/// Runs `program` on `graph` on `gpu` with the edges in subgraphs (see the module docs);
/// `observer` sees each outer iteration (streamed: each iteration) as it ends, `step`
/// `subgraphs` or `streamed`. The outcome's `iterations` are outer iterations.
///
/// Errors: [`super::run_on`]'s, [`Mode::of`]'s (the CEL asked for a program it would give
/// other values), a memory budget that leaves no room for an edge block per buffer.
pub fn run_on_subgraphs<P: CompiledEdgeProgram + ?Sized>(
    gpu: &Gpu,
    program: &P,
    graph: &EdgeGraph<'_>,
    config: &EdgeConfig,
    options: &SubgraphOptions,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<(SubgraphOutcome<Value>, SubgraphTimes)> {
    let schedule = Schedule::of(program, graph, config)?;
    let built = Instant::now();
    let carried = CarriedEdges::pulled(graph, schedule.direction, schedule.combine)?;
    let build = built.elapsed();
    let (outcome, times) = run_on_edges(gpu, program, graph, &carried, config, options, observer)?;
    Ok((outcome, SubgraphTimes { build: times.build + build, ..times }))
}

/// [`run_on_subgraphs`] over `carried`: the edges `graph`'s run pulls in another order (a
/// file's: WolfGraph's worked example).
///
/// Errors: [`run_on_subgraphs`]'s, an edge list of another vertex count.
pub fn run_on_edges<P: CompiledEdgeProgram + ?Sized>(
    gpu: &Gpu,
    program: &P,
    graph: &EdgeGraph<'_>,
    carried: &CarriedEdges,
    config: &EdgeConfig,
    options: &SubgraphOptions,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<(SubgraphOutcome<Value>, SubgraphTimes)> {
    let schedule = Schedule::of(program, graph, config)?;
    let (mode, cel) = Mode::of(program.name(), &schedule, options.cel)?;
    if carried.num_vertices() != graph.num_vertices() {
        return Err(Error::invalid(format!(
            "an edge list of {} vertices for a graph of {}",
            carried.num_vertices(),
            graph.num_vertices()
        )));
    }
    let mut times = SubgraphTimes::default();
    let held_before = gpu.held_bytes();
    let device = DeviceEdgeGraph::offsets_only(gpu, graph)?;
    let mut run = Run::new(gpu, program, graph, &device, config, &schedule)?;
    let frontier = FrontierBuffers::new(&run, run.frontier || mode == Mode::LocalConvergence)?;
    let vertex_bytes = gpu.held_bytes() - held_before;
    let plan = match options.subgraphs {
        Some(count) => SubgraphPlan::split(carried.len(), count, cel)?,
        None => {
            let budget = match options.device_memory {
                Some(budget) => budget,
                None => vertex_bytes + gpu.memory_info()?.0 / 10 * 9,
            };
            plan_for_memory(budget, vertex_bytes, carried, cel)?
        }
    };
    let weighted = carried.weights().is_some();
    let capacity = plan.piece_edges.min(carried.len().max(1)) as usize;
    let buffers = [EdgeBuffer::new(gpu, capacity, weighted)?, EdgeBuffer::new(gpu, capacity, weighted)?];
    times.device_bytes = gpu.held_bytes() - held_before;
    let staging = [Staging::new(gpu, capacity, weighted)?, Staging::new(gpu, capacity, weighted)?];
    let copies = gpu.copy_stream()?;
    let context = Streams { gpu, copies: &copies, buffers: &buffers };
    let outcome = std::thread::scope(|scope| -> Result<SubgraphOutcome<Value>> {
        let (to_consumer, filled) = sync_channel::<Result<Filled>>(1);
        let (to_producer, free) = channel::<Staging>();
        for slot in staging {
            let _ = to_producer.send(slot);
        }
        let producer = scope.spawn(|| produce(carried, plan, free, to_consumer));
        let mut consumer = Consumer { context, filled, to_producer, next: 0, pending: None, done: [None, None], copy_events: Vec::new(), compute_events: Vec::new(), bytes: 0 };
        let result = consume(&mut run, &mut consumer, &frontier, mode, plan, carried.len(), observer);
        times.bytes_copied = consumer.bytes;
        let (transfer, compute) = consumer.durations();
        drop(consumer);
        times.build += producer.join().map_err(|_| Error::Gpu("the thread building the pieces panicked".into()))?;
        times.transfer = transfer?;
        times.compute = compute?;
        result
    })?;
    times.elapsed = run.started.map_or(Duration::ZERO, |started| started.elapsed());
    let mut outcome = outcome;
    outcome.outcome.values = run.value.decode(&gpu.download(&run.values)?);
    Ok((outcome, times))
}

/// The plan whose two edge buffers fit `budget` beside the vertices' `vertex_bytes` and the
/// headroom (WolfGraph's Eq. 1).
fn plan_for_memory(budget: u64, vertex_bytes: u64, carried: &CarriedEdges, cel: bool) -> Result<SubgraphPlan> {
    let headroom = budget / HEADROOM_SHARE;
    let room = budget.saturating_sub(vertex_bytes + headroom);
    let buffer_edges = room / (2 * carried.edge_bytes());
    if buffer_edges < u64::from(BLOCK_EDGES) {
        return Err(Error::invalid(format!(
            "a device memory of {} bytes holds the vertices' state ({vertex_bytes} bytes) and headroom ({headroom}), \
             but not two edge buffers of {BLOCK_EDGES} edges ({} bytes each): give at least {} bytes",
            budget,
            u64::from(BLOCK_EDGES) * carried.edge_bytes(),
            (vertex_bytes + 2 * u64::from(BLOCK_EDGES) * carried.edge_bytes()) * HEADROOM_SHARE / (HEADROOM_SHARE - 1) + 1
        )));
    }
    match buffer_edges >= carried.len() {
        true => SubgraphPlan::split(carried.len(), 1, cel),
        false => SubgraphPlan::fitting(buffer_edges, cel),
    }
}

/// An edge buffer on the device.
struct EdgeBuffer {
    senders: DeviceBuffer<VertexId>,
    receivers: DeviceBuffer<VertexId>,
    weights: Option<DeviceBuffer<f32>>,
}

impl EdgeBuffer {
    fn new(gpu: &Gpu, capacity: usize, weighted: bool) -> Result<Self> {
        Ok(EdgeBuffer {
            senders: gpu.alloc_zeros("an edge buffer: senders", capacity)?,
            receivers: gpu.alloc_zeros("an edge buffer: receivers", capacity)?,
            weights: weighted.then(|| gpu.alloc_zeros("an edge buffer: weights", capacity)).transpose()?,
        })
    }

    fn arrays(&self, count: u64) -> EdgeArrays {
        EdgeArrays {
            senders: self.senders.device_ptr(),
            receivers: self.receivers.device_ptr(),
            weights: self.weights.as_ref().map_or(0, DeviceBuffer::device_ptr),
            count,
        }
    }
}

/// A pinned host buffer a piece is built in.
struct Staging {
    senders: PinnedHostBuffer<VertexId>,
    receivers: PinnedHostBuffer<VertexId>,
    weights: Option<PinnedHostBuffer<f32>>,
}

impl Staging {
    fn new(gpu: &Gpu, capacity: usize, weighted: bool) -> Result<Self> {
        Ok(Staging {
            senders: gpu.alloc_pinned("a piece's senders", capacity)?,
            receivers: gpu.alloc_pinned("a piece's receivers", capacity)?,
            weights: weighted.then(|| gpu.alloc_pinned("a piece's weights", capacity)).transpose()?,
        })
    }
}

/// A piece built, ready to copy.
struct Filled {
    staging: Staging,
    count: usize,
    /// Whether it is the last piece of an outer iteration.
    last: bool,
}

/// Builds the pieces of every outer iteration, in order, into the free staging buffers
/// (waiting for their last copy), until the consumer hangs up; returns the time spent.
fn produce(
    carried: &CarriedEdges,
    plan: SubgraphPlan,
    free: Receiver<Staging>,
    to_consumer: std::sync::mpsc::SyncSender<Result<Filled>>,
) -> Duration {
    let started = Instant::now();
    let mut pieces = Pieces::new(carried, plan);
    let mut spent = started.elapsed();
    let subgraphs = pieces.subgraphs();
    loop {
        for s in 0..subgraphs {
            let started = Instant::now();
            let list = pieces.of_subgraph(s);
            spent += started.elapsed();
            for (i, piece) in list.iter().enumerate() {
                let Ok(mut staging) = free.recv() else { return spent };
                let started = Instant::now();
                let filled = (|| {
                    let weights = match &mut staging.weights {
                        Some(w) => Some(w.as_mut_slice()?),
                        None => None,
                    };
                    Ok(piece.fill(carried, staging.senders.as_mut_slice()?, staging.receivers.as_mut_slice()?, weights))
                })();
                spent += started.elapsed();
                let message = filled
                    .map(|count| Filled { staging, count, last: s + 1 == subgraphs && i + 1 == list.len() });
                if to_consumer.send(message).is_err() {
                    return spent;
                }
            }
        }
    }
}

/// The device's side of a run on subgraphs.
#[derive(Clone, Copy)]
struct Streams<'s> {
    gpu: &'s Gpu,
    copies: &'s CopyStream<'s>,
    buffers: &'s [EdgeBuffer; 2],
}

/// A piece copied (or being copied) into an edge buffer.
struct Copied {
    buffer: usize,
    count: u64,
    last: bool,
    /// The copy's end, which the piece's kernels wait for.
    done: usize,
}

/// The pieces' consumer: copies one piece ahead, processes them in order.
struct Consumer<'s> {
    context: Streams<'s>,
    filled: Receiver<Result<Filled>>,
    to_producer: Sender<Staging>,
    /// Pieces copied so far (the next one's buffer is `next % 2`).
    next: usize,
    pending: Option<Copied>,
    /// Per edge buffer, the index in `compute_events` of the kernels that read it last.
    done: [Option<usize>; 2],
    copy_events: Vec<(CudaEvent, CudaEvent)>,
    compute_events: Vec<(CudaEvent, CudaEvent)>,
    bytes: u64,
}

impl Consumer<'_> {
    /// Takes the next built piece and queues its copy into the free edge buffer.
    fn copy_next(&mut self) -> Result<Copied> {
        let Streams { gpu: _, copies, buffers } = self.context;
        let Filled { mut staging, count, last } = self
            .filled
            .recv()
            .map_err(|_| Error::Gpu("the thread building the pieces stopped".into()))??;
        let buffer = self.next % 2;
        self.next += 1;
        if let Some(kernels) = self.done[buffer] {
            copies.wait_for(&self.compute_events[kernels].1)?;
        }
        let start = copies.record_timed()?;
        let target = &buffers[buffer];
        copies.copy_from(&mut staging.senders, 0..count, &target.senders)?;
        copies.copy_from(&mut staging.receivers, 0..count, &target.receivers)?;
        if let (Some(from), Some(to)) = (&mut staging.weights, &target.weights) {
            copies.copy_from(from, 0..count, to)?;
        }
        let end = copies.record_timed()?;
        self.bytes += count as u64 * (8 + if target.weights.is_some() { 4 } else { 0 });
        self.copy_events.push((start, end));
        // The buffers wait for their copies before they are written again.
        let _ = self.to_producer.send(staging);
        Ok(Copied { buffer, count: count as u64, last, done: self.copy_events.len() - 1 })
    }

    /// The next piece to process, its successor's copy queued; the main stream waits for its
    /// copy, and its kernels' start is recorded.
    fn take(&mut self) -> Result<Copied> {
        let current = match self.pending.take() {
            Some(piece) => piece,
            None => self.copy_next()?,
        };
        self.pending = Some(self.copy_next()?);
        let gpu = self.context.gpu;
        gpu.wait_for(&self.copy_events[current.done].1)?;
        self.compute_events.push((gpu.record()?, gpu.record()?));
        Ok(current)
    }

    /// Records the end of the kernels of `piece` (taken last).
    fn processed(&mut self, piece: &Copied) -> Result<()> {
        let last = self.compute_events.len() - 1;
        self.compute_events[last].1 = self.context.gpu.record()?;
        self.done[piece.buffer] = Some(last);
        Ok(())
    }

    /// The copy stream's and the main stream's busy times.
    fn durations(&self) -> (Result<Duration>, Result<Duration>) {
        let sum = |events: &[(CudaEvent, CudaEvent)]| -> Result<Duration> {
            let mut ms = 0.0;
            for (start, end) in events {
                ms += self.context.gpu.elapsed_ms(start, end)?;
            }
            Ok(Duration::from_secs_f64(ms / 1e3))
        };
        (sum(&self.copy_events), sum(&self.compute_events))
    }
}

/// The run's iterations over the pieces `consumer` receives.
fn consume<P: CompiledEdgeProgram + ?Sized>(
    run: &mut Run<'_, P>,
    consumer: &mut Consumer<'_>,
    frontier: &FrontierBuffers,
    mode: Mode,
    plan: SubgraphPlan,
    edges: u64,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<SubgraphOutcome<Value>> {
    run.init(frontier.at(0).active)?;
    let (mut outer, mut converged, mut stamp) = (0u32, false, 0u32);
    let (mut pieces, mut local_iterations, mut edges_loaded) = (0u64, 0u64, 0u64);
    let limit = if mode == Mode::LocalConvergence { u32::MAX } else { run.limit };
    while outer < limit && !converged {
        let view = run.begin(outer)?;
        let mut changed = 0u64;
        loop {
            let piece = consumer.take()?;
            let arrays = consumer.context.buffers[piece.buffer].arrays(piece.count);
            match mode {
                Mode::LocalConvergence => {
                    let mut first = true;
                    loop {
                        stamp = stamp
                            .checked_add(1)
                            .ok_or_else(|| Error::invalid("a run of more than 4 billion local iterations"))?;
                        let state = frontier.at(stamp);
                        // The first iteration's senders are all of the piece's.
                        let senders = if first { Frontier { active: 0, ..state } } else { state };
                        run.launch_edges(view, arrays, senders)?;
                        run.launch_apply(view, state)?;
                        let record = run.gpu.download(&run.status)?;
                        run.faults.check(&record)?;
                        check(run.program)?;
                        run.gpu.write(&mut run.status, &[0; COUNTERS])?;
                        local_iterations += 1;
                        changed += record[0];
                        first = false;
                        if record[0] == 0 {
                            break;
                        }
                    }
                }
                Mode::Streamed => {
                    run.launch_edges(view, arrays, frontier.at(outer + 1))?;
                    local_iterations += 1;
                }
            }
            consumer.processed(&piece)?;
            pieces += 1;
            edges_loaded += piece.count;
            if piece.last {
                break;
            }
        }
        let report = match mode {
            Mode::LocalConvergence => {
                observer(&IterationReport { iteration: outer, changed, step: "subgraphs" });
                changed
            }
            Mode::Streamed => {
                run.launch_apply(view, frontier.at(outer + 1))?;
                run.end(outer, "streamed", observer)?[0]
            }
        };
        outer += 1;
        converged = report == 0;
    }
    Ok(SubgraphOutcome {
        outcome: EdgeOutcome { values: Vec::new(), iterations: outer, converged },
        mode,
        plan,
        subgraphs: plan.subgraphs(edges),
        pieces,
        edges_loaded,
        local_iterations,
    })
}
