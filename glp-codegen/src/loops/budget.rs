//! The default step budget of hooks' loops ([`crate::loops`]), for every kind, and how the
//! GPU reports a hook that ran past it.
//!
//! # The default budget
//!
//! [`default_loop_budget`]: `max(2^24, 4 * (vertices + stored edges))` loop iterations per
//! hook call, all its loops together. Legitimate hooks loop over their vertex's edges
//! (a degree is at most the stored edge count, ~10^8 for hubs of real graphs), over the
//! neighbours' edges (at most every stored edge once), over the vertices or labels (at most
//! the vertex count), or over a label memory's few slots; the budget lets one call do four
//! full passes over the whole graph, which no per-vertex hook needs. The floor of 2^24
//! (16.8 million) leaves numeric iterations room on small graphs. A hook that never ends is
//! stopped after about 0.6 s of interpretation on a small graph (the interpreter runs some
//! 30 million iterations of `while true { n += 1; }` a second on a 2-core development
//! machine), and after minutes on graphs of billions of edges; a GPU thread spends a few
//! cycles per step.
//!
//! # The GPU's fault record
//!
//! A hook whose loops ran out writes to its kind's fault record (`kinds/<kind>/view.cuh`) the code
//! [`LOOP_SITE_FAULT`]` + site` (the loop's index in [`crate::loops::loop_sites`], from 1;
//! below it are the view methods' codes) and the id `hook << 32 | vertex`;
//! [`decode_loop_fault`] reads it back.

/// The first fault code of loop sites (`GLP_VIEW_LOOP_SITE` and `GLP_SAMPLE_LOOP_SITE` of the
/// kinds' view headers, generated from it): codes below it are a kind's own.
pub const LOOP_SITE_FAULT: u64 = 256;

/// The default budget for a graph of `num_vertices` vertices and `num_edges` stored edges
/// (see the module docs).
pub fn default_loop_budget(num_vertices: u64, num_edges: u64) -> u64 {
    num_vertices.saturating_add(num_edges).saturating_mul(4).max(1 << 24)
}

/// A hook whose loops ran past the budget, as the GPU recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopFault {
    /// The loop's index in [`crate::loops::loop_sites`], from 1.
    pub site: usize,
    /// The hook the engine called (index into the kind's hooks).
    pub hook: usize,
    /// The vertex it was called for.
    pub vertex: u32,
}

/// The loop fault of fault record `(code, id)`, if the code is one.
pub fn decode_loop_fault(code: u64, id: u64) -> Option<LoopFault> {
    let site = code.checked_sub(LOOP_SITE_FAULT).filter(|&s| s > 0)?;
    Some(LoopFault { site: site as usize, hook: (id >> 32) as usize, vertex: id as u32 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_decode_to_site_hook_and_vertex() {
        assert_eq!(decode_loop_fault(6, 3), None, "a view method's code");
        assert_eq!(decode_loop_fault(256, 3), None, "site 0 is no site");
        assert_eq!(decode_loop_fault(259, (4 << 32) | 17), Some(LoopFault { site: 3, hook: 4, vertex: 17 }));
    }

    #[test]
    fn the_default_budget_has_a_floor_and_grows_with_the_graph() {
        assert_eq!(default_loop_budget(0, 0), 1 << 24);
        assert_eq!(default_loop_budget(1000, 5000), 1 << 24);
        assert_eq!(default_loop_budget(1 << 30, 1 << 32), 4 * ((1 << 30) + (1 << 32)));
        assert_eq!(default_loop_budget(u64::MAX, 1), u64::MAX);
    }
}
