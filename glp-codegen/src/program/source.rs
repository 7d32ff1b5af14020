//! Compiling a program of any kind from a source file at run time (`glp lp --variant
//! my_variant.rs`).
//!
//! The file is ordinary Rust, as a user would write it for the kind's attribute macro: a
//! struct whose fields are the parameters and one `impl <KindSpec::trait_name> for
//! ThatStruct` (the attribute may be present or not). Here the struct is visible, so
//! parameter types come from it instead of being inferred.

use super::kind::KindSpec;
use super::Compiled;
use crate::diag::Diagnostics;
use crate::frontend::FieldDecl;
use crate::ir::Location;
use std::fmt;

/// Why a source file did not compile.
#[derive(Debug)]
pub enum SourceError {
    /// Not valid Rust (at a 1-based line and a 0-based column).
    Syntax { line: usize, column: usize, message: String, help: Option<String> },
    /// No, or more than one, `impl <trait> for ...`.
    Structure(String),
    /// Outside the accepted subset, or ill-typed.
    Program(Diagnostics),
}

impl SourceError {
    /// The error as rustc would print it: `file:line:col`, the source line and a caret.
    pub fn render(&self, file: &str, source: &str) -> String {
        match self {
            SourceError::Syntax { line, column, message, help } => {
                let (line, column) = (*line as u32, *column as u32);
                let location = Location { line, column, end_line: line, end_column: column + 1 };
                let mut out = format!("error: {message}\n");
                crate::diag::render_location(&mut out, file, source, location);
                if let Some(help) = help {
                    out.push_str(&format!("  = help: {help}\n"));
                }
                out.push_str(&format!("1 error in {file}"));
                out
            }
            SourceError::Structure(message) => format!("error: {file}: {message}"),
            SourceError::Program(d) => d.render(file, source),
        }
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Syntax { line, column, message, .. } => write!(f, "{line}:{}: {message}", column + 1),
            SourceError::Structure(message) => f.write_str(message),
            SourceError::Program(d) => write!(f, "{} error(s) in the program", d.errors.len()),
        }
    }
}

impl std::error::Error for SourceError {}

/// Compiles the program of kind `kind` defined in `source`.
pub fn compile_source(kind: &KindSpec, source: &str) -> Result<Compiled, SourceError> {
    let file = syn::parse_file(source).map_err(|e| syntax_error(source, &e))?;
    let impls: Vec<&syn::ItemImpl> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Impl(i) if implements(i, kind.trait_name) => Some(i),
            _ => None,
        })
        .collect();
    let item = match impls.as_slice() {
        [one] => *one,
        [] => {
            return Err(SourceError::Structure(format!(
                "no `impl {} for YourStruct` found: a {} file holds a struct and that impl",
                kind.trait_name, kind.noun
            )))
        }
        _ => {
            return Err(SourceError::Structure(format!(
                "more than one `impl {}`: put one {} per file",
                kind.trait_name, kind.noun
            )))
        }
    };
    let fields = struct_fields(&file, item);
    super::compile_impl(kind, item, fields.as_deref()).map_err(SourceError::Program)
}

/// The error of a file syn cannot parse: a delimiter problem at its own place when there is
/// one (syn's lexer stops elsewhere, see [`crate::delimiters`]), else syn's error.
fn syntax_error(source: &str, e: &syn::Error) -> SourceError {
    match crate::delimiters::check(source) {
        Some(d) => SourceError::Syntax { line: d.line, column: d.column, message: d.message, help: d.help },
        None => {
            let start = e.span().start();
            SourceError::Syntax { line: start.line, column: start.column, message: e.to_string(), help: None }
        }
    }
}

/// Whether `item` is an impl of the trait named `trait_name`.
fn implements(item: &syn::ItemImpl, trait_name: &str) -> bool {
    item.trait_.as_ref().is_some_and(|(path, _)| path.segments.last().is_some_and(|s| s.ident == trait_name))
}

/// The named fields of the struct the impl is for, when the file defines it.
fn struct_fields(file: &syn::File, item: &syn::ItemImpl) -> Option<Vec<FieldDecl>> {
    let syn::Type::Path(p) = &*item.self_ty else { return None };
    let name = p.path.segments.last()?.ident.to_string();
    file.items.iter().find_map(|i| match i {
        syn::Item::Struct(s) if s.ident == name => Some(
            s.fields
                .iter()
                .filter_map(|f| Some(FieldDecl { name: f.ident.as_ref()?.to_string(), ty: f.ty.clone() }))
                .collect(),
        ),
        _ => None,
    })
}
