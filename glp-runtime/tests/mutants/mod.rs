//! Support of the mutation tests (`io_mutants.rs`): the mutant generator and the strict
//! reference readers the loaders are compared with.

pub mod mutate;
pub mod reference;
