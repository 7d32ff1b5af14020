//! Tier 1 of the test plan: insta snapshots of the CUDA generated for every built-in label
//! propagation variant and sampler, both the hooks alone (`device_functions`) and the whole
//! translation unit NVRTC compiles (the kind's reference kernels with prelude, view and hooks
//! fused in). The emitter is deterministic, so any change of the generated code shows up here as a
//! reviewable diff.
//!
//! After a deliberate change of the emitter or a template, review and accept with
//! `INSTA_UPDATE=always cargo test --release --test cuda_snapshots` (or `cargo insta review`)
//! and read the diff of `tests/snapshots/` before committing it. CI sets `INSTA_UPDATE=no`,
//! so a stale or missing snapshot fails the run instead of being written.

use glp::prelude::*;

/// The built-in variants, named as their snapshots are.
fn variants() -> impl Iterator<Item = (&'static str, Box<dyn CompiledVariant>)> {
    glp::variants::BUILT_IN.iter().map(|b| (b.name, (b.variant)()))
}

#[test]
fn device_functions_of_every_built_in_variant() {
    for (name, variant) in variants() {
        insta::assert_snapshot!(format!("{name}_device_functions"), variant.device_functions());
    }
}

#[test]
fn reference_kernel_source_of_every_built_in_variant() {
    for (name, variant) in variants() {
        let source = glp_codegen::kinds::lp::reference_kernel_source(variant.device_functions())
            .unwrap_or_else(|e| panic!("{name}: the reference kernel template's slots: {e}"));
        insta::assert_snapshot!(format!("{name}_reference_kernel"), source);
    }
}

/// The generated source does not depend on parameter values (they are kernel arguments),
/// so one snapshot covers every `gamma` / `threshold`.
#[test]
fn parameter_values_do_not_change_the_generated_code() {
    assert_eq!(Llp { gamma: 0.0 }.device_functions(), Llp { gamma: 512.0 }.device_functions());
    assert_eq!(Slp { threshold: 0.0 }.device_functions(), Slp { threshold: 0.5 }.device_functions());
}

#[test]
fn device_functions_of_every_built_in_sampler() {
    for built_in in glp::samplers::BUILT_IN {
        let sampler = (built_in.sampler)();
        insta::assert_snapshot!(format!("sampler_{}_device_functions", built_in.name), sampler.device_functions());
    }
}

#[test]
fn reference_kernel_source_of_every_built_in_sampler() {
    for built_in in glp::samplers::BUILT_IN {
        let sampler = (built_in.sampler)();
        let source = glp_codegen::kinds::sample::reference_kernel_source(sampler.device_functions())
            .unwrap_or_else(|e| panic!("{}: the sampler reference kernel template's slots: {e}", built_in.name));
        insta::assert_snapshot!(format!("sampler_{}_reference_kernel", built_in.name), source);
    }
}

/// An edge program's device functions, by visiting it.
struct DeviceFunctions;

impl glp::programs::ProgramVisitor for DeviceFunctions {
    type Output = String;
    fn visit<P: glp::edge::CompiledEdgeProgram>(self, program: &P) -> String {
        program.device_functions().to_string()
    }
}

#[test]
fn device_functions_of_every_built_in_edge_program() {
    for built_in in glp::programs::BUILT_IN {
        let cuda = built_in.program.visit(DeviceFunctions);
        insta::assert_snapshot!(format!("edge_{}_device_functions", built_in.name), cuda);
    }
}
