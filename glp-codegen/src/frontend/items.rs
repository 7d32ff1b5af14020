//! Lowering of the annotated impl: which methods are hooks or helpers, their signatures
//! against the kind's, default hooks, parameters, and each function's body.

use super::*;
use crate::program::kind::{HookArg, HookRet};

impl Lowerer<'_> {
    pub(super) fn lower_item(&mut self, item: &syn::ItemImpl) {
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

        // Declared types first, then signatures, so calls resolve whatever the order of
        // definition.
        self.declare_types(item);
        let mut bodies: Vec<(&syn::ImplItemFn, Role)> = Vec::new();
        for impl_item in &item.items {
            match impl_item {
                syn::ImplItem::Type(t) if self.kind.declared_type(&t.ident.to_string()).is_some() => {}
                syn::ImplItem::Fn(f) if self.kind.is_host_method(&f.sig.ident) => {
                    self.host_methods.push(f.sig.ident.to_string());
                }
                syn::ImplItem::Fn(f) => {
                    if let Some(role) = self.declare(f) {
                        bodies.push((f, role));
                    }
                }
                other => {
                    let declared: Vec<String> =
                        self.kind.declared_types.iter().map(|d| format!("`type {}`", d.name)).collect();
                    let (what, help) = if declared.is_empty() {
                        ("methods", "constants and associated types are not part of the program; use fields of the struct as parameters".to_string())
                    } else {
                        ("methods and the declared types", format!("a {} declares {}; other constants and associated types are not part of the program: use fields of the struct as parameters", self.kind.noun, declared.join(" and ")))
                    };
                    let description = self.kind.description;
                    let article = if description.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
                    let message = format!("only {what} may appear in {article} {description} impl");
                    self.error(other.span(), message, Some(&help));
                }
            }
        }
        let defaults = self.default_hooks(&bodies);
        self.check_required_hooks(item, &bodies, &defaults);
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

    /// Reads the impl's associated types the kind has the program declare
    /// ([`crate::program::kind::KindSpec::declared_types`]): each a scalar, or a tuple of
    /// scalars where the kind allows one; an error at the impl for each missing one.
    fn declare_types(&mut self, item: &syn::ItemImpl) {
        for impl_item in &item.items {
            let syn::ImplItem::Type(t) = impl_item else { continue };
            let Some(index) = self.kind.declared_type(&t.ident.to_string()) else { continue };
            let spec = &self.kind.declared_types[index];
            if !t.generics.params.is_empty() {
                self.error(t.generics.span(), "generic associated types are not supported", None);
                continue;
            }
            if self.declared[index] != Type::Error {
                self.error(t.ident.span(), format!("`type {}` is declared twice", spec.name), None);
                continue;
            }
            let declared = match self.value_type(&t.ty) {
                Some(ty @ Type::Scalar(_)) => ty,
                Some(ty @ Type::Tuple(_)) if spec.tuple => ty,
                Some(other) => {
                    let expected = if spec.tuple { "a scalar or a tuple of scalars" } else { "a scalar" };
                    let message = format!("`type {}` must be {expected}, not `{other}`", spec.name);
                    self.error(t.ty.span(), message, Some(spec.doc));
                    continue;
                }
                None => continue,
            };
            self.declared[index] = declared;
        }
        let missing: Vec<usize> = (0..self.declared.len()).filter(|&i| self.declared[i] == Type::Error).collect();
        for index in missing {
            let spec = &self.kind.declared_types[index];
            let declared_elsewhere =
                item.items.iter().any(|i| matches!(i, syn::ImplItem::Type(t) if t.ident == spec.name));
            if !declared_elsewhere {
                let message = format!("missing `type {} = ...;`: a {} declares it", spec.name, self.kind.noun);
                self.error(item.self_ty.span(), message, Some(spec.doc));
            }
        }
    }

    /// The kind's default bodies of the hooks the impl does not write.
    pub(super) fn default_hooks(&mut self, written: &[(&syn::ImplItemFn, Role)]) -> Vec<(syn::ImplItemFn, usize)> {
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

    /// Hooks without a default body must be written: an error at the impl for each missing one.
    fn check_required_hooks(
        &mut self,
        item: &syn::ItemImpl,
        written: &[(&syn::ImplItemFn, Role)],
        defaults: &[(syn::ImplItemFn, usize)],
    ) {
        for (hook, spec) in self.kind.hooks.iter().enumerate() {
            let present =
                written.iter().any(|(_, role)| *role == Role::Hook(hook)) || defaults.iter().any(|(_, h)| *h == hook);
            // A hook written with a wrong signature has its own error already.
            let misdeclared = item.items.iter().any(|i| matches!(i, syn::ImplItem::Fn(f) if f.sig.ident == spec.name));
            if !present && !misdeclared {
                let message = format!("missing hook `{}`: a {} must define it", spec.name, self.kind.noun);
                let help = format!("{}: `fn {}`", spec.doc, self.hook_signature(spec));
                self.error(item.self_ty.span(), message, Some(&help));
            }
        }
    }

    /// How hook `spec` is declared: `name(&self, view: &View<'_>, v: u32) -> u32`.
    fn hook_signature(&self, spec: &crate::program::kind::HookSpec) -> String {
        let mut args = vec!["&self".to_string()];
        args.extend(spec.args.iter().map(|(n, a)| {
            let ty = match a {
                HookArg::Context => self.kind.context_signature(),
                HookArg::Declared(i) => format!("Self::{}", self.kind.declared_types[*i].name),
                HookArg::Scalar(s) => s.to_string(),
            };
            format!("{n}: {ty}")
        }));
        let ret = match spec.ret {
            HookRet::Declared(i) => format!("Self::{}", self.kind.declared_types[i].name),
            HookRet::Optional(i) => format!("(bool, Self::{})", self.kind.declared_types[i].name),
            other => other.ty(&self.declared).to_string(),
        };
        format!("{}({}) -> {ret}", spec.name, args.join(", "))
    }

    pub(super) fn declare_default(&mut self, f: &syn::ImplItemFn, hook: usize) -> Option<Role> {
        let role = Role::DefaultHook(hook);
        let (args, ret) = self.signature_types(f)?;
        self.signatures.push(Signature { name: f.sig.ident.to_string(), args, ret });
        Some(role)
    }

    /// Checks a method's signature and records it; `None` when it cannot be lowered.
    pub(super) fn declare(&mut self, f: &syn::ImplItemFn) -> Option<Role> {
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
                let want_args: Vec<Type> = spec.args.iter().map(|(_, a)| a.ty(&self.declared)).collect();
                let want_ret = spec.ret.ty(&self.declared);
                if want_args.contains(&Type::Error) || want_ret == Type::Error {
                    // A declared type it uses is missing or wrong: reported at the impl.
                    return None;
                }
                if args != want_args || ret != want_ret {
                    let message = format!("hook `{name}` has the wrong signature");
                    let help = format!("expected `fn {}`", self.hook_signature(spec));
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

    pub(super) fn signature_types(&mut self, f: &syn::ImplItemFn) -> Option<(Vec<Type>, Type)> {
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

    pub(super) fn is_context_type(&self, ty: &syn::Type) -> bool {
        if let syn::Type::Reference(r) = ty {
            if r.mutability.is_none() {
                if let syn::Type::Path(p) = &*r.elem {
                    return p.path.segments.last().is_some_and(|s| s.ident == self.kind.context_type);
                }
            }
        }
        false
    }

    pub(super) fn arg_type(&mut self, ty: &syn::Type) -> Option<Type> {
        if self.is_context_type(ty) {
            return Some(Type::Context);
        }
        self.value_type(ty)
    }

    pub(super) fn scalar_of(&self, ty: &syn::Type) -> Option<Scalar> {
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

    /// The program's declared type `ty` names (`Self::Value`), if it names one.
    fn declared_of(&self, ty: &syn::Type) -> Option<Type> {
        let syn::Type::Path(p) = ty else { return None };
        let segments = &p.path.segments;
        if p.qself.is_some() || segments.len() != 2 || segments[0].ident != "Self" {
            return None;
        }
        let index = self.kind.declared_type(&segments[1].ident.to_string())?;
        Some(self.declared[index].clone())
    }

    /// A scalar, tuple of scalars, `()` or a declared type (`Self::Value`); an error
    /// otherwise.
    pub(super) fn value_type(&mut self, ty: &syn::Type) -> Option<Type> {
        if let Some(s) = self.scalar_of(ty) {
            return Some(Type::Scalar(s));
        }
        if let Some(declared) = self.declared_of(ty) {
            // A declared type that failed to declare has its error already.
            return (declared != Type::Error).then_some(declared);
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
                    match self.scalar_of(elem).or_else(|| self.declared_of(elem).and_then(|d| d.scalar())) {
                        Some(s) => items.push(s),
                        None => {
                            self.error(
                                elem.span(),
                                format!("unsupported type `{}` in a tuple", type_name(elem)),
                                Some(&supported_types(self.kind)),
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
                self.error(
                    ty.span(),
                    format!("unsupported type `{}`", type_name(ty)),
                    Some(&supported_types(self.kind)),
                );
                None
            }
        }
    }

    // ----- functions --------------------------------------------------------------------

    pub(super) fn lower_function(&mut self, f: &syn::ImplItemFn, role: Role) {
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

    pub(super) fn declare_local(&mut self, name: &str, ty: Type, mutable: bool, span: Span) -> LocalId {
        let span = self.span(span);
        let id = self.locals.len() as LocalId;
        self.locals.push(LocalDecl { name: name.to_string(), ty, mutable, span });
        if name != "_" {
            self.scopes.last_mut().expect("a scope is open").insert(name.to_string(), id);
        }
        id
    }

    pub(super) fn lookup(&self, name: &str) -> Option<LocalId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    // ----- blocks and statements ---------------------------------------------------------
}
