//! Helpers shared by the integration tests.
#![allow(dead_code)]

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
