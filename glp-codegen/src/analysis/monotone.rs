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
//! Every value the score computes gets a [`Fact`]: how it moves when `freq` grows, and its
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

use crate::interp::{Host, Interpreter, RuntimeError, Value};
use crate::ir::{
    BinaryOp, Block, Expr, ExprKind, Function, Literal, MathFn, ParamDecl, Program, Role, Scalar, ScalarValue, Stmt,
    StmtKind, Type, UnaryOp,
};
use crate::program::kind::{HookArg, KindSpec};
use crate::visit::let_locals;
use std::fmt;
use std::rc::Rc;

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
fn evaluate(condition: &Expr, decls: &[ParamDecl], params: &[ScalarValue]) -> bool {
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

// ----- the lattice ------------------------------------------------------------------------

/// How a value moves when `freq` grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    Const,
    Inc,
    Dec,
    Unknown,
}

impl Dir {
    fn join(self, other: Dir) -> Dir {
        match (self, other) {
            (a, b) if a == b => a,
            (Dir::Const, d) | (d, Dir::Const) => d,
            _ => Dir::Unknown,
        }
    }

    fn flip(self) -> Dir {
        match self {
            Dir::Inc => Dir::Dec,
            Dir::Dec => Dir::Inc,
            d => d,
        }
    }
}

/// What is known of a value's sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sign {
    Pos,
    NonNeg,
    NonPos,
    Unknown,
}

impl Sign {
    fn join(self, other: Sign) -> Sign {
        match (self, other) {
            (a, b) if a == b => a,
            (Sign::Pos, Sign::NonNeg) | (Sign::NonNeg, Sign::Pos) => Sign::NonNeg,
            _ => Sign::Unknown,
        }
    }

    fn non_neg(self) -> bool {
        matches!(self, Sign::Pos | Sign::NonNeg)
    }

    fn neg(self) -> Sign {
        match self {
            Sign::Pos | Sign::NonNeg => Sign::NonPos,
            Sign::NonPos => Sign::NonNeg,
            Sign::Unknown => Sign::Unknown,
        }
    }

    /// The sign of a float sum (a sum of two floats is 0 only when they cancel exactly).
    fn add(self, other: Sign) -> Sign {
        match (self, other) {
            (Sign::Pos, s) | (s, Sign::Pos) if s.non_neg() => Sign::Pos,
            (a, b) if a.non_neg() && b.non_neg() => Sign::NonNeg,
            (Sign::NonPos, Sign::NonPos) => Sign::NonPos,
            _ => Sign::Unknown,
        }
    }

    /// The sign of a float product or quotient (they may underflow to 0).
    fn mul(self, other: Sign) -> Sign {
        match (self, other) {
            (a, b) if a.non_neg() && b.non_neg() => Sign::NonNeg,
            (Sign::NonPos, Sign::NonPos) => Sign::NonNeg,
            (a, Sign::NonPos) | (Sign::NonPos, a) if a.non_neg() => Sign::NonPos,
            _ => Sign::Unknown,
        }
    }

    /// What the type alone says, combined with `self`.
    fn refine(self, ty: &Type) -> Sign {
        match (self, type_sign(ty)) {
            (Sign::Pos, _) => Sign::Pos,
            (s, Sign::Unknown) => s,
            (_, t) => t,
        }
    }
}

fn type_sign(ty: &Type) -> Sign {
    match ty.scalar() {
        Some(Scalar::Bool | Scalar::U32 | Scalar::U64) => Sign::NonNeg,
        _ => Sign::Unknown,
    }
}

/// What the analysis knows of one value.
#[derive(Debug, Clone)]
struct Fact {
    dir: Dir,
    sign: Sign,
    /// For a `Const` value computed from parameters and literals alone: that computation.
    param: Option<Expr>,
    /// Why `dir` is `Unknown` (the first cause).
    why: Option<Rc<str>>,
}

impl Fact {
    fn constant(sign: Sign, param: Option<Expr>) -> Fact {
        Fact { dir: Dir::Const, sign, param, why: None }
    }

    fn unknown(why: String) -> Fact {
        Fact { dir: Dir::Unknown, sign: Sign::Unknown, param: None, why: Some(why.into()) }
    }

    /// A value moving in direction `dir` (not `Unknown`: use [`Fact::unknown`]).
    fn moving(dir: Dir, sign: Sign) -> Fact {
        Fact { dir, sign, param: None, why: None }
    }

    fn is_const(&self) -> bool {
        self.dir == Dir::Const
    }

    /// The fact of a value that is `self` on one path and `other` on another.
    fn join(&self, other: &Fact) -> Fact {
        let dir = self.dir.join(other.dir);
        let why = self.why.clone().or_else(|| other.why.clone()).or_else(|| {
            (dir == Dir::Unknown).then(|| "a value grows with ‹arg› on one path and shrinks on another".into())
        });
        Fact {
            dir,
            sign: self.sign.join(other.sign),
            param: if self.param == other.param { self.param.clone() } else { None },
            why,
        }
    }

    /// The same lattice point (the reason does not count).
    fn same(&self, other: &Fact) -> bool {
        self.dir == other.dir && self.sign == other.sign && self.param == other.param
    }
}

fn join_opt(a: &Option<Fact>, b: &Option<Fact>) -> Option<Fact> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.join(b)),
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    }
}

/// The analysis state at one point of a function.
#[derive(Debug, Clone)]
struct State {
    /// Per local: its fact, `None` before it is assigned.
    env: Vec<Option<Fact>>,
    /// Whether the point can be reached.
    reachable: bool,
    /// Whether an early exit under a condition on `freq` came before: the rest of the
    /// function runs (or not) depending on `freq`.
    sticky: bool,
}

impl State {
    /// Joins the state of another path reaching the same point.
    fn join(&mut self, other: &State) {
        if !other.reachable {
            return;
        }
        if !self.reachable {
            *self = other.clone();
            return;
        }
        for (a, b) in self.env.iter_mut().zip(&other.env) {
            *a = join_opt(a, b);
        }
        self.sticky |= other.sticky;
    }

    fn same(&self, other: &State) -> bool {
        self.reachable == other.reachable
            && self.sticky == other.sticky
            && self.env.iter().zip(&other.env).all(|(a, b)| match (a, b) {
                (Some(a), Some(b)) => a.same(b),
                (None, None) => true,
                _ => false,
            })
    }
}

/// Where a loop's `break`s and `continue`s go.
#[derive(Default)]
struct LoopExits {
    breaks: Vec<State>,
    continues: Vec<State>,
}

/// Fixed-point iterations before a loop is given up on (the lattice is finite, so this is
/// only a guard).
const MAX_LOOP_ITERATIONS: usize = 64;

// ----- the analysis -----------------------------------------------------------------------

/// One alternative of an `if`, `match` or `&&`/`||`: analyses it from the given state under
/// the given taint, returning its value.
type Arm<'a, 'p> = dyn Fn(&mut Analyzer<'p>, &mut State, bool, &mut Option<Fact>) -> Fact + 'a;

struct Analyzer<'p> {
    program: &'p Program,
    kind: &'p KindSpec,
    /// The hook's context argument's name (`view`), for reasons.
    context: &'p str,
    /// [`Query::non_negative`].
    non_negative: &'p [&'p str],
    /// Run-time conditions assumed so far (`bool` parameter expressions).
    conditions: Vec<Expr>,
    /// A reason that makes the whole verdict `Unproven`.
    fatal: Option<String>,
    /// Early exits taken under a condition on `freq` so far.
    tainted_exits: usize,
    /// The `break`/`continue` targets of the loops around the point analysed.
    loops: Vec<LoopExits>,
}

impl<'p> Analyzer<'p> {
    fn at(&self, e: &Expr, what: &str) -> String {
        let loc = self.program.location(e.span);
        format!("line {}: {what}", loc.line)
    }

    fn unknown(&self, e: &Expr, what: &str) -> Fact {
        Fact::unknown(self.at(e, what))
    }

    fn fail(&mut self, reason: String) {
        self.fatal.get_or_insert(reason);
    }

    /// The fact of `f`'s result given its arguments' facts.
    fn function(&mut self, f: &Function, args: Vec<Fact>) -> Fact {
        let mut state = State { env: vec![None; f.locals.len()], reachable: true, sticky: false };
        for (&local, fact) in f.params.iter().zip(args) {
            state.env[local as usize] = Some(fact);
        }
        let outer_loops = std::mem::take(&mut self.loops);
        let mut returns = None;
        let tail = self.block(&f.body, &mut state, false, &mut returns);
        self.loops = outer_loops;
        if state.reachable {
            // Falling off the end after an early exit under a condition on freq is itself
            // such an exit.
            let tail = if state.sticky {
                Fact::unknown(format!("`{}` returns early under a condition that depends on ‹arg›", f.name))
            } else {
                tail
            };
            returns = join_opt(&returns, &Some(tail));
        }
        returns.unwrap_or_else(|| Fact::unknown(format!("`{}` never returns", f.name)))
    }

    fn block(&mut self, b: &Block, s: &mut State, taint: bool, returns: &mut Option<Fact>) -> Fact {
        for stmt in &b.stmts {
            if !s.reachable {
                break;
            }
            let exits = self.tainted_exits;
            self.stmt(stmt, s, taint, returns);
            if self.tainted_exits > exits {
                s.sticky = true;
            }
        }
        match &b.tail {
            Some(tail) if s.reachable => self.expr(tail, s, taint, returns),
            _ => Fact::constant(Sign::Unknown, None),
        }
    }

    /// Records a write of `fact` to `local`.
    fn write(&self, s: &mut State, local: u32, fact: Fact, taint: bool, at: &Stmt) {
        let fact = if taint || s.sticky {
            let loc = self.program.location(at.span);
            Fact::unknown(format!("line {}: assigned under a condition that depends on ‹arg›", loc.line))
        } else {
            fact
        };
        s.env[local as usize] = Some(fact);
    }

    fn stmt(&mut self, stmt: &Stmt, s: &mut State, taint: bool, returns: &mut Option<Fact>) {
        let tainted = taint || s.sticky;
        match &stmt.kind {
            StmtKind::Let { target, init } => {
                let fact = init.as_ref().map(|e| {
                    let mut f = self.expr(e, s, taint, returns);
                    if matches!(e.ty, Type::Tuple(_)) {
                        f.param = None;
                    }
                    f
                });
                for local in let_locals(target) {
                    match &fact {
                        Some(f) => self.write(s, local, f.clone(), taint, stmt),
                        None => s.env[local as usize] = None,
                    }
                }
            }
            StmtKind::Assign { target, op, value } => {
                let v = self.expr(value, s, taint, returns);
                let fact = match op {
                    Some(op) => {
                        let old =
                            s.env[*target as usize].clone().unwrap_or_else(|| Fact::constant(Sign::Unknown, None));
                        // `x op= e`: `x` and `e` have the same type (but for shifts, which are
                        // `Unknown` on values depending on freq whatever the types).
                        let ty = value.ty.scalar().unwrap_or(Scalar::I32);
                        self.binary(*op, &old, &v, ty, value)
                    }
                    None => v,
                };
                self.write(s, *target, fact, taint, stmt);
            }
            StmtKind::Expr(e) => {
                self.expr(e, s, taint, returns);
            }
            StmtKind::While { cond, body } => self.run_loop(Some(cond), body, s, taint, returns),
            StmtKind::Loop { body } => self.run_loop(None, body, s, taint, returns),
            StmtKind::For { var, start, end, body, .. } => {
                let a = self.expr(start, s, taint, returns);
                let b = self.expr(end, s, taint, returns);
                let fixed = a.is_const() && b.is_const();
                let var_fact = if fixed {
                    let sign = if a.sign.non_neg() { a.sign } else { Sign::Unknown };
                    Fact::constant(sign.refine(&start.ty), None)
                } else {
                    self.unknown(start, "loop bounds depend on ‹arg›")
                };
                self.for_loop(*var, var_fact, body, s, taint || !fixed, returns);
            }
            StmtKind::Break | StmtKind::Continue => {
                if tainted {
                    self.tainted_exits += 1;
                    s.sticky = true;
                }
                let state = s.clone();
                if let Some(exits) = self.loops.last_mut() {
                    match stmt.kind {
                        StmtKind::Break => exits.breaks.push(state),
                        _ => exits.continues.push(state),
                    }
                }
                s.reachable = false;
            }
            StmtKind::Return(value) => {
                let fact = match value {
                    Some(e) => self.expr(e, s, taint, returns),
                    None => Fact::constant(Sign::Unknown, None),
                };
                let fact = if tainted {
                    self.tainted_exits += 1;
                    let loc = self.program.location(stmt.span);
                    Fact::unknown(format!("line {}: returns under a condition that depends on ‹arg›", loc.line))
                } else {
                    fact
                };
                *returns = join_opt(returns, &Some(fact));
                s.reachable = false;
            }
        }
    }

    /// `while cond { body }`, or `loop { body }` when `cond` is `None`.
    fn run_loop(&mut self, cond: Option<&Expr>, body: &Block, s: &mut State, taint: bool, r: &mut Option<Fact>) {
        self.fixpoint(body, s, r, |this, iteration, r| {
            let mut body_taint = taint;
            if let Some(c) = cond {
                body_taint |= !this.expr(c, iteration, taint, r).is_const();
            }
            let mut at_cond = iteration.clone();
            if cond.is_none() {
                at_cond.reachable = false; // `loop` leaves only by `break`
            }
            (body_taint, Some(at_cond))
        });
    }

    /// `for var in start..end { body }`, the bounds already analysed.
    fn for_loop(
        &mut self,
        var: u32,
        var_fact: Fact,
        body: &Block,
        s: &mut State,
        body_taint: bool,
        r: &mut Option<Fact>,
    ) {
        self.fixpoint(body, s, r, |_, iteration, _| {
            iteration.env[var as usize] = Some(var_fact.clone());
            (body_taint, None)
        });
    }

    /// Iterates a loop to a fixed point of the state at its head. `enter` starts one
    /// iteration from the head state (evaluating a condition, binding the loop variable) and
    /// returns the body's taint and the state the loop ends with when its condition fails
    /// (`None`: the head state, as for a range running out).
    fn fixpoint(
        &mut self,
        body: &Block,
        s: &mut State,
        r: &mut Option<Fact>,
        mut enter: impl FnMut(&mut Self, &mut State, &mut Option<Fact>) -> (bool, Option<State>),
    ) {
        let exits_before = self.tainted_exits;
        let mut head = s.clone();
        for _ in 0..MAX_LOOP_ITERATIONS {
            let mut iteration = head.clone();
            let (body_taint, ends_with) = enter(self, &mut iteration, r);
            self.loops.push(LoopExits::default());
            self.block(body, &mut iteration, body_taint, r);
            let exits = self.loops.pop().unwrap_or_default();
            let mut next = head.clone();
            next.join(&iteration);
            for c in &exits.continues {
                next.join(c);
            }
            if next.same(&head) {
                let mut exit = ends_with.unwrap_or(head);
                for b in &exits.breaks {
                    exit.join(b);
                }
                if self.tainted_exits > exits_before {
                    exit.sticky = true;
                }
                *s = exit;
                return;
            }
            head = next;
        }
        self.fail("a loop's analysis did not converge".to_string());
    }

    /// Analyses the alternatives of an `if` or `match` (each starting from `s`), given the
    /// fact of the condition or scrutinee; `s` becomes the join of their end states.
    fn branches(
        &mut self,
        e: &Expr,
        cond: &Fact,
        arms: &[&Arm<'_, 'p>],
        s: &mut State,
        taint: bool,
        r: &mut Option<Fact>,
    ) -> Fact {
        let exits_before = self.tainted_exits;
        let depends = !cond.is_const();
        let arm_taint = taint || depends;
        let mut joined = State { reachable: false, ..s.clone() };
        let mut value: Option<Fact> = None;
        for arm in arms {
            let mut state = s.clone();
            let v = arm(self, &mut state, arm_taint, r);
            if state.reachable {
                value = join_opt(&value, &Some(v));
            }
            joined.join(&state);
        }
        if self.tainted_exits > exits_before {
            joined.sticky = true;
        }
        *s = joined;
        if depends {
            let why = cond.why.clone().map(|w| w.to_string());
            return Fact::unknown(why.unwrap_or_else(|| self.at(e, "a condition depends on ‹arg›")));
        }
        value.unwrap_or_else(|| Fact::constant(Sign::Unknown, None))
    }

    fn expr(&mut self, e: &Expr, s: &mut State, taint: bool, r: &mut Option<Fact>) -> Fact {
        let fact = match &e.kind {
            ExprKind::Literal(l) => {
                // Negative literals are `Neg` around a positive one; integer literals wrap
                // into their type.
                let ty = e.ty.scalar().unwrap_or(Scalar::I32);
                let sign = match *l {
                    Literal::Int(0) | Literal::Bool(_) => Sign::NonNeg,
                    Literal::Int(v) if ty.is_float() || i128::from(v) <= crate::typeck::int_range(ty).1 => Sign::Pos,
                    Literal::Float(x) if x > 0.0 && (ty == Scalar::F64 || x as f32 > 0.0) => Sign::Pos,
                    Literal::Float(x) if x >= 0.0 => Sign::NonNeg,
                    _ => Sign::Unknown,
                };
                Fact::constant(sign, Some(e.clone()))
            }
            ExprKind::Local(id) => {
                s.env[*id as usize].clone().unwrap_or_else(|| Fact::constant(Sign::Unknown.refine(&e.ty), None))
            }
            ExprKind::Param(_) => Fact::constant(type_sign(&e.ty), Some(e.clone())),
            ExprKind::Unary(op, inner) => {
                let x = self.expr(inner, s, taint, r);
                self.unary(*op, &x, e)
            }
            ExprKind::Binary(op, a, b) if op.is_logical() => {
                let x = self.expr(a, s, taint, r);
                let right = |this: &mut Self, st: &mut State, t: bool, r: &mut Option<Fact>| this.expr(b, st, t, r);
                let skip =
                    |_: &mut Self, _: &mut State, _: bool, _: &mut Option<Fact>| Fact::constant(Sign::NonNeg, None);
                let y = self.branches(e, &x, &[&right, &skip], s, taint, r);
                if x.is_const() && y.is_const() {
                    Fact::constant(Sign::NonNeg, combine_param(*op, e, &x, &y))
                } else {
                    let cause = if x.is_const() { &y } else { &x };
                    propagate(cause, || self.at(e, "`&&`/`||` on a value that depends on ‹arg›"))
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a, s, taint, r);
                let y = self.expr(b, s, taint, r);
                let ty = a.ty.scalar().unwrap_or(Scalar::I32);
                self.binary(*op, &x, &y, ty, e)
            }
            ExprKind::Cast(inner, to) => {
                let x = self.expr(inner, s, taint, r);
                self.cast(&x, inner, *to, e)
            }
            ExprKind::Tuple(items) => {
                let mut fact = Fact::constant(Sign::Unknown, None);
                for (i, item) in items.iter().enumerate() {
                    let f = self.expr(item, s, taint, r);
                    fact = if i == 0 { f } else { fact.join(&f) };
                }
                Fact { param: None, ..fact }
            }
            ExprKind::TupleField(base, _) => {
                let f = self.expr(base, s, taint, r);
                Fact { param: None, ..f }
            }
            ExprKind::Call(callee, args) => {
                let facts: Vec<Fact> = args.iter().map(|a| self.expr(a, s, taint, r)).collect();
                let callee = &self.program.functions[*callee as usize];
                let mut f = self.function(callee, facts);
                f.sign = f.sign.refine(&e.ty);
                f
            }
            ExprKind::Intrinsic(id, args) => {
                let facts: Vec<Fact> = args.iter().map(|a| self.expr(a, s, taint, r)).collect();
                let spec = &self.kind.intrinsics[*id as usize];
                if spec.ret.is_none() {
                    self.fail(
                        self.at(e, &format!("`{}.{}` changes the {}'s state", self.context, spec.name, self.context)),
                    );
                }
                match facts.iter().find(|f| !f.is_const()) {
                    None => {
                        let sign = if self.non_negative.contains(&spec.name) { Sign::NonNeg } else { type_sign(&e.ty) };
                        Fact::constant(sign, None)
                    }
                    Some(arg) => propagate(arg, || {
                        self.at(e, &format!("`{}.{}` of a value that depends on ‹arg›", self.context, spec.name))
                    }),
                }
            }
            ExprKind::Math(f, args) => {
                let facts: Vec<Fact> = args.iter().map(|a| self.expr(a, s, taint, r)).collect();
                self.math(*f, &facts, e)
            }
            ExprKind::If { cond, then, otherwise } => {
                let c = self.expr(cond, s, taint, r);
                let then_arm =
                    |this: &mut Self, st: &mut State, t: bool, r: &mut Option<Fact>| this.block(then, st, t, r);
                let else_arm = |this: &mut Self, st: &mut State, t: bool, r: &mut Option<Fact>| match otherwise {
                    Some(o) => this.expr(o, st, t, r),
                    None => Fact::constant(Sign::Unknown, None),
                };
                self.branches(e, &c, &[&then_arm, &else_arm], s, taint, r)
            }
            ExprKind::Match { scrutinee, arms } => {
                let c = self.expr(scrutinee, s, taint, r);
                let closures: Vec<_> = arms
                    .iter()
                    .map(|arm| {
                        move |this: &mut Self, st: &mut State, t: bool, r: &mut Option<Fact>| {
                            this.expr(&arm.body, st, t, r)
                        }
                    })
                    .collect();
                let refs: Vec<&Arm<'_, '_>> = closures.iter().map(|c| c as &Arm<'_, '_>).collect();
                self.branches(e, &c, &refs, s, taint, r)
            }
            ExprKind::Block(b) => self.block(b, s, taint, r),
            ExprKind::Error => {
                self.fail(self.at(e, "a node that failed to compile"));
                self.unknown(e, "a node that failed to compile")
            }
        };
        Fact { sign: fact.sign.refine(&e.ty), ..fact }
    }

    fn unary(&mut self, op: UnaryOp, x: &Fact, e: &Expr) -> Fact {
        let param = x.param.as_ref().map(|p| rebuild(e, ExprKind::Unary(op, Box::new(p.clone()))));
        let float = e.ty.scalar().is_some_and(Scalar::is_float);
        match op {
            _ if x.is_const() => {
                let sign = if op == UnaryOp::Neg && float { x.sign.neg() } else { Sign::Unknown };
                Fact::constant(sign, param)
            }
            UnaryOp::Neg if float => Fact { dir: x.dir.flip(), sign: x.sign.neg(), param: None, why: x.why.clone() },
            UnaryOp::Neg => propagate(x, || self.at(e, "integer negation (it wraps) of a value that depends on ‹arg›")),
            UnaryOp::Not => propagate(x, || self.at(e, "`!` of a value that depends on ‹arg›")),
        }
    }

    fn binary(&mut self, op: BinaryOp, a: &Fact, b: &Fact, ty: Scalar, e: &Expr) -> Fact {
        let float = ty.is_float();
        if a.is_const() && b.is_const() {
            let sign = match op {
                BinaryOp::Add if float => a.sign.add(b.sign),
                BinaryOp::Sub if float => a.sign.add(b.sign.neg()),
                BinaryOp::Mul if float => a.sign.mul(b.sign),
                BinaryOp::Div if b.sign == Sign::Pos => a.sign.mul(Sign::NonNeg),
                BinaryOp::Rem if !float && a.sign.non_neg() && b.sign == Sign::Pos => Sign::NonNeg,
                _ => Sign::Unknown,
            };
            return Fact::constant(sign, combine_param(op, e, a, b));
        }
        if let Some(unknown) = [a, b].into_iter().find(|f| f.dir == Dir::Unknown) {
            return unknown.clone();
        }
        let wraps = || self.at(e, &format!("integer `{}` (it wraps) on a value that depends on ‹arg›", op.symbol()));
        match op {
            BinaryOp::Add | BinaryOp::Sub if !float => Fact::unknown(wraps()),
            BinaryOp::Mul if !float => Fact::unknown(wraps()),
            BinaryOp::Add => self.sum(a, b, e),
            BinaryOp::Sub => {
                let minus_b = Fact { dir: b.dir.flip(), sign: b.sign.neg(), param: None, why: None };
                self.sum(a, &minus_b, e)
            }
            BinaryOp::Mul if a.is_const() => self.scale(b, a, e),
            BinaryOp::Mul if b.is_const() => self.scale(a, b, e),
            BinaryOp::Mul if a.sign.non_neg() && b.sign.non_neg() && a.dir == b.dir => {
                Fact::moving(a.dir, Sign::NonNeg)
            }
            BinaryOp::Mul => self.unknown(
                e,
                "product of two factors that depend on ‹arg›, not both non-negative and moving the same way",
            ),
            BinaryOp::Div if b.is_const() => {
                if b.sign == Sign::Pos || (b.sign != Sign::NonPos && self.assume(b, BinaryOp::Gt, e)) {
                    Fact::moving(a.dir, a.sign.mul(Sign::NonNeg))
                } else if self.assume(b, BinaryOp::Lt, e) {
                    Fact::moving(a.dir.flip(), a.sign.mul(Sign::NonPos))
                } else {
                    self.unknown(e, "division by a value not known to be non-zero")
                }
            }
            BinaryOp::Div => self.unknown(e, "division by a value that depends on ‹arg›"),
            _ => self.unknown(e, &format!("`{}` on a value that depends on ‹arg›", op.symbol())),
        }
    }

    /// `a + b`, floats.
    fn sum(&self, a: &Fact, b: &Fact, e: &Expr) -> Fact {
        match a.dir.join(b.dir) {
            Dir::Unknown => self.unknown(e, "sum of a term that grows and one that shrinks with ‹arg›"),
            dir => Fact::moving(dir, a.sign.add(b.sign)),
        }
    }

    /// `x * k` with `k` `Const`, floats.
    fn scale(&mut self, x: &Fact, k: &Fact, e: &Expr) -> Fact {
        match k.sign {
            Sign::Pos | Sign::NonNeg => Fact::moving(x.dir, x.sign.mul(k.sign)),
            Sign::NonPos => Fact::moving(x.dir.flip(), x.sign.mul(k.sign)),
            Sign::Unknown if self.assume(k, BinaryOp::Ge, e) => Fact::moving(x.dir, x.sign.mul(Sign::NonNeg)),
            Sign::Unknown if self.assume(k, BinaryOp::Le, e) => Fact::moving(x.dir.flip(), x.sign.mul(Sign::NonPos)),
            Sign::Unknown => self.unknown(e, "a factor of unknown sign that is not a parameter expression"),
        }
    }

    /// Assumes `k op 0`, `k` a `Const` value: true when `k` is a parameter expression and
    /// the condition is recorded for run time, or reads no parameter and holds.
    fn assume(&mut self, k: &Fact, op: BinaryOp, e: &Expr) -> bool {
        let Some(p) = &k.param else { return false };
        let Some(ty) = p.ty.scalar() else { return false };
        let zero = Expr {
            kind: ExprKind::Literal(if ty.is_float() { Literal::Float(0.0) } else { Literal::Int(0) }),
            ty: p.ty.clone(),
            span: e.span,
        };
        let condition = Expr {
            kind: ExprKind::Binary(op, Box::new(p.clone()), Box::new(zero)),
            ty: Type::Scalar(Scalar::Bool),
            span: e.span,
        };
        let mut reads_params = false;
        crate::visit::walk_expr(p, &mut |x| reads_params |= matches!(x.kind, ExprKind::Param(_)));
        if !reads_params {
            return evaluate(&condition, &[], &[]);
        }
        self.conditions.push(condition);
        true
    }

    fn cast(&self, x: &Fact, inner: &Expr, to: Scalar, e: &Expr) -> Fact {
        let from = inner.ty.scalar().unwrap_or(Scalar::I32);
        let range_fits = || {
            let (lo, hi) = crate::typeck::int_range(from);
            let (tlo, thi) = crate::typeck::int_range(to);
            tlo <= lo && hi <= thi
        };
        let keeps_order = from == to
            || (from.is_numeric() && to.is_float())
            || (from.is_float() && to.is_integer())
            || (from.is_integer() && to.is_integer() && range_fits());
        let sign = match x.sign {
            // Truncation toward zero, or an f64 underflowing to an f32 zero.
            Sign::Pos if (from.is_float() && to.is_integer()) || to == Scalar::F32 => Sign::NonNeg,
            s if keeps_order => s,
            _ => Sign::Unknown,
        };
        if x.is_const() {
            let param = x.param.as_ref().map(|p| rebuild(e, ExprKind::Cast(Box::new(p.clone()), to)));
            return Fact::constant(sign, param);
        }
        if keeps_order {
            Fact { dir: x.dir, sign, param: None, why: x.why.clone() }
        } else {
            propagate(x, || {
                self.at(e, &format!("cast from {from} to {to} (it wraps) of a value that depends on ‹arg›"))
            })
        }
    }

    fn math(&mut self, f: MathFn, args: &[Fact], e: &Expr) -> Fact {
        let x = &args[0];
        if args.iter().all(Fact::is_const) {
            let param = args
                .iter()
                .map(|a| a.param.clone())
                .collect::<Option<Vec<_>>>()
                .map(|ps| rebuild(e, ExprKind::Math(f, ps)));
            let sign = match f {
                MathFn::Abs | MathFn::Sqrt | MathFn::Exp => Sign::NonNeg,
                MathFn::Min => min_sign(x.sign, args[1].sign),
                MathFn::Max => max_sign(x.sign, args[1].sign),
                MathFn::Floor | MathFn::Ceil | MathFn::Round => x.sign.mul(Sign::NonNeg),
                _ => Sign::Unknown,
            };
            return Fact::constant(sign, param);
        }
        if let Some(unknown) = args.iter().find(|a| a.dir == Dir::Unknown) {
            return unknown.clone();
        }
        match f {
            MathFn::Min | MathFn::Max => {
                let (a, b) = (x, &args[1]);
                match a.dir.join(b.dir) {
                    Dir::Unknown => {
                        self.unknown(e, "`min`/`max` of a value that grows and one that shrinks with ‹arg›")
                    }
                    dir => {
                        let sign = if f == MathFn::Min { min_sign(a.sign, b.sign) } else { max_sign(a.sign, b.sign) };
                        Fact::moving(dir, sign)
                    }
                }
            }
            MathFn::Floor | MathFn::Ceil | MathFn::Round => Fact::moving(x.dir, x.sign.mul(Sign::NonNeg)),
            MathFn::Sqrt | MathFn::Abs if x.sign.non_neg() => Fact::moving(x.dir, Sign::NonNeg),
            MathFn::Sqrt | MathFn::Abs => self.unknown(e, &format!("`{}` of a value that may be negative", f.name())),
            MathFn::Exp | MathFn::Ln | MathFn::Log2 | MathFn::Powi | MathFn::Powf => {
                self.unknown(e, &format!("`{}` is not correctly rounded, so not guaranteed monotone", f.name()))
            }
            _ => self.unknown(e, &format!("`{}` of a value that depends on ‹arg›", f.name())),
        }
    }
}

/// An `Unknown` fact keeping `x`'s reason when it has one, else `why`.
fn propagate(x: &Fact, why: impl FnOnce() -> String) -> Fact {
    match &x.why {
        Some(w) if x.dir == Dir::Unknown => Fact::unknown(w.to_string()),
        _ => Fact::unknown(why()),
    }
}

fn min_sign(a: Sign, b: Sign) -> Sign {
    match (a, b) {
        (Sign::Pos, Sign::Pos) => Sign::Pos,
        (a, b) if a.non_neg() && b.non_neg() => Sign::NonNeg,
        (Sign::NonPos, _) | (_, Sign::NonPos) => Sign::NonPos,
        _ => Sign::Unknown,
    }
}

fn max_sign(a: Sign, b: Sign) -> Sign {
    match (a, b) {
        (Sign::Pos, _) | (_, Sign::Pos) => Sign::Pos,
        (a, b) if a.non_neg() || b.non_neg() => Sign::NonNeg,
        (Sign::NonPos, Sign::NonPos) => Sign::NonPos,
        _ => Sign::Unknown,
    }
}

/// `e`'s operator applied to the parameter expressions of both operands, when both are.
fn combine_param(op: BinaryOp, at: &Expr, a: &Fact, b: &Fact) -> Option<Expr> {
    let (x, y) = (a.param.clone()?, b.param.clone()?);
    let ty = if op.is_comparison() || op.is_logical() { Type::Scalar(Scalar::Bool) } else { x.ty.clone() };
    Some(Expr { kind: ExprKind::Binary(op, Box::new(x), Box::new(y)), ty, span: at.span })
}

/// `e` with its operands replaced.
fn rebuild(e: &Expr, kind: ExprKind) -> Expr {
    Expr { kind, ty: e.ty.clone(), span: e.span }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_join_and_flip() {
        assert_eq!(Dir::Const.join(Dir::Inc), Dir::Inc);
        assert_eq!(Dir::Dec.join(Dir::Const), Dir::Dec);
        assert_eq!(Dir::Inc.join(Dir::Dec), Dir::Unknown);
        assert_eq!(Dir::Unknown.join(Dir::Const), Dir::Unknown);
        assert_eq!(Dir::Inc.flip(), Dir::Dec);
        assert_eq!(Dir::Const.flip(), Dir::Const);
    }

    #[test]
    fn signs_of_float_arithmetic() {
        assert_eq!(Sign::Pos.add(Sign::NonNeg), Sign::Pos);
        assert_eq!(Sign::NonNeg.add(Sign::NonPos), Sign::Unknown);
        assert_eq!(Sign::NonPos.mul(Sign::NonPos), Sign::NonNeg);
        // A product of positives may underflow to zero.
        assert_eq!(Sign::Pos.mul(Sign::Pos), Sign::NonNeg);
        assert_eq!(Sign::Unknown.refine(&Type::Scalar(Scalar::U32)), Sign::NonNeg);
        assert_eq!(max_sign(Sign::Unknown, Sign::Pos), Sign::Pos);
        assert_eq!(min_sign(Sign::Unknown, Sign::NonPos), Sign::NonPos);
    }
}
