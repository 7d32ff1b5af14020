//! Streamed runs: the engines hand each finished batch of samples to a caller's sink as soon
//! as it is complete, so that a run's memory is a few batches, not its whole output.
//!
//! A batch is a [`SampleOutcome`] holding the run's samples `first..first + count`; the sink
//! receives the batches in sample order, each following the one before, and together they
//! are the run's samples. A sink's error stops the run and is the run's error. The GPU's
//! whole-outcome run ([`super::gpu::run`]) is a streamed run whose sink appends every batch to
//! one outcome ([`collect`]); the CPU engine's ([`super::run`]) copies each batch straight into
//! the whole outcome instead ([`super::run_gathered`]), which saves a copy of every vertex.
//!
//! The CPU engine calls the sink on the thread that called it (so that a caller's sink can
//! do what only that thread may, such as Python's signal checks) while the rayon pool runs
//! the next batch: writing batch `k` overlaps sampling batch `k + 1`. The GPU engines hand their batches to a second thread (`pipelined`),
//! which turns them into outcomes (the walk engine's step-major matrix becomes rows there)
//! and calls the sink, while the engine's thread launches the next batch: the host's work
//! on batch `k` overlaps the kernels of batch `k + 1`. A channel of one batch between the
//! threads bounds the host's memory to about three batches (the one the sink has, the one
//! waiting, the one being downloaded).

use super::outcome::SampleOutcome;
use super::roots::InitialSamples;
use crate::error::{Error, Result};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Where a streamed run hands its batches, in sample order (see the [module docs](self)).
pub type SampleSink<'a> = dyn FnMut(SampleOutcome) -> Result<()> + Send + 'a;

/// What a streamed run reports besides its batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StreamSummary {
    /// Samples handed to the sink.
    pub samples: u64,
    /// Vertices those samples added (roots excluded).
    pub sampled_vertices: u64,
    /// Time of the sampling itself: the run's time less the time the engine waited for the
    /// sink (on the GPU, for the thread that converts batches and calls the sink).
    pub elapsed: Duration,
}

/// Calls a sink batch by batch: checks that batches follow each other and counts them.
pub(crate) struct Delivery<'s, 'a> {
    sink: &'s mut SampleSink<'a>,
    next: u64,
    sampled_vertices: u64,
}

impl<'s, 'a> Delivery<'s, 'a> {
    pub(crate) fn new(sink: &'s mut SampleSink<'a>) -> Self {
        Delivery { sink, next: 0, sampled_vertices: 0 }
    }

    /// Hands `batch` to the sink.
    pub(crate) fn deliver(&mut self, batch: SampleOutcome) -> Result<()> {
        if batch.first != self.next {
            return Err(Error::invalid(format!(
                "internal: a batch of samples from {} where sample {} comes next",
                batch.first, self.next
            )));
        }
        self.next += batch.num_samples() as u64;
        self.sampled_vertices += batch.sampled_vertices();
        (self.sink)(batch)
    }

    /// The summary of a run of `samples` samples whose sampling took `elapsed` (the run's
    /// time less the engine's waits for the sink); errors unless the batches held them all.
    pub(crate) fn finish(self, samples: u64, elapsed: Duration) -> Result<StreamSummary> {
        if self.next != samples {
            return Err(Error::invalid(format!("internal: a run of {samples} samples delivered {}", self.next)));
        }
        Ok(StreamSummary { samples, sampled_vertices: self.sampled_vertices, elapsed })
    }
}

/// The engine's end of a [`pipelined`] run: hands raw batches to the sink's thread.
pub(crate) struct Handoff<T> {
    sender: mpsc::SyncSender<T>,
    waited: Duration,
}

impl<T> Handoff<T> {
    /// Hands `batch` over, waiting while the sink's thread still has the batch before.
    /// Errors when that thread has stopped (the sink failed: [`pipelined`] returns its
    /// error).
    pub(crate) fn send(&mut self, batch: T) -> Result<()> {
        let start = Instant::now();
        let sent = self.sender.send(batch);
        self.waited += start.elapsed();
        sent.map_err(|_| Error::invalid("internal: the sink's thread stopped"))
    }
}

/// Runs `produce` (an engine's batch loop) on this thread and, on a second one, `convert`
/// then `sink` on each batch it hands over (see the [module docs](self)). Returns what
/// `produce` returns and the run's summary; the sink's error comes first, then the engine's.
pub(crate) fn pipelined<T: Send, R>(
    samples: u64,
    sink: &mut SampleSink<'_>,
    convert: impl Fn(T) -> Result<SampleOutcome> + Sync,
    produce: impl FnOnce(&mut Handoff<T>) -> Result<R>,
) -> Result<(R, StreamSummary)> {
    let start = Instant::now();
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::sync_channel::<T>(1);
        let convert = &convert;
        let consumer = scope.spawn(move || -> Result<Delivery<'_, '_>> {
            let mut delivery = Delivery::new(sink);
            for batch in receiver {
                delivery.deliver(convert(batch)?)?;
            }
            Ok(delivery)
        });
        let mut handoff = Handoff { sender, waited: Duration::ZERO };
        let produced = produce(&mut handoff);
        // The engine's time less its waits for the sink's thread: the sink's work that it did
        // not wait for overlapped its own.
        let elapsed = start.elapsed().saturating_sub(handoff.waited);
        drop(handoff);
        let delivery = consumer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        let produced = produced?;
        Ok((produced, delivery.finish(samples, elapsed)?))
    })
}

/// The whole outcome of the streamed run `stream` (called with a sink that appends every
/// batch): what [`super::gpu::run`] returns; its `elapsed` is the run's
/// [`StreamSummary::elapsed`]. `R` is what else the run returns. After the first batch the
/// outcome reserves room for the whole run at that batch's density
/// ([`SampleOutcome::reserve_like_held`]): growing by doubling copied the arrays gathered so
/// far at every step, on the thread that also hands the batches on.
pub fn collect<R>(
    initial: &InitialSamples,
    stream: impl FnOnce(&mut SampleSink<'_>) -> Result<(R, StreamSummary)>,
) -> Result<(SampleOutcome, R)> {
    let mut outcome = SampleOutcome::with_roots_of(initial, 0..0);
    let (other, summary) = stream(&mut |batch| {
        let first = outcome.num_samples() == 0;
        outcome.append(batch)?;
        if first {
            outcome.reserve_like_held(initial.len().saturating_sub(outcome.num_samples()));
        }
        Ok(())
    })?;
    outcome.elapsed = summary.elapsed;
    Ok((outcome, other))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::RecvTimeoutError;

    /// Initial samples `0..n`, one root each, and the batch of samples `first..first + count`
    /// with one added vertex each (the root plus 100).
    fn batch(initial: &InitialSamples, first: usize, count: usize) -> SampleOutcome {
        let mut batch = SampleOutcome::with_roots_of(initial, first..first + count);
        for i in first..first + count {
            batch.push(&[i as u32 + 100], &[i as u32], &[0]);
        }
        batch
    }

    #[test]
    fn a_pipelined_run_hands_every_batch_in_order_to_the_sink_on_another_thread() {
        let initial = InitialSamples::every_vertex(10).unwrap();
        let engine_thread = std::thread::current().id();
        let mut seen = Vec::new();
        let mut sink = |b: SampleOutcome| {
            assert_ne!(std::thread::current().id(), engine_thread, "the sink runs beside the engine");
            seen.push((b.first, b.num_samples(), b.vertices.clone()));
            Ok(())
        };
        let convert = |(first, count): (usize, usize)| Ok(batch(&initial, first, count));
        let (produced, summary) = pipelined(10, &mut sink, convert, |handoff| {
            for first in (0..10).step_by(4) {
                handoff.send((first, 4.min(10 - first)))?;
            }
            Ok("engine stats")
        })
        .unwrap();
        assert_eq!(produced, "engine stats");
        assert_eq!((summary.samples, summary.sampled_vertices), (10, 10));
        assert_eq!(
            seen,
            vec![(0, 4, vec![100, 101, 102, 103]), (4, 4, vec![104, 105, 106, 107]), (8, 2, vec![108, 109])]
        );
    }

    #[test]
    fn the_engine_runs_ahead_of_a_busy_sink_by_at_most_two_batches() {
        let initial = InitialSamples::every_vertex(6).unwrap();
        // The engine reports each batch it has produced; the sink, on its first batch, waits
        // until the engine has produced the third (the first taken by the sink, the second
        // in the channel): the engine worked while the sink was busy. The fourth cannot be
        // handed over before the sink takes the second.
        let (produced_tx, produced_rx) = mpsc::channel::<usize>();
        let (sink_tx, sink_rx) = mpsc::channel::<u64>();
        let mut sink = move |b: SampleOutcome| {
            if b.first == 0 {
                for expected in 0..3 {
                    match produced_rx.recv_timeout(Duration::from_secs(60)) {
                        Ok(k) => assert_eq!(k, expected),
                        Err(RecvTimeoutError::Timeout) => panic!("the engine stopped while the sink was busy"),
                        Err(e) => panic!("{e}"),
                    }
                }
                assert!(
                    produced_rx.recv_timeout(Duration::from_millis(200)).is_err(),
                    "a fourth batch was handed over while the sink held the first"
                );
            }
            sink_tx.send(b.first).unwrap();
            Ok(())
        };
        let convert = |k: usize| Ok(batch(&initial, k, 1));
        let (_, summary) = pipelined(6, &mut sink, convert, |handoff| {
            for k in 0..6 {
                let _ = produced_tx.send(k);
                handoff.send(k)?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(summary.samples, 6);
        assert_eq!(sink_rx.try_iter().collect::<Vec<u64>>(), [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn the_sinks_error_comes_before_the_engines_and_the_engines_before_success() {
        let initial = InitialSamples::every_vertex(8).unwrap();
        let convert = |first: usize| Ok(batch(&initial, first, 2));
        let failing_sink = &mut |b: SampleOutcome| {
            if b.first == 2 {
                return Err(Error::invalid("the disk is full"));
            }
            Ok(())
        };
        let error = pipelined(8, failing_sink, convert, |handoff| {
            for first in (0..8).step_by(2) {
                handoff.send(first)?;
            }
            Ok(())
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "the disk is full");
        let error = pipelined(8, &mut |_| Ok(()), convert, |handoff| {
            handoff.send(0)?;
            Err::<(), _>(Error::invalid("sample 3 failed"))
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "sample 3 failed");
        // An engine that stops short of its samples without an error is an internal error.
        let error = pipelined(8, &mut |_| Ok(()), convert, |handoff| handoff.send(0)).unwrap_err();
        assert!(error.to_string().contains("a run of 8 samples delivered 2"), "{error}");
    }

    /// Batches of walks of random lengths (as PPR's): the later batches added an eighth more
    /// vertices a sample than the first, and the gathered vertex array, reserved once after the
    /// first batch, holds them without growing past that reservation (a short estimate had
    /// doubled it, copying everything gathered so far).
    #[test]
    fn gathered_arrays_grow_once_for_later_batches_up_to_an_eighth_denser() {
        let (samples, per_batch) = (4000usize, 500usize);
        let initial = InitialSamples::every_vertex(samples).unwrap();
        // The first batch's samples add 64 vertices each, the others 72 (an eighth more).
        let walks = |first: usize, count: usize| {
            let mut batch = SampleOutcome::with_roots_of(&initial, first..first + count);
            for i in first..first + count {
                let length = if first == 0 { 64 } else { 72 };
                let vertices: Vec<u32> = (0..length).map(|k| (i + k) as u32).collect();
                batch.push(&vertices, &vertices, &vec![0; length]);
            }
            batch
        };
        let (outcome, ()) = collect(&initial, |sink| {
            let mut delivery = Delivery::new(sink);
            for first in (0..samples).step_by(per_batch) {
                delivery.deliver(walks(first, per_batch))?;
            }
            Ok(((), delivery.finish(samples as u64, Duration::ZERO)?))
        })
        .unwrap();
        let expected = 500 * 64 + 3500 * 72;
        assert_eq!(outcome.vertices.len(), expected);
        // Reserved at the first batch's density and an eighth: exactly what the samples hold.
        // (Reserved at that density alone, the array doubled past it, to 512,000.)
        assert_eq!(outcome.vertices.capacity(), expected, "the vertices' array grew past its reservation");
        assert_eq!(outcome.sample(4).vertices, (4..68).collect::<Vec<u32>>());
        assert_eq!(outcome.sample(3999).vertices, (3999..4071).collect::<Vec<u32>>());
    }

    #[test]
    fn collected_batches_are_the_whole_outcome() {
        let initial = InitialSamples::groups(vec![0, 2, 3, 6], vec![1, 2, 3, 4, 5, 6], 10).unwrap();
        let (outcome, ()) = collect(&initial, |sink| {
            let mut delivery = Delivery::new(sink);
            delivery.deliver(batch(&initial, 0, 2))?;
            delivery.deliver(batch(&initial, 2, 1))?;
            Ok(((), delivery.finish(3, Duration::ZERO)?))
        })
        .unwrap();
        assert_eq!(outcome.first, 0);
        assert_eq!(outcome.root_offsets, [0, 2, 3, 6]);
        assert_eq!(outcome.roots, [1, 2, 3, 4, 5, 6]);
        assert_eq!(outcome.offsets, [0, 1, 2, 3]);
        assert_eq!(outcome.vertices, [100, 101, 102]);
        assert_eq!(*outcome.sources(), [0, 1, 2]);
        // A batch that does not follow is refused.
        let mut sink = |_: SampleOutcome| Ok(());
        let mut delivery = Delivery::new(&mut sink);
        assert!(delivery.deliver(batch(&initial, 1, 1)).unwrap_err().to_string().contains("sample 0 comes next"));
    }
}
