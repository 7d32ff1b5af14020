//! # glp-codegen: the glp compiler
//!
//! An ordinary library (no procedural-macro machinery) that lowers the accepted Rust subset
//! to a typed IR, validates it, and emits deterministic CUDA C device functions that kernel
//! templates fuse into kernels. It also hosts the IR interpreter the CPU backend uses for
//! programs loaded at run time.
//!
//! Pipeline (`ARCHITECTURE.md` at the repository's root has the whole picture):
//!
//! ```text
//! syn impl --frontend--> IR (+ inference variables) --typeck--> typed IR --validate-->
//!     +--cuda--> device functions --template--> .cu kernel source (NVRTC at run time)
//!     +--interp--> values on the CPU (programs loaded at run time)
//! ```
//!
//! Layout: [`program`] is the generic program layer (a kind's description, the pipeline
//! entry [`program::compile_impl`], source files, features, the macros' scaffolding);
//! [`frontend`], [`typeck`], [`validate`], [`cuda`], [`interp`], [`analysis`] are the
//! generic compiler, written against a [`program::kind::KindSpec`]; [`kinds`] holds one
//! folder per program kind; [`lp_kernels`] is the GPU kernel library label propagation
//! variants are fused into.
//!
//! This crate depends on no other glp crate; `glp-macros` and `glp-runtime` depend on it.
//!
//! # The accepted subset
//!
//! Hook bodies are written in this allow-list of Rust (DESIGN section 2); every other
//! construct is a compile error at its span with a hint, all errors of an item at once.
//!
//! | construct | accepted | lowered to CUDA as |
//! |---|---|---|
//! | types | `bool`, `i32`, `i64`, `u32`, `u64`, `f32`, `f64`, the kind's aliases (`VertexId`, `Label`, `EdgeId`), tuples of scalars, the types the kind has a program declare (`type Value = (f64, f64);`, written `Self::Value`) | `bool`, `glp_i32` ... `double`, one struct per tuple type, a declared type as `typedef <type> <prefix><name>` (`glp_edge_value`) |
//! | items | methods of the annotated impl: the kind's hooks (and, for kinds written as inherent impls, helpers); `&self`, the context by reference, scalar arguments | `__device__ __forceinline__` functions taking the parameter struct |
//! | parameters | reads of `self.field` (plain scalar fields) | fields of the kernel's parameter struct |
//! | bindings | `let` / `let mut` with or without a value (checked: assigned before read, immutable ones once), tuple patterns, `_` | C locals through a namer (no keyword or shadowing clash) |
//! | operators | arithmetic, bitwise, shifts, comparisons, `&&` / `\|\|`, `!`, unary `-`, compound assignment | Rust semantics: wrapping signed ops, masked shift amounts, operands evaluated left to right |
//! | casts | `as` between scalars | saturating float-to-integer (NaN to 0), Rust's integer truncation and extension |
//! | control flow | `if` / `else` (also as values), `match` on integers (literals, negative literals, ranges, constants, `_`), `while`, `loop` (with `break value`), `for` over integer ranges `a..b` / `a..=b`, `break`, `continue`, `return` | structured C control flow; every loop counts its iterations against the call's step budget ([`loops`]) |
//! | calls | the context's methods (the kind's intrinsics, each allowed in the hooks its spec names), the kind's hooks through `self.hook(..)`, math methods (`abs`, `min`, `max`, `sqrt`, `ln`, `exp`, `powi`, `powf`, `floor`, ...), `T::MIN` / `T::MAX`, the kind's constants (`UNLABELLED`) | intrinsics of the kind's view header, libdevice math |
//! | rejected | closures, references other than the context, heap types (`Vec`, `Box`, `String`), strings, iterator loops, methods on unknown types, other types (`u8`, arrays, structs), recursion, generics, `unsafe`, macros, indexing, `?`, labels | a compile error with a hint |

pub mod analysis;
pub mod cuda;
pub mod delimiters;
pub mod diag;
pub mod frontend;
pub mod init;
pub mod interp;
pub mod ir;
pub mod kinds;
pub mod loops;
pub mod lp_kernels;
pub mod program;
pub mod template;
pub mod typeck;
pub mod validate;
pub mod visit;
