//! Lowering of blocks and statements: `let`, expression statements, `break` / `continue` /
//! `return`, loops (`loop`, `while`, `for` over ranges) and assignments.

use super::*;

impl Lowerer<'_> {
    pub(super) fn lower_block(&mut self, block: &syn::Block) -> Block {
        self.scopes.push(HashMap::new());
        let mut out = Block::default();
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == n;
            match stmt {
                syn::Stmt::Local(local) => self.lower_let(local, &mut out),
                syn::Stmt::Item(item) => {
                    self.error(
                        item.span(),
                        "items inside function bodies are not supported",
                        Some("define helpers as methods of the impl"),
                    );
                }
                syn::Stmt::Macro(m) => {
                    self.error(
                        m.span(),
                        format!("macro `{}!` is not supported", path_text(&m.mac.path)),
                        Some("macros (println!, vec!, assert!, ...) have no GPU equivalent in the subset"),
                    );
                }
                syn::Stmt::Expr(expr, semi) => {
                    if last && semi.is_none() && !is_statement_like(expr) {
                        out.tail = Some(Box::new(self.lower_expr(expr)));
                    } else {
                        self.lower_expr_stmt(expr, &mut out);
                    }
                }
            }
        }
        self.scopes.pop();
        out
    }

    pub(super) fn lower_let(&mut self, local: &syn::Local, out: &mut Block) {
        let span = self.span(local.span());
        let init = match &local.init {
            Some(init) => {
                if let Some((else_token, _)) = &init.diverge {
                    self.error(else_token.span(), "`let ... else` is not supported", None);
                }
                Some(self.lower_expr(&init.expr))
            }
            None => None,
        };
        let (pat, annotation) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            other => (other, None),
        };
        let annotated = annotation.and_then(|ty| self.value_type(ty));
        let target = match pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                let ty = match annotated {
                    Some(t) => t,
                    None => self.fresh(VarKind::Any),
                };
                LetTarget::Local(self.declare_local(&p.ident.to_string(), ty, p.mutability.is_some(), p.ident.span()))
            }
            syn::Pat::Wild(w) => {
                let ty = self.fresh(VarKind::Any);
                LetTarget::Local(self.declare_local("_", ty, false, w.span()))
            }
            syn::Pat::Tuple(t) => {
                let element_types: Vec<Option<Scalar>> = match &annotated {
                    Some(Type::Tuple(items)) => items.iter().copied().map(Some).collect(),
                    _ => vec![None; t.elems.len()],
                };
                let mut targets = Vec::new();
                for (i, elem) in t.elems.iter().enumerate() {
                    let known = element_types.get(i).copied().flatten();
                    match elem {
                        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                            let ty = match known {
                                Some(s) => Type::Scalar(s),
                                None => self.fresh(VarKind::Any),
                            };
                            targets.push(Some(self.declare_local(
                                &p.ident.to_string(),
                                ty,
                                p.mutability.is_some(),
                                p.ident.span(),
                            )));
                        }
                        syn::Pat::Wild(_) => targets.push(None),
                        other => {
                            self.error(other.span(), "only names and `_` may appear in a tuple pattern", None);
                            targets.push(None);
                        }
                    }
                }
                LetTarget::Tuple(targets)
            }
            other => {
                self.error(other.span(), "unsupported pattern in `let`", Some("bind a name, `_`, or a tuple of names"));
                return;
            }
        };
        if init.is_none() {
            self.deferred.extend(crate::visit::let_locals(&target));
        }
        out.stmts.push(Stmt { kind: StmtKind::Let { target, init }, span });
    }

    pub(super) fn lower_expr_stmt(&mut self, expr: &syn::Expr, out: &mut Block) {
        let span = self.span(expr.span());
        let kind = match expr {
            syn::Expr::While(w) => {
                if let Some(label) = &w.label {
                    self.error(label.span(), "loop labels are not supported", Some(LABEL_HELP));
                }
                if let syn::Expr::Let(l) = &*w.cond {
                    self.error(l.span(), "`while let` is not supported", Some("use `while` with a condition"));
                }
                self.loops.push(LoopContext::new(LoopKind::WhileCondition, w.span()));
                let cond = self.lower_expr(&w.cond);
                self.loops.pop();
                let body = self.lower_loop_body(&w.body, LoopKind::While, w.span());
                StmtKind::While { cond, body }
            }
            syn::Expr::Loop(l) => {
                let (body, value) = self.lower_loop(l);
                match value {
                    None => StmtKind::Loop { body },
                    // The value is dropped.
                    Some(local) => StmtKind::Expr(self.loop_value(body, local, span, l.span())),
                }
            }
            syn::Expr::ForLoop(f) => match self.lower_for(f) {
                Some(kind) => kind,
                None => return,
            },
            syn::Expr::Break(b) => return self.lower_break(b, span, out),
            syn::Expr::Continue(c) => {
                if let Some(label) = &c.label {
                    self.error(label.span(), "labelled `continue` is not supported", Some(LABEL_HELP));
                }
                match self.loops.last().map(|l| l.kind) {
                    None => {
                        self.error(c.span(), "`continue` outside of a loop", None);
                    }
                    Some(LoopKind::WhileCondition) => {
                        self.error(c.span(), "`continue` inside the condition of a `while` loop", None);
                    }
                    Some(_) => {}
                }
                StmtKind::Continue
            }
            syn::Expr::Return(r) => StmtKind::Return(r.expr.as_ref().map(|e| self.lower_expr(e))),
            syn::Expr::Assign(a) => match self.assign_target(&a.left) {
                Some(target) => StmtKind::Assign { target, op: None, value: self.lower_expr(&a.right) },
                None => return,
            },
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => match self.assign_target(&b.left) {
                Some(target) => StmtKind::Assign { target, op: compound_op(&b.op), value: self.lower_expr(&b.right) },
                None => return,
            },
            other => StmtKind::Expr(self.lower_expr(other)),
        };
        out.stmts.push(Stmt { kind, span });
    }

    /// `break` and `break value` (which only a `loop` takes: the value goes to the loop's
    /// value local, then the loop is left).
    pub(super) fn lower_break(&mut self, b: &syn::ExprBreak, span: SpanId, out: &mut Block) {
        if let Some(label) = &b.label {
            self.error(label.span(), "labelled `break` is not supported", Some(LABEL_HELP));
        }
        // After an error the `break` stays (typed never), so no second error follows.
        let Some(depth) = self.loops.len().checked_sub(1) else {
            self.error(b.span(), "`break` outside of a loop", None);
            out.stmts.push(Stmt { kind: StmtKind::Break, span });
            return;
        };
        let kind = self.loops[depth].kind;
        if kind == LoopKind::WhileCondition {
            self.error(b.span(), "`break` inside the condition of a `while` loop", None);
            out.stmts.push(Stmt { kind: StmtKind::Break, span });
            return;
        }
        match &b.expr {
            None => {
                self.loops[depth].bare_break.get_or_insert(b.span());
            }
            Some(value) if kind == LoopKind::Loop => {
                let value = self.lower_expr(value);
                let local = match self.loops[depth].value {
                    Some(local) => local,
                    None => {
                        let ty = self.fresh(VarKind::Any);
                        let decl_span = self.span(self.loops[depth].span);
                        let local = self.locals.len() as LocalId;
                        // Not in any scope: the user's code cannot name it.
                        self.locals.push(LocalDecl { name: "loop_value".into(), ty, mutable: true, span: decl_span });
                        self.loops[depth].value = Some(local);
                        local
                    }
                };
                self.loops[depth].value_break.get_or_insert(b.span());
                out.stmts.push(Stmt { kind: StmtKind::Assign { target: local, op: None, value }, span });
            }
            Some(value) => {
                let which = if kind == LoopKind::While { "while" } else { "for" };
                self.error(
                    value.span(),
                    format!("`break` with a value is only allowed in `loop`, not in `{which}`"),
                    Some("assign to a variable declared before the loop, or use `loop`"),
                );
            }
        }
        out.stmts.push(Stmt { kind: StmtKind::Break, span });
    }

    /// A `loop`'s body, and the local its `break`s write when they have values.
    pub(super) fn lower_loop(&mut self, l: &syn::ExprLoop) -> (Block, Option<LocalId>) {
        if let Some(label) = &l.label {
            self.error(label.span(), "loop labels are not supported", Some(LABEL_HELP));
        }
        self.loops.push(LoopContext::new(LoopKind::Loop, l.span()));
        let body = self.lower_block(&l.body);
        let context = self.loops.pop().expect("pushed above");
        if let (Some(_), Some(bare)) = (context.value_break, context.bare_break) {
            self.error(
                bare,
                "this `break` has no value, but another `break` of the same `loop` has one",
                Some("a `loop` has one type: give every `break` of it a value of that type"),
            );
        }
        (body, context.value)
    }

    /// `loop` as a value: `{ let local; loop { ... local = v; break; ... } local }`.
    pub(super) fn loop_value(&mut self, body: Block, local: LocalId, span: SpanId, loop_span: Span) -> Expr {
        let ty = self.locals[local as usize].ty.clone();
        let block = Block {
            stmts: vec![
                Stmt { kind: StmtKind::Let { target: LetTarget::Local(local), init: None }, span },
                Stmt { kind: StmtKind::Loop { body }, span },
            ],
            tail: Some(Box::new(Expr { kind: ExprKind::Local(local), ty, span })),
        };
        self.expr(ExprKind::Block(block), Type::Unit, loop_span)
    }

    /// A statement used as a value (`match k { 0 => break, _ => x = 1 }`): a block holding
    /// it, of type `()` (or never, for `break`, `continue` and `return`).
    pub(super) fn statement_value(&mut self, expr: &syn::Expr) -> Expr {
        if let syn::Expr::Loop(l) = expr {
            let span = self.span(l.span());
            let (body, value) = self.lower_loop(l);
            return match value {
                Some(local) => self.loop_value(body, local, span, l.span()),
                None => {
                    let block = Block { stmts: vec![Stmt { kind: StmtKind::Loop { body }, span }], tail: None };
                    self.expr(ExprKind::Block(block), Type::Unit, l.span())
                }
            };
        }
        let mut block = Block::default();
        self.lower_expr_stmt(expr, &mut block);
        self.expr(ExprKind::Block(block), Type::Unit, expr.span())
    }

    pub(super) fn lower_loop_body(&mut self, body: &syn::Block, kind: LoopKind, span: Span) -> Block {
        self.loops.push(LoopContext::new(kind, span));
        let block = self.lower_block(body);
        self.loops.pop();
        block
    }

    pub(super) fn lower_for(&mut self, f: &syn::ExprForLoop) -> Option<StmtKind> {
        if let Some(label) = &f.label {
            self.error(label.span(), "loop labels are not supported", Some(LABEL_HELP));
        }
        let mut expr = &*f.expr;
        while let syn::Expr::Paren(p) = expr {
            expr = &p.expr;
        }
        let syn::Expr::Range(range) = expr else {
            self.error(
                expr.span(),
                "`for` loops run over integer ranges only",
                Some("write `for i in start..end`; iterators are not available in GPU code"),
            );
            return None;
        };
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            self.error(range.span(), "the range of a `for` loop needs a start and an end", None);
            return None;
        };
        let inclusive = matches!(range.limits, syn::RangeLimits::Closed(_));
        let start = self.lower_expr(start);
        let end = self.lower_expr(end);
        self.scopes.push(HashMap::new());
        let ty = self.fresh(VarKind::Int);
        let var = match &*f.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() && p.mutability.is_none() => {
                self.declare_local(&p.ident.to_string(), ty, false, p.ident.span())
            }
            syn::Pat::Wild(w) => self.declare_local("_", ty, false, w.span()),
            other => {
                self.error(other.span(), "the loop variable must be a name", None);
                self.declare_local("_", ty, false, other.span())
            }
        };
        let body = self.lower_loop_body(&f.body, LoopKind::For, f.span());
        self.scopes.pop();
        Some(StmtKind::For { var, start, end, inclusive, body })
    }

    pub(super) fn assign_target(&mut self, left: &syn::Expr) -> Option<LocalId> {
        match left {
            syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let name = p.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                match self.lookup(&name) {
                    Some(id) if self.locals[id as usize].ty == Type::Context => {
                        self.error(left.span(), "the view cannot be assigned", None);
                        None
                    }
                    Some(id) => {
                        if !self.locals[id as usize].mutable && !self.deferred.contains(&id) {
                            let message = format!("cannot assign twice to immutable variable `{name}`");
                            self.error(left.span(), message, Some("declare it with `let mut`"));
                        }
                        Some(id)
                    }
                    None => {
                        self.error(left.span(), format!("cannot find variable `{name}`"), None);
                        None
                    }
                }
            }
            syn::Expr::Field(f) if is_self(&f.base) => {
                self.error(
                    left.span(),
                    "parameters (fields of `self`) are read-only",
                    Some("copy the value into a `let mut` variable"),
                );
                None
            }
            syn::Expr::Paren(p) => self.assign_target(&p.expr),
            other => {
                self.error(other.span(), "only local variables can be assigned", None);
                None
            }
        }
    }

    // ----- expressions ------------------------------------------------------------------
}
