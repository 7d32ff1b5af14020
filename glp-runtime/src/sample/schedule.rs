//! A sampler's schedule, read once per run: the hooks that take no view (`steps`,
//! `sample_size`, `sampling`, `next_transits`, `unique`), evaluated on the host before any
//! sample starts and checked, so that engines (the CPU's, the GPU's) read plain values per
//! step instead of calling hooks (a sampler loaded from a file runs them on the interpreter).

use super::edges::SampleGraph;
use super::sampler::{Sampler, ADDED, ALL_NEIGHBOURS, COLLECTIVE, INDIVIDUAL, REPLACE};
use crate::error::{Error, Result};

/// The most steps a sampler may take: its per-step schedule is held in memory (8 bytes a
/// step), and 2^24 steps is far beyond any walk length or hop count in use.
pub const MAX_STEPS: u32 = 1 << 24;

/// What engines read from a sampler once per run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// The sampler's name, for messages.
    pub name: String,
    /// `sample_size(step)` of every step ([`ALL_NEIGHBOURS`] kept as is).
    pub sizes: Vec<u32>,
    /// `unique(step)` of every step.
    pub unique: Vec<bool>,
    /// [`COLLECTIVE`] sampling.
    pub collective: bool,
    /// [`REPLACE`] transits.
    pub replace: bool,
}

impl Schedule {
    /// Reads and checks `sampler`'s schedule ([`Sampler::validate`] first).
    ///
    /// Errors: a sampler with no step or more than [`MAX_STEPS`], a draw count of 0, an
    /// unknown sampling type or transit policy, a graph without edges.
    pub fn of<S: Sampler + ?Sized>(graph: &SampleGraph<'_>, sampler: &S) -> Result<Self> {
        let name = sampler.name().to_string();
        sampler.validate()?;
        let steps = sampler.steps();
        if steps == 0 {
            return Err(Error::invalid(format!(
                "sampler `{name}` takes 0 steps (a walk length or hop count of 0): nothing to sample"
            )));
        }
        if steps > MAX_STEPS {
            return Err(Error::invalid(format!(
                "sampler `{name}` takes {steps} steps; at most {MAX_STEPS} are supported"
            )));
        }
        let sizes: Vec<u32> = (0..steps).map(|s| sampler.sample_size(s)).collect();
        if let Some(step) = sizes.iter().position(|&size| size == 0) {
            return Err(Error::invalid(format!(
                "sampler `{name}` draws 0 vertices at step {step} (a fan-out or sample size of 0): nothing to sample"
            )));
        }
        let unique = (0..steps).map(|s| sampler.unique(s)).collect();
        let collective = match sampler.sampling() {
            INDIVIDUAL => false,
            COLLECTIVE => true,
            other => return Err(Error::invalid(format!("sampler `{name}`: unknown sampling type {other}"))),
        };
        let replace = match sampler.next_transits() {
            ADDED => false,
            REPLACE => true,
            other => return Err(Error::invalid(format!("sampler `{name}`: unknown transit policy {other}"))),
        };
        if graph.csr().num_edges() == 0 {
            return Err(Error::invalid("the graph has no edges: every sample would be its roots alone"));
        }
        if let Some(error) = sampler.failure() {
            return Err(error);
        }
        Ok(Schedule { name, sizes, unique, collective, replace })
    }

    /// The number of steps.
    pub fn steps(&self) -> u32 {
        self.sizes.len() as u32
    }

    /// Whether every sample is a walk when it starts from one root: an individual sampler
    /// drawing once per transit at every step, so a sample has one transit at every step
    /// (with [`ADDED`] or [`REPLACE`] alike) until a step adds nothing.
    pub fn is_walk(&self) -> bool {
        !self.collective && self.sizes.iter().all(|&size| size == 1)
    }

    /// Whether any step draws once per neighbour.
    pub fn draws_all_neighbours(&self) -> bool {
        self.sizes.contains(&ALL_NEIGHBOURS)
    }

    /// The most vertices a sample from `roots` roots can add, from the sizes alone (a step
    /// adds at most its size per transit, or its size in all when collective; its transits
    /// are the previous step's with [`REPLACE`], else its additions), saturating; `None`
    /// when a step draws once per neighbour (bounded by degrees only).
    pub fn vertices_bound(&self, roots: u64) -> Option<u64> {
        let (mut transits, mut total) = (roots, 0u64);
        for &size in &self.sizes {
            if size == ALL_NEIGHBOURS {
                return None;
            }
            let added = if self.collective { u64::from(size) } else { transits.saturating_mul(u64::from(size)) };
            total = total.saturating_add(added);
            if !self.replace {
                transits = added;
            }
        }
        Some(total)
    }
}

/// A schedule of draws with replacement, `sizes` a step, for the engines' unit tests.
#[cfg(test)]
impl Schedule {
    pub(crate) fn of_sizes(sizes: &[u32], collective: bool, replace: bool) -> Schedule {
        Schedule { name: "test".into(), sizes: sizes.to_vec(), unique: vec![false; sizes.len()], collective, replace }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vertices_bound_follows_the_sizes() {
        // k-hop 25,10: 25 first hops, then 10 from each of them.
        assert_eq!(Schedule::of_sizes(&[25, 10], false, false).vertices_bound(1), Some(25 + 250));
        assert_eq!(Schedule::of_sizes(&[25, 10], false, false).vertices_bound(2), Some(50 + 500));
        // REPLACE keeps the roots' count of transits; collective steps draw their size in all.
        assert_eq!(Schedule::of_sizes(&[3, 4], false, true).vertices_bound(5), Some(15 + 20));
        assert_eq!(Schedule::of_sizes(&[16, 16], true, false).vertices_bound(100), Some(32));
        assert_eq!(Schedule::of_sizes(&[5, ALL_NEIGHBOURS], false, false).vertices_bound(1), None);
        assert_eq!(Schedule::of_sizes(&[u32::MAX - 1; 4], false, false).vertices_bound(u64::MAX), Some(u64::MAX));
    }
}
