//! The IR interpreter: runs a typed [`Program`] on the CPU, with the semantics of the Rust
//! source it was lowered from (a release build) and of the CUDA the emitter produces for it.
//!
//! The CPU backend uses it for programs loaded at run time (`glp lp --variant my.rs`);
//! programs compiled into the binary run natively instead.
//!
//! # Design
//!
//! - A tree-walking evaluator over the IR as the front end built it: control flow is
//!   structured, so `break`, `continue` and `return` unwind through Rust's `?` (an internal
//!   `Unwind` error) to the loop or call that handles them.
//! - [`Value`] is `Copy` and holds scalars (the IR's [`ScalarValue`], also the type of the
//!   program's parameter values), tuples (inline, up to [`MAX_TUPLE_LEN`]), `()` and
//!   the opaque context. Nothing is allocated per value.
//! - A call's locals live in a frame: a slot per [`crate::ir::LocalDecl`], initialised from a
//!   precomputed template holding each local's zero (what the CUDA emitter's `T x{}`
//!   gives). Frames of up to [`INLINE_FRAME`] slots are arrays on the stack; larger ones are
//!   one `Vec` per call. Helper calls evaluate their arguments straight into the callee's
//!   frame. No hash map is consulted while running.
//! - The kind's context methods ([`ExprKind::Intrinsic`]) go to the embedder's [`Host`];
//!   the context argument itself is the marker [`Value::Context`].
//! - [`Interpreter`] owns a copy of the program and is `Send + Sync`: one interpreter serves
//!   any number of threads, each call with its own frames.
//! - Every loop iteration counts against the call's step budget ([`Host::loop_budget`],
//!   [`crate::loops`]), so a program that never ends stops with
//!   [`RuntimeError::LoopBudget`] at its loop.
//!
//! # Semantics
//!
//! | construct | behaviour |
//! |---|---|
//! | `+ - *`, unary `-` on integers | wrap around (all four integer types) |
//! | `/ %` on integers | truncate; by zero, or `MIN / -1`, `MIN % -1`: [`RuntimeError`] with the operator's location (Rust panics; CUDA is undefined) |
//! | `/ %` on floats | IEEE division; `%` is C's `fmod` |
//! | `<< >>` | amount of any integer type, reduced modulo the width (`x << 33` on u32 is `x << 1`); `>>` is arithmetic on signed types |
//! | `& \| ^ !` | bitwise on integers, logical (both sides evaluated) on bool |
//! | `&& \|\|` | short-circuit: the right side is evaluated only when needed |
//! | comparisons | IEEE on floats (NaN unordered); `false < true`; tuples lexicographically as Rust does |
//! | `as` | integer to integer truncates or sign-extends; float to integer rounds toward zero and saturates, NaN gives 0; integer to float rounds to nearest (u64 to f32 directly, not through f64); f64 to f32 rounds to nearest; bool to integer is 0/1 |
//! | literals | typed by [`Expr::ty`]: integers wrap into their type (`-2147483648` is `-(2147483648 as i32)`), float literals of type f32 are rounded from their f64 value (as the emitter does) |
//! | `abs min max` on integers | `abs(MIN)` wraps to `MIN` |
//! | `abs min max sqrt exp ln log2 floor ceil round powf` on floats | Rust's methods (`min`/`max` ignore a NaN operand) |
//! | `powi` | binary exponentiation as compiler-rt's `__powidf2` (what Rust calls) and the CUDA prelude's `glp_powi`; negative exponents take the reciprocal at the end |
//! | `count_ones leading_zeros trailing_zeros` | Rust's methods, returning u32 |
//! | `wrapping_add/sub/mul` | Rust's methods |
//! | `for i in a..b`, `a..=b` | bounds evaluated once, before the body; `a..=MAX` ends after `MAX` |
//! | `let x;` | `x` holds its type's zero until assigned (the front end rejects reads before an assignment on every path) |
//! | `loop` | left by `break` or `return`; `break v` writes the loop's value to a local the front end added |
//! | `while`, `loop`, `for` | each entry into the body counts one step of the call's budget; the step past it is [`RuntimeError::LoopBudget`] at the loop (Rust would run on) |
//! | `x op= e` | `e` is evaluated first, then `x` is read (Rust's order for scalars) |
//! | operands, arguments, tuple elements | evaluated left to right |
//! | `match` | arms tried in order; an arm matches when any pattern does (value or inclusive range); no patterns is `_` |
//!
//! Not reproduced bit for bit: `exp`, `ln`, `log2` and `powf` come from the host's libm,
//! which may differ from CUDA's in the last bit (see [`crate::cuda`]).

mod error;
mod ops;
mod value;

pub use error::{loop_budget_message, RuntimeError};
pub use value::{Tuple, Value};

use crate::ir::{
    BinaryOp, Block, Expr, ExprKind, Function, FunctionId, IntrinsicId, LetTarget, Program, Role, ScalarValue, SpanId,
    Stmt, StmtKind, Type, MAX_TUPLE_LEN,
};
use ops::OpError;
use std::cell::Cell;

/// The embedder's side of a program kind: its context object's methods, and the limits of a
/// call.
pub trait Host {
    /// Runs intrinsic `id` (an index into the kind's [`crate::program::kind::KindSpec::intrinsics`])
    /// with `args` (the receiver excluded). Methods that return nothing return
    /// [`Value::Unit`].
    fn intrinsic(&self, id: IntrinsicId, args: &[Value]) -> Result<Value, RuntimeError>;

    /// How many loop iterations the call may run in all, its loops and those of the functions
    /// it calls together ([`crate::loops`]); one more is [`RuntimeError::LoopBudget`].
    /// Default: [`DEFAULT_LOOP_BUDGET`].
    fn loop_budget(&self) -> u64 {
        DEFAULT_LOOP_BUDGET
    }
}

impl<H: Host + ?Sized> Host for &H {
    fn intrinsic(&self, id: IntrinsicId, args: &[Value]) -> Result<Value, RuntimeError> {
        (**self).intrinsic(id, args)
    }

    fn loop_budget(&self) -> u64 {
        (**self).loop_budget()
    }
}

/// The loop step budget of a call whose host sets none: 2^32 iterations (minutes of
/// interpretation; kinds derive theirs from their input, as
/// [`crate::loops::default_loop_budget`] does).
pub const DEFAULT_LOOP_BUDGET: u64 = 1 << 32;

/// Frames of at most this many locals live in an array on the stack.
pub const INLINE_FRAME: usize = 32;

/// Most arguments an intrinsic call passes without allocating.
const INLINE_ARGS: usize = 8;

/// An interpreter for one program.
#[derive(Debug, Clone)]
pub struct Interpreter {
    program: Program,
    /// Per function: the initial frame (each local's zero).
    frames: Vec<Vec<Value>>,
    /// Per hook index: the function implementing it.
    hooks: Vec<Option<FunctionId>>,
}

/// Why evaluation stopped early.
enum Unwind {
    Break,
    Continue,
    Return(Value),
    Error(Box<RuntimeError>),
}

impl From<RuntimeError> for Unwind {
    fn from(e: RuntimeError) -> Unwind {
        Unwind::Error(Box::new(e))
    }
}

type Eval<T = Value> = Result<T, Unwind>;

impl Interpreter {
    /// Prepares `program` for running (it is copied).
    pub fn new(program: &Program) -> Interpreter {
        let frames =
            program.functions.iter().map(|f| f.locals.iter().map(|l| Value::default_of(&l.ty)).collect()).collect();
        let hook_count = program.functions.iter().filter_map(|f| f.role.hook_index()).max().map_or(0, |n| n + 1);
        let mut hooks = vec![None; hook_count];
        for (i, f) in program.functions.iter().enumerate() {
            if let Some(h) = f.role.hook_index() {
                // A hook the user wrote wins over a default (the front end never emits both).
                if hooks[h].is_none() || matches!(f.role, Role::Hook(_)) {
                    hooks[h] = Some(i as FunctionId);
                }
            }
        }
        Interpreter { program: program.clone(), frames, hooks }
    }

    /// The program being run.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The function implementing hook number `hook` of the kind (written by the user or
    /// taken from the kind's defaults).
    pub fn hook(&self, hook: usize) -> Option<FunctionId> {
        self.hooks.get(hook).copied().flatten()
    }

    /// The function named `name` (hooks and helpers).
    pub fn function(&self, name: &str) -> Option<FunctionId> {
        self.program.functions.iter().position(|f| f.name == name).map(|i| i as FunctionId)
    }

    /// Calls `function` with `args` (its arguments in order, the context as
    /// [`Value::Context`]). `params` are the program's parameter values in
    /// [`Program::params`] order.
    pub fn call<H: Host + ?Sized>(
        &self,
        host: &H,
        function: FunctionId,
        params: &[ScalarValue],
        args: &[Value],
    ) -> Result<Value, RuntimeError> {
        let Some(f) = self.program.functions.get(function as usize) else {
            return Err(RuntimeError::BadCall {
                message: format!("no function {function} in `{}`", self.program.name),
            });
        };
        self.check_params(params)?;
        if args.len() != f.params.len() {
            return Err(RuntimeError::BadCall {
                message: format!("`{}` takes {} argument(s), {} given", f.name, f.params.len(), args.len()),
            });
        }
        for (i, (arg, &local)) in args.iter().zip(&f.params).enumerate() {
            let ty = &f.locals[local as usize].ty;
            if !arg.has_type(ty) {
                return Err(RuntimeError::BadCall {
                    message: format!("argument {i} of `{}` must be of type `{ty}`, found {arg:?}", f.name),
                });
            }
        }
        let run = Run { interp: self, host, params, steps: Cell::new(0), budget: host.loop_budget() };
        let result = run.with_frame(function, |frame| {
            for (&local, arg) in f.params.iter().zip(args) {
                frame[local as usize] = *arg;
            }
            Ok(())
        });
        result.map_err(|u| match u {
            Unwind::Error(e) => *e,
            Unwind::Break | Unwind::Continue | Unwind::Return(_) => RuntimeError::IllTyped {
                message: "`break` or `continue` outside of a loop".into(),
                location: self.program.location(f.span),
            },
        })
    }

    fn check_params(&self, params: &[ScalarValue]) -> Result<(), RuntimeError> {
        if params.len() != self.program.params.len() {
            return Err(RuntimeError::BadCall {
                message: format!(
                    "`{}` has {} parameter(s), {} given",
                    self.program.name,
                    self.program.params.len(),
                    params.len()
                ),
            });
        }
        for (p, v) in self.program.params.iter().zip(params) {
            if v.scalar() != p.ty {
                return Err(RuntimeError::BadCall {
                    message: format!("parameter `{}` must be of type `{}`, found {v:?}", p.name, p.ty),
                });
            }
        }
        Ok(())
    }
}

/// One call tree: the interpreter, the host, the parameter values and the loop iterations
/// run so far against the budget.
struct Run<'a, H: ?Sized> {
    interp: &'a Interpreter,
    host: &'a H,
    params: &'a [ScalarValue],
    steps: Cell<u64>,
    budget: u64,
}

impl<H: Host + ?Sized> Run<'_, H> {
    /// Runs `function` in a fresh frame that `init` fills with the arguments.
    fn with_frame(&self, function: FunctionId, init: impl FnOnce(&mut [Value]) -> Eval<()>) -> Eval {
        let template = &self.interp.frames[function as usize];
        let f = &self.interp.program.functions[function as usize];
        if template.len() <= INLINE_FRAME {
            let mut buf = [Value::Unit; INLINE_FRAME];
            let frame = &mut buf[..template.len()];
            frame.copy_from_slice(template);
            init(frame)?;
            self.body(f, frame)
        } else {
            let mut frame = template.clone();
            init(&mut frame)?;
            self.body(f, &mut frame)
        }
    }

    fn body(&self, f: &Function, frame: &mut [Value]) -> Eval {
        match self.block(f, &f.body, frame) {
            Ok(v) => Ok(v),
            Err(Unwind::Return(v)) => Ok(v),
            Err(other) => Err(other),
        }
    }

    fn location(&self, span: SpanId) -> crate::ir::Location {
        self.interp.program.location(span)
    }

    /// Counts one iteration of the loop at `span` (as its body is entered).
    #[inline]
    fn step(&self, span: SpanId) -> Eval<()> {
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if steps > self.budget {
            return Err(RuntimeError::LoopBudget { budget: self.budget, location: self.location(span) }.into());
        }
        Ok(())
    }

    fn ill_typed(&self, span: SpanId, what: &str) -> Unwind {
        RuntimeError::IllTyped { message: format!("ill-typed program: {what}"), location: self.location(span) }.into()
    }

    fn op_error(&self, e: OpError, span: SpanId) -> Unwind {
        let location = self.location(span);
        match e {
            OpError::DivideByZero => RuntimeError::DivideByZero { location }.into(),
            OpError::RemainderByZero => RuntimeError::RemainderByZero { location }.into(),
            OpError::DivideOverflow => RuntimeError::DivideOverflow { location }.into(),
            OpError::RemainderOverflow => RuntimeError::RemainderOverflow { location }.into(),
            OpError::Type => self.ill_typed(span, "operand types"),
        }
    }

    fn block(&self, f: &Function, block: &Block, frame: &mut [Value]) -> Eval {
        for stmt in &block.stmts {
            self.stmt(f, stmt, frame)?;
        }
        match &block.tail {
            Some(tail) => self.expr(f, tail, frame),
            None => Ok(Value::Unit),
        }
    }

    fn set(&self, frame: &mut [Value], local: u32, value: Value, span: SpanId) -> Eval<()> {
        match frame.get_mut(local as usize) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(self.ill_typed(span, "unknown local")),
        }
    }

    fn stmt(&self, f: &Function, stmt: &Stmt, frame: &mut [Value]) -> Eval<()> {
        match &stmt.kind {
            StmtKind::Let { target: LetTarget::Local(id), init } => {
                let value = match init {
                    Some(e) => self.expr(f, e, frame)?,
                    None => Value::default_of(&f.locals.get(*id as usize).map_or(Type::Unit, |l| l.ty.clone())),
                };
                self.set(frame, *id, value, stmt.span)
            }
            StmtKind::Let { target: LetTarget::Tuple(items), init } => {
                let Some(init) = init else { return Ok(()) };
                let value = self.expr(f, init, frame)?;
                for (i, item) in items.iter().enumerate() {
                    if let Some(id) = item {
                        let v = value.field(i).ok_or_else(|| self.ill_typed(stmt.span, "tuple destructuring"))?;
                        self.set(frame, *id, v, stmt.span)?;
                    }
                }
                Ok(())
            }
            StmtKind::Assign { target, op, value } => {
                // Rust evaluates the right side of `x op= e` before reading `x`.
                let v = self.expr(f, value, frame)?;
                let v = match op {
                    None => v,
                    Some(op) => {
                        let current =
                            *frame.get(*target as usize).ok_or_else(|| self.ill_typed(stmt.span, "unknown local"))?;
                        ops::binary(*op, current, v).map_err(|e| self.op_error(e, stmt.span))?
                    }
                };
                self.set(frame, *target, v, stmt.span)
            }
            StmtKind::Expr(e) => self.expr(f, e, frame).map(drop),
            StmtKind::While { cond, body } => loop {
                if !self.condition(f, cond, frame)? {
                    return Ok(());
                }
                self.step(stmt.span)?;
                match self.block(f, body, frame) {
                    Ok(_) | Err(Unwind::Continue) => {}
                    Err(Unwind::Break) => return Ok(()),
                    Err(other) => return Err(other),
                }
            },
            StmtKind::Loop { body } => loop {
                self.step(stmt.span)?;
                match self.block(f, body, frame) {
                    Ok(_) | Err(Unwind::Continue) => {}
                    Err(Unwind::Break) => return Ok(()),
                    Err(other) => return Err(other),
                }
            },
            StmtKind::For { var, start, end, inclusive, body } => {
                let s = self.expr(f, start, frame)?;
                let e = self.expr(f, end, frame)?;
                let (Some(ty), Some(mut i), Some(e)) = (s.scalar(), s.as_i128(), e.as_i128()) else {
                    return Err(self.ill_typed(stmt.span, "range bounds"));
                };
                // i128 holds every bound of every integer type, so `MAX + 1` cannot wrap.
                let last = if *inclusive { e } else { e - 1 };
                while i <= last {
                    self.step(stmt.span)?;
                    self.set(frame, *var, Value::Scalar(ScalarValue::from_i128(ty, i)), stmt.span)?;
                    match self.block(f, body, frame) {
                        Ok(_) | Err(Unwind::Continue) => {}
                        Err(Unwind::Break) => return Ok(()),
                        Err(other) => return Err(other),
                    }
                    i += 1;
                }
                Ok(())
            }
            StmtKind::Break => Err(Unwind::Break),
            StmtKind::Continue => Err(Unwind::Continue),
            StmtKind::Return(None) => Err(Unwind::Return(Value::Unit)),
            StmtKind::Return(Some(e)) => {
                let v = self.expr(f, e, frame)?;
                Err(Unwind::Return(v))
            }
        }
    }

    fn condition(&self, f: &Function, cond: &Expr, frame: &mut [Value]) -> Eval<bool> {
        match self.expr(f, cond, frame)? {
            Value::Scalar(ScalarValue::Bool(b)) => Ok(b),
            _ => Err(self.ill_typed(cond.span, "a condition must be a bool")),
        }
    }

    /// Evaluates an expression of scalar type.
    fn scalar(&self, f: &Function, e: &Expr, frame: &mut [Value]) -> Eval<ScalarValue> {
        match self.expr(f, e, frame)? {
            Value::Scalar(v) => Ok(v),
            _ => Err(self.ill_typed(e.span, "a scalar operand was expected")),
        }
    }

    fn expr(&self, f: &Function, e: &Expr, frame: &mut [Value]) -> Eval {
        match &e.kind {
            ExprKind::Literal(l) => Ok(Value::Scalar(ops::literal(*l, e.ty.scalar()))),
            ExprKind::Local(id) => {
                frame.get(*id as usize).copied().ok_or_else(|| self.ill_typed(e.span, "unknown local"))
            }
            ExprKind::Param(p) => self
                .params
                .get(*p as usize)
                .map(|&v| Value::Scalar(v))
                .ok_or_else(|| self.ill_typed(e.span, "unknown parameter")),
            ExprKind::Unary(op, inner) => {
                let v = self.scalar(f, inner, frame)?;
                ops::unary(*op, v).map(Value::Scalar).map_err(|err| self.op_error(err, e.span))
            }
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), a, b) => {
                let left = self.condition(f, a, frame)?;
                // Short circuit: `false && _` and `true || _` skip the right side.
                if left == (*op == BinaryOp::Or) {
                    return Ok(Value::Scalar(ScalarValue::Bool(left)));
                }
                Ok(Value::Scalar(ScalarValue::Bool(self.condition(f, b, frame)?)))
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(f, a, frame)?;
                let y = self.expr(f, b, frame)?;
                ops::binary(*op, x, y).map_err(|err| self.op_error(err, e.span))
            }
            ExprKind::Cast(inner, to) => {
                let v = self.scalar(f, inner, frame)?;
                Ok(Value::Scalar(ops::cast(v, *to)))
            }
            ExprKind::Tuple(items) => {
                if items.is_empty() {
                    return Ok(Value::Unit);
                }
                if items.len() > MAX_TUPLE_LEN {
                    return Err(self.ill_typed(e.span, "tuple too long"));
                }
                let mut values = [Value::Unit; MAX_TUPLE_LEN];
                for (slot, item) in values.iter_mut().zip(items) {
                    *slot = self.expr(f, item, frame)?;
                }
                Value::tuple(&values[..items.len()])
                    .ok_or_else(|| self.ill_typed(e.span, "tuple elements must be scalars"))
            }
            ExprKind::TupleField(base, index) => {
                let v = self.expr(f, base, frame)?;
                v.field(*index as usize).ok_or_else(|| self.ill_typed(e.span, "tuple field"))
            }
            ExprKind::Call(callee, args) => {
                let Some(g) = self.interp.program.functions.get(*callee as usize) else {
                    return Err(self.ill_typed(e.span, "unknown function"));
                };
                if g.params.len() != args.len() {
                    return Err(self.ill_typed(e.span, "argument count"));
                }
                // Arguments are evaluated in the caller's frame, straight into the callee's.
                self.interp_call(*callee, |callee_frame| {
                    for (&local, arg) in g.params.iter().zip(args) {
                        let v = self.expr(f, arg, frame)?;
                        self.set(callee_frame, local, v, arg.span)?;
                    }
                    Ok(())
                })
            }
            ExprKind::Intrinsic(id, args) => {
                // args[0] is the context the method is called on.
                let args = args.get(1..).unwrap_or(&[]);
                let result = if args.len() <= INLINE_ARGS {
                    let mut values = [Value::Unit; INLINE_ARGS];
                    for (slot, arg) in values.iter_mut().zip(args) {
                        *slot = self.expr(f, arg, frame)?;
                    }
                    self.host.intrinsic(*id, &values[..args.len()])
                } else {
                    let mut values = Vec::with_capacity(args.len());
                    for arg in args {
                        values.push(self.expr(f, arg, frame)?);
                    }
                    self.host.intrinsic(*id, &values)
                };
                match result {
                    Ok(v) if v.has_type(&e.ty) => Ok(v),
                    Ok(v) => Err(RuntimeError::IllTyped {
                        message: format!(
                            "the host returned {v:?} for intrinsic {id}, expected a value of type `{}`",
                            e.ty
                        ),
                        location: self.location(e.span),
                    }
                    .into()),
                    Err(RuntimeError::Host { message, location: None }) => {
                        Err(RuntimeError::Host { message, location: Some(self.location(e.span)) }.into())
                    }
                    Err(other) => Err(other.into()),
                }
            }
            ExprKind::Math(m, args) => {
                let Some(first) = args.first() else {
                    return Err(self.ill_typed(e.span, "math function without arguments"));
                };
                let x = self.scalar(f, first, frame)?;
                let y = match args.get(1) {
                    Some(arg) => Some(self.scalar(f, arg, frame)?),
                    None => None,
                };
                ops::math(*m, x, y).map(Value::Scalar).map_err(|err| self.op_error(err, e.span))
            }
            ExprKind::If { cond, then, otherwise } => {
                if self.condition(f, cond, frame)? {
                    self.block(f, then, frame)
                } else {
                    match otherwise {
                        Some(other) => self.expr(f, other, frame),
                        None => Ok(Value::Unit),
                    }
                }
            }
            ExprKind::Match { scrutinee, arms } => {
                let v = self.expr(f, scrutinee, frame)?;
                let Some(x) = v.as_i128() else { return Err(self.ill_typed(scrutinee.span, "match on a non-integer")) };
                for arm in arms {
                    let hit = arm.patterns.is_empty()
                        || arm.patterns.iter().any(|p| match *p {
                            crate::ir::MatchPattern::Value(v) => x == v,
                            crate::ir::MatchPattern::Range(lo, hi) => lo <= x && x <= hi,
                        });
                    if hit {
                        return self.expr(f, &arm.body, frame);
                    }
                }
                Err(self.ill_typed(e.span, "no arm of `match` matched"))
            }
            ExprKind::Block(b) => self.block(f, b, frame),
            ExprKind::Error => Err(self.ill_typed(e.span, "a node that failed to lower")),
        }
    }

    fn interp_call(&self, callee: FunctionId, init: impl FnOnce(&mut [Value]) -> Eval<()>) -> Eval {
        match self.with_frame(callee, init) {
            // `break`/`continue` never cross a call.
            Err(Unwind::Break | Unwind::Continue) => {
                let span = self.interp.program.functions[callee as usize].span;
                Err(self.ill_typed(span, "`break` or `continue` outside of a loop"))
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreter_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Interpreter>();
        check::<Value>();
        check::<RuntimeError>();
    }

    #[test]
    fn powi_matches_rust() {
        for &a in
            &[0.0f64, -0.0, 1.0, -1.5, 2.0, 1.0000001, 3.7, 1e10, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e-300]
        {
            for b in [-1025, -64, -7, -2, -1, 0, 1, 2, 3, 7, 31, 64, 1023, i32::MAX, i32::MIN] {
                let want = std::hint::black_box(a).powi(std::hint::black_box(b));
                let got = ops::powi_f64(a, b);
                assert!(
                    want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()),
                    "{a}.powi({b}): {want} vs {got}"
                );
                let a32 = a as f32;
                let want = std::hint::black_box(a32).powi(std::hint::black_box(b));
                let got = ops::powi_f32(a32, b);
                assert!(
                    want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()),
                    "{a32}.powi({b}): {want} vs {got}"
                );
            }
        }
    }
}
