//! The CPU's random-access ceiling: dependent random reads per second (pointer chasing) with
//! 1 to 32 chains per thread on every worker of the rayon pool, for arrays in L2, in L3 and in
//! DRAM. A walk step on the CPU is such a chain (a transit's row, then a neighbour), so the
//! CPU sampling benchmark divides its rates by these; the GPU's probe is
//! [`crate::device::ceiling`].
//!
//! Each array holds one random cycle through all its slots (Sattolo's shuffle, seeded), so a
//! chain's next read is unknown until its current one lands and no prefetcher can guess it.
//! Chains start at evenly spaced points of the cycle, so they never share a line.
//!
//! The arrays come from the process's allocator, as a loaded graph's do, so the probe reads
//! memory on the pages the engines' graph gets: under the `glp` binary's allocator (mimalloc),
//! transparent huge pages, where a read that misses the caches seldom also misses the TLB.
//! Page size matters as much as the cache level: on a 2-core Xeon the 8 MiB array served
//! 150-190 M dependent reads/s on 4 KiB pages and 260-330 M on 2 MiB pages.

use crate::random::Stream;
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

/// Chains per thread measured.
pub const CHAINS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// Reads each chain makes per measurement at the smallest size (fewer at larger ones, so that
/// every measurement takes a few milliseconds to a few hundred).
const READS_PER_CHAIN: u64 = 1 << 20;

/// Where an array's reads are served from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum HostTier {
    L2,
    L3,
    Dram,
}

impl HostTier {
    pub fn name(self) -> &'static str {
        match self {
            HostTier::L2 => "L2",
            HostTier::L3 => "L3",
            HostTier::Dram => "DRAM",
        }
    }
}

/// One measurement: an array size, its tier, the chains per thread and the rate over all
/// threads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostCeilingRow {
    pub bytes: u64,
    pub tier: HostTier,
    pub chains: u32,
    pub reads_per_s: f64,
}

/// The probe's findings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostCeiling {
    pub threads: usize,
    /// Per-core L2 and shared L3 bytes (from the operating system, or the defaults below).
    pub l2_bytes: u64,
    pub l3_bytes: u64,
    pub rows: Vec<HostCeilingRow>,
}

impl HostCeiling {
    /// The best rate of `tier` (any chain count).
    pub fn best(&self, tier: HostTier) -> Option<f64> {
        self.rows.iter().filter(|r| r.tier == tier).map(|r| r.reads_per_s).reduce(f64::max)
    }

    /// The ceiling for reads scattered over an array of `bytes`: the best rate of the tier
    /// it falls in.
    pub fn for_array(&self, bytes: u64) -> Option<f64> {
        self.best(HostTier::of_array(bytes, self.l2_bytes, self.l3_bytes))
    }
}

impl HostTier {
    /// Where reads scattered over an array of `bytes` are served from, with caches of
    /// `l2_bytes` (per core) and `l3_bytes`: a cache while the array takes at most half of
    /// it (the rest holds everything else a run touches).
    pub fn of_array(bytes: u64, l2_bytes: u64, l3_bytes: u64) -> HostTier {
        if bytes <= l2_bytes / 2 {
            HostTier::L2
        } else if bytes <= l3_bytes / 2 {
            HostTier::L3
        } else {
            HostTier::Dram
        }
    }

    /// [`HostTier::of_array`] with this machine's caches ([`cache_sizes`]).
    pub fn of_array_here(bytes: u64) -> HostTier {
        let (l2_bytes, l3_bytes) = cache_sizes();
        HostTier::of_array(bytes, l2_bytes, l3_bytes)
    }
}

/// Cache sizes when the operating system does not say (a recent server core).
const DEFAULT_L2: u64 = 1 << 20;
const DEFAULT_L3: u64 = 32 << 20;

/// Measures every size and chain count on the current rayon pool (a few seconds: the DRAM
/// array is 128 MiB or 4 L3s, whichever is larger, up to 1 GiB).
pub fn measure() -> HostCeiling {
    let (l2_bytes, l3_bytes) = cache_sizes();
    let dram = (l3_bytes * 4).clamp(128 << 20, 1 << 30);
    let sizes = [(l2_bytes / 4, HostTier::L2), (l3_bytes / 4, HostTier::L3), (dram, HostTier::Dram)];
    let threads = rayon::current_num_threads();
    let mut rows = Vec::new();
    for (bytes, tier) in sizes {
        let cycle = random_cycle((bytes / 4).max(64) as usize, 0x676c_7020_7072_6f62);
        for chains in CHAINS {
            let reads = (READS_PER_CHAIN >> (2 * tier as u64)).max(1 << 14);
            rows.push(HostCeilingRow { bytes, tier, chains, reads_per_s: chase(&cycle, threads, chains, reads) });
        }
    }
    HostCeiling { threads, l2_bytes, l3_bytes, rows }
}

/// One random cycle through `n` slots: slot i holds the slot after it (Sattolo's algorithm).
fn random_cycle(n: usize, seed: u64) -> Vec<u32> {
    let mut next: Vec<u32> = (0..n as u32).collect();
    let mut stream = Stream::new(seed, 0);
    for i in (1..n).rev() {
        let j = stream.next_below(i as u64) as usize;
        next.swap(i, j);
    }
    next
}

/// Dependent reads per second over `cycle`: `threads` workers, each following `chains` chains
/// for `reads` reads each.
fn chase(cycle: &[u32], threads: usize, chains: u32, reads: u64) -> f64 {
    let n = cycle.len();
    let chains = chains as usize;
    let start = Instant::now();
    let sum: u64 = (0..threads)
        .into_par_iter()
        .map(|thread| {
            let mut at: Vec<u32> =
                (0..chains).map(|c| ((thread * chains + c) * n / (threads * chains)) as u32).collect();
            for _ in 0..reads {
                for x in at.iter_mut() {
                    *x = cycle[*x as usize];
                }
            }
            at.iter().map(|&x| u64::from(x)).sum::<u64>()
        })
        .sum();
    let seconds = start.elapsed().as_secs_f64();
    std::hint::black_box(sum);
    (threads * chains) as f64 * reads as f64 / seconds.max(1e-9)
}

/// The per-core L2 and the L3 of CPU 0, from Linux's sysfs, else the defaults (read once).
pub fn cache_sizes() -> (u64, u64) {
    static SIZES: std::sync::OnceLock<(u64, u64)> = std::sync::OnceLock::new();
    *SIZES.get_or_init(read_cache_sizes)
}

fn read_cache_sizes() -> (u64, u64) {
    let mut l2 = None;
    let mut l3 = None;
    for index in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
        let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).ok();
        let (Some(level), Some(size)) = (read("level"), read("size")) else { continue };
        let size = parse_size(size.trim());
        match level.trim() {
            "2" => l2 = size,
            "3" => l3 = size,
            _ => {}
        }
    }
    (l2.unwrap_or(DEFAULT_L2), l3.unwrap_or(DEFAULT_L3))
}

/// "512K", "32768K", "2M" or plain bytes.
fn parse_size(text: &str) -> Option<u64> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let value: u64 = digits.parse().ok()?;
    let scale = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    value.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_visits_every_slot_once() {
        let n = 1000;
        let cycle = random_cycle(n, 7);
        let mut seen = vec![false; n];
        let mut x = 0usize;
        for _ in 0..n {
            assert!(!seen[x], "slot {x} visited twice");
            seen[x] = true;
            x = cycle[x] as usize;
        }
        assert_eq!(x, 0, "back at the start after n reads");
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn cache_sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_size("512K"), Some(512 << 10));
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("12Q"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn arrays_fall_in_the_tier_of_their_size() {
        let row = |tier, reads_per_s| HostCeilingRow { bytes: 0, tier, chains: 1, reads_per_s };
        let found = HostCeiling {
            threads: 2,
            l2_bytes: 1 << 20,
            l3_bytes: 32 << 20,
            rows: vec![
                row(HostTier::L2, 300.0),
                row(HostTier::L3, 200.0),
                row(HostTier::L3, 210.0),
                row(HostTier::Dram, 60.0),
            ],
        };
        assert_eq!(HostTier::of_array(100 << 10, 1 << 20, 32 << 20), HostTier::L2);
        assert_eq!(HostTier::of_array(8 << 20, 1 << 20, 32 << 20), HostTier::L3);
        assert_eq!(HostTier::of_array(17 << 20, 1 << 20, 32 << 20), HostTier::Dram);
        assert_eq!(found.for_array(100 << 10), Some(300.0));
        assert_eq!(found.for_array(8 << 20), Some(210.0));
        assert_eq!(found.for_array(512 << 20), Some(60.0));
    }
}
