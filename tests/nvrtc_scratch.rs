#[test]
fn scratch_nvrtc() {
    let src = include_str!("../glp-codegen/tests/scratch_variant.rs.txt");
    let p = glp_codegen::lp::compile_source(src).map_err(|e| e.render("x", src)).unwrap();
    let cu = p.reference_kernel_source().unwrap();
    for arch in ["sm_80", "sm_90"] {
        match glp::device::nvrtc::compile_ptx("scratch.cu", &cu, arch) {
            Ok(ptx) => println!("{arch}: {} bytes of PTX", ptx.len()),
            Err(e) => panic!("{e}"),
        }
    }
}
