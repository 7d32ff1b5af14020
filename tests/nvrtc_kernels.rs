//! Every built-in variant's hooks, fused into the reference kernels, compile with NVRTC for
//! sm_80 and sm_90 (no GPU needed). Without NVRTC the tests skip with a message, unless
//! `GLP_REQUIRE_NVRTC=1` (set by CI) makes that a failure.

use glp::device::nvrtc;

fn nvrtc_or_skip(test: &str) -> bool {
    let available = nvrtc::available();
    if !available {
        let why = "NVRTC cannot be loaded (install it, or add its lib folder to LD_LIBRARY_PATH)";
        glp_testkit::switch::skip(test, glp_testkit::switch::Need::Nvrtc, why);
    }
    available
}

/// The reference kernels and the engine's MFL kernels (with and without the unit-weight
/// path; G-Sort's, the sketch strategies' and the giant class's kernels included) compile, and the PTX has every entry point for the right
/// target.
fn compiles_for_ampere_and_hopper(name: &str, device_functions: &str) {
    let reference =
        glp_codegen::kinds::lp::reference_kernel_source(device_functions).expect("the template's slots are filled");
    let mut mfl_kernels: Vec<String> =
        ["glp_lp_initial", "glp_lp_pick", "glp_lp_mid", "glp_lp_high", "glp_lp_global"].map(String::from).to_vec();
    mfl_kernels.extend(glp_codegen::lp_kernels::mfl::LOW_TILES.iter().map(|t| format!("glp_lp_low_{t}")));
    // The G-Sort baseline's kernels are in the same module.
    mfl_kernels.extend(glp_codegen::lp_kernels::sort::SORT_KERNEL_NAMES.map(String::from));
    // So are the sketch strategies' (every Misra-Gries slot count, Boyer-Moore) and nu-LPA's
    // hash-table kernel.
    mfl_kernels.extend(glp_codegen::lp_kernels::sketch::kernel_names());
    // And the giant class's (many blocks per vertex), the hubs' and the high class's exact path.
    mfl_kernels.extend(glp_codegen::lp_kernels::giants::GIANT_KERNEL_NAMES.map(String::from));
    mfl_kernels.extend(["glp_lp_hub", "glp_lp_high_exact"].map(String::from));
    mfl_kernels.extend(glp_codegen::lp_kernels::mfl::DISTINCT_KERNEL_NAMES.map(String::from));
    let mut sources =
        vec![(reference, vec!["glp_lp_initial".to_string(), "glp_lp_pick".into(), "glp_lp_update".into()])];
    use glp_codegen::lp_kernels::mfl::{mfl_kernel_source, MflOptions, TieOrder};
    for (unit_weights, ties, default_load_neighbor) in [
        (false, TieOrder::SmallestLabel, false),
        (true, TieOrder::SmallestLabel, true),
        (false, TieOrder::Hashed, false),
    ] {
        let options = MflOptions { unit_weights, ties, default_load_neighbor };
        let source = mfl_kernel_source(device_functions, options).expect("slots filled");
        sources.push((source, mfl_kernels.clone()));
    }
    for (source, kernels) in &sources {
        for arch in ["sm_80", "sm_90"] {
            let ptx = nvrtc::compile_ptx(name, source, arch).unwrap_or_else(|e| panic!("{e}"));
            for kernel in kernels {
                assert!(ptx.contains(&format!(".entry {kernel}(")), "{name} for {arch} lacks kernel {kernel}");
            }
            assert!(ptx.contains(&format!(".target {arch}")), "{name}: PTX for the wrong target");
        }
    }
}

#[test]
fn every_construct_of_the_subset_compiles() {
    if !nvrtc_or_skip("every_construct_of_the_subset_compiles") {
        return;
    }
    let source = include_str!("../glp-codegen/tests/programs/kitchen_sink.rs");
    let program = glp_codegen::kinds::lp::compile_source(source)
        .unwrap_or_else(|e| panic!("{}", e.render("kitchen_sink.rs", source)));
    compiles_for_ampere_and_hopper("kitchen_sink.cu", &program.device_functions());
}

#[test]
fn nvrtc_errors_carry_the_log_and_the_numbered_source() {
    if !nvrtc_or_skip("nvrtc_errors_carry_the_log_and_the_numbered_source") {
        return;
    }
    let err =
        nvrtc::compile_ptx("broken.cu", "__global__ void k() {\n  undefined_symbol();\n}\n", "sm_90").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("broken.cu") && text.contains("undefined_symbol"), "{text}");
    assert!(text.contains("2 |   undefined_symbol();"), "numbered source missing: {text}");
}

#[test]
fn every_built_in_variant_compiles() {
    if !nvrtc_or_skip("every_built_in_variant_compiles") {
        return;
    }
    for built_in in glp::variants::BUILT_IN {
        let v = (built_in.variant)();
        compiles_for_ampere_and_hopper(&format!("{}.cu", v.name()), v.device_functions());
    }
}

/// Every built-in sampler's hooks, fused into the sampler reference kernels and into the
/// sampling engines' kernels with the sample view, compile for sm_80 and sm_90 with every
/// entry point (the same code path as `glp sample --backend gpu`, for a sampler file too).
#[test]
fn every_built_in_sampler_compiles() {
    if !nvrtc_or_skip("every_built_in_sampler_compiles") {
        return;
    }
    use glp_codegen::kinds::sample::engine::{engine_kernel_source, ENGINE_KERNEL_NAMES};
    use glp_codegen::kinds::sample::layout::ViewTraits;
    use glp_codegen::kinds::sample::{reference_kernel_source, REFERENCE_KERNEL_NAMES};
    // A module for an unweighted graph in device memory (the common case, its checks folded
    // away) is compiled for sm_90 only: the code that differs is the view's, arch-neutral.
    let bare = ViewTraits { weighted: false, host_edges: false };
    for built_in in glp::samplers::BUILT_IN {
        let sampler = (built_in.sampler)();
        let units = [
            (
                "reference",
                reference_kernel_source(sampler.device_functions()),
                &REFERENCE_KERNEL_NAMES[..],
                &["sm_80", "sm_90"][..],
            ),
            (
                "engines",
                engine_kernel_source(sampler.device_functions(), ViewTraits::ANY),
                &ENGINE_KERNEL_NAMES[..],
                &["sm_80", "sm_90"][..],
            ),
            (
                "engines_bare",
                engine_kernel_source(sampler.device_functions(), bare),
                &ENGINE_KERNEL_NAMES[..],
                &["sm_90"][..],
            ),
        ];
        for (what, source, kernels, archs) in units {
            let source = source.expect("the template's slots are filled");
            for &arch in archs {
                let name = format!("{}_{what}.cu", built_in.name);
                let ptx = nvrtc::compile_ptx(&name, &source, arch).unwrap_or_else(|e| panic!("{e}"));
                for kernel in kernels {
                    assert!(ptx.contains(&format!(".entry {kernel}(")), "{name} for {arch} lacks kernel {kernel}");
                }
                assert!(ptx.contains(&format!(".target {arch}")), "{name}: PTX for the wrong target");
            }
        }
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

/// Every built-in edge program's hooks, with the view, the combine's atomics for every
/// message type and the edge-centric engine's kernels, compile for sm_80 and sm_90; so does a
/// program with a tuple value and a loop (its step budget and fault record).
#[test]
fn every_built_in_edge_programs_hooks_compile() {
    if !nvrtc_or_skip("every_built_in_edge_programs_hooks_compile") {
        return;
    }
    let tuple_and_loop = r#"
struct Hops { cap: u32 }
impl EdgeProgram for Hops {
    type Value = (u32, bool);
    type Message = u32;
    fn combine(&self) -> u32 { MIN }
    fn init(&self, view: &EdgeView<'_>, v: VertexId) -> (u32, bool) {
        if v == view.source() { (0, true) } else { (u32::MAX, false) }
    }
    fn edge(&self, view: &EdgeView<'_>, from: VertexId, to: VertexId, value: (u32, bool), weight: f64) -> (bool, u32) {
        let mut hops = value.0;
        while hops < self.cap && (hops as u64) < view.out_degree(from) {
            hops += 1;
        }
        (value.1, hops)
    }
    fn apply(&self, view: &EdgeView<'_>, v: VertexId, old: (u32, bool), combined: u32) -> (u32, bool) {
        if combined < old.0 { (combined, true) } else { old }
    }
}
"#;
    let file = glp_codegen::kinds::edge::compile_source(tuple_and_loop)
        .unwrap_or_else(|e| panic!("{}", e.render("hops.rs", tuple_and_loop)));
    let mut programs: Vec<(String, String)> =
        glp::programs::BUILT_IN.iter().map(|b| (b.name.to_string(), b.program.visit(DeviceFunctions))).collect();
    programs.push(("hops".to_string(), file.device_functions()));
    for (name, device_functions) in programs {
        let source = glp_codegen::kinds::edge::engine_source(&device_functions);
        for arch in ["sm_80", "sm_90"] {
            let ptx = nvrtc::compile_ptx(&format!("edge_{name}.cu"), &source, arch).unwrap_or_else(|e| panic!("{e}"));
            assert!(ptx.contains(&format!(".target {arch}")), "{name}: PTX for the wrong target");
            for kernel in glp_codegen::kinds::edge::kernels::ALL {
                assert!(ptx.contains(&format!(".entry {kernel}(")), "{name}: no kernel {kernel} for {arch}");
            }
        }
    }
}
