//! The edge-centric engine on graphs beyond the device's memory: the vertices' state on the
//! device, the edges in pieces of subgraphs ([`crate::edge::subgraphs`]: the plan, the CEL and
//! the modes), each piece copied into one of two edge buffers while the other is processed.
//!
//! The edges are placed once in pinned host memory (`PinnedEdges`, before the clock, as the
//! in-memory engines place theirs on the device; each buffer copied once to the device there,
//! since the first copies from new pinned memory run at about 7 GB/s against 55 GB/s after),
//! so a piece's own edges go to the device by DMA with no host work. With the CEL a host
//! thread builds, during the first outer iteration, each subgraph's concatenated edges one
//! subgraph ahead of the device: on a symmetric graph by a scan of its own edges into pinned
//! buffers sized and placed with the edges (the scan's count is cheap), else with the mapping
//! array into pinned memory of their own; later outer iterations copy them again as they
//! are. The run's clock stops after its last iteration (unpinning the buffers takes seconds
//! on a large graph). The device's copy stream copies a piece into the free edge
//! buffer as soon as the kernels that read that buffer last are done (one piece ahead), and
//! the main stream waits for the copy before the piece's kernels. A piece runs in
//! [`Mode::LocalConvergence`] as edge-centric iterations until none of its receivers changes
//! (the first with every sender active, then the senders that changed), in
//! [`Mode::Streamed`] as one edge kernel of its iteration, the iteration's `apply` after its
//! last piece. Each phase is timed: the host's CEL build, the copy stream's copies and the
//! main stream's kernels ([`SubgraphTimes`]).

use super::{declared_types, DeviceEdgeGraph, EdgeArrays, Frontier, FrontierBuffers, Run};
use crate::device::{CopyStream, DeviceBuffer, Gpu, PinnedHostBuffer};
use crate::edge::engine::{check, Schedule};
use crate::edge::subgraphs::{CarriedEdges, Mode, Pieces, SubgraphOutcome, SubgraphPlan};
use crate::edge::{CompiledEdgeProgram, EdgeConfig, EdgeGraph, EdgeOutcome, IterationReport};
use crate::error::{Error, Result};
use crate::graph::VertexId;
use cudarc::driver::CudaEvent;
use glp_codegen::interp::Value;
use glp_codegen::kinds::edge::{frontier::COUNTERS, BLOCK_EDGES};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
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
    /// Placing the edges in pinned host memory, before the clock (as the in-memory engines'
    /// upload).
    pub place: Duration,
    /// The host building the CEL: its mapping array and each subgraph's concatenated edges
    /// gathered into pinned memory, during the first outer iteration (overlapped with the
    /// device's work, but for the first subgraph's).
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
/// engine's arrays (each edge's sender, receiver and weight), the row offsets, the vertices'
/// state (at most 32 bytes a vertex) and a degree order's two mappings, with the headroom of
/// a run on subgraphs.
pub fn fits_in_memory<P: CompiledEdgeProgram + ?Sized>(
    program: &P,
    graph: &EdgeGraph<'_>,
    config: &EdgeConfig,
    budget: u64,
) -> Result<bool> {
    let schedule = Schedule::of(program, graph, config)?;
    let weight = if program.weighted() || graph.out_edges().is_weighted() { 4 } else { 0 };
    let edges = graph.edges_read(schedule.direction, schedule.combine)? * (8 + weight);
    let vertices = graph.num_vertices() as u64 * (16 + 32 + 8);
    Ok(edges + vertices <= budget - budget / HEADROOM_SHARE)
}

/// Runs `program` on `graph` on `gpu` with the edges in subgraphs (see the module docs);
/// `observer` sees each outer iteration (streamed: each iteration) as it ends, `step`
/// `subgraphs` or `streamed`. The outcome's `iterations` are outer iterations.
///
/// Errors: [`super::run_on`]'s, `Mode::of`'s (the CEL asked for a program it would give
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
    let placed = Instant::now();
    let carried = CarriedEdges::pulled(graph, schedule.direction, schedule.combine)?;
    let place = placed.elapsed();
    let (outcome, times) = run_on_edges(gpu, program, graph, &carried, config, options, observer)?;
    Ok((outcome, SubgraphTimes { place: times.place + place, ..times }))
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
    let (mode, cel) = Mode::of(program.name(), &schedule, program.features(), options.cel)?;
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
    let mut run = Run::new(gpu, program, graph, &device, config, &schedule, declared_types(program)?)?;
    let frontier = FrontierBuffers::new(&run, run.frontier || mode == Mode::LocalConvergence)?;
    let vertex_bytes = gpu.held_bytes() - held_before;
    let plan = match options.subgraphs {
        Some(count) => SubgraphPlan::split(carried.len(), count, cel)?.checked(carried.len())?,
        None => {
            let budget = match options.device_memory {
                Some(budget) => budget,
                None => vertex_bytes + gpu.memory_info()?.0 / 10 * 9,
            };
            plan_for_memory(budget, vertex_bytes, carried, cel)?.checked(carried.len())?
        }
    };
    let weighted = carried.weights().is_some();
    let capacity = plan.piece_edges.min(carried.len().max(1)) as usize;
    let buffers = [EdgeBuffer::new(gpu, capacity, weighted)?, EdgeBuffer::new(gpu, capacity, weighted)?];
    times.device_bytes = gpu.held_bytes() - held_before;
    let copies = gpu.copy_stream()?;
    // The edge buffers are allocated on the main stream: the warming copies come after.
    copies.wait_for(&gpu.record()?)?;
    let placed = Instant::now();
    let mut pinned = PinnedEdges::copy_of(gpu, carried, "the edge list")?;
    pinned.warm(&copies, &buffers[0])?;
    // The CEL's buffers, where their sizes cost a scan: placed (and warmed) with the edges.
    let stores = match Pieces::new(carried, plan).cel_sizes() {
        Some(sizes) => {
            let mut stores = Vec::with_capacity(sizes.len());
            for size in sizes {
                let mut store = PinnedEdges::alloc(gpu, size, weighted, "a subgraph's concatenated edges")?;
                store.warm(&copies, &buffers[0])?;
                stores.push(store);
            }
            Some(stores)
        }
        None => None,
    };
    times.place = placed.elapsed();
    let context = Streams { gpu, copies: &copies, buffers: &buffers };
    let outcome = std::thread::scope(|scope| -> Result<SubgraphOutcome<Value>> {
        let (to_consumer, from_builder) = sync_channel::<Result<PinnedEdges>>(1);
        let builder = match plan.cel {
            true => Some(scope.spawn(move || build_cels(gpu, carried, plan, stores, to_consumer))),
            false => None,
        };
        let stream = PieceStream {
            plan,
            edges: carried.len(),
            subgraphs: plan.subgraphs(carried.len()),
            cels: Vec::new(),
            from_builder: plan.cel.then_some(from_builder),
            queued: Default::default(),
            next: 0,
        };
        let mut consumer = Consumer {
            context,
            edges: pinned,
            stream,
            next: 0,
            pending: None,
            done: [None, None],
            copy_events: Vec::new(),
            copied: Vec::new(),
            compute_events: Vec::new(),
            started: None,
            bytes: 0,
        };
        let result = consume(&mut run, &mut consumer, &frontier, mode, plan, carried.len(), observer);
        // The clock stops here: unpinning the buffers below takes seconds on a large graph.
        times.elapsed = run.started.map_or(Duration::ZERO, |started| started.elapsed());
        times.bytes_copied = consumer.bytes;
        let (transfer, compute) = consumer.durations();
        drop(consumer);
        if let Some(builder) = builder {
            times.build = builder.join().map_err(|_| Error::Gpu("the thread building the CEL panicked".into()))?;
        }
        times.transfer = transfer?;
        times.compute = compute?;
        result
    })?;
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
            (vertex_bytes + 2 * u64::from(BLOCK_EDGES) * carried.edge_bytes()) * HEADROOM_SHARE / (HEADROOM_SHARE - 1)
                + 1
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

/// Edges in pinned host memory: the edge list, or a subgraph's concatenated edges.
struct PinnedEdges {
    senders: PinnedHostBuffer<VertexId>,
    receivers: PinnedHostBuffer<VertexId>,
    weights: Option<PinnedHostBuffer<f32>>,
    len: usize,
}

impl PinnedEdges {
    /// Pinned memory for `len` edges.
    fn alloc(gpu: &Gpu, len: usize, weighted: bool, what: &str) -> Result<Self> {
        Ok(PinnedEdges {
            senders: gpu.alloc_pinned(&format!("{what}: senders"), len)?,
            receivers: gpu.alloc_pinned(&format!("{what}: receivers"), len)?,
            weights: weighted.then(|| gpu.alloc_pinned(&format!("{what}: weights"), len)).transpose()?,
            len,
        })
    }

    /// A copy of `carried`, made on every thread.
    fn copy_of(gpu: &Gpu, carried: &CarriedEdges, what: &str) -> Result<Self> {
        let len = carried.len() as usize;
        let mut pinned = PinnedEdges::alloc(gpu, len, carried.weights().is_some(), what)?;
        parallel_copy(&mut pinned.senders.as_mut_slice()?[..len], carried.senders());
        parallel_copy(&mut pinned.receivers.as_mut_slice()?[..len], carried.receivers());
        if let (Some(out), Some(from)) = (&mut pinned.weights, carried.weights()) {
            parallel_copy(&mut out.as_mut_slice()?[..len], from);
        }
        Ok(pinned)
    }

    /// Fills the buffer with subgraph `s`'s CEL in place ([`Pieces::concatenated_into`]).
    fn fill_cel(&mut self, pieces: &Pieces<'_>, s: u64) -> Result<()> {
        let len = self.len;
        let weights = match &mut self.weights {
            Some(w) => Some(&mut w.as_mut_slice()?[..len]),
            None => None,
        };
        let senders = &mut self.senders.as_mut_slice()?[..len];
        pieces.concatenated_into(s, senders, &mut self.receivers.as_mut_slice()?[..len], weights);
        Ok(())
    }

    /// Copies the buffer once through `buffer` and waits: the first copies from new pinned
    /// memory run at a fraction of the bus's rate (measured: about 7 GB/s on an H200 host
    /// against 55 GB/s after), so a run's placement makes them before its clock starts.
    fn warm<'s>(&mut self, copies: &CopyStream<'s>, buffer: &'s EdgeBuffer) -> Result<()> {
        let chunk = buffer.senders.len().max(1);
        let mut at = 0;
        while at < self.len {
            let end = (at + chunk).min(self.len);
            self.copy(copies, at..end, buffer, 0)?;
            at = end;
        }
        copies.synchronize()
    }

    /// Queues the copy of `range` into `buffer` from edge `at` on.
    fn copy<'s>(
        &mut self,
        copies: &CopyStream<'s>,
        range: Range<usize>,
        buffer: &'s EdgeBuffer,
        at: usize,
    ) -> Result<()> {
        copies.copy_from(&mut self.senders, range.clone(), &buffer.senders, at)?;
        copies.copy_from(&mut self.receivers, range.clone(), &buffer.receivers, at)?;
        if let (Some(from), Some(to)) = (&mut self.weights, &buffer.weights) {
            copies.copy_from(from, range, to, at)?;
        }
        Ok(())
    }
}

/// `to = from` on every thread (a memcpy on one thread is slower than the bus).
fn parallel_copy<T: Copy + Send + Sync>(to: &mut [T], from: &[T]) {
    const CHUNK: usize = 1 << 20;
    to.par_chunks_mut(CHUNK).zip(from.par_chunks(CHUNK)).for_each(|(t, f)| t.copy_from_slice(f));
}

/// Builds each subgraph's concatenated edges in pinned memory, in order, until the consumer
/// hangs up: into `stores` (sized and placed before the run's clock) where given, else each
/// into pinned memory of its own; returns the time spent building (not waiting to send).
fn build_cels(
    gpu: &Gpu,
    carried: &CarriedEdges,
    plan: SubgraphPlan,
    stores: Option<Vec<PinnedEdges>>,
    to_consumer: SyncSender<Result<PinnedEdges>>,
) -> Duration {
    let mut pieces = Pieces::new(carried, plan);
    let mut stores = stores.map(Vec::into_iter);
    let mut spent = Duration::ZERO;
    for s in 0..pieces.subgraphs() {
        let started = Instant::now();
        let cel = match stores.as_mut().and_then(Iterator::next) {
            Some(mut store) => store.fill_cel(&pieces, s).map(|()| store),
            None => pieces
                .concatenated(s)
                .and_then(|cel| PinnedEdges::copy_of(gpu, &cel, "a subgraph's concatenated edges")),
        };
        spent += started.elapsed();
        if to_consumer.send(cel).is_err() {
            break;
        }
    }
    spent
}

/// One piece: its own edges (a range of the edge list) and its range of its subgraph's CEL.
struct PieceSpec {
    subgraph: usize,
    own: Range<u64>,
    cel: Range<usize>,
    /// Whether it is the last piece of an outer iteration.
    last: bool,
}

impl PieceSpec {
    fn count(&self) -> u64 {
        self.own.end - self.own.start + self.cel.len() as u64
    }
}

/// The pieces of every outer iteration in order, the CELs received from their builder in the
/// first one and kept for the others.
struct PieceStream {
    plan: SubgraphPlan,
    edges: u64,
    subgraphs: u64,
    cels: Vec<PinnedEdges>,
    from_builder: Option<Receiver<Result<PinnedEdges>>>,
    queued: std::collections::VecDeque<PieceSpec>,
    /// The next subgraph to cut.
    next: u64,
}

impl PieceStream {
    fn next(&mut self) -> Result<PieceSpec> {
        while self.queued.is_empty() {
            let s = self.next % self.subgraphs;
            self.next += 1;
            let cel_len = match &self.from_builder {
                Some(builder) if self.cels.len() as u64 <= s => {
                    let cel = builder
                        .recv()
                        .map_err(|_| Error::Gpu("the thread building the concatenated edges stopped".into()))??;
                    self.cels.push(cel);
                    self.cels[s as usize].len
                }
                Some(_) => self.cels[s as usize].len,
                None => 0,
            };
            let own = self.plan.own(s, self.edges);
            let shapes = self.plan.cut(own, cel_len);
            let count = shapes.len();
            for (i, (own, cel)) in shapes.into_iter().enumerate() {
                let last = s + 1 == self.subgraphs && i + 1 == count;
                self.queued.push_back(PieceSpec { subgraph: s as usize, own, cel, last });
            }
        }
        Ok(self.queued.pop_front().expect("a piece was queued"))
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
    /// The copy's events' index, whose end the piece's kernels wait for.
    done: usize,
}

/// The pieces' consumer: copies one piece ahead, processes them in order.
struct Consumer<'s> {
    context: Streams<'s>,
    edges: PinnedEdges,
    stream: PieceStream,
    /// Pieces copied so far (the next one's buffer is `next % 2`).
    next: usize,
    pending: Option<Copied>,
    /// Per edge buffer, the index in `compute_events` of the kernels that read it last.
    done: [Option<usize>; 2],
    copy_events: Vec<(CudaEvent, CudaEvent)>,
    /// The copies of the pieces processed, by index in `copy_events`.
    copied: Vec<usize>,
    compute_events: Vec<(CudaEvent, CudaEvent)>,
    /// The start of the kernels of the piece being processed.
    started: Option<CudaEvent>,
    bytes: u64,
}

impl Consumer<'_> {
    /// Queues the copy of the next piece into the free edge buffer.
    fn copy_next(&mut self) -> Result<Copied> {
        let Streams { gpu: _, copies, buffers } = self.context;
        let piece = self.stream.next()?;
        let buffer = self.next % 2;
        self.next += 1;
        if let Some(kernels) = self.done[buffer] {
            copies.wait_for(&self.compute_events[kernels].1)?;
        }
        let start = copies.record_timed()?;
        let target = &buffers[buffer];
        let own = (piece.own.start as usize)..(piece.own.end as usize);
        let at = own.len();
        self.edges.copy(copies, own, target, 0)?;
        if !piece.cel.is_empty() {
            self.stream.cels[piece.subgraph].copy(copies, piece.cel.clone(), target, at)?;
        }
        let end = copies.record_timed()?;
        self.copy_events.push((start, end));
        Ok(Copied { buffer, count: piece.count(), last: piece.last, done: self.copy_events.len() - 1 })
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
        self.started = Some(gpu.record()?);
        Ok(current)
    }

    /// Records the end of the kernels of `piece` (taken last), and counts its copy.
    fn processed(&mut self, piece: &Copied) -> Result<()> {
        let start =
            self.started.take().ok_or_else(|| Error::invalid("internal: a piece processed before it was taken"))?;
        self.compute_events.push((start, self.context.gpu.record()?));
        self.done[piece.buffer] = Some(self.compute_events.len() - 1);
        let weighted = self.context.buffers[piece.buffer].weights.is_some();
        self.bytes += piece.count * (8 + if weighted { 4 } else { 0 });
        self.copied.push(piece.done);
        Ok(())
    }

    /// The copy stream's busy time on the pieces processed (not the one copied ahead when the
    /// run ended) and the main stream's on their kernels.
    fn durations(&self) -> (Result<Duration>, Result<Duration>) {
        let sum = |events: &mut dyn Iterator<Item = &(CudaEvent, CudaEvent)>| -> Result<Duration> {
            let mut ms = 0.0;
            for (start, end) in events {
                ms += self.context.gpu.elapsed_ms(start, end)?;
            }
            Ok(Duration::from_secs_f64(ms / 1e3))
        };
        (sum(&mut self.copied.iter().map(|&i| &self.copy_events[i])), sum(&mut self.compute_events.iter()))
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
