//! Arrays in and out: NumPy arrays from Rust vectors (moved, not copied), and vertex ids
//! checked on the way in.

use glp::graph::VertexId;
use numpy::{Element, PyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `values` as a NumPy array that owns them.
pub fn to_numpy<T: Element>(py: Python<'_>, values: Vec<T>) -> Bound<'_, PyArray1<T>> {
    PyArray1::from_vec(py, values)
}

/// `ids` (the array `name`) as vertex ids below `n`; an id outside is an error naming its
/// position.
pub fn dense_ids(name: &str, ids: &[i64], n: u64) -> PyResult<Vec<VertexId>> {
    match ids.iter().position(|&v| v < 0 || v as u64 >= n) {
        Some(i) => Err(PyValueError::new_err(format!(
            "{name}[{i}] = {} is not a vertex id: the graph has the vertices 0..{n}",
            ids[i]
        ))),
        None => Ok(ids.iter().map(|&v| v as VertexId).collect()),
    }
}
