//! Goodness of fit for the statistical tests: Pearson's chi-square statistic of observed
//! counts against expected ones, and its p-value.
//!
//! How the tests use it: draw with a fixed seed, count outcomes, compute the expected counts
//! from the analytic distribution (independently of the code under test), and require
//! `p_value >= threshold`. With a fixed seed the outcome is deterministic; the threshold (the
//! tests use 1e-4 or smaller) says how unlucky a correct implementation would have to be to
//! fail, and a biased implementation fails by many orders of magnitude on the sizes used.

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The result of a chi-square test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChiSquare {
    /// Pearson's statistic, sum of `(observed - expected)^2 / expected` over the cells.
    pub statistic: f64,
    /// Degrees of freedom: cells (after pooling) minus one.
    pub degrees_of_freedom: usize,
    /// The probability of a statistic at least this large under the expected distribution.
    pub p_value: f64,
}

/// Minimum expected count of a cell: cells below it are pooled (the usual rule of thumb for
/// the chi-square approximation to hold).
pub const MIN_EXPECTED: f64 = 5.0;

/// Pearson's chi-square test of `observed` counts against `expected` counts (same length, the
/// expected ones positive or zero, summing to the observed total). Cells with an expected
/// count below [`MIN_EXPECTED`] are pooled together (in order, into the next cell until the
/// pool reaches it; a last small pool joins the previous cell).
///
/// # Panics
/// When the lengths differ, a cell with expected count 0 was observed (an impossible
/// outcome: the caller should assert that separately with a clear message, but it is a
/// failure either way), or fewer than two cells remain after pooling.
pub fn chi_square(observed: &[u64], expected: &[f64]) -> ChiSquare {
    let cells = pooled(observed, expected);
    assert!(cells.len() >= 2, "a chi-square test needs at least two cells with expected count >= {MIN_EXPECTED}");
    let statistic: f64 = cells.iter().map(|&(o, e)| (o - e) * (o - e) / e).sum();
    let degrees_of_freedom = cells.len() - 1;
    let distribution = ChiSquared::new(degrees_of_freedom as f64).expect("positive degrees of freedom");
    ChiSquare { statistic, degrees_of_freedom, p_value: distribution.sf(statistic) }
}

/// The cells of one group, pooled as [`chi_square`] pools them: `(observed, expected)` pairs
/// each with an expected count of at least [`MIN_EXPECTED`] (a last small pool joins the
/// previous cell); fewer than two when the group is too small to test.
fn pooled(observed: &[u64], expected: &[f64]) -> Vec<(f64, f64)> {
    assert_eq!(observed.len(), expected.len(), "observed and expected cells differ in number");
    for (i, (&o, &e)) in observed.iter().zip(expected).enumerate() {
        assert!(!(e == 0.0 && o > 0), "cell {i} was observed {o} times but has probability 0");
    }
    let mut cells: Vec<(f64, f64)> = Vec::new();
    let (mut pool_o, mut pool_e) = (0.0, 0.0);
    for (&o, &e) in observed.iter().zip(expected) {
        pool_o += o as f64;
        pool_e += e;
        if pool_e >= MIN_EXPECTED {
            cells.push((pool_o, pool_e));
            pool_o = 0.0;
            pool_e = 0.0;
        }
    }
    if pool_e > 0.0 || pool_o > 0.0 {
        match cells.last_mut() {
            Some(last) => {
                last.0 += pool_o;
                last.1 += pool_e;
            }
            None => cells.push((pool_o, pool_e)),
        }
    }
    cells
}

/// A chi-square test over several independent groups, each with its own distribution (the
/// transitions out of each vertex, given how often the walk left it): the statistics of the
/// groups add up, and so do their degrees of freedom (cells after pooling, minus one, per
/// group). Groups with fewer than two pooled cells carry no information and are skipped.
#[derive(Debug, Clone, Default)]
pub struct GroupedChiSquare {
    statistic: f64,
    degrees_of_freedom: usize,
    /// Groups that were tested.
    pub groups: usize,
}

impl GroupedChiSquare {
    /// An empty test.
    pub fn new() -> Self {
        GroupedChiSquare::default()
    }

    /// Adds a group: its observed counts and its probabilities (expected counts are the
    /// probabilities times the group's observed total).
    pub fn add(&mut self, observed: &[u64], probabilities: &[f64]) {
        let total: u64 = observed.iter().sum();
        let expected: Vec<f64> = probabilities.iter().map(|&p| p * total as f64).collect();
        let cells = pooled(observed, &expected);
        if cells.len() < 2 {
            return;
        }
        self.statistic += cells.iter().map(|&(o, e)| (o - e) * (o - e) / e).sum::<f64>();
        self.degrees_of_freedom += cells.len() - 1;
        self.groups += 1;
    }

    /// The combined result.
    ///
    /// # Panics
    /// When no group could be tested.
    pub fn result(&self) -> ChiSquare {
        assert!(self.degrees_of_freedom > 0, "no group had two cells with expected count >= {MIN_EXPECTED}");
        let distribution = ChiSquared::new(self.degrees_of_freedom as f64).expect("positive degrees of freedom");
        ChiSquare {
            statistic: self.statistic,
            degrees_of_freedom: self.degrees_of_freedom,
            p_value: distribution.sf(self.statistic),
        }
    }
}

/// [`chi_square`] against probabilities: expected counts are `total * p` with `total` the
/// sum of `observed`.
pub fn chi_square_probabilities(observed: &[u64], probabilities: &[f64]) -> ChiSquare {
    let total: u64 = observed.iter().sum();
    let expected: Vec<f64> = probabilities.iter().map(|&p| p * total as f64).collect();
    chi_square(observed, &expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistic_and_p_value_match_hand_computed_values() {
        // Two cells, expected 50/50, observed 60/40: statistic 100/50 + 100/50 = 4, one degree
        // of freedom, p = P(chi2_1 >= 4) = 0.0455 (tables: 0.04550026).
        let result = chi_square(&[60, 40], &[50.0, 50.0]);
        assert_eq!(result.degrees_of_freedom, 1);
        assert!((result.statistic - 4.0).abs() < 1e-12);
        assert!((result.p_value - 0.045_500_26).abs() < 1e-6, "{result:?}");
    }

    #[test]
    fn small_cells_are_pooled() {
        // Expected 2, 3, 95: the first two pool into one cell of 5.
        let result = chi_square(&[1, 4, 95], &[2.0, 3.0, 95.0]);
        assert_eq!(result.degrees_of_freedom, 1);
        assert!(result.statistic.abs() < 1e-12);
    }

    #[test]
    fn grouped_statistics_and_freedoms_add_up() {
        let mut grouped = GroupedChiSquare::new();
        grouped.add(&[60, 40], &[0.5, 0.5]); // statistic 4, 1 degree of freedom
        grouped.add(&[30, 30, 30], &[1.0 / 3.0; 3]); // statistic 0, 2 degrees of freedom
        grouped.add(&[3], &[1.0]); // one cell: skipped
        let result = grouped.result();
        assert_eq!((result.degrees_of_freedom, grouped.groups), (3, 2));
        assert!((result.statistic - 4.0).abs() < 1e-12);
        // P(chi2_3 >= 4) = 0.2614641
        assert!((result.p_value - 0.261_464_1).abs() < 1e-6, "{result:?}");
    }
}
