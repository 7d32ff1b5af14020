//! The `#[glp::sampler]` attribute's expansion (glp-macros only forwards to it): the impl as
//! written, then an impl of `::glp::sample::CompiledSampler` carrying the generated CUDA
//! (whose loops have the step budget), the program's source tokens (so the interpreter can
//! run it too), its parameter values and where its loops are. The parts every kind shares
//! are [`crate::program::expand`]'s.

use super::SampleProgram;
use crate::program::expand::{common_methods, compile_attribute, inlined_item};
use proc_macro2::TokenStream;
use quote::quote;

/// Expands `#[sampler(<attr>)] <item>`.
pub fn expand_attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    let expansion = match compile_attribute(&super::SAMPLE_KIND, "glp::sampler", attr, &item) {
        Ok(expansion) => expansion,
        Err(tokens) => return tokens,
    };
    let program = SampleProgram::new(expansion.compiled.program.clone());
    let cuda = program.device_functions();
    if expansion.debug {
        eprintln!("glp: CUDA generated for `{}`:\n{cuda}", program.program.name);
    }
    let self_ty = &expansion.item.self_ty;
    let features = program.features.iter();
    let common = common_methods(&expansion, &program.program, &cuda, &item);
    let generated = quote! {
        impl ::glp::sample::CompiledSampler for #self_ty {
            #common
            fn features(&self) -> &[&'static str] {
                &[#(#features),*]
            }
        }
    };
    let item = inlined_item(&super::SAMPLE_KIND, &expansion.item);
    quote!(#item #generated)
}
