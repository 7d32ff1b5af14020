//! Which optional runtime facilities a label propagation variant's hooks use, so the runtime
//! allocates and maintains only those.

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

impl LpFeatures {
    /// Every facility: what a variant whose use is unknown must be given.
    pub const ALL: LpFeatures = LpFeatures {
        custom_pick_label: true,
        histogram: true,
        label_memory: true,
        seeds: true,
        random: true,
        vertex_weights: true,
        edge_weights: true,
    };
}
