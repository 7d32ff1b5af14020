//! Numeric options whose valid range the runtime accepts but which cannot work here: a
//! generated graph larger than the machine's memory would run until the system kills it. The
//! estimate is checked when the command starts, so the mistake costs a message, not minutes.

use glp_runtime::{Error, Result};

/// Peak bytes per generated R-MAT edge (the generator's docs: the edge list, then the CSR
/// build's working space).
pub const RMAT_BYTES_PER_EDGE: f64 = 32.0;
/// Peak bytes per stored (directed) edge of a planted-partition graph (the generator's docs:
/// the CSR build's working space).
pub const PLANTED_BYTES_PER_EDGE: f64 = 16.0;
/// Bytes per vertex of a planted-partition graph's per-vertex arrays (the generator's docs).
pub const PLANTED_BYTES_PER_VERTEX: f64 = 30.0;

/// Errors when `needed` bytes exceed the machine's physical memory, naming the `option` that
/// asked for them (the check is skipped where the memory size cannot be read).
pub fn check_memory(option: &str, needed: f64) -> Result<()> {
    let Some(total) = physical_memory() else { return Ok(()) };
    if needed > total as f64 {
        return Err(Error::invalid(format!(
            "{option} needs about {} of memory, more than this machine's {}",
            gigabytes(needed),
            gigabytes(total as f64)
        )));
    }
    Ok(())
}

/// Peak memory of generating an R-MAT graph of `scale` and `edge_factor` (0 past the range
/// the generator accepts, which it reports itself).
pub fn rmat_bytes(scale: u32, edge_factor: u32) -> f64 {
    if scale > glp_runtime::gen::rmat::MAX_SCALE {
        return 0.0;
    }
    RMAT_BYTES_PER_EDGE * edge_factor as f64 * (1u64 << scale) as f64
}

/// Peak memory of generating a planted-partition graph.
pub fn planted_bytes(vertices: u64, avg_degree: f64) -> f64 {
    let vertices = vertices as f64;
    let edges = if avg_degree.is_finite() { vertices * avg_degree.max(0.0) } else { 0.0 };
    PLANTED_BYTES_PER_EDGE * edges + PLANTED_BYTES_PER_VERTEX * vertices
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

fn gigabytes(bytes: f64) -> String {
    format!("{:.1} GB", bytes / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_follow_the_generators_figures() {
        // Scale 20, edge factor 16: 2^24 generated edges of 32 bytes.
        assert_eq!(rmat_bytes(20, 16), 32.0 * 16.0 * 1048576.0);
        assert_eq!(rmat_bytes(60, 16), 0.0, "out of range: the generator reports it");
        assert_eq!(planted_bytes(1000, 20.0), 16.0 * 20_000.0 + 30.0 * 1000.0);
        assert!(check_memory("--x", 1.0).is_ok());
        assert!(check_memory("--x", 1e30).is_err() || physical_memory().is_none());
    }
}
