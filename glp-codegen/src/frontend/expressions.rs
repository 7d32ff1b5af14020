//! Lowering of expressions: literals, paths and constants, parameters (`self.field`),
//! operators, casts, calls of the context's methods, helpers and math functions, `if`.

use super::*;

impl Lowerer<'_> {
    pub(super) fn expr(&mut self, kind: ExprKind, ty: Type, span: Span) -> Expr {
        let span = self.span(span);
        Expr { kind, ty, span }
    }

    pub(super) fn lower_expr(&mut self, expr: &syn::Expr) -> Expr {
        let span = expr.span();
        match expr {
            syn::Expr::Lit(l) => self.lower_lit(&l.lit),
            syn::Expr::Path(p) => self.lower_path(p),
            syn::Expr::Paren(p) => self.lower_expr(&p.expr),
            syn::Expr::Group(g) => self.lower_expr(&g.expr),
            syn::Expr::Unary(u) => {
                let op = match u.op {
                    syn::UnOp::Neg(_) => UnaryOp::Neg,
                    syn::UnOp::Not(_) => UnaryOp::Not,
                    _ => {
                        return self.error_expr(
                            span,
                            "dereferencing is not supported",
                            Some("the subset has no references besides the view"),
                        )
                    }
                };
                let inner = self.lower_expr(&u.expr);
                self.expr(ExprKind::Unary(op, Box::new(inner)), Type::Unit, span)
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => self.statement_value(expr),
            syn::Expr::Binary(b) => {
                let op = binary_op(&b.op);
                let left = self.lower_expr(&b.left);
                let right = self.lower_expr(&b.right);
                self.expr(ExprKind::Binary(op, Box::new(left), Box::new(right)), Type::Unit, span)
            }
            syn::Expr::Cast(c) => {
                let inner = self.lower_expr(&c.expr);
                match self.scalar_of(&c.ty) {
                    Some(s) => self.expr(ExprKind::Cast(Box::new(inner), s), Type::Scalar(s), span),
                    None => {
                        let message = format!("cannot cast to `{}`", type_name(&c.ty));
                        self.error_expr(c.ty.span(), message, Some("casts go to scalar types only"))
                    }
                }
            }
            syn::Expr::Tuple(t) => {
                if t.elems.is_empty() {
                    return self.expr(ExprKind::Tuple(Vec::new()), Type::Unit, span);
                }
                if t.elems.len() > MAX_TUPLE_LEN {
                    return self.error_expr(span, format!("tuples have at most {MAX_TUPLE_LEN} elements"), None);
                }
                let items = t.elems.iter().map(|e| self.lower_expr(e)).collect();
                self.expr(ExprKind::Tuple(items), Type::Unit, span)
            }
            syn::Expr::Field(f) => self.lower_field(f),
            syn::Expr::MethodCall(m) => self.lower_method_call(m),
            syn::Expr::Call(c) => self.lower_call(c),
            syn::Expr::If(i) => self.lower_if(i),
            syn::Expr::Match(m) => self.lower_match(m),
            syn::Expr::Block(b) => {
                if let Some(label) = &b.label {
                    self.error(label.span(), "block labels are not supported", Some(LABEL_HELP));
                }
                let block = self.lower_block(&b.block);
                self.expr(ExprKind::Block(block), Type::Unit, span)
            }
            syn::Expr::Unsafe(_) => self.error_expr(
                span,
                "unsafe blocks are not allowed in GPU programs",
                Some("the subset has no raw pointers or FFI; remove the `unsafe` block"),
            ),
            syn::Expr::Closure(_) => self.error_expr(
                span,
                "closures are not supported",
                Some("write a helper method on the impl and call it as `self.helper(...)`"),
            ),
            syn::Expr::Reference(_) | syn::Expr::RawAddr(_) => {
                self.error_expr(span, "references to locals are not supported", Some("pass values: scalars are copied"))
            }
            syn::Expr::Macro(m) => {
                let name = path_text(&m.mac.path);
                let help = if name == "vec" {
                    "heap allocation is not available in GPU code"
                } else {
                    "macros (println!, vec!, assert!, ...) have no GPU equivalent in the subset"
                };
                self.error_expr(span, format!("macro `{name}!` is not supported"), Some(help))
            }
            syn::Expr::Index(_) => self.error_expr(
                span,
                "indexing is not supported",
                Some("arrays and slices are not part of the subset; read per-vertex data through the view"),
            ),
            syn::Expr::Array(_) | syn::Expr::Repeat(_) => self.error_expr(
                span,
                "arrays are not supported",
                Some("use scalar variables; per-vertex data lives in the view"),
            ),
            syn::Expr::Struct(_) => {
                self.error_expr(span, "struct literals are not supported", Some("return several values as a tuple"))
            }
            syn::Expr::Try(_) => self.error_expr(span, "the `?` operator is not supported", Some("hooks cannot fail")),
            syn::Expr::Async(_) | syn::Expr::Await(_) => self.error_expr(span, "async code is not supported", None),
            syn::Expr::Range(_) => self.error_expr(span, "ranges are only allowed as the range of a `for` loop", None),
            syn::Expr::Let(_) => {
                self.error_expr(span, "`if let` is not supported", Some("match on an integer or compare values"))
            }
            syn::Expr::While(_)
            | syn::Expr::Loop(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Break(_)
            | syn::Expr::Continue(_)
            | syn::Expr::Return(_)
            | syn::Expr::Assign(_) => self.statement_value(expr),
            _ => self.error_expr(
                span,
                "unsupported expression",
                Some("see glp-codegen's crate docs for the accepted subset"),
            ),
        }
    }

    pub(super) fn lower_lit(&mut self, lit: &syn::Lit) -> Expr {
        let span = lit.span();
        match lit {
            syn::Lit::Bool(b) => self.expr(ExprKind::Literal(Literal::Bool(b.value)), Type::Scalar(Scalar::Bool), span),
            syn::Lit::Int(i) => {
                // A negative literal token (`-1` from a macro's `$x:literal`) is a negation.
                let (negative, magnitude) = match i.base10_digits().strip_prefix('-') {
                    Some(m) => (true, m),
                    None => (false, i.base10_digits()),
                };
                let value = match magnitude.parse::<u64>() {
                    Ok(v) => v,
                    Err(_) => {
                        return self.error_expr(span, "integer literal out of range", Some("literals must fit in u64"))
                    }
                };
                let ty = match i.suffix() {
                    "" => self.fresh(VarKind::Int),
                    suffix => match Scalar::from_rust_name(suffix) {
                        Some(s) if s.is_numeric() => Type::Scalar(s),
                        _ => {
                            return self.error_expr(
                                span,
                                format!("unsupported literal suffix `{suffix}`"),
                                Some(&supported_types(self.kind)),
                            )
                        }
                    },
                };
                let literal = if ty.scalar().is_some_and(Scalar::is_float) {
                    Literal::Float(value as f64)
                } else {
                    Literal::Int(value)
                };
                let e = self.expr(ExprKind::Literal(literal), ty.clone(), span);
                if negative {
                    self.expr(ExprKind::Unary(UnaryOp::Neg, Box::new(e)), ty, span)
                } else {
                    e
                }
            }
            syn::Lit::Float(f) => {
                let value = match f.base10_parse::<f64>() {
                    Ok(v) => v,
                    Err(_) => return self.error_expr(span, "invalid float literal", None),
                };
                let ty = match f.suffix() {
                    "" => self.fresh(VarKind::Float),
                    "f32" => Type::Scalar(Scalar::F32),
                    "f64" => Type::Scalar(Scalar::F64),
                    suffix => return self.error_expr(span, format!("unsupported literal suffix `{suffix}`"), None),
                };
                self.expr(ExprKind::Literal(Literal::Float(value)), ty, span)
            }
            syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => self.error_expr(
                span,
                "strings are not supported",
                Some("GPU programs have no String or &str; use integers as labels and codes"),
            ),
            _ => self.error_expr(span, "unsupported literal", Some("use integer, float or bool literals")),
        }
    }

    pub(super) fn lower_path(&mut self, p: &syn::ExprPath) -> Expr {
        let span = p.span();
        if p.qself.is_some() {
            return self.error_expr(span, "qualified paths are not supported", None);
        }
        let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() == 1 {
            let name = &segments[0];
            if name == "self" {
                return self.error_expr(
                    span,
                    "`self` can only be used to read a parameter (`self.field`) or call a helper (`self.helper(...)`)",
                    None,
                );
            }
            if let Some(id) = self.lookup(name) {
                let ty = self.locals[id as usize].ty.clone();
                if ty == Type::Context {
                    return self.error_expr(
                        span,
                        "the view can only be used to call its methods or be passed to a helper",
                        None,
                    );
                }
                return self.expr(ExprKind::Local(id), ty, span);
            }
        }
        // `i64::MAX` is the scalar type's, even where the kind has a constant `MAX` of its own.
        let scalar_path = segments.len() == 2
            && (Scalar::from_rust_name(&segments[0]).is_some() || self.kind.alias(&segments[0]).is_some());
        let last = segments.last().cloned().unwrap_or_default();
        if let Some(c) = self.kind.constant(&last).filter(|_| !scalar_path) {
            let (ty, value) = (c.ty, c.value);
            return self.expr(ExprKind::Literal(Literal::Int(value)), Type::Scalar(ty), span);
        }
        if segments.len() == 2 {
            if let Some(s) = Scalar::from_rust_name(&segments[0]).or_else(|| self.kind.alias(&segments[0])) {
                if let Some(literal) = scalar_constant(s, &segments[1]) {
                    return self.expr(ExprKind::Literal(literal), Type::Scalar(s), span);
                }
                if s.is_signed_integer() && segments[1] == "MIN" {
                    // `-(2^(bits-1))`: literals are magnitudes, and this one negates to MIN.
                    let magnitude = 1u64 << (s.bits() - 1);
                    let e = self.expr(ExprKind::Literal(Literal::Int(magnitude)), Type::Scalar(s), span);
                    return self.expr(ExprKind::Unary(UnaryOp::Neg, Box::new(e)), Type::Scalar(s), span);
                }
            }
        }
        let text = segments.join("::");
        if segments.len() == 1 {
            self.error_expr(span, format!("cannot find value `{text}` in this scope"), None)
        } else {
            let constants: Vec<&str> = self.kind.constants.iter().map(|c| c.name).collect();
            let help = format!("known constants: the scalar types' MIN and MAX, f32/f64 INFINITY, NEG_INFINITY and EPSILON, and the kind's named constants ({})", constants.join(", "));
            self.error_expr(span, format!("unsupported path `{text}`"), Some(&help))
        }
    }

    pub(super) fn lower_field(&mut self, f: &syn::ExprField) -> Expr {
        let span = f.span();
        if is_self(&f.base) {
            let syn::Member::Named(name) = &f.member else {
                return self.error_expr(
                    span,
                    "tuple structs are not supported as parameter blocks",
                    Some("use a struct with named fields"),
                );
            };
            return self.param(&name.to_string(), span);
        }
        match &f.member {
            syn::Member::Unnamed(index) => {
                let base = self.lower_expr(&f.base);
                self.expr(ExprKind::TupleField(Box::new(base), index.index), Type::Unit, span)
            }
            syn::Member::Named(name) => self.error_expr(
                span,
                format!("field access `.{name}` is only supported on `self`"),
                Some("the subset has no structs besides the parameter block"),
            ),
        }
    }

    pub(super) fn param(&mut self, name: &str, span: Span) -> Expr {
        let id = match self.params.iter().position(|p| p.name == name) {
            Some(i) => i as ParamId,
            None => {
                let ty = match &self.fields {
                    Some(fields) => match fields.iter().find(|(n, _)| n == name) {
                        Some((_, Ok(s))) => Type::Scalar(*s),
                        Some((_, Err(ty))) => {
                            let message = format!("parameter `{name}` has type `{ty}`; parameters must be scalars");
                            return self.error_expr(span, message, Some(&supported_types(self.kind)));
                        }
                        None => {
                            let message = format!("no field `{name}` on `{}`", self.name);
                            return self.error_expr(span, message, None);
                        }
                    },
                    None => self.fresh(VarKind::Param(self.params.len() as ParamId)),
                };
                let id = self.params.len() as ParamId;
                let use_span = self.span(span);
                self.params.push(ParamDecl { name: name.to_string(), ty: Scalar::Bool });
                self.param_types.push(ty);
                self.param_uses.push(use_span);
                id
            }
        };
        let ty = self.param_types[id as usize].clone();
        self.expr(ExprKind::Param(id), ty, span)
    }

    pub(super) fn lower_args<'a>(&mut self, args: impl IntoIterator<Item = &'a syn::Expr>) -> Vec<Expr> {
        args.into_iter().map(|a| self.lower_call_arg(a)).collect()
    }

    /// An argument: like any expression, but the view may be passed on.
    pub(super) fn lower_call_arg(&mut self, arg: &syn::Expr) -> Expr {
        if let syn::Expr::Path(p) = arg {
            if let Some(ident) = p.path.get_ident() {
                if let Some(id) = self.lookup(&ident.to_string()) {
                    if self.locals[id as usize].ty == Type::Context {
                        return self.expr(ExprKind::Local(id), Type::Context, arg.span());
                    }
                }
            }
        }
        let e = self.lower_expr(arg);
        if e.ty == Type::Context {
            return self.error_expr(arg.span(), "the view can only be passed to a helper", None);
        }
        e
    }

    pub(super) fn context_local(&self, receiver: &syn::Expr) -> Option<LocalId> {
        let syn::Expr::Path(p) = receiver else { return None };
        let id = self.lookup(&p.path.get_ident()?.to_string())?;
        (self.locals[id as usize].ty == Type::Context).then_some(id)
    }

    pub(super) fn lower_method_call(&mut self, m: &syn::ExprMethodCall) -> Expr {
        let span = m.span();
        let method = m.method.to_string();
        if m.turbofish.is_some() {
            return self.error_expr(span, "generic method calls are not supported", None);
        }
        if let Some(ctx) = self.context_local(&m.receiver) {
            let Some(index) = self.kind.intrinsic_index(&method) else {
                let known: Vec<&str> = self.kind.intrinsics.iter().map(|i| i.name).collect();
                let message = format!("`{}` has no method `{method}`", self.kind.context_type);
                let help = format!("the view's methods are: {}", known.join(", "));
                return self.error_expr(m.method.span(), message, Some(&help));
            };
            let spec = &self.kind.intrinsics[index];
            let ret = spec.ret.map_or(Type::Unit, Type::Scalar);
            let receiver = self.expr(ExprKind::Local(ctx), Type::Context, m.receiver.span());
            let mut args = vec![receiver];
            args.extend(self.lower_args(&m.args));
            return self.expr(ExprKind::Intrinsic(index as IntrinsicId, args), ret, span);
        }
        if is_self(&m.receiver) {
            return self.helper_call(&method, m.method.span(), &m.args, span);
        }
        match MathFn::from_name(&method) {
            Some(f) => {
                let mut args = vec![self.lower_expr(&m.receiver)];
                args.extend(self.lower_args(&m.args));
                if args.len() != f.arity() {
                    let message = format!("`{method}` takes {} argument(s)", f.arity() - 1);
                    return self.error_expr(span, message, None);
                }
                self.expr(ExprKind::Math(f, args), Type::Unit, span)
            }
            None => {
                let hint = heap_hint(&method).unwrap_or("methods on scalars: abs, min, max, sqrt, exp, ln, log2, floor, ceil, round, powi, powf, count_ones, leading_zeros, trailing_zeros, wrapping_add, wrapping_sub, wrapping_mul");
                self.error_expr(m.method.span(), format!("method `{method}` is not supported"), Some(hint))
            }
        }
    }

    pub(super) fn helper_call(
        &mut self,
        name: &str,
        name_span: Span,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        span: Span,
    ) -> Expr {
        let Some(index) = self.signatures.iter().position(|s| s.name == name) else {
            return self.error_expr(
                name_span,
                format!("no method `{name}` in this impl"),
                Some("only methods of this impl can be called (the compiler does not see other impls)"),
            );
        };
        let args = self.lower_args(args);
        let ret = self.signatures[index].ret.clone();
        if args.len() != self.signatures[index].args.len() {
            let message =
                format!("`{name}` takes {} argument(s), {} given", self.signatures[index].args.len(), args.len());
            return self.error_expr(span, message, None);
        }
        self.expr(ExprKind::Call(index as FunctionId, args), ret, span)
    }

    pub(super) fn lower_call(&mut self, c: &syn::ExprCall) -> Expr {
        let span = c.span();
        let syn::Expr::Path(p) = &*c.func else {
            return self.error_expr(c.func.span(), "only calls of named functions are supported", None);
        };
        let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if p.path.segments.iter().any(|s| !s.arguments.is_none()) {
            return self.error_expr(span, "generic calls are not supported", None);
        }
        match segments.as_slice() {
            [ty, name] if ty == "Self" => {
                // `Self::helper(self, args...)`: the receiver is the first argument.
                let mut args = c.args.iter();
                match args.next() {
                    Some(first) if is_self(first) => {
                        let rest: syn::punctuated::Punctuated<syn::Expr, syn::Token![,]> = args.cloned().collect();
                        self.helper_call(name, p.span(), &rest, span)
                    }
                    _ => self.error_expr(span, "call helpers as `self.helper(...)`", None),
                }
            }
            [ty, name] if Scalar::from_rust_name(ty).is_some_and(Scalar::is_numeric) => {
                let Some(f) = MathFn::from_name(name) else {
                    return self.error_expr(span, format!("`{ty}::{name}` is not supported"), None);
                };
                let args = self.lower_args(&c.args);
                if args.len() != f.arity() {
                    return self.error_expr(span, format!("`{ty}::{name}` takes {} argument(s)", f.arity()), None);
                }
                // `f64::sqrt(x)` names the receiver's type: the type checker pins it.
                let scalar = Scalar::from_rust_name(ty).unwrap_or(Scalar::F64);
                self.expr(ExprKind::Math(f, args), Type::Scalar(scalar), span)
            }
            [first, ..] if ["Vec", "Box", "String", "Rc", "Arc", "HashMap", "BTreeMap", "VecDeque"].contains(&first.as_str()) => {
                self.error_expr(span, format!("`{}` is not available: heap allocation is not supported in GPU code", segments.join("::")), Some(&format!("use scalar locals; {}", self.kind.state_hint)))
            }
            _ => self.error_expr(span, format!("cannot call `{}`", segments.join("::")), Some("only helpers of the impl (`self.helper(...)`) and scalar math functions (`f64::sqrt(x)`) can be called")),
        }
    }

    pub(super) fn lower_if(&mut self, i: &syn::ExprIf) -> Expr {
        let span = i.span();
        if let syn::Expr::Let(l) = &*i.cond {
            return self.error_expr(
                l.span(),
                "`if let` is not supported",
                Some("match on an integer or compare values"),
            );
        }
        let cond = self.lower_expr(&i.cond);
        let then = self.lower_block(&i.then_branch);
        let otherwise = i.else_branch.as_ref().map(|(_, e)| Box::new(self.lower_expr(e)));
        self.expr(ExprKind::If { cond: Box::new(cond), then, otherwise }, Type::Unit, span)
    }
}
