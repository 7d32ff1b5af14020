//! A community-structured graph with planted ground truth (LFR-like degree-corrected planted
//! partition), built in O(E) time and memory, in parallel.
//!
//! The model is the LFR benchmark's (Lancichinetti, Fortunato and Radicchi, Phys. Rev. E 78,
//! 2008): power-law degrees, power-law community sizes, and a mixing parameter `mu`, the
//! fraction of each vertex's edges that leave its community. LFR's own construction is
//! sequential (and quadratic in places); this one keeps its distributions and constraints
//! but is organised so that every step is parallel or O(vertices):
//!
//! 1. community sizes are drawn from a power law (exponent `community_exponent`, sizes in
//!    `min_community..=max_community`) until they cover the vertices (submodule `layout`);
//! 2. every vertex draws a degree from a bounded discrete power law (exponent
//!    `degree_exponent`, maximum `max_degree`, minimum solved so that the mean is
//!    `avg_degree` exactly) and splits it into `mu * d` external and `(1 - mu) * d` internal
//!    stubs by stochastic rounding;
//! 3. vertices are assigned to communities large enough for their internal degree, high
//!    internal degrees first, as LFR requires (submodule `placement`);
//! 4. inside each community (after one internal stub is added or removed at random when
//!    their sum is odd), a configuration model with rewiring realises the internal degrees
//!    exactly, without loops or repeated edges (submodule `intra`);
//! 5. a configuration model over all external stubs pairs them across communities, the
//!    pairs that fall inside one community repaired by swaps, so external degrees are
//!    realised exactly too (submodule `inter`);
//! 6. vertex ids are scrambled with a seeded [`Bijection`] so that communities are not
//!    contiguous id ranges, and the edges are symmetrised and deduplicated by
//!    [`build_csr`].
//!
//! The ground truth lists the community of every vertex; communities are numbered by
//! decreasing size (0 is the largest).
//!
//! Expected outcome: every vertex's final degree is at most the degree it drew, hence at most
//! `max_degree` (no step adds an edge beyond a drawn stub: the parity fix of step 4 adds a
//! stub only where the degree stays within it). The measured mixing fraction (stored edges
//! leaving their community over all stored edges) is `mu` up to sampling noise and the
//! average degree is `avg_degree` up to sampling noise, minus the rare inter-community pairs
//! drawn twice and the internal defects rewiring could not repair (internal degree sequences
//! that no simple graph realises, and rare cases in nearly complete communities).
//!
//! Work: O(E) for the edges plus O(n log n) for sorting the high-degree vertices and
//! building the target table; the placement of high-degree vertices is the one sequential
//! pass (O(number of vertices with internal degree >= the smallest community size)).
//!
//! Progress: [`planted_partition_with_phases`] announces each step as it begins ([`Phase`]).
//!
//! Memory: 8 bytes per generated undirected edge for the edge list, then
//! [`build_csr`]'s working space (about 16 bytes per stored directed edge at the peak), plus
//! about 30 bytes per vertex of per-vertex arrays and, per worker thread, O(stubs) for the
//! community it is wiring.

mod inter;
mod intra;
mod layout;
mod placement;

use super::bijection::Bijection;
use super::power_law::{self, PowerLaw};
use super::{stream, try_zeroed, Phase};
use crate::error::{Error, Result};
use crate::graph::{build_csr, BuildOptions, DuplicateEdges, EdgeList, Graph, VertexId, VertexIds};
use rayon::prelude::*;

/// Largest accepted exponent (beyond it every degree or size is the minimum anyway).
const MAX_EXPONENT: f64 = 10.0;

/// Parameters of [`planted_partition`].
///
/// The defaults follow the LFR benchmark's usual settings (Lancichinetti, Fortunato and
/// Radicchi 2008: average degree 20, degree exponent 2, community-size exponent 1, `mu`
/// 0.3), scaled to 100,000 vertices with maximum degree 100 and communities of 20 to 1,000
/// vertices.
#[derive(Debug, Clone, PartialEq)]
pub struct CommunityParams {
    /// Number of vertices, at most `u32::MAX`.
    pub num_vertices: u64,
    /// Target average degree (exact in expectation).
    pub avg_degree: f64,
    /// Largest degree, below `num_vertices`.
    pub max_degree: u32,
    /// Exponent of the degree distribution, `P(d) ∝ d^-exponent` (LFR's τ1), in `[0, 10]`.
    pub degree_exponent: f64,
    /// Exponent of the community-size distribution (LFR's τ2), in `[0, 10]`.
    pub community_exponent: f64,
    /// Smallest community size, at least 1.
    pub min_community: u32,
    /// Largest community size, at most `num_vertices`.
    pub max_community: u32,
    /// Mixing parameter `mu` in `[0, 1]`: the fraction of each vertex's edges that leave its
    /// community.
    pub mixing: f64,
    /// Seed of every random draw.
    pub seed: u64,
}

impl Default for CommunityParams {
    fn default() -> Self {
        CommunityParams {
            num_vertices: 100_000,
            avg_degree: 20.0,
            max_degree: 100,
            degree_exponent: 2.0,
            community_exponent: 1.0,
            min_community: 20,
            max_community: 1000,
            mixing: 0.3,
            seed: 1,
        }
    }
}

/// Checks `p` and returns the degree law (its minimum solved for the average degree).
fn validate(p: &CommunityParams) -> Result<PowerLaw> {
    let n = p.num_vertices;
    if n > u32::MAX as u64 {
        return Err(Error::invalid(format!(
            "{n} vertices is too many: vertex ids are u32, so at most {} vertices",
            u32::MAX
        )));
    }
    if n < 2 {
        return Err(Error::invalid(format!("a community graph needs at least 2 vertices, got {n}")));
    }
    if !p.mixing.is_finite() || !(0.0..=1.0).contains(&p.mixing) {
        return Err(Error::invalid(format!("mixing parameter mu = {} is not in [0, 1]", p.mixing)));
    }
    for (name, value) in [("degree exponent", p.degree_exponent), ("community exponent", p.community_exponent)] {
        if !value.is_finite() || !(0.0..=MAX_EXPONENT).contains(&value) {
            return Err(Error::invalid(format!("{name} {value} is not in [0, {MAX_EXPONENT}]")));
        }
    }
    if p.min_community == 0 {
        return Err(Error::invalid("minimum community size must be at least 1"));
    }
    if p.min_community > p.max_community {
        return Err(Error::invalid(format!(
            "minimum community size {} exceeds the maximum {}",
            p.min_community, p.max_community
        )));
    }
    if p.max_community as u64 > n {
        return Err(Error::invalid(format!(
            "maximum community size {} exceeds the number of vertices {n}",
            p.max_community
        )));
    }
    if !layout::fillable(n, p.min_community, p.max_community) {
        return Err(Error::invalid(format!(
            "{n} vertices cannot be split into communities of {} to {} vertices",
            p.min_community, p.max_community
        )));
    }
    if p.max_degree == 0 || p.max_degree as u64 >= n {
        return Err(Error::invalid(format!(
            "maximum degree {} must be in 1..{n} (below the number of vertices)",
            p.max_degree
        )));
    }
    if (1.0 - p.mixing) * p.max_degree as f64 >= p.max_community as f64 {
        return Err(Error::invalid(format!(
            "a vertex of maximum degree {} has (1 - mu) * {} = {:.1} internal edges, which no community of at most {} \
             vertices can hold: raise the maximum community size or mu, or lower the maximum degree",
            p.max_degree,
            p.max_degree,
            (1.0 - p.mixing) * p.max_degree as f64,
            p.max_community
        )));
    }
    if !p.avg_degree.is_finite() {
        return Err(Error::invalid(format!("average degree {} is not a finite number", p.avg_degree)));
    }
    power_law::with_mean_floor(p.avg_degree, p.max_degree, p.degree_exponent).map_err(|(lowest, highest)| {
        Error::invalid(format!(
            "average degree {} is impossible for degrees following a power law with exponent {} up to {}: \
             the achievable averages are {lowest:.3} to {highest}",
            p.avg_degree, p.degree_exponent, p.max_degree
        ))
    })
}

/// A graph with planted communities and its ground truth: `(graph, community of every
/// vertex)`, deterministic for a seed whatever the thread count. See the
/// [module docs](crate::gen::community) for the model and its guarantees.
///
/// Vertices are `0..num_vertices` ([`VertexIds::Range`]); the graph is symmetric, without
/// self loops or repeated edges. Errors on invalid parameters ([`Error::InvalidArgument`],
/// naming the parameter and the accepted range) and when the edge list does not fit in
/// memory ([`Error::TooLarge`]).
pub fn planted_partition(p: &CommunityParams) -> Result<(Graph, Vec<u32>)> {
    planted_partition_with_phases(p, &|_| {})
}

/// [`planted_partition`], calling `on_phase` as each step begins (from the calling thread):
/// community sizes, degrees, internal edges, external edges, id scrambling, CSR build.
pub fn planted_partition_with_phases(p: &CommunityParams, on_phase: &dyn Fn(Phase)) -> Result<(Graph, Vec<u32>)> {
    let degree_law = validate(p)?;
    let n = p.num_vertices as usize;
    let seed = p.seed;
    on_phase(Phase::CommunitySizes);
    let layout = layout::draw(p.num_vertices, p.min_community, p.max_community, p.community_exponent, seed);
    let communities = layout.num_communities();
    if communities < 2 && p.mixing > 0.0 {
        return Err(Error::invalid(format!(
            "all {n} vertices fell into one community, so mu = {} > 0 cannot be met: use a maximum community size \
             below {n}",
            p.mixing
        )));
    }
    on_phase(Phase::Degrees);
    let placement::SlotDegrees { mut internal, mut external } =
        placement::place(&layout, &degree_law, p.max_degree, p.mixing, seed)?;

    let intra_counts: Vec<u64> = split_at_offsets(&mut internal, &layout.starts)
        .into_par_iter()
        .zip(split_at_offsets(&mut external, &layout.starts))
        .enumerate()
        .map(|(c, (internal, external))| intra::balance(c, internal, external, p.max_degree, seed))
        .collect();
    let stubs = inter::StubSlots::new(prefix_sums(&external));
    drop(external);
    let intra_offsets = exclusive_prefix(&intra_counts);
    let (intra_total, inter_total) = (intra_offsets[communities], stubs.num_edges());
    let total = intra_total
        .checked_add(inter_total)
        .ok_or_else(|| Error::TooLarge("the community graph has more edges than memory can index".into()))?;

    let mut sources: Vec<VertexId> = try_zeroed(total, "the community graph's edge sources")?;
    let mut targets: Vec<VertexId> = try_zeroed(total, "the community graph's edge targets")?;
    let (intra_sources, inter_sources) = sources.split_at_mut(intra_total);
    let (intra_targets, inter_targets) = targets.split_at_mut(intra_total);

    on_phase(Phase::InternalEdges);
    split_at_offsets(intra_sources, &intra_offsets)
        .into_par_iter()
        .zip(split_at_offsets(intra_targets, &intra_offsets))
        .enumerate()
        .try_for_each(|(c, (s, t))| {
            intra::generate(c, layout.starts[c] as u32, &internal[layout.slots(c)], seed, s, t)
        })?;
    drop(internal);

    on_phase(Phase::ExternalEdges);
    stubs.generate(&layout, seed, inter_sources, inter_targets);
    drop(stubs);

    on_phase(Phase::ScramblingIds);
    let scramble = Bijection::new(n as u64, seed, stream::id(stream::SCRAMBLE, 0));
    sources.par_iter_mut().chain(targets.par_iter_mut()).for_each(|v| *v = scramble.apply(*v as u64) as VertexId);
    let ground_truth: Vec<u32> =
        (0..n).into_par_iter().map(|v| layout.community_of(scramble.invert(v as u64) as usize)).collect();

    let edges = EdgeList { num_vertices: n, sources, targets, weights: None };
    let options = BuildOptions { symmetrise: true, drop_self_loops: true, duplicates: DuplicateEdges::Collapse };
    on_phase(Phase::BuildingCsr);
    let csr = build_csr(&edges, &options)?;
    Ok((Graph { csr, ids: VertexIds::Range { first: 0, len: n }, symmetric: true }, ground_truth))
}

/// `[0, c0, c0 + c1, ...]` as offsets.
fn exclusive_prefix(counts: &[u64]) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    let mut acc = 0usize;
    offsets.push(0);
    for &c in counts {
        acc += c as usize;
        offsets.push(acc);
    }
    offsets
}

/// Splits `data` into the pieces `offsets[k]..offsets[k + 1]` (offsets start at 0 and end at
/// `data.len()`).
fn split_at_offsets<'a, T>(mut data: &'a mut [T], offsets: &[usize]) -> Vec<&'a mut [T]> {
    let mut pieces = Vec::with_capacity(offsets.len().saturating_sub(1));
    for w in offsets.windows(2) {
        let (piece, rest) = data.split_at_mut(w[1] - w[0]);
        pieces.push(piece);
        data = rest;
    }
    pieces
}

/// Inclusive prefix sums with a leading zero: `out[t] = sum(values[..t])`, in parallel.
fn prefix_sums(values: &[u32]) -> Vec<u64> {
    const CHUNK: usize = 1 << 16;
    let chunk_sums: Vec<u64> = values.par_chunks(CHUNK).map(|c| c.iter().map(|&x| x as u64).sum()).collect();
    let chunk_starts = exclusive_prefix(&chunk_sums);
    let mut out = vec![0u64; values.len() + 1];
    out[1..].par_chunks_mut(CHUNK).zip(values.par_chunks(CHUNK)).zip(chunk_starts.par_iter()).for_each(
        |((out, values), &start)| {
            let mut acc = start as u64;
            for (o, &x) in out.iter_mut().zip(values) {
                acc += x as u64;
                *o = acc;
            }
        },
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_sums_match_sequential() {
        let values: Vec<u32> = (0..200_000u32).map(|i| i.wrapping_mul(2_654_435_761) % 97).collect();
        let mut expected = vec![0u64];
        for &v in &values {
            expected.push(expected.last().unwrap() + v as u64);
        }
        assert_eq!(prefix_sums(&values), expected);
    }
}
