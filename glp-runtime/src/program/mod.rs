//! Programs loaded at run time, for every program kind: a source file compiled for a kind,
//! its parameters parsed into a typed block, and the latch that records the first run-time
//! failure of a hook and renders it as rustc would.
//!
//! A kind's interpreted program (label propagation: [`crate::lp::InterpretedVariant`],
//! sampling: [`crate::sample::InterpretedSampler`]) wraps a [`LoadedProgram`] and adds what
//! only it knows: its hooks' names and arguments, the interpreter's host mapping its view's
//! methods (with [`method_table`] and [`host_arg`]), and the checks of its hooks' results. What every kind does the same
//! way is here: which function runs each hook ([`LoadedProgram::hook_function`]), a hook
//! call with its loop step budget and the failure latch ([`LoadedProgram::call`]), the
//! rendered failure ([`LoadedProgram::render`]), `Clone` and the `Debug` fields
//! ([`LoadedProgram::debug_fields`]).
//!
//! # The failure latch
//!
//! Hooks cannot return an error (engines call them in their inner loops, from several
//! threads), so a failing call records the first [`HookFailure`] and returns a neutral value;
//! every later call sees [`LoadedProgram::failed`] and returns at once. The engine asks for
//! the failure ([`LoadedProgram::take_failure`]) at its synchronisation points and ends the
//! run with the rendered error; taking it clears the latch, so the program can run again.
//!
//! Errors name no command-line flag (a parameter error is a [`ParamError`] the caller
//! renders with its flag).

mod host;
mod params;

pub use host::{host_arg, method_table};
pub use params::{parse_params, ParamError};

use crate::error::{Error, Result};
use crate::graph::VertexId;
use glp_codegen::diag::render_location;
use glp_codegen::interp::{Host, Interpreter, RuntimeError, Value};
use glp_codegen::ir::{FunctionId, Location, Program, Role, ScalarValue};
use glp_codegen::loops::default_loop_budget;
use glp_codegen::program::kind::KindSpec;
use glp_codegen::program::source::{compile_source, SourceError};
use host::Budgeted;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;

/// A loop of a program's hooks: where a run whose hook ran past the loop step budget points
/// (on the GPU, where only the loop's site code comes back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopSite {
    /// The hook the loop is in.
    pub function: String,
    /// The source file, line and column (both from 1) of its `while`, `loop` or `for`.
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// A hook call that failed.
#[derive(Debug, Clone)]
pub struct HookFailure {
    /// The hook, an index into the kind's hooks.
    pub hook: usize,
    /// The vertex it ran for.
    pub vertex: VertexId,
    /// The engine's iteration.
    pub iteration: u32,
    /// What went wrong, with where in the source.
    pub error: RuntimeError,
}

/// Compiles the program of kind `kind` in `source`, the text of the file named `file` in
/// messages.
///
/// Errors: [`Error::Compile`] holding every diagnostic rendered as rustc does (`--> file:line:col`,
/// the source line, a caret under the offending code), without the leading `error: ` of the
/// first one, which whoever prints the error adds, and the first one's position.
pub fn compile(kind: &KindSpec, file: &str, source: &str) -> Result<Program> {
    compile_source(kind, source).map(|c| c.program).map_err(|e| compile_error(file, source, &e))
}

fn compile_error(file: &str, source: &str, error: &SourceError) -> Error {
    let rendered = error.render(file, source);
    // The position the rendering shows after `-->` (the column counted from 1).
    let position = match error {
        SourceError::Syntax { line, column, .. } => Some((*line as u64, *column as u64 + 1)),
        SourceError::Structure(_) => None,
        SourceError::Program(d) => d.errors.first().map(|first| {
            let at = d.location(first.span);
            (u64::from(at.line), u64::from(at.column) + 1)
        }),
    };
    Error::Compile {
        file: file.to_string(),
        position: position.map(|(line, column)| crate::error::TextPosition { line, column }),
        message: rendered.strip_prefix("error: ").map_or_else(|| rendered.clone(), str::to_string),
    }
}

/// A compiled program with its parameter values, the file it came from and its failure
/// latch. `Sync`: one value serves every engine thread. A clone has no pending failure.
pub struct LoadedProgram {
    program: Program,
    interpreter: Interpreter,
    params: Vec<ScalarValue>,
    /// The file name and text, for messages (the program's name and no text when built from
    /// a program alone).
    file: String,
    source: String,
    /// The loop step budget of a hook call, when set.
    loop_budget: Option<u64>,
    /// Whether a hook failed since the last report (read by every hook call).
    failed: AtomicBool,
    /// The first failure since the last report.
    first_failure: Mutex<Option<HookFailure>>,
}

impl LoadedProgram {
    /// `program` with its parameters' values, in [`Program::params`] order.
    ///
    /// Errors: not one value per parameter, or a value of another type than its parameter.
    pub fn new(program: Program, params: Vec<ScalarValue>) -> Result<Self> {
        let decls = &program.params;
        if params.len() != decls.len() {
            return Err(Error::invalid(format!(
                "`{}` has {} parameter(s), {} value(s) given",
                program.name,
                decls.len(),
                params.len()
            )));
        }
        if let Some((d, v)) = decls.iter().zip(&params).find(|(d, v)| v.scalar() != d.ty) {
            return Err(Error::invalid(format!("parameter `{}` is a `{}`, not a `{}`", d.name, d.ty, v.scalar())));
        }
        let interpreter = Interpreter::new(&program);
        let file = program.name.clone();
        Ok(LoadedProgram {
            program,
            interpreter,
            params,
            file,
            source: String::new(),
            loop_budget: None,
            failed: AtomicBool::new(false),
            first_failure: Mutex::new(None),
        })
    }

    /// Compiles the program of kind `kind` in `source` (the text of the file named `file` in
    /// messages) and sets its parameters from `NAME=VALUE` strings ([`compile`],
    /// [`parse_params`]; a parameter error is [`Error::Parameter`]).
    pub fn from_source<S: AsRef<str>>(kind: &KindSpec, file: &str, source: &str, assignments: &[S]) -> Result<Self> {
        let program = compile(kind, file, source)?;
        let params = parse_params(&program.name, &program.params, assignments)?;
        Ok(LoadedProgram::new(program, params)?.with_source(file, source))
    }

    /// Names `file` and shows lines of `source` (the text the program was compiled from) in
    /// runtime errors.
    pub fn with_source(mut self, file: &str, source: &str) -> Self {
        self.file = file.to_string();
        self.source = source.to_string();
        self
    }

    /// Lets each hook call run `budget` loop iterations in all.
    pub fn with_loop_budget(mut self, budget: u64) -> Self {
        self.loop_budget = Some(budget);
        self
    }

    /// The compiled program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The interpreter running it.
    pub fn interpreter(&self) -> &Interpreter {
        &self.interpreter
    }

    /// The parameters' values, in declaration order.
    pub fn params(&self) -> &[ScalarValue] {
        &self.params
    }

    /// The file name messages show.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The source text (empty when built from a program alone).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The loop step budget set with [`LoadedProgram::with_loop_budget`].
    pub fn loop_budget(&self) -> Option<u64> {
        self.loop_budget
    }

    /// Whether a failure is latched.
    #[inline]
    pub fn failed(&self) -> bool {
        self.failed.load(Relaxed)
    }

    /// The function that runs hook `hook`: the one the source writes, `None` for a hook it
    /// leaves out (the trait's default, which the kind runs natively), unless `defaults`
    /// asks for the default hook's source the compiler adds.
    pub fn hook_function(&self, hook: usize, defaults: bool) -> Option<FunctionId> {
        self.interpreter.hook(hook).filter(|&f| defaults || self.program.functions[f as usize].role == Role::Hook(hook))
    }

    /// Runs hook function `f` with `args` on `host` (the kind's view), with the loop step
    /// budget set ([`LoadedProgram::with_loop_budget`]) or else
    /// [`default_loop_budget`] of `graph` (the vertex and stored edge counts of the graph the
    /// hook sees); `None` after a failure (this one, latched as hook `hook` for `vertex` in
    /// `iteration`, or an earlier one).
    #[inline]
    pub fn call<H: Host>(
        &self,
        host: H,
        graph: (u64, u64),
        f: FunctionId,
        args: &[Value],
        (hook, vertex, iteration): (usize, VertexId, u32),
    ) -> Option<Value> {
        if self.failed() {
            return None;
        }
        let loop_budget = self.loop_budget.unwrap_or_else(|| default_loop_budget(graph.0, graph.1));
        match self.interpreter.call(&Budgeted { host, loop_budget }, f, &self.params, args) {
            Ok(value) => Some(value),
            Err(error) => {
                self.fail(HookFailure { hook, vertex, iteration, error });
                None
            }
        }
    }

    /// Latches `failure` unless one is already latched.
    #[cold]
    pub fn fail(&self, failure: HookFailure) {
        let mut first = self.first_failure.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if first.is_none() {
            *first = Some(failure);
        }
        self.failed.store(true, Relaxed);
    }

    /// The latched failure, if any, clearing the latch.
    pub fn take_failure(&self) -> Option<HookFailure> {
        if !self.failed() {
            return None;
        }
        let failure = self.first_failure.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        self.failed.store(false, Relaxed);
        failure
    }

    /// Where function `f` starts in the source.
    pub fn function_location(&self, f: FunctionId) -> Location {
        let program = &self.program;
        program.functions.get(f as usize).map_or_else(Location::default, |func| program.location(func.span))
    }

    /// The error for `failure`: its message, its location with the source line and a caret,
    /// the help of [`loop_budget_help`] for a loop past its budget, then `notes` (lines
    /// ending with a newline but the last, each starting `   = `).
    pub fn render(&self, failure: &HookFailure, notes: &str) -> Error {
        let mut text = format!("{}\n", failure.error.message());
        if let Some(location) = failure.error.location() {
            render_location(&mut text, &self.file, &self.source, location);
        }
        if matches!(failure.error, RuntimeError::LoopBudget { .. }) {
            text.push_str(&loop_budget_help());
        }
        text.push_str(notes);
        Error::Program(text)
    }

    /// The loops of the program (in site order) with their locations in the source.
    pub fn loop_locations(&self) -> Vec<(String, Location)> {
        let program = &self.program;
        glp_codegen::loops::loop_sites(program)
            .into_iter()
            .map(|site| (program.functions[site.function as usize].name.clone(), program.location(site.span)))
            .collect()
    }

    /// The loops of the program as [`LoopSite`]s in this file.
    pub fn loop_sites(&self) -> Vec<LoopSite> {
        self.loop_locations()
            .into_iter()
            .map(|(function, l)| LoopSite { function, file: self.file.clone(), line: l.line, column: l.column + 1 })
            .collect()
    }
}

impl Clone for LoadedProgram {
    /// A copy without the original's pending failure.
    fn clone(&self) -> Self {
        LoadedProgram {
            program: self.program.clone(),
            interpreter: self.interpreter.clone(),
            params: self.params.clone(),
            file: self.file.clone(),
            source: self.source.clone(),
            loop_budget: self.loop_budget,
            failed: AtomicBool::new(false),
            first_failure: Mutex::new(None),
        }
    }
}

impl LoadedProgram {
    /// The `Debug` output of a kind's program of type `type_name`: the program's name, file
    /// and parameters, to which the kind adds its own fields before finishing.
    pub fn debug_fields<'a, 'b>(&self, f: &'a mut fmt::Formatter<'b>, type_name: &str) -> fmt::DebugStruct<'a, 'b> {
        let mut fields = f.debug_struct(type_name);
        fields.field("name", &self.program.name).field("file", &self.file).field("params", &self.params);
        fields
    }
}

impl fmt::Debug for LoadedProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.debug_fields(f, "LoadedProgram").finish_non_exhaustive()
    }
}

/// The help line of an error for a hook whose loops ran past the step budget, ending with a
/// newline (every kind's budget is [`glp_codegen::loops::default_loop_budget`] unless set).
pub fn loop_budget_help() -> String {
    "   = help: every iteration of a loop counts, those of nested loops too; unless the run sets one, a hook call \
     may run max(2^24, 4 * (vertices + stored edges)) of them\n"
        .to_string()
}

#[cfg(test)]
mod tests;
