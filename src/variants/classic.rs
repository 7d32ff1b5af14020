//! Classic label propagation.

use crate::lp::{LpFeatures, LpVariant};

/// Classic label propagation (Raghavan et al. 2007; LDBC CDLP; GLP Fig. 4): every vertex
/// takes the most frequent label among its neighbours, edge weights ignored. All hooks are
/// the trait's defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Classic;

impl Classic {
    /// The optional facilities the hooks use: none.
    pub const FEATURES: LpFeatures = LpFeatures {
        custom_pick_label: false,
        histogram: false,
        label_memory: false,
        seeds: false,
        random: false,
        vertex_weights: false,
        edge_weights: false,
    };
}

#[glp::lp_variant]
impl LpVariant for Classic {}
