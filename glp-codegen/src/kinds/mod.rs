//! The program kinds, one folder each: the kind's [`KindSpec`](crate::program::kind::KindSpec)
//! (hooks, context methods, aliases, constants), its context's CUDA header, its feature flags,
//! its attribute expansion and the analyses only it needs. Everything else is generic.
//!
//! - [`lp`]: label propagation variants (GLP's hooks).
//! - [`sample`]: graph samplers (NextDoor's hooks).
//! - [`edge`]: edge programs (WolfGraph's vertex values, edge function, combine and apply).

pub mod edge;
pub mod lp;
pub mod sample;
