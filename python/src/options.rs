//! Options given by name, as the command line's values (`backend="gpu"`, `schedule="sync"`).

use glp::cli::backend::BackendArg;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The value of the option `option` named `value` (a command-line `ValueEnum`); an unknown
/// name is a `ValueError` listing the names.
pub fn value_enum<T: clap::ValueEnum>(option: &str, value: &str) -> PyResult<T> {
    T::from_str(value, false).map_err(|_| {
        let names: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|p| p.get_name().to_string())
            .collect();
        PyValueError::new_err(format!("{option}=`{value}`: expected one of {}", names.join(", ")))
    })
}

/// `backend=` values: auto, cpu or gpu.
pub fn backend(value: &str) -> PyResult<BackendArg> {
    value_enum("backend", value)
}
