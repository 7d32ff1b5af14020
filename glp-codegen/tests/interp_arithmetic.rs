//! Differential tests of the IR interpreter's arithmetic: integer and float operators,
//! wrapping, division and shifts, casts and math functions, each program compiled both by
//! rustc (the reference) and by glp-codegen (then interpreted) and compared over many
//! inputs, edge values included (`common::harness`).
//!
//! The native side runs with release arithmetic (wrapping; the workspace turns overflow
//! checks off for this package's tests); a native panic (division by zero, `MIN / -1`)
//! must be a `RuntimeError` of the interpreter.

#[macro_use]
mod common;

use common::*;

mod integer_arithmetic {
    use super::*;
    programs! {
        fn i32_ops(&self, c: &Ctx, a: i32, b: i32) -> (i32, i32, i32, i32) { (a + b, a - b, a * b, -a) }
        fn i64_ops(&self, c: &Ctx, a: i64, b: i64) -> (i64, i64, i64, i64) { (a + b, a - b, a * b, -a + self.k as i64) }
        fn u32_ops(&self, c: &Ctx, a: u32, b: u32) -> (u32, u32, u32, u32) { (a + b, a - b, a * b, a * 3 + 7) }
        fn u64_ops(&self, c: &Ctx, a: u64, b: u64) -> (u64, u64, u64, u64) { (a + b, a - b, a * b, a + self.w) }
        fn i32_div(&self, c: &Ctx, a: i32, b: i32) -> (i32, i32) { (a / b, a % b) }
        fn i64_div(&self, c: &Ctx, a: i64, b: i64) -> (i64, i64) { (a / b, a % b) }
        fn u32_div(&self, c: &Ctx, a: u32, b: u32) -> (u32, u32) { (a / b, a % b) }
        fn u64_div(&self, c: &Ctx, a: u64, b: u64) -> (u64, u64) { (a / b, a % b) }
        fn i32_bits(&self, c: &Ctx, a: i32, b: i32) -> (i32, i32, i32, i32) { (a & b, a | b, a ^ b, !a) }
        fn u64_bits(&self, c: &Ctx, a: u64, b: u64) -> (u64, u64, u64, u64) { (a & b, a | b, a ^ b, !a) }
        fn i32_shifts(&self, c: &Ctx, a: i32, b: u32) -> (i32, i32) { (a << b, a >> b) }
        fn u32_shifts(&self, c: &Ctx, a: u32, b: i32) -> (u32, u32) { (a << b, a >> b) }
        fn i64_shifts(&self, c: &Ctx, a: i64, b: u64) -> (i64, i64, i64) { (a << b, a >> b, a >> 70) }
        fn u64_shifts(&self, c: &Ctx, a: u64, b: i64) -> (u64, u64, u64) { (a << b, a >> b, 1u64 << 64 + b) }
        fn compare_i32(&self, c: &Ctx, a: i32, b: i32) -> (bool, bool, bool, bool) { (a < b, a <= b, a == b, a != b && a >= b || a > b) }
        fn compare_u64(&self, c: &Ctx, a: u64, b: u64) -> (bool, bool, bool, bool) { (a < b, a <= b, a > b, a >= b) }
        fn literals(&self, c: &Ctx, a: i32) -> (i32, i64, u32, u64) {
            let m: i32 = -2147483648;
            let n: i64 = -9223372036854775808;
            (m + a, n + a as i64 + i64::MAX, u32::MAX + a as u32, u64::MAX - 18446744073709551615 + 0xff)
        }
        fn compound(&self, c: &Ctx, a: i32, b: i32) -> i32 {
            let mut x = a;
            x += b;
            x *= 3;
            x -= a;
            x <<= b;
            x >>= 1;
            x ^= b;
            x |= 5;
            x &= !b;
            x += self.k;
            x %= 1000;
            x
        }
        fn compound_u64(&self, c: &Ctx, a: u64, b: u32) -> u64 {
            let mut x = a;
            x >>= b;
            x <<= b % 7;
            x -= 1;
            x /= 3;
            x += self.w;
            x
        }
        fn wrapping(&self, c: &Ctx, a: u32, b: u32) -> (u32, u32, u32, i64) {
            (a.wrapping_add(b), a.wrapping_sub(b), a.wrapping_mul(b), (a as i64).wrapping_mul(b as i64 * 1000003))
        }
    }
}

mod floats_and_bools {
    use super::*;
    programs! {
        fn f64_ops(&self, c: &Ctx, a: f64, b: f64) -> (f64, f64, f64, f64) { (a + b, a - b, a * b, a / b) }
        fn f32_ops(&self, c: &Ctx, a: f32, b: f32) -> (f32, f32, f32, f32) { (a + b, a - b, a * b, a / b) }
        fn f64_rem(&self, c: &Ctx, a: f64, b: f64) -> (f64, f64) { (a % b, -a % self.x) }
        fn f32_rem(&self, c: &Ctx, a: f32, b: f32) -> f32 { a % b }
        fn f64_compare(&self, c: &Ctx, a: f64, b: f64) -> (bool, bool, bool, bool) { (a < b, a <= b, a == b, a != b) }
        fn f32_compare(&self, c: &Ctx, a: f32, b: f32) -> (bool, bool, bool, bool) { (a > b, a >= b, a == b, a != b) }
        fn bool_ops(&self, c: &Ctx, a: bool, b: bool) -> (bool, bool, bool, bool) { (a & b, a | b, a ^ b, !a) }
        fn bool_compare(&self, c: &Ctx, a: bool, b: bool) -> (bool, bool, bool, bool) { (a < b, a <= b, a == b, a > b) }
        fn float_literals(&self, c: &Ctx, a: f64) -> (f64, f32, f64, f32) {
            (a * 0.1 + 1e-7, a as f32 * 0.1 + 3.5, f64::INFINITY - a, f32::MAX * 2.0 + f32::EPSILON)
        }
    }
}

mod casts {
    use super::*;
    programs! {
        fn from_f64(&self, c: &Ctx, a: f64) -> (i32, u32, i64, u64) { (a as i32, a as u32, a as i64, a as u64) }
        fn from_f64_to_float(&self, c: &Ctx, a: f64) -> (f32, f64) { (a as f32, a as f32 as f64) }
        fn from_f32(&self, c: &Ctx, a: f32) -> (i32, u32, i64, u64) { (a as i32, a as u32, a as i64, a as u64) }
        fn from_f32_to_f64(&self, c: &Ctx, a: f32) -> f64 { a as f64 }
        fn from_i32(&self, c: &Ctx, a: i32) -> (u32, i64, u64, f32) { (a as u32, a as i64, a as u64, a as f32) }
        fn from_i32_f64(&self, c: &Ctx, a: i32) -> (f64, i32) { (a as f64, a as u32 as i32) }
        fn from_u64(&self, c: &Ctx, a: u64) -> (i32, u32, i64, f32) { (a as i32, a as u32, a as i64, a as f32) }
        fn from_u64_f64(&self, c: &Ctx, a: u64) -> f64 { a as f64 }
        fn from_i64(&self, c: &Ctx, a: i64) -> (i32, u32, u64, f32) { (a as i32, a as u32, a as u64, a as f32) }
        fn from_i64_f64(&self, c: &Ctx, a: i64) -> f64 { a as f64 }
        fn from_u32(&self, c: &Ctx, a: u32) -> (i32, i64, f32, f64) { (a as i32, a as i64, a as f32, a as f64) }
        fn from_bool(&self, c: &Ctx, a: bool) -> (i32, u64, bool) { (a as i32, a as u64 + 1, a as bool) }
    }
}

mod math {
    use super::*;
    programs! {
        fn f64_unary(&self, c: &Ctx, a: f64) -> (f64, f64, f64, f64) { (a.abs(), a.sqrt(), a.floor(), a.ceil()) }
        fn f64_unary2(&self, c: &Ctx, a: f64) -> (f64, f64, f64, f64) { (a.round(), a.exp(), a.ln(), a.log2()) }
        fn f32_unary(&self, c: &Ctx, a: f32) -> (f32, f32, f32, f32) { (a.abs(), a.sqrt(), a.floor(), a.ceil()) }
        fn f32_unary2(&self, c: &Ctx, a: f32) -> (f32, f32, f32, f32) { (a.round(), a.exp(), a.ln(), a.log2()) }
        fn f64_binary(&self, c: &Ctx, a: f64, b: f64) -> (f64, f64, f64) { (a.min(b), a.max(b), a.powf(b)) }
        fn f32_binary(&self, c: &Ctx, a: f32, b: f32) -> (f32, f32, f32) { (a.min(b), a.max(b), a.powf(b)) }
        fn f64_powi(&self, c: &Ctx, a: f64, n: i32) -> (f64, f64) { (a.powi(n), a.powi(n % 9 - 4)) }
        fn f32_powi(&self, c: &Ctx, a: f32, n: i32) -> (f32, f32) { (a.powi(n), (a * 1.01).powi(n % 40)) }
        fn paths(&self, c: &Ctx, a: f64) -> (f64, f64, f32) { (f64::sqrt(a), f64::max(a, 1.0), f32::min(a as f32, 2.0)) }
        fn i32_math(&self, c: &Ctx, a: i32, b: i32) -> (i32, i32, i32, u32) { (a.abs(), a.min(b), a.max(b), a.count_ones()) }
        fn i64_math(&self, c: &Ctx, a: i64, b: i64) -> (i64, i64, i64, u32) { (a.abs(), a.min(b), a.max(b), a.leading_zeros()) }
        fn i32_bitcount(&self, c: &Ctx, a: i32) -> (u32, u32, u32) { (a.count_ones(), a.leading_zeros(), a.trailing_zeros()) }
        fn i64_bitcount(&self, c: &Ctx, a: i64) -> (u32, u32, u32) { (a.count_ones(), a.leading_zeros(), a.trailing_zeros()) }
        fn u32_bitcount(&self, c: &Ctx, a: u32) -> (u32, u32, u32, u32) { (a.count_ones(), a.leading_zeros(), a.trailing_zeros(), a.min(77).max(3)) }
        fn u64_bitcount(&self, c: &Ctx, a: u64) -> (u32, u32, u32, u64) { (a.count_ones(), a.leading_zeros(), a.trailing_zeros(), a.max(self.w)) }
    }
}

/// Every program of this file, emitted as CUDA, compiles with NVRTC without a warning.
/// Skips without NVRTC unless `GLP_REQUIRE_NVRTC=1`.
#[test]
fn every_program_compiles_with_nvrtc() {
    let sources = [
        ("integer_arithmetic", integer_arithmetic::SOURCE),
        ("floats_and_bools", floats_and_bools::SOURCE),
        ("casts", casts::SOURCE),
        ("math", math::SOURCE),
    ];
    common::nvrtc::assert_programs_compile("every_program_compiles_with_nvrtc", &sources);
}
