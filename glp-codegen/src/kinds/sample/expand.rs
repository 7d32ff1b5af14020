//! The `#[glp::sampler]` attribute's expansion (glp-macros only forwards to it): the impl as
//! written, then an impl of `::glp::sample::CompiledSampler` carrying the generated CUDA
//! (whose loops have the step budget), the program's source tokens (so the interpreter can
//! run it too), its parameter values and where its loops are. The parts every kind shares
//! are [`crate::program::expand`]'s.

use super::SampleProgram;
use crate::program::expand::{compile_attribute, loop_sites, param_decls, param_values};
use proc_macro2::TokenStream;
use quote::quote;

/// Expands `#[sampler(<attr>)] <item>`.
pub fn expand_attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    let expansion = match compile_attribute(&super::SAMPLE_KIND, "glp::sampler", attr, &item) {
        Ok(expansion) => expansion,
        Err(tokens) => return tokens,
    };
    let program = SampleProgram::new(expansion.compiled.program);
    let cuda = program.device_functions();
    if expansion.debug {
        eprintln!("glp: CUDA generated for `{}`:\n{cuda}", program.program.name);
    }
    let self_ty = &expansion.item.self_ty;
    let source = item.to_string();
    let features = program.features.iter();
    let decls = param_decls(&program.program);
    let values = param_values(&program.program, &expansion.compiled.param_spans);
    let sites = loop_sites(&program.program, &expansion.compiled.spans);
    let generated = quote! {
        impl ::glp::sample::CompiledSampler for #self_ty {
            fn device_functions(&self) -> &str {
                #cuda
            }
            fn program_source(&self) -> &str {
                #source
            }
            fn features(&self) -> &[&'static str] {
                &[#(#features),*]
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
    };
    quote!(#item #generated)
}
