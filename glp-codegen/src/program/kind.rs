//! What distinguishes one program kind (label propagation variant, sampler, edge program,
//! path program) from another, as data the general compiler reads: the hooks a user may
//! write, the context object's methods, the type aliases and named constants in scope.
//!
//! The front end, type checker, validator, emitter and interpreter are written against a
//! [`KindSpec`]; nothing in them names a particular kind.

use crate::ir::{Scalar, Type};
use std::collections::BTreeSet;

/// A program kind.
#[derive(Debug)]
pub struct KindSpec {
    /// What programs of this kind are called in messages ("label propagation variant").
    pub description: &'static str,
    /// The short name of one program of this kind ("variant"), in messages such as "one
    /// variant per file".
    pub noun: &'static str,
    /// The trait the annotated impl implements (`LpVariant`).
    pub trait_name: &'static str,
    /// The context type hooks receive by reference (`View`).
    pub context_type: &'static str,
    /// Type names that stand for scalars (`VertexId`, `Label`).
    pub type_aliases: &'static [(&'static str, Scalar)],
    /// Types each program declares for itself as associated types of its impl (an edge
    /// program's `type Value = (f64, f64);`): per-vertex state and the messages between
    /// vertices, whose shape the kind leaves to the program. Hook signatures refer to them
    /// by index ([`HookArg::Declared`]); [`crate::ir::Program::declared_types`] holds what a
    /// program declared, in this order.
    pub declared_types: &'static [DeclaredType],
    /// Named constants (`UNLABELLED`).
    pub constants: &'static [NamedConstant],
    /// The hooks, in a fixed order ([`crate::ir::Role::Hook`] indexes it).
    pub hooks: &'static [HookSpec],
    /// The context's methods ([`crate::ir::ExprKind::Intrinsic`] indexes it).
    pub intrinsics: &'static [IntrinsicSpec],
    /// Source of an impl holding the default body of every hook, in the same subset; hooks
    /// a user does not write are taken from it.
    pub default_hooks: &'static str,
    /// Prefix of generated C names (`glp_lp_`). The kind's CUDA header defines the context's
    /// methods as `<prefix><method>(context, args...)` and, for hooks that loop (see
    /// [`crate::loops`]), `<prefix>loop_budget(context)` (the steps one hook call may run)
    /// and `<prefix>loop_fault(context, site, hook, vertex)` (records a hook whose loops ran
    /// out of steps).
    pub c_prefix: &'static str,
    /// Where a program of this kind keeps state beyond scalar locals, for the hint on heap
    /// types ("per-vertex state lives in the view (e.g. the label memory)").
    pub state_hint: &'static str,
    /// Whether the annotated impl may hold helper methods besides the hooks. False for kinds
    /// written as trait impls (Rust allows only the trait's methods there); true for kinds
    /// written as inherent impls.
    pub helpers: bool,
    /// Methods of the kind's trait that are not hooks but host code, written in full Rust
    /// and run natively only (a sampler's `validate`, which formats an error message): the
    /// compiler leaves them out of the program and lists the ones an impl writes in
    /// [`crate::ir::Program::host_methods`], so that whoever runs a program loaded at run
    /// time can say they were not run.
    pub host_methods: &'static [&'static str],
}

/// A type a program declares ([`KindSpec::declared_types`]).
#[derive(Debug)]
pub struct DeclaredType {
    /// The associated type's name (`Value`); hooks write it `Self::Value`.
    pub name: &'static str,
    /// Whether it may be a tuple of scalars (else one scalar: values an engine combines
    /// with atomics).
    pub tuple: bool,
    pub doc: &'static str,
}

/// A named constant.
#[derive(Debug, Clone, Copy)]
pub struct NamedConstant {
    pub name: &'static str,
    pub ty: Scalar,
    pub value: u64,
    pub doc: &'static str,
}

/// A hook: its name and signature (after `&self`).
#[derive(Debug)]
pub struct HookSpec {
    pub name: &'static str,
    /// Arguments: name used in messages and type. [`Type::Context`] is the view.
    pub args: &'static [(&'static str, HookArg)],
    pub ret: HookRet,
    /// Index into `args` of the vertex the hook works for (the "own vertex" of
    /// [`IntrinsicSpec::own_vertex_arg`], and the vertex a GPU loop fault names); `None` for
    /// hooks that work for no vertex (a sampler's `steps`).
    pub vertex_arg: Option<usize>,
    /// What the hook returns on the GPU when its loops ran out of steps (the run then stops
    /// with an error; [`crate::loops`]): one item per returned scalar.
    pub neutral: &'static [Neutral],
    /// Whether the CUDA back end also emits the hook one loop iteration at a time, for
    /// engines that run one call per thread and keep a warp's lanes busy while their loops
    /// take different numbers of iterations ([`crate::cuda::resumable`]).
    pub resumable: bool,
    pub doc: &'static str,
}

/// A hook's neutral value, or one element of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Neutral {
    /// The zero of the type.
    Zero,
    /// One of the kind's [`NamedConstant`]s, by name.
    /// (A lone `Zero` as the whole neutral value zeroes every scalar of the return type,
    /// whatever its shape: the neutral of a hook returning a declared type.)
    Constant(&'static str),
    /// The hook's argument of that index (in [`HookSpec::args`]).
    Arg(usize),
}

/// An argument type of a hook (const-friendly mirror of [`Type`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookArg {
    Context,
    Scalar(Scalar),
    /// The program's declared type of that index ([`KindSpec::declared_types`]).
    Declared(usize),
}

/// A hook's return type (const-friendly mirror of [`Type`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookRet {
    Unit,
    Scalar(Scalar),
    Pair(Scalar, Scalar),
    /// The program's declared type of that index.
    Declared(usize),
    /// `(bool, T)` with `T` the program's declared scalar type of that index: a value or
    /// none (the flag false).
    Optional(usize),
}

impl HookArg {
    /// The type, for a program whose declared types are `declared`
    /// ([`crate::ir::Program::declared_types`]; [`Type::Error`] for one it lacks).
    pub fn ty(self, declared: &[Type]) -> Type {
        match self {
            HookArg::Context => Type::Context,
            HookArg::Scalar(s) => Type::Scalar(s),
            HookArg::Declared(i) => declared.get(i).cloned().unwrap_or(Type::Error),
        }
    }
}

impl HookRet {
    /// The type, for a program whose declared types are `declared` (as [`HookArg::ty`]).
    pub fn ty(self, declared: &[Type]) -> Type {
        match self {
            HookRet::Unit => Type::Unit,
            HookRet::Scalar(s) => Type::Scalar(s),
            HookRet::Pair(a, b) => Type::Tuple(vec![a, b]),
            HookRet::Declared(i) => declared.get(i).cloned().unwrap_or(Type::Error),
            HookRet::Optional(i) => match declared.get(i) {
                Some(Type::Scalar(s)) => Type::Tuple(vec![Scalar::Bool, *s]),
                _ => Type::Error,
            },
        }
    }
}

/// A method of the context object.
#[derive(Debug)]
pub struct IntrinsicSpec {
    /// Method name (`label`).
    pub name: &'static str,
    /// Argument types after the receiver.
    pub args: &'static [Scalar],
    /// `None` for methods that return nothing.
    pub ret: Option<Scalar>,
    /// Hooks (by index) allowed to call it, directly or through helpers.
    pub allowed_in: &'static [usize],
    /// When set, that argument must be the calling hook's own vertex argument, passed
    /// unchanged (per-vertex state only its own vertex may touch), and the call must sit in
    /// the hook itself, not in a helper.
    pub own_vertex_arg: Option<usize>,
    /// Name of the optional runtime facility the method needs (`histogram`), if any.
    pub feature: Option<&'static str>,
    /// What it does, for the crate docs and error hints.
    pub doc: &'static str,
}

impl KindSpec {
    /// Whether `method` is one of the kind's host methods ([`KindSpec::host_methods`]).
    pub fn is_host_method(&self, method: &syn::Ident) -> bool {
        self.host_methods.iter().any(|m| method == m)
    }

    pub fn hook_index(&self, name: &str) -> Option<usize> {
        self.hooks.iter().position(|h| h.name == name)
    }

    pub fn intrinsic_index(&self, name: &str) -> Option<usize> {
        self.intrinsics.iter().position(|i| i.name == name)
    }

    pub fn alias(&self, name: &str) -> Option<Scalar> {
        self.type_aliases.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    pub fn declared_type(&self, name: &str) -> Option<usize> {
        self.declared_types.iter().position(|d| d.name == name)
    }

    pub fn constant(&self, name: &str) -> Option<&NamedConstant> {
        self.constants.iter().find(|c| c.name == name)
    }

    /// The names of the optional runtime facilities ([`IntrinsicSpec::feature`]) the
    /// kind's context offers, in intrinsic order, each once.
    pub fn feature_names(&self) -> Vec<&'static str> {
        let mut seen = BTreeSet::new();
        self.intrinsics.iter().filter_map(|i| i.feature).filter(|f| seen.insert(*f)).collect()
    }

    /// How the context's type is written in a hook's signature (`&View<'_>`).
    pub fn context_signature(&self) -> String {
        format!("&{}<'_>", self.context_type)
    }
}
