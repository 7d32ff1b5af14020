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
//! (`CompiledVariant::features`); [`crate::lp::run_kernel`] runs a variant with exactly those.
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

use crate::lp::CompiledVariant;

/// A built-in variant: its name (what `--variant` takes), the variant with its default
/// parameters, and its source file as a user would pass it to `--variant FILE.rs`.
#[derive(Clone, Copy)]
pub struct BuiltIn {
    /// The name `--variant` takes.
    pub name: &'static str,
    /// The variant with its default parameters.
    pub variant: fn() -> Box<dyn CompiledVariant>,
    /// The source file's path in the repository and its text.
    pub source: (&'static str, &'static str),
}

/// Every built-in variant, in the order of the command line's help.
pub const BUILT_IN: [BuiltIn; 6] = [
    BuiltIn {
        name: "classic",
        variant: || Box::new(Classic),
        source: ("src/variants/classic.rs", include_str!("classic.rs")),
    },
    BuiltIn {
        name: "weighted",
        variant: || Box::new(Weighted),
        source: ("src/variants/weighted.rs", include_str!("weighted.rs")),
    },
    BuiltIn {
        name: "capped",
        variant: || Box::new(Capped::default()),
        source: ("src/variants/capped.rs", include_str!("capped.rs")),
    },
    BuiltIn {
        name: "llp",
        variant: || Box::new(Llp::default()),
        source: ("src/variants/llp.rs", include_str!("llp.rs")),
    },
    BuiltIn {
        name: "slp",
        variant: || Box::new(Slp::default()),
        source: ("src/variants/slp.rs", include_str!("slp.rs")),
    },
    BuiltIn {
        name: "seeded",
        variant: || Box::new(Seeded),
        source: ("src/variants/seeded.rs", include_str!("seeded.rs")),
    },
];
