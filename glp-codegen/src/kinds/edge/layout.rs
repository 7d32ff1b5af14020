//! The edge program view on the GPU, declared once: the kernel argument `glp_edge_view`
//! ([`EdgeViewArgs`], with [`c_struct!`](crate::c_struct)) and the kind's constants as C
//! `#define`s generated from [`super::EDGE_KIND`]'s table, in the view header (`view.cuh`)
//! with the view's methods and the combine's atomics.

use super::EDGE_KIND;
use crate::template::Template;
use std::fmt::Write as _;

crate::c_struct! {
    /// The edge program view on the GPU: what hooks read (`view.out_degree(v)` becomes
    /// `glp_edge_out_degree(view, v)`), passed by value to every kernel that runs hooks.
    /// Device pointers are addresses, 0 for null.
    pub struct EdgeViewArgs => "glp_edge_view" {
        /// out-edge CSR offsets, num_vertices + 1
        out_offsets: u64 => "const glp_u64*",
        /// in-edge CSR offsets, num_vertices + 1 (the out-edges' on a symmetric graph)
        in_offsets: u64 => "const glp_u64*",
        /// the graph's id of each device vertex, when the device holds the vertices in another
        /// order than the graph's (null: the same order); hooks see the graph's ids
        graph_ids: u64 => "const glp_u32*",
        /// the device vertex of each graph id, the inverse of graph_ids (null with it)
        device_vertices: u64 => "const glp_u32*",
        /// [code, id] of the first hook whose loops ran out (null: unchecked)
        fault: u64 => "glp_u64*",
        /// loop iterations one hook call may run in all (glp-codegen's `loops`)
        loop_budget: u64 => "glp_u64",
        /// the sum of `aggregate` before this iteration
        aggregated: f64 => "double",
        num_vertices: u32 => "glp_u32",
        /// GLP_EDGE_NO_SOURCE without one
        source: u32 => "glp_u32",
        iteration: u32 => "glp_u32",
        /// keeps the struct's size a multiple of 8
        reserved: u32 => "glp_u32",
    }
}

const VIEW_TEMPLATE: Template = Template::new("kinds/edge/view.cuh", include_str!("view.cuh"));

/// The kind's constants as `#define GLP_EDGE_<NAME> <value>u`.
pub fn constants_cuda() -> String {
    let mut out = String::new();
    for c in EDGE_KIND.constants {
        let _ = writeln!(out, "#define GLP_EDGE_{} {}u  // {}", c.name, c.value, c.doc);
    }
    out
}

/// The edge program view, its methods and the combine's atomics in CUDA.
pub fn view_cuda() -> String {
    VIEW_TEMPLATE
        .fill(&[("CONSTANTS", &constants_cuda()), ("VIEW_STRUCT", &EdgeViewArgs::c_definition())])
        .unwrap_or_else(|e| panic!("the view header's slots are the layout's: {e}"))
}

crate::c_struct! {
    /// The frontier engine's state on the GPU (`frontier_kernels.cu`), passed by value to its
    /// kernels. Device pointers are addresses, 0 for null; vertex arrays hold one entry per
    /// vertex.
    pub struct FrontierArgs => "glp_frontier_state" {
        /// the vertex values
        values: u64 => "glp_edge_value*",
        /// combined messages (push), at the combine's identity between iterations
        combined: u64 => "glp_edge_message*",
        /// a pull's new values, copied into `values` by the commit (when `edge` reads its
        /// receiver)
        staged: u64 => "glp_edge_value*",
        /// whether each vertex sends a message, a bit each (vertex v: bit v % 32 of word
        /// v / 32), when `edge` reads only its sender (pull)
        sending: u64 => "glp_u32*",
        /// the message of each vertex that sends one (pull)
        messages: u64 => "glp_edge_message*",
        /// where glp_frontier_send lists the senders (GLP_FRONTIER_LIST_SENDERS)
        senders: u64 => "glp_u32*",
        /// iteration + 1 of each vertex's last change (0: never)
        changed_at: u64 => "glp_u32*",
        /// iteration + 1 of each vertex's last message (push)
        received_at: u64 => "glp_u32*",
        /// the vertices that received a message in this push
        touched: u64 => "glp_u32*",
        /// the vertices this iteration changed: the next frontier
        queue_out: u64 => "glp_u32*",
        /// receivers whose pull rows are long (a warp each)
        big: u64 => "glp_u32*",
        /// chunks of long push rows, `vertex << 32 | chunk`
        chunks: u64 => "glp_u64*",
        /// the counters (kinds::edge::frontier_counters), the loop fault at 1 and 2
        counters: u64 => "glp_u64*",
        /// offsets of the push CSRs (b: 0 for none), for the next frontier's edge count
        push_offsets_a: u64 => "const glp_u64*",
        push_offsets_b: u64 => "const glp_u64*",
        /// the program's combine
        op: u32 => "glp_u32",
        /// GLP_FRONTIER_FRONTIER | _RECEIVER | _SETTLED | _LIST_SENDERS
        flags: u32 => "glp_u32",
        /// iteration + 1
        stamp: u32 => "glp_u32",
        /// the positions a pull and the senders' pass cover, from 0: every vertex with an edge
        /// in a program with a frontier (the others neither send nor receive), else every
        /// vertex
        receivers: u32 => "glp_u32",
    }
}
