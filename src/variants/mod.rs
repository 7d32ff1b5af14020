//! The built-in label propagation variants, written as plain Rust against the hook API
//! ([`crate::lp::LpVariant`], [`crate::lp::View`]) as a user would write theirs.
//!
//! Each hook body stays inside the subset the compiler lowers to CUDA: scalars, `let` /
//! `let mut`, `if` / `else`, `match` on integers, `while` / `for` over integer ranges,
//! `break` / `continue` / `return`, arithmetic, bitwise and comparison operators, `as` casts,
//! the view's methods, a few `f64` methods (`sqrt`, `abs`, `min`, `max`, `floor`, `ceil`,
//! `exp`, `ln`, `powi`), tuples for `(Label, f64)`, reads of `self.field` (the variant's
//! scalar parameters) and the constant `UNLABELLED`. No closures, references to locals,
//! heap allocation, iterators, macros, generics or `unsafe`.
//!
//! `#[glp::lp_variant]` derives the optional view facilities each variant's hooks use
//! (`LpKernel::features`); [`crate::lp::run_kernel`] runs a variant with exactly those.
//!
//! | variant | hooks | facilities |
//! |---|---|---|
//! | [`Classic`] | defaults: most frequent neighbour label | none |
//! | [`Weighted`] | `load_neighbor`: edge weight | edge weights |
//! | [`Capped`] | `load_neighbor`: weight 0 for neighbours above a degree cap | none |
//! | [`Llp`] | `pick_label` counts, `label_score` = `freq - gamma * (others - freq)` | histogram |
//! | [`Slp`] | speaker picks from memory, listener adds and prunes | label memory, random, weights |
//! | [`Seeded`] | seeds as initial labels, seeds never change | seeds |

mod capped;
mod classic;
mod llp;
mod seeded;
mod slp;
mod weighted;

pub use capped::Capped;
pub use classic::Classic;
pub use llp::Llp;
pub use seeded::Seeded;
pub use slp::Slp;
pub use weighted::Weighted;
