//! `glp.Graph`: a graph loaded from a file (every format the command line reads) or built
//! from arrays of edges, held by Rust and shared by the calls that run on it.

use crate::arrays::{dense_ids, to_numpy};
use crate::errors::{to_py, IntoPy};
use glp::cli::common::DuplicatesArg;
use glp::graph::{build_csr, BuildOptions, DuplicateEdges, EdgeList, Graph, VertexId, VertexIds};
use glp::io::{self, Columns, Format, LoadOptions, WeightRule};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// A graph: vertices `0..num_vertices` (dense ids, in increasing order of the input ids,
/// `ids` maps back) and its stored edges, each undirected edge stored in both directions.
#[pyclass(name = "Graph", module = "glp._glp", frozen)]
pub struct PyGraph {
    pub graph: Arc<Graph>,
    /// Where it came from, for `repr` and reports.
    pub name: String,
}

/// `duplicates=` values, as the command line's `--duplicates`.
fn duplicates(name: &str) -> PyResult<DuplicateEdges> {
    let arg = <DuplicatesArg as clap::ValueEnum>::from_str(name, false)
        .map_err(|_| PyValueError::new_err(format!("duplicates=`{name}`: expected keep, collapse or sum")))?;
    Ok(match arg {
        DuplicatesArg::Keep => DuplicateEdges::Keep,
        DuplicatesArg::Collapse => DuplicateEdges::Collapse,
        DuplicatesArg::Sum => DuplicateEdges::Sum,
    })
}

#[pymethods]
impl PyGraph {
    /// Loads a graph file (Matrix Market, SNAP edge list, CSV, LDBC, .glpg; plain or
    /// compressed), as `glp` does.
    #[staticmethod]
    #[pyo3(signature = (path, *, format=None, directed=false, keep_self_loops=false, duplicates="collapse", columns=None))]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        format: Option<&str>,
        directed: bool,
        keep_self_loops: bool,
        duplicates: &str,
        columns: Option<&str>,
    ) -> PyResult<Self> {
        let options = LoadOptions {
            format: format.map(str::parse::<Format>).transpose().py_err()?,
            build: BuildOptions {
                symmetrise: !directed,
                drop_self_loops: !keep_self_loops,
                duplicates: self::duplicates(duplicates)?,
            },
            progress: glp::cli::console::progress_requested(),
            columns: columns.map(str::parse::<Columns>).transpose().py_err()?,
            weights: WeightRule::Any,
        };
        let graph = py.detach(|| io::load_graph(&path, &options)).py_err()?;
        Ok(PyGraph { graph: Arc::new(graph), name: path.display().to_string() })
    }

    /// The graph of the edges `sources[i] -> targets[i]` over the vertices
    /// `0..num_vertices` (by default one more than the largest id).
    #[staticmethod]
    #[pyo3(signature = (sources, targets, weights=None, *, num_vertices=None, directed=false, keep_self_loops=false, duplicates="collapse"))]
    #[allow(clippy::too_many_arguments)]
    fn from_arrays(
        py: Python<'_>,
        sources: PyReadonlyArray1<'_, i64>,
        targets: PyReadonlyArray1<'_, i64>,
        weights: Option<PyReadonlyArray1<'_, f32>>,
        num_vertices: Option<i64>,
        directed: bool,
        keep_self_loops: bool,
        duplicates: &str,
    ) -> PyResult<Self> {
        let (sources, targets) = (sources.as_slice()?, targets.as_slice()?);
        if sources.len() != targets.len() {
            return Err(PyValueError::new_err(format!(
                "{} sources and {} targets: every edge has one of each",
                sources.len(),
                targets.len()
            )));
        }
        let weights = match &weights {
            Some(w) => {
                let w = w.as_slice()?;
                if w.len() != sources.len() {
                    return Err(PyValueError::new_err(format!(
                        "{} weights for {} edges: one weight per edge",
                        w.len(),
                        sources.len()
                    )));
                }
                if let Some(i) = w.iter().position(|x| !x.is_finite()) {
                    return Err(PyValueError::new_err(format!("weights[{i}] = {} is not finite", w[i])));
                }
                Some(w.to_vec())
            }
            None => None,
        };
        let largest = sources.iter().chain(targets).copied().max();
        let n = match num_vertices {
            Some(n) if n < 0 => return Err(PyValueError::new_err(format!("num_vertices = {n} is negative"))),
            Some(n) => n as u64,
            None => largest.map_or(0, |m| (m.max(-1) + 1) as u64),
        };
        if n >= u64::from(VertexId::MAX) {
            return Err(PyValueError::new_err(format!(
                "{n} vertices: glp numbers vertices with 32 bits (at most {})",
                VertexId::MAX - 1
            )));
        }
        let sources = dense_ids("sources", sources, n)?;
        let targets = dense_ids("targets", targets, n)?;
        let options = BuildOptions {
            symmetrise: !directed,
            drop_self_loops: !keep_self_loops,
            duplicates: self::duplicates(duplicates)?,
        };
        let edges = EdgeList { num_vertices: n as usize, sources, targets, weights };
        let csr = py.detach(|| build_csr(&edges, &options)).py_err()?;
        let ids = VertexIds::Range { first: 0, len: n as usize };
        let graph = Graph { csr, ids, symmetric: !directed };
        Ok(PyGraph { graph: Arc::new(graph), name: "<arrays>".into() })
    }

    /// Writes the graph as a `.glpg` file, which loads exactly as written.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| io::write_glpg(&self.graph, &path)).py_err()
    }

    /// Number of vertices.
    #[getter]
    fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    /// Number of stored edges: an undirected edge counts twice.
    #[getter]
    fn num_edges(&self) -> u64 {
        self.graph.num_edges()
    }

    /// Whether the edges keep their directions (`directed=True` at load).
    #[getter]
    fn directed(&self) -> bool {
        !self.graph.symmetric
    }

    /// Whether the edges carry weights.
    #[getter]
    fn weighted(&self) -> bool {
        self.graph.csr.weights().is_some()
    }

    /// Where the graph came from.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The input id of every vertex (int64).
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let ids: Vec<i64> =
            (0..self.graph.num_vertices() as VertexId).map(|v| input_id(&self.graph, v)).collect::<PyResult<_>>()?;
        Ok(to_numpy(py, ids))
    }

    /// The number of stored edges of every vertex (int64).
    fn degrees<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let offsets = self.graph.csr.offsets();
        to_numpy(py, offsets.windows(2).map(|w| (w[1] - w[0]) as i64).collect())
    }

    /// The stored edges in CSR form: `(offsets, targets, weights or None)`, vertex `v`'s
    /// edges being `targets[offsets[v]:offsets[v + 1]]` (dense ids).
    #[allow(clippy::type_complexity)]
    fn csr<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, Option<Bound<'py, PyArray1<f32>>>) {
        let csr = &self.graph.csr;
        (
            to_numpy(py, csr.offsets().iter().map(|&o| o as i64).collect()),
            to_numpy(py, csr.targets().iter().map(|&t| i64::from(t)).collect()),
            csr.weights().map(|w| to_numpy(py, w.to_vec())),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "glp.Graph({}: {} vertices, {} stored edges{}{})",
            self.name,
            self.graph.num_vertices(),
            self.graph.num_edges(),
            if self.graph.symmetric { "" } else { ", directed" },
            if self.graph.csr.weights().is_some() { ", weighted" } else { "" }
        )
    }
}

/// The input id of vertex `v`, as int64.
pub fn input_id(graph: &Graph, v: VertexId) -> PyResult<i64> {
    let id = graph.ids.original(v);
    i64::try_from(id).map_err(|_| PyValueError::new_err(format!("vertex id {id} does not fit in int64")))
}

/// The input ids of dense vertices `vertices` as int64, converted side by side on the pool.
/// When every id of the graph fits int64 (checked once, from its largest), each vertex's is a
/// plain lookup (a check and a `PyResult` a vertex took a third of a DeepWalk call's time
/// beside the sampling); otherwise each is checked ([`input_id`]), so that only a vertex whose
/// id does not fit is an error.
pub fn input_ids(graph: &Graph, vertices: &[VertexId]) -> PyResult<Vec<i64>> {
    let vertices = vertices.par_iter().with_min_len(1 << 16);
    if all_ids_fit(graph) {
        Ok(vertices.map(|&v| graph.ids.original(v) as i64).collect())
    } else {
        vertices.map(|&v| input_id(graph, v)).collect()
    }
}

/// Replaces each dense vertex of `rows` (those >= 0; negative entries are padding) by its
/// input id, as [`input_ids`] does.
pub fn to_input_ids(graph: &Graph, rows: &mut [i64]) -> PyResult<()> {
    let vertices = rows.par_iter_mut().with_min_len(1 << 16).filter(|v| **v >= 0);
    if all_ids_fit(graph) {
        vertices.for_each(|v| *v = graph.ids.original(*v as VertexId) as i64);
        Ok(())
    } else {
        vertices.try_for_each(|v| {
            *v = input_id(graph, *v as VertexId)?;
            Ok(())
        })
    }
}

/// Whether every input id of `graph` fits in int64.
fn all_ids_fit(graph: &Graph) -> bool {
    graph.ids.largest().is_none_or(|id| i64::try_from(id).is_ok())
}

/// Refuses a graph with negative edge weights (label propagation's scores, modularity).
pub fn check_non_negative(graph: &Graph) -> PyResult<()> {
    match graph.csr.weights().and_then(|w| w.iter().position(|&x| x < 0.0)) {
        Some(e) => Err(to_py(glp::Error::invalid(format!(
            "edge {e} has the negative weight {}: {}",
            graph.csr.weights().map_or(0.0, |w| w[e]),
            WeightRule::NonNegative.check(-1.0).err().unwrap_or_default()
        )))),
        None => Ok(()),
    }
}
