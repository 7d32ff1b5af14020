//! The front end: a `syn` impl block to IR.
//!
//! It accepts exactly the allow-list of the crate docs. Anything else becomes a
//! [`Diagnostic`] pointing at the offending node with a hint, and lowering goes on (the node
//! becomes [`ExprKind::Error`]) so every error of the item is reported in one go.
//!
//! Types are not decided here: unsuffixed literals, locals without annotation and parameters
//! whose field type is unknown get inference variables that [`crate::typeck`] resolves.

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::*;
use crate::kind::KindSpec;
use proc_macro2::Span;
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;

/// What an inference variable may become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    /// Any type (locals without annotation).
    Any,
    /// An integer type (unsuffixed integer literal; defaults to `i32`).
    Int,
    /// A float type (unsuffixed float literal; defaults to `f64`).
    Float,
    /// The type of parameter `ParamId`, whose struct field was not visible.
    Param(ParamId),
}

/// The front end's output: the program with inference variables still in it.
pub struct Lowered {
    pub program: Program,
    pub vars: Vec<VarKind>,
    /// For every parameter, the span of its first use (where inference errors point).
    pub param_uses: Vec<SpanId>,
    pub diagnostics: Diagnostics,
}

/// A field of the implementing struct, when its definition is visible.
pub struct FieldDecl {
    pub name: String,
    pub ty: syn::Type,
}

/// Lowers `item` for program kind `kind`. `fields` are the struct's fields when its
/// definition is known (a file compiled at run time); the macro sees only the impl.
pub fn lower_impl(kind: &KindSpec, item: &syn::ItemImpl, fields: Option<&[FieldDecl]>) -> Lowered {
    let mut lowerer = Lowerer::new(kind, fields);
    lowerer.lower_item(item);
    lowerer.finish()
}

struct Signature {
    name: String,
    args: Vec<Type>,
    ret: Type,
}

struct Lowerer<'k> {
    kind: &'k KindSpec,
    fields: Option<Vec<(String, Result<Scalar, String>)>>,
    spans: Vec<Span>,
    locations: Vec<Location>,
    errors: Vec<Diagnostic>,
    vars: Vec<VarKind>,
    params: Vec<ParamDecl>,
    param_types: Vec<Type>,
    param_uses: Vec<SpanId>,
    signatures: Vec<Signature>,
    functions: Vec<Function>,
    name: String,
    // Per function:
    locals: Vec<LocalDecl>,
    scopes: Vec<HashMap<String, LocalId>>,
    /// The loops around the code being lowered, innermost last.
    loops: Vec<LoopContext>,
    /// Locals declared without a value (`let x;`): assignable once even when not `mut`
    /// (checked by [`crate::init`]).
    deferred: HashSet<LocalId>,
}

/// A loop being lowered.
struct LoopContext {
    kind: LoopKind,
    span: Span,
    /// The local a `loop`'s valued `break`s write, once one is seen.
    value: Option<LocalId>,
    /// The first `break` with a value and the first without one.
    value_break: Option<Span>,
    bare_break: Option<Span>,
}

impl LoopContext {
    fn new(kind: LoopKind, span: Span) -> Self {
        LoopContext { kind, span, value: None, value_break: None, bare_break: None }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LoopKind {
    Loop,
    While,
    For,
    /// The condition of a `while` (where `break` and `continue` are errors, as in Rust).
    WhileCondition,
}

/// Help for loop and block labels.
const LABEL_HELP: &str = "labels are not supported: set a flag variable that the outer loop checks after the inner \
                          one, or move the inner loop into a helper method and `return` from it";

fn type_name(ty: &syn::Type) -> String {
    quote::ToTokens::to_token_stream(ty).to_string().replace(" ", "")
}

const SUPPORTED_TYPES: &str =
    "supported types: bool, i32, i64, u32, u64, f32, f64, VertexId, Label, EdgeId, tuples of these, and `&View<'_>`";

impl<'k> Lowerer<'k> {
    fn new(kind: &'k KindSpec, fields: Option<&[FieldDecl]>) -> Self {
        let mut lowerer = Lowerer {
            kind,
            fields: None,
            spans: Vec::new(),
            locations: Vec::new(),
            errors: Vec::new(),
            vars: Vec::new(),
            params: Vec::new(),
            param_types: Vec::new(),
            param_uses: Vec::new(),
            signatures: Vec::new(),
            functions: Vec::new(),
            name: String::new(),
            locals: Vec::new(),
            scopes: Vec::new(),
            loops: Vec::new(),
            deferred: HashSet::new(),
        };
        lowerer.fields = fields.map(|fields| {
            fields
                .iter()
                .map(|f| {
                    let ty = lowerer.scalar_of(&f.ty).ok_or_else(|| type_name(&f.ty));
                    (f.name.clone(), ty)
                })
                .collect()
        });
        lowerer
    }

    fn finish(self) -> Lowered {
        let Lowerer {
            name,
            functions,
            mut params,
            param_types,
            mut param_uses,
            spans,
            locations,
            errors,
            vars,
            fields,
            ..
        } = self;
        // Parameters in declaration order when the struct is known.
        let mut remap: Vec<ParamId> = (0..params.len() as ParamId).collect();
        if let Some(fields) = &fields {
            let position = |name: &str| fields.iter().position(|(n, _)| n == name).unwrap_or(usize::MAX);
            let mut order: Vec<usize> = (0..params.len()).collect();
            order.sort_by_key(|&i| position(&params[i].name));
            for (new, &old) in order.iter().enumerate() {
                remap[old] = new as ParamId;
            }
            params = order.iter().map(|&i| params[i].clone()).collect();
            param_uses = order.iter().map(|&i| param_uses[i]).collect();
        }
        let mut functions = functions;
        for f in &mut functions {
            remap_params(&mut f.body, &remap);
        }
        let mut vars = vars;
        for kind in &mut vars {
            if let VarKind::Param(p) = kind {
                *p = remap[*p as usize];
            }
        }
        // Parameters whose type is known carry it; the others keep their variables.
        for (i, ty) in param_types.iter().enumerate() {
            if let Type::Scalar(s) = ty {
                params[remap[i] as usize].ty = *s;
            }
        }
        let program = Program { name, functions, params, spans: locations.clone() };
        Lowered { program, vars, param_uses, diagnostics: Diagnostics { errors, locations, spans } }
    }

    // ----- spans and errors -------------------------------------------------------------

    fn span(&mut self, span: Span) -> SpanId {
        let id = SpanId(self.spans.len() as u32);
        let start = span.start();
        let end = span.end();
        self.spans.push(span);
        self.locations.push(Location {
            line: start.line as u32,
            column: start.column as u32,
            end_line: end.line as u32,
            end_column: end.column as u32,
        });
        id
    }

    fn error(&mut self, span: Span, message: impl Into<String>, help: Option<&str>) -> SpanId {
        let id = self.span(span);
        let mut d = Diagnostic::new(id, message);
        if let Some(help) = help {
            d = d.with_help(help);
        }
        self.errors.push(d);
        id
    }

    fn error_expr(&mut self, span: Span, message: impl Into<String>, help: Option<&str>) -> Expr {
        let id = self.error(span, message, help);
        Expr { kind: ExprKind::Error, ty: Type::Error, span: id }
    }

    fn fresh(&mut self, kind: VarKind) -> Type {
        self.vars.push(kind);
        Type::Var(self.vars.len() as u32 - 1)
    }

    // ----- items ------------------------------------------------------------------------

    fn lower_item(&mut self, item: &syn::ItemImpl) {
        self.name = match &*item.self_ty {
            syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                let seg = &p.path.segments[0];
                if !seg.arguments.is_none() {
                    self.error(
                        item.self_ty.span(),
                        "generic types are not supported",
                        Some("implement the trait for a struct without type or lifetime parameters"),
                    );
                }
                seg.ident.to_string()
            }
            other => {
                self.error(other.span(), "the implementing type must be a plain struct name", None);
                "Variant".to_string()
            }
        };
        if !item.generics.params.is_empty() {
            self.error(
                item.generics.span(),
                "generic impls are not supported",
                Some("GPU code is compiled for one concrete type; remove the type parameters"),
            );
        }
        if let Some(unsafety) = &item.unsafety {
            self.error(unsafety.span(), "unsafe impls are not supported", None);
        }
        match &item.trait_ {
            Some((path, _)) if path.segments.last().is_some_and(|s| s.ident == self.kind.trait_name) => {}
            Some((path, _)) => {
                let message = format!("expected an impl of `{}`", self.kind.trait_name);
                self.error(path.span(), message, None);
            }
            None => {
                let message = format!("the attribute goes on `impl {} for {}`", self.kind.trait_name, self.name);
                self.error(item.impl_token.span, message, Some("the hooks are the trait's methods"));
            }
        }

        // Signatures first, so calls resolve whatever the order of definition.
        let mut bodies: Vec<(&syn::ImplItemFn, Role)> = Vec::new();
        for impl_item in &item.items {
            match impl_item {
                syn::ImplItem::Fn(f) => {
                    if let Some(role) = self.declare(f) {
                        bodies.push((f, role));
                    }
                }
                other => {
                    self.error(other.span(), format!("only methods may appear in a {} impl", self.kind.description), Some("constants and associated types are not part of the program; use fields of the struct as parameters"));
                }
            }
        }
        let defaults = self.default_hooks(&bodies);
        let mut defaults_to_lower = Vec::new();
        for (f, hook) in defaults.iter() {
            if let Some(role) = self.declare_default(f, *hook) {
                defaults_to_lower.push((f, role));
            }
        }
        // Hooks first in kind order, then helpers in source order.
        let mut all: Vec<(&syn::ImplItemFn, Role, usize)> = Vec::new();
        for (i, (f, role)) in bodies.iter().enumerate() {
            all.push((f, *role, i));
        }
        for (j, (f, role)) in defaults_to_lower.iter().enumerate() {
            all.push((f, *role, bodies.len() + j));
        }
        all.sort_by_key(|(_, role, i)| (role.hook_index().unwrap_or(usize::MAX), *i));
        // Reorder signatures the same way so FunctionIds index both.
        let order: Vec<usize> = all.iter().map(|(_, _, i)| *i).collect();
        let mut signatures: Vec<Option<Signature>> =
            std::mem::take(&mut self.signatures).into_iter().map(Some).collect();
        self.signatures = order.iter().map(|&i| signatures[i].take().expect("each signature used once")).collect();
        for (f, role, _) in all {
            self.lower_function(f, role);
        }
    }

    /// The kind's default bodies of the hooks the impl does not write.
    fn default_hooks(&mut self, written: &[(&syn::ImplItemFn, Role)]) -> Vec<(syn::ImplItemFn, usize)> {
        let defaults: syn::ItemImpl = match syn::parse_str(self.kind.default_hooks) {
            Ok(item) => item,
            Err(e) => {
                self.error(Span::call_site(), format!("internal error: default hooks do not parse: {e}"), None);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for item in defaults.items {
            if let syn::ImplItem::Fn(f) = item {
                let Some(hook) = self.kind.hook_index(&f.sig.ident.to_string()) else { continue };
                if !written.iter().any(|(_, role)| *role == Role::Hook(hook)) {
                    out.push((f, hook));
                }
            }
        }
        out
    }

    fn declare_default(&mut self, f: &syn::ImplItemFn, hook: usize) -> Option<Role> {
        let role = Role::DefaultHook(hook);
        let (args, ret) = self.signature_types(f)?;
        self.signatures.push(Signature { name: f.sig.ident.to_string(), args, ret });
        Some(role)
    }

    /// Checks a method's signature and records it; `None` when it cannot be lowered.
    fn declare(&mut self, f: &syn::ImplItemFn) -> Option<Role> {
        let sig = &f.sig;
        let name = sig.ident.to_string();
        for attr in &f.attrs {
            let path = attr.path();
            let allowed = ["inline", "doc", "allow", "warn", "deny", "expect"];
            if !allowed.iter().any(|a| path.is_ident(a)) {
                self.error(
                    attr.span(),
                    "unsupported attribute on a hook",
                    Some("only #[inline], #[doc], and lint attributes are allowed"),
                );
            }
        }
        if sig.constness.is_some() || sig.asyncness.is_some() {
            self.error(sig.span(), "const and async functions are not supported", None);
        }
        if let syn::Safety::Unsafe(token) = &sig.safety {
            self.error(
                token.span(),
                "unsafe functions are not allowed in GPU programs",
                Some("the subset has no raw pointers, so nothing needs unsafe"),
            );
        }
        if let Some(abi) = &sig.abi {
            self.error(abi.span(), "extern functions are not supported", None);
        }
        if !sig.generics.params.is_empty() {
            self.error(
                sig.generics.span(),
                format!("generic function `{name}` is not supported"),
                Some("GPU code is compiled for concrete types: write the function for the scalar type you need"),
            );
            return None;
        }
        if sig.variadic.is_some() {
            self.error(sig.span(), "variadic functions are not supported", None);
        }
        let (args, ret) = self.signature_types(f)?;
        let role = match self.kind.hook_index(&name) {
            Some(hook) => {
                let spec = &self.kind.hooks[hook];
                let want_args: Vec<Type> = spec.args.iter().map(|(_, a)| a.ty()).collect();
                let want_ret = spec.ret.ty();
                if args != want_args || ret != want_ret {
                    let expected: Vec<String> = spec
                        .args
                        .iter()
                        .map(|(n, a)| {
                            format!(
                                "{n}: {}",
                                if a.ty() == Type::Context { "&View<'_>".to_string() } else { a.ty().to_string() }
                            )
                        })
                        .collect();
                    let message = format!("hook `{name}` has the wrong signature");
                    let help = format!("expected `fn {name}(&self, {}) -> {}`", expected.join(", "), want_ret);
                    self.error(sig.span(), message, Some(&help));
                    return None;
                }
                Role::Hook(hook)
            }
            None if self.kind.helpers => Role::Helper,
            None => {
                let hooks: Vec<&str> = self.kind.hooks.iter().map(|h| h.name).collect();
                let message = format!("`{name}` is not a hook of `{}`", self.kind.trait_name);
                let help = format!("the hooks are {}; they may call one another as `self.hook(...)`", hooks.join(", "));
                self.error(sig.ident.span(), message, Some(&help));
                return None;
            }
        };
        self.signatures.push(Signature { name, args, ret });
        Some(role)
    }

    fn signature_types(&mut self, f: &syn::ImplItemFn) -> Option<(Vec<Type>, Type)> {
        let sig = &f.sig;
        let mut ok = true;
        let mut args = Vec::new();
        let mut has_receiver = false;
        for (i, input) in sig.inputs.iter().enumerate() {
            match input {
                syn::FnArg::Receiver(r) => {
                    has_receiver = true;
                    match &r.kind {
                        syn::ReceiverKind::Reference(_, _, None) if i == 0 => {}
                        syn::ReceiverKind::Reference(_, _, Some(m)) => {
                            self.error(
                                m.span(),
                                "`&mut self` is not supported: parameters are read-only",
                                Some("take `&self`; per-vertex state lives in the view"),
                            );
                            ok = false;
                        }
                        _ => {
                            self.error(r.span(), "the receiver must be `&self`", None);
                            ok = false;
                        }
                    }
                }
                syn::FnArg::Typed(pt) => match self.arg_type(&pt.ty) {
                    Some(Type::Unit) => {
                        self.error(
                            pt.ty.span(),
                            "arguments of type `()` are not supported",
                            Some("remove the argument: it carries no value"),
                        );
                        ok = false;
                    }
                    Some(t) => args.push(t),
                    None => ok = false,
                },
            }
        }
        if !has_receiver {
            self.error(
                sig.ident.span(),
                "methods must take `&self`",
                Some("associated functions without a receiver are not supported"),
            );
            ok = false;
        }
        let ret = match &sig.output {
            syn::ReturnType::Default => Type::Unit,
            syn::ReturnType::Type(_, ty) => match self.value_type(ty) {
                Some(t) => t,
                None => {
                    ok = false;
                    Type::Error
                }
            },
        };
        ok.then_some((args, ret))
    }

    fn is_context_type(&self, ty: &syn::Type) -> bool {
        if let syn::Type::Reference(r) = ty {
            if r.mutability.is_none() {
                if let syn::Type::Path(p) = &*r.elem {
                    return p.path.segments.last().is_some_and(|s| s.ident == self.kind.context_type);
                }
            }
        }
        false
    }

    fn arg_type(&mut self, ty: &syn::Type) -> Option<Type> {
        if self.is_context_type(ty) {
            return Some(Type::Context);
        }
        self.value_type(ty)
    }

    fn scalar_of(&self, ty: &syn::Type) -> Option<Scalar> {
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let seg = p.path.segments.last()?;
                if !seg.arguments.is_none() {
                    return None;
                }
                let name = seg.ident.to_string();
                Scalar::from_rust_name(&name).or_else(|| self.kind.alias(&name))
            }
            syn::Type::Paren(p) => self.scalar_of(&p.elem),
            syn::Type::Group(g) => self.scalar_of(&g.elem),
            _ => None,
        }
    }

    /// A scalar, tuple of scalars or `()`; an error otherwise.
    fn value_type(&mut self, ty: &syn::Type) -> Option<Type> {
        if let Some(s) = self.scalar_of(ty) {
            return Some(Type::Scalar(s));
        }
        match ty {
            syn::Type::Tuple(t) if t.elems.is_empty() => Some(Type::Unit),
            syn::Type::Tuple(t) => {
                if t.elems.len() > MAX_TUPLE_LEN {
                    self.error(t.span(), format!("tuples have at most {MAX_TUPLE_LEN} elements"), None);
                    return None;
                }
                let mut items = Vec::new();
                for elem in &t.elems {
                    match self.scalar_of(elem) {
                        Some(s) => items.push(s),
                        None => {
                            self.error(
                                elem.span(),
                                format!("unsupported type `{}` in a tuple", type_name(elem)),
                                Some(SUPPORTED_TYPES),
                            );
                            return None;
                        }
                    }
                }
                Some(Type::Tuple(items))
            }
            syn::Type::Reference(_) => {
                self.error(
                    ty.span(),
                    format!("unsupported reference type `{}`", type_name(ty)),
                    Some("only the view is passed by reference; pass scalars by value"),
                );
                None
            }
            _ => {
                self.error(ty.span(), format!("unsupported type `{}`", type_name(ty)), Some(SUPPORTED_TYPES));
                None
            }
        }
    }

    // ----- functions --------------------------------------------------------------------

    fn lower_function(&mut self, f: &syn::ImplItemFn, role: Role) {
        self.locals.clear();
        self.scopes = vec![HashMap::new()];
        self.loops.clear();
        self.deferred.clear();
        let id = self.functions.len();
        let (arg_types, ret) = {
            let sig = &self.signatures[id];
            (sig.args.clone(), sig.ret.clone())
        };
        let mut params = Vec::new();
        let typed_inputs = f.sig.inputs.iter().filter_map(|i| match i {
            syn::FnArg::Typed(pt) => Some(pt),
            syn::FnArg::Receiver(_) => None,
        });
        for (pt, ty) in typed_inputs.zip(arg_types) {
            let (name, mutable) = match &*pt.pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    (p.ident.to_string(), p.mutability.is_some())
                }
                syn::Pat::Wild(_) => ("_".to_string(), false),
                other => {
                    self.error(
                        other.span(),
                        "argument patterns are not supported",
                        Some("name the argument and destructure it in the body"),
                    );
                    ("_".to_string(), false)
                }
            };
            if mutable && ty == Type::Context {
                self.error(pt.span(), "the view argument cannot be `mut`", None);
            }
            let local = self.declare_local(&name, ty, mutable, pt.pat.span());
            params.push(local);
        }
        let body = self.lower_block(&f.block);
        let span = self.span(f.sig.ident.span());
        let name = f.sig.ident.to_string();
        self.functions.push(Function { name, role, params, ret, locals: std::mem::take(&mut self.locals), body, span });
    }

    fn declare_local(&mut self, name: &str, ty: Type, mutable: bool, span: Span) -> LocalId {
        let span = self.span(span);
        let id = self.locals.len() as LocalId;
        self.locals.push(LocalDecl { name: name.to_string(), ty, mutable, span });
        if name != "_" {
            self.scopes.last_mut().expect("a scope is open").insert(name.to_string(), id);
        }
        id
    }

    fn lookup(&self, name: &str) -> Option<LocalId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    // ----- blocks and statements ---------------------------------------------------------

    fn lower_block(&mut self, block: &syn::Block) -> Block {
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

    fn lower_let(&mut self, local: &syn::Local, out: &mut Block) {
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

    fn lower_expr_stmt(&mut self, expr: &syn::Expr, out: &mut Block) {
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
    fn lower_break(&mut self, b: &syn::ExprBreak, span: SpanId, out: &mut Block) {
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
    fn lower_loop(&mut self, l: &syn::ExprLoop) -> (Block, Option<LocalId>) {
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
    fn loop_value(&mut self, body: Block, local: LocalId, span: SpanId, loop_span: Span) -> Expr {
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
    fn statement_value(&mut self, expr: &syn::Expr) -> Expr {
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

    fn lower_loop_body(&mut self, body: &syn::Block, kind: LoopKind, span: Span) -> Block {
        self.loops.push(LoopContext::new(kind, span));
        let block = self.lower_block(body);
        self.loops.pop();
        block
    }

    fn lower_for(&mut self, f: &syn::ExprForLoop) -> Option<StmtKind> {
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

    fn assign_target(&mut self, left: &syn::Expr) -> Option<LocalId> {
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

    fn expr(&mut self, kind: ExprKind, ty: Type, span: Span) -> Expr {
        let span = self.span(span);
        Expr { kind, ty, span }
    }

    fn lower_expr(&mut self, expr: &syn::Expr) -> Expr {
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

    fn lower_lit(&mut self, lit: &syn::Lit) -> Expr {
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
                                Some(SUPPORTED_TYPES),
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

    fn lower_path(&mut self, p: &syn::ExprPath) -> Expr {
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
        let last = segments.last().cloned().unwrap_or_default();
        if let Some(c) = self.kind.constant(&last) {
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
            self.error_expr(span, format!("unsupported path `{text}`"), Some("known constants: the scalar types' MIN and MAX, f32/f64 INFINITY, NEG_INFINITY and EPSILON, and the kind's named constants (UNLABELLED)"))
        }
    }

    fn lower_field(&mut self, f: &syn::ExprField) -> Expr {
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

    fn param(&mut self, name: &str, span: Span) -> Expr {
        let id = match self.params.iter().position(|p| p.name == name) {
            Some(i) => i as ParamId,
            None => {
                let ty = match &self.fields {
                    Some(fields) => match fields.iter().find(|(n, _)| n == name) {
                        Some((_, Ok(s))) => Type::Scalar(*s),
                        Some((_, Err(ty))) => {
                            let message = format!("parameter `{name}` has type `{ty}`; parameters must be scalars");
                            return self.error_expr(span, message, Some(SUPPORTED_TYPES));
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

    fn lower_args<'a>(&mut self, args: impl IntoIterator<Item = &'a syn::Expr>) -> Vec<Expr> {
        args.into_iter().map(|a| self.lower_call_arg(a)).collect()
    }

    /// An argument: like any expression, but the view may be passed on.
    fn lower_call_arg(&mut self, arg: &syn::Expr) -> Expr {
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

    fn context_local(&self, receiver: &syn::Expr) -> Option<LocalId> {
        let syn::Expr::Path(p) = receiver else { return None };
        let id = self.lookup(&p.path.get_ident()?.to_string())?;
        (self.locals[id as usize].ty == Type::Context).then_some(id)
    }

    fn lower_method_call(&mut self, m: &syn::ExprMethodCall) -> Expr {
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

    fn helper_call(
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

    fn lower_call(&mut self, c: &syn::ExprCall) -> Expr {
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
                self.error_expr(span, format!("`{}` is not available: heap allocation is not supported in GPU code", segments.join("::")), Some("use scalar locals; per-vertex state lives in the view (e.g. the label memory)"))
            }
            _ => self.error_expr(span, format!("cannot call `{}`", segments.join("::")), Some("only helpers of the impl (`self.helper(...)`) and scalar math functions (`f64::sqrt(x)`) can be called")),
        }
    }

    fn lower_if(&mut self, i: &syn::ExprIf) -> Expr {
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

    fn lower_match(&mut self, m: &syn::ExprMatch) -> Expr {
        let span = m.span();
        let scrutinee = self.lower_expr(&m.expr);
        let mut arms = Vec::new();
        for arm in &m.arms {
            let mut ty = None;
            let patterns = self.match_patterns(&arm.pat, &mut ty);
            let ty = match ty {
                Some(s) => Type::Scalar(s),
                None => self.fresh(VarKind::Int),
            };
            let pattern_span = self.span(arm.pat.span());
            let body = self.lower_expr(&arm.body);
            arms.push(MatchArm { patterns, ty, span: pattern_span, body });
        }
        self.expr(ExprKind::Match { scrutinee: Box::new(scrutinee), arms }, Type::Unit, span)
    }

    /// The alternatives of an arm's pattern; `ty` receives the type a suffix or a typed
    /// constant gives them.
    fn match_patterns(&mut self, pat: &syn::Pat, ty: &mut Option<Scalar>) -> Vec<MatchPattern> {
        // Stands for a pattern that failed to lower (its error is reported).
        let failed = vec![MatchPattern::Value(i128::MIN)];
        match pat {
            syn::Pat::Wild(_) => Vec::new(),
            syn::Pat::Or(or) => {
                let mut out = Vec::new();
                for case in &or.cases {
                    let sub = self.match_patterns(case, ty);
                    if sub.is_empty() {
                        self.error(case.span(), "`_` must be an arm of its own", None);
                    }
                    out.extend(sub);
                }
                out
            }
            syn::Pat::Paren(p) => self.match_patterns(&p.pat, ty),
            syn::Pat::Lit(l) => match self.pattern_value(&syn::Expr::Lit(l.clone()), ty) {
                Some(v) => vec![MatchPattern::Value(v)],
                None => failed,
            },
            syn::Pat::Path(p) => match self.pattern_value(&syn::Expr::Path(p.clone()), ty) {
                Some(v) => vec![MatchPattern::Value(v)],
                None => failed,
            },
            syn::Pat::Range(r) => {
                // An open end is the type's bound (`i128::MIN`/`MAX` stand for it).
                let lo = match &r.start {
                    Some(e) => self.pattern_value(e, ty),
                    None => Some(i128::MIN),
                };
                let half_open = matches!(r.limits, syn::RangeLimits::HalfOpen(_));
                let hi = match &r.end {
                    Some(e) => self.pattern_value(e, ty).map(|hi| if half_open { hi - 1 } else { hi }),
                    None => Some(i128::MAX),
                };
                let (Some(lo), Some(hi)) = (lo, hi) else { return failed };
                if lo > hi {
                    let message = if half_open {
                        "lower range bound must be less than upper"
                    } else {
                        "lower range bound must be less than or equal to upper"
                    };
                    self.error(r.span(), message, Some("this range matches no value"));
                    return failed;
                }
                vec![MatchPattern::Range(lo, hi)]
            }
            syn::Pat::Guard(g) => {
                self.error(g.span(), "match guards are not supported", Some("use if/else inside the arm"));
                failed
            }
            syn::Pat::Ident(i) => {
                self.error(
                    i.span(),
                    "bindings in patterns are not supported",
                    Some("match on integer literals, ranges and `_`; the scrutinee is still in scope"),
                );
                failed
            }
            other => {
                self.error(
                    other.span(),
                    "unsupported pattern",
                    Some("match arms take integer literals, `a..=b` ranges, `|` alternatives and `_`"),
                );
                failed
            }
        }
    }

    /// The value of a pattern's literal (negative ones included) or constant.
    fn pattern_value(&mut self, e: &syn::Expr, ty: &mut Option<Scalar>) -> Option<i128> {
        match e {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
                // syn keeps the sign of `-1` in the literal's digits.
                let Ok(value) = i.base10_digits().parse::<i128>() else {
                    self.error(i.span(), "integer literal out of range", None);
                    return None;
                };
                match i.suffix() {
                    "" => {}
                    suffix => match Scalar::from_rust_name(suffix).filter(|s| s.is_integer()) {
                        Some(s) => self.pattern_type(ty, s, e.span()),
                        None => {
                            self.error(i.span(), format!("`{suffix}` is not an integer type"), None);
                            return None;
                        }
                    },
                }
                Some(value)
            }
            syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => {
                self.pattern_value(expr, ty).map(|v| -v)
            }
            syn::Expr::Paren(p) => self.pattern_value(&p.expr, ty),
            syn::Expr::Path(p) if p.qself.is_none() => {
                let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                if let Some(c) = segments.last().and_then(|name| self.kind.constant(name)) {
                    let (s, value) = (c.ty, c.value);
                    self.pattern_type(ty, s, e.span());
                    return Some(i128::from(value));
                }
                if let [type_name, name] = segments.as_slice() {
                    let scalar = Scalar::from_rust_name(type_name).or_else(|| self.kind.alias(type_name));
                    if let Some((s, value)) = scalar.and_then(|s| Some((s, int_constant(s, name)?))) {
                        self.pattern_type(ty, s, e.span());
                        return Some(value);
                    }
                }
                let constants: Vec<&str> = self.kind.constants.iter().map(|c| c.name).collect();
                let mut help = "patterns take integer literals and the integer types' MIN and MAX".to_string();
                if !constants.is_empty() {
                    help = format!("{help}, and the constants {}", constants.join(", "));
                }
                self.error(e.span(), format!("unknown constant `{}` in a pattern", segments.join("::")), Some(&help));
                None
            }
            other => {
                self.error(other.span(), "patterns must be integer literals", None);
                None
            }
        }
    }

    /// Records that an arm's patterns have type `s` (from a suffix or a constant).
    fn pattern_type(&mut self, ty: &mut Option<Scalar>, s: Scalar, span: Span) {
        match *ty {
            Some(t) if t != s => {
                self.error(span, format!("mismatched types in the patterns of this arm: `{t}` and `{s}`"), None);
            }
            _ => *ty = Some(s),
        }
    }
}

fn remap_params(block: &mut Block, remap: &[ParamId]) {
    crate::visit::walk_block_mut(block, &mut |e: &mut Expr| {
        if let ExprKind::Param(p) = &mut e.kind {
            *p = remap[*p as usize];
        }
    });
}

fn is_self(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Path(p) if p.path.is_ident("self"))
}

fn path_text(p: &syn::Path) -> String {
    p.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::")
}

/// Whether an expression in tail position is really a statement (`while`, `return`, ...).
/// A `loop` is not: its type is that of its `break` values (or never, without `break`).
fn is_statement_like(e: &syn::Expr) -> bool {
    matches!(
        e,
        syn::Expr::While(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Break(_)
            | syn::Expr::Continue(_)
            | syn::Expr::Return(_)
            | syn::Expr::Assign(_)
    ) || matches!(e, syn::Expr::Binary(b) if compound_op(&b.op).is_some())
}

fn heap_hint(method: &str) -> Option<&'static str> {
    match method {
        "iter" | "into_iter" | "map" | "filter" | "fold" | "sum" | "collect" | "for_each" => {
            Some("iterators are not available in GPU code: use `for i in start..end` or `while`")
        }
        "to_string" | "to_owned" | "clone" | "push" | "len" => {
            Some("heap values (Vec, String) are not available in GPU code")
        }
        _ => None,
    }
}

fn binary_op(op: &syn::BinOp) -> BinaryOp {
    use syn::BinOp as B;
    match op {
        B::Add(_) => BinaryOp::Add,
        B::Sub(_) => BinaryOp::Sub,
        B::Mul(_) => BinaryOp::Mul,
        B::Div(_) => BinaryOp::Div,
        B::Rem(_) => BinaryOp::Rem,
        B::And(_) => BinaryOp::And,
        B::Or(_) => BinaryOp::Or,
        B::BitXor(_) => BinaryOp::BitXor,
        B::BitAnd(_) => BinaryOp::BitAnd,
        B::BitOr(_) => BinaryOp::BitOr,
        B::Shl(_) => BinaryOp::Shl,
        B::Shr(_) => BinaryOp::Shr,
        B::Eq(_) => BinaryOp::Eq,
        B::Lt(_) => BinaryOp::Lt,
        B::Le(_) => BinaryOp::Le,
        B::Ne(_) => BinaryOp::Ne,
        B::Ge(_) => BinaryOp::Ge,
        B::Gt(_) => BinaryOp::Gt,
        other => compound_op(other).unwrap_or(BinaryOp::Add),
    }
}

fn compound_op(op: &syn::BinOp) -> Option<BinaryOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => BinaryOp::Add,
        B::SubAssign(_) => BinaryOp::Sub,
        B::MulAssign(_) => BinaryOp::Mul,
        B::DivAssign(_) => BinaryOp::Div,
        B::RemAssign(_) => BinaryOp::Rem,
        B::BitXorAssign(_) => BinaryOp::BitXor,
        B::BitAndAssign(_) => BinaryOp::BitAnd,
        B::BitOrAssign(_) => BinaryOp::BitOr,
        B::ShlAssign(_) => BinaryOp::Shl,
        B::ShrAssign(_) => BinaryOp::Shr,
        _ => return None,
    })
}

/// `i32::MIN`, `u64::MAX` and the other bounds of the integer types.
fn int_constant(s: Scalar, name: &str) -> Option<i128> {
    Some(match (s, name) {
        (Scalar::I32, "MIN") => i32::MIN.into(),
        (Scalar::I32, "MAX") => i32::MAX.into(),
        (Scalar::I64, "MIN") => i64::MIN.into(),
        (Scalar::I64, "MAX") => i64::MAX.into(),
        (Scalar::U32, "MIN") | (Scalar::U64, "MIN") => 0,
        (Scalar::U32, "MAX") => u32::MAX.into(),
        (Scalar::U64, "MAX") => u64::MAX.into(),
        _ => return None,
    })
}

/// `u32::MAX`, `f64::INFINITY` and friends (`i32::MIN` and `i64::MIN` are negations: see
/// the caller).
fn scalar_constant(s: Scalar, name: &str) -> Option<Literal> {
    let int = |v: u64| Some(Literal::Int(v));
    match (s, name) {
        (Scalar::U32, "MAX") => int(u32::MAX as u64),
        (Scalar::U64, "MAX") => int(u64::MAX),
        (Scalar::I32, "MAX") => int(i32::MAX as u64),
        (Scalar::I64, "MAX") => int(i64::MAX as u64),
        (Scalar::U32 | Scalar::U64, "MIN") => int(0),
        (Scalar::F32, "MAX") => Some(Literal::Float(f32::MAX as f64)),
        (Scalar::F64, "MAX") => Some(Literal::Float(f64::MAX)),
        (Scalar::F32, "MIN") => Some(Literal::Float(f32::MIN as f64)),
        (Scalar::F64, "MIN") => Some(Literal::Float(f64::MIN)),
        (Scalar::F32, "EPSILON") => Some(Literal::Float(f32::EPSILON as f64)),
        (Scalar::F64, "EPSILON") => Some(Literal::Float(f64::EPSILON)),
        (Scalar::F32 | Scalar::F64, "INFINITY") => Some(Literal::Float(f64::INFINITY)),
        (Scalar::F32 | Scalar::F64, "NEG_INFINITY") => Some(Literal::Float(f64::NEG_INFINITY)),
        _ => None,
    }
}
