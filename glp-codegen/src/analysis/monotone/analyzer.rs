//! The analysis of statements and control flow: a [`State`] per program point (each local's
//! [`Fact`], reachability, taint after an early exit under a condition on `freq`), branches
//! joined where they meet, loops iterated to a fixed point, calls analysed with their
//! arguments' facts. Expressions are [`super::expressions`]'.

use super::lattice::{join_opt, Fact, Sign};
use crate::ir::{Block, Expr, Function, Program, Scalar, Stmt, StmtKind, Type};
use crate::program::kind::KindSpec;
use crate::visit::let_locals;

/// The analysis state at one point of a function.
#[derive(Debug, Clone)]
pub(super) struct State {
    /// Per local: its fact, `None` before it is assigned.
    pub(super) env: Vec<Option<Fact>>,
    /// Whether the point can be reached.
    pub(super) reachable: bool,
    /// Whether an early exit under a condition on `freq` came before: the rest of the
    /// function runs (or not) depending on `freq`.
    pub(super) sticky: bool,
}

impl State {
    /// Joins the state of another path reaching the same point.
    pub(super) fn join(&mut self, other: &State) {
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

    pub(super) fn same(&self, other: &State) -> bool {
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
pub(super) struct LoopExits {
    pub(super) breaks: Vec<State>,
    pub(super) continues: Vec<State>,
}

/// Fixed-point iterations before a loop is given up on (the lattice is finite, so this is
/// only a guard).
pub(super) const MAX_LOOP_ITERATIONS: usize = 64;

/// One alternative of an `if`, `match` or `&&`/`||`: analyses it from the given state under
/// the given taint, returning its value.
pub(super) type Arm<'a, 'p> = dyn Fn(&mut Analyzer<'p>, &mut State, bool, &mut Option<Fact>) -> Fact + 'a;

pub(super) struct Analyzer<'p> {
    pub(super) program: &'p Program,
    pub(super) kind: &'p KindSpec,
    /// The hook's context argument's name (`view`), for reasons.
    pub(super) context: &'p str,
    /// [`super::Query::non_negative`].
    pub(super) non_negative: &'p [&'p str],
    /// Run-time conditions assumed so far (`bool` parameter expressions).
    pub(super) conditions: Vec<Expr>,
    /// A reason that makes the whole verdict `Unproven`.
    pub(super) fatal: Option<String>,
    /// Early exits taken under a condition on `freq` so far.
    pub(super) tainted_exits: usize,
    /// The `break`/`continue` targets of the loops around the point analysed.
    pub(super) loops: Vec<LoopExits>,
}

impl<'p> Analyzer<'p> {
    pub(super) fn at(&self, e: &Expr, what: &str) -> String {
        let loc = self.program.location(e.span);
        format!("line {}: {what}", loc.line)
    }

    pub(super) fn unknown(&self, e: &Expr, what: &str) -> Fact {
        Fact::unknown(self.at(e, what))
    }

    pub(super) fn fail(&mut self, reason: String) {
        self.fatal.get_or_insert(reason);
    }

    /// The fact of `f`'s result given its arguments' facts.
    pub(super) fn function(&mut self, f: &Function, args: Vec<Fact>) -> Fact {
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

    pub(super) fn block(&mut self, b: &Block, s: &mut State, taint: bool, returns: &mut Option<Fact>) -> Fact {
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
    pub(super) fn write(&self, s: &mut State, local: u32, fact: Fact, taint: bool, at: &Stmt) {
        let fact = if taint || s.sticky {
            let loc = self.program.location(at.span);
            Fact::unknown(format!("line {}: assigned under a condition that depends on ‹arg›", loc.line))
        } else {
            fact
        };
        s.env[local as usize] = Some(fact);
    }

    pub(super) fn stmt(&mut self, stmt: &Stmt, s: &mut State, taint: bool, returns: &mut Option<Fact>) {
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
    pub(super) fn run_loop(
        &mut self,
        cond: Option<&Expr>,
        body: &Block,
        s: &mut State,
        taint: bool,
        r: &mut Option<Fact>,
    ) {
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
    pub(super) fn for_loop(
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
    pub(super) fn fixpoint(
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
    pub(super) fn branches(
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
}
