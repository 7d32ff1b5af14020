// Every construct of the accepted subset and every view method, for the NVRTC and
// snapshot tests (a program no user would write).
pub struct Llp { pub gamma: f64, pub k: u32 }
impl LpVariant for Llp {
    fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
        let l = view.next_label(v);
        view.count_label(l);
        let remembered = view.memory_pick(v, view.random_f64(v, 0));
        if remembered != UNLABELLED && view.memory_len(v) > 2 { remembered } else { l }
    }
    fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {
        let r = view.random_f64(v, 3) + (view.random_u32(u, 1) >> 40) as f64;
        let mut w = 0u32;
        while w < 2 { w += 1; }
        (view.label(u), view.edge_weight(edge) * view.vertex_weight(u) + r * 0.0 + (w - 2) as f64)
    }
    fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
        let total = view.global_count(label) as f64;
        let mut x = 0i64;
        for i in 0..=self.k { x += i as i64; if x > 100 { break; } }
        let (lo, _hi) = (freq.min(1.0), freq.max(-1.0));
        let y = if x > 2 { 1.5f64.powi(-2).sqrt() + lo * 0.0 } else { match x { 0 => 0.5, 1 | 2 => 1.0, _ => 2.0 } };
        let z = (freq as i32).abs().count_ones() as f64 + (-3.7f64 as u32) as f64 + (x.leading_zeros() + x.trailing_zeros()) as f64;
        let m = match freq as i32 { -1 => 1.0, i32::MIN => 2.0, -9..=-2 => 3.0, ..=-10 => 4.0, 100.. => 5.0, _ => 0.0 };
        let d; if freq > 0.5 { d = 1.0 } else { d = m }
        let (p, q); p = x; q = i64::MIN;
        let mut j = 0u32;
        let lv = loop { j += 1; match j { 3 => break j as f64, 9 => continue, _ => {} } };
        let mut o = x; let ord = o + { o += 1; o } + p + (q == i64::MIN) as i64;
        let before = (lo, x) < (1.5, 3) || (lo, x) == (_hi, ord);
        let _ = ();
        let e = (m + d + lv + ord as f64 + before as i32 as f64) * 0.0;
        freq - self.gamma * (total - freq) + (y + z) * 0.0 + (self.initial_label(view, v) as f64) * 0.0 + self.load_neighbor(view, v, v, 0).1 * 0.0 + e
    }
    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {
        view.memory_add(v, best, 1.0);
        view.memory_prune(v, 0.1);
        let first = view.memory_label(v, 0);
        let s = if view.memory_weight(v, 0) > 100.0 { first } else { view.seed_label(v) };
        if s != UNLABELLED && view.degree(v) > 0u64 && (score > 0.0 || (view.iteration() & 1) == 0) { s } else { best }
    }
}

