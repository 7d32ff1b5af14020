//! Graph sampling: NextDoor's programming model, a CPU engine, and the outputs graph ML tools
//! read.
//!
//! # The model
//!
//! A **sample** grows from its **roots** (one vertex for a random walk or a GraphSAGE
//! mini-batch seed, several for a multi-root walk or a ClusterGCN cluster) in **steps**.
//! At every step the sample has **transits**, the vertices it grows from (at step 0 its
//! roots), and draws new vertices from their neighbourhoods:
//!
//! - an **individual** sampler ([`INDIVIDUAL`]) draws [`Sampler::sample_size`]`(step)` times
//!   from each transit's own neighbours: [`Sampler::next`]`(view, sample, transit, lane,
//!   step)` returns the vertex draw `lane` adds, which must be a neighbour of the transit
//!   (the engine checks: anything else is an error naming the hook, the sample and the step);
//! - a **collective** sampler ([`COLLECTIVE`]) draws `sample_size(step)` times from the
//!   sample's **combined neighbourhood**, the rows of all its transits one after the other
//!   (an entry is an edge `transit -> v`; a vertex adjacent to two transits appears twice):
//!   [`Sampler::next_entry`] returns an entry index, and [`SampleView::combined_pick`] draws
//!   one in proportion to [`Sampler::combined_weight`] (the importance sampling of layer
//!   sampling, FastGCN and LADIES; NextDoor's later version calls these collective
//!   neighbourhoods).
//!
//! [`NONE`] ([`NONE_ENTRY`]) is the "don't add" value: the draw adds nothing, and it never
//! becomes a transit. [`ALL_NEIGHBOURS`] as a sample size makes one draw per neighbour.
//! Every added vertex is recorded with the transit it was drawn from (the sampled edge).
//! With [`Sampler::unique`]`(step)`, the draws of a step from one neighbourhood (a transit's
//! row, or the combined neighbourhood) are distinct: a repeat is drawn again.
//!
//! The next step's transits are, by [`Sampler::next_transits`], the distinct vertices the
//! step added ([`ADDED`]: walks, k-hop, layers) or the transits with each added vertex in
//! place of the one it was drawn from ([`REPLACE`]: multi-root walks). A sample stops after
//! [`Sampler::steps`] steps, or earlier when a step adds nothing (a walk's dead end, PPR's
//! termination).
//!
//! Hooks read everything through a [`SampleView`]: the graph (degrees, the `i`-th neighbour,
//! edge weights, their cached prefix sums and per-vertex maximum, `contains` by binary
//! search in the sorted row), the sample (roots, the transits of earlier steps:
//! `previous_vertex(back, pos)`), the combined neighbourhood, and random numbers. All of it
//! through methods taking and returning scalars, so that hooks stay in the subset the
//! compiler lowers to CUDA.
//!
//! # Randomness
//!
//! Every random number of a hook call comes from the counter-based stream of (seed, sample,
//! step, lane) ([`crate::random::sample_stream`]; `lane` numbers the step's draws of the
//! sample: transit by transit, `sample_size` each), in the order the hook draws them; a
//! draw without replacement that is made again continues its lane's stream. Integer draws
//! are exact ([`SampleView::random_below`], Lemire's method), never `float * degree`, which
//! biases high-degree rows. So any engine (this one whatever its thread count, a GPU
//! kernel, the interpreter) gives the same samples for a seed.
//!
//! # Engine and outputs
//!
//! [`run`] is the CPU engine ([`engine`]); [`InitialSamples`] says where samples start
//! (every vertex, given roots, random roots, groups of roots). A [`SampleOutcome`] holds the
//! samples in sample order; [`SampleOutcome::walks`] and [`SampleOutcome::subgraphs`] give
//! the shapes other tools read, and [`npy`] writes them as NumPy files.
//!
//! Every engine also runs *streamed* ([`run_streamed`], [`gpu::run_streamed`]): it hands
//! each finished batch of samples to a [`SampleSink`] instead of gathering the whole
//! outcome, so that outputs larger than the host's (or the device's) memory are written
//! batch by batch ([`sink`]); [`SubgraphNumbering`] numbers subgraphs batch by batch.

mod compiled;
pub mod edges;
pub mod engine;
pub mod gpu;
mod interpreted;
pub mod npy;
mod outcome;
mod prefetch;
pub mod probe;
mod roots;
mod sampler;
pub mod schedule;
pub mod sink;
mod spare;
mod subgraphs;
mod view;
mod walks;

pub use compiled::CompiledSampler;
pub use edges::SampleGraph;
pub use engine::{run, run_gathered, run_streamed, SampleConfig};
pub use interpreted::InterpretedSampler;
pub use outcome::{SampleOutcome, SampleRef};
pub use roots::{InitialSamples, ROOT_STEP};
pub use sampler::{Sampler, ADDED, ALL_NEIGHBOURS, COLLECTIVE, INDIVIDUAL, NONE, NONE_ENTRY, REPLACE};
pub use schedule::Schedule;
pub use sink::{SampleSink, StreamSummary};
pub use subgraphs::{LocalVertex, SubgraphBatch, SubgraphNumbering, SubgraphPieces};
pub use view::SampleView;
