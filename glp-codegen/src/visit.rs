//! Walks over the IR shared by the passes that look at every expression.

use crate::ir::{Block, Expr, ExprKind, LetTarget, Stmt, StmtKind};

/// Calls `f` on every expression of `block`, children before parents.
pub fn walk_block_mut(block: &mut Block, f: &mut impl FnMut(&mut Expr)) {
    for stmt in &mut block.stmts {
        match &mut stmt.kind {
            StmtKind::Let { init, .. } => {
                if let Some(e) = init {
                    walk_expr_mut(e, f);
                }
            }
            StmtKind::Assign { value, .. } => walk_expr_mut(value, f),
            StmtKind::Expr(e) => walk_expr_mut(e, f),
            StmtKind::While { cond, body } => {
                walk_expr_mut(cond, f);
                walk_block_mut(body, f);
            }
            StmtKind::Loop { body } => walk_block_mut(body, f),
            StmtKind::For { start, end, body, .. } => {
                walk_expr_mut(start, f);
                walk_expr_mut(end, f);
                walk_block_mut(body, f);
            }
            StmtKind::Return(Some(e)) => walk_expr_mut(e, f),
            StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue => {}
        }
    }
    if let Some(tail) = &mut block.tail {
        walk_expr_mut(tail, f);
    }
}

/// Calls `f` on `expr` and every expression inside it, children before parents.
pub fn walk_expr_mut(expr: &mut Expr, f: &mut impl FnMut(&mut Expr)) {
    match &mut expr.kind {
        ExprKind::Literal(_) | ExprKind::Local(_) | ExprKind::Param(_) | ExprKind::Error => {}
        ExprKind::Unary(_, e) | ExprKind::Cast(e, _) | ExprKind::TupleField(e, _) => walk_expr_mut(e, f),
        ExprKind::Binary(_, a, b) => {
            walk_expr_mut(a, f);
            walk_expr_mut(b, f);
        }
        ExprKind::Tuple(items)
        | ExprKind::Call(_, items)
        | ExprKind::Intrinsic(_, items)
        | ExprKind::Math(_, items) => {
            for e in items {
                walk_expr_mut(e, f);
            }
        }
        ExprKind::If { cond, then, otherwise } => {
            walk_expr_mut(cond, f);
            walk_block_mut(then, f);
            if let Some(e) = otherwise {
                walk_expr_mut(e, f);
            }
        }
        ExprKind::Match { scrutinee, arms } => {
            walk_expr_mut(scrutinee, f);
            for arm in arms {
                walk_expr_mut(&mut arm.body, f);
            }
        }
        ExprKind::Block(b) => walk_block_mut(b, f),
    }
    f(expr);
}

/// Calls `f` on every expression of `block` (read-only), children before parents.
pub fn walk_block(block: &Block, f: &mut impl FnMut(&Expr)) {
    // The IR is small; cloning keeps one walker implementation.
    let mut copy = block.clone();
    walk_block_mut(&mut copy, &mut |e: &mut Expr| f(e));
}

/// Calls `f` on `expr` and every expression inside it (read-only), children before parents.
pub fn walk_expr(expr: &Expr, f: &mut impl FnMut(&Expr)) {
    let mut copy = expr.clone();
    walk_expr_mut(&mut copy, &mut |e: &mut Expr| f(e));
}

/// Locals bound by a `let`.
pub fn let_locals(target: &LetTarget) -> Vec<u32> {
    match target {
        LetTarget::Local(id) => vec![*id],
        LetTarget::Tuple(items) => items.iter().flatten().copied().collect(),
    }
}

/// Whether `body`, a loop's body, has a `break` that leaves that loop (one not inside a
/// nested loop's body).
pub fn breaks_out(body: &Block) -> bool {
    jumps(body, &|k| matches!(k, StmtKind::Break))
}

/// Whether `body`, a loop's body, has a `break` or a `continue` of that loop (one not inside
/// a nested loop's body).
pub fn jumps_out(body: &Block) -> bool {
    jumps(body, &|k| matches!(k, StmtKind::Break | StmtKind::Continue))
}

/// Whether `body`, a loop's body, has a statement `is_jump` accepts outside nested loops'
/// bodies.
fn jumps(body: &Block, is_jump: &impl Fn(&StmtKind) -> bool) -> bool {
    body.stmts.iter().any(|stmt| match &stmt.kind {
        k if is_jump(k) => true,
        StmtKind::Let { init: Some(e), .. }
        | StmtKind::Assign { value: e, .. }
        | StmtKind::Expr(e)
        | StmtKind::Return(Some(e)) => expr_jumps(e, is_jump),
        StmtKind::While { cond, .. } => expr_jumps(cond, is_jump),
        StmtKind::For { start, end, .. } => expr_jumps(start, is_jump) || expr_jumps(end, is_jump),
        StmtKind::Let { init: None, .. }
        | StmtKind::Loop { .. }
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return(None) => false,
    }) || body.tail.as_deref().is_some_and(|e| expr_jumps(e, is_jump))
}

fn expr_jumps(e: &Expr, is_jump: &impl Fn(&StmtKind) -> bool) -> bool {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Local(_) | ExprKind::Param(_) | ExprKind::Error => false,
        ExprKind::Unary(_, a) | ExprKind::Cast(a, _) | ExprKind::TupleField(a, _) => expr_jumps(a, is_jump),
        ExprKind::Binary(_, a, b) => expr_jumps(a, is_jump) || expr_jumps(b, is_jump),
        ExprKind::Tuple(items)
        | ExprKind::Call(_, items)
        | ExprKind::Intrinsic(_, items)
        | ExprKind::Math(_, items) => items.iter().any(|e| expr_jumps(e, is_jump)),
        ExprKind::If { cond, then, otherwise } => {
            expr_jumps(cond, is_jump)
                || jumps(then, is_jump)
                || otherwise.as_deref().is_some_and(|e| expr_jumps(e, is_jump))
        }
        ExprKind::Match { scrutinee, arms } => {
            expr_jumps(scrutinee, is_jump) || arms.iter().any(|arm| expr_jumps(&arm.body, is_jump))
        }
        ExprKind::Block(b) => jumps(b, is_jump),
    }
}

/// Calls `f` on every statement of `block`, those of blocks nested in expressions and loops
/// included, parents before children.
pub fn walk_stmts(block: &Block, f: &mut impl FnMut(&Stmt)) {
    for stmt in &block.stmts {
        f(stmt);
        match &stmt.kind {
            StmtKind::Let { init: Some(e), .. }
            | StmtKind::Assign { value: e, .. }
            | StmtKind::Expr(e)
            | StmtKind::Return(Some(e)) => expr_stmts(e, f),
            StmtKind::While { cond, body } => {
                expr_stmts(cond, f);
                walk_stmts(body, f);
            }
            StmtKind::Loop { body } => walk_stmts(body, f),
            StmtKind::For { start, end, body, .. } => {
                expr_stmts(start, f);
                expr_stmts(end, f);
                walk_stmts(body, f);
            }
            StmtKind::Let { init: None, .. } | StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) => {}
        }
    }
    if let Some(tail) = &block.tail {
        expr_stmts(tail, f);
    }
}

fn expr_stmts(e: &Expr, f: &mut impl FnMut(&Stmt)) {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Local(_) | ExprKind::Param(_) | ExprKind::Error => {}
        ExprKind::Unary(_, a) | ExprKind::Cast(a, _) | ExprKind::TupleField(a, _) => expr_stmts(a, f),
        ExprKind::Binary(_, a, b) => {
            expr_stmts(a, f);
            expr_stmts(b, f);
        }
        ExprKind::Tuple(items)
        | ExprKind::Call(_, items)
        | ExprKind::Intrinsic(_, items)
        | ExprKind::Math(_, items) => {
            for item in items {
                expr_stmts(item, f);
            }
        }
        ExprKind::If { cond, then, otherwise } => {
            expr_stmts(cond, f);
            walk_stmts(then, f);
            if let Some(o) = otherwise {
                expr_stmts(o, f);
            }
        }
        ExprKind::Match { scrutinee, arms } => {
            expr_stmts(scrutinee, f);
            for arm in arms {
                expr_stmts(&arm.body, f);
            }
        }
        ExprKind::Block(b) => walk_stmts(b, f),
    }
}
