//! The test kit every glp crate's tests share, so that all of them find data, skip and draw
//! random inputs the same way:
//!
//! - [`data`]: the test graphs and expected outputs. They live in the repository's `data/`
//!   folder, listed with origin, terms and SHA-256 in `data/MANIFEST.md` (a test of this crate
//!   checks every checksum); larger data a user adds goes in the folder `GLP_DATA_DIR` names.
//!   A file the repository holds is always found (a missing one is a broken checkout and fails
//!   the test); a test of optional data skips without it ([`data::path_or_skip`]).
//! - [`switch`]: the skip-or-fail rule of tests that need something the machine may lack (a
//!   GPU, NVRTC, optional data): without it they skip with a message saying what is missing,
//!   and `GLP_REQUIRE_GPU=1`, `GLP_REQUIRE_NVRTC=1`, `GLP_REQUIRE_DATA=1` or
//!   `GLP_REQUIRE_NUMPY=1` (Python with NumPy, to read `.npy` outputs back) turn the skip
//!   into a failure (CI sets NVRTC, DATA and NUMPY; the GPU check script sets GPU).
//! - [`conformance`]: the harness every program kind instantiates to assert that two forms
//!   of a program (native and interpreted, CPU and GPU) give the same outputs.
//! - [`rng`]: a small seeded generator (SplitMix64), independent of glp's own Philox streams,
//!   for test inputs.
//! - [`stats`]: goodness-of-fit tests (chi-square with its p-value) for the statistical
//!   tests of random processes (samplers, random draws).
//!
//! It depends on no crate of glp's, so every crate can use it as a dev-dependency.

pub mod conformance;
pub mod data;
pub mod rng;
pub mod stats;
pub mod switch;
