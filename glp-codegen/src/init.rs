//! Definite initialization, as rustc checks it for locals declared without a value.
//!
//! `let x;` declares a local that later code assigns. Rust requires that every read of it
//! comes after an assignment on every path (E0381), and, unless it is `mut`, that no path
//! assigns it twice (E0384): `let x; if c { x = 1 } else { x = 2 }` is fine, a second
//! `x = 3` or an assignment inside a loop is not. The macro path has rustc check this too,
//! but files loaded at run time have only this pass.
//!
//! A forward data-flow analysis over the structured IR: per tracked local, whether it is
//! assigned on some path (`maybe`) and on every path (`surely`). Branches join (or / and);
//! code after `break`, `continue` and `return` is unreachable; a loop's entry state is
//! iterated to a fixed point over its back edges before errors are reported, so an
//! assignment that a later iteration would repeat is caught.

use crate::diag::Diagnostic;
use crate::ir::*;
use std::collections::BTreeSet;

/// The errors of `f`: reads of possibly unassigned locals and repeated assignments of
/// immutable ones.
pub fn check(f: &Function) -> Vec<Diagnostic> {
    let mut tracked = vec![false; f.locals.len()];
    mark_deferred(&f.body, &mut tracked);
    if !tracked.contains(&true) {
        return Vec::new();
    }
    let mut checker =
        Checker { f, tracked, loops: Vec::new(), report: true, errors: Vec::new(), seen: BTreeSet::new() };
    let mut state = State::entry(f.locals.len());
    checker.block(&f.body, &mut state);
    checker.errors
}

/// Marks the locals of every `let` without a value.
fn mark_deferred(block: &Block, tracked: &mut [bool]) {
    crate::visit::walk_stmts(block, &mut |stmt: &Stmt| {
        if let StmtKind::Let { target, init: None } = &stmt.kind {
            for id in crate::visit::let_locals(target) {
                if let Some(t) = tracked.get_mut(id as usize) {
                    *t = true;
                }
            }
        }
    });
}

/// What is known at one point of the program.
#[derive(Debug, Clone, PartialEq)]
struct State {
    /// False after `break`, `continue` and `return` (nothing there runs).
    reachable: bool,
    /// Per local: assigned on some path here.
    maybe: Vec<bool>,
    /// Per local: assigned on every path here.
    surely: Vec<bool>,
}

impl State {
    fn entry(n: usize) -> State {
        State { reachable: true, maybe: vec![false; n], surely: vec![false; n] }
    }

    /// The state of no path (the identity of `join`).
    fn unreachable(n: usize) -> State {
        State { reachable: false, maybe: vec![false; n], surely: vec![true; n] }
    }

    /// Where paths meet.
    fn join(&mut self, other: &State) {
        if !other.reachable {
            return;
        }
        if !self.reachable {
            *self = other.clone();
            return;
        }
        for (a, b) in self.maybe.iter_mut().zip(&other.maybe) {
            *a |= *b;
        }
        for (a, b) in self.surely.iter_mut().zip(&other.surely) {
            *a &= *b;
        }
    }
}

/// The states at the `break`s and `continue`s of a loop.
struct LoopExits {
    breaks: State,
    continues: State,
}

struct Checker<'a> {
    f: &'a Function,
    tracked: Vec<bool>,
    loops: Vec<LoopExits>,
    /// False while a loop's entry state is still being computed.
    report: bool,
    errors: Vec<Diagnostic>,
    seen: BTreeSet<(SpanId, LocalId)>,
}

impl Checker<'_> {
    fn n(&self) -> usize {
        self.f.locals.len()
    }

    fn error(&mut self, span: SpanId, local: LocalId, d: Diagnostic) {
        if self.report && self.seen.insert((span, local)) {
            self.errors.push(d);
        }
    }

    fn read(&mut self, id: LocalId, span: SpanId, s: &State) {
        let i = id as usize;
        if !s.reachable || !self.tracked.get(i).copied().unwrap_or(false) || s.surely[i] {
            return;
        }
        let name = &self.f.locals[i].name;
        let message = if s.maybe[i] {
            format!("used binding `{name}` is possibly-uninitialized")
        } else {
            format!("used binding `{name}` isn't initialized")
        };
        let d = Diagnostic::new(span, message)
            .with_help(format!("assign `{name}` on every path before this use, or give it a value in its `let`"));
        self.error(span, id, d);
    }

    fn write(&mut self, id: LocalId, span: SpanId, s: &mut State) {
        let i = id as usize;
        if !s.reachable || !self.tracked.get(i).copied().unwrap_or(false) {
            return;
        }
        let local = &self.f.locals[i];
        if !local.mutable && s.maybe[i] {
            let message = format!("cannot assign twice to immutable variable `{}`", local.name);
            let d = Diagnostic::new(span, message).with_help("declare it with `let mut`");
            self.error(span, id, d);
        }
        s.maybe[i] = true;
        s.surely[i] = true;
    }

    fn block(&mut self, block: &Block, s: &mut State) {
        for stmt in &block.stmts {
            self.stmt(stmt, s);
        }
        if let Some(tail) = &block.tail {
            self.expr(tail, s);
        }
    }

    fn stmt(&mut self, stmt: &Stmt, s: &mut State) {
        match &stmt.kind {
            StmtKind::Let { target, init } => {
                if let Some(e) = init {
                    self.expr(e, s);
                }
                // A `let` makes a new binding (again on every iteration of a loop).
                for id in crate::visit::let_locals(target) {
                    let i = id as usize;
                    if i < self.n() {
                        s.maybe[i] = init.is_some();
                        s.surely[i] = init.is_some();
                    }
                }
            }
            StmtKind::Assign { target, op, value } => {
                self.expr(value, s);
                if op.is_some() {
                    self.read(*target, stmt.span, s);
                }
                self.write(*target, stmt.span, s);
            }
            StmtKind::Expr(e) => self.expr(e, s),
            StmtKind::While { cond, body } => self.looping(Some(cond), body, false, s),
            StmtKind::Loop { body } => self.looping(None, body, true, s),
            StmtKind::For { start, end, body, .. } => {
                self.expr(start, s);
                self.expr(end, s);
                self.looping(None, body, false, s);
            }
            StmtKind::Break => {
                if let Some(exits) = self.loops.last_mut() {
                    exits.breaks.join(s);
                }
                *s = State::unreachable(self.n());
            }
            StmtKind::Continue => {
                if let Some(exits) = self.loops.last_mut() {
                    exits.continues.join(s);
                }
                *s = State::unreachable(self.n());
            }
            StmtKind::Return(value) => {
                if let Some(e) = value {
                    self.expr(e, s);
                }
                *s = State::unreachable(self.n());
            }
        }
    }

    /// A loop: `cond` is tested before every iteration (`while`); without it, a `for`
    /// (which may also run no iteration) or, when `infinite`, a `loop` (left only by `break`).
    fn looping(&mut self, cond: Option<&Expr>, body: &Block, infinite: bool, s: &mut State) {
        let report = self.report;
        let mut entry = s.clone();
        // The entry state grows monotonically (maybe: more, surely: fewer): a fixed point
        // comes after a few rounds. Report only in the last one.
        self.report = false;
        let exit = loop {
            let (exit, back) = self.iteration(cond, body, infinite, &entry);
            let mut next = s.clone();
            next.join(&back);
            if next == entry {
                self.report = report;
                if report {
                    self.iteration(cond, body, infinite, &entry);
                }
                break exit;
            }
            entry = next;
        };
        *s = exit;
    }

    /// One pass over a loop from `entry`: the state after the loop, and at the back edge.
    fn iteration(&mut self, cond: Option<&Expr>, body: &Block, infinite: bool, entry: &State) -> (State, State) {
        let n = self.n();
        let mut s = entry.clone();
        if let Some(c) = cond {
            self.expr(c, &mut s);
        }
        let mut exit = if infinite { State::unreachable(n) } else { s.clone() };
        self.loops.push(LoopExits { breaks: State::unreachable(n), continues: State::unreachable(n) });
        self.block(body, &mut s);
        let exits = self.loops.pop().expect("pushed above");
        exit.join(&exits.breaks);
        s.join(&exits.continues);
        (exit, s)
    }

    fn expr(&mut self, e: &Expr, s: &mut State) {
        match &e.kind {
            ExprKind::Literal(_) | ExprKind::Param(_) | ExprKind::Error => {}
            ExprKind::Local(id) => self.read(*id, e.span, s),
            ExprKind::Unary(_, a) | ExprKind::Cast(a, _) | ExprKind::TupleField(a, _) => self.expr(a, s),
            ExprKind::Binary(op, a, b) if op.is_logical() => {
                self.expr(a, s);
                // The right side may not run.
                let mut right = s.clone();
                self.expr(b, &mut right);
                s.join(&right);
            }
            ExprKind::Binary(_, a, b) => {
                self.expr(a, s);
                self.expr(b, s);
            }
            ExprKind::Tuple(items)
            | ExprKind::Call(_, items)
            | ExprKind::Intrinsic(_, items)
            | ExprKind::Math(_, items) => {
                for item in items {
                    self.expr(item, s);
                }
            }
            ExprKind::If { cond, then, otherwise } => {
                self.expr(cond, s);
                let mut other = s.clone();
                self.block(then, s);
                if let Some(o) = otherwise {
                    self.expr(o, &mut other);
                }
                s.join(&other);
            }
            ExprKind::Match { scrutinee, arms } => {
                self.expr(scrutinee, s);
                let mut out = State::unreachable(self.n());
                for arm in arms {
                    let mut branch = s.clone();
                    self.expr(&arm.body, &mut branch);
                    out.join(&branch);
                }
                *s = out;
            }
            ExprKind::Block(b) => self.block(b, s),
        }
    }
}
