//! Subgraph samples kept on the device: the per-sample engine's batches numbered, on the
//! device, as disjoint subgraphs (the arrays of [`SubgraphBatch`](crate::sample::SubgraphBatch),
//! with input ids), which a caller hands on without a copy to the host (the Python package
//! gives them to PyTorch through DLPack).
//!
//! Local ids are numbered hop by hop over all samples, so the numbering needs every sample:
//! each batch's records stay on the device, packed as the engine leaves them, until the run
//! ends. Then `glp_subgraph_hops` finds each sample's distinct vertices, their hops and its
//! counts per hop and step; only those counts cross the bus, the host scans them into where
//! each sample's part of every hop and step starts, and `glp_subgraph_write` writes the
//! arrays (see glp-codegen's `subgraph_kernels.cu`). The arrays equal
//! [`SampleOutcome::subgraphs`](crate::sample::SampleOutcome::subgraphs) of the same run.

use super::device_ids::DeviceIds;
use super::per_sample::{self, BatchRecords};
use super::{with_context, Context, DeviceSampleGraph, GpuSampleConfig, GpuSampleStats};
use crate::device::{DeviceBuffer, Gpu, KernelArg, KernelArgs, Shape};
use crate::error::{Error, Result};
use crate::graph::VertexIds;
use crate::sample::compiled::CompiledSampler;
use crate::sample::roots::InitialSamples;
use glp_codegen::kinds::sample::engine::{
    SubgraphArgs, SUBGRAPH_BAD_STEP_ENDS, SUBGRAPH_MISSING_TRANSIT, SUBGRAPH_THREADS,
};
use std::time::{Duration, Instant};

// SAFETY: `SubgraphArgs` is declared with glp-codegen's `c_struct!`, which makes it
// `#[repr(C)]` and generates the kernels' `glp_subgraph_batch` from the same table, checking
// at compile time that it has no padding and that every field is as wide as its C type.
unsafe impl KernelArg for SubgraphArgs {}

/// What an out-of-memory error of a run kept on the device suggests instead.
const OUT_OF_MEMORY_HINT: &str = "; subgraphs kept on the device hold every sample until the run ends: number them \
                                  on the host instead (batch by batch), or sample fewer roots per run";

/// A run's samples as disjoint subgraphs on the device: the arrays of
/// [`SubgraphBatch`](crate::sample::SubgraphBatch), `node` as input ids. A buffer holds at
/// least one entry: `num_nodes` and `num_edges` say how many are the array's.
pub struct DeviceSubgraphs {
    /// Input id of each local vertex ...
    pub node: DeviceBuffer<i64>,
    /// ... and its sample.
    pub batch: DeviceBuffer<i64>,
    /// Sampled edges in local ids, step by step: the vertex drawn ...
    pub row: DeviceBuffer<i64>,
    /// ... and the transit it was drawn from.
    pub col: DeviceBuffer<i64>,
    /// Entries of `node` and `batch`.
    pub num_nodes: u64,
    /// Entries of `row` and `col`.
    pub num_edges: u64,
    /// Local ids per hop (hop 0: the roots).
    pub num_sampled_nodes: Vec<u64>,
    /// Edges per step.
    pub num_sampled_edges: Vec<u64>,
    /// Samples.
    pub samples: u64,
    /// Vertices the samples added (their roots apart), as the host outcome's
    /// [`sampled_vertices`](crate::sample::SampleOutcome::sampled_vertices).
    pub sampled_vertices: u64,
    /// Time of the sampling and of the numbering.
    pub elapsed: Duration,
}

/// Runs `sampler` from `initial` on `gpu` on the per-sample engine (which takes any sampler),
/// as [`super::run`] does, and numbers the samples as disjoint subgraphs on the device, ids
/// as input ids (`ids`, the graph's).
///
/// Half the device memory the run may use goes to the batches' arenas, the rest is left for
/// the records kept and the numbering. Errors: [`super::run`]'s, and the device's memory
/// running out for the records kept or the numbering (with a hint to number on the host).
pub fn run_subgraphs_on_device(
    gpu: &Gpu,
    graph: &DeviceSampleGraph<'_>,
    sampler: &dyn CompiledSampler,
    initial: &InitialSamples,
    ids: &VertexIds,
    config: &GpuSampleConfig,
) -> Result<(DeviceSubgraphs, GpuSampleStats)> {
    with_context(gpu, graph, sampler, initial, config, DeviceIds::bytes(ids), |context, run| {
        let start = Instant::now();
        let held = gpu.held_bytes();
        let arenas = Context { budget: context.budget / 2, ..*context };
        let mut batches = Vec::new();
        let stats = per_sample::run_batches(&arenas, initial, run.plan, |batch| {
            batches.push(batch);
            Ok(())
        })?;
        let (subgraphs, peak) = number(context, initial, ids, &batches)?;
        drop(batches);
        gpu.synchronize()?;
        let stats = GpuSampleStats {
            placement: graph.placement().name(),
            device_bytes: stats.device_bytes.max(peak.saturating_sub(held)),
            ..stats
        };
        Ok((DeviceSubgraphs { elapsed: start.elapsed(), ..subgraphs }, stats))
    })
    .map_err(|error| error.with_hint(OUT_OF_MEMORY_HINT))
}

/// Where each sample's record is and how long, in sample order, and where its entries (roots,
/// then record) and hash table start.
struct Layout {
    addresses: [Vec<u64>; 3],
    lengths: Vec<u64>,
    entry_offsets: Vec<u64>,
    table_offsets: Vec<u64>,
}

impl Layout {
    fn of(initial: &InitialSamples, batches: &[BatchRecords], steps: u32) -> Result<Layout> {
        let samples = initial.len();
        let mut layout = Layout {
            addresses: [(); 3].map(|()| Vec::with_capacity(samples)),
            lengths: Vec::with_capacity(samples),
            entry_offsets: Vec::with_capacity(samples + 1),
            table_offsets: Vec::with_capacity(samples + 1),
        };
        for batch in batches {
            for &(launch, k) in &batch.at {
                let records = &batch.launches[launch];
                for (list, address) in layout.addresses.iter_mut().zip(records.addresses(k)) {
                    list.push(address);
                }
                layout.lengths.push(records.range(k).len() as u64);
            }
        }
        if layout.lengths.len() != samples {
            return Err(Error::invalid(format!(
                "internal: {} records for a run of {samples} samples",
                layout.lengths.len()
            )));
        }
        if steps == 0 && layout.lengths.iter().any(|&length| length > 0) {
            return Err(Error::invalid("internal: a sampler of no step added vertices"));
        }
        let (mut entries, mut slots) = (0u64, 0u64);
        layout.entry_offsets.push(0);
        layout.table_offsets.push(0);
        for (s, &length) in layout.lengths.iter().enumerate() {
            let own = initial.roots(s).len() as u64 + length;
            if own >= u64::from(u32::MAX) {
                return Err(Error::TooLarge(format!("sample {s} holds {own} vertices, more than subgraphs number")));
            }
            entries += own;
            // At most half full, so that every probe sequence meets an empty slot.
            slots += (2 * own).max(2).next_power_of_two();
            layout.entry_offsets.push(entries);
            layout.table_offsets.push(slots);
        }
        Ok(layout)
    }
}

/// The counts of `glp_subgraph_hops` scanned: where each sample's part of every hop and step
/// starts (hop-major, step-major), and the totals per hop and step, trimmed as the host
/// numbering gives them.
struct Starts {
    nodes: Vec<u64>,
    edges: Vec<u64>,
    num_sampled_nodes: Vec<u64>,
    num_sampled_edges: Vec<u64>,
}

impl Starts {
    /// From `node_counts` (samples x hops) and `edge_counts` (samples x steps).
    fn of(samples: usize, node_counts: &[u32], edge_counts: &[u32], steps: usize) -> Starts {
        let (nodes, node_totals) = scan(samples, node_counts, steps + 1);
        let (edges, edge_totals) = scan(samples, edge_counts, steps);
        // As the host numbering: steps up to the last with an edge, and one more hop.
        let reached = edge_totals.iter().rposition(|&n| n > 0).map_or(0, |last| last + 1);
        Starts {
            nodes,
            edges,
            num_sampled_nodes: node_totals[..=reached].to_vec(),
            num_sampled_edges: edge_totals[..reached].to_vec(),
        }
    }
}

/// Per column of `counts` (rows of `columns` entries, one per sample): where each sample's
/// entries of that column start when the columns are laid one after the other, each sample
/// after the one before (column-major), and each column's total.
fn scan(samples: usize, counts: &[u32], columns: usize) -> (Vec<u64>, Vec<u64>) {
    let mut starts = vec![0u64; samples * columns];
    let mut totals = vec![0u64; columns];
    let mut next = 0u64;
    for (column, total) in totals.iter_mut().enumerate() {
        let first = next;
        for s in 0..samples {
            starts[column * samples + s] = next;
            next += u64::from(counts[s * columns + column]);
        }
        *total = next - first;
    }
    (starts, totals)
}

/// Numbers the samples of `batches` (the run's, in order) on the device; returns the
/// subgraphs and the most device memory glp held meanwhile.
fn number(
    context: &Context<'_>,
    initial: &InitialSamples,
    ids: &VertexIds,
    batches: &[BatchRecords],
) -> Result<(DeviceSubgraphs, u64)> {
    let gpu = context.gpu;
    let samples = initial.len();
    let steps = context.schedule.steps();
    let layout = Layout::of(initial, batches, steps)?;
    let entries = layout.entry_offsets[samples] as usize;
    let (root_offsets, roots) = initial.parts();
    let [vertices_at, sources_at, step_ends_at] = &layout.addresses;
    let inputs = [
        gpu.upload("root offsets", root_offsets)?,
        gpu.upload("records' vertices", vertices_at)?,
        gpu.upload("records' transits", sources_at)?,
        gpu.upload("records' step ends", step_ends_at)?,
        gpu.upload("records' lengths", &layout.lengths)?,
        gpu.upload("sample entry offsets", &layout.entry_offsets)?,
        gpu.upload("sample table offsets", &layout.table_offsets)?,
    ];
    let roots = gpu.upload("roots", roots)?;
    let tables = gpu.alloc_zeros::<u64>("subgraph hash tables", layout.table_offsets[samples] as usize)?;
    let distinct = gpu.alloc_zeros::<u32>("distinct vertices", entries)?;
    let distinct_local = gpu.alloc_zeros::<u64>("distinct vertices' local ids", entries)?;
    let edge_rows = gpu.alloc_zeros::<u32>("edges' drawn vertices", entries)?;
    let edge_cols = gpu.alloc_zeros::<u32>("edges' transits", entries)?;
    let edge_ranks = gpu.alloc_zeros::<u32>("edges' ranks", entries)?;
    let hops = steps as usize + 1;
    let node_counts = gpu.alloc_zeros::<u32>("vertices per hop", samples * hops)?;
    let edge_counts = gpu.alloc_zeros::<u32>("edges per step", samples * steps as usize)?;
    let failed = gpu.alloc_zeros::<u32>("subgraph failures", 1)?;
    let device_ids = DeviceIds::upload(gpu, ids)?;
    let [root_offsets, vertices_at, sources_at, step_ends_at, lengths, entry_offsets, table_offsets] = &inputs;
    let mut args = SubgraphArgs {
        root_offsets: root_offsets.device_ptr(),
        roots: roots.device_ptr(),
        record_vertices: vertices_at.device_ptr(),
        record_sources: sources_at.device_ptr(),
        record_step_ends: step_ends_at.device_ptr(),
        record_lengths: lengths.device_ptr(),
        entry_offsets: entry_offsets.device_ptr(),
        tables: tables.device_ptr(),
        table_offsets: table_offsets.device_ptr(),
        distinct: distinct.device_ptr(),
        distinct_local: distinct_local.device_ptr(),
        edge_rows: edge_rows.device_ptr(),
        edge_cols: edge_cols.device_ptr(),
        edge_ranks: edge_ranks.device_ptr(),
        node_counts: node_counts.device_ptr(),
        edge_counts: edge_counts.device_ptr(),
        ids: device_ids.table(),
        first_id: device_ids.first_id,
        failed: failed.device_ptr(),
        samples: samples as u64,
        steps,
        hops: steps + 1,
        ..SubgraphArgs::default()
    };
    let shape = Shape::covering(samples as u64 * 32, SUBGRAPH_THREADS)?;
    let module = &context.module.module;
    if samples > 0 {
        gpu.launch(&module.kernel("glp_subgraph_hops")?, shape, &KernelArgs::new().value(args))?;
    }
    let mut peak = gpu.held_bytes();
    drop(tables);
    let failures = gpu.download(&failed)?[0];
    if failures & SUBGRAPH_BAD_STEP_ENDS != 0 {
        return Err(Error::Gpu("internal: a sample's step ends do not fit its record".into()));
    }
    if failures & SUBGRAPH_MISSING_TRANSIT != 0 {
        return Err(Error::Gpu("internal: a sample has an edge from a vertex it does not hold".into()));
    }
    let starts = Starts::of(samples, &gpu.download(&node_counts)?, &gpu.download(&edge_counts)?, steps as usize);
    let num_nodes: u64 = starts.num_sampled_nodes.iter().sum();
    let num_edges: u64 = starts.num_sampled_edges.iter().sum();
    let node_starts = gpu.upload("hops' starts", &starts.nodes)?;
    let edge_starts = gpu.upload("steps' starts", &starts.edges)?;
    let node = gpu.alloc_zeros::<i64>("subgraph nodes", num_nodes as usize)?;
    let batch = gpu.alloc_zeros::<i64>("subgraph nodes' samples", num_nodes as usize)?;
    let row = gpu.alloc_zeros::<i64>("subgraph edges' rows", num_edges as usize)?;
    let col = gpu.alloc_zeros::<i64>("subgraph edges' columns", num_edges as usize)?;
    args = SubgraphArgs {
        tables: 0,
        node_starts: node_starts.device_ptr(),
        edge_starts: edge_starts.device_ptr(),
        node: node.device_ptr(),
        batch: batch.device_ptr(),
        row: row.device_ptr(),
        col: col.device_ptr(),
        ..args
    };
    if samples > 0 {
        gpu.launch(&module.kernel("glp_subgraph_write")?, shape, &KernelArgs::new().value(args))?;
    }
    peak = peak.max(gpu.held_bytes());
    let subgraphs = DeviceSubgraphs {
        node,
        batch,
        row,
        col,
        num_nodes,
        num_edges,
        num_sampled_nodes: starts.num_sampled_nodes,
        num_sampled_edges: starts.num_sampled_edges,
        samples: samples as u64,
        sampled_vertices: layout.lengths.iter().sum(),
        elapsed: Duration::ZERO,
    };
    Ok((subgraphs, peak))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records whose step ends do not fit them (ends that decrease, a last end that is not the
    /// record's length) are the numbering's internal error, not subgraphs made from them. No
    /// engine writes such ends: the test writes them over those of an engine's records.
    #[test]
    fn records_whose_step_ends_do_not_fit_them_are_refused() {
        use crate::graph::{build_csr, BuildOptions, DuplicateEdges, EdgeList};
        use crate::sample::{InterpretedSampler, SampleGraph};
        let gpu = match Gpu::open(0) {
            Ok(gpu) => gpu,
            Err(e) => {
                let name = "records_whose_step_ends_do_not_fit_them_are_refused";
                glp_testkit::switch::skip(name, glp_testkit::switch::Need::Gpu, &e.to_string());
                return;
            }
        };
        // A ring of 40 vertices with chords; k-hop 3,2 from every vertex.
        let n = 40u32;
        let (sources, targets) = (0..n).flat_map(|v| [(v, (v + 1) % n), (v, (v * 7 + 3) % n)]).unzip();
        let edges = EdgeList { num_vertices: n as usize, sources, targets, weights: None };
        let options = BuildOptions { symmetrise: true, drop_self_loops: true, duplicates: DuplicateEdges::Collapse };
        let csr = build_csr(&edges, &options).unwrap();
        let host = SampleGraph::new(&csr).unwrap();
        let graph = DeviceSampleGraph::upload(&gpu, &host).unwrap();
        let source = "struct Hops;
            impl Sampler for Hops {
                fn steps(&self) -> u32 { 2 }
                fn sample_size(&self, step: u32) -> u32 { 3 - step }
                fn next(&self, view: &SampleView, _s: u32, t: VertexId, _l: u32, _st: u32) -> VertexId {
                    let d = view.degree(t); if d == 0 { return NONE; } view.edge(t, view.random_below(d)) }
            }";
        let sampler = InterpretedSampler::from_source("hops.rs", source, &[] as &[&str]).unwrap();
        let initial = InitialSamples::every_vertex(n as usize).unwrap();
        let ids = VertexIds::from_sorted((0..u64::from(n)).collect());
        // An edge for each vertex the CPU engine's samples add (seed 0, as the GPU's run).
        let expected_edges =
            crate::sample::run(&host, &sampler, &initial, &Default::default()).unwrap().sampled_vertices();
        // Sample 5's ends: as the engine wrote them (numbered), made to decrease, then to end
        // past its record (refused).
        type Spoil = fn(&mut [u64]);
        let spoiled: [Option<Spoil>; 3] = [None, Some(|ends| ends[0] = ends[1] + 1), Some(|ends| ends[1] += 1)];
        for (case, spoil) in spoiled.iter().enumerate() {
            let config = GpuSampleConfig::default();
            let numbered = with_context(&gpu, &graph, &sampler, &initial, &config, 0, |context, run| {
                let mut batches = Vec::new();
                per_sample::run_batches(context, &initial, run.plan, |batch| {
                    batches.push(batch);
                    Ok(())
                })?;
                if let Some(spoil) = spoil {
                    let (launch, k) = batches[0].at[5];
                    let records = &mut batches[0].launches[launch];
                    let mut ends = gpu.download(records.step_ends_mut())?;
                    spoil(&mut ends[records.ends_range(k)]);
                    gpu.write(records.step_ends_mut(), &ends)?;
                }
                number(context, &initial, &ids, &batches).map(|(subgraphs, _)| subgraphs.num_sampled_edges)
            });
            match (spoil, numbered) {
                (None, Ok(edges)) => assert_eq!(edges.iter().sum::<u64>(), expected_edges, "an edge a draw"),
                (Some(_), Err(error)) => {
                    assert!(error.to_string().contains("step ends do not fit its record"), "case {case}: {error}")
                }
                (_, numbered) => panic!("case {case}: {:?}", numbered.map(|_| ())),
            }
        }
    }

    #[test]
    fn counts_scan_hop_by_hop_over_the_samples() {
        // Two samples of two hops: sample 0 has 1 root and 3 vertices of hop 1, sample 1 has 2
        // roots and none.
        let (starts, totals) = scan(2, &[1, 3, 2, 0], 2);
        assert_eq!(starts, [0, 1, 3, 6]);
        assert_eq!(totals, [3, 3]);
    }

    #[test]
    fn totals_are_trimmed_to_the_steps_that_drew_as_the_host_numbering_does() {
        // One sample, three steps, edges at step 0 alone.
        let starts = Starts::of(1, &[1, 2, 0, 0], &[2, 0, 0], 3);
        assert_eq!(starts.num_sampled_nodes, [1, 2]);
        assert_eq!(starts.num_sampled_edges, [2]);
        assert_eq!(starts.nodes, [0, 1, 3, 3]);
        // No edge at all: the roots alone.
        let starts = Starts::of(2, &[1, 0, 1, 0], &[0, 0], 1);
        assert_eq!((starts.num_sampled_nodes, starts.num_sampled_edges), (vec![2], vec![]));
    }
}
