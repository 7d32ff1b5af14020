//! Is a hook's value non-decreasing in one of its arguments? ([`Query`], for any kind.)
//!
//! Label propagation asks it of `label_score(v, label, freq)` in `freq`: the GPU engine's
//! high-degree kernel bounds a label's score from a count-min sketch estimate `est >= freq`
//! by `label_score(v, label, est)`, which is an upper bound only when the score never
//! decreases as `freq` grows (with `v`, `label`, the view's state and the parameters fixed;
//! see `kinds::lp::properties`). The rules below speak of that query (`freq`, the view);
//! they hold for any hook and argument. [`monotonicity`] decides it statically and
//! conservatively: [`Monotonicity::Always`], [`Monotonicity::When`] run-time conditions on
//! the parameters hold, or [`Monotonicity::Unproven`] with the reason.
//!
//! # The abstract values
//!
//! Every value the score computes gets a `Fact`: how it moves when `freq` grows, and its
//! sign.
//!
//! | direction | meaning | join |
//! |---|---|---|
//! | `Const` | does not depend on `freq` | `Const ⊔ d = d` |
//! | `Inc` | non-decreasing in `freq` | `Inc ⊔ Dec = Unknown` |
//! | `Dec` | non-increasing in `freq` | |
//! | `Unknown` | anything | top |
//!
//! Signs are `Pos` (> 0), `NonNeg` (>= 0), `NonPos` (<= 0) or `Unknown`; unsigned and `bool`
//! values are at least `NonNeg` by their type. A `Const` value built from parameters and
//! literals alone also keeps that expression, so a condition on it can be tested at run time.
//!
//! # Rules
//!
//! - `freq` is `Inc` with unknown sign (weights may be negative); the other arguments,
//!   literals, parameters and the view's queries with `Const` arguments are `Const`
//!   (`random_f64` is `NonNeg`, integer queries are by their type). A view method with an
//!   effect (none is allowed in `label_score`) makes the verdict `Unproven`.
//! - Float `a + b` joins the directions; `-a` flips it (`a - b` is `a + -b`).
//! - Float `k * x` and `x * k` with `k` `Const`: a `NonNeg` `k` keeps `x`'s direction, a
//!   `NonPos` one flips it; a `k` of unknown sign built from parameters and literals alone
//!   keeps it under the recorded condition `k >= 0`; any other `k` gives `Unknown`. Two
//!   factors that both depend on `freq` give their common direction only when both are
//!   `NonNeg` and move the same way.
//! - `x / k` with `k` `Const`: `Pos` keeps the direction, a parameter expression keeps it
//!   under `k > 0`; dividing by anything else, or by a value depending on `freq`, is
//!   `Unknown`. Integer division by a positive constant truncates monotonically, so it too
//!   keeps the direction.
//! - Integer `+ - *` and negation (and `wrapping_*`) on values depending on `freq` are
//!   `Unknown`: they wrap. So are `%`, bitwise operators, shifts, comparisons and logical
//!   operators on such values (a comparison turns a monotone value into a step that can go
//!   either way).
//! - `as`: float to float, integer to float and float to integer (saturating) keep the
//!   direction; integer to integer keeps it only when the source type's range fits in the
//!   target's (narrowing and sign changes wrap).
//! - `min`/`max` join their arguments' directions; `floor`, `ceil`, `round` keep it;
//!   `sqrt` keeps it for a `NonNeg` argument (a negative one gives NaN); `abs` keeps it for
//!   a `NonNeg` argument. `exp`, `ln`, `log2`, `powi`, `powf` of values depending on `freq`
//!   are `Unknown`: neither the host's libm nor CUDA rounds them correctly, and a faithfully
//!   rounded function need not be monotone (the kernels must agree with the exhaustive
//!   search bit for bit).
//! - Control flow: an `if`/`match` whose condition is `Const` takes the same branch for every
//!   `freq`, so its value is the join of the branches' values and locals are joined where
//!   branches meet. A condition depending on `freq` makes the value `Unknown` and *taints*
//!   its branches: a local written there becomes `Unknown`, a `return` there returns
//!   `Unknown`, and an early exit (`return`, `break`, `continue`) there taints the rest of
//!   the function. A `while` whose condition or a `for` whose bounds depend on `freq` taints
//!   its body. `&&`/`||` are `if`s.
//! - Locals carry their facts; loops are analysed to a fixed point (the lattice is finite:
//!   parameter expressions are dropped where two paths disagree), so a local reassigned in a
//!   loop gets the join of every iteration's fact.
//! - Calls of the program's functions analyse the callee with the arguments' facts.
//! - The score's direction is the join of its `return`s and its tail: `Const` or `Inc`
//!   proves it (under the conditions recorded anywhere), anything else is `Unproven`.
//!
//! # Soundness
//!
//! Every rule is a fact about real arithmetic that IEEE arithmetic keeps because rounding
//! to nearest is monotone: if `x1 <= x2` then `fl(x1 + c) <= fl(x2 + c)`, `fl(x1 * k) <=
//! fl(x2 * k)` for `k >= 0`, and so on; `-0.0` and `0.0` compare equal. A `Const` condition
//! is the same for both frequencies compared, so both runs take the same path, and along one
//! path the composition of non-decreasing steps is non-decreasing. The analysis assumes the
//! values it reasons about are not NaN (NaN compares false with everything); it never
//! claims a direction for an operation that makes NaN from non-NaN operands it cannot bound
//! (`sqrt` and `/` above). Run-time conditions are tested on the parameter values the kernel
//! runs with, computed as the program computes them, so they need no such argument.

//!
//! # Modules
//!
//! - `lattice`: the abstract values (a `Fact`: a direction, a sign, a parameter expression)
//!   and their joins;
//! - `analyzer`: the walk over statements and control flow (branches, loops to a fixed
//!   point, early exits and taint);
//! - `expressions`: the walk over expressions, which hands each operation to
//! - `transfer`: the rules of the operations (arithmetic, casts, math functions).

mod analyzer;
mod expressions;
mod lattice;
mod transfer;

use crate::interp::{Host, Interpreter, RuntimeError, Value};
use crate::ir::{Block, Expr, Function, ParamDecl, Program, Role, Scalar, ScalarValue, Type};
use crate::program::kind::{HookArg, KindSpec};
use analyzer::Analyzer;
use lattice::{type_sign, Dir, Fact};
use std::fmt;

/// Whether a hook's value is non-decreasing in the argument a [`Query`] names.
#[derive(Debug, Clone, PartialEq)]
pub enum Monotonicity {
    /// For every parameter value.
    Always,
    /// When every condition holds (each reads a parameter: conditions on literals alone are
    /// decided during the analysis).
    When(Vec<ParamCondition>),
    /// The analysis could not prove it (the score may still be monotone).
    Unproven { reason: String },
}

/// A condition on a program's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamCondition {
    /// A `bool` expression reading only parameters and literals.
    pub expr: Expr,
    /// Its CUDA spelling (`(self.gamma >= 0.0)`); also how it is shown to users.
    pub cuda: String,
}

impl Monotonicity {
    /// Whether monotonicity is proven, possibly under conditions.
    pub fn is_proven(&self) -> bool {
        !matches!(self, Monotonicity::Unproven { .. })
    }

    /// Whether the score is proven non-decreasing for `program` run with `params` (its
    /// parameter values in [`Program::params`] order).
    pub fn holds(&self, program: &Program, params: &[ScalarValue]) -> bool {
        match self {
            Monotonicity::Always => true,
            Monotonicity::When(conditions) => conditions.iter().all(|c| c.holds(program, params)),
            Monotonicity::Unproven { .. } => false,
        }
    }

    /// The verdict as a CUDA `bool` expression over the parameter block `self`.
    pub fn cuda_predicate(&self) -> String {
        match self {
            Monotonicity::Always => "true".to_string(),
            Monotonicity::When(conditions) => {
                conditions.iter().map(|c| c.cuda.as_str()).collect::<Vec<_>>().join(" && ")
            }
            Monotonicity::Unproven { .. } => "false".to_string(),
        }
    }
}

impl fmt::Display for Monotonicity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Monotonicity::Always => f.write_str("always"),
            Monotonicity::When(_) => write!(f, "when {}", self.cuda_predicate()),
            Monotonicity::Unproven { reason } => write!(f, "not proven: {reason}"),
        }
    }
}

impl ParamCondition {
    /// Whether the condition holds for `program` run with `params` (evaluated by the
    /// interpreter; an evaluation error, such as a division by zero, counts as false).
    pub fn holds(&self, program: &Program, params: &[ScalarValue]) -> bool {
        evaluate(&self.expr, &program.params, params)
    }
}

/// Whether `condition`, a `bool` expression of parameters and literals, holds for the
/// parameters `decls` set to `params` (an evaluation error counts as false).
pub(super) fn evaluate(condition: &Expr, decls: &[ParamDecl], params: &[ScalarValue]) -> bool {
    struct NoView;
    impl Host for NoView {
        fn intrinsic(&self, _: u32, _: &[Value]) -> Result<Value, RuntimeError> {
            Err(RuntimeError::host("a parameter condition reads no view"))
        }
    }
    let function = Function {
        name: "condition".to_string(),
        role: Role::Helper,
        params: Vec::new(),
        ret: Type::Scalar(Scalar::Bool),
        locals: Vec::new(),
        body: Block { stmts: Vec::new(), tail: Some(Box::new(condition.clone())) },
        span: condition.span,
    };
    let program = Program {
        name: "condition".to_string(),
        functions: vec![function],
        params: decls.to_vec(),
        spans: Vec::new(),
        host_methods: Vec::new(),
        declared_types: Vec::new(),
    };
    let result = Interpreter::new(&program).call(&NoView, 0, params, &[]);
    matches!(result, Ok(Value::Scalar(ScalarValue::Bool(true))))
}

/// What to decide: whether the value of hook `hook` of `kind` is non-decreasing in its
/// argument `arg` (every other argument, the context's state and the parameters fixed).
#[derive(Debug, Clone, Copy)]
pub struct Query<'k> {
    pub kind: &'k KindSpec,
    /// The hook, an index into [`KindSpec::hooks`].
    pub hook: usize,
    /// The argument that grows, an index into the hook's arguments.
    pub arg: usize,
    /// What the hook's value is called in reasons ("the score").
    pub value: &'static str,
    /// Context methods whose result is never negative beyond what its type says
    /// (`random_f64`).
    pub non_negative: &'static [&'static str],
}

/// Decides `query` for `program`. A program without the hook (the kind's default is used and
/// the caller knows its verdict) is [`Monotonicity::Always`]: callers pass programs whose
/// default hooks are lowered in, as [`crate::program::compile_impl`] does.
pub fn monotonicity(program: &Program, query: Query<'_>) -> Monotonicity {
    let hook = query.hook;
    // A hook the user wrote wins over a default (as in the interpreter).
    let function = program
        .functions
        .iter()
        .find(|f| f.role == Role::Hook(hook))
        .or_else(|| program.functions.iter().find(|f| f.role.hook_index() == Some(hook)));
    let Some(function) = function else {
        return Monotonicity::Always;
    };
    let spec = &query.kind.hooks[hook];
    let arg_name = spec.args.get(query.arg).map_or("?", |(name, _)| *name);
    let context = spec.args.iter().find(|(_, a)| *a == HookArg::Context).map_or("context", |(name, _)| *name);
    let words = Words { arg: arg_name, value: query.value };
    let args = function
        .params
        .iter()
        .enumerate()
        .map(|(i, &local)| {
            let ty = &function.locals[local as usize].ty;
            if i == query.arg {
                Fact { dir: Dir::Inc, sign: type_sign(ty), param: None, why: None }
            } else {
                Fact::constant(type_sign(ty), None)
            }
        })
        .collect();
    let mut analyzer = Analyzer {
        program,
        kind: query.kind,
        context,
        non_negative: query.non_negative,
        conditions: Vec::new(),
        fatal: None,
        tainted_exits: 0,
        loops: Vec::new(),
    };
    let result = analyzer.function(function, args);
    if let Some(reason) = analyzer.fatal {
        return Monotonicity::Unproven { reason: words.fill(&reason) };
    }
    match result.dir {
        Dir::Const | Dir::Inc => {}
        Dir::Dec => return Monotonicity::Unproven { reason: words.fill("‹value› decreases as ‹arg› grows") },
        Dir::Unknown => {
            let reason = result.why.map_or_else(|| "‹value›'s direction is unknown".to_string(), |w| w.to_string());
            return Monotonicity::Unproven { reason: words.fill(&reason) };
        }
    }
    let mut conditions: Vec<ParamCondition> = Vec::new();
    for expr in analyzer.conditions {
        let cuda = crate::cuda::emit_param_expr(query.kind, program, &expr);
        if !conditions.iter().any(|c| c.cuda == cuda) {
            conditions.push(ParamCondition { expr, cuda });
        }
    }
    if conditions.is_empty() {
        Monotonicity::Always
    } else {
        Monotonicity::When(conditions)
    }
}

/// The words of a query that reasons name: reasons are built with the placeholders `‹arg›`
/// and `‹value›` (which no Rust identifier contains) and filled in at the end.
struct Words<'a> {
    arg: &'a str,
    value: &'a str,
}

impl Words<'_> {
    fn fill(&self, reason: &str) -> String {
        reason.replace("‹arg›", self.arg).replace("‹value›", self.value)
    }
}
