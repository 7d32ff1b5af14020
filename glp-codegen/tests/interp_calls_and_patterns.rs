//! Differential tests of the IR interpreter's calls, tuples, patterns, constants and
//! evaluation order (operands, arguments and compound assignments read left to right), each
//! program compiled both by rustc and by glp-codegen (then interpreted) and compared over
//! many inputs (`common::harness`).

#[macro_use]
mod common;

use common::*;

mod calls_and_tuples {
    use super::*;
    programs! {
        fn triple(&self, c: &Ctx, a: i32, b: f64) -> (f64, u32, bool) {
            (b * a as f64 + self.x, a as u32 + c.label(a as u32), b > 0.0 || a < self.k)
        }
        fn destructure(&self, c: &Ctx, a: i32, b: f64) -> (f64, i32, bool) {
            let (x, _, z) = self.triple(c, a, b);
            let t = (x, a);
            let (p, q) = t;
            (p + t.0, q + self.square(c, q), z)
        }
        fn square(&self, c: &Ctx, a: i32) -> i32 {
            if a > 46340 || a < -46340 {
                return 0;
            }
            a * a
        }
        fn fields(&self, c: &Ctx, a: u32, b: u32) -> u32 {
            let pair = (a, b);
            let quad = (pair.1, pair.0, a ^ b, (a as u64 + 1));
            quad.0 - quad.1 + quad.2 + quad.3 as u32 + self.triple(c, a as i32, 0.5).1
        }
        fn nested_calls(&self, c: &Ctx, a: i32) -> i32 {
            self.square(c, self.square(c, a % 100) % 1000) + self.early(c, a)
        }
        fn early(&self, c: &Ctx, a: i32) -> i32 {
            for i in 0..100 {
                if i * 7 > a {
                    return i;
                }
            }
            -1
        }
        fn context_methods(&self, c: &Ctx, a: u32, b: i64) -> (u32, u32, i64) {
            (c.label(a), c.label(a + 1) + c.label(a * 3), c.check(b))
        }
        fn short_circuit(&self, c: &Ctx, a: i32, b: i32) -> (bool, u32) {
            let r = c.probe(a) && c.probe(b) || c.probe(a ^ b);
            (r, c.calls())
        }
        fn short_circuit_blocks(&self, c: &Ctx, a: i32, b: i32) -> (bool, bool, u32) {
            let x = a != 0 && b / a > 1;
            let y = a == 0 || { let q = b % a; c.probe(q) };
            (x, y, c.calls())
        }
        fn tuple_compare(&self, c: &Ctx, a: i32, b: f64) -> (bool, bool, bool, bool) {
            let p = (a, b);
            let q = (a % 3, 0.5);
            (p < q, p <= q, p == q, p > q)
        }
    }
}

mod patterns_and_constants {
    use super::*;
    programs! {
        fn negative_patterns(&self, c: &Ctx, a: i32) -> i32 {
            match a {
                -1 => 1,
                -7 | -100 => 2,
                -2147483648 => 3,
                i32::MAX => 4,
                -99..=-8 => 5,
                ..=-1000 => 6,
                -6..0 => 7,
                1000.. => 8,
                _ => 0,
            }
        }
        fn negative_patterns_i64(&self, c: &Ctx, a: i64) -> i64 {
            match a {
                i64::MIN => 1,
                -9223372036854775807 => 2,
                -64..=-1 => 3,
                i64::MAX | 4294967296 => 4,
                -2147483648i64 => 5,
                _ => a % 7,
            }
        }
        fn unsigned_extremes(&self, c: &Ctx, a: u64, b: u32) -> (u32, u32) {
            let x = match a {
                u64::MAX => 1,
                u64::MIN => 2,
                18446744073709550591..=18446744073709551614 => 3,
                _ => 4,
            };
            let y = match b {
                u32::MAX => 1,
                0 => 2,
                4294967286.. => 3,
                ..=7 => 5,
                _ => 4,
            };
            (x, y)
        }
        fn signed_extremes(&self, c: &Ctx, a: i32, b: i64) -> (i32, i64, bool, bool) {
            (i32::MIN + (a & 1), i64::MIN + b, a == i32::MIN, b > i64::MIN)
        }
        fn min_literals(&self, c: &Ctx, a: i32) -> (i32, i64, i32, i64) {
            let x: i64 = -9223372036854775808;
            (-2147483648 + a, x ^ a as i64, -2147483648i32 ^ a, -(9223372036854775807) - 1)
        }
        fn pattern_on_cast(&self, c: &Ctx, a: i64) -> i32 {
            match (a % 5) as i32 {
                -4..=-1 => -1,
                0 => 0,
                _ => 1,
            }
        }
    }
}

mod tuple_inference {
    use super::*;
    programs! {
        fn tuple_literals(&self, c: &Ctx, a: u32, b: i64) -> (u32, u64, bool) {
            let p = (a, b);
            let q: (u32, i64) = (7, -3);
            let r = if a > 5 { (a, 1) } else { (2, 3) };
            let s = match a % 3 {
                0 => (a, b),
                1 => (1, 2),
                _ => (a / 2, -b),
            };
            if a == 1 {
                return (4, 5, false);
            }
            (q.0 + r.0 + s.0, r.1 as u64 + s.1 as u64, p < (3, -1) || p == (a, 0) || q > (6, 0))
        }
        fn tuple_compare_literals(&self, c: &Ctx, a: f64, b: i64) -> (bool, bool, bool, bool) {
            let p = (a, b);
            (p < (1.5, 3), p <= (0.0, -1), p == (a, 7), p >= (2.5, 0))
        }
    }
}

mod evaluation_order {
    use super::*;
    programs! {
        fn block_after_read(&self, c: &Ctx, a: i32) -> (i32, i32, i32) {
            let mut x = a % 1000;
            let s = x + { x = 5; x };
            let mut y = a % 100;
            let t = y * 3 - { y += 1; y } + y;
            let mut z = a;
            let u = (z, { z -= 1; z }, z).1 + z;
            (s, t, u)
        }
        fn call_arguments(&self, c: &Ctx, a: i32) -> (i32, bool) {
            let mut z = a % 1000;
            let u = self.combine(c, z, { z = z / 2; z });
            let mut w = a;
            let v = (w, { w -= 1; w }) == (a, a - 1);
            (u, v)
        }
        fn combine(&self, c: &Ctx, a: i32, b: i32) -> i32 {
            a * 2 - b
        }
        fn range_bounds(&self, c: &Ctx, a: u32) -> u32 {
            let mut b = a % 10;
            let mut s = 0;
            for i in b..({ b += 5; b }) {
                s += i * 100 + b;
            }
            s
        }
        fn calls_in_order(&self, c: &Ctx, a: i32) -> (u32, u32, bool) {
            let first = c.calls() + { c.probe(a); c.calls() } * 10;
            let second = c.label(c.calls()) + { c.probe(a); c.label(c.calls()) };
            (first, second, c.probe(a) & (c.calls() > 2))
        }
        fn compound_reads_after(&self, c: &Ctx, a: i32) -> i32 {
            let mut x = a % 100;
            x += { x = 7; 1 };
            let mut y = a % 50;
            y *= y + { y -= 1; y };
            x + y
        }
    }
}

/// Every program of this file, emitted as CUDA, compiles with NVRTC without a warning.
/// Skips without NVRTC unless `GLP_REQUIRE_NVRTC=1`.
#[test]
fn every_program_compiles_with_nvrtc() {
    let sources = [
        ("calls_and_tuples", calls_and_tuples::SOURCE),
        ("patterns_and_constants", patterns_and_constants::SOURCE),
        ("tuple_inference", tuple_inference::SOURCE),
        ("evaluation_order", evaluation_order::SOURCE),
    ];
    common::nvrtc::assert_programs_compile("every_program_compiles_with_nvrtc", &sources);
}
