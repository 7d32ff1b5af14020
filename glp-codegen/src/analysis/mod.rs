//! Static analyses of a lowered program that a kind's kernels rely on, written for every
//! kind (a kind asks them about its own hooks).
//!
//! - [`monotone`]: whether a hook's value is non-decreasing in one of its arguments (an
//!   abstract interpretation over directions and signs, with run-time conditions on the
//!   parameters).

pub mod monotone;
