//! The attribute macros' scaffolding, for every kind (glp-macros only forwards to a kind's
//! expansion, which builds on this).
//!
//! A kind's attribute keeps the impl as written, but for an inline attribute on each method
//! ([`inlined_item`]) (rustc type-checks it and the CPU backend calls it natively, so its
//! loops are plain Rust loops there, without the step budget of [`crate::loops`]), and adds
//! an impl of the kind's compiled-program trait. The parts every kind's trait impl holds
//! come from here: the attribute's options, the
//! compilation with its spanned errors, the parameter declarations and values, and where the
//! loops are. Each loop site is `file!()`, `line!()` and `column!()` spanned at the loop, so
//! rustc fills in the user's file and position. Each parameter value is read as
//! `ScalarValue::<T>(self.field)` with `T` the type the compiler inferred, spanned at the
//! field's first use: if the inference and the struct disagree, rustc reports it there.
//!
//! On errors: the impl as written plus one `compile_error!` per problem, so the IDE keeps
//! seeing the item while the user fixes it.

use super::kind::KindSpec;
use super::Compiled;
use crate::ir::{Program, Scalar};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};

/// An annotated impl that compiled, with the attribute's options.
pub struct Expansion {
    /// The impl as parsed.
    pub item: syn::ItemImpl,
    /// The compiled program.
    pub compiled: Compiled,
    /// `#[...(debug)]`: print the generated CUDA while compiling.
    pub debug: bool,
}

/// Parses the options and the impl of `#[<attribute>(<attr>)] <item>` and compiles it for
/// `kind`. Errors: the tokens to emit (the item as written and the errors).
pub fn compile_attribute(
    kind: &KindSpec,
    attribute: &str,
    attr: TokenStream,
    item: &TokenStream,
) -> Result<Expansion, TokenStream> {
    let debug = match parse_options(attr) {
        Ok(debug) => debug,
        Err(e) => {
            let error = e.to_compile_error();
            return Err(quote!(#item #error));
        }
    };
    let parsed: syn::ItemImpl = match syn::parse2(item.clone()) {
        Ok(parsed) => parsed,
        Err(e) => {
            let message = format!("#[{attribute}] goes on `impl {} for YourType {{ ... }}`: {e}", kind.trait_name);
            let error = syn::Error::new(e.span(), message).to_compile_error();
            return Err(quote!(#item #error));
        }
    };
    match super::compile_impl(kind, &parsed, None) {
        Ok(compiled) => Ok(Expansion { item: parsed, compiled, debug }),
        Err(diagnostics) => {
            let errors = diagnostics.to_syn_error().map(|e| e.to_compile_error());
            Err(quote!(#item #errors))
        }
    }
}

/// The impl as written, each method the compiler takes (hooks and helpers, not the kind's
/// host methods) without an inline attribute of its own marked `#[inline(always)]`. The
/// engines are generic over the program and call a hook once per item (a walk step, a
/// vertex); the program's impl lives in the user's crate, and rustc kept such calls out of
/// line even with `#[inline]` (measured on the CPU walk engine), each with its view built in
/// memory. Hooks are small by construction (the compiler's subset), so forcing them inline
/// costs little code; host methods (`validate`, ...) run once a run and stay as written.
pub fn inlined_item(kind: &KindSpec, item: &syn::ItemImpl) -> TokenStream {
    let mut item = item.clone();
    for member in &mut item.items {
        if let syn::ImplItem::Fn(function) = member {
            if !kind.is_host_method(&function.sig.ident)
                && !function.attrs.iter().any(|attr| attr.path().is_ident("inline"))
            {
                function.attrs.push(syn::parse_quote!(#[inline(always)]));
            }
        }
    }
    quote!(#item)
}

fn parse_options(attr: TokenStream) -> syn::Result<bool> {
    if attr.is_empty() {
        return Ok(false);
    }
    let ident: Ident = syn::parse2(attr.clone())
        .map_err(|_| syn::Error::new_spanned(&attr, "expected nothing or `debug` (prints the generated CUDA)"))?;
    if ident == "debug" {
        Ok(true)
    } else {
        Err(syn::Error::new(ident.span(), "unknown option: the only option is `debug`"))
    }
}

/// The methods every kind's compiled-program trait has, for `program` compiled from `item`
/// with CUDA `cuda`: `device_functions`, `program_source`, `param_decls`, `param_values`,
/// `loop_sites`. A kind's expansion puts them in its trait impl beside its own.
pub fn common_methods(expansion: &Expansion, program: &Program, cuda: &str, item: &TokenStream) -> TokenStream {
    let source = item.to_string();
    let decls = param_decls(program);
    let values = param_values(program, &expansion.compiled.param_spans);
    let sites = loop_sites(program, &expansion.compiled.spans);
    quote! {
        fn device_functions(&self) -> &str {
            #cuda
        }
        fn program_source(&self) -> &str {
            #source
        }
        fn param_decls(&self) -> ::std::vec::Vec<::glp::__private::ParamDecl> {
            #decls
        }
        fn param_values(&self) -> ::std::vec::Vec<::glp::__private::ScalarValue> {
            #values
        }
        fn loop_sites(&self) -> ::std::vec::Vec<::glp::__private::LoopSite> {
            #sites
        }
    }
}

/// A `Vec<::glp::__private::ParamDecl>` expression: the parameters of `program`.
pub fn param_decls(program: &Program) -> TokenStream {
    let decls = program.params.iter().map(|p| {
        let field = &p.name;
        let ty = Ident::new(scalar_variant(p.ty), Span::call_site());
        quote!(::glp::__private::ParamDecl { name: ::std::string::String::from(#field), ty: ::glp::__private::Scalar::#ty })
    });
    quote!(::std::vec![#(#decls),*])
}

/// A `Vec<::glp::__private::ScalarValue>` expression: the parameters' values read from
/// `self`, each spanned at its first use (`param_spans`).
pub fn param_values(program: &Program, param_spans: &[Span]) -> TokenStream {
    let values = program.params.iter().zip(param_spans).map(|(p, span)| {
        let field = Ident::new(&p.name, *span);
        let variant = Ident::new(scalar_variant(p.ty), *span);
        quote_spanned!(*span=> ::glp::__private::ScalarValue::#variant(self.#field))
    });
    quote!(::std::vec![#(#values),*])
}

/// A `Vec<::glp::__private::LoopSite>` expression: `program`'s loops, in site order, each
/// spanned at its loop (`spans` indexed by span id).
pub fn loop_sites(program: &Program, spans: &[Span]) -> TokenStream {
    let sites = crate::loops::loop_sites(program).into_iter().map(|site| {
        let function = &program.functions[site.function as usize].name;
        let span = spans.get(site.span.0 as usize).copied().unwrap_or_else(Span::call_site);
        quote_spanned! {span=>
            ::glp::__private::LoopSite {
                function: ::std::string::String::from(#function),
                file: ::std::string::String::from(::core::file!()),
                line: ::core::line!(),
                column: ::core::column!(),
            }
        }
    });
    quote!(::std::vec![#(#sites),*])
}

fn scalar_variant(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "Bool",
        Scalar::I32 => "I32",
        Scalar::I64 => "I64",
        Scalar::U32 => "U32",
        Scalar::U64 => "U64",
        Scalar::F32 => "F32",
        Scalar::F64 => "F64",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The methods of `tokens` (an impl) marked `#[inline(always)]`, by name.
    fn always_inlined(tokens: TokenStream) -> Vec<String> {
        let item: syn::ItemImpl = syn::parse2(tokens).expect("an impl");
        let always: syn::Attribute = syn::parse_quote!(#[inline(always)]);
        item.items
            .iter()
            .filter_map(|member| match member {
                syn::ImplItem::Fn(f) if f.attrs.contains(&always) => Some(f.sig.ident.to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn hooks_and_helpers_are_inlined_and_host_methods_stay_as_written() {
        let item: syn::ItemImpl = syn::parse_quote! {
            impl Sampler for Walk {
                fn validate(&self) -> Result<()> { Ok(()) }
                fn next(&self, view: &SampleView<'_>, s: u32, t: VertexId, l: u32, p: u32) -> VertexId { t }
                #[inline(never)]
                fn steps(&self) -> u32 { 3 }
                fn failure(&self) -> Option<String> { None }
            }
        };
        let kind = &crate::kinds::sample::SAMPLE_KIND;
        assert!(kind.host_methods.contains(&"validate") && kind.host_methods.contains(&"failure"));
        // `steps` keeps its own inline attribute.
        assert_eq!(always_inlined(inlined_item(kind, &item)), ["next"]);
    }
}
