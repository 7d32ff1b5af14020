//! The C constants the label propagation view and sweep share with the host, generated from
//! the Rust tables here so they are written once: the label memory's slot count, the neutral
//! label, the view's fault codes (which method got an out-of-range id), and the words of the
//! sweep's counter block. glp-runtime's engines read the same tables.
//!
//! The view itself, the kernel argument `glp_lp_view`, is declared here once
//! ([`LpViewArgs`], with [`c_struct!`](crate::c_struct)): glp-runtime fills the Rust struct,
//! the kernels read the C definition generated from the same table.
//!
//! The view header (`view.cuh`) takes [`view_constants_cuda`], [`LpViewArgs::c_definition`]
//! and [`view_faults_cuda`] in its `CONSTANTS`, `VIEW_STRUCT` and `FAULTS` slots; the MFL
//! kernel library writes [`sweep_counters_cuda`] into its configuration block.

use super::spec::LP_KIND;
use crate::template::Template;

/// Slots of the per-vertex label memory (SLP keeps at most 5 candidate labels, as the GLP
/// paper runs it).
pub const LABEL_MEMORY_SLOTS: u32 = 5;

crate::c_struct! {
    /// The label propagation view on the GPU: what hooks read (`view.label(u)` becomes
    /// `glp_lp_label(view, u)`), passed by value to every kernel that runs hooks. Device
    /// pointers are addresses, 0 for null.
    pub struct LpViewArgs => "glp_lp_view" {
        /// CSR offsets, num_vertices + 1
        offsets: u64 => "const glp_u64*",
        /// CSR targets
        targets: u64 => "const glp_u32*",
        /// null: unweighted
        edge_weights: u64 => "const float*",
        /// null: all 1
        vertex_weights: u64 => "const float*",
        /// L: the labels shown this iteration
        labels: u64 => "const glp_u32*",
        /// Lnext: the labels of the end of the previous iteration
        next_labels: u64 => "const glp_u32*",
        /// per-label counts of this iteration (null: unused)
        histogram: u64 => "glp_u32*",
        /// GLP_LABEL_MEMORY_SLOTS per vertex (null: unused)
        memory_labels: u64 => "glp_u32*",
        /// GLP_LABEL_MEMORY_SLOTS per vertex
        memory_weights: u64 => "float*",
        /// seed label per vertex (null: no seeds)
        seeds: u64 => "const glp_u32*",
        /// [method, id] of the first out-of-range id a hook passed (null: unchecked)
        fault: u64 => "glp_u64*",
        num_edges: u64 => "glp_u64",
        random_seed: u64 => "glp_u64",
        /// loop iterations one hook call may run in all (glp-codegen's `loops`)
        loop_budget: u64 => "glp_u64",
        /// the graph's id of each device position (null: the device holds the graph's order)
        graph_ids: u64 => "const glp_u32*",
        /// the device position of each graph id (null with graph_ids)
        positions: u64 => "const glp_u32*",
        num_vertices: u32 => "glp_u32",
        iteration: u32 => "glp_u32",
    }
}

/// A view method the kernels check ids for, and the code a fault records for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewFault {
    /// The code in the fault record (`GLP_VIEW_<NAME>`).
    pub code: u64,
    /// The C macro's suffix.
    pub name: &'static str,
    /// The view method, for messages.
    pub method: &'static str,
    /// What the id is: `vertex` or `edge`.
    pub id: &'static str,
}

/// The view methods whose ids the kernels check, in code order.
pub const VIEW_FAULTS: [ViewFault; 6] = [
    ViewFault { code: 1, name: "LABEL", method: "view.label", id: "vertex" },
    ViewFault { code: 2, name: "NEXT_LABEL", method: "view.next_label", id: "vertex" },
    ViewFault { code: 3, name: "DEGREE", method: "view.degree", id: "vertex" },
    ViewFault { code: 4, name: "EDGE_WEIGHT", method: "view.edge_weight", id: "edge" },
    ViewFault { code: 5, name: "VERTEX_WEIGHT", method: "view.vertex_weight", id: "vertex" },
    ViewFault { code: 6, name: "SEED_LABEL", method: "view.seed_label", id: "vertex" },
];

/// The words of a sweep's counter block (`glp_lp_sweep.counters`), in order.
pub mod counters {
    /// Labels changed.
    pub const CHANGED: usize = 0;
    /// Vertices processed (asynchronous).
    pub const PROCESSED: usize = 1;
    /// The view's fault record: the method's code (or a loop site's) ...
    pub const FAULT_METHOD: usize = 2;
    /// ... and the id.
    pub const FAULT_ID: usize = 3;
    /// High-class vertices deferred to the exact kernel (also the length of the sweep's
    /// `deferred` list).
    pub const DEFERRED: usize = 4;
    /// High-class vertices settled by the sketch bound.
    pub const SETTLED: usize = 5;
    /// Words in all.
    pub const COUNT: usize = 6;
}

/// The view header's `CONSTANTS` slot (its own line: no final newline).
pub fn view_constants_cuda() -> String {
    let unlabelled = LP_KIND.constant("UNLABELLED").map_or(u64::from(u32::MAX), |c| c.value);
    format!("#define GLP_UNLABELLED 0x{unlabelled:X}u\n#define GLP_LABEL_MEMORY_SLOTS {LABEL_MEMORY_SLOTS}")
}

/// The view header's `FAULTS` slot (its own lines: no final newline).
pub fn view_faults_cuda() -> String {
    VIEW_FAULTS.iter().map(|f| format!("#define GLP_VIEW_{} {}ull", f.name, f.code)).collect::<Vec<_>>().join("\n")
}

/// The sweep counters' words the kernels name, as `#define`s.
pub fn sweep_counters_cuda() -> String {
    format!(
        "#define GLP_COUNTER_DEFERRED {} // also the length of the sweep's `deferred` list\n\
         #define GLP_COUNTER_SETTLED {}\n",
        counters::DEFERRED,
        counters::SETTLED
    )
}

/// The view header as written, with its slots.
const VIEW_TEMPLATE: Template = Template::new("kinds/lp/view.cuh", include_str!("view.cuh"));

/// The label propagation view and its intrinsics in CUDA, its constants filled in.
pub fn view_cuda() -> String {
    VIEW_TEMPLATE
        .fill(&[
            ("CONSTANTS", &view_constants_cuda()),
            ("VIEW_STRUCT", &LpViewArgs::c_definition()),
            ("FAULTS", &view_faults_cuda()),
        ])
        .unwrap_or_else(|e| panic!("the view header's slots are the layout's: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_header_has_the_tables_values() {
        let view = view_cuda();
        assert!(view.contains("#define GLP_UNLABELLED 0xFFFFFFFFu\n#define GLP_LABEL_MEMORY_SLOTS 5\n"));
        assert!(view.contains("#define GLP_VIEW_LABEL 1ull\n") && view.contains("#define GLP_VIEW_SEED_LABEL 6ull\n"));
        assert!(!view.contains("/*{{"));
        for (i, f) in VIEW_FAULTS.iter().enumerate() {
            assert_eq!(f.code, i as u64 + 1, "codes are dense from 1");
            assert!(f.code < super::super::LOOP_SITE_FAULT);
        }
        assert_eq!(u64::from(crate::kinds::lp::LP_KIND.constant("UNLABELLED").unwrap().value as u32), 0xFFFF_FFFF);
    }

    #[test]
    fn the_fault_code_base_is_the_loops() {
        let base = crate::loops::LOOP_SITE_FAULT;
        assert!(view_cuda().contains(&format!("#define GLP_VIEW_LOOP_SITE {base}ull")));
    }

    #[test]
    fn the_view_header_declares_the_view_from_its_table() {
        let view = view_cuda();
        let definition = LpViewArgs::c_definition();
        assert!(view.contains(&format!("\n{definition}\n")), "{view}");
        assert_eq!(view.matches("struct glp_lp_view {").count(), 1);
        // Sixteen 8-byte fields (13 pointers, 3 counters) then two 4-byte ones, as the kernels
        // and glp-runtime's engine use them.
        assert_eq!(std::mem::size_of::<LpViewArgs>(), 16 * 8 + 2 * 4);
        assert_eq!(std::mem::offset_of!(LpViewArgs, fault), 10 * 8);
        assert_eq!(std::mem::offset_of!(LpViewArgs, positions), 15 * 8);
        assert_eq!(std::mem::offset_of!(LpViewArgs, iteration), 16 * 8 + 4);
        assert!(
            definition.contains("\n    const glp_u64* offsets;        // CSR offsets, num_vertices + 1\n"),
            "{definition}"
        );
        assert!(definition.contains("\n    glp_u32 iteration;\n};"), "{definition}");
    }
}
