//! The conformance harness every program kind instantiates: two forms of one program (native
//! and interpreted, CPU and GPU) must give exactly the same outputs on every input and run
//! configuration.
//!
//! A kind describes its inputs, its run configurations and the outputs it compares by
//! implementing [`Kind`] (names for messages) and [`Runs`] for each program type it runs
//! (so native programs stay monomorphised); [`assert_twins`] then runs both forms on every
//! input and configuration and asserts equal outputs, naming the program, input and
//! configuration of the first difference. Outputs are compared whole with `==`: a kind puts
//! in [`Kind::Output`] everything that must agree (labels, per-iteration counts, ...) and
//! leaves out what may not (times).

use std::fmt::Debug;

/// A program kind's inputs, run configurations and compared outputs.
pub trait Kind {
    /// What a program runs on (a graph with its per-vertex inputs).
    type Input;
    /// How it runs (schedule, threads, seed, ...).
    type Run;
    /// What must be equal.
    type Output: PartialEq + Debug;

    /// The input's name in messages.
    fn input_name(&self, input: &Self::Input) -> String;
    /// The configuration's name in messages.
    fn run_name(&self, run: &Self::Run) -> String;
}

/// Running programs of type `P` of a [`Kind`].
pub trait Runs<P: ?Sized>: Kind {
    /// Runs `program` on `input` with `run`.
    fn run(&self, program: &P, input: &Self::Input, run: &Self::Run) -> Self::Output;
}

/// Runs `reference` and `candidate`, two forms of the program called `label`, on every input
/// and configuration, and asserts that the outputs are equal. Returns the number of
/// comparisons made (callers assert it is what they meant to check).
pub fn assert_twins<K, A, B>(
    kind: &K,
    inputs: &[&K::Input],
    runs: &[K::Run],
    label: &str,
    reference: &A,
    candidate: &B,
) -> usize
where
    K: Runs<A> + Runs<B>,
    A: ?Sized,
    B: ?Sized,
{
    let mut compared = 0;
    for input in inputs {
        for run in runs {
            let want = Runs::<A>::run(kind, reference, input, run);
            let got = Runs::<B>::run(kind, candidate, input, run);
            assert_eq!(want, got, "{label} on {}, {}", kind.input_name(input), kind.run_name(run));
            compared += 1;
        }
    }
    compared
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy kind: programs map a number to a list; runs repeat it.
    struct Toy;
    impl Kind for Toy {
        type Input = u32;
        type Run = usize;
        type Output = Vec<u32>;
        fn input_name(&self, input: &u32) -> String {
            format!("input {input}")
        }
        fn run_name(&self, run: &usize) -> String {
            format!("{run} times")
        }
    }
    impl<F: Fn(u32) -> u32> Runs<F> for Toy {
        fn run(&self, program: &F, input: &u32, run: &usize) -> Vec<u32> {
            vec![program(*input); *run]
        }
    }

    #[test]
    fn equal_programs_pass_every_comparison() {
        let double = |x: u32| x * 2;
        let add_self = |x: u32| x + x;
        assert_eq!(assert_twins(&Toy, &[&1, &7], &[1, 3], "double", &double, &add_self), 4);
    }

    #[test]
    #[should_panic(expected = "square on input 3, 2 times")]
    fn a_difference_names_program_input_and_run() {
        let square = |x: u32| x * x;
        // Agrees with `square` on 0 (0 = 0), not on 3 (10 against 9).
        let almost = |x: u32| if x == 3 { 10 } else { x * 3 };
        let _ = assert_twins(&Toy, &[&0, &3], &[2], "square", &square, &almost);
    }
}
