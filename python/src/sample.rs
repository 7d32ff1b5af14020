//! `glp.sample`: the samplers of `glp sample`, over the command line's own layer (the same
//! samplers, parameters, roots, backends, and so the same samples for a seed).

use crate::arrays::to_numpy;
use crate::dlpack::DeviceArray;
use crate::errors::{interruptible, IntoPy};
use crate::graph::{input_ids, to_input_ids, PyGraph};
use crate::options::{self, value_enum};
use glp::cli::sample::{App, AppParams};
use glp::cli::sample_backend::{gpu_option, DeviceMemoryArg, EngineArg, PlacementArg, RunOptions, Sampling};
use glp::cli::sample_roots::{initial_samples, ClustersArg, RootsArg};
use glp::graph::{Graph, VertexId};
use glp::io::WeightRule;
use glp::sample::gpu::{run_subgraphs_on_device, run_walks_on_device, DeviceSubgraphs, DeviceWalks, GpuSampleStats};
use glp::sample::{SampleGraph, SampleOutcome};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// Where samples start.
#[derive(FromPyObject)]
pub enum RootsInput<'py> {
    /// This many samples of random roots.
    Random(u64),
    /// A file of vertex ids, one per line.
    File(PathBuf),
    /// Vertex ids (input ids), one sample each (or per `batch_size`).
    Ids(PyReadonlyArray1<'py, i64>),
}

/// Where a run's samples are.
enum Output {
    /// In host memory, as the engines' outcome.
    Host(Box<SampleOutcome>),
    /// Walks left on the GPU, as rows of input ids.
    Walks(DeviceWalks),
    /// Subgraph samples left on the GPU, as disjoint subgraphs.
    Subgraphs(Box<DeviceSubgraphs>),
}

/// What the result reports of a GPU run: engine, placement, kernel time.
type GpuSummary = (&'static str, &'static str, f64);

fn summary(stats: &GpuSampleStats) -> GpuSummary {
    (stats.engine, stats.placement, stats.kernel_ms)
}

/// What an out-of-memory error of subgraphs kept on the GPU suggests instead.
const SUBGRAPHS_OUT_OF_MEMORY: &str = "; subgraphs left on the GPU hold every sample until the call ends: \
                                       output_type=\"numpy\" numbers them on the host batch by batch, or sample \
                                       fewer roots per call";

/// Samples from `graph` with `sampler` (a built-in name or a sampler file); returns the
/// samples' arrays and the run's statistics (the Python half wraps them in
/// `glp.SampleResult`): a walk sampler's rows (`walks`) or a subgraph sampler's PyG arrays,
/// and the run's [`SampleRecords`] (`records`), from which the per-sample arrays are converted
/// when one is read. With `device_output`, samples run on a GPU stay there (`on_device`): a
/// walk sampler's `walks`, a subgraph sampler's `node`, `batch`, `row` and `col` are then
/// [`DeviceArray`]s (DLPack), the counts per hop and step lists, and the records absent.
/// `ordinal` is the GPU's (`None` on the CPU).
#[pyfunction]
#[pyo3(signature = (graph, sampler, *, roots=None, walk_length=80, fanouts=vec![25, 10], replace=true, p=1.0, q=1.0, termination=0.15, layers=2, layer_size=64, batch_size=None, clusters=None, params=Vec::new(), seed=0, backend="auto", engine="auto", placement="auto", device_memory=None, batch_samples=None, device_output=false))]
#[allow(clippy::too_many_arguments)]
pub fn sample<'py>(
    py: Python<'py>,
    graph: &PyGraph,
    sampler: &str,
    roots: Option<RootsInput<'py>>,
    walk_length: u32,
    fanouts: Vec<u32>,
    replace: bool,
    p: f64,
    q: f64,
    termination: f64,
    layers: u32,
    layer_size: u32,
    batch_size: Option<u32>,
    clusters: Option<String>,
    params: Vec<String>,
    seed: u64,
    backend: &str,
    engine: &str,
    placement: &str,
    device_memory: Option<u64>,
    batch_samples: Option<u64>,
    device_output: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let params = AppParams {
        walk_length,
        fanouts,
        without_replacement: !replace,
        p,
        q,
        termination,
        layers,
        layer_size,
        file_params: params,
    };
    let app = App::new(sampler, &params).py_err()?;
    if batch_samples == Some(0) {
        return Err(PyValueError::new_err("batch_samples must be at least 1"));
    }
    if graph.graph.csr.weights().is_some_and(|w| w.iter().any(|&x| x < 0.0)) {
        return Err(PyValueError::new_err(format!(
            "the graph has negative edge weights: samplers draw in proportion to weights, which must be non-negative ({})",
            WeightRule::NonNegative.check(-1.0).err().unwrap_or_default()
        )));
    }
    let g: &Graph = &graph.graph;
    let roots = match roots {
        None => RootsArg::Every,
        Some(RootsInput::Random(count)) => RootsArg::Random(count),
        Some(RootsInput::File(path)) => RootsArg::File(path),
        Some(RootsInput::Ids(ids)) => RootsArg::Given(dense_roots(g, ids.as_slice()?)?),
    };
    let clusters = ClustersArg::parse(clusters.as_deref().unwrap_or("100"));
    let batch = batch_size.unwrap_or(app.default_batch());
    let engine = value_enum::<EngineArg>("engine", engine)?;
    let placement = value_enum::<PlacementArg>("placement", placement)?;
    let device_memory = DeviceMemoryArg { device_memory };
    let backend = options::backend(backend)?;
    let (output, stats) = interruptible(py, |stop| -> glp::Result<_> {
        let initial = initial_samples(&app, g, &roots, batch, &clusters, seed)?;
        let host = SampleGraph::of(g)?;
        let gpu_options = gpu_option(&[engine], &device_memory, &[placement]);
        let sampling = Sampling::open(backend, &host, gpu_options, placement, device_memory.device_memory)?;
        let options = RunOptions {
            seed,
            engine,
            device_memory: device_memory.device_memory,
            batch_samples: Some(batch_samples.unwrap_or(sampling.default_batch_samples())),
        };
        let name = (sampling.name(), sampling.device(), gpu_ordinal(&sampling));
        if let (true, Sampling::Gpu(on)) = (device_output, &sampling) {
            let config = options.gpu_config();
            if app.is_walk() {
                if let Some((walks, gpu)) =
                    run_walks_on_device(&on.gpu, &on.graph, app.compiled(), &initial, &g.ids, &config)?
                {
                    return Ok((Output::Walks(walks), (name, Some(summary(&gpu)))));
                }
            } else {
                let (subgraphs, gpu) =
                    run_subgraphs_on_device(&on.gpu, &on.graph, app.compiled(), &initial, &g.ids, &config)
                        .map_err(|error| error.with_hint(SUBGRAPHS_OUT_OF_MEMORY))?;
                return Ok((Output::Subgraphs(Box::new(subgraphs)), (name, Some(summary(&gpu)))));
            }
        }
        let run = sampling.gather(&app, &host, &initial, &options, &mut || stop())?;
        Ok((Output::Host(Box::new(run.outcome)), (name, run.gpu.as_ref().map(summary))))
    })
    .py_err()?;
    let ((backend, device, ordinal), gpu) = stats;
    let result = PyDict::new(py);
    result.set_item("sampler", app.name())?;
    result.set_item("is_walk", app.is_walk())?;
    result.set_item("backend", backend)?;
    result.set_item("device", device)?;
    result.set_item("ordinal", ordinal)?;
    result.set_item("engine", gpu.map(|g| g.0))?;
    result.set_item("placement", gpu.map(|g| g.1))?;
    result.set_item("kernel_ms", gpu.map(|g| g.2))?;
    let on_device = |array: DeviceArray| Bound::new(py, array);
    let ordinal = ordinal.unwrap_or(0);
    let outcome = match output {
        Output::Host(outcome) => outcome,
        Output::Walks(walks) => {
            result.set_item("on_device", true)?;
            result.set_item("samples", walks.samples)?;
            result.set_item("sampled_vertices", walks.sampled_vertices)?;
            result.set_item("time_ms", walks.elapsed.as_secs_f64() * 1e3)?;
            let array = DeviceArray::matrix(walks.rows, walks.samples, walks.width, walks.stride, ordinal);
            result.set_item("walks", on_device(array)?)?;
            return Ok(result);
        }
        Output::Subgraphs(subgraphs) => {
            let DeviceSubgraphs {
                node,
                batch,
                row,
                col,
                num_nodes,
                num_edges,
                num_sampled_nodes,
                num_sampled_edges,
                samples,
                sampled_vertices,
                elapsed,
            } = *subgraphs;
            result.set_item("on_device", true)?;
            result.set_item("samples", samples)?;
            result.set_item("sampled_vertices", sampled_vertices)?;
            result.set_item("time_ms", elapsed.as_secs_f64() * 1e3)?;
            result.set_item("node", on_device(DeviceArray::vector(node, num_nodes, ordinal))?)?;
            result.set_item("batch", on_device(DeviceArray::vector(batch, num_nodes, ordinal))?)?;
            result.set_item("row", on_device(DeviceArray::vector(row, num_edges, ordinal))?)?;
            result.set_item("col", on_device(DeviceArray::vector(col, num_edges, ordinal))?)?;
            result.set_item("num_sampled_nodes", num_sampled_nodes)?;
            result.set_item("num_sampled_edges", num_sampled_edges)?;
            return Ok(result);
        }
    };
    // The subgraphs' arrays converted in place (the same allocation, int64 for uint64).
    let owned_counts = |values: Vec<u64>| to_numpy(py, values.into_iter().map(|v| v as i64).collect());
    result.set_item("on_device", false)?;
    result.set_item("time_ms", outcome.elapsed.as_secs_f64() * 1e3)?;
    result.set_item("samples", outcome.num_samples())?;
    result.set_item("sampled_vertices", outcome.sampled_vertices())?;
    if app.is_walk() {
        // One array of rows, built in place: dense ids first, then each replaced by its input id.
        let (width, mut rows) =
            outcome.walk_rows(i64::from, -1).map_err(|e| pyo3::exceptions::PyMemoryError::new_err(e.to_string()))?;
        to_input_ids(g, &mut rows)?;
        result.set_item("walks", to_numpy(py, rows).reshape([outcome.num_samples(), width])?)?;
    } else {
        let subgraphs = outcome.subgraphs().py_err()?;
        result.set_item("node", id_array(py, g, &subgraphs.node)?)?;
        result.set_item("batch", owned_counts(subgraphs.batch))?;
        result.set_item("row", owned_counts(subgraphs.row))?;
        result.set_item("col", owned_counts(subgraphs.col))?;
        result.set_item("num_sampled_nodes", owned_counts(subgraphs.num_sampled_nodes))?;
        result.set_item("num_sampled_edges", owned_counts(subgraphs.num_sampled_edges))?;
    }
    result.set_item("records", SampleRecords { outcome: *outcome, graph: Arc::clone(&graph.graph) })?;
    Ok(result)
}

/// A run's samples as the engines gave them (each added vertex with its transit and step, 4
/// or 8 bytes a vertex), kept beside the walks or PyG's arrays until the Python half first
/// reads one of the per-sample arrays (`roots`, `vertices`, ...), then let go: a call that
/// wants the walks or PyG's arrays alone (every `NeighborLoader` batch) converts none of them,
/// three int64 arrays as long as its edges. Until then it keeps the graph alive too (its ids
/// convert the vertices).
#[pyclass(module = "glp._glp", frozen)]
pub struct SampleRecords {
    outcome: SampleOutcome,
    graph: Arc<Graph>,
}

#[pymethods]
impl SampleRecords {
    /// `roots`, `root_offsets`, `vertices`, `sources`, `steps` and `offsets` as int64 arrays,
    /// vertices as input ids (the ids and steps converted side by side on the pool).
    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (outcome, g) = (&self.outcome, &*self.graph);
        let ids = |vertices: &[VertexId]| id_array(py, g, vertices);
        let counts = |values: &[u64]| to_numpy(py, values.iter().map(|&v| v as i64).collect());
        let arrays = PyDict::new(py);
        arrays.set_item("roots", ids(&outcome.roots)?)?;
        arrays.set_item("root_offsets", counts(&outcome.root_offsets))?;
        arrays.set_item("vertices", ids(&outcome.vertices)?)?;
        arrays.set_item("sources", ids(&outcome.sources())?)?;
        let steps = outcome.steps().par_iter().with_min_len(1 << 16).map(|&s| i64::from(s)).collect();
        arrays.set_item("steps", to_numpy(py, steps))?;
        arrays.set_item("offsets", counts(&outcome.offsets))?;
        Ok(arrays)
    }
}

/// The input ids of `vertices` as a NumPy array (converted side by side on the pool).
fn id_array<'py>(py: Python<'py>, g: &Graph, vertices: &[VertexId]) -> PyResult<Bound<'py, PyArray1<i64>>> {
    Ok(to_numpy(py, input_ids(g, vertices)?))
}

/// The ordinal of the GPU that samples, `None` on the CPU.
fn gpu_ordinal(sampling: &Sampling<'_>) -> Option<i32> {
    match sampling {
        Sampling::Gpu(on) => i32::try_from(on.gpu.info().ordinal).ok(),
        Sampling::Cpu => None,
    }
}

/// Roots given as input ids, as dense vertex ids; an id that is not a vertex is an error
/// naming its position.
fn dense_roots(graph: &Graph, ids: &[i64]) -> PyResult<Vec<VertexId>> {
    ids.iter()
        .enumerate()
        .map(|(i, &id)| {
            u64::try_from(id)
                .ok()
                .and_then(|id| graph.ids.dense(id))
                .ok_or_else(|| PyValueError::new_err(format!("roots[{i}] = {id} is not a vertex of the graph")))
        })
        .collect()
}
