//! Community quality metrics: modularity, conductance, community sizes, and agreement with a
//! ground truth (NMI, ARI, overlapping NMI).
//!
//! A *partition* is one `u32` label per vertex; vertices with the same label form a
//! community. [`UNLABELLED`](crate::community::UNLABELLED) means "no community": for the
//! metrics of one partition (modularity, conductance, sizes) each such vertex is a singleton
//! community, the only reading under which those metrics cover every vertex; comparisons
//! between two partitions skip it and report how many vertices were compared; turned into a
//! cover it belongs to no community. A *cover* ([`Cover`](crate::community::Cover)) lists
//! possibly overlapping communities, as SNAP `.cmty` ground truth does.
//!
//! | metric | function | definition |
//! |---|---|---|
//! | modularity | [`modularity()`] | [`mod@modularity`] |
//! | conductance per community, summary | [`conductance()`] | [`mod@conductance`] |
//! | count, min/max/mean/median, histogram | [`size_stats`] | [`sizes`] |
//! | NMI (arithmetic; others via [`Nmi::normalised`]), ARI | [`nmi`], [`ari`], [`ContingencyTable`] | [`partition`] |
//! | overlapping NMI (NMI_max and LFK) | [`overlapping_nmi`], [`overlapping_nmi_of_partition`] | [`overlap`] |
//! | all of the above for the CLI | [`QualityReport::new`] | [`report`] |
//!
//! Design: modularity, conductance and sizes share one parallel O(E) pass that splits each
//! vertex's stored weight into inside and outside its community, then one sequential O(V)
//! accumulation into arrays indexed by label (see `totals`); comparisons group vertices by
//! label with counting sorts, and sparse label values are ranked first. Every floating-point
//! sum is taken in an order that does not depend on the thread count, so results are
//! reproducible to the last digit.

pub mod conductance;
pub mod modularity;
pub mod overlap;
pub mod partition;
pub mod report;
pub mod sizes;
mod slots;
mod sum;
mod totals;

pub use conductance::{conductance, CommunityConductance, Conductance, ConductanceSummary};
pub use modularity::modularity;
pub use overlap::{
    cover_from_labels, overlapping_nmi, overlapping_nmi_covered, overlapping_nmi_of_partition, OverlappingNmi,
};
pub use partition::{ari, nmi, Ari, Cell, ContingencyTable, Nmi, NmiNormalisation};
pub use report::QualityReport;
pub use sizes::{size_stats, SizeBin, SizeStats};
pub use slots::CommunityKey;
