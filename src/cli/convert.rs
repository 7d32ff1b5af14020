//! `glp convert`: any supported input to the binary `.glpg` format.

use super::common::{self, LoadArgs};
use super::console;
use super::output::{Content, Destination, Outputs};
use clap::Args;
use glp_runtime::io;
use glp_runtime::Result;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Input graph (any supported format, plain or gzip)
    pub input: PathBuf,

    /// Output .glpg file; `-` is standard output (refused on a terminal)
    pub output: PathBuf,

    #[command(flatten)]
    pub load: LoadArgs,
}

pub fn run(args: ConvertArgs) -> Result<()> {
    let start = Instant::now();
    let output = Destination::check("OUTPUT", &args.output, Content::Binary)?;
    let graph = common::load(Some(&args.input), &args.load)?;
    let mut outputs = Outputs::new();
    outputs.stage_with(&output, |path| io::write_glpg(&graph, path))?;
    outputs.commit()?;
    console::status(format_args!(
        "wrote {output} ({} vertices, {} stored edges) in {:.2} s",
        graph.num_vertices(),
        graph.num_edges(),
        start.elapsed().as_secs_f64()
    ));
    Ok(())
}
