//! Which optional runtime facilities a label propagation variant's hooks use, so the runtime
//! allocates and maintains only those.
//!
//! One table ([`LpFeatures::NAMES`]) ties each flag to its bit and to the facility name the
//! view's methods carry in [`super::LP_KIND`] ([`crate::program::kind::IntrinsicSpec::feature`]);
//! the attribute's expansion writes the flags as [`LpFeatures::bits`].

use crate::ir::Program;
use crate::program::features::{used, writes_hook};

/// Optional facilities of the label propagation view a variant uses. Found by the compiler
/// from the hooks' bodies; the engines allocate (and reset every iteration) only what is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct LpFeatures {
    /// The variant overrides `pick_label`: engines run the pick phase every iteration
    /// (otherwise a vertex shows the label it ended the previous iteration with).
    pub custom_pick_label: bool,
    /// The global per-label histogram (`count_label` / `global_count`).
    pub histogram: bool,
    /// The bounded per-vertex label memory (`memory_add` / `memory_prune` / `memory_pick`).
    pub label_memory: bool,
    /// Seed labels (`seed_label`).
    pub seeds: bool,
    /// The counter-based random source (`random_u32` / `random_f64`).
    pub random: bool,
    /// Vertex weights (`vertex_weight`).
    pub vertex_weights: bool,
    /// Edge weights (`edge_weight`).
    pub edge_weights: bool,
}

/// A flag's accessor.
type Flag = fn(&mut LpFeatures) -> &mut bool;

impl LpFeatures {
    /// Every flag but [`LpFeatures::custom_pick_label`] (which says whether a hook is
    /// written, not which facility it uses): the facility's name in [`super::LP_KIND`] and
    /// the flag, in bit order from bit 1 (bit 0 is `custom_pick_label`).
    pub const NAMES: [(&'static str, Flag); 6] = [
        ("histogram", |f| &mut f.histogram),
        ("label_memory", |f| &mut f.label_memory),
        ("seeds", |f| &mut f.seeds),
        ("random", |f| &mut f.random),
        ("vertex_weights", |f| &mut f.vertex_weights),
        ("edge_weights", |f| &mut f.edge_weights),
    ];

    /// Every facility: what a variant whose use is unknown must be given.
    pub const ALL: LpFeatures = LpFeatures::from_bits(u32::MAX);

    /// No facility: classic label propagation.
    pub const NONE: LpFeatures = LpFeatures::from_bits(0);

    /// The flags of `bits` (bit 0 `custom_pick_label`, then [`LpFeatures::NAMES`]' order).
    pub const fn from_bits(bits: u32) -> LpFeatures {
        LpFeatures {
            custom_pick_label: bits & 1 != 0,
            histogram: bits & 2 != 0,
            label_memory: bits & 4 != 0,
            seeds: bits & 8 != 0,
            random: bits & 16 != 0,
            vertex_weights: bits & 32 != 0,
            edge_weights: bits & 64 != 0,
        }
    }

    /// The flags as bits ([`LpFeatures::from_bits`] gives them back).
    pub fn bits(self) -> u32 {
        let mut copy = self;
        let mut bits = u32::from(copy.custom_pick_label);
        for (i, (_, flag)) in LpFeatures::NAMES.iter().enumerate() {
            bits |= u32::from(*flag(&mut copy)) << (i + 1);
        }
        bits
    }

    /// The facilities `program`'s hooks use.
    pub fn of(program: &Program) -> LpFeatures {
        let mut features =
            LpFeatures { custom_pick_label: writes_hook(program, super::PICK_LABEL), ..LpFeatures::NONE };
        for name in used(&super::LP_KIND, program) {
            if let Some((_, flag)) = LpFeatures::NAMES.iter().find(|(n, _)| *n == name) {
                *flag(&mut features) = true;
            }
        }
        features
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_facility_of_the_view_has_a_flag_and_bits_round_trip() {
        let mut names: Vec<&str> = LpFeatures::NAMES.iter().map(|(n, _)| *n).collect();
        let mut of_kind = super::super::LP_KIND.feature_names();
        names.sort_unstable();
        of_kind.sort_unstable();
        assert_eq!(of_kind, names);
        for bits in 0..128u32 {
            assert_eq!(LpFeatures::from_bits(bits).bits(), bits);
        }
        let all = LpFeatures::ALL;
        assert!(all.custom_pick_label && all.histogram && all.label_memory && all.seeds);
        assert!(all.random && all.vertex_weights && all.edge_weights);
        assert_eq!(LpFeatures::NONE, LpFeatures::default());
    }
}
