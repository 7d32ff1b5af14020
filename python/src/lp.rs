//! `glp.label_propagation` and the quality metrics, over the command line's own engine layer
//! (`glp lp`): the same variants, parameters, schedules, backends and labels.

use crate::arrays::to_numpy;
use crate::errors::{interruptible, IntoPy};
use crate::graph::{check_non_negative, PyGraph};
use crate::options::{self, value_enum};
use glp::cli::backend::{choose_backend, Backend};
use glp::cli::engine::{check_gpu, cpu_search, parse_variant, EngineArgs, ScheduleArg, TiesArg};
use glp::cli::lp::{detect_observed, label_name};
use glp::community::Cover;
use glp::graph::{directed_neighbourhoods, Graph};
use glp::io;
use glp::lp::gpu::{MflStrategy, VertexOrder};
use glp::metrics;
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::borrow::Cow;
use std::path::PathBuf;

/// Seed labels: `vertex label` lines (bytes), or a file of them.
#[derive(FromPyObject)]
pub enum SeedsArg {
    Text(Vec<u8>),
    File(PathBuf),
}

/// Runs label propagation; returns the labels as the user knows them and the run's
/// statistics (the Python half wraps them in `glp.LpResult`).
#[pyfunction]
#[pyo3(signature = (graph, variant="classic", *, schedule="async", iterations=20, ties=None, params=Vec::new(), seeds=None, seed=0, backend="auto", mfl="glp", pick_less_every=glp::lp::DEFAULT_PICK_LESS_EVERY, tolerance=glp::lp::DEFAULT_TOLERANCE))]
#[allow(clippy::too_many_arguments)]
pub fn label_propagation<'py>(
    py: Python<'py>,
    graph: &PyGraph,
    variant: &str,
    schedule: &str,
    iterations: u32,
    ties: Option<&str>,
    params: Vec<String>,
    seeds: Option<SeedsArg>,
    seed: u64,
    backend: &str,
    mfl: &str,
    pick_less_every: u32,
    tolerance: f64,
) -> PyResult<Bound<'py, PyDict>> {
    if iterations == 0 {
        return Err(PyValueError::new_err("iterations must be at least 1"));
    }
    let engine = EngineArgs {
        schedule: value_enum::<ScheduleArg>("schedule", schedule)?,
        iterations,
        variant: parse_variant(variant).map_err(PyValueError::new_err)?,
        params,
        // `check` only asks whether seeds are given; they are read below.
        seeds: seeds.as_ref().map(|_| PathBuf::from("seeds")),
        ties: ties.map(|t| value_enum::<TiesArg>("ties", t)).transpose()?,
        pick_less_every,
        tolerance,
    };
    let strategy: MflStrategy = mfl.parse().py_err()?;
    let backend = choose_backend(options::backend(backend)?).py_err()?;
    let config = engine.config(seed, matches!(backend, Backend::Gpu(_)));
    config.validate().py_err()?;
    match &backend {
        Backend::Cpu => cpu_search(strategy).map(drop).py_err()?,
        Backend::Gpu(_) => check_gpu(&config, &[strategy]).py_err()?,
    }
    let variant = engine.check().py_err()?;
    check_non_negative(&graph.graph)?;
    let on: Cow<'_, Graph> = if graph.graph.symmetric {
        Cow::Borrowed(&*graph.graph)
    } else {
        // Directed: LP counts in- and out-neighbours, as `glp lp --directed` does.
        let csr = py.detach(|| directed_neighbourhoods(&graph.graph.csr)).py_err()?;
        Cow::Owned(Graph { csr, ids: graph.graph.ids.clone(), symmetric: true })
    };
    let seeds = match seeds {
        None => None,
        Some(SeedsArg::File(path)) => Some(io::read_seeds(&path, &on.ids).py_err()?),
        Some(SeedsArg::Text(text)) => Some(io::read_seeds_from_bytes("seeds", &text, &on.ids).py_err()?),
    };
    let variant = variant.with_seeds(seeds).py_err()?;
    let outcome = interruptible(py, |stop| {
        detect_observed(&backend, &on, &variant, &config, (strategy, VertexOrder::Auto), &|_, _| stop())
    })
    .py_err()?;
    let name = |label| label_name(&on, &variant, label).map_or(Ok(-1), |id| i64::try_from(id).map_err(|_| id));
    let names = |labels: &[u32]| -> PyResult<Vec<i64>> {
        labels
            .iter()
            .map(|&l| name(l).map_err(|id| PyValueError::new_err(format!("label {id} does not fit in int64"))))
            .collect()
    };
    let quality = metrics::QualityReport::new(&on.csr, &outcome.labels, None).py_err()?;
    let result = PyDict::new(py);
    result.set_item("labels", to_numpy(py, names(&outcome.labels)?))?;
    let memberships = match &outcome.memberships {
        Some(memberships) => {
            let list = PyList::empty(py);
            for communities in memberships {
                list.append(to_numpy(py, names(communities)?))?;
            }
            Some(list)
        }
        None => None,
    };
    result.set_item("memberships", memberships)?;
    result.set_item("iterations", outcome.iterations.len())?;
    result.set_item("converged", outcome.converged)?;
    result.set_item("time_ms", outcome.elapsed.as_secs_f64() * 1e3)?;
    result.set_item("changed_per_iteration", outcome.iterations.iter().map(|i| i.changed).collect::<Vec<u64>>())?;
    result.set_item("modularity", quality.modularity)?;
    result.set_item("communities", quality.communities.count)?;
    result.set_item("backend", backend.name())?;
    Ok(result)
}

/// Labels of any integers as dense labels `0..k` (equal values, equal labels), `-1` as
/// unlabelled (for modularity a community of its own; NMI and ARI do not compare it).
fn compact(labels: &[i64]) -> Vec<u32> {
    let mut sorted: Vec<i64> = labels.iter().copied().filter(|&l| l != -1).collect();
    sorted.sort_unstable();
    sorted.dedup();
    labels.iter().map(|&l| sorted.binary_search(&l).map_or(glp::community::UNLABELLED, |i| i as u32)).collect()
}

/// The modularity of the partition `labels` (one label per vertex, any integers, -1 for an
/// unlabelled vertex, which is a community of its own) of `graph`; on a directed graph, of
/// its in- and out-neighbourhoods, as `label_propagation` reports it.
#[pyfunction]
pub fn modularity(py: Python<'_>, graph: &PyGraph, labels: PyReadonlyArray1<'_, i64>) -> PyResult<f64> {
    let labels = labels.as_slice()?;
    let n = graph.graph.num_vertices();
    if labels.len() != n {
        return Err(PyValueError::new_err(format!("{} labels for a graph of {n} vertices", labels.len())));
    }
    check_non_negative(&graph.graph)?;
    let labels = compact(labels);
    py.detach(|| match graph.graph.symmetric {
        true => metrics::modularity(&graph.graph.csr, &labels),
        // Directed: the graph label propagation runs on (in- and out-neighbours).
        false => metrics::modularity(&directed_neighbourhoods(&graph.graph.csr)?, &labels),
    })
    .py_err()
}

/// Two labelings of the same items, of equal lengths.
fn pair(a: &[i64], b: &[i64]) -> PyResult<(Vec<u32>, Vec<u32>)> {
    if a.len() != b.len() {
        return Err(PyValueError::new_err(format!(
            "labelings of {} and {} items: compare equal lengths",
            a.len(),
            b.len()
        )));
    }
    Ok((compact(a), compact(b)))
}

/// Normalised mutual information of two partitions (arithmetic normalisation).
#[pyfunction]
pub fn nmi(a: PyReadonlyArray1<'_, i64>, b: PyReadonlyArray1<'_, i64>) -> PyResult<f64> {
    let (a, b) = pair(a.as_slice()?, b.as_slice()?)?;
    metrics::nmi(&a, &b).map(|n| n.value).py_err()
}

/// Adjusted Rand index of two partitions.
#[pyfunction]
pub fn ari(a: PyReadonlyArray1<'_, i64>, b: PyReadonlyArray1<'_, i64>) -> PyResult<f64> {
    let (a, b) = pair(a.as_slice()?, b.as_slice()?)?;
    metrics::ari(&a, &b).map(|r| r.value).py_err()
}

/// Overlapping NMI (McDaid, Greene and Hurley's NMI_max) of two covers, each a list of communities (arrays of
/// item ids below `universe`).
#[pyfunction]
pub fn overlapping_nmi(a: Vec<Vec<u32>>, b: Vec<Vec<u32>>, universe: usize) -> PyResult<f64> {
    if universe > u32::MAX as usize {
        return Err(PyValueError::new_err(format!(
            "universe = {universe}: items are 32-bit, so at most {} of them",
            u32::MAX
        )));
    }
    let cover = |name: &str, communities: Vec<Vec<u32>>| -> PyResult<Cover> {
        if let Some(v) = communities.iter().flatten().find(|&&v| v as usize >= universe) {
            return Err(PyValueError::new_err(format!("{name}: item {v} is not below universe={universe}")));
        }
        let communities = communities
            .into_iter()
            .map(|mut members| {
                members.sort_unstable();
                members.dedup();
                members
            })
            .collect();
        Ok(Cover { communities })
    };
    metrics::overlapping_nmi(&cover("a", a)?, &cover("b", b)?, universe).map(|o| o.nmi_max).py_err()
}
