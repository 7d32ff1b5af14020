//! The front end: a `syn` impl block to IR.
//!
//! It accepts exactly the allow-list of the crate docs. Anything else becomes a
//! [`Diagnostic`] pointing at the offending node with a hint, and lowering goes on (the node
//! becomes [`ExprKind::Error`]) so every error of the item is reported in one go.
//!
//! The lowering is one `Lowerer` whose methods are split by construct: `items` (the impl,
//! its functions and signatures), `statements` (blocks, `let`, loops, assignments),
//! `expressions` and `patterns` (`match`). Kind-specific words in messages (aliases, the
//! context type, constants) come from the [`KindSpec`].
//!
//! Types are not decided here: unsuffixed literals, locals without annotation and parameters
//! whose field type is unknown get inference variables that [`crate::typeck`] resolves.

mod expressions;
mod items;
mod patterns;
mod statements;

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::*;
use crate::program::kind::KindSpec;
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
    /// Host methods the impl writes (left out of the program).
    host_methods: Vec<String>,
    /// The impl's declared types, in the kind's order ([`Type::Error`] for one it lacks).
    declared: Vec<Type>,
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

/// The types a program of `kind` may use, for hints.
fn supported_types(kind: &KindSpec) -> String {
    let aliases: String = kind.type_aliases.iter().map(|(name, _)| format!("{name}, ")).collect();
    format!(
        "supported types: bool, i32, i64, u32, u64, f32, f64, {aliases}tuples of these, and `{}`",
        kind.context_signature()
    )
}

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
            host_methods: Vec::new(),
            declared: vec![Type::Error; kind.declared_types.len()],
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
            host_methods,
            declared,
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
        let program =
            Program { name, functions, params, spans: locations.clone(), host_methods, declared_types: declared };
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
