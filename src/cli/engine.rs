//! Options of the label propagation engine shared by `glp lp` and `glp bench lp`: schedule,
//! iterations, tie rule, and the variant with its parameters and seed file.

use crate::variants::{Classic, Llp, Seeded, Slp, Weighted};
use clap::{Args, ValueEnum};
use glp_runtime::graph::{Csr, Graph};
use glp_runtime::io::{self, SeedFile};
use glp_runtime::lp::{self, LpConfig, LpInputs, LpKernel, LpOutcome, Schedule, TieBreak};
use glp_runtime::{Error, Result};
use std::path::PathBuf;

/// `--schedule` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScheduleArg {
    /// Double-buffered, deterministic (GLP, LDBC CDLP)
    Sync,
    /// In place with affected flags, Pick-Less and a tolerance (nu-LPA, GVE-LPA)
    Async,
}

/// `--ties` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TiesArg {
    /// The smallest label
    Smallest,
    /// The label met first along the vertex's sorted adjacency
    First,
    /// A pseudo-random but deterministic choice per vertex (no bias toward low ids)
    Hashed,
}

/// `--variant` values: a built-in name or a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariantArg {
    /// Most frequent neighbour label
    Classic,
    /// Neighbour label with the largest total edge weight
    Weighted,
    /// Layered LP (parameter gamma)
    Llp,
    /// Speaker-listener LP, overlapping communities (parameter threshold)
    Slp,
    /// Seeded LP (needs --seeds)
    Seeded,
    /// A variant written in Rust in a source file, compiled at run time.
    File(PathBuf),
}

/// The built-in variant names, in help order.
const VARIANT_NAMES: [&str; 5] = ["classic", "weighted", "llp", "slp", "seeded"];

fn parse_variant(s: &str) -> std::result::Result<VariantArg, String> {
    Ok(match s {
        "classic" => VariantArg::Classic,
        "weighted" => VariantArg::Weighted,
        "llp" => VariantArg::Llp,
        "slp" => VariantArg::Slp,
        "seeded" => VariantArg::Seeded,
        file if file.ends_with(".rs") => VariantArg::File(PathBuf::from(file)),
        other => {
            return Err(format!("unknown variant `{other}` (expected {}, or a FILE.rs)", VARIANT_NAMES.join(", ")))
        }
    })
}

/// Options of the label propagation engine, shared by `glp lp` and `glp bench lp`.
#[derive(Debug, Clone, Args)]
pub struct EngineArgs {
    /// Update schedule
    #[arg(long, value_enum, default_value_t = ScheduleArg::Async)]
    pub schedule: ScheduleArg,

    /// Most iterations to run
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub iterations: u32,

    /// Label propagation variant: classic (most frequent neighbour label), weighted (largest
    /// total edge weight; the same on unweighted graphs), llp (layered LP, --param gamma),
    /// slp (speaker-listener LP, overlapping communities, --param threshold), seeded (labels
    /// spread from --seeds only), or FILE.rs (a variant written in Rust; not supported yet)
    #[arg(long, value_name = "VARIANT", default_value = "classic", value_parser = parse_variant)]
    pub variant: VariantArg,

    /// A parameter of the variant, NAME=VALUE (repeatable): llp gamma (>= 0, default 1),
    /// slp threshold (in [0, 1], default 0.1)
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// Seed labels for --variant seeded: `vertex label` lines (input vertex ids, labels any
    /// non-negative integers; `#` and `%` comment lines)
    #[arg(long, value_name = "FILE")]
    pub seeds: Option<PathBuf>,

    /// Rule for labels with equal scores [default: smallest for sync, first for async]
    #[arg(long, value_enum)]
    pub ties: Option<TiesArg>,

    /// Async schedule: Pick-Less iterations are those divisible by this (0 disables)
    #[arg(long, value_name = "RHO", default_value_t = lp::DEFAULT_PICK_LESS_EVERY)]
    pub pick_less_every: u32,

    /// Async schedule: stop when a non-Pick-Less iteration changes at most this fraction
    /// of the vertices
    #[arg(long, value_name = "TAU", default_value_t = lp::DEFAULT_TOLERANCE)]
    pub tolerance: f64,
}

/// A parameter a built-in variant accepts.
struct ParamSpec {
    name: &'static str,
    /// What a valid value is, for messages.
    range: &'static str,
    valid: fn(f64) -> bool,
}

const LLP_PARAMS: &[ParamSpec] = &[ParamSpec { name: "gamma", range: "a number >= 0", valid: |g| g >= 0.0 }];
const SLP_PARAMS: &[ParamSpec] =
    &[ParamSpec { name: "threshold", range: "a number in [0, 1]", valid: |t| (0.0..=1.0).contains(&t) }];

/// A variant ready to run: parameters parsed, seeds read.
#[derive(Debug, Clone)]
pub enum Variant {
    /// [`Classic`].
    Classic,
    /// [`Weighted`].
    Weighted,
    /// [`Llp`] with its parameter.
    Llp(Llp),
    /// [`Slp`] with its parameter.
    Slp(Slp),
    /// [`Seeded`] with the seed file.
    Seeded(Box<SeedFile>),
}

impl Variant {
    /// Runs the variant on `csr` with `config` on the CPU, with the features it uses.
    pub fn run(&self, csr: &Csr, config: &LpConfig) -> Result<LpOutcome> {
        let none = LpInputs::default();
        match self {
            Variant::Classic => lp::run_kernel(csr, &Classic, config, &none),
            Variant::Weighted => lp::run_kernel(csr, &Weighted, config, &none),
            Variant::Llp(llp) => lp::run_kernel(csr, llp, config, &none),
            Variant::Slp(slp) => lp::run_kernel(csr, slp, config, &none),
            Variant::Seeded(seeds) => {
                let inputs = LpInputs { seeds: Some(&seeds.labels), ..LpInputs::default() };
                lp::run_kernel(csr, &Seeded, config, &inputs)
            }
        }
    }

    /// The variant as a compiled kernel with its per-vertex inputs (what the GPU engine
    /// takes).
    pub fn kernel(&self) -> (&dyn LpKernel, LpInputs<'_>) {
        match self {
            Variant::Classic => (&Classic, LpInputs::default()),
            Variant::Weighted => (&Weighted, LpInputs::default()),
            Variant::Llp(llp) => (llp, LpInputs::default()),
            Variant::Slp(slp) => (slp, LpInputs::default()),
            Variant::Seeded(seeds) => (&Seeded, LpInputs { seeds: Some(&seeds.labels), ..LpInputs::default() }),
        }
    }

    /// The seed file of a seeded run.
    pub fn seeds(&self) -> Option<&SeedFile> {
        match self {
            Variant::Seeded(seeds) => Some(seeds),
            _ => None,
        }
    }
}

impl EngineArgs {
    /// The engine configuration these options describe, with `seed` as the key of the
    /// variant's random numbers (not yet validated).
    pub fn config(&self, seed: u64) -> LpConfig {
        let (schedule, default_ties) = match self.schedule {
            ScheduleArg::Sync => (Schedule::Synchronous, TieBreak::SmallestLabel),
            ScheduleArg::Async => (
                Schedule::Asynchronous { pick_less_every: self.pick_less_every, tolerance: self.tolerance },
                TieBreak::FirstSeen,
            ),
        };
        let ties = match self.ties {
            None => default_ties,
            Some(TiesArg::Smallest) => TieBreak::SmallestLabel,
            Some(TiesArg::First) => TieBreak::FirstSeen,
            Some(TiesArg::Hashed) => TieBreak::Hashed,
        };
        LpConfig { schedule, max_iterations: self.iterations, ties, seed }
    }

    /// Checks the variant options that need no graph (parameters, presence of --seeds), so
    /// that a mistake is reported before a large graph is loaded.
    pub fn check(&self) -> Result<()> {
        self.parameters().map(|_| ())
    }

    /// The variant these options describe, its seeds read for `graph`.
    pub fn prepare(&self, graph: &Graph) -> Result<Variant> {
        let parameters = self.parameters()?;
        Ok(match &self.variant {
            VariantArg::Classic => Variant::Classic,
            VariantArg::Weighted => Variant::Weighted,
            VariantArg::Llp => Variant::Llp(Llp { gamma: parameters[0].unwrap_or(Llp::default().gamma) }),
            VariantArg::Slp => Variant::Slp(Slp { threshold: parameters[0].unwrap_or(Slp::default().threshold) }),
            VariantArg::Seeded => {
                let path = self.seeds.as_deref().ok_or_else(missing_seeds)?;
                Variant::Seeded(Box::new(io::read_seeds(path, &graph.ids)?))
            }
            VariantArg::File(path) => return Err(source_variants_unsupported(path)),
        })
    }

    /// The values of the variant's parameters (in the order of its specs; `None` = default),
    /// after checking names, values and the --seeds option.
    fn parameters(&self) -> Result<Vec<Option<f64>>> {
        let specs: &[ParamSpec] = match &self.variant {
            VariantArg::Llp => LLP_PARAMS,
            VariantArg::Slp => SLP_PARAMS,
            VariantArg::File(path) => return Err(source_variants_unsupported(path)),
            _ => &[],
        };
        match (&self.variant, &self.seeds) {
            (VariantArg::Seeded, None) => return Err(missing_seeds()),
            (VariantArg::Seeded, Some(_)) | (_, None) => {}
            (_, Some(_)) => {
                return Err(Error::invalid(format!(
                    "--seeds applies to --variant seeded only (the variant is {})",
                    self.variant_name()
                )))
            }
        }
        let mut values = vec![None; specs.len()];
        for given in &self.params {
            let Some((name, value)) = given.split_once('=') else {
                return Err(Error::invalid(format!("--param `{given}`: expected NAME=VALUE, e.g. gamma=4")));
            };
            let (name, value) = (name.trim(), value.trim());
            let Some(index) = specs.iter().position(|s| s.name == name) else {
                let valid = if specs.is_empty() {
                    format!("variant {} takes no parameters", self.variant_name())
                } else {
                    let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
                    format!("valid parameters of {}: {}", self.variant_name(), names.join(", "))
                };
                return Err(Error::invalid(format!("--param {given}: unknown parameter `{name}` ({valid})")));
            };
            let spec = &specs[index];
            let number = value.parse::<f64>().ok().filter(|x| x.is_finite() && (spec.valid)(*x));
            let Some(number) = number else {
                return Err(Error::invalid(format!(
                    "--param {given}: {} must be {} (got `{value}`)",
                    spec.name, spec.range
                )));
            };
            if values[index].replace(number).is_some() {
                return Err(Error::invalid(format!("--param {}: given twice", spec.name)));
            }
        }
        Ok(values)
    }

    /// `sync` or `async`, for reports.
    pub fn schedule_name(&self) -> &'static str {
        match self.schedule {
            ScheduleArg::Sync => "sync",
            ScheduleArg::Async => "async",
        }
    }

    /// The variant's name, for reports (`file` for a source file).
    pub fn variant_name(&self) -> &'static str {
        match self.variant {
            VariantArg::Classic => "classic",
            VariantArg::Weighted => "weighted",
            VariantArg::Llp => "llp",
            VariantArg::Slp => "slp",
            VariantArg::Seeded => "seeded",
            VariantArg::File(_) => "file",
        }
    }
}

fn missing_seeds() -> Error {
    Error::invalid("--variant seeded needs --seeds FILE (`vertex label` lines)")
}

// Variants from source files: the compiler (glp-codegen) lowers the file's annotated impl and
// the CPU engine runs it on the IR interpreter. Until that lands, a clear error.
fn source_variants_unsupported(path: &std::path::Path) -> Error {
    Error::invalid(format!(
        "--variant {}: variants written in source files are not supported yet (use one of {})",
        path.display(),
        VARIANT_NAMES.join(", ")
    ))
}
