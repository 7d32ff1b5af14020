//! Where a graph's edges live during GPU sampling, and how the device memory glp may use is
//! shared between the graph and a run's buffers.
//!
//! - **Device**: the whole CSR in device memory (the fastest; the default when it fits).
//! - **Zero-copy** and **partitions**: the per-vertex arrays (offsets, maximum weights) in
//!   device memory, the edges (targets, weights, weight prefix sums) in pinned host memory
//!   mapped into the device's address space. The edge array is cut into *partitions* of
//!   `2^shift` edges; the first ones stay in device memory (*resident*), as many as the budget
//!   holds, and the partition table ([`SampleViewArgs::partitions`]) tells kernels where each
//!   partition's edges are read. Reads of the others go over the bus (zero-copy, EMOGI's
//!   placement): 50 to 110 M scattered requests/s on the lent H100, far below the device's
//!   30 G/s. With *partitions*, the walk engine instead copies the other partitions in turn
//!   into two staging buffers (one copied on a second stream while walks advance in the other)
//!   and advances every walk waiting in the partition at hand until it leaves it
//!   (`super::ring_walks`); samplers other than walks read those partitions over the bus.
//!
//! Which of the two pays is a matter of density: a pass over the partitions copies the
//! non-resident edges once and serves each waiting walk about two steps, so copying beats the
//! bus only with more waiting walks per partition than its bytes over
//! [`COPY_BYTES_PER_WAITING_WALK`]; the engine decides per partition visit. Reading a sparse
//! partition over the bus in a launch of its own pays too: the lent H100 serves about twice as
//! many scattered reads of host memory when they fall in one partition (137 MB) as when they
//! fall anywhere in 4 GB. Measured with R-MAT 25 (100-step DeepWalk): under 2 GiB from 4 M
//! random roots, partitions 1.48 s (every visit over the bus) against zero-copy 2.79 s; under
//! 4 GiB from every vertex, partitions 11.6 s (136 GB copied, the walks' download included)
//! against zero-copy 6.0 s (download excluded). `auto` takes partitions for a graph that does
//! not fit.
//!
//! A copied partition holds its edges and the longest row's worth after them, so every row
//! that starts in it is whole in the buffer, and the table entry of a partition is one
//! address: a row is read from its first edge's partition.
//!
//! [`SampleViewArgs::partitions`]: glp_codegen::kinds::sample::layout::SampleViewArgs::partitions

use crate::error::{Error, Result};
use crate::memory::format_bytes;
use glp_codegen::kinds::sample::engine::MAX_PARTITIONS;

/// Where the edges live (`--placement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// Device when the graph takes at most [`DEVICE_SHARE`] of the budget, else partitions.
    #[default]
    Auto,
    /// The whole graph in device memory.
    Device,
    /// Edges in host memory, read over the bus where not resident.
    ZeroCopy,
    /// Edges in host memory, copied partition by partition for walks.
    Partitions,
}

impl Placement {
    /// The placement's name, as `--placement` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Auto => "auto",
            Placement::Device => "device",
            Placement::ZeroCopy => "zero-copy",
            Placement::Partitions => "partitions",
        }
    }
}

/// The most of the device budget a graph placed by `auto` on the device may take: the rest is
/// for the runs' buffers (walks in batches of a few million need a few hundred MB).
pub const DEVICE_SHARE: (u64, u64) = (3, 4);

/// Bytes of a partition copied per walk waiting in it, at or above which the partition is
/// copied rather than read over the bus. Measured on the lent H100 with R-MAT 25 under 2 GiB
/// (4 M random roots, 100-step DeepWalk): partitions were copied at 35 GB/s while the walks ran
/// and the walk engine read host memory over the bus at 60 M steps/s (the probe: 108 M random
/// reads/s), so a step over the bus costs what 580 bytes of copy cost; a walk that a copy
/// serves takes about one step in the copied partition before it leaves.
pub const COPY_BYTES_PER_WAITING_WALK: u64 = 700;

/// How a graph whose edges stay in host memory is cut and what its partitions take on the
/// device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionPlan {
    /// log2 of the edges per partition.
    pub shift: u32,
    /// Partitions of the edge array.
    pub partitions: u64,
    /// Partitions `0..resident` stay in device memory.
    pub resident: u64,
    /// Edges of the resident buffer: the resident partitions, and the longest row after them.
    pub resident_edges: u64,
    /// Staging buffers (0 or 2), each of `staging_edges` edges: a partition and the longest row
    /// after it.
    pub staging: u32,
    pub staging_edges: u64,
}

/// What the graph's arrays take, for the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphSizes {
    pub edges: u64,
    pub max_degree: u64,
    /// Bytes of the per-vertex arrays kept on the device (offsets, maximum weights).
    pub per_vertex_bytes: u64,
    /// Bytes of every array, on the device placement.
    pub device_bytes: u64,
}

/// Whether `auto` places the graph on the device under `budget`.
pub fn fits_device(sizes: &GraphSizes, budget: u64) -> bool {
    sizes.device_bytes <= budget / DEVICE_SHARE.1 * DEVICE_SHARE.0
}

/// Cuts a graph whose edges stay in host memory under `budget` bytes of device memory: the
/// per-vertex arrays first (at most half the budget), a quarter of the rest left to the runs'
/// buffers, with `staging` two buffers of an eighth of the rest each, the remainder for
/// resident partitions. Partitions are a power of two of edges, as large as a staging buffer
/// holds (with `staging` 0, as large as it would), and at most [`MAX_PARTITIONS`].
///
/// Errors: per-vertex arrays beyond half the budget; a longest row that leaves no room for a
/// partition in a staging buffer (both name the bytes needed).
pub fn plan_partitions(sizes: &GraphSizes, budget: u64, staging: bool) -> Result<PartitionPlan> {
    if sizes.per_vertex_bytes > budget / 2 {
        return Err(Error::TooLarge(format!(
            "the graph's per-vertex arrays (offsets, maximum weights) need {} of device memory, more than half \
             of the {} allowed: raise --device-memory to at least {}",
            format_bytes(sizes.per_vertex_bytes),
            format_bytes(budget),
            format_bytes(sizes.per_vertex_bytes * 2)
        )));
    }
    let rest = budget - sizes.per_vertex_bytes;
    let buffer_edges = rest / 8 / 4;
    if buffer_edges <= sizes.max_degree {
        let needed = sizes.per_vertex_bytes + (sizes.max_degree + 1) * 2 * 4 * 8;
        return Err(Error::TooLarge(format!(
            "the longest row ({} edges) leaves no room for a partition of the graph in {} of device memory: \
             raise --device-memory to at least {}",
            sizes.max_degree,
            format_bytes(budget),
            format_bytes(needed)
        )));
    }
    let edges = sizes.edges.max(1);
    let fitting = 63 - (buffer_edges - sizes.max_degree).leading_zeros();
    let fewest = 64 - (edges.div_ceil(u64::from(MAX_PARTITIONS))).saturating_sub(1).leading_zeros();
    let shift = fitting.max(fewest);
    let partition_edges = 1u64 << shift;
    let staging_edges = (partition_edges + sizes.max_degree).min(edges);
    if staging && staging_edges > buffer_edges {
        return Err(Error::TooLarge(format!(
            "{} edges need more than {MAX_PARTITIONS} partitions of the {} of device memory allowed: raise \
             --device-memory",
            sizes.edges,
            format_bytes(budget)
        )));
    }
    let partitions = edges.div_ceil(partition_edges);
    let staging_count = if staging { 2 } else { 0 };
    let resident_budget = (rest - rest / 4 - staging_count * staging_edges * 4) / 4;
    let resident = if edges <= resident_budget {
        partitions
    } else {
        (resident_budget.saturating_sub(sizes.max_degree) / partition_edges).min(partitions)
    };
    let resident_edges = if resident == 0 { 0 } else { (resident * partition_edges + sizes.max_degree).min(edges) };
    let staging = if resident == partitions { 0 } else { staging_count as u32 };
    Ok(PartitionPlan { shift, partitions, resident, resident_edges, staging, staging_edges })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(edges: u64, max_degree: u64, per_vertex_bytes: u64) -> GraphSizes {
        GraphSizes { edges, max_degree, per_vertex_bytes, device_bytes: per_vertex_bytes + edges * 4 }
    }

    #[test]
    fn a_graph_beyond_the_budget_is_cut_into_partitions_that_fit_the_staging_buffers() {
        // R-MAT 25's shape under 2 GiB: 1.05 G edges, rows up to 640,330, 268 MB of offsets.
        let s = sizes(1_047_221_752, 640_330, 268_435_464);
        let budget = 2u64 << 30;
        let plan = plan_partitions(&s, budget, true).unwrap();
        let rest = budget - s.per_vertex_bytes;
        assert!(plan.staging_edges * 4 <= rest / 8, "{plan:?}");
        assert!((1u64 << plan.shift) + s.max_degree <= plan.staging_edges.max(1 << plan.shift));
        assert_eq!(plan.partitions, s.edges.div_ceil(1 << plan.shift));
        assert!(plan.resident > 0 && plan.resident < plan.partitions);
        assert_eq!(plan.staging, 2);
        let device = s.per_vertex_bytes + plan.resident_edges * 4 + 2 * plan.staging_edges * 4;
        assert!(device <= budget - rest / 4, "{device} bytes of {budget}");
        // A row starting in the last resident partition is whole in the resident buffer.
        assert!(plan.resident_edges >= plan.resident * (1 << plan.shift) + s.max_degree);
    }

    #[test]
    fn zero_copy_keeps_more_resident_and_a_graph_that_fits_is_resident_whole() {
        let s = sizes(1 << 30, 1000, 1 << 27);
        let budget = 2u64 << 30;
        let partitions = plan_partitions(&s, budget, true).unwrap();
        let zero_copy = plan_partitions(&s, budget, false).unwrap();
        assert_eq!(zero_copy.staging, 0);
        assert!(zero_copy.resident > partitions.resident);
        let small = plan_partitions(&sizes(1000, 10, 8008), 1 << 20, true).unwrap();
        assert_eq!((small.resident, small.resident_edges, small.staging), (small.partitions, 1000, 0));
    }

    #[test]
    fn budgets_too_small_name_what_is_needed() {
        let per_vertex = plan_partitions(&sizes(1000, 10, 600), 1000, true).unwrap_err().to_string();
        assert!(
            per_vertex.contains("per-vertex arrays") && per_vertex.contains("raise --device-memory"),
            "{per_vertex}"
        );
        let row = plan_partitions(&sizes(1 << 20, 1 << 19, 1000), 1 << 20, true).unwrap_err().to_string();
        assert!(row.contains("longest row (524288 edges)"), "{row}");
    }

    #[test]
    fn partitions_never_exceed_the_table_limit() {
        let s = sizes(1 << 36, 10, 1 << 20);
        let plan = plan_partitions(&s, 256 << 20, false).unwrap();
        assert_eq!(plan.partitions, u64::from(MAX_PARTITIONS), "{plan:?}");
        assert!(plan_partitions(&s, 256 << 20, true).unwrap_err().to_string().contains("partitions"));
    }
}
