//! `glp bench probe`: the GPU's memory ceilings (`glp_runtime::device::ceiling`): random
//! reads per second in device memory, dependent (1 to 32 chains per thread) and independent,
//! on arrays from 8 MiB (L2) to 4 GiB; copy rates (device to device, pinned host to device);
//! zero-copy reads of pinned host memory (random words, 4 KiB blocks). Sampling benchmarks
//! report their rates as a fraction of these. `--quick` measures the independent reads only,
//! as a benchmark does in its own run.

use super::backend::BackendArg;
use super::bench::print_json;
use super::output;
use clap::Args;
use glp_runtime::device::ceiling::{self, Ceiling, CeilingRow, SkippedSize, CHAINS};
use glp_runtime::device::Gpu;
use glp_runtime::host_ceiling::{self, HostCeiling, HostCeilingRow, HostTier};
use glp_runtime::memory::format_bytes;
use glp_runtime::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Where to measure: gpu, or cpu (dependent random reads on every worker thread); auto
    /// is gpu
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// Independent reads only, one run per size (well under a second): what benchmarks
    /// measure in their own run
    #[arg(long)]
    pub quick: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
struct ProbeReport<'a> {
    device: String,
    quick: bool,
    l2_bytes: u64,
    /// Device-to-device copies, bytes read plus bytes written (GB/s); absent with `--quick`.
    device_copy_gb_s: Option<f64>,
    /// The pinned host buffer the next three were measured on; absent with `--quick` or
    /// when the host refused to pin memory (a note says so).
    host_pinned_bytes: Option<u64>,
    host_copy_gb_s: Option<f64>,
    zero_copy_reads_per_s: Option<f64>,
    zero_copy_block_gb_s: Option<f64>,
    /// Random reads in device memory: one row per array size and pattern (`chains` absent
    /// for independent reads).
    rows: &'a [CeilingRow],
    /// Array sizes not measured, with the reason.
    skipped: &'a [SkippedSize],
    notes: &'a [String],
    /// The best rate of each tier: the ceilings benchmarks divide by.
    ceiling_l2_reads_per_s: Option<f64>,
    ceiling_dram_reads_per_s: Option<f64>,
}

pub fn run(args: ProbeArgs) -> Result<()> {
    if args.backend == BackendArg::Cpu {
        if args.quick {
            return Err(Error::invalid("--quick measures a GPU's independent reads; the CPU probe has no quick form"));
        }
        let found = host_ceiling::measure();
        if args.json {
            return print_json(&found);
        }
        return output::print(&host_table(&found));
    }
    let gpu = Gpu::open(0)?;
    let found = if args.quick { ceiling::measure_quick(&gpu)? } else { ceiling::measure(&gpu)? };
    let report = report(gpu.info().name.clone(), args.quick, &found);
    if args.json {
        return print_json(&report);
    }
    output::print(&table(&report))
}

fn report(device: String, quick: bool, found: &Ceiling) -> ProbeReport<'_> {
    let host = found.host.as_ref();
    ProbeReport {
        device,
        quick,
        l2_bytes: found.l2_bytes,
        device_copy_gb_s: found.device_copy_bytes_per_s.map(|b| b / 1e9),
        host_pinned_bytes: host.map(|h| h.pinned_bytes),
        host_copy_gb_s: host.and_then(|h| h.copy_bytes_per_s).map(|b| b / 1e9),
        zero_copy_reads_per_s: host.map(|h| h.random_reads_per_s),
        zero_copy_block_gb_s: host.map(|h| h.block_bytes_per_s / 1e9),
        rows: &found.rows,
        skipped: &found.skipped,
        notes: &found.notes,
        ceiling_l2_reads_per_s: found.best("L2"),
        ceiling_dram_reads_per_s: found.best("DRAM"),
    }
}

/// The report for people: copies, zero-copy reads, then one line per array size with a
/// column per pattern.
fn table(report: &ProbeReport) -> String {
    let mut text = format!("device       {}, {} of L2\n", report.device, format_bytes(report.l2_bytes));
    if let Some(gb_s) = report.device_copy_gb_s {
        let _ = writeln!(text, "copy         device to device {gb_s:.1} GB/s (bytes read + written)");
    }
    if let Some(gb_s) = report.host_copy_gb_s {
        let _ = writeln!(text, "copy         pinned host to device {gb_s:.1} GB/s");
    }
    if let (Some(bytes), Some(reads), Some(gb_s)) =
        (report.host_pinned_bytes, report.zero_copy_reads_per_s, report.zero_copy_block_gb_s)
    {
        let _ = writeln!(
            text,
            "zero-copy    {:.3} G random 4-byte reads/s, {gb_s:.1} GB/s of random 4 KiB blocks ({} of pinned host memory)",
            reads / 1e9,
            format_bytes(bytes)
        );
    }
    let patterns: Vec<Option<u32>> =
        CHAINS.iter().map(|&k| Some(k)).chain([None]).filter(|p| report.rows.iter().any(|r| r.chains == *p)).collect();
    let _ = writeln!(text, "random reads in device memory, G reads/s (k dependent chains per thread, or independent)");
    let _ = write!(text, "{:>6}  {:<8}", "MiB", "tier");
    for pattern in &patterns {
        let name = pattern.map_or("indep.".to_string(), |k| format!("k={k}"));
        let _ = write!(text, " {name:>7}");
    }
    text.push('\n');
    let mut sizes: Vec<u64> = report.rows.iter().map(|r| r.bytes).collect();
    sizes.dedup();
    for bytes in sizes {
        let rows: Vec<&CeilingRow> = report.rows.iter().filter(|r| r.bytes == bytes).collect();
        let _ = write!(text, "{:>6}  {:<8}", bytes >> 20, rows[0].tier.name());
        for pattern in &patterns {
            match rows.iter().find(|r| r.chains == *pattern) {
                Some(r) => write!(text, " {:>7.2}", r.reads_per_s / 1e9),
                None => write!(text, " {:>7}", "-"),
            }
            .unwrap_or(());
        }
        text.push('\n');
    }
    for skipped in report.skipped {
        let _ = writeln!(text, "{:>6}  skipped: {}", skipped.bytes >> 20, skipped.reason);
    }
    for (name, best) in [("L2", report.ceiling_l2_reads_per_s), ("DRAM", report.ceiling_dram_reads_per_s)] {
        if let Some(best) = best {
            let _ = writeln!(text, "ceiling {name:<4} {:.2} G reads/s", best / 1e9);
        }
    }
    for note in report.notes {
        let _ = writeln!(text, "note         {note}");
    }
    text
}

/// The CPU probe for people: a line per array size, a column per chain count.
fn host_table(found: &HostCeiling) -> String {
    let mut text = format!(
        "cpu          {} worker threads, {} of L2 per core, {} of L3\n",
        found.threads,
        format_bytes(found.l2_bytes),
        format_bytes(found.l3_bytes)
    );
    let _ = writeln!(text, "dependent random reads, M reads/s over all threads (k chains per thread)");
    let _ = write!(text, "{:>6}  {:<6}", "KiB", "tier");
    for k in host_ceiling::CHAINS {
        let _ = write!(text, " {:>7}", format!("k={k}"));
    }
    text.push('\n');
    let mut sizes: Vec<u64> = found.rows.iter().map(|r| r.bytes).collect();
    sizes.dedup();
    for bytes in sizes {
        let rows: Vec<&HostCeilingRow> = found.rows.iter().filter(|r| r.bytes == bytes).collect();
        let _ = write!(text, "{:>6}  {:<6}", bytes >> 10, rows[0].tier.name());
        for k in host_ceiling::CHAINS {
            match rows.iter().find(|r| r.chains == k) {
                Some(r) => write!(text, " {:>7.1}", r.reads_per_s / 1e6),
                None => write!(text, " {:>7}", "-"),
            }
            .unwrap_or(());
        }
        text.push('\n');
    }
    for tier in [HostTier::L2, HostTier::L3, HostTier::Dram] {
        if let Some(best) = found.best(tier) {
            let _ = writeln!(text, "ceiling {:<4} {:.1} M reads/s", tier.name(), best / 1e6);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use glp_runtime::device::ceiling::{HostMemory, Tier};

    fn row(mib: u64, tier: Tier, chains: Option<u32>, g_reads: f64) -> CeilingRow {
        CeilingRow { bytes: mib << 20, tier, chains, reads_per_s: g_reads * 1e9 }
    }

    #[test]
    fn the_table_has_a_line_per_size_and_a_column_per_pattern() {
        let found = Ceiling {
            l2_bytes: 50_000_000,
            rows: vec![
                row(8, Tier::L2, Some(1), 135.26),
                row(8, Tier::L2, Some(2), 136.0),
                row(8, Tier::L2, None, 135.38),
                row(512, Tier::Dram, Some(1), 33.06),
                row(512, Tier::Dram, None, 33.1),
            ],
            skipped: vec![SkippedSize { bytes: 4 << 30, reason: "needs 4.3 GB".into() }],
            device_copy_bytes_per_s: Some(2.95e12),
            host: Some(HostMemory {
                pinned_bytes: 1 << 30,
                copy_bytes_per_s: Some(52.1e9),
                random_reads_per_s: 0.45e9,
                block_bytes_per_s: 48.14e9,
            }),
            notes: vec!["something".into()],
        };
        let text = table(&report("H100".into(), false, &found));
        let expected = "\
device       H100, 50.0 MB of L2
copy         device to device 2950.0 GB/s (bytes read + written)
copy         pinned host to device 52.1 GB/s
zero-copy    0.450 G random 4-byte reads/s, 48.1 GB/s of random 4 KiB blocks (1.1 GB of pinned host memory)
random reads in device memory, G reads/s (k dependent chains per thread, or independent)
   MiB  tier         k=1     k=2  indep.
     8  L2        135.26  136.00  135.38
   512  DRAM       33.06       -   33.10
  4096  skipped: needs 4.3 GB
ceiling L2   136.00 G reads/s
ceiling DRAM 33.10 G reads/s
note         something
";
        assert_eq!(text, expected);
    }

    #[test]
    fn the_cpu_table_has_a_line_per_size_and_a_column_per_chain_count() {
        let row = |kib: u64, tier, chains, m_reads: f64| HostCeilingRow {
            bytes: kib << 10,
            tier,
            chains,
            reads_per_s: m_reads * 1e6,
        };
        let found = HostCeiling {
            threads: 2,
            l2_bytes: 1 << 20,
            l3_bytes: 32 << 20,
            rows: vec![
                row(256, HostTier::L2, 1, 137.6),
                row(256, HostTier::L2, 32, 1977.7),
                row(8192, HostTier::L3, 2, 31.8),
            ],
        };
        let expected = "\
cpu          2 worker threads, 1.0 MB of L2 per core, 33.6 MB of L3
dependent random reads, M reads/s over all threads (k chains per thread)
   KiB  tier       k=1     k=2     k=4     k=8    k=16    k=32
   256  L2       137.6       -       -       -       -  1977.7
  8192  L3           -    31.8       -       -       -       -
ceiling L2   1977.7 M reads/s
ceiling L3   31.8 M reads/s
";
        assert_eq!(host_table(&found), expected);
    }

    #[test]
    fn a_quick_report_has_the_independent_reads_only() {
        let found = Ceiling {
            l2_bytes: 50_000_000,
            rows: vec![row(8, Tier::L2, None, 130.0), row(32, Tier::Mixed, None, 60.0)],
            ..Ceiling::default()
        };
        let report = report("H100".into(), true, &found);
        let json: serde_json::Value = serde_json::to_value(&report).unwrap();
        assert_eq!(json["device_copy_gb_s"], serde_json::Value::Null);
        assert_eq!(json["rows"][1]["tier"], "L2+DRAM");
        assert_eq!(json["rows"][1]["chains"], serde_json::Value::Null);
        assert_eq!(json["ceiling_l2_reads_per_s"], 130e9);
        assert_eq!(json["ceiling_dram_reads_per_s"], serde_json::Value::Null);
        let text = table(&report);
        assert!(
            text.contains("   MiB  tier      indep.\n     8  L2        130.00\n    32  L2+DRAM    60.00\n"),
            "{text}"
        );
    }
}
