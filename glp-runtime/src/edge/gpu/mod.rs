//! The GPU's engines for edge programs: the edge-centric engine (WolfGraph) and the frontier
//! engine (push and pull on CSRs, the direction chosen per iteration), with the same
//! iterations as the CPU engine.
//!
//! The program's hooks are fused with the engines' kernels (glp-codegen's
//! `kinds::edge::engine_source`), compiled by NVRTC through the PTX cache. The graph is placed
//! once ([`DeviceEdgeGraph`]) with the arrays the engines of a run read, then [`run_on`] runs
//! a program with the [`Engine`] asked for:
//!
//! - `edge_centric`: every iteration processes every edge, in edge blocks that combine their
//!   messages in shared memory and flush them in the same kernel;
//! - `frontier`: an iteration pushes along the rows of the vertices that changed in the one
//!   before (a sparse frontier) or lets every receiver pull from its rows (a dense frontier,
//!   and every iteration of a program without one), as Beamer's direction-optimising BFS,
//!   generalised to any program.
//!
//! Both share what this module holds: the run's values and status on the device, the initial
//! values, the `aggregate` sum before an iteration, the loop fault check and the decoding of
//! the values. Min and max combines give the CPU engine's values exactly (the combine's order
//! does not matter); sums are added in another order than the CPU's row order and agree to
//! rounding. Values come back as the interpreter's [`Value`]s (the program's declared value
//! type, decoded from the C layout of `glp_edge_value`), whatever the program's Rust type.

mod edge_centric;
mod frontier;
mod placed;
mod subgraphs;

pub use placed::{DeviceEdgeGraph, VertexOrder, ORDER_BYTES_PER_VERTEX};
pub use subgraphs::{fits_in_memory, run_on_edges, run_on_subgraphs, SubgraphOptions, SubgraphTimes};

use super::engine::{check, Schedule};
use super::{CompiledEdgeProgram, EdgeConfig, EdgeGraph, EdgeOutcome, IterationReport, NO_SOURCE};
use crate::device::{cache, param_block, DeviceBuffer, Gpu, Kernel, KernelArg, KernelArgs, Module, Shape};
use crate::error::{Error, Result};
use glp_codegen::interp::{Tuple, Value};
use glp_codegen::ir::{Scalar, ScalarValue, Type};
use glp_codegen::kinds::edge::layout::{EdgeViewArgs, FrontierArgs};
use glp_codegen::kinds::edge::{
    engine_source, kernels, AGGREGATE_FEATURE, BLOCK_EDGES, EDGE_KIND, ENGINE_THREADS, MESSAGE, RECEIVER_FEATURE,
    SETTLED_FEATURE, VALUE,
};
use glp_codegen::loops::{decode_loop_fault, default_loop_budget};
use rayon::prelude::*;
use std::time::{Duration, Instant};

// SAFETY: `EdgeViewArgs` and `FrontierArgs` are declared with glp-codegen's `c_struct!`,
// which makes them `#[repr(C)]` and generates the kernels' `glp_edge_view` and
// `glp_frontier_state` from the same tables, checking at compile time that they have no
// padding and that every field is as wide as its C type (device pointers are `u64`
// addresses): their layouts, byte for byte.
unsafe impl KernelArg for EdgeViewArgs {}
unsafe impl KernelArg for FrontierArgs {}

/// Which GPU engine runs a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The edge-centric engine: every edge every iteration.
    Edge,
    /// The frontier engine, push or pull chosen per iteration from the frontier's size.
    Frontier,
    /// The frontier engine, always pushing (only for programs with a frontier).
    Push,
    /// The frontier engine, always pulling.
    Pull,
    /// On a graph whose edge arrays exceed the device's L2 cache, the frontier engine for
    /// programs whose pulls it shortens (`settled`: BFS) or that read every edge each
    /// iteration (no frontier: PageRank, a gather), for every program when the device holds
    /// the vertices by degree ([`VertexOrder`]), and in the graph's order for programs whose
    /// `edge` reads only its sender (WCC) once every vertex's message takes more than twice
    /// the L2 cache (the edge-centric engine's gathers of the senders' values then miss the
    /// cache more than a pull's, whose senders are flagged in a bitmap the cache holds:
    /// graph500-26 against R-MAT 24); the edge-centric engine for the others (SSSP in the
    /// graph's order) and on smaller graphs, whose iterations are short enough for the
    /// frontier engine's extra launches to dominate. Measured with `glp bench run` (see
    /// BENCHMARKS.md; H200, weighted R-MAT 24 in degree order, frontier against edge-centric: SSSP
    /// 124 against 141 ms, SSWP 152 against 220, WCC 34.3-35.0 against 35.9-36.7; in the
    /// graph's order the edge-centric engine wins R-MAT 24's WCC, 50.4 against 62.6 ms, and
    /// R-MAT 22's SSSP, 36.9 against 62.4).
    #[default]
    Auto,
}

impl Engine {
    /// The engine that runs a program with (`frontier`) or without a frontier and the
    /// facilities `features` ([`CompiledEdgeProgram::features`]) on a graph of `footprint`
    /// whose vertices the device holds by degree (`by_degree`) or in the graph's order:
    /// [`Engine::Auto`] resolved.
    pub fn for_program(self, frontier: bool, features: &[&str], footprint: Footprint, by_degree: bool) -> Engine {
        match (self, footprint) {
            (Engine::Auto, Footprint::InL2) => Engine::Edge,
            (Engine::Auto, _) if !frontier || features.contains(&SETTLED_FEATURE) || by_degree => Engine::Frontier,
            (Engine::Auto, Footprint::MessagesBeyondL2) if !features.contains(&RECEIVER_FEATURE) => Engine::Frontier,
            (Engine::Auto, _) => Engine::Edge,
            (engine, _) => engine,
        }
    }

    /// Whether the engine reads the edge-centric engine's arrays (receivers expanded).
    pub(crate) fn edge_centric(self) -> bool {
        matches!(self, Engine::Edge | Engine::Auto)
    }

    /// Whether the engine reads the frontier engine's push rows.
    pub(crate) fn frontier(self) -> bool {
        !matches!(self, Engine::Edge)
    }
}

/// How a run's arrays compare with the device's L2 cache, by which [`Engine::Auto`] chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Footprint {
    /// The edges an iteration reads fit in the cache (in the edge-centric engine's arrays).
    InL2,
    /// The edges exceed the cache; every vertex's message fits in [`MESSAGES_IN_L2`] times it.
    EdgesBeyondL2,
    /// Every vertex's message takes more than [`MESSAGES_IN_L2`] times the cache.
    MessagesBeyondL2,
}

/// Bytes an edge takes in the edge-centric engine's arrays (sender and receiver), by which
/// [`Engine::Auto`] sizes a graph against the L2 cache.
const EDGE_BYTES: u64 = 8;

/// How many times the L2 cache the vertices' messages may take before the frontier engine's
/// pulls beat the edge-centric engine for programs whose `edge` reads only its sender.
pub const MESSAGES_IN_L2: u64 = 2;

/// The footprint of `schedule` on `graph` with messages of `message_bytes` on `gpu`.
fn footprint<M>(gpu: &Gpu, graph: &EdgeGraph<'_>, schedule: &Schedule<M>, message_bytes: usize) -> Result<Footprint> {
    let l2 = gpu.info().l2_bytes;
    Ok(if graph.edges_read(schedule.direction, schedule.combine)? * EDGE_BYTES <= l2 {
        Footprint::InL2
    } else if graph.num_vertices() as u64 * message_bytes as u64 > MESSAGES_IN_L2 * l2 {
        Footprint::MessagesBeyondL2
    } else {
        Footprint::EdgesBeyondL2
    })
}

/// Runs `program` on `graph` on `gpu` with `engine`: the graph's edges placed on the device
/// with its vertices in `order` ([`DeviceEdgeGraph::upload`]), then [`run_on`], whose outcome
/// and iteration time it returns.
///
/// Errors: [`run_on`]'s, and the device's while placing the graph.
pub fn run<P: CompiledEdgeProgram + ?Sized>(
    gpu: &Gpu,
    program: &P,
    graph: &EdgeGraph<'_>,
    config: &EdgeConfig,
    (engine, order): (Engine, VertexOrder),
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<(EdgeOutcome<Value>, Duration)> {
    let by_degree = order.places_by_degree(gpu, graph)?;
    let prepared = Prepared::of(gpu, program, graph, config, engine, by_degree)?;
    let order = if by_degree { VertexOrder::Degree } else { VertexOrder::Graph };
    let device = DeviceEdgeGraph::upload(gpu, graph, prepared.schedule.direction, prepared.engine, order)?;
    run_prepared(gpu, program, graph, &device, config, prepared, observer)
}

/// Runs `program` on `graph`, whose edges `device` holds, on `gpu` with `engine`; `observer`
/// sees each iteration as it ends. Returns the outcome and the time from the first kernel
/// (the initial values) to the end of the last iteration: the program's module, the engine's
/// buffers and the download of the values excluded.
///
/// Errors: the CPU engine's ([`super::run`]: a schedule hook out of range, a weighted program
/// on a graph without weights, a source that is not a vertex), a message type without GPU
/// atomics (`bool`), [`Engine::Push`] for a program without a frontier, an engine or
/// direction whose arrays `device` was not placed with, a hook whose loops ran past their
/// step budget, the device's (out of memory, a kernel that does not compile).
pub fn run_on<P: CompiledEdgeProgram + ?Sized>(
    gpu: &Gpu,
    program: &P,
    graph: &EdgeGraph<'_>,
    device: &DeviceEdgeGraph,
    config: &EdgeConfig,
    engine: Engine,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<(EdgeOutcome<Value>, Duration)> {
    let prepared = Prepared::of(gpu, program, graph, config, engine, device.by_degree())?;
    run_prepared(gpu, program, graph, device, config, prepared, observer)
}

/// What a run needs before its graph is placed: the schedule, the program's declared types
/// (compiled once) and the engine ([`Engine::Auto`] resolved).
struct Prepared<M> {
    schedule: Schedule<M>,
    declared: (ValueLayout, Scalar),
    engine: Engine,
}

impl<M> Prepared<M> {
    fn of<P: CompiledEdgeProgram<Message = M> + ?Sized>(
        gpu: &Gpu,
        program: &P,
        graph: &EdgeGraph<'_>,
        config: &EdgeConfig,
        engine: Engine,
        by_degree: bool,
    ) -> Result<Self> {
        let schedule = Schedule::of(program, graph, config)?;
        let declared = declared_types(program)?;
        let footprint = footprint(gpu, graph, &schedule, declared.1.size())?;
        let engine = engine.for_program(schedule.frontier, program.features(), footprint, by_degree);
        Ok(Prepared { schedule, declared, engine })
    }
}

/// [`run_on`] once prepared.
fn run_prepared<P: CompiledEdgeProgram + ?Sized>(
    gpu: &Gpu,
    program: &P,
    graph: &EdgeGraph<'_>,
    device: &DeviceEdgeGraph,
    config: &EdgeConfig,
    prepared: Prepared<P::Message>,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<(EdgeOutcome<Value>, Duration)> {
    let mut run = Run::new(gpu, program, graph, device, config, &prepared.schedule, prepared.declared)?;
    let (iterations, converged) = match prepared.engine {
        Engine::Edge => edge_centric::iterate(&mut run, observer)?,
        engine => frontier::iterate(&mut run, engine, observer)?,
    };
    let elapsed = run.started.map_or(Duration::ZERO, |started| started.elapsed());
    let mut values = run.value.decode(&gpu.download(&run.values)?);
    if let Some(placed) = device.order() {
        values = placed.order.to_graph_order(&values);
    }
    Ok((EdgeOutcome { values, iterations, converged }, elapsed))
}

/// What both engines share in a run: the program's module, its parameters, the view, the
/// vertex values and combined messages on the device, and the status the host reads after
/// each iteration (`[changed, loop fault code, loop fault id, ...]`, the view's `fault`
/// pointing at its second word).
struct Run<'r, P: ?Sized> {
    gpu: &'r Gpu,
    program: &'r P,
    device: &'r DeviceEdgeGraph,
    direction: u32,
    frontier: bool,
    op: u32,
    limit: u32,
    /// The module's kernels by name ([`kernels::ALL`]), their handles taken before the run's
    /// clock starts (the driver loads a kernel lazily, when its handle is first taken).
    kernels: Vec<(&'static str, Kernel)>,
    params: Vec<u8>,
    value: ValueLayout,
    message: Scalar,
    values: DeviceBuffer<u8>,
    combined: DeviceBuffer<u8>,
    status: DeviceBuffer<u64>,
    sum: DeviceBuffer<f64>,
    start: EdgeViewArgs,
    aggregates: bool,
    faults: Faults<'r, P>,
    /// When the first kernel was queued ([`Run::init`]).
    started: Option<Instant>,
}

impl<'r, P: CompiledEdgeProgram + ?Sized> Run<'r, P> {
    fn new<M>(
        gpu: &'r Gpu,
        program: &'r P,
        graph: &EdgeGraph<'_>,
        device: &'r DeviceEdgeGraph,
        config: &EdgeConfig,
        schedule: &Schedule<M>,
        (value, message): (ValueLayout, Scalar),
    ) -> Result<Self> {
        let n = graph.num_vertices();
        if device.num_vertices() != n {
            return Err(Error::invalid(format!(
                "internal: a device graph of {} vertices for a graph of {n}",
                device.num_vertices()
            )));
        }
        let module = load(gpu, program)?;
        let kernels = kernels::ALL.iter().map(|&name| Ok((name, module.kernel(name)?))).collect::<Result<_>>()?;
        let status: DeviceBuffer<u64> =
            gpu.alloc_zeros("iteration status", glp_codegen::kinds::edge::frontier::COUNTERS)?;
        let loop_budget = default_loop_budget(n as u64, 0);
        let start = EdgeViewArgs {
            graph_ids: device.order().map_or(0, |o| o.graph_ids.device_ptr()),
            device_vertices: device.order().map_or(0, |o| o.positions.device_ptr()),
            out_offsets: device.out_offsets().device_ptr(),
            in_offsets: device.in_offsets().device_ptr(),
            fault: status.device_ptr() + 8,
            loop_budget,
            aggregated: 0.0,
            num_vertices: n as u32,
            source: config.source.unwrap_or(NO_SOURCE),
            iteration: 0,
            reserved: 0,
        };
        Ok(Run {
            gpu,
            program,
            device,
            direction: schedule.direction,
            frontier: schedule.frontier,
            op: schedule.combine,
            limit: schedule.limit,
            params: param_block(&program.param_values()),
            values: gpu.alloc_zeros("vertex values", n * value.size)?,
            combined: gpu.alloc_zeros("combined messages", n * message.size())?,
            status,
            sum: gpu.alloc_zeros("aggregate sum", 1)?,
            start,
            aggregates: program.features().contains(&AGGREGATE_FEATURE),
            faults: Faults { program, budget: loop_budget },
            started: None,
            kernels,
            value,
            message,
        })
    }

    fn num_vertices(&self) -> u64 {
        u64::from(self.start.num_vertices)
    }

    /// A launch shape of a thread per vertex.
    fn per_vertex(&self) -> Result<Shape> {
        Shape::covering(self.num_vertices(), ENGINE_THREADS)
    }

    /// The kernel arguments every hook-running kernel starts with: the parameters and `view`.
    fn with_view(&self, view: EdgeViewArgs) -> KernelArgs {
        KernelArgs::new().bytes(&self.params).value(view)
    }

    fn launch(&self, kernel: &str, shape: Shape, args: &KernelArgs) -> Result<()> {
        let Some((_, kernel)) = self.kernels.iter().find(|(name, _)| *name == kernel) else {
            return Err(Error::invalid(format!("internal: no kernel {kernel} in the engines' table")));
        };
        self.gpu.launch(kernel, shape, args)
    }

    /// Queues `glp_edge_edges` over `count` edges (senders, receivers and weights at device
    /// addresses; weights 0 for none): each message combined into its receiver's slot, with
    /// a frontier (`frontier`: the active flags and message stamps, `stamp` this iteration's)
    /// only the active senders' (every sender's when the flags' address is 0).
    fn launch_edges(&self, view: EdgeViewArgs, edges: EdgeArrays, frontier: Frontier) -> Result<()> {
        if edges.count == 0 {
            return Ok(());
        }
        let blocks = edges.count.div_ceil(u64::from(BLOCK_EDGES));
        let shape = Shape::covering(blocks * u64::from(ENGINE_THREADS), ENGINE_THREADS)?;
        let args = self
            .with_view(view)
            .value(edges.senders)
            .value(edges.receivers)
            .value(edges.weights)
            .value(edges.count)
            .value(frontier.active)
            .buffer(&self.values)
            .buffer(&self.combined)
            .value(frontier.received_at)
            .value(frontier.stamp)
            .value(self.op);
        self.launch(kernels::EDGES, shape, &args)
    }

    /// Queues `glp_edge_apply_values`: every vertex's `apply` (with a frontier, the vertices
    /// stamped `frontier.stamp`'s), the changes counted into the status, the next active
    /// flags written.
    fn launch_apply(&self, view: EdgeViewArgs, frontier: Frontier) -> Result<()> {
        let args = self
            .with_view(view)
            .buffer(&self.values)
            .buffer(&self.combined)
            .value(frontier.active)
            .value(frontier.received_at)
            .value(frontier.stamp)
            .value(self.op)
            .buffer(&self.status);
        self.launch(kernels::APPLY_VALUES, self.per_vertex()?, &args)
    }

    /// Starts the run's clock (an engine's buffers are in place), then gives every vertex its
    /// `init` value; the combined messages at the identity; every vertex active where
    /// `active` (a device address) is not 0.
    fn init(&mut self, active: u64) -> Result<()> {
        self.gpu.synchronize()?;
        self.started = Some(Instant::now());
        let args = self.with_view(self.start).buffer(&self.values).buffer(&self.combined).value(active).value(self.op);
        self.launch(kernels::INIT_VALUES, self.per_vertex()?, &args)?;
        self.faults.check(&self.gpu.download(&self.status)?)
    }

    /// Starts iteration `iteration`: the status zeroed (before any of the iteration's kernels,
    /// so that a loop fault of any hook is still there when the host reads it) and, for a
    /// program that reads it, the sum of `aggregate`. Returns the iteration's view.
    fn begin(&mut self, iteration: u32) -> Result<EdgeViewArgs> {
        self.gpu.write(&mut self.status, &[0; glp_codegen::kinds::edge::frontier::COUNTERS])?;
        let mut view = EdgeViewArgs { iteration, ..self.start };
        if self.aggregates {
            self.gpu.write(&mut self.sum, &[0.0])?;
            let args = self.with_view(view).buffer(&self.values).buffer(&self.sum);
            self.launch(kernels::AGGREGATE_VALUES, self.per_vertex()?, &args)?;
            view.aggregated = self.gpu.download(&self.sum)?[0];
        }
        Ok(view)
    }

    /// Ends an iteration that ran as `step`: its status read, a loop fault or a hook's
    /// failure reported, the observer told. Returns the status.
    fn end(&self, iteration: u32, step: &'static str, observer: &mut dyn FnMut(&IterationReport)) -> Result<Vec<u64>> {
        let record = self.gpu.download(&self.status)?;
        self.faults.check(&record)?;
        check(self.program)?;
        observer(&IterationReport { iteration, changed: record[0], step });
        Ok(record)
    }
}

/// The C layout of `program`'s value and its message's scalar.
///
/// Errors: the program's source does not compile; a message type without GPU atomics
/// (`bool`).
fn declared_types<P: CompiledEdgeProgram + ?Sized>(program: &P) -> Result<(ValueLayout, Scalar)> {
    let name = program.name();
    let declared = crate::program::compile(&EDGE_KIND, &format!("<{name}>"), program.program_source())?.declared_types;
    match declared[MESSAGE].scalar() {
        Some(Scalar::Bool) | None => Err(Error::invalid(format!(
            "`{name}`: the GPU combines messages with atomics, which a `{}` message has none of; declare `type Message = u32`",
            declared[MESSAGE]
        ))),
        Some(scalar) => Ok((ValueLayout::of(&declared[VALUE]), scalar)),
    }
}

/// `program`'s hooks fused with the engines' kernels, compiled and loaded.
fn load<P: CompiledEdgeProgram + ?Sized>(gpu: &Gpu, program: &P) -> Result<Module> {
    let name = format!("{}_edges.cu", program.name());
    let ptx = cache::ptx_for(&name, &engine_source(program.device_functions()), &gpu.arch())?;
    gpu.load_module(&name, &ptx)
}

/// The C layout of the program's `glp_edge_value` (a scalar, or a struct of the tuple's
/// scalars, each aligned to its size) and its decoding.
struct ValueLayout {
    /// Each scalar and its byte offset.
    fields: Vec<(Scalar, usize)>,
    /// Bytes per value, padding included.
    size: usize,
    tuple: bool,
}

impl ValueLayout {
    fn of(ty: &Type) -> Self {
        let (scalars, tuple) = match ty {
            Type::Tuple(scalars) => (scalars.clone(), true),
            other => (other.scalar().into_iter().collect(), false),
        };
        let (mut fields, mut size, mut align) = (Vec::new(), 0usize, 1usize);
        for s in scalars {
            let width = c_size(s);
            size = size.next_multiple_of(width);
            fields.push((s, size));
            size += width;
            align = align.max(width);
        }
        ValueLayout { fields, size: size.next_multiple_of(align).max(1), tuple }
    }

    /// The values in `bytes` (one after the other, `size` bytes each).
    fn decode(&self, bytes: &[u8]) -> Vec<Value> {
        bytes
            .par_chunks_exact(self.size)
            .map(|value| {
                let scalar = |&(s, at): &(Scalar, usize)| {
                    let mut word = [0u8; 8];
                    word[..c_size(s)].copy_from_slice(&value[at..at + c_size(s)]);
                    Value::Scalar(ScalarValue::from_bits(s, u64::from_le_bytes(word)))
                };
                match self.tuple {
                    true => {
                        let items: Vec<Value> = self.fields.iter().map(scalar).collect();
                        Tuple::new(&items).map_or(Value::Unit, Value::Tuple)
                    }
                    false => self.fields.first().map_or(Value::Unit, scalar),
                }
            })
            .collect()
    }
}

/// Bytes (and alignment) of a scalar's C type in `glp_edge_value`: a C `bool` is one byte.
fn c_size(s: Scalar) -> usize {
    match s {
        Scalar::Bool => 1,
        other => other.size(),
    }
}

/// An edge array on the device for `glp_edge_edges`: addresses, 0 for no weights.
#[derive(Debug, Clone, Copy)]
struct EdgeArrays {
    senders: u64,
    receivers: u64,
    weights: u64,
    count: u64,
}

/// A frontier's device state for an edge-centric iteration: the active flags (0: every
/// sender active), the message stamps (0: no frontier, every vertex applies) and the
/// iteration's stamp.
#[derive(Debug, Clone, Copy)]
struct Frontier {
    active: u64,
    received_at: u64,
    stamp: u32,
}

/// The edge-centric engines' frontier on the device: each vertex's activity and the stamp of
/// its last message (none for a program without a frontier).
struct FrontierBuffers {
    active: Option<DeviceBuffer<u8>>,
    received_at: Option<DeviceBuffer<u32>>,
}

impl FrontierBuffers {
    fn new<P: CompiledEdgeProgram + ?Sized>(run: &Run<'_, P>, frontier: bool) -> Result<Self> {
        let n = run.num_vertices() as usize;
        Ok(match frontier {
            true => FrontierBuffers {
                active: Some(run.gpu.alloc_zeros("active vertices", n)?),
                received_at: Some(run.gpu.alloc_zeros("message stamps", n)?),
            },
            false => FrontierBuffers { active: None, received_at: None },
        })
    }

    /// The frontier of the iteration stamped `stamp`.
    fn at(&self, stamp: u32) -> Frontier {
        Frontier {
            active: self.active.as_ref().map_or(0, DeviceBuffer::device_ptr),
            received_at: self.received_at.as_ref().map_or(0, DeviceBuffer::device_ptr),
            stamp,
        }
    }
}

/// A run's check of the loop fault record the view's `fault` points at.
struct Faults<'p, P: ?Sized> {
    program: &'p P,
    budget: u64,
}

impl<P: CompiledEdgeProgram + ?Sized> Faults<'_, P> {
    /// The error of the fault in `status` (`[changed, code, id]`), if a hook's loops ran out.
    fn check(&self, status: &[u64]) -> Result<()> {
        let Some(fault) = decode_loop_fault(status[1], status[2]) else { return Ok(()) };
        let hook = EDGE_KIND.hooks.get(fault.hook).map_or("a hook", |h| h.name);
        let sites = self.program.loop_sites();
        let site = match sites.get(fault.site.wrapping_sub(1)) {
            Some(site) => format!("{}:{}:{}", site.file, site.line, site.column),
            None => format!("loop site {}", fault.site),
        };
        Err(Error::Program(format!(
            "{}\n  --> {site}\n   = note: in `{hook}` of `{}`, for vertex {} on the GPU",
            glp_codegen::interp::loop_budget_message(self.budget),
            self.program.name(),
            fault.vertex
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `auto` takes the frontier engine on a graph beyond L2 for a program that settles or has
    /// no frontier, for every program when the vertices are held by degree, and in the
    /// graph's order for a program whose `edge` reads only its sender once the messages
    /// exceed the cache; the edge-centric engine otherwise; a named engine is kept.
    #[test]
    fn auto_resolves_by_the_program_the_graphs_size_and_its_order() {
        use Footprint::*;
        let settled = [SETTLED_FEATURE];
        let receiver = [RECEIVER_FEATURE];
        let cases = [
            ((true, &settled[..], EdgesBeyondL2, false), Engine::Frontier),
            ((false, &[][..], EdgesBeyondL2, false), Engine::Frontier),
            ((true, &[][..], EdgesBeyondL2, false), Engine::Edge),
            ((true, &[][..], EdgesBeyondL2, true), Engine::Frontier),
            ((true, &[][..], MessagesBeyondL2, false), Engine::Frontier),
            ((true, &receiver[..], MessagesBeyondL2, false), Engine::Edge),
            ((true, &receiver[..], MessagesBeyondL2, true), Engine::Frontier),
            ((true, &receiver[..], EdgesBeyondL2, true), Engine::Frontier),
            ((true, &settled[..], InL2, false), Engine::Edge),
            ((true, &receiver[..], InL2, true), Engine::Edge),
            ((false, &[][..], InL2, true), Engine::Edge),
        ];
        for ((frontier, features, footprint, by_degree), engine) in cases {
            assert_eq!(
                Engine::Auto.for_program(frontier, features, footprint, by_degree),
                engine,
                "{frontier} {features:?} {footprint:?} {by_degree}"
            );
        }
        for engine in [Engine::Edge, Engine::Frontier, Engine::Push, Engine::Pull] {
            for by_degree in [false, true] {
                assert_eq!(engine.for_program(true, &[], MessagesBeyondL2, by_degree), engine);
            }
        }
    }
}
