//! `glp convert`: any supported input to the binary `.glpg` format.

use super::common::{self, LoadArgs};
use clap::Args;
use glp_runtime::io;
use glp_runtime::Result;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Input graph (any supported format, plain or gzip)
    pub input: PathBuf,

    /// Output .glpg file
    pub output: PathBuf,

    #[command(flatten)]
    pub load: LoadArgs,
}

pub fn run(args: ConvertArgs) -> Result<()> {
    let start = Instant::now();
    let graph = common::load(Some(&args.input), &args.load)?;
    io::write_glpg(&graph, &args.output)?;
    eprintln!(
        "wrote {} ({} vertices, {} stored edges) in {:.2} s",
        args.output.display(),
        graph.num_vertices(),
        graph.num_edges(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
