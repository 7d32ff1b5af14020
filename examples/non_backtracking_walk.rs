//! A graph sampler of your own, in a few lines.
//!
//! `NonBacktrackingWalk` is a random walk that never steps straight back to the vertex it
//! came from unless that is its only way on (non-backtracking walks mix faster than simple
//! ones and are used for graph embeddings). One sample is one walk of `length` steps from its
//! root. The hooks are NextDoor's: `steps`, `sample_size` (one vertex per step) and `next`
//! (the vertex a transit adds, drawn from the sample's own random stream, so results do not
//! depend on the thread count). `#[glp::sampler]` also compiles the hooks to CUDA for the GPU
//! (`CompiledSampler::device_functions`).
//!
//! Run it with `cargo run --release --example non_backtracking_walk [GRAPH]` (default: the
//! bundled email-Eu-core graph); `cargo test --example non_backtracking_walk` checks it.

use glp::graph::VertexId;
use glp::io::LoadOptions;
use glp::sample::{InitialSamples, SampleConfig, SampleGraph, SampleView, Sampler, NONE};
use std::path::PathBuf;

/// A random walk that does not return to its previous vertex while it has another choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonBacktrackingWalk {
    /// Steps of a walk (>= 1).
    pub length: u32,
}

#[glp::sampler]
impl Sampler for NonBacktrackingWalk {
    fn steps(&self) -> u32 {
        self.length
    }

    fn sample_size(&self, _step: u32) -> u32 {
        1
    }

    /// A uniform neighbour of the current vertex other than the previous one.
    fn next(&self, view: &SampleView<'_>, _sample: u32, transit: VertexId, _lane: u32, _step: u32) -> VertexId {
        let degree = view.degree(transit);
        if degree == 0 {
            return NONE;
        }
        let previous = view.previous_vertex(2, 0);
        if previous == NONE || degree == 1 {
            return view.edge(transit, view.random_below(degree));
        }
        // Uniform over the other degree - 1 neighbours (a simple graph's row holds the
        // previous vertex once): draw an index and skip the previous vertex's position.
        let mut i = view.random_below(degree - 1);
        let mut back = 0;
        while back < degree && view.edge(transit, back) != previous {
            back += 1;
        }
        if i >= back {
            i += 1;
        }
        view.edge(transit, i)
    }
}

fn bundled_graph() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/email-Eu-core.txt")
}

/// Walks of `length` steps from every vertex of the graph at `path`: the row length and the
/// rows (padded with `None`).
fn walks(
    path: &std::path::Path,
    length: u32,
    seed: u64,
) -> glp::Result<(glp::graph::Graph, usize, Vec<Option<VertexId>>)> {
    let graph = glp::io::load_graph(path, &LoadOptions::default())?;
    let sample_graph = SampleGraph::of(&graph)?;
    let initial = InitialSamples::every_vertex(graph.csr.num_vertices())?;
    let outcome = glp::sample::run(&sample_graph, &NonBacktrackingWalk { length }, &initial, &SampleConfig { seed })?;
    let (width, rows) = outcome.walks();
    Ok((graph, width, rows))
}

fn main() -> glp::Result<()> {
    let path = std::env::args().nth(1).map(PathBuf::from).unwrap_or_else(bundled_graph);
    let (graph, width, rows) = walks(&path, 10, 1)?;
    println!("{} walks of up to {} vertices; the first three:", graph.csr.num_vertices(), width);
    for row in rows.chunks(width).take(3) {
        let ids: Vec<String> = row.iter().flatten().map(|&v| graph.ids.original(v).to_string()).collect();
        println!("  {}", ids.join(" "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every step follows an edge, and no step returns to the previous vertex while the
    /// current one has another neighbour; walks stop early only at vertices without
    /// neighbours (none here after the first step).
    #[test]
    fn walks_follow_edges_and_never_backtrack_by_choice() {
        let (graph, width, rows) = walks(&bundled_graph(), 10, 7).unwrap();
        let csr = &graph.csr;
        assert_eq!(width, 11);
        for row in rows.chunks(width) {
            let walk: Vec<VertexId> = row.iter().flatten().copied().collect();
            if csr.neighbors(walk[0]).is_empty() {
                assert_eq!(walk.len(), 1);
                continue;
            }
            assert_eq!(walk.len(), 11, "{walk:?}");
            for (i, pair) in walk.windows(2).enumerate() {
                assert!(csr.neighbors(pair[0]).contains(&pair[1]), "{walk:?}: step {i} is no edge");
                if i > 0 && csr.neighbors(pair[0]).len() > 1 {
                    assert_ne!(pair[1], walk[i - 1], "{walk:?}: step {i} backtracks");
                }
            }
        }
    }
}
