//! Walks over the IR shared by the passes that look at every expression.

use crate::ir::{Block, Expr, ExprKind, LetTarget, StmtKind};

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

/// Locals bound by a `let`.
pub fn let_locals(target: &LetTarget) -> Vec<u32> {
    match target {
        LetTarget::Local(id) => vec![*id],
        LetTarget::Tuple(items) => items.iter().flatten().copied().collect(),
    }
}
