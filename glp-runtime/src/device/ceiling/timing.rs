//! Timing a kernel whose work grows with a step count: calibrated runs of about a target
//! duration, best of a few, timed with CUDA events.
//!
//! A fixed step count would take microseconds where the memory is fast and seconds where it
//! is slow (host memory over the bus); so the count starts at one step and grows until one run
//! takes at least a quarter of the target, which also warms caches and the GPU's address
//! translation. The measured runs then use the count that takes about the target.

use crate::device::Gpu;
use crate::error::Result;

/// The most steps one launch is given (the kernels count steps in 32 bits).
pub const MAX_STEPS: u32 = 1 << 30;

/// How many steps take about `target_ms`, given that `steps` took `elapsed_ms`: at least one,
/// at most [`MAX_STEPS`].
pub fn steps_for(steps: u32, elapsed_ms: f64, target_ms: f64) -> u32 {
    let scaled = f64::from(steps) * target_ms / elapsed_ms.max(1e-3);
    scaled.round().clamp(1.0, f64::from(MAX_STEPS)) as u32
}

/// The next step count of the calibration after `steps` took `elapsed_ms`, or `None` when
/// that run was long enough (a quarter of `target_ms`) to size the measured runs from, or the
/// count cannot grow. It grows by 2 to 64 times at once: a short run is mostly launch latency,
/// which understates the rate, so its estimate is taken as a lower bound only.
pub fn calibration_step(steps: u32, elapsed_ms: f64, target_ms: f64) -> Option<u32> {
    if elapsed_ms >= target_ms / 4.0 || steps >= MAX_STEPS {
        return None;
    }
    let lower = steps.saturating_mul(2);
    let upper = steps.saturating_mul(64);
    Some(steps_for(steps, elapsed_ms, target_ms).clamp(lower, upper).min(MAX_STEPS))
}

/// Work units per second of `launch(steps)`, which queues a kernel doing `work_per_step`
/// units per step: calibrated (module docs), then the best of `repeats` runs of about
/// `target_ms`.
pub fn per_second(
    gpu: &Gpu,
    target_ms: f64,
    repeats: usize,
    work_per_step: u64,
    launch: impl Fn(u32) -> Result<()>,
) -> Result<f64> {
    let timed = |steps: u32| -> Result<f64> {
        let start = gpu.record()?;
        launch(steps)?;
        let end = gpu.record()?;
        gpu.elapsed_ms(&start, &end)
    };
    let mut steps = 1;
    let mut elapsed = timed(steps)?;
    while let Some(next) = calibration_step(steps, elapsed, target_ms) {
        steps = next;
        elapsed = timed(steps)?;
    }
    let steps = steps_for(steps, elapsed, target_ms);
    let mut best = f64::INFINITY;
    for _ in 0..repeats.max(1) {
        best = best.min(timed(steps)?);
    }
    Ok((work_per_step * u64::from(steps)) as f64 / (best.max(1e-6) * 1e-3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_scale_to_the_target_within_bounds() {
        assert_eq!(steps_for(100, 2.0, 10.0), 500);
        assert_eq!(steps_for(100, 20.0, 10.0), 50);
        assert_eq!(steps_for(1, 1000.0, 10.0), 1, "at least one step");
        assert_eq!(steps_for(1 << 29, 1.0, 10.0), MAX_STEPS, "at most MAX_STEPS");
        assert_eq!(steps_for(10, 0.0, 10.0), 100_000, "a zero time counts as a microsecond");
    }

    /// A device that serves 10^6 steps per millisecond after 5 microseconds of launch
    /// latency: the calibration reaches a run of a quarter of the target in few launches,
    /// and the measured count takes about the target.
    #[test]
    fn calibration_converges_on_the_target() {
        let run_ms = |steps: u32| 0.005 + f64::from(steps) / 1e6;
        let target = 10.0;
        let mut steps = 1;
        let mut launches = 1;
        while let Some(next) = calibration_step(steps, run_ms(steps), target) {
            assert!(next >= 2 * steps && next <= 64 * steps, "{steps} -> {next}");
            steps = next;
            launches += 1;
        }
        assert!(run_ms(steps) >= target / 4.0);
        assert!(launches <= 6, "{launches} calibration launches");
        let measured = steps_for(steps, run_ms(steps), target);
        assert!((run_ms(measured) / target - 1.0).abs() < 0.01, "{measured} steps take {} ms", run_ms(measured));
    }

    #[test]
    fn calibration_stops_at_a_long_run_or_the_step_limit() {
        assert_eq!(calibration_step(1, 2.5, 10.0), None);
        assert_eq!(calibration_step(MAX_STEPS, 0.001, 10.0), None);
        assert_eq!(calibration_step(MAX_STEPS / 4, 0.001, 10.0), Some(MAX_STEPS));
    }
}
