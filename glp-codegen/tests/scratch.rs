#[test]
fn scratch() {
    let src = r#"
impl LpVariant for Llp {
    fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
        let l = view.next_label(v);
        view.count_label(l);
        l
    }
    fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
        let total = view.global_count(label) as f64;
        let mut x = 0;
        for i in 0..3 { x += i; }
        let y = if x > 2 { 1.5 } else { match x { 0 => 0.5, 1 | 2 => 1.0, _ => 2.0 } };
        freq - self.gamma * (total - freq) + y * 0.0
    }
}
"#;
    let item: syn::ItemImpl = syn::parse_str(src).unwrap();
    match glp_codegen::lp::compile_impl(&item, None) {
        Ok(p) => println!("{}\n{:?}", p.device_functions(), p.features),
        Err(d) => panic!("{}", d.render("x.rs", src)),
    }
}
