//! `glp bench probe`: the GPU's random-access ceiling (`glp_runtime::device::ceiling`):
//! dependent reads per second with 1 to 32 chains per thread and independent reads per
//! second, on an array resident in L2 and one far larger. Sampling benchmarks report their
//! rates as a fraction of the best of these.

use super::backend::BackendArg;
use super::bench::print_json;
use super::output;
use clap::Args;
use glp_runtime::device::ceiling::{self, Ceiling};
use glp_runtime::device::Gpu;
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Where to measure: gpu (the CPU's probe comes with the CPU sampling work); auto is gpu
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
struct ProbeRow {
    array: &'static str,
    bytes: u64,
    /// Chains per thread; absent for independent reads.
    chains: Option<u32>,
    reads_per_s: f64,
}

#[derive(Debug, Serialize)]
struct ProbeReport {
    device: String,
    rows: Vec<ProbeRow>,
    /// The best rate on each array: the ceilings benchmarks divide by.
    ceiling_l2_reads_per_s: Option<f64>,
    ceiling_dram_reads_per_s: Option<f64>,
}

pub fn run(args: ProbeArgs) -> Result<()> {
    if args.backend == BackendArg::Cpu {
        return Err(Error::invalid(
            "--backend cpu: the CPU's probe comes with the CPU sampling engine's work; this one measures a GPU",
        ));
    }
    let gpu = Gpu::open(0)?;
    let found: Ceiling = ceiling::measure(&gpu)?;
    let report = ProbeReport {
        device: gpu.info().name.clone(),
        ceiling_l2_reads_per_s: found.best("L2"),
        ceiling_dram_reads_per_s: found.best("DRAM"),
        rows: found
            .rows
            .iter()
            .map(|r| ProbeRow { array: r.array, bytes: r.bytes, chains: r.chains, reads_per_s: r.reads_per_s })
            .collect(),
    };
    if args.json {
        return print_json(&report);
    }
    output::print(&table(&report))
}

fn table(report: &ProbeReport) -> String {
    let mut text = format!("device       {}\n", report.device);
    let _ = writeln!(text, "{:<6} {:>9} {:<22} {:>12}", "array", "MiB", "pattern", "G reads/s");
    for r in &report.rows {
        let pattern = match r.chains {
            Some(k) => format!("{k} dependent chain(s)"),
            None => "independent reads".to_string(),
        };
        let _ = writeln!(text, "{:<6} {:>9} {:<22} {:>12.2}", r.array, r.bytes >> 20, pattern, r.reads_per_s / 1e9);
    }
    for (name, best) in [("L2", report.ceiling_l2_reads_per_s), ("DRAM", report.ceiling_dram_reads_per_s)] {
        if let Some(best) = best {
            let _ = writeln!(text, "ceiling {name:<4} {:.2} G reads/s", best / 1e9);
        }
    }
    text
}
