//! The built-in samplers, written as plain Rust against the sampler API
//! ([`crate::sample::Sampler`], [`crate::sample::SampleView`]) as a user would write theirs,
//! in the subset the compiler lowers to CUDA (see [`crate::variants`] for the subset).
//!
//! | sampler | one sample | type | parameters |
//! |---|---|---|---|
//! | [`DeepWalk`] | a uniform random walk | individual | `length` |
//! | [`WeightedDeepWalk`] | a random walk along edges in proportion to their weight | individual | `length` |
//! | [`Ppr`] | a walk ended with probability `termination` before each step | individual | `termination`, `max_length` |
//! | [`Node2vec`] | a second-order walk (bias `1/p` back, `1` to common neighbours, `1/q` out) | individual | `length`, `p`, `q` |
//! | [`KHop`] | GraphSAGE's sampled k-hop tree of a root | individual | fan-outs, `replace` |
//! | [`Layer`] | layers of `size` vertices drawn from the previous layer's edges | collective | `layers`, `size` |
//! | [`FastGcn`] | layers drawn by degree among the previous layer's neighbours | collective | `layers`, `size` |
//! | [`Ladies`] | layers drawn by LADIES's layer-dependent importance | collective | `layers`, `size` |
//! | [`Mvs`] | a root's k-hop tree, neighbours drawn by `1 / sqrt(degree)` (minimal variance) | individual | `hops`, `fanout` |
//! | [`ClusterGcn`] | the subgraph induced by a group of roots (clusters) | individual | none |
//! | [`MultiRootWalk`] | `m` walkers, the one that moves chosen by degree | collective | `length` |

use crate::sample::CompiledSampler;

mod cluster_gcn;
mod deepwalk;
mod fastgcn;
mod khop;
mod ladies;
mod layer;
mod multi_root_walk;
mod mvs;
mod node2vec;
mod ppr;
mod weighted_deepwalk;

pub use cluster_gcn::ClusterGcn;
pub use deepwalk::DeepWalk;
pub use fastgcn::FastGcn;
pub use khop::{KHop, MAX_HOPS};
pub use ladies::Ladies;
pub use layer::Layer;
pub use multi_root_walk::MultiRootWalk;
pub use mvs::Mvs;
pub use node2vec::Node2vec;
pub use ppr::Ppr;
pub use weighted_deepwalk::WeightedDeepWalk;

/// A built-in sampler: its name, an instance with typical parameters, and its source file
/// as a user would pass it to `glp sample FILE.rs`.
#[derive(Debug, Clone, Copy)]
pub struct BuiltInSampler {
    /// The name `glp sample` takes.
    pub name: &'static str,
    /// The sampler with typical parameters (short walks and small fan-outs, so that tests
    /// comparing engines stay quick; `glp sample` takes the command line's).
    pub sampler: fn() -> Box<dyn CompiledSampler>,
    /// The source file's path in the repository and its text.
    pub source: (&'static str, &'static str),
}

macro_rules! built_in {
    ($($name:literal => $file:literal: $sampler:expr),* $(,)?) => {
        [$(BuiltInSampler {
            name: $name,
            sampler: || Box::new($sampler),
            source: (concat!("src/samplers/", $file), include_str!($file)),
        }),*]
    };
}

/// Every built-in sampler, in the order of the command line's help.
pub const BUILT_IN: [BuiltInSampler; 11] = built_in![
    "deepwalk" => "deepwalk.rs": DeepWalk { length: 20 },
    "weighted-deepwalk" => "weighted_deepwalk.rs": WeightedDeepWalk { length: 20 },
    "ppr" => "ppr.rs": Ppr { termination: 0.15, max_length: 20 },
    "node2vec" => "node2vec.rs": Node2vec { length: 20, p: 2.0, q: 0.5 },
    "khop" => "khop.rs": KHop { hops: 2, fanout_1: 10, fanout_2: 5, fanout_3: 0, fanout_4: 0, replace: true },
    "layer" => "layer.rs": Layer { layers: 2, size: 16 },
    "fastgcn" => "fastgcn.rs": FastGcn { layers: 2, size: 16 },
    "ladies" => "ladies.rs": Ladies { layers: 2, size: 16 },
    "mvs" => "mvs.rs": Mvs { hops: 2, fanout: 5 },
    "cluster-gcn" => "cluster_gcn.rs": ClusterGcn,
    "multi-root-walk" => "multi_root_walk.rs": MultiRootWalk { length: 20 },
];
