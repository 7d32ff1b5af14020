//! The edge-centric GPU engine (WolfGraph): every iteration processes every edge, in edge
//! blocks that combine their messages in shared memory and flush them in the same kernel.
//!
//! The program's hooks are fused with the engine's kernels (glp-codegen's
//! `kinds::edge::engine_source`), compiled by NVRTC through the PTX cache. The graph goes to
//! the device as edge arrays ordered by receiver: a CSR's rows expanded, `receivers[e]` the
//! row of entry `e` and `senders[e]` the vertex in it, with its weights. The in-edges carry
//! values along the edges (`OUT`), the out-edges against them (`IN`), both for `BOTH`, as the
//! CPU engine pulls them; a symmetric graph's two are one array. An iteration:
//!
//! 1. the sum of `aggregate` over the vertices, when the program reads it (downloaded: the
//!    view passes it by value);
//! 2. `glp_edge_edges` over each edge array: a block of `BLOCK_EDGES` consecutive edges, one
//!    thread per edge at a time (coalesced reads), each message combined into the block's
//!    shared-memory slot of its receiver (the block's receivers are consecutive ids: slot =
//!    receiver - the block's first) with shared atomics, then the slots flushed into the
//!    global combined messages with the program's combine (WolfGraph's two phases fused, since
//!    shared memory does not outlive a kernel); a receiver beyond the slots (vertices without
//!    edges in between) takes its messages in global memory directly. With a frontier, only
//!    the edges of the senders that changed in the iteration before carry a message (every
//!    edge is still read: the frontier engine is the one that reads only the active rows);
//! 3. `glp_edge_apply_values`: every vertex's `apply` and `changed`, counted; the count (and
//!    a hook's loop fault) comes back, and the run stops after an iteration that changed no
//!    vertex, or at its iteration limit, as on the CPU.
//!
//! Min and max combines give the CPU engine's values exactly (the combine's order does not
//! matter); sums are added in the atomics' order, not the CPU's row order, and agree to
//! rounding. Values come back as the interpreter's [`Value`]s (the program's declared value
//! type, decoded from the C layout of `glp_edge_value`), whatever the program's Rust type.

use super::engine::{check, Schedule};
use super::{CompiledEdgeProgram, EdgeConfig, EdgeGraph, EdgeOutcome, IterationReport, IN, NO_SOURCE, OUT};
use crate::device::{cache, param_block, DeviceBuffer, Gpu, KernelArg, KernelArgs, Module, Shape};
use crate::error::{Error, Result};
use crate::graph::{Csr, VertexId};
use glp_codegen::interp::{Tuple, Value};
use glp_codegen::ir::{Scalar, ScalarValue, Type};
use glp_codegen::kinds::edge::layout::EdgeViewArgs;
use glp_codegen::kinds::edge::{engine_source, kernels, BLOCK_EDGES, EDGE_KIND, ENGINE_THREADS, MESSAGE, VALUE};
use glp_codegen::loops::{decode_loop_fault, default_loop_budget};
use rayon::prelude::*;
use std::time::{Duration, Instant};

// SAFETY: `EdgeViewArgs` is declared with glp-codegen's `c_struct!`, which makes it
// `#[repr(C)]` and generates the kernels' `glp_edge_view` from the same table, checking at
// compile time that it has no padding and that every field is as wide as its C type (device
// pointers are `u64` addresses): the layout of `glp_edge_view`, byte for byte.
unsafe impl KernelArg for EdgeViewArgs {}

/// Runs `program` on `graph` on `gpu` with the edge-centric engine (see the module docs):
/// the graph's edges placed on the device ([`DeviceEdgeGraph::upload`]), then [`run_on`],
/// whose outcome and iteration time it returns.
///
/// Errors: [`run_on`]'s, and the device's while placing the graph.
pub fn run<P: CompiledEdgeProgram + ?Sized>(
    gpu: &Gpu,
    program: &P,
    graph: &EdgeGraph<'_>,
    config: &EdgeConfig,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<(EdgeOutcome<Value>, Duration)> {
    let schedule = Schedule::of(program, graph, config)?;
    let device = DeviceEdgeGraph::upload(gpu, graph, schedule.direction)?;
    run_on(gpu, program, graph, &device, config, observer)
}

/// Runs `program` on `graph`, whose edges `device` holds, on `gpu`; `observer` sees each
/// iteration as it ends. Returns the outcome and the time from the first kernel (the initial
/// values) to the end of the last iteration: the program's module, its buffers and the
/// download of the values excluded.
///
/// Errors: the CPU engine's ([`super::run`]: a schedule hook out of range, a weighted program
/// on a graph without weights, a source that is not a vertex), a message type without GPU
/// atomics (`bool`), a direction whose edges `device` was not placed with, a hook whose loops
/// ran past their step budget, the device's (out of memory, a kernel that does not compile).
pub fn run_on<P: CompiledEdgeProgram + ?Sized>(
    gpu: &Gpu,
    program: &P,
    graph: &EdgeGraph<'_>,
    device: &DeviceEdgeGraph,
    config: &EdgeConfig,
    observer: &mut dyn FnMut(&IterationReport),
) -> Result<(EdgeOutcome<Value>, Duration)> {
    let schedule = Schedule::of(program, graph, config)?;
    let name = program.name().to_string();
    let declared = crate::program::compile(&EDGE_KIND, &format!("<{name}>"), program.program_source())?.declared_types;
    let value = ValueLayout::of(&declared[VALUE]);
    let message = match declared[MESSAGE].scalar() {
        Some(Scalar::Bool) | None => {
            return Err(Error::invalid(format!(
                "`{name}`: the GPU combines messages with atomics, which a `{}` message has none of; declare `type Message = u32`",
                declared[MESSAGE]
            )))
        }
        Some(scalar) => scalar,
    };
    let n = graph.num_vertices();
    if device.num_vertices != n {
        return Err(Error::invalid(format!(
            "internal: a device graph of {} vertices for a graph of {n}",
            device.num_vertices
        )));
    }
    let passes = device.passes(schedule.direction)?;
    let module = load(gpu, program)?;
    let kernel = |name: &str| module.kernel(name);
    let (init, aggregate, edges_kernel, apply) = (
        kernel(kernels::INIT_VALUES)?,
        kernel(kernels::AGGREGATE_VALUES)?,
        kernel(kernels::EDGES)?,
        kernel(kernels::APPLY_VALUES)?,
    );
    let params = param_block(&program.param_values());

    // The run's state: values, combined messages, active vertices (with a frontier), and
    // [changed count, loop fault code, loop fault id].
    let values: DeviceBuffer<u8> = gpu.alloc_zeros("vertex values", n * value.size)?;
    let combined: DeviceBuffer<u8> = gpu.alloc_zeros("combined messages", n * message.size())?;
    let active: Option<DeviceBuffer<u8>> = match schedule.frontier {
        true => Some(gpu.alloc_zeros("active vertices", n)?),
        false => None,
    };
    let mut status: DeviceBuffer<u64> = gpu.alloc_zeros("iteration status", 3)?;
    let mut sum: DeviceBuffer<f64> = gpu.alloc_zeros("aggregate sum", 1)?;
    let active_ptr = active.as_ref().map_or(0, DeviceBuffer::device_ptr);
    let loop_budget = default_loop_budget(n as u64, 0);
    let start = EdgeViewArgs {
        out_offsets: device.out_offsets.device_ptr(),
        in_offsets: device.in_offsets.as_ref().unwrap_or(&device.out_offsets).device_ptr(),
        fault: status.device_ptr() + 8,
        loop_budget,
        aggregated: 0.0,
        num_vertices: n as u32,
        source: config.source.unwrap_or(NO_SOURCE),
        iteration: 0,
        reserved: 0,
    };
    let op = schedule.combine;
    let vertices = Shape::covering(n as u64, ENGINE_THREADS)?;
    let with_view = |view: EdgeViewArgs| KernelArgs::new().bytes(&params).value(view);
    let started = Instant::now();
    gpu.launch(&init, vertices, &with_view(start).buffer(&values).buffer(&combined).value(active_ptr).value(op))?;
    let faults = Faults { program, budget: loop_budget };
    faults.check(&gpu.download(&status)?)?;

    let aggregates = program.features().contains(&"aggregate");
    let (mut iteration, mut converged) = (0, false);
    while iteration < schedule.limit && !converged {
        // Zeroed before any of the iteration's kernels, so that a loop fault of any hook
        // (`aggregate`, `edge`, `apply`) is still there when the host reads it.
        gpu.write(&mut status, &[0, 0, 0])?;
        let mut view = EdgeViewArgs { iteration, ..start };
        if aggregates {
            gpu.write(&mut sum, &[0.0])?;
            gpu.launch(&aggregate, vertices, &with_view(view).buffer(&values).buffer(&sum))?;
            view.aggregated = gpu.download(&sum)?[0];
        }
        for edges in &passes {
            let blocks = edges.count.div_ceil(u64::from(BLOCK_EDGES)).max(1);
            let shape = Shape::covering(blocks * u64::from(ENGINE_THREADS), ENGINE_THREADS)?;
            let args = with_view(view)
                .buffer(&edges.senders)
                .buffer(&edges.receivers)
                .value(edges.weights.as_ref().map_or(0, DeviceBuffer::device_ptr))
                .value(edges.count)
                .value(active_ptr)
                .buffer(&values)
                .buffer(&combined)
                .value(op);
            if edges.count > 0 {
                gpu.launch(&edges_kernel, shape, &args)?;
            }
        }
        let args = with_view(view).buffer(&values).buffer(&combined).value(active_ptr).value(op).buffer(&status);
        gpu.launch(&apply, vertices, &args)?;
        let record = gpu.download(&status)?;
        faults.check(&record)?;
        check(program)?;
        observer(&IterationReport { iteration, changed: record[0] });
        iteration += 1;
        converged = record[0] == 0;
    }
    let elapsed = started.elapsed();
    let values = value.decode(&gpu.download(&values)?);
    Ok((EdgeOutcome { values, iterations: iteration, converged }, elapsed))
}

/// `program`'s hooks fused with the engine's kernels, compiled and loaded.
fn load<P: CompiledEdgeProgram + ?Sized>(gpu: &Gpu, program: &P) -> Result<Module> {
    let name = format!("{}_edges.cu", program.name());
    let ptx = cache::ptx_for(&name, &engine_source(program.device_functions()), &gpu.arch())?;
    gpu.load_module(&name, &ptx)
}

/// A graph's edges on the device as the engine reads them: the offsets the view's degrees
/// read, and the edge arrays of the directions a run pulls (a symmetric graph's in- and
/// out-edges are one array).
pub struct DeviceEdgeGraph {
    num_vertices: usize,
    out_offsets: DeviceBuffer<u64>,
    /// `None` on a symmetric graph (the out-edges' offsets serve).
    in_offsets: Option<DeviceBuffer<u64>>,
    /// The in-edges (values carried along the edges): placed for [`OUT`] and [`BOTH`](super::BOTH), and on
    /// a symmetric graph for every direction.
    in_edges: Option<DeviceEdges>,
    /// The out-edges of a directed graph (values carried against the edges): placed for
    /// [`IN`] and [`BOTH`](super::BOTH).
    out_edges: Option<DeviceEdges>,
}

impl DeviceEdgeGraph {
    /// `graph`'s edges for runs pulling in `direction` ([`OUT`], [`IN`] or [`BOTH`](super::BOTH)).
    pub fn upload(gpu: &Gpu, graph: &EdgeGraph<'_>, direction: u32) -> Result<Self> {
        let symmetric = std::ptr::eq(graph.in_edges(), graph.out_edges());
        let in_offsets = match symmetric {
            true => None,
            false => Some(gpu.upload("in-edge offsets", graph.in_edges().offsets())?),
        };
        let in_edges = match direction != IN || symmetric {
            true => Some(DeviceEdges::upload(gpu, graph.in_edges(), "in-edges")?),
            false => None,
        };
        let out_edges = match direction != OUT && !symmetric {
            true => Some(DeviceEdges::upload(gpu, graph.out_edges(), "out-edges")?),
            false => None,
        };
        Ok(DeviceEdgeGraph {
            num_vertices: graph.num_vertices(),
            out_offsets: gpu.upload("out-edge offsets", graph.out_edges().offsets())?,
            in_offsets,
            in_edges,
            out_edges,
        })
    }

    /// Device bytes the graph takes.
    pub fn bytes(&self) -> u64 {
        let offsets = self.out_offsets.bytes() + self.in_offsets.as_ref().map_or(0, DeviceBuffer::bytes);
        offsets
            + [&self.in_edges, &self.out_edges].iter().filter_map(|e| e.as_ref()).map(DeviceEdges::bytes).sum::<u64>()
    }

    /// Edges an iteration of a run pulling in `direction` reads.
    pub fn edges_read(&self, direction: u32) -> Result<u64> {
        Ok(self.passes(direction)?.iter().map(|e| e.count).sum())
    }

    /// The edge arrays an iteration pulling in `direction` reads, in the CPU engine's order.
    fn passes(&self, direction: u32) -> Result<Vec<&DeviceEdges>> {
        let missing = || Error::invalid(format!("internal: the device graph holds no edges for direction {direction}"));
        let mut passes = Vec::new();
        if direction != IN {
            passes.push(self.in_edges.as_ref().ok_or_else(missing)?);
        }
        if direction != OUT {
            passes.push(self.out_edges.as_ref().or(self.in_edges.as_ref()).ok_or_else(missing)?);
        }
        Ok(passes)
    }
}

/// An edge array on the device, ordered by receiver (see the module docs).
struct DeviceEdges {
    senders: DeviceBuffer<VertexId>,
    receivers: DeviceBuffer<VertexId>,
    weights: Option<DeviceBuffer<f32>>,
    count: u64,
}

impl DeviceEdges {
    /// `csr`'s rows as receivers, its entries as senders.
    fn upload(gpu: &Gpu, csr: &Csr, what: &str) -> Result<Self> {
        let receivers: Vec<VertexId> = (0..csr.num_vertices() as VertexId)
            .into_par_iter()
            .flat_map_iter(|v| std::iter::repeat_n(v, csr.degree(v)))
            .collect();
        Ok(DeviceEdges {
            senders: gpu.upload(&format!("{what}: senders"), csr.targets())?,
            receivers: gpu.upload(&format!("{what}: receivers"), &receivers)?,
            weights: csr.weights().map(|w| gpu.upload(&format!("{what}: weights"), w)).transpose()?,
            count: csr.num_edges(),
        })
    }

    fn bytes(&self) -> u64 {
        self.senders.bytes() + self.receivers.bytes() + self.weights.as_ref().map_or(0, DeviceBuffer::bytes)
    }
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
