//! Helpers shared by the integration tests.
#![allow(dead_code)]

/// Small deterministic generator (SplitMix64), so the tests need no random crate and do not
/// depend on the generator under test in `glp_runtime::random`.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Uniform in [0, 1) from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Runs `f` on a fresh rayon pool of `threads` threads.
pub fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

/// Asserts rows strictly increasing, no self loop, and every edge's reverse present.
pub fn assert_simple_symmetric(g: &glp_runtime::graph::Graph) {
    let csr = &g.csr;
    for v in 0..csr.num_vertices() as u32 {
        let row = csr.neighbors(v);
        assert!(row.windows(2).all(|w| w[0] < w[1]), "row {v} not strictly increasing");
        for &u in row {
            assert_ne!(u, v, "self loop at {v}");
            assert!(csr.neighbors(u).binary_search(&v).is_ok(), "edge {v}->{u} has no reverse");
        }
    }
}
