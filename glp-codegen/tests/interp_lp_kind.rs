//! The label propagation kind's hooks in the IR interpreter, with a fake view: a variant
//! written once, compiled by rustc and by glp-codegen (with the kind's default hooks), gives
//! the same values and the same view effects.

#[macro_use]
mod common;

use common::*;
use std::sync::atomic::{AtomicU32, Ordering};

type VertexId = u32;
type Label = u32;
type EdgeId = u64;

/// The view: label(u) = u * 7 % 13, degree(v) = v % 5, ...
pub struct View<'a> {
    counts: &'a AtomicU32,
}

impl View<'_> {
    fn label(&self, u: u32) -> u32 {
        u.wrapping_mul(7) % 13
    }
    fn next_label(&self, u: u32) -> u32 {
        u.wrapping_mul(3) % 11
    }
    fn degree(&self, v: u32) -> u64 {
        (v % 5) as u64
    }
    fn num_vertices(&self) -> u32 {
        1000
    }
    fn global_count(&self, l: u32) -> u32 {
        l.wrapping_mul(2)
    }
    fn count_label(&self, l: u32) {
        self.counts.fetch_add(l, Ordering::Relaxed);
    }
    fn edge_weight(&self, e: u64) -> f64 {
        (e % 4) as f64 * 0.25
    }
}

impl Host for View<'_> {
    fn intrinsic(&self, id: u32, args: &[Value]) -> Result<Value, RuntimeError> {
        let spec = &glp_codegen::kinds::lp::LP_KIND.intrinsics[id as usize];
        let u = |i: usize| args[i].as_u32().unwrap();
        Ok(match spec.name {
            "label" => self.label(u(0)).into(),
            "next_label" => self.next_label(u(0)).into(),
            "degree" => self.degree(u(0)).into(),
            "num_vertices" => self.num_vertices().into(),
            "global_count" => self.global_count(u(0)).into(),
            "count_label" => {
                self.count_label(u(0));
                Value::Unit
            }
            "edge_weight" => self.edge_weight(args[0].as_u64().unwrap()).into(),
            other => return Err(RuntimeError::host(format!("{other} is not faked"))),
        })
    }
}

two_compilers! {
    /// The hooks with the kind's defaults (the bodies of `LP_KIND.default_hooks`).
    trait LpVariant {
        fn initial_label(&self, view: &View<'_>, v: VertexId) -> Label {
            v
        }
        fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
            view.next_label(v)
        }
        fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {
            (view.label(u), 1.0)
        }
        fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
            freq
        }
        fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {
            best
        }
    }
}

macro_rules! lp_variant {
    ($item:item) => {
        two_compilers! { $item }
        const LP_SOURCE: &str = stringify!($item);
    };
}

pub struct Weighted {
    boost: f64,
    gamma: f64,
    cap: u32,
}

lp_variant! {
    impl LpVariant for Weighted {
        fn pick_label(&self, view: &View<'_>, v: VertexId) -> Label {
            let l = view.next_label(v);
            view.count_label(l);
            if l > self.cap { self.cap } else { l }
        }
        fn load_neighbor(&self, view: &View<'_>, v: VertexId, u: VertexId, edge: EdgeId) -> (Label, f64) {
            let d = view.degree(u);
            (view.label(u), (1.0 / (1 + d) as f64) * self.boost * view.edge_weight(edge))
        }
        fn label_score(&self, view: &View<'_>, v: VertexId, label: Label, freq: f64) -> f64 {
            freq - self.gamma * (view.global_count(label) as f64).ln()
        }
    }
}

#[test]
fn lp_hooks_match_rustc() {
    use glp_codegen::kinds::lp::{INITIAL_LABEL, LABEL_SCORE, LOAD_NEIGHBOR, PICK_LABEL, UPDATE_VERTEX};
    let lp = glp_codegen::kinds::lp::compile_impl(&syn::parse_str(LP_SOURCE).unwrap(), None).unwrap();
    let interp = Interpreter::new(&lp.program);
    for (boost, gamma, cap) in [(1.0, 0.0, 5), (2.5, 0.5, 100), (0.0, -1.0, 0)] {
        let native = Weighted { boost, gamma, cap };
        let params: Vec<ScalarValue> = lp
            .program
            .params
            .iter()
            .map(|p| match p.name.as_str() {
                "boost" => boost.into(),
                "gamma" => gamma.into(),
                "cap" => cap.into(),
                other => panic!("{other}"),
            })
            .collect();
        for v in [0u32, 1, 2, 7, 12, 999, u32::MAX] {
            let (a, b) = (AtomicU32::new(0), AtomicU32::new(0));
            let (nv, iv) = (View { counts: &a }, View { counts: &b });
            let call =
                |hook: usize, args: &[Value]| interp.call(&iv, interp.hook(hook).unwrap(), &params, args).unwrap();
            let ctx = Value::Context;
            assert_eq!(call(INITIAL_LABEL, &[ctx, v.into()]), native.initial_label(&nv, v).into());
            assert_eq!(call(PICK_LABEL, &[ctx, v.into()]), native.pick_label(&nv, v).into());
            assert_eq!(a.load(Ordering::Relaxed), b.load(Ordering::Relaxed), "count_label ran the same");
            for (u, e) in [(0u32, 0u64), (3, 1), (v, 2), (u32::MAX, u64::MAX)] {
                let want = native.load_neighbor(&nv, v, u, e).into_value();
                let got = call(LOAD_NEIGHBOR, &[ctx, v.into(), u.into(), e.into()]);
                assert!(same(&want, &got), "load_neighbor({v}, {u}, {e}): {want:?} vs {got:?}");
            }
            for (label, freq) in [(0u32, 0.0), (5, 2.5), (12, f64::INFINITY), (u32::MAX, -1.0)] {
                let want = Value::from(native.label_score(&nv, v, label, freq));
                let got = call(LABEL_SCORE, &[ctx, v.into(), label.into(), freq.into()]);
                assert!(same(&want, &got), "label_score({v}, {label}, {freq}): {want:?} vs {got:?}");
                let want = Value::from(native.update_vertex(&nv, v, label, freq));
                assert_eq!(call(UPDATE_VERTEX, &[ctx, v.into(), label.into(), freq.into()]), want);
            }
        }
    }
}
