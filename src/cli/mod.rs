//! The `glp` command line: argument definitions and dispatch. Each subcommand lives in its
//! own module; [`common`] holds what several share (graph loading options, output helpers).

mod bench;
mod bench_gpu;
mod common;
mod convert;
mod engine;
mod gen;
mod info;
mod lp;

use clap::{Parser, Subcommand};
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
        Run `glp lp` with no argument for a demonstration on a small bundled graph."
)]
pub struct Cli {
    /// Worker threads for parallel work (default: one per core).
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,

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
    /// Measure loading and label propagation speed.
    Bench(bench::BenchArgs),
}

/// Runs the command line; prints `error: ...` with the cause chain on failure.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let mut printed = error.to_string();
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

fn run(cli: Cli) -> glp_runtime::Result<()> {
    if let Some(threads) = cli.threads {
        if threads == 0 {
            return Err(glp_runtime::Error::invalid("--threads must be at least 1"));
        }
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
        Command::Bench(args) => bench::run(args),
    }
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
