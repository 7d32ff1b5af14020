//! The strategies of the GPU engine's most-frequent-label search ([`MflStrategy`], `--mfl`):
//! the exact ones of GLP's ablation and nu-LPA, and nu-LPA's sketches.

use crate::error::{Error, Result};
use crate::lp::sketch::Sketch;
use std::str::FromStr;

/// How the GPU engine finds each vertex's most frequent label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MflStrategy {
    /// GLP: warp-cooperative low-degree path, shared-memory tables for the rest.
    #[default]
    Glp,
    /// GLP without the warp path: a shared-memory table for every vertex.
    Smem,
    /// G-Hash: a global hash table region of twice the degree per vertex.
    Global,
    /// G-Sort: neighbour labels gathered per edge, sorted per vertex, runs counted.
    Sort,
    /// nu-LPA: a global hash table of `nextPow2(degree) - 1` slots per vertex (exact).
    NuHash,
    /// A Misra-Gries or Boyer-Moore sketch per vertex (approximate, O(1) memory per vertex).
    Sketch(Sketch),
}

impl MflStrategy {
    /// Every exact strategy, in ablation order (slowest first): each equals the CPU engine.
    pub const ALL: [MflStrategy; 5] =
        [MflStrategy::Sort, MflStrategy::Global, MflStrategy::NuHash, MflStrategy::Smem, MflStrategy::Glp];

    /// The sketch strategies ([`Sketch::ALL`]), which equal their CPU twins, not the exact
    /// engine.
    pub const SKETCHES: [MflStrategy; 6] = [
        MflStrategy::Sketch(Sketch::ALL[0]),
        MflStrategy::Sketch(Sketch::ALL[1]),
        MflStrategy::Sketch(Sketch::ALL[2]),
        MflStrategy::Sketch(Sketch::ALL[3]),
        MflStrategy::Sketch(Sketch::ALL[4]),
        MflStrategy::Sketch(Sketch::ALL[5]),
    ];

    /// The sketch this strategy runs, if it is one.
    pub fn sketch(self) -> Option<Sketch> {
        match self {
            MflStrategy::Sketch(s) => Some(s),
            _ => None,
        }
    }

    /// The name `--mfl` takes.
    pub fn name(self) -> &'static str {
        match self {
            MflStrategy::Glp => "glp",
            MflStrategy::Smem => "smem",
            MflStrategy::Global => "global",
            MflStrategy::Sort => "sort",
            MflStrategy::NuHash => "hash",
            MflStrategy::Sketch(s) => s.name(),
        }
    }

    /// Whether the strategy runs the asynchronous schedule. G-Sort gathers every neighbour
    /// label before it sorts, so its sweeps cannot see labels changed during the sweep: it is
    /// the synchronous baseline only.
    pub fn supports_asynchronous(self) -> bool {
        self != MflStrategy::Sort
    }
}

impl FromStr for MflStrategy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        if s == "mg" {
            return Ok(MflStrategy::Sketch(Sketch::MisraGries { slots: crate::lp::sketch::DEFAULT_MG_SLOTS }));
        }
        MflStrategy::ALL.into_iter().chain(MflStrategy::SKETCHES).find(|m| m.name() == s).ok_or_else(|| {
            Error::invalid(format!(
                "unknown MFL strategy `{s}`: expected glp, smem, global, sort, hash, mg2, mg4, mg8, mg16, mg32 \
                 (mg = mg8) or bm"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_by_name() {
        for m in MflStrategy::ALL {
            assert_eq!(m.name().parse::<MflStrategy>().unwrap(), m);
        }
        for m in MflStrategy::SKETCHES {
            assert_eq!(m.name().parse::<MflStrategy>().unwrap(), m);
        }
        assert_eq!("mg".parse::<MflStrategy>().unwrap(), MflStrategy::Sketch(Sketch::MisraGries { slots: 8 }));
        assert_eq!("hash".parse::<MflStrategy>().unwrap(), MflStrategy::NuHash);
        let err = "mg3".parse::<MflStrategy>().unwrap_err().to_string();
        assert!(err.contains("glp, smem, global, sort, hash, mg2") && err.contains("or bm"), "{err}");
    }
}
