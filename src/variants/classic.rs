//! Classic label propagation.

use crate::lp::LpVariant;

/// Classic label propagation (Raghavan et al. 2007; LDBC CDLP; GLP Fig. 4): every vertex
/// takes the most frequent label among its neighbours, edge weights ignored. All hooks are
/// the trait's defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Classic;

#[glp::lp_variant]
impl LpVariant for Classic {}
