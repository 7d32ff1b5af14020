//! The iteration observer (`LpInputs::observer`): every engine calls it once per iteration,
//! in order, with exactly the statistics the outcome records.

mod common;

use glp::gen::{planted_partition, CommunityParams};
use glp::lp::gpu::{run_gpu, MflStrategy, VertexOrder};
use glp::lp::{self, IterationStats, LpConfig, LpInputs, LpOutcome, Sketch};
use glp::prelude::*;
use std::sync::Mutex;

/// A graph that takes several iterations under both schedules.
fn graph() -> Graph {
    let params = CommunityParams { num_vertices: 3000, mixing: 0.4, seed: 5, ..CommunityParams::default() };
    planted_partition(&params).unwrap().0
}

/// Runs `run` with an observer that records its calls, and checks them against the outcome.
fn check_observed(what: &str, run: impl FnOnce(&LpInputs<'_>) -> LpOutcome) {
    let calls: Mutex<Vec<(u32, IterationStats)>> = Mutex::new(Vec::new());
    let record = |iteration: u32, stats: &IterationStats| {
        calls.lock().unwrap().push((iteration, *stats));
        Ok(())
    };
    let outcome = run(&LpInputs { observer: Some(&record), ..LpInputs::default() });
    let calls = calls.into_inner().unwrap();
    assert!(outcome.iterations.len() >= 2, "{what}: the test needs several iterations");
    let indices: Vec<u32> = calls.iter().map(|c| c.0).collect();
    let expected: Vec<u32> = (0..outcome.iterations.len() as u32).collect();
    assert_eq!(indices, expected, "{what}: one call per iteration, in order");
    let observed: Vec<IterationStats> = calls.iter().map(|c| c.1).collect();
    assert_eq!(observed, outcome.iterations, "{what}: the statistics the outcome records");
}

#[test]
fn cpu_engines_report_every_iteration() {
    let g = graph();
    let sync = LpConfig::synchronous(20);
    let async_ = LpConfig::asynchronous();
    check_observed("sync", |inputs| lp::run_kernel(&g.csr, &Classic, &sync, inputs).unwrap());
    check_observed("async", |inputs| lp::run_kernel(&g.csr, &Classic, &async_, inputs).unwrap());
    let mg8 = Sketch::MisraGries { slots: 8 };
    check_observed("sync mg8", |inputs| lp::run_sketched(&g.csr, &Classic, &sync, inputs, mg8).unwrap());
    // The observer changes nothing: the same labels without it.
    let plain = lp::run_kernel(&g.csr, &Classic, &sync, &LpInputs::default()).unwrap();
    let calls = Mutex::new(0);
    let count = |_: u32, _: &IterationStats| {
        *calls.lock().unwrap() += 1;
        Ok(())
    };
    let observed =
        lp::run_kernel(&g.csr, &Classic, &sync, &LpInputs { observer: Some(&count), ..LpInputs::default() }).unwrap();
    assert_eq!(observed.labels, plain.labels);
    assert_eq!(*calls.lock().unwrap(), plain.iterations.len());
}

/// An observer's error stops the run after that iteration, and the run returns it.
fn check_stopped(what: &str, run: impl FnOnce(&LpInputs<'_>) -> glp::Result<LpOutcome>) {
    let calls = Mutex::new(0u32);
    let stop = |iteration: u32, _: &IterationStats| {
        *calls.lock().unwrap() += 1;
        if iteration == 1 {
            return Err(glp::Error::invalid("stopped by the observer"));
        }
        Ok(())
    };
    let error = run(&LpInputs { observer: Some(&stop), ..LpInputs::default() }).unwrap_err();
    assert_eq!(error.to_string(), "stopped by the observer", "{what}");
    assert_eq!(*calls.lock().unwrap(), 2, "{what}: no iteration after the error");
}

#[test]
fn an_observer_error_stops_every_engine() {
    let g = graph();
    let sync = LpConfig::synchronous(20);
    check_stopped("sync", |inputs| lp::run_kernel(&g.csr, &Classic, &sync, inputs));
    check_stopped("async", |inputs| lp::run_kernel(&g.csr, &Classic, &LpConfig::asynchronous(), inputs));
    let mg8 = Sketch::MisraGries { slots: 8 };
    check_stopped("sync mg8", |inputs| lp::run_sketched(&g.csr, &Classic, &sync, inputs, mg8));
    if let Some(gpu) = common::gpu_or_skip("an_observer_error_stops_every_engine (its GPU part)") {
        check_stopped("gpu", |inputs| {
            run_gpu(&gpu, &g.csr, &Classic, &sync, inputs, MflStrategy::Glp, VertexOrder::Auto).map(|r| r.0)
        });
    }
}

#[test]
fn gpu_engine_reports_every_iteration() {
    let Some(gpu) = common::gpu_or_skip("gpu_engine_reports_every_iteration") else { return };
    let g = graph();
    for config in [LpConfig::synchronous(20), LpConfig { ties: TieBreak::Hashed, ..LpConfig::asynchronous() }] {
        check_observed(&format!("gpu {:?}", config.schedule), |inputs| {
            run_gpu(&gpu, &g.csr, &Classic, &config, inputs, MflStrategy::Glp, VertexOrder::Auto).unwrap().0
        });
    }
}
