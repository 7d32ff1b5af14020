//! The run: checks, kernels, upload, then the schedule's iterations (the parent module's
//! docs), and the labels, memberships and measurements read back.

use super::args::LpSweepArgs;
use super::kernels::LpKernels;
use super::state::{DeviceState, ViewLabels, CHANGED, DEFERRED, PROCESSED, SETTLED};
use super::{waves, ClassPlan, GpuStats, HighClassStats, MflStrategy};
use crate::community::UNLABELLED;
use crate::device::param_block;
use crate::device::{DeviceGraph, Gpu, VertexOrder};
use crate::error::{Error, Result};
use crate::graph::{Csr, DegreeOrder};
use crate::lp::compiled::CompiledVariant;
use crate::lp::sketch::check_eligible;
use crate::lp::view::{membership_row, LABEL_MEMORY_SLOTS};
use crate::lp::{IterationStats, LpConfig, LpInputs, LpOutcome, Schedule, TieBreak};
use glp_codegen::lp_kernels::mfl::TieOrder;
use std::time::Instant;

/// Runs `variant` on the GPU `gpu` with `config`'s schedule (see the module docs), uploading
/// `csr` for this run alone with its vertices in `order` ([`places_by_degree`]);
/// [`run_gpu_on`] runs on a graph uploaded once.
pub fn run_gpu<V: CompiledVariant + ?Sized>(
    gpu: &Gpu,
    csr: &Csr,
    variant: &V,
    config: &LpConfig,
    inputs: &LpInputs<'_>,
    strategy: MflStrategy,
    order: VertexOrder,
) -> Result<(LpOutcome, GpuStats)> {
    let weights = variant.features().edge_weights;
    let graph = match places_by_degree(gpu, csr, variant, strategy, order)? {
        true => DeviceGraph::upload_by_degree(gpu, csr, weights)?,
        false => DeviceGraph::upload(gpu, csr, weights)?,
    };
    run_gpu_on(gpu, &graph, variant, config, inputs, strategy)
}

/// Whether a run of `variant` with `strategy` holds `csr`'s vertices by degree in `order`
/// ([`DeviceGraph::upload_by_degree`]). The labels come out the same either way (see the
/// module docs); `auto` orders by degree when the labels (4 bytes a vertex) exceed the
/// device's L2 cache, the host has the memory for the renumbered rows, and `load_neighbor`
/// is the default hook (another hook gets the graph's ids of both ends of every edge, two
/// reads more per edge than the order saves).
///
/// Errors: `degree` with a sketch strategy, whose summaries depend on the order of a row's
/// labels (their CPU twins scan rows in the graph's order); reading the host's available
/// memory.
pub fn places_by_degree<V: CompiledVariant + ?Sized>(
    gpu: &Gpu,
    csr: &Csr,
    variant: &V,
    strategy: MflStrategy,
    order: VertexOrder,
) -> Result<bool> {
    if strategy.sketch().is_some() {
        return match order {
            VertexOrder::Degree => Err(sketches_keep_the_graph_order(strategy)),
            VertexOrder::Graph | VertexOrder::Auto => Ok(false),
        };
    }
    if order == VertexOrder::Auto && !variant.default_load_neighbor() {
        return Ok(false);
    }
    let available = crate::memory::available_memory()?;
    let label_bytes = csr.num_vertices() as u64 * std::mem::size_of::<u32>() as u64;
    Ok(order.by_degree(label_bytes, DegreeOrder::bytes_to_permute(csr), gpu.info().l2_bytes, available))
}

fn sketches_keep_the_graph_order(strategy: MflStrategy) -> Error {
    Error::invalid(format!(
        "the {} MFL strategy runs on vertices in the graph's order (a sketch's summary depends on the order of a \
         row's labels, and its CPU twin scans the graph's rows): use the graph's vertex order, or an exact strategy",
        strategy.name()
    ))
}

/// Runs `variant` on `graph`, already on the GPU `gpu` (see the module docs), in the vertex
/// order it was uploaded in; the labels are in the graph's ids and order either way. The
/// graph must carry its edge weights when the variant reads them (they are uploaded with
/// `DeviceGraph::upload(gpu, csr, true)`).
pub fn run_gpu_on<V: CompiledVariant + ?Sized>(
    gpu: &Gpu,
    graph: &DeviceGraph<'_>,
    variant: &V,
    config: &LpConfig,
    inputs: &LpInputs<'_>,
    strategy: MflStrategy,
) -> Result<(LpOutcome, GpuStats)> {
    let csr = graph.csr();
    config.validate()?;
    let asynchronous = matches!(config.schedule, Schedule::Asynchronous { .. });
    if asynchronous && !strategy.supports_asynchronous() {
        return Err(Error::invalid(format!(
            "the {} MFL strategy runs the synchronous schedule only (it gathers every neighbour label before the \
             sweep): use the synchronous schedule, or another strategy",
            strategy.name()
        )));
    }
    let ties = match config.ties {
        TieBreak::SmallestLabel => TieOrder::SmallestLabel,
        TieBreak::Hashed => TieOrder::Hashed,
        TieBreak::FirstSeen => {
            return Err(Error::invalid(
                "the GPU engine resolves equal scores to the smallest label or by a hash of vertex and label: \
                 the label seen first is an order of one thread's scan",
            ))
        }
    };
    let features = variant.features();
    inputs.validate(csr.num_vertices(), features)?;
    if features.edge_weights && csr.weights().is_some() && !graph.has_weights() {
        return Err(Error::invalid(format!(
            "`{}` reads edge weights, and the graph was uploaded to the GPU without them",
            variant.name()
        )));
    }
    if let Some(sketch) = strategy.sketch() {
        check_eligible(variant, sketch)?;
        if graph.order().is_some() {
            return Err(sketches_keep_the_graph_order(strategy));
        }
    }
    u32::try_from(csr.num_vertices())
        .ok()
        .filter(|&n| n < UNLABELLED)
        .ok_or_else(|| Error::TooLarge("the GPU engine takes at most 2^32 - 2 vertices".into()))?;

    let compile_start = Instant::now();
    let kernels = LpKernels::load(gpu, variant, ties)?;
    let compile = compile_start.elapsed();

    let setup_start = Instant::now();
    let plan = ClassPlan::new(csr, strategy);
    let mut state = DeviceState::upload(gpu, &kernels, graph, features, inputs, &plan, asynchronous)?;
    let params = param_block(&variant.param_values());
    let setup = setup_start.elapsed();

    let n = csr.num_vertices();
    let start = Instant::now();
    let view = state.view(config.seed, 0, ViewLabels::Unlabelled);
    kernels.initial(gpu, &params, &view, &state.previous, n as u64)?;
    state.read_counters(gpu, variant, 0)?;
    let may_stop = !features.label_memory && !features.random;
    // The first synchronous sweep from labels all distinct is a minimum (see the module docs).
    let distinct_first = !asynchronous
        && ties == TieOrder::SmallestLabel
        && variant.distinct_first_sweep()
        && graph.distinct_targets()
        && strategy.sketch().is_none();
    let wave_size = waves::wave_size(n, asynchronous, features);
    let mut iterations = Vec::new();
    let mut iteration_ms = Vec::new();
    let mut converged = false;
    let mut high_class = HighClassStats::default();
    // The first synchronous sweep sends the hubs straight to the exact kernel (`eager_defer`):
    // from labels all distinct (the usual start) every hub overflows its table, and the hub
    // kernel's count with the sketch was as long again as the exact kernel's (graph500-26,
    // ncu: 64.6 ms then 116.1 ms in the first sweep). Later sweeps take the sketch: in the
    // second it settled every hub there (a rule that kept deferring while most hubs were
    // deferred never left the exact kernel, 62 -> 116 ms a sweep). The labels are the same
    // either way.
    for iteration in 0..config.max_iterations {
        let began = Instant::now();
        let first = gpu.record()?;
        if let Some(histogram) = state.histogram.as_mut() {
            gpu.zero(histogram)?;
        }
        gpu.zero(&mut state.counters)?;
        let (pick_less, tolerance) = match config.schedule {
            Schedule::Synchronous => (false, 0.0),
            Schedule::Asynchronous { pick_less_every, tolerance } => {
                (pick_less_every != 0 && iteration % pick_less_every == 0, tolerance)
            }
        };
        let view = if asynchronous {
            let view = state.view(config.seed, iteration, ViewLabels::Previous);
            if features.custom_pick_label {
                kernels.pick_in_place(gpu, &params, &view, &state.sweep(false), n as u64)?;
            }
            view
        } else if features.custom_pick_label {
            let view = state.view(config.seed, iteration, ViewLabels::Shown);
            kernels.pick(gpu, &params, &view, state.shown_buffer(), n as u64)?;
            view
        } else {
            state.view(config.seed, iteration, ViewLabels::Previous)
        };
        let eager_defer = !asynchronous && iteration == 0;
        let sweep = LpSweepArgs { eager_defer: u32::from(eager_defer), ..state.sweep(pick_less) };
        if distinct_first && iteration == 0 {
            kernels.distinct_sweep(gpu, &params, &view, &sweep, &state.output)?;
        } else {
            for wave in 0..waves::waves(n, wave_size) {
                let sweep = LpSweepArgs { wave_size, wave, ..sweep };
                kernels.propagate(gpu, &params, &view, &sweep, &mut state, &plan)?;
            }
        }
        let last = gpu.record()?;
        let counters = state.read_counters(gpu, variant, iteration)?;
        iteration_ms.push(gpu.elapsed_ms(&first, &last)?);
        if !asynchronous {
            std::mem::swap(&mut state.previous, &mut state.output);
        }
        let (changed, processed) = (counters[CHANGED], if asynchronous { counters[PROCESSED] } else { n as u64 });
        high_class.settled_by_sketch += counters[SETTLED];
        high_class.deferred += counters[DEFERRED];
        let stats = IterationStats { changed, processed, pick_less, time: began.elapsed() };
        inputs.observe(iteration, &stats)?;
        iterations.push(stats);
        let settled = if asynchronous { !pick_less && changed as f64 <= tolerance * n as f64 } else { changed == 0 };
        if may_stop && settled {
            converged = true;
            break;
        }
    }
    gpu.synchronize()?;
    let elapsed = start.elapsed();
    // Buffers hold at least one element, so an empty graph reads back one: keep `n`.
    let mut labels = gpu.download(&state.previous)?;
    labels.truncate(n);
    // Held by degree, the labels (graph ids) are at device positions.
    if let Some(order) = graph.order() {
        labels = order.to_graph_order(&labels);
    }
    let memberships = match &state.memory_labels {
        Some(slots) => {
            let slots = gpu.download(slots)?;
            let rows = slots.chunks(LABEL_MEMORY_SLOTS as usize).take(n);
            Some(rows.map(|row| membership_row(row.iter().copied())).collect())
        }
        None => None,
    };
    let stats = GpuStats {
        compile,
        setup,
        iteration_ms,
        device_bytes: state.peak_bytes,
        table_bytes: state.table_bytes,
        base_bytes: state.base_bytes(),
        high_class,
        first_sweep_minimum: distinct_first && !iterations.is_empty(),
    };
    Ok((LpOutcome { labels, memberships, iterations, converged, elapsed }, stats))
}
