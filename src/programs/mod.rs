//! The built-in edge programs, written as plain Rust against the edge program API
//! ([`crate::edge::EdgeProgram`], [`crate::edge::EdgeView`]) as a user would write theirs,
//! in the subset the compiler lowers to CUDA (see [`crate::variants`] for the subset).
//!
//! | program | a vertex's value | combine | parameters |
//! |---|---|---|---|
//! | [`Bfs`] | its depth from the source (`i64::MAX` unreached) | min | none |
//! | [`Sssp`] | its distance from the source (infinity unreached) | min | none |
//! | [`Wcc`] | the smallest vertex id of its weakly connected component | min | none |
//! | [`Sswp`] | the widest path's width from the source | max | none |
//! | [`PageRank`] | its rank (LDBC Graphalytics, sinks' rank redistributed) | sum | `damping`, `iterations` |

use crate::edge::CompiledEdgeProgram;

mod bfs;
mod pagerank;
mod sssp;
mod sswp;
mod wcc;

pub use bfs::Bfs;
pub use pagerank::PageRank;
pub use sssp::Sssp;
pub use sswp::Sswp;
pub use wcc::Wcc;

/// A built-in program with its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AnyProgram {
    Bfs(Bfs),
    Sssp(Sssp),
    Wcc(Wcc),
    Sswp(Sswp),
    PageRank(PageRank),
}

/// What to do with a program whatever its type ([`AnyProgram::visit`]): edge programs have
/// their own value and message types, so code that runs any of them is generic.
pub trait ProgramVisitor {
    type Output;
    fn visit<P: CompiledEdgeProgram>(self, program: &P) -> Self::Output;
}

impl AnyProgram {
    /// `visitor` applied to the program.
    pub fn visit<V: ProgramVisitor>(&self, visitor: V) -> V::Output {
        match self {
            AnyProgram::Bfs(p) => visitor.visit(p),
            AnyProgram::Sssp(p) => visitor.visit(p),
            AnyProgram::Wcc(p) => visitor.visit(p),
            AnyProgram::Sswp(p) => visitor.visit(p),
            AnyProgram::PageRank(p) => visitor.visit(p),
        }
    }

    /// Whether the program has a frontier ([`crate::edge::EdgeProgram::frontier`]).
    pub fn has_frontier(&self) -> bool {
        struct Frontier;
        impl ProgramVisitor for Frontier {
            type Output = bool;
            fn visit<P: CompiledEdgeProgram>(self, program: &P) -> bool {
                program.frontier()
            }
        }
        self.visit(Frontier)
    }
}

/// A built-in program: its name, an instance with its default parameters, and its source
/// file as a user would pass it to `glp run FILE.rs`.
#[derive(Debug, Clone, Copy)]
pub struct BuiltInProgram {
    /// The name `glp run` takes.
    pub name: &'static str,
    /// The program with its default parameters.
    pub program: AnyProgram,
    /// The source file's path in the repository and its text.
    pub source: (&'static str, &'static str),
}

macro_rules! built_in {
    ($($name:literal => $file:literal: $program:expr),* $(,)?) => {
        [$(BuiltInProgram {
            name: $name,
            program: $program,
            source: (concat!("src/programs/", $file), include_str!($file)),
        }),*]
    };
}

/// Every built-in program, in the order of the command line's help.
pub const BUILT_IN: [BuiltInProgram; 5] = built_in![
    "bfs" => "bfs.rs": AnyProgram::Bfs(Bfs),
    "sssp" => "sssp.rs": AnyProgram::Sssp(Sssp),
    "wcc" => "wcc.rs": AnyProgram::Wcc(Wcc),
    "sswp" => "sswp.rs": AnyProgram::Sswp(Sswp),
    "pr" => "pagerank.rs": AnyProgram::PageRank(PageRank { damping: 0.85, iterations: 10 }),
];

/// The built-in program named `name`.
pub fn built_in(name: &str) -> Option<&'static BuiltInProgram> {
    BUILT_IN.iter().find(|b| b.name == name)
}
