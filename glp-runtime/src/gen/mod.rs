//! Graph generators: R-MAT / Kronecker ([`rmat()`]) and a community-structured graph with
//! ground truth ([`planted_partition`]).
//!
//! Both return in-memory results (a [`Graph`](crate::graph::Graph), plus the planted
//! communities); `glp gen` writes them to files and benchmarks use them directly. Their
//! `_with_phases` forms announce each step as it begins ([`Phase`]), for progress displays:
//! generators report, they draw nothing.
//!
//! # Determinism
//!
//! Every random draw comes from the counter-based generator of [`crate::random`], keyed by the
//! user's seed and by *what* is being drawn: the stream id is `purpose << 56 | item`, where
//! `purpose` is one of the constants of [`stream`] and `item` the index of the edge, vertex or
//! community the draw belongs to (below 2^56). Work is split across rayon threads freely, and
//! every output lands at a position fixed by prefix sums, so a seed gives the same graph for
//! any thread count and on any machine (the final CSR is built by
//! [`build_csr`](crate::graph::build_csr), which is deterministic too).
//!
//! # Memory
//!
//! Generators hold no per-edge structure besides the edge list handed to `build_csr` (two
//! `u32` per generated undirected edge) and what `build_csr` needs: it packs each stored
//! directed edge in a `u64` and writes the final `u32` targets, so the peak is about
//! 8 + 16 + 8 = 32 bytes per generated undirected edge, i.e. about 16 bytes per stored directed
//! edge, plus O(vertices) arrays. Edge buffers are reserved fallibly, so a request that does not
//! fit in memory is an [`Error::TooLarge`](crate::Error::TooLarge), not an abort.

mod bijection;
pub mod community;
mod power_law;
pub mod rmat;

pub use bijection::{Bijection, PowerOfTwoBijection};
pub use community::{planted_partition, planted_partition_with_phases, CommunityParams};
pub use rmat::{rmat, rmat_with_phases, RmatParams, RmatSampler};

/// A step of a generator, announced as it begins by [`planted_partition_with_phases`] and
/// [`rmat_with_phases`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Planted partition: drawing the community sizes.
    CommunitySizes,
    /// Planted partition: drawing every vertex's degree and placing it in a community.
    Degrees,
    /// Planted partition: wiring the edges inside communities.
    InternalEdges,
    /// Planted partition: wiring the edges between communities.
    ExternalEdges,
    /// Planted partition: scrambling the vertex ids.
    ScramblingIds,
    /// R-MAT: sampling the edges.
    SamplingEdges,
    /// Symmetrising, deduplicating and sorting the edges into the CSR.
    BuildingCsr,
    /// R-MAT: drawing the edges' weights.
    Weights,
}

impl Phase {
    /// What the step does, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            Phase::CommunitySizes => "community sizes",
            Phase::Degrees => "degrees",
            Phase::InternalEdges => "internal edges",
            Phase::ExternalEdges => "external edges",
            Phase::ScramblingIds => "scrambling ids",
            Phase::SamplingEdges => "sampling edges",
            Phase::BuildingCsr => "building the CSR",
            Phase::Weights => "weights",
        }
    }
}

/// Stream purposes: the top byte of every stream id a generator uses (see the module docs).
pub mod stream {
    /// R-MAT: the quadrant choices of edge `e` (item = edge index).
    pub const RMAT_EDGE: u64 = 1;
    /// Vertex id scrambling (item 0).
    pub const SCRAMBLE: u64 = 2;
    /// Planted partition: community sizes (item 0, one sequential stream).
    pub const COMMUNITY_SIZES: u64 = 3;
    /// Planted partition: degree and mixing rounding of drawn vertex `i` (item = `i`).
    pub const VERTEX_DEGREE: u64 = 4;
    /// Planted partition: placement of high-degree vertices into communities (item 0).
    pub const PLACEMENT: u64 = 5;
    /// Planted partition: configuration model and rewiring inside community `c` (item = `c`).
    pub const INTRA_COMMUNITY: u64 = 6;
    /// Planted partition: the pairing of the external stubs (item 0, the shuffle's
    /// bijection) and the repair of pairs inside one community (item 1).
    pub const INTER_COMMUNITY: u64 = 7;
    /// Planted partition: the member of community `c` whose stub moves out when the
    /// community's internal degrees have an odd sum (item = `c`).
    pub const COMMUNITY_PARITY: u64 = 8;
    /// R-MAT: the weight of the undirected edge `{u, v}`, `u < v` (item = `u`, block `v`).
    pub const RMAT_WEIGHT: u64 = 9;

    /// Stream id of `item` for `purpose`: `purpose << 56 | item` (`item < 2^56`).
    #[inline]
    pub fn id(purpose: u64, item: u64) -> u64 {
        debug_assert!(item < 1 << 56);
        purpose << 56 | item
    }
}

pub(crate) use crate::memory::try_zeroed;
