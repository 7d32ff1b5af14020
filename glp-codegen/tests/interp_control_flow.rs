//! Differential tests of the IR interpreter's control flow: `if`, `match`, loops, `break`
//! and `continue` with labels and values, early returns and late initialisation, each
//! program compiled both by rustc and by glp-codegen (then interpreted) and compared over
//! many inputs (`common::harness`); and one interpreter shared by several threads.

#[macro_use]
mod common;

use common::*;

mod control_flow {
    use super::*;
    programs! {
        fn classify(&self, c: &Ctx, a: i32) -> i32 {
            match a {
                0 => 3,
                1 | 2 | 3 => 4,
                4..=1000 | 46341 => 5,
                2147483647 => 7,
                _ => 6,
            }
        }
        fn classify_u64(&self, c: &Ctx, a: u64) -> u32 {
            match a % 1000 + a / 18446744073709551000 {
                0 => 0,
                1..=9 => 1,
                10..100 => 2,
                _ => match a {
                    18446744073709551615 => 9,
                    _ => 3,
                },
            }
        }
        fn nested_loops(&self, c: &Ctx, n: u32, m: u32) -> u64 {
            let mut total: u64 = 0;
            for i in 0..n % 20 {
                if i == 13 {
                    break;
                }
                if i % 3 == 1 {
                    continue;
                }
                let mut j = 0;
                while j < m % 17 {
                    j += 1;
                    if j % 5 == 0 {
                        continue;
                    }
                    if (i + j) % 11 == 10 {
                        break;
                    }
                    total += (i * 100 + j) as u64;
                }
            }
            total
        }
        fn inclusive_to_max(&self, c: &Ctx, a: u32) -> (u32, u64) {
            let mut count = 0u32;
            let mut sum = 0u64;
            let start = if a > 10 { u32::MAX - a % 10 } else { a };
            for i in start..=u32::MAX {
                count += 1;
                sum += i as u64;
                if count > 20 {
                    break;
                }
            }
            (count, sum)
        }
        fn inclusive_i32(&self, c: &Ctx, a: i32) -> (i32, i64) {
            let mut count = 0;
            let mut sum = 0i64;
            for i in (i32::MAX - (a & 3) - 1)..=i32::MAX {
                count += 1;
                sum += i as i64;
            }
            for i in (-2147483647 - 1)..=(-2147483647 + 1) {
                sum += i as i64;
            }
            (count, sum)
        }
        fn inclusive_u64(&self, c: &Ctx, a: u64) -> u64 {
            let mut sum = 0u64;
            for i in (u64::MAX - a % 5)..=u64::MAX {
                sum = sum + (i >> 60);
            }
            sum
        }
        fn ranges(&self, c: &Ctx, a: i64, b: i64) -> (i64, i64) {
            let mut x = 0;
            for i in a % 30..b % 30 {
                x += i;
            }
            let mut y = 0;
            for i in a % 30..=b % 30 {
                y = y * 3 + i;
            }
            (x, y)
        }
        fn early_return(&self, c: &Ctx, a: i32) -> i32 {
            if a < 0 {
                return -1;
            }
            let a = a % 10000;
            let mut i = 0;
            loop {
                if i * i > a {
                    return i;
                }
                i += 1;
            }
            -2
        }
        fn loop_match(&self, c: &Ctx, n: u32) -> u32 {
            let mut i = 0;
            let mut s = 0;
            loop {
                i += 1;
                match i % 4 {
                    0 => {
                        continue;
                    }
                    3 => {
                        if i > n % 50 {
                            break;
                        }
                    }
                    _ => {
                        s += i;
                    }
                }
            }
            s
        }
        fn block_values(&self, c: &Ctx, a: i32) -> i32 {
            let x = {
                let y = a * 2;
                y + 1
            };
            let z = if x > 5 { x } else if x < -5 { -x } else { 0 };
            let w = match z % 3 {
                0 => {
                    let q = 7;
                    q * z
                }
                _ => z,
            };
            w + x
        }
        fn late_init(&self, c: &Ctx, a: i32) -> i32 {
            let mut x;
            if a > 0 {
                x = 1;
            } else {
                x = 2;
            }
            let mut y: i32;
            y = x * 10;
            y + x
        }
        fn diverging_arms(&self, c: &Ctx, a: i32) -> i32 {
            let mut total = 0;
            for i in 0..10 {
                let v = match (a + i) % 4 {
                    0 => {
                        continue;
                    }
                    1 => i,
                    2 => {
                        if a > 100 {
                            return total + 1000;
                        }
                        2 * i
                    }
                    _ => {
                        break;
                    }
                };
                total += v;
            }
            total
        }
        fn while_cond_block(&self, c: &Ctx, a: u32) -> u32 {
            let mut i = 0;
            while {
                let limit = a % 37;
                i < limit
            } {
                i += if i % 2 == 0 { 1 } else { 2 };
            }
            i
        }
    }
}

mod jumps_and_late_init {
    use super::*;
    programs! {
        fn deferred_init(&self, c: &Ctx, a: i32) -> i32 {
            let x;
            if a > 0 {
                x = 1;
            } else if a < -5 {
                x = 2;
            } else {
                x = 3;
            }
            let (p, q);
            p = x * 2;
            q = match a % 3 {
                0 => 1,
                _ => 2,
            };
            let y: i64;
            loop {
                y = a as i64 * 3;
                break;
            }
            let z;
            match a & 3 {
                0 => z = 10,
                _ => z = 20,
            }
            let w;
            if a == 7 {
                return -7;
            } else {
                w = 5;
            }
            x + p + q + y as i32 + z + w
        }
        fn deferred_in_loop(&self, c: &Ctx, n: u32) -> u32 {
            let mut total = 0;
            for i in 0..n % 20 {
                let v;
                if i % 2 == 0 {
                    v = i;
                } else {
                    v = i * 10;
                }
                total += v;
            }
            total
        }
        fn arm_jumps(&self, c: &Ctx, n: u32) -> (u32, u32) {
            let mut i = 0;
            let mut s = 0;
            loop {
                i += 1;
                match i % 5 {
                    0 => continue,
                    3 => if i > n % 40 { break } else { s += 2 },
                    4 => s += i,
                    _ => {}
                }
                match i {
                    100 => return (s, 100),
                    _ => {}
                }
            }
            (s, i)
        }
        fn arm_return(&self, c: &Ctx, a: i32) -> i32 {
            let v = match a % 4 {
                0 => return 40,
                1 => a,
                _ => a * 2,
            };
            v + 1
        }
        fn loop_values(&self, c: &Ctx, a: u32) -> (u32, u64) {
            let mut i = 0u32;
            let first = loop {
                i += 1;
                if i * i > a % 1000 {
                    break i;
                }
                if i > 100 {
                    break 0;
                }
            };
            let mut j = 0u64;
            let total = loop {
                j += 1;
                let inner = loop {
                    if j % 3 == 0 {
                        break j * 2;
                    }
                    j += 1;
                };
                if inner > (a % 50) as u64 {
                    break inner + j;
                }
            };
            (first, total)
        }
        fn tail_loop(&self, c: &Ctx, a: i32) -> i32 {
            let mut i = a % 17;
            loop {
                i += 3;
                if i > 20 {
                    break i * 2;
                }
            }
        }
        fn tail_loop_return(&self, c: &Ctx, a: i32) -> i32 {
            let mut i = 0;
            loop {
                i += 1;
                if i * 7 > a % 500 {
                    return i;
                }
            }
        }
        fn loop_value_tuple(&self, c: &Ctx, a: u32) -> (u32, bool) {
            let mut k = a % 9;
            let (x, odd) = loop {
                k += 1;
                if k % 4 == 0 {
                    break (k, a % 2 == 1);
                }
            };
            let v: (u32, u64) = loop {
                if x > 5 {
                    break (1, 2);
                }
                break (x, 3);
            };
            (x + v.0 + v.1 as u32, odd)
        }
        fn unit_values(&self, c: &Ctx, a: i32) -> u32 {
            let u = ();
            let w = if a > 0 {
                c.probe(a);
            } else {
            };
            let _ = w;
            let z = match a {
                0 => (),
                _ => {
                    c.probe(1);
                }
            };
            let _ = c.probe(a - 1);
            c.calls()
        }
    }
}

#[test]
fn one_interpreter_serves_many_threads() {
    let program = compile(&TEST_KIND, control_flow::SOURCE, &[("k", "i32"), ("w", "u64"), ("x", "f64")]);
    let interp = Interpreter::new(&program);
    let f = interp.function("nested_loops").unwrap();
    let p = control_flow::Native { k: 0, w: 0, x: 0.0 };
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let (interp, p) = (&interp, &p);
            s.spawn(move || {
                for n in 0..200u32 {
                    let (a, b) = (n + t, n * 3 + t);
                    let ctx = Ctx::default();
                    let got = interp.call(&ctx, f, &[], &[Value::Context, a.into(), b.into()]).unwrap();
                    assert_eq!(got, Value::from(p.nested_loops(&ctx, a, b)));
                }
            });
        }
    });
}

/// Every program of this file, emitted as CUDA, compiles with NVRTC without a warning.
/// Skips without NVRTC unless `GLP_REQUIRE_NVRTC=1`.
#[test]
fn every_program_compiles_with_nvrtc() {
    let sources = [("control_flow", control_flow::SOURCE), ("jumps_and_late_init", jumps_and_late_init::SOURCE)];
    common::nvrtc::assert_programs_compile("every_program_compiles_with_nvrtc", &sources);
}
