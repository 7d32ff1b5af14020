//! The array sizes the probe measures, where each one lives (L2, DRAM or both), and which of
//! them fit on the device.

use crate::memory::format_bytes;
use serde::Serialize;

const MIB: u64 = 1 << 20;

/// The array sizes measured, from resident in the L2 of every recent GPU (8 MiB: 40 MB of L2
/// on an A100, 50 MB on an H100) to several GB, where the GPU's address translation is part
/// of every read as in a large graph. Each is a power of two of 32-bit words, as the random
/// cycle of the dependent chains needs ([`super::cycle`], built from a permutation of `2^k` words), and at most 2^31 words, as the
/// kernels index with 32-bit words.
pub const LADDER: [u64; 6] = [8 * MIB, 32 * MIB, 128 * MIB, 512 * MIB, 2048 * MIB, 4096 * MIB];

/// Device memory left free beside an array (the sink, the module, the driver's own).
pub const HEADROOM: u64 = 64 * MIB;

/// Where an array's random reads are served from, by its size against the L2's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Tier {
    /// At most half the L2: every read hits it once the array is loaded.
    #[serde(rename = "L2")]
    L2,
    /// Between: the L2 serves a share of the reads (about its size over the array's).
    #[serde(rename = "L2+DRAM")]
    Mixed,
    /// Eight times the L2 or more: at most one read in eight hits it, so the rate is within
    /// about 15% of device memory's own.
    #[serde(rename = "DRAM")]
    Dram,
}

impl Tier {
    /// An array of `bytes` on a device with `l2_bytes` of L2.
    pub fn of(bytes: u64, l2_bytes: u64) -> Tier {
        if bytes.saturating_mul(2) <= l2_bytes {
            Tier::L2
        } else if bytes >= l2_bytes.saturating_mul(8) {
            Tier::Dram
        } else {
            Tier::Mixed
        }
    }

    /// `L2`, `L2+DRAM` or `DRAM`.
    pub fn name(self) -> &'static str {
        match self {
            Tier::L2 => "L2",
            Tier::Mixed => "L2+DRAM",
            Tier::Dram => "DRAM",
        }
    }
}

/// Whether an array of `bytes` fits in `free` bytes of device memory with [`HEADROOM`] to
/// spare; if not, why (the reason a skipped size is reported with).
pub fn fits(bytes: u64, free: u64) -> Result<(), String> {
    if bytes.checked_add(HEADROOM).is_some_and(|needed| needed <= free) {
        return Ok(());
    }
    Err(format!(
        "needs {} and {} of headroom, {} of device memory is free",
        format_bytes(bytes),
        format_bytes(HEADROOM),
        format_bytes(free)
    ))
}

/// log2 of the 32-bit words of an array of `bytes` (a power of two of words).
pub fn word_bits(bytes: u64) -> Option<u32> {
    let words = bytes / 4;
    (bytes.is_multiple_of(4) && words.is_power_of_two()).then(|| words.trailing_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_is_a_power_of_two_of_words_the_kernels_can_index() {
        for bytes in LADDER {
            let bits = word_bits(bytes).unwrap_or_else(|| panic!("{bytes} bytes are not 2^k words"));
            assert!(bits <= 31, "{bytes} bytes: 2^{bits} words overflow the kernels' 32-bit counts");
            assert_eq!(4u64 << bits, bytes);
        }
        assert!(LADDER.windows(2).all(|w| w[0] < w[1]), "the ladder grows");
        assert_eq!(word_bits(12), None);
        assert_eq!(word_bits(6), None);
        assert_eq!(word_bits(4), Some(0));
    }

    #[test]
    fn tiers_follow_the_l2_size() {
        // An H100's 50 MB of L2.
        let l2 = 50 * 1000 * 1000;
        let tiers: Vec<&str> = LADDER.iter().map(|&b| Tier::of(b, l2).name()).collect();
        assert_eq!(tiers, ["L2", "L2+DRAM", "L2+DRAM", "DRAM", "DRAM", "DRAM"]);
        // The boundaries: half the L2, eight times it.
        assert_eq!(Tier::of(500, 1000), Tier::L2);
        assert_eq!(Tier::of(501, 1000), Tier::Mixed);
        assert_eq!(Tier::of(7999, 1000), Tier::Mixed);
        assert_eq!(Tier::of(8000, 1000), Tier::Dram);
        // A device that reports no L2: everything is device memory.
        assert_eq!(Tier::of(8 * MIB, 0), Tier::Dram);
    }

    #[test]
    fn a_size_fits_with_headroom_or_says_what_it_needs() {
        assert_eq!(fits(512 * MIB, 512 * MIB + HEADROOM), Ok(()));
        let reason = fits(512 * MIB, 512 * MIB + HEADROOM - 1).unwrap_err();
        assert_eq!(reason, "needs 536.9 MB and 67.1 MB of headroom, 604.0 MB of device memory is free");
        assert!(fits(u64::MAX, u64::MAX).is_err(), "no overflow");
        // On an 80 GB device with 3 GB free, the sizes up to 2 GiB fit.
        let free = 3_000_000_000;
        let fitting: Vec<u64> = LADDER.into_iter().filter(|&b| fits(b, free).is_ok()).collect();
        assert_eq!(fitting, [8 * MIB, 32 * MIB, 128 * MIB, 512 * MIB, 2048 * MIB]);
    }
}
