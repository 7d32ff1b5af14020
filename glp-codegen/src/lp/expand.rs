//! The `#[glp::lp_variant]` attribute's expansion (glp-macros only forwards to it).
//!
//! Output: the impl exactly as written (rustc type-checks it and the CPU backend calls it
//! natively, so its loops are plain Rust loops there, without the step budget of
//! [`crate::loops`]), then an impl of `::glp::lp::LpKernel` carrying the generated CUDA
//! (whose loops have the budget), the program's source tokens (so the interpreter can run it
//! too), the features it uses, its parameter values, and where its loops are: each loop site
//! is `file!()`, `line!()` and `column!()` spanned at the loop, so rustc fills in the user's
//! file and position. Each parameter value is read as `ScalarValue::<T>(self.field)`
//! with `T` the type the compiler inferred, spanned at the field's first use: if the
//! inference and the struct disagree, rustc reports it there.
//!
//! On errors: the impl as written plus one `compile_error!` per problem, so the IDE keeps
//! seeing the item while the user fixes it.

use super::LpProgram;
use crate::ir::Scalar;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};

/// Expands `#[lp_variant(<attr>)] <item>`.
pub fn expand_attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    let debug = match parse_options(attr) {
        Ok(debug) => debug,
        Err(e) => {
            let error = e.to_compile_error();
            return quote!(#item #error);
        }
    };
    let parsed: syn::ItemImpl = match syn::parse2(item.clone()) {
        Ok(parsed) => parsed,
        Err(e) => {
            let error = syn::Error::new(
                e.span(),
                format!("#[glp::lp_variant] goes on `impl LpVariant for YourType {{ ... }}`: {e}"),
            )
            .to_compile_error();
            return quote!(#item #error);
        }
    };
    let compiled = match crate::compile_impl(&super::LP_KIND, &parsed, None) {
        Ok(compiled) => compiled,
        Err(diagnostics) => {
            let errors = diagnostics.to_syn_error().map(|e| e.to_compile_error());
            return quote!(#item #errors);
        }
    };
    let program = LpProgram::new(compiled.program);
    let cuda = program.device_functions();
    if debug {
        eprintln!("glp: CUDA generated for `{}`:\n{cuda}", program.program.name);
    }
    let loop_sites = loop_sites(&program, &compiled.spans);
    let generated = kernel_impl(&parsed, &program, &cuda, &compiled.param_spans, &item, loop_sites);
    quote!(#item #generated)
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

fn kernel_impl(
    item: &syn::ItemImpl,
    program: &LpProgram,
    cuda: &str,
    param_spans: &[Span],
    tokens: &TokenStream,
    loop_sites: TokenStream,
) -> TokenStream {
    let self_ty = &item.self_ty;
    let name = &program.program.name;
    let source = tokens.to_string();
    let f = program.features;
    let unit_weights = super::mfl::unit_neighbor_weight(&program.program);
    let score_is_frequency = super::sketch::score_is_frequency(&program.program);
    let (pick, hist, mem, seeds, random, vw, ew) =
        (f.custom_pick_label, f.histogram, f.label_memory, f.seeds, f.random, f.vertex_weights, f.edge_weights);
    let values = program.program.params.iter().zip(param_spans).map(|(p, span)| {
        let field = Ident::new(&p.name, *span);
        let variant = Ident::new(variant_name(p.ty), *span);
        quote_spanned!(*span=> ::glp::__private::ScalarValue::#variant(self.#field))
    });
    let decls = program.program.params.iter().map(|p| {
        let field = &p.name;
        let ty = Ident::new(variant_name(p.ty), Span::call_site());
        quote!(::glp::__private::ParamDecl { name: ::std::string::String::from(#field), ty: ::glp::__private::Scalar::#ty })
    });
    quote! {
        impl ::glp::lp::LpKernel for #self_ty {
            fn kernel_name(&self) -> &str {
                #name
            }
            fn device_functions(&self) -> &str {
                #cuda
            }
            fn program_source(&self) -> &str {
                #source
            }
            fn features(&self) -> ::glp::lp::LpFeatures {
                ::glp::lp::LpFeatures {
                    custom_pick_label: #pick,
                    histogram: #hist,
                    label_memory: #mem,
                    seeds: #seeds,
                    random: #random,
                    vertex_weights: #vw,
                    edge_weights: #ew,
                }
            }
            fn unit_neighbor_weight(&self) -> bool {
                #unit_weights
            }
            fn score_is_frequency(&self) -> bool {
                #score_is_frequency
            }
            fn param_decls(&self) -> ::std::vec::Vec<::glp::__private::ParamDecl> {
                ::std::vec![#(#decls),*]
            }
            fn param_values(&self) -> ::std::vec::Vec<::glp::__private::ScalarValue> {
                ::std::vec![#(#values),*]
            }
            fn loop_sites(&self) -> ::std::vec::Vec<::glp::lp::gpu::LoopSite> {
                #loop_sites
            }
        }
    }
}

/// The `Vec` of `::glp::lp::gpu::LoopSite`s of `program`'s loops, in site order, each spanned
/// at its loop (`spans` indexed by span id).
fn loop_sites(program: &LpProgram, spans: &[Span]) -> TokenStream {
    let sites = crate::loops::loop_sites(&program.program).into_iter().map(|site| {
        let function = &program.program.functions[site.function as usize].name;
        let span = spans.get(site.span.0 as usize).copied().unwrap_or_else(Span::call_site);
        quote_spanned! {span=>
            ::glp::lp::gpu::LoopSite {
                function: ::std::string::String::from(#function),
                file: ::std::string::String::from(::core::file!()),
                line: ::core::line!(),
                column: ::core::column!(),
            }
        }
    });
    quote!(::std::vec![#(#sites),*])
}

fn variant_name(s: Scalar) -> &'static str {
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
