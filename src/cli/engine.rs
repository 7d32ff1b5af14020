//! Options of the label propagation engine shared by `glp lp` and `glp bench lp`: schedule,
//! iterations, tie rule, and the variant with its parameters and seed file.

use crate::variants::{Capped, Classic, Llp, Seeded, Slp, Weighted};
use clap::{Args, ValueEnum};
use glp_runtime::graph::{Csr, Graph};
use glp_runtime::io::{self, SeedFile};
use glp_runtime::lp::gpu::MflStrategy;
use glp_runtime::lp::{
    self, CompiledVariant, InterpretedVariant, IterationObserver, LpConfig, LpInputs, LpOutcome, Schedule, Sketch,
    TieBreak,
};
use glp_runtime::{Error, Result};
use std::path::{Path, PathBuf};

/// What `--mfl` means on the CPU: `glp` is the CPU engine's exact search (`None`), a sketch
/// runs as its CPU twin; the GPU's other exact kernels (smem, global, sort, hash) have no CPU
/// form and are refused rather than silently replaced.
pub fn cpu_search(strategy: MflStrategy) -> Result<Option<Sketch>> {
    match strategy {
        MflStrategy::Glp => Ok(None),
        MflStrategy::Sketch(sketch) => Ok(Some(sketch)),
        other => Err(Error::invalid(format!(
            "--mfl {} is a GPU kernel strategy: on the CPU use --mfl glp (the exact search) or a sketch \
             (mg2, mg4, mg8, mg16, mg32, bm), or run with --backend gpu",
            other.name()
        ))),
    }
}

/// Checks what the GPU engine refuses, with the flags that choose it: a strategy that runs
/// the synchronous schedule only under `--schedule async`, and `--ties first` (before the
/// graph is loaded; the engine checks again, in its own words).
pub fn check_gpu(config: &LpConfig, strategies: &[MflStrategy]) -> Result<()> {
    if matches!(config.schedule, Schedule::Asynchronous { .. }) {
        if let Some(s) = strategies.iter().find(|s| !s.supports_asynchronous()) {
            return Err(Error::invalid(format!(
                "--mfl {} runs the synchronous schedule only (it gathers every neighbour label before the sweep): \
                 use --schedule sync, or another --mfl",
                s.name()
            )));
        }
    }
    if config.ties == TieBreak::FirstSeen {
        return Err(Error::invalid(
            "the GPU engine resolves equal scores to the smallest label or by a hash of vertex and label \
             (--ties smallest or hashed): the label seen first is an order of one thread's scan",
        ));
    }
    Ok(())
}

/// A GPU error with the command line's flags in its advice (the device layer names none).
pub fn with_gpu_flags(error: Error) -> Error {
    error.with_hint(
        "; try a strategy that needs less memory (--mfl glp, or the sketches mg8 and bm, hold no per-edge table), \
         or --backend cpu",
    )
}

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
    /// The label met first along the vertex's sorted adjacency (CPU only)
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
    /// Degree-capped LP (parameter cap)
    Capped,
    /// Layered LP (parameter gamma)
    Llp,
    /// Speaker-listener LP, overlapping communities (parameter threshold)
    Slp,
    /// Seeded LP (needs --seeds)
    Seeded,
    /// A variant written in Rust in a source file, compiled at run time and run on the
    /// interpreter.
    File(PathBuf),
}

/// Parses a `--variant` value: a built-in name or a path ending in `.rs`.
pub fn parse_variant(s: &str) -> std::result::Result<VariantArg, String> {
    Ok(match s {
        "classic" => VariantArg::Classic,
        "weighted" => VariantArg::Weighted,
        "capped" => VariantArg::Capped,
        "llp" => VariantArg::Llp,
        "slp" => VariantArg::Slp,
        "seeded" => VariantArg::Seeded,
        file if file.ends_with(".rs") => VariantArg::File(PathBuf::from(file)),
        other => {
            let names: Vec<&str> = crate::variants::BUILT_IN.iter().map(|b| b.name).collect();
            return Err(format!("unknown variant `{other}` (expected {}, or a FILE.rs)", names.join(", ")));
        }
    })
}

/// Options of the label propagation engine, shared by `glp lp` and `glp bench lp`.
#[derive(Debug, Clone, Args)]
pub struct EngineArgs {
    /// Update schedule
    #[arg(long, value_enum, default_value_t = ScheduleArg::Async)]
    pub schedule: ScheduleArg,

    /// Most iterations to run (at least 1)
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: u32,

    /// Label propagation variant: classic (most frequent neighbour label), weighted (largest
    /// total edge weight; the same on unweighted graphs), capped (neighbours above a degree
    /// cap do not vote: the remedy for LP's collapse on dense cores, --param cap),
    /// llp (layered LP, --param gamma),
    /// slp (speaker-listener LP, overlapping communities, --param threshold), seeded (labels
    /// spread from --seeds only), or FILE.rs (a variant written in Rust, compiled at run time
    /// and interpreted: a struct whose fields are its parameters and `impl LpVariant` for it)
    #[arg(long, value_name = "VARIANT", default_value = "classic", value_parser = parse_variant)]
    pub variant: VariantArg,

    /// A parameter of the variant, NAME=VALUE (repeatable): capped cap (>= 0, default 100),
    /// llp gamma (>= 0, default 1),
    /// slp threshold (in [0, 1], default 0.1); FILE.rs: every parameter its hooks read,
    /// parsed as the field's type (no defaults)
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,

    /// Seed labels for --variant seeded (or a FILE.rs variant that reads `view.seed_label`):
    /// `vertex label` lines (input vertex ids, labels any non-negative integers; `#` and `%`
    /// comment lines)
    #[arg(long, value_name = "FILE")]
    pub seeds: Option<PathBuf>,

    /// Rule for labels with equal scores [default: smallest for sync; for async, first on the
    /// CPU and hashed on the GPU, which has smallest and hashed]
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

const CAPPED_PARAMS: &[ParamSpec] = &[ParamSpec { name: "cap", range: "a degree >= 0", valid: |c| c >= 0.0 }];
const LLP_PARAMS: &[ParamSpec] = &[ParamSpec { name: "gamma", range: "a number >= 0", valid: |g| g >= 0.0 }];
const SLP_PARAMS: &[ParamSpec] =
    &[ParamSpec { name: "threshold", range: "a number in [0, 1]", valid: |t| (0.0..=1.0).contains(&t) }];

/// The variant a run uses, with its parameters: what [`EngineArgs::check`] builds before the
/// graph is loaded (a FILE.rs variant compiled, parameters checked) and
/// [`EngineArgs::read_seeds`] completes with the seed labels once the graph's ids are known.
#[derive(Debug, Clone)]
pub enum Variant {
    /// [`Classic`].
    Classic,
    /// [`Weighted`].
    Weighted,
    /// [`Capped`] with its parameter.
    Capped(Capped),
    /// [`Llp`] with its parameter.
    Llp(Llp),
    /// [`Slp`] with its parameter.
    Slp(Slp),
    /// [`Seeded`] with the seed file (`None` until read).
    Seeded(Option<Box<SeedFile>>),
    /// A variant compiled from a source file, run on the interpreter, with the seed file when
    /// it reads seeds (`None` until read).
    File { variant: Box<InterpretedVariant>, seeds: Option<Box<SeedFile>> },
}

impl Variant {
    /// Runs the variant on `csr` with `config` on the CPU, with the features it uses and
    /// `inputs` (from [`Variant::inputs`]).
    fn run(&self, csr: &Csr, config: &LpConfig, inputs: &LpInputs<'_>) -> Result<LpOutcome> {
        match self {
            Variant::Classic => lp::run_kernel(csr, &Classic, config, inputs),
            Variant::Weighted => lp::run_kernel(csr, &Weighted, config, inputs),
            Variant::Capped(capped) => lp::run_kernel(csr, capped, config, inputs),
            Variant::Llp(llp) => lp::run_kernel(csr, llp, config, inputs),
            Variant::Slp(slp) => lp::run_kernel(csr, slp, config, inputs),
            Variant::Seeded(_) => lp::run_kernel(csr, &Seeded, config, inputs),
            Variant::File { variant, .. } => lp::run_kernel(csr, &**variant, config, inputs),
        }
    }

    /// Runs the variant on `csr` on the CPU with the MFL search `--mfl` names there
    /// ([`cpu_search`]), telling `observer` about every iteration.
    pub fn run_on_cpu(
        &self,
        csr: &Csr,
        config: &LpConfig,
        strategy: MflStrategy,
        observer: Option<&IterationObserver<'_>>,
    ) -> Result<LpOutcome> {
        let inputs = LpInputs { observer, ..self.inputs() };
        match cpu_search(strategy)? {
            Some(sketch) => self.run_sketched(csr, config, &inputs, sketch),
            None => self.run(csr, config, &inputs),
        }
    }

    /// Runs the variant on `csr` on the CPU with `sketch` in place of the exact MFL search (the
    /// CPU twin of the GPU's sketch strategies); an error for a variant whose score is not the
    /// label's weighted count.
    fn run_sketched(&self, csr: &Csr, config: &LpConfig, inputs: &LpInputs<'_>, sketch: Sketch) -> Result<LpOutcome> {
        match self {
            Variant::Classic => lp::run_sketched(csr, &Classic, config, inputs, sketch),
            Variant::Weighted => lp::run_sketched(csr, &Weighted, config, inputs, sketch),
            Variant::Capped(capped) => lp::run_sketched(csr, capped, config, inputs, sketch),
            Variant::Llp(llp) => lp::run_sketched(csr, llp, config, inputs, sketch),
            Variant::Slp(slp) => lp::run_sketched(csr, slp, config, inputs, sketch),
            Variant::Seeded(_) => lp::run_sketched(csr, &Seeded, config, inputs, sketch),
            Variant::File { variant, .. } => lp::run_sketched(csr, &**variant, config, inputs, sketch),
        }
    }

    /// The variant's per-vertex inputs: its seed labels when it reads seeds.
    pub fn inputs(&self) -> LpInputs<'_> {
        LpInputs { seeds: self.seeds().map(|s| &s.labels[..]), ..LpInputs::default() }
    }

    /// The variant as a compiled kernel with its per-vertex inputs (what the GPU engine
    /// takes).
    pub fn kernel(&self) -> (&dyn CompiledVariant, LpInputs<'_>) {
        let kernel: &dyn CompiledVariant = match self {
            Variant::Classic => &Classic,
            Variant::Weighted => &Weighted,
            Variant::Capped(capped) => capped,
            Variant::Llp(llp) => llp,
            Variant::Slp(slp) => slp,
            Variant::Seeded(_) => &Seeded,
            Variant::File { variant, .. } => &**variant,
        };
        (kernel, self.inputs())
    }

    /// The variant with its seed labels, for a variant that reads them (seeded, or a file
    /// whose hooks read `view.seed_label`): an error when such a variant has none; others
    /// take none ([`EngineArgs::check`] refused seeds for them).
    pub fn with_seeds(self, seeds: Option<SeedFile>) -> Result<Variant> {
        Ok(match self {
            Variant::Seeded(_) => Variant::Seeded(Some(Box::new(seeds.ok_or_else(missing_seeds)?))),
            Variant::File { variant, .. } => {
                if seeds.is_some() != variant.features().seeds {
                    return Err(Error::invalid(format!(
                        "`{}` {} seed labels",
                        variant.name(),
                        if seeds.is_some() {
                            "reads no seed labels: it takes no"
                        } else {
                            "reads seed labels (view.seed_label): it needs"
                        }
                    )));
                }
                Variant::File { variant, seeds: seeds.map(Box::new) }
            }
            other => other,
        })
    }

    /// The seed file of a run that reads seeds.
    pub fn seeds(&self) -> Option<&SeedFile> {
        match self {
            Variant::Seeded(seeds) | Variant::File { seeds, .. } => seeds.as_deref(),
            _ => None,
        }
    }
}

impl EngineArgs {
    /// The engine configuration these options describe, with `seed` as the key of the
    /// variant's random numbers (not yet validated). Without --ties, ties go to the smallest
    /// label under the synchronous schedule (GLP, LDBC CDLP); asynchronous, to the first label
    /// seen on the CPU (GVE-LPA), and by hash on the GPU, whose parallel sweep has no "first"
    /// and where the smallest label cascades: LFR 100k mu 0.3 ends at NMI 0.12 with it against
    /// 0.63 hashed (H200; com-DBLP modularity 0.73 against 0.65, planted 25M NMI 0.96 against
    /// 1.00).
    pub fn config(&self, seed: u64, on_gpu: bool) -> LpConfig {
        let (schedule, default_ties) = match self.schedule {
            ScheduleArg::Sync => (Schedule::Synchronous, TieBreak::SmallestLabel),
            ScheduleArg::Async => (
                Schedule::Asynchronous { pick_less_every: self.pick_less_every, tolerance: self.tolerance },
                if on_gpu { TieBreak::Hashed } else { TieBreak::FirstSeen },
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

    /// The variant these options describe, checked without the graph (parameters, presence of
    /// --seeds; a FILE.rs variant is read and compiled), so that a mistake is reported before
    /// a large graph is loaded. Its seeds are read by [`EngineArgs::read_seeds`].
    pub fn check(&self) -> Result<Variant> {
        // The built-in variants take at most one parameter (`None`: its default).
        let parameter = || -> Result<Option<f64>> { Ok(self.parameters()?.first().copied().flatten()) };
        Ok(match &self.variant {
            VariantArg::File(path) => Variant::File { variant: Box::new(self.compile_file(path)?), seeds: None },
            VariantArg::Classic => parameter().map(|_| Variant::Classic)?,
            VariantArg::Weighted => parameter().map(|_| Variant::Weighted)?,
            VariantArg::Capped => Variant::Capped(Capped { cap: parameter()?.unwrap_or(Capped::default().cap) }),
            VariantArg::Llp => Variant::Llp(Llp { gamma: parameter()?.unwrap_or(Llp::default().gamma) }),
            VariantArg::Slp => Variant::Slp(Slp { threshold: parameter()?.unwrap_or(Slp::default().threshold) }),
            VariantArg::Seeded => parameter().map(|_| Variant::Seeded(None))?,
        })
    }

    /// `variant` (from [`EngineArgs::check`]) with its seed labels read for `graph`, when the
    /// run has --seeds (which `check` allowed only for variants that read seeds).
    pub fn read_seeds(&self, variant: Variant, graph: &Graph) -> Result<Variant> {
        let seeds = self.seeds.as_deref().map(|path| io::read_seeds(path, &graph.ids)).transpose()?;
        variant.with_seeds(seeds)
    }

    /// Reads and compiles a variant file, sets its parameters from --param and checks that
    /// --seeds is given exactly when it reads seeds.
    fn compile_file(&self, path: &Path) -> Result<InterpretedVariant> {
        let variant = super::common::compile_program_file(
            "--variant ",
            "variant",
            path,
            &self.params,
            InterpretedVariant::from_source::<String>,
        )?;
        let file = path.display().to_string();
        let name = variant.name();
        match (variant.features().seeds, &self.seeds) {
            (true, None) => Err(Error::invalid(format!(
                "`{name}` in {file} reads seed labels (view.seed_label): give them with --seeds FILE"
            ))),
            (false, Some(_)) => Err(Error::invalid(format!(
                "--seeds applies to variants that read seed labels, and `{name}` in {file} does not"
            ))),
            _ => Ok(variant),
        }
    }

    /// The values of the variant's parameters (in the order of its specs; `None` = default),
    /// after checking names, values and the --seeds option.
    fn parameters(&self) -> Result<Vec<Option<f64>>> {
        let specs: &[ParamSpec] = match &self.variant {
            VariantArg::Capped => CAPPED_PARAMS,
            VariantArg::Llp => LLP_PARAMS,
            VariantArg::Slp => SLP_PARAMS,
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

    /// The variant's name, for reports (the path of a source file).
    pub fn variant_name(&self) -> String {
        match &self.variant {
            VariantArg::Classic => "classic".into(),
            VariantArg::Weighted => "weighted".into(),
            VariantArg::Capped => "capped".into(),
            VariantArg::Llp => "llp".into(),
            VariantArg::Slp => "slp".into(),
            VariantArg::Seeded => "seeded".into(),
            VariantArg::File(path) => path.display().to_string(),
        }
    }
}

fn missing_seeds() -> Error {
    Error::invalid("--variant seeded needs --seeds FILE (`vertex label` lines)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_variant_is_a_variant_option() {
        for built_in in crate::variants::BUILT_IN {
            let arg = parse_variant(built_in.name).unwrap();
            assert!(!matches!(arg, VariantArg::File(_)), "{}", built_in.name);
        }
        let err = parse_variant("bogus").unwrap_err();
        assert!(err.ends_with("(expected classic, weighted, capped, llp, slp, seeded, or a FILE.rs)"), "{err}");
    }
}
