//! Bounded power laws: sampling, tails and the mean of the integer part.
//!
//! A [`PowerLaw`] has density proportional to `x^-exponent` on `[lo, hi)`. Degrees and
//! community sizes are the integer parts `floor(x)` of such draws: that is a discrete power law
//! on `floor(lo) ..= hi - 1` whose tail has the closed form `P(floor(x) >= t) = P(x >= t)`,
//! and whose mean is a continuous, increasing function of `lo`, so a target average degree
//! can be met exactly (LFR solves for a real minimum degree the same way). Sampling is by
//! inversion of the distribution function, one uniform per draw.

/// Density `∝ x^-exponent` on `[lo, hi)`, `0 < lo < hi`, `exponent >= 0`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PowerLaw {
    lo: f64,
    hi: f64,
    exponent: f64,
}

/// Terms summed one by one before the Euler–Maclaurin formula takes over.
const DIRECT_TERMS: u64 = 4096;

impl PowerLaw {
    pub(crate) fn new(lo: f64, hi: f64, exponent: f64) -> Self {
        debug_assert!(0.0 < lo && lo < hi && exponent >= 0.0);
        PowerLaw { lo, hi, exponent }
    }

    /// `1 - exponent`, the power of the integrated density; 0 means the logarithmic case.
    fn s(&self) -> f64 {
        1.0 - self.exponent
    }

    fn is_log(&self) -> bool {
        self.s().abs() < 1e-9
    }

    /// The draw for a uniform `u` in `[0, 1)` (inverse distribution function), in `[lo, hi)`.
    pub(crate) fn sample(&self, u: f64) -> f64 {
        let x = if self.is_log() {
            self.lo * (self.hi / self.lo).powf(u)
        } else {
            let s = self.s();
            let (a, b) = (self.lo.powf(s), self.hi.powf(s));
            (a + u * (b - a)).powf(1.0 / s)
        };
        // Rounding can land a hair outside the interval.
        x.clamp(self.lo, self.hi)
    }

    /// `P(X >= t)` (the closed form the tests check sampling and means against).
    #[cfg(test)]
    pub(crate) fn tail(&self, t: f64) -> f64 {
        if t <= self.lo {
            return 1.0;
        }
        if t >= self.hi {
            return 0.0;
        }
        if self.is_log() {
            (self.hi / t).ln() / (self.hi / self.lo).ln()
        } else {
            let s = self.s();
            (self.hi.powf(s) - t.powf(s)) / (self.hi.powf(s) - self.lo.powf(s))
        }
    }

    /// `E[floor(X)]` for integer `hi`: `sum_{t=1}^{hi-1} P(X >= t)`.
    pub(crate) fn mean_floor(&self) -> f64 {
        let top = self.hi as u64 - 1;
        let below = (self.lo.floor() as u64).min(top); // t = 1..=floor(lo): P(X >= t) = 1
        let first = below + 1;
        if first > top {
            return below as f64;
        }
        let count = (top - first + 1) as f64;
        let partial = if self.is_log() {
            (count * self.hi.ln() - sum_ln(first, top)) / (self.hi / self.lo).ln()
        } else {
            let s = self.s();
            let (hs, ls) = (self.hi.powf(s), self.lo.powf(s));
            (count * hs - sum_pow(first, top, s)) / (hs - ls)
        };
        below as f64 + partial
    }
}

/// `sum_{t=a}^{b} t^s` (`1 <= a <= b`), exactly for the first terms, then by Euler–Maclaurin
/// with corrections up to the third derivative (the next term is below `|f^(5)(m)| / 30240`
/// with `m >= 4096`: negligible in f64).
fn sum_pow(a: u64, b: u64, s: f64) -> f64 {
    let split = b.min(a.saturating_add(DIRECT_TERMS));
    let mut sum: f64 = (a..split).map(|t| (t as f64).powf(s)).sum();
    if split <= b {
        let (m, n) = (split as f64, b as f64);
        let f = |t: f64| t.powf(s);
        let d1 = |t: f64| s * t.powf(s - 1.0);
        let d3 = |t: f64| s * (s - 1.0) * (s - 2.0) * t.powf(s - 3.0);
        let integral =
            if (s + 1.0).abs() < 1e-12 { (n / m).ln() } else { (n.powf(s + 1.0) - m.powf(s + 1.0)) / (s + 1.0) };
        sum += integral + (f(m) + f(n)) / 2.0 + (d1(n) - d1(m)) / 12.0 - (d3(n) - d3(m)) / 720.0;
    }
    sum
}

/// `sum_{t=a}^{b} ln t` (`1 <= a <= b`), the same way as [`sum_pow`].
fn sum_ln(a: u64, b: u64) -> f64 {
    let split = b.min(a.saturating_add(DIRECT_TERMS));
    let mut sum: f64 = (a..split).map(|t| (t as f64).ln()).sum();
    if split <= b {
        let (m, n) = (split as f64, b as f64);
        let integral = n * n.ln() - n - (m * m.ln() - m);
        sum += integral + (m.ln() + n.ln()) / 2.0 + (1.0 / n - 1.0 / m) / 12.0
            - (2.0 / n.powi(3) - 2.0 / m.powi(3)) / 720.0;
    }
    sum
}

/// The power law with exponent `exponent` on `[lo, max + 1)` whose integer part has mean
/// `mean`, for the `lo` in `[1, max]` found by bisection; `Err(range)` with the achievable
/// means `(at lo = 1, at lo = max)` when `mean` is outside them.
pub(crate) fn with_mean_floor(mean: f64, max: u32, exponent: f64) -> Result<PowerLaw, (f64, f64)> {
    let hi = max as f64 + 1.0;
    let law = |lo: f64| PowerLaw::new(lo, hi, exponent);
    let (smallest, largest) = (law(1.0).mean_floor(), max as f64);
    if !(smallest..=largest).contains(&mean) {
        return Err((smallest, largest));
    }
    let (mut a, mut b) = (1.0f64, max as f64);
    for _ in 0..200 {
        let mid = 0.5 * (a + b);
        if law(mid).mean_floor() < mean {
            a = mid;
        } else {
            b = mid;
        }
        if b - a <= 1e-12 * b {
            break;
        }
    }
    Ok(law(0.5 * (a + b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct summation of `P(X >= t)`, the definition of the mean of the integer part.
    fn naive_mean_floor(law: &PowerLaw, max: u64) -> f64 {
        (1..=max).map(|t| law.tail(t as f64)).sum()
    }

    #[test]
    fn mean_floor_matches_direct_summation() {
        for &exponent in &[0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0] {
            for &(lo, max) in &[(1.0, 50u64), (3.7, 1000), (1.0, 100_000), (12.25, 300_000)] {
                let law = PowerLaw::new(lo, max as f64 + 1.0, exponent);
                let (fast, naive) = (law.mean_floor(), naive_mean_floor(&law, max));
                assert!((fast - naive).abs() <= 1e-9 * naive, "exp {exponent} lo {lo} max {max}: {fast} vs {naive}");
            }
        }
    }

    #[test]
    fn solved_minimum_gives_the_mean() {
        let law = with_mean_floor(20.0, 1000, 2.0).unwrap();
        assert!((law.mean_floor() - 20.0).abs() < 1e-9);
        assert!(with_mean_floor(1001.0, 1000, 2.0).is_err());
        assert!(with_mean_floor(1.0, 1000, 2.0).is_err());
    }

    #[test]
    fn inversion_matches_tail() {
        let law = PowerLaw::new(2.0, 101.0, 2.5);
        for &u in &[0.0, 0.1, 0.5, 0.9, 0.999] {
            // P(X >= sample(u)) = 1 - u.
            assert!((law.tail(law.sample(u)) - (1.0 - u)).abs() < 1e-12);
        }
    }
}
