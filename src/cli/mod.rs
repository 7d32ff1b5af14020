//! The `glp` command line: argument definitions and dispatch. Each subcommand lives in its
//! own module; [`common`] holds what several share (graph loading options, the bundled
//! graph), `output` everything a command writes (checked first, committed together at the
//! end), [`console`] what it says on standard error (warnings, notices, `--quiet`),
//! `progress` its progress bars and `quality` how quality scores are presented.
//!
//! Conventions every command follows: output paths are checked before any work; `-` is
//! standard output; JSON times are milliseconds, in fields whose names end in `_ms`
//! (`time_ms`, `median_ms`, `runs_ms`, `prepare_ms`, ...); numeric options out of their useful range are errors, or capped with a
//! warning where a smaller value does the same job (`--threads`).

pub mod backend;
mod bench;
mod bench_gpu;
mod bench_probe;
mod bench_run;
mod bench_sample;
pub mod common;
pub mod console;
mod convert;
pub mod engine;
mod gen;
mod info;
mod limits;
pub mod lp;
mod output;
mod progress;
mod quality;
mod run;
pub mod sample;
pub mod sample_backend;
mod sample_output;
pub mod sample_roots;

use clap::{Parser, Subcommand};
use glp_runtime::error::Remedy;
use std::process::ExitCode;

/// Label propagation and graph analytics on GPUs and CPUs.
#[derive(Debug, Parser)]
#[command(
    name = "glp",
    version,
    about = "Label propagation and graph analytics on GPUs and CPUs",
    long_about = "Label propagation and graph analytics on GPUs and CPUs.\n\n\
        glp reads graphs in Matrix Market, SNAP edge-list, CSV, LDBC Graphalytics and its own \
        binary .glpg format (each optionally gzip-compressed), detects communities with label \
        propagation, and scores them (modularity, NMI, ARI, overlapping NMI, conductance).\n\n\
        Run `glp lp` with no argument for a demonstration on a small bundled graph.\n\n\
        Outputs: every output path is checked before any work starts; `-` writes to standard \
        output (a binary .glpg only when it is not a terminal; the command's own summary then \
        goes to standard error); files are written under a temporary name and renamed into \
        place when the command succeeds (a symbolic link's target is replaced, a FIFO or device \
        is written in place), and a failing command leaves none of its outputs behind. A closed \
        pipe on standard output ends the output quietly (exit status 0).\n\n\
        JSON (--json): every time is in milliseconds, in a field ending in _ms.\n\n\
        Progress bars and notices go to standard error, bars only when it is a terminal; \
        --quiet silences both (warnings and errors stay)."
)]
pub struct Cli {
    /// Worker threads for parallel work (default: one per core; at most 4 per available
    /// core, larger values are capped with a warning)
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,

    /// No progress bars, notices or status lines on standard error (warnings and errors stay)
    #[arg(long, short, global = true)]
    quiet: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Detect communities with label propagation.
    #[command(long_about = lp::LONG_ABOUT)]
    Lp(lp::LpArgs),
    /// Print vertex, edge and degree statistics of a graph.
    Info(info::InfoArgs),
    /// Convert a graph to glp's binary .glpg format.
    Convert(convert::ConvertArgs),
    /// Generate a synthetic graph (R-MAT or planted partition) into a .glpg file.
    Gen(gen::GenArgs),
    /// Sample random walks or subgraphs (DeepWalk, node2vec, GraphSAGE k-hop, ...).
    #[command(long_about = sample::LONG_ABOUT)]
    Sample(Box<sample::SampleArgs>),
    /// Run an edge program (BFS, SSSP, WCC, SSWP, PageRank, or a program file).
    #[command(long_about = run::LONG_ABOUT)]
    Run(run::RunArgs),
    /// Measure loading, label propagation and sampling speed.
    Bench(bench::BenchArgs),
}

/// Runs the command line; prints `error: ...` with the cause chain on failure.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let mut printed = error.with_flags(flag_of);
            eprintln!("error: {printed}");
            let mut source = std::error::Error::source(&error);
            while let Some(cause) = source {
                // Messages that already quote their cause (an I/O error names it after the
                // file) do not repeat it.
                let text = cause.to_string();
                if !printed.contains(&text) {
                    eprintln!("  caused by: {text}");
                    printed = text;
                }
                source = cause.source();
            }
            ExitCode::FAILURE
        }
    }
}

/// The command-line flag that applies a runtime error's remedy (the runtime's messages name
/// no flag; [`glp_runtime::Error::with_flags`]).
fn flag_of(remedy: Remedy) -> &'static str {
    match remedy {
        Remedy::ChooseColumns => "--columns",
    }
}

/// Threads per available core beyond which `--threads` is capped: CPU-bound work gains
/// nothing from more, and every thread costs a stack and per-thread tables (5000 threads made
/// the bundled demonstration take over a minute).
pub const THREADS_PER_CORE: usize = 4;

fn run(cli: Cli) -> glp_runtime::Result<()> {
    console::set_quiet(cli.quiet);
    if let Some(requested) = cli.threads {
        let threads = capped_threads(requested)?;
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .map_err(|e| glp_runtime::Error::invalid(format!("cannot start {threads} threads: {e}")))?;
    }
    match cli.command {
        Command::Lp(args) => lp::run(args),
        Command::Info(args) => info::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Gen(args) => gen::run(args),
        Command::Sample(args) => sample::run(*args),
        Command::Run(args) => run::run(args),
        Command::Bench(args) => bench::run(args),
    }
}

/// `--threads N` checked (at least 1) and capped at [`THREADS_PER_CORE`] per available core,
/// with a warning saying the cap.
fn capped_threads(requested: usize) -> glp_runtime::Result<usize> {
    if requested == 0 {
        return Err(glp_runtime::Error::invalid("--threads must be at least 1"));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cap = THREADS_PER_CORE * cores;
    if requested > cap {
        console::warning(format_args!(
            "--threads {requested} capped at {cap} ({THREADS_PER_CORE} per available core, {cores} cores): \
             more threads than that only add overhead"
        ));
        return Ok(cap);
    }
    Ok(requested)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn argument_definitions_are_consistent() {
        Cli::command().debug_assert();
    }
}
