//! CPU label propagation on the real graphs of the repository's data folder.
//!
//! Quality is scored with glp's metrics module (independent of the engines and itself tested
//! against hand-computed values); the bounds are the published GVE-LPA figures the issue sets
//! as targets (modularity within 1% of them). The synchronous engine is compared exactly with
//! a naive reference written here.

mod common;

use common::{data, load, naive_synchronous_lp};
use glp::prelude::*;

fn two_threads() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap()
}

fn async_quality(graph: &str, truth: &str) -> QualityReport {
    let g = load(graph);
    let truth = glp::io::read_ground_truth(&data(truth), &g.ids).unwrap();
    assert_eq!(truth.unknown_ids, 0);
    let out = two_threads().install(|| glp::lp::run(&g.csr, &Weighted, &LpConfig::asynchronous())).unwrap();
    assert!(out.converged);
    QualityReport::new(&g.csr, &out.labels, Some(&truth.truth)).unwrap()
}

#[test]
fn async_com_dblp_reaches_gve_lpa_modularity() {
    // GVE-LPA, 2 threads: modularity 0.740 on com-DBLP.
    let q = async_quality("com-dblp.edges.gz", "com-dblp.all.cmty.txt.gz");
    assert!(q.modularity >= 0.740 * 0.99, "modularity {}", q.modularity);
}

#[test]
fn async_lfr_reaches_gve_lpa_modularity_and_recovers_communities() {
    // GVE-LPA, 2 threads: modularity 0.427 on LFR 100k, mu 0.3.
    let q = async_quality("lfr/LFR_N100000_ad5_mc50_mu0.3.edges.gz", "lfr/LFR_N100000_ad5_mc50_mu0.3.cmty.txt.gz");
    assert!(q.modularity >= 0.427 * 0.99, "modularity {}", q.modularity);
    // The easy mixing (mu 0.1) set is mostly recovered.
    let q = async_quality("lfr/LFR_N50000_ad5_mc50_mu0.1.edges.gz", "lfr/LFR_N50000_ad5_mc50_mu0.1.cmty.txt.gz");
    assert!(q.nmi.as_ref().unwrap().value >= 0.75, "NMI {:?}", q.nmi);
}

#[test]
fn sync_matches_the_naive_reference_on_real_graphs() {
    for name in ["email-Eu-core.txt", "football.edges", "polblogs.edges", "karate.mtx", "citeseer.edges"] {
        let g = load(name);
        let out = two_threads().install(|| glp::lp::run(&g.csr, &Classic, &LpConfig::synchronous(20))).unwrap();
        assert_eq!(out.labels, naive_synchronous_lp(&g.csr, 20, |_| 1.0, |_, _, _, votes| votes), "{name}");
    }
}
