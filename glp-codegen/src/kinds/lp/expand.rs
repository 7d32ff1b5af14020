//! The `#[glp::lp_variant]` attribute's expansion (glp-macros only forwards to it): the impl
//! as written, then an impl of `::glp::lp::CompiledVariant` carrying the generated CUDA (whose
//! loops have the step budget), the program's source tokens (so the interpreter can run it
//! too), the features it uses, its parameter values and where its loops are. The parts every
//! kind shares (options, errors, parameters, loop sites) are [`crate::program::expand`]'s.

use super::LpProgram;
use crate::program::expand::{common_methods, compile_attribute, inlined_item};
use proc_macro2::TokenStream;
use quote::quote;

/// Expands `#[lp_variant(<attr>)] <item>`.
pub fn expand_attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    let expansion = match compile_attribute(&super::LP_KIND, "glp::lp_variant", attr, &item) {
        Ok(expansion) => expansion,
        Err(tokens) => return tokens,
    };
    let program = LpProgram::new(expansion.compiled.program.clone());
    let cuda = program.device_functions();
    if expansion.debug {
        eprintln!("glp: CUDA generated for `{}`:\n{cuda}", program.program.name);
    }
    let self_ty = &expansion.item.self_ty;
    let name = &program.program.name;
    let features = program.features.bits();
    let unit_weights = super::properties::unit_neighbor_weight(&program.program);
    let score_is_frequency = super::properties::score_is_frequency(&program.program);
    let default_load_neighbor = super::properties::default_load_neighbor(&program.program);
    let distinct_first_sweep = super::properties::distinct_first_sweep(&program.program);
    let common = common_methods(&expansion, &program.program, &cuda, &item);
    let generated = quote! {
        impl ::glp::lp::CompiledVariant for #self_ty {
            #common
            fn name(&self) -> &str {
                #name
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
            fn default_load_neighbor(&self) -> bool {
                #default_load_neighbor
            }
            fn distinct_first_sweep(&self) -> bool {
                #distinct_first_sweep
            }
        }
    };
    let item = inlined_item(&super::LP_KIND, &expansion.item);
    quote!(#item #generated)
}
