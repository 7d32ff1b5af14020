//! The `#[glp::lp_variant]` attribute's expansion (glp-macros only forwards to it): the impl
//! as written, then an impl of `::glp::lp::CompiledVariant` carrying the generated CUDA (whose
//! loops have the step budget), the program's source tokens (so the interpreter can run it
//! too), the features it uses, its parameter values and where its loops are. The parts every
//! kind shares (options, errors, parameters, loop sites) are [`crate::program::expand`]'s.

use super::LpProgram;
use crate::program::expand::{compile_attribute, loop_sites, param_decls, param_values};
use proc_macro2::TokenStream;
use quote::quote;

/// Expands `#[lp_variant(<attr>)] <item>`.
pub fn expand_attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    let expansion = match compile_attribute(&super::LP_KIND, "glp::lp_variant", attr, &item) {
        Ok(expansion) => expansion,
        Err(tokens) => return tokens,
    };
    let program = LpProgram::new(expansion.compiled.program);
    let cuda = program.device_functions();
    if expansion.debug {
        eprintln!("glp: CUDA generated for `{}`:\n{cuda}", program.program.name);
    }
    let self_ty = &expansion.item.self_ty;
    let name = &program.program.name;
    let source = item.to_string();
    let features = program.features.bits();
    let unit_weights = super::properties::unit_neighbor_weight(&program.program);
    let score_is_frequency = super::properties::score_is_frequency(&program.program);
    let decls = param_decls(&program.program);
    let values = param_values(&program.program, &expansion.compiled.param_spans);
    let sites = loop_sites(&program.program, &expansion.compiled.spans);
    let generated = quote! {
        impl ::glp::lp::CompiledVariant for #self_ty {
            fn name(&self) -> &str {
                #name
            }
            fn device_functions(&self) -> &str {
                #cuda
            }
            fn program_source(&self) -> &str {
                #source
            }
            fn features(&self) -> ::glp::lp::LpFeatures {
                ::glp::lp::LpFeatures::from_bits(#features)
            }
            fn unit_neighbor_weight(&self) -> bool {
                #unit_weights
            }
            fn score_is_frequency(&self) -> bool {
                #score_is_frequency
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
